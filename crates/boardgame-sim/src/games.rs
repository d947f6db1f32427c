//! The engine registry: the one place that lists the engines.
//!
//! Every front end — the `boardgame` command, the web table it serves, the
//! balance lab, the simulator and the Python binding — reaches the engines
//! through this module and names none of them itself:
//!
//! - [`GameName`] lists the engines and [`with_game!`] binds a type alias to
//!   the engine of a name, so generic code runs on it;
//! - [`for_each_engine!`] hands the list to a macro, for front ends that
//!   must declare one item per engine (the Python binding's classes);
//! - [`Engine`] is what a front end needs of an engine beyond
//!   [`Game`] and [`Bots`]: its name on the command line, how a simulation
//!   counts its progress, how a state renders as text, which seats lead (the
//!   lab), what a card is worth (the lab's [`Treatment`]s) and its compact
//!   action space for networks, where it has one ([`CompactActions`]).
//!
//! Adding an engine takes its crate and one entry here: a [`GameName`]
//! variant with its arm in [`with_game!`] and its line in
//! [`for_each_engine!`], and its `impl Engine`. Rules stay in the engine's
//! crate; an entry only says how the front ends name and count the game.
//!
//! The kit's test game `HiddenNim` implements [`Engine`] so that generic
//! code can be tested on it quickly; it is no [`GameName`], so no front end
//! offers it.

use boardgame_kit::testgame::HiddenNim;
use boardgame_kit::{Bots, Game, Words};
use caravan_core::{Caravan, EndKind};
use korovan_core::{Helper, Korovan, Phase};
use serde_json::Value;

use crate::SimError;

// The engines, for the macros in crates that do not name them.
#[doc(hidden)]
pub use {caravan_core as __caravan, korovan_core as __korovan};

/// What a front end needs of an engine beyond [`Game`], [`Bots`] and
/// [`Words`].
pub trait Engine: Game + Bots + Words {
    /// The engine's name on the command line (and in simulation results).
    const CLI_NAME: &'static str;
    /// One line on the game, for help texts.
    const ABOUT: &'static str;
    /// What [`Engine::progress`] counts (`"turns"`, `"rounds"`).
    const PROGRESS_UNIT: &'static str;
    /// The player counts `boardgame bench` measures when none is given.
    const BENCH_PLAYERS: &'static [usize];
    /// The role of the seat that leads (`first driver`, `first player`).
    const LEAD_ROLE: &'static str = "first player";
    /// What [`Engine::treatments`] force, for the lab's report: completes
    /// "each seed is played twice: as it falls, and …" (empty without
    /// treatments).
    const TREATMENT: &'static str = "";

    /// `config` with `players` seats.
    ///
    /// # Errors
    /// When the engine does not allow that many players.
    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String>;

    /// Turns or rounds played so far.
    fn progress(&self) -> u64;

    /// Every kind of end [`Engine::end_kind`] may name (reported even when
    /// no game ended so).
    const END_KINDS: &'static [&'static str] = &[];

    /// How a finished game ended, when the engine distinguishes kinds of end.
    fn end_kind(&self) -> Option<&'static str> {
        None
    }

    /// The whole state, rendered for a reader who may see everything
    /// (replays).
    fn render(&self) -> String;

    /// What `seat` may see, rendered (the human player's screen).
    fn render_view(&self, seat: usize) -> String;

    /// The seats of `config` in the order they lead, the leader first.
    /// Default: seat 0, 1, 2, … (clockwise from seat 0).
    fn turn_order(config: &Self::Config, players: usize) -> Vec<usize> {
        let _ = config;
        (0..players).collect()
    }

    /// The engine's card-worth treatments (empty by default).
    fn treatments(config: &Self::Config) -> Vec<Box<dyn Treatment<Self>>> {
        let _ = config;
        Vec::new()
    }

    /// The engine's compact action space for policy networks, where it has
    /// one (`None` by default: the flat ids are the space).
    fn compact_actions(config: &Self::Config) -> Option<Box<dyn CompactActions<Self>>> {
        let _ = config;
        None
    }
}

/// A forced chance outcome for one seat: what the balance lab measures the
/// worth of.
pub trait Treatment<G: Game>: Send + Sync {
    /// A short name (`scout`).
    fn name(&self) -> String;

