//! The rules as code: the start of a game (K-1.2, K-2.1), the checks of
//! [`Korovan::validate`](boardgame_kit::Game::validate), the transitions of
//! `apply_unchecked`, and the generation of legal actions and chance
//! outcomes. Every rule id cited in this module is implemented here.

use boardgame_kit::{ChanceOutcome, GameRng, Outcome, Turn};

use crate::action::{Action, ActionList, AmbushSet, ChanceList};
use crate::config::{Helper, KorovanConfig, MAX_PLAYERS, MAX_ROWS};
use crate::error::{IllegalReason, KorovanError};
use crate::state::{CELL_POS, CELL_ROW, HelperLog, Korovan, NONE, Phase, cell_bit};

impl Korovan {
    /// A new game (same as [`Game::new_game`](boardgame_kit::Game::new_game)):
    /// every player holds the starting cows (K-1.2), seat `first_driver`
    /// drives first (K-2.1), and the first round begins.
    ///
    /// # Errors
    /// [`GameError::Config`](boardgame_kit::GameError::Config) when the configuration breaks the rules.
    pub fn new(config: &KorovanConfig) -> Result<Korovan, KorovanError> {
        config.validate().map_err(KorovanError::Config)?;
        let n = config.players;
        let mut cows = [0u8; MAX_PLAYERS];
        for c in cows.iter_mut().take(usize::from(n)) {
            *c = config.start_cows(); // K-1.2
        }
        let mut s = Korovan {
            config: *config,
            n,
            hand_size: config.hand(),
            total_rounds: (config.rounds()).min(255) as u8,
            round: 0,
            driver: config.first_driver, // K-2.1
            phase: Phase::Deal,
            laid: 0,
            row: 0,
            token: NONE,
            switches: 1,
            fine: 0,
            hand_count: 0,
            cows,
            ambush: 0,
            face_up: 0,
            resolved: 0,
            scouted: 0,
            spied: 0,
            shown: 0,
            peeks: [NONE; MAX_ROWS],
            deck: config.deck.to_array(),
            hand: [0; 6],
            played: [0; 6],
            log: HelperLog::EMPTY,
        };
        s.start_round();
        Ok(s)
    }

    /// Plays `action` on behalf of `seat`: like
    /// [`Game::apply`](boardgame_kit::Game::apply), but also refuses an
    /// action by a seat whose decision it is not (chance outcomes are never a
    /// seat's to play).
    ///
    /// ```
    /// use boardgame_kit::Game;
    /// use korovan_core::{Korovan, KorovanConfig};
    /// let mut game = Korovan::new_game(&KorovanConfig { hand_size: Some(0), ..Default::default() }).unwrap();
    /// assert!(game.apply_for(2, "lay 0".parse().unwrap()).is_err()); // seat 1 lays first
    /// game.apply_for(1, "lay 0".parse().unwrap()).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`GameError::Illegal`](boardgame_kit::GameError::Illegal) with [`IllegalReason::NotYourTurn`] when
    /// `seat` is not to act, or the reason the action is illegal; the state is
    /// then unchanged.
    pub fn apply_for(&mut self, seat: usize, action: Action) -> Result<(), KorovanError> {
        let to_act = match self.whose_turn() {
            Turn::Player(p) if p == seat => None,
            Turn::Player(_) => Some("another seat decides"),
            Turn::Chance => Some("the deal is chance"),
            Turn::Terminal => Some("the game is over"),
        };
        if let Some(to_act) = to_act {
            return Err(KorovanError::Illegal { action, reason: IllegalReason::NotYourTurn { seat, to_act } });
        }
        self.check(action).map_err(|reason| KorovanError::Illegal { action, reason })?;
        self.play(action);
        Ok(())
    }

    /// K-5.8, K-7.2: start the next round that is not skipped, or end the game.
    fn start_round(&mut self) {
        loop {
            if self.round >= self.total_rounds {
                self.phase = Phase::Over;
                return;
            }
            if self.cows.get(usize::from(self.driver)).copied().unwrap_or(0) > 0 {
                break;
            }
            // K-5.8: a cowless driver's round is skipped but counts.
            self.round += 1;
            self.driver = if self.driver == 0 { self.n - 1 } else { self.driver - 1 };
        }
        // K-3.2: every other seat is a competitor (rows follow from the driver)
        self.phase = if self.hand_size > 0 { Phase::Deal } else { Phase::Lay };
    }

