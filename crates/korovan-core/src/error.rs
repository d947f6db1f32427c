//! The engine's typed errors: [`IllegalReason`], [`SetupError`] and
//! [`KorovanError`], and the conversions into [`Action`] that fail
//! with a [`KorovanError`] (`Action::from_id`, `FromStr`).

use std::str::FromStr;

use boardgame_kit::GameError;

use crate::action::{Action, NUM_ACTIONS};
use crate::config::{ConfigError, Helper};
use crate::state::Phase;

/// Why an action is illegal in a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalReason {
    /// K-7.2: nothing is played after the last round.
    #[error("the game is over")]
    GameOver,
    /// The action belongs to another phase.
    #[error("the game is in the {0} phase, which does not ask for this action")]
    WrongPhase(Phase),
    /// K-3.1: the deal draws only kinds left in the deck.
    #[error("no {0} card is left in the helper deck")]
    NotInDeck(Helper),
    /// K-6: the driver plays only helpers it holds.
    #[error("the driver holds no {0} card")]
    NoSuchHelper(Helper),
    /// A row outside 1..=N−1 or one not laid yet.
    #[error("row {row} is not on the table ({laid} rows laid)")]
    NoSuchRow {
        /// The row asked for (1-based).
        row: u8,
        /// The rows laid.
        laid: u8,
    },
    /// Positions are 0, 1, 2.
    #[error("position {0} does not exist (positions are 0, 1, 2)")]
    NoSuchPosition(u8),
    /// K-6: Scout, Spy and Flare target the current or a later row.
    #[error("row {row} is behind the caravan (the current row is {current})")]
    RowPassed {
        /// The row asked for (1-based).
        row: u8,
        /// The current row (1-based).
        current: u8,
    },
    /// Scout and Flare target face-down cards.
    #[error("the card at {row}.{pos} is already face up")]
    FaceUp {
        /// The row (1-based).
        row: u8,
        /// The position.
        pos: u8,
    },
    /// K-5.3: the switch goes to another position.
    #[error("the token is already at position {0}")]
    SamePosition(u8),
    /// K-5.3: one switch per step, plus one per SecondThought.
    #[error("no switch is left in this step")]
    NoSwitchLeft,
    /// The decision belongs to another seat (or to chance).
    #[error("seat {seat} is not to act ({to_act})")]
    NotYourTurn {
        /// The seat that tried to act.
        seat: usize,
        /// Who is to act, in words.
        to_act: &'static str,
    },
}

/// Why [`Korovan::from_setup`](crate::Korovan::from_setup) refuses a
/// position that no game under the rules can reach. It checks exactly:
///
/// * the cows: one count per seat, totalling N times the starting cows
///   (K-1.2), and each seat within what the rounds played so far allow
///   ([`SetupError::CowsOutOfReach`]: every seat holds the starting cows
///   until a fine or a toll moves some; a competitor gains at most the
///   larger fine per round and loses at most the one-cow toll, K-5.5, K-5.7;
///   a driver gains at most N−1 tolls and may lose everything; in the round
///   being played only the fines of rows already passed have been paid);
/// * the round fits the game (K-7.2) and its driver has a cow (K-5.8);
/// * the rows laid fit the phase (K-4.1), every competitor but the first
///   peeked at an earlier row (K-4.2), and cards are turned, scouted or
///   spied only during the journey;
/// * the journey fields: the current row, the token, the route of every
///   passed row (face up), the switches left (1 plus the SecondThoughts
///   played, K-5.3, K-6.1);
/// * the helpers: the hand holds the cards dealt so far minus those played
///   (K-3.1), the hand and the played cards fit the deck composition, the
///   log of played helpers agrees with the counts and every target (K-8.1),
///   and the scouted cells, spied rows, flared cards and defences have as
///   many helpers played.
///
/// It does not replay the round: a position that passes can still be one
/// that no sequence of legal actions reaches in a subtler way (for example
/// a flare and a scout of the same card in an order the log contradicts).
/// Configuration problems are reported as [`GameError::Config`], not here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// K-1.1.
    #[error("cows must list one count per seat: {players} players, got {found}")]
    CowsLength {
        /// Entries given.
        found: usize,
        /// Players.
        players: u8,
    },
    /// K-1.2.
    #[error("the cows must total N times the starting cows = {expected} (K-1.2), got {found}")]
    CowsTotal {
        /// The given total.
        found: u32,
        /// N times the starting cows, N·(N+1) by default.
        expected: u32,
    },
    /// K-1.2, K-5.5, K-5.7: more or fewer cows than the rounds played allow.
    #[error(
        "seat {seat} holds {cows} cows, but in this round of this game a seat can hold only {low}..={high} (K-1.2, K-5.5, K-5.7)"
    )]
    CowsOutOfReach {
        /// The seat.
        seat: usize,
        /// Its cows.
        cows: u8,
        /// The fewest it can hold.
        low: u32,
        /// The most it can hold.
        high: u32,
    },
    /// K-7.2.
    #[error("round {round} does not fit a game of {rounds} rounds in phase {phase}")]
    Round {
        /// The round given.
        round: u8,
        /// Rounds of the game.
        rounds: u32,
        /// The phase given.
        phase: Phase,
    },
    /// K-5.8.
    #[error("the driver (seat {0}) has no cow, so its round is skipped (K-5.8)")]
    CowlessDriver(usize),
    /// K-4.1.
    #[error("phase {phase} cannot have {rows} rows laid with {players} players")]
    RowCount {
        /// The phase.
        phase: Phase,
        /// Rows given.
        rows: usize,
        /// Players.
        players: u8,
    },
    /// Something wrong with one row.
    #[error("row {row}: {problem}")]
    Row {
        /// The row, 1-based.
        row: u8,
        /// What is wrong.
        problem: &'static str,
    },
    /// Something wrong with the journey fields.
    #[error("journey: {0}")]
    Journey(&'static str),
    /// Something wrong with the helper cards.
    #[error("helpers: {0}")]
    Helpers(&'static str),
}

/// Every error of the engine: the kit's one error shape, with Korovan's
/// action, illegal reasons, configuration errors and setup errors.
pub type KorovanError = GameError<Action, IllegalReason, ConfigError, SetupError>;

/// What the notation looks like, for [`GameError::Notation`].
pub(crate) const NOTATION: &str = "e.g. `deal scout`, `peek 2.1`, `lay 0+2`, `place 1`, `switch 2`, `reveal`, `scout 3.0`, `spy 4`, `flare 2.2`, `second_thought`, `guard`, `haggle`, `pay`";

impl Action {
    /// The action with id `id` (see [`Action`]'s id table).
    ///
    /// # Errors
    /// [`GameError::UnknownId`] when `id >= NUM_ACTIONS`.
    pub fn from_id(id: u32) -> Result<Action, KorovanError> {
        Action::decode(id).ok_or(GameError::UnknownId { id, num_ids: NUM_ACTIONS })
    }
}

impl FromStr for Action {
    type Err = KorovanError;

    /// Parses the notation of [`Action`]'s id table (`peek 2.1`,
    /// `lay 0+2`, `place 1`, `scout 3.0`, `spy 4`, `flare 2.2`,
    /// `second_thought`, `guard`, `pay`, …).
    fn from_str(s: &str) -> Result<Self, KorovanError> {
        Action::parse(s).ok_or_else(|| GameError::Notation { text: s.to_string(), expected: NOTATION })
    }
}
