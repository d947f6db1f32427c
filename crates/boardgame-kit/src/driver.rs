//! [`Driver`]: the one stepping loop of the kit. It owns a game, the random
//! streams of its seed (chance and one per seat, by the kit's convention) and
//! the record of every action, and advances the game one action at a time:
//! a chance draw, an agent's decision, or an action from outside (a person).
//! [`crate::play_game`], the arena, the binary's `play` and `perft` and any
//! server are built on it, so they all play the same game from the same seed.
//! [`decision_positions`] is the one loop beside it: one stream for every
//! draw (as [`crate::playout`]), for the fixed positions benchmarks and
//! pinned search tests take from agents' games.

use crate::{Agent, Game, GameRecord, GameRng, RecordError, Turn, sample_chance};

/// Seats that get their own agent stream (the kit's seat limit, as [`crate::Seats`]).
const MAX_SEATS: usize = 16;

/// A game in progress with the random streams of its seed: chance draws come
/// from `GameRng::new(seed).child(CHANCE_STREAM)`, seat `s`'s agent draws from
/// `child(AGENT_STREAM_BASE + s)`. Every action is validated; with a record
/// (the default) every action id is appended to it.
///
/// ```
/// use boardgame_kit::{Driver, Game, RandomAgent, Turn, testgame::HiddenNim};
///
/// let mut driver = Driver::<HiddenNim>::new(&Default::default(), 7).unwrap();
/// while driver.turn() != Turn::Terminal {
///     match driver.turn() {
///         Turn::Chance => {
///             driver.step_chance().unwrap();
///         }
///         _ => {
///             driver.step_agent(&mut RandomAgent).unwrap();
///         }
///     }
/// }
/// let record = driver.record().unwrap();
/// assert_eq!(record.replay::<HiddenNim>().unwrap(), *driver.state());
/// ```
#[derive(Clone, Debug)]
pub struct Driver<G: Game> {
    state: G,
    chance: GameRng,
    seats: SeatStreams,
    chances: G::ChanceList,
    record: Option<GameRecord<G::Config>>,
    steps: usize,
    bound: usize,
}

impl<G: Game> Driver<G> {
    /// A new game of `config` played from `seed`, recorded.
    ///
    /// # Errors
    /// The engine's error when `config` is invalid.
    pub fn new(config: &G::Config, seed: u64) -> Result<Self, G::Error> {
        let state = G::new_game(config)?;
        let mut driver = Driver::from_state(state, seed);
        let mut record = GameRecord::new::<G>(config.clone(), Some(seed));
        record.actions.reserve(G::max_game_length(config).min(4096));
        driver.record = Some(record);
        Ok(driver)
    }

    /// Drives `state` (any position) with the streams of `seed`, without a
    /// record (a record starts at the initial state). Allocation-free.
    pub fn from_state(state: G, seed: u64) -> Self {
        let root = GameRng::new(seed);
        let chance = root.child(CHANCE_STREAM);
        let bound = G::max_game_length(state.config());
        Driver {
            state,
            chance,
            seats: SeatStreams::from_root(root),
            chances: G::ChanceList::default(),
            record: None,
            steps: 0,
            bound,
        }
    }

    /// Resumes the game of `record`: replays its actions (validating each)
    /// from its seed (0 when the record has none), drawing the chance stream
    /// once for every chance node it passes, so that the chance draws to come
    /// are those an uninterrupted game would make. The seats' agent streams
    /// start afresh (agents' draws are not recorded).
    ///
    /// # Errors
    /// As [`GameRecord::replay`]: wrong engine or versions, an invalid
    /// config, an unknown or illegal action naming its step.
    pub fn from_record(record: &GameRecord<G::Config>) -> Result<Self, RecordError> {
        let seed = record.seed.unwrap_or(0);
        let mut chance = GameRng::new(seed).child(CHANCE_STREAM);
        let mut chances = G::ChanceList::default();
        let state = record.replay_steps::<G>(
            |state| {
                if state.turn() == Turn::Chance {
                    sample_chance(state, &mut chance, &mut chances);
                }
            },
            |_, _, _| {},
        )?;
        let mut driver = Driver::from_state(state, seed);
        driver.chance = chance;
        driver.steps = record.actions.len();
        driver.record = Some(record.clone());
        Ok(driver)
    }

    /// The game.
    pub fn state(&self) -> &G {
        &self.state
    }

