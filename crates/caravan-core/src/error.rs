//! The typed errors of the engine: [`IllegalReason`] (why an action is not
//! legal now), [`SetupError`] (why a hand-made position cannot occur,
//! C-11.2) and [`CaravanError`], every error of the engine (the kit's
//! [`GameError`] with these parts and [`ConfigError`]); and the notation's
//! `FromStr` for [`Action`], whose error is [`CaravanError`].

use std::str::FromStr;

use boardgame_kit::GameError;

use crate::action::{self, Action};
use crate::config::ConfigError;

/// A hand-made position ([`crate::CaravanSetup`]) that cannot occur
/// (C-11.2). An invalid configuration is not a `SetupError`: it is
/// [`CaravanError::Config`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// C-1.3: the cubes of a kind do not add up.
    #[error("C-1.3: {kind} cubes must number {expected} (bag + lying + carried + delivered), found {found}")]
    Goods {
        /// The kind.
        kind: String,
        /// Cubes of that kind found.
        found: u32,
        /// Cubes of that kind in the game.
        expected: u8,
    },
    /// A camel of a seat that does not play.
    #[error("a camel belongs to player {player}, but the game has {players} players")]
    CamelOwner {
        /// The seat named.
        player: u8,
        /// The number of players.
        players: u8,
    },
    /// C-1.2: more camels on the board than the player owns.
    #[error("player {player} has {found} camels on the board but owns only {max}")]
    Camels {
        /// The seat.
        player: u8,
        /// Camels placed.
        found: usize,
        /// Camels per player.
        max: u8,
    },
    /// C-5.4: a good on top of a camel in the city that wants it would have
    /// been delivered.
    #[error("C-5.4: a {kind} on top of a camel at {square}, the city that wants it, would have been delivered")]
    Undelivered {
        /// The kind.
        kind: String,
        /// The city.
        square: String,
    },
    /// C-1.5: theft markers only change hands.
    #[error("C-1.5: the players must hold {expected} theft markers in all, found {found}")]
    TheftMarkers {
        /// Markers found.
        found: u32,
        /// One per player.
        expected: u8,
    },
    /// A seat that does not play holds something.
    #[error("player {player} does not play but holds {what}")]
    AbsentPlayer {
        /// The seat.
        player: u8,
        /// What it holds.
        what: &'static str,
    },
    /// C-4.1/C-4.2: the actions left do not fit the turn's allowance.
    #[error("C-4.1: turn {turn} allows 1..={allowance} actions left, got {found}")]
    ActionsLeft {
        /// The turn index.
        turn: u32,
        /// Its allowance.
        allowance: u8,
        /// The value given.
        found: u8,
    },
    /// C-7.2: a game still going cannot be at or past `max_turns`.
    #[error("C-7.2: turn index {turn} is not below max_turns {max_turns} in a game that goes on")]
    TurnIndex {
        /// The turn index.
        turn: u32,
        /// The limit.
        max_turns: u32,
    },
    /// C-6.1: the count of pick-ups since the refill is 0..=3.
    #[error("C-6.1: picks since the last refill must be 0..=3, got {0}")]
    Picks(u8),
    /// C-6.1: while the bag holds goods, the empty numbered spaces are exactly
    /// the ones emptied since the last refill (or waiting for a draw).
    #[error(
        "C-6.1: with goods in the bag, {empty} numbered spaces are empty, but {expected} should be ({picks} picks since the refill, {pending} draws pending)"
    )]
    EmptySpaces {
        /// Empty spaces found.
        empty: u32,
        /// Empty spaces expected.
        expected: u32,
        /// Picks since refill.
        picks: u8,
        /// Pending draws.
        pending: u32,
    },
    /// C-3.1/C-6.1: a pending draw onto a space that holds a good, or more
    /// pending draws than goods in the bag.
    #[error("C-6.1: pending draws are invalid: {0}")]
    Pending(&'static str),
    /// C-7.2: the count of consecutive passes must be below the player count.
    #[error("C-7.2: {found} consecutive passes, but a full round ({players}) ends the game")]
    Passes {
        /// The count.
        found: u8,
        /// Players.
        players: u8,
    },
    /// C-7.1: a natural end needs an empty bag.
    #[error("C-7.1: the game cannot have ended naturally with {0} goods in the bag")]
    NaturalEnd(u32),
}

