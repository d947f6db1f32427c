//! # boardgames
//!
//! Reference engines for two board games, Korovan and Caravan, on a shared
//! game-engine kit: fast (legal actions, `apply` and `clone` allocate
//! nothing), exact (explicit chance with exact probabilities, seeded
//! portable randomness, records that replay bit for bit) and checked
//! against normative rules by property tests. This crate is a facade: it
//! re-exports the three library crates under short names.
//!
//! * [`kit`] ([`boardgame_kit`]) — the common contract [`kit::Game`], the
//!   generator [`kit::GameRng`], records ([`kit::GameRecord`]), the stepping
//!   loop ([`kit::Driver`]), agents ([`kit::RandomAgent`],
//!   [`kit::IsMctsAgent`], agents by name [`kit::AgentSpec`]), tournaments
//!   ([`kit::Arena`]) and [`kit::perft`]. It knows no game's rules.
//! * [`korovan`] ([`korovan_core`]) — Korovan, 3 to 9 players: one player
//!   drives a caravan down a road of face-down ambushes the others laid;
//!   [`korovan::Korovan`], [`korovan::KorovanConfig`],
//!   [`korovan::Action`], [`korovan::KorovanObservation`].
//! * [`caravan`] ([`caravan_core`]) — Caravan, 2 to 4 players: camel chains
//!   deliver goods across a 7 × 7 board; [`caravan::Caravan`],
//!   [`caravan::CaravanConfig`], [`caravan::Action`],
//!   [`caravan::CaravanObservation`].
//!
//! Each engine has a search-free heuristic agent and a tuned
//! information-set MCTS (`ismcts-h`), through [`kit::Bots`].
//!
//! ## Embed an engine
//!
//! ```
//! use boardgames::kit::{Game, GameRng, Turn, playout};
//! use boardgames::korovan::{Korovan, KorovanConfig};
//!
//! let config = KorovanConfig { players: 5, ..KorovanConfig::default() };
//! let mut game = Korovan::new_game(&config).expect("valid config");
//! let mut rng = GameRng::new(7);
//! // The game opens with chance (the deal): draw it until a player decides.
//! while game.turn() == Turn::Chance {
//!     let deal = game.sample_chance_outcome(&mut rng).expect("a chance node has outcomes");
//!     game.apply(deal).expect("a listed outcome is legal");
//! }
//! let Turn::Player(seat) = game.turn() else { unreachable!("the deal ends at a decision") };
//! let mut actions = <Korovan as Game>::ActionList::default();
//! game.legal_actions(&mut actions);            // no allocation
//! assert_eq!(game.num_players(), 5);
//! assert!(seat < 5 && !actions.is_empty());
//! let steps = playout(&mut game, &mut rng, usize::MAX);
//! assert!(game.is_terminal() && steps > 0);
//! let outcome = game.outcome().expect("the game is over");
//! println!("{outcome}"); // "seat 2 wins", "draw between seats 1, 4"
//! ```
//!
//! ## The rest of the workspace
//!
//! Published beside this crate, each with its own documentation:
//!
//! * [`boardgame-sim`](https://docs.rs/boardgame-sim) — seeded simulations
//!   over seed ranges, in shards whose results merge exactly.
//! * [`boardgame-lab`](https://docs.rs/boardgame-lab) — the balance lab:
//!   configuration sweeps, win shares with intervals, SVG reports.
//! * [`boardgame-server`](https://docs.rs/boardgame-server) — the web table
//!   (humans and bots at one table, each seat sees what it may know).
//! * [`boardgame-cli`](https://docs.rs/boardgame-cli) — the `boardgame`
//!   command (`cargo install boardgame-cli`): `play` in the terminal,
//!   `simulate`, `merge`, `replay`, `perft`, `bench`, `balance`, `serve`.
//! * The Python package `korovan-caravan` (import `korovan_caravan`): an
//!   OpenSpiel-shaped API, OpenSpiel games, PettingZoo environments and a
//!   vectorised environment.
//!
//! The normative rules (`docs/rules/korovan.md`, `docs/rules/caravan.md`,
//! with the ids the code and tests cite), the observation layouts and the
//! measured speed are documents of the source repository.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use boardgame_kit as kit;
/// The `proptest` crate the kit's strategies ([`kit::strategy`]) are built
/// on (feature `proptest`): `use boardgames::proptest::prelude::*;` brings
/// `proptest!`, `prop_assert!` and the `Strategy` trait, with no
/// `proptest` dependency of your own.
#[cfg(feature = "proptest")]
pub use boardgame_kit::proptest;
pub use caravan_core as caravan;
pub use korovan_core as korovan;

// The README's and the crate README's Rust snippets, compiled and run by
// `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("README.md")]
struct CrateReadmeDoctests;
