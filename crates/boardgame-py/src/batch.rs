//! `_Batch`, what every batch of game slots says and does ([`Slots`]), and
//! its subclasses `_VectorCore` (here) and `_LearnerCore` ([`crate::learner`]).

use std::sync::{Mutex, PoisonError};

use boardgame_sim::learner::LearnerCore;
use boardgame_sim::vector::{self, Slots, VectorCore};
use numpy::{PyReadonlyArrayDyn, PyReadwriteArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyTypeError};
use pyo3::prelude::*;

use crate::{out_slice, players_arg, seed_arg, slot_arg, threads_arg, uint_arg, value_error, vector_error};

/// The batch behind a `_Batch`.
pub(crate) enum Core {
    /// A `_VectorCore`'s.
    Vector(Box<dyn VectorCore>),
    /// A `_LearnerCore`'s (its opponents' agents are `Send`, not `Sync`:
    /// the mutex makes the class `Sync`; every method that steps holds
    /// `&mut`, so it is never contended).
    Learner(Mutex<Box<dyn LearnerCore>>),
}

/// A batch of game slots: the sizes Python reads (the engine's name, the
/// number of games, seats per game, the shape of one observation row and
/// the size of the action space), the configuration, the seeds and
/// `reset`. Subclassed by `_VectorCore` and `_LearnerCore`.
#[pyclass(subclass, module = "korovan_caravan._korovan_caravan", name = "_Batch")]
pub struct BatchObj {
    core: Core,
    /// The action ids of the current step, one per game.
    ids: Vec<u32>,
    #[pyo3(get)]
    name: &'static str,
    #[pyo3(get)]
    num_envs: usize,
    #[pyo3(get)]
    num_players: usize,
    #[pyo3(get)]
    observation_shape: Vec<usize>,
    #[pyo3(get)]
    num_actions: usize,
}

impl BatchObj {
    /// The class around `core`, with room for one action id per game.
    pub(crate) fn new(core: Core) -> PyResult<Self> {
        let (name, num_envs, num_players, observation_shape, num_actions) =
            Self::read(&core, |s| (s.name(), s.num_envs(), s.num_players(), s.observation_shape(), s.num_actions()));
        let ids = vector::id_buffer(num_envs).map_err(PyMemoryError::new_err)?;
        Ok(BatchObj { core, ids, name, num_envs, num_players, observation_shape, num_actions })
    }

    /// `f` of the batch, read.
    fn read<R>(core: &Core, f: impl FnOnce(&dyn Slots) -> R) -> R {
        match core {
            Core::Vector(v) => f(v.as_ref()),
            Core::Learner(l) => f(l.lock().unwrap_or_else(PoisonError::into_inner).as_ref()),
        }
    }

    fn slots_mut(&mut self) -> &mut dyn Slots {
        match &mut self.core {
            Core::Vector(v) => v.as_mut(),
            Core::Learner(l) => l.get_mut().unwrap_or_else(PoisonError::into_inner).as_mut(),
        }
    }

    /// The vector batch and the action ids (a `TypeError` on a learner's,
    /// which its classes never ask for).
    pub(crate) fn vector(&mut self) -> PyResult<(&mut dyn VectorCore, &mut Vec<u32>)> {
        match &mut self.core {
            Core::Vector(v) => Ok((v.as_mut(), &mut self.ids)),
            Core::Learner(_) => Err(PyTypeError::new_err("this batch is a learner batch, not a vector batch")),
        }
    }

    /// The learner batch and the action ids (a `TypeError` on a vector
    /// batch, which its classes never ask for).
    pub(crate) fn learner(&mut self) -> PyResult<(&mut dyn LearnerCore, &mut Vec<u32>)> {
        match &mut self.core {
            Core::Learner(l) => Ok((l.get_mut().unwrap_or_else(PoisonError::into_inner).as_mut(), &mut self.ids)),
            Core::Vector(_) => Err(PyTypeError::new_err("this batch is a vector batch, not a learner batch")),
        }
    }
}

#[pymethods]
impl BatchObj {
    /// The configuration, every field, as JSON text.
    fn config_json(&self) -> String {
        Self::read(&self.core, |s| s.config_json())
    }
    /// The batch seed.
    #[getter]
    fn seed(&self) -> u64 {
        Self::read(&self.core, |s| s.seed())
    }
    /// The seed of the game slot `game` plays now.
    fn current_seed(&self, game: &Bound<'_, PyAny>) -> PyResult<u64> {
        slot_arg(game, self.num_envs, |i| Self::read(&self.core, |s| s.current_seed(i)))
    }
    /// The number of games slot `game` has finished.
    fn finished(&self, game: &Bound<'_, PyAny>) -> PyResult<u64> {
        slot_arg(game, self.num_envs, |i| Self::read(&self.core, |s| s.finished(i)))
    }
    /// Restarts every game from batch seed `seed` (without writing
    /// anything); the GIL is released meanwhile.
    fn reset(&mut self, py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let seed = seed_arg(seed)?;
        let slots = self.slots_mut();
        py.detach(move || slots.reset(seed));
        Ok(())
    }
}

/// The output arrays of a `_VectorCore` call (player, obs, legal_count,
/// legal_mask, legal_ids, rewards, done).
type BatchArrays<'py> = (
    PyReadwriteArrayDyn<'py, u32>,
    PyReadwriteArrayDyn<'py, f32>,
    PyReadwriteArrayDyn<'py, u32>,
    PyReadwriteArrayDyn<'py, u8>,
    PyReadwriteArrayDyn<'py, u32>,
    PyReadwriteArrayDyn<'py, f32>,
    PyReadwriteArrayDyn<'py, u8>,
);

