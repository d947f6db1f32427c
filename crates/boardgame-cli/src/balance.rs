//! `boardgame balance`: the balance lab of `boardgame-lab` on the command
//! line — self-play over a grid of configurations, written as a report
//! folder (markdown, SVG charts, mergeable JSON results).
//!
//! This module names no error type of the command's root: it returns its
//! own [`Failure`], which the root maps to an exit code.

use std::path::PathBuf;
use std::time::Instant;

use boardgame_kit::{AgentSpec, Bots, Entrant, Game};
use boardgame_lab::{LabError, LabResults, Study, Sweep, entrants_for, run_study, set_path, write_report};
use clap::Args;
use serde_json::Value;

use crate::games::{Engine, GameName, with_game};

/// Why `balance` failed: bad arguments (exit 2) or a failure while running
/// (exit 1).
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments.
    Usage(String),
    /// Anything that went wrong while running.
    Runtime(String),
}

impl From<LabError> for Failure {
    fn from(e: LabError) -> Self {
        match e {
            LabError::Sweep { .. } | LabError::Path { .. } | LabError::Config { .. } | LabError::Agents(_) => {
                Failure::Usage(e.to_string())
            }
            LabError::Play { .. } | LabError::Merge(_) | LabError::Write { .. } => Failure::Runtime(e.to_string()),
        }
    }
}

