//! [`IsMctsAgent`]: single-observer information-set Monte-Carlo tree search.

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use super::rollout::{Evaluation, Rollout};
use super::{Budget, BudgetClock, Ledger, SearchSettings, SearchStats, fallback_action};
use crate::{ActionId, Agent, Game, GameRng, Turn};

/// "No node" in the child and sibling links.
const NONE: u32 = u32::MAX;
/// The `mover` of a chance outcome's node.
const CHANCE: u16 = u16::MAX;
/// Availability counts below this get their logarithm from [`ln_table`].
const LN_TABLE_LEN: usize = 4096;

/// `ln(n)` for `n < LN_TABLE_LEN`, computed once per process: the same
/// values as `f64::ln`, without its cost in every UCB1 evaluation.
fn ln_table() -> &'static [f64] {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    TABLE.get_or_init(|| (0..LN_TABLE_LEN).map(|n| (n as f64).ln()).collect())
}

/// One node of the tree: the edge that leads to it and its statistics.
/// Children form a singly linked list (`first_child`, `next_sibling`) of
/// indices into the arena, so a node is a few words and adding one never
/// moves another.
#[derive(Clone, Debug)]
struct Node<A> {
    /// The action on the edge from the parent (`None` only at the root).
    action: Option<A>,
    /// Its id, for the allocation-free legality marks.
    id: ActionId,
    /// The seat that chose the action, or [`CHANCE`].
    mover: u16,
    first_child: u32,
    next_sibling: u32,
    /// Simulations that went through this edge.
    visits: u32,
    /// Selections at the parent in which this action was legal.
    avail: u32,
    /// Sum of the mover's returns over those simulations.
    reward: f64,
}

impl<A> Node<A> {
    fn new(action: Option<A>, id: ActionId, mover: u16, next_sibling: u32) -> Self {
        Node { action, id, mover, first_child: NONE, next_sibling, visits: 0, avail: 1, reward: 0.0 }
    }
}

/// The statistics of one root action after a search, from
/// [`IsMctsAgent::root_edges`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeStats<A> {
    /// The action.
    pub action: A,
    /// Simulations that started with it.
    pub visits: u32,
    /// Iterations in which it was legal when the root was selected from.
    pub availability: u32,
    /// The mean return of the acting seat over those simulations.
    pub mean_return: f64,
}

/// Information-set Monte-Carlo tree search (single observer, "SO-ISMCTS"),
/// generic over any [`Game`].
///
/// Each iteration of a search for `seat`:
///
/// 1. **Determinize**: sample a full state consistent with what `seat`
///    knows, [`Game::determinize`]`(seat, rng)`. The tree is shared by all
///    determinizations, so its root stands for `seat`'s information set.
/// 2. **Select**: descend the tree along the determinization. At a
///    decision, only actions legal in this determinization are candidates;
///    among them the one with the highest UCB1 value
///    `mean + c·sqrt(ln(availability) / visits)` is taken, where
///    *availability* counts the selections at that node in which the action
///    was legal (legal actions vary between determinizations). The mean is
///    the return of the seat that chose the edge, so every seat maximises
///    its own returns (multi-player). At a chance node the outcome is
///    sampled by its exact weights ([`Game::sample_chance_outcome`]) and the tree follows
///    it (see [`IsMctsAgent::chance_branching`]).
/// 3. **Expand**: at the first decision with a legal action not yet in the
///    tree, add one such action (chosen uniformly) as a new node — one node
///    per iteration.
/// 4. **Simulate**: finish the game from there with the rollout policy
///    (uniform random to the end by default; see
///    [`IsMctsAgent::rollout_depth`], [`IsMctsAgent::rollout_agent`]).
/// 5. **Back-propagate** the per-seat returns ([`Game::returns`]): every
///    edge on the path adds the return of its own mover.
///
/// The move played is the root action (legal in the real state) with the
/// most visits, ties broken by the higher mean return. A move with a single
/// legal action is played without searching.
///
/// Like all single-observer ISMCTS, the tree below the root treats the
/// other seats' actions and chance outcomes as if `seat` saw them; only the
/// root decision is made over the information set.
///
/// # Speed
/// Nodes live in one `Vec` arena linked by indices; children are matched
/// against the legal actions through an array of marks indexed by action
/// id (no hashing); the arena, the marks, the path and the returns are
/// buffers kept across iterations and moves, so an iteration allocates
/// nothing but its new node. [`IsMctsAgent::last_search`] and
/// [`IsMctsAgent::total_stats`] give the iterations per second.
///
/// # Reproducibility
/// All randomness comes from the `rng` given to [`Agent::act`]: with an
/// iteration budget, the same seed gives the same move.
///
/// ```
/// use boardgame_kit::{Agent, Game, GameRng, IsMctsAgent, testgame::{HiddenNim, NimAction}};
///
/// // Seat 0 holds card 1, two stones are left and it is seat 0's move:
/// // taking both earns the last-stone bonus.
/// let mut state = HiddenNim::new_game(&Default::default()).unwrap();
/// for a in [NimAction::Deal(1), NimAction::Deal(2), NimAction::Take(2), NimAction::Take(1)] {
///     state.apply(a).unwrap();
/// }
/// let mut agent = IsMctsAgent::with_iterations(200).exploration(1.0);
/// let action = agent.act(&state, 0, &mut GameRng::new(1));
/// assert_eq!(action, NimAction::Take(2));
/// assert_eq!(Agent::<HiddenNim>::name(&agent), "ismcts:200");
/// assert_eq!(agent.last_search().iterations, 200);
/// ```
pub struct IsMctsAgent<G: Game> {
    settings: SearchSettings,
    rollout: Rollout<G>,
    prior: Option<Box<dyn Agent<G>>>,
    /// The policy improved on ([`IsMctsAgent::base_agent`]) and its margin.
    base: Option<(Box<dyn Agent<G>>, f64)>,
    /// The base's action of the current search, expanded first at the root.
    base_action: Option<G::Action>,
    nodes: Vec<Node<G::Action>>,
    /// The nodes below the root that the current iteration went through.
    path: Vec<u32>,
    marks: Vec<u32>,
    generation: u32,
    returns: Vec<f64>,
    list: G::ActionList,
    seat: usize,
    ledger: Ledger,
}

