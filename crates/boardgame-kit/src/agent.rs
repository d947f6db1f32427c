//! Agents and the game driver: [`Agent`], [`RandomAgent`], [`play_game`],
//! [`playout`], [`perft`].

use crate::{Driver, Game, GameRecord, GameRng, Turn, sample_chance};

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
        let mut list = G::ActionList::default();
        state.legal_actions(&mut list);
        list[rng.index(list.len())]
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

/// Why [`play_game`] could not finish a game.
#[derive(Debug, thiserror::Error)]
pub enum PlayError<E: std::error::Error + 'static> {
    /// The configuration did not validate.
    #[error("invalid config: {0}")]
    Config(#[source] E),
    /// The number of agents differs from the number of seats.
    #[error("the game has {seats} seats but {agents} agents were given")]
    AgentCount {
        /// Seats of the game.
        seats: usize,
        /// Agents given.
        agents: usize,
    },
    /// An agent chose an illegal action.
    #[error("step {step}: agent `{agent}` (seat {seat}) chose an illegal action: {source}")]
    IllegalAgentAction {
        /// 0-based step (action index in the record).
        step: usize,
        /// The seat.
        seat: usize,
        /// The agent's name.
        agent: String,
        /// Why the action was refused.
        #[source]
        source: E,
    },
    /// The game exceeded its declared maximum length.
    #[error("the game did not end within its declared bound of {0} actions")]
    TooLong(usize),
    /// An agent was asked to act where no seat is to move.
    #[error("step {step}: no seat is to move ({turn:?})")]
    NotAPlayersTurn {
        /// 0-based step.
        step: usize,
        /// Whose turn it is instead.
        turn: Turn,
    },
}

/// A finished game: its final state and the record that replays it.
#[derive(Clone, Debug)]
pub struct PlayedGame<G: Game> {
    /// The terminal state.
    pub state: G,
    /// The record (seed, agents' names, every action id incl. chance).
    pub record: GameRecord<G::Config>,
}

/// The stream labels the driver derives from a game seed: chance draws use
/// `GameRng::new(seed).child(CHANCE_STREAM)`, seat `s` uses
/// `child(AGENT_STREAM_BASE + s)`.
pub const CHANCE_STREAM: u32 = 0;
/// See [`CHANCE_STREAM`].
pub const AGENT_STREAM_BASE: u32 = 1;

/// Plays one game of `config` from `seed` with one agent per seat (in seat
/// order), resolving chance nodes from the seed's chance stream. Every
/// action is validated; the record replays to the final state.
///
/// # Errors
/// [`PlayError`] when the config is invalid, the agent count is wrong, an
/// agent plays an illegal action or the game exceeds its declared bound.
///
/// ```
/// use boardgame_kit::{play_game, Agent, RandomAgent, testgame::HiddenNim};
/// let mut a = RandomAgent;
/// let mut b = RandomAgent;
/// let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut a, &mut b];
/// let game = play_game::<HiddenNim>(&Default::default(), &mut agents, 7).unwrap();
/// let again = game.record.replay::<HiddenNim>().unwrap();
/// assert_eq!(again, game.state);
/// ```
pub fn play_game<G: Game>(
    config: &G::Config,
    agents: &mut [&mut dyn Agent<G>],
    seed: u64,
) -> Result<PlayedGame<G>, PlayError<G::Error>> {
    let mut driver = Driver::new(config, seed).map_err(PlayError::Config)?;
    drive(&mut driver, agents)?;
    driver.set_agent_names(agents.iter().map(|a| a.name()).collect());
    let state = driver.state().clone();
    let record = driver.into_record().unwrap_or_else(|| GameRecord::new::<G>(config.clone(), Some(seed)));
    Ok(PlayedGame { state, record })
}

/// Plays `state` to the end with `agents` and the streams of `seed` (as
/// [`play_game`] does), without recording: allocation-free apart from what
/// agents do. Returns the number of actions played, chance included.
///
/// # Errors
/// As [`play_game`].
pub fn play_from<G: Game>(
    state: &mut G,
    agents: &mut [&mut dyn Agent<G>],
    seed: u64,
) -> Result<usize, PlayError<G::Error>> {
    let mut driver = Driver::from_state(state.clone(), seed);
    let result = drive(&mut driver, agents);
    let steps = driver.steps();
    *state = driver.into_state();
    result.map(|()| steps)
}

/// Resets the agents and steps `driver` to the end of the game.
fn drive<G: Game>(driver: &mut Driver<G>, agents: &mut [&mut dyn Agent<G>]) -> Result<(), PlayError<G::Error>> {
    let seats = driver.state().num_players();
    if agents.len() != seats {
        return Err(PlayError::AgentCount { seats, agents: agents.len() });
    }
    for a in agents.iter_mut() {
        a.reset();
    }
    while driver.step(agents)?.is_some() {}
    Ok(())
}

/// Plays uniformly random legal actions (chance by its probabilities) from
/// `state` until the game ends or `max_steps` actions were played; returns the
/// number of actions played. Allocation-free: the fast loop for benchmarks
/// and Monte-Carlo search.
pub fn playout<G: Game>(state: &mut G, rng: &mut GameRng, max_steps: usize) -> usize {
    let mut list = G::ActionList::default();
    let mut chances = G::ChanceList::default();
    let mut steps = 0;
    while steps < max_steps {
        let Some(action) = random_action(state, rng, &mut list, &mut chances) else { break };
        state.apply_unchecked(action);
        steps += 1;
    }
    steps
}

/// One step of uniformly random play: at a player's turn a uniformly random
/// legal action, at a chance node an outcome drawn by its exact weights;
/// `None` at the end of the game (or where nothing is listed). Uses the
/// caller's buffers, so it never allocates.
pub fn random_action<G: Game>(
    state: &G,
    rng: &mut GameRng,
    list: &mut G::ActionList,
    chances: &mut G::ChanceList,
) -> Option<G::Action> {
    match state.turn() {
        Turn::Terminal => None,
        Turn::Chance => sample_chance(state, rng, chances),
        Turn::Player(_) => {
            state.legal_actions(list);
            list.get(rng.index(list.len())).copied()
        }
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
