//! The kit's conformance suite and perft cross-checked by a naive generator.

use boardgame_kit::conformance::{self, Options};
use boardgame_kit::{Game, GameRng, Turn, perft, sample_chance};
use caravan_core::{Action, Caravan, CaravanConfig};

fn config(players: u8, max_turns: u32) -> CaravanConfig {
    CaravanConfig { players, max_turns, ..CaravanConfig::default() }
}

#[test]
fn conformance_2_3_4_players() {
    for players in 2..=4 {
        // Random play ends at max_turns (C-9.3); a short guard keeps the
        // full id sweeps (42k ids) affordable in debug builds.
        let options =
            Options { games: 3, seed: 11 * u64::from(players), sweep_every: 64, sample_ids: 32, determinize_every: 8 };
        let report = conformance::check_with::<Caravan>(&config(players, 24), &options)
            .unwrap_or_else(|e| panic!("{players} players: {e}"));
        assert_eq!(report.games, 3);
        assert!(report.chance_nodes >= 8);
    }
}

#[test]
fn conformance_default_config_one_full_game() {
    let options = Options { games: 1, seed: 5, sweep_every: 400, sample_ids: 16, determinize_every: 50 };
    conformance::check_with::<Caravan>(&CaravanConfig::default(), &options).unwrap();
}

/// Every id of the action space that the validating `apply` accepts, found
/// by brute force (`apply` is `validate` then `apply_unchecked`; validating
/// on the state itself spares 42k copies per node).
fn naive_legal(state: &Caravan) -> Vec<Action> {
    let n = Caravan::num_distinct_actions(state.config());
    (0..n as u32)
        .filter_map(|id| {
            let a = Caravan::action_from_id(state.config(), id).ok()?;
            state.validate(a).ok().map(|_| a)
        })
        .collect()
}

fn naive_perft(state: &Caravan, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    let legal = naive_legal(state);
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .iter()
        .map(|&a| {
            let mut s = *state;
            s.apply(a).expect("a validated action applies");
            naive_perft(&s, depth - 1)
        })
        .sum()
}

/// The position after the setup draws of `seed`.
fn after_setup(players: u8, seed: u64) -> Caravan {
    let mut s = Caravan::new_game(&config(players, 400)).unwrap();
    let mut rng = GameRng::new(seed);
    let mut buf = Default::default();
    while s.turn() == Turn::Chance {
        let a = sample_chance(&s, &mut rng, &mut buf).unwrap();
        s.apply(a).unwrap();
    }
    s
}

/// `naive_perft` with the first level split over the available cores.
fn naive_perft_parallel(state: &Caravan, depth: usize) -> u64 {
    let legal = naive_legal(state);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 8);
    let chunk = legal.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = legal
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|&a| {
                            let mut s = *state;
                            s.apply(a).expect("a validated action applies");
                            naive_perft(&s, depth - 1)
                        })
                        .sum::<u64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("no panic")).sum()
    })
}

#[test]
fn perft_depth_3_two_players_matches_naive_generator() {
    // The full depth-3 tree (≈ 238k leaves) of a fixed seed, every node's
    // list checked against a brute-force sweep of all 42k ids.
    let s = after_setup(2, 1);
    assert_eq!(perft(&s, 3), naive_perft_parallel(&s, 3));
}

#[test]
fn perft_depth_3_three_and_four_players_match_naive_generator() {
    for (players, seed) in [(3u8, 2u64), (4, 3)] {
        let s = after_setup(players, seed);
        let fast = perft(&s, 3);
        assert_eq!(perft(&s, 1), naive_perft(&s, 1));
        assert_eq!(perft(&s, 2), naive_perft(&s, 2), "{players} players");
        // Depth 3 is the sum over first actions of depth 2 below them; the
        // brute force (42k ids a node in a debug build) checks every 8th
        // subtree, the fast generator all of them.
        let mut list = <Caravan as Game>::ActionList::default();
        s.legal_actions(&mut list);
        let mut total = 0;
        for (i, &a) in list.iter().enumerate() {
            let mut c = s;
            c.apply(a).unwrap();
            let sub = perft(&c, 2);
            if i % 8 == 0 {
                assert_eq!(sub, naive_perft(&c, 2), "{players} players after {a}");
            }
            total += sub;
        }
        assert_eq!(total, fast);
    }
}

#[test]
fn perft_of_setup_draws() {
    // C-3.1: 8 draws of 8 kinds each while the bag holds them.
    let s = Caravan::new_game(&config(3, 400)).unwrap();
    assert_eq!(perft(&s, 1), 8);
    assert_eq!(perft(&s, 3), 512);
}
