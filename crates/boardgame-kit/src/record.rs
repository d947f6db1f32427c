//! [`GameRecord`]: the persistence format of a game, replayed exactly.

use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::{ActionId, Game, Turn};

/// The version of the record format this kit writes and reads.
pub const RECORD_FORMAT_VERSION: u32 = 1;

/// A complete game: which engine and rules, the configuration, the seed it
/// was played from (if any), the agents, and **every** action id in order,
/// chance outcomes included. Serialized with serde; JSON by default
/// ([`GameRecord::to_json`], [`GameRecord::from_json`]).
///
/// `replay` rebuilds the identical state, validating every step, so a
/// record is trustworthy input even when it comes from elsewhere.
///
/// ```
/// use boardgame_kit::{Game, GameRecord, testgame::{HiddenNim, NimAction}};
/// let config = Default::default();
/// let mut record = GameRecord::new::<HiddenNim>(config, None);
/// for a in [NimAction::Deal(2), NimAction::Deal(3), NimAction::Take(2)] {
///     record.actions.push(HiddenNim::action_id(&config, a));
/// }
/// let json = record.to_json();
/// let back = GameRecord::from_json::<HiddenNim>(&json).unwrap();
/// let state = back.replay::<HiddenNim>().unwrap();
/// assert_eq!(state.score(0), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord<C> {
    /// The engine's [`Game::NAME`].
    pub engine: String,
    /// The engine's [`Game::RULES_VERSION`] when the record was written.
    pub rules_version: u32,
    /// [`RECORD_FORMAT_VERSION`] when the record was written.
    pub format_version: u32,
    /// The game's configuration.
    pub config: C,
    /// The seed the game was played from, if it was played by the driver.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The agents' names in seat order, if known.
    #[serde(default)]
    pub agents: Vec<String>,
    /// Every action id in order, chance outcomes included.
    pub actions: Vec<ActionId>,
}

/// The identifying fields of a record, readable without knowing its engine
/// (to dispatch a file to the right engine).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordHeader {
    /// The engine's name.
    pub engine: String,
    /// The rules version.
    pub rules_version: u32,
    /// The record format version.
    pub format_version: u32,
}

