//! Simulations past the search tree: random playouts (full or truncated and
//! scored) or an [`Agent`] as rollout policy.

use std::fmt;

use crate::{Agent, Game, GameRng, Turn, playout, sample_chance};

/// Per-seat returns for a state, terminal or not, on the scale of
/// [`Game::returns`]: a terminal state gets its real returns; a state where
/// the game goes on gets `1/k` for each of the `k` seats with the highest
/// [`Game::score`] and 0 for the others — the result the game would have if
/// it ended now with the highest score winning. Entries of `out` past the
/// number of players are set to 0. Allocation-free.
///
/// This is the evaluation of truncated rollouts (see
/// [`IsMctsAgent::rollout_depth`](crate::IsMctsAgent::rollout_depth)).
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

/// How a simulation is finished once it leaves the tree.
pub(crate) struct Rollout<G: Game> {
    /// `None`: to the end of the game; `Some(d)`: at most `d` actions
    /// (chance included), then [`score_leader_returns`].
    pub(crate) depth: Option<usize>,
    /// `None`: uniformly random legal actions; else this agent chooses.
    pub(crate) policy: Option<Box<dyn Agent<G>>>,
    list: G::ActionList,
    chances: G::ChanceList,
}

impl<G: Game> fmt::Debug for Rollout<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rollout")
            .field("depth", &self.depth)
            .field("policy", &self.policy.as_ref().map_or_else(|| "random".to_string(), |a| a.name()))
            .finish()
    }
}

impl<G: Game> Default for Rollout<G> {
    fn default() -> Self {
        Rollout { depth: None, policy: None, list: G::ActionList::default(), chances: G::ChanceList::default() }
    }
}

impl<G: Game> Rollout<G> {
    /// Plays `state` on (by the policy, chance by its weights) to the end or
    /// the depth limit and writes the per-seat returns into `out`. Returns
    /// the number of actions played.
    pub(crate) fn run(&mut self, state: &mut G, rng: &mut GameRng, out: &mut [f64]) -> usize {
        let bound = G::max_game_length(state.config());
        let limit = self.depth.map_or(bound, |d| d.min(bound));
        let steps = match self.policy.as_mut() {
            None => playout(state, rng, limit),
            Some(agent) => {
                let mut steps = 0;
                while steps < limit {
                    let action = match state.turn() {
                        Turn::Terminal => break,
                        Turn::Chance => match sample_chance(state, rng, &mut self.chances) {
                            Some(a) => a,
                            None => break,
                        },
                        Turn::Player(seat) => {
                            let a = agent.act(state, seat, rng);
                            if state.is_legal(a) {
                                a
                            } else {
                                // A faulty policy must not corrupt the simulation.
                                state.legal_actions(&mut self.list);
                                match self.list.get(rng.index(self.list.len())) {
                                    Some(&a) => a,
                                    None => break,
                                }
                            }
                        }
                    };
                    state.apply_unchecked(action);
                    steps += 1;
                }
                steps
            }
        };
        score_leader_returns(state, out);
        steps
    }
}
