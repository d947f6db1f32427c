//! [`Caravan`]: the data of a game (a plain `Copy` struct) and its
//! read-only accessors. The rules that change it live in `rules`.

use serde::{Deserialize, Serialize};

use crate::board::{Bits, KINDS, Kind, SPACES, SQUARES, Square, neighbours};
use crate::config::CaravanConfig;

/// Seats of a game (C-1.1: at most 4).
pub(crate) const MAX_PLAYERS: usize = 4;
/// Camel slots per player (C-1.2: at most 6).
pub(crate) const MAX_CAMELS: usize = 6;
/// An unused camel slot (players not in the game, the 6th camel of a
/// 5-camel game). Sorts after every real camel.
pub(crate) const NO_CAMEL: u16 = 0xFFFF;
/// The location of a camel in its owner's supply.
pub(crate) const SUPPLY_LOC: u16 = SQUARES as u16;

/// How a game ended (C-7.1, C-7.2). A simulator can count how often each end
/// is reached through [`Caravan::end_kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndKind {
    /// C-7.1: the first delivery after the bag emptied.
    Natural,
    /// C-7.2: `max_turns` turns were played.
    MaxTurns,
    /// C-7.2: a full round of passes after the opening.
    Passes,
}

/// What a camel carries (C-5: a laden camel carries exactly one good, on
/// top or under it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Cargo {
    /// Unladen.
    Empty,
    /// A good on top (picked up or moved onto it, C-5.2/C-5.3).
    Top(Kind),
    /// A good under it (stolen, C-5.5).
    Under(Kind),
}

impl Cargo {
    /// The cargo byte of a camel key: 0 empty, `1 + k` top, `9 + k` under.
    pub(crate) const fn code(self) -> u16 {
        match self {
            Cargo::Empty => 0,
            Cargo::Top(k) => 1 + k as u16,
            Cargo::Under(k) => 9 + k as u16,
        }
    }

    pub(crate) const fn from_code(c: u16) -> Cargo {
        match c {
            1..=8 => Cargo::Top(Kind::ALL[(c - 1) as usize]),
            9..=16 => Cargo::Under(Kind::ALL[(c - 9) as usize]),
            _ => Cargo::Empty,
        }
    }

    /// The good carried, if any.
    pub const fn kind(self) -> Option<Kind> {
        match self {
            Cargo::Empty => None,
            Cargo::Top(k) | Cargo::Under(k) => Some(k),
        }
    }
}

