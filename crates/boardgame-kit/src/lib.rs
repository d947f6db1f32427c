//! # boardgame-kit
//!
//! The common contract of the board-game engines of this workspace, and
//! generic tools over it. It knows no game's rules.
//!
//! * [`Game`] — the trait every engine implements: whose turn ([`Turn`]),
//!   legal actions into a caller-owned fixed-capacity list, explicit chance
//!   nodes with exact probabilities ([`ChanceOutcome`]), a validating
//!   [`Game::apply`] and an unchecked fast path, outcome and scores, a stable
//!   action-id codec, typed and tensor observations, determinization.
//! * [`GameRng`] — seeded, portable ChaCha8 with independent child streams.
//! * [`GameRecord`] — the versioned persistence format, replayed exactly.
//! * [`Driver`] — the one stepping loop: a game, its seed's streams (chance
//!   and one per seat) and its record, advanced by chance, agents or people.
//! * [`Bots`], [`AgentSpec`] — an engine's own agents, and agents by name
//!   (`random`, `heuristic`, `ismcts:N`, `ismcts-h:N`, `flatmc:N`, `flatmc-h:N`,
//!   `learned`, `learned:T`, `learned-ismcts:N`).
//! * [`Agent`], [`RandomAgent`], [`play_game`] ([`play_boxed`] for boxed
//!   agents), [`playout`], [`perft`],
//!   [`decision_positions`], [`Arena`] — generic tools; [`conformance`] — the test suite every engine
//!   runs against itself; `strategy` (feature `proptest`) — proptest
//!   strategies for arbitrary reachable states.
//! * [`IsMctsAgent`], [`FlatMcAgent`] — search agents generic over the trait:
//!   information-set MCTS (determinize from the seat's view every iteration)
//!   and a flat Monte-Carlo baseline, with iteration or time budgets.
//! * [`nn`] — learned agents: a small policy-and-value network read from a
//!   versioned weights file and played in plain Rust (`learned`,
//!   `learned-ismcts:N`); [`check_learned`] — an engine's shipped network
//!   and its learned agents, checked in one call.
//! * [`Words`], [`Lang`] — actions in plain words for people, in English or
//!   Russian, hiding exactly what [`Game::view_action`] hides ([`check_words`]).
//! * [`testgame`] — `HiddenNim`, a tiny game used by the kit's tests and
//!   examples.
//!
//! # Vocabulary
//!
//! One word for one thing, in the kit and in every engine:
//!
//! * **player** — someone playing; [`Game::num_players`] counts them (a
//!   configuration's field `players`, a `u8`, is the same count as stored).
//! * **seat** — a player's place at the table, `0..num_players()`, always a
//!   `usize`: [`Turn::Player`]`(seat)`, [`Game::observation`]`(seat)`,
//!   [`Game::score`]`(seat)`, [`Viewer::Seat`]. Seat 0 moves first unless the
//!   rules say otherwise; words for people number seats the same way
//!   (`seat 2 wins`). A method taking a seat names its parameter `seat`.
//! * [`Seats`] — a set of seats, read through its methods.
//! * **action** — a decision or a chance outcome: `<engine>::Action`
//!   (`korovan_core::Action`, `caravan_core::Action`, whose decoded form is
//!   `caravan_core::Act`), [`Game::Action`] generically; its stable integer
//!   id is an [`ActionId`]. A chance node's actions with their weights are
//!   [`ChanceOutcome`]s.
//! * **score** — [`Game::score`], the number a game is won by: Korovan's
//!   **cows** (`Korovan::cows`), Caravan's **points** (`Caravan::points`);
//!   the rules' own word names each engine's accessor, *score* is the
//!   generic one. **Returns** ([`Game::returns`]) are what agents maximise,
//!   the **outcome** ([`Outcome`]) who won.
//!
//! # Example
//!
//! A seeded game between a search agent and a random one, its record
//! replayed, and the first decision's legal actions. `HiddenNim` stands in
//! for an engine here; `korovan_core::Korovan` and `caravan_core::Caravan`
//! are used the same way.
//!
//! ```
//! use boardgame_kit::testgame::HiddenNim;
//! use boardgame_kit::{Game, GameRng, IsMctsAgent, RandomAgent, Turn, play_game, random_action};
//!
//! let config = <HiddenNim as Game>::Config::default();
//! let mut search = IsMctsAgent::with_iterations(100);
//! let mut random = RandomAgent;
//! let game = play_game::<HiddenNim>(&config, &mut [&mut search, &mut random], 7).expect("a valid game");
//! println!("{}", game.state.outcome().expect("the game is over")); // "seat 0 wins" or "seat 1 wins"
//! assert_eq!(game.record.replay::<HiddenNim>().expect("same rules"), game.state);
//!
//! // By hand: chance (the deal) until a seat decides, then its legal actions.
//! let mut state = HiddenNim::new_game(&config).expect("a valid config");
//! let mut rng = GameRng::new(7);
//! while state.turn() == Turn::Chance {
//!     let outcome = random_action(&state, &mut rng).expect("a chance node has outcomes");
//!     state.apply(outcome).expect("a listed outcome is legal");
//! }
//! let mut actions = <HiddenNim as Game>::ActionList::default();
//! state.legal_actions(&mut actions); // into a fixed-capacity list: no allocation
//! assert_eq!(state.turn(), Turn::Player(0));
//! assert!(!actions.is_empty());
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::missing_errors_doc, clippy::missing_panics_doc)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
mod arena;
pub mod batch;
mod bots;
pub mod conformance;
mod digest;
mod driver;
mod game;
mod learned_check;
pub mod nn;
mod record;
mod rng;
mod search;
#[cfg(feature = "proptest")]
#[cfg_attr(docsrs, doc(cfg(feature = "proptest")))]
pub mod strategy;
pub mod testgame;
/// The `proptest` crate the strategies are built on (feature `proptest`), so
/// that a property test needs no dependency of its own:
/// `use boardgame_kit::proptest::prelude::*;` brings `proptest!`,
/// `prop_assert!` and the `Strategy` trait.
#[cfg(feature = "proptest")]
#[cfg_attr(docsrs, doc(cfg(feature = "proptest")))]
pub use proptest;
mod words;

