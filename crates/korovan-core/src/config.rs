//! [`KorovanConfig`]: players, first driver, laps, the helper deck, the
//! starting cows and the fines (K-1.1, K-1.2, K-2.1, K-5.5, K-6.3, K-7.2),
//! validated into [`ConfigError`]. Every config struct refuses unknown keys.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The six kinds of helper card (K-6), in the fixed order used by every
/// per-kind count of this crate (`[scout, spy, flare, second_thought, guard,
/// haggle]`). Its one name per kind ([`Helper::name`]) is the config key, the
/// notation word and the `Display`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Helper {
    /// Look privately at one face-down card of the current or a later row.
    Scout = 0,
    /// Look privately at the hand card of the owner of the current or a later row.
    Spy = 1,
    /// Turn one face-down card of the current or a later row face up for everyone.
    Flare = 2,
    /// One more switch in this step.
    SecondThought = 3,
    /// An ambush under the token costs nothing.
    Guard = 4,
    /// An ambush under the token costs one cow less.
    Haggle = 5,
}

impl Helper {
    /// Every kind, in index order.
    pub const ALL: [Helper; 6] =
        [Helper::Scout, Helper::Spy, Helper::Flare, Helper::SecondThought, Helper::Guard, Helper::Haggle];

    /// The kind's index in per-kind counts (0..6).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with index `i`, if `i < 6`.
    pub const fn from_index(i: usize) -> Option<Helper> {
        match i {
            0 => Some(Helper::Scout),
            1 => Some(Helper::Spy),
            2 => Some(Helper::Flare),
            3 => Some(Helper::SecondThought),
            4 => Some(Helper::Guard),
            5 => Some(Helper::Haggle),
            _ => None,
        }
    }

    /// The kind's name: in action notation, as a deck key of the
    /// configuration and in `Display` (`scout`, `spy`, `flare`,
    /// `second_thought`, `guard`, `haggle`).
    pub const fn name(self) -> &'static str {
        match self {
            Helper::Scout => "scout",
            Helper::Spy => "spy",
            Helper::Flare => "flare",
            Helper::SecondThought => "second_thought",
            Helper::Guard => "guard",
            Helper::Haggle => "haggle",
        }
    }

    /// The kind named `name` (exactly [`Helper::name`]).
    pub fn from_name(name: &str) -> Option<Helper> {
        Helper::ALL.into_iter().find(|h| h.name() == name)
    }
}

impl fmt::Display for Helper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A count of helper cards per kind: a deck composition, a hand, or the
/// cards played in a round. Its keys are the [`Helper::name`]s; a missing key
/// counts 0, an unknown key is an error.
///
/// ```
/// use korovan_core::HelperCounts;
/// let err = serde_json::from_str::<HelperCounts>(r#"{"second": 4}"#).unwrap_err();
/// assert!(err.to_string().contains("unknown field `second`"), "{err}");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HelperCounts {
    /// `Scout` cards.
    pub scout: u8,
    /// `Spy` cards.
    pub spy: u8,
    /// `Flare` cards.
    pub flare: u8,
    /// `SecondThought` cards.
    pub second_thought: u8,
    /// `Guard` cards.
    pub guard: u8,
    /// `Haggle` cards.
    pub haggle: u8,
}

impl HelperCounts {
    /// No card at all.
    pub const NONE: HelperCounts = HelperCounts::from_array([0; 6]);

    /// The default 27-card deck of K-6: 7 Scout, 4 of every other kind.
    pub const DEFAULT_DECK: HelperCounts = HelperCounts::from_array([7, 4, 4, 4, 4, 4]);

    /// Counts from an array in [`Helper::ALL`] order.
    pub const fn from_array(a: [u8; 6]) -> HelperCounts {
        HelperCounts { scout: a[0], spy: a[1], flare: a[2], second_thought: a[3], guard: a[4], haggle: a[5] }
    }

    /// The counts as an array in [`Helper::ALL`] order.
    pub const fn to_array(self) -> [u8; 6] {
        [self.scout, self.spy, self.flare, self.second_thought, self.guard, self.haggle]
    }