/// The caller's arrays as the kit's [`boardgame_kit::BatchOut`].
fn batch_out<'a>(arrays: &'a mut BatchArrays<'_>) -> PyResult<boardgame_kit::BatchOut<'a>> {
    let (player, obs, legal_count, legal_mask, legal_ids, rewards, done) = arrays;
    Ok(boardgame_kit::BatchOut {
        player: out_slice(player, "player")?,
        obs: out_slice(obs, "obs")?,
        legal_count: out_slice(legal_count, "legal_count")?,
        legal_mask: out_slice(legal_mask, "legal_mask")?,
        legal_ids: out_slice(legal_ids, "legal_ids")?,
        rewards: out_slice(rewards, "rewards")?,
        done: out_slice(done, "done")?,
    })
}

/// The native half of `korovan_caravan.VectorEnv` (which owns the arrays and
/// builds the Gymnasium-style results): `N` games of one engine (the kit's
/// `Batch`) that write into numpy arrays the caller provides.
#[pyclass(extends = BatchObj, module = "korovan_caravan._korovan_caravan", name = "_VectorCore")]
pub struct VectorCoreObj {
    // What Python reads beyond `_Batch`: the length of one observation,
    // the length of a row of padded legal ids (the engine's worst case)
    // and the default legal format (`"mask"`: a dense mask, `"ids"`:
    // padded legal ids).
    #[pyo3(get)]
    observation_len: usize,
    #[pyo3(get)]
    max_legal: usize,
    #[pyo3(get)]
    legal_format: &'static str,
}

#[pymethods]
impl VectorCoreObj {
    /// `num_envs` games of `game` (`players` seats, the configuration
    /// overlay `config` as JSON text), slot `i` starting from seed
    /// `seed + i`, stepping on `threads` threads.
    #[new]
    #[pyo3(signature = (game, num_envs, players=None, seed=None, threads=None, config="{}"))]
    fn new(
        game: &str,
        num_envs: &Bound<'_, PyAny>,
        players: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        config: &str,
    ) -> PyResult<PyClassInitializer<Self>> {
        let num_envs: usize = uint_arg(num_envs, "num_envs")?;
        let threads = threads_arg(threads)?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let core =
            vector::new_vector(game, players_arg(players)?, config, num_envs, seed, threads).map_err(|e| match e {
                vector::BuildError::Invalid(m) => value_error(m),
                vector::BuildError::Memory(m) => PyMemoryError::new_err(m),
            })?;
        let legal_format = if core.legal_format() == boardgame_kit::LegalFormat::Ids { "ids" } else { "mask" };
        let this = VectorCoreObj { observation_len: core.observation_len(), max_legal: core.max_legal(), legal_format };
        Ok(PyClassInitializer::from(BatchObj::new(Core::Vector(core))?).add_subclass(this))
    }
    /// The number of threads a step uses (results do not depend on it).
    #[getter]
    fn get_threads(mut slf: PyRefMut<'_, Self>) -> PyResult<usize> {
        Ok(slf.as_super().vector()?.0.threads())
    }
    #[setter]
    fn set_threads(mut slf: PyRefMut<'_, Self>, threads: &Bound<'_, PyAny>) -> PyResult<()> {
        let threads = threads_arg(Some(threads))?;
        slf.as_super().vector()?.0.set_threads(threads);
        Ok(())
    }
    /// Writes every game's current decision into the arrays `out`
    /// (player, obs, legal_count, legal_mask, legal_ids, rewards, done;
    /// rewards and done 0). The GIL is released meanwhile.
    fn observe_into(mut slf: PyRefMut<'_, Self>, py: Python<'_>, mut out: BatchArrays<'_>) -> PyResult<()> {
        let out = batch_out(&mut out)?;
        let (core, _) = slf.as_super().vector()?;
        py.detach(move || core.observe(out)).map_err(|e| vector_error(py, e, &[]))
    }
    /// Plays `actions[i]` (an int64 array, one id per game) in every game
    /// and writes the next decisions into the arrays `out` (as
    /// `observe_into`); the GIL is released while the games step. Every id
    /// is checked before any game moves: a bad one raises
    /// `InvalidActionError` naming the game, and then no game has advanced
    /// and the arrays are untouched.
    fn step_into(
        mut slf: PyRefMut<'_, Self>,
        py: Python<'_>,
        actions: PyReadonlyArrayDyn<'_, i64>,
        mut out: BatchArrays<'_>,
    ) -> PyResult<()> {
        let given = actions.as_slice().map_err(|_| value_error("actions must be a contiguous array"))?;
        let (core, ids) = slf.as_super().vector()?;
        let n = ids.len();
        if given.len() != n || actions.ndim() != 1 {
            return Err(value_error(format!(
                "actions must be one id per game: shape ({n},), got {:?}",
                actions.shape()
            )));
        }
        let num_actions = core.num_actions();
        vector::read_actions(given, ids, num_actions, "action id", "ids").map_err(|e| vector_error(py, e, given))?;
        let out = batch_out(&mut out)?;
        let ids = &*ids;
        py.detach(move || core.step(ids, out)).map_err(|e| vector_error(py, e, given))
    }
}

/// Adds the batch classes to the native module.
///
/// # Errors
/// When the module refuses a class.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BatchObj>()?;
    m.add_class::<VectorCoreObj>()
}
