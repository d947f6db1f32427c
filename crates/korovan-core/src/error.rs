//! The engine's typed errors.

use crate::action::KorovanAction;
use crate::config::{ConfigError, Helper};
use crate::setup::SetupError;
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

/// Every error of the engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KorovanError {
    /// The configuration breaks the rules.
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
    /// A hand-made position breaks the rules' invariants.
    #[error("invalid position: {0}")]
    Setup(#[from] SetupError),
    /// The action is not legal now.
    #[error("illegal action `{action}`: {reason}")]
    Illegal {
        /// The action tried.
        action: KorovanAction,
        /// Why it is illegal.
        reason: IllegalReason,
    },
    /// The id is outside the action space.
    #[error("unknown action id {0} (the action space has 103 ids)")]
    UnknownId(u32),
    /// The text is not an action.
    #[error(
        "cannot parse {0:?} as an action (expected e.g. `deal scout`, `peek 2.1`, `lay 0+2`, `place 1`, `switch 2`, `reveal`, `scout 3.0`, `spy 4`, `flare 2.2`, `second`, `guard`, `haggle`, `pay`)"
    )]
    Notation(String),
    /// The seat does not exist.
    #[error("seat {seat} does not exist ({players} players)")]
    Seat {
        /// The seat asked for.
        seat: usize,
        /// The number of players.
        players: usize,
    },
    /// A tensor buffer of the wrong length.
    #[error("tensor buffer has length {found}, expected {expected}")]
    Buffer {
        /// The buffer's length.
        found: usize,
        /// The tensor's length.
        expected: usize,
    },
}
