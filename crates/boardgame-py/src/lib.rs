//! # boardgame-py
//!
//! The native module `korovan_caravan._korovan_caravan` of the Python package
//! `korovan_caravan` (built by `python/pyproject.toml` with maturin). It exposes
//! every engine of the workspace through one OpenSpiel-shaped API and only
//! converts types and releases the GIL: what it runs lives in the kit and in
//! `boardgame-sim` (game and state cores, batches, learners, self-play,
//! matches; docs/architecture.md, "A thin binding").
//!
//! `engines!` generates, per engine of the registry, a Python game class and
//! a state class that forward to [`boardgame_sim::session`]. Errors never
//! panic: every bad input (unknown id, illegal action, wrong type, bad
//! config, corrupt record or pickle) becomes a Python `ValueError` or
//! `TypeError` carrying the library's message, and leaves the state as it
//! was.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod agents;
pub mod batch;
mod compact;
pub mod evaluate;
pub mod learner;
pub mod nn;

use boardgame_sim::session as core;
use boardgame_sim::simulate::Shard;
use boardgame_sim::vector;

use boardgame_kit::{AGENT_STREAM_BASE, CHANCE_STREAM, Game, GameRng, RecordHeader};
use numpy::{PyArray1, PyReadwriteArray1, PyReadwriteArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString, PyTuple};

/// A `ValueError` with `msg` (a library's error, a message).
fn value_error(msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(msg.to_string())
}

/// The value `value(i)` of slot `game` (an index) of a batch of `n`
/// games, or a `ValueError` for a slot out of range.
fn slot_arg<T>(game: &Bound<'_, PyAny>, n: usize, value: impl FnOnce(usize) -> Option<T>) -> PyResult<T> {
    let i: usize = uint_arg(game, "game index")?;
    value(i).ok_or_else(|| value_error(format!("no game {i} in a batch of {n}")))
}

/// An integer argument (an action id or a seat) as `i128`: a `TypeError`
/// for a non-integer (a `bool` included: `apply_action(True)` is a
/// mistake, not id 1), a `ValueError` (not `OverflowError`) for an integer
/// too large for 64 bits, so that every bad id is refused with the
/// documented exception types.
fn int_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i128> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("{what} must be an integer, not bool")));
    }
    match obj.extract::<i64>() {
        Ok(v) => Ok(i128::from(v)),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            Err(value_error(format!("{what} {} is out of range", obj.str().map(|s| s.to_string()).unwrap_or_default())))
        }
        Err(_) => {
            Err(PyTypeError::new_err(format!("{what} must be an integer, not {}", crate::agents::type_name(obj))))
        }
    }
}

/// A non-negative integer argument that fits `T` (a count, a label, a
/// weight): `TypeError` for a non-integer, `ValueError` (not
/// `OverflowError`) for a negative or too large one.
fn uint_arg<T: TryFrom<i128>>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let v = int_arg(obj, what)?;
    T::try_from(v).map_err(|_| value_error(format!("{what} {v} is out of range")))
}

/// An optional non-negative integer argument ([`uint_arg`]): `None` when
/// absent or `None`.
fn opt_uint<T: TryFrom<i128>>(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<T>> {
    obj.filter(|o| !o.is_none()).map(|o| uint_arg(o, what)).transpose()
}

/// A seed argument: any integer in `0..2^64`.
fn seed_arg(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err("a seed must be an integer, not bool"));
    }
    match obj.extract::<u64>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            Err(value_error("a seed must be an integer in 0..2**64"))
        }
        Err(_) => Err(PyTypeError::new_err("a seed must be an integer")),
    }
}

/// The kit's seeded generator (`GameRng`, ChaCha8): the same seed gives the
/// same draws as in Rust, so Python code can follow the driver's
/// convention (chance from `Rng(seed).child(CHANCE_STREAM)`, seat `s` from
/// `child(AGENT_STREAM_BASE + s)`).
#[pyclass(module = "korovan_caravan._korovan_caravan")]
#[derive(Clone)]
pub struct Rng {
    inner: GameRng,
}

