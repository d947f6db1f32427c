//! The native half of `korovan_caravan.learn`: the kit's network inference
//! on Python's arrays (`nn_forward`, `nn_info`: the parity of an exported
//! PyTorch network with the Rust forward pass), each engine's network
//! layout (`net_layout`), and boardgame-sim's self-play and network matches
//! ([`boardgame_sim::selfplay`]) with the GIL released, returning numpy
//! arrays.

use std::sync::Arc;

use boardgame_kit::AgentSpec;
use boardgame_kit::nn::Network;
use boardgame_sim::selfplay::{SelfPlaySpec, check_batch, match_budget};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::agents::with_py_game;
use crate::value_error;

fn read_weights(weights: &[u8]) -> PyResult<Network> {
    Network::from_bytes(weights).map_err(|e| value_error(format!("weights: {e}")))
}

/// What a weights file holds: `game`, `inputs`, `policy_len`,
/// `value_len`, `outputs`, `parameters`, `kind` (`"mlp"` or `"graph"`),
/// `text`.
#[pyfunction]
fn nn_info<'py>(py: Python<'py>, weights: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let net = read_weights(weights)?;
    let d = PyDict::new(py);
    d.set_item("game", net.game())?;
    d.set_item("inputs", net.obs_len())?;
    d.set_item("policy_len", net.policy_len())?;
    d.set_item("value_len", net.value_len())?;
    d.set_item("outputs", net.outputs())?;
    d.set_item("parameters", net.num_parameters())?;
    d.set_item("kind", if net.mlp().is_some() { "mlp" } else { "graph" })?;
    d.set_item("text", net.text())?;
    Ok(d)
}

/// The network layout of the game `game` (its name) as its engine defines
/// it: `game`, `inputs` (the network input's length), `policy_len`,
/// `value_len`, `num_actions` (the engine's action ids) and `board`: `None`
/// for a dense network's engine, else a dict of `height`, `width`,
/// `planes` and `globals` (`(start, length)` ranges of the input: planes
/// in channels of `height × width`), `policy_before`, `policy_planes`,
/// `policy_after` and `plan` (the start of the planner's move in the
/// input, or `None`).
#[pyfunction]
fn net_layout<'py>(py: Python<'py>, game: &str) -> PyResult<Bound<'py, PyDict>> {
    let (layout, num_actions) = boardgame_sim::selfplay::net_layout(game).map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("game", layout.game)?;
    d.set_item("inputs", layout.input_len)?;
    d.set_item("policy_len", layout.policy_len)?;
    d.set_item("value_len", layout.value_len)?;
    d.set_item("num_actions", num_actions)?;
    let board = match layout.board {
        None => None,
        Some(b) => {
            let board = PyDict::new(py);
            board.set_item("height", b.height)?;
            board.set_item("width", b.width)?;
            board.set_item("planes", b.planes)?;
            board.set_item("globals", b.globals)?;
            board.set_item("policy_before", b.policy_before)?;
            board.set_item("policy_planes", b.policy_planes)?;
            board.set_item("policy_after", b.policy_after)?;
            board.set_item("plan", b.plan)?;
            Some(board)
        }
    };
    d.set_item("board", board)?;
    Ok(d)
}

/// The network's outputs (policy logits, then value logits) for each row
/// of `inputs` (a 2-D `float32` array, one network input a row), through
/// the kit's forward pass, the GIL released: a `(rows, outputs)` array.
#[pyfunction]
fn nn_forward<'py>(
    py: Python<'py>,
    weights: &[u8],
    inputs: PyReadonlyArray2<'py, f32>,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let net = read_weights(weights)?;
    let shape = inputs.shape();
    let (rows, cols) = (shape[0], shape[1]);
    if cols != net.obs_len() {
        return Err(value_error(format!("inputs have {cols} columns, the network {} inputs", net.obs_len())));
    }
    let flat: Vec<f32> = inputs.as_array().iter().copied().collect();
    let outputs = net.outputs();
    let out = py.detach(move || net.forward_rows(&flat, rows)).map_err(|e| value_error(e.to_string()))?;
    PyArray1::from_vec(py, out).reshape([rows, outputs])
}

