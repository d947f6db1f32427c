//! `boardgame perft`: counts of action sequences per depth, with the kit's
//! [`boardgame_kit::perft`].
//!
//! What it counts: every sequence of D actions, chance outcomes (a deal, a
//! draw from the bag) as well as decisions, as the kit's `perft` does —
//! a move-generation check of both. From the initial position the first
//! actions of both games are the deal, so the first depths count deals
//! alone; each depth therefore says how many of its sequences end in a
//! chance outcome and how many in a decision, and a note says so when
//! none reached a decision (`--seed` starts at a dealt position).

use std::io::Write;
use std::time::{Duration, Instant};

use boardgame_kit::{Agent, Driver, RandomAgent, Turn};
use clap::Args;

use crate::error::CliError;
use crate::games::{Engine, GameName, GameOpts, build_config, with_game};

/// Arguments of `boardgame perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The game.
    #[arg(value_parser = crate::games::game_parser())]
    game: GameName,
    #[command(flatten)]
    opts: GameOpts,
    /// Count sequences of 1 to D actions: chance outcomes (the deal, draws)
    /// count as actions, as decisions do, so from the initial position the
    /// first depths count the deal alone (--seed starts at a decision);
    /// each depth says how many sequences end in a chance outcome and how
    /// many in a decision. Counting stops with an error when a depth takes longer than
    /// --max-time (the counts of the depths before it are printed and
    /// complete); a count above 2^64 - 1 is refused too, though it would
    /// need centuries.
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(0..=64))]
    depth: u32,
    /// Stop when counting takes longer than this many seconds in all.
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    max_time: u64,
    /// Start from the game of this seed between random agents (the game
    /// `simulate --seed X --games 1 --fixed-seats` plays), at its first
    /// decision after --moves actions. Without it: the initial position.
    #[arg(long, short = 's')]
    seed: Option<u64>,
    /// With --seed: play at least this many actions first.
    #[arg(long, default_value_t = 0, requires = "seed")]
    moves: usize,
}

/// Runs `boardgame perft`.
///
/// # Errors
/// Usage errors for bad arguments.
pub fn run(args: PerftArgs) -> Result<(), CliError> {
    with_game!(args.game, G => perft::<G>(&args))
}

/// The start position: the initial state, or the game of `seed` between
/// random agents at its first decision after `moves` actions.
fn start<G: Engine>(config: &G::Config, seed: Option<u64>, moves: usize) -> Result<(G, usize), CliError> {
    let Some(seed) = seed else {
        return Ok((G::new_game(config).map_err(|e| CliError::Usage(e.to_string()))?, 0));
    };
    // the kit's driver: the game `simulate --seed X --games 1 --fixed-seats` plays
    let mut driver = Driver::<G>::new(config, seed).map_err(|e| CliError::Usage(e.to_string()))?;
    let seats = driver.state().num_players();
    let mut randoms: Vec<RandomAgent> = vec![RandomAgent; seats];
    let mut agents: Vec<&mut dyn Agent<G>> = randoms.iter_mut().map(|a| a as &mut dyn Agent<G>).collect();
    loop {
        match driver.turn() {
            Turn::Terminal => break,
            Turn::Player(_) if driver.steps() >= moves => break,
            _ => {}
        }
        if driver.step(&mut agents).map_err(|e| CliError::Runtime(e.to_string()))?.is_none() {
            break;
        }
    }
    let played = driver.steps();
    Ok((driver.into_state(), played))
}

/// Why a count stopped before its end.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    /// The deadline passed.
    Time,
    /// The count does not fit in 64 bits.
    Overflow,
}

/// A time limit, checked every [`Deadline::EVERY`] nodes.
struct Deadline {
    /// `None`: later than any `Instant` can say.
    at: Option<Instant>,
    nodes: u32,
}

impl Deadline {
    /// Nodes between two looks at the clock.
    const EVERY: u32 = 1024;

    fn check(&mut self) -> Result<(), Stop> {
        self.nodes += 1;
        if self.nodes >= Self::EVERY {
            self.nodes = 0;
            if self.at.is_some_and(|at| Instant::now() >= at) {
                return Err(Stop::Time);
            }
        }
        Ok(())
    }
}