impl<G: Game> fmt::Debug for IsMctsAgent<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsMctsAgent")
            .field("settings", &self.settings)
            .field("rollout", &self.rollout)
            .field("prior", &self.prior.as_ref().map(|a| a.name()))
            .field("base", &self.base.as_ref().map(|(a, m)| (a.name(), *m)))
            .field("last", &self.ledger.last)
            .finish_non_exhaustive()
    }
}

/// What the tree policy does at one node of a descent
/// ([`IsMctsAgent::tree_step`]).
enum Step<A> {
    /// Apply the action and follow the existing child with this index.
    Descend(A, u32),
    /// Apply the action and leave the tree there, adding the action as a
    /// new child if the tree has room.
    Expand(A),
    /// Apply the action and stay at the same node (a chance node that does
    /// not branch, another seat's decision played open loop).
    PassThrough(A),
    /// The descent ends here (terminal state, no legal action, or a full
    /// tree with nothing known at this node).
    Stop,
}

/// Where a descent left the tree ([`IsMctsAgent::select`]).
struct Leaf<A> {
    /// The last node reached.
    node: usize,
    /// The action to expand below it, if any.
    expand: Option<A>,
}

impl<G: Game> IsMctsAgent<G> {
    /// The default exploration constant `c` of UCB1 (returns are in
    /// `[0, 1]`), [`SearchSettings::DEFAULT_EXPLORATION`].
    pub const DEFAULT_EXPLORATION: f64 = SearchSettings::DEFAULT_EXPLORATION;
    /// The default cap on tree nodes, [`SearchSettings::DEFAULT_MAX_NODES`].
    pub const DEFAULT_MAX_NODES: usize = SearchSettings::DEFAULT_MAX_NODES;

    /// An agent with `budget` and the defaults: exploration
    /// [`Self::DEFAULT_EXPLORATION`], uniform random rollouts to the end of
    /// the game, chance outcomes branching in the tree,
    /// [`Self::DEFAULT_MAX_NODES`] nodes at most.
    pub fn new(budget: Budget) -> Self {
        Self::with_settings(SearchSettings::new(budget))
    }

    /// An agent with `settings`, uniform random rollouts and no prior.
    pub fn with_settings(settings: SearchSettings) -> Self {
        IsMctsAgent {
            settings: settings.normalized(),
            rollout: Rollout::default(),
            prior: None,
            base: None,
            base_action: None,
            nodes: Vec::new(),
            path: Vec::new(),
            marks: Vec::new(),
            generation: 0,
            returns: Vec::new(),
            list: G::ActionList::default(),
            seat: 0,
            ledger: Ledger::default(),
        }
    }

    /// An agent that runs `iterations` iterations per move (reproducible).
    pub fn with_iterations(iterations: u64) -> Self {
        Self::new(Budget::Iterations(iterations))
    }

    /// An agent that searches for `duration` of wall-clock time per move
    /// (at least one iteration).
    pub fn with_time(duration: Duration) -> Self {
        Self::new(Budget::Time(duration))
    }

    /// The settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// Replaces the settings (the rollout agents and the prior stay).
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

    /// Sets the UCB1 exploration constant `c` (default 0.7). Negative
    /// values count as 0 (pure exploitation); a non-finite value keeps the
    /// default.
    #[must_use]
    pub fn exploration(self, c: f64) -> Self {
        self.map_settings(|s| s.exploration(c))
    }

    /// Truncates every rollout after `depth` actions (chance outcomes
    /// included) and scores the state reached with the
    /// [`evaluation`](Self::evaluation), by default
    /// [`score_leader_returns`](crate::score_leader_returns): 1 shared
    /// equally among the seats with the highest [`Game::score`]. A rollout
    /// that reaches the end earlier gets the real [`Game::returns`].
    /// `0` scores the leaf of the tree directly.
    #[must_use]
    pub fn rollout_depth(self, depth: usize) -> Self {
        self.map_settings(|s| s.rollout_depth(depth))
    }

