//! The trained network of `learned` and `learned-ismcts:N`
//! (`docs/bots.md`, "Learned agents"): its layout ([`NetGame`]: the policy
//! head is the action-id space, the value head one entry per seat up to
//! nine) and the committed weights, `weights/korovan.bgnn`, read once.

use std::sync::{Arc, OnceLock};

use boardgame_kit::nn::{NetGame, Network, WeightsError};
use boardgame_kit::{Agent, Budget, Game};

use crate::action::{KorovanAction, NUM_ACTIONS};
use crate::config::MAX_PLAYERS;
use crate::state::Korovan;

/// The committed weights (format: `boardgame_kit::nn`; how they were
/// trained: their text, and `docs/bots.md`).
pub const WEIGHTS: &[u8] = include_bytes!("../weights/korovan.bgnn");

impl NetGame for Korovan {
    const POLICY_LEN: usize = NUM_ACTIONS;
    const VALUE_LEN: usize = MAX_PLAYERS;

    fn policy_indices(&self, actions: &[KorovanAction], out: &mut [u32]) {
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
    NET.get_or_init(|| {
        let net = Network::from_bytes(WEIGHTS)?;
        net.check_fits(Korovan::NAME, crate::TENSOR_LEN, Korovan::POLICY_LEN, Korovan::VALUE_LEN)?;
        Ok(Arc::new(net))
    })
    .clone()
}

pub(crate) fn learned_agent(temperature: f32) -> Result<Box<dyn Agent<Korovan>>, WeightsError> {
    Ok(Box::new(boardgame_kit::nn::LearnedAgent::<Korovan>::new(network()?, temperature)?))
}

pub(crate) fn learned_search_agent(budget: Budget) -> Result<Box<dyn Agent<Korovan>>, WeightsError> {
    Ok(Box::new(boardgame_kit::nn::learned_ismcts::<Korovan>(network()?, budget)?))
}
