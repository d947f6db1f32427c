//! `boardgame ladder` (rate many agents at several player counts) and
//! `boardgame sprt` (is A stronger than B?): the steps are boardgame-sim's
//! ([`boardgame_sim::ladder`], [`boardgame_sim::sprt`]); this module parses
//! the arguments and writes the table, the JSON and the chart.

use std::io::Write;
use std::path::PathBuf;

use boardgame_sim::ladder::{self, LadderResults, LadderSpec};
use boardgame_sim::simulate::Shard;
use boardgame_sim::sprt::{self, Bounds, Decision, SprtSpec, SprtState};
use clap::Args;

use crate::error::CliError;
use crate::games::{GameName, game_parser};
use crate::simulate::Ticker;

/// Arguments of `boardgame ladder`.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The game.
    #[arg(value_parser = game_parser(), required_unless_present = "merge")]
    game: Option<GameName>,
    /// The agents to rate, comma-separated (at least two; names as for
    /// `simulate`, weights files as learned@FILE).
    #[arg(long, short = 'a', required_unless_present = "merge")]
    agents: Option<String>,
    /// The player counts, comma-separated (`2,4`), or a range (`3..9`).
    #[arg(long, short = 'p', value_parser = parse_counts, required_unless_present = "merge")]
    players: Option<Counts>,
    /// Configuration fields as a JSON object laid over the rules' defaults.
    #[arg(long, value_name = "JSON")]
    config: Option<String>,
    /// Deals per player count; each is played once by every lineup (as
    /// many lineups as agents).
    #[arg(long, short = 'n', default_value_t = 100)]
    deals: u64,
    /// The first deal's seed; deal i is played from seed + i.
    #[arg(long, short = 's', default_value_t = 1_000_000)]
    seed: u64,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long, short = 't', value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Play only the I-th of K disjoint ranges of deals, to merge later.
    #[arg(long, value_name = "I/K", value_parser = |s: &str| s.parse::<Shard>())]
    shard: Option<Shard>,
    /// Merge the JSON of these ladder runs (shards) instead of playing.
    #[arg(long, num_args = 1.., value_name = "FILE", conflicts_with_all = ["game", "agents", "players"])]
    merge: Vec<PathBuf>,
    /// Print the ladder's JSON (its tallies, which merge, and the ratings
    /// they give) instead of the table.
    #[arg(long)]
    json: bool,
    /// Draw the ratings as an SVG chart in this file.
    #[arg(long, value_name = "FILE")]
    chart: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Player counts.
#[derive(Clone, Debug)]
struct Counts(Vec<usize>);

/// `2,4`, `3..9` or `3..=9`.
fn parse_counts(s: &str) -> Result<Counts, String> {
    let bad = || format!("expected player counts like 2,4 or 3..9, got `{s}`");
    if let Some((a, b)) = s.split_once("..") {
        let b = b.strip_prefix('=').unwrap_or(b);
        let (a, b): (usize, usize) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if a > b || b > 64 {
            return Err(bad());
        }
        return Ok(Counts((a..=b).collect()));
    }
    let counts: Vec<usize> = s.split(',').map(|x| x.trim().parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
    let mut sorted = counts.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != counts.len() || counts.is_empty() {
        return Err(format!("player counts listed twice or none: `{s}`"));
    }
    Ok(Counts(counts))
}

fn threads(t: Option<u32>) -> usize {
    t.map_or_else(|| std::thread::available_parallelism().map_or(1, usize::from), |t| t as usize)
}

/// Runs `boardgame ladder`.
///
/// # Errors
/// Usage errors for bad arguments; runtime errors for unreadable shards,
/// failed games or files that cannot be written.
pub fn run(args: LadderArgs) -> Result<(), CliError> {
    let results = if args.merge.is_empty() {
        let (Some(game), Some(agents), Some(players)) =
            (args.game, args.agents.clone(), args.players.clone().map(|c| c.0))
        else {
            return Err(CliError::Usage("give the game, --agents and --players (or --merge FILES)".into()));
        };
        let spec = LadderSpec {
            game,
            players,
            config: args.config.clone(),
            agents,
            deals: args.deals,
            seed: args.seed,
            threads: threads(args.threads),
            shard: args.shard,
        };
        let ticker = Ticker::new("ladder", args.quiet);
        let results = ladder::run_ladder(&spec, &ticker).map_err(CliError::from)?;
        ticker.finish();
        results
    } else {
        merged(&args.merge)?
    };
    if let Some(path) = &args.chart {
        boardgame_lab::ladder_chart::ladder_chart(&results, path).map_err(|e| CliError::Runtime(e.to_string()))?;
    }
    let text = if args.json { ladder::to_json(&results) } else { ladder::table(&results) };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(CliError::from)?;
    Ok(())
}

/// The merge of the ladder files `paths` ([`ladder::merge_text`], the
/// errors naming the file).
fn merged(paths: &[PathBuf]) -> Result<LadderResults, CliError> {
    let mut acc: Option<LadderResults> = None;
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::Runtime(format!("cannot read {}: {e}", path.display())))?;
        ladder::merge_text(&mut acc, &text).map_err(|e| CliError::Runtime(format!("{}: {e}", path.display())))?;
    }
    acc.ok_or_else(|| CliError::Usage("--merge needs at least one file".into()))
}

