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
    common: bool,
    temperature: Option<f64>,
    base: Option<(Box<dyn Agent<G>>, f64)>,
    base_index: Option<usize>,
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
            common: false,
            temperature: None,
            base: None,
            base_index: None,
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

    /// Common random numbers: within a round every action's rollout draws
    /// from the same random stream (chance and the rollout policy), so two
    /// actions are compared on the same dice, not on dice of their own; and
    /// a round, once begun, is completed whatever the budget, so that every
    /// action has the same streams (an iteration budget may then be
    /// exceeded by up to one round less one rollout). Off by default: the
    /// rollouts then share one stream in sequence, as before.
    #[must_use]
    pub fn common_random_numbers(mut self) -> Self {
        self.common = true;
        self
    }

    /// What [`Agent::policy`] reports after a search: the softmax of the
    /// legal actions' mean returns divided by `temperature` (finite and
    /// above 0; anything else leaves the policy empty, the default). A
    /// temperature on the scale of the returns' differences that matter
    /// (for [`Evaluation::ScoreMargin`]`(30)`, 1/60 is one score point near
    /// level) ranks near-equal actions together rather than picking one of
    /// them, which is what a network learning from the search needs.
    #[must_use]
    pub fn policy_temperature(mut self, temperature: f64) -> Self {
        self.temperature = (temperature.is_finite() && temperature > 0.0).then_some(temperature);
        self
    }

    /// A base policy to improve on: `agent`'s action gets `margin` (in
    /// return units, at least 0) added to its mean return, in the choice
    /// and in [`Agent::policy`], and wins ties; so the search departs from
    /// the base only for an action that its rollouts find better by more
    /// than `margin` — one step of policy improvement that keeps the base
    /// policy's move where the rollouts cannot tell the actions apart (many
    /// actions of a long game differ by nothing a short rollout sees, and
    /// without a base the first of them in legal-list order would be
    /// played). The base agent is asked once per search (with the search's
    /// random generator); an illegal answer is ignored.
    #[must_use]
    pub fn base_agent(mut self, agent: Box<dyn Agent<G>>, margin: f64) -> Self {
        self.base = Some((agent, if margin.is_finite() && margin > 0.0 { margin } else { 0.0 }));
        self
    }

    /// The mean return of action `i` of the last search with the base
    /// policy's margin; `None` if it was not tried.
    fn score(&self, i: usize) -> Option<f64> {
        let n = *self.counts.get(i)?;
        if n == 0 {
            return None;
        }
        let bonus = match (&self.base, self.base_index) {
            (Some((_, margin)), Some(b)) if b == i => *margin,
            _ => 0.0,
        };
        Some(self.sums[i] / f64::from(n) + bonus)
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
        self.base_index = None;
        if k <= 1 {
            return fallback_action(state, &self.list, rng);
        }
        if let Some((base, _)) = self.base.as_mut() {
            let b = base.act(state, seat, rng);
            self.base_index = self.list.iter().position(|&a| a == b);
        }
        self.returns.clear();
        self.returns.resize(state.num_players().max(1), 0.0);
        let mut clock = BudgetClock::start(self.settings.budget);
        'rounds: while clock.more() {
            let Ok(determinized) = state.determinize(seat, rng) else {
                break;
            };
            let stream = if self.common { Some(rng.next_u64()) } else { None };
            for i in 0..k {
                if !self.common && !clock.more() {
                    break 'rounds;
                }
                clock.tick();
                let a = self.list[i];
                let mut s = determinized.clone();
                if s.apply(a).is_err() {
                    continue; // not legal in this determinization (faulty engine)
                }
                let mut common;
                let draws = match stream {
                    Some(seed) => {
                        common = GameRng::new(seed);
                        &mut common
                    }
                    None => &mut *rng,
                };
                self.rollout.run(&self.settings, &mut s, draws, &mut self.returns);
                self.sums[i] += self.returns.get(seat).copied().unwrap_or(0.0);
                self.counts[i] += 1;
            }
        }
        self.ledger.record(SearchStats { searches: 1, iterations: clock.done(), nodes: 0, elapsed: clock.elapsed() });
        // The best score; ties go to the base action, then to the earliest.
        let mut best: Option<(usize, f64)> = self.base_index.and_then(|b| self.score(b).map(|m| (b, m)));
        for i in 0..k {
            if let Some(mean) = self.score(i)
                && best.is_none_or(|(_, m)| mean > m)
            {
                best = Some((i, mean));
            }
        }
        match best {
            Some((i, _)) => self.list[i],
            None => fallback_action(state, &self.list, rng),
        }
    }

    /// With [`FlatMcAgent::policy_temperature`], the softmax of the last
    /// search's mean returns (the base action's with its margin) over the
    /// actions it tried; else empty.
    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        out.clear();
        let Some(t) = self.temperature else {
            return;
        };
        let means = || self.list.iter().enumerate().filter_map(|(i, &a)| self.score(i).map(|m| (a, m)));
        let Some(top) = means().map(|(_, m)| m).reduce(f64::max) else {
            return;
        };
        out.extend(means().map(|(a, m)| (a, ((m - top) / t).exp())));
        let total: f64 = out.iter().map(|&(_, p)| p).sum();
        out.iter_mut().for_each(|(_, p)| *p /= total);
    }

    fn reset(&mut self) {
        if let Some(p) = self.rollout.policy.as_mut() {
            p.reset();
        }
        if let Some((b, _)) = self.base.as_mut() {
            b.reset();
        }
    }
}
