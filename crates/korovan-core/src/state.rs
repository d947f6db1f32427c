//! [`Korovan`]: the state as plain fixed-size data, and the rules' transitions.

use std::fmt;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use boardgame_kit::{ActionId, ChanceOutcome, Game, GameRng, Outcome, Seats, Turn, Viewer};

use crate::action::{AmbushSet, KorovanAction, NUM_ACTIONS};
use crate::config::{Helper, HelperCounts, KorovanConfig, MAX_PLAYERS, MAX_ROWS};
use crate::error::{IllegalReason, KorovanError};
use crate::observe::KorovanObservation;

/// No token on the table / no peek made.
pub(crate) const NONE: u8 = 0xFF;

/// The face of a competitor card (K-1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Card {
    /// The caravan passes.
    Empty,
    /// The driver pays a fine (K-5.5).
    Ambush,
}

/// Where a round stands (K-3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// K-3.1: the driver's hand is being dealt (chance).
    Deal,
    /// K-4.2: the next competitor peeks at a laid card.
    Peek,
    /// K-4.3: the next competitor lays its row.
    Lay,
    /// K-5.1: the driver places the token on the current row (or plays a helper first).
    Place,
    /// K-5.3/K-5.4: the token is on the row; switch, reveal or play a helper.
    Decide,
    /// K-5.5: an ambush resolved; pay, or defend with Guard/Haggle.
    Defend,
    /// K-7.2: the game is over.
    Over,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Deal => "deal",
            Phase::Peek => "peek",
            Phase::Lay => "lay",
            Phase::Place => "place",
            Phase::Decide => "decide",
            Phase::Defend => "defend",
            Phase::Over => "over",
        })
    }
}

/// The legal actions of a state. Worst case 60: in `Decide`, 2 switches +
/// reveal + 24 Scout targets + 8 Spy targets + 24 Flare targets + SecondThought
/// (`Place` has at most 3 + 24 + 8 + 24 = 59, a peek at most 7·3 = 21).
pub type KorovanActionList = ArrayVec<KorovanAction, 64>;
/// The outcomes of a deal chance node: at most the 6 helper kinds.
pub type KorovanChanceList = ArrayVec<ChanceOutcome<KorovanAction>, 6>;

/// Row (0-based) and position of each of the 24 cells.
const CELL_ROW: [u8; 24] = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8];
const CELL_POS: [u8; 24] = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2];

/// The bit of the cell of a 1-based `row` and `pos` (never panics; out of
/// range values give a meaningless bit).
#[inline]
pub(crate) fn cell_bit(row: u8, pos: u8) -> u32 {
    1u32.wrapping_shl(u32::from(row.wrapping_sub(1)) * 3 + u32::from(pos))
}

