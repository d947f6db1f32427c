//! `korovan_caravan.learner`'s native class: boardgame-sim's single-learner
//! batches ([`boardgame_sim::learner`]) writing into the caller's numpy
//! arrays, the GIL released while the games step.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use boardgame_sim::learner::{
    IllegalMode, LearnerCore, LearnerError, LearnerOut, LearnerSpec, RewardMode, new_learner,
};

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

fn slice<'a, T: numpy::Element>(a: &'a mut numpy::PyReadwriteArrayDyn<'_, T>, name: &str) -> PyResult<&'a mut [T]> {
    a.as_slice_mut().map_err(|_| crate::value_error(format!("output `{name}` must be a C-contiguous array")))
}

/// The native half of `korovan_caravan.learner`: `N` single-learner games
/// of one engine that write into numpy arrays the caller provides.
#[pyclass(module = "korovan_caravan._korovan_caravan", name = "_LearnerCore")]
pub struct LearnerCoreObj {
    /// The batch (the opponents' agents are `Send`, not `Sync`: the mutex
    /// makes the class `Sync`; every method holds `&mut self`, so it is
    /// never contended).
    core: std::sync::Mutex<Box<dyn LearnerCore>>,
    ids: Vec<u32>,
    /// The engine's name.
    #[pyo3(get)]
    name: &'static str,
    /// The number of games.
    #[pyo3(get)]
    num_envs: usize,
    /// Seats per game.
    #[pyo3(get)]
    num_players: usize,
    /// The shape of one observation.
    #[pyo3(get)]
    observation_shape: Vec<usize>,
    /// What the rows hold: `"observation"`, `"network"` or `"all-seats"`.
    #[pyo3(get)]
    inputs: &'static str,
    /// The number of learner actions.
    #[pyo3(get)]
    num_actions: usize,
    /// The learner's action space: `flat` or `compact`.
    #[pyo3(get)]
    actions: &'static str,
    /// The opponents' names, one per other seat in seat order.
    #[pyo3(get)]
    opponents: Vec<String>,
    /// The fixed learner seat, or `None` (drawn per episode).
    #[pyo3(get)]
    seat: Option<usize>,
    /// The reward mode.
    #[pyo3(get)]
    reward: &'static str,
    /// The shaping coefficient.
    #[pyo3(get)]
    shaping: f64,
    /// The batch seed.
    #[pyo3(get)]
    seed: u64,
}

/// The exception for a refused learner action: `InvalidActionError` with
/// `game` (and `action`) when one game's action was at fault, else `ValueError`.
fn step_error(py: Python<'_>, game: Option<usize>, message: String, action: Option<i64>) -> PyErr {
    crate::vector_error(py, boardgame_sim::vector::VectorError { game, message }, action)
}

/// The exception of a [`LearnerError`] (`actions`: the learner actions given).
fn learner_error(py: Python<'_>, e: LearnerError, actions: &[i64]) -> PyErr {
    match e {
        LearnerError::Invalid(message) => step_error(py, None, message, None),
        LearnerError::Action { game, message } => step_error(py, Some(game), message, actions.get(game).copied()),
    }
}

/// The caller's arrays as a [`LearnerOut`].
fn out_of<'a>(arrays: &'a mut OutArrays<'_>) -> PyResult<LearnerOut<'a>> {
    let (obs, mask, seat, reward, done, illegal, final_obs, share) = arrays;
    Ok(LearnerOut {
        obs: slice(obs, "obs")?,
        mask: slice(mask, "mask")?,
        seat: slice(seat, "seat")?,
        reward: slice(reward, "reward")?,
        done: slice(done, "done")?,
        illegal: slice(illegal, "illegal")?,
        final_obs: slice(final_obs, "final_obs")?,
        share: slice(share, "share")?,
    })
}