    /// How rollouts cut short by [`IsMctsAgent::rollout_depth`] are scored
    /// (default [`Evaluation::LeaderShare`]).
    #[must_use]
    pub fn evaluation(self, evaluation: Evaluation) -> Self {
        self.map_settings(|s| s.evaluation(evaluation))
    }

    /// Plays every rollout to the end of the game (the default).
    #[must_use]
    pub fn rollout_to_end(self) -> Self {
        self.map_settings(SearchSettings::rollout_to_end)
    }

    /// Uses `agent` instead of uniform random moves in rollouts, for every
    /// seat (it is given the determinized state and the search's `rng`; an
    /// illegal choice is replaced by a random legal action). Slower per
    /// iteration than the allocation-free random playout, usually stronger
    /// per iteration.
    #[must_use]
    pub fn rollout_agent(mut self, agent: Box<dyn Agent<G>>) -> Self {
        self.rollout.policy = Some(agent);
        self
    }

    /// Guides the tree with `agent` as a prior: at every decision node the
    /// agent's choice (for that determinization) is expanded first and gets
    /// a selection bonus of `weight / (1 + visits)` (progressive bias,
    /// [`SearchSettings::prior_weight`]), and other actions are expanded
    /// only as the node's visits grow (progressive widening: at most
    /// `1 + ⌊√visits⌋` children), so that a small budget is spent on the few
    /// actions that matter instead of one visit each for hundreds of
    /// near-equivalent ones.
    #[must_use]
    pub fn prior_agent(mut self, agent: Box<dyn Agent<G>>, weight: f64) -> Self {
        self.prior = Some(agent);
        self.map_settings(|s| s.prior_weight(weight))
    }

    /// A base policy to improve on: before each search `agent` chooses (with
    /// the search's random generator), and after it the search's own choice
    /// (the most visited root action) is played only if its mean return
    /// beats the mean return of `agent`'s action by more than `margin` (in
    /// return units, at least 0); otherwise `agent`'s action is played. One
    /// step of policy improvement that keeps the base policy's move wherever
    /// the rollouts cannot tell it from the search's — the root rule of
    /// [`crate::FlatMcAgent::base_agent`] for the tree search. The tree is
    /// searched as without a base, except that the base's action is the
    /// first child expanded at the root (so that it has a mean return to
    /// compare, whatever the prior or the widening would have tried); an
    /// illegal action of `agent` leaves the search's choice.
    /// [`Agent::policy`] stays the visit shares.
    #[must_use]
    pub fn base_agent(mut self, agent: Box<dyn Agent<G>>, margin: f64) -> Self {
        self.base = Some((agent, if margin.is_finite() && margin > 0.0 { margin } else { 0.0 }));
        self
    }

    /// Scores every rollout cut by [`rollout_depth`](Self::rollout_depth)
    /// with `value` instead of the [`evaluation`](Self::evaluation); with
    /// `rollout_depth(0)` the tree's leaves are scored directly, without
    /// rollouts (a value network, [`crate::nn::NetValue`]).
    #[must_use]
    pub fn leaf_value(mut self, value: Box<dyn super::LeafValue<G>>) -> Self {
        self.rollout.leaf = Some(value);
        self
    }

    /// Uses `agent` for the **searching seat's** own decisions in rollouts
    /// (and in open-loop play past the tree); the other seats keep the
    /// [`rollout_agent`](Self::rollout_agent) policy, uniformly random by
    /// default. Models "I play well later, the table plays as it does":
    /// the searching seat's good move now is not drowned in its own random
    /// future play. An illegal choice is replaced by a random legal action.
    #[must_use]
    pub fn searcher_rollout_agent(mut self, agent: Box<dyn Agent<G>>) -> Self {
        self.rollout.searcher_policy = Some(agent);
        self
    }

    /// Whether chance outcomes branch the tree (default `true`): each
    /// sampled outcome leads to its own child, so decisions after it are
    /// planned knowing it. With `false` chance nodes are passed through
    /// ("open loop"): the outcome is sampled and applied but the tree stays
    /// at the same node, so the decisions that follow share statistics
    /// across outcomes — useful when outcomes are many or hidden from the
    /// searching seat.
    #[must_use]
    pub fn chance_branching(self, branch: bool) -> Self {
        self.map_settings(|s| s.chance_branching(branch))
    }

    /// Whether the other seats' decisions are left out of the tree (default
    /// `false`). With `true` they are made by the rollout policy and the
    /// tree stays at the same node, as at a pass-through chance node
    /// ([`IsMctsAgent::chance_branching`]): the tree then holds only the
    /// searching seat's own decisions, which are never conditioned on the
    /// others' choices — some of which the seat may not see (an opponent
    /// laying cards face down). The price: the others are modelled by the
    /// rollout policy instead of by search.
    #[must_use]
    pub fn open_loop_others(self, open_loop: bool) -> Self {
        self.map_settings(|s| s.open_loop_others(open_loop))
    }