/// Self-play of `games` games of `game` (a game of this package:
/// `load_game(...)`), played in Rust on `threads` threads with the GIL
/// released, every seat the same agent: with `weights` (a weights file's
/// bytes), the kit's `learned-ismcts` search with that network as prior and
/// leaf value, `iterations` per decision (Korovan's hidden cards by
/// determinization, as ISMCTS does); without, the agent named `teacher`
/// (`heuristic`, `ismcts-h:200`, `flatmc-h:2500`, …). With `actor` (a
/// weights file's bytes) that network's greedy policy plays every move and
/// the agent above only gives the targets, at the positions the network
/// reaches (DAgger). Every decision becomes a sample: the
/// network input of the seat to move, the mask of its legal policy
/// indices, the target (the agent's policy over its legal actions — an
/// ISMCTS's root visit shares, `flatmc-h`'s softmax of its moves' values —
/// or, with `sharp`, its move), and the game's
/// final shares relative to the seat. Game `g` is seeded by `seed + g`: the
/// same call gives the same arrays whatever `threads`.
///
/// Returns a dict of numpy arrays: `inputs` (`float32`, rows × inputs),
/// `masks` (`bool`, rows × policy), `policy` (`float32`, rows × policy),
/// `value` (`float32`, rows × value), `seats` and `games` (`uint32`).
#[pyfunction]
#[pyo3(signature = (game, games, seed, weights=None, teacher="heuristic", iterations=64, threads=1, sharp=false, actor=None))]
#[allow(clippy::too_many_arguments)]
fn self_play<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    games: u64,
    seed: u64,
    weights: Option<&[u8]>,
    teacher: &str,
    iterations: u32,
    threads: usize,
    sharp: bool,
    actor: Option<&[u8]>,
) -> PyResult<Bound<'py, PyDict>> {
    check_batch(games, threads, Some(iterations), seed).map_err(value_error)?;
    let net = weights.map(read_weights).transpose()?.map(Arc::new);
    let actor = actor.map(read_weights).transpose()?.map(Arc::new);
    let teacher: AgentSpec = teacher.parse().map_err(|e| value_error(format!("teacher: {e}")))?;
    let s = SelfPlaySpec { games, seed, threads, iterations, sharp, net, teacher, actor };
    let result =
        with_py_game!(game, G, config => Ok(py.detach(|| boardgame_sim::selfplay::self_play::<G>(&config, &s))))?;
    let a = result.map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("inputs", PyArray1::from_vec(py, a.inputs).reshape([a.rows, a.input_len])?)?;
    d.set_item("masks", PyArray1::from_vec(py, a.masks).reshape([a.rows, a.policy_len])?)?;
    d.set_item("policy", PyArray1::from_vec(py, a.policy).reshape([a.rows, a.policy_len])?)?;
    d.set_item("value", PyArray1::from_vec(py, a.value).reshape([a.rows, a.value_len])?)?;
    d.set_item("seats", PyArray1::from_vec(py, a.seats))?;
    d.set_item("games", PyArray1::from_vec(py, a.games))?;
    Ok(d)
}

/// A match of the network of `weights` against `opponent` (an agent name)
/// at every other seat, the network's seat rotating (`g mod players`),
/// game `g` seeded by `seed + g`, played in Rust on `threads` threads with
/// the GIL released: the network greedy (`learned`), or with `iterations`
/// (or `millis` per decision) the engine's `learned-ismcts` search with it
/// (`Bots::learned_search_with`).
/// Returns the network's share of each game (a `float64` array; 1 a sole
/// win, `1/k` a `k`-way draw, 0 a loss) and the number of players.
#[pyfunction]
#[pyo3(signature = (game, weights, opponent, games, seed, threads=1, iterations=None, millis=None))]
#[allow(clippy::too_many_arguments)]
fn nn_match<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    weights: &[u8],
    opponent: &str,
    games: u64,
    seed: u64,
    threads: usize,
    iterations: Option<u64>,
    millis: Option<u64>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, usize)> {
    // `iterations` is checked with `millis` below: they name the budget.
    check_batch(games, threads, None, seed).map_err(value_error)?;
    let budget = match_budget(iterations, millis).map_err(value_error)?;
    let net = Arc::new(read_weights(weights)?);
    let opponent: AgentSpec = opponent.parse().map_err(|e| value_error(format!("opponent: {e}")))?;
    let counts = (games, seed, threads);
    let result = with_py_game!(game, G, config => {
        Ok(py.detach(|| boardgame_sim::selfplay::network_match::<G>(&config, &net, budget, &opponent, counts)))
    })?;
    let (shares, players) = result.map_err(value_error)?;
    Ok((PyArray1::from_vec(py, shares), players))
}

/// Adds this module's functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(nn_info, m)?)?;
    m.add_function(wrap_pyfunction!(net_layout, m)?)?;
    m.add_function(wrap_pyfunction!(nn_forward, m)?)?;
    m.add_function(wrap_pyfunction!(self_play, m)?)?;
    m.add_function(wrap_pyfunction!(nn_match, m)?)?;
    Ok(())
}
