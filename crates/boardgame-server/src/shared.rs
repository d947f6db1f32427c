//! [`Shared`]: what every table shares — the settings, the data directory,
//! the pool of bot threads, the server's clock and its stop signal.

use std::sync::Arc;
use std::time::Instant;

use crate::config::ServerConfig;
use crate::sched::BotScheduler;
use crate::store::Store;

/// What every table shares: settings, the data directory, the bot pool.
pub(crate) struct Shared {
    pub(crate) config: ServerConfig,
    pub(crate) store: Option<Store>,
    /// Who thinks next: bot decisions, fair between clients.
    pub(crate) bots: Arc<BotScheduler>,
    pub(crate) started: Instant,
    /// Set when the server shuts down: event streams end.
    pub(crate) stopping: tokio::sync::watch::Sender<bool>,
}

impl Shared {
    /// Milliseconds since the server started.
    pub(crate) fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}