    /// Caps the tree at `max_nodes` nodes (at least 1, the root); once it
    /// is full, iterations go on without expanding.
    #[must_use]
    pub fn max_nodes(self, max_nodes: usize) -> Self {
        self.map_settings(|s| s.max_nodes(max_nodes))
    }

    /// The budget per move.
    pub fn current_budget(&self) -> Budget {
        self.settings.budget
    }

    /// What the last call of [`Agent::act`] did (all zero after a move
    /// with a single legal action, which is not searched).
    pub fn last_search(&self) -> SearchStats {
        self.ledger.last
    }

    /// Statistics summed over every search since the agent was created (or
    /// [`IsMctsAgent::clear_stats`]); [`Agent::reset`] keeps them, so one
    /// agent can measure a whole series of games.
    pub fn total_stats(&self) -> SearchStats {
        self.ledger.total
    }

    /// Zeroes [`IsMctsAgent::total_stats`].
    pub fn clear_stats(&mut self) {
        self.ledger.clear();
    }

    /// The root actions of the last search with their statistics, most
    /// visited first (empty before any search and after an unsearched
    /// move).
    pub fn root_edges(&self) -> Vec<EdgeStats<G::Action>> {
        let mut out = Vec::new();
        let Some(root) = self.nodes.first() else {
            return out;
        };
        let mut c = root.first_child;
        while let Some(n) = self.nodes.get(c as usize) {
            if let (Some(action), true) = (n.action, usize::from(n.mover) == self.seat) {
                out.push(EdgeStats {
                    action,
                    visits: n.visits,
                    availability: n.avail,
                    mean_return: n.reward / f64::from(n.visits.max(1)),
                });
            }
            c = n.next_sibling;
        }
        out.reverse(); // creation order
        out.sort_by_key(|e| std::cmp::Reverse(e.visits));
        out
    }

    /// A fresh generation of legality marks: `g` marks "legal", `g + 1`
    /// "legal and already in the tree".
    fn next_generation(&mut self) -> u32 {
        if self.generation >= u32::MAX - 4 {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.generation = 0;
        }
        self.generation += 2;
        self.generation
    }

    /// Marks every action of `self.list` legal with generation `g`.
    fn mark_list(&mut self, config: &G::Config, g: u32) {
        for &a in self.list.iter() {
            let i = G::action_id(config, a) as usize;
            if i >= self.marks.len() {
                // Only for ids past the declared action space (a faulty engine).
                self.marks.resize(i + 1, 0);
            }
            self.marks[i] = g;
        }
    }

    fn mark(&self, id: ActionId) -> u32 {
        self.marks.get(id as usize).copied().unwrap_or(0)
    }

    /// Adds a child of `parent` and returns its index.
    fn add_child(&mut self, parent: usize, action: G::Action, id: ActionId, mover: u16) -> u32 {
        let index = self.nodes.len() as u32;
        let next = self.nodes[parent].first_child;
        self.nodes.push(Node::new(Some(action), id, mover, next));
        self.nodes[parent].first_child = index;
        index
    }

    /// Whether the tree may grow by one more node.
    fn has_room(&self) -> bool {
        self.nodes.len() < self.settings.max_nodes
    }

    /// The seat of a decision as a node's `mover` (seats past `u16` range
    /// share the last value below [`CHANCE`]).
    fn mover_of(seat: usize) -> u16 {
        seat.min(usize::from(CHANCE) - 1) as u16
    }

    /// One iteration from `root` for `seat`: determinize, [`select`]
    /// (descend the tree), [`expand`] (add one node), [`simulate`] (roll
    /// out), [`backup`] (add the returns along the path). `false` when the
    /// state could not be determinized (a faulty engine); the search then
    /// stops.
    ///
    /// [`select`]: Self::select
    /// [`expand`]: Self::expand
    /// [`simulate`]: Self::simulate
    /// [`backup`]: Self::backup
    fn iterate(&mut self, root: &G, seat: usize, rng: &mut GameRng) -> bool {
        let Ok(mut state) = root.determinize(seat, rng) else {
            return false;
        };
        let leaf = self.select(&mut state, seat, rng);
        if let Some(action) = leaf.expand {
            self.expand(&mut state, leaf.node, action);
        }
        self.simulate(&mut state, rng);
        self.backup();
        true
    }

    /// **Select**: descends from the root along the determinized `state`,
    /// applying every action taken to it, until the tree policy
    /// ([`tree_step`](Self::tree_step)) stops or chooses an action to
    /// expand, or the game's length bound is reached. On return `self.path`
    /// holds the nodes below the root that were entered, in order, and
    /// `state` is the state at the returned leaf (the action to expand, if
    /// any, is not yet applied).
    fn select(&mut self, state: &mut G, seat: usize, rng: &mut GameRng) -> Leaf<G::Action> {
        self.path.clear();
        let bound = G::max_game_length(state.config());
        let mut node = 0usize;
        for _ in 0..bound {
            match self.tree_step(state, node, seat, rng) {
                Step::Descend(action, child) => {
                    state.apply_unchecked(action);
                    self.path.push(child);
                    node = child as usize;
                }
                Step::PassThrough(action) => state.apply_unchecked(action),
                Step::Expand(action) => return Leaf { node, expand: Some(action) },
                Step::Stop => break,
            }
        }
        Leaf { node, expand: None }
    }

