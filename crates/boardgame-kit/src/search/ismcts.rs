//! [`IsMctsAgent`]: single-observer information-set Monte-Carlo tree search.

use std::fmt;
use std::time::Duration;

use super::rollout::{Evaluation, Rollout};
use super::{Budget, BudgetClock, SearchStats, fallback_action};
use crate::{ActionId, Agent, Game, GameRng, Turn, sample_chance};

/// "No node" in the child and sibling links.
const NONE: u32 = u32::MAX;
/// The `mover` of a chance outcome's node.
const CHANCE: u16 = u16::MAX;

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
///    sampled by its exact weights ([`sample_chance`]) and the tree follows
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
    budget: Budget,
    exploration: f64,
    chance_branching: bool,
    open_loop_others: bool,
    max_nodes: usize,
    rollout: Rollout<G>,
    prior: Option<Box<dyn Agent<G>>>,
    prior_weight: f64,
    nodes: Vec<Node<G::Action>>,
    path: Vec<u32>,
    marks: Vec<u32>,
    generation: u32,
    returns: Vec<f64>,
    list: G::ActionList,
    chances: G::ChanceList,
    seat: usize,
    last: SearchStats,
    total: SearchStats,
}

impl<G: Game> fmt::Debug for IsMctsAgent<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsMctsAgent")
            .field("budget", &self.budget)
            .field("exploration", &self.exploration)
            .field("chance_branching", &self.chance_branching)
            .field("open_loop_others", &self.open_loop_others)
            .field("max_nodes", &self.max_nodes)
            .field("rollout", &self.rollout)
            .field("last", &self.last)
            .finish_non_exhaustive()
    }
}

impl<G: Game> IsMctsAgent<G> {
    /// The default exploration constant `c` of UCB1 (returns are in
    /// `[0, 1]`).
    pub const DEFAULT_EXPLORATION: f64 = 0.7;
    /// The default cap on tree nodes (about 2^22, a few hundred MB at most
    /// for the largest actions).
    pub const DEFAULT_MAX_NODES: usize = 1 << 22;