/// Action sequences of one length, by their last action's kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// Sequences whose last action is a chance outcome.
    chance: u64,
    /// Sequences whose last action is a seat's decision.
    decisions: u64,
}

impl Counts {
    fn total(self) -> Result<u64, Stop> {
        self.chance.checked_add(self.decisions).ok_or(Stop::Overflow)
    }

    fn add(self, other: Counts) -> Result<Counts, Stop> {
        Ok(Counts {
            chance: self.chance.checked_add(other.chance).ok_or(Stop::Overflow)?,
            decisions: self.decisions.checked_add(other.decisions).ok_or(Stop::Overflow)?,
        })
    }
}

/// The action sequences of length `depth` (at least 1) from `state`
/// (chance outcomes count as actions), as [`boardgame_kit::perft`] counts
/// them, by their last action's kind, with checked sums and stopping at
/// `deadline`.
fn count<G: Engine>(state: &G, depth: usize, deadline: &mut Deadline) -> Result<Counts, Stop> {
    deadline.check()?;
    let mut list = G::ActionList::default();
    state.legal_actions(&mut list);
    if depth <= 1 {
        let n = list.len() as u64;
        return Ok(match state.turn() {
            Turn::Chance => Counts { chance: n, decisions: 0 },
            _ => Counts { chance: 0, decisions: n },
        });
    }
    let mut total = Counts::default();
    for &a in list.iter() {
        let mut child = state.clone();
        child.apply_unchecked(a);
        total = total.add(count(&child, depth - 1, deadline)?)?;
    }
    Ok(total)
}

fn perft<G: Engine>(args: &PerftArgs) -> Result<(), CliError> {
    let config = build_config::<G>(args.opts.players, args.opts.config.as_deref())?;
    let (state, played) = start::<G>(&config, args.seed, args.moves)?;
    let mut out = std::io::stdout().lock();
    let from = match args.seed {
        None => "the initial position".to_string(),
        Some(seed) => format!("seed {seed} after {played} actions"),
    };
    writeln!(out, "perft {} with {} players, from {from}", G::CLI_NAME, state.num_players())?;
    writeln!(
        out,
        "counting every sequence of 1 to {} actions, chance outcomes (deals, draws) as well as decisions, \
         by the kind of its last action",
        args.depth
    )?;
    writeln!(out, "{:>9} {:>16} {:>16} {:>16}", "", "sequences", "last: chance", "last: decision")?;
    let mut decisions = 0u64;
    let limit = Duration::from_secs(args.max_time);
    let started = Instant::now();
    let mut deadline = Deadline { at: started.checked_add(limit), nodes: 0 };
    for depth in 1..=args.depth as usize {
        let t = Instant::now();
        let stopped = |stop| {
            CliError::Runtime(match stop {
                Stop::Time => format!(
                    "perft: depth {depth} did not finish within --max-time {} s (the counts above are complete)",
                    args.max_time
                ),
                Stop::Overflow => format!("perft: the count of depth {depth} exceeds {} (2^64 - 1)", u64::MAX),
            })
        };
        let counts = count(&state, depth, &mut deadline).map_err(stopped)?;
        let total = counts.total().map_err(stopped)?;
        decisions += counts.decisions;
        let secs = t.elapsed().as_secs_f64();
        let rate = if secs > 0.0 { format!("{:.1} M nodes/s", total as f64 / secs / 1e6) } else { "-".into() };
        writeln!(
            out,
            "depth {depth:>2}: {total:>16} {:>16} {:>16}   {secs:>9.3} s   {rate}",
            counts.chance, counts.decisions
        )?;
    }
    if args.depth > 0 && decisions == 0 && state.turn() == Turn::Chance {
        writeln!(
            out,
            "note: every sequence counted is chance outcomes alone (the deal); to count the seats' moves, \
             start at a dealt position: --seed S (the game of seed S at its first decision)"
        )?;
    }
    Ok(())
}
