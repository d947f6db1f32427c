//! The kit's [`Batch`] of any engine behind one object-safe trait
//! ([`VectorCore`]), with its sizes checked against the memory before
//! anything is allocated: what `korovan_caravan.VectorEnv` steps.

use boardgame_kit::{ActionBuffer, Batch, BatchError, BatchOut, Game, LegalFormat};

use crate::games::{GameName, with_game};
use crate::session::{Bindable, GameCore};

/// Why a batch refused a call: the message, and the game's index when one
/// game's action was at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
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

/// What every batch of game slots behind an object-safe trait says and
/// does, whatever it steps ([`VectorCore`], [`crate::learner::LearnerCore`]).
pub trait Slots: Send {
    /// The engine's name.
    fn name(&self) -> &'static str;
    /// The configuration, every field, as JSON text.
    fn config_json(&self) -> String;
    /// The number of game slots `N`.
    fn num_envs(&self) -> usize;
    /// Seats per game.
    fn num_players(&self) -> usize;
    /// The shape of one observation row.
    fn observation_shape(&self) -> Vec<usize>;
    /// The size of the action space (one mask row).
    fn num_actions(&self) -> usize;
    /// The batch seed.
    fn seed(&self) -> u64;
    /// The seed of the game slot `game` plays now (`None` out of range).
    fn current_seed(&self, game: usize) -> Option<u64>;
    /// The games slot `game` has finished (`None` out of range).
    fn finished(&self, game: usize) -> Option<u64>;
    /// Restarts every game from batch seed `seed`.
    fn reset(&mut self, seed: u64);
}

/// A batch of any engine behind one object-safe trait (what
/// `korovan_caravan.VectorEnv` steps).
pub trait VectorCore: Slots + Sync {
    /// The length of one observation row.
    fn observation_len(&self) -> usize;
    /// The length of one row of padded legal ids.
    fn max_legal(&self) -> usize;
    /// The default legal format of this engine ([`LegalFormat::for_actions`]).
    fn legal_format(&self) -> LegalFormat;
    /// The number of threads.
    fn threads(&self) -> usize;
    /// Sets the number of threads (at least 1).
    fn set_threads(&mut self, threads: usize);
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

/// Why a batch could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A bad argument or configuration, or a size beyond any address space
    /// (Python's `ValueError`).
    #[error("{0}")]
    Invalid(String),
    /// More memory than the machine can give (Python's `MemoryError`).
    #[error("{0}")]
    Memory(String),
}

/// Room for one action id per game of a batch of `num_envs` (zeros), or a
/// message when the memory cannot be had (Python's `MemoryError`).
///
/// # Errors
/// When the allocation fails.
pub fn id_buffer(num_envs: usize) -> Result<Vec<u32>, String> {
    let mut ids = Vec::new();
    ids.try_reserve_exact(num_envs).map_err(|_| format!("num_envs={num_envs}: no memory for the step's action ids"))?;
    ids.resize(num_envs, 0);
    Ok(ids)
}

/// One step's actions from a caller's signed ids (a numpy `int64` array,
/// one per game) into `ids`, each checked to be in `0..num_actions`; `what`
/// names an id in the message (`action id`), `plural` the ids (`ids`).
///
/// # Errors
/// The first game whose id is out of range, named, with `ids` partly
/// written.
pub fn read_actions(
    given: &[i64],
    ids: &mut [u32],
    num_actions: usize,
    what: &str,
    plural: &str,
) -> Result<(), VectorError> {
    for (game, (slot, &id)) in ids.iter_mut().zip(given).enumerate() {
        match u32::try_from(id) {
            Ok(v) if (v as usize) < num_actions => *slot = v,
            _ => {
                let message = format!("game {game}: {what} {id} is out of range ({plural} are 0..{num_actions})");
                return Err(VectorError { game: Some(game), message });
            }
        }
    }
    Ok(())
}

/// The bytes a `VectorEnv` of `num_envs` games of `config` holds: the
/// batch's states ([`Batch::bytes_for`]) and, per game, the rows of its
/// numpy outputs, the ids of a step and the Python side's index arrays.
/// `None` beyond a 64-bit address space (`isize::MAX` bytes).
pub fn env_bytes<G: Game>(config: &G::Config, num_envs: usize) -> Option<u64> {
    let actions = G::num_distinct_actions(config);
    let legal = if LegalFormat::for_actions(actions).mask() {
        actions
    } else {
        G::ActionList::default().capacity().checked_mul(4)?
    };
    let players = G::new_game(config).ok()?.num_players();
    let row = [
        4,                                                 // player
        G::observation_tensor_len(config).checked_mul(4)?, // obs
        4,                                                 // legal_count
        legal,                                             // legal_mask or legal_ids
        players.checked_mul(4)?,                           // rewards
        1 + 1,                                             // done, truncations
        4,                                                 // the step's ids
        16,                                                // the two int64 index arrays
    ]
    .iter()
    .try_fold(0usize, |acc, &b| acc.checked_add(b))?;
    let total = Batch::<G>::bytes_for(num_envs)?.checked_add(num_envs.checked_mul(row)?)?;
    if total > isize::MAX as usize { None } else { u64::try_from(total).ok() }
}

