//! # boardgame-lab
//!
//! A balance lab for the engines of this workspace: self-play over a grid of
//! configurations, with win shares and their 95% intervals, written as a
//! markdown report with SVG charts.
//!
//! * [`Sweep`], [`set_path`], [`grid`] — configuration fields named by JSON
//!   paths (`deck.scout=0..8`), so any field of any engine's configuration
//!   can be swept without code for it.
//! * [`run_study`] — every cell of the grid played by the kit's
//!   [`boardgame_kit::Arena`] on the same seeds (threads and shards give the
//!   same tallies), into [`LabResults`] (integer sums; merge shards with
//!   [`LabResults::merge`]).
//! * [`worth`] — paired treatments: the same seed played as it falls and
//!   with one seat's chance forced (Korovan's [`DealKind`]).
//! * [`stats`] — Wilson intervals of win shares, differences, means.
//! * [`report`] — `report.md`, `results.json` and charts drawn by `plotters`
//!   (SVG backend, no font library).
//! * [`Engine`] — what the lab reads of an engine, from the engine registry
//!   ([`boardgame_sim::games`]): who leads, the card-worth treatments.
//!
//! ```
//! use boardgame_kit::{Entrant, RandomAgent, testgame::HiddenNim};
//! use boardgame_lab::{LabError, Study, run_study};
//!
//! let study = Study::<HiddenNim> {
//!     base: Default::default(),
//!     sweeps: vec!["stones=3..5".parse().unwrap()],
//!     seeds: 0..100,
//!     threads: 2,
//!     worth: false,
//!     worth_seeds: 0..0,
//! };
//! let make = |players: usize| -> Result<Vec<Entrant<HiddenNim>>, LabError> {
//!     Ok((0..players).map(|_| Entrant::new("random", || Box::new(RandomAgent))).collect())
//! };
//! let results = run_study(&study, &make, &|| {}).unwrap();
//! assert_eq!(results.cells.len(), 3);
//! assert!(results.cells.iter().all(|c| c.games == 100));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::missing_errors_doc, clippy::missing_panics_doc)]

mod error;
pub mod ladder_chart;
pub mod report;
mod run;
pub mod stats;
mod sweep;
pub mod worth;

pub use boardgame_sim::games::{DealKind, Engine};
pub use error::LabError;
pub use report::{markdown, write_report};
pub use run::{CellResult, LAB_FORMAT, LabResults, Study, WorthResult, entrants_for, run_study, units_to_share};
pub use sweep::{Cell, MAX_SWEEP_VALUES, Setting, Sweep, grid, set_path, settings_text, value_text};

// The crate's README (its page on crates.io): its Rust snippet is compiled
// and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
