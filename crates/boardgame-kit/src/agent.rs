//! Agents and allocation-free random play: [`Agent`], [`RandomAgent`], [`ByPlayers`],
//! [`playout`], [`random_action`], [`perft`].

use crate::{Game, GameRng, Turn};

/// A player: chooses an action for the seat whose turn it is.
///
/// An agent is handed the full state for convenience but must only use what
/// the seat may know: [`Game::observation`] and [`Game::determinize`] for
/// that seat. All its randomness comes from the `rng` it is given (the
/// driver gives each seat its own stream), so the same seed gives the same
/// game.
///
/// `Box<A>` and `&mut A` are agents whenever `A` is (`A` may be `dyn
/// Agent<G>`), every method forwarded: agents chosen at run time can be
/// kept in a vector of boxes and handed on as they are.
///
/// ```
/// use boardgame_kit::{Agent, Driver, Game, IsMctsAgent, RandomAgent, Turn, play_game, testgame::HiddenNim};
///
/// let mut agents: Vec<Box<dyn Agent<HiddenNim>>> =
///     vec![Box::new(IsMctsAgent::with_iterations(20)), Box::new(RandomAgent)];
///
/// // A box is an agent: `&mut agents[s]` is a `&mut dyn Agent`.
/// let mut seats: Vec<&mut dyn Agent<HiddenNim>> = agents.iter_mut().map(|a| a as &mut dyn Agent<HiddenNim>).collect();
/// let game = play_game::<HiddenNim>(&Default::default(), &mut seats, 7).unwrap();
/// assert_eq!(game.record.agents, ["ismcts:20", "random"]);
///
/// // One step at a time, a box straight from the vector.
/// let mut driver = Driver::<HiddenNim>::new(&Default::default(), 7).unwrap();
/// while driver.state().turn() == Turn::Chance {
///     driver.step_chance();
/// }
/// let Turn::Player(seat) = driver.state().turn() else { unreachable!() };
/// let steps = driver.steps();
/// driver.step_agent(&mut agents[seat]).unwrap();
/// assert_eq!(driver.steps(), steps + 1);
/// ```
pub trait Agent<G: Game>: Send {
    /// A short name for tables and records (`"random"`, `"ismcts:1000"`).
    fn name(&self) -> String;

    /// Chooses a legal action for `seat`, which is to move in `state`.
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action;

    /// Called before each new game; agents with memory reset it here.
    fn reset(&mut self) {}

    /// The agent's distribution over the actions of its last decision, if
    /// it has one, written into `out` (cleared first) as `(action,
    /// probability)` pairs over actions that were legal there, the
    /// probabilities positive and summing to 1. A search writes its root's
    /// visit shares ([`crate::IsMctsAgent`]); the default writes nothing
    /// (an agent without a policy, or a decision that was not searched
    /// because it had a single legal action): a front end then takes the
    /// action the agent returned as its whole policy.
    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        out.clear();
    }
}

/// An agent that plays each table size with an agent of its own: the one
/// given for the state's player count ([`Game::num_players`]), or `other`
/// at every count not given. The engines' `learned` agents are this where a
/// network was trained for a player count (docs/learning.md). Its name is
/// `other`'s; [`Agent::policy`] is that of the agent that made the last
/// decision.
///
/// ```
/// use boardgame_kit::{Agent, ByPlayers, IsMctsAgent, RandomAgent, testgame::HiddenNim};
///
/// // Random play at two seats, a search at three and four (a game of
/// // another engine: the test game has two seats).
/// let search = |n| (n, Box::new(IsMctsAgent::with_iterations(20)) as Box<dyn Agent<HiddenNim>>);
/// let agent = ByPlayers::new(Box::new(RandomAgent), vec![search(3), search(4)]);
/// assert_eq!(agent.name(), "random");
/// assert_eq!(agent.counts().collect::<Vec<_>>(), [3, 4]);
/// ```
pub struct ByPlayers<G: Game> {
    other: Box<dyn Agent<G>>,
    by_players: Vec<(usize, Box<dyn Agent<G>>)>,
    /// The index in `by_players` of the agent of the last decision (`None`:
    /// `other`'s, or no decision yet).
    last: Option<usize>,
}

impl<G: Game> ByPlayers<G> {
    /// `by_players`' agent at each count it names (the first, if a count
    /// is named twice), `other` at the rest.
    pub fn new(other: Box<dyn Agent<G>>, by_players: Vec<(usize, Box<dyn Agent<G>>)>) -> Self {
        ByPlayers { other, by_players, last: None }
    }

