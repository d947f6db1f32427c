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
    /// Where tables are kept: the SQLite database `tables.db` in this
    /// folder (every change committed to disk before it is shown; see
    /// [`database_path`](crate::database_path)); `None` keeps tables in
    /// memory only (lost on restart).
    pub data_dir: Option<PathBuf>,
    /// Start even though the database lost acknowledged commits (a WAL cut,
    /// damaged or deleted), from its last intact commit; the files as they
    /// were are copied aside first (docs/serve.md, "Operating it").
    pub recover_from_last_intact_commit: bool,
    /// How long a reader of the database (a backup, an `sqlite3` shell) may
    /// keep its WAL from being copied into it before the server warns.
    pub checkpoint_warning: Duration,
    /// The most tables alive at once; creating one more is refused (503).
    pub max_tables: usize,
    /// A table without any action for this long is closed (and, with a data
    /// directory, marked expired in the database until purged:
    /// [`purge_expired`](crate::purge_expired)).
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
    /// The most actions a record sent to the replay endpoint may hold.
    pub max_replay_actions: usize,
    /// The most frames one replay answer holds; a longer game is paged
    /// (`from`, `next`).
    pub replay_page: usize,
    /// The largest replay answer (bytes of JSON); a page stops early when
    /// it would grow larger.
    pub max_replay_output: usize,
    /// How many replays may be built at once; one more is refused (503).
    pub max_replays: usize,
    /// The most connections open at once; one more is answered `503` and
    /// closed.
    pub max_connections: usize,
    /// The most connections open at once from one client address (an IPv4
    /// address, or an IPv6 /64).
    pub max_connections_per_client: usize,
    /// How long a client may take to send a request's headers (and how long
    /// a kept-alive connection may wait for its next request).
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body.
    pub body_timeout: Duration,
    /// A connection on which nothing is read or written for this long is
    /// closed.
    pub idle_connection_timeout: Duration,
    /// The most event streams (`/events`) open at once.
    pub max_event_streams: usize,
    /// The most event streams open at once from one client address.
    pub max_event_streams_per_client: usize,
    /// Tables one client address may create at once before it must wait
    /// (the burst of a token bucket).
    pub table_burst: u32,
    /// The bucket's refill: one more creation per this long.
    pub table_refill: Duration,
    /// The most live tables created by one client address.
    pub max_tables_per_client: usize,
    /// The most bot decisions of one client's tables thinking at once (of
    /// the `bot_threads`); the others wait their turn, so that slow bots of
    /// one client always leave slots to the others. By default half the
    /// number of CPUs (the default `bot_threads`), at least one; set it
    /// with `bot_threads` when changing that.
    pub max_bot_threads_per_client: usize,
    /// The thinking time one client's bots may spend per
    /// `bot_budget_window`: a bucket of this size, refilled evenly over the
    /// window; a client that spent it waits for the refill. By default 60 s
    /// per minute (a core's worth, on average).
    pub bot_budget_per_client: Duration,
    /// The time over which a client's thinking budget refills in full.
    pub bot_budget_window: Duration,
    /// How many replays one client address may have built at once; one
    /// more is refused (429), so that one client cannot hold every replay
    /// slot.
    pub max_replays_per_client: usize,
}

impl ServerConfig {
    /// Checks that the limits make sense (every count at least 1, every
    /// duration representable in milliseconds and at most a year).
    ///
    /// # Errors
    /// Names the first limit out of range.
    pub fn validate(&self) -> Result<(), String> {
        const YEAR: Duration = Duration::from_secs(366 * 24 * 3600);
        let counts = [
            ("max_tables", self.max_tables),
            ("max_body", self.max_body),
            ("max_replay_body", self.max_replay_body),
            ("bot_threads", self.bot_threads),
            ("replay_page", self.replay_page),
            ("max_replay_output", self.max_replay_output),
            ("max_replays", self.max_replays),
            ("max_connections", self.max_connections),
            ("max_connections_per_client", self.max_connections_per_client),
            ("max_event_streams", self.max_event_streams),
            ("max_event_streams_per_client", self.max_event_streams_per_client),
            ("max_tables_per_client", self.max_tables_per_client),
            ("table_burst", self.table_burst as usize),
            ("max_bot_threads_per_client", self.max_bot_threads_per_client),
            ("max_replays_per_client", self.max_replays_per_client),
        ];
        if let Some((name, _)) = counts.iter().find(|(_, v)| *v == 0) {
            return Err(format!("{name} must be at least 1"));
        }
        // Semaphores hold at most this many permits.
        let most = tokio::sync::Semaphore::MAX_PERMITS;
        if let Some((name, v)) = counts.iter().find(|(_, v)| *v > most) {
            return Err(format!("{name} = {v} is above the most this server can count ({most})"));
        }
        let durations = [
            ("idle_expiry", self.idle_expiry, Duration::from_millis(1)),
            ("bot_delay", self.bot_delay, Duration::ZERO),
            ("max_bot_time", self.max_bot_time, Duration::ZERO),
            ("header_timeout", self.header_timeout, Duration::from_millis(1)),
            ("body_timeout", self.body_timeout, Duration::from_millis(1)),
            ("idle_connection_timeout", self.idle_connection_timeout, Duration::from_millis(1)),
            ("table_refill", self.table_refill, Duration::ZERO),
            ("bot_budget_per_client", self.bot_budget_per_client, Duration::from_millis(1)),
            ("bot_budget_window", self.bot_budget_window, Duration::from_millis(1)),
        ];
        for (name, d, least) in durations {
            if d < least || d > YEAR {
                return Err(format!("{name} = {d:?} is out of range ({least:?} to one year)"));
            }
        }
        Ok(())
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        let bot_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        ServerConfig {
            data_dir: None,
            recover_from_last_intact_commit: false,
            checkpoint_warning: Duration::from_secs(60),
            max_tables: 1000,
            idle_expiry: Duration::from_secs(2 * 60 * 60),
            max_body: 16 * 1024,
            max_replay_body: 1024 * 1024,
            bot_delay: Duration::ZERO,
            bot_threads,
            max_bot_iterations: 50_000,
            max_bot_time: Duration::from_secs(5),
            max_replay_actions: 20_000,
            replay_page: 1000,
            max_replay_output: 8 * 1024 * 1024,
            max_replays: 2,
            max_connections: 1024,
            max_connections_per_client: 128,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            idle_connection_timeout: Duration::from_secs(60),
            max_event_streams: 512,
            max_event_streams_per_client: 32,
            table_burst: 20,
            table_refill: Duration::from_secs(3),
            max_tables_per_client: 50,
            max_bot_threads_per_client: (bot_threads / 2).max(1),
            bot_budget_per_client: Duration::from_secs(60),
            bot_budget_window: Duration::from_secs(60),
            max_replays_per_client: 1,
        }
    }
}
