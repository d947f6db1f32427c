//! Helpers shared by the rule and property tests.
#![allow(dead_code)]

use boardgame_kit::{Game, GameRng, Turn, sample_chance};
use korovan_core::{Action, AmbushSet, HelperCounts, Korovan, KorovanConfig, KorovanSetup};

/// A config of `n` players whose driver holds `hand` helpers.
pub fn cfg(n: u8, hand: u8) -> KorovanConfig {
    KorovanConfig { players: n, hand_size: Some(hand), ..KorovanConfig::default() }
}

/// The ambush set of a mask.
pub fn set(mask: u8) -> AmbushSet {
    AmbushSet::from_mask(mask).unwrap()
}

/// A journey setup (phase Place, row 1) of round `round`.
pub fn journey_setup(n: u8, round: u8, masks: &[u8], hand: HelperCounts) -> KorovanSetup {
    let layouts: Vec<AmbushSet> = masks.iter().map(|&m| set(m)).collect();
    KorovanSetup::journey(cfg(n, hand.total() as u8), round, &layouts, hand)
}

/// Moves a setup to the same round of the second lap (two laps), where every
/// seat has driven once, so any split of the cows is within reach (K-1.2:
/// in the first lap a seat that has not driven yet holds its starting cows
/// give or take the fines and tolls of the rounds played).
pub fn second_lap(s: &mut KorovanSetup) {
    s.config.laps = 2;
    s.round += s.config.players;
}

/// The state of [`journey_setup`].
pub fn journey(n: u8, masks: &[u8], hand: HelperCounts) -> Korovan {
    Korovan::from_setup(&journey_setup(n, 0, masks, hand)).unwrap()
}

/// Plays `notation`, which must be legal.
pub fn play(g: &mut Korovan, notation: &str) {
    let a: Action = notation.parse().unwrap();
    if let Err(e) = g.apply(a) {
        panic!("{notation}: {e}\n{g}");
    }
}

/// The legal actions in notation.
pub fn legal(g: &Korovan) -> Vec<String> {
    let mut l = Default::default();
    g.legal_actions(&mut l);
    l.iter().map(|a| a.to_string()).collect()
}

/// One random action (chance by its weights).
pub fn random_action(g: &Korovan, rng: &mut GameRng) -> Action {
    match g.turn() {
        Turn::Chance => sample_chance(g, rng, &mut Default::default()).unwrap(),
        _ => {
            let mut l = <Korovan as Game>::ActionList::default();
            g.legal_actions(&mut l);
            l[rng.index(l.len())]
        }
    }
}

/// Plays random actions until the round changes or the game ends.
pub fn finish_round(g: &mut Korovan, rng: &mut GameRng) {
    let r = g.round();
    while !g.is_terminal() && g.round() == r {
        let a = random_action(g, rng);
        g.apply(a).unwrap();
    }
}
