//! [`Action`]: a 4-byte action with a stable id and a readable notation.
//!
//! # Id layout (stable, independent of the configuration except for the
//! number of steal victims)
//!
//! | ids | action | notation |
//! |---|---|---|
//! | `0..8` | chance: draw kind `k` (C-3.1, C-6.1) | `draw R1` |
//! | `8` | end the turn (C-4.2) | `end` |
//! | `9..17` | pick up at numbered space `n` = `id - 8` (C-5.2) | `pick 3` |
//! | `17..2467` | move a camel: `17 + from * 49 + to`, `from` 49 = supply (C-5.1) | `move supply->c4`, `move b2->c4` |
//! | `2467..40883` | move a good: `2467 + ((from * 8 + kind) * 2 + under) * 49 + to` (C-5.3) | `good R2 b2=>d5`, `good R2 under b2=>d5` |
//! | `40883..` | steal: `40883 + (victim * 49 + square) * 8 + kind` (C-5.5) | `steal R2 c4 from P1` |
//!
//! Squares are indices `row * 7 + col` ([`Square`]); kinds `0..8`
//! ([`Kind`]); players in notation are seats `P0..P3`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::board::{KINDS, Kind, SPACES, SQUARES, Square};
use crate::error::{CaravanError, NotationError};

const SQ: u32 = SQUARES as u32;
pub(crate) const DRAW_BASE: u32 = 0;
pub(crate) const END_ID: u32 = 8;
pub(crate) const PICK_BASE: u32 = 9;
pub(crate) const MOVE_BASE: u32 = PICK_BASE + SPACES as u32;
/// The `from` index of a camel taken from the supply.
pub(crate) const SUPPLY_FROM: u32 = SQ;
pub(crate) const GOOD_BASE: u32 = MOVE_BASE + (SQ + 1) * SQ;
pub(crate) const STEAL_BASE: u32 = GOOD_BASE + SQ * KINDS as u32 * 2 * SQ;
pub(crate) const STEAL_PER_VICTIM: u32 = SQ * KINDS as u32;
/// The number of action ids of a game with `players` players.
pub(crate) const fn action_space(players: u8) -> u32 {
    STEAL_BASE + STEAL_PER_VICTIM * players as u32
}
const MAX_ID: u32 = action_space(4);

/// An action of Caravan: a decision of the player to move or a chance
/// outcome. It is its stable id packed into a `u32` (4 bytes, `Copy`);
/// [`Action::act`] decodes it into the readable [`Act`].
///
/// Actions are canonical (C-5.6): they name squares and kinds, never camel
/// ids, since unladen camels of one player on one square are interchangeable
/// and so are goods of one kind in one position.
///
/// ```
/// use caravan_core::{Act, Action, Kind, Square};
/// let a: Action = "good R2 b2=>d5".parse().unwrap();
/// assert_eq!(
///     a.act(),
///     Act::Good {
///         kind: Kind::R2,
///         under: false,
///         from: "b2".parse().unwrap(),
///         to: "d5".parse().unwrap(),
///     }
/// );
/// assert_eq!(a.to_string(), "good R2 b2=>d5");
/// assert_eq!(Action::from_id(a.id()), Some(a));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Action(u32);

/// The decoded form of an [`Action`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Act {
    /// Chance: the next pending numbered space receives a cube of this kind
    /// from the bag (C-3.1, C-6.1).
    Draw(Kind),
    /// End the turn now (C-4.2, C-9.1).
    End,
    /// Load the good lying on numbered space `space` (`1..=8`) onto an
    /// unladen camel of the mover there (C-5.2).
    Pick {
        /// The numbered space, `1..=8`.
        space: u8,
    },
    /// Place (`from: None`, from the supply) or move an unladen camel of the
    /// mover to `to` (C-5.1).
    Move {
        /// The source square, `None` for the supply.
        from: Option<Square>,
        /// The target square.
        to: Square,
    },
    /// Move a good of kind `kind` on top of (or, `under`, under) a camel of
    /// the mover on `from` along a chain to an unladen camel of the mover on
    /// `to` (C-5.3), delivering it if `to` is its city (C-5.4).
    Good {
        /// The kind of the good.
        kind: Kind,
        /// Whether the good is under its camel (it was stolen).
        under: bool,
        /// The square of the camel that carries it.
        from: Square,
        /// The square of the receiving camel.
        to: Square,
    },
    /// Steal the good of kind `kind` on top of a camel of `victim` on
    /// `square`, putting it under an unladen camel of the mover (C-5.5).
    Steal {
        /// The kind of the good.
        kind: Kind,
        /// The square.
        square: Square,
        /// The victim's seat, `0..4`.
        victim: u8,
    },
}

