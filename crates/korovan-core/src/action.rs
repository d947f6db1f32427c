//! [`Action`]: every decision and chance outcome, with stable ids and
//! a readable notation; the one owner of the id layout (see
//! [`Action`] for the table) and of the list types.
//!
//! The conversions that can fail into the engine's error type
//! (`Action::from_id` and `FromStr`) are implemented in `error`,
//! which stands above this module; here they are [`Action::decode`]
//! and [`Action::parse`], returning `Option`.

use std::fmt;

use arrayvec::ArrayVec;
use boardgame_kit::ChanceOutcome;
use serde::{Deserialize, Serialize};

use crate::config::{Helper, MAX_ROWS};

/// The number of distinct action ids.
pub const NUM_ACTIONS: usize = 103;

/// The legal actions of a state. Worst case 60: in `Decide`, 2 switches +
/// reveal + 24 Scout targets + 8 Spy targets + 24 Flare targets + SecondThought
/// (`Place` has at most 3 + 24 + 8 + 24 = 59, a peek at most 7·3 = 21).
pub type ActionList = ArrayVec<Action, 64>;
/// The outcomes of a deal chance node: at most the 6 helper kinds (K-3.1).
pub type ChanceList = ArrayVec<ChanceOutcome<Action>, 6>;

/// The set of positions of a row that hold an `Ambush` (K-4.3): one or two
/// of the positions 0, 1, 2. Only the 6 legal sets can be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct AmbushSet(u8);

impl AmbushSet {
    /// The 6 sets in id order: `{0}, {1}, {2}, {0,1}, {0,2}, {1,2}`.
    pub const ALL: [AmbushSet; 6] =
        [AmbushSet(0b001), AmbushSet(0b010), AmbushSet(0b100), AmbushSet(0b011), AmbushSet(0b101), AmbushSet(0b110)];

    /// The set with bit `p` set for every ambush position `p`; `None` unless
    /// it has 1 or 2 of the 3 positions.
    pub const fn from_mask(mask: u8) -> Option<AmbushSet> {
        match mask {
            1..=6 => Some(AmbushSet(mask)),
            _ => None,
        }
    }

    /// The bit mask (bit `p` = an ambush at position `p`).
    #[inline]
    pub const fn mask(self) -> u8 {
        self.0
    }

    /// Whether position `pos` holds an ambush.
    pub const fn contains(self, pos: u8) -> bool {
        pos < 3 && self.0 & (1 << pos) != 0
    }

    /// The number of ambushes (1 or 2).
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The index of this set in [`AmbushSet::ALL`].
    pub const fn index(self) -> usize {
        match self.0 {
            1 => 0,
            2 => 1,
            4 => 2,
            3 => 3,
            5 => 4,
            _ => 5,
        }
    }
}

impl TryFrom<u8> for AmbushSet {
    type Error = String;
    fn try_from(mask: u8) -> Result<Self, String> {
        AmbushSet::from_mask(mask)
            .ok_or_else(|| format!("ambush mask must hold 1 or 2 of the positions 0..3 (1..=6), got {mask}"))
    }
}

impl From<AmbushSet> for u8 {
    fn from(s: AmbushSet) -> u8 {
        s.0
    }
}

impl fmt::Display for AmbushSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for p in 0..3u8 {
            if self.contains(p) {
                if !first {
                    f.write_str("+")?;
                }
                write!(f, "{p}")?;
                first = false;
            }
        }
        Ok(())
    }
}

