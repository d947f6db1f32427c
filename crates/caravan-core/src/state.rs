//! [`Caravan`]: the data of a game (a plain `Copy` struct) and its
//! read-only accessors. The rules that change it live in `rules`.

use serde::{Deserialize, Serialize};

use crate::board::{KINDS, Kind, SPACES, SQUARES, Square};
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
const SUPPLY_KEY: u16 = SUPPLY_LOC << 8;

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

/// The state of a game of Caravan: plain fixed-size data (`Copy`, about 300
/// bytes), so a clone is a memcpy.
///
/// * camels: per player, six `u16` keys `square << 8 | cargo` (square 49 =
///   supply, `0xFFFF` = no camel), kept sorted so that equal positions are
///   equal values (C-5.6), with per-player bitboards of occupied squares and
///   of squares holding an unladen camel;
/// * goods lying per numbered space, demand markers per space, the bag as
///   counts per kind, delivered piles per player and kind, demand and theft
///   markers per player;
/// * turn index, actions left, picks since the last refill, pending draws,
///   consecutive passes and how the game ended.
///
/// Build one with [`boardgame_kit::Game::new_game`] or from a hand-made
/// position with [`Caravan::from_setup`]. Its serde form is the
/// [`crate::CaravanSetup`] of the position; deserializing goes through the
/// same validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Caravan {
    pub(crate) config: CaravanConfig,
    pub(crate) camels: [[u16; MAX_CAMELS]; MAX_PLAYERS],
    pub(crate) occ: [u64; MAX_PLAYERS],
    pub(crate) unladen: [u64; MAX_PLAYERS],
    /// Per player, the squares holding a camel with a good on top (derived
    /// from `camels` like `occ` and `unladen`): what C-5.5 can steal.
    pub(crate) tops: [u64; MAX_PLAYERS],
    /// Per player, the squares holding a laden camel (a good on top or
    /// under; derived from `camels`): where C-5.3 moves start.
    pub(crate) laden: [u64; MAX_PLAYERS],
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
        let mut camels = [[NO_CAMEL; MAX_CAMELS]; MAX_PLAYERS];
        for row in camels.iter_mut().take(usize::from(config.players)) {
            for slot in row.iter_mut().take(usize::from(config.camels)) {
                *slot = SUPPLY_KEY;
            }
        }
        let mut s = Caravan {
            config,
            camels,
            occ: [0; MAX_PLAYERS],
            unladen: [0; MAX_PLAYERS],
            tops: [0; MAX_PLAYERS],
            laden: [0; MAX_PLAYERS],
            supply: [0; MAX_PLAYERS],
            lying: [0; SPACES],
            lying_at: 0,
            space_markers: [0; SPACES],
            bag: crate::board::FULL_BAG,
            bag_total: 48,
            delivered: [[0; KINDS]; MAX_PLAYERS],
            demand: [0; MAX_PLAYERS],
            theft: [0; MAX_PLAYERS],
            turn_index: 0,
            left: 1,
            picks: 0,
            pending: 0,
            passes: 0,
            end: None,
        };
        for p in 0..usize::from(config.players) {
            s.theft[p] = 1; // C-1.5
            s.refresh(p);
        }
        s
    }

    /// Recomputes the bitboards and supply count of player `p` from its keys.
    #[inline]
    pub(crate) fn refresh(&mut self, p: usize) {
        let (mut occ, mut un, mut tops, mut laden, mut sup) = (0u64, 0u64, 0u64, 0u64, 0u8);
        for &k in &self.camels[p] {
            let loc = k >> 8;
            if loc < SUPPLY_LOC {
                let bit = 1u64 << loc;
                occ |= bit;
                match k & 0xFF {
                    0 => un |= bit,
                    1..=8 => {
                        tops |= bit;
                        laden |= bit;
                    }
                    _ => laden |= bit,
                }
            } else if loc == SUPPLY_LOC {
                sup += 1;
            } else {
                break; // the unused slots sort last
            }
        }
        self.occ[p] = occ;
        self.unladen[p] = un;
        self.tops[p] = tops;
        self.laden[p] = laden;
        self.supply[p] = sup;
    }

    /// Recomputes the bitboard `lying_at` from the goods lying.
    pub(crate) fn refresh_lying(&mut self) {
        let mut at = 0u64;
        for (&v, &sq) in self.lying.iter().zip(&self.config.board.spaces) {
            at |= u64::from(v != 0) << (sq & 63);
        }
        self.lying_at = at;
    }

    /// Replaces one camel key `old` of player `p` by `new`, keeping the keys
    /// sorted and the bitboards in step.
    ///
    /// The bitboards change only on the two squares involved: when no other
    /// camel of `p` stands on the square `old` leaves (the keys of one square
    /// are neighbours in the sorted array), that square's bits are cleared
    /// and the new key's bit is set; a square shared with another camel of
    /// `p` (rarer) recomputes them all from the keys.
    #[inline]
    pub(crate) fn replace(&mut self, p: usize, old: u16, new: u16) {
        let arr = &mut self.camels[p];
        let Some(mut i) = arr.iter().position(|&k| k == old) else {
            return;
        };
        let from = old >> 8;
        let shared = from < SUPPLY_LOC
            && ((i > 0 && arr[i - 1] >> 8 == from) || (i + 1 < MAX_CAMELS && arr[i + 1] >> 8 == from));
        arr[i] = new;
        while i > 0 && arr[i - 1] > arr[i] {
            arr.swap(i - 1, i);
            i -= 1;
        }
        while i + 1 < MAX_CAMELS && arr[i + 1] < arr[i] {
            arr.swap(i, i + 1);
            i += 1;
        }
        if shared {
            self.refresh(p);
            return;
        }
        if from < SUPPLY_LOC {
            let keep = !(1u64 << from);
            self.occ[p] &= keep;
            self.unladen[p] &= keep;
            self.tops[p] &= keep;
            self.laden[p] &= keep;
        } else if from == SUPPLY_LOC {
            self.supply[p] = self.supply[p].saturating_sub(1);
        }
        let to = new >> 8;
        if to < SUPPLY_LOC {
            let bit = 1u64 << to;
            self.occ[p] |= bit;
            match new & 0xFF {
                0 => self.unladen[p] |= bit,
                1..=8 => {
                    self.tops[p] |= bit;
                    self.laden[p] |= bit;
                }
                _ => self.laden[p] |= bit,
            }
        } else if to == SUPPLY_LOC {
            self.supply[p] = self.supply[p].saturating_add(1);
        }
    }

    /// The seat whose turn it is (also during a chance node inside a turn).
    #[inline]
    pub fn to_move(&self) -> usize {
        (self.turn_index % u32::from(self.config.players.max(1))) as usize
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

    /// Camels of `player` in its supply (0 for a seat not in the game).
    pub fn supply(&self, player: usize) -> u8 {
        self.supply.get(player).copied().unwrap_or(0)
    }

    /// The camels of `player` on the board, as `(square, cargo)`, sorted.
    pub fn camels_on_board(&self, player: usize) -> impl Iterator<Item = (Square, Cargo)> + '_ {
        self.camels.get(player).into_iter().flatten().filter_map(|&k| {
            let sq = Square::from_index((k >> 8) as u8)?;
            Some((sq, Cargo::from_code(k & 0xFF)))
        })
    }

    /// Goods of each kind in `player`'s delivered pile.
    pub fn delivered(&self, player: usize) -> [u8; KINDS] {
        self.delivered.get(player).copied().unwrap_or([0; KINDS])
    }

    /// Goods in `player`'s delivered pile.
    pub fn delivered_count(&self, player: usize) -> u32 {
        self.delivered(player).iter().map(|&n| u32::from(n)).sum()
    }

    /// Demand markers held by `player` (C-5.2).
    pub fn demand_markers(&self, player: usize) -> u8 {
        self.demand.get(player).copied().unwrap_or(0)
    }

    /// Theft markers held by `player` (C-1.5, C-5.5).
    pub fn theft_markers(&self, player: usize) -> u8 {
        self.theft.get(player).copied().unwrap_or(0)
    }

    /// Goods on or under `player`'s camels (C-7.4).
    pub fn held(&self, player: usize) -> u32 {
        self.camels.get(player).into_iter().flatten().filter(|&&k| k != NO_CAMEL && k & 0xFF != 0).count() as u32
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
        for (camels, pile) in self.camels.iter().zip(&self.delivered) {
            for &key in camels {
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