/// A game of Korovan: the whole state as plain `Copy` data (about 100
/// bytes), so cloning is a copy. Cells are numbered `3·(row−1) + pos` and
/// kept as bit masks.
///
/// ```
/// use boardgame_kit::{Game, GameRng, Turn, sample_chance};
/// use korovan_core::{Korovan, KorovanConfig};
///
/// let mut game = Korovan::new_game(&KorovanConfig::with_players(5)).unwrap();
/// let mut rng = GameRng::new(7);
/// let (mut actions, mut chances) = (Default::default(), Default::default());
/// while !game.is_terminal() {
///     let action = match game.turn() {
///         Turn::Chance => sample_chance(&game, &mut rng, &mut chances).unwrap(),
///         _ => {
///             game.legal_actions(&mut actions);
///             actions[rng.index(actions.len())]
///         }
///     };
///     game.apply(action).unwrap();
///     assert_eq!(game.total_cows(), 30); // K-1.2
/// }
/// println!("{:?}", game.outcome());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "crate::setup::KorovanSetup", into = "crate::setup::KorovanSetup")]
pub struct Korovan {
    pub(crate) config: KorovanConfig,
    pub(crate) n: u8,
    pub(crate) hand_size: u8,
    pub(crate) total_rounds: u8,
    pub(crate) round: u8,
    pub(crate) driver: u8,
    pub(crate) phase: Phase,
    /// Rows laid so far (N−1 during the journey).
    pub(crate) laid: u8,
    /// The current journey row, 0-based.
    pub(crate) row: u8,
    /// The token's position in the current row, or NONE.
    pub(crate) token: u8,
    pub(crate) switches: u8,
    /// The fine being resolved (Defend).
    pub(crate) fine: u8,
    pub(crate) hand_count: u8,
    pub(crate) cows: [u8; MAX_PLAYERS],
    /// Cells holding an ambush.
    pub(crate) ambush: u32,
    /// Cells face up.
    pub(crate) face_up: u32,
    /// Cells where the token resolved (the route).
    pub(crate) resolved: u32,
    /// Cells the driver scouted this round.
    pub(crate) scouted: u32,
    /// Rows (bit = 0-based row) whose hand card the driver spied.
    pub(crate) spied: u8,
    /// Rows whose hand card was shown (K-5.5).
    pub(crate) shown: u8,
    /// The cell each row's owner peeked at (K-4.2), or NONE.
    pub(crate) peeks: [u8; MAX_ROWS],
    pub(crate) deck: [u8; 6],
    pub(crate) hand: [u8; 6],
    pub(crate) played: [u8; 6],
}

impl Korovan {
    /// A new game (same as [`Game::new_game`]).
    ///
    /// # Errors
    /// [`KorovanError::Config`] when the configuration breaks the rules.
    pub fn new(config: &KorovanConfig) -> Result<Korovan, KorovanError> {
        config.validate()?;
        let n = config.players;
        let mut cows = [0u8; MAX_PLAYERS];
        for c in cows.iter_mut().take(usize::from(n)) {
            *c = n + 1; // K-1.2
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
        };
        s.start_round();
        Ok(s)
    }

    /// Plays `action` on behalf of `seat`: like [`Game::apply`], but also
    /// refuses an action by a seat whose decision it is not (chance outcomes
    /// are never a seat's to play).
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
    /// [`KorovanError::Illegal`] with [`IllegalReason::NotYourTurn`] when
    /// `seat` is not to act, or the reason the action is illegal; the state is
    /// then unchanged.
    pub fn apply_for(&mut self, seat: usize, action: KorovanAction) -> Result<(), KorovanError> {
        let to_act = match self.turn() {
            Turn::Player(p) if p == seat => None,
            Turn::Player(_) => Some("another seat decides"),
            Turn::Chance => Some("the deal is chance"),
            Turn::Terminal => Some("the game is over"),
        };
        if let Some(to_act) = to_act {
            return Err(KorovanError::Illegal { action, reason: IllegalReason::NotYourTurn { seat, to_act } });
        }
        self.apply(action)
    }

    // ----- public accessors -------------------------------------------------