impl RecordHeader {
    /// Reads the header fields of a JSON record.
    ///
    /// # Errors
    /// [`RecordError::Json`] when the text is not a JSON object with them.
    pub fn from_json(json: &str) -> Result<RecordHeader, RecordError> {
        serde_json::from_str(json).map_err(|e| RecordError::Json(e.to_string()))
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a record could not be read or replayed. Step numbers are 0-based
/// indices into [`GameRecord::actions`].
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The text is not a well-formed record.
    #[error("malformed record: {0}")]
    Json(String),
    /// The record belongs to another engine.
    #[error("the record is for engine `{found}`, not `{expected}`")]
    WrongEngine {
        /// This engine.
        expected: String,
        /// The record's.
        found: String,
    },
    /// The record was written under other rules.
    #[error("the record uses rules version {found}; this engine implements version {expected}")]
    RulesVersion {
        /// This engine's rules version.
        expected: u32,
        /// The record's.
        found: u32,
    },
    /// The record format is not supported.
    #[error("the record has format version {found}; this kit reads version {expected}")]
    FormatVersion {
        /// The supported format version.
        expected: u32,
        /// The record's.
        found: u32,
    },
    /// The configuration does not validate.
    #[error("the record's config is invalid: {0}")]
    InvalidConfig(#[source] BoxError),
    /// An action id is outside the action space.
    #[error("step {step}: {source}")]
    UnknownAction {
        /// The step.
        step: usize,
        /// The id.
        id: ActionId,
        /// The engine's reason.
        #[source]
        source: BoxError,
    },
    /// An action is illegal where it stands.
    #[error("step {step}: action `{action}` (id {id}) is illegal: {source}")]
    IllegalAction {
        /// The step.
        step: usize,
        /// The id.
        id: ActionId,
        /// The action's notation.
        action: String,
        /// The engine's reason.
        #[source]
        source: BoxError,
    },
}

impl RecordError {
    /// The step the error names, if it is about one action.
    pub fn step(&self) -> Option<usize> {
        match self {
            RecordError::UnknownAction { step, .. } | RecordError::IllegalAction { step, .. } => Some(*step),
            _ => None,
        }
    }
}

impl<C: Clone + Serialize + DeserializeOwned> GameRecord<C> {
    /// An empty record of engine `G` for `config`.
    pub fn new<G: Game<Config = C>>(config: C, seed: Option<u64>) -> Self {
        GameRecord {
            engine: G::NAME.to_string(),
            rules_version: G::RULES_VERSION,
            format_version: RECORD_FORMAT_VERSION,
            config,
            seed,
            agents: Vec::new(),
            actions: Vec::new(),
        }
    }

    /// The record as pretty JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a JSON record of engine `G`, checking engine name and versions
    /// before the rest (so a record of another engine says so).
    ///
    /// # Errors
    /// [`RecordError::Json`], [`RecordError::WrongEngine`],
    /// [`RecordError::RulesVersion`], [`RecordError::FormatVersion`].
    pub fn from_json<G: Game<Config = C>>(json: &str) -> Result<Self, RecordError> {
        let header = RecordHeader::from_json(json)?;
        check_header::<G>(&header)?;
        serde_json::from_str(json).map_err(|e| RecordError::Json(e.to_string()))
    }

    /// Replays the record and returns the final state.
    ///
    /// # Errors
    /// Any [`RecordError`]: wrong engine or versions, an invalid config, an
    /// unknown or illegal action (naming its step).
    pub fn replay<G: Game<Config = C>>(&self) -> Result<G, RecordError> {
        self.replay_with::<G>(|_, _, _| {})
    }

    /// Replays the record, calling `visit(step, action, state_after)` after
    /// every action, and returns the final state.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn replay_with<G: Game<Config = C>>(&self, visit: impl FnMut(usize, G::Action, &G)) -> Result<G, RecordError> {
        self.replay_steps::<G>(|_| {}, visit)
    }

    /// Replays the record, calling `before(state)` before every action and
    /// `after(step, action, state_after)` after it.
    pub(crate) fn replay_steps<G: Game<Config = C>>(
        &self,
        mut before: impl FnMut(&G),
        mut after: impl FnMut(usize, G::Action, &G),
    ) -> Result<G, RecordError> {
        check_header::<G>(&RecordHeader {
            engine: self.engine.clone(),
            rules_version: self.rules_version,
            format_version: self.format_version,
        })?;
        let mut state = G::new_game(&self.config).map_err(|e| RecordError::InvalidConfig(Box::new(e)))?;
        for (step, &id) in self.actions.iter().enumerate() {
            let action = G::action_from_id(&self.config, id).map_err(|e| RecordError::UnknownAction {
                step,
                id,
                source: Box::new(e),
            })?;
            before(&state);
            state.apply(action).map_err(|e| RecordError::IllegalAction {
                step,
                id,
                action: action.to_string(),
                source: Box::new(e),
            })?;
            after(step, action, &state);
        }
        Ok(state)
    }

    /// Whether replaying the record ends the game.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn is_complete<G: Game<Config = C>>(&self) -> Result<bool, RecordError> {
        Ok(self.replay::<G>()?.turn() == Turn::Terminal)
    }
}

fn check_header<G: Game>(h: &RecordHeader) -> Result<(), RecordError> {
    if h.engine != G::NAME {
        return Err(RecordError::WrongEngine { expected: G::NAME.to_string(), found: h.engine.clone() });
    }
    if h.format_version != RECORD_FORMAT_VERSION {
        return Err(RecordError::FormatVersion { expected: RECORD_FORMAT_VERSION, found: h.format_version });
    }
    if h.rules_version != G::RULES_VERSION {
        return Err(RecordError::RulesVersion { expected: G::RULES_VERSION, found: h.rules_version });
    }
    Ok(())
}
