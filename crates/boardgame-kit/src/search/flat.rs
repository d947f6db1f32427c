//! [`FlatMcAgent`]: flat Monte-Carlo, the baseline search agents are
//! measured against.

use std::fmt;
use std::time::Duration;

use super::rollout::{Evaluation, Rollout};
use super::{Budget, BudgetClock, Ledger, SearchSettings, SearchStats, fallback_action};
use crate::{Agent, Game, GameRng};

/// Flat Monte-Carlo over determinizations, generic over any [`Game`].
///
/// The search runs in rounds: each round samples one determinization of
/// the state from the acting seat's point of view ([`Game::determinize`])
/// and plays one rollout after each legal action from it (so every action
/// is compared on the same sampled hidden information). The budget counts
/// rollouts (one rollout = one iteration), so `flatmc:N` and `ismcts:N`
/// simulate equally often; a round may be cut short by the budget. The
/// move is the action with the best mean return for the acting seat (ties:
/// the earlier action in legal-list order). A move with a single legal
/// action is played without searching.
///
/// Rollouts are uniform random to the end by default; see
/// [`FlatMcAgent::rollout_depth`] and [`FlatMcAgent::rollout_agent`].
/// With an iteration budget the same seed gives the same move.
///
/// ```
/// use boardgame_kit::{Agent, FlatMcAgent, Game, GameRng, testgame::{HiddenNim, NimAction}};
/// let mut state = HiddenNim::new_game(&Default::default()).unwrap();
/// for a in [NimAction::Deal(2), NimAction::Deal(3), NimAction::Take(1), NimAction::Take(2)] {
///     state.apply(a).unwrap();
/// }
/// let mut agent = FlatMcAgent::with_iterations(100);
/// assert_eq!(agent.act(&state, 0, &mut GameRng::new(3)), NimAction::Take(2));
/// assert_eq!(Agent::<HiddenNim>::name(&agent), "flatmc:100");
/// ```
pub struct FlatMcAgent<G: Game> {
    settings: SearchSettings,
    rollout: Rollout<G>,
    list: G::ActionList,
    sums: Vec<f64>,
    counts: Vec<u32>,
    returns: Vec<f64>,
    ledger: Ledger,
}

impl<G: Game> fmt::Debug for FlatMcAgent<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlatMcAgent")
            .field("settings", &self.settings)
            .field("rollout", &self.rollout)
            .field("last", &self.ledger.last)
            .finish_non_exhaustive()
    }
}

impl<G: Game> FlatMcAgent<G> {
    /// An agent with `budget` and uniform random rollouts to the end.
    pub fn new(budget: Budget) -> Self {
        Self::with_settings(SearchSettings::new(budget))
    }

    /// An agent with `settings` (the tree settings are ignored) and uniform
    /// random rollouts.
    pub fn with_settings(settings: SearchSettings) -> Self {
        FlatMcAgent {
            settings: settings.normalized(),
            rollout: Rollout::default(),
            list: G::ActionList::default(),
            sums: Vec::new(),
            counts: Vec::new(),
            returns: Vec::new(),
            ledger: Ledger::default(),
        }
    }

    /// An agent that plays `iterations` rollouts per move, spread evenly
    /// over the legal actions (reproducible).
    pub fn with_iterations(iterations: u64) -> Self {
        Self::new(Budget::Iterations(iterations))
    }

    /// An agent that searches for `duration` per move (at least one
    /// rollout).
    pub fn with_time(duration: Duration) -> Self {
        Self::new(Budget::Time(duration))
    }

    /// The settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// Replaces the settings (the rollout agent stays).
    pub fn set_settings(&mut self, settings: SearchSettings) {
        self.settings = settings.normalized();
    }

    /// Applies one of [`SearchSettings`]' setters.
    fn map_settings(mut self, f: impl FnOnce(SearchSettings) -> SearchSettings) -> Self {
        self.settings = f(std::mem::take(&mut self.settings));
        self
    }

    /// Sets the budget per move ([`SearchSettings::budget`]).
    #[must_use]
    pub fn budget(self, budget: Budget) -> Self {
        self.map_settings(|s| s.budget(budget))
    }

