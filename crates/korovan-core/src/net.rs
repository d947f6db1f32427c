//! The trained network of `learned` and `learned-ismcts:N`
//! (`docs/bots.md`, "Learned agents"): its layout ([`NetGame`]: the policy
//! head is the action-id space, the value head one entry per seat up to
//! nine) and the committed weights, `weights/korovan.bgnn`, read once.

use std::sync::{Arc, OnceLock};

use boardgame_kit::nn::{NetGame, Network, WeightsError};
use boardgame_kit::{Agent, Budget, Game};

use crate::action::{Action, NUM_ACTIONS};
use crate::config::MAX_PLAYERS;
use crate::state::Korovan;

/// The committed weights (format: `boardgame_kit::nn`; how they were
/// trained: their text, and `docs/bots.md`).
pub const WEIGHTS: &[u8] = include_bytes!("../weights/korovan.bgnn");

impl NetGame for Korovan {
    const POLICY_LEN: usize = NUM_ACTIONS;
    const VALUE_LEN: usize = MAX_PLAYERS;

    fn policy_indices(&self, actions: &[Action], out: &mut [u32]) {
        for (o, &a) in out.iter_mut().zip(actions) {
            *o = Korovan::action_id(self.config(), a);
        }
    }
}

/// The committed network, read on first use.
///
/// # Errors
/// The [`WeightsError`] of a corrupt file (a build with a broken
/// `weights/korovan.bgnn`; the crate's tests read it).
pub fn network() -> Result<Arc<Network>, WeightsError> {
    static NET: OnceLock<Result<Arc<Network>, WeightsError>> = OnceLock::new();
    NET.get_or_init(|| boardgame_kit::nn::read_network::<Korovan>(WEIGHTS, &crate::KorovanConfig::default())).clone()
}

pub(crate) fn learned_agent(temperature: f32) -> Result<Box<dyn Agent<Korovan>>, WeightsError> {
    Ok(Box::new(boardgame_kit::nn::LearnedAgent::<Korovan>::new(network()?, temperature)?))
}

/// `learned-ismcts:N` for Korovan: the tuned search of `ismcts-h`
/// (chance not branching, the other seats random in rollouts) with the
/// network's greedy policy as the searching seat's rollout policy in place
/// of the heuristic — the network "as the rollout policy" of issue 21. At
/// 10 ms a move it held level with `ismcts-h` (19.0% [15.4, 23.1] of the
/// wins in 400 games against four `ismcts-h:10ms`), where the kit's
/// rollout-free [`learned_ismcts`](boardgame_kit::nn::learned_ismcts) took
/// 17.5% [14.1, 21.6] (`docs/bots.md`).
pub(crate) fn learned_search_agent(budget: Budget) -> Result<Box<dyn Agent<Korovan>>, WeightsError> {
    let net = network()?;
    let rollout = boardgame_kit::nn::LearnedAgent::<Korovan>::new(net, 0.0)?;
    Ok(Box::new(
        boardgame_kit::IsMctsAgent::<Korovan>::new(budget)
            .chance_branching(false)
            .searcher_rollout_agent(Box::new(rollout)),
    ))
}
