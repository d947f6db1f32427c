//! The built-in agents one move at a time: `korovan_caravan.Agent`, any
//! name the `boardgame` binary accepts (the kit's [`AgentSpec`], parsed
//! here and nowhere else), asked for one action of one state, the search
//! running in Rust with the GIL released. And the rollouts of
//! `korovan_caravan.bots.RolloutEvaluator` ([`RolloutCore`]): OpenSpiel's
//! searches call them at their leaves.
//!
//! Seeds follow the kit's driver: an agent seeded with `seed` draws, for the
//! seat to move, from the kit's [`boardgame_kit::SeatStreams`] of `seed`, the stream the
//! driver gives that seat in the game of seed `seed`. So an
//! agent seeded with a game's seed plays the moves `boardgame simulate` and
//! the kit's `Arena` play in that game.
//!
//! [`PyEngine`] maps an engine to its Python classes; its one macro
//! invocation at the bottom lists the engines (one line each, as the
//! crate's `engines!`).

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use boardgame_kit::{AgentSpec, Bots, GameRng};
use boardgame_sim::agents::{Rollouts, SeededAgent, cut_evaluation, seat_to_move};
use numpy::PyArray1;
use pyo3::PyClass;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use boardgame_kit::nn::NetGame;
use boardgame_sim::games::Engine;

use boardgame_sim::session::Bindable;

use crate::value_error;

/// The Python type name of `obj`, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_string())
}

/// Runs `$body` (a `PyResult`) with `$G` the engine of `$game` (a game of
/// this package or its OpenSpiel wrapper) and `$config` its configuration,
/// the engines tried in the registry's order; a `TypeError` when `$game`
/// is neither.
macro_rules! with_py_game {
    ($game:expr, $G:ident, $config:ident => $body:expr) => {{
        let game: &Bound<'_, PyAny> = $game;
        'found: {
            for name in boardgame_sim::games::GameName::ALL {
                boardgame_sim::with_game!(*name, $G => {
                    if let Some($config) = <$G as $crate::agents::PyEngine>::config_of(game) {
                        break 'found ($body);
                    }
                });
            }
            Err($crate::agents::not_a_game(game))
        }
    }};
}
pub(crate) use with_py_game;

/// An engine the Python package knows, with its Python classes.
pub trait PyEngine: Bindable + Bots + Engine + NetGame {
    /// The engine's Python state class.
    type PyState: PyClass;

    /// The engine's state held by `obj`: one of this engine's Python states,
    /// or an object whose `inner` is one (the OpenSpiel wrapper's state);
    /// `None` for anything else.
    fn state_of(obj: &Bound<'_, PyAny>) -> Option<Self> {
        Self::borrow_state(obj).map(|s| Self::state_in(&s).clone())
    }

    /// The Python state `obj` stands for (itself, or the `inner` of the
    /// OpenSpiel wrapper's state), borrowed rather than copied; `None` for
    /// anything else, or a state another thread is changing right now.
    fn borrow_state<'py>(obj: &Bound<'py, PyAny>) -> Option<PyRef<'py, Self::PyState>>;

    /// The engine's state inside a Python state.
    fn state_in(state: &Self::PyState) -> &Self;

    /// The configuration of `obj`: one of this engine's Python games, or an
    /// object whose `boardgame` is one (the OpenSpiel wrapper's game).
    fn config_of(obj: &Bound<'_, PyAny>) -> Option<Self::Config>;
}

/// The attribute `attr` of `obj`, if it has one.
fn attr<'py>(obj: &Bound<'py, PyAny>, attr: &str) -> Option<Bound<'py, PyAny>> {
    obj.getattr(attr).ok()
}

/// The state `obj` of engine `G` borrowed, or a `TypeError` naming what
/// was given.
fn borrow_arg<'py, G: PyEngine>(obj: &Bound<'py, PyAny>) -> PyResult<PyRef<'py, G::PyState>> {
    G::borrow_state(obj).ok_or_else(|| {
        PyTypeError::new_err(format!("expected a {} state (or its OpenSpiel wrapper), got {}", G::NAME, type_name(obj)))
    })
}

