//! Caravan's compact action space from Python (`caravan_core::compact`,
//! layout in `docs/encoding-caravan.md`): the mask as a numpy `bool` array
//! (optionally written into the caller's buffer), the compact legal ids,
//! and the exact mapping between compact and flat ids of a state.
//!
//! The functions take a `CaravanState` (or, for the size, a `CaravanGame`)
//! and raise `TypeError` for anything else, `ValueError` for an id that is
//! unknown or not legal now, a state without a decision, or a buffer of the
//! wrong length or type.

use boardgame_kit::Game;
use caravan_core::{Action, Caravan, CompactError, compact_num_actions};
use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::{CaravanGame, CaravanState, int_arg, value_error};

/// A `ValueError` carrying the engine's message.
fn compact_error(e: CompactError) -> PyErr {
    value_error(e.to_string())
}

/// The Caravan state of `state`, or a `TypeError`.
fn caravan<'a>(state: &'a Bound<'_, PyAny>) -> PyResult<PyRef<'a, CaravanState>> {
    state.extract::<PyRef<'a, CaravanState>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "compact actions are Caravan's: expected a CaravanState, got {}",
            crate::agents::type_name(state)
        ))
    })
}

/// An id argument as `u32`: `TypeError` for a non-integer, `ValueError`
/// for a negative or too large one (naming the space).
fn id_arg(obj: &Bound<'_, PyAny>, what: &str, num_ids: usize) -> PyResult<u32> {
    let v = int_arg(obj, what)?;
    u32::try_from(v)
        .ok()
        .filter(|&id| (id as usize) < num_ids)
        .ok_or_else(|| value_error(format!("{what} {v} is outside the space 0..{num_ids}")))
}

/// The number of compact ids of a Caravan game (a `CaravanGame` or a
/// `CaravanState`): 694, 742, 790 for 2, 3, 4 players.
#[pyfunction]
fn caravan_compact_num_actions(game: &Bound<'_, PyAny>) -> PyResult<usize> {
    if let Ok(g) = game.cast::<CaravanGame>() {
        return Ok(compact_num_actions(&g.get().core.config));
    }
    let s = caravan(game)
        .map_err(|_| PyTypeError::new_err("caravan_compact_num_actions takes a CaravanGame or a CaravanState"))?;
    Ok(compact_num_actions(s.core.state.config()))
}

/// Writes the compact mask of `game` into `out` when it is a 1-D numpy
/// array of `T`; `false` when it is not one.
fn write_mask<T: numpy::Element + From<bool> + Copy>(game: &Caravan, out: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Ok(array) = out.cast::<PyArray1<T>>() else { return Ok(false) };
    let mut rw = array.try_readwrite().map_err(|_| value_error("`out` is not writeable or is in use"))?;
    let len = rw.len();
    let slice = rw.as_slice_mut().map_err(|_| value_error(format!("`out` (length {len}) is not contiguous")))?;
    game.write_compact_mask(slice).map_err(compact_error)?;
    Ok(true)
}

/// The compact mask of `state`: a numpy `bool` array over the compact ids,
/// `True` exactly at the compact ids of the legal actions (all `False` at
/// a chance node or at the end). With `out` (a contiguous 1-D `bool` or
/// `uint8` array of the space's length) it is written there, allocating
/// nothing, and `out` is returned.
#[pyfunction]
#[pyo3(signature = (state, out=None))]
fn caravan_compact_mask<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyAny>,
    out: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let s = caravan(state)?;
    let game: &Caravan = &s.core.state;
    let n = compact_num_actions(game.config());
    let out = match out {
        Some(o) if !o.is_none() => o,
        _ => PyArray1::<bool>::zeros(py, n, false).into_any(),
    };
    if !write_mask::<bool>(game, &out)? && !write_mask::<u8>(game, &out)? {
        return Err(PyTypeError::new_err(format!(
            "`out` must be a 1-D numpy array of bool or uint8 with {n} entries, got {}",
            crate::agents::type_name(&out)
        )));
    }
    Ok(out)
}

/// The compact ids of the legal actions of `state`, ascending (empty at a
/// chance node or at the end).
#[pyfunction]
fn caravan_compact_legal_actions(state: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let s = caravan(state)?;
    let game: &Caravan = &s.core.state;
    let mut mask = [false; caravan_core::MAX_COMPACT_ACTIONS];
    let n = compact_num_actions(game.config());
    let view = mask.get_mut(..n).ok_or_else(|| value_error("the compact space is larger than expected"))?;
    game.write_compact_mask(view).map_err(compact_error)?;
    Ok(view.iter().enumerate().filter(|&(_, &m)| m).map(|(i, _)| i as u32).collect())
}

/// The flat action id (OpenSpiel's, the records') of the legal action that
/// compact id `compact_id` names in `state`; `ValueError` when it names
/// none now.
#[pyfunction]
fn caravan_compact_to_flat(state: &Bound<'_, PyAny>, compact_id: &Bound<'_, PyAny>) -> PyResult<u32> {
    let s = caravan(state)?;
    let game: &Caravan = &s.core.state;
    let id = id_arg(compact_id, "compact id", compact_num_actions(game.config()))?;
    game.compact_action(id).map(Action::id).map_err(compact_error)
}

/// The compact id of the legal flat action `flat_id` in `state`;
/// `ValueError` when `flat_id` is unknown or not legal now.
#[pyfunction]
fn caravan_flat_to_compact(state: &Bound<'_, PyAny>, flat_id: &Bound<'_, PyAny>) -> PyResult<u32> {
    let s = caravan(state)?;
    let game: &Caravan = &s.core.state;
    let num_ids = Caravan::num_distinct_actions(game.config());
    let id = id_arg(flat_id, "action id", num_ids)?;
    let action = Action::from_id(id).ok_or_else(|| value_error(format!("unknown action id {id}")))?;
    game.compact_id(action).map_err(compact_error)
}

/// Registers the functions in the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(caravan_compact_num_actions, m)?)?;
    m.add_function(wrap_pyfunction!(caravan_compact_mask, m)?)?;
    m.add_function(wrap_pyfunction!(caravan_compact_legal_actions, m)?)?;
    m.add_function(wrap_pyfunction!(caravan_compact_to_flat, m)?)?;
    m.add_function(wrap_pyfunction!(caravan_flat_to_compact, m)?)?;
    Ok(())
}
