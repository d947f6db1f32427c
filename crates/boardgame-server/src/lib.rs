//! # boardgame-server
//!
//! The web table of the workspace: an HTTP server (axum + tokio) that seats
//! several humans and bots at one table and shows every seat only what that
//! seat may know. It is generic over [`boardgame_kit::Game`]: an engine that
//! implements the kit's contract (and [`Bots`] for its named agents) gets the
//! table, the JSON API, live updates, persistence and the replay viewer by
//! registering with [`ServerBuilder::game`]. No rule of any game is written
//! here: legality, observations and what a seat learns of an action
//! ([`Game::view_action`](boardgame_kit::Game)) all come from the engine.
//!
//! ```no_run
//! use boardgame_kit::{Agent, AgentSpec, AgentSpecError, Game, RandomAgent};
//! use boardgame_server::{Server, ServerConfig};
//! use korovan_core::Korovan;
//!
//! // Bot seats by name; an engine with the kit's `Bots` registers with
//! // `.game::<G>()` instead.
//! fn bots(spec: &AgentSpec) -> Result<Box<dyn Agent<Korovan>>, AgentSpecError> {
//!     match spec {
//!         AgentSpec::Random => Ok(Box::new(RandomAgent)),
//!         _ => Err(AgentSpecError::NotForEngine { agent: spec.to_string(), engine: Korovan::NAME }),
//!     }
//! }
//!
//! # async fn run() -> Result<(), boardgame_server::ServerError> {
//! let server = Server::builder(ServerConfig::default()).game_with_agents::<Korovan>(bots).build().await?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! println!("http://{}/", listener.local_addr()?);
//! server.serve(listener, std::future::pending()).await?;
//! # Ok(()) }
//! ```
//!
//! The API, the limits and the persistence format are documented in
//! `docs/serve.md`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::unreachable)
)]

mod api;
mod assets;
mod engine;
mod store;
mod table;
mod token;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use boardgame_kit::{Agent, AgentSpec, AgentSpecError, Bots, Game};
use serde::Serialize;

/// An engine the server can seat: the kit's [`Game`] with an observation
/// that serializes (the views are JSON). Implemented for every such engine.
pub trait ServedGame: Game<Observation: Serialize> {}
impl<G: Game<Observation: Serialize>> ServedGame for G {}

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

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Reading the data directory or binding the socket failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Two engines were registered under the same name.
    #[error("two engines are named `{0}`")]
    DuplicateGame(String),
}

/// Collects the engines to serve, then starts the server.
pub struct ServerBuilder {
    config: ServerConfig,
    engines: Vec<Arc<dyn engine::Engine>>,
}

impl ServerBuilder {
    /// Serves engine `G` under its name ([`Game::NAME`]), its bot seats
    /// built by the kit's [`AgentSpec::build`] (the engine's [`Bots`]).
    #[must_use]
    pub fn game<G: ServedGame + Bots>(self) -> Self {
        self.game_with_agents::<G>(|spec| spec.build::<G>())
    }

    /// Serves engine `G` with bot seats built by `agents` (for an engine
    /// without [`Bots`], or to offer agents of one's own).
    #[must_use]
    pub fn game_with_agents<G: ServedGame>(mut self, agents: AgentFactory<G>) -> Self {
        self.engines.push(Arc::new(engine::EngineOf::<G>::new(agents)));
        self
    }

    /// Builds the server; with a data directory, resumes every table kept
    /// there (unfinished tables go on, bots included). Must run inside a
    /// tokio runtime (the tables' bot tasks are spawned on it).
    ///
    /// # Errors
    /// When the data directory cannot be created or read, or two engines
    /// share a name. A table file that cannot be read is skipped with a
    /// message on stderr, not an error.
    pub async fn build(self) -> Result<Server, ServerError> {
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w.first() == w.get(1)) {
            return Err(ServerError::DuplicateGame(w.first().copied().unwrap_or_default().to_string()));
        }
        let app = api::App::new(self.config, self.engines)?;
        app.resume_all().await?;
        Ok(Server { app })
    }

    /// Runs the server on `addr` until Ctrl-C (or SIGTERM), on a runtime of
    /// its own: builds it, binds, calls `ready` with the address bound (port
    /// 0 picks a free one), serves. For binaries that have no runtime.
    ///
    /// # Errors
    /// As [`ServerBuilder::build`], and when the address cannot be bound.
    pub fn run(self, addr: SocketAddr, ready: impl FnOnce(SocketAddr)) -> Result<(), ServerError> {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        runtime.block_on(async move {
            let server = self.build().await?;
            let listener = tokio::net::TcpListener::bind(addr).await?;
            ready(listener.local_addr()?);
            server.serve(listener, shutdown_signal()).await?;
            Ok(())
        })
    }
}

/// Completes on Ctrl-C or, on Unix, SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

/// A running set of tables and its HTTP router.
pub struct Server {
    app: Arc<api::App>,
}

impl Server {
    /// A builder with `config` and no engine yet.
    pub fn builder(config: ServerConfig) -> ServerBuilder {
        ServerBuilder { config, engines: Vec::new() }
    }

    /// The HTTP router (API and page), for embedding in another axum app.
    pub fn router(&self) -> axum::Router {
        api::router(self.app.clone())
    }

    /// The number of tables alive.
    pub fn table_count(&self) -> usize {
        self.app.table_count()
    }

    /// Serves on `listener` until `shutdown` completes, expiring idle tables
    /// in the background; then stops every table's bots.
    ///
    /// # Errors
    /// When the listener fails.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let sweeper = tokio::spawn(api::sweep(self.app.clone()));
        let app = self.app.clone();
        let signal = async move {
            shutdown.await;
            app.stop_streams();
        };
        let result = axum::serve(listener, self.router()).with_graceful_shutdown(signal).await;
        sweeper.abort();
        self.app.close_all();
        result
    }
}
