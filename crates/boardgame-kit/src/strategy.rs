//! Proptest strategies for arbitrary **reachable** states of any engine
//! (feature `proptest`).
//!
//! A reachable state is the result of a random legal walk from the initial
//! state: a seed and a length, shrinking towards shorter walks. Property-test
//! your own invariant in a few lines:
//!
//! ```
//! use boardgame_kit::proptest::prelude::*; // the crate's own re-export: no `proptest` dependency needed
//! use boardgame_kit::{Game, strategy::reachable_state, testgame::HiddenNim};
//!
//! proptest!(|(state in reachable_state::<HiddenNim>(Default::default(), 10))| {
//!     prop_assert!(state.score(0) <= 5);
//! });
//! ```

use proptest::prelude::*;

use crate::{ActionId, Game, GameRng, random_action};

/// A reachable state with the walk that reached it.
#[derive(Clone, Debug)]
pub struct Walk<G: Game> {
    /// The walk's seed.
    pub seed: u64,
    /// The ids played from the initial state.
    pub actions: Vec<ActionId>,
    /// The state reached.
    pub state: G,
}

/// Walks `steps` random legal actions (chance by its weights) from the
/// initial state of `config`, stopping early at the end of the game.
///
/// # Panics
/// When `config` does not validate (a strategy is built by the test writer).
pub fn random_walk<G: Game>(config: &G::Config, seed: u64, steps: usize) -> Walk<G> {
    let mut state = match G::new_game(config) {
        Ok(s) => s,
        Err(e) => panic!("reachable_state needs a valid config: {e}"),
    };
    let mut rng = GameRng::new(seed);
    let mut actions = Vec::new();
    for _ in 0..steps {
        let Some(a) = random_action(&state, &mut rng) else { break };
        actions.push(G::action_id(config, a));
        state.apply_unchecked(a);
    }
    Walk { seed, actions, state }
}

/// Arbitrary reachable states of `config`, walks of up to `max_steps` actions.
pub fn reachable_state<G: Game>(config: G::Config, max_steps: usize) -> impl Strategy<Value = G> {
    reachable_walk::<G>(config, max_steps).prop_map(|w| w.state)
}

/// Arbitrary reachable states with the walks that reached them (for
/// failure messages that can be replayed).
pub fn reachable_walk<G: Game>(config: G::Config, max_steps: usize) -> impl Strategy<Value = Walk<G>> {
    (any::<u64>(), 0..=max_steps).prop_map(move |(seed, steps)| random_walk::<G>(&config, seed, steps))
}