impl Action {
    /// End the turn (`end`).
    pub const END: Action = Action(END_ID);

    /// The action of `act`; `None` when a pick names a space outside `1..=8`
    /// or a steal a victim outside `0..4`.
    pub const fn new(act: Act) -> Option<Action> {
        match act {
            Act::Draw(kind) => Some(Action::draw(kind)),
            Act::End => Some(Action::END),
            Act::Pick { space } => Action::pick(space),
            Act::Move { from, to } => Some(Action::move_camel(from, to)),
            Act::Good { kind, under, from, to } => Some(Action::good(kind, under, from, to)),
            Act::Steal { kind, square, victim } => Action::steal(kind, square, victim),
        }
    }

    /// Chance: draw a cube of `kind`.
    pub const fn draw(kind: Kind) -> Action {
        Action(DRAW_BASE + kind as u32)
    }

    /// Pick up at numbered space `space` (`1..=8`); `None` for other numbers.
    pub const fn pick(space: u8) -> Option<Action> {
        if space >= 1 && space as usize <= SPACES { Some(Action(PICK_BASE + space as u32 - 1)) } else { None }
    }

    /// Move an unladen camel from `from` (`None`: the supply) to `to`.
    pub const fn move_camel(from: Option<Square>, to: Square) -> Action {
        let f = match from {
            Some(s) => s.index() as u32,
            None => SUPPLY_FROM,
        };
        Action(MOVE_BASE + f * SQ + to.index() as u32)
    }

    /// Move a good of `kind` (under its camel if `under`) from `from` to `to`.
    pub const fn good(kind: Kind, under: bool, from: Square, to: Square) -> Action {
        Action(
            GOOD_BASE
                + ((from.index() as u32 * KINDS as u32 + kind as u32) * 2 + under as u32) * SQ
                + to.index() as u32,
        )
    }

    /// Steal the `kind` on top of `victim`'s camel on `square`; `None` when
    /// `victim` is not below 4.
    pub const fn steal(kind: Kind, square: Square, victim: u8) -> Option<Action> {
        if victim < 4 {
            Some(Action(STEAL_BASE + (victim as u32 * SQ + square.index() as u32) * KINDS as u32 + kind as u32))
        } else {
            None
        }
    }

    /// The stable id (see the module docs for the layout).
    pub const fn id(self) -> u32 {
        self.0
    }

    /// The action with stable id `id`, `None` beyond the largest action space
    /// (that of 4 players). [`boardgame_kit::Game::action_from_id`] checks
    /// against the configuration's space.
    pub const fn from_id(id: u32) -> Option<Action> {
        if id < MAX_ID { Some(Action(id)) } else { None }
    }

    pub(crate) const fn raw(id: u32) -> Action {
        Action(id)
    }

    /// The decoded action.
    pub fn act(self) -> Act {
        let id = self.0;
        let sq = |i: u32| Square::unchecked((i % SQ) as u8);
        let kind = |i: u32| Kind::ALL[(i % KINDS as u32) as usize];
        if id < END_ID {
            Act::Draw(kind(id))
        } else if id == END_ID {
            Act::End
        } else if id < MOVE_BASE {
            Act::Pick { space: (id - PICK_BASE + 1) as u8 }
        } else if id < GOOD_BASE {
            let r = id - MOVE_BASE;
            let f = r / SQ;
            Act::Move { from: if f == SUPPLY_FROM { None } else { Some(sq(f)) }, to: sq(r) }
        } else if id < STEAL_BASE {
            let r = id - GOOD_BASE;
            let to = r % SQ;
            let r = r / SQ;
            let under = r & 1 == 1;
            let r = r >> 1;
            Act::Good { kind: kind(r), under, from: sq(r / KINDS as u32), to: sq(to) }
        } else {
            let r = id - STEAL_BASE;
            Act::Steal { kind: kind(r), square: sq(r / KINDS as u32), victim: ((r / KINDS as u32) / SQ).min(3) as u8 }
        }
    }

    /// Whether this is a chance outcome (a draw).
    pub const fn is_chance(self) -> bool {
        self.0 < END_ID
    }
}

