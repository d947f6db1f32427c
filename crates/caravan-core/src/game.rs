//! `impl boardgame_kit::Game for Caravan`.

use arrayvec::ArrayVec;
use boardgame_kit::{ActionId, ChanceOutcome, Game, GameRng, Outcome, Seats, Turn, Viewer};

use crate::action::{Action, action_space};
use crate::board::KINDS;
use crate::config::CaravanConfig;
use crate::error::CaravanError;
use crate::list::ActionList;
use crate::observation::{CaravanObservation, TENSOR_LEN};
use crate::state::Caravan;

/// The chance-outcome list: at most one outcome per kind of goods.
pub type ChanceList = ArrayVec<ChanceOutcome<Action>, KINDS>;

impl Caravan {
    fn seat(&self, seat: usize) -> Result<(), CaravanError> {
        if seat < usize::from(self.config.players) {
            Ok(())
        } else {
            Err(CaravanError::Seat { seat, players: usize::from(self.config.players) })
        }
    }
}

impl Game for Caravan {
    type Config = CaravanConfig;
    type Action = Action;
    type ActionList = ActionList;
    type ChanceList = ChanceList;
    type Observation = CaravanObservation;
    type Error = CaravanError;

    const NAME: &'static str = "caravan";
    const RULES_VERSION: u32 = 1;

    fn new_game(config: &CaravanConfig) -> Result<Caravan, CaravanError> {
        config.validate()?;
        Ok(Caravan::initial(*config))
    }

    fn config(&self) -> &CaravanConfig {
        &self.config
    }

    fn num_players(&self) -> usize {
        usize::from(self.config.players)
    }

    #[inline]
    fn turn(&self) -> Turn {
        if self.end.is_some() {
            Turn::Terminal
        } else if self.pending != 0 {
            Turn::Chance
        } else {
            Turn::Player(self.to_move())
        }
    }

    #[inline]
    fn legal_actions(&self, out: &mut ActionList) {
        self.generate(out);
    }

    fn chance_outcomes(&self, out: &mut ChanceList) {
        out.clear();
        if self.end.is_none() && self.pending != 0 {
            // C-3.1: each kind still in the bag, weighted by its cubes.
            for k in 0..KINDS {
                if self.bag[k] > 0 {
                    out.push(ChanceOutcome { action: Action::raw(k as u32), weight: u32::from(self.bag[k]) });
                }
            }
        }
    }

    fn validate(&self, action: Action) -> Result<(), CaravanError> {
        self.check(action).map_err(|reason| CaravanError::Illegal { action, reason })
    }

    #[inline]
    fn apply_unchecked(&mut self, action: Action) {
        self.play(action);
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end?;
        // C-7.5: most points, then most goods delivered, else a draw.
        let n = usize::from(self.config.players);
        let key = |p: usize| (self.points(p), self.delivered_count(p));
        let best = (0..n).map(key).max()?;
        let mut seats = Seats::EMPTY;
        for p in 0..n {
            if key(p) == best {
                seats = seats.with(p);
            }
        }
        Some(if seats.len() == 1 { Outcome::Winner(seats.iter().next().unwrap_or(0)) } else { Outcome::Draw(seats) })
    }

    fn score(&self, seat: usize) -> i32 {
        self.points(seat)
    }

    fn num_distinct_actions(config: &CaravanConfig) -> usize {
        action_space(config.players.min(4)) as usize
    }

    fn max_game_length(config: &CaravanConfig) -> usize {
        // 48 draws at most (C-6.2), and at most 4 decisions per turn: each
        // action costs at least 1 of the 4 allowed, `end` closes the turn.
        48 + 4 * config.max_turns as usize
    }

    fn action_id(_: &CaravanConfig, action: Action) -> ActionId {
        action.id()
    }

    fn action_from_id(config: &CaravanConfig, id: ActionId) -> Result<Action, CaravanError> {
        let size = Self::num_distinct_actions(config);
        if (id as usize) < size { Ok(Action::raw(id)) } else { Err(CaravanError::UnknownId { id, size }) }
    }

    fn observation(&self, seat: usize) -> Result<CaravanObservation, CaravanError> {
        self.seat(seat)?;
        // C-8: perfect information — the observation is the whole state.
        Ok(CaravanObservation { observer: seat as u8, position: self.to_setup() })
    }

    fn observation_tensor_shape(_: &CaravanConfig) -> Vec<usize> {
        vec![TENSOR_LEN]
    }

    fn write_observation_tensor(&self, seat: usize, out: &mut [f32]) -> Result<(), CaravanError> {
        self.seat(seat)?;
        if out.len() != TENSOR_LEN {
            return Err(CaravanError::Buffer { found: out.len(), expected: TENSOR_LEN });
        }
        self.write_tensor(seat, out);
        Ok(())
    }

    /// C-8: every action, chance draws included, is seen by everyone (the
    /// bag's order is not part of the state; what is drawn is public).
    fn view_action(&self, _viewer: Viewer, action: Action) -> Option<Action> {
        Some(action)
    }

    fn determinize(&self, observer: usize, _rng: &mut GameRng) -> Result<Caravan, CaravanError> {
        self.seat(observer)?;
        // C-8.2: nothing is hidden, so the only consistent state is this one.
        Ok(*self)
    }
}