/// One action of Korovan: a chance outcome or a player's decision. Rows are
/// numbered 1..=N−1 (K-4.1), positions 0..=2.
///
/// The action space is fixed for 9 players, so an id never depends on N:
///
/// | ids | action | notation |
/// |---|---|---|
/// | 0..6 | `Deal(kind)` (chance, K-3.1) | `deal scout` |
/// | 6..30 | `Peek { row 1..=8, pos 0..=2 }` (K-4.2) | `peek 2.1` |
/// | 30..36 | `Lay(ambush set)` (K-4.3) | `lay 0+2` |
/// | 36..39 | `Place(pos)` (K-5.1) | `place 1` |
/// | 39..42 | `Switch(pos)` (K-5.3) | `switch 2` |
/// | 42 | `Reveal` (K-5.4) | `reveal` |
/// | 43..67 | `Scout { row, pos }` | `scout 3.0` |
/// | 67..75 | `Spy { row }` | `spy 4` |
/// | 75..99 | `Flare { row, pos }` | `flare 2.2` |
/// | 99 | `SecondThought` | `second_thought` |
/// | 100 | `Guard` | `guard` |
/// | 101 | `Haggle` | `haggle` |
/// | 102 | `Pay` | `pay` |
///
/// Rows are numbered 1..N−1 in laying order, as in K-4.1; positions 0, 1, 2.
/// Within a row-and-position block the id is `base + (row − 1)·3 + pos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Chance: the driver draws a helper of this kind (K-3.1).
    Deal(Helper),
    /// A competitor looks at a face-down card already laid (K-4.2).
    Peek {
        /// The row, 1-based.
        row: u8,
        /// The position, 0..3.
        pos: u8,
    },
    /// A competitor lays its row with ambushes at these positions (K-4.3).
    Lay(AmbushSet),
    /// The driver puts the token on a position of the current row (K-5.1).
    Place(u8),
    /// The driver moves the token to another position of the row (K-5.3).
    Switch(u8),
    /// The card under the token is turned face up and resolved (K-5.4).
    Reveal,
    /// Helper: look at a face-down card of the current or a later row (K-6).
    Scout {
        /// The row, 1-based.
        row: u8,
        /// The position, 0..3.
        pos: u8,
    },
    /// Helper: look at the hand card of a row's owner (K-6).
    Spy {
        /// The row, 1-based.
        row: u8,
    },
    /// Helper: turn a face-down card face up for everyone (K-6).
    Flare {
        /// The row, 1-based.
        row: u8,
        /// The position, 0..3.
        pos: u8,
    },
    /// Helper: one more switch in this step (K-6).
    SecondThought,
    /// Helper: the ambush being resolved costs nothing (K-6).
    Guard,
    /// Helper: the ambush being resolved costs one cow less (K-6).
    Haggle,
    /// Pay the fine of the ambush being resolved (K-5.5).
    Pay,
}

const PEEK: u32 = 6;
const LAY: u32 = 30;
const PLACE: u32 = 36;
const SWITCH: u32 = 39;
const REVEAL: u32 = 42;
const SCOUT: u32 = 43;
const SPY: u32 = 67;
const FLARE: u32 = 75;
const SECOND: u32 = 99;
const GUARD: u32 = 100;
const HAGGLE: u32 = 101;
const PAY: u32 = 102;

#[inline]
fn cell_id(row: u8, pos: u8) -> u32 {
    // clamped so that an out-of-range action still maps into its block
    let r = u32::from(row.clamp(1, MAX_ROWS as u8)) - 1;
    r * 3 + u32::from(pos.min(2))
}

impl Action {
    /// The stable id, in `0..NUM_ACTIONS` (see the module table). Actions
    /// with out-of-range rows or positions (which are never legal) are
    /// clamped into their block.
    #[inline]
    pub fn id(self) -> u32 {
        match self {
            Action::Deal(h) => h.index() as u32,
            Action::Peek { row, pos } => PEEK + cell_id(row, pos),
            Action::Lay(s) => LAY + s.index() as u32,
            Action::Place(p) => PLACE + u32::from(p.min(2)),
            Action::Switch(p) => SWITCH + u32::from(p.min(2)),
            Action::Reveal => REVEAL,
            Action::Scout { row, pos } => SCOUT + cell_id(row, pos),
            Action::Spy { row } => SPY + u32::from(row.clamp(1, MAX_ROWS as u8)) - 1,
            Action::Flare { row, pos } => FLARE + cell_id(row, pos),
            Action::SecondThought => SECOND,
            Action::Guard => GUARD,
            Action::Haggle => HAGGLE,
            Action::Pay => PAY,
        }
    }

    /// The action with id `id`, `None` when `id >= NUM_ACTIONS` (the
    /// `Result` form is `Action::from_id`).
    pub fn decode(id: u32) -> Option<Action> {
        let cell = |base: u32| ((((id - base) / 3) + 1) as u8, ((id - base) % 3) as u8);
        Some(match id {
            0..PEEK => Action::Deal(Helper::from_index(id as usize)?),
            PEEK..LAY => {
                let (row, pos) = cell(PEEK);
                Action::Peek { row, pos }
            }
            LAY..PLACE => Action::Lay(AmbushSet::ALL[(id - LAY) as usize]),
            PLACE..SWITCH => Action::Place((id - PLACE) as u8),
            SWITCH..REVEAL => Action::Switch((id - SWITCH) as u8),
            REVEAL => Action::Reveal,
            SCOUT..SPY => {
                let (row, pos) = cell(SCOUT);
                Action::Scout { row, pos }
            }
            SPY..FLARE => Action::Spy { row: (id - SPY + 1) as u8 },
            FLARE..SECOND => {
                let (row, pos) = cell(FLARE);
                Action::Flare { row, pos }
            }
            SECOND => Action::SecondThought,
            GUARD => Action::Guard,
            HAGGLE => Action::Haggle,
            PAY => Action::Pay,
            _ => return None,
        })
    }