/// The state `obj` of engine `G`, or a `TypeError` naming what was given.
pub(crate) fn state_arg<G: PyEngine>(obj: &Bound<'_, PyAny>) -> PyResult<G> {
    Ok(G::state_in(&*borrow_arg::<G>(obj)?).clone())
}

/// An agent's choice: the action id, and its policy when asked for
/// (`(id, probability)` ascending by id).
type Choice = (u32, Option<Vec<(u32, f64)>>);

/// The action `agent` chooses for the seat to move in `state` (with `py`,
/// the GIL released meanwhile), and, with `with_policy`, its policy.
fn choose<G: PyEngine>(
    agent: &mut SeededAgent<G>,
    py: Option<Python<'_>>,
    state: &G,
    policy: bool,
) -> PyResult<Choice> {
    let seat = seat_to_move(state, || "this state").map_err(value_error)?;
    let id = match py {
        Some(py) => py.detach(|| agent.decide(state, seat)),
        None => agent.decide(state, seat),
    }
    .map_err(value_error)?;
    Ok((id, policy.then(|| agent.policy_ids(state, id))))
}

/// What `korovan_caravan.Agent` calls, whatever the engine (its methods
/// are documented there).
pub trait DynAgent: Send {
    /// The engine's name.
    fn engine(&self) -> &'static str;
    /// The agent's name (the kit's spelling of its spec).
    fn name(&self) -> String;
    /// `Agent.step` (the policy too with `with_policy`: `step_with_policy`).
    fn step(&mut self, py: Python<'_>, state: &Bound<'_, PyAny>, with_policy: bool) -> PyResult<Choice>;
    /// `Agent.step_many`.
    fn step_many<'py>(&mut self, py: Python<'py>, states: &Bound<'py, PyAny>) -> PyResult<Vec<i64>>;
    /// `Agent.restart`.
    fn restart(&mut self, seed: Option<u64>);
}

impl<G: PyEngine> DynAgent for SeededAgent<G> {
    fn engine(&self) -> &'static str {
        G::NAME
    }
    fn name(&self) -> String {
        self.spec().to_string()
    }
    fn step(&mut self, py: Python<'_>, state: &Bound<'_, PyAny>, with_policy: bool) -> PyResult<Choice> {
        let held = borrow_arg::<G>(state)?;
        if self.is_cheap() {
            // Decided in place, the GIL kept: its release and retaking would
            // cost more than the decision.
            return choose(self, None, G::state_in(&held), with_policy);
        }
        // A search: on its own copy, so that other threads may use the
        // state while it runs without the GIL.
        let state = G::state_in(&held).clone();
        drop(held);
        choose(self, Some(py), &state, with_policy)
    }
    fn step_many<'py>(&mut self, py: Python<'py>, states: &Bound<'py, PyAny>) -> PyResult<Vec<i64>> {
        let not_a_sequence = || {
            PyTypeError::new_err(format!("step_many takes a sequence of {} states, not {}", G::NAME, type_name(states)))
        };
        if states.is_instance_of::<pyo3::types::PyString>() {
            return Err(not_a_sequence());
        }
        // Every state is borrowed (not copied) for the call: another thread
        // changing one of them meanwhile gets pyo3's "already borrowed".
        let mut held = Vec::with_capacity(states.len().unwrap_or(0));
        let mut hold = |i: usize, item: &Bound<'py, PyAny>| -> PyResult<()> {
            let state = G::borrow_state(item).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "states[{i}]: expected a {} state (or its OpenSpiel wrapper), got {}",
                    G::NAME,
                    type_name(item)
                ))
            })?;
            let seat = seat_to_move(G::state_in(&state), || format!("states[{i}]")).map_err(value_error)?;
            held.push((state, seat));
            Ok(())
        };
        for (i, item) in states.try_iter().map_err(|_| not_a_sequence())?.enumerate() {
            hold(i, &item?)?;
        }
        let refs: Vec<(&G, usize)> = held.iter().map(|(s, seat)| (G::state_in(s), *seat)).collect();
        let ids = py.detach(|| self.decide_all(&refs)).map_err(value_error)?;
        Ok(ids.into_iter().map(i64::from).collect())
    }
    fn restart(&mut self, seed: Option<u64>) {
        SeededAgent::restart(self, seed);
    }
}

