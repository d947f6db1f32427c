//! The geometry of the board (C-2): squares and their names, goods kinds
//! (C-1.3), bitboards over the 49 squares with orthogonal adjacency (C-2,
//! C-5.3 chains), and [`NotationError`], the error of parsing a name. The
//! layout of cities and numbered spaces is configuration data
//! ([`crate::Board`], in `config`).
//!
//! This module is the crate's lowest layer: it uses no other module.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The side of the square grid (C-2: 7×7).
pub const SIDE: usize = 7;
/// The number of squares.
pub const SQUARES: usize = SIDE * SIDE;
/// The number of goods kinds (and of cities, C-2.1).
pub const KINDS: usize = 8;
/// The number of numbered spaces (C-2.2).
pub const SPACES: usize = 8;

/// A name (of an action, a square or a kind) that could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse {text:?}: {expected}")]
pub struct NotationError {
    /// The text given.
    pub text: String,
    /// What was expected.
    pub expected: &'static str,
}

impl NotationError {
    pub(crate) fn new(text: &str, expected: &'static str) -> Self {
        NotationError { text: text.to_string(), expected }
    }
}

/// Every square of the board as a bitboard (bits 0..49).
pub(crate) const FULL: u64 = (1u64 << SQUARES) - 1;
const COL_FIRST: u64 = {
    let mut m = 0u64;
    let mut r = 0;
    while r < SIDE {
        m |= 1u64 << (r * SIDE);
        r += 1;
    }
    m
};
const COL_LAST: u64 = COL_FIRST << (SIDE - 1);

/// The orthogonal neighbours of every square of `bb` (C-2: adjacency is
/// orthogonal only).
#[inline]
pub(crate) fn neighbours(bb: u64) -> u64 {
    ((bb << SIDE) | (bb >> SIDE) | ((bb << 1) & !COL_FIRST) | ((bb >> 1) & !COL_LAST)) & FULL
}

/// The squares of `set` connected to `from` through orthogonally adjacent
/// squares of `set` (a flood fill; `from` is included when it is in `set`).
#[inline]
pub(crate) fn flood(set: u64, from: u64) -> u64 {
    let mut comp = from & set;
    loop {
        let next = (comp | neighbours(comp)) & set;
        if next == comp {
            return comp;
        }
        comp = next;
    }
}

/// The index of the `n`-th set bit of `mask` (counting from 0, lowest
/// first): `Bits(mask).nth(n)` without walking the lower bits one by one.
/// Returns 64 when `mask` has no more than `n` set bits.
#[inline]
pub(crate) fn nth_bit(mut mask: u64, mut n: u32) -> u32 {
    let mut base = 0;
    for width in [32u32, 16, 8] {
        let low = mask & ((1u64 << width) - 1);
        let c = low.count_ones();
        if n >= c {
            n -= c;
            mask >>= width;
            base += width;
        } else {
            mask = low;
        }
    }
    for _ in 0..n.min(8) {
        mask &= mask.wrapping_sub(1);
    }
    if mask == 0 { 64 } else { base + mask.trailing_zeros() }
}

/// The number of set bits of a sparse mask, one step per set bit: cheaper
/// than a general population count (without a hardware instruction) for the
/// few bits of one player's camels.
#[inline]
pub(crate) fn count_sparse(mut mask: u64) -> u32 {
    let mut n = 0;
    while mask != 0 {
        mask &= mask.wrapping_sub(1);
        n += 1;
    }
    n
}

/// The index of the `n`-th set bit of a sparse mask (counting from 0):
/// [`nth_bit`] one step per lower set bit, cheaper for the few bits of one
/// player's camels. Returns 64 when `mask` has no more than `n` set bits.
#[inline]
pub(crate) fn nth_sparse(mut mask: u64, n: u32) -> u32 {
    for _ in 0..n {
        mask &= mask.wrapping_sub(1);
    }
    mask.trailing_zeros()
}

/// The `n`-th square (counting from 0) of the board that is not in
/// `taken`: `nth_bit(FULL & !taken, n)`, one step per square of `taken`
/// below the answer — cheaper than [`nth_bit`] for the free squares of a
/// board with few camels. Returns 49 or more when fewer than `n + 1`
/// squares are free.
#[inline]
pub(crate) fn nth_free(taken: u64, n: u32) -> u32 {
    let mut sq = n;
    let mut rest = taken & FULL;
    // each taken square at or below the candidate pushes it one further
    while rest != 0 && rest.trailing_zeros() <= sq {
        sq += 1;
        rest &= rest.wrapping_sub(1);
    }
    sq
}

/// Iterates the indices of the set bits of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bits(pub u64);

impl Iterator for Bits {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(i)
        }
    }
}

/// A square of the 7×7 board: `row * 7 + col`, row and col in `0..7`.
///
/// Its name is the column letter `a`..`g` followed by the row number `1`..`7`
/// (row 0 is `1`, printed at the top of the board), so `(0, 0)` is `a1` and
/// `(3, 4)` is `e4`.
///
/// ```
/// use caravan_core::Square;
/// let sq: Square = "e4".parse().unwrap();
/// assert_eq!((sq.row(), sq.col()), (3, 4));
/// assert_eq!(sq.to_string(), "e4");
/// assert!("h1".parse::<Square>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Square(u8);

impl Square {
    /// The square at `(row, col)`, `None` off the grid.
    pub const fn new(row: u8, col: u8) -> Option<Square> {
        if (row as usize) < SIDE && (col as usize) < SIDE { Some(Square(row * SIDE as u8 + col)) } else { None }
    }

