//! The kit's conformance suite on Korovan for 3, 5 and 9 players.

use boardgame_kit::conformance;
use korovan_core::{Korovan, KorovanConfig};

fn run(players: u8, games: usize, seed: u64) {
    let config = KorovanConfig::with_players(players);
    let report =
        conformance::check::<Korovan>(&config, games, seed).unwrap_or_else(|e| panic!("{players} players: {e}"));
    assert_eq!(report.games, games);
    assert!(report.chance_nodes > 0);
}

#[test]
fn conformance_3_players() {
    run(3, 40, 1);
}

#[test]
fn conformance_5_players() {
    run(5, 20, 2);
}

#[test]
fn conformance_9_players() {
    run(9, 8, 3);
}

#[test]
fn conformance_two_laps_small_hand() {
    let config = KorovanConfig { players: 4, laps: 2, first_driver: 2, hand_size: Some(6), ..KorovanConfig::default() };
    conformance::check::<Korovan>(&config, 4, 9).unwrap();
}
