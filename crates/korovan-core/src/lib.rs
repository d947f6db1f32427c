//! # korovan-core
//!
//! The Korovan board game (rules: `docs/rules/korovan.md`, ids `K-…`) as an
//! engine of the [`boardgame_kit::Game`] contract.
//!
//! * [`KorovanConfig`] — players 3..=9, first driver, laps, helper deck.
//! * [`Korovan`] — the state: plain `Copy` data with bit masks; explicit
//!   chance for the deal (K-3.1); legal actions into a fixed-capacity list.
//! * [`Action`] — every decision, with stable ids (103 for every N)
//!   and a notation (`peek 2.1`, `lay 0+2`, `place 1`, `scout 3.0`, …).
//! * [`KorovanObservation`] — what one player may know (K-8) and its tensor;
//!   `Display` of an observation is that player's view of the table.
//! * [`KorovanSetup`] — hand-made positions, validated by [`Korovan::from_setup`].
//! * [`KorovanHeuristic`] — a search-free agent that reads only its
//!   observation; [`tuned_ismcts`] — the strongest agent of `docs/bots.md`
//!   (`ismcts-h`) with a budget per decision; both through
//!   [`boardgame_kit::Bots`].
//!
//! The modules follow the template every engine of the workspace shares
//! (each stands above the ones it uses):
//!
//! | module | role | rules |
//! |---|---|---|
//! | `config` | [`KorovanConfig`], [`Helper`], [`HelperCounts`], [`Fines`], [`ConfigError`] | K-1.1, K-1.2, K-1.4, K-2.1, K-5.5, K-6.3, K-7.2 |
//! | `action` | [`Action`], its ids and notation, [`ActionList`], [`ChanceList`] | K-4.1, K-4.3 |
//! | `state` | the data of [`Korovan`] and its accessors, [`Phase`], [`Card`], [`HelperLog`] | K-8.4 |
//! | `error` | [`IllegalReason`], [`SetupError`], [`KorovanError`] (the kit's `GameError`) | |
//! | `knowledge` | what each seat knows, of the state and of each action (`view_action`); determinization | K-4.4, K-8.1, K-8.2, K-8.3, K-8.6 |
//! | `rules` | checks, transitions, legal actions and chance | K-1.2, K-2, K-3, K-4, K-5, K-6, K-7 |
//! | `observation` | [`KorovanObservation`] and its tensor | K-8.1, K-8.5, K-9.3 |
//! | `display` | the table as text (full state and one seat's view) | |
//! | `setup` | [`KorovanSetup`], [`Korovan::from_setup`] | K-1.2, K-4.1, K-4.2, K-5.8 |
//! | `game` | `impl boardgame_kit::Game for Korovan` (delegation) | |
//! | `bot` | [`KorovanHeuristic`], [`tuned_ismcts`], `impl Bots` | K-4.2, K-4.3, K-5, K-6 (its play) |
//!
//! ```
//! use boardgame_kit::{Game, GameRng, Turn, sample_chance};
//! use korovan_core::{Korovan, Action, KorovanConfig};
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
//! game.apply(Action::Lay(korovan_core::AmbushSet::ALL[0])).unwrap();
//! assert!(game.apply("lay 1".parse().unwrap()).is_err()); // the journey has begun
//! println!("{game}");
//! println!("{}", game.observation(1).unwrap()); // seat 1's view
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::missing_errors_doc, clippy::missing_panics_doc)]

// The modules, each standing above the ones it uses (no import cycles):
// config → action → state → error → knowledge → rules → observation →
// display → setup → game → bot.
mod action;
mod bot;
mod config;
mod display;
mod error;
mod game;
mod knowledge;
mod net;
mod observation;
mod rules;
mod setup;
mod state;
pub mod words;

pub use action::{Action, ActionList, AmbushSet, ChanceList, NUM_ACTIONS};
pub use bot::{KorovanHeuristic, tuned_ismcts};
pub use config::{ConfigError, Fines, Helper, HelperCounts, KorovanConfig, MAX_HAND, MAX_LAPS, MAX_PLAYERS, MAX_ROWS};
pub use error::{IllegalReason, KorovanError, SetupError};
pub use net::{
    LEARNED_SEARCH_MARGIN, WEIGHTS, WEIGHTS_BY_PLAYERS, network as learned_network,
    networks_by_players as learned_networks_by_players,
};
pub use observation::{KorovanObservation, TENSOR_LEN};
pub use setup::{KorovanSetup, RowSetup};
pub use state::{Card, HelperLog, Korovan, Phase};

// The crate's README (its page on crates.io): its Rust snippet is compiled
// and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
