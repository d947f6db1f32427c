//! The native half of `korovan_caravan.evaluate`: boardgame-sim's
//! matches of built-in agents ([`boardgame_sim::matches`]: a whole match
//! on the kit's arena, `_arena`; one game of the kit's driver,
//! `_play_game`) with the GIL released, and the tally of a match that
//! Python drives ([`Tally`]), so that both report the same statistics with
//! the same 95% intervals.

use boardgame_kit::{AgentSpec, ArenaReport, EntrantStats};
use boardgame_sim::matches;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::agents::{PyEngine, spec_arg, state_arg, with_py_game};
use crate::value_error;

/// A report as Python data: `games`, `length_sum`, `mean_length` and per
/// entrant `name`, `games`, `wins`, `draws`, `losses`, `share` (the mean
/// win share: 1 a sole win, `1/k` a `k`-way draw), `share_interval`,
/// `win_rate`, `win_interval` (95%, Wilson), `mean_score`, `score_sum`.
fn report_to_py<'py>(py: Python<'py>, report: &ArenaReport) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("games", report.games)?;
    out.set_item("length_sum", report.length_sum)?;
    out.set_item("mean_length", report.mean_length())?;
    let entrants = PyList::empty(py);
    for e in &report.entrants {
        let d = PyDict::new(py);
        d.set_item("name", &e.name)?;
        d.set_item("games", e.games)?;
        d.set_item("wins", e.wins)?;
        d.set_item("draws", e.draws)?;
        d.set_item("losses", e.losses())?;
        d.set_item("share", e.win_share())?;
        d.set_item("share_interval", e.win_share_interval())?;
        d.set_item("win_rate", e.win_rate())?;
        d.set_item("win_interval", e.win_interval())?;
        d.set_item("mean_score", e.mean_score())?;
        d.set_item("score_sum", e.score_sum)?;
        entrants.append(d)?;
    }
    out.set_item("entrants", entrants)?;
    Ok(out)
}

/// Plays `games` games of `game` from seeds `seed..seed + games` between
/// the built-in `agents` (one name per seat), entirely in Rust on the kit's
/// `Arena` (`threads` threads, the GIL released; results do not depend on
/// the thread count): entrant `e` sits at seat `(e + seed) mod n` with
/// `rotate_seats`, else at seat `e`. Returns the report as Python data
/// (see `korovan_caravan.evaluate`).
#[pyfunction]
#[pyo3(name = "_arena", signature = (game, agents, games, seed=None, threads=None, rotate_seats=true))]
fn arena<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    agents: &Bound<'py, PyAny>,
    games: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    rotate_seats: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let specs: Vec<AgentSpec> = crate::list_arg(agents, "agents", spec_arg)?;
    let games: u64 = crate::uint_arg(games, "games")?;
    let seed = seed.filter(|s| !s.is_none()).map(crate::seed_arg).transpose()?.unwrap_or(0);
    let threads = crate::threads_arg(threads)?;
    let seeds = matches::seed_range(seed, games).map_err(value_error)?;
    let report = with_py_game!(game, G, config => {
        py.detach(|| matches::arena_report::<G>(config, &specs, seeds, threads, rotate_seats)).map_err(value_error)
    })?;
    report_to_py(py, &report)
}

/// Plays one game of `game` from `seed` with the kit's driver
/// (`play_game`), the built-in `agents` in seat order, entirely in Rust
/// (the GIL released); returns its JSON record.
#[pyfunction]
#[pyo3(name = "_play_game", signature = (game, agents, seed=None))]
fn play_game<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    agents: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
) -> PyResult<String> {
    let specs: Vec<AgentSpec> = crate::list_arg(agents, "agents", spec_arg)?;
    let seed = seed.filter(|s| !s.is_none()).map(crate::seed_arg).transpose()?.unwrap_or(0);
    with_py_game!(game, G, config => {
        let record = py.detach(|| matches::play_record::<G>(&config, &specs, seed)).map_err(value_error)?;
        Ok(record.to_json())
    })
}

/// Counts a finished game's Python state into a report.
type Tallier = for<'a, 'py> fn(&mut ArenaReport, &'a Bound<'py, PyAny>, &[usize], u64) -> PyResult<()>;

/// Counts `obj`, a finished state of `G` ([`matches::tally_game`]).
fn tally<G: PyEngine>(
    report: &mut ArenaReport,
    obj: &Bound<'_, PyAny>,
    seat_of: &[usize],
    length: u64,
) -> PyResult<()> {
    let state: G = state_arg(obj)?;
    matches::tally_game(report, &state, seat_of, length).map_err(value_error)
}

/// The tally of a match that Python drives: the kit's [`EntrantStats`] per
/// entrant, as [`boardgame_kit::Arena`] keeps them, so that its report is the arena's for
/// the same games.
#[pyclass(module = "korovan_caravan._korovan_caravan", name = "_Tally")]
pub struct Tally {
    report: ArenaReport,
    tally: Tallier,
}

#[pymethods]
impl Tally {
    /// An empty tally of `game` for entrants named `names` (one per seat).
    #[new]
    fn new(game: &Bound<'_, PyAny>, names: Vec<String>) -> PyResult<Self> {
        let (tally, seats) = with_py_game!(game, G, config => Ok((tally::<G> as Tallier, matches::seats::<G>(&config).map_err(value_error)?)))?;
        matches::check_agent_count(seats, names.len()).map_err(value_error)?;
        let entrants = names.into_iter().map(|name| EntrantStats { name, ..Default::default() }).collect();
        Ok(Tally { report: ArenaReport { entrants, games: 0, length_sum: 0 }, tally })
    }

    /// Counts the finished game `state` in which entrant `e` played seat
    /// `seat_of[e]`, `length` actions long (chance included).
    fn add(&mut self, state: &Bound<'_, PyAny>, seat_of: Vec<usize>, length: u64) -> PyResult<()> {
        (self.tally)(&mut self.report, state, &seat_of, length)
    }

    /// The report so far, as `_arena` returns it.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        report_to_py(py, &self.report)
    }
}

/// Adds the functions and classes of this module to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(arena, m)?)?;
    m.add_function(wrap_pyfunction!(play_game, m)?)?;
    m.add_class::<Tally>()?;
    Ok(())
}
