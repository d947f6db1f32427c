//! The trained network of `learned` and `learned-ismcts:N`
//! (`docs/bots.md`, "Learned agents"): its layout ([`NetGame`]: the policy
//! head is the action-id space, the value head one entry per seat up to
//! nine) and the committed weights, `weights/korovan.bgnn`, read once.

use std::sync::{Arc, OnceLock};

use boardgame_kit::nn::{NetGame, Network, PlayerNetworks, WeightsError};
use boardgame_kit::{Agent, Game};

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

/// Networks trained at a player count of their own, `(players, weights)`:
/// `learned` and `learned-ismcts:N` play each at its count and [`WEIGHTS`]
/// at the others (docs/learning.md, "The committed networks").
pub const WEIGHTS_BY_PLAYERS: &[(usize, &[u8])] = &[
    (3, include_bytes!("../weights/korovan-3p.bgnn")),
    (4, include_bytes!("../weights/korovan-4p.bgnn")),
    (7, include_bytes!("../weights/korovan-7p.bgnn")),
    (8, include_bytes!("../weights/korovan-8p.bgnn")),
    (9, include_bytes!("../weights/korovan-9p.bgnn")),
];

/// The networks of [`WEIGHTS_BY_PLAYERS`], read on first use.
///
/// # Errors
/// The [`WeightsError`] of a corrupt file (the crate's tests read them).
pub fn networks_by_players() -> Result<PlayerNetworks, WeightsError> {
    static NETS: OnceLock<Result<PlayerNetworks, WeightsError>> = OnceLock::new();
    NETS.get_or_init(|| {
        boardgame_kit::nn::read_networks::<Korovan>(WEIGHTS_BY_PLAYERS, &crate::KorovanConfig::default())
    })
    .clone()
}

/// `learned:T` over the committed networks.
pub(crate) fn learned_agent(temperature: f32) -> Result<Box<dyn Agent<Korovan>>, WeightsError> {
    boardgame_kit::nn::agent_by_players(network()?, networks_by_players()?, |net| {
        Ok(Box::new(boardgame_kit::nn::LearnedAgent::<Korovan>::new(net, temperature)?))
    })
}

/// `learned-ismcts:N` over the committed networks.
pub(crate) fn learned_search_agent(budget: boardgame_kit::Budget) -> Result<Box<dyn Agent<Korovan>>, WeightsError> {
    use boardgame_kit::Bots;
    boardgame_kit::nn::agent_by_players(network()?, networks_by_players()?, |net| {
        Korovan::learned_search_with(net, budget)
    })
}

/// The margin of `learned-ismcts:N` for Korovan (in shares of the win):
/// the search's own choice replaces the network's move only when its mean
/// return is higher by more than this.
pub const LEARNED_SEARCH_MARGIN: f64 = 0.3;
