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
//!
//! This module is the one owner of that layout: the constructors, [`Action::id`],
//! [`Action::from_id`], the decoding ([`Action::act`]) and the id arithmetic
//! the move generation writes whole blocks with ([`ActionList`]). It also
//! holds the notation (`Display` here; `FromStr`, whose error is the engine's
//! error, beside that error in `error`) and the list types [`ActionList`]
//! and [`ChanceList`].

use std::fmt;
use std::ops::Deref;

use arrayvec::ArrayVec;
use boardgame_kit::{ActionBuffer, ChanceOutcome};
use serde::{Deserialize, Serialize};

use crate::board::{KINDS, Kind, NotationError, SPACES, SQUARES, Square};

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

/// The fields of an action id as plain numbers ([`Action::decode`]):
/// squares as indices `0..49` (a move's `from` is [`SUPPLY_FROM`] for the
/// supply), kinds as indices `0..8`, a pick-up's space as its index `0..8`.
/// The raw victim of a steal may exceed 3 only for ids no constructor makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// A draw of kind index `kind`.
    Draw { kind: u32 },
    /// End the turn.
    End,
    /// Pick up at numbered space index `index`.
    Pick { index: u32 },
    /// Move a camel from `from` to `to`.
    Move { from: u32, to: u32 },
    /// Move a good of kind `kind` (under its camel if `under`) from `from` to `to`.
    Good { from: u32, kind: u32, under: bool, to: u32 },
    /// Steal the `kind` on top of seat `victim`'s camel on `square`.
    Steal { victim: u32, square: u32, kind: u32 },
}

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
        Action::draw_at(kind as usize)
    }

    /// Pick up at numbered space `space` (`1..=8`); `None` for other numbers.
    pub const fn pick(space: u8) -> Option<Action> {
        if space >= 1 && space as usize <= SPACES { Some(Action::pick_at(space as usize - 1)) } else { None }
    }

    /// Move an unladen camel from `from` (`None`: the supply) to `to`.
    pub const fn move_camel(from: Option<Square>, to: Square) -> Action {
        let f = match from {
            Some(s) => s.index() as u32,
            None => SUPPLY_FROM,
        };
        Action(Action::moves_from(f) + to.index() as u32)
    }

    /// Move a good of `kind` (under its camel if `under`) from `from` to `to`.
    pub const fn good(kind: Kind, under: bool, from: Square, to: Square) -> Action {
        Action(Action::goods_from(from.index() as u32, kind as u32, under) + to.index() as u32)
    }

    /// Steal the `kind` on top of `victim`'s camel on `square`; `None` when
    /// `victim` is not below 4.
    pub const fn steal(kind: Kind, square: Square, victim: u8) -> Option<Action> {
        if victim < 4 { Some(Action::steal_at(victim as u32, square.index() as u32, kind as u32)) } else { None }
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

    /// The action with id `id`, unchecked: the move generation writes ids
    /// it computed with the functions below.
    #[inline]
    pub(crate) const fn raw(id: u32) -> Action {
        Action(id)
    }

    /// The draw of the kind with index `kind` (`0..8`).
    #[inline]
    pub(crate) const fn draw_at(kind: usize) -> Action {
        Action(DRAW_BASE + kind as u32)
    }

    /// The pick-up at the numbered space with index `index` (`0..8`, space
    /// `index + 1`).
    #[inline]
    pub(crate) const fn pick_at(index: usize) -> Action {
        Action(PICK_BASE + index as u32)
    }

    /// The id of the move from `from` (a square index, or [`SUPPLY_FROM`])
    /// to square 0: the moves from one source are the 49 consecutive ids
    /// from there, one per target square in index order.
    #[inline]
    pub(crate) const fn moves_from(from: u32) -> u32 {
        MOVE_BASE + from * SQ
    }

    /// The id of the move of a good of kind index `kind` (under its camel if
    /// `under`) from square index `from` to square 0: its 49 targets follow
    /// in square order.
    #[inline]
    pub(crate) const fn goods_from(from: u32, kind: u32, under: bool) -> u32 {
        GOOD_BASE + ((from * KINDS as u32 + kind) * 2 + under as u32) * SQ
    }

    /// The steal of the good of kind index `kind` on top of seat `victim`'s
    /// camel on square index `square`.
    #[inline]
    pub(crate) const fn steal_at(victim: u32, square: u32, kind: u32) -> Action {
        Action(STEAL_BASE + (victim * SQ + square) * KINDS as u32 + kind)
    }

    /// The decoded action.
    #[inline]
    pub fn act(self) -> Act {
        let sq = |i: u32| Square::unchecked((i % SQ) as u8);
        let kind = |i: u32| Kind::ALL[(i % KINDS as u32) as usize];
        match self.decode() {
            Decoded::Draw { kind: k } => Act::Draw(kind(k)),
            Decoded::End => Act::End,
            Decoded::Pick { index } => Act::Pick { space: (index + 1) as u8 },
            Decoded::Move { from, to } => {
                Act::Move { from: if from == SUPPLY_FROM { None } else { Some(sq(from)) }, to: sq(to) }
            }
            Decoded::Good { from, kind: k, under, to } => {
                Act::Good { kind: kind(k), under, from: sq(from), to: sq(to) }
            }
            Decoded::Steal { victim, square, kind: k } => {
                Act::Steal { kind: kind(k), square: sq(square), victim: victim.min(3) as u8 }
            }
        }
    }

    /// The id split into its fields (see the module docs), as plain
    /// numbers: what [`Action::act`] reads, and what the transitions read
    /// without building squares and kinds.
    #[inline]
    pub(crate) const fn decode(self) -> Decoded {
        let id = self.0;
        if id < END_ID {
            Decoded::Draw { kind: id - DRAW_BASE }
        } else if id == END_ID {
            Decoded::End
        } else if id < MOVE_BASE {
            Decoded::Pick { index: id - PICK_BASE }
        } else if id < GOOD_BASE {
            let r = id - MOVE_BASE;
            Decoded::Move { from: r / SQ, to: r % SQ }
        } else if id < STEAL_BASE {
            let r = id - GOOD_BASE;
            let to = r % SQ;
            let r = r / SQ;
            let under = r & 1 == 1;
            let r = r >> 1;
            Decoded::Good { from: r / KINDS as u32, kind: r % KINDS as u32, under, to }
        } else {
            let r = id - STEAL_BASE;
            let kind = r % KINDS as u32;
            let r = r / KINDS as u32;
            Decoded::Steal { victim: r / SQ, square: r % SQ, kind }
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

/// What the notation of an action looks like.
pub(crate) const EXPECTED: &str = "an action is `end`, `draw <kind>`, `pick <1..8>`, `move supply->c4`, `move b2->c4`, `good <kind> [under] b2=>d5` or `steal <kind> c4 from P<seat>`";

/// Parses the notation of an action (the `FromStr` of [`Action`], whose
/// error is the engine error, wraps it).
pub(crate) fn parse(s: &str) -> Result<Action, NotationError> {
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

impl From<Action> for String {
    fn from(a: Action) -> String {
        a.to_string()
    }
}

/// The capacity of [`ActionList`], by the worst case of C-5:
/// camel moves ≤ 49 (from the supply) + 5 × 48 (five board squares with an
/// unladen camel while one camel is still in the supply; six camels on six
/// squares give only 288) = 289; pick-ups ≤ 8; moves of goods ≤ 9 (L laden
/// camels × at most 6 − L target squares); steals ≤ 18 (three opponents × six
/// camels); `end` 1. Total 325, rounded up.
pub const ACTION_LIST_CAPACITY: usize = 336;

/// The legal-action list of Caravan: a fixed array of
/// [`ACTION_LIST_CAPACITY`] actions (plus slack) and a length, dereferencing
/// to the slice of actions written. It implements the kit's
/// [`boardgame_kit::ActionBuffer`] like `arrayvec::ArrayVec` does, and adds
/// bulk writes: most of a position's ~200 actions are camel moves (C-5.1),
/// 48 or 49 consecutive ids per source when two actions are left, or the
/// same free squares from every source when one is left. Those are written
/// as fixed-size vectorised blocks instead of one checked push per action,
/// without data-dependent loop counts. It never allocates; a push beyond the
/// capacity (impossible by the worst case of C-5) is ignored rather than
/// panicking.
#[derive(Clone)]
pub struct ActionList {
    len: usize,
    /// Slack past the capacity lets runs and blocks be written in whole
    /// fixed-size chunks, without data-dependent loop counts (the surplus is
    /// overwritten or ignored).
    buf: [Action; BUF],
}

/// A whole block of targets (49 squares) rounded up to whole chunks.
const BLOCK: usize = 56;
const BUF: usize = ACTION_LIST_CAPACITY + 2 * BLOCK;

impl Default for ActionList {
    fn default() -> Self {
        ActionList { len: 0, buf: [Action::END; BUF] }
    }
}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for ActionList {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for ActionList {}

impl Deref for ActionList {
    type Target = [Action];
    #[inline]
    fn deref(&self) -> &[Action] {
        &self.buf[..self.len.min(ACTION_LIST_CAPACITY)]
    }
}

impl ActionBuffer<Action> for ActionList {
    #[inline]
    fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    fn push(&mut self, item: Action) {
        if self.len < ACTION_LIST_CAPACITY
            && let Some(slot) = self.buf.get_mut(self.len)
        {
            *slot = item;
            self.len += 1;
        }
    }
    #[inline]
    fn capacity(&self) -> usize {
        ACTION_LIST_CAPACITY
    }
}

impl ActionList {
    /// Appends the 49 actions `base..base + 49` (every target square) with
    /// fixed-size writes.
    #[inline]
    pub(crate) fn push_block(&mut self, base: u32) {
        self.write_block(self.len, base);
        self.len = (self.len + SQUARES).min(ACTION_LIST_CAPACITY);
    }

    /// Appends the 48 actions `base + t` for every target `t != skip`.
    #[inline]
    pub(crate) fn push_block_except(&mut self, base: u32, skip: u32) {
        let at = self.len;
        self.write_block(at, base);
        // overwrite from the skipped slot on with the ids after it
        self.write_block(at + skip as usize, base + skip + 1);
        self.len = (at + SQUARES - 1).min(ACTION_LIST_CAPACITY);
    }

    #[inline]
    fn write_block(&mut self, at: usize, first: u32) {
        if let Some(block) = self.buf.get_mut(at..at + BLOCK) {
            for (j, slot) in block.iter_mut().enumerate() {
                *slot = Action::raw(first + j as u32);
            }
        }
    }

    /// Appends a copy of the `count` actions written from index `start`,
    /// their ids shifted by `delta` (wrapping): the same target squares from
    /// another source, as a vectorised copy-and-add.
    #[inline]
    pub(crate) fn push_shifted(&mut self, start: usize, count: usize, delta: u32) {
        // `count` ≤ 49 (one source's targets): copy a whole block, advance
        // by `count`
        let mut block = [Action::END; BLOCK];
        if let Some(src) = self.buf.get(start..start + BLOCK) {
            block.copy_from_slice(src);
        }
        if let Some(dst) = self.buf.get_mut(self.len..self.len + BLOCK) {
            for (d, s) in dst.iter_mut().zip(&block) {
                *d = Action::raw(s.id().wrapping_add(delta));
            }
        }
        self.len = (self.len + count.min(BLOCK)).min(ACTION_LIST_CAPACITY);
    }

    /// Appends the actions `base + i` for every set bit `i` of `mask`, one
    /// write per bit with the length kept in a register.
    #[inline]
    pub(crate) fn push_mask(&mut self, base: u32, mut mask: u64) {
        let mut n = self.len;
        while mask != 0 {
            let t = mask.trailing_zeros();
            mask &= mask - 1;
            if let Some(slot) = self.buf.get_mut(n) {
                *slot = Action::raw(base + t);
            }
            n += 1;
        }
        self.len = n.min(ACTION_LIST_CAPACITY);
    }
}

/// The chance-outcome list: at most one outcome per kind of goods (C-3.1).
pub type ChanceList = ArrayVec<ChanceOutcome<Action>, KINDS>;

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(l: &ActionList) -> Vec<u32> {
        l.iter().map(|a| a.id()).collect()
    }

    #[test]
    fn runs_masks_and_pushes() {
        let mut l = ActionList::default();
        assert!(l.is_empty());
        for id in 100..103 {
            l.push(Action::raw(id));
        }
        l.push(Action::END);
        l.push_mask(200, 0b1011_0001);
        l.push_mask(7, 0);
        assert_eq!(ids(&l), [100, 101, 102, 8, 200, 204, 205, 207]);
        l.push_shifted(4, 4, 10);
        assert_eq!(ids(&l)[8..], [210, 214, 215, 217]);
        l.push_shifted(0, 2, 5u32.wrapping_neg());
        assert_eq!(ids(&l)[12..], [95, 96]);
        l.clear();
        l.push_block(17);
        l.push_block_except(100, 0);
        l.push_block_except(200, 20);
        l.push_block_except(300, 48);
        let v = ids(&l);
        assert_eq!(v.len(), 49 + 3 * 48);
        assert_eq!(v[..49], (17..66).collect::<Vec<_>>()[..]);
        assert_eq!(v[49..97], (101..149).collect::<Vec<_>>()[..]);
        assert_eq!(v[97..145], (200..249).filter(|&i| i != 220).collect::<Vec<_>>()[..]);
        assert_eq!(v[145..], (300..348).collect::<Vec<_>>()[..]);
        assert_eq!(format!("{l:?}").matches("Action(").count(), 49 + 3 * 48);
        let copy = l.clone();
        assert_eq!(copy, l);
        l.clear();
        assert!(l.is_empty());
        assert_eq!(l.capacity(), ACTION_LIST_CAPACITY);
    }

    #[test]
    fn never_grows_past_its_capacity() {
        let mut l = ActionList::default();
        for _ in 0..ACTION_LIST_CAPACITY / 48 + 2 {
            l.push_block_except(17, 3);
        }
        assert_eq!(l.len(), ACTION_LIST_CAPACITY);
        l.push(Action::END);
        l.push_block(0);
        l.push_mask(0, u64::MAX >> 15);
        l.push_shifted(0, 40, 1);
        assert_eq!(l.len(), ACTION_LIST_CAPACITY);
        assert!(l.iter().all(|a| (17..66).contains(&a.id()) && a.id() != 20));
    }

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
