//! Simulations over a seed range and their mergeable results, with the
//! engines and agents by name: the code that `boardgame simulate` /
//! `boardgame merge` (crate `boardgame-cli`) and the Python binding's
//! `korovan_caravan.distributed` share, so a shard simulated from Python is
//! the file `boardgame simulate --json --shard I/K` writes, and merges as
//! `boardgame merge` does.
//!
//! - [`games`]: the engines by their command-line names ([`games::GameName`],
//!   [`games::with_game!`]), and a configuration from a player count and a
//!   JSON overlay ([`games::build_config`]).
//! - [`agents`]: lists of agent names fitted to the seats.
//! - [`session`]: a game and a state as a front end outside Rust holds
//!   them (the Python binding's classes); [`vector`]: the kit's `Batch` of
//!   any engine behind one trait; [`learner`]: single-learner batches whose
//!   opponents play in Rust; [`selfplay`]: self-play and network matches;
//!   [`matches`](mod@matches): matches of named agents and their tallies.
//! - [`simulate`]: [`simulate::simulate_spec`] plays a [`simulate::SimSpec`]
//!   (one shard of a seed range) and returns [`simulate::SimResults`], whose
//!   JSON ([`simulate::to_json`]) merges exactly ([`simulate::merge_text`]).
//! - [`ladder`]: a rating ladder ([`ladder::run_ladder`]), whose JSON
//!   merges as exactly ([`ladder::merge_texts`]); [`sprt`]: is one agent
//!   stronger than another; [`merge`](mod@merge): the merge of either
//!   kind of JSON by its format tag ([`merge::merge_results`]).
//!
//! No command-line parser and no terminal output: a caller that wants a
//! progress bar passes a [`simulate::Progress`].
//!
//! ```
//! use boardgame_sim::games::GameName;
//! use boardgame_sim::simulate::{Shard, SimSpec, merge_text, simulate_spec, to_json};
//!
//! let spec = |shard| SimSpec {
//!     game: GameName::Caravan,
//!     players: Some(2),
//!     config: None,
//!     games: 4,
//!     agents: "random".into(),
//!     seed: 7,
//!     threads: 1,
//!     shard,
//!     fixed_seats: false,
//! };
//! let whole = simulate_spec(&spec(None))?;
//! let mut sum = None;
//! for i in 0..2 {
//!     let part = simulate_spec(&spec(Some(Shard::new(i, 2)?)))?;
//!     merge_text(&mut sum, &to_json(&part))?;
//! }
//! assert_eq!(sum, Some(whole));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod agents;
pub mod error;
pub mod games;
pub mod ladder;
pub mod learner;
pub mod matches;
pub mod merge;
pub mod selfplay;
pub mod session;
pub mod simulate;
pub mod sprt;
pub mod vector;

pub use error::SimError;

// The crate's README (its page on crates.io): its Rust snippet is compiled
// and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
