//! The logic of `korovan_caravan.VectorEnv`: the kit's [`Batch`] behind one
//! object-safe trait, so that the Python class is written once and each
//! engine is one line of the crate's `engines!` macro.

use boardgame_kit::{Batch, BatchError, BatchOut, Game, LegalFormat};

use crate::core::{Bindable, GameCore};

/// Why a batch refused a call: the message, and the game's index when one
/// game's action was at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorError {
    /// The index of the game whose action was refused, if any.
    pub game: Option<usize>,
    /// What was wrong (the kit's message, which names the game).
    pub message: String,
}

impl<E: std::error::Error + 'static> From<BatchError<E>> for VectorError {
    fn from(e: BatchError<E>) -> Self {
        let game = match &e {
            BatchError::Action { game, .. } | BatchError::NotToMove { game } => Some(*game),
            _ => None,
        };
        VectorError { game, message: e.to_string() }
    }
}

/// A batch of one engine, whatever the engine: what the Python class calls.
pub trait VectorCore: Send + Sync {
    /// The engine's name.
    fn name(&self) -> &'static str;
    /// The configuration, every field, as JSON text.
    fn config_json(&self) -> String;
    /// The number of games `N`.
    fn num_envs(&self) -> usize;
    /// Seats per game.
    fn num_players(&self) -> usize;
    /// The shape of one observation.
    fn observation_shape(&self) -> Vec<usize>;
    /// The length of one observation row.
    fn observation_len(&self) -> usize;
    /// The size of the action space (one mask row).
    fn num_actions(&self) -> usize;
    /// The length of one row of padded legal ids.
    fn max_legal(&self) -> usize;
    /// The default legal format of this engine ([`LegalFormat::for_actions`]).
    fn legal_format(&self) -> LegalFormat;
    /// The number of threads.
    fn threads(&self) -> usize;
    /// Sets the number of threads (at least 1).
    fn set_threads(&mut self, threads: usize);
    /// The batch seed.
    fn seed(&self) -> u64;
    /// The seed of the game slot `game` plays now (`None` out of range).
    fn current_seed(&self, game: usize) -> Option<u64>;
    /// The games slot `game` has finished (`None` out of range).
    fn finished(&self, game: usize) -> Option<u64>;
    /// Restarts every game from batch seed `seed`.
    fn reset(&mut self, seed: u64);
    /// Writes the current decisions ([`Batch::observe`]).
    ///
    /// # Errors
    /// When an output has the wrong length.
    fn observe(&mut self, out: BatchOut<'_>) -> Result<(), VectorError>;
    /// Steps every game ([`Batch::step`]).
    ///
    /// # Errors
    /// As [`Batch::step`]: then no game has advanced.
    fn step(&mut self, actions: &[u32], out: BatchOut<'_>) -> Result<(), VectorError>;
}

/// A [`Batch`] of engine `G`.
pub struct EngineBatch<G: Game> {
    batch: Batch<G>,
}

impl<G: Bindable> EngineBatch<G> {
    /// `num_envs` games of the configuration `config_json` (an overlay of
    /// the configuration's fields, as `load_game` takes them) with
    /// `players` seats, from batch seed `seed`, stepping on `threads`.
    ///
    /// # Errors
    /// The engine's message for a bad configuration, or the kit's for a
    /// batch it refuses (zero games).
    pub fn new(
        players: Option<serde_json::Value>,
        overlay: &str,
        num_envs: usize,
        seed: u64,
        threads: usize,
    ) -> Result<Self, String> {
        let game = GameCore::<G>::from_overlay(players, overlay)?;
        let batch = Batch::<G>::new(&game.config, num_envs, seed).map_err(|e| format!("{}: {e}", G::NAME))?;
        Ok(EngineBatch { batch: batch.with_threads(threads) })
    }
}

impl<G: Bindable> VectorCore for EngineBatch<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn config_json(&self) -> String {
        serde_json::to_string(self.batch.config()).unwrap_or_default()
    }
    fn num_envs(&self) -> usize {
        self.batch.num_games()
    }
    fn num_players(&self) -> usize {
        self.batch.num_players()
    }
    fn observation_shape(&self) -> Vec<usize> {
        G::observation_tensor_shape(self.batch.config())
    }
    fn observation_len(&self) -> usize {
        self.batch.observation_len()
    }
    fn num_actions(&self) -> usize {
        self.batch.num_actions()
    }
    fn max_legal(&self) -> usize {
        self.batch.max_legal()
    }
    fn legal_format(&self) -> LegalFormat {
        LegalFormat::for_actions(self.batch.num_actions())
    }
    fn threads(&self) -> usize {
        self.batch.threads()
    }
    fn set_threads(&mut self, threads: usize) {
        self.batch.set_threads(threads);
    }
    fn seed(&self) -> u64 {
        self.batch.seed()
    }
    fn current_seed(&self, game: usize) -> Option<u64> {
        self.batch.current_seed(game)
    }
    fn finished(&self, game: usize) -> Option<u64> {
        self.batch.finished(game)
    }
    fn reset(&mut self, seed: u64) {
        self.batch.reset(seed);
    }
    fn observe(&mut self, mut out: BatchOut<'_>) -> Result<(), VectorError> {
        Ok(self.batch.observe(&mut out)?)
    }
    fn step(&mut self, actions: &[u32], mut out: BatchOut<'_>) -> Result<(), VectorError> {
        Ok(self.batch.step(actions, &mut out)?)
    }
}