    /// K-7.1: clean-up, K-2.2: the next driver.
    fn end_round(&mut self) {
        for k in 0..6 {
            self.deck[k] = self.deck[k].wrapping_add(self.hand[k]);
        }
        self.hand = [0; 6];
        self.played = [0; 6];
        self.log = HelperLog::EMPTY;
        self.hand_count = 0;
        self.laid = 0;
        self.row = 0;
        self.token = NONE;
        self.switches = 1;
        self.fine = 0;
        self.ambush = 0;
        self.face_up = 0;
        self.resolved = 0;
        self.scouted = 0;
        self.spied = 0;
        self.shown = 0;
        self.peeks = [NONE; MAX_ROWS];
        self.round += 1;
        // K-2.2: counter-clockwise
        self.driver = if self.driver == 0 { self.n - 1 } else { self.driver - 1 };
        self.start_round();
    }

    /// K-5.5: the fine of an ambush in a row of `ambushes` ambushes: the
    /// one-ambush fine (3) when the owner kept an `Ambush`, else the
    /// two-ambush fine (2); both from the configuration.
    #[inline]
    pub(crate) fn fine_for(&self, ambushes: u32) -> u8 {
        self.config.fines.for_row(ambushes)
    }

    /// K-5.4/K-5.5: the card under the token resolves.
    #[inline]
    fn resolve(&mut self) {
        let base = u32::from(self.row) * 3;
        let bit = 1u32.wrapping_shl(base + u32::from(self.token));
        self.face_up |= bit;
        self.resolved |= bit;
        if self.ambush & bit != 0 {
            self.shown |= 1u8.wrapping_shl(u32::from(self.row));
            // K-5.5: 3 if the owner kept an Ambush (one in the row), else 2
            self.fine = self.fine_for(self.row_ambushes(self.row));
            self.phase = Phase::Defend;
        } else {
            self.advance_row();
        }
    }

    /// K-5.5: the driver pays `min(fine, cows)` to the row's owner.
    #[inline]
    fn pay(&mut self, fine: u8) {
        let d = usize::from(self.driver);
        let o = self.owner(self.row);
        let have = self.cows.get(d).copied().unwrap_or(0);
        let amount = fine.min(have);
        if let Some(c) = self.cows.get_mut(d) {
            *c -= amount;
        }
        if let Some(c) = self.cows.get_mut(o) {
            *c += amount;
        }
        self.fine = 0;
        if have == amount {
            // K-5.6: the journey ends at 0 cows
            self.end_round();
        } else {
            self.advance_row();
        }
    }

    #[inline]
    fn advance_row(&mut self) {
        self.row += 1;
        if self.row + 1 >= self.n {
            // K-5.7: every competitor with a cow pays the driver one
            let d = usize::from(self.driver);
            let mut gain = 0u8;
            for (seat, c) in self.cows.iter_mut().enumerate().take(usize::from(self.n)) {
                if seat != d && *c > 0 {
                    *c -= 1;
                    gain += 1;
                }
            }
            if let Some(c) = self.cows.get_mut(d) {
                *c += gain;
            }
            self.end_round();
        } else {
            self.phase = Phase::Place;
            self.token = NONE;
            self.switches = 1;
        }
    }

    /// K-6: a played helper leaves the hand, goes back into the deck and is
    /// logged with its target (K-8.1).
    #[inline]
    fn use_helper(&mut self, h: Helper, action: Action) {
        let k = h.index();
        self.hand[k] = self.hand[k].wrapping_sub(1);
        self.deck[k] = self.deck[k].wrapping_add(1);
        self.played[k] = self.played[k].wrapping_add(1);
        self.hand_count = self.hand_count.wrapping_sub(1);
        self.log.push(action);
    }

    /// Face-down cells of the current and later rows (helper targets).
    #[inline]
    fn ahead_face_down(&self) -> u32 {
        self.laid_mask() & !self.face_up & u32::MAX.wrapping_shl(u32::from(self.row) * 3)
    }

