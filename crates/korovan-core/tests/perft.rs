//! perft figures of the first round from fixed seeds, computed by the engine
//! (`boardgame_kit::perft`, i.e. legal_actions + apply_unchecked) and
//! cross-checked by a naive counter that tries every id of the action space
//! through `validate` and `apply`.

mod common;

use boardgame_kit::{Game, GameRng, perft, sample_chance};
use korovan_core::{Action, Korovan, KorovanConfig, NUM_ACTIONS, Phase};

/// The state after the deal of round 1, the deal drawn from `seed`.
fn dealt(players: u8, seed: u64) -> Korovan {
    let mut g = Korovan::new_game(&KorovanConfig::with_players(players)).unwrap();
    let mut rng = GameRng::new(seed);
    let mut buf = Default::default();
    while g.phase() == Phase::Deal {
        let a = sample_chance(&g, &mut rng, &mut buf).unwrap();
        g.apply(a).unwrap();
    }
    g
}

/// Naive: every id, legal when `validate` says so.
fn naive_perft(g: &Korovan, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for id in 0..NUM_ACTIONS as u32 {
        let a = Action::from_id(id).unwrap();
        if g.validate(a).is_ok() {
            let mut c = *g;
            c.apply(a).unwrap();
            n += naive_perft(&c, depth - 1);
        }
    }
    n
}

/// Action sequences from `g` to the end of its round, by the engine.
fn round_perft(g: &Korovan) -> u64 {
    let round = g.round();
    let mut list = Default::default();
    g.legal_actions(&mut list);
    list.iter()
        .map(|&a| {
            let mut c = *g;
            c.apply_unchecked(a);
            if c.round() != round || c.is_terminal() { 1 } else { round_perft(&c) }
        })
        .sum()
}

/// The same, naively.
fn naive_round_perft(g: &Korovan) -> u64 {
    let round = g.round();
    let mut n = 0;
    for id in 0..NUM_ACTIONS as u32 {
        let a = Action::from_id(id).unwrap();
        if g.validate(a).is_ok() {
            let mut c = *g;
            c.apply(a).unwrap();
            n += if c.round() != round || c.is_terminal() { 1 } else { naive_round_perft(&c) };
        }
    }
    n
}

#[test]
fn perft_deal_counts_the_kinds() {
    let g = Korovan::new_game(&KorovanConfig::with_players(3)).unwrap();
    // K-3.1: 6 kinds, then 6 again (no kind runs out in two draws)
    assert_eq!(perft(&g, 1), 6);
    assert_eq!(perft(&g, 2), 36);
    assert_eq!(naive_perft(&g, 2), 36);
}

#[test]
fn perft_first_round_3_players() {
    let g = dealt(3, 2024);
    let expected = [1u64, 6, 18, 108];
    for (d, &e) in expected.iter().enumerate() {
        assert_eq!(perft(&g, d), e, "depth {d}");
        assert_eq!(naive_perft(&g, d), e, "naive depth {d}");
    }
    let engine = round_perft(&g);
    assert_eq!(engine, naive_round_perft(&g));
    assert_eq!(engine, ROUND_3P);
}

#[test]
fn perft_first_round_5_players() {
    let g = dealt(5, 7);
    // phase 1: lay 6 · (peek 3 · lay 6) · (peek 6 · lay 6) · (peek 9 · lay 6)
    let expected = [1u64, 6, 18, 108, 648, 3888, 34992, 209952];
    for (d, &e) in expected.iter().enumerate() {
        assert_eq!(perft(&g, d), e, "depth {d}");
    }
    assert_eq!(naive_perft(&g, 5), expected[5]);
    // into the journey: the first step after one fixed phase 1
    let mut j = g;
    for a in ["lay 0", "peek 1.0", "lay 1+2", "peek 2.1", "lay 0+2", "peek 3.2", "lay 1"] {
        common::play(&mut j, a);
    }
    assert_eq!(j.phase(), Phase::Place);
    let d8 = perft(&g, 8);
    assert_eq!(d8, DEPTH8_5P);
    for (d, &e) in JOURNEY_5P.iter().enumerate() {
        assert_eq!(perft(&j, d), e, "journey depth {d}");
        assert_eq!(naive_perft(&j, d), e, "naive journey depth {d}");
    }
}

const ROUND_3P: u64 = 437_400;
const DEPTH8_5P: u64 = 3_149_280;
const JOURNEY_5P: [u64; 5] = [1, 15, 225, 1616, 7684];
