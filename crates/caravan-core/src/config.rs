//! [`CaravanConfig`]: players, camels, the guard and variants, and the
//! [`Board`] layout — their defaults (C-1.1, C-1.2, C-2.1, C-2.2, C-7.2),
//! their validation (C-1.1, C-1.2, C-2.4, C-11.1) and [`ConfigError`].
//!
//! Every config struct refuses unknown fields when deserialized, so a
//! misspelt key is an error that names it rather than a silent default.

use serde::{Deserialize, Serialize};

use crate::board::{KINDS, Kind, SIDE, SPACES, SQUARES, Square};

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
#[serde(default, deny_unknown_fields)]
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

    /// Checks the configuration against C-1.1, C-1.2, C-2.4 and C-11.1
    /// (`max_turns`, the guard of C-7.2, in `1..=`[`MAX_TURNS_LIMIT`]).
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

/// A configuration that breaks the rules (C-1, C-2.4, C-7.2).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// C-1.1: 2 to 4 players.
    #[error("players must be between 2 and 4, got {0}")]
    Players(u8),
    /// C-1.2: 5 camels per player, or 6 in the introductory game.
    #[error("camels per player must be 5 or 6 (introductory game), got {0}")]
    Camels(u8),
    /// C-7.2: the turn limit must allow at least one turn.
    #[error("max_turns must be between 1 and {max}, got {found}")]
    MaxTurns {
        /// The configured value.
        found: u32,
        /// The largest accepted value.
        max: u32,
    },
    /// C-2.4: a city or numbered space off the 7×7 grid.
    #[error("{what} is at square index {index}, off the 7x7 grid (0..49)")]
    OffGrid {
        /// Which city or space.
        what: String,
        /// Its index.
        index: u8,
    },
    /// C-2.4: two cities/spaces on one square.
    #[error("{what} overlaps another city or numbered space at {square}")]
    Overlap {
        /// Which city or space.
        what: String,
        /// The square.
        square: String,
    },
}

/// The board layout (C-2.4): which square is the city of each kind and which
/// squares are the numbered spaces `1..=8`.
///
/// ```
/// use caravan_core::{Board, Kind, Square};
/// let board = Board::default();
/// assert_eq!(board.city(Kind::R1), Square::new(0, 3).unwrap());
/// assert_eq!(board.space(3), Some(Square::new(1, 4).unwrap()));
/// assert!(board.validate().is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// `cities[k]` is the square index (`row * 7 + col`) of the city that
    /// wants kind `k` (C-2.1).
    pub cities: [u8; KINDS],
    /// `spaces[i]` is the square index of numbered space `i + 1` (C-2.2).
    pub spaces: [u8; SPACES],
}

const fn sq(row: u8, col: u8) -> u8 {
    row * SIDE as u8 + col
}

impl Default for Board {
    /// The default layout of C-2.1/C-2.2.
    fn default() -> Self {
        Board {
            // C-2.1: rare kinds at the edge cities, common at the central ones.
            cities: [sq(0, 3), sq(3, 6), sq(6, 3), sq(3, 0), sq(2, 3), sq(3, 4), sq(4, 3), sq(3, 2)],
            // C-2.2: numbered spaces in reading order.
            spaces: [sq(0, 0), sq(0, 6), sq(1, 4), sq(2, 1), sq(4, 5), sq(5, 2), sq(6, 0), sq(6, 6)],
        }
    }
}

impl Board {
    /// Checks the layout (C-2.4): every city and space on the grid, no two
    /// of them on the same square (one city per kind by construction).
    ///
    /// # Errors
    /// [`ConfigError::OffGrid`] or [`ConfigError::Overlap`].
    pub fn validate(&self) -> Result<(), ConfigError> {
        // item i < 8: the city of kind i; i >= 8: numbered space i - 7
        let what = |i: usize| match Kind::from_index(i as u8) {
            Some(kind) => format!("city of {kind}"),
            None => format!("numbered space {}", i - KINDS + 1),
        };
        let mut seen = 0u64;
        for (i, &s) in self.cities.iter().chain(self.spaces.iter()).enumerate() {
            if usize::from(s) >= SQUARES {
                return Err(ConfigError::OffGrid { what: what(i), index: s });
            }
            if seen & (1u64 << s) != 0 {
                return Err(ConfigError::Overlap { what: what(i), square: Square::unchecked(s).to_string() });
            }
            seen |= 1u64 << s;
        }
        Ok(())
    }