/// The state of a game of Caravan: plain fixed-size data (`Copy`, 424
/// bytes), so a clone is a memcpy.
///
/// * camels, per player: the unladen ones as a count per square (three
///   bitboards, the count's binary digits), the laden ones as up to six
///   sorted `u16` keys `square << 8 | cargo` (`0xFFFF` = none), the rest as
///   a supply count — one value per position, so equal positions are equal
///   values (C-5.6) — plus bitboards derived from them: squares occupied,
///   with an unladen camel, with a laden one, with a good on top;
/// * goods lying per numbered space, demand markers per space, the bag as
///   counts per kind, delivered piles per player and kind, demand and theft
///   markers per player;
/// * turn index and the seat it gives, actions left, picks since the last
///   refill, pending draws, consecutive passes and how the game ended.
///
/// Moving an unladen camel, the commonest action, is a few bit operations
/// on the counts; only goods touch the sorted keys.
///
/// Build one with [`boardgame_kit::Game::new_game`] or from a hand-made
/// position with [`Caravan::from_setup`]. Its serde form is the
/// [`crate::CaravanSetup`] of the position; deserializing goes through the
/// same validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Caravan {
    pub(crate) config: CaravanConfig,
    /// Per player, the unladen camels on each square in binary: square `s`
    /// holds `Σ_j ((un_count[p][j] >> s) & 1) << j` of them (at most 6).
    pub(crate) un_count: [[u64; 3]; MAX_PLAYERS],
    /// Per player, the keys `square << 8 | cargo` (cargo ≠ 0) of its laden
    /// camels, sorted, padded with [`NO_CAMEL`].
    pub(crate) loads: [[u16; MAX_CAMELS]; MAX_PLAYERS],
    /// Per player, the squares holding a camel of it (derived).
    pub(crate) occ: [u64; MAX_PLAYERS],
    /// Per player, the squares holding an unladen camel of it (derived from
    /// `un_count`).
    pub(crate) unladen: [u64; MAX_PLAYERS],
    /// Per player, the squares holding a camel with a good on top (derived
    /// from `loads`): what C-5.5 can steal.
    pub(crate) tops: [u64; MAX_PLAYERS],
    /// Per player, the squares holding a laden camel (a good on top or
    /// under; derived from `loads`): where C-5.3 moves start.
    pub(crate) laden: [u64; MAX_PLAYERS],
    /// Per player, the squares holding or next to a laden camel (derived
    /// from `laden`): an unladen camel there is what lets goods move.
    pub(crate) laden_near: [u64; MAX_PLAYERS],
    /// Per player, the squares holding an unladen camel, counted (derived
    /// from `unladen`).
    pub(crate) un_squares: [u8; MAX_PLAYERS],
    /// Per player, the camels in its supply.
    pub(crate) supply: [u8; MAX_PLAYERS],
    /// `0` for an empty space, `1 + kind` for a good lying there.
    pub(crate) lying: [u8; SPACES],
    /// The squares of the numbered spaces with a good lying (derived from
    /// `lying` and the board): where C-5.2 can pick up.
    pub(crate) lying_at: u64,
    pub(crate) space_markers: [u8; SPACES],
    pub(crate) bag: [u8; KINDS],
    pub(crate) bag_total: u8,
    pub(crate) delivered: [[u8; KINDS]; MAX_PLAYERS],
    pub(crate) demand: [u8; MAX_PLAYERS],
    pub(crate) theft: [u8; MAX_PLAYERS],
    pub(crate) turn_index: u32,
    /// The seat to move, `turn_index % players` (derived).
    pub(crate) seat: u8,
    pub(crate) left: u8,
    pub(crate) picks: u8,
    /// Bit `i`: numbered space `i + 1` waits for a draw (C-3.1, C-6.1).
    pub(crate) pending: u8,
    pub(crate) passes: u8,
    pub(crate) end: Option<EndKind>,
}

impl Caravan {
    /// An empty shell for `config` (no validation): all camels in supply,
    /// all goods in the bag.
    pub(crate) fn blank(config: CaravanConfig) -> Caravan {
        let mut supply = [0; MAX_PLAYERS];
        for n in supply.iter_mut().take(usize::from(config.players)) {
            *n = config.camels;
        }
        let mut theft = [0; MAX_PLAYERS];
        for n in theft.iter_mut().take(usize::from(config.players)) {
            *n = 1; // C-1.5
        }
        Caravan {
            config,
            un_count: [[0; 3]; MAX_PLAYERS],
            loads: [[NO_CAMEL; MAX_CAMELS]; MAX_PLAYERS],
            occ: [0; MAX_PLAYERS],
            unladen: [0; MAX_PLAYERS],
            tops: [0; MAX_PLAYERS],
            laden: [0; MAX_PLAYERS],
            laden_near: [0; MAX_PLAYERS],
            un_squares: [0; MAX_PLAYERS],
            supply,
            lying: [0; SPACES],
            lying_at: 0,
            space_markers: [0; SPACES],
            bag: crate::board::FULL_BAG,
            bag_total: 48,
            delivered: [[0; KINDS]; MAX_PLAYERS],
            demand: [0; MAX_PLAYERS],
            theft,
            turn_index: 0,
            seat: 0,
            left: 1,
            picks: 0,
            pending: 0,
            passes: 0,
            end: None,
        }
    }

