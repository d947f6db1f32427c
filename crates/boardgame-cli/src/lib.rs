//! The library half of the `boardgame` command: what its subcommands share
//! besides the simulation library ([`boardgame_sim`], whose [`agents`] and
//! [`simulate`] steps are re-exported here): the engines' command-line
//! adapters ([`games`]), the command's error ([`error`]) and the arguments
//! and output of `simulate`, `demo` and `merge` ([`simulate`]).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use boardgame_sim::agents;
pub mod error;
pub mod games;
pub mod input;
pub mod lobby;
pub mod simulate;
