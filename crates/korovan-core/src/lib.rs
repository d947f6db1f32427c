//! # korovan-core
//!
//! The Korovan board game (rules: `docs/rules/korovan.md`, ids `K-…`) as an
//! engine of the [`boardgame_kit::Game`] contract.
//!
//! * [`KorovanConfig`] — players 3..=9, first driver, laps, helper deck.
//! * [`Korovan`] — the state: plain `Copy` data with bit masks; explicit
//!   chance for the deal (K-3.1); legal actions into a fixed-capacity list.
//! * [`KorovanAction`] — every decision, with stable ids (103 for every N)
//!   and a notation (`peek 2.1`, `lay 0+2`, `place 1`, `scout 3.0`, …).
//! * [`KorovanObservation`] — what one player may know (K-8) and its tensor;
//!   `Display` of an observation is that player's view of the table.
//! * [`KorovanSetup`] — hand-made positions, validated by [`Korovan::from_setup`].
//!
//! ```
//! use boardgame_kit::{Game, GameRng, Turn, sample_chance};
//! use korovan_core::{Korovan, KorovanAction, KorovanConfig};
//!
//! let mut game = Korovan::new_game(&KorovanConfig::with_players(3)).unwrap();
//! let mut rng = GameRng::new(1);
//! let mut chances = Default::default();
//! while game.turn() == Turn::Chance {
//!     let deal = sample_chance(&game, &mut rng, &mut chances).unwrap();
//!     game.apply(deal).unwrap();
//! }
//! game.apply("lay 0+2".parse().unwrap()).unwrap(); // row 1
//! game.apply("peek 1.2".parse().unwrap()).unwrap(); // the second competitor peeks
//! game.apply(KorovanAction::Lay(korovan_core::AmbushSet::ALL[0])).unwrap();
//! assert!(game.apply("lay 1".parse().unwrap()).is_err()); // the journey has begun
//! println!("{game}");
//! println!("{}", game.observation(1).unwrap()); // seat 1's view
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::missing_errors_doc, clippy::missing_panics_doc)]

mod action;
mod bot;
mod config;
mod determinize;
mod error;
mod observe;
mod setup;
mod state;

pub use action::{AmbushSet, KorovanAction, NUM_ACTIONS};
pub use bot::KorovanHeuristic;
pub use config::{ConfigError, Helper, HelperCounts, KorovanConfig, MAX_HAND, MAX_LAPS, MAX_PLAYERS, MAX_ROWS};
pub use error::{IllegalReason, KorovanError};
pub use observe::{KorovanObservation, TENSOR_LEN};
pub use setup::{KorovanSetup, RowSetup, SetupError};
pub use state::{Card, Korovan, KorovanActionList, KorovanChanceList, Phase};