    /// The tree policy at `node` for the determinized `state`: at a chance
    /// node the outcome sampled by its weights (followed if it branches the
    /// tree), at another seat's decision played open loop the rollout
    /// policy's action, at a decision in the tree [`decision_step`]. Draws
    /// from `rng` in that order; changes no statistic but the availability
    /// counts of the decision's legal children.
    ///
    /// [`decision_step`]: Self::decision_step
    fn tree_step(&mut self, state: &G, node: usize, seat: usize, rng: &mut GameRng) -> Step<G::Action> {
        match state.turn() {
            Turn::Terminal => Step::Stop,
            Turn::Chance => {
                let Some(a) = state.sample_chance_outcome(rng) else {
                    return Step::Stop;
                };
                if !self.settings.chance_branching {
                    return Step::PassThrough(a);
                }
                let id = G::action_id(state.config(), a);
                let mut c = self.nodes[node].first_child;
                while let Some(n) = self.nodes.get(c as usize) {
                    if n.mover == CHANCE && n.id == id {
                        return Step::Descend(a, c);
                    }
                    c = n.next_sibling;
                }
                Step::Expand(a)
            }
            Turn::Player(p) if p != seat && self.settings.open_loop_others => {
                match self.rollout.choose(state, p, rng) {
                    Some(a) => Step::PassThrough(a),
                    None => Step::Stop,
                }
            }
            Turn::Player(p) => self.decision_step(state, node, p, rng),
        }
    }

    /// The tree policy at a decision of seat `p`: with the actions legal in
    /// this determinization, in this order of preference —
    ///
    /// 1. at the root, the [base](IsMctsAgent::base_agent)'s action, then
    ///    the prior agent's choice, if it is legal, not yet a child and the
    ///    tree has room ([`Step::Expand`]);
    /// 2. a uniformly drawn legal action not yet a child, if widening allows
    ///    another child (always without a prior; at most `1 + ⌊√visits⌋`
    ///    children with one) and the tree has room ([`Step::Expand`]);
    /// 3. [`Step::Stop`] if no legal action is a child;
    /// 4. the legal child with the best UCB1 value ([`ucb_child`],
    ///    [`Step::Descend`]).
    ///
    /// [`ucb_child`]: Self::ucb_child
    fn decision_step(&mut self, state: &G, node: usize, p: usize, rng: &mut GameRng) -> Step<G::Action> {
        state.legal_actions(&mut self.list);
        if self.list.is_empty() {
            return Step::Stop;
        }
        let mover = Self::mover_of(p);
        let g = self.next_generation();
        self.mark_list(state.config(), g);
        // Legal children get mark g + 1.
        let mut tried = 0usize;
        let mut c = self.nodes[node].first_child;
        while let Some(n) = self.nodes.get(c as usize) {
            if n.mover == mover && self.mark(n.id) == g {
                self.marks[n.id as usize] = g + 1;
                tried += 1;
            }
            c = n.next_sibling;
        }
        // At the root, the base's action first, wherever it is legal.
        if node == 0
            && p == self.seat
            && let Some(a) = self.base_action
            && self.mark(G::action_id(state.config(), a)) == g
            && self.has_room()
        {
            return Step::Expand(a);
        }
        // The prior's choice, if it is legal here.
        let prior = match self.prior.as_mut() {
            Some(agent) => {
                let a = agent.act(state, p, rng);
                let id = G::action_id(state.config(), a);
                (self.mark(id) >= g).then_some((a, id))
            }
            None => None,
        };
        let widen = match prior {
            None if self.prior.is_none() => true,
            _ => (tried as f64) < 1.0 + f64::from(self.nodes[node].visits).sqrt().floor(),
        };
        if let Some((a, _)) = prior.filter(|&(_, id)| self.mark(id) == g)
            && self.has_room()
        {
            return Step::Expand(a);
        }
        if widen && tried < self.list.len() && self.has_room() {
            // The k-th untried legal action, k uniform.
            let mut k = rng.index(self.list.len() - tried);
            for &a in self.list.iter() {
                if self.mark(G::action_id(state.config(), a)) == g {
                    if k == 0 {
                        return Step::Expand(a);
                    }
                    k -= 1;
                }
            }
            return Step::Stop; // unreachable with consistent marks
        }
        if tried == 0 {
            return Step::Stop; // tree full and nothing known here
        }
        let best = self.ucb_child(node, mover, g + 1, prior.map(|(_, id)| id));
        match self.nodes.get(best as usize).and_then(|n| n.action) {
            Some(a) => Step::Descend(a, best),
            None => Step::Stop,
        }
    }

