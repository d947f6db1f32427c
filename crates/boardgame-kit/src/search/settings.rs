//! [`SearchSettings`]: the numbers and switches of a search agent, shared
//! by [`IsMctsAgent`](crate::IsMctsAgent) and
//! [`FlatMcAgent`](crate::FlatMcAgent), and the statistics ledger both
//! keep.

use super::{Budget, Evaluation, SearchStats};

/// The settings of a search agent: its budget, how rollouts are cut and
/// scored, and the tree's parameters. One value configures either agent
/// ([`IsMctsAgent::with_settings`](crate::IsMctsAgent::with_settings),
/// [`FlatMcAgent::with_settings`](crate::FlatMcAgent::with_settings)); the
/// fields marked *tree* are read by [`IsMctsAgent`](crate::IsMctsAgent)
/// only, [`FlatMcAgent`](crate::FlatMcAgent) ignores them.
///
/// The agents' builder methods (`rollout_depth`, `exploration`, …) set
/// these fields through the methods of the same name here, which bring
/// out-of-range values into range; a value set directly in a field is
/// brought into range the same way when an agent takes the settings.
/// The policies that are agents themselves (rollout agent, prior) are not
/// settings: they are given to the agent's builders.
///
/// ```
/// use boardgame_kit::{Budget, Evaluation, FlatMcAgent, IsMctsAgent, SearchSettings, testgame::HiddenNim};
/// let settings = SearchSettings {
///     budget: Budget::Iterations(500),
///     rollout_depth: Some(20),
///     evaluation: Evaluation::ScoreMargin(30.0),
///     ..SearchSettings::default()
/// }
/// .exploration(0.1);
/// let ismcts = IsMctsAgent::<HiddenNim>::with_settings(settings.clone());
/// let flat = FlatMcAgent::<HiddenNim>::with_settings(settings.clone());
/// assert_eq!(ismcts.settings(), &settings);
/// assert_eq!(flat.settings().rollout_depth, Some(20));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// The work per move (default [`SearchSettings::DEFAULT_BUDGET`]).
    pub budget: Budget,
    /// `None` (the default): rollouts run to the end of the game.
    /// `Some(d)`: a rollout stops after `d` actions (chance outcomes
    /// included) and the state reached is scored by
    /// [`evaluation`](Self::evaluation); `Some(0)` scores the leaf of the
    /// tree directly. A rollout that ends the game earlier always gets the
    /// real [`Game::returns`](crate::Game::returns).
    pub rollout_depth: Option<usize>,
    /// How a rollout cut by [`rollout_depth`](Self::rollout_depth) is scored
    /// (default [`Evaluation::LeaderShare`]).
    pub evaluation: Evaluation,
    /// *Tree*: the UCB1 exploration constant `c` (default
    /// [`SearchSettings::DEFAULT_EXPLORATION`]; returns are in `[0, 1]`).
    /// Negative counts as 0, non-finite as the default.
    pub exploration: f64,
    /// *Tree*: whether chance outcomes branch the tree (default `true`);
    /// see [`IsMctsAgent::chance_branching`](crate::IsMctsAgent::chance_branching).
    pub chance_branching: bool,
    /// *Tree*: whether the other seats' decisions are left out of the tree
    /// (default `false`); see
    /// [`IsMctsAgent::open_loop_others`](crate::IsMctsAgent::open_loop_others).
    pub open_loop_others: bool,
    /// *Tree*: the cap on tree nodes (default
    /// [`SearchSettings::DEFAULT_MAX_NODES`]); at least 1 and at most
    /// `u32::MAX`.
    pub max_nodes: usize,
    /// *Tree*: the weight of the progressive bias towards a prior agent's
    /// choice (default 0; read only when a prior agent is set, see
    /// [`IsMctsAgent::prior_agent`](crate::IsMctsAgent::prior_agent)).
    /// Negative or non-finite counts as 0.
    pub prior_weight: f64,
}