    /// Recomputes the derived bitboards of player `p` from its unladen
    /// counts and laden keys.
    #[inline]
    pub(crate) fn refresh(&mut self, p: usize) {
        let [c0, c1, c2] = self.un_count[p];
        let un = c0 | c1 | c2;
        let (mut tops, mut laden) = (0u64, 0u64);
        for &k in &self.loads[p] {
            let loc = k >> 8;
            if loc >= SUPPLY_LOC {
                break; // the unused slots sort last
            }
            let bit = 1u64 << loc;
            laden |= bit;
            if k & 0xFF <= 8 {
                tops |= bit;
            }
        }
        self.unladen[p] = un;
        self.un_squares[p] = un.count_ones() as u8;
        self.tops[p] = tops;
        self.laden[p] = laden;
        self.laden_near[p] = laden | neighbours(laden);
        self.occ[p] = un | laden;
    }

    /// One more unladen camel of player `p` on square `sq` (`< 49`).
    #[inline]
    pub(crate) fn add_unladen(&mut self, p: usize, sq: u32) {
        let bit = 1u64 << (sq & 63);
        let c = &mut self.un_count[p];
        let carry0 = c[0] & bit;
        c[0] ^= bit;
        let carry1 = c[1] & carry0;
        c[1] ^= carry0;
        c[2] ^= carry1;
        self.un_squares[p] = self.un_squares[p].wrapping_add(u8::from(self.unladen[p] & bit == 0));
        self.unladen[p] |= bit;
        self.occ[p] |= bit;
    }

    /// One unladen camel of player `p` fewer on square `sq`, which holds
    /// at least one.
    #[inline]
    pub(crate) fn remove_unladen(&mut self, p: usize, sq: u32) {
        let bit = 1u64 << (sq & 63);
        let c = &mut self.un_count[p];
        let borrow0 = !c[0] & bit;
        c[0] ^= bit;
        let borrow1 = !c[1] & borrow0;
        c[1] ^= borrow0;
        c[2] ^= borrow1;
        let un = c[0] | c[1] | c[2];
        self.un_squares[p] = self.un_squares[p].wrapping_sub(u8::from(un & bit == 0));
        self.unladen[p] = un;
        self.occ[p] = un | self.laden[p];
    }

    /// Adds the laden key `key` to player `p`'s, keeping them sorted and
    /// the bitboards in step (a full row of keys is left as it is: six
    /// camels is the most a player has).
    #[inline]
    pub(crate) fn add_load(&mut self, p: usize, key: u16) {
        let keys = &mut self.loads[p];
        if let Some(last) = keys.last_mut()
            && *last == NO_CAMEL
        {
            *last = key;
            keys.sort_unstable();
        }
        self.refresh(p);
    }

    /// Removes one laden key `key` of player `p` (if it has one), keeping
    /// them sorted and the bitboards in step.
    #[inline]
    pub(crate) fn remove_load(&mut self, p: usize, key: u16) {
        let keys = &mut self.loads[p];
        if let Some(i) = keys.iter().position(|&k| k == key) {
            keys[i] = NO_CAMEL;
            keys[i..].rotate_left(1);
        }
        self.refresh(p);
    }

    /// The unladen camels of player `p` on square `sq`.
    #[inline]
    pub(crate) fn unladen_at(&self, p: usize, sq: u32) -> u32 {
        let c = &self.un_count[p];
        let s = sq & 63;
        ((c[0] >> s) & 1 | ((c[1] >> s) & 1) << 1 | ((c[2] >> s) & 1) << 2) as u32
    }

    /// Player `p`'s camels as sorted keys `square << 8 | cargo`: one per
    /// camel on the board, then `49 << 8` per camel in its supply, padded
    /// with [`NO_CAMEL`].
    pub(crate) fn keys(&self, p: usize) -> [u16; MAX_CAMELS] {
        let mut out = [NO_CAMEL; MAX_CAMELS];
        let mut slots = out.iter_mut();
        let mut loads = self.loads[p].iter().copied().take_while(|&k| k != NO_CAMEL).peekable();
        for sq in Bits(self.occ[p]) {
            let loc = u16::from(sq);
            for _ in 0..self.unladen_at(p, u32::from(sq)) {
                if let Some(slot) = slots.next() {
                    *slot = loc << 8;
                }
            }
            while let Some(k) = loads.next_if(|&k| k >> 8 == loc) {
                if let Some(slot) = slots.next() {
                    *slot = k;
                }
            }
        }
        for _ in 0..self.supply[p] {
            if let Some(slot) = slots.next() {
                *slot = SUPPLY_LOC << 8;
            }
        }
        out
    }