    /// The chance outcome to play instead of a draw at `state` (a chance
    /// node) for the benefit of seat `target`, or `None` to draw as usual.
    fn force(&self, state: &G, target: usize) -> Option<G::Action>;
}

/// An action space for policy networks other than the engine's flat ids:
/// ids `0..num_actions()`, of which exactly the legal actions are set in a
/// state's mask.
pub trait CompactActions<G: Game>: Send + Sync {
    /// The space's name (`compact`).
    fn name(&self) -> &'static str;

    /// The number of ids.
    fn num_actions(&self) -> usize;

    /// Writes the mask of `state` into `row` (`num_actions()` long): 1 at
    /// the ids of the legal actions, 0 elsewhere (all 0 at a chance node or
    /// at the end). `scratch` is a list to work in.
    fn write_mask(&self, state: &G, scratch: &mut G::ActionList, row: &mut [u8]);

    /// The legal action of `state` that id `id` names, or `None`.
    fn decode(&self, state: &G, id: u32) -> Option<G::Action>;
}

/// The games by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameName {
    /// Korovan: 3 to 9 players, hidden ambushes on the caravan's route.
    Korovan,
    /// Caravan: 2 to 4 players, camel chains delivering goods.
    Caravan,
}

/// Calls `$body` with the type alias `$G` bound to the engine of `$name`
/// (a [`GameName`]).
#[macro_export]
macro_rules! with_game {
    ($name:expr, $G:ident => $body:expr) => {
        match $name {
            $crate::games::GameName::Korovan => {
                type $G = $crate::games::__korovan::Korovan;
                $body
            }
            $crate::games::GameName::Caravan => {
                type $G = $crate::games::__caravan::Caravan;
                $body
            }
        }
    };
}
pub use crate::with_game;

/// Calls the macro `$callback` with every engine, one
/// `engine type => GameClass, StateClass;` line each (the classes the Python
/// binding declares for it).
#[macro_export]
macro_rules! for_each_engine {
    ($callback:ident) => {
        $callback! {
            $crate::games::__korovan::Korovan => KorovanGame, KorovanState;
            $crate::games::__caravan::Caravan => CaravanGame, CaravanState;
        }
    };
}
pub use crate::for_each_engine;

impl GameName {
    /// Every game, in the order `all` runs them.
    pub const ALL: &'static [GameName] = &[GameName::Korovan, GameName::Caravan];

    /// The game's name on the command line ([`Engine::CLI_NAME`]).
    pub fn cli_name(self) -> &'static str {
        with_game!(self, G => G::CLI_NAME)
    }

    /// The engine's name in records ([`Game::NAME`]).
    pub fn engine_name(self) -> &'static str {
        with_game!(self, G => <G as Game>::NAME)
    }

    /// One line on the game, for help texts ([`Engine::ABOUT`]).
    pub fn about(self) -> &'static str {
        with_game!(self, G => G::ABOUT)
    }

    /// The game named `name` on the command line ([`Engine::CLI_NAME`]).
    pub fn from_cli_name(name: &str) -> Option<GameName> {
        GameName::ALL.iter().copied().find(|&g| g.cli_name() == name)
    }

    /// The game named `name` on the command line, or a message naming the
    /// games there are (`unknown game `chess` (games: korovan, caravan)`).
    ///
    /// # Errors
    /// For a name that is no game's.
    pub fn parse(name: &str) -> Result<GameName, String> {
        GameName::from_cli_name(name).ok_or_else(|| format!("unknown game `{name}` (games: {})", GameName::list()))
    }

    /// The game whose engine writes `engine` ([`Game::NAME`]) into records.
    pub fn from_engine(engine: &str) -> Option<GameName> {
        GameName::ALL.iter().copied().find(|&g| g.engine_name() == engine)
    }

    /// The names of every game, for messages (`korovan, caravan`).
    pub fn list() -> String {
        GameName::ALL.iter().map(|g| g.cli_name()).collect::<Vec<_>>().join(", ")
    }
}

