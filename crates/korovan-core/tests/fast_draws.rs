//! The engine's fast random draws (`Game::random_legal_action`,
//! `Game::sample_chance_outcome`) against the kit's listed draws, on every
//! state of random games of varied configurations (players, laps, first
//! driver, hand size, helper deck): the same action and the same draws from
//! the generator, at every phase — deal, peek, lay, place, decide, defend,
//! over.

use boardgame_kit::{Game, GameRng, Turn, sample_chance};
use korovan_core::{Action, HelperCounts, Korovan, KorovanConfig, Phase};
use proptest::prelude::*;

/// The listed draw: `list[rng.index(list.len())]` of `legal_actions`.
fn listed_action(g: &Korovan, rng: &mut GameRng) -> Option<Action> {
    let mut list = <Korovan as Game>::ActionList::default();
    g.legal_actions(&mut list);
    list.get(rng.index(list.len())).copied()
}

/// The listed chance draw: `sample_chance` over `chance_outcomes`.
fn listed_chance(g: &Korovan, rng: &mut GameRng) -> Option<Action> {
    let mut list = <Korovan as Game>::ChanceList::default();
    sample_chance(g, rng, &mut list)
}

/// Checks both fast draws against the listed ones from a few positions of
/// `rng` (which advances).
fn check_state(g: &Korovan, rng: &mut GameRng) -> Result<(), TestCaseError> {
    for _ in 0..3 {
        let mut fast = rng.clone();
        let mut slow = rng.clone();
        let drawn = g.random_legal_action(&mut fast);
        let listed = listed_action(g, &mut slow);
        prop_assert_eq!(drawn, listed, "random_legal_action in {}", g);
        prop_assert!(fast == slow, "random_legal_action draws differently in {}", g);
        let drawn = g.sample_chance_outcome(&mut fast);
        let listed = listed_chance(g, &mut slow);
        prop_assert_eq!(drawn, listed, "sample_chance_outcome in {}", g);
        prop_assert!(fast == slow, "sample_chance_outcome draws differently in {}", g);
        rng.next_u32();
    }
    Ok(())
}

/// One bit per phase, in declaration order (Deal is bit 0, Over bit 6).
fn phase_bit(p: Phase) -> u32 {
    1 << p as u32
}

/// Plays a whole game by the listed draws, checking every state; returns
/// the phases met.
fn walk(config: &KorovanConfig, seed: u64) -> Result<u32, TestCaseError> {
    let mut g = Korovan::new_game(config).unwrap();
    let mut rng = GameRng::new(seed);
    let mut probe = GameRng::new(!seed);
    let mut phases = 0;
    loop {
        phases |= phase_bit(g.phase());
        check_state(&g, &mut probe)?;
        let action = match g.turn() {
            Turn::Terminal => break,
            Turn::Chance => listed_chance(&g, &mut rng),
            Turn::Player(_) => listed_action(&g, &mut rng),
        };
        g.apply(action.unwrap()).unwrap();
    }
    Ok(phases)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    /// Default decks and hands, 3..=9 players, one or two laps.
    #[test]
    fn fast_draws_are_the_listed_draws(seed in any::<u64>(), n in 3u8..=9, laps in 1u8..=2, first in 0u8..9) {
        let config = KorovanConfig { players: n, laps, first_driver: first % n, ..KorovanConfig::default() };
        let phases = walk(&config, seed)?;
        // every game deals, peeks, lays, places, decides and ends
        prop_assert_eq!(phases & 0b101_1111, 0b101_1111);
    }

    /// Other decks and hand sizes (up to a hand of 16: long helper lists of
    /// up to 24 Scout and Flare targets each).
    #[test]
    fn fast_draws_with_other_decks(
        seed in any::<u64>(),
        n in 3u8..=9,
        deck in proptest::array::uniform6(0u8..=9),
        hand in 0u8..=16,
    ) {
        let config = KorovanConfig {
            players: n,
            deck: HelperCounts::from_array(deck),
            hand_size: Some(hand),
            ..KorovanConfig::default()
        };
        prop_assume!(config.validate().is_ok());
        walk(&config, seed)?;
    }
}

/// A hand of every helper, many of them: the decide and place lists at
/// their longest, each position of them drawn.
#[test]
fn every_index_of_long_lists() {
    let config = KorovanConfig {
        players: 9,
        deck: HelperCounts::from_array([6, 2, 6, 1, 1, 0]),
        hand_size: Some(16),
        ..KorovanConfig::default()
    };
    let mut longest = 0;
    let mut probe = GameRng::new(99);
    for seed in 0..4u64 {
        let mut g = Korovan::new_game(&config).unwrap();
        let mut rng = GameRng::new(seed);
        while !g.is_terminal() {
            let mut list = <Korovan as Game>::ActionList::default();
            g.legal_actions(&mut list);
            longest = longest.max(list.len());
            check_state(&g, &mut probe).unwrap();
            // many generator positions: every index of the list is drawn
            let mut seen = 0u64;
            for _ in 0..list.len() * 16 {
                let mut fast = probe.clone();
                let mut slow = probe.clone();
                probe.next_u32();
                let a = g.random_legal_action(&mut fast);
                assert_eq!(a, listed_action(&g, &mut slow), "{g}");
                if let Some(i) = list.iter().position(|&x| Some(x) == a) {
                    seen |= 1 << i;
                }
            }
            assert_eq!(seen.count_ones() as usize, list.len(), "not every index drawn in {g}");
            let a = match g.turn() {
                Turn::Chance => listed_chance(&g, &mut rng),
                _ => listed_action(&g, &mut rng),
            };
            g.apply(a.unwrap()).unwrap();
        }
    }
    assert!(longest >= 40, "the lists were short: {longest}");
}
