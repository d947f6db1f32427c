//! The library half of the `boardgame` command: the engines and agents by
//! name ([`games`], [`agents`]), and simulations over a seed range with
//! their mergeable results ([`simulate`]). The binary (`src/main.rs`) and
//! the Python binding (`korovan_caravan.distributed`) both call it, so a shard
//! simulated from Python is the file `boardgame simulate --json --shard I/K`
//! writes, and merges as `boardgame merge` does.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod agents;
pub mod error;
pub mod games;
pub mod input;
pub mod simulate;
