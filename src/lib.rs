#![doc = include_str!("../README.md")]
//!
//! ## This crate
//!
//! A facade over the library crates of this workspace:
//!
//! * [`kit`] — [`boardgame_kit`], the common contract and generic tools.
//! * [`korovan`] — [`korovan_core`], the Korovan engine.
//! * [`caravan`] — [`caravan_core`], the Caravan engine.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use boardgame_kit as kit;
pub use caravan_core as caravan;
pub use korovan_core as korovan;
