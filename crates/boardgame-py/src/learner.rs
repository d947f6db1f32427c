//! `korovan_caravan.learner`'s native class: boardgame-sim's single-learner
//! batches ([`boardgame_sim::learner`]) writing into the caller's numpy
//! arrays, the GIL released while the games step.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::batch::{BatchObj, Core};

use boardgame_sim::learner::{IllegalMode, LearnerError, LearnerOut, LearnerSpec, RewardMode, new_learner};
use boardgame_sim::vector::{VectorError, read_actions};

/// The arrays of one call, as numpy arrays from Python.
type OutArrays<'py> = (
    numpy::PyReadwriteArrayDyn<'py, f32>,
    numpy::PyReadwriteArrayDyn<'py, u8>,
    numpy::PyReadwriteArrayDyn<'py, u32>,
    numpy::PyReadwriteArrayDyn<'py, f32>,
    numpy::PyReadwriteArrayDyn<'py, u8>,
    numpy::PyReadwriteArrayDyn<'py, u8>,
    numpy::PyReadwriteArrayDyn<'py, f32>,
    numpy::PyReadwriteArrayDyn<'py, f32>,
);

/// The native half of `korovan_caravan.learner`: `N` single-learner games
/// of one engine that write into numpy arrays the caller provides.
#[pyclass(extends = BatchObj, module = "korovan_caravan._korovan_caravan", name = "_LearnerCore")]
pub struct LearnerCoreObj {
    // What Python reads beyond `_Batch` (whose `num_actions` counts the
    // learner's actions): what the rows hold (`"observation"`,
    // `"network"` or `"all-seats"`), the learner's action space (`flat`
    // or `compact`), the opponents' names (one per other seat in seat
    // order), the fixed learner seat (`None`: drawn per episode), the
    // reward mode and the shaping coefficient.
    #[pyo3(get)]
    inputs: &'static str,
    #[pyo3(get)]
    actions: &'static str,
    #[pyo3(get)]
    opponents: Vec<String>,
    #[pyo3(get)]
    seat: Option<usize>,
    #[pyo3(get)]
    reward: &'static str,
    #[pyo3(get)]
    shaping: f64,
}

/// The exception of a [`LearnerError`] (`actions`: the learner actions
/// given): `InvalidActionError` with `game` and `action` when one game's
/// action was at fault, else `ValueError`.
fn learner_error(py: Python<'_>, e: LearnerError, actions: &[i64]) -> PyErr {
    match e {
        LearnerError::Invalid(message) => crate::value_error(message),
        LearnerError::Action { game, message } => {
            crate::vector_error(py, VectorError { game: Some(game), message }, actions)
        }
    }
}

/// The caller's arrays as a [`LearnerOut`].
fn out_of<'a>(arrays: &'a mut OutArrays<'_>) -> PyResult<LearnerOut<'a>> {
    let (obs, mask, seat, reward, done, illegal, final_obs, share) = arrays;
    Ok(LearnerOut {
        obs: crate::out_slice(obs, "obs")?,
        mask: crate::out_slice(mask, "mask")?,
        seat: crate::out_slice(seat, "seat")?,
        reward: crate::out_slice(reward, "reward")?,
        done: crate::out_slice(done, "done")?,
        illegal: crate::out_slice(illegal, "illegal")?,
        final_obs: crate::out_slice(final_obs, "final_obs")?,
        share: crate::out_slice(share, "share")?,
    })
}

#[pymethods]
impl LearnerCoreObj {
    /// See `korovan_caravan.learner.LearnerVectorEnv`.
    #[new]
    #[pyo3(signature = (game, num_envs, players, seed, config, opponents, seat, reward, shaping, actions, illegal, inputs="observation"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        game: &str,
        num_envs: &Bound<'_, PyAny>,
        players: Option<&Bound<'_, PyAny>>,
        seed: &Bound<'_, PyAny>,
        config: &str,
        opponents: &Bound<'_, PyAny>,
        seat: Option<&Bound<'_, PyAny>>,
        reward: &str,
        shaping: f64,
        actions: &str,
        illegal: &str,
        inputs: &str,
    ) -> PyResult<PyClassInitializer<Self>> {
        let num_envs: usize = crate::uint_arg(num_envs, "num_envs")?;
        let seed = crate::seed_arg(seed)?;
        let opponents: Vec<String> = if let Ok(one) = opponents.extract::<String>() {
            vec![one]
        } else {
            let list: Vec<String> = opponents
                .extract()
                .map_err(|_| PyTypeError::new_err("opponents must be an agent name (str) or a list of agent names"))?;
            list
        };
        let seat = crate::opt_uint(seat, "seat")?;
        let spec = LearnerSpec {
            num_envs,
            seed,
            opponents,
            seat,
            reward: RewardMode::parse(reward).map_err(crate::value_error)?,
            shaping,
            illegal: IllegalMode::parse(illegal).map_err(crate::value_error)?,
        };
        let core = new_learner(game, crate::players_arg(players)?, config, actions, inputs, spec)
            .map_err(crate::value_error)?;
        let this = LearnerCoreObj {
            inputs: core.inputs(),
            actions: core.actions(),
            opponents: core.opponents(),
            seat: core.seat(),
            reward: core.reward(),
            shaping: core.shaping(),
        };
        Ok(PyClassInitializer::from(BatchObj::new(Core::Learner(std::sync::Mutex::new(core)))?).add_subclass(this))
    }
    /// Writes every game's current decision into the arrays (obs, mask,
    /// seat, reward, done, illegal, final_obs, share).
    fn observe_into(mut slf: PyRefMut<'_, Self>, py: Python<'_>, mut out: OutArrays<'_>) -> PyResult<()> {
        let out = out_of(&mut out)?;
        let (core, _) = slf.as_super().learner()?;
        py.detach(move || core.observe(out)).map_err(|e| learner_error(py, e, &[]))
    }
    /// Plays one learner action per game (an int64 array) and writes the
    /// next decisions into the arrays; the GIL is released meanwhile.
    fn step_into(
        mut slf: PyRefMut<'_, Self>,
        py: Python<'_>,
        actions: numpy::PyReadonlyArrayDyn<'_, i64>,
        mut out: OutArrays<'_>,
    ) -> PyResult<()> {
        use numpy::PyUntypedArrayMethods;
        let given = actions.as_slice().map_err(|_| crate::value_error("actions must be a contiguous array"))?;
        let (core, ids) = slf.as_super().learner()?;
        let n = ids.len();
        if given.len() != n || actions.ndim() != 1 {
            return Err(crate::value_error(format!(
                "actions must be one learner action per game: shape ({n},), got {:?}",
                actions.shape()
            )));
        }
        let num_actions = core.num_actions();
        read_actions(given, ids, num_actions, "learner action", "actions")
            .map_err(|e| crate::vector_error(py, e, given))?;
        let out = out_of(&mut out)?;
        let ids = &*ids;
        py.detach(move || core.step(ids, out)).map_err(|e| learner_error(py, e, given))
    }
}

/// Adds the learner classes to the native module.
///
/// # Errors
/// When the module refuses the class.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LearnerCoreObj>()
}
