//! The observation (C-8): the typed [`CaravanObservation`] and the flat
//! tensor whose layout `docs/encoding-caravan.md` documents.

use serde::{Deserialize, Serialize};

use crate::board::{Bits, FULL_BAG, KINDS, Kind, SPACES, SQUARES};
use crate::config::CaravanConfig;
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

/// The bounds of every entry of the tensor under `config`, `(low, high)`
/// (`Game::observation_tensor_bounds`), from the rules: a slot past the
/// players is always 0; a square holds at most a player's `camels` camels of
/// each kind (unladen, good on top, good under) and at most the box's cubes
/// of a kind (C-1.3); the demand markers are unlimited (C-1.4) and counted
/// in a byte (255); theft markers are at most one per player (C-1.5, C-5.5);
/// the score is at most 255 markers plus every cube delivered, at least the
/// held-goods penalty of `camels` goods (C-7.3, C-7.4); a turn allows at
/// most 4 actions (C-4.1); 4 picks trigger a refill (C-6.1); `players`
/// passes end the game (C-7.2).
pub fn tensor_bounds(config: &CaravanConfig) -> (Vec<f32>, Vec<f32>) {
    let n = usize::from(config.players).min(MAX_PLAYERS);
    let camels = f32::from(config.camels);
    let cubes = FULL_BAG.map(f32::from);
    let bag_total: f32 = cubes.iter().sum();
    let most_points =
        f32::from(u8::MAX) + Kind::ALL.iter().map(|&k| cubes[k as usize] * k.points() as f32).sum::<f32>();
    let fewest_points = if config.held_penalty { -(camels * (camels - 1.0) / 2.0) } else { 0.0 };
    let mut low = vec![0f32; TENSOR_LEN];
    let mut high = vec![0f32; TENSOR_LEN];
    let mut plane = |p: usize, v: f32| high[p * SQUARES..(p + 1) * SQUARES].iter_mut().for_each(|x| *x = v);
    for j in 0..n {
        plane(P_UNLADEN + j, camels);
        plane(P_TOP + j, camels);
        plane(P_UNDER + j, camels);
    }
    for (k, &c) in cubes.iter().enumerate() {
        plane(P_LYING + k, 1.0);
        plane(P_CARRIED + k, c);
        plane(P_CITY + k, 1.0);
    }
    plane(P_MARKERS, f32::from(u8::MAX));
    plane(P_SPACE, 1.0);
    let mut i = PLANES * SQUARES;
    let mut put = |lo: f32, hi: f32| {
        low[i] = lo;
        high[i] = hi;
        i += 1;
    };
    for j in 0..MAX_PLAYERS {
        if j >= n {
            (0..PLAYER_SCALARS).for_each(|_| put(0.0, 0.0));
            continue;
        }
        put(1.0, 1.0); // present
        put(0.0, camels); // supply
        put(0.0, f32::from(u8::MAX)); // demand markers
        put(0.0, n as f32); // theft markers
        for &c in &cubes {
            put(0.0, c); // delivered
        }
        put(fewest_points, most_points);
    }
    for &c in &cubes {
        put(0.0, c); // the bag
    }
    put(0.0, bag_total);
    put(0.0, 1.0); // turn / max_turns
    put(0.0, f32::from(allowance(u32::MAX))); // actions left
    put(f32::from(allowance(0)), f32::from(allowance(u32::MAX))); // allowance
    put(0.0, 3.0); // picks since the refill
    put(0.0, SPACES as f32); // draws pending
    put(0.0, n as f32); // passes
    for j in 0..MAX_PLAYERS {
        put(0.0, if j < n { 1.0 } else { 0.0 }); // the mover's slot
    }
    (0..5).for_each(|_| put(0.0, 1.0)); // chance, over, end kinds
    (low, high)
}