/// An agent name as the kit's [`AgentSpec`]: `TypeError` for a non-string,
/// `ValueError` with the kit's message for an unknown name.
pub(crate) fn spec_arg(name: &Bound<'_, PyAny>) -> PyResult<AgentSpec> {
    let text: String = name
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("an agent name must be a str, not {}", type_name(name))))?;
    AgentSpec::from_str(&text).map_err(value_error)
}

/// A built-in agent (any name the `boardgame` binary accepts: `random`,
/// `heuristic`, `ismcts:N`, `ismcts-h:N`, `flatmc:N`, `learned`,
/// `learned:T`, `learned-ismcts:N`, `N` iterations or a time such as
/// `10ms`), asked for one move at a time; the search runs in
/// Rust with the GIL released. Shared between threads, the calls take turns.
#[pyclass(module = "korovan_caravan._korovan_caravan", name = "Agent")]
pub struct AgentObj {
    // Shared between threads, the calls take turns: each locks the agent,
    // waiting with the GIL released while another thread's call runs.
    inner: Mutex<Box<dyn DynAgent>>,
    seed: AtomicU64,
}

impl AgentObj {
    /// The agent, once no other thread's call holds it (waiting with the
    /// GIL released, so that the running call can finish).
    fn agent(&self, py: Python<'_>) -> MutexGuard<'_, Box<dyn DynAgent>> {
        loop {
            match self.inner.try_lock() {
                Ok(agent) => return agent,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => py.detach(|| std::thread::sleep(Duration::from_micros(100))),
            }
        }
    }
}

#[pymethods]
impl AgentObj {
    /// The agent `name` for `game` (a game of this package or its OpenSpiel
    /// wrapper), seeded with `seed` (driver streams: the seat to move draws
    /// from `Rng(seed).child(AGENT_STREAM_BASE + seat)`).
    #[new]
    #[pyo3(signature = (game, name, seed=None))]
    fn new(game: &Bound<'_, PyAny>, name: &Bound<'_, PyAny>, seed: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let spec = spec_arg(name)?;
        let seed = seed.filter(|s| !s.is_none()).map(crate::seed_arg).transpose()?.unwrap_or(0);
        let inner = with_py_game!(game, G, _config => {
            let agent = SeededAgent::<G>::new(spec, seed).map_err(value_error)?;
            Ok(Box::new(agent) as Box<dyn DynAgent>)
        })?;
        Ok(AgentObj { inner: Mutex::new(inner), seed: AtomicU64::new(seed) })
    }

    /// The agent's name, as the kit writes it (`ismcts` is `ismcts:1000`).
    #[getter]
    fn name(&self, py: Python<'_>) -> String {
        self.agent(py).name()
    }

    /// The engine the agent plays.
    #[getter]
    fn engine(&self, py: Python<'_>) -> &'static str {
        self.agent(py).engine()
    }

    /// The seed of the current streams.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed.load(Ordering::Relaxed)
    }

    /// The action id the agent plays for the seat to move in `state`.
    fn step(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<u32> {
        Ok(self.agent(py).step(py, state, false)?.0)
    }

    /// The action ids the agent plays for the seat to move in each of
    /// `states` (a list or any sequence of states of its engine), as an
    /// `int64` numpy array: the same actions, from the same streams, as
    /// that many `step` calls in order, decided in Rust in one call with
    /// the GIL released. `TypeError` for a non-sequence or an item that is
    /// no state of the agent's engine; `ValueError` for an empty sequence or
    /// a state where no seat is to move (nothing is decided then).
    fn step_many<'py>(&self, py: Python<'py>, states: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let ids = self.agent(py).step_many(py, states)?;
        Ok(PyArray1::from_vec(py, ids))
    }