    /// Among the children of `node` chosen by `mover` whose action is
    /// marked `legal` (in the tree and legal in this determinization): adds
    /// one to each one's availability and returns the one with the highest
    /// `mean + c·sqrt(ln(availability) / visits)`, plus
    /// `prior_weight / (1 + visits)` for the prior's choice `prior_id`
    /// (the first of equal values in child order), or [`NONE`] if there is
    /// none.
    fn ucb_child(&mut self, node: usize, mover: u16, legal: u32, prior_id: Option<ActionId>) -> u32 {
        let c_explore = self.settings.exploration;
        let prior_weight = self.settings.prior_weight;
        let ln_table = ln_table();
        let mut best = NONE;
        let mut best_value = f64::NEG_INFINITY;
        let mut c = self.nodes[node].first_child;
        while (c as usize) < self.nodes.len() {
            let n = &mut self.nodes[c as usize];
            if n.mover == mover && self.marks.get(n.id as usize).copied().unwrap_or(0) == legal {
                n.avail = n.avail.saturating_add(1);
                let v = f64::from(n.visits.max(1));
                let ln_avail = match ln_table.get(n.avail as usize) {
                    Some(&ln) => ln,
                    None => f64::from(n.avail).ln(),
                };
                let mut value = n.reward / v + c_explore * (ln_avail / v).sqrt();
                if prior_id == Some(n.id) {
                    value += prior_weight / (1.0 + f64::from(n.visits));
                }
                if value > best_value {
                    best_value = value;
                    best = c;
                }
            }
            c = n.next_sibling;
        }
        best
    }

    /// **Expand**: applies `action` to `state` at `node` and, if the tree
    /// has room, adds it as a new child of `node` (chosen by the seat to
    /// move before it, or chance) and appends the child to `self.path`.
    fn expand(&mut self, state: &mut G, node: usize, action: G::Action) {
        let mover = match state.turn() {
            Turn::Player(p) => Self::mover_of(p),
            _ => CHANCE,
        };
        let id = G::action_id(state.config(), action);
        state.apply_unchecked(action);
        if self.has_room() {
            let c = self.add_child(node, action, id, mover);
            self.path.push(c);
        }
    }

    /// **Simulate**: finishes `state` with the rollout policy (to the end
    /// or the rollout depth) and leaves the per-seat returns in
    /// `self.returns`.
    fn simulate(&mut self, state: &mut G, rng: &mut GameRng) {
        self.rollout.run(&self.settings, state, rng, &mut self.returns);
    }

    /// **Back-propagate**: one more visit for the root and every node of
    /// `self.path`, and each decision node adds the return of its own
    /// mover from `self.returns` (chance nodes count visits only).
    fn backup(&mut self) {
        for &c in &self.path {
            let n = &mut self.nodes[c as usize];
            n.visits = n.visits.saturating_add(1);
            if n.mover != CHANCE {
                n.reward += self.returns.get(usize::from(n.mover)).copied().unwrap_or(0.0);
            }
        }
        self.nodes[0].visits = self.nodes[0].visits.saturating_add(1);
    }
}

impl<G: Game> Agent<G> for IsMctsAgent<G> {
    /// `ismcts:<budget>`, e.g. `ismcts:1000` or `ismcts:250ms`.
    fn name(&self) -> String {
        format!("ismcts:{}", self.settings.budget)
    }

    /// Searches the information set of `seat` in `state` within the budget
    /// and returns the most visited legal root action (with a
    /// [`base_agent`](IsMctsAgent::base_agent): the base's action unless
    /// that one's mean return is beaten by more than the margin).
    ///
    /// # Panics
    /// Only if called where `seat` has no legal action **and** the game's
    /// action space is empty (no action exists to return).
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        self.nodes.clear();
        self.seat = seat;
        self.rollout.searcher = seat;
        self.ledger.begin();
        state.legal_actions(&mut self.list);
        if self.list.len() <= 1 {
            return fallback_action(state, &self.list, rng);
        }
        self.returns.clear();
        self.returns.resize(state.num_players().max(1), 0.0);
        let size = G::num_distinct_actions(state.config());
        if self.marks.len() < size {
            self.marks.resize(size, 0);
        }
        self.base_action = match self.base.as_mut() {
            Some((agent, _)) => Some(agent.act(state, seat, rng)).filter(|a| self.list.contains(a)),
            None => None,
        };
        self.nodes.push(Node::new(None, 0, CHANCE, NONE));
        let mut clock = BudgetClock::start(self.settings.budget);
        while clock.more() {
            if !self.iterate(state, seat, rng) {
                break;
            }
            clock.tick();
        }
        self.ledger.record(SearchStats {
            searches: 1,
            iterations: clock.done(),
            nodes: self.nodes.len() as u64,
            elapsed: clock.elapsed(),
        });