/// The memory this process may still use, in bytes, when the system says:
/// the smaller of `MemAvailable` (`/proc/meminfo`) and what the cgroup's
/// `memory.max` leaves; `None` where neither is known.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    });
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok()?.trim().parse::<u64>().ok();
    let cgroup = read("memory.max").map(|max| max.saturating_sub(read("memory.current").unwrap_or(0)));
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `12.3 GiB`.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

impl<G: Bindable> EngineBatch<G> {
    /// `num_envs` games of the configuration `config_json` (an overlay of
    /// the configuration's fields, as `load_game` takes them) with
    /// `players` seats, from batch seed `seed`, stepping on `threads`.
    ///
    /// The sizes are checked before anything is allocated: a batch beyond
    /// any address space is [`BuildError::Invalid`], one larger than the
    /// memory available ([`available_memory`]) or that the allocator
    /// refuses is [`BuildError::Memory`].
    ///
    /// # Errors
    /// The engine's message for a bad configuration, the kit's for a batch
    /// it refuses (zero games), or the sizes above.
    pub fn new(
        players: Option<serde_json::Value>,
        overlay: &str,
        num_envs: usize,
        seed: u64,
        threads: usize,
    ) -> Result<Self, BuildError> {
        let game = GameCore::<G>::from_overlay(players, overlay).map_err(BuildError::Invalid)?;
        let need = env_bytes::<G>(&game.config, num_envs).ok_or_else(|| {
            BuildError::Invalid(format!(
                "num_envs={num_envs} is too large: {} such games need more bytes than an address space holds",
                G::NAME
            ))
        })?;
        if let Some(available) = available_memory()
            && need > available
        {
            return Err(BuildError::Memory(format!(
                "num_envs={num_envs}: {num_envs} {} games need about {}, more than the {} of memory available",
                G::NAME,
                gib(need),
                gib(available)
            )));
        }
        let batch = Batch::<G>::new(&game.config, num_envs, seed).map_err(|e| match e {
            BatchError::OutOfMemory { .. } => BuildError::Memory(format!("{}: {e}", G::NAME)),
            e => BuildError::Invalid(format!("{}: {e}", G::NAME)),
        })?;
        Ok(EngineBatch { batch: batch.with_threads(threads) })
    }
}

impl<G: Bindable> Slots for EngineBatch<G> {
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
    fn num_actions(&self) -> usize {
        self.batch.num_actions()
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
}

impl<G: Bindable> VectorCore for EngineBatch<G> {
    fn observation_len(&self) -> usize {
        self.batch.observation_len()
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
    fn observe(&mut self, mut out: BatchOut<'_>) -> Result<(), VectorError> {
        Ok(self.batch.observe(&mut out)?)
    }
    fn step(&mut self, actions: &[u32], mut out: BatchOut<'_>) -> Result<(), VectorError> {
        Ok(self.batch.step(actions, &mut out)?)
    }
}

/// A batch of the engine named `name` ([`Game::NAME`]): `num_envs` games of
/// the configuration overlay `overlay` with `players` seats, from batch
/// seed `seed`, stepping on `threads` ([`EngineBatch::new`]).
///
/// # Errors
/// [`BuildError::Invalid`] for an unknown engine; as [`EngineBatch::new`].
pub fn new_vector(
    name: &str,
    players: Option<serde_json::Value>,
    overlay: &str,
    num_envs: usize,
    seed: u64,
    threads: usize,
) -> Result<Box<dyn VectorCore>, BuildError> {
    let Some(game) = GameName::from_engine(name) else {
        let names: Vec<&str> = GameName::ALL.iter().map(|g| g.engine_name()).collect();
        return Err(BuildError::Invalid(format!("unknown game `{name}` (games: {})", names.join(", "))));
    };
    with_game!(game, G => {
        let batch = EngineBatch::<G>::new(players, overlay, num_envs, seed, threads)?;
        Ok(Box::new(batch) as Box<dyn VectorCore>)
    })
}
