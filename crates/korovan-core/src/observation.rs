//! Observations (K-8): [`KorovanObservation`] — built from the knowledge
//! model (`knowledge`) — and its fixed-length tensor. The layout of the tensor
//! is documented in `docs/encoding-korovan.md`; the rendering of an
//! observation is in `display`.

use serde::{Deserialize, Serialize};

use boardgame_kit::{GameError, Turn};

use crate::config::{HelperCounts, KorovanConfig, MAX_PLAYERS, MAX_ROWS};
use crate::error::KorovanError;
use crate::state::{HelperLog, Korovan, NONE, Phase};

/// The length of the observation tensor (the same for every configuration).
pub const TENSOR_LEN: usize = 303;

/// What one player may know of a state (K-8): the public part (K-8.1) and
/// its own private part (K-8.2/K-8.3), nothing else. Cells are numbered
/// `3·(row−1) + pos` in the `u32` masks; rows are bit `row−1` of the `u8`
/// masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KorovanObservation {
    /// The observing seat.
    pub observer: u8,
    /// N.
    pub players: u8,
    /// Whose decision it is.
    pub turn: Turn,
    /// The phase.
    pub phase: Phase,
    /// The round (0-based; skipped rounds count).
    pub round: u8,
    /// The lap (0-based).
    pub lap: u8,
    /// The driver's seat.
    pub driver: u8,
    /// Everyone's cows (entries past N are 0).
    pub cows: [u8; MAX_PLAYERS],
    /// Rows laid this round.
    pub rows_laid: u8,
    /// The current journey row (1-based) during the journey.
    pub current_row: Option<u8>,
    /// The token's position.
    pub token: Option<u8>,
    /// Switches left in the step.
    pub switches_left: u8,
    /// The fine being resolved (Defend), else 0.
    pub pending_fine: u8,
    /// Face-up cells (public).
    pub face_up: u32,
    /// Cells whose face the observer knows (face up, own row, own peek, own scouts).
    pub known: u32,
    /// Known cells that hold an ambush.
    pub known_ambush: u32,
    /// The route: cells where the token resolved.
    pub route: u32,
    /// Every peek's target cell, per peeking row (row 1 never peeks).
    pub peeks: [Option<u8>; MAX_ROWS],
    /// Cells the driver scouted (targets are public, results are not).
    pub scouted: u32,
    /// Rows the driver spied (targets are public).
    pub spied: u8,
    /// Rows whose owner's hand card the observer knows (shown, own, spied).
    pub hand_known: u8,
    /// Of those, the rows whose hand card is an `Ambush` (one ambush in the row).
    pub hand_ambush: u8,
    /// How many helpers the driver holds (public).
    pub helpers_in_hand: u8,
    /// The driver's helper hand, for the driver only (K-8.3).
    pub helper_hand: Option<HelperCounts>,
    /// Helpers played this round per kind (public).
    pub played: HelperCounts,
    /// Every helper played this round with its target, in the order played
    /// (public, K-8.1).
    pub helpers_played: HelperLog,
}

impl KorovanObservation {
    /// `seat`'s observation of `state`.
    ///
    /// # Errors
    /// [`GameError::Seat`] when `seat` is not a seat of the game.
    pub fn new(state: &Korovan, seat: usize) -> Result<KorovanObservation, KorovanError> {
        let n = usize::from(state.n);
        if seat >= n {
            return Err(GameError::Seat { seat, players: n });
        }
        let laid = state.laid_mask();
        let known = state.known_cells(seat) & laid;
        let rows_laid_mask = 1u32.wrapping_shl(u32::from(state.laid.min(8))).wrapping_sub(1) as u8;
        let hand_known = state.known_hands(seat) & rows_laid_mask;
        let mut hand_ambush = 0u8;
        for r in 0..state.laid.min(8) {
            if hand_known & (1 << r) != 0 && state.row_ambushes(r) == 1 {
                hand_ambush |= 1 << r;
            }
        }
        let mut peeks = [None; MAX_ROWS];
        for (o, &p) in peeks.iter_mut().zip(state.peeks.iter()) {
            if p != NONE {
                *o = Some(p);
            }
        }
        let is_driver = state.sees_hand(seat);
        Ok(KorovanObservation {
            observer: seat as u8,
            players: state.n,
            turn: state.whose_turn(),
            phase: state.phase,
            round: state.round,
            lap: state.round / state.n,
            driver: state.driver,
            cows: state.cows,
            rows_laid: state.laid,
            current_row: state.current_row(),
            token: state.token(),
            switches_left: state.switches,
            pending_fine: state.fine,
            face_up: state.face_up,
            known,
            known_ambush: known & state.ambush,
            route: state.resolved,
            peeks,
            scouted: state.scouted,
            spied: state.spied,
            hand_known,
            hand_ambush,
            helpers_in_hand: state.hand_count,
            helper_hand: is_driver.then(|| HelperCounts::from_array(state.hand)),
            played: HelperCounts::from_array(state.played),
            helpers_played: state.log,
        })
    }