    /// K-6, K-6.1: the usable Scout, Spy and Flare targets.
    #[inline]
    fn push_helpers(&self, out: &mut ActionList) {
        let down = self.ahead_face_down();
        if self.hand[Helper::Scout.index()] > 0 {
            let mut m = down;
            while m != 0 {
                let c = m.trailing_zeros() as usize;
                m &= m - 1;
                out.push(Action::Scout { row: CELL_ROW[c], pos: CELL_POS[c] });
            }
        }
        if self.hand[Helper::Spy.index()] > 0 {
            for r in self.row + 1..self.n {
                out.push(Action::Spy { row: r });
            }
        }
        if self.hand[Helper::Flare.index()] > 0 {
            let mut m = down;
            while m != 0 {
                let c = m.trailing_zeros() as usize;
                m &= m - 1;
                out.push(Action::Flare { row: CELL_ROW[c], pos: CELL_POS[c] });
            }
        }
    }

    fn check_helper(&self, h: Helper) -> Result<(), IllegalReason> {
        if self.hand[h.index()] == 0 { Err(IllegalReason::NoSuchHelper(h)) } else { Ok(()) }
    }

    /// A target row of Scout/Spy/Flare: laid, the current or a later one (K-6.1).
    fn check_ahead(&self, row: u8) -> Result<(), IllegalReason> {
        if row < 1 || row > self.laid {
            return Err(IllegalReason::NoSuchRow { row, laid: self.laid });
        }
        if row <= self.row {
            return Err(IllegalReason::RowPassed { row, current: self.row + 1 });
        }
        Ok(())
    }

    fn check_face_down(&self, row: u8, pos: u8) -> Result<(), IllegalReason> {
        if pos > 2 {
            return Err(IllegalReason::NoSuchPosition(pos));
        }
        if self.face_up & cell_bit(row, pos) != 0 {
            return Err(IllegalReason::FaceUp { row, pos });
        }
        Ok(())
    }

    /// Why `action` is illegal now, if it is.
    pub(crate) fn check(&self, action: Action) -> Result<(), IllegalReason> {
        use Action as A;
        use IllegalReason as R;
        let wrong = Err(R::WrongPhase(self.phase));
        match (self.phase, action) {
            (Phase::Over, _) => Err(R::GameOver),
            // K-3.1: only kinds left in the deck
            (Phase::Deal, A::Deal(h)) => {
                if self.deck[h.index()] > 0 {
                    Ok(())
                } else {
                    Err(R::NotInDeck(h))
                }
            }
            // K-4.2: any card already laid
            (Phase::Peek, A::Peek { row, pos }) => {
                if row < 1 || row > self.laid {
                    return Err(R::NoSuchRow { row, laid: self.laid });
                }
                if pos > 2 {
                    return Err(R::NoSuchPosition(pos));
                }
                Ok(())
            }
            (Phase::Lay, A::Lay(_)) => Ok(()),
            (Phase::Place, A::Place(p)) => {
                if p > 2 {
                    Err(R::NoSuchPosition(p))
                } else {
                    Ok(())
                }
            }
            (Phase::Place | Phase::Decide, A::Scout { row, pos } | A::Flare { row, pos }) => {
                if let Some(h) = action.helper() {
                    self.check_helper(h)?;
                }
                self.check_ahead(row)?;
                self.check_face_down(row, pos)
            }
            (Phase::Place | Phase::Decide, A::Spy { row }) => {
                self.check_helper(Helper::Spy)?;
                self.check_ahead(row)
            }
            // K-5.3
            (Phase::Decide, A::Switch(p)) => {
                if p > 2 {
                    return Err(R::NoSuchPosition(p));
                }
                if self.switches == 0 {
                    return Err(R::NoSwitchLeft);
                }
                if p == self.token {
                    return Err(R::SamePosition(p));
                }
                Ok(())
            }
            (Phase::Decide, A::Reveal) => Ok(()),
            (Phase::Decide, A::SecondThought) => self.check_helper(Helper::SecondThought),
            // K-6.1: one defence per ambush, only when it resolves
            (Phase::Defend, A::Pay) => Ok(()),
            (Phase::Defend, A::Guard) => self.check_helper(Helper::Guard),
            (Phase::Defend, A::Haggle) => self.check_helper(Helper::Haggle),
            _ => wrong,
        }
    }