/// Arguments of `boardgame sprt`.
#[derive(Args, Debug)]
pub struct SprtArgs {
    /// The game.
    #[arg(value_parser = game_parser())]
    game: GameName,
    /// The agent under test (names as for `simulate`, weights files as
    /// learned@FILE).
    a: String,
    /// The agent it is measured against.
    b: String,
    /// Number of players (the rules' default when omitted). At 2 the games
    /// are pairs with seats swapped; at more, one A among B.
    #[arg(long, short = 'p')]
    players: Option<usize>,
    /// Configuration fields as a JSON object laid over the rules' defaults.
    #[arg(long, value_name = "JSON")]
    config: Option<String>,
    /// H0 and H1 in Elo of A over B (2 players), e.g. 0,50 (the default).
    #[arg(long, value_name = "ELO0,ELO1", conflicts_with = "share")]
    elo: Option<String>,
    /// H0 and H1 in A's win share above the fair share 1/n (more than 2
    /// players), e.g. 0,0.03 (the default).
    #[arg(long, value_name = "D0,D1")]
    share: Option<String>,
    /// The chance of deciding "stronger" when A is not.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// The chance of deciding "not stronger" when A is.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// The most games to play before stopping undecided.
    #[arg(long, default_value_t = 20_000)]
    max_games: u64,
    /// The first observation's seed; observation i is played from seed + i.
    #[arg(long, short = 's', default_value_t = 1_000_000)]
    seed: u64,
    /// Worker threads (default: every core). The decision does not depend on it.
    #[arg(long, short = 't', value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Print the log-likelihood ratio every this many observations.
    #[arg(long, default_value_t = 10)]
    every: u64,
    /// Print the result as JSON (the last line).
    #[arg(long)]
    json: bool,
}

fn pair(s: &str, what: &str) -> Result<(f64, f64), CliError> {
    let bad = || CliError::Usage(format!("--{what} takes two numbers like 0,50, got `{s}`"));
    let (a, b) = s.split_once(',').ok_or_else(bad)?;
    Ok((a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?))
}

/// Runs `boardgame sprt`.
///
/// # Errors
/// Usage errors for bad arguments; runtime errors for failed games.
pub fn run_sprt(args: SprtArgs) -> Result<(), CliError> {
    let bounds = match (&args.elo, &args.share) {
        (Some(e), _) => Some(pair(e, "elo").map(|(a, b)| Bounds::Elo(a, b))?),
        (None, Some(s)) => Some(pair(s, "share").map(|(a, b)| Bounds::Share(a, b))?),
        (None, None) => None,
    };
    let spec = SprtSpec {
        game: args.game,
        players: args.players,
        config: args.config.clone(),
        a: args.a.clone(),
        b: args.b.clone(),
        bounds,
        alpha: args.alpha,
        beta: args.beta,
        max_games: args.max_games,
        seed: args.seed,
        threads: threads(args.threads),
    };
    let mut out = std::io::stdout().lock();
    let every = args.every.max(1);
    let mut failed = None;
    let mut on_step = |s: &SprtState| {
        if (s.observations.is_multiple_of(every) || s.decision.is_some())
            && let Err(e) = writeln!(out, "{}", line(s))
        {
            failed.get_or_insert(e);
        }
    };
    let state = sprt::run_sprt(&spec, &mut on_step).map_err(CliError::from)?;
    if let Some(e) = failed {
        return Err(CliError::from(e));
    }
    let verdict = match state.decision {
        Some(Decision::Stronger) => format!("{} is stronger than {}", args.a, args.b),
        Some(Decision::NotStronger) => format!("{} is not stronger than {} (by the bound of H1)", args.a, args.b),
        _ => format!("undecided after {} games (the cap)", state.games),
    };
    writeln!(out, "{}: {verdict}, after {} games", args.game.cli_name(), state.games).map_err(CliError::from)?;
    if args.json {
        let json = serde_json::to_string(&serde_json::json!({
            "game": args.game.cli_name(), "a": args.a, "b": args.b, "alpha": args.alpha, "beta": args.beta,
            "state": state, "elo": state.elo(),
        }))
        .map_err(|e| CliError::Runtime(e.to_string()))?;
        writeln!(out, "{json}").map_err(CliError::from)?;
    }
    Ok(())
}

/// One progress line: games, A's mean score, the LLR and its bounds.
fn line(s: &SprtState) -> String {
    let elo = s.elo().map_or(String::new(), |e| format!(" ({e:+.0} Elo)"));
    format!("games {:>6}  score {:.3}{elo}  LLR {:+.2}  [{:+.2}, {:+.2}]", s.games, s.mean, s.llr, s.lower, s.upper)
}