/// The configuration of `G` from `--players` and `--config`: the rules'
/// default, then the JSON object of `--config` laid over it (nested objects
/// field by field, see [`overlay`]), then the player count. The engine
/// validates the result.
///
/// # Errors
/// A usage error when the JSON is not an object, names a field the
/// configuration does not have (at any depth), or the engine refuses the
/// configuration.
pub fn build_config<G: Engine>(players: Option<usize>, overlay_text: Option<&str>) -> Result<G::Config, SimError> {
    let mut config = G::Config::default();
    if let Some(text) = overlay_text {
        let patch: Value =
            serde_json::from_str(text).map_err(|e| SimError::Usage(format!("--config is not valid JSON: {e}")))?;
        if !patch.is_object() {
            return Err(SimError::Usage("--config must be a JSON object, e.g. '{\"field\": 1}'".into()));
        }
        let mut base = serde_json::to_value(&config).map_err(|e| SimError::Runtime(e.to_string()))?;
        if !base.is_object() {
            return Err(SimError::Usage(format!("{} has no configurable fields", G::CLI_NAME)));
        }
        overlay(&mut base, patch, "")
            .map_err(|e| SimError::Usage(format!("--config: {} configuration: {e}", G::CLI_NAME)))?;
        config = serde_json::from_value(base).map_err(|e| SimError::Usage(format!("--config: {e}")))?;
    }
    if let Some(n) = players {
        config = G::with_players(config, n).map_err(SimError::Usage)?;
    }
    // The engine's error already says what it is ("invalid configuration: …").
    G::new_game(&config).map_err(|e| SimError::Usage(format!("{}: {e}", G::CLI_NAME)))?;
    Ok(config)
}

/// Lays `patch` over `base`: where both are objects, field by field
/// (recursively), so `{"deck": {"scout": 10}}` changes one count and keeps
/// the others; anywhere else the patch's value replaces the base's. `path`
/// is the dotted path of `base` (empty at the top), for messages.
///
/// # Errors
/// When `patch` names a field `base` does not have: the message gives the
/// field's full path and the fields there are.
pub fn overlay(base: &mut Value, patch: Value, path: &str) -> Result<(), String> {
    match (base, patch) {
        (Value::Object(fields), Value::Object(patch)) => {
            for (key, value) in patch {
                let here = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                let Some(slot) = fields.get_mut(&key) else {
                    let known: Vec<&str> = fields.keys().map(String::as_str).collect();
                    let place = if path.is_empty() { String::new() } else { format!(" in `{path}`") };
                    return Err(format!("unknown field `{here}` (fields{place}: {})", known.join(", ")));
                };
                overlay(slot, value, &here)?;
            }
            Ok(())
        }
        (slot, value) => {
            *slot = value;
            Ok(())
        }
    }
}

/// The number of seats of `config`.
pub fn seats_of<G: Game>(config: &G::Config) -> usize {
    G::new_game(config).map(|g| g.num_players()).unwrap_or(0)
}

impl Engine for HiddenNim {
    const CLI_NAME: &'static str = "nim";
    const ABOUT: &'static str = "Hidden test game of the kit (`HiddenNim`), for fast tests";
    const PROGRESS_UNIT: &'static str = "turns";
    const BENCH_PLAYERS: &'static [usize] = &[2];

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        if players == 2 { Ok(config) } else { Err(format!("nim is played by 2 players, got {players}")) }
    }

    fn progress(&self) -> u64 {
        let taken = self.config().stones.saturating_sub(self.observation(0).map(|o| o.stones).unwrap_or(0));
        u64::from(taken)
    }

    fn render(&self) -> String {
        match (self.observation(0), self.observation(1)) {
            (Ok(a), Ok(b)) => format!("stones: {}, cards: {} and {}", a.stones, a.own_card, b.own_card),
            _ => String::new(),
        }
    }

    fn render_view(&self, seat: usize) -> String {
        match self.observation(seat) {
            Ok(o) => {
                let other = if o.other_card == 0 { "?".to_string() } else { o.other_card.to_string() };
                format!("stones: {}, your card: {}, other card: {other}", o.stones, o.own_card)
            }
            Err(e) => e.to_string(),
        }
    }
}

