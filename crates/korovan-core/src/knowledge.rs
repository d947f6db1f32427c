//! What each seat knows (K-8) — the one model that both the observation
//! (`observation`) and determinization read — and determinization itself
//! (K-8.6).
//!
//! * Knowledge: face-up cards and shown hand cards are public (K-8.1); a
//!   competitor knows its own row, its own hand card and its own peek
//!   (K-8.2, K-4.4); the driver knows its hand and what it scouted and spied
//!   (K-8.3).
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

use boardgame_kit::{GameError, GameRng, Turn};

use crate::action::{Action, AmbushSet};
use crate::config::MAX_HAND;
use crate::error::KorovanError;
use crate::state::{Korovan, Phase};

impl Korovan {
    /// The cells (bit `3·(row−1)+pos`) whose face `seat` knows now: face-up
    /// cards, its own row, its peek (K-8.2), the driver's scouts (K-8.3).
    pub fn known_cells(&self, seat: usize) -> u32 {
        self.private_cells(seat) | self.face_up
    }

    /// What `seat` knows beyond face-up cards (K-8.2, K-8.3). K-4.4: the
    /// first competitor never peeks, so it knows only its own row; the last
    /// row is known to its owner alone until a card of it is revealed.
    pub(crate) fn private_cells(&self, seat: usize) -> u32 {
        if self.phase == Phase::Over {
            return 0;
        }
        if seat == usize::from(self.driver) {
            return self.scouted;
        }
        match self.row_of(seat) {
            Some(r) if r <= self.laid => {
                // its own row once laid; its peek (made just before laying)
                let mut m = if r < self.laid { 7u32 << (u32::from(r) * 3) } else { 0 };
                if let Some(&p) = self.peeks.get(usize::from(r))
                    && p < 24
                {
                    m |= 1 << p;
                }
                m
            }
            _ => 0,
        }
    }

    /// Rows (bit = 0-based row) whose hand card `seat` knows: shown ones
    /// (K-5.5), its own (K-8.2), the driver's spied ones (K-8.3).
    pub(crate) fn known_hands(&self, seat: usize) -> u8 {
        if self.phase == Phase::Over {
            return 0;
        }
        let mut m = self.shown;
        if seat == usize::from(self.driver) {
            m |= self.spied;
        } else if let Some(r) = self.row_of(seat)
            && r < self.laid
        {
            m |= 1 << r;
        }
        m
    }

    /// Whether `seat` (`None`: a spectator) learns which action `action` is
    /// when it is played now. Only two kinds are ever hidden: a deal, seen
    /// by the driver alone (K-3.1: how many cards the driver holds is
    /// public, which ones is not; K-8.3), and a lay, seen by the competitor
    /// who lays alone (K-4.3, K-8.2: the row's layout is its owner's). Every
    /// other action is public (K-8.1): a peek's target (K-4.2; not what it
    /// shows), the token's place and switches, a reveal, every helper with
    /// its target (a scout's and a spy's target; not what they show), and
    /// the pay, Guard or Haggle that settles an ambush, also at a round's
    /// end (K-9.1).
    pub(crate) fn sees_action(&self, seat: Option<usize>, action: Action) -> bool {
        let private_to = match action {
            Action::Deal(_) => self.driver(),
            Action::Lay(_) => match self.whose_turn() {
                Turn::Player(p) => Some(p),
                _ => None,
            },
            _ => return true,
        };
        seat.is_some() && seat == private_to
    }

    /// Whether `seat` sees the driver's helper hand (K-8.3): the driver only.
    pub(crate) fn sees_hand(&self, seat: usize) -> bool {
        seat == usize::from(self.driver) && self.phase != Phase::Over
    }
}

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

/// K-8.6: a full state consistent with what `observer` knows of `s`.
pub(crate) fn determinize(s: &Korovan, observer: usize, rng: &mut GameRng) -> Result<Korovan, KorovanError> {
    let n = usize::from(s.n);
    if observer >= n {
        return Err(GameError::Seat { seat: observer, players: n });
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
    if !s.sees_hand(observer) {
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
        let mut r = rng.below_u128(f[k][t]);
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