    /// The phase of the round.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Rounds completed (0-based index of the current round; skipped rounds count, K-5.8).
    pub fn round(&self) -> u32 {
        u32::from(self.round)
    }
    /// The current lap, 0-based.
    pub fn lap(&self) -> u32 {
        u32::from(self.round) / u32::from(self.n)
    }
    /// The current driver's seat.
    pub fn driver(&self) -> usize {
        usize::from(self.driver)
    }
    /// Cows of `seat` (0 for seats out of range).
    pub fn cows(&self, seat: usize) -> u8 {
        if seat < usize::from(self.n) { self.cows.get(seat).copied().unwrap_or(0) } else { 0 }
    }
    /// The total of all cows: N·(N+1) always (K-1.2).
    pub fn total_cows(&self) -> u32 {
        self.cows.iter().map(|&c| u32::from(c)).sum()
    }
    /// Rows laid so far this round.
    pub fn rows_laid(&self) -> usize {
        usize::from(self.laid)
    }
    /// The current journey row (1-based) during the journey phases.
    pub fn current_row(&self) -> Option<u8> {
        matches!(self.phase, Phase::Place | Phase::Decide | Phase::Defend).then_some(self.row + 1)
    }
    /// The token's position in the current row, if placed.
    pub fn token(&self) -> Option<u8> {
        (self.token < 3).then_some(self.token)
    }
    /// Switches left in this step (K-5.3).
    pub fn switches_left(&self) -> u8 {
        self.switches
    }
    /// The fine of the ambush being resolved (non-zero only in [`Phase::Defend`]).
    pub fn pending_fine(&self) -> u8 {
        self.fine
    }
    /// The seat owning `row` (1-based) this round.
    pub fn row_owner(&self, row: u8) -> Option<usize> {
        (row >= 1 && row < self.n).then(|| self.owner(row - 1))
    }
    /// The face of a laid card.
    pub fn card(&self, row: u8, pos: u8) -> Option<Card> {
        if row < 1 || row > self.laid || pos > 2 {
            return None;
        }
        Some(if self.ambush & cell_bit(row, pos) != 0 { Card::Ambush } else { Card::Empty })
    }
    /// Whether a laid card is face up.
    pub fn is_face_up(&self, row: u8, pos: u8) -> bool {
        row >= 1 && row <= self.laid && pos < 3 && self.face_up & cell_bit(row, pos) != 0
    }
    /// The hand card the owner of a laid `row` kept: an `Ambush` when the row
    /// holds one ambush, `Empty` when it holds two (K-4.3).
    pub fn hand_card(&self, row: u8) -> Option<Card> {
        if row < 1 || row > self.laid {
            return None;
        }
        Some(if self.row_ambushes(row - 1) == 1 { Card::Ambush } else { Card::Empty })
    }
    /// The driver's helper hand (K-3.1).
    pub fn helper_hand(&self) -> HelperCounts {
        HelperCounts::from_array(self.hand)
    }
    /// The helper deck (every card not in the driver's hand).
    pub fn helper_deck(&self) -> HelperCounts {
        HelperCounts::from_array(self.deck)
    }
    /// The helpers played this round.
    pub fn helpers_played(&self) -> HelperCounts {
        HelperCounts::from_array(self.played)
    }
    /// The cells (bit `3·(row−1)+pos`) whose face `seat` knows now: face-up
    /// cards, its own row, its peek (K-8.2), the driver's scouts (K-8.3).
    pub fn known_cells(&self, seat: usize) -> u32 {
        self.private_cells(seat) | self.face_up
    }

    // ----- internals --------------------------------------------------------

    #[inline]
    pub(crate) fn owner(&self, row0: u8) -> usize {
        let mut o = usize::from(self.driver) + 1 + usize::from(row0);
        let n = usize::from(self.n);
        while o >= n {
            o -= n;
        }
        o
    }

    /// The 0-based row `seat` laid or will lay this round (None for the driver).
    pub(crate) fn row_of(&self, seat: usize) -> Option<u8> {
        let n = usize::from(self.n);
        let d = usize::from(self.driver);
        if seat >= n || seat == d || self.phase == Phase::Over {
            return None;
        }
        Some(((seat + n - d - 1) % n) as u8)
    }

    #[inline]
    pub(crate) fn row_ambushes(&self, row0: u8) -> u32 {
        (self.ambush.wrapping_shr(u32::from(row0) * 3) & 7).count_ones()
    }

    #[inline]
    pub(crate) fn laid_mask(&self) -> u32 {
        1u32.wrapping_shl(u32::from(self.laid.min(8)) * 3).wrapping_sub(1) & 0x00FF_FFFF
    }

    /// What `seat` knows beyond face-up cards (K-8.2, K-8.3).
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

