//! The engines a simulation knows, behind one small adapter trait.
//!
//! Everything about a game's rules lives in its library; an adapter only
//! says how the command line names the game, builds a configuration from a
//! player count and a JSON overlay (`--players`/`--config`), and what a
//! simulation counts of a finished game (its progress, its kind of end).

use boardgame_kit::testgame::HiddenNim;
use boardgame_kit::{Bots, Game};
use caravan_core::{Caravan, EndKind};
use korovan_core::Korovan;
use serde_json::Value;

use crate::SimError;

/// What a simulation needs of an engine beyond [`Game`] and [`Bots`].
pub trait SimGame: Game + Bots {
    /// The engine's name on the command line (and in simulation results).
    const CLI_NAME: &'static str;
    /// What [`SimGame::progress`] counts (`"turns"`, `"rounds"`).
    const PROGRESS_UNIT: &'static str;

    /// `config` with `players` seats.
    ///
    /// # Errors
    /// When the engine does not allow that many players.
    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String>;

    /// Turns or rounds played so far.
    fn progress(&self) -> u64;

    /// Every kind of end [`SimGame::end_kind`] may name (reported even when
    /// no game ended so).
    const END_KINDS: &'static [&'static str] = &[];

    /// How a finished game ended, when the engine distinguishes kinds of end.
    fn end_kind(&self) -> Option<&'static str> {
        None
    }
}

/// The games by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameName {
    /// Korovan: 3 to 9 players, hidden ambushes on the caravan's route.
    Korovan,
    /// Caravan: 2 to 4 players, camel chains delivering goods.
    Caravan,
    /// Hidden test game of the kit (`HiddenNim`), for fast tests (not
    /// listed in help texts).
    Nim,
}

/// Calls `$body` with the type alias `$G` bound to the engine of `$name`.
#[macro_export]
macro_rules! with_game {
    ($name:expr, $G:ident => $body:expr) => {
        match $name {
            $crate::games::GameName::Korovan => {
                type $G = $crate::__korovan::Korovan;
                $body
            }
            $crate::games::GameName::Caravan => {
                type $G = $crate::__caravan::Caravan;
                $body
            }
            $crate::games::GameName::Nim => {
                type $G = $crate::__kit::testgame::HiddenNim;
                $body
            }
        }
    };
}
pub use crate::with_game;

impl GameName {
    /// Every real game, in the order `all` runs them.
    pub const ALL: &'static [GameName] = &[GameName::Korovan, GameName::Caravan];

    /// Every game, the hidden test game last.
    pub const EVERY: &'static [GameName] = &[GameName::Korovan, GameName::Caravan, GameName::Nim];

    /// The game's name on the command line ([`SimGame::CLI_NAME`]).
    pub fn cli_name(self) -> &'static str {
        with_game!(self, G => G::CLI_NAME)
    }

    /// One line on the game, for help texts.
    pub fn about(self) -> &'static str {
        match self {
            GameName::Korovan => "Korovan: 3 to 9 players, hidden ambushes on the caravan's route",
            GameName::Caravan => "Caravan: 2 to 4 players, camel chains delivering goods",
            GameName::Nim => "Hidden test game of the kit (`HiddenNim`), for fast tests",
        }
    }

    /// Whether help texts leave the game out (the kit's test game).
    pub fn hidden(self) -> bool {
        self == GameName::Nim
    }

    /// The game named `name` on the command line ([`SimGame::CLI_NAME`]).
    pub fn from_cli_name(name: &str) -> Option<GameName> {
        GameName::EVERY.iter().copied().find(|&g| g.cli_name() == name)
    }

    /// The game whose engine writes `engine` ([`Game::NAME`]) into records.
    pub fn from_engine(engine: &str) -> Option<GameName> {
        GameName::EVERY.iter().copied().find(|&g| with_game!(g, G => <G as Game>::NAME) == engine)
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
pub fn build_config<G: SimGame>(players: Option<usize>, overlay_text: Option<&str>) -> Result<G::Config, SimError> {
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

impl SimGame for HiddenNim {
    const CLI_NAME: &'static str = "nim";
    const PROGRESS_UNIT: &'static str = "turns";

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        if players == 2 { Ok(config) } else { Err(format!("nim is played by 2 players, got {players}")) }
    }

    fn progress(&self) -> u64 {
        let taken = self.config().stones.saturating_sub(self.observation(0).map(|o| o.stones).unwrap_or(0));
        u64::from(taken)
    }
}

impl SimGame for Korovan {
    const CLI_NAME: &'static str = "korovan";
    const PROGRESS_UNIT: &'static str = "rounds";

    fn with_players(config: Self::Config, players: usize) -> Result<Self::Config, String> {
        let players = u8::try_from(players).map_err(|_| format!("players must be between 3 and 9, got {players}"))?;
        Ok(korovan_core::KorovanConfig { players, ..config })
    }

    fn progress(&self) -> u64 {
        u64::from(self.round())
    }
}

impl SimGame for Caravan {
    const CLI_NAME: &'static str = "caravan";
    const PROGRESS_UNIT: &'static str = "turns";
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
}