impl From<Act> for Option<Action> {
    fn from(act: Act) -> Self {
        Action::new(act)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.act() {
            Act::Draw(k) => write!(f, "draw {k}"),
            Act::End => f.write_str("end"),
            Act::Pick { space } => write!(f, "pick {space}"),
            Act::Move { from: None, to } => write!(f, "move supply->{to}"),
            Act::Move { from: Some(s), to } => write!(f, "move {s}->{to}"),
            Act::Good { kind, under, from, to } => {
                let u = if under { " under" } else { "" };
                write!(f, "good {kind}{u} {from}=>{to}")
            }
            Act::Steal { kind, square, victim } => write!(f, "steal {kind} {square} from P{victim}"),
        }
    }
}

impl fmt::Debug for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Action({}: {self})", self.0)
    }
}

const EXPECTED: &str = "an action is `end`, `draw <kind>`, `pick <1..8>`, `move supply->c4`, `move b2->c4`, `good <kind> [under] b2=>d5` or `steal <kind> c4 from P<seat>`";

impl FromStr for Action {
    type Err = CaravanError;
    fn from_str(s: &str) -> Result<Action, CaravanError> {
        Ok(parse(s)?)
    }
}

fn parse(s: &str) -> Result<Action, NotationError> {
    {
        let bad = || NotationError::new(s, EXPECTED);
        let mut it = s.split_whitespace();
        let verb = it.next().ok_or_else(bad)?;
        let args: [Option<&str>; 4] = [it.next(), it.next(), it.next(), it.next()];
        if it.next().is_some() {
            return Err(bad());
        }
        let a = match (verb, args) {
            ("end", [None, None, None, None]) => Action::END,
            ("draw", [Some(k), None, None, None]) => Action::draw(k.parse()?),
            ("pick", [Some(n), None, None, None]) => {
                let n: u8 = n.parse().map_err(|_| bad())?;
                Action::pick(n).ok_or_else(|| NotationError::new(s, "pick names a space 1..8"))?
            }
            ("move", [Some(path), None, None, None]) => {
                let (from, to) = path.split_once("->").ok_or_else(bad)?;
                let from = if from == "supply" { None } else { Some(from.parse()?) };
                Action::move_camel(from, to.parse()?)
            }
            ("good", [Some(k), Some(path), None, None]) => good(k, false, path)?,
            ("good", [Some(k), Some("under"), Some(path), None]) => good(k, true, path)?,
            ("steal", [Some(k), Some(sq), Some("from"), Some(p)]) => {
                let victim = p.strip_prefix('P').and_then(|n| n.parse::<u8>().ok()).ok_or_else(bad)?;
                Action::steal(k.parse()?, sq.parse()?, victim)
                    .ok_or_else(|| NotationError::new(s, "the victim is a seat P0..P3"))?
            }
            _ => return Err(bad()),
        };
        Ok(a)
    }
}

fn good(kind: &str, under: bool, path: &str) -> Result<Action, NotationError> {
    let (from, to) = path.split_once("=>").ok_or_else(|| NotationError::new(path, "a good moves like `b2=>d5`"))?;
    Ok(Action::good(kind.parse()?, under, from.parse()?, to.parse()?))
}

impl TryFrom<String> for Action {
    type Error = CaravanError;
    fn try_from(s: String) -> Result<Action, CaravanError> {
        s.parse()
    }
}

impl From<Action> for String {
    fn from(a: Action) -> String {
        a.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_round_trips_through_act_and_notation() {
        for id in 0..MAX_ID {
            let a = Action::from_id(id).unwrap();
            assert_eq!(Action::new(a.act()), Some(a), "{id}");
            let text = a.to_string();
            assert_eq!(text.parse::<Action>().unwrap(), a, "{text}");
        }
        assert_eq!(Action::from_id(MAX_ID), None);
    }

    #[test]
    fn notation_examples() {
        for s in [
            "move supply->c4",
            "move b2->c4",
            "pick 3",
            "good C1 b2=>d5",
            "good R4 under b2=>b2",
            "steal R2 c4 from P2",
            "end",
            "draw C4",
        ] {
            assert_eq!(s.parse::<Action>().unwrap().to_string(), s);
        }
        for s in [
            "",
            "pick 0",
            "pick 9",
            "move c4",
            "move z9->c4",
            "good X1 b2=>d5",
            "steal R1 c4 from P4",
            "end now",
            "steal R1 c4 to P1",
        ] {
            assert!(s.parse::<Action>().is_err(), "{s}");
        }
        assert_eq!(std::mem::size_of::<Action>(), 4);
    }
}