    /// The decisions of the seat to act into `out` (cleared first); nothing
    /// at a deal, whose actions are the chance outcomes. K-6.2: which
    /// decisions are asked depends on public information only.
    #[inline]
    pub(crate) fn decisions_into(&self, out: &mut ActionList) {
        out.clear();
        match self.phase {
            Phase::Deal | Phase::Over => {}
            Phase::Peek => {
                // K-4.2: any card of the rows already laid
                for c in 0..usize::from(self.laid.min(8)) * 3 {
                    out.push(Action::Peek { row: CELL_ROW[c], pos: CELL_POS[c] });
                }
            }
            Phase::Lay => {
                // K-4.3: the 6 layouts
                for s in AmbushSet::ALL {
                    out.push(Action::Lay(s));
                }
            }
            Phase::Place => {
                // K-5.1, K-6.1: place or a look first (always 3 places: always asked)
                for p in 0..3 {
                    out.push(Action::Place(p));
                }
                self.push_helpers(out);
            }
            Phase::Decide => {
                // K-5.3, K-5.4, K-6.2: switch / reveal / usable helpers (`reveal` alone when that is all)
                if self.switches > 0 {
                    for p in 0..3 {
                        if p != self.token {
                            out.push(Action::Switch(p));
                        }
                    }
                }
                out.push(Action::Reveal);
                self.push_helpers(out);
                if self.hand[Helper::SecondThought.index()] > 0 {
                    out.push(Action::SecondThought);
                }
            }
            Phase::Defend => {
                // K-6.2: pay / Guard / Haggle (`pay` alone when it holds neither)
                if self.hand[Helper::Guard.index()] > 0 {
                    out.push(Action::Guard);
                }
                if self.hand[Helper::Haggle.index()] > 0 {
                    out.push(Action::Haggle);
                }
                out.push(Action::Pay);
            }
        }
    }

    /// The number of actions [`push_helpers`](Self::push_helpers) lists,
    /// per helper (Scout, Spy, Flare), with the face-down cells ahead
    /// `down` (counted only when a Scout or a Flare is held).
    #[inline]
    fn helper_counts(&self, down: u32) -> (u32, u32, u32) {
        let scout = self.hand[Helper::Scout.index()] > 0;
        let flare = self.hand[Helper::Flare.index()] > 0;
        let targets = if scout | flare { count_cells(down) } else { 0 };
        let spies = if self.hand[Helper::Spy.index()] > 0 {
            u32::from(self.n).saturating_sub(u32::from(self.row) + 1)
        } else {
            0
        };
        (if scout { targets } else { 0 }, spies, if flare { targets } else { 0 })
    }

    /// The `i`-th action of [`push_helpers`](Self::push_helpers)' list
    /// (`i` below the sum of `counts`, from [`helper_counts`](Self::helper_counts)).
    #[inline]
    fn helper_at(&self, mut i: u32, down: u32, (scouts, spies, _): (u32, u32, u32)) -> Action {
        if i < scouts {
            let c = nth_bit(down, i);
            return Action::Scout { row: CELL_ROW[c], pos: CELL_POS[c] };
        }
        i -= scouts;
        if i < spies {
            return Action::Spy { row: self.row + 1 + i as u8 };
        }
        let c = nth_bit(down, i - spies);
        Action::Flare { row: CELL_ROW[c], pos: CELL_POS[c] }
    }