    /// The city of `kind`.
    pub fn city(&self, kind: Kind) -> Square {
        Square::unchecked(self.cities[kind as usize] % SQUARES as u8)
    }

    /// Numbered space `number` (`1..=8`), `None` for other numbers.
    pub fn space(&self, number: u8) -> Option<Square> {
        let i = usize::from(number).checked_sub(1)?;
        self.spaces.get(i).map(|&s| Square::unchecked(s % SQUARES as u8))
    }

    /// The kind whose city is `square`, if any.
    pub fn city_kind(&self, square: Square) -> Option<Kind> {
        (0..KINDS as u8).find(|&k| self.cities[usize::from(k)] == square.index()).and_then(Kind::from_index)
    }

    /// The number (`1..=8`) of the numbered space at `square`, if any.
    pub fn space_number(&self, square: Square) -> Option<u8> {
        (0..SPACES as u8).find(|&i| self.spaces[usize::from(i)] == square.index()).map(|i| i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c2_default_board_is_valid_and_symmetric() {
        // C-2.1, C-2.2, C-2.4
        let b = Board::default();
        assert!(b.validate().is_ok());
        let rot = |s: u8| {
            let (r, c) = (s / 7, s % 7);
            c * 7 + (6 - r)
        };
        let mut cities: Vec<u8> = b.cities.iter().map(|&s| rot(s)).collect();
        cities.sort();
        let mut orig = b.cities.to_vec();
        orig.sort();
        assert_eq!(cities, orig);
        let mut spaces: Vec<u8> = b.spaces.iter().map(|&s| rot(s)).collect();
        spaces.sort();
        let mut orig = b.spaces.to_vec();
        orig.sort();
        assert_eq!(spaces, orig);
        assert_eq!(b.space_number(Square::new(1, 4).unwrap()), Some(3));
        assert_eq!(b.city_kind(Square::new(3, 2).unwrap()), Some(Kind::C4));
    }

    #[test]
    fn c2_4_bad_layouts_are_config_errors() {
        let mut b = Board::default();
        b.spaces[2] = b.cities[0];
        assert!(matches!(b.validate(), Err(ConfigError::Overlap { .. })));
        let mut b = Board::default();
        b.cities[5] = 49;
        let e = b.validate().unwrap_err();
        assert!(e.to_string().contains("city of C2"), "{e}");
    }

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
    fn a_misspelt_key_is_an_error_naming_it() {
        // top level
        let e = serde_json::from_str::<CaravanConfig>(r#"{"players": 2, "max_turn": 10}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `max_turn`"), "{e}");
        // nested: the board layout
        let mut v = serde_json::to_value(CaravanConfig::default()).unwrap();
        v["board"]["citys"] = v["board"]["cities"].clone();
        let e = serde_json::from_value::<CaravanConfig>(v).unwrap_err();
        assert!(e.to_string().contains("unknown field `citys`"), "{e}");
        // the right keys still read, missing top-level ones take the default
        let c: CaravanConfig = serde_json::from_str(r#"{"players": 2, "max_turns": 10}"#).unwrap();
        assert_eq!(c, CaravanConfig { players: 2, max_turns: 10, ..CaravanConfig::default() });
        let round: CaravanConfig = serde_json::from_value(serde_json::to_value(c).unwrap()).unwrap();
        assert_eq!(round, c);
    }

    #[test]
    fn c11_1_max_turns_between_1_and_a_million() {
        for (max_turns, ok) in
            [(0, false), (1, true), (400, true), (MAX_TURNS_LIMIT, true), (MAX_TURNS_LIMIT + 1, false)]
        {
            let c = CaravanConfig { max_turns, ..CaravanConfig::default() };
            assert_eq!(c.validate().is_ok(), ok, "{max_turns}");
        }
        assert_eq!(MAX_TURNS_LIMIT, 1_000_000);
        let e = CaravanConfig { max_turns: 0, ..CaravanConfig::default() }.validate().unwrap_err();
        assert_eq!(e.to_string(), "max_turns must be between 1 and 1000000, got 0");
    }

    #[test]
    fn c7_2_max_turns_is_validated() {
        let c = CaravanConfig { max_turns: 0, ..CaravanConfig::default() };
        assert!(matches!(c.validate(), Err(ConfigError::MaxTurns { .. })));
        assert_eq!(CaravanConfig::default().max_turns, 400);
    }
}
