//! Measures the compact action space over played games: the legal-action
//! count per decision (its distribution), how much of the compact space is
//! ever legal, and the highest slots used — the figures of
//! `docs/encoding-caravan.md`.
//!
//! ```text
//! cargo run --release -p caravan-core --example compact_stats [games]
//! ```
//!
//! Each game is played from seed `0..games` with one agent kind in every
//! seat (`random`: uniform; `heuristic`: `CaravanHeuristic`), chance from
//! the same generator, for 2, 3 and 4 players and the default config.

use boardgame_kit::{Agent, Game, GameRng, RandomAgent, Turn, sample_chance};
use caravan_core::{Act, ActionList, Caravan, CaravanConfig, CaravanHeuristic, compact_num_actions};

fn percentile(sorted: &[usize], p: f64) -> usize {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let games: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    println!(
        "| players | agents | decisions | legal: mean | p50 | p90 | p99 | max | compact ids ever legal | max unladen slot | max good slot |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for players in 2..=4u8 {
        let config = CaravanConfig { players, ..CaravanConfig::default() };
        let n = compact_num_actions(&config);
        for agent in ["random", "heuristic"] {
            let mut counts = Vec::new();
            let mut ever = vec![false; n];
            let mut mask = vec![false; n];
            let mut list = ActionList::default();
            let (mut max_un, mut max_good) = (0u32, 0u32);
            for seed in 0..games {
                let mut s = Caravan::new_game(&config).expect("default config");
                let mut rng = GameRng::new(seed);
                let mut chances = Default::default();
                let mut heuristic = CaravanHeuristic::new();
                while !s.is_terminal() {
                    let action = match s.turn() {
                        Turn::Chance => sample_chance(&s, &mut rng, &mut chances).expect("a draw"),
                        Turn::Player(p) => {
                            let legal = s.write_compact_mask_with(&mut mask, &mut list).expect("buffer");
                            counts.push(legal);
                            for (e, &m) in ever.iter_mut().zip(&mask) {
                                *e |= m;
                            }
                            let index = s.compact_index().expect("a decision");
                            for &a in list.iter() {
                                let id = index.encode(a).unwrap_or(0);
                                match a.act() {
                                    Act::Move { from: Some(_), .. } => max_un = max_un.max((id - 9) / 49 - 1),
                                    Act::Good { .. } => max_good = max_good.max((id - 352) / 49),
                                    _ => {}
                                }
                            }
                            if agent == "random" {
                                RandomAgent.act(&s, p, &mut rng)
                            } else {
                                heuristic.act(&s, p, &mut rng)
                            }
                        }
                        Turn::Terminal => break,
                    };
                    s.apply(action).expect("agents play legal actions");
                }
            }
            counts.sort_unstable();
            let mean = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
            println!(
                "| {players} | {agent} | {} | {mean:.1} | {} | {} | {} | {} | {} of {n} | {max_un} | {max_good} |",
                counts.len(),
                percentile(&counts, 0.5),
                percentile(&counts, 0.9),
                percentile(&counts, 0.99),
                counts[counts.len() - 1],
                ever.iter().filter(|&&e| e).count(),
            );
        }
    }
}
