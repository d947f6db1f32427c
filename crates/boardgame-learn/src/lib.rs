//! # boardgame-learn
//!
//! Trains the small policy-and-value [`Network`](boardgame_kit::nn::Network)s
//! that the kit's learned agents play (`learned`, `learned:T`,
//! `learned-ismcts:N`, [`boardgame_kit::nn`]), for any engine that
//! implements [`NetGame`](boardgame_kit::nn::NetGame) and
//! [`Bots`](boardgame_kit::Bots).
//!
//! * [`train`] — the pipeline: [`Distil`] a teacher's search into the
//!   network (expert iteration's first round: the targets are the search's
//!   visit shares), then [`Dagger`]: imitation of a teacher on the
//!   learner's own states, then [`Reinforce`]: PPO self-play against a league of
//!   the built-in agents and copies of the learner. Each phase ends with a
//!   [`CurvePoint`] measured by [`evaluate`] against fixed opponents on
//!   fixed seeds.
//! * [`Trainer`] — backpropagation and Adam, single-threaded and
//!   deterministic: the same options give the same weights, bit for bit.
//! * [`Dataset`], [`play_recorded`] — the samples, and the games that make
//!   them.
//! * [`chart_svg`] — the learning curve as a chart.
//!
//! Rust rather than Python: the network the engines play is the one that
//! was trained, through the same forward pass ([`boardgame_kit::nn::Mlp`]),
//! with no second implementation to drift; a run needs no PyTorch, is
//! reproducible to the bit, and its quick mode runs under `cargo test`.
//!
//! ```
//! use boardgame_kit::testgame::HiddenNim;
//! use boardgame_learn::{Distil, TrainOptions, train};
//!
//! let options = TrainOptions {
//!     hidden: vec![16],
//!     seed: 1,
//!     distil: Some(Distil { teacher: "ismcts:50".into(), games: 20, epochs: 5, batch: 16, learning_rate: 3e-3 }),
//!     dagger: None,
//!     reinforce: None,
//!     eval_games: 20,
//!     eval_against: vec!["random".into()],
//!     eval_every: 1,
//!     threads: 1,
//! };
//! let report = train::<HiddenNim>(&Default::default(), &options, &mut |_| {}).unwrap();
//! assert_eq!(report.curve.len(), 2); // before and after distillation
//! assert_eq!(report.network.game(), "hidden-nim");
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod chart;
mod data;
mod grad;
mod pipeline;

pub use chart::chart_svg;
pub use data::{Dataset, SampleRef, Seat, Target, build_agent, play_recorded, relative_shares};
pub use grad::{BatchStats, TrainSettings, Trainer};
pub use pipeline::{
    CurvePoint, Dagger, Distil, EVAL_SEED, Reinforce, TrainOptions, TrainReport, Versus, evaluate, train, train_from,
};
