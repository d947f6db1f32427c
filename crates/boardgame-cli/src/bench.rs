//! `boardgame bench`: a quick throughput table with plain timing loops (the
//! criterion benches in `benches/` are the careful measurement).

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use boardgame_kit::{Agent, GameRng, IsMctsAgent, Turn, playout, sample_chance};
use clap::Args;

use crate::error::CliError;
use crate::games::{Engine, GameName, build_config, with_game};

/// Arguments of `boardgame bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The game (default: every game).
    #[arg(value_parser = crate::games::game_parser())]
    game: Option<GameName>,
    /// Only this player count (default: the counts that matter per game).
    #[arg(long, short = 'p')]
    players: Option<usize>,
    /// Time per measurement, in milliseconds.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    millis: u64,
}

/// Runs `boardgame bench`.
///
/// # Errors
/// Usage errors for bad arguments.
pub fn run(args: BenchArgs) -> Result<(), CliError> {
    let games = match args.game {
        Some(g) => vec![g],
        None => GameName::ALL.to_vec(),
    };
    let budget = Duration::from_millis(args.millis);
    let mut out = std::io::stdout().lock();
    if cfg!(debug_assertions) {
        writeln!(out, "note: a debug build; run `cargo run --release -p boardgame-cli -- bench` for real figures")?;
    }
    writeln!(
        out,
        "{:<9} {:>7} {:>16} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "game", "players", "playout act/s", "games/s", "legal ns", "apply ns", "clone ns", "ismcts it/s"
    )?;
    for game in games {
        with_game!(game, G => {
            let counts: Vec<usize> = match args.players {
                Some(n) => vec![n],
                None => G::BENCH_PLAYERS.to_vec(),
            };
            for n in counts {
                let row = bench::<G>(n, budget)?;
                writeln!(
                    out,
                    "{:<9} {:>7} {:>14.2} M {:>10.0} {:>10.1} {:>10.1} {:>10.1} {:>12.0}",
                    G::CLI_NAME,
                    n,
                    row.actions_per_sec / 1e6,
                    row.games_per_sec,
                    row.legal_ns,
                    row.apply_ns,
                    row.clone_ns,
                    row.ismcts_per_sec
                )?;
                out.flush()?;
            }
        });
    }
    writeln!(
        out,
        "playout: uniformly random games from the start, every action counted (chance included); \
         legal/apply/clone: per call over states sampled from such games; apply = clone+apply_unchecked minus clone; \
         ismcts: iterations per second of the kit's IsMctsAgent (random rollouts to the end) over a fixed set \
         of 16 of those states, searched in whole passes"
    )?;
    Ok(())
}

struct Row {
    actions_per_sec: f64,
    games_per_sec: f64,
    legal_ns: f64,
    apply_ns: f64,
    clone_ns: f64,
    ismcts_per_sec: f64,
}

/// Nanoseconds per call of `f` over `0..n`, repeated until `budget` passed.
fn per_call(budget: Duration, n: usize, mut f: impl FnMut(usize)) -> f64 {
    let start = Instant::now();
    let mut calls = 0u64;
    loop {
        for i in 0..n {
            f(i);
        }
        calls += n as u64;
        if start.elapsed() >= budget || n == 0 {
            break;
        }
    }
    start.elapsed().as_nanos() as f64 / calls.max(1) as f64
}

const SAMPLE_GAMES: u64 = 32;
const MAX_POSITIONS: usize = 4096;
/// Iterations per ISMCTS move in the search-speed measurement.
const ISMCTS_ITERATIONS: u64 = 100;
/// Decision states in the fixed set the search speed is measured on.
const ISMCTS_POSITIONS: usize = 16;

/// The fixed set of the ISMCTS column: [`ISMCTS_POSITIONS`] decision states
/// evenly spaced through `decisions` (all of them when there are fewer).
fn ismcts_positions<G: Clone>(decisions: &[G]) -> Vec<G> {
    let n = decisions.len();
    if n <= ISMCTS_POSITIONS {
        return decisions.to_vec();
    }
    (0..ISMCTS_POSITIONS).map(|i| decisions[i * n / ISMCTS_POSITIONS].clone()).collect()
}