    /// The count of `kind`.
    pub const fn get(self, kind: Helper) -> u8 {
        self.to_array()[kind.index()]
    }

    /// A copy with the count of `kind` set to `n`.
    #[must_use]
    pub const fn with(self, kind: Helper, n: u8) -> HelperCounts {
        let mut a = self.to_array();
        a[kind.index()] = n;
        HelperCounts::from_array(a)
    }

    /// The number of cards in total.
    pub fn total(self) -> u32 {
        self.to_array().iter().map(|&c| u32::from(c)).sum()
    }
}

impl fmt::Display for HelperCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for kind in Helper::ALL {
            let c = self.get(kind);
            if c > 0 {
                if !first {
                    f.write_str(", ")?;
                }
                write!(f, "{kind} x{c}")?;
                first = false;
            }
        }
        if first {
            f.write_str("none")?;
        }
        Ok(())
    }
}

/// The fines of K-5.5 (*configurable*): what an ambush under the token
/// costs the driver, by the row's number of ambushes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fines {
    /// The fine of a row holding one ambush (its owner kept an `Ambush`);
    /// 3 in the rules.
    pub one_ambush: u8,
    /// The fine of a row holding two ambushes (its owner kept an `Empty`);
    /// 2 in the rules.
    pub two_ambushes: u8,
}

impl Fines {
    /// The rules' fines: 3 for one ambush, 2 for two (K-5.5).
    pub const RULES: Fines = Fines { one_ambush: 3, two_ambushes: 2 };

    /// The fine of a row holding `ambushes` ambushes (1 or 2).
    #[inline]
    pub const fn for_row(self, ambushes: u32) -> u8 {
        if ambushes == 1 { self.one_ambush } else { self.two_ambushes }
    }

    /// The larger of the two fines.
    pub const fn max(self) -> u8 {
        if self.one_ambush > self.two_ambushes { self.one_ambush } else { self.two_ambushes }
    }
}

impl Default for Fines {
    fn default() -> Self {
        Fines::RULES
    }
}

/// The largest hand the engine supports (K-6.3); the rules' default hand is
/// N−1 ≤ 8 cards.
pub const MAX_HAND: u8 = 16;
/// The largest number of laps (K-7.2).
pub const MAX_LAPS: u8 = 20;
/// The most players (K-1.1).
pub const MAX_PLAYERS: usize = 9;
/// The most rows on the table: one per competitor.
pub const MAX_ROWS: usize = MAX_PLAYERS - 1;

/// The configuration of a Korovan game. `Default` is the rules' default:
/// 5 players, seat 0 drives first, one lap, the 27-card deck, hand N−1,
/// N+1 starting cows, fines 3 and 2. Missing keys take their default (so
/// configs and records written before `starting_cows` and `fines` existed
/// still parse), unknown keys are errors.
///
/// ```
/// use korovan_core::KorovanConfig;
/// let config = KorovanConfig { players: 2, ..KorovanConfig::default() };
/// let err = config.validate().unwrap_err();
/// assert_eq!(err.to_string(), "players must be between 3 and 9, got 2");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KorovanConfig {
    /// The number of players N, 3..=9 (K-1.1).
    pub players: u8,
    /// The seat that drives first, `0..players` (K-2.1).
    pub first_driver: u8,
    /// Every player drives once per lap, 1..=20 laps (K-7.2).
    pub laps: u8,
    /// The helper deck's composition (K-1.4, K-6).
    pub deck: HelperCounts,
    /// The driver's hand size; `None` is the rules' N−1 (K-3.1, K-6.3).
    pub hand_size: Option<u8>,
    /// Every player's cows at the start; `None` is the rules' N+1 (K-1.2).
    pub starting_cows: Option<u8>,
    /// The fines of an ambush (K-5.5).
    pub fines: Fines,
}

impl Default for KorovanConfig {
    fn default() -> Self {
        KorovanConfig {
            players: 5,
            first_driver: 0,
            laps: 1,
            deck: HelperCounts::DEFAULT_DECK,
            hand_size: None,
            starting_cows: None,
            fines: Fines::RULES,
        }
    }
}

