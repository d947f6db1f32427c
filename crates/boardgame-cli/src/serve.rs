//! `boardgame serve`: the web table (crate `boardgame-server`) for every
//! engine of the command.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use boardgame_server::{Server, ServerConfig};
use clap::Args;

use crate::error::CliError;
use crate::games::{GameName, with_game};

/// Options of `boardgame serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Keep every table in this folder (the SQLite database `DIR/tables.db`)
    /// and resume unfinished tables on restart.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA, conflicts_with = "memory")]
    data: PathBuf,
    /// Keep tables in memory only (lost when the server stops): for tests
    /// and demos.
    #[arg(long)]
    memory: bool,
    /// Before serving, delete the rows of every expired table from the
    /// database (they are kept, marked expired, until then).
    #[arg(long, conflicts_with = "memory")]
    purge_expired: bool,
    /// Start even though the database lost acknowledged commits (its WAL
    /// cut, damaged or deleted): from its last intact commit, the files as
    /// they were copied aside first (docs/serve.md, "Operating it").
    #[arg(long, conflicts_with = "memory")]
    recover_from_last_intact_commit: bool,
    /// Print the record of table ID from the data folder (JSON, up to its
    /// last verified step: how a table set aside is exported) and exit
    /// without serving. It writes nothing and may run beside a server.
    #[arg(long, value_name = "ID", conflicts_with_all = ["memory", "purge_expired", "recover_from_last_intact_commit"])]
    export_table: Option<String>,
    /// The most tables alive at once (1 to 1000000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_tables: u64,
    /// Close tables without any action for this many minutes (1 to 525600,
    /// a year).
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=MINUTES_PER_YEAR))]
    idle_minutes: u64,
    /// A pause before each bot decision, in milliseconds, so that people can
    /// follow the bots' moves (0 to 60000).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(0..=60_000))]
    bot_delay_ms: u64,
}

/// The data folder by default, in the working directory.
const DEFAULT_DATA: &str = "boardgame-data";

/// The longest `--idle-minutes`.
const MINUTES_PER_YEAR: u64 = 365 * 24 * 60;

/// Runs the server until Ctrl-C.
///
/// # Errors
/// A runtime error when the address cannot be bound, or the data folder
/// cannot be read or its database is damaged (refused, left untouched).
pub fn run(args: ServeArgs) -> Result<(), CliError> {
    let data = (!args.memory).then(|| std::path::absolute(&args.data).unwrap_or_else(|_| args.data.clone()));
    if let (Some(id), Some(dir)) = (&args.export_table, &data) {
        let record = boardgame_server::export_table(dir, id).map_err(|e| CliError::Runtime(format!("serve: {e}")))?;
        let text = serde_json::to_string_pretty(&record).map_err(|e| CliError::Runtime(e.to_string()))?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}")?;
        return Ok(());
    }
    if args.purge_expired
        && let Some(dir) = &data
    {
        if boardgame_server::database_path(dir).exists() {
            let n = boardgame_server::purge_expired(dir).map_err(|e| CliError::Runtime(format!("serve: {e}")))?;
            eprintln!("purged {n} expired tables from {}", boardgame_server::database_path(dir).display());
        } else {
            eprintln!("no database in {} yet: nothing to purge", dir.display());
        }
    }
    let config = ServerConfig {
        data_dir: data.clone(),
        recover_from_last_intact_commit: args.recover_from_last_intact_commit,
        max_tables: usize::try_from(args.max_tables).unwrap_or(usize::MAX),
        // In range by the parser: at most a year of minutes.
        idle_expiry: Duration::from_secs(args.idle_minutes.saturating_mul(60)),
        bot_delay: Duration::from_millis(args.bot_delay_ms),
        ..ServerConfig::default()
    };
    let data = data.map(|d| boardgame_server::database_path(&d).display().to_string());
    let mut server = Server::builder(config);
    for &game in GameName::ALL {
        server = with_game!(game, G => server.game::<G>());
    }
    // The lobby labels its agents by the committed ladder (docs/bots.md).
    for &game in GameName::ALL {
        let ratings: boardgame_server::LobbyRatings = crate::lobby::lobby_labels(game)
            .into_iter()
            .map(|(n, list)| {
                let agents = list
                    .into_iter()
                    .map(|(agent, label)| boardgame_server::LobbyAgent { agent, label: label.to_string() })
                    .collect();
                (n, agents)
            })
            .collect();
        if !ratings.is_empty() {
            server = server.lobby(game.engine_name(), ratings).map_err(|e| CliError::Runtime(format!("serve: {e}")))?;
        }
    }
    server
        .run(args.addr, |addr| {
            // A closed stdout must not stop the server: write errors are ignored.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "boardgame serve: open http://{addr}/ (Ctrl-C stops)");
            let _ = match &data {
                Some(d) => writeln!(out, "tables are kept in {d} and resumed on restart"),
                None => writeln!(out, "tables live in memory only (--memory); they are lost when the server stops"),
            };
            let _ = out.flush();
        })
        .map_err(|e| CliError::Runtime(format!("serve: {e}")))
}