#[pymethods]
impl Rng {
    /// A generator seeded with `seed`.
    #[new]
    fn new(seed: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Rng { inner: GameRng::new(seed_arg(seed)?) })
    }

    /// The independent child stream `label` (does not advance this one).
    fn child(&self, label: &Bound<'_, PyAny>) -> PyResult<Rng> {
        Ok(Rng { inner: self.inner.child(uint_arg(label, "stream label")?) })
    }

    /// The next raw 64-bit word.
    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A uniform index in `0..n`; `n` must be at least 1 (`ValueError`
    /// for 0: there is no index to draw).
    fn index(&mut self, n: &Bound<'_, PyAny>) -> PyResult<usize> {
        let n: usize = uint_arg(n, "n")?;
        if n == 0 {
            return Err(value_error("index(n) needs n >= 1: there is no index in 0..0"));
        }
        Ok(self.inner.index(n))
    }

    /// A uniform float in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        self.inner.unit_f64()
    }

    /// Index `i` with probability `weights[i] / sum(weights)`, exactly;
    /// `None` when the weights are empty or all 0.
    fn weighted(&mut self, weights: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        let ws: Vec<u32> = list_arg(weights, "weights", |w| uint_arg(w, "weight"))?;
        Ok(self.inner.weighted(&ws))
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Rng {
        self.clone()
    }

    fn __copy__(&self) -> Rng {
        self.clone()
    }
}

