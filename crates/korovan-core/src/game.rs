//! `impl boardgame_kit::Game for Korovan`: thin delegation to the modules
//! that hold the rules (`rules`), what each seat knows (`knowledge`,
//! `observation`) and the action ids (`action`).

use boardgame_kit::{ActionId, Game, GameRng, Outcome, Turn, Viewer, chance_actions};

use crate::action::{Action, ActionList, ChanceList, NUM_ACTIONS};
use crate::config::KorovanConfig;
use crate::error::KorovanError;
use crate::knowledge;
use crate::observation::{KorovanObservation, TENSOR_LEN};
use crate::state::{Korovan, Phase};

impl Game for Korovan {
    type Config = KorovanConfig;
    type Action = Action;
    type ActionList = ActionList;
    type ChanceList = ChanceList;
    type Observation = KorovanObservation;
    type Error = KorovanError;
    const NAME: &'static str = "korovan";
    const RULES_VERSION: u32 = 1;

    fn new_game(config: &KorovanConfig) -> Result<Self, KorovanError> {
        Korovan::new(config)
    }

    fn config(&self) -> &KorovanConfig {
        &self.config
    }

    fn num_players(&self) -> usize {
        usize::from(self.n)
    }

    #[inline]
    fn turn(&self) -> Turn {
        self.whose_turn()
    }

    /// At a deal, the chance outcomes (K-3.1); else the decisions of the
    /// seat to act.
    #[inline]
    fn legal_actions(&self, out: &mut ActionList) {
        if self.phase == Phase::Deal {
            chance_actions(self, out);
        } else {
            self.decisions_into(out);
        }
    }

    fn chance_outcomes(&self, out: &mut ChanceList) {
        self.chances_into(out);
    }

    /// The listed draw without the list: the legal actions counted, the
    /// index drawn, the action at that index decoded (see the rules).
    #[inline(always)]
    fn random_legal_action(&self, rng: &mut GameRng) -> Option<Action> {
        self.random_legal(rng)
    }

    /// The deal's draw without the list (K-3.1): the same draw and walk as
    /// [`sample_chance`](boardgame_kit::sample_chance).
    #[inline]
    fn sample_chance_outcome(&self, rng: &mut GameRng) -> Option<Action> {
        self.sample_deal(rng)
    }

    fn validate(&self, action: Action) -> Result<(), KorovanError> {
        self.check(action).map_err(|reason| KorovanError::Illegal { action, reason })
    }

    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        self.play(action);
    }

    fn outcome(&self) -> Option<Outcome> {
        self.result()
    }

    fn score(&self, seat: usize) -> i32 {
        i32::from(self.cows(seat)) // K-7.4
    }

    fn num_distinct_actions(_: &KorovanConfig) -> usize {
        NUM_ACTIONS
    }

    /// K-7.2: `rounds · (3h + 6N − 7)` (see the rules' bound).
    fn max_game_length(config: &KorovanConfig) -> usize {
        Korovan::length_bound(config)
    }

    fn action_id(_: &KorovanConfig, action: Action) -> ActionId {
        action.id()
    }

    fn action_from_id(_: &KorovanConfig, id: ActionId) -> Result<Action, KorovanError> {
        Action::from_id(id)
    }

    fn observation(&self, seat: usize) -> Result<KorovanObservation, KorovanError> {
        KorovanObservation::new(self, seat)
    }

    fn observation_tensor_shape(_: &KorovanConfig) -> Vec<usize> {
        vec![TENSOR_LEN]
    }

    fn observation_tensor_bounds(config: &KorovanConfig) -> Option<(Vec<f32>, Vec<f32>)> {
        Some(crate::observation::tensor_bounds(config))
    }

    fn write_observation_tensor(&self, seat: usize, out: &mut [f32]) -> Result<(), KorovanError> {
        let obs = KorovanObservation::new(self, seat)?;
        obs.write_tensor(out)
    }

    /// K-8: a deal is seen by the driver alone, a lay by the competitor who
    /// lays alone; every other action is public (K-8.1, K-9.1). See the
    /// knowledge model.
    fn view_action(&self, viewer: Viewer, action: Action) -> Option<Action> {
        self.sees_action(viewer.seat(), action).then_some(action)
    }

    /// K-8.6: every row the observer does not fully know is redrawn uniformly
    /// among the layouts that agree with what it saw (cards and hand cards);
    /// for a competitor, the driver's hand is redrawn with weight
    /// `Π_k C(D_k, r_k + p_k)` (D the deck composition, p the helpers played
    /// this round). The observer's observation is unchanged.
    fn determinize(&self, observer: usize, rng: &mut GameRng) -> Result<Self, KorovanError> {
        knowledge::determinize(self, observer, rng)
    }
}