        // The most visited root action legal in the real state.
        state.legal_actions(&mut self.list);
        let g = self.next_generation();
        self.mark_list(state.config(), g);
        let mover = Self::mover_of(seat);
        let mut best: Option<(u32, f64, G::Action)> = None;
        let mut base_mean = None;
        let mut c = self.nodes[0].first_child;
        while let Some(n) = self.nodes.get(c as usize) {
            if let (Some(a), true) = (n.action, n.mover == mover && self.mark(n.id) == g) {
                let mean = n.reward / f64::from(n.visits.max(1));
                if best.is_none_or(|(v, m, _)| n.visits > v || (n.visits == v && mean > m)) {
                    best = Some((n.visits, mean, a));
                }
                if n.visits > 0 && self.base_action == Some(a) {
                    base_mean = Some(mean);
                }
            }
            c = n.next_sibling;
        }
        let margin = self.base.as_ref().map_or(0.0, |&(_, m)| m);
        match (best, self.base_action.zip(base_mean)) {
            (Some((_, mean, a)), Some((b, b_mean))) => {
                if mean > b_mean + margin {
                    a
                } else {
                    b
                }
            }
            (Some((_, _, a)), None) => a,
            (None, _) => fallback_action(state, &self.list, rng),
        }
    }

    fn reset(&mut self) {
        if let Some(p) = self.prior.as_mut() {
            p.reset();
        }
        if let Some((p, _)) = self.base.as_mut() {
            p.reset();
        }
        if let Some(p) = self.rollout.policy.as_mut() {
            p.reset();
        }
        if let Some(p) = self.rollout.searcher_policy.as_mut() {
            p.reset();
        }
    }

    /// The visit shares of the last search's root actions that were legal
    /// in the real state (the most visited one is the action played), in
    /// the tree's order; nothing after a move with a single legal action
    /// (not searched) or before any search.
    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        out.clear();
        let Some(root) = self.nodes.first() else {
            return;
        };
        let mover = Self::mover_of(self.seat);
        let legal = self.generation;
        let mut total = 0u64;
        let mut c = root.first_child;
        while let Some(n) = self.nodes.get(c as usize) {
            if let (Some(a), true) = (n.action, n.mover == mover && self.mark(n.id) == legal && n.visits > 0) {
                out.push((a, f64::from(n.visits)));
                total += u64::from(n.visits);
            }
            c = n.next_sibling;
        }
        out.reverse(); // creation order
        let total = total as f64;
        out.iter_mut().for_each(|(_, p)| *p /= total);
    }
}

#[cfg(test)]
mod tests {
    //! Internals: availability counts where legal actions vary between
    //! determinizations, the wrap-around of the legality marks, the
    //! logarithm table.

    use std::fmt;
    use std::str::FromStr;

    use arrayvec::ArrayVec;

    use super::*;
    use crate::{ChanceOutcome, Outcome};

    /// Chance deals seat 1 a secret key (0 or 1); seat 0 picks `Go(0|1)`;
    /// seat 1 then may play `B` or its key's move (`A` with key 0, `C` with
    /// key 1), and wins unless it plays `B`.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Keyed {
        key: Option<u8>,
        go: Option<u8>,
        last: Option<Mv>,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum Mv {
        Deal(u8),
        Go(u8),
        A,
        B,
        C,
    }

