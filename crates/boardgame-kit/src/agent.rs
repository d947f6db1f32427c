//! Agents and allocation-free random play: [`Agent`], [`RandomAgent`],
//! [`playout`], [`random_action`], [`perft`]; positions of agents' games
//! for benchmarks and pinned tests: [`decision_positions`].

use crate::{Game, GameRng, PlayError, Turn, sample_chance};

/// A player: chooses an action for the seat whose turn it is.
///
/// An agent is handed the full state for convenience but must only use what
/// the seat may know: [`Game::observation`] and [`Game::determinize`] for
/// that seat. All its randomness comes from the `rng` it is given (the
/// driver gives each seat its own stream), so the same seed gives the same
/// game.
pub trait Agent<G: Game>: Send {
    /// A short name for tables and records (`"random"`, `"ismcts:1000"`).
    fn name(&self) -> String;

    /// Chooses a legal action for `seat`, which is to move in `state`.
    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action;

    /// Called before each new game; agents with memory reset it here.
    fn reset(&mut self) {}
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

/// Plays on from `state` with one agent per seat (in seat order), every draw
/// (chance by its weights, as [`sample_chance`], and the agents') from the
/// one `rng`, and returns every `every`-th decision position met (the first
/// included; `every` 0 counts as 1) with the seat to move there, at most
/// `most` of them. Stops at the end of the game or when `most` are found.
///
/// The positions depend on the engine, the agents and the seed alone: the
/// fixed, realistic positions a search benchmark or a pinned search test
/// wants (random walks give crowded, unnatural ones).
///
/// # Errors
/// [`PlayError::AgentCount`] when `agents` does not match the seats;
/// [`PlayError::IllegalAgentAction`] (its step counted from `state`) when an
/// agent chooses an illegal action; [`PlayError::TooLong`] when the game
/// outlasts [`Game::max_game_length`] or a chance node lists no outcome.
///
/// ```
/// use boardgame_kit::{decision_positions, Agent, Game, GameRng, RandomAgent, Turn, testgame::HiddenNim};
/// let start = HiddenNim::new_game(&Default::default()).unwrap();
/// let (mut a, mut b) = (RandomAgent, RandomAgent);
/// let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut a, &mut b];
/// let positions = decision_positions(start, &mut agents, &mut GameRng::new(5), 2, 3).unwrap();
/// assert!(!positions.is_empty() && positions.len() <= 3);
/// for (state, seat) in &positions {
///     assert_eq!(state.turn(), Turn::Player(*seat));
/// }
/// ```
pub fn decision_positions<G: Game>(
    mut state: G,
    agents: &mut [&mut dyn Agent<G>],
    rng: &mut GameRng,
    every: usize,
    most: usize,
) -> Result<Vec<(G, usize)>, PlayError<G::Error>> {
    let seats = state.num_players();
    if agents.len() != seats {
        return Err(PlayError::AgentCount { seats, agents: agents.len() });
    }
    let bound = G::max_game_length(state.config());
    let every = every.max(1);
    let mut chances = G::ChanceList::default();
    let mut out = Vec::new();
    let mut decisions = 0usize;
    let mut step = 0usize;
    while out.len() < most {
        let turn = state.turn();
        if turn == Turn::Terminal {
            break;
        }
        if step >= bound {
            return Err(PlayError::TooLong(bound));
        }
        let action = match turn {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&state, rng, &mut chances).ok_or(PlayError::TooLong(bound))?,
            Turn::Player(seat) => {
                if decisions.is_multiple_of(every) {
                    out.push((state.clone(), seat));
                    if out.len() == most {
                        break;
                    }
                }
                decisions += 1;
                let agent = &mut agents[seat];
                let action = agent.act(&state, seat, rng);
                if let Err(source) = state.validate(action) {
                    return Err(PlayError::IllegalAgentAction { step, seat, agent: agent.name(), source });
                }
                action
            }
        };
        state.apply_unchecked(action);
        step += 1;
    }
    Ok(out)
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
