//! The strength of the lobby's bots: the committed ladder of the agents the
//! web table's lobby offers, at every player count of each game
//! (`ladder/lobby.json` in this crate, made by `scripts/lobby-ladder.sh`;
//! the tables in docs/bots.md). `boardgame serve` labels the lobby's agents
//! from it, and `play` and `--help` name the strongest agent of each game.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use boardgame_sim::ladder::{self, LadderResults};

use crate::games::GameName;

/// The committed lobby ladder: a JSON array with one ladder per game.
const LOBBY_LADDER: &str = include_str!("../ladder/lobby.json");

/// The committed ladders, one per game (read once).
///
/// # Errors
/// When the committed file does not read as ladders (a test checks that
/// it does).
pub fn lobby_ladders() -> Result<&'static [LadderResults], String> {
    static LADDERS: OnceLock<Result<Vec<LadderResults>, String>> = OnceLock::new();
    let read = || {
        let values: Vec<serde_json::Value> =
            serde_json::from_str(LOBBY_LADDER).map_err(|e| format!("the lobby ladder is not a JSON array: {e}"))?;
        values.iter().map(|v| ladder::parse(&v.to_string())).collect()
    };
    LADDERS.get_or_init(read).as_deref().map_err(Clone::clone)
}

/// The labelled agents of `game` by player count, strongest first (none
/// when the committed ladder does not rate the game).
pub fn lobby_labels(game: GameName) -> BTreeMap<usize, Vec<(String, &'static str)>> {
    let ladders = lobby_ladders().unwrap_or_default();
    let Some(r) = ladders.iter().find(|r| r.engine == game.cli_name()) else {
        return BTreeMap::new();
    };
    r.counts.iter().map(|c| (c.players, ladder::labels(c))).collect()
}

/// The strongest agent of `game` at each player count the ladder rates.
pub fn strongest(game: GameName) -> Vec<(usize, String)> {
    lobby_labels(game).into_iter().filter_map(|(n, list)| list.into_iter().next().map(|(a, _)| (n, a))).collect()
}

/// One line per game naming its strongest agent at each player count (for
/// `boardgame --help`).
pub fn strongest_text() -> String {
    GameName::ALL
        .iter()
        .map(|&g| {
            let list: Vec<String> = strongest(g).into_iter().map(|(n, a)| format!("{n}p {a}")).collect();
            format!("  {}: {}", g.cli_name(), if list.is_empty() { "not rated".into() } else { list.join(", ") })
        })
        .collect::<Vec<_>>()
        .join("\n")
}