    /// Rows (bit = 0-based row) whose hand card `seat` knows.
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
        self.phase = if self.hand_size > 0 { Phase::Deal } else { Phase::Lay };
    }

    /// K-7.1: clean-up, K-2.2: the next driver.
    fn end_round(&mut self) {
        for k in 0..6 {
            self.deck[k] = self.deck[k].wrapping_add(self.hand[k]);
        }
        self.hand = [0; 6];
        self.played = [0; 6];
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
            self.fine = if self.row_ambushes(self.row) == 1 { 3 } else { 2 };
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

    #[inline]
    fn use_helper(&mut self, h: Helper) {
        let k = h.index();
        self.hand[k] = self.hand[k].wrapping_sub(1);
        self.deck[k] = self.deck[k].wrapping_add(1);
        self.played[k] = self.played[k].wrapping_add(1);
        self.hand_count = self.hand_count.wrapping_sub(1);
    }

    /// Face-down cells of the current and later rows (helper targets).
    #[inline]
    fn ahead_face_down(&self) -> u32 {
        self.laid_mask() & !self.face_up & u32::MAX.wrapping_shl(u32::from(self.row) * 3)
    }

    #[inline]
    fn push_helpers(&self, out: &mut KorovanActionList) {
        let down = self.ahead_face_down();
        if self.hand[Helper::Scout.index()] > 0 {
            let mut m = down;
            while m != 0 {
                let c = m.trailing_zeros() as usize;
                m &= m - 1;
                out.push(KorovanAction::Scout { row: CELL_ROW[c], pos: CELL_POS[c] });
            }
        }
        if self.hand[Helper::Spy.index()] > 0 {
            for r in self.row + 1..self.n {
                out.push(KorovanAction::Spy { row: r });
            }
        }
        if self.hand[Helper::Flare.index()] > 0 {
            let mut m = down;
            while m != 0 {
                let c = m.trailing_zeros() as usize;
                m &= m - 1;
                out.push(KorovanAction::Flare { row: CELL_ROW[c], pos: CELL_POS[c] });
            }
        }
    }

    fn check_helper(&self, h: Helper) -> Result<(), IllegalReason> {
        if self.hand[h.index()] == 0 { Err(IllegalReason::NoSuchHelper(h)) } else { Ok(()) }
    }

    /// A target row of Scout/Spy/Flare: laid, the current or a later one.
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

    fn check(&self, action: KorovanAction) -> Result<(), IllegalReason> {
        use IllegalReason as R;
        use KorovanAction as A;
        let wrong = Err(R::WrongPhase(self.phase));
        match (self.phase, action) {
            (Phase::Over, _) => Err(R::GameOver),
            (Phase::Deal, A::Deal(h)) => {
                if self.deck[h.index()] > 0 {
                    Ok(())
                } else {
                    Err(R::NotInDeck(h))
                }
            }
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
            (Phase::Defend, A::Pay) => Ok(()),
            (Phase::Defend, A::Guard) => self.check_helper(Helper::Guard),
            (Phase::Defend, A::Haggle) => self.check_helper(Helper::Haggle),
            _ => wrong,
        }
    }
}

impl Game for Korovan {
    type Config = KorovanConfig;
    type Action = KorovanAction;
    type ActionList = KorovanActionList;
    type ChanceList = KorovanChanceList;
    type Observation = KorovanObservation;
    type Error = KorovanError;
    const NAME: &'static str = "korovan";
    const RULES_VERSION: u32 = 1;

    fn new_game(config: &KorovanConfig) -> Result<Self, KorovanError> {
        Korovan::new(config)
    }

    fn config(&self) -> &KorovanConfig {
        &self.config
    }

    fn num_players(&self) -> usize {
        usize::from(self.n)
    }

    #[inline]
    fn turn(&self) -> Turn {
        match self.phase {
            Phase::Deal => Turn::Chance,
            Phase::Peek | Phase::Lay => Turn::Player(self.owner(self.laid)),
            Phase::Place | Phase::Decide | Phase::Defend => Turn::Player(usize::from(self.driver)),
            Phase::Over => Turn::Terminal,
        }
    }