/// Generates, for each `engine => GameClass, StateClass;` line, the two
/// Python classes of that engine, and the module-level functions that
/// dispatch over every engine (by [`Game::NAME`]).
macro_rules! engines {
    ($( $G:ty => $Game:ident, $State:ident; )*) => {
        $(
            #[doc = concat!("A configuration of `", stringify!($G), "`: OpenSpiel's `Game`.")]
            #[pyclass(module = "korovan_caravan._korovan_caravan", frozen)]
            pub struct $Game {
                core: core::GameCore<$G>,
            }

            #[pymethods]
            impl $Game {
                /// The engine's name (`korovan`, `caravan`).
                #[getter]
                fn name(&self) -> &'static str { <$G as Game>::NAME }
                /// The number of seats.
                fn num_players(&self) -> usize { self.core.num_players() }
                /// The size of the action space (ids `0..n`, chance outcomes included).
                fn num_distinct_actions(&self) -> usize { self.core.num_distinct_actions() }
                /// An upper bound on the number of actions of a game, chance included.
                fn max_game_length(&self) -> usize { self.core.max_game_length() }
                /// The most outcomes a chance node lists.
                fn max_chance_outcomes(&self) -> usize { self.core.max_chance_outcomes() }
                /// The shape of `observation_tensor`.
                fn observation_tensor_shape(&self) -> Vec<usize> { self.core.observation_tensor_shape() }
                /// The length of `observation_tensor`.
                fn observation_tensor_size(&self) -> usize { self.core.observation_tensor_size() }
                /// The bounds of every entry of `observation_tensor`, as two
                /// float32 arrays `(low, high)` of its length (the engine's
                /// `Game::observation_tensor_bounds`): every tensor of every seat
                /// in every state reached by play lies within them.
                fn observation_tensor_bounds<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>) {
                    let (low, high) = self.core.observation_tensor_bounds();
                    (PyArray1::from_vec(py, low), PyArray1::from_vec(py, high))
                }
                /// The configuration, every field, as JSON text.
                fn config_json(&self) -> String { self.core.config_json() }
                /// The initial state.
                fn new_initial_state(&self) -> $State { $State { core: self.core.new_initial_state() } }
                /// Plays one game natively with the kit's driver and a random agent
                /// in every seat, from `seed`; returns its JSON record (the
                /// `boardgame` binary's format).
                /// Other Python threads run meanwhile (the GIL is released).
                fn play_random(&self, py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<String> {
                    let seed = seed_arg(seed)?;
                    let core = &self.core;
                    let record = py.detach(move || core.play_random(seed)).map_err(value_error)?;
                    Ok(record.to_json())
                }
                fn __repr__(&self) -> String {
                    format!("load_game({:?}, **{})", <$G as Game>::NAME, self.core.config_json())
                }
                fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                    other.cast::<$Game>().map(|o| o.get().core.config == self.core.config).unwrap_or(false)
                }
                fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
                    Ok((slf.get_type().getattr("_from_config_json")?, (slf.get().core.config_json(),)))
                }
                /// The game of a JSON configuration (every field given).
                #[staticmethod]
                fn _from_config_json(json: &str) -> PyResult<Self> {
                    let config = serde_json::from_str(json).map_err(|e| value_error(format!("invalid configuration: {e}")))?;
                    Ok($Game { core: core::GameCore::new(config).map_err(value_error)? })
                }
            }

            #[doc = concat!("A state of `", stringify!($G), "`: OpenSpiel's `State`.")]
            #[pyclass(module = "korovan_caravan._korovan_caravan")]
            #[derive(Clone)]
            pub struct $State {
                core: core::StateCore<$G>,
            }

            #[pymethods]
            impl $State {
                /// The seat to move; −1 at a chance node, −4 at the end (as pyspiel).
                fn current_player(&self) -> i64 { self.core.current_player() }
                /// Whether a chance node.
                fn is_chance_node(&self) -> bool { self.core.current_player() == core::CHANCE_PLAYER }
                /// Whether the game is over.
                fn is_terminal(&self) -> bool { self.core.current_player() == core::TERMINAL_PLAYER }
                /// The number of seats.
                fn num_players(&self) -> usize { self.core.state.num_players() }
                /// The size of the action space.
                fn num_distinct_actions(&self) -> usize { self.core.num_distinct_actions() }
                /// The game this state belongs to.
                fn get_game(&self) -> PyResult<$Game> {
                    let config = self.core.state.config().clone();
                    Ok($Game { core: core::GameCore::new(config).map_err(value_error)? })
                }
                /// Legal action ids, ascending (chance outcomes at a chance node).
                fn legal_actions(&self) -> Vec<u32> { self.core.legal_actions() }
                /// Legal action ids in the engine's order (the order of the kit's
                /// `RandomAgent`).
                fn legal_actions_engine_order(&self) -> Vec<u32> { self.core.legal_actions_engine_order() }
                /// A `uint8` numpy array over the action space, 1 at legal ids.
                fn legal_actions_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u8>>> {
                    Ok(PyArray1::from_vec(py, self.core.legal_actions_mask().map_err(value_error)?))
                }
                /// `(id, probability)` of every chance outcome, ascending by id.
                fn chance_outcomes(&self) -> Vec<(u32, f64)> { self.core.chance_outcomes() }
                /// `(id, weight)` of every chance outcome: the exact integer weights
                /// (probability = weight / sum of weights).
                fn chance_weights(&self) -> Vec<(u32, u32)> { self.core.chance_weights() }
                /// Plays the action `action` (an id), validated; on error the state is
                /// unchanged and `ValueError` carries the engine's reason.
                fn apply_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
                    let id = int_arg(action, "action id")?;
                    self.core.apply_id(id).map_err(value_error)
                }
                /// The notation of an action id: `action_to_string(id)` or, as pyspiel,
                /// `action_to_string(player, id)`, where `player` is a seat or −1
                /// (chance); `ValueError` for any other player.
                #[pyo3(signature = (a, b=None))]
                fn action_to_string(&self, a: &Bound<'_, PyAny>, b: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
                    if b.is_some() {
                        self.core.check_player(int_arg(a, "player")?).map_err(value_error)?;
                    }
                    let id = int_arg(b.unwrap_or(a), "action id")?;
                    self.core.action_to_string(id).map_err(value_error)
                }
                /// The id of an action's notation: `string_to_action(text)` or, as
                /// pyspiel, `string_to_action(player, text)` (`player` as for
                /// `action_to_string`).
                #[pyo3(signature = (a, b=None))]
                fn string_to_action(&self, a: &Bound<'_, PyAny>, b: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
                    if b.is_some() {
                        self.core.check_player(int_arg(a, "player")?).map_err(value_error)?;
                    }
                    let text: String = b.unwrap_or(a).extract().map_err(|_| PyTypeError::new_err("an action's notation must be a str"))?;
                    self.core.string_to_action(&text).map_err(value_error)
                }
                /// Per-seat returns: 1 for a sole winner, 1/k for each of k seats
                /// sharing a draw, 0 otherwise (all 0 before the end).
                fn returns(&self) -> Vec<f64> { self.core.returns() }
                /// The engine's score of every seat (cows, points).
                fn scores(&self) -> Vec<i32> { self.core.scores() }
                /// The winning seats (several for a draw), or `None` before the end.
                fn winners(&self) -> Option<Vec<usize>> { self.core.winners() }
                /// `player`'s observation as a new float32 numpy array, filled by Rust.
                fn observation_tensor<'py>(&self, py: Python<'py>, player: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyArray1<f32>>> {
                    Ok(PyArray1::from_vec(py, self.core.observation_tensor(int_arg(player, "seat")?).map_err(value_error)?))
                }
                /// Writes `player`'s observation into `out` (a contiguous float32
                /// numpy array of the tensor's length), allocating nothing.
                fn observation_tensor_into(&self, player: &Bound<'_, PyAny>, mut out: PyReadwriteArray1<'_, f32>) -> PyResult<()> {
                    let seat = int_arg(player, "seat")?;
                    let len = out.len();
                    let slice = out.as_slice_mut().map_err(|_| value_error(format!("buffer of length {len} is not contiguous")))?;
                    self.core.observation_tensor_into(seat, slice).map_err(value_error)
                }
                /// `player`'s view of the table, as text.
                fn observation_string(&self, player: &Bound<'_, PyAny>) -> PyResult<String> {
                    let seat = int_arg(player, "seat")?;
                    self.core.observation_string(seat).map_err(value_error)
                }
                /// The ids played from the initial state (empty for a resampled state).
                fn history(&self) -> Vec<u32> { self.core.history.clone().unwrap_or_default() }
                /// Whether the state knows how it was reached (not a resampled state).
                fn has_history(&self) -> bool { self.core.history.is_some() }
                /// A copy.
                #[pyo3(name = "clone")]
                fn py_clone(&self) -> Self { self.clone() }
                fn __copy__(&self) -> Self {
                    self.clone()
                }
                fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self { self.clone() }
                /// A full state consistent with what `player` knows, drawn by the
                /// engine's determinization with the kit's generator seeded by
                /// `seed` (an integer, or a callable returning a float in [0, 1)
                /// such as pyspiel's samplers: `ValueError` for a value outside
                /// [0, 1) or NaN). It has no history.
                fn resample_from_infostate(&self, player: &Bound<'_, PyAny>, seed: &Bound<'_, PyAny>) -> PyResult<Self> {
                    let player = int_arg(player, "seat")?;
                    let seed = if seed.is_callable() {
                        let value = seed.call0()?;
                        let u: f64 = value.extract().map_err(|_| {
                            PyTypeError::new_err(format!(
                                "the sampler must return a float in [0, 1), not {}",
                                crate::agents::type_name(&value)
                            ))
                        })?;
                        core::seed_of_unit(u).map_err(value_error)?
                    } else {
                        seed_arg(seed)?
                    };
                    Ok($State { core: self.core.resample(player, seed).map_err(value_error)? })
                }
                /// The game so far as a JSON record, interchangeable with the
                /// `boardgame` binary's records.
                #[pyo3(signature = (seed=None))]
                fn to_record(&self, seed: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
                    let seed = seed.map(seed_arg).transpose()?;
                    self.core.to_record(seed).map_err(value_error)
                }
                /// The state a JSON record replays to (validated step by step).
                #[staticmethod]
                fn from_record(json: &Bound<'_, PyAny>) -> PyResult<Self> {
                    let text: String = json.extract().map_err(|_| PyTypeError::new_err("a record must be JSON text (str)"))?;
                    Ok($State { core: core::StateCore::from_record(&text).map_err(value_error)? })
                }
                /// Samples a chance outcome's id from `rng` exactly by the weights
                /// (as the kit's driver does), without applying it; `None` unless a
                /// chance node.
                fn sample_chance(&self, mut rng: PyRefMut<'_, Rng>) -> Option<u32> {
                    self.core.sample_chance(&mut rng.inner)
                }
                /// Plays random actions natively (uniform decisions, chance by its
                /// weights, all from `Rng(seed)` as the kit's `playout`) until the end
                /// or `max_steps`; returns the number of actions played.
                /// Other Python threads run meanwhile (the GIL is released).
                #[pyo3(signature = (seed, max_steps=None))]
                fn playout(&mut self, py: Python<'_>, seed: &Bound<'_, PyAny>, max_steps: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
                    let mut rng = GameRng::new(seed_arg(seed)?);
                    let max_steps = opt_uint(max_steps, "max_steps")?.unwrap_or(usize::MAX);
                    let core = &mut self.core;
                    Ok(py.detach(move || core.playout(&mut rng, max_steps)))
                }
                fn __str__(&self) -> String { self.core.state.to_string() }
                fn __repr__(&self) -> String {
                    format!("<{} after {} actions, player {}>", stringify!($State), self.core.history.as_ref().map_or(0, Vec::len), self.core.current_player())
                }
                fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
                    other.extract::<PyRef<'_, $State>>().map(|o| o.core == self.core).unwrap_or(false)
                }
                fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
                    Ok((slf.get_type().getattr("_from_pickle")?, (slf.borrow().core.to_pickle(),)))
                }
                /// The state of a pickle's payload (validated).
                #[staticmethod]
                fn _from_pickle(text: &str) -> PyResult<Self> {
                    Ok($State { core: core::StateCore::from_pickle(text).map_err(value_error)? })
                }
            }
        )*

        /// The names of the engines, in registration order.
        const ENGINE_NAMES: &[&str] = &[$(<$G as Game>::NAME),*];

        fn add_engine_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $( m.add_class::<$Game>()?; m.add_class::<$State>()?; )*
            Ok(())
        }

        fn load_engine(py: Python<'_>, name: &str, players: Option<serde_json::Value>, overlay: &str) -> PyResult<Py<PyAny>> {
            $(
                if name == <$G as Game>::NAME {
                    let core = core::GameCore::<$G>::from_overlay(players, overlay).map_err(value_error)?;
                    return Ok(Py::new(py, $Game { core })?.into_any());
                }
            )*
            Err(value_error(format!("unknown game `{name}` (games: {})", ENGINE_NAMES.join(", "))))
        }

        fn state_from_any_record(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
            let header = RecordHeader::from_json(json).map_err(|e| value_error(e.to_string()))?;
            $(
                if header.engine == <$G as Game>::NAME {
                    let core = core::StateCore::<$G>::from_record(json).map_err(value_error)?;
                    return Ok(Py::new(py, $State { core })?.into_any());
                }
            )*
            Err(value_error(format!("the record is for engine `{}`, which this package does not know (games: {})", header.engine, ENGINE_NAMES.join(", "))))
        }
    };
}

