//! How often, and by how much, the heuristic must be overruled to beat it:
//! `flatmc-h` (heuristic rollouts valuing every legal move, the heuristic's
//! own move kept unless another looks better by more than a *margin*)
//! played against `heuristic` with a range of margins — the figures of
//! `docs/learning.md` ("Where the heuristic loses").
//!
//! ```text
//! cargo run --release -p caravan-core --example override_scan -- [games] [iterations] [margins...]
//! cargo run --release -p caravan-core --example override_scan -- 30 2500 0.5 3 6 10 15 20
//! SHOW=1 cargo run --release -p caravan-core --example override_scan -- 30 2500 15
//! ```
//!
//! Margins are in score points (`flatmc-h` itself keeps its move unless
//! another is better by half a point). For each margin it plays `games`
//! two-player games from seed 1,000,000, seats alternating, on two threads,
//! and prints the overruling agent's share of the wins (95% Wilson
//! interval) and the share of its decisions where it did not play the
//! heuristic's move. With `SHOW` set, every overruled decision is printed:
//! the seat, the scores, the turn, the heuristic's move and the move played
//! with their values in points on the rollouts' scale (0 a sure loss, 60 a
//! sure win).
//!
//! It is an example of composing the kit's search from parts: a
//! [`FlatMcAgent`] with a rollout agent, a base agent and common random
//! numbers, wrapped by an agent of one's own that looks at every decision.

use std::sync::atomic::{AtomicU64, Ordering};

use boardgame_kit::{
    Agent, Arena, Budget, Entrant, Evaluation, FlatMcAgent, GameRng, HEURISTIC_FLAT_DEPTH, HEURISTIC_FLAT_MARGIN,
    HEURISTIC_FLAT_TEMPERATURE,
};
use caravan_core::{Action, Caravan, CaravanConfig, CaravanHeuristic};

/// Decisions taken by the overruling agent in the current row's games.
static DECISIONS: AtomicU64 = AtomicU64::new(0);
/// Of those, the decisions where it did not play the heuristic's move.
static OVERRULED: AtomicU64 = AtomicU64::new(0);

/// `flatmc-h` with the given margin, counting where it leaves the plan.
struct Overruler {
    search: FlatMcAgent<Caravan>,
    show: bool,
}

impl Agent<Caravan> for Overruler {
    fn name(&self) -> String {
        "overruler".to_string()
    }

    fn act(&mut self, state: &Caravan, seat: usize, rng: &mut GameRng) -> Action {
        let played = self.search.act(state, seat, rng);
        let plan = CaravanHeuristic::new().plan(state, seat);
        DECISIONS.fetch_add(1, Ordering::Relaxed);
        if played != plan {
            OVERRULED.fetch_add(1, Ordering::Relaxed);
            if self.show {
                let values = self.search.action_values();
                let points =
                    |a: Action| values.iter().find(|v| v.0 == a).map_or(f64::NAN, |v| v.2 / HEURISTIC_FLAT_TEMPERATURE);
                println!(
                    "seat {seat} points {}:{} turn {} heuristic `{plan}` ({:.1}) -> `{played}` ({:.1}) of {} moves",
                    state.points(0),
                    state.points(1),
                    state.turn_index(),
                    points(plan),
                    points(played),
                    values.len()
                );
            }
        }
        played
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: f64| args.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(default);
    let games = number(0, 30.0).max(1.0) as u64;
    let iterations = number(1, 2500.0).max(1.0) as u64;
    let mut margins: Vec<f64> = args.iter().skip(2).filter_map(|s| s.parse().ok()).collect();
    if margins.is_empty() {
        margins = vec![0.5, 3.0, 6.0, 10.0, 15.0, 20.0];
    }
    let show = std::env::var_os("SHOW").is_some();
    for margin in margins {
        DECISIONS.store(0, Ordering::Relaxed);
        OVERRULED.store(0, Ordering::Relaxed);
        let overruler = Entrant::new("overruler", move || -> Box<dyn Agent<Caravan>> {
            Box::new(Overruler {
                search: FlatMcAgent::<Caravan>::new(Budget::Iterations(iterations))
                    .rollout_agent(Box::new(CaravanHeuristic::new()))
                    .base_agent(Box::new(CaravanHeuristic::new()), margin * HEURISTIC_FLAT_TEMPERATURE)
                    .rollout_depth(HEURISTIC_FLAT_DEPTH)
                    .evaluation(Evaluation::ScoreMargin(HEURISTIC_FLAT_MARGIN))
                    .common_random_numbers()
                    .policy_temperature(HEURISTIC_FLAT_TEMPERATURE),
                show,
            })
        });
        let heuristic = Entrant::new("heuristic", || -> Box<dyn Agent<Caravan>> { Box::new(CaravanHeuristic::new()) });
        let arena = Arena::<Caravan>::new(CaravanConfig::with_players(2));
        let report = match arena.run(&[overruler, heuristic], 1_000_000..1_000_000 + games, 2) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("a game failed: {e}");
                std::process::exit(1);
            }
        };
        let stats = &report.entrants[0];
        let (lo, hi) = stats.win_share_interval();
        let (taken, overruled) = (DECISIONS.load(Ordering::Relaxed), OVERRULED.load(Ordering::Relaxed));
        println!(
            "margin {margin} points: share {:.1}% [{:.1}, {:.1}] of {games} games; heuristic overruled in {overruled} of {taken} decisions ({:.1}%)",
            100.0 * stats.win_share(),
            100.0 * lo,
            100.0 * hi,
            100.0 * overruled as f64 / taken.max(1) as f64
        );
    }
}