    /// Writes the tensor (layout in `docs/encoding-korovan.md`) into `out`.
    /// The order of [`KorovanObservation::helpers_played`] is not encoded:
    /// the tensor holds the counts per kind and the targets (scouted cells,
    /// spied rows, flared cards face up).
    ///
    /// # Errors
    /// [`GameError::Buffer`] when `out.len() != TENSOR_LEN`.
    pub fn write_tensor(&self, out: &mut [f32]) -> Result<(), KorovanError> {
        let found = out.len();
        let out: &mut [f32; TENSOR_LEN] =
            out.try_into().map_err(|_| GameError::Buffer { found, expected: TENSOR_LEN })?;
        *out = [0.0; TENSOR_LEN];
        let mut one = |i: usize| {
            if let Some(x) = out.get_mut(i) {
                *x = 1.0;
            }
        };
        one(usize::from(self.observer)); // 0..9
        one((8 + usize::from(self.players)).min(17)); // 9..18
        one(18 + usize::from(self.driver)); // 18..27
        match self.turn {
            Turn::Player(p) if p < MAX_PLAYERS => one(27 + p), // 27..36
            Turn::Player(_) => {}
            Turn::Chance => one(36),
            Turn::Terminal => one(37),
        }
        one(38
            + match self.phase {
                Phase::Deal => 0,
                Phase::Peek => 1,
                Phase::Lay => 2,
                Phase::Place => 3,
                Phase::Decide => 4,
                Phase::Defend => 5,
                Phase::Over => 6,
            }); // 38..45
        if let Some(r) = self.current_row {
            one((55 + usize::from(r)).clamp(56, 63)); // 56..64
        }
        let laid = 1u32.wrapping_shl(u32::from(self.rows_laid.min(8)) * 3).wrapping_sub(1);
        let token_cell = match (self.current_row, self.token) {
            (Some(r), Some(p)) => 1u32.wrapping_shl(u32::from(r.wrapping_sub(1)) * 3 + u32::from(p)),
            _ => 0,
        };
        let mut peeked = 0u32;
        for p in self.peeks.iter().flatten() {
            peeked |= 1u32.wrapping_shl(u32::from(*p));
        }
        let planes = [
            laid,
            self.face_up,
            self.known_ambush,
            self.known & !self.known_ambush,
            token_cell,
            self.route,
            peeked,
            self.scouted,
        ];
        for (k, &m) in planes.iter().enumerate() {
            // the set cells only (the tensor was zeroed)
            let mut m = m & 0xFF_FFFF;
            while m != 0 {
                one(64 + k * 24 + m.trailing_zeros() as usize); // 64..256
                m &= m - 1;
            }
        }
        let own_row = if self.observer != self.driver && self.phase != Phase::Over {
            let n = u32::from(self.players).max(1);
            let r = (u32::from(self.observer) + 2 * n - u32::from(self.driver) % n - 1) % n;
            if r < u32::from(self.rows_laid) { 1u8.wrapping_shl(r) } else { 0 }
        } else {
            0
        };
        let rows = [self.hand_ambush, self.hand_known & !self.hand_ambush, self.spied, own_row];
        for (k, &m) in rows.iter().enumerate() {
            let mut m = m;
            while m != 0 {
                one(256 + k * 8 + m.trailing_zeros() as usize); // 256..288
                m &= m - 1;
            }
        }
        for (x, &c) in out[45..54].iter_mut().zip(self.cows.iter()) {
            *x = f32::from(c); // 45..54
        }
        out[54] = f32::from(self.round);
        out[55] = f32::from(self.lap);
        out[288] = f32::from(self.switches_left);
        out[289] = f32::from(self.pending_fine);
        out[290] = f32::from(self.helpers_in_hand);
        if let Some(h) = self.helper_hand {
            for (i, &c) in h.to_array().iter().enumerate() {
                out[291 + i] = f32::from(c); // 291..297
            }
        }
        for (i, &c) in self.played.to_array().iter().enumerate() {
            out[297 + i] = f32::from(c); // 297..303
        }
        Ok(())
    }
}

/// The bounds of every entry of the tensor under `config`, `(low, high)`
/// (`Game::observation_tensor_bounds`), from the rules: the one-hot and 0/1
/// entries lie in `[0, 1]`; a seat past N has no cows, a seat at most all
/// the table's N·`starting_cows` (K-1.2); the round is at most N·`laps`, the
/// lap at most `laps` (K-7.2); a step has one switch plus one per
/// `SecondThought` played (K-5.3, K-6); the fine due is at most the larger
/// fine (K-5.5); the driver holds at most the hand size (K-3.1), of a kind
/// at most the deck's cards of that kind, and no more can be played in a
/// round (K-6).
pub fn tensor_bounds(config: &KorovanConfig) -> (Vec<f32>, Vec<f32>) {
    let n = usize::from(config.players).min(MAX_PLAYERS);
    let hand = config.hand();
    let deck = config.deck.to_array();
    let low = vec![0f32; TENSOR_LEN];
    let mut high = vec![1f32; TENSOR_LEN];
    let all_cows = f32::from(config.players) * f32::from(config.start_cows());
    for (j, x) in high[45..54].iter_mut().enumerate() {
        *x = if j < n { all_cows } else { 0.0 };
    }
    high[54] = config.rounds() as f32;
    high[55] = f32::from(config.laps);
    high[288] = 1.0 + f32::from(hand.min(deck[3]));
    high[289] = f32::from(config.fines.one_ambush.max(config.fines.two_ambushes));
    high[290] = f32::from(hand);
    for (i, &d) in deck.iter().enumerate() {
        high[291 + i] = f32::from(hand.min(d));
        high[297 + i] = f32::from(hand.min(d));
    }
    (low, high)
}