    /// `(policy, action)`: the action id as `step`, and the agent's policy,
    /// `(id, probability)` pairs ascending by id: the root's visit shares
    /// for a search (the action is the most visited), uniform over the legal
    /// actions for `random`, all on the action for `heuristic` and `flatmc`
    /// (and for a move with a single legal action, not searched).
    fn step_with_policy(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<(Vec<(u32, f64)>, u32)> {
        let (id, policy) = self.agent(py).step(py, state, true)?;
        Ok((policy.unwrap_or_default(), id))
    }

    /// Resets the agent's memory before a new game; with `seed`, restarts
    /// its streams from that seed (as a new game of the driver).
    #[pyo3(signature = (seed=None))]
    fn restart(&self, py: Python<'_>, seed: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let seed = seed.filter(|s| !s.is_none()).map(crate::seed_arg).transpose()?;
        let mut agent = self.agent(py);
        if let Some(s) = seed {
            self.seed.store(s, Ordering::Relaxed);
        }
        agent.restart(seed);
        Ok(())
    }

    /// `agent(state)` is `agent.step(state)`.
    fn __call__(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<u32> {
        self.step(py, state)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let agent = self.agent(py);
        let seed = self.seed.load(Ordering::Relaxed);
        format!("Agent({:?}, {:?}, seed={seed})", agent.engine(), agent.name())
    }
}

/// What [`RolloutCore`] calls, whatever the engine.
pub trait DynRollout: Send {
    /// The engine's name.
    fn engine(&self) -> &'static str;
    /// The mean per-seat values of `n` rollouts from `state`.
    ///
    /// # Errors
    /// `TypeError` for a state of another engine.
    fn evaluate(&mut self, py: Python<'_>, state: &Bound<'_, PyAny>, n: usize, rng: &mut GameRng)
    -> PyResult<Vec<f64>>;
}

impl<G: PyEngine> DynRollout for Rollouts<G> {
    fn engine(&self) -> &'static str {
        G::NAME
    }
    fn evaluate(
        &mut self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        n: usize,
        rng: &mut GameRng,
    ) -> PyResult<Vec<f64>> {
        let state: G = state_arg(state)?;
        py.detach(|| self.mean_values(&state, n, rng)).map_err(value_error)
    }
}

/// The rollouts behind `korovan_caravan.bots.RolloutEvaluator`: `policy`
/// (an agent name; `random` takes the kit's allocation-free draws) plays
/// every seat, chance by its weights, all from one stream seeded by `seed`;
/// a rollout stops at the end or after `depth` actions (chance included),
/// where the state is scored by `cut_value`: `"leader"` (1 shared among
/// the seats with the best score, as if the game ended there) or
/// `"margin"` (`0.5 + 0.5·tanh(margin / margin_scale)` for each seat's
/// score margin over the best other seat). A finished game always gets its
/// real returns (the shares: 1, `1/k` in a `k`-way draw, 0).
#[pyclass(module = "korovan_caravan._korovan_caravan", name = "_RolloutCore")]
pub struct RolloutCore {
    inner: Mutex<Box<dyn DynRollout>>,
    rng: GameRng,
}

#[pymethods]
impl RolloutCore {
    #[new]
    #[pyo3(signature = (game, policy=None, depth=None, cut_value=None, margin_scale=None, seed=None))]
    fn new(
        game: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, PyAny>>,
        depth: Option<&Bound<'_, PyAny>>,
        cut_value: Option<&Bound<'_, PyAny>>,
        margin_scale: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let spec = match policy.filter(|p| !p.is_none()) {
            Some(p) => spec_arg(p)?,
            None => AgentSpec::Random,
        };
        let depth: Option<usize> = match depth {
            Some(d) if !d.is_none() => Some(crate::uint_arg(d, "depth")?),
            _ => None,
        };
        let scale: Option<f64> =
            match margin_scale.filter(|m| !m.is_none()) {
                Some(m) if !m.is_instance_of::<pyo3::types::PyBool>() => Some(m.extract().map_err(|_| {
                    PyTypeError::new_err(format!("margin_scale must be a number, not {}", type_name(m)))
                })?),
                Some(m) => {
                    return Err(PyTypeError::new_err(format!("margin_scale must be a number, not {}", type_name(m))));
                }
                None => None,
            };
        let cut: Option<String> = match cut_value.filter(|c| !c.is_none()) {
            Some(c) => Some(
                c.extract()
                    .map_err(|_| PyTypeError::new_err(format!("cut_value must be a str, not {}", type_name(c))))?,
            ),
            None => None,
        };
        let evaluation = cut_evaluation(cut.as_deref(), scale).map_err(value_error)?;
        let seed = seed.filter(|s| !s.is_none()).map(crate::seed_arg).transpose()?.unwrap_or(0);
        let inner = with_py_game!(game, G, _config => {
            let rollouts = Rollouts::<G>::new(&spec, depth, evaluation).map_err(value_error)?;
            Ok(Box::new(rollouts) as Box<dyn DynRollout>)
        })?;
        Ok(RolloutCore { inner: Mutex::new(inner), rng: GameRng::new(seed) })
    }

