//! `boardgame serve`: the web table (crate `boardgame-server`) for every
//! engine of the command.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use boardgame_server::{Server, ServerConfig};
use clap::Args;

use crate::error::CliError;

/// Options of `boardgame serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Keep every table in this directory and resume unfinished tables on
    /// restart (without it, tables live in memory only).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// The most tables alive at once.
    #[arg(long, default_value_t = 1000)]
    max_tables: usize,
    /// Close tables without any action for this many minutes.
    #[arg(long, default_value_t = 120)]
    idle_minutes: u64,
    /// A pause before each bot decision, in milliseconds, so that people can
    /// follow the bots' moves.
    #[arg(long, default_value_t = 300)]
    bot_delay_ms: u64,
}

/// Runs the server until Ctrl-C.
///
/// # Errors
/// A runtime error when the address cannot be bound or the data directory
/// cannot be read.
pub fn run(args: ServeArgs) -> Result<(), CliError> {
    let config = ServerConfig {
        data_dir: args.data.clone(),
        max_tables: args.max_tables,
        idle_expiry: Duration::from_secs(args.idle_minutes.max(1) * 60),
        bot_delay: Duration::from_millis(args.bot_delay_ms),
        ..ServerConfig::default()
    };
    let data = args.data.map(|d| d.display().to_string());
    Server::builder(config)
        .game::<korovan_core::Korovan>()
        .game::<caravan_core::Caravan>()
        .run(args.addr, |addr| {
            // A closed stdout must not stop the server: write errors are ignored.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "boardgame serve: open http://{addr}/ (Ctrl-C stops)");
            let _ = match &data {
                Some(d) => writeln!(out, "tables are kept in {d} and resumed on restart"),
                None => writeln!(out, "tables live in memory only (use --data DIR to keep them)"),
            };
            let _ = out.flush();
        })
        .map_err(|e| CliError::Runtime(format!("serve: {e}")))
}