    /// The game, taken out of the driver.
    pub fn into_state(self) -> G {
        self.state
    }

    /// Whose decision the game waits for.
    pub fn turn(&self) -> Turn {
        self.state.turn()
    }

    /// The record so far (seed, config, every action id), if the driver
    /// keeps one ([`Driver::new`], [`Driver::from_record`]).
    pub fn record(&self) -> Option<&GameRecord<G::Config>> {
        self.record.as_ref()
    }

    /// The record, taken out of the driver.
    pub fn into_record(self) -> Option<GameRecord<G::Config>> {
        self.record
    }

    /// Names the agents in the record (seat order).
    pub fn set_agent_names(&mut self, names: Vec<String>) {
        if let Some(r) = &mut self.record {
            r.agents = names;
        }
    }

    /// Actions played through this driver.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Seat `seat`'s agent stream (derived on first use). Seats from 16 on
    /// share seat 15's stream.
    pub fn seat_rng(&mut self, seat: usize) -> &mut GameRng {
        self.seats.seat(seat)
    }

    /// Resolves one chance node by the chance stream and returns the
    /// outcome played; `None` (nothing played) unless the game is at a
    /// chance node.
    pub fn step_chance(&mut self) -> Option<G::Action> {
        if self.state.turn() != Turn::Chance {
            return None;
        }
        let action = sample_chance(&self.state, &mut self.chance, &mut self.chances)?;
        self.play(action);
        Some(action)
    }

    /// Lets `agent` choose for the seat to move, with that seat's stream,
    /// validates the choice and plays it.
    ///
    /// # Errors
    /// [`PlayError::IllegalAgentAction`] (nothing played) when the agent's
    /// choice is illegal or it is no seat's turn; [`PlayError::TooLong`] when
    /// the game already has its declared maximum length.
    pub fn step_agent(&mut self, agent: &mut dyn Agent<G>) -> Result<G::Action, PlayError<G::Error>> {
        let Turn::Player(seat) = self.state.turn() else {
            return Err(PlayError::NotAPlayersTurn { step: self.steps, turn: self.state.turn() });
        };
        let action = agent.act(&self.state, seat, self.seats.seat(seat));
        if let Err(source) = self.state.validate(action) {
            return Err(PlayError::IllegalAgentAction { step: self.steps, seat, agent: agent.name(), source });
        }
        if self.steps >= self.bound {
            return Err(PlayError::TooLong(self.bound));
        }
        self.play(action);
        Ok(action)
    }

    /// Plays one action whoever is to move: a chance draw at a chance node,
    /// else the choice of `agents[seat]` for the seat to move. `Ok(None)` at
    /// the end of the game.
    ///
    /// # Errors
    /// As [`Driver::step_agent`]; [`PlayError::AgentCount`] when `agents`
    /// has no agent for the seat to move; [`PlayError::TooLong`] when a
    /// chance node lists no outcome or the game is too long.
    pub fn step(&mut self, agents: &mut [&mut dyn Agent<G>]) -> Result<Option<G::Action>, PlayError<G::Error>> {
        match self.state.turn() {
            Turn::Terminal => Ok(None),
            Turn::Chance => {
                if self.steps >= self.bound {
                    return Err(PlayError::TooLong(self.bound));
                }
                self.step_chance().map(Some).ok_or(PlayError::TooLong(self.bound))
            }
            Turn::Player(seat) => {
                let seats = self.state.num_players();
                match agents.get_mut(seat) {
                    Some(agent) => self.step_agent(&mut **agent).map(Some),
                    None => Err(PlayError::AgentCount { seats, agents: agents.len() }),
                }
            }
        }
    }

    /// Applies `action` from outside (a person, a network peer), validated:
    /// on error nothing changes.
    ///
    /// # Errors
    /// The engine's error when the action is illegal now.
    pub fn apply(&mut self, action: G::Action) -> Result<(), G::Error> {
        self.state.validate(action)?;
        self.play(action);
        Ok(())
    }

    fn play(&mut self, action: G::Action) {
        if let Some(r) = &mut self.record {
            r.actions.push(G::action_id(self.state.config(), action));
        }
        self.state.apply_unchecked(action);
        self.steps += 1;
    }
}

