//! The trained network of `learned` and `learned-ismcts:N`
//! (`docs/bots.md`, "Learned agents"): its layout ([`NetGame`]: the policy
//! head is the compact action space of four players,
//! [`MAX_COMPACT_ACTIONS`](crate::MAX_COMPACT_ACTIONS) ids, whose first
//! ids are those of fewer players; the value head one entry per seat up to
//! four) and the committed weights, `weights/caravan.bgnn`, read once.
//!
//! The network's input is the observation tensor followed by
//! [`SLOT_PLANES`] planes over the 49 squares that locate the mover's
//! compact slots ([`CompactIndex::write_slot_planes`]): a compact id names
//! its source by slot (`move <slot i>->to`), so the policy head needs to
//! see where slot `i` is; the planes are computed from the observation
//! alone (Caravan has no hidden information, C-8). Last come
//! [`MAX_COMPACT_ACTIONS`](crate::MAX_COMPACT_ACTIONS) entries, the
//! one-hot of the move [`CaravanHeuristic`](crate::CaravanHeuristic)'s
//! planner would play (its shortest paths, which a network finds hard to
//! compute): the network learns where the search does better than the plan.

use std::sync::{Arc, OnceLock};

use boardgame_kit::nn::{BoardLayout, NetGame, Network, PlayerNetworks, WeightsError};
use boardgame_kit::{Agent, Bots, Budget, Game};

use crate::action::Action;
use crate::board::{SIDE, SQUARES};
use crate::bot::{CaravanHeuristic, tuned_ismcts};
use crate::compact::{COMPACT_BEFORE_BOARD, COMPACT_BOARD_PLANES, MAX_COMPACT_ACTIONS, SLOT_PLANES};
use crate::observation::PLANES;
use crate::state::{Caravan, MAX_PLAYERS};

/// The committed weights (format: `boardgame_kit::nn`; how they were
/// trained: their text, and `docs/bots.md`).
pub const WEIGHTS: &[u8] = include_bytes!("../weights/caravan.bgnn");

impl NetGame for Caravan {
    const POLICY_LEN: usize = MAX_COMPACT_ACTIONS;
    const VALUE_LEN: usize = MAX_PLAYERS;

    /// The compact id of each action (C-5; `crate::compact`), through one
    /// [`CompactIndex`](crate::CompactIndex) of the position. An action
    /// that has none (a chance draw, not a decision) gets index 0 (`end`).
    fn policy_indices(&self, actions: &[Action], out: &mut [u32]) {
        let Ok(index) = self.compact_index() else {
            out.iter_mut().take(actions.len()).for_each(|o| *o = 0);
            return;
        };
        for (o, &a) in out.iter_mut().zip(actions) {
            *o = index.encode(a).unwrap_or(0);
        }
    }

    fn input_len(_: &crate::CaravanConfig) -> usize {
        INPUT_LEN
    }

    /// The observation's [`PLANES`] board planes and the [`SLOT_PLANES`]
    /// slot planes feed the trunk, the scalars the features; the policy is
    /// the compact layout: [`COMPACT_BEFORE_BOARD`] entries from the
    /// features, [`COMPACT_BOARD_PLANES`] planes over the board, the thefts
    /// from the features. The planner's move (the input's last
    /// [`MAX_COMPACT_ACTIONS`] entries) joins each policy head: its board
    /// planes the trunk, its other entries the features.
    fn board_layout(_: &crate::CaravanConfig) -> Option<BoardLayout> {
        let plan = crate::TENSOR_LEN + SLOT_PLANES * SQUARES;
        let (before, board) = (COMPACT_BEFORE_BOARD, COMPACT_BOARD_PLANES * SQUARES);
        let after = MAX_COMPACT_ACTIONS - before - board;
        Some(BoardLayout {
            height: SIDE,
            width: SIDE,
            planes: vec![(0, PLANES), (crate::TENSOR_LEN, SLOT_PLANES), (plan + before, COMPACT_BOARD_PLANES)],
            globals: vec![
                (PLANES * SQUARES, crate::TENSOR_LEN - PLANES * SQUARES),
                (plan, before),
                (plan + before + board, after),
            ],
            policy_before: before,
            policy_planes: COMPACT_BOARD_PLANES,
            policy_after: after,
            plan: Some(plan),
        })
    }

    /// The observation tensor, then the slot planes of the seat to move,
    /// then the planner's move as a one-hot over the policy head
    /// ([`CaravanHeuristic::plan`], computed from the position, which the
    /// seat sees whole: C-8); both all zero when `seat` is not to move.
    fn write_input(&self, seat: usize, out: &mut [f32]) -> bool {
        if out.len() != INPUT_LEN {
            return false;
        }
        let (obs, rest) = out.split_at_mut(crate::TENSOR_LEN);
        let (slots, plan) = rest.split_at_mut(SLOT_PLANES * SQUARES);
        if self.write_observation_tensor(seat, obs).is_err() {
            return false;
        }
        slots.iter_mut().for_each(|x| *x = 0.0);
        plan.iter_mut().for_each(|x| *x = 0.0);
        if let Ok(index) = self.compact_index()
            && index.seat() == seat
        {
            index.write_slot_planes(slots);
            if let Some(i) = index.encode(CaravanHeuristic::new().plan(self, seat))
                && let Some(x) = plan.get_mut(i as usize)
            {
                *x = 1.0;
            }
        }
        true
    }
}