    /// Truncates rollouts after `depth` actions and scores the state with
    /// the [`evaluation`](Self::evaluation)
    /// ([`SearchSettings::rollout_depth`]).
    #[must_use]
    pub fn rollout_depth(self, depth: usize) -> Self {
        self.map_settings(|s| s.rollout_depth(depth))
    }

    /// How rollouts cut short by [`FlatMcAgent::rollout_depth`] are scored
    /// (default [`Evaluation::LeaderShare`]).
    #[must_use]
    pub fn evaluation(self, evaluation: Evaluation) -> Self {
        self.map_settings(|s| s.evaluation(evaluation))
    }

    /// Plays rollouts to the end of the game (the default).
    #[must_use]
    pub fn rollout_to_end(self) -> Self {
        self.map_settings(SearchSettings::rollout_to_end)
    }

    /// Uses `agent` instead of uniform random moves in rollouts, as
    /// [`IsMctsAgent::rollout_agent`](crate::IsMctsAgent::rollout_agent).
    #[must_use]
    pub fn rollout_agent(mut self, agent: Box<dyn Agent<G>>) -> Self {
        self.rollout.policy = Some(agent);
        self
    }

    /// The budget per move.
    pub fn current_budget(&self) -> Budget {
        self.settings.budget
    }

    /// What the last call of [`Agent::act`] did.
    pub fn last_search(&self) -> SearchStats {
        self.ledger.last
    }

    /// Statistics summed over every search since creation (or
    /// [`FlatMcAgent::clear_stats`]).
    pub fn total_stats(&self) -> SearchStats {
        self.ledger.total
    }

    /// Zeroes [`FlatMcAgent::total_stats`].
    pub fn clear_stats(&mut self) {
        self.ledger.clear();
    }

    /// The legal actions of the last search with their rollout counts and
    /// mean returns for the acting seat, in legal-list order.
    pub fn action_values(&self) -> Vec<(G::Action, u32, f64)> {
        self.list
            .iter()
            .zip(self.counts.iter().zip(&self.sums))
            .map(|(&a, (&n, &s))| (a, n, s / f64::from(n.max(1))))
            .collect()
    }
}

impl<G: Game> Agent<G> for FlatMcAgent<G> {
    /// `flatmc:<budget>`, e.g. `flatmc:1000`.
    fn name(&self) -> String {
        format!("flatmc:{}", self.settings.budget)
    }

    /// Evaluates every legal action of `seat` by rollouts within the budget
    /// and returns the best.
    ///
    /// # Panics
    /// Only if called where `seat` has no legal action **and** the game's
    /// action space is empty.
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        self.ledger.begin();
        state.legal_actions(&mut self.list);
        let k = self.list.len();
        self.sums.clear();
        self.sums.resize(k, 0.0);
        self.counts.clear();
        self.counts.resize(k, 0);
        if k <= 1 {
            return fallback_action(state, &self.list, rng);
        }
        self.returns.clear();
        self.returns.resize(state.num_players().max(1), 0.0);
        let mut clock = BudgetClock::start(self.settings.budget);
        'rounds: while clock.more() {
            let Ok(determinized) = state.determinize(seat, rng) else {
                break;
            };
            for i in 0..k {
                if !clock.more() {
                    break 'rounds;
                }
                clock.tick();
                let a = self.list[i];
                let mut s = determinized.clone();
                if s.apply(a).is_err() {
                    continue; // not legal in this determinization (faulty engine)
                }
                self.rollout.run(&self.settings, &mut s, rng, &mut self.returns);
                self.sums[i] += self.returns.get(seat).copied().unwrap_or(0.0);
                self.counts[i] += 1;
            }
        }
        self.ledger.record(SearchStats { searches: 1, iterations: clock.done(), nodes: 0, elapsed: clock.elapsed() });
        let mut best: Option<(usize, f64)> = None;
        for i in 0..k {
            if self.counts[i] > 0 {
                let mean = self.sums[i] / f64::from(self.counts[i]);
                if best.is_none_or(|(_, m)| mean > m) {
                    best = Some((i, mean));
                }
            }
        }
        match best {
            Some((i, _)) => self.list[i],
            None => fallback_action(state, &self.list, rng),
        }
    }

    fn reset(&mut self) {
        if let Some(p) = self.rollout.policy.as_mut() {
            p.reset();
        }
    }
}
