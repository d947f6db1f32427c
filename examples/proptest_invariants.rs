//! Property-testing a rule invariant of your own over **reachable** states,
//! with the kit's proptest strategies and proptest's `TestRunner`:
//!
//! * Korovan: the cows of all players always add up to N·(N+1) (K-1.2);
//! * Caravan: every kind of good keeps its number of cubes, wherever the
//!   cubes are — bag, numbered spaces, camels, delivered piles (C-1.3).
//!
//! Each reachable state is a random legal walk (chance by its weights) from
//! a seed; a failure shrinks to the shortest walk and prints its seed and
//! action ids, so it can be replayed.
//!
//! Run with `cargo run --example proptest_invariants` (add `--quick` for a
//! few cases; `cargo test --examples` runs it in that mode).
//!
//! In a crate of your own, the facade's feature `proptest` is all it needs:
//! `boardgames = { path = "...", features = ["proptest"] }` gives the
//! strategies (`boardgames::kit::strategy`) and the `proptest` crate itself
//! (`boardgames::proptest`, whose prelude brings `proptest!`,
//! `prop_assert!` and `Strategy`), with no `proptest` dependency of your
//! own. The tests below use both forms: a `TestRunner`, and the `proptest!`
//! macro.

use boardgames::caravan::{Caravan, CaravanConfig, Cargo, FULL_BAG, KINDS};
use boardgames::kit::Game;
use boardgames::kit::strategy::{Walk, reachable_walk};
use boardgames::korovan::{Korovan, KorovanConfig};
use boardgames::proptest::prelude::*;
use boardgames::proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Korovan with 3 to 9 players, walks of up to 400 actions (a whole game
/// is about 150 to 400).
fn korovan_walks() -> impl Strategy<Value = Walk<Korovan>> {
    (3u8..=9).prop_flat_map(|n| reachable_walk::<Korovan>(KorovanConfig::with_players(n), 400))
}

/// Caravan with 2 to 4 players, walks of up to 300 actions.
fn caravan_walks() -> impl Strategy<Value = Walk<Caravan>> {
    (2u8..=4).prop_flat_map(|n| reachable_walk::<Caravan>(CaravanConfig::with_players(n), 300))
}

/// K-1.2: the sum of all players' cows is N·(N+1) at every moment.
fn cows_are_conserved(walk: Walk<Korovan>) -> Result<(), TestCaseError> {
    let state = &walk.state;
    let n = state.num_players();
    let total: usize = (0..n).map(|seat| usize::from(state.cows(seat))).sum();
    prop_assert_eq!(total, n * (n + 1), "seed {} after actions {:?}", walk.seed, walk.actions);
    Ok(())
}

/// C-1.3: each kind of good keeps its cubes (3 of a rare kind, 9 of a
/// common one), counted where they can be: in the bag, lying on the
/// numbered spaces, on or under camels, in the delivered piles.
fn goods_are_conserved(walk: Walk<Caravan>) -> Result<(), TestCaseError> {
    let state = &walk.state;
    let mut count = state.bag().map(u32::from);
    for number in 1..=8 {
        if let Some(kind) = state.lying(number) {
            count[usize::from(kind.index())] += 1;
        }
    }
    for player in 0..state.num_players() {
        for (_, cargo) in state.camels_on_board(player) {
            if let Cargo::Top(kind) | Cargo::Under(kind) = cargo {
                count[usize::from(kind.index())] += 1;
            }
        }
        for (total, delivered) in count.iter_mut().zip(state.delivered(player)) {
            *total += u32::from(delivered);
        }
    }
    let expected: [u32; KINDS] = FULL_BAG.map(u32::from);
    prop_assert_eq!(count, expected, "seed {} after actions {:?}", walk.seed, walk.actions);
    Ok(())
}

/// Runs both properties over `cases` reachable states each; the first
/// failure (shrunk) as an error.
fn check(cases: u32) -> Result<(), String> {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config.clone());
    runner.run(&korovan_walks(), cows_are_conserved).map_err(|e| format!("Korovan cows (K-1.2): {e}"))?;
    println!("Korovan: cows add up to N·(N+1) in {cases} reachable states (K-1.2)");
    let mut runner = TestRunner::new(config);
    runner.run(&caravan_walks(), goods_are_conserved).map_err(|e| format!("Caravan goods (C-1.3): {e}"))?;
    println!("Caravan: every kind keeps its cubes in {cases} reachable states (C-1.3)");
    Ok(())
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    if let Err(e) = check(if quick { 16 } else { 256 }) {
        eprintln!("property failed: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest! {
        #![proptest_config(Config { cases: 8, failure_persistence: None, ..Config::default() })]

        /// The macro form of the same property: one `#[test]` per property.
        #[test]
        fn cows_are_conserved_in_the_macro_form(walk in korovan_walks()) {
            cows_are_conserved(walk)?;
        }
    }

    #[test]
    fn the_invariants_hold_on_a_few_reachable_states() {
        super::check(16).expect("the invariants hold");
    }

    /// The runner does catch a broken invariant (here: a wrong total).
    #[test]
    fn a_false_invariant_is_caught() {
        let mut runner = TestRunner::new(Config { cases: 16, failure_persistence: None, ..Config::default() });
        let wrong = runner.run(&korovan_walks(), |walk| {
            let n = walk.state.num_players();
            let total: usize = (0..n).map(|seat| usize::from(walk.state.cows(seat))).sum();
            prop_assert_eq!(total, n * n);
            Ok(())
        });
        assert!(wrong.is_err());
    }
}
