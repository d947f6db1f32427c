//! What the lobby says of its bots: at each player count, the agents that
//! were rated there, each with a plain label of its strength.

use std::collections::BTreeMap;

use serde::Serialize;

/// One agent the lobby offers at one player count, and how strong it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LobbyAgent {
    /// The agent's name (an [`AgentSpec`](boardgame_kit::AgentSpec)).
    pub agent: String,
    /// A plain label of its strength at that count: `easy`, `medium`,
    /// `hard` or `strongest` (the page shows it in the reader's language).
    pub label: String,
}

/// The lobby's agents by player count, strongest first. A count that is
/// not a key offers the unlabelled default list.
pub type LobbyRatings = BTreeMap<usize, Vec<LobbyAgent>>;

/// The labels a [`LobbyAgent`] may carry.
pub const LABELS: [&str; 4] = ["easy", "medium", "hard", "strongest"];
