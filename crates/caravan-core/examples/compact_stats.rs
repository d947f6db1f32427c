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
//!
//! Then the cost per position of the mask and the mappings, in **CPU
//! time** of this thread (`/proc/thread-self/schedstat`, nanoseconds), so
//! that the figures hold on a loaded machine where wall-clock benches
//! (`benches/compact.rs`) are inflated by the other processes.

use std::hint::black_box;

use boardgame_kit::{Agent, Game, GameRng, RandomAgent, Turn, sample_chance};
use caravan_core::{Act, ActionList, Caravan, CaravanConfig, CaravanHeuristic, compact_num_actions};

/// This thread's CPU time in nanoseconds (wall-clock time where the kernel
/// does not say).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or_else(|| {
            use std::sync::OnceLock;
            static START: OnceLock<std::time::Instant> = OnceLock::new();
            START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
        })
}

/// CPU nanoseconds per position of `f` over `states`, repeated for at
/// least 0.4 s of CPU.
fn per_position(states: &[Caravan], mut f: impl FnMut(&Caravan)) -> f64 {
    let start = cpu_ns();
    let mut rounds = 0u64;
    while cpu_ns() - start < 400_000_000 {
        for s in states {
            f(s);
        }
        rounds += 1;
    }
    (cpu_ns() - start) as f64 / (rounds * states.len() as u64) as f64
}

/// Every 5th decision of `games` games of `agent` in every seat.
fn positions(config: &CaravanConfig, agent: &str, games: u64) -> Vec<Caravan> {
    let mut out = Vec::new();
    for seed in 0..games {
        let mut s = Caravan::new_game(config).expect("default config");
        let mut rng = GameRng::new(seed);
        let mut chances = Default::default();
        let mut heuristic = CaravanHeuristic::new();
        let mut k = 0;
        loop {
            let a = match s.turn() {
                Turn::Terminal => break,
                Turn::Chance => sample_chance(&s, &mut rng, &mut chances).expect("a draw"),
                Turn::Player(p) => {
                    k += 1;
                    if k % 5 == 0 {
                        out.push(s);
                    }
                    if agent == "random" { RandomAgent.act(&s, p, &mut rng) } else { heuristic.act(&s, p, &mut rng) }
                }
            };
            s.apply(a).expect("agents play legal actions");
        }
    }
    out
}

/// The CPU cost table: per position, the legal actions, the compact mask,
/// a flat mask, the encoding of the whole legal list, one decoding.
fn timings() {
    println!();
    println!("CPU ns per position (this thread's CPU time):");
    println!();
    println!(
        "| positions | legal actions | compact mask (bool) | compact mask (u8) | flat mask (u8, {{0,1}} over 41,667+) | encode the legal list | one compact -> flat (checked) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for players in [2u8, 3] {
        let config = CaravanConfig { players, ..CaravanConfig::default() };
        for agent in ["heuristic", "random"] {
            let states = positions(&config, agent, 4);
            let n = compact_num_actions(&config);
            let mut list = ActionList::default();
            let legal = per_position(&states, |s| {
                s.legal_actions(&mut list);
                black_box(list.len());
            });
            let mut mask = vec![false; n];
            let compact_bool = per_position(&states, |s| {
                black_box(s.write_compact_mask(&mut mask).ok());
            });
            let mut mask_u8 = vec![0u8; n];
            let compact_u8 = per_position(&states, |s| {
                black_box(s.write_compact_mask(&mut mask_u8).ok());
            });
            let mut flat = vec![0u8; Caravan::num_distinct_actions(&config)];
            let flat_mask = per_position(&states, |s| {
                flat.fill(0);
                s.legal_actions(&mut list);
                for a in list.iter() {
                    if let Some(m) = flat.get_mut(a.id() as usize) {
                        *m = 1;
                    }
                }
                black_box(&flat);
            });
            let lists: Vec<ActionList> = states
                .iter()
                .map(|s| {
                    let mut l = ActionList::default();
                    s.legal_actions(&mut l);
                    l
                })
                .collect();
            let mut i = 0;
            let encode = per_position(&states, |s| {
                let l = &lists[i % lists.len()];
                i += 1;
                if let Ok(index) = s.compact_index() {
                    black_box(l.iter().map(|&a| index.encode(a).unwrap_or(0)).fold(0u32, u32::wrapping_add));
                }
            });
            let chosen: Vec<u32> = states
                .iter()
                .zip(&lists)
                .enumerate()
                .map(|(i, (s, l))| s.compact_id(l[i % l.len()]).expect("a legal action"))
                .collect();
            let mut i = 0;
            let decode = per_position(&states, |s| {
                black_box(s.compact_action(chosen[i % chosen.len()]).ok());
                i += 1;
            });
            println!(
                "| {agent}/{players}: {} | {legal:.0} | {compact_bool:.0} | {compact_u8:.0} | {flat_mask:.0} | {encode:.0} | {decode:.0} |",
                states.len()
            );
        }
    }
}

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
    timings();
}
