//! Criterion benchmarks of both engines over a fixed set of positions.
//!
//! Positions (documented in docs/performance.md): for each engine and player
//! count, the game played by uniform random agents from seed 1 (the kit's
//! driver scheme: chance from `GameRng::new(1).child(0)`, decisions uniform
//! from a second stream) is cut at three points: **opening** — the first
//! player decision; **middle** — the first player decision at or after half
//! the game's length; **late** — the first at or after 90% of it.
//!
//! Uniform random Caravan games are crowded boards that never end naturally
//! (they run to the turn limit), so Caravan also has the positions of
//! heuristic-driven games (`caravan-heuristic/<players>`): every seat plays
//! `CaravanHeuristic`, chance from `GameRng::new(1).child(0)`; the game ends
//! naturally (C-7.1) with goods moving and delivered, and is cut at the same
//! three points (no playout bench).
//!
//! **random_playout/G** plays the uniform random games of the seeds `0..G`
//! from the initial state per iteration (64 for Korovan, 8 for Caravan); its
//! throughput is their exact total of actions, chance included.
//!
//! Run: `cargo bench --bench engines` (add a filter such as `korovan/5`).

use std::hint::black_box;
use std::time::Duration;

use boardgames::caravan::{Caravan, CaravanConfig, CaravanHeuristic, EndKind};
use boardgames::kit::{Agent, Game, GameRng, RandomAgent, Turn, perft, playout, sample_chance};
use boardgames::korovan::{Korovan, KorovanConfig};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};

/// The game of `seed` that `agent` plays at every seat (chance from
/// `GameRng::new(seed).child(0)`, decisions from `child(1)`), as the list of
/// states before each action.
fn game_states<G: Game>(config: &G::Config, seed: u64, agent: &mut dyn Agent<G>) -> Vec<G> {
    let mut state = G::new_game(config).expect("bench configs are valid");
    let root = GameRng::new(seed);
    let mut chance = root.child(0);
    let mut pick = root.child(1);
    let mut chances = G::ChanceList::default();
    let mut states = Vec::new();
    loop {
        states.push(state.clone());
        let a = match state.turn() {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&state, &mut chance, &mut chances).expect("chance node has outcomes"),
            Turn::Player(seat) => agent.act(&state, seat, &mut pick),
        };
        state.apply(a).expect("agents play legal actions");
    }
    states
}