/// The agent streams of one game seed, by the kit's convention: seat `s`
/// draws from `GameRng::new(seed).child(AGENT_STREAM_BASE + s)`, each
/// stream derived on first use (seats from 16 on share seat 15's). The
/// [`Driver`], the Python binding's agents and the learner batch of
/// `boardgame-sim` all take their agents' draws from it, so an agent seeded
/// with a game's seed plays the moves it plays in the driver's game.
///
/// ```
/// use boardgame_kit::{AGENT_STREAM_BASE, GameRng, SeatStreams};
/// let mut streams = SeatStreams::new(7);
/// let mut direct = GameRng::new(7).child(AGENT_STREAM_BASE + 2);
/// assert_eq!(streams.seat(2).next_u64(), direct.next_u64());
/// ```
#[derive(Clone, Debug)]
pub struct SeatStreams {
    root: GameRng,
    seats: [Option<GameRng>; MAX_SEATS],
}

impl SeatStreams {
    /// The streams of game seed `seed`.
    pub fn new(seed: u64) -> Self {
        SeatStreams::from_root(GameRng::new(seed))
    }

    /// The streams below `root` (a game seed's generator).
    pub fn from_root(root: GameRng) -> Self {
        SeatStreams { root, seats: Default::default() }
    }

    /// Seat `seat`'s stream, derived on first use.
    pub fn seat(&mut self, seat: usize) -> &mut GameRng {
        let seat = seat.min(MAX_SEATS - 1);
        let root = &self.root;
        self.seats[seat].get_or_insert_with(|| root.child(AGENT_STREAM_BASE + seat as u32))
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

/// [`play_game`] for agents held in boxes, as [`AgentSpec::build`] and
/// [`Bots`] give them: one agent per seat (in seat order), the same game from
/// the same seed as [`play_game`].
///
/// # Errors
/// As [`play_game`].
///
/// ```
/// use boardgame_kit::{AgentSpec, Game, play_boxed, testgame::HiddenNim};
///
/// let mut agents = vec![
///     "ismcts:50".parse::<AgentSpec>().unwrap().build::<HiddenNim>().unwrap(),
///     "random".parse::<AgentSpec>().unwrap().build::<HiddenNim>().unwrap(),
/// ];
/// let game = play_boxed::<HiddenNim>(&Default::default(), &mut agents, 7).unwrap();
/// println!("{}", game.state.outcome().unwrap()); // "seat 0 wins" or "seat 1 wins"
/// assert_eq!(game.record.agents, ["ismcts:50", "random"]);
/// ```
///
/// [`AgentSpec::build`]: crate::AgentSpec::build
/// [`Bots`]: crate::Bots
pub fn play_boxed<G: Game>(
    config: &G::Config,
    agents: &mut [Box<dyn Agent<G>>],
    seed: u64,
) -> Result<PlayedGame<G>, PlayError<G::Error>> {
    let mut refs: Vec<&mut dyn Agent<G>> = agents.iter_mut().map(|agent| &mut **agent as &mut dyn Agent<G>).collect();
    play_game(config, &mut refs, seed)
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
                let Some(agent) = agents.get_mut(seat) else {
                    return Err(PlayError::AgentCount { seats, agents: agents.len() });
                };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgame::HiddenNim;
    use crate::{IsMctsAgent, RandomAgent};

    /// Boxed agents play the very game that borrowed ones play from the seed.
    #[test]
    fn play_boxed_is_play_game() {
        let config = Default::default();
        for seed in 0..8 {
            let mut boxed: Vec<Box<dyn Agent<HiddenNim>>> =
                vec![Box::new(IsMctsAgent::<HiddenNim>::with_iterations(30)), Box::new(RandomAgent)];
            let a = play_boxed::<HiddenNim>(&config, &mut boxed, seed).expect("a valid game");
            let (mut search, mut random) = (IsMctsAgent::<HiddenNim>::with_iterations(30), RandomAgent);
            let b = play_game::<HiddenNim>(&config, &mut [&mut search, &mut random], seed).expect("a valid game");
            assert_eq!(a.state, b.state);
            assert_eq!(a.record.actions, b.record.actions);
            assert_eq!(a.record.agents, b.record.agents);
        }
    }

    /// Too few boxed agents is an error, not a panic.
    #[test]
    fn play_boxed_counts_the_agents() {
        let mut one: Vec<Box<dyn Agent<HiddenNim>>> = vec![Box::new(RandomAgent)];
        let error = play_boxed::<HiddenNim>(&Default::default(), &mut one, 1).expect_err("two seats, one agent");
        assert!(matches!(error, PlayError::AgentCount { .. }), "{error}");
    }
}
