//! [`CaravanConfig`]: players, camels, the guard and variants, the board.

use serde::{Deserialize, Serialize};

use crate::board::Board;
use crate::error::ConfigError;

/// The largest accepted `max_turns` (keeps [`boardgame_kit::Game::max_game_length`]
/// and the turn counter far from overflow).
pub const MAX_TURNS_LIMIT: u32 = 1_000_000;

/// The configuration of a Caravan game. `Default` is the rules' default:
/// 3 players, 5 camels each, `max_turns` 400, no held-goods penalty, the
/// board of C-2.
///
/// ```
/// use caravan_core::CaravanConfig;
/// let config = CaravanConfig { players: 4, ..CaravanConfig::default() };
/// assert!(config.validate().is_ok());
/// let bad = CaravanConfig { players: 5, ..CaravanConfig::default() };
/// assert_eq!(
///     bad.validate().unwrap_err().to_string(),
///     "players must be between 2 and 4, got 5"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct CaravanConfig {
    /// Number of players, 2..=4 (C-1.1).
    pub players: u8,
    /// Camels per player: 5, or 6 in the introductory game (C-1.2).
    pub camels: u8,
    /// The guard of C-7.2: the game ends after this many turns (default 400).
    pub max_turns: u32,
    /// The variant of C-7.4: goods still held at the end cost points.
    pub held_penalty: bool,
    /// The board layout (C-2.4).
    pub board: Board,
}

impl Default for CaravanConfig {
    fn default() -> Self {
        CaravanConfig { players: 3, camels: 5, max_turns: 400, held_penalty: false, board: Board::default() }
    }
}

impl CaravanConfig {
    /// The default configuration for `players` players.
    pub fn with_players(players: u8) -> Self {
        CaravanConfig { players, ..CaravanConfig::default() }
    }

    /// Checks the configuration against C-1.1, C-1.2, C-2.4 and C-7.2.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the offending value.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(2..=4).contains(&self.players) {
            return Err(ConfigError::Players(self.players));
        }
        if !(5..=6).contains(&self.camels) {
            return Err(ConfigError::Camels(self.camels));
        }
        if !(1..=MAX_TURNS_LIMIT).contains(&self.max_turns) {
            return Err(ConfigError::MaxTurns { found: self.max_turns, max: MAX_TURNS_LIMIT });
        }
        self.board.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c1_1_player_count_is_validated() {
        for p in [0, 1, 5, 9] {
            let c = CaravanConfig::with_players(p);
            assert_eq!(c.validate(), Err(ConfigError::Players(p)));
        }
        for p in 2..=4 {
            assert!(CaravanConfig::with_players(p).validate().is_ok());
        }
    }

    #[test]
    fn c1_2_camel_count_is_validated() {
        for (camels, ok) in [(4, false), (5, true), (6, true), (7, false)] {
            let c = CaravanConfig { camels, ..CaravanConfig::default() };
            assert_eq!(c.validate().is_ok(), ok, "{camels}");
        }
        let e = CaravanConfig { camels: 7, ..CaravanConfig::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("got 7"));
    }

    #[test]
    fn c7_2_max_turns_is_validated() {
        let c = CaravanConfig { max_turns: 0, ..CaravanConfig::default() };
        assert!(matches!(c.validate(), Err(ConfigError::MaxTurns { .. })));
        assert_eq!(CaravanConfig::default().max_turns, 400);
    }
}