impl SearchSettings {
    /// The default budget: 1000 iterations per move.
    pub const DEFAULT_BUDGET: Budget = Budget::Iterations(1000);
    /// The default exploration constant `c` of UCB1.
    pub const DEFAULT_EXPLORATION: f64 = 0.7;
    /// The default cap on tree nodes (about 2^22, a few hundred MB at most
    /// for the largest actions).
    pub const DEFAULT_MAX_NODES: usize = 1 << 22;
    /// The largest cap on tree nodes (node indices are `u32` below
    /// `u32::MAX`, which means "no node").
    pub(crate) const MAX_MAX_NODES: usize = u32::MAX as usize;

    /// The defaults with `budget`.
    pub fn new(budget: Budget) -> Self {
        SearchSettings { budget, ..SearchSettings::default() }
    }

    /// Sets the budget per move.
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Cuts every rollout after `depth` actions (see
    /// [`rollout_depth`](Self::rollout_depth)).
    #[must_use]
    pub fn rollout_depth(mut self, depth: usize) -> Self {
        self.rollout_depth = Some(depth);
        self
    }

    /// Plays every rollout to the end of the game (the default).
    #[must_use]
    pub fn rollout_to_end(mut self) -> Self {
        self.rollout_depth = None;
        self
    }

    /// Sets how cut rollouts are scored.
    #[must_use]
    pub fn evaluation(mut self, evaluation: Evaluation) -> Self {
        self.evaluation = evaluation;
        self
    }

    /// Sets the exploration constant (negative: 0, non-finite: the
    /// default).
    #[must_use]
    pub fn exploration(mut self, c: f64) -> Self {
        self.exploration = c;
        self.normalized()
    }

    /// Sets whether chance outcomes branch the tree.
    #[must_use]
    pub fn chance_branching(mut self, branch: bool) -> Self {
        self.chance_branching = branch;
        self
    }

    /// Sets whether the other seats' decisions stay out of the tree.
    #[must_use]
    pub fn open_loop_others(mut self, open_loop: bool) -> Self {
        self.open_loop_others = open_loop;
        self
    }

    /// Sets the cap on tree nodes (brought into `1..=u32::MAX`).
    #[must_use]
    pub fn max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = max_nodes;
        self.normalized()
    }

    /// Sets the weight of the prior's progressive bias (negative or
    /// non-finite: 0).
    #[must_use]
    pub fn prior_weight(mut self, weight: f64) -> Self {
        self.prior_weight = weight;
        self.normalized()
    }

    /// The settings with every field brought into its range.
    #[must_use]
    pub(crate) fn normalized(mut self) -> Self {
        let c = self.exploration;
        self.exploration = if c.is_finite() { c.max(0.0) } else { Self::DEFAULT_EXPLORATION };
        self.max_nodes = self.max_nodes.clamp(1, Self::MAX_MAX_NODES);
        let w = self.prior_weight;
        self.prior_weight = if w.is_finite() { w.max(0.0) } else { 0.0 };
        self
    }
}

impl Default for SearchSettings {
    /// [`SearchSettings::DEFAULT_BUDGET`], rollouts to the end scored by
    /// [`Evaluation::LeaderShare`] if cut, exploration
    /// [`SearchSettings::DEFAULT_EXPLORATION`], chance branching, the other
    /// seats in the tree, [`SearchSettings::DEFAULT_MAX_NODES`] nodes, no
    /// prior bias.
    fn default() -> Self {
        SearchSettings {
            budget: Self::DEFAULT_BUDGET,
            rollout_depth: None,
            evaluation: Evaluation::LeaderShare,
            exploration: Self::DEFAULT_EXPLORATION,
            chance_branching: true,
            open_loop_others: false,
            max_nodes: Self::DEFAULT_MAX_NODES,
            prior_weight: 0.0,
        }
    }
}

/// The statistics a search agent keeps: of its last search and summed over
/// its lifetime.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ledger {
    pub(crate) last: SearchStats,
    pub(crate) total: SearchStats,
}

impl Ledger {
    /// Starts a move: the last search is zero until [`Ledger::record`].
    pub(crate) fn begin(&mut self) {
        self.last = SearchStats::default();
    }

    /// Records a finished search.
    pub(crate) fn record(&mut self, stats: SearchStats) {
        self.last = stats;
        self.total.add(&stats);
    }

    /// Zeroes the lifetime sum.
    pub(crate) fn clear(&mut self) {
        self.total = SearchStats::default();
    }
}