    /// The engine.
    #[getter]
    fn engine(&mut self) -> &'static str {
        self.inner.get_mut().unwrap_or_else(|p| p.into_inner()).engine()
    }

    /// The mean per-seat values of `n` rollouts from `state` (the GIL is
    /// released while they run).
    #[pyo3(signature = (state, n=None))]
    fn evaluate(
        &mut self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        n: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<f64>> {
        let n: usize = n.map(|n| crate::uint_arg(n, "n")).transpose()?.unwrap_or(1);
        let rng = &mut self.rng;
        self.inner.get_mut().unwrap_or_else(|p| p.into_inner()).evaluate(py, state, n, rng)
    }
}

/// A `TypeError` for an object that is no game of this package.
pub(crate) fn not_a_game(game: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "expected a game of korovan_caravan (load_game) or its OpenSpiel wrapper, got {}",
        type_name(game)
    ))
}

/// Generates [`PyEngine`] for each `engine => GameClass, StateClass;` line.
macro_rules! py_engines {
    ($( $G:ty => $Game:ident, $State:ident; )*) => {
        $(
            impl PyEngine for $G {
                type PyState = crate::$State;
                fn borrow_state<'py>(obj: &Bound<'py, PyAny>) -> Option<PyRef<'py, crate::$State>> {
                    if let Ok(s) = obj.cast::<crate::$State>() {
                        return s.try_borrow().ok();
                    }
                    let inner = attr(obj, "inner")?;
                    let s = inner.cast::<crate::$State>().ok()?;
                    s.try_borrow().ok()
                }
                fn state_in(state: &crate::$State) -> &Self {
                    &state.core.state
                }
                fn config_of(obj: &Bound<'_, PyAny>) -> Option<Self::Config> {
                    if let Ok(g) = obj.cast::<crate::$Game>() {
                        return Some(g.get().core.config.clone());
                    }
                    let inner = attr(obj, "boardgame")?;
                    let g = inner.cast::<crate::$Game>().ok()?;
                    Some(g.get().core.config.clone())
                }
            }
        )*
    };
}

// Every engine of the registry, with its Python classes.
boardgame_sim::for_each_engine!(py_engines);

/// Adds the classes of this module to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AgentObj>()?;
    m.add_class::<RolloutCore>()?;
    Ok(())
}