impl Engine for Korovan {
    const CLI_NAME: &'static str = "korovan";
    const ABOUT: &'static str = "Korovan: 3 to 9 players, hidden ambushes on the caravan's route";
    const PROGRESS_UNIT: &'static str = "rounds";
    const BENCH_PLAYERS: &'static [usize] = &[3, 5, 9];
    const LEAD_ROLE: &'static str = "first driver";
    const TREATMENT: &'static str = "with the first card dealt to one seat (seat = seed mod n) whenever it \
                                     drives forced to one kind";

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        let players = u8::try_from(players).map_err(|_| format!("players must be between 3 and 9, got {players}"))?;
        Ok(korovan_core::KorovanConfig { players, ..config })
    }

    fn progress(&self) -> u64 {
        u64::from(self.round())
    }

    fn render(&self) -> String {
        self.to_string()
    }

    fn render_view(&self, seat: usize) -> String {
        match self.observation(seat) {
            Ok(o) => o.to_string(),
            Err(e) => e.to_string(),
        }
    }

    /// K-2.1, K-2.2: `first_driver` drives first, the role passes
    /// counter-clockwise (`d`, `d − 1`, …).
    fn turn_order(config: &Self::Config, players: usize) -> Vec<usize> {
        let n = players.max(1);
        let d = usize::from(config.first_driver) % n;
        (0..n).map(|k| (d + n - k) % n).collect()
    }

    /// One [`DealKind`] per helper kind the deck holds.
    fn treatments(config: &Self::Config) -> Vec<Box<dyn Treatment<Self>>> {
        Helper::ALL
            .into_iter()
            .filter(|&k| config.deck.get(k) > 0)
            .map(|k| Box::new(DealKind(k)) as Box<dyn Treatment<Self>>)
            .collect()
    }
}

/// Korovan: the first card dealt to the target seat whenever it drives
/// (K-3.1) is `kind` instead of a random draw. Measured against the same
/// seed without the treatment, it is the worth of holding one more card of
/// `kind` in place of one random card of the deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealKind(pub Helper);

impl Treatment<Korovan> for DealKind {
    fn name(&self) -> String {
        self.0.name().to_string()
    }

    fn force(&self, state: &Korovan, target: usize) -> Option<korovan_core::Action> {
        let first_draw = state.phase() == Phase::Deal && state.helper_hand().total() == 0;
        (first_draw && state.driver() == Some(target) && state.helper_deck().get(self.0) > 0)
            .then_some(korovan_core::Action::Deal(self.0))
    }
}

impl Engine for Caravan {
    const CLI_NAME: &'static str = "caravan";
    const ABOUT: &'static str = "Caravan: 2 to 4 players, camel chains delivering goods";
    const PROGRESS_UNIT: &'static str = "turns";
    const BENCH_PLAYERS: &'static [usize] = &[2, 3, 4];
    const END_KINDS: &'static [&'static str] = &["natural", "max_turns", "passes"];

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        let players = u8::try_from(players).map_err(|_| format!("players must be between 2 and 4, got {players}"))?;
        Ok(caravan_core::CaravanConfig { players, ..config })
    }

    /// Turns played, the one a natural end interrupts included
    /// ([`Caravan::turns_played`]).
    fn progress(&self) -> u64 {
        u64::from(self.turns_played())
    }

    fn end_kind(&self) -> Option<&'static str> {
        Caravan::end_kind(self).map(|k| match k {
            EndKind::Natural => "natural",
            EndKind::MaxTurns => "max_turns",
            EndKind::Passes => "passes",
        })
    }

    fn render(&self) -> String {
        self.to_string()
    }

    /// Caravan is a game of perfect information (C-8.2): a seat's view is
    /// the whole table.
    fn render_view(&self, seat: usize) -> String {
        match self.observation(seat) {
            Ok(_) => self.to_string(),
            Err(e) => e.to_string(),
        }
    }

    fn compact_actions(config: &Self::Config) -> Option<Box<dyn CompactActions<Self>>> {
        Some(Box::new(CaravanCompact { num_actions: caravan_core::compact_num_actions(config) }))
    }
}

/// Caravan's compact actions (`docs/encoding-caravan.md`): a few hundred
/// ids whose sources are the mover's camel slots.
struct CaravanCompact {
    num_actions: usize,
}

impl CompactActions<Caravan> for CaravanCompact {
    fn name(&self) -> &'static str {
        "compact"
    }

    fn num_actions(&self) -> usize {
        self.num_actions
    }

    fn write_mask(&self, state: &Caravan, scratch: &mut caravan_core::ActionList, row: &mut [u8]) {
        if state.write_compact_mask_with(row, scratch).is_err() {
            row.iter_mut().for_each(|m| *m = 0);
        }
    }

    fn decode(&self, state: &Caravan, id: u32) -> Option<caravan_core::Action> {
        state.compact_action(id).ok()
    }
}