    #[inline]
    fn legal_actions(&self, out: &mut KorovanActionList) {
        out.clear();
        match self.phase {
            Phase::Deal => {
                for h in Helper::ALL {
                    if self.deck[h.index()] > 0 {
                        out.push(KorovanAction::Deal(h));
                    }
                }
            }
            Phase::Peek => {
                // K-4.2: any card of the rows already laid
                for c in 0..usize::from(self.laid.min(8)) * 3 {
                    out.push(KorovanAction::Peek { row: CELL_ROW[c], pos: CELL_POS[c] });
                }
            }
            Phase::Lay => {
                for s in AmbushSet::ALL {
                    out.push(KorovanAction::Lay(s));
                }
            }
            Phase::Place => {
                for p in 0..3 {
                    out.push(KorovanAction::Place(p));
                }
                self.push_helpers(out);
            }
            Phase::Decide => {
                if self.switches > 0 {
                    for p in 0..3 {
                        if p != self.token {
                            out.push(KorovanAction::Switch(p));
                        }
                    }
                }
                out.push(KorovanAction::Reveal);
                self.push_helpers(out);
                if self.hand[Helper::SecondThought.index()] > 0 {
                    out.push(KorovanAction::SecondThought);
                }
            }
            Phase::Defend => {
                if self.hand[Helper::Guard.index()] > 0 {
                    out.push(KorovanAction::Guard);
                }
                if self.hand[Helper::Haggle.index()] > 0 {
                    out.push(KorovanAction::Haggle);
                }
                out.push(KorovanAction::Pay);
            }
            Phase::Over => {}
        }
    }

    fn chance_outcomes(&self, out: &mut KorovanChanceList) {
        out.clear();
        if self.phase == Phase::Deal {
            // K-3.1: each kind with probability copies left / cards left
            for h in Helper::ALL {
                let w = self.deck[h.index()];
                if w > 0 {
                    out.push(ChanceOutcome { action: KorovanAction::Deal(h), weight: u32::from(w) });
                }
            }
        }
    }

    fn validate(&self, action: KorovanAction) -> Result<(), KorovanError> {
        self.check(action).map_err(|reason| KorovanError::Illegal { action, reason })
    }

