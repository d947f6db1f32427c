//! The engines the command knows, behind one small adapter trait.
//!
//! Everything about a game's rules lives in its library; an adapter only
//! says how the command line names the game, builds a configuration from
//! `--players`/`--config`, and which library functions render a state or a
//! player's view.

use boardgame_kit::testgame::HiddenNim;
use boardgame_kit::{Bots, Game};
use caravan_core::{Caravan, EndKind};
use clap::{Args, ValueEnum};
use korovan_core::Korovan;
use serde_json::Value;

use crate::error::CliError;

/// The game options shared by the commands.
#[derive(Args, Debug, Clone)]
pub struct GameOpts {
    /// Number of players (the rules' default when omitted).
    #[arg(long, short = 'p')]
    pub players: Option<usize>,
    /// Configuration fields as a JSON object laid over the rules' defaults,
    /// e.g. '{"max_turns": 200}'.
    #[arg(long, value_name = "JSON")]
    pub config: Option<String>,
}

/// What the command needs of an engine beyond [`Game`].
pub trait CliGame: Game + Bots + boardgame_kit::Words {
    /// The engine's name on the command line.
    const CLI_NAME: &'static str;
    /// What [`CliGame::progress`] counts (`"turns"`, `"rounds"`).
    const PROGRESS_UNIT: &'static str;
    /// The player counts `boardgame bench` measures when none is given.
    const BENCH_PLAYERS: &'static [usize];

    /// `config` with `players` seats.
    ///
    /// # Errors
    /// When the engine does not allow that many players.
    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String>;

    /// The whole state, rendered for a reader who may see everything
    /// (replays).
    fn render(&self) -> String;

    /// What `seat` may see, rendered (the human player's screen).
    fn render_view(&self, seat: usize) -> String;

    /// Turns or rounds played so far.
    fn progress(&self) -> u64;

    /// Every kind of end [`CliGame::end_kind`] may name (reported even when
    /// no game ended so).
    const END_KINDS: &'static [&'static str] = &[];

    /// How a finished game ended, when the engine distinguishes kinds of end.
    fn end_kind(&self) -> Option<&'static str> {
        None
    }
}

/// The games on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameName {
    /// Korovan: 3 to 9 players, hidden ambushes on the caravan's route.
    Korovan,
    /// Caravan: 2 to 4 players, camel chains delivering goods.
    Caravan,
    /// Hidden test game of the kit (`HiddenNim`), for fast tests.
    #[value(hide = true)]
    Nim,
}

/// Calls `$body` with the type alias `$G` bound to the engine of `$name`.
#[macro_export]
macro_rules! with_game {
    ($name:expr, $G:ident => $body:expr) => {
        match $name {
            $crate::games::GameName::Korovan => {
                type $G = korovan_core::Korovan;
                $body
            }
            $crate::games::GameName::Caravan => {
                type $G = caravan_core::Caravan;
                $body
            }
            $crate::games::GameName::Nim => {
                type $G = boardgame_kit::testgame::HiddenNim;
                $body
            }
        }
    };
}
pub use crate::with_game;

impl GameName {
    /// Every real game, in the order `all` runs them.
    pub const ALL: &'static [GameName] = &[GameName::Korovan, GameName::Caravan];

    /// The game named `name` on the command line ([`CliGame::CLI_NAME`]).
    pub fn from_cli_name(name: &str) -> Option<GameName> {
        GameName::value_variants().iter().copied().find(|&g| with_game!(g, G => G::CLI_NAME) == name)
    }

    /// The game whose engine writes `engine` ([`Game::NAME`]) into records.
    pub fn from_engine(engine: &str) -> Option<GameName> {
        GameName::value_variants().iter().copied().find(|&g| with_game!(g, G => <G as Game>::NAME) == engine)
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
pub fn build_config<G: CliGame>(players: Option<usize>, overlay_text: Option<&str>) -> Result<G::Config, CliError> {
    let mut config = G::Config::default();
    if let Some(text) = overlay_text {
        let patch: Value =
            serde_json::from_str(text).map_err(|e| CliError::Usage(format!("--config is not valid JSON: {e}")))?;
        if !patch.is_object() {
            return Err(CliError::Usage("--config must be a JSON object, e.g. '{\"field\": 1}'".into()));
        }
        let mut base = serde_json::to_value(&config).map_err(|e| CliError::Runtime(e.to_string()))?;
        if !base.is_object() {
            return Err(CliError::Usage(format!("{} has no configurable fields", G::CLI_NAME)));
        }
        overlay(&mut base, patch, "")
            .map_err(|e| CliError::Usage(format!("--config: {} configuration: {e}", G::CLI_NAME)))?;
        config = serde_json::from_value(base).map_err(|e| CliError::Usage(format!("--config: {e}")))?;
    }
    if let Some(n) = players {
        config = G::with_players(config, n).map_err(CliError::Usage)?;
    }
    // The engine's error already says what it is ("invalid configuration: …").
    G::new_game(&config).map_err(|e| CliError::Usage(format!("{}: {e}", G::CLI_NAME)))?;
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

impl CliGame for HiddenNim {
    const CLI_NAME: &'static str = "nim";
    const PROGRESS_UNIT: &'static str = "turns";
    const BENCH_PLAYERS: &'static [usize] = &[2];

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        if players == 2 { Ok(config) } else { Err(format!("nim is played by 2 players, got {players}")) }
    }

    fn render(&self) -> String {
        let (a, b) = (self.observation(0), self.observation(1));
        match (a, b) {
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

    fn progress(&self) -> u64 {
        let taken = self.config().stones.saturating_sub(self.observation(0).map(|o| o.stones).unwrap_or(0));
        u64::from(taken)
    }
}

impl CliGame for Korovan {
    const CLI_NAME: &'static str = "korovan";
    const PROGRESS_UNIT: &'static str = "rounds";
    const BENCH_PLAYERS: &'static [usize] = &[3, 5, 9];

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        let players = u8::try_from(players).map_err(|_| format!("players must be between 3 and 9, got {players}"))?;
        Ok(korovan_core::KorovanConfig { players, ..config })
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

    fn progress(&self) -> u64 {
        u64::from(self.round())
    }
}

impl CliGame for Caravan {
    const CLI_NAME: &'static str = "caravan";
    const PROGRESS_UNIT: &'static str = "turns";
    const BENCH_PLAYERS: &'static [usize] = &[2, 3, 4];
    const END_KINDS: &'static [&'static str] = &["natural", "max_turns", "passes"];

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        let players = u8::try_from(players).map_err(|_| format!("players must be between 2 and 4, got {players}"))?;
        Ok(caravan_core::CaravanConfig { players, ..config })
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
}