pub use agent::{Agent, ByPlayers, RandomAgent, count_legal, perft, playout, random_action};
pub use arena::{
    AgentFactory, Arena, ArenaGame, ArenaReport, Entrant, EntrantStats, SHARE_UNIT, share_units, wilson_interval,
    wilson_interval_at,
};
pub use batch::{Batch, BatchBuffers, BatchError, BatchOut, LegalFormat, SlotSeeds};
pub use bots::{
    AGENT_NAMES, AgentSpec, AgentSpecError, Bots, DEFAULT_ITERATIONS, HEURISTIC_FLAT_BASE_MARGIN, HEURISTIC_FLAT_DEPTH,
    HEURISTIC_FLAT_MARGIN, HEURISTIC_FLAT_TEMPERATURE, MAX_BUDGET_TIME, MAX_ITERATIONS, Temperature, WeightsFile,
};
pub use digest::Fnv1a;
pub use driver::{
    AGENT_STREAM_BASE, CHANCE_STREAM, Driver, PlayError, PlayedGame, SeatStreams, decision_positions, play_boxed,
    play_from, play_game,
};
pub use game::{
    ActionBuffer, ActionId, ChanceOutcome, Game, GameError, MaskError, Outcome, Seats, SeatsIter, Turn, Viewer,
    chance_actions, legal_action_mask, sample_chance,
};
pub use learned_check::{LearnedReport, check_learned, check_player_networks, golden_outputs, same_decisions};
pub use record::{GameRecord, RECORD_FORMAT_VERSION, RecordError, RecordHeader};
pub use rng::GameRng;
pub use search::{
    Budget, EdgeStats, Evaluation, FlatMcAgent, IsMctsAgent, LeafValue, SearchSettings, SearchStats,
    score_leader_returns, score_margin_returns,
};
pub use words::{Lang, Words, check_words, check_words_in_game, fill, marked_section};

// The crate's README (its page on crates.io): its Rust snippet is compiled
// and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