// Every engine of the registry, with its two classes.
boardgame_sim::for_each_engine!(engines);

/// `load_game(name, players=None, **config)`: the game `name` with the
/// rules' default configuration, `config`'s fields (exactly the Rust
/// configuration's field names) laid over it, and `players` seats.
#[pyfunction]
#[pyo3(signature = (name, players=None, **config))]
fn load_game(
    py: Python<'_>,
    name: &str,
    players: Option<&Bound<'_, PyAny>>,
    config: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let json = py.import("json")?;
    let overlay: String = match config {
        Some(c) => json
            .call_method1("dumps", (c,))
            .map_err(|e| PyTypeError::new_err(format!("config values must be JSON-like: {e}")))?
            .extract()?,
        None => "{}".to_string(),
    };
    load_engine(py, name, players_arg(players)?, &overlay)
}

/// The `players` argument as a JSON value for the configuration overlay
/// (`None` when absent or `None`).
fn players_arg(players: Option<&Bound<'_, PyAny>>) -> PyResult<Option<serde_json::Value>> {
    let n = players.filter(|p| !p.is_none()).map(|p| int_arg(p, "players")).transpose()?;
    Ok(n.map(|n| serde_json::Value::from(i64::try_from(n).unwrap_or(i64::MAX))))
}

/// A thread count: 1 when absent, else an integer in
/// `1..=`[`boardgame_sim::simulate::MAX_THREADS`] (1024, the binary's cap).
fn threads_arg(threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    boardgame_sim::simulate::check_threads(opt_uint(threads, "threads")?.unwrap_or(1)).map_err(value_error)
}