    /// Sets the derived seat to move from the turn index (`turn_index %
    /// players`).
    #[inline]
    pub(crate) fn refresh_seat(&mut self) {
        self.seat = (self.turn_index % u32::from(self.config.players.max(1))) as u8;
    }

    /// Recomputes the bitboard `lying_at` from the goods lying.
    pub(crate) fn refresh_lying(&mut self) {
        let mut at = 0u64;
        for (&v, &sq) in self.lying.iter().zip(&self.config.board.spaces) {
            at |= u64::from(v != 0) << (sq & 63);
        }
        self.lying_at = at;
    }

    /// The seat whose turn it is (also during a chance node inside a turn).
    #[inline]
    pub fn to_move(&self) -> usize {
        usize::from(self.seat)
    }

    /// Squares holding at least one camel of anyone (C-5: "occupied").
    #[inline]
    pub(crate) fn occupied(&self) -> u64 {
        self.occ[0] | self.occ[1] | self.occ[2] | self.occ[3]
    }

    /// How the game ended, `None` while it goes on.
    pub fn end_kind(&self) -> Option<EndKind> {
        self.end
    }

    /// The turn index `t` (C-4.1), counting all players' turns from 0.
    pub fn turn_index(&self) -> u32 {
        self.turn_index
    }

    /// The actions left in the current turn (C-4.2); 0 once the game is over.
    pub fn actions_left(&self) -> u8 {
        self.left
    }

    /// Goods picked up since the last refill (C-6.1).
    pub fn picks_since_refill(&self) -> u8 {
        self.picks
    }

    /// The cubes of each kind in the bag (C-8.1: public as a multiset).
    pub fn bag(&self) -> [u8; KINDS] {
        self.bag
    }

    /// The number of cubes in the bag.
    pub fn bag_len(&self) -> u8 {
        self.bag_total
    }

    /// The good lying on numbered space `number` (`1..=8`).
    pub fn lying(&self, number: u8) -> Option<Kind> {
        let i = usize::from(number).checked_sub(1)?;
        let v = *self.lying.get(i)?;
        v.checked_sub(1).and_then(Kind::from_index)
    }

    /// The demand markers on numbered space `number` (`1..=8`), 0 for others.
    pub fn space_markers(&self, number: u8) -> u8 {
        usize::from(number).checked_sub(1).and_then(|i| self.space_markers.get(i).copied()).unwrap_or(0)
    }

    /// The numbered spaces (bit `i` = space `i + 1`) waiting for a draw.
    pub fn pending_draws(&self) -> u8 {
        self.pending
    }

    /// The consecutive passes after the opening (C-7.2).
    pub fn passes(&self) -> u8 {
        self.passes
    }

    /// Camels of `seat` in its supply (0 for a seat not in the game).
    pub fn supply(&self, seat: usize) -> u8 {
        self.supply.get(seat).copied().unwrap_or(0)
    }