/// Why an action is not legal in a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalReason {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// A draw at a player's decision.
    #[error("draws happen only at chance nodes, and a player must act now")]
    NotChance,
    /// A player's action at a chance node.
    #[error("a good must be drawn from the bag first (chance node)")]
    ChanceNode,
    /// The bag holds no cube of that kind.
    #[error("the bag holds no cube of that kind")]
    NotInBag,
    /// C-5.1: no unladen camel of the mover at the source.
    #[error("C-5.1: you have no unladen camel on that square")]
    NoCamelAtSource,
    /// C-5.1: all of the mover's camels are on the board.
    #[error("C-5.1: all your camels are already on the board")]
    SupplyEmpty,
    /// C-5.1: the target is the source.
    #[error("C-5.1: a camel must move to another square")]
    SameSquare,
    /// C-5.1: a move onto an occupied square costs 2 and one action is left.
    #[error("C-5.1: a move onto an occupied square costs 2 actions, only 1 is left")]
    NeedsTwoActions,
    /// C-5.2: no good lies there.
    #[error("C-5.2: no good lies on that numbered space")]
    NoGoodLying,
    /// C-5.2: the mover has no unladen camel there.
    #[error("C-5.2: you have no unladen camel on that numbered space")]
    NoUnladenCamel,
    /// C-5.3: no camel of the mover carries such a good there.
    #[error("C-5.3: none of your camels on that square carries such a good in that position")]
    NoSuchGood,
    /// C-5.3: no unladen camel of the mover at the target.
    #[error("C-5.3: you have no unladen camel on the target square")]
    NoTarget,
    /// C-5.3: the target is not linked to the source by a chain.
    #[error("C-5.3: no chain of your camels links the source to the target square")]
    NoChain,
    /// C-5.3: a good on top cannot move within its square.
    #[error("C-5.3: a good on top of a camel cannot move within its square")]
    TopSameSquare,
    /// C-5.5: the mover holds no theft marker.
    #[error("C-5.5: you hold no theft marker")]
    NoTheftMarker,
    /// C-5.5: the victim is the mover or not a player.
    #[error("C-5.5: the victim must be another player of this game")]
    BadVictim,
    /// C-5.5: the victim has no camel with such a good on top there.
    #[error("C-5.5: the victim has no camel on that square carrying such a good on top")]
    NothingToSteal,
    /// C-5.5: the thief needs an unladen camel on that square.
    #[error("C-5.5: you need an unladen camel on that square to steal")]
    NoThief,
    /// The id is not an action of this configuration.
    #[error("the action does not exist in this configuration")]
    OutOfSpace,
}

/// Every error of the Caravan engine: the kit's one error shape
/// ([`GameError`]) with Caravan's parts. A bad configuration is
/// [`GameError::Config`], an impossible hand-made position
/// [`GameError::Setup`], an action not legal now [`GameError::Illegal`]
/// with its [`IllegalReason`], malformed notation [`GameError::Notation`].
pub type CaravanError = GameError<Action, IllegalReason, ConfigError, SetupError>;

/// Parses the notation of an action; a malformed text is
/// [`GameError::Notation`] naming the whole text and what the part that
/// failed should look like.
impl FromStr for Action {
    type Err = CaravanError;
    fn from_str(s: &str) -> Result<Action, CaravanError> {
        action::parse(s).map_err(|e| GameError::Notation { text: s.to_string(), expected: e.expected })
    }
}

impl TryFrom<String> for Action {
    type Error = CaravanError;
    fn try_from(s: String) -> Result<Action, CaravanError> {
        s.parse()
    }
}