    impl fmt::Display for Mv {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{self:?}")
        }
    }

    impl FromStr for Mv {
        type Err = KeyedError;
        fn from_str(_: &str) -> Result<Self, KeyedError> {
            Err(KeyedError)
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error("keyed: illegal")]
    struct KeyedError;

    impl Game for Keyed {
        type Config = ();
        type Action = Mv;
        type ActionList = ArrayVec<Mv, 2>;
        type ChanceList = ArrayVec<ChanceOutcome<Mv>, 2>;
        type Observation = (Option<u8>, Option<u8>);
        type Error = KeyedError;
        const NAME: &'static str = "keyed";
        const RULES_VERSION: u32 = 1;

        fn new_game(_: &()) -> Result<Self, KeyedError> {
            Ok(Keyed { key: None, go: None, last: None })
        }
        fn config(&self) -> &() {
            &()
        }
        fn num_players(&self) -> usize {
            2
        }
        fn turn(&self) -> Turn {
            match (self.key, self.go, self.last) {
                (None, _, _) => Turn::Chance,
                (_, None, _) => Turn::Player(0),
                (_, _, None) => Turn::Player(1),
                _ => Turn::Terminal,
            }
        }
        fn legal_actions(&self, out: &mut Self::ActionList) {
            out.clear();
            match self.turn() {
                Turn::Chance => out.extend([Mv::Deal(0), Mv::Deal(1)]),
                Turn::Player(0) => out.extend([Mv::Go(0), Mv::Go(1)]),
                Turn::Player(_) => out.extend([if self.key == Some(0) { Mv::A } else { Mv::C }, Mv::B]),
                Turn::Terminal => {}
            }
        }
        fn chance_outcomes(&self, out: &mut Self::ChanceList) {
            out.clear();
            if self.turn() == Turn::Chance {
                out.extend([0, 1].map(|k| ChanceOutcome { action: Mv::Deal(k), weight: 1 }));
            }
        }
        fn validate(&self, a: Mv) -> Result<(), KeyedError> {
            let mut list = Self::ActionList::default();
            self.legal_actions(&mut list);
            if list.contains(&a) { Ok(()) } else { Err(KeyedError) }
        }
        fn apply_unchecked(&mut self, a: Mv) {
            match a {
                Mv::Deal(k) => self.key = Some(k),
                Mv::Go(g) => self.go = Some(g),
                m => self.last = Some(m),
            }
        }
        fn outcome(&self) -> Option<Outcome> {
            self.last.map(|m| if m == Mv::B { Outcome::Winner(0) } else { Outcome::Winner(1) })
        }
        fn score(&self, _: usize) -> i32 {
            0
        }
        fn num_distinct_actions(_: &()) -> usize {
            7
        }
        fn max_game_length(_: &()) -> usize {
            3
        }
        fn action_id(_: &(), a: Mv) -> ActionId {
            match a {
                Mv::Deal(k) => u32::from(k),
                Mv::Go(g) => 2 + u32::from(g),
                Mv::A => 4,
                Mv::B => 5,
                Mv::C => 6,
            }
        }
        fn action_from_id(_: &(), id: ActionId) -> Result<Mv, KeyedError> {
            [Mv::Deal(0), Mv::Deal(1), Mv::Go(0), Mv::Go(1), Mv::A, Mv::B, Mv::C]
                .get(id as usize)
                .copied()
                .ok_or(KeyedError)
        }
        fn observation(&self, seat: usize) -> Result<Self::Observation, KeyedError> {
            match seat {
                0 => Ok((None, self.go)),
                1 => Ok((self.key, self.go)),
                _ => Err(KeyedError),
            }
        }
        fn observation_tensor_shape(_: &()) -> Vec<usize> {
            vec![1]
        }
        fn write_observation_tensor(&self, _: usize, _: &mut [f32]) -> Result<(), KeyedError> {
            Ok(())
        }
        fn view_action(&self, viewer: crate::Viewer, a: Mv) -> Option<Mv> {
            // the key is dealt to seat 1 alone
            (!matches!(a, Mv::Deal(_)) || viewer == crate::Viewer::Seat(1)).then_some(a)
        }
        fn determinize(&self, observer: usize, rng: &mut GameRng) -> Result<Self, KeyedError> {
            let mut s = *self;
            if observer == 0 && s.key.is_some() && s.last.is_none() {
                s.key = Some(rng.below(2) as u8);
            }
            Ok(s)
        }
    }

    fn dealt() -> Keyed {
        let mut s = Keyed::new_game(&()).unwrap();
        s.apply(Mv::Deal(0)).unwrap();
        s
    }

    /// The children of `node` as (action, visits, availability).
    fn children(agent: &IsMctsAgent<Keyed>, node: usize) -> Vec<(Mv, u32, u32)> {
        let mut out = Vec::new();
        let mut c = agent.nodes[node].first_child;
        while let Some(n) = agent.nodes.get(c as usize) {
            out.push((n.action.unwrap(), n.visits, n.avail));
            c = n.next_sibling;
        }
        out.sort_by_key(|x| Keyed::action_id(&(), x.0));
        out
    }

    #[test]
    fn availability_counts_follow_the_determinizations() {
        let mut agent = IsMctsAgent::<Keyed>::with_iterations(600);
        agent.act(&dealt(), 0, &mut GameRng::new(3));
        let root = children(&agent, 0);
        assert_eq!(root.iter().map(|c| c.1).sum::<u32>(), 600);
        // Under each `Go`: seat 1's node holds A, B and C; A and C were each
        // legal in about half of the selections, B in all of them.
        let mut c = agent.nodes[0].first_child;
        while let Some(go) = agent.nodes.get(c as usize) {
            let kids = children(&agent, c as usize);
            let [(Mv::A, va, aa), (Mv::B, vb, ab), (Mv::C, vc, ac)] = kids[..] else {
                panic!("{kids:?}");
            };
            // the iteration that created the `Go` node stopped there
            assert_eq!(va + vb + vc, go.visits - 1);
            assert_eq!((aa - 1) + (ac - 1), ab - 1, "exactly one of A, C is legal per selection");
            assert!(aa > ab / 4 && ac > ab / 4, "{kids:?}");
            // seat 1 plays for itself: its key move wins, B loses
            assert!(vb * 4 < va + vc, "{kids:?}");
            c = go.next_sibling;
        }
    }

    #[test]
    fn the_log_table_holds_exactly_the_logarithms_of_f64_ln() {
        let table = ln_table();
        assert_eq!(table.len(), LN_TABLE_LEN);
        for (n, &ln) in table.iter().enumerate() {
            let n = u32::try_from(n).unwrap();
            assert_eq!(ln.to_bits(), f64::from(n).ln().to_bits(), "ln({n})");
        }
    }

    #[test]
    fn legality_marks_survive_their_wrap_around() {
        let mut agent = IsMctsAgent::<Keyed>::with_iterations(50);
        agent.generation = u32::MAX - 7;
        let mut rng = GameRng::new(1);
        for _ in 0..3 {
            let a = agent.act(&dealt(), 0, &mut rng);
            assert!(dealt().is_legal(a));
            assert_eq!(agent.last_search().iterations, 50);
        }
        assert!(agent.generation < 1000, "the marks were reset");
        let edges = agent.root_edges();
        assert_eq!(edges.iter().map(|e| e.visits).sum::<u32>(), 50);
    }
}
