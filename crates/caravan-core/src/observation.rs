//! The observation (C-8): the typed [`CaravanObservation`] and the flat
//! tensor whose layout `docs/encoding-caravan.md` documents.

use serde::{Deserialize, Serialize};

use crate::board::{Bits, KINDS, SPACES, SQUARES};
use crate::rules::allowance;
use crate::setup::CaravanSetup;
use crate::state::{Caravan, EndKind, MAX_PLAYERS, SUPPLY_LOC};

/// What a seat knows of a Caravan game: everything (C-8.1, C-8.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaravanObservation {
    /// The observing seat.
    pub observer: u8,
    /// The whole public position.
    pub position: CaravanSetup,
}

/// Planes over the 49 squares (see `docs/encoding-caravan.md`).
pub const PLANES: usize = 38;
/// Scalars per player slot.
pub const PLAYER_SCALARS: usize = 13;
/// Global scalars.
pub const GLOBAL_SCALARS: usize = 24;
/// The length of the flat observation tensor (the same for every config).
pub const TENSOR_LEN: usize = PLANES * SQUARES + MAX_PLAYERS * PLAYER_SCALARS + GLOBAL_SCALARS;

const P_UNLADEN: usize = 0;
const P_TOP: usize = 4;
const P_UNDER: usize = 8;
const P_LYING: usize = 12;
const P_CARRIED: usize = 20;
const P_MARKERS: usize = 28;
const P_CITY: usize = 29;
const P_SPACE: usize = 37;

impl Caravan {
    /// The observation of `seat` (checked by the caller): the whole
    /// position, since a seat knows everything (C-8.1, C-8.2; `knowledge`).
    pub(crate) fn observe(&self, seat: usize) -> CaravanObservation {
        CaravanObservation { observer: seat as u8, position: self.to_setup() }
    }

    /// Writes the tensor of `seat` (checked by the caller) into `out`
    /// (length [`TENSOR_LEN`]). Players are in slots relative to the
    /// observer: slot `j` is seat `(seat + j) % players`.
    pub(crate) fn write_tensor(&self, seat: usize, out: &mut [f32]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        let n = usize::from(self.config.players);
        let plane = |out: &mut [f32], plane: usize, sq: usize, v: f32| {
            if let Some(x) = out.get_mut(plane * SQUARES + sq) {
                *x += v;
            }
        };
        for j in 0..n {
            let p = (seat + j) % n;
            // unladen camels: their count per square
            for sq in Bits(self.unladen[p]) {
                plane(out, P_UNLADEN + j, usize::from(sq), self.unladen_at(p, u32::from(sq)) as f32);
            }
            // laden camels: one key each
            for &key in &self.loads[p] {
                let loc = key >> 8;
                if loc >= SUPPLY_LOC {
                    break;
                }
                let sq = usize::from(loc);
                let cargo = usize::from(key & 0xFF);
                if cargo <= 8 {
                    plane(out, P_TOP + j, sq, 1.0);
                    plane(out, P_CARRIED + ((cargo - 1) & 7), sq, 1.0);
                } else {
                    plane(out, P_UNDER + j, sq, 1.0);
                    plane(out, P_CARRIED + ((cargo - 9) & 7), sq, 1.0);
                }
            }
        }
        for i in 0..SPACES {
            let sq = usize::from(self.config.board.spaces[i]);
            if let Some(k) = usize::from(self.lying[i]).checked_sub(1) {
                plane(out, P_LYING + (k & 7), sq, 1.0);
            }
            plane(out, P_MARKERS, sq, f32::from(self.space_markers[i]));
            plane(out, P_SPACE, sq, 1.0);
        }
        for k in 0..KINDS {
            plane(out, P_CITY + k, usize::from(self.config.board.cities[k]), 1.0);
        }
        let mut i = PLANES * SQUARES;
        let mut put = |out: &mut [f32], v: f32| {
            if let Some(x) = out.get_mut(i) {
                *x = v;
            }
            i += 1;
        };
        for j in 0..MAX_PLAYERS {
            if j >= n {
                for _ in 0..PLAYER_SCALARS {
                    put(out, 0.0);
                }
                continue;
            }
            let p = (seat + j) % n;
            put(out, 1.0);
            put(out, f32::from(self.supply[p]));
            put(out, f32::from(self.demand[p]));
            put(out, f32::from(self.theft[p]));
            for k in 0..KINDS {
                put(out, f32::from(self.delivered[p][k]));
            }
            put(out, self.points(p) as f32);
        }
        for k in 0..KINDS {
            put(out, f32::from(self.bag[k]));
        }
        put(out, f32::from(self.bag_total));
        put(out, self.turn_index as f32 / self.config.max_turns.max(1) as f32);
        put(out, f32::from(self.left));
        put(out, f32::from(allowance(self.turn_index)));
        put(out, f32::from(self.picks));
        put(out, self.pending.count_ones() as f32);
        put(out, f32::from(self.passes));
        let mover = (self.to_move() + n - seat % n.max(1)) % n.max(1);
        for j in 0..MAX_PLAYERS {
            put(out, if self.end.is_none() && j == mover { 1.0 } else { 0.0 });
        }
        put(out, if self.end.is_none() && self.pending != 0 { 1.0 } else { 0.0 });
        put(out, if self.end.is_some() { 1.0 } else { 0.0 });
        for e in [EndKind::Natural, EndKind::MaxTurns, EndKind::Passes] {
            put(out, if self.end == Some(e) { 1.0 } else { 0.0 });
        }
    }
}