    /// Exactly `list[rng.index(list.len())]` for the list `legal_actions`
    /// writes (the same action from the same draws) without writing it: the
    /// legal actions are counted, one index is drawn with `rng.index`, and
    /// the action at that index is decoded in the list's order. `None` (and
    /// no draw) once the game is over.
    // Always inlined (with `play`): a Korovan action is ~90 instructions, so
    // a call per step costs a third more in programs where these have many
    // callers (the `boardgame` binary's random playouts: 132 instructions
    // per action out of line, 92 inlined; ISMCTS +25% iterations/s).
    #[inline(always)]
    pub(crate) fn random_legal(&self, rng: &mut GameRng) -> Option<Action> {
        match self.phase {
            Phase::Deal => {
                // the deal's actions are its outcomes, kinds in index order
                let mut kinds = 0u32;
                for (k, &c) in self.deck.iter().enumerate() {
                    kinds |= u32::from(c > 0) << k;
                }
                let count = kinds.count_ones() as usize;
                let i = rng.index(count);
                if count == 0 {
                    return None;
                }
                Some(Action::Deal(Helper::ALL[nth_bit(kinds, i as u32)]))
            }
            Phase::Peek => {
                // K-4.2: any card of the rows already laid
                let count = usize::from(self.laid.min(8)) * 3;
                let c = rng.index(count);
                (count > 0).then(|| Action::Peek { row: CELL_ROW[c], pos: CELL_POS[c] })
            }
            // K-4.3: the 6 layouts
            Phase::Lay => Some(Action::Lay(AmbushSet::ALL[rng.index(6)])),
            Phase::Place => {
                // K-5.1, K-6.1: the 3 places, then the helpers
                let down = self.ahead_face_down();
                let counts = self.helper_counts(down);
                let total = 3 + counts.0 + counts.1 + counts.2;
                let i = rng.index(total as usize) as u32;
                Some(if i < 3 { Action::Place(i as u8) } else { self.helper_at(i - 3, down, counts) })
            }
            Phase::Decide => {
                // K-5.3, K-5.4, K-6.2: switches, reveal, helpers, SecondThought
                // the positions other than the token's, in order
                let switches = match (self.switches, self.token) {
                    (0, _) => 0,
                    (_, 0..3) => 2,
                    _ => 3,
                };
                let down = self.ahead_face_down();
                let counts = self.helper_counts(down);
                let helpers = counts.0 + counts.1 + counts.2;
                let second = u32::from(self.hand[Helper::SecondThought.index()] > 0);
                let i = rng.index((switches + 1 + helpers + second) as usize) as u32;
                Some(if i < switches {
                    Action::Switch((i + u32::from(i >= u32::from(self.token))) as u8)
                } else if i == switches {
                    Action::Reveal
                } else if i - switches - 1 < helpers {
                    self.helper_at(i - switches - 1, down, counts)
                } else {
                    Action::SecondThought
                })
            }
            Phase::Defend => {
                // K-6.2: Guard, Haggle (when held), pay
                let guard = u32::from(self.hand[Helper::Guard.index()] > 0);
                let haggle = u32::from(self.hand[Helper::Haggle.index()] > 0);
                let i = rng.index((guard + haggle + 1) as usize) as u32;
                Some(if i < guard {
                    Action::Guard
                } else if i < guard + haggle {
                    Action::Haggle
                } else {
                    Action::Pay
                })
            }
            Phase::Over => None,
        }
    }

    /// Exactly what `sample_chance` draws from the list `chances_into`
    /// writes (one `below_u64` over the cards left, the kinds walked in index
    /// order), without writing the list; `None` (and no draw) off a deal.
    #[inline]
    pub(crate) fn sample_deal(&self, rng: &mut GameRng) -> Option<Action> {
        if self.phase != Phase::Deal {
            return None;
        }
        rng.weighted_by(self.deck.iter().map(|&c| u64::from(c))).and_then(|k| Helper::from_index(k).map(Action::Deal))
    }

    /// K-3.1: at a deal, each kind left with weight copies left (out of the
    /// cards left); nothing elsewhere.
    pub(crate) fn chances_into(&self, out: &mut ChanceList) {
        out.clear();
        if self.phase == Phase::Deal {
            for h in Helper::ALL {
                let w = self.deck[h.index()];
                if w > 0 {
                    out.push(ChanceOutcome { action: Action::Deal(h), weight: u32::from(w) });
                }
            }
        }
    }