    /// The square with index `index` (`row * 7 + col`), `None` from 49 on.
    pub const fn from_index(index: u8) -> Option<Square> {
        if (index as usize) < SQUARES { Some(Square(index)) } else { None }
    }

    /// The index `row * 7 + col`, in `0..49`.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The row, `0..7` (0 at the top).
    pub const fn row(self) -> u8 {
        self.0 / SIDE as u8
    }

    /// The column, `0..7` (0 at the left).
    pub const fn col(self) -> u8 {
        self.0 % SIDE as u8
    }

    /// The square's bit in a bitboard.
    pub(crate) const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// Every square, in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    pub(crate) const fn unchecked(index: u8) -> Square {
        Square(index)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row() + 1)
    }
}

impl FromStr for Square {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Square, NotationError> {
        let b = s.as_bytes();
        if b.len() == 2 && (b'a'..=b'g').contains(&b[0]) && (b'1'..=b'7').contains(&b[1]) {
            Ok(Square((b[1] - b'1') * SIDE as u8 + (b[0] - b'a')))
        } else {
            Err(NotationError::new(s, "a square is a column a..g followed by a row 1..7, like `c4`"))
        }
    }
}

impl TryFrom<String> for Square {
    type Error = NotationError;
    fn try_from(s: String) -> Result<Square, NotationError> {
        s.parse()
    }
}

impl From<Square> for String {
    fn from(sq: Square) -> String {
        sq.to_string()
    }
}

/// A kind of goods (C-1.3): four rare kinds `R1`..`R4` (3 cubes each, 6
/// points) and four common kinds `C1`..`C4` (9 cubes each, 3 points).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum Kind {
    R1,
    R2,
    R3,
    R4,
    C1,
    C2,
    C3,
    C4,
}

impl Kind {
    /// Every kind, rare first, in index order.
    pub const ALL: [Kind; KINDS] = [Kind::R1, Kind::R2, Kind::R3, Kind::R4, Kind::C1, Kind::C2, Kind::C3, Kind::C4];

    /// The kind with index `i` (`0..4` rare, `4..8` common).
    pub const fn from_index(i: u8) -> Option<Kind> {
        if (i as usize) < KINDS { Some(Kind::ALL[i as usize]) } else { None }
    }

    /// The kind's index, `0..8`.
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// Whether the kind is rare (C-1.3).
    pub const fn is_rare(self) -> bool {
        (self as u8) < 4
    }

    /// The cubes of this kind in the game (C-1.3): 3 rare, 9 common.
    pub const fn count(self) -> u8 {
        if self.is_rare() { 3 } else { 9 }
    }

    /// The points a delivered cube of this kind scores (C-7.3): 6 rare, 3
    /// common.
    pub const fn points(self) -> i32 {
        if self.is_rare() { 6 } else { 3 }
    }

    /// The two-character name (`R1`, `C3`).
    pub const fn name(self) -> &'static str {
        ["R1", "R2", "R3", "R4", "C1", "C2", "C3", "C4"][self as usize]
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Kind, NotationError> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| NotationError::new(s, "a kind of goods is one of R1..R4, C1..C4"))
    }
}

/// The full cube count per kind (C-1.3): `[3, 3, 3, 3, 9, 9, 9, 9]`, 48 in all.
pub const FULL_BAG: [u8; KINDS] = [3, 3, 3, 3, 9, 9, 9, 9];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flood_follows_orthogonal_adjacency_only() {
        // C-2: a diagonal neighbour is not adjacent; no wrap between rows.
        let a = Square::new(3, 6).unwrap().bit();
        let wrap = Square::new(4, 0).unwrap().bit(); // index follows a row end
        assert_eq!(flood(a | wrap, a), a);
        let diag = Square::new(4, 5).unwrap().bit();
        assert_eq!(flood(a | diag, a), a);
        let below = Square::new(4, 6).unwrap().bit();
        assert_eq!(flood(a | below | diag, a), a | below | diag);
    }

    #[test]
    fn nth_bit_is_the_nth_of_the_set_bits() {
        let masks = [0u64, 1, FULL, 0x8000_0000_0000_0001, 0x00F0_0F00_F00F_0FF0, 0xDEAD_BEEF_0BAD_F00D, u64::MAX];
        for m in masks {
            let bits: Vec<u32> = Bits(m).map(u32::from).collect();
            for n in 0..66 {
                assert_eq!(nth_bit(m, n), bits.get(n as usize).copied().unwrap_or(64), "{m:#x} {n}");
            }
        }
    }

    #[test]
    fn sparse_and_free_forms_agree_with_the_general_ones() {
        let masks = [0u64, 1, FULL, 1 << 48, 0x00F0_0F00_F00F_0FF0 & FULL, 0xDEAD_BEEF_0BAD_F00D & FULL, 0b1011];
        for m in masks {
            assert_eq!(count_sparse(m), m.count_ones(), "{m:#x}");
            for n in 0..66 {
                assert_eq!(nth_sparse(m, n), nth_bit(m, n), "{m:#x} {n}");
            }
            let free = FULL & !m;
            for n in 0..free.count_ones() {
                assert_eq!(nth_free(m, n), nth_bit(free, n), "{m:#x} {n}");
            }
        }
    }

    #[test]
    fn square_notation_round_trips() {
        for s in Square::all() {
            assert_eq!(s.to_string().parse::<Square>().unwrap(), s);
        }
        assert!("a0".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        assert!("".parse::<Square>().is_err());
    }
}