/// Opening, middle and late positions (player decisions) of seed 1's game.
fn positions<G: Game>(config: &G::Config) -> [(&'static str, G); 3] {
    // uniform random decisions: `RandomAgent` draws `list[pick.index(len)]`
    cut(game_states::<G>(config, 1, &mut RandomAgent))
}

/// Opening, middle and late positions (player decisions) of a game given
/// as its states.
fn cut<G: Game>(states: Vec<G>) -> [(&'static str, G); 3] {
    let at = |from: usize| {
        states[from.min(states.len() - 1)..]
            .iter()
            .find(|s| matches!(s.turn(), Turn::Player(_)))
            .cloned()
            .expect("a decision remains")
    };
    let n = states.len();
    [("opening", at(0)), ("middle", at(n / 2)), ("late", at(n * 9 / 10))]
}

/// The exact number of actions (chance included) of the uniform random
/// games of the seeds `0..games` from the initial state: the fixed set one
/// `random_playout` iteration plays, so its throughput is exact (no rounded
/// mean, no partial cycle of seeds).
fn playout_set_actions<G: Game>(start: &G, games: u64) -> u64 {
    (0..games)
        .map(|seed| {
            let mut s = start.clone();
            playout(&mut s, &mut GameRng::new(seed), usize::MAX) as u64
        })
        .sum()
}

/// The benches of one engine and config: per-position operations and perft
/// at `perft_depths`, then `random_playout` over the seeded games
/// `0..playout_games` (one iteration plays them all).
fn bench_engine<G: Game>(
    c: &mut Criterion,
    label: &str,
    config: G::Config,
    perft_depths: &[usize],
    playout_games: u64,
) {
    let positions = positions::<G>(&config);
    let mut group = c.benchmark_group(label);
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    bench_positions(&mut group, &config, &positions, perft_depths);
    // full random playouts: every action counted, chance included; one
    // iteration plays the whole set of seeded games, whose exact total of
    // actions is the throughput
    let start = G::new_game(&config).expect("valid");
    let total = playout_set_actions(&start, playout_games);
    group.throughput(Throughput::Elements(total));
    group.sampling_mode(SamplingMode::Flat);
    group.bench_with_input(BenchmarkId::new("random_playout", playout_games), &start, |b, start| {
        b.iter(|| {
            let mut actions = 0u64;
            for seed in 0..playout_games {
                let mut s = start.clone();
                actions += playout(&mut s, &mut GameRng::new(seed), usize::MAX) as u64;
            }
            assert_eq!(actions, total, "the playout set is deterministic");
            black_box(actions)
        })
    });
    group.finish();
}

/// The per-position benchmarks (legal actions, clone, apply, observation
/// tensor, perft) of `positions`, in `group`.
fn bench_positions<G: Game>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    config: &G::Config,
    positions: &[(&'static str, G)],
    perft_depths: &[usize],
) {
    let mut list = G::ActionList::default();
    for (name, state) in positions {
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::new("legal_actions", name), state, |b, s| {
            b.iter(|| {
                black_box(s).legal_actions(&mut list);
                black_box(list.len())
            })
        });
        group.bench_with_input(BenchmarkId::new("clone", name), state, |b, s| {
            b.iter(|| black_box(black_box(s).clone()))
        });
        state.legal_actions(&mut list);
        let action = list[list.len() / 2];
        group.bench_with_input(BenchmarkId::new("apply_checked", name), state, |b, s| {
            b.iter_batched_ref(
                || s.clone(),
                |t| black_box(t.apply(black_box(action))),
                criterion::BatchSize::SmallInput,
            )
        });
        group.bench_with_input(BenchmarkId::new("apply_unchecked", name), state, |b, s| {
            b.iter_batched_ref(|| s.clone(), |t| t.apply_unchecked(black_box(action)), criterion::BatchSize::SmallInput)
        });
        let mut tensor = vec![0f32; G::observation_tensor_len(config)];
        group.bench_with_input(BenchmarkId::new("observation_tensor", name), state, |b, s| {
            b.iter(|| black_box(s.write_observation_tensor(0, &mut tensor)))
        });
        for &depth in perft_depths {
            let nodes = perft(state, depth);
            group.throughput(Throughput::Elements(nodes));
            group.bench_with_input(BenchmarkId::new(format!("perft{depth}"), name), state, |b, s| {
                b.iter(|| perft(black_box(s), depth))
            });
        }
    }
}

fn korovan(c: &mut Criterion) {
    for players in [3, 5, 9] {
        let config = KorovanConfig { players, ..KorovanConfig::default() };
        bench_engine::<Korovan>(c, &format!("korovan/{players}"), config, &[2, 4], 64);
    }
}

fn caravan(c: &mut Criterion) {
    for players in [2, 3, 4] {
        let config = CaravanConfig { players, ..CaravanConfig::default() };
        bench_engine::<Caravan>(c, &format!("caravan/{players}"), config, &[1, 2], 8);
    }
    // heuristic-driven games: natural ends, goods moving (C-5.3, C-7.1)
    for players in [2, 3, 4] {
        let config = CaravanConfig { players, ..CaravanConfig::default() };
        let states = game_states(&config, 1, &mut CaravanHeuristic::new());
        assert_eq!(states.last().and_then(|s| s.end_kind()), Some(EndKind::Natural), "{players} players");
        let positions = cut(states);
        let mut group = c.benchmark_group(format!("caravan-heuristic/{players}"));
        group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
        bench_positions(&mut group, &config, &positions, &[1, 2]);
        group.finish();
    }
}

criterion_group!(benches, korovan, caravan);
criterion_main!(benches);