    /// An agent with `budget` and the defaults: exploration
    /// [`Self::DEFAULT_EXPLORATION`], uniform random rollouts to the end of
    /// the game, chance outcomes branching in the tree,
    /// [`Self::DEFAULT_MAX_NODES`] nodes at most.
    pub fn new(budget: Budget) -> Self {
        IsMctsAgent {
            budget,
            exploration: Self::DEFAULT_EXPLORATION,
            chance_branching: true,
            open_loop_others: false,
            max_nodes: Self::DEFAULT_MAX_NODES,
            rollout: Rollout::default(),
            prior: None,
            prior_weight: 0.0,
            nodes: Vec::new(),
            path: Vec::new(),
            marks: Vec::new(),
            generation: 0,
            returns: Vec::new(),
            list: G::ActionList::default(),
            chances: G::ChanceList::default(),
            seat: 0,
            last: SearchStats::default(),
            total: SearchStats::default(),
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

    /// Sets the budget per move.
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets the UCB1 exploration constant `c` (default 0.7). Negative
    /// values count as 0 (pure exploitation); a non-finite value keeps the
    /// default.
    #[must_use]
    pub fn exploration(mut self, c: f64) -> Self {
        self.exploration = if c.is_finite() { c.max(0.0) } else { Self::DEFAULT_EXPLORATION };
        self
    }

    /// Truncates every rollout after `depth` actions (chance outcomes
    /// included) and scores the state reached with
    /// [`score_leader_returns`](crate::score_leader_returns): 1 shared
    /// equally among the seats with the highest [`Game::score`]. A rollout
    /// that reaches the end earlier gets the real [`Game::returns`].
    /// `0` scores the leaf of the tree directly.
    #[must_use]
    pub fn rollout_depth(mut self, depth: usize) -> Self {
        self.rollout.depth = Some(depth);
        self
    }

    /// How rollouts cut short by [`IsMctsAgent::rollout_depth`] are scored
    /// (default [`Evaluation::LeaderShare`]).
    #[must_use]
    pub fn evaluation(mut self, evaluation: Evaluation) -> Self {
        self.rollout.evaluation = evaluation;
        self
    }

    /// Plays every rollout to the end of the game (the default).
    #[must_use]
    pub fn rollout_to_end(mut self) -> Self {
        self.rollout.depth = None;
        self
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
    /// a selection bonus of `weight / (1 + visits)` (progressive bias), and
    /// other actions are expanded only as the node's visits grow
    /// (progressive widening: at most `1 + ⌊√visits⌋` children), so that a
    /// small budget is spent on the few actions that matter instead of one
    /// visit each for hundreds of near-equivalent ones.
    #[must_use]
    pub fn prior_agent(mut self, agent: Box<dyn Agent<G>>, weight: f64) -> Self {
        self.prior = Some(agent);
        self.prior_weight = if weight.is_finite() { weight.max(0.0) } else { 0.0 };
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
    pub fn chance_branching(mut self, branch: bool) -> Self {
        self.chance_branching = branch;
        self
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
    pub fn open_loop_others(mut self, open_loop: bool) -> Self {
        self.open_loop_others = open_loop;
        self
    }

    /// Caps the tree at `max_nodes` nodes (at least 1, the root); once it
    /// is full, iterations go on without expanding.
    #[must_use]
    pub fn max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = max_nodes.clamp(1, NONE as usize);
        self
    }

    /// The budget per move.
    pub fn current_budget(&self) -> Budget {
        self.budget
    }

    /// What the last call of [`Agent::act`] did (all zero after a move
    /// with a single legal action, which is not searched).
    pub fn last_search(&self) -> SearchStats {
        self.last
    }

    /// Statistics summed over every search since the agent was created (or
    /// [`IsMctsAgent::clear_stats`]); [`Agent::reset`] keeps them, so one
    /// agent can measure a whole series of games.
    pub fn total_stats(&self) -> SearchStats {
        self.total
    }

    /// Zeroes [`IsMctsAgent::total_stats`].
    pub fn clear_stats(&mut self) {
        self.total = SearchStats::default();
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

    /// One iteration from `root` for `seat`. `false` when the state could
    /// not be determinized (a faulty engine); the search then stops.
    fn iterate(&mut self, root: &G, seat: usize, rng: &mut GameRng) -> bool {
        let Ok(mut state) = root.determinize(seat, rng) else {
            return false;
        };
        self.path.clear();
        let bound = G::max_game_length(state.config());
        let mut node = 0usize;
        let mut steps = 0usize;
        while steps < bound {
            // What to do after applying the action: descend into an existing
            // child, or add one (and leave the tree).
            let (action, existing) = match state.turn() {
                Turn::Terminal => break,
                Turn::Chance => {
                    let Some(a) = sample_chance(&state, rng, &mut self.chances) else {
                        break;
                    };
                    if !self.chance_branching {
                        state.apply_unchecked(a);
                        steps += 1;
                        continue;
                    }
                    let id = G::action_id(state.config(), a);
                    let mut found = None;
                    let mut c = self.nodes[node].first_child;
                    while let Some(n) = self.nodes.get(c as usize) {
                        if n.mover == CHANCE && n.id == id {
                            found = Some(c);
                            break;
                        }
                        c = n.next_sibling;
                    }
                    (a, found)
                }
                Turn::Player(p) if p != seat && self.open_loop_others => {
                    let Some(a) = self.rollout.choose(&state, p, rng) else {
                        break;
                    };
                    state.apply_unchecked(a);
                    steps += 1;
                    continue;
                }
                Turn::Player(p) => {
                    state.legal_actions(&mut self.list);
                    if self.list.is_empty() {
                        break;
                    }
                    let mover = p.min(usize::from(CHANCE) - 1) as u16;
                    let g = self.next_generation();
                    self.mark_list(state.config(), g);
                    let mut tried = 0usize;
                    let mut c = self.nodes[node].first_child;
                    while let Some(n) = self.nodes.get(c as usize) {
                        if n.mover == mover && self.mark(n.id) == g {
                            self.marks[n.id as usize] = g + 1;
                            tried += 1;
                        }
                        c = n.next_sibling;
                    }
                    // The prior's choice, if it is legal here.
                    let prior_id = match self.prior.as_mut() {
                        Some(agent) => {
                            let a = agent.act(&state, p, rng);
                            let id = G::action_id(state.config(), a);
                            (self.mark(id) >= g).then_some((a, id))
                        }
                        None => None,
                    };
                    let widen = match prior_id {
                        None if self.prior.is_none() => true,
                        _ => (tried as f64) < 1.0 + f64::from(self.nodes[node].visits).sqrt().floor(),
                    };
                    if let Some((a, _)) = prior_id.filter(|&(_, id)| self.mark(id) == g)
                        && self.nodes.len() < self.max_nodes
                    {
                        // Expand the prior's untried choice first.
                        (a, None)
                    } else if widen && tried < self.list.len() && self.nodes.len() < self.max_nodes {
                        // Expand: a uniformly chosen untried legal action.
                        let mut k = rng.index(self.list.len() - tried);
                        let mut pick = None;
                        for &a in self.list.iter() {
                            if self.mark(G::action_id(state.config(), a)) == g {
                                if k == 0 {
                                    pick = Some(a);
                                    break;
                                }
                                k -= 1;
                            }
                        }
                        let Some(a) = pick else {
                            break;
                        };
                        (a, None)
                    } else if tried == 0 {
                        break; // tree full and nothing known here
                    } else {
                        // Select: UCB1 with availability counts.
                        let c_explore = self.exploration;
                        let prior_weight = self.prior_weight;
                        let mut best = NONE;
                        let mut best_value = f64::NEG_INFINITY;
                        let mut c = self.nodes[node].first_child;
                        while (c as usize) < self.nodes.len() {
                            let legal = {
                                let n = &self.nodes[c as usize];
                                n.mover == mover && self.mark(n.id) == g + 1
                            };
                            let n = &mut self.nodes[c as usize];
                            if legal {
                                n.avail = n.avail.saturating_add(1);
                                let v = f64::from(n.visits.max(1));
                                let mut value = n.reward / v + c_explore * (f64::from(n.avail).ln() / v).sqrt();
                                if prior_id.is_some_and(|(_, id)| id == n.id) {
                                    value += prior_weight / (1.0 + f64::from(n.visits));
                                }
                                if value > best_value {
                                    best_value = value;
                                    best = c;
                                }
                            }
                            c = n.next_sibling;
                        }
                        let Some(a) = self.nodes.get(best as usize).and_then(|n| n.action) else {
                            break;
                        };
                        (a, Some(best))
                    }
                }
            };
            let mover = match state.turn() {
                Turn::Player(p) => p.min(usize::from(CHANCE) - 1) as u16,
                _ => CHANCE,
            };
            let id = G::action_id(state.config(), action);
            state.apply_unchecked(action);
            steps += 1;
            match existing {
                Some(c) => {
                    self.path.push(c);
                    node = c as usize;
                }
                None => {
                    if self.nodes.len() < self.max_nodes {
                        let c = self.add_child(node, action, id, mover);
                        self.path.push(c);
                    }
                    break;
                }
            }
        }
        self.rollout.run(&mut state, rng, &mut self.returns);
        for &c in &self.path {
            let n = &mut self.nodes[c as usize];
            n.visits = n.visits.saturating_add(1);
            if n.mover != CHANCE {
                n.reward += self.returns.get(usize::from(n.mover)).copied().unwrap_or(0.0);
            }
        }
        self.nodes[0].visits = self.nodes[0].visits.saturating_add(1);
        true
    }
}

impl<G: Game> Agent<G> for IsMctsAgent<G> {
    /// `ismcts:<budget>`, e.g. `ismcts:1000` or `ismcts:250ms`.
    fn name(&self) -> String {
        format!("ismcts:{}", self.budget)
    }

    /// Searches the information set of `seat` in `state` within the budget
    /// and returns the most visited legal root action.
    ///
    /// # Panics
    /// Only if called where `seat` has no legal action **and** the game's
    /// action space is empty (no action exists to return).
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        self.nodes.clear();
        self.seat = seat;
        self.rollout.searcher = seat;
        self.last = SearchStats::default();
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
        self.nodes.push(Node::new(None, 0, CHANCE, NONE));
        let mut clock = BudgetClock::start(self.budget);
        while clock.more() {
            if !self.iterate(state, seat, rng) {
                break;
            }
            clock.tick();
        }
        self.last = SearchStats {
            searches: 1,
            iterations: clock.done(),
            nodes: self.nodes.len() as u64,
            elapsed: clock.elapsed(),
        };
        self.total.add(&self.last);

        // The most visited root action legal in the real state.
        state.legal_actions(&mut self.list);
        let g = self.next_generation();
        self.mark_list(state.config(), g);
        let mover = seat.min(usize::from(CHANCE) - 1) as u16;
        let mut best: Option<(u32, f64, G::Action)> = None;
        let mut c = self.nodes[0].first_child;
        while let Some(n) = self.nodes.get(c as usize) {
            if let (Some(a), true) = (n.action, n.mover == mover && self.mark(n.id) == g) {
                let mean = n.reward / f64::from(n.visits.max(1));
                if best.is_none_or(|(v, m, _)| n.visits > v || (n.visits == v && mean > m)) {
                    best = Some((n.visits, mean, a));
                }
            }
            c = n.next_sibling;
        }
        match best {
            Some((_, _, a)) => a,
            None => fallback_action(state, &self.list, rng),
        }
    }

    fn reset(&mut self) {
        if let Some(p) = self.prior.as_mut() {
            p.reset();
        }
        if let Some(p) = self.rollout.policy.as_mut() {
            p.reset();
        }
        if let Some(p) = self.rollout.searcher_policy.as_mut() {
            p.reset();
        }
    }
}

#[cfg(test)]
mod tests {
    //! Internals: availability counts where legal actions vary between
    //! determinizations, and the wrap-around of the legality marks.

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