/// A configuration that breaks the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// K-1.1.
    #[error("players must be between 3 and 9, got {0}")]
    Players(u8),
    /// K-2.1.
    #[error("first_driver must be a seat 0..{players}, got {first_driver}")]
    FirstDriver {
        /// The configured first driver.
        first_driver: u8,
        /// The number of players.
        players: u8,
    },
    /// K-7.2.
    #[error("laps must be between 1 and 20, got {0}")]
    Laps(u8),
    /// K-6.3.
    #[error("hand size must be at most 16, got {0}")]
    HandTooLarge(u8),
    /// K-6.3.
    #[error("the helper deck holds {deck} cards, fewer than the hand size {hand}")]
    DeckTooSmall {
        /// Cards in the deck.
        deck: u32,
        /// The hand size.
        hand: u8,
    },
    /// The deck is counted in `u8` per kind and 255 in total.
    #[error("the helper deck must hold at most 255 cards, got {0}")]
    DeckTooLarge(u32),
    /// K-1.2 (variant): at least one cow each, and all the cows of the
    /// table must fit one seat's count (N·cows ≤ 255).
    #[error("starting_cows must be at least 1 and at most 255/N = {max} with {players} players, got {cows}")]
    StartingCows {
        /// The configured starting cows.
        cows: u8,
        /// The number of players.
        players: u8,
        /// The largest value allowed for this N.
        max: u8,
    },
    /// K-5.5 (variant): an ambush costs at least one cow.
    #[error("fines.{which} must be at least 1, got {fine}")]
    Fine {
        /// The key of the fine (`one_ambush` or `two_ambushes`).
        which: &'static str,
        /// The configured fine.
        fine: u8,
    },
}

impl KorovanConfig {
    /// A default configuration for `players` players.
    pub fn with_players(players: u8) -> KorovanConfig {
        KorovanConfig { players, ..KorovanConfig::default() }
    }

    /// The driver's hand size: the configured one or N−1 (K-3.1).
    pub fn hand(&self) -> u8 {
        self.hand_size.unwrap_or_else(|| self.players.saturating_sub(1))
    }

    /// Every player's cows at the start: the configured ones or N+1 (K-1.2).
    pub fn start_cows(&self) -> u8 {
        self.starting_cows.unwrap_or_else(|| self.players.saturating_add(1))
    }

    /// The number of rounds of a whole game: N per lap (K-7.2).
    pub fn rounds(&self) -> u32 {
        u32::from(self.players) * u32::from(self.laps)
    }

    /// Checks the configuration against K-1.1, K-1.2, K-2.1, K-5.5, K-6.3
    /// and K-7.2.
    ///
    /// # Errors
    /// The first rule the configuration breaks, with the offending value.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(3..=9).contains(&self.players) {
            return Err(ConfigError::Players(self.players));
        }
        if self.first_driver >= self.players {
            return Err(ConfigError::FirstDriver { first_driver: self.first_driver, players: self.players });
        }
        if !(1..=MAX_LAPS).contains(&self.laps) {
            return Err(ConfigError::Laps(self.laps));
        }
        let hand = self.hand();
        if hand > MAX_HAND {
            return Err(ConfigError::HandTooLarge(hand));
        }
        let deck = self.deck.total();
        if deck > 255 {
            return Err(ConfigError::DeckTooLarge(deck));
        }
        if deck < u32::from(hand) {
            return Err(ConfigError::DeckTooSmall { deck, hand });
        }
        let cows = self.start_cows();
        let max = (255 / u32::from(self.players)) as u8;
        if cows == 0 || cows > max {
            return Err(ConfigError::StartingCows { cows, players: self.players, max });
        }
        for (which, fine) in [("one_ambush", self.fines.one_ambush), ("two_ambushes", self.fines.two_ambushes)] {
            if fine == 0 {
                return Err(ConfigError::Fine { which, fine });
            }
        }
        Ok(())
    }
}