/// Arguments of `boardgame balance`.
#[derive(Args, Debug)]
pub struct BalanceArgs {
    /// The game.
    #[arg(value_parser = crate::games::game_parser())]
    game: GameName,
    /// Player counts to sweep: `3..9` (inclusive), `3,5,7` or `5`; the
    /// same as `--sweep players=…`, swept first.
    #[arg(long, short = 'p', value_name = "VALUES")]
    players: Option<String>,
    /// A configuration field (a dot-separated JSON path) and its values,
    /// e.g. `deck.scout=0..8`, `camels=5,6`, `held_penalty=false,true`.
    /// Repeat for a grid of every combination.
    #[arg(long, value_name = "PATH=VALUES")]
    sweep: Vec<String>,
    /// Configuration fields as a JSON object laid over the rules' defaults
    /// before sweeping, e.g. '{"laps": 2}'.
    #[arg(long, value_name = "JSON")]
    config: Option<String>,
    /// The agents, comma-separated; the last one fills the seats left
    /// (`heuristic`: self-play). Names: random, heuristic, ismcts:N,
    /// ismcts-h:N, flatmc:N, flatmc-h:N, learned, learned:T, learned-ismcts:N. Seats rotate through them from game to game.
    #[arg(long, short = 'a', default_value = "heuristic")]
    agents: String,
    /// Games per cell of the grid (before sharding).
    #[arg(long, short = 'n', default_value_t = 1000)]
    games: u64,
    /// The first seed; every cell plays seeds seed..seed+games.
    #[arg(long, short = 's', default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long, short = 't', value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Play only the I-th of K disjoint parts of the seeds (I from 0);
    /// combine the parts' results.json with --merge.
    #[arg(long, value_name = "I/K")]
    shard: Option<String>,
    /// Also measure what a card is worth (Korovan: a seat's first card
    /// dealt forced to each kind, against the same seed as dealt), in the
    /// configuration of --config.
    #[arg(long)]
    worth: bool,
    /// Seeds of the card-worth measurement (default: --games); each is
    /// played once plus once per kind.
    #[arg(long, value_name = "N")]
    worth_games: Option<u64>,
    /// The report folder.
    #[arg(long, short = 'o', default_value = "balance-report")]
    out: PathBuf,
    /// Play nothing: merge these results.json files (shards of one study)
    /// and write their report.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    merge: Vec<PathBuf>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Runs `boardgame balance`.
///
/// # Errors
/// [`Failure::Usage`] for bad arguments, [`Failure::Runtime`] when a game,
/// a merge or a file fails.
pub fn run(args: BalanceArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let (results, played) =
        if args.merge.is_empty() { with_game!(args.game, G => study::<G>(&args))? } else { (merge(&args)?, 0) };
    let files = write_report(&results, &args.out)?;
    let secs = started.elapsed().as_secs_f64();
    for f in &files {
        println!("wrote {}", f.display());
    }
    if played > 0 {
        let threads = threads(&args);
        println!(
            "{played} games in {secs:.2} s on {threads} thread{} ({:.0} games/s)",
            if threads == 1 { "" } else { "s" },
            played as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}

fn threads(args: &BalanceArgs) -> usize {
    args.threads.map_or_else(boardgame_cli::simulate::every_core, |t| t as usize)
}

/// The part `shard` (`I/K`) of `start..start + count`.
fn part(start: u64, count: u64, shard: Option<&str>) -> Result<std::ops::Range<u64>, Failure> {
    let end = start
        .checked_add(count)
        .ok_or_else(|| Failure::Usage(format!("--seed {start} plus {count} games overflows 64 bits")))?;
    let Some(text) = shard else {
        return Ok(start..end);
    };
    let bad = || Failure::Usage(format!("--shard: expected I/K with 0 <= I < K (e.g. 0/4), got `{text}`"));
    let (i, k) = text.split_once('/').ok_or_else(bad)?;
    let (i, k): (u64, u64) = (i.trim().parse().map_err(|_| bad())?, k.trim().parse().map_err(|_| bad())?);
    if k == 0 || i >= k {
        return Err(bad());
    }
    let cut = |j: u64| start + (u128::from(count) * u128::from(j) / u128::from(k)) as u64;
    Ok(cut(i)..cut(i + 1))
}

/// Lays the JSON object `patch` over `base` leaf by leaf. A misspelt field
/// is refused when the engine reads the result (the engines refuse unknown
/// fields).
fn overlay(base: &mut Value, patch: &Value, prefix: &str) -> Result<(), Failure> {
    let Value::Object(fields) = patch else {
        return Err(Failure::Usage("--config must be a JSON object, e.g. '{\"laps\": 2}'".into()));
    };
    for (key, value) in fields {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        if value.is_object() {
            overlay(base, value, &path)?;
        } else {
            set_path(base, &path, value.clone()).map_err(|e| Failure::Usage(format!("--config: {e}")))?;
        }
    }
    Ok(())
}

/// An arena entrant of `spec` for `G`: the kit's agents by name, the
/// engine's own heuristic and tuned search ([`boardgame_kit::Bots`]).
fn entrant<G: Bots>(spec: AgentSpec) -> Result<Entrant<G>, LabError> {
    spec.entrant::<G>().map_err(|e| LabError::Agents(e.to_string()))
}

fn study<G: Engine>(args: &BalanceArgs) -> Result<(LabResults, u64), Failure> {
    let mut base = serde_json::to_value(G::Config::default()).map_err(|e| Failure::Runtime(e.to_string()))?;
    if let Some(text) = &args.config {
        let patch: Value =
            serde_json::from_str(text).map_err(|e| Failure::Usage(format!("--config is not valid JSON: {e}")))?;
        overlay(&mut base, &patch, "")?;
    }
    let base: G::Config = serde_json::from_value(base).map_err(|e| Failure::Usage(format!("--config: {e}")))?;
    G::new_game(&base).map_err(|e| Failure::Usage(format!("--config: {e}")))?;

    let mut sweeps: Vec<Sweep> = Vec::new();
    if let Some(p) = &args.players {
        sweeps.push(format!("players={p}").parse()?);
    }
    for s in &args.sweep {
        sweeps.push(s.parse()?);
    }
    let specs: Vec<AgentSpec> = args
        .agents
        .split(',')
        .map(|s| s.parse::<AgentSpec>().map_err(|e| Failure::Usage(e.to_string())))
        .collect::<Result<_, _>>()?;
    for spec in &specs {
        entrant::<G>(spec.clone())?;
    }
    let seeds = part(args.seed, args.games, args.shard.as_deref())?;
    let worth_seeds = part(args.seed, args.worth_games.unwrap_or(args.games), args.shard.as_deref())?;
    let study = Study::<G> {
        base,
        sweeps,
        seeds: seeds.clone(),
        threads: threads(args),
        worth: args.worth,
        worth_seeds: worth_seeds.clone(),
    };
    let cells = boardgame_lab::grid::<G>(&study.base, &study.sweeps)?.len() as u64;
    let worth_units = if args.worth { worth_seeds.end - worth_seeds.start } else { 0 };
    let total = cells * (seeds.end - seeds.start) + worth_units;
    // drawn at its end when finished, cleared if an error returns first
    let bar = boardgame_cli::simulate::Ticker::new(G::CLI_NAME, args.quiet);
    bar.start(total);
    let make = |players: usize| entrants_for::<G, AgentSpec>(&specs, players, &|s| entrant::<G>(s.clone()));
    let results = run_study(&study, &make, &|| bar.tick())?;
    bar.finish();
    let treatments = results.worth.as_ref().map_or(0, |w| w.treatments.len() as u64);
    Ok((results, cells * (seeds.end - seeds.start) + worth_units * (1 + treatments)))
}

fn merge(args: &BalanceArgs) -> Result<LabResults, Failure> {
    let engine = with_game!(args.game, G => <G as Game>::NAME);
    let mut acc: Option<LabResults> = None;
    for path in &args.merge {
        let text = std::fs::read_to_string(path).map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?;
        let r: LabResults = serde_json::from_str(&text)
            .map_err(|e| Failure::Runtime(format!("{}: not balance results: {e}", path.display())))?;
        if r.format != boardgame_lab::LAB_FORMAT || r.engine != engine {
            return Err(Failure::Runtime(format!(
                "{}: results of `{}` ({}), expected `{engine}` ({})",
                path.display(),
                r.engine,
                r.format,
                boardgame_lab::LAB_FORMAT
            )));
        }
        match &mut acc {
            None => acc = Some(r),
            Some(a) => a.merge(&r).map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?,
        }
    }
    acc.ok_or_else(|| Failure::Usage("--merge needs at least one file".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_seeds() {
        let parts: Vec<_> = (0..3).map(|i| part(10, 100, Some(&format!("{i}/3"))).ok().unwrap()).collect();
        assert_eq!(parts, vec![10..43, 43..76, 76..110]);
        assert_eq!(part(10, 5, None).ok(), Some(10..15));
        for bad in ["3/3", "0/0", "x", "1/2/3"] {
            assert!(matches!(part(0, 10, Some(bad)), Err(Failure::Usage(_))), "{bad}");
        }
        assert!(matches!(part(u64::MAX, 2, None), Err(Failure::Usage(_))));
    }

    #[test]
    fn config_overlays_lay_leaves_over_the_base() {
        let mut base = serde_json::json!({"laps": 1, "deck": {"scout": 7, "spy": 4}});
        overlay(&mut base, &serde_json::json!({"laps": 2, "deck": {"spy": 0}, "fines": {"one_ambush": 4}}), "")
            .ok()
            .unwrap();
        assert_eq!(
            base,
            serde_json::json!({"laps": 2, "deck": {"scout": 7, "spy": 0}, "fines": {"one_ambush": 4}}),
            "fields the base leaves out at their default are added; the engine refuses unknown ones"
        );
        let Err(Failure::Usage(m)) = overlay(&mut base, &serde_json::json!({"laps": {"x": 0}}), "") else {
            panic!("a value is not an object of fields");
        };
        assert!(m.contains("laps.x"), "{m}");
        assert!(overlay(&mut base, &serde_json::json!([1]), "").is_err());
    }
}
