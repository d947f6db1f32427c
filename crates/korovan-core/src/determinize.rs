//! Determinization: a full state consistent with what one observer knows.
//!
//! * Rows: each row the observer does not fully know is redrawn uniformly
//!   among the 6 layouts (K-4.3) that agree with every card the observer has
//!   seen (face up, its peek, its scouts) and with the row's hand card when
//!   the observer knows it (shown in K-5.5, spied, or its own). The prior of
//!   the 6 layouts is uniform (a player keeping a uniformly random card of 4
//!   and laying the rest in a random order gives each layout 1/6) and rows
//!   are independent, so this samples the exact posterior under that prior.
//! * The driver's hand (for every observer but the driver): the hand as dealt
//!   is a uniform draw of the hand size from the deck composition, and every
//!   helper played this round came out of it. The current hand `r` (with the
//!   public count) is sampled with weight `Π_k C(D_k, r_k + p_k)` (the number
//!   of dealt hands, as card sets, that contain the played cards `p`), exactly,
//!   in 128-bit integers.

use boardgame_kit::{Game, GameRng};

use crate::action::AmbushSet;
use crate::config::MAX_HAND;
use crate::error::KorovanError;
use crate::state::{Korovan, Phase};

fn binom(n: u32, k: u32) -> u128 {
    if k > n {
        return 0;
    }
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * u128::from(n - i) / u128::from(i + 1);
    }
    r
}

fn below_u128(rng: &mut GameRng, n: u128) -> u128 {
    if n <= 1 {
        return 0;
    }
    let zone = u128::MAX - (u128::MAX % n);
    loop {
        let r = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        if r < zone {
            return r % n;
        }
    }
}

pub(crate) fn determinize(s: &Korovan, observer: usize, rng: &mut GameRng) -> Result<Korovan, KorovanError> {
    let n = s.num_players();
    if observer >= n {
        return Err(KorovanError::Seat { seat: observer, players: n });
    }
    let mut out = *s;
    if s.phase == Phase::Over {
        return Ok(out);
    }
    let known = s.known_cells(observer);
    let hands = s.known_hands(observer);
    for r in 0..s.laid.min(8) {
        let shift = u32::from(r) * 3;
        let kmask = (known >> shift) & 7;
        if kmask == 7 {
            continue;
        }
        let truth = (s.ambush >> shift) & 7;
        let hand_known = hands & (1 << r) != 0;
        let mut cands = [0u32; 6];
        let mut k = 0;
        for set in AmbushSet::ALL {
            let m = u32::from(set.mask());
            if (m ^ truth) & kmask != 0 {
                continue;
            }
            if hand_known && m.count_ones() != truth.count_ones() {
                continue;
            }
            cands[k] = m;
            k += 1;
        }
        let pick = cands[rng.index(k)];
        out.ambush = (out.ambush & !(7 << shift)) | (pick << shift);
    }
    if observer != usize::from(s.driver) {
        sample_hand(&mut out, rng);
    }
    Ok(out)
}

/// Redraws the driver's hand (same size) from the observer's view.
fn sample_hand(s: &mut Korovan, rng: &mut GameRng) {
    let comp = s.config.deck.to_array();
    let p = s.played;
    let h = usize::from(s.hand_count);
    const W: usize = MAX_HAND as usize + 1;
    if h >= W {
        return; // only after an illegal apply_unchecked
    }
    // f[k][t]: weight of the kinds k..6 holding t cards in total
    let mut f = [[0u128; W]; 7];
    f[6][0] = 1;
    for k in (0..6).rev() {
        let avail = u32::from(comp[k]).saturating_sub(u32::from(p[k]));
        for t in 0..=h {
            let mut sum = 0u128;
            for x in 0..=t.min(avail as usize) {
                let w = binom(u32::from(comp[k]), x as u32 + u32::from(p[k]));
                sum += w * f[k + 1][t - x];
            }
            f[k][t] = sum;
        }
    }
    if f[0][h] == 0 {
        return; // cannot happen in a valid state; keep the hand
    }
    let mut t = h;
    let mut hand = [0u8; 6];
    for k in 0..6 {
        let avail = u32::from(comp[k]).saturating_sub(u32::from(p[k]));
        let mut r = below_u128(rng, f[k][t]);
        for x in 0..=t.min(avail as usize) {
            let w = binom(u32::from(comp[k]), x as u32 + u32::from(p[k])) * f[k + 1][t - x];
            if r < w {
                hand[k] = x as u8;
                t -= x;
                break;
            }
            r -= w;
        }
    }
    for k in 0..6 {
        s.deck[k] = comp[k] - hand[k];
    }
    s.hand = hand;
}
