//! Search agents over any [`Game`](crate::Game): information-set Monte-Carlo
//! tree search ([`IsMctsAgent`]) and its flat Monte-Carlo baseline
//! ([`FlatMcAgent`]).
//!
//! Both agents know no game: they see the state only through the
//! [`Game`](crate::Game) trait, sample the hidden part of it from the acting
//! seat's point of view with [`Game::determinize`](crate::Game::determinize),
//! resolve chance nodes by their exact weights
//! ([`Game::sample_chance_outcome`](crate::Game::sample_chance_outcome), the
//! draw of [`sample_chance`](crate::sample_chance)) and finish simulations
//! with the allocation-free random [`playout`](crate::playout) loop, random
//! legal actions drawn by
//! [`Game::random_legal_action`](crate::Game::random_legal_action) (or another
//! [`Agent`](crate::Agent) as rollout policy).
//!
//! # Reproducibility
//!
//! Every random choice of a search is drawn from the `rng` handed to
//! [`Agent::act`](crate::Agent::act), which the game driver derives from the
//! game seed. With a [`Budget::Iterations`] budget the same seed therefore
//! gives the same move, on every machine. A [`Budget::Time`] budget stops
//! after a wall-clock duration, so the number of iterations — and possibly
//! the move — depends on the machine's speed and load.

mod flat;
mod ismcts;
mod rollout;
mod settings;

use std::fmt;
use std::time::{Duration, Instant};

pub use flat::FlatMcAgent;
pub use ismcts::{EdgeStats, IsMctsAgent};
pub use rollout::{Evaluation, LeafValue, score_leader_returns, score_margin_returns};
pub(crate) use settings::Ledger;
pub use settings::SearchSettings;

/// How much work a search agent does for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// A fixed number of iterations (simulations): reproducible, since the
    /// same seed gives the same move whatever the machine.
    Iterations(u64),
    /// A wall-clock duration per move (at least one iteration is always
    /// run): stronger on faster machines, not reproducible.
    Time(Duration),
}

impl fmt::Display for Budget {
    /// `1000` for iterations, `250ms` for a time budget (whole
    /// milliseconds, or microseconds below one millisecond).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Budget::Iterations(n) => write!(f, "{n}"),
            Budget::Time(d) if d.as_micros() % 1000 != 0 => write!(f, "{}us", d.as_micros()),
            Budget::Time(d) => write!(f, "{}ms", d.as_millis()),
        }
    }
}

/// Counts iterations against a [`Budget`].
pub(crate) struct BudgetClock {
    budget: Budget,
    start: Instant,
    done: u64,
}

impl BudgetClock {
    pub(crate) fn start(budget: Budget) -> Self {
        BudgetClock { budget, start: Instant::now(), done: 0 }
    }

    /// Whether another iteration may run (time budgets always allow the
    /// first one).
    #[inline]
    pub(crate) fn more(&self) -> bool {
        match self.budget {
            Budget::Iterations(n) => self.done < n,
            Budget::Time(d) => self.done == 0 || self.start.elapsed() < d,
        }
    }

    #[inline]
    pub(crate) fn tick(&mut self) {
        self.done += 1;
    }

    pub(crate) fn done(&self) -> u64 {
        self.done
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

/// What a search agent did: per move ([`IsMctsAgent::last_search`]) or
/// summed over its lifetime ([`IsMctsAgent::total_stats`]). Use
/// [`SearchStats::iterations_per_second`] to report search speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Moves searched (moves with a single legal action are played without
    /// searching and are not counted).
    pub searches: u64,
    /// Iterations (simulations) run.
    pub iterations: u64,
    /// Tree nodes created (0 for [`FlatMcAgent`]).
    pub nodes: u64,
    /// Wall-clock time spent searching.
    pub elapsed: Duration,
}

impl SearchStats {
    /// Iterations per second of wall-clock search time (0 when no time was
    /// measured).
    pub fn iterations_per_second(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 { self.iterations as f64 / secs } else { 0.0 }
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &SearchStats) {
        self.searches += other.searches;
        self.iterations += other.iterations;
        self.nodes += other.nodes;
        self.elapsed += other.elapsed;
    }
}

/// The action to return when a search produced nothing usable: a uniformly
/// random action of `list`, or, if `list` is empty (the agent was asked to
/// act where no one may), the first action of the action space, which the
/// driver will reject with a typed error.
///
/// # Panics
/// Only if the list is empty **and** the game's action space is empty.
pub(crate) fn fallback_action<G: crate::Game>(state: &G, list: &[G::Action], rng: &mut crate::GameRng) -> G::Action {
    if let Some(&a) = list.get(rng.index(list.len())) {
        return a;
    }
    let config = state.config();
    (0..G::num_distinct_actions(config) as u32)
        .find_map(|id| G::action_from_id(config, id).ok())
        .expect("a game with an empty action space has no move to make")
}
