//! The cost of the compact action space (`docs/encoding-caravan.md`):
//! the compact mask against the legal-action generation it is built on and
//! against a flat 41,667-entry mask, the flat→compact encoding of a whole
//! legal list, and compact→flat decoding (with the legality check).
//!
//! Positions: every 3rd decision of a game where every seat plays
//! `CaravanHeuristic` (`heuristic/<players>`, goods on the board, chains)
//! and every 9th decision of a uniform random game (`random/<players>`,
//! crowded boards of ~200 camel moves), 2 and 3 players. Each iteration
//! visits every position; the throughput is in positions.
//!
//! ```text
//! cargo bench -p caravan-core --bench compact
//! ```

use std::hint::black_box;

use boardgame_kit::{Agent, Game, GameRng, RandomAgent, decision_positions};
use caravan_core::{ActionList, Caravan, CaravanConfig, CaravanHeuristic, compact_num_actions};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn positions(players: u8, agent: &str) -> Vec<Caravan> {
    let config = CaravanConfig { players, ..CaravanConfig::default() };
    let mut out = Vec::new();
    for seed in 0..4 {
        let state = Caravan::new_game(&config).expect("default config");
        let mut rng = GameRng::new(seed);
        let list = if agent == "heuristic" {
            let mut bots: Vec<CaravanHeuristic> = (0..players).map(|_| CaravanHeuristic::new()).collect();
            let mut agents: Vec<&mut dyn Agent<Caravan>> =
                bots.iter_mut().map(|b| b as &mut dyn Agent<Caravan>).collect();
            decision_positions(state, &mut agents, &mut rng, 3, 64)
        } else {
            let mut bots: Vec<RandomAgent> = (0..players).map(|_| RandomAgent).collect();
            let mut agents: Vec<&mut dyn Agent<Caravan>> =
                bots.iter_mut().map(|b| b as &mut dyn Agent<Caravan>).collect();
            decision_positions(state, &mut agents, &mut rng, 9, 64)
        };
        out.extend(list.expect("a game plays").into_iter().map(|(s, _)| s));
    }
    out
}

fn compact(c: &mut Criterion) {
    for players in [2u8, 3] {
        for agent in ["heuristic", "random"] {
            let states = positions(players, agent);
            let n = compact_num_actions(states[0].config());
            let flat_n = Caravan::num_distinct_actions(states[0].config());
            let mut list = ActionList::default();
            let legal: usize = states
                .iter()
                .map(|s| {
                    s.legal_actions(&mut list);
                    list.len()
                })
                .sum();
            eprintln!(
                "{agent}/{players}: {} positions, {:.1} legal actions on average",
                states.len(),
                legal as f64 / states.len() as f64
            );
            let mut group = c.benchmark_group(format!("compact/{agent}/{players}"));
            group.throughput(Throughput::Elements(states.len() as u64));
            group.bench_function("legal_actions", |b| {
                b.iter(|| {
                    for s in &states {
                        s.legal_actions(&mut list);
                        black_box(list.len());
                    }
                })
            });
            let mut mask = vec![false; n];
            group.bench_function("compact_mask_bool", |b| {
                b.iter(|| {
                    for s in &states {
                        black_box(s.write_compact_mask(&mut mask).ok());
                    }
                })
            });
            let mut mask_u8 = vec![0u8; n];
            group.bench_function("compact_mask_u8", |b| {
                b.iter(|| {
                    for s in &states {
                        black_box(s.write_compact_mask(&mut mask_u8).ok());
                    }
                })
            });
            let mut flat = vec![0u8; flat_n];
            group.bench_function("flat_mask_u8", |b| {
                b.iter(|| {
                    for s in &states {
                        flat.fill(0);
                        s.legal_actions(&mut list);
                        for a in list.iter() {
                            if let Some(m) = flat.get_mut(a.id() as usize) {
                                *m = 1;
                            }
                        }
                        black_box(&flat);
                    }
                })
            });
            let lists: Vec<ActionList> = states
                .iter()
                .map(|s| {
                    let mut l = ActionList::default();
                    s.legal_actions(&mut l);
                    l
                })
                .collect();
            group.bench_function("encode_legal_list", |b| {
                b.iter(|| {
                    for (s, l) in states.iter().zip(&lists) {
                        let Ok(index) = s.compact_index() else { continue };
                        let mut sum = 0u32;
                        for &a in l.iter() {
                            sum = sum.wrapping_add(index.encode(a).unwrap_or(0));
                        }
                        black_box(sum);
                    }
                })
            });
            // one compact→flat decode (with the rules' check) per position:
            // the learner's chosen id
            let chosen: Vec<u32> = states
                .iter()
                .zip(&lists)
                .enumerate()
                .map(|(i, (s, l))| s.compact_id(l[i % l.len()]).expect("a legal action"))
                .collect();
            group.bench_function("compact_action", |b| {
                b.iter(|| {
                    for (s, &id) in states.iter().zip(&chosen) {
                        black_box(s.compact_action(id).ok());
                    }
                })
            });
            group.finish();
        }
    }
}

criterion_group!(benches, compact);
criterion_main!(benches);