/// The items of a list argument `what`, each converted by `item`: a
/// `TypeError` for a str or anything that is not iterable.
fn list_arg<T>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    item: impl Fn(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let wrong = || PyTypeError::new_err(format!("{what} must be a list, not {}", agents::type_name(obj)));
    let iter = obj.try_iter().ok().filter(|_| !obj.is_instance_of::<PyString>()).ok_or_else(wrong)?;
    iter.map(|x| item(&x?)).collect()
}

/// A shard `(i, k)` (`--shard i/k`), or `None`: a `TypeError` unless a
/// tuple of two integers, a `ValueError` unless `0 <= i < k`.
fn shard_arg(shard: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Shard>> {
    let Some(shard) = shard.filter(|s| !s.is_none()) else { return Ok(None) };
    let (i, k): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
        shard.extract().map_err(|_| PyTypeError::new_err("shard must be a tuple (i, k) of two integers"))?;
    Shard::new(uint_arg(&i, "shard index")?, uint_arg(&k, "shard count")?).map(Some).map_err(value_error)
}

pyo3::create_exception!(
    korovan_caravan,
    InvalidActionError,
    PyValueError,
    "An action id that a batch of games (`VectorEnv.step`) refused: unknown, illegal, or for a game that waits for no decision. `game` is the index of the game in the batch, `action` the id given; no game of the batch has advanced."
);

/// The Python exception for a batch's refusal: [`InvalidActionError`]
/// (with `game` and `action`, the game's id in `given`, the ids of the
/// step) when one game's action was at fault, else `ValueError`.
fn vector_error(py: Python<'_>, e: vector::VectorError, given: &[i64]) -> PyErr {
    match e.game {
        Some(game) => {
            let action = given.get(game).copied();
            let err = InvalidActionError::new_err(e.message);
            let value = err.value(py);
            // Setting attributes on a fresh exception object cannot fail in
            // practice; the message names the game either way.
            let _ = value.setattr("game", game);
            let _ = value.setattr("action", action);
            err
        }
        None => value_error(e.message),
    }
}

/// A contiguous numpy array's data as a mutable slice, or a `ValueError`
/// naming the output.
fn out_slice<'a, T: numpy::Element>(array: &'a mut PyReadwriteArrayDyn<'_, T>, name: &str) -> PyResult<&'a mut [T]> {
    array.as_slice_mut().map_err(|_| value_error(format!("output `{name}` must be a C-contiguous array")))
}

/// The state a JSON record (of any engine) replays to.
#[pyfunction]
fn from_record(py: Python<'_>, json: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let text: String = json.extract().map_err(|_| PyTypeError::new_err("a record must be JSON text (str)"))?;
    state_from_any_record(py, &text)
}

/// The names of the games, as `load_game` takes them.
#[pyfunction]
fn registered_games(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, ENGINE_NAMES)
}

