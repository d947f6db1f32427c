//! Simulations past the search tree: random playouts (full or truncated and
//! scored) or an [`Agent`] as rollout policy.

use std::fmt;

use super::SearchSettings;
use crate::{Agent, Game, GameRng, Turn, playout};

/// Per-seat returns for a state, terminal or not, on the scale of
/// [`Game::returns`]: a terminal state gets its real returns; a state where
/// the game goes on gets `1/k` for each of the `k` seats with the highest
/// [`Game::score`] and 0 for the others — the result the game would have if
/// it ended now with the highest score winning. Entries of `out` past the
/// number of players are set to 0. Allocation-free.
///
/// This is the evaluation of truncated rollouts (see
/// [`SearchSettings::rollout_depth`](crate::SearchSettings::rollout_depth)).
///
/// ```
/// use boardgame_kit::{score_leader_returns, Game, testgame::{HiddenNim, NimAction}};
/// let mut s = HiddenNim::new_game(&Default::default()).unwrap();
/// s.apply(NimAction::Deal(3)).unwrap();
/// s.apply(NimAction::Deal(1)).unwrap();
/// let mut r = [0.0; 2];
/// score_leader_returns(&s, &mut r);
/// assert_eq!(r, [1.0, 0.0]); // seat 0 leads with card 3 against 1
/// ```
pub fn score_leader_returns<G: Game>(state: &G, out: &mut [f64]) {
    if state.is_terminal() {
        state.returns(out);
        return;
    }
    let n = state.num_players().min(out.len());
    out.iter_mut().for_each(|r| *r = 0.0);
    let Some(best) = (0..n).map(|s| state.score(s)).max() else {
        return;
    };
    let leaders = (0..n).filter(|&s| state.score(s) == best).count();
    let share = 1.0 / leaders.max(1) as f64;
    for (s, r) in out.iter_mut().enumerate().take(n) {
        if state.score(s) == best {
            *r = share;
        }
    }
}

/// Per-seat values of a state from score margins: a terminal state gets its
/// real [`Game::returns`]; otherwise seat `i` gets
/// `0.5 + 0.5·tanh((score_i − best score of the others) / scale)`, in
/// `(0, 1)`: ½ when level with the best opponent, towards 1 when ahead by
/// many multiples of `scale`, towards 0 when behind. `scale` is in score
/// points (a non-positive or non-finite scale counts as 1). Entries of `out`
/// past the number of players are set to 0. Allocation-free.
///
/// Unlike [`score_leader_returns`] it rewards a growing lead before the lead
/// changes hands, which gives truncated rollouts of long games a signal.
///
/// ```
/// use boardgame_kit::{score_margin_returns, Game, testgame::{HiddenNim, NimAction}};
/// let mut s = HiddenNim::new_game(&Default::default()).unwrap();
/// s.apply(NimAction::Deal(3)).unwrap();
/// s.apply(NimAction::Deal(1)).unwrap();
/// let mut r = [0.0; 2];
/// score_margin_returns(&s, 2.0, &mut r);
/// assert!((r[0] - (0.5 + 0.5 * 1f64.tanh())).abs() < 1e-12);
/// assert!((r[0] + r[1] - 1.0).abs() < 1e-12); // two seats: symmetric
/// ```
pub fn score_margin_returns<G: Game>(state: &G, scale: f64, out: &mut [f64]) {
    if state.is_terminal() {
        state.returns(out);
        return;
    }
    let scale = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
    let n = state.num_players().min(out.len());
    out.iter_mut().for_each(|r| *r = 0.0);
    // The best and second-best scores: the best other score of the leader
    // is the second best, of everyone else the best.
    let (mut best, mut second, mut best_seat) = (i32::MIN, i32::MIN, usize::MAX);
    for s in 0..n {
        let v = state.score(s);
        if v > best {
            second = best;
            best = v;
            best_seat = s;
        } else if v > second {
            second = v;
        }
    }
    for (s, r) in out.iter_mut().enumerate().take(n) {
        let other = if s == best_seat { second } else { best };
        let margin = if other == i32::MIN { 0.0 } else { f64::from(state.score(s)) - f64::from(other) };
        *r = 0.5 + 0.5 * (margin / scale).tanh();
    }
}

/// How a rollout cut short by its depth limit is scored (a rollout that
/// reaches the end of the game always gets the real [`Game::returns`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Evaluation {
    /// [`score_leader_returns`]: 1 shared among the seats with the highest
    /// [`Game::score`] (the default).
    #[default]
    LeaderShare,
    /// [`score_margin_returns`] with this scale, in score points.
    ScoreMargin(f64),
}

