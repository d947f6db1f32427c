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
//! The API, the limits and the database (SQLite, its schema, backups) are
//! documented in `docs/serve.md`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::unreachable)
)]

mod api;
mod assets;
mod config;
mod engine;
mod error;
mod fds;
mod lobby;
mod net;
mod sched;
mod shared;
mod store;
mod table;
mod token;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use boardgame_kit::Bots;

pub use config::{AgentFactory, ServedGame, ServerConfig};
pub use engine::LOBBY_AGENTS;
pub use lobby::{LABELS, LobbyAgent, LobbyRatings};

/// The database file of a data directory ([`ServerConfig::data_dir`]):
/// `data_dir/tables.db`, an SQLite database (its schema is in
/// `docs/serve.md`).
pub fn database_path(data_dir: &std::path::Path) -> std::path::PathBuf {
    store::db_path(data_dir)
}

/// Deletes the rows of every expired table from the database of
/// `data_dir`; returns how many tables were purged. Live and set-aside
/// tables are not touched. It may run while a server serves the same
/// directory (SQLite's locks keep them apart).
///
/// # Errors
/// When there is no database there, it is damaged (it is refused and left
/// untouched, as at start-up), or it cannot be written.
pub fn purge_expired(data_dir: &std::path::Path) -> Result<usize, ServerError> {
    store::purge_expired(data_dir).map_err(|e| ServerError::Io(e.into()))
}

/// The record of table `id` from the database of `data_dir`, read-only,
/// up to its last action row that checks out: how a table set aside
/// (`410 set_aside`) is exported. It may run while a server serves the
/// same directory, and writes nothing.
///
/// # Errors
/// When there is no database or no such table there, or the table's own
/// row does not check out.
pub fn export_table(data_dir: &std::path::Path, id: &str) -> Result<serde_json::Value, ServerError> {
    store::export(data_dir, id).map_err(|e| ServerError::Io(e.into()))
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
    /// A limit of the [`ServerConfig`] is out of range.
    #[error("bad server config: {0}")]
    Config(String),
}

/// Collects the engines to serve, then starts the server.
pub struct ServerBuilder {
    config: ServerConfig,
    engines: Vec<Arc<dyn engine::Engine>>,
}

impl ServerBuilder {
    /// Serves engine `G` under its name ([`Game::NAME`](boardgame_kit::Game::NAME)), its bot seats
    /// built by the kit's [`AgentSpec::build`](boardgame_kit::AgentSpec::build) (the engine's [`Bots`]).
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

    /// What the lobby offers for the engine named `game` at each player
    /// count: the agents rated there, labelled by strength ([`LobbyRatings`];
    /// the `ratings` of `GET /api/games`). Counts without ratings offer the
    /// default, unlabelled list.
    ///
    /// # Errors
    /// When no engine of that name was registered before, a count is not
    /// one the engine plays, an agent is not one of its agents (or names a
    /// weights file), a label is unknown, or the ratings were given twice.
    pub fn lobby(self, game: &str, ratings: LobbyRatings) -> Result<Self, ServerError> {
        let engine = self
            .engines
            .iter()
            .find(|e| e.name() == game)
            .ok_or_else(|| ServerError::Config(format!("lobby ratings for `{game}`, which is not served")))?;
        engine.set_lobby(ratings).map_err(ServerError::Config)?;
        Ok(self)
    }

    /// Builds the server; with a data directory, resumes every table kept
    /// there (unfinished tables go on, bots included). Must run inside a
    /// tokio runtime (the tables' bot tasks are spawned on it).
    ///
    /// # Errors
    /// When the data directory cannot be created or read, its database is
    /// damaged (`PRAGMA quick_check` fails: it is refused and left
    /// untouched), two engines share a name, or a limit is out of range
    /// ([`ServerConfig::validate`]). A table whose rows do not check out or
    /// do not replay is set aside (kept, not served) with a message on
    /// stderr, not an error.
    ///
    /// On Unix it raises the process's soft limit of open files to the hard
    /// limit, and lowers `max_connections` (with a warning on stderr) when
    /// the descriptors left after a headroom (64 and an eighth of the
    /// limit) cannot hold it.
    pub async fn build(mut self) -> Result<Server, ServerError> {
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w.first() == w.get(1)) {
            return Err(ServerError::DuplicateGame(w.first().copied().unwrap_or_default().to_string()));
        }
        self.config.validate().map_err(ServerError::Config)?;
        fds::fit(&mut self.config);
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
    /// in the background; then stops every table's bots. Connections are
    /// held to the config's limits (caps, header, body and idle timeouts).
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
        let result = net::serve(listener, self.router(), self.app.config(), signal).await;
        sweeper.abort();
        self.app.close_all();
        result
    }
}

// The crate's README (its page on crates.io): its Rust snippet is compiled
// and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