/// `boardgame simulate GAME --json` with these arguments, played in Rust
/// (the kit's arena, `threads` threads, the GIL released): the JSON text
/// the binary writes. `shard=(i, k)` plays only the shard `--shard i/k`;
/// `config` is the JSON text of `--config`. `korovan_caravan.distributed` runs
/// the shards as Ray tasks.
#[pyfunction]
#[pyo3(signature = (game, games, agents="random", players=None, config=None, seed=None, shard=None, threads=None, fixed_seats=false))]
#[allow(clippy::too_many_arguments)]
fn simulate_json(
    py: Python<'_>,
    game: &str,
    games: &Bound<'_, PyAny>,
    agents: &str,
    players: Option<&Bound<'_, PyAny>>,
    config: Option<String>,
    seed: Option<&Bound<'_, PyAny>>,
    shard: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    fixed_seats: bool,
) -> PyResult<String> {
    use boardgame_sim::{games::GameName, simulate};
    let spec = simulate::SimSpec {
        game: GameName::parse(game).map_err(value_error)?,
        players: opt_uint(players, "players")?,
        config,
        games: uint_arg(games, "games")?,
        agents: agents.to_string(),
        seed: seed.map(seed_arg).transpose()?.unwrap_or(0),
        threads: threads_arg(threads)?,
        shard: shard_arg(shard)?,
        fixed_seats,
    };
    let results = py.detach(move || simulate::simulate_spec(&spec)).map_err(|e| value_error(e.to_string()))?;
    Ok(simulate::to_json(&results))
}

