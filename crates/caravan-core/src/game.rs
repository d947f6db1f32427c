//! `impl boardgame_kit::Game for Caravan`: thin delegation to the modules
//! that hold the rules (`rules`), the knowledge (`knowledge`), the
//! observation (`observation`) and the action ids (`action`). The engine's
//! agents (`impl Bots`) are in `bot`.

use boardgame_kit::{ActionBuffer, ActionId, Game, GameError, GameRng, Outcome, Turn, Viewer, chance_actions};

use crate::action::{Action, ActionList, ChanceList, action_space};
use crate::config::CaravanConfig;
use crate::error::CaravanError;
use crate::observation::{CaravanObservation, TENSOR_LEN};
use crate::state::Caravan;

impl Caravan {
    /// `Ok` when `seat` plays in this game.
    fn seat(&self, seat: usize) -> Result<(), CaravanError> {
        if seat < usize::from(self.config.players) {
            Ok(())
        } else {
            Err(GameError::Seat { seat, players: usize::from(self.config.players) })
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
    /// 2 since the refill of the last turn's last pick-up is drawn before
    /// the game ends (C-6.1, C-7.2; version 1 dropped its draws).
    const RULES_VERSION: u32 = 2;

    fn new_game(config: &CaravanConfig) -> Result<Caravan, CaravanError> {
        config.validate().map_err(GameError::Config)?;
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
        self.whose_turn()
    }

    #[inline]
    fn legal_actions(&self, out: &mut ActionList) {
        match self.whose_turn() {
            Turn::Player(_) => self.generate(out),
            Turn::Chance => chance_actions(self, out),
            Turn::Terminal => out.clear(),
        }
    }

    fn chance_outcomes(&self, out: &mut ChanceList) {
        self.chances(out);
    }

    /// Counts the legal actions per source and decodes the drawn one
    /// (exactly the listed draw, without writing the list).
    #[inline]
    fn random_legal_action(&self, rng: &mut GameRng) -> Option<Action> {
        self.random_decision(rng)
    }

    /// The listed draw of a cube from the bag, without the list.
    #[inline]
    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Option<Action> {
        self.sample_draw(rng)
    }

    fn validate(&self, action: Action) -> Result<(), CaravanError> {
        self.check(action).map_err(|reason| CaravanError::Illegal { action, reason })
    }

    #[inline]
    fn apply_unchecked(&mut self, action: Action) {
        self.play(action);
    }

    fn outcome(&self) -> Option<Outcome> {
        self.result()
    }

    fn score(&self, seat: usize) -> i32 {
        self.points(seat)
    }

    fn num_distinct_actions(config: &CaravanConfig) -> usize {
        action_space(config.players.min(4)) as usize
    }

    fn max_game_length(config: &CaravanConfig) -> usize {
        // C-11.1: 48 draws at most (C-6.2), and at most 4 decisions per
        // turn: each action costs at least 1 of the 4 allowed, `end` closes
        // the turn.
        48 + 4 * config.max_turns as usize
    }

    fn action_id(_: &CaravanConfig, action: Action) -> ActionId {
        action.id()
    }

    fn action_from_id(config: &CaravanConfig, id: ActionId) -> Result<Action, CaravanError> {
        let num_ids = Self::num_distinct_actions(config);
        if (id as usize) < num_ids { Ok(Action::raw(id)) } else { Err(GameError::UnknownId { id, num_ids }) }
    }

    fn observation(&self, seat: usize) -> Result<CaravanObservation, CaravanError> {
        self.seat(seat)?;
        Ok(self.observe(seat))
    }

    /// C-8.1: every seat sees the whole position, so seat 0's observation is
    /// the spectator's.
    fn public_observation(&self) -> Option<CaravanObservation> {
        Some(self.observe(0))
    }

    fn observation_tensor_shape(_: &CaravanConfig) -> Vec<usize> {
        vec![TENSOR_LEN]
    }

    fn observation_tensor_bounds(config: &CaravanConfig) -> Option<(Vec<f32>, Vec<f32>)> {
        Some(crate::observation::tensor_bounds(config))
    }

    fn write_observation_tensor(&self, seat: usize, out: &mut [f32]) -> Result<(), CaravanError> {
        self.seat(seat)?;
        if out.len() != TENSOR_LEN {
            return Err(GameError::Buffer { found: out.len(), expected: TENSOR_LEN });
        }
        self.write_tensor(seat, out);
        Ok(())
    }

    fn view_action(&self, viewer: Viewer, action: Action) -> Option<Action> {
        self.seen_action(viewer, action)
    }

    fn determinize(&self, observer: usize, _rng: &mut GameRng) -> Result<Caravan, CaravanError> {
        self.seat(observer)?;
        Ok(self.determinized())
    }
}
