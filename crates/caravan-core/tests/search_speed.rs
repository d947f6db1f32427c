//! ISMCTS iterations per second on fixed Caravan positions, for measuring
//! the search's speed (release, ignored by default):
//!
//! ```text
//! cargo test --release -p caravan-core --test search_speed -- --ignored --nocapture
//! ```
//!
//! The positions are every `SPEED_STEP`-th (default 10) decision of a
//! 3-player game played by the heuristic from seed 3, at most
//! `SPEED_POSITIONS` (default 20) of them. Two settings are timed:
//! `ismcts-h` as the binary builds it (the heuristic as prior and as
//! rollout policy, rollouts cut at 20 actions and scored by score margins,
//! exploration 0.1), `SPEED_H_ITERS` (default 1000) iterations per position,
//! and `ismcts` with uniform random rollouts to the end, `SPEED_R_ITERS`
//! (default 200). `SPEED_ONLY=h` or `SPEED_ONLY=r` times one of them. The
//! search rng is seeded per position, so every run does the same work.

mod common;

use boardgame_kit::{Agent, Budget, Game, GameRng, IsMctsAgent};
use caravan_core::{Caravan, tuned_ismcts};
use common::heuristic_positions;

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn time(name: &str, mut agent: IsMctsAgent<Caravan>, positions: &[(Caravan, usize)]) {
    let mut moves = Vec::new();
    for (i, (state, seat)) in positions.iter().enumerate() {
        let a = agent.act(state, *seat, &mut GameRng::new(i as u64));
        moves.push(Caravan::action_id(state.config(), a));
    }
    let t = agent.total_stats();
    println!(
        "{name}: {} positions, {} iterations in {:.3} s, {:.0} iterations/s, moves {moves:?}",
        positions.len(),
        t.iterations,
        t.elapsed.as_secs_f64(),
        t.iterations_per_second()
    );
}

#[test]
#[ignore = "release-mode measurement"]
fn ismcts_iterations_per_second() {
    let players: u8 = env("SPEED_PLAYERS", 3);
    let positions = heuristic_positions(players, 3, env("SPEED_STEP", 10), env("SPEED_POSITIONS", 20));
    let only: String = env("SPEED_ONLY", String::new());
    if only != "r" {
        let agent = tuned_ismcts(Budget::Iterations(env("SPEED_H_ITERS", 1000)));
        time(&format!("ismcts-h {players}p"), agent, &positions);
    }
    if only != "h" {
        let agent = IsMctsAgent::<Caravan>::with_iterations(env("SPEED_R_ITERS", 200));
        time(&format!("ismcts {players}p (random to the end)"), agent, &positions);
    }
}
