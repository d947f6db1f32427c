//! # caravan-core
//!
//! The Caravan engine (Joe Huber's *Caravan*, 2013, as stated by the
//! normative rules `docs/rules/caravan.md`, rule ids `C-…`) on the
//! [`boardgame_kit::Game`] contract.
//!
//! * [`Caravan`] — the state: plain `Copy` data with `u64` bitboards over
//!   the 49 squares; [`boardgame_kit::Game`] gives its rules (legal actions
//!   without allocation, explicit chance draws, a validating `apply`).
//! * [`CaravanConfig`] — players, camels, the `max_turns` guard, the
//!   `held_penalty` variant and the [`Board`] layout, validated.
//! * [`Action`] — a 4-byte action with a stable id and a readable notation
//!   (`move supply->c4`, `pick 3`, `good R2 b2=>d5`, `steal R2 c4 from P1`,
//!   `end`, chance `draw C1`).
//! * [`CaravanSetup`] — any position, validated into a [`Caravan`] by
//!   [`Caravan::from_setup`]; also the serde form of a state.
//! * [`CaravanObservation`] and a flat tensor (layout in
//!   `docs/encoding-caravan.md`); determinization is a copy (C-8).
//! * The compact action space ([`compact_num_actions`]: 694 ids for 2
//!   players instead of 41,667), for policy networks: a boolean mask
//!   ([`Caravan::write_compact_mask`]) and an exact mapping to and from the
//!   flat ids ([`Caravan::compact_action`], [`Caravan::compact_id`]).
//! * [`CaravanHeuristic`] and [`tuned_ismcts`], the engine's agents, also by
//!   name through [`boardgame_kit::Bots`]; [`CaravanError`] is the kit's
//!   [`boardgame_kit::GameError`] with Caravan's parts.
//!
//! ## Modules
//!
//! The crate follows the engines' module template; each module uses only
//! the ones listed before it (no import cycle):
//!
//! | module | holds | rules |
//! |---|---|---|
//! | `board` | squares, kinds, bitboards, orthogonal adjacency (engine-specific geometry) | C-1.3, C-2 |
//! | `config` | [`CaravanConfig`], the [`Board`] layout, defaults, validation, [`ConfigError`] | C-1.1, C-1.2, C-2.1, C-2.2, C-2.4, C-7.2, C-7.4, C-11.1 |
//! | `action` | [`Action`] and its id layout, notation, [`ActionList`], [`ChanceList`] | C-5.6 |
//! | `error` | [`IllegalReason`], [`SetupError`], [`CaravanError`] | |
//! | `state` | [`Caravan`]'s data and read-only accessors | C-1.3, C-1.5 |
//! | `knowledge` | what each seat knows: everything; determinization, `view_action` | C-8.1, C-8.2 |
//! | `rules` | start, allowance, generation, checks, transitions, scores, outcome | C-3 … C-7, C-9 |
//! | `setup` | [`CaravanSetup`], [`Caravan::from_setup`], the serde form of a state | C-11.2 |
//! | `observation` | [`CaravanObservation`] and the tensor | C-8 |
//! | `display` | the ASCII board | |
//! | `game` | `impl Game for Caravan`, delegating to the above | |
//! | `compact` | the compact action space: [`CompactIndex`], [`Caravan::write_compact_mask`], [`CompactError`] (`docs/encoding-caravan.md`) | C-5.6 |
//! | `bot` | [`CaravanHeuristic`], [`tuned_ismcts`], `impl Bots` | |
//!
//! Speed (release build, 3 players, measured with the workspace benches on
//! a shared 2-core machine): a random playout runs at about 5 million
//! actions per second (legal-action generation of ~190 actions, a random
//! choice and `apply` included); legal actions of a middle-game position
//! take under 100 ns, a clone under 20 ns (the state is about 220 bytes of
//! `Copy` data), `apply_unchecked` about 25 ns. Nothing on these paths
//! allocates.
//!
//! ```
//! use boardgame_kit::{Game, GameRng, Turn, sample_chance};
//! use caravan_core::{Caravan, CaravanConfig};
//!
//! let mut game = Caravan::new_game(&CaravanConfig::with_players(3)).unwrap();
//! let mut rng = GameRng::new(7);
//! let mut actions = <Caravan as Game>::ActionList::default();
//! let mut chances = <Caravan as Game>::ChanceList::default();
//! while !game.is_terminal() {
//!     match game.turn() {
//!         Turn::Chance => {
//!             let draw = sample_chance(&game, &mut rng, &mut chances).unwrap();
//!             game.apply(draw).unwrap();
//!         }
//!         _ => {
//!             game.legal_actions(&mut actions);
//!             let pick = actions[rng.index(actions.len())];
//!             game.apply(pick).unwrap();
//!         }
//!     }
//! }
//! println!("{game}");
//! assert!(game.outcome().is_some());
//! assert_eq!(game.goods_by_kind().iter().sum::<u32>(), 48);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::missing_errors_doc, clippy::missing_panics_doc)]

// The modules, each standing above the ones it uses (no import cycles):
// board → config → action → error → state → knowledge → rules → setup →
// observation → display → game → compact → bot.
mod action;
mod board;
mod bot;
mod compact;
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

pub use action::{ACTION_LIST_CAPACITY, Act, Action, ActionList, ChanceList};
pub use board::{FULL_BAG, KINDS, Kind, NotationError, SIDE, SPACES, SQUARES, Square};
pub use bot::{CaravanHeuristic, tuned_ismcts};
pub use compact::{
    COMPACT_BEFORE_BOARD, COMPACT_BOARD_PLANES, COMPACT_SLOTS, CompactError, CompactIndex, MAX_COMPACT_ACTIONS,
    SLOT_PLANES, compact_num_actions,
};
pub use config::{Board, CaravanConfig, ConfigError, MAX_TURNS_LIMIT};
pub use error::{CaravanError, IllegalReason, SetupError};
pub use net::{
    LEARNED_SEARCH_MARGIN, WEIGHTS, WEIGHTS_BY_PLAYERS, network as learned_network,
    networks_by_players as learned_networks_by_players,
};
pub use observation::{CaravanObservation, GLOBAL_SCALARS, PLANES, PLAYER_SCALARS, TENSOR_LEN};
pub use rules::allowance;
pub use setup::{CaravanSetup, PlacedCamel};
pub use state::{Caravan, Cargo, EndKind};

// The crate's README (its page on crates.io): its Rust snippet is compiled
// and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