    #[inline]
    fn apply_unchecked(&mut self, action: KorovanAction) {
        match action {
            KorovanAction::Deal(h) => {
                let k = h.index();
                self.deck[k] = self.deck[k].wrapping_sub(1);
                self.hand[k] = self.hand[k].wrapping_add(1);
                self.hand_count = self.hand_count.wrapping_add(1);
                if self.hand_count >= self.hand_size {
                    self.phase = Phase::Lay; // K-4.1: the first competitor does not peek
                }
            }
            KorovanAction::Peek { row, pos } => {
                if let Some(p) = self.peeks.get_mut(usize::from(self.laid)) {
                    *p = (row.wrapping_sub(1)).wrapping_mul(3).wrapping_add(pos);
                }
                self.phase = Phase::Lay;
            }
            KorovanAction::Lay(set) => {
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
            KorovanAction::Place(p) => {
                self.token = p;
                // K-5.2: a face-up card resolves at once
                if self.face_up & cell_bit(self.row + 1, p) != 0 {
                    self.resolve();
                } else {
                    self.phase = Phase::Decide;
                }
            }
            KorovanAction::Switch(p) => {
                self.switches = self.switches.wrapping_sub(1);
                self.token = p;
                // K-5.3: switching onto a face-up card resolves it at once
                if self.face_up & cell_bit(self.row + 1, p) != 0 {
                    self.resolve();
                }
            }
            KorovanAction::Reveal => self.resolve(),
            KorovanAction::Scout { row, pos } => {
                self.scouted |= cell_bit(row, pos);
                self.use_helper(Helper::Scout);
            }
            KorovanAction::Spy { row } => {
                self.spied |= 1u8.wrapping_shl(u32::from(row.wrapping_sub(1)));
                self.use_helper(Helper::Spy);
            }
            KorovanAction::Flare { row, pos } => {
                self.face_up |= cell_bit(row, pos);
                self.use_helper(Helper::Flare);
            }
            KorovanAction::SecondThought => {
                self.switches = self.switches.wrapping_add(1);
                self.use_helper(Helper::SecondThought);
            }
            KorovanAction::Guard => {
                self.use_helper(Helper::Guard);
                self.pay(0);
            }
            KorovanAction::Haggle => {
                self.use_helper(Helper::Haggle);
                self.pay(self.fine.saturating_sub(1));
            }
            KorovanAction::Pay => self.pay(self.fine),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Over {
            return None;
        }
        // K-7.3: most cows wins; a shared maximum is a draw ("friendship wins")
        let n = usize::from(self.n);
        let best = self.cows.iter().take(n).copied().max().unwrap_or(0);
        let mut seats = Seats::EMPTY;
        for (s, &c) in self.cows.iter().enumerate().take(n) {
            if c == best {
                seats = seats.with(s);
            }
        }
        Some(if seats.len() == 1 { Outcome::Winner(seats.iter().next().unwrap_or(0)) } else { Outcome::Draw(seats) })
    }

    fn score(&self, seat: usize) -> i32 {
        i32::from(self.cows(seat)) // K-7.4
    }

    fn num_distinct_actions(_: &KorovanConfig) -> usize {
        NUM_ACTIONS
    }

    /// Per round at most: `h` deals, N−2 peeks, N−1 lays, and per row Place,
    /// one Switch, Reveal and Pay/Guard/Haggle (4·(N−1)), plus at most `2h`
    /// for helpers (each played helper is one action; a SecondThought adds one
    /// more switch). So `rounds · (3h + 6N − 7)`; skipped rounds have none.
    fn max_game_length(config: &KorovanConfig) -> usize {
        let n = usize::from(config.players);
        let h = usize::from(config.hand());
        let rounds = config.rounds() as usize;
        rounds * (3 * h + (6 * n).saturating_sub(7))
    }

    fn action_id(_: &KorovanConfig, action: KorovanAction) -> ActionId {
        action.id()
    }

    fn action_from_id(_: &KorovanConfig, id: ActionId) -> Result<KorovanAction, KorovanError> {
        KorovanAction::from_id(id)
    }

    fn observation(&self, seat: usize) -> Result<KorovanObservation, KorovanError> {
        KorovanObservation::new(self, seat)
    }

    fn observation_tensor_shape(_: &KorovanConfig) -> Vec<usize> {
        vec![crate::observe::TENSOR_LEN]
    }

    fn write_observation_tensor(&self, seat: usize, out: &mut [f32]) -> Result<(), KorovanError> {
        let obs = KorovanObservation::new(self, seat)?;
        obs.write_tensor(out)
    }

    /// K-8.6: every row the observer does not fully know is redrawn uniformly
    /// among the layouts that agree with what it saw (cards and hand cards);
    /// for a competitor, the driver's hand is redrawn with weight
    /// `Π_k C(D_k, r_k + p_k)` (D the deck composition, p the helpers played
    /// this round). The observer's observation is unchanged.
    /// K-8: a deal is seen by the driver alone (K-3.1: how many cards the
    /// driver holds is public, which ones is not, K-8.3); a lay by the
    /// competitor who lays (K-8.2: the row's layout is its owner's). Every
    /// other action is public (K-8.1: peeks' targets, the token's moves,
    /// reveals, every helper played with its target, payments).
    fn view_action(&self, viewer: Viewer, action: KorovanAction) -> Option<KorovanAction> {
        let private_to = match action {
            KorovanAction::Deal(_) => Some(self.driver()),
            KorovanAction::Lay(_) => match self.turn() {
                Turn::Player(seat) => Some(seat),
                _ => None,
            },
            _ => return Some(action),
        };
        (private_to.is_some() && viewer.seat() == private_to).then_some(action)
    }

    fn determinize(&self, observer: usize, rng: &mut GameRng) -> Result<Self, KorovanError> {
        crate::determinize::determinize(self, observer, rng)
    }
}