impl Evaluation {
    /// Writes the per-seat values of `state` into `out`.
    pub fn evaluate<G: Game>(&self, state: &G, out: &mut [f64]) {
        match *self {
            Evaluation::LeaderShare => score_leader_returns(state, out),
            Evaluation::ScoreMargin(scale) => score_margin_returns(state, scale, out),
        }
    }
}

/// A value function for the leaves of a search: scores a state where a
/// rollout was cut ([`SearchSettings::rollout_depth`]; depth 0 scores the
/// tree's leaf directly) in place of the [`Evaluation`], for example a
/// learned value network ([`crate::nn::NetValue`]).
pub trait LeafValue<G: Game>: Send {
    /// A short name, for `Debug` output.
    fn name(&self) -> String;

    /// Writes per-seat values of `state` (not terminal) into `out`, on the
    /// scale of [`Game::returns`] (`out.len()` is the number of players). It
    /// may play `state` on (chance, for instance) and draw from `rng`.
    fn evaluate(&mut self, state: &mut G, rng: &mut GameRng, out: &mut [f64]);
}

/// How a simulation is finished once it leaves the tree.
/// How far and how it is scored are [`SearchSettings`] given to
/// [`Rollout::run`].
pub(crate) struct Rollout<G: Game> {
    /// `None`: uniformly random legal actions; else this agent chooses.
    pub(crate) policy: Option<Box<dyn Agent<G>>>,
    /// If set, chooses for the searching seat instead of `policy`.
    pub(crate) searcher_policy: Option<Box<dyn Agent<G>>>,
    /// The seat whose decision is being searched (set by each search).
    pub(crate) searcher: usize,
    /// If set, scores a cut rollout instead of the settings' evaluation.
    pub(crate) leaf: Option<Box<dyn LeafValue<G>>>,
}

impl<G: Game> fmt::Debug for Rollout<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rollout")
            .field("policy", &self.policy.as_ref().map_or_else(|| "random".to_string(), |a| a.name()))
            .field("searcher_policy", &self.searcher_policy.as_ref().map(|a| a.name()))
            .field("leaf", &self.leaf.as_ref().map(|v| v.name()))
            .finish()
    }
}

impl<G: Game> Default for Rollout<G> {
    fn default() -> Self {
        Rollout { policy: None, searcher_policy: None, searcher: 0, leaf: None }
    }
}

impl<G: Game> Rollout<G> {
    /// The policy's action for `seat` in `state`: uniformly random, or the
    /// policy agent's (replaced by a random legal action if illegal). `None`
    /// when there is no legal action.
    pub(crate) fn choose(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> Option<G::Action> {
        let agent = match self.searcher_policy.as_mut() {
            Some(own) if seat == self.searcher => Some(own),
            _ => self.policy.as_mut(),
        };
        match agent {
            Some(agent) => choose(agent.as_mut(), state, seat, rng),
            None => state.random_legal_action(rng),
        }
    }

    /// Plays `state` on (by the policy, chance by its weights) to the end or
    /// `settings.rollout_depth`, and writes the per-seat returns
    /// (`settings.evaluation` if cut) into `out`. Returns the number of
    /// actions played.
    pub(crate) fn run(
        &mut self,
        settings: &SearchSettings,
        state: &mut G,
        rng: &mut GameRng,
        out: &mut [f64],
    ) -> usize {
        let bound = G::max_game_length(state.config());
        let limit = settings.rollout_depth.map_or(bound, |d| d.min(bound));
        let steps = if self.policy.is_none() && self.searcher_policy.is_none() {
            playout(state, rng, limit)
        } else {
            let mut steps = 0;
            while steps < limit {
                let action = match state.turn() {
                    Turn::Terminal => break,
                    Turn::Chance => match state.sample_chance_outcome(rng) {
                        Some(a) => a,
                        None => break,
                    },
                    Turn::Player(seat) => match self.choose(state, seat, rng) {
                        Some(a) => a,
                        None => break,
                    },
                };
                state.apply_unchecked(action);
                steps += 1;
            }
            steps
        };
        match self.leaf.as_mut() {
            Some(leaf) if !state.is_terminal() => leaf.evaluate(state, rng, out),
            _ => settings.evaluation.evaluate(state, out),
        }
        steps
    }
}

/// `agent`'s action for `seat`, or a random legal one if the agent's is
/// illegal: a faulty policy must not corrupt a simulation.
fn choose<G: Game>(agent: &mut dyn Agent<G>, state: &G, seat: usize, rng: &mut GameRng) -> Option<G::Action> {
    let a = agent.act(state, seat, rng);
    if state.is_legal(a) {
        return Some(a);
    }
    state.random_legal_action(rng)
}