/// The network's input length: the observation tensor, the slot planes
/// and the planner's move over the policy head.
pub const INPUT_LEN: usize = crate::TENSOR_LEN + SLOT_PLANES * SQUARES + MAX_COMPACT_ACTIONS;

/// The committed network, read on first use.
///
/// # Errors
/// The [`WeightsError`] of a corrupt file (a build with a broken
/// `weights/caravan.bgnn`; the crate's tests read it).
pub fn network() -> Result<Arc<Network>, WeightsError> {
    static NET: OnceLock<Result<Arc<Network>, WeightsError>> = OnceLock::new();
    NET.get_or_init(|| boardgame_kit::nn::read_network::<Caravan>(WEIGHTS, &crate::CaravanConfig::default())).clone()
}

/// Networks trained at a player count of their own, `(players, weights)`:
/// `learned` and `learned-ismcts:N` play each at its count and [`WEIGHTS`]
/// at the others (docs/learning.md, "The committed networks").
pub const WEIGHTS_BY_PLAYERS: &[(usize, &[u8])] =
    &[(3, include_bytes!("../weights/caravan-3p.bgnn")), (4, include_bytes!("../weights/caravan-4p.bgnn"))];

/// The networks of [`WEIGHTS_BY_PLAYERS`], read on first use.
///
/// # Errors
/// The [`WeightsError`] of a corrupt file (the crate's tests read them).
pub fn networks_by_players() -> Result<PlayerNetworks, WeightsError> {
    static NETS: OnceLock<Result<PlayerNetworks, WeightsError>> = OnceLock::new();
    NETS.get_or_init(|| {
        boardgame_kit::nn::read_networks::<Caravan>(WEIGHTS_BY_PLAYERS, &crate::CaravanConfig::default())
    })
    .clone()
}

/// `learned:T` over the committed networks.
pub(crate) fn learned_agent(temperature: f32) -> Result<Box<dyn Agent<Caravan>>, WeightsError> {
    boardgame_kit::nn::agent_by_players(network()?, networks_by_players()?, |net| {
        Ok(Box::new(boardgame_kit::nn::LearnedAgent::<Caravan>::new(net, temperature)?))
    })
}

/// `learned-ismcts:N` over the committed networks.
pub(crate) fn learned_search_agent(budget: boardgame_kit::Budget) -> Result<Box<dyn Agent<Caravan>>, WeightsError> {
    use boardgame_kit::Bots;
    boardgame_kit::nn::agent_by_players(network()?, networks_by_players()?, |net| {
        Caravan::learned_search_with(net, budget)
    })
}

/// The margin of `learned-ismcts:N` for Caravan, in the search's return
/// units (score margins on a scale of 30 points: 0.01 is 0.6 points): the
/// search's own choice replaces the network's move only when its mean
/// return is higher by more than this.
pub const LEARNED_SEARCH_MARGIN: f64 = 0.01;

/// Caravan's agents by name: `heuristic` is [`CaravanHeuristic`],
/// `ismcts-h:N` is [`tuned_ismcts`], and the committed network's agents.
/// (Here rather than in `bot`: the network's input reads the planner, so
/// `net` depends on `bot`.)
impl Bots for Caravan {
    fn heuristic_agent() -> Option<Box<dyn Agent<Caravan>>> {
        Some(Box::new(CaravanHeuristic::new()))
    }

    fn tuned_agent(budget: Budget) -> Option<Box<dyn Agent<Caravan>>> {
        Some(Box::new(tuned_ismcts(budget)))
    }
    /// The committed network ([`crate::learned_network`]) at `temperature`.
    fn learned_agent(temperature: f32) -> Option<Result<Box<dyn Agent<Self>>, boardgame_kit::nn::WeightsError>> {
        Some(crate::net::learned_agent(temperature))
    }

    /// The search guided by the committed network
    /// ([`Bots::learned_search_with`]).
    fn learned_search_agent(budget: Budget) -> Option<Result<Box<dyn Agent<Self>>, boardgame_kit::nn::WeightsError>> {
        Some(learned_search_agent(budget))
    }

    // `learned@FILE` and `learned-ismcts:N@FILE`: a file's network played
    // as the committed one is.
    boardgame_kit::nn_agents_from_files!();

    /// The search of `learned-ismcts:N` over `net`: the tuned search of
    /// `ismcts-h` ([`tuned_ismcts`]: the heuristic as prior and rollout
    /// policy) improving on `net`'s greedy move as its base
    /// ([`IsMctsAgent::base_agent`](boardgame_kit::IsMctsAgent::base_agent),
    /// margin [`LEARNED_SEARCH_MARGIN`]); `docs/bots.md`, "Learned agents".
    fn learned_search_with(net: Arc<Network>, budget: Budget) -> Result<Box<dyn Agent<Self>>, WeightsError> {
        let base = boardgame_kit::nn::LearnedAgent::<Caravan>::new(net, 0.0)?;
        Ok(Box::new(tuned_ismcts(budget).base_agent(Box::new(base), LEARNED_SEARCH_MARGIN)))
    }
}