    /// The camels of `seat` on the board, as `(square, cargo)`, sorted.
    pub fn camels_on_board(&self, seat: usize) -> impl Iterator<Item = (Square, Cargo)> + '_ {
        let keys = if seat < usize::from(self.config.players).min(MAX_PLAYERS) {
            self.keys(seat)
        } else {
            [NO_CAMEL; MAX_CAMELS]
        };
        keys.into_iter().filter_map(|k| {
            let sq = Square::from_index((k >> 8) as u8)?;
            Some((sq, Cargo::from_code(k & 0xFF)))
        })
    }

    /// Goods of each kind in `seat`'s delivered pile.
    pub fn delivered(&self, seat: usize) -> [u8; KINDS] {
        self.delivered.get(seat).copied().unwrap_or([0; KINDS])
    }

    /// Goods in `seat`'s delivered pile.
    pub fn delivered_count(&self, seat: usize) -> u32 {
        self.delivered(seat).iter().map(|&n| u32::from(n)).sum()
    }

    /// Demand markers held by `seat` (C-5.2).
    pub fn demand_markers(&self, seat: usize) -> u8 {
        self.demand.get(seat).copied().unwrap_or(0)
    }

    /// Theft markers held by `seat` (C-1.5, C-5.5).
    pub fn theft_markers(&self, seat: usize) -> u8 {
        self.theft.get(seat).copied().unwrap_or(0)
    }

    /// Goods on or under `seat`'s camels (C-7.4).
    pub fn held(&self, seat: usize) -> u32 {
        self.loads.get(seat).into_iter().flatten().filter(|&&k| k != NO_CAMEL).count() as u32
    }

    /// Every good in the game, wherever it is (C-1.3: always 48): bag,
    /// lying, carried and delivered, per kind.
    pub fn goods_by_kind(&self) -> [u32; KINDS] {
        let mut n = self.bag.map(u32::from);
        for &v in &self.lying {
            if let Some(k) = usize::from(v).checked_sub(1) {
                n[k & 7] += 1;
            }
        }
        for (loads, pile) in self.loads.iter().zip(&self.delivered) {
            for &key in loads {
                if key != NO_CAMEL
                    && let Some(k) = Cargo::from_code(key & 0xFF).kind()
                {
                    n[k as usize] += 1;
                }
            }
            for (total, &d) in n.iter_mut().zip(pile) {
                *total += u32::from(d);
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> Caravan {
        Caravan::blank(CaravanConfig::default())
    }

    #[test]
    fn unladen_counts_go_up_and_down_to_six_on_one_square() {
        let mut s = three();
        for n in 1..=6 {
            s.add_unladen(1, 24);
            assert_eq!(s.unladen_at(1, 24), n);
            assert_eq!((s.unladen[1], s.occ[1], s.un_squares[1]), (1 << 24, 1 << 24, 1));
        }
        for n in (0..6).rev() {
            s.remove_unladen(1, 24);
            assert_eq!(s.unladen_at(1, 24), n);
        }
        assert_eq!((s.unladen[1], s.occ[1], s.un_squares[1]), (0, 0, 0));
        assert_eq!(s.un_count[1], [0; 3]);
    }

    #[test]
    fn keys_list_each_camel_sorted_with_the_supply_last() {
        let mut s = three();
        s.supply[0] = 0;
        s.add_unladen(0, 30);
        s.add_unladen(0, 30);
        s.add_unladen(0, 2);
        s.add_load(0, (30 << 8) | Cargo::Under(Kind::ALL[3]).code());
        s.add_load(0, (2 << 8) | Cargo::Top(Kind::ALL[0]).code());
        assert_eq!(s.keys(0), [2 << 8, (2 << 8) | 1, 30 << 8, 30 << 8, (30 << 8) | 12, NO_CAMEL]);
        assert_eq!((s.laden[0], s.tops[0], s.un_squares[0]), ((1 << 2) | (1 << 30), 1 << 2, 2));
        assert_eq!(s.laden_near[0], (1u64 << 2) | (1 << 30) | crate::board::neighbours((1 << 2) | (1 << 30)));
        s.remove_load(0, (2 << 8) | 1);
        assert_eq!(s.loads[0], [(30 << 8) | 12, NO_CAMEL, NO_CAMEL, NO_CAMEL, NO_CAMEL, NO_CAMEL]);
        assert_eq!((s.tops[0], s.occ[0]), (0, (1 << 2) | (1 << 30)));
        assert_eq!(three().keys(2), [SUPPLY_LOC << 8; 5].into_iter().chain([NO_CAMEL]).collect::<Vec<_>>()[..]);
    }
}