    /// The helper card this action plays, if any.
    pub fn helper(self) -> Option<Helper> {
        match self {
            Action::Scout { .. } => Some(Helper::Scout),
            Action::Spy { .. } => Some(Helper::Spy),
            Action::Flare { .. } => Some(Helper::Flare),
            Action::SecondThought => Some(Helper::SecondThought),
            Action::Guard => Some(Helper::Guard),
            Action::Haggle => Some(Helper::Haggle),
            _ => None,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Deal(h) => write!(f, "deal {h}"),
            Action::Peek { row, pos } => write!(f, "peek {row}.{pos}"),
            Action::Lay(s) => write!(f, "lay {s}"),
            Action::Place(p) => write!(f, "place {p}"),
            Action::Switch(p) => write!(f, "switch {p}"),
            Action::Reveal => f.write_str("reveal"),
            Action::Scout { row, pos } => write!(f, "scout {row}.{pos}"),
            Action::Spy { row } => write!(f, "spy {row}"),
            Action::Flare { row, pos } => write!(f, "flare {row}.{pos}"),
            Action::SecondThought => f.write_str(Helper::SecondThought.name()),
            Action::Guard => f.write_str("guard"),
            Action::Haggle => f.write_str("haggle"),
            Action::Pay => f.write_str("pay"),
        }
    }
}

fn parse_small(s: &str, lo: u8, hi: u8) -> Option<u8> {
    // digits only: no sign, no spaces inside
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: u8 = s.parse().ok()?;
    (lo..=hi).contains(&v).then_some(v)
}

fn parse_cell(s: &str) -> Option<(u8, u8)> {
    let (r, p) = s.split_once('.')?;
    Some((parse_small(r, 1, MAX_ROWS as u8)?, parse_small(p, 0, 2)?))
}

fn parse_set(s: &str) -> Option<AmbushSet> {
    let mut mask = 0u8;
    for part in s.split('+') {
        let p = parse_small(part, 0, 2)?;
        if mask & (1 << p) != 0 {
            return None;
        }
        mask |= 1 << p;
    }
    AmbushSet::from_mask(mask)
}

impl Action {
    /// Parses the notation of the id table (`peek 2.1`, `lay 0+2`,
    /// `place 1`, `scout 3.0`, `spy 4`, `flare 2.2`, `second_thought`,
    /// `guard`, `pay`, …): surrounding spaces are ignored, one space
    /// separates the verb from its argument. `None` when `text` is not an
    /// action (the `Result` form is `FromStr`).
    pub fn parse(text: &str) -> Option<Action> {
        let t = text.trim();
        let (verb, arg) = match t.split_once(' ') {
            Some((v, a)) => (v, Some(a.trim())),
            None => (t, None),
        };
        let a = match (verb, arg) {
            ("reveal", None) => Action::Reveal,
            ("second_thought", None) => Action::SecondThought,
            ("guard", None) => Action::Guard,
            ("haggle", None) => Action::Haggle,
            ("pay", None) => Action::Pay,
            ("deal", Some(a)) => Action::Deal(Helper::from_name(a)?),
            ("peek", Some(a)) => {
                let (row, pos) = parse_cell(a)?;
                Action::Peek { row, pos }
            }
            ("scout", Some(a)) => {
                let (row, pos) = parse_cell(a)?;
                Action::Scout { row, pos }
            }
            ("flare", Some(a)) => {
                let (row, pos) = parse_cell(a)?;
                Action::Flare { row, pos }
            }
            ("spy", Some(a)) => Action::Spy { row: parse_small(a, 1, MAX_ROWS as u8)? },
            ("lay", Some(a)) => Action::Lay(parse_set(a)?),
            ("place", Some(a)) => Action::Place(parse_small(a, 0, 2)?),
            ("switch", Some(a)) => Action::Switch(parse_small(a, 0, 2)?),
            _ => return None,
        };
        Some(a)
    }
}