/// `boardgame ladder GAME --json` with these arguments (`players` a list
/// of player counts, `agents` at least two names, comma-separated), played
/// in Rust (`threads` threads, the GIL released): the JSON text the binary
/// writes. `shard=(i, k)` plays only `--shard i/k`; `config` is the JSON
/// text of `--config`. `korovan_caravan.distributed` runs the shards as
/// Ray tasks.
#[pyfunction]
#[pyo3(signature = (game, agents, players, deals=None, config=None, seed=None, shard=None, threads=None))]
#[pyo3(text_signature = "(game, agents, players, deals=100, config=None, seed=1000000, shard=None, threads=None)")]
#[allow(clippy::too_many_arguments)]
fn ladder_json(
    py: Python<'_>,
    game: &str,
    agents: &str,
    players: &Bound<'_, PyAny>,
    deals: Option<&Bound<'_, PyAny>>,
    config: Option<String>,
    seed: Option<&Bound<'_, PyAny>>,
    shard: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    use boardgame_sim::{games::GameName, ladder};
    let spec = ladder::LadderSpec {
        game: GameName::parse(game).map_err(value_error)?,
        players: list_arg(players, "players", |n| uint_arg(n, "a player count"))?,
        config,
        agents: agents.to_string(),
        deals: opt_uint(deals, "deals")?.unwrap_or(100),
        seed: seed.map(seed_arg).transpose()?.unwrap_or(1_000_000),
        threads: threads_arg(threads)?,
        shard: shard_arg(shard)?,
    };
    let results = py.detach(move || ladder::run_ladder(&spec, &())).map_err(|e| value_error(e.to_string()))?;
    Ok(ladder::to_json(&results))
}

/// Merges the results of `simulate_json` (as `boardgame merge --json`
/// does) or of `ladder_json` (as `boardgame ladder --merge --json` does),
/// told apart by their format: every statistic added, the seed ranges
/// joined; refused (with `ValueError`) for no results, results of
/// different kinds or experiments, or overlapping seeds.
#[pyfunction]
fn merge_results(results: Vec<String>) -> PyResult<String> {
    boardgame_sim::merge::merge_results(&results).map_err(|e| value_error(e.to_string()))
}

/// The native module.
#[pymodule]
fn _korovan_caravan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_engine_classes(m)?;
    m.add_class::<Rng>()?;
    batch::register(m)?;
    agents::register(m)?;
    evaluate::register(m)?;
    learner::register(m)?;
    nn::register(m)?;
    m.add("InvalidActionError", m.py().get_type::<InvalidActionError>())?;
    m.add_function(wrap_pyfunction!(load_game, m)?)?;
    m.add_function(wrap_pyfunction!(from_record, m)?)?;
    m.add_function(wrap_pyfunction!(registered_games, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_json, m)?)?;
    m.add_function(wrap_pyfunction!(ladder_json, m)?)?;
    m.add_function(wrap_pyfunction!(merge_results, m)?)?;
    compact::register(m)?;
    m.add("CHANCE_STREAM", CHANCE_STREAM)?;
    m.add("AGENT_STREAM_BASE", AGENT_STREAM_BASE)?;
    m.add("CHANCE_PLAYER", core::CHANCE_PLAYER)?;
    m.add("TERMINAL_PLAYER", core::TERMINAL_PLAYER)?;
    Ok(())
}