    /// The transition of `action`, which must be legal (`check`).
    // Always inlined: see `random_legal`.
    #[inline(always)]
    pub(crate) fn play(&mut self, action: Action) {
        match action {
            Action::Deal(h) => {
                let k = h.index();
                self.deck[k] = self.deck[k].wrapping_sub(1);
                self.hand[k] = self.hand[k].wrapping_add(1);
                self.hand_count = self.hand_count.wrapping_add(1);
                if self.hand_count >= self.hand_size {
                    self.phase = Phase::Lay; // K-4.1: the first competitor does not peek
                }
            }
            Action::Peek { row, pos } => {
                if let Some(p) = self.peeks.get_mut(usize::from(self.laid)) {
                    *p = (row.wrapping_sub(1)).wrapping_mul(3).wrapping_add(pos);
                }
                self.phase = Phase::Lay;
            }
            Action::Lay(set) => {
                self.ambush |= u32::from(set.mask()).wrapping_shl(u32::from(self.laid) * 3);
                self.laid = self.laid.wrapping_add(1);
                if self.laid + 1 >= self.n {
                    self.phase = Phase::Place;
                    self.row = 0;
                    self.token = NONE;
                    self.switches = 1;
                } else {
                    self.phase = Phase::Peek;
                }
            }
            Action::Place(p) => {
                self.token = p;
                // K-5.2: a face-up card resolves at once
                if self.face_up & cell_bit(self.row + 1, p) != 0 {
                    self.resolve();
                } else {
                    self.phase = Phase::Decide;
                }
            }
            Action::Switch(p) => {
                self.switches = self.switches.wrapping_sub(1);
                self.token = p;
                // K-5.3: switching onto a face-up card resolves it at once
                if self.face_up & cell_bit(self.row + 1, p) != 0 {
                    self.resolve();
                }
            }
            Action::Reveal => self.resolve(),
            Action::Scout { row, pos } => {
                self.scouted |= cell_bit(row, pos);
                self.use_helper(Helper::Scout, action);
            }
            Action::Spy { row } => {
                self.spied |= 1u8.wrapping_shl(u32::from(row.wrapping_sub(1)));
                self.use_helper(Helper::Spy, action);
            }
            Action::Flare { row, pos } => {
                self.face_up |= cell_bit(row, pos);
                self.use_helper(Helper::Flare, action);
            }
            Action::SecondThought => {
                self.switches = self.switches.wrapping_add(1);
                self.use_helper(Helper::SecondThought, action);
            }
            Action::Guard => {
                self.use_helper(Helper::Guard, action);
                self.pay(0);
            }
            Action::Haggle => {
                self.use_helper(Helper::Haggle, action);
                self.pay(self.fine.saturating_sub(1));
            }
            Action::Pay => self.pay(self.fine),
        }
    }

    /// K-7.3: once over, the most cows wins; a shared maximum is a draw
    /// ("friendship wins").
    pub(crate) fn result(&self) -> Option<Outcome> {
        if self.phase != Phase::Over {
            return None;
        }
        Outcome::from_best(&self.cows[..usize::from(self.n)])
    }

    /// K-7.2: the bound on a game's length: per round at most `h` deals,
    /// N−2 peeks, N−1 lays, and per row Place, one Switch, Reveal and
    /// Pay/Guard/Haggle (4·(N−1)), plus at most `2h` for helpers (each played
    /// helper is one action; a SecondThought adds one more switch). So
    /// `rounds · (3h + 6N − 7)`; skipped rounds have none.
    pub(crate) fn length_bound(config: &KorovanConfig) -> usize {
        let n = usize::from(config.players);
        let h = usize::from(config.hand());
        let rounds = config.rounds() as usize;
        rounds * (3 * h + (6 * n).saturating_sub(7))
    }
}

/// The number of cells in a mask of the 24 cells (a table per byte: the
/// baseline x86-64 target has no popcount instruction).
#[inline]
fn count_cells(m: u32) -> u32 {
    u32::from(BYTE_BITS[(m & 0xFF) as usize])
        + u32::from(BYTE_BITS[((m >> 8) & 0xFF) as usize])
        + u32::from(BYTE_BITS[((m >> 16) & 0xFF) as usize])
}

/// The number of set bits of every byte.
static BYTE_BITS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

/// The position of the `i`-th lowest set bit of `m` (`i` below its count).
#[inline]
fn nth_bit(mut m: u32, i: u32) -> usize {
    for _ in 0..i {
        m &= m.wrapping_sub(1);
    }
    m.trailing_zeros() as usize
}