impl LearnerCoreObj {
    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn LearnerCore>> {
        self.core.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
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
    ) -> PyResult<Self> {
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
        let seat = match seat {
            Some(s) if !s.is_none() => {
                let v = crate::int_arg(s, "seat")?;
                Some(usize::try_from(v).map_err(|_| crate::value_error(format!("seat {v} is out of range")))?)
            }
            _ => None,
        };
        let spec = LearnerSpec {
            num_envs,
            seed,
            opponents,
            seat,
            reward: RewardMode::parse(reward).map_err(|e| crate::value_error(e.to_string()))?,
            shaping,
            illegal: IllegalMode::parse(illegal).map_err(|e| crate::value_error(e.to_string()))?,
        };
        let core = new_learner(game, crate::players_arg(players)?, config, actions, inputs, spec)
            .map_err(|e| crate::value_error(e.to_string()))?;
        Ok(LearnerCoreObj {
            ids: vec![0; core.num_envs()],
            name: core.name(),
            num_envs: core.num_envs(),
            num_players: core.num_players(),
            observation_shape: core.observation_shape(),
            inputs: core.inputs(),
            num_actions: core.num_actions(),
            actions: core.actions(),
            opponents: core.opponents(),
            seat: core.seat(),
            reward: core.reward(),
            shaping: core.shaping(),
            seed: core.seed(),
            core: std::sync::Mutex::new(core),
        })
    }
    /// The configuration as JSON text.
    fn config_json(&self) -> String {
        self.lock().config_json()
    }
    /// The seed of the game slot `game` plays now.
    fn current_seed(&self, game: &Bound<'_, PyAny>) -> PyResult<u64> {
        let i: usize = crate::uint_arg(game, "game index")?;
        self.lock()
            .current_seed(i)
            .ok_or_else(|| crate::value_error(format!("no game {i} in a batch of {}", self.lock().num_envs())))
    }
    /// The games slot `game` has finished.
    fn finished(&self, game: &Bound<'_, PyAny>) -> PyResult<u64> {
        let i: usize = crate::uint_arg(game, "game index")?;
        self.lock()
            .finished(i)
            .ok_or_else(|| crate::value_error(format!("no game {i} in a batch of {}", self.lock().num_envs())))
    }
    /// Restarts every game from batch seed `seed`.
    fn reset(&mut self, py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let seed = crate::seed_arg(seed)?;
        self.seed = seed;
        let core = self.core.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        py.detach(move || core.reset(seed));
        Ok(())
    }
    /// Writes every game's current decision into the arrays (obs, mask,
    /// seat, reward, done, illegal, final_obs, share).
    #[allow(clippy::too_many_arguments)]
    fn observe_into(&mut self, py: Python<'_>, mut out: OutArrays<'_>) -> PyResult<()> {
        let out = out_of(&mut out)?;
        let core = self.core.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        py.detach(move || core.observe(out)).map_err(|e| learner_error(py, e, &[]))
    }
    /// Plays one learner action per game (an int64 array) and writes the
    /// next decisions into the arrays; the GIL is released meanwhile.
    fn step_into(
        &mut self,
        py: Python<'_>,
        actions: numpy::PyReadonlyArrayDyn<'_, i64>,
        mut out: OutArrays<'_>,
    ) -> PyResult<()> {
        use numpy::PyUntypedArrayMethods;
        let given = actions.as_slice().map_err(|_| crate::value_error("actions must be a contiguous array"))?;
        let n = self.ids.len();
        if given.len() != n || actions.ndim() != 1 {
            return Err(crate::value_error(format!(
                "actions must be one learner action per game: shape ({n},), got {:?}",
                actions.shape()
            )));
        }
        let num_actions = self.num_actions;
        for (game, (slot, &id)) in self.ids.iter_mut().zip(given).enumerate() {
            match u32::try_from(id) {
                Ok(v) if (v as usize) < num_actions => *slot = v,
                _ => {
                    let message =
                        format!("game {game}: learner action {id} is out of range (actions are 0..{num_actions})");
                    return Err(step_error(py, Some(game), message, Some(id)));
                }
            }
        }
        let out = out_of(&mut out)?;
        let core = self.core.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        let ids = &self.ids;
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