fn bench<G: Engine>(players: usize, budget: Duration) -> Result<Row, CliError> {
    let config = build_config::<G>(Some(players), None)?;
    let fresh = G::new_game(&config).map_err(|e| CliError::Usage(e.to_string()))?;
    let bound = G::max_game_length(&config);

    // Random playouts from the start.
    let mut rng = GameRng::new(1);
    let (mut actions, mut games) = (0u64, 0u64);
    let start = Instant::now();
    while start.elapsed() < budget {
        let mut s = black_box(&fresh).clone();
        actions += playout(&mut s, &mut rng, bound) as u64;
        games += 1;
        black_box(&s);
    }
    let secs = start.elapsed().as_secs_f64();

    // States (with the action played there) sampled from random games.
    let mut pairs: Vec<(G, G::Action)> = Vec::new();
    let mut list = G::ActionList::default();
    let mut chances = G::ChanceList::default();
    for seed in 0..SAMPLE_GAMES {
        let mut rng = GameRng::new(seed);
        let mut s = fresh.clone();
        for _ in 0..bound {
            let a = match s.turn() {
                Turn::Terminal => break,
                Turn::Chance => sample_chance(&s, &mut rng, &mut chances),
                Turn::Player(_) => {
                    s.legal_actions(&mut list);
                    list.get(rng.index(list.len().max(1))).copied()
                }
            };
            let Some(a) = a else { break };
            pairs.push((s.clone(), a));
            s.apply_unchecked(a);
        }
    }
    let stride = pairs.len().div_ceil(MAX_POSITIONS).max(1);
    let pairs: Vec<(G, G::Action)> = pairs.into_iter().step_by(stride).collect();
    let decisions: Vec<G> =
        pairs.iter().filter(|(s, _)| matches!(s.turn(), Turn::Player(_))).map(|(s, _)| s.clone()).collect();

    let legal_ns = per_call(budget, decisions.len(), |i| {
        black_box(&decisions[i]).legal_actions(&mut list);
        black_box(&list);
    });
    let clone_ns = per_call(budget, pairs.len(), |i| {
        black_box(black_box(&pairs[i].0).clone());
    });
    let clone_apply_ns = per_call(budget, pairs.len(), |i| {
        let (s, a) = black_box(&pairs[i]);
        let mut s = s.clone();
        s.apply_unchecked(*a);
        black_box(&s);
    });
    // Information-set MCTS over a fixed set of decision states: the same
    // ISMCTS_POSITIONS states, evenly spaced through the sample, searched in
    // whole passes (at least one; more while the budget lasts), so a slower
    // machine measures the same mix of positions, never a cut cycle.
    let ismcts_set = ismcts_positions(&decisions);
    let mut agent = IsMctsAgent::<G>::with_iterations(ISMCTS_ITERATIONS);
    let mut rng = GameRng::new(2);
    let start = Instant::now();
    loop {
        for state in &ismcts_set {
            if let Turn::Player(seat) = state.turn() {
                black_box(agent.act(state, seat, &mut rng));
            }
        }
        if start.elapsed() >= budget || ismcts_set.is_empty() {
            break;
        }
    }
    let ismcts_per_sec = agent.total_stats().iterations_per_second();

    Ok(Row {
        actions_per_sec: if secs > 0.0 { actions as f64 / secs } else { 0.0 },
        games_per_sec: if secs > 0.0 { games as f64 / secs } else { 0.0 },
        legal_ns,
        apply_ns: (clone_apply_ns - clone_ns).max(0.0),
        clone_ns,
        ismcts_per_sec,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ismcts_set_is_fixed_by_the_sample_alone() {
        let many: Vec<usize> = (0..100).collect();
        let set = ismcts_positions(&many);
        assert_eq!(set.len(), ISMCTS_POSITIONS);
        assert_eq!(set, [0, 6, 12, 18, 25, 31, 37, 43, 50, 56, 62, 68, 75, 81, 87, 93]);
        assert_eq!(ismcts_positions(&many), set);
        let few: Vec<usize> = (0..5).collect();
        assert_eq!(ismcts_positions(&few), few);
        assert!(ismcts_positions::<usize>(&[]).is_empty());
    }
}
