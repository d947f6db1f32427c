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
//!   [`korovan::KorovanAction`], [`korovan::KorovanObservation`].
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
//! use boardgames::kit::{Game, GameRng, playout};
//! use boardgames::korovan::{Korovan, KorovanConfig};
//!
//! let config = KorovanConfig { players: 5, ..KorovanConfig::default() };
//! let mut game = Korovan::new_game(&config).expect("valid config");
//! let mut actions = <Korovan as Game>::ActionList::default();
//! game.legal_actions(&mut actions); // no allocation
//! assert!(!actions.is_empty() || game.turn() == boardgames::kit::Turn::Chance);
//! let steps = playout(&mut game, &mut GameRng::new(7), usize::MAX);
//! assert!(game.is_terminal() && steps > 0);
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