    /// The player counts with an agent of their own.
    pub fn counts(&self) -> impl Iterator<Item = usize> + '_ {
        self.by_players.iter().map(|&(n, _)| n)
    }
}

impl<G: Game> std::fmt::Debug for ByPlayers<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let counts: Vec<usize> = self.counts().collect();
        f.debug_struct("ByPlayers").field("other", &self.other.name()).field("counts", &counts).finish_non_exhaustive()
    }
}

impl<G: Game> Agent<G> for ByPlayers<G> {
    fn name(&self) -> String {
        self.other.name()
    }
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        let n = state.num_players();
        self.last = self.by_players.iter().position(|&(count, _)| count == n);
        match self.last.and_then(|i| self.by_players.get_mut(i)) {
            Some((_, agent)) => agent.act(state, seat, rng),
            None => self.other.act(state, seat, rng),
        }
    }
    fn reset(&mut self) {
        self.other.reset();
        for (_, agent) in &mut self.by_players {
            agent.reset();
        }
    }
    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        match self.last.and_then(|i| self.by_players.get(i)) {
            Some((_, agent)) => agent.policy(out),
            None => self.other.policy(out),
        }
    }
}

/// Plays a uniformly random legal action. Allocation-free.
#[derive(Clone, Debug, Default)]
pub struct RandomAgent;

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn act(&mut self, state: &G, _seat: usize, rng: &mut GameRng) -> G::Action {
        match state.random_legal_action(rng) {
            Some(a) => a,
            // nothing legal (not a player's turn): whatever the list holds
            None => {
                let mut list = G::ActionList::default();
                state.legal_actions(&mut list);
                list[0]
            }
        }
    }
}

/// A boxed agent is an agent: every method, the provided ones included, is
/// forwarded, so an agent's own `reset` and `policy` are kept.
impl<G: Game, A: Agent<G> + ?Sized> Agent<G> for Box<A> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        (**self).act(state, seat, rng)
    }
    fn reset(&mut self) {
        (**self).reset()
    }
    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        (**self).policy(out)
    }
}

/// A borrowed agent is an agent: every method, the provided ones included,
/// is forwarded to the agent borrowed.
impl<G: Game, A: Agent<G> + ?Sized> Agent<G> for &mut A {
    fn name(&self) -> String {
        (**self).name()
    }
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        (**self).act(state, seat, rng)
    }
    fn reset(&mut self) {
        (**self).reset()
    }
    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        (**self).policy(out)
    }
}

/// Plays uniformly random legal actions (chance by its probabilities) from
/// `state` until the game ends or `max_steps` actions were played; returns the
/// number of actions played. Allocation-free: the fast loop for benchmarks
/// and Monte-Carlo search.
pub fn playout<G: Game>(state: &mut G, rng: &mut GameRng, max_steps: usize) -> usize {
    let mut steps = 0;
    while steps < max_steps {
        let Some(action) = random_action(state, rng) else { break };
        state.apply_unchecked(action);
        steps += 1;
    }
    steps
}

/// One step of uniformly random play: at a player's turn a uniformly random
/// legal action, at a chance node an outcome drawn by its exact weights;
/// `None` at the end of the game (or where nothing is listed). Through
/// [`Game::random_legal_action`] and [`Game::sample_chance_outcome`], so an
/// engine's fast draws serve it; never allocates.
pub fn random_action<G: Game>(state: &G, rng: &mut GameRng) -> Option<G::Action> {
    match state.turn() {
        Turn::Terminal => None,
        Turn::Chance => state.sample_chance_outcome(rng),
        Turn::Player(_) => state.random_legal_action(rng),
    }
}

/// Counts the action sequences of exactly `depth` actions from `state`
/// (chance outcomes are branches like decisions, each counted once whatever
/// its probability). `perft(s, 0) == 1`; a terminal state has no sequences of
/// positive length. The move-generation truth test: compare with counts
/// computed by hand or by another implementation.
///
/// ```
/// use boardgame_kit::{perft, Game, testgame::HiddenNim};
/// let s = HiddenNim::new_game(&Default::default()).unwrap();
/// assert_eq!(perft(&s, 2), 6); // 3 cards for seat 0, then 2 for seat 1
/// ```
pub fn perft<G: Game>(state: &G, depth: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = G::ActionList::default();
    state.legal_actions(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|&a| {
            let mut child = state.clone();
            child.apply_unchecked(a);
            perft(&child, depth - 1)
        })
        .sum()
}

/// The number of legal actions, as a convenience over [`Game::legal_actions`].
pub fn count_legal<G: Game>(state: &G) -> usize {
    let mut list = G::ActionList::default();
    state.legal_actions(&mut list);
    list.len()
}
