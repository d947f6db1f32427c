//! [`Korovan`]: the state as plain fixed-size data and its read-only
//! accessors. The rules that change it are in `rules`; what each seat knows
//! of it is in `knowledge`.

use std::fmt;

use boardgame_kit::Turn;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::action::Action;
use crate::config::{HelperCounts, KorovanConfig, MAX_HAND, MAX_PLAYERS, MAX_ROWS};

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

/// The helpers played this round, in the order played, each with its
/// target (K-8.1): at most one hand of [`MAX_HAND`] cards. Plain `Copy` data;
/// serialized as the list of the actions.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct HelperLog {
    len: u8,
    ids: [u8; MAX_HAND as usize],
}

impl HelperLog {
    /// No helper played.
    pub const EMPTY: HelperLog = HelperLog { len: 0, ids: [0; MAX_HAND as usize] };

    /// The number of helpers played.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether no helper was played.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The helpers played, in order.
    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        self.ids.iter().take(self.len()).filter_map(|&id| Action::decode(u32::from(id)))
    }

    /// Appends a played helper (ignored once the log is full, which a legal
    /// game never reaches: a round plays at most its hand).
    #[inline]
    pub(crate) fn push(&mut self, action: Action) {
        if let Some(x) = self.ids.get_mut(usize::from(self.len)) {
            *x = action.id() as u8;
            self.len += 1;
        }
    }

    /// The log of `actions`, if they are at most [`MAX_HAND`] helper actions.
    pub fn from_actions(actions: &[Action]) -> Option<HelperLog> {
        let mut log = HelperLog::EMPTY;
        if actions.len() > usize::from(MAX_HAND) {
            return None;
        }
        for &a in actions {
            a.helper()?;
            log.push(a);
        }
        Some(log)
    }
}

impl fmt::Debug for HelperLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for HelperLog {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for HelperLog {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let actions = Vec::<Action>::deserialize(deserializer)?;
        HelperLog::from_actions(&actions)
            .ok_or_else(|| serde::de::Error::custom(format!("a helper log holds at most {MAX_HAND} helper actions")))
    }
}

/// Row (1-based) and position of each of the 24 cells.
pub(crate) const CELL_ROW: [u8; 24] = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8];
pub(crate) const CELL_POS: [u8; 24] = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2];

/// The bit of the cell of a 1-based `row` and `pos` (never panics; out of
/// range values give a meaningless bit).
#[inline]
pub(crate) fn cell_bit(row: u8, pos: u8) -> u32 {
    1u32.wrapping_shl(u32::from(row.wrapping_sub(1)) * 3 + u32::from(pos))
}

/// A game of Korovan: the whole state as plain `Copy` data (well under 200
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
///
/// It serializes as its [`KorovanSetup`](crate::KorovanSetup), so a
/// deserialized state is validated like [`Korovan::from_setup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// The helpers played this round, in order (K-8.1).
    pub(crate) log: HelperLog,
}

impl Korovan {
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
    /// The current driver's seat; `None` once the game is over (K-7.2:
    /// nobody drives after the last round).
    pub fn driver(&self) -> Option<usize> {
        (self.phase != Phase::Over).then_some(usize::from(self.driver))
    }
    /// Cows of `seat` (0 for seats out of range).
    pub fn cows(&self, seat: usize) -> u8 {
        if seat < usize::from(self.n) { self.cows.get(seat).copied().unwrap_or(0) } else { 0 }
    }
    /// The total of all cows: N times the starting cows always, N·(N+1) by
    /// default (K-1.2).
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
    /// The helpers played this round, per kind.
    pub fn helpers_played(&self) -> HelperCounts {
        HelperCounts::from_array(self.played)
    }
    /// The helpers played this round with their targets, in order (K-8.1).
    pub fn helper_log(&self) -> HelperLog {
        self.log
    }

    /// Who decides now: chance deals (K-3.1), competitors peek and lay in
    /// turn (K-4.1), the driver journeys (K-5), nobody once over (K-7.2).
    #[inline]
    pub(crate) fn whose_turn(&self) -> Turn {
        match self.phase {
            Phase::Deal => Turn::Chance,
            Phase::Peek | Phase::Lay => Turn::Player(self.owner(self.laid)),
            Phase::Place | Phase::Decide | Phase::Defend => Turn::Player(usize::from(self.driver)),
            Phase::Over => Turn::Terminal,
        }
    }

    /// The seat owning 0-based row `row0`: `(driver + 1 + row0) mod N`,
    /// without a loop (a legal state's rows are below N, so one subtraction
    /// at most; anything else takes the remainder).
    #[inline]
    pub(crate) fn owner(&self, row0: u8) -> usize {
        let o = usize::from(self.driver) + 1 + usize::from(row0);
        let n = usize::from(self.n);
        if o < n {
            o
        } else if o - n < n {
            o - n
        } else {
            o.checked_rem(n).unwrap_or(0)
        }
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
}
