//! What the server is configured with: its limits ([`ServerConfig`]), the
//! engines it can seat ([`ServedGame`]) and how bot seats are built
//! ([`AgentFactory`]).

use std::path::PathBuf;
use std::time::Duration;

use boardgame_kit::{Agent, AgentSpec, AgentSpecError, Game, Words};
use serde::Serialize;

/// An engine the server can seat: the kit's [`Game`] with an observation
/// that serializes (the views are JSON) and its actions in words for
/// people ([`Words`]). Implemented for every such engine.
pub trait ServedGame: Game<Observation: Serialize> + Words {}
impl<G: Game<Observation: Serialize> + Words> ServedGame for G {}

/// Builds the agent of a bot seat from its name (`heuristic`, `ismcts:500`),
/// or says why this engine has none of that name.
pub type AgentFactory<G> = fn(&AgentSpec) -> Result<Box<dyn Agent<G>>, AgentSpecError>;

/// The server's settings and limits.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Where tables are kept (one record per table, rewritten atomically on
    /// every action); `None` keeps tables in memory only (lost on restart).
    pub data_dir: Option<PathBuf>,
    /// The most tables alive at once; creating one more is refused (503).
    pub max_tables: usize,
    /// A table without any action for this long is closed (and, with a data
    /// directory, its file moved to `expired/`).
    pub idle_expiry: Duration,
    /// The largest request body accepted on the table API (bytes).
    pub max_body: usize,
    /// The largest record accepted by the replay endpoint (bytes).
    pub max_replay_body: usize,
    /// A pause before each bot decision, so that people can follow the game.
    pub bot_delay: Duration,
    /// How many bots may think at once (each thinks on a blocking thread).
    pub bot_threads: usize,
    /// The largest iteration budget a bot seat may be given.
    pub max_bot_iterations: u64,
    /// The largest time budget per decision a bot seat may be given.
    pub max_bot_time: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            data_dir: None,
            max_tables: 1000,
            idle_expiry: Duration::from_secs(2 * 60 * 60),
            max_body: 16 * 1024,
            max_replay_body: 1024 * 1024,
            bot_delay: Duration::ZERO,
            bot_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            max_bot_iterations: 50_000,
            max_bot_time: Duration::from_secs(5),
        }
    }
}
