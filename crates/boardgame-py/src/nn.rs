//! The native half of `korovan_caravan.learn` (issue 31): the kit's
//! network inference on Python's arrays (`nn_forward`, `nn_info`: the
//! parity of an exported PyTorch network with the Rust forward pass) and
//! batched self-play in Rust (`self_play`): whole games played in threads,
//! the GIL released, the network inside the search, returning the
//! training arrays. Python never steps a game in this loop.

use std::sync::Arc;

use boardgame_kit::nn::{LearnedAgent, NetGame, Network, learned_ismcts};
use boardgame_kit::{ActionBuffer, Agent, AgentSpec, Budget, GameRng, Turn, sample_chance};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::agents::{EngineVisitor, PyEngine, visit_game};

/// The most games one `self_play` or `nn_match` call plays.
pub const MAX_SELF_PLAY_GAMES: u64 = 1 << 20;
/// The most search iterations per decision.
pub const MAX_ITERATIONS: u32 = 1 << 20;
/// The most threads.
pub const MAX_THREADS: usize = 256;
/// The child stream of a game's generator that labels an actor's positions.
const LABEL_STREAM: u32 = 0x1abe;

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The counts of a batch of games, checked alike by `self_play` and
/// `nn_match` before any work, in this order: `games` in
/// `1..=MAX_SELF_PLAY_GAMES`, `threads` in `1..=MAX_THREADS`, `iterations`
/// (when given) in `1..=MAX_ITERATIONS`, and `seed + games` below 2^64
/// (game `g` is seeded by `seed + g`).
fn check_batch(games: u64, threads: usize, iterations: Option<u32>, seed: u64) -> PyResult<()> {
    if games == 0 || games > MAX_SELF_PLAY_GAMES {
        return Err(value_error(format!("games must be in 1..={MAX_SELF_PLAY_GAMES}, got {games}")));
    }
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(value_error(format!("threads must be in 1..={MAX_THREADS}, got {threads}")));
    }
    if let Some(iterations) = iterations
        && !(1..=MAX_ITERATIONS).contains(&iterations)
    {
        return Err(value_error(format!("iterations must be in 1..={MAX_ITERATIONS}, got {iterations}")));
    }
    if seed.checked_add(games).is_none() {
        return Err(value_error("seed + games passes 2**64"));
    }
    Ok(())
}

/// Runs `f(g)` for every game `g` in `0..games` on `threads` scoped threads
/// (at most one a game): thread `t` plays games `t`, `t + threads`, … in
/// turn and stops at its first error. Returns the results in game order
/// whatever `threads`, or the error of the first thread (by index) that
/// failed; a thread that panicked fails with "a `{what}` thread panicked".
fn striped<T: Send>(
    games: u64,
    threads: usize,
    what: &str,
    f: impl Fn(u64) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let threads = threads.min(games as usize).max(1);
    let f = &f;
    let per_thread: Vec<Result<Vec<(u64, T)>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t as u64..games).step_by(threads).map(|g| f(g).map(|v| (g, v))).collect::<Result<Vec<_>, _>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(format!("a {what} thread panicked")))).collect()
    });
    let mut all = Vec::with_capacity(games as usize);
    for r in per_thread {
        all.extend(r?);
    }
    all.sort_by_key(|(g, _)| *g);
    Ok(all.into_iter().map(|(_, v)| v).collect())
}

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
    let out = py.detach(move || -> Result<Vec<f32>, String> {
        let mut scratch = net.scratch();
        let mut out = vec![0.0f32; rows * outputs];
        if cols > 0 {
            for (row, dst) in flat.chunks_exact(cols).zip(out.chunks_exact_mut(outputs)) {
                net.forward(row, &mut scratch, dst).map_err(|e| e.to_string())?;
            }
        }
        Ok(out)
    });
    let out = out.map_err(value_error)?;
    PyArray1::from_vec(py, out).reshape([rows, outputs])
}

/// The self-play settings of one call.
#[derive(Clone)]
struct Settings {
    games: u64,
    seed: u64,
    threads: usize,
    iterations: u32,
    sharp: bool,
    net: Option<Arc<Network>>,
    teacher: AgentSpec,
    /// If set, this network's greedy policy plays every move and the agent
    /// of `net`/`teacher` only gives the targets (DAgger).
    actor: Option<Arc<Network>>,
}

/// The samples of one game, row-major.
#[derive(Default)]
struct GameData {
    inputs: Vec<f32>,
    masks: Vec<bool>,
    policy: Vec<f32>,
    value: Vec<f32>,
    seats: Vec<u32>,
    rows: usize,
}

fn make_agent<G: NetGame + boardgame_kit::Bots>(s: &Settings) -> Result<Box<dyn Agent<G>>, String> {
    match &s.net {
        Some(net) => learned_ismcts::<G>(net.clone(), Budget::Iterations(u64::from(s.iterations)))
            .map(|a| Box::new(a) as Box<dyn Agent<G>>)
            .map_err(|e| e.to_string()),
        None => s.teacher.build::<G>().map_err(|e| e.to_string()),
    }
}

/// Plays game `g` of `s`: every seat the same agent (a fresh one per game),
/// or with `s.actor` the actor's moves with the agent's targets.
fn play_one<G: NetGame + boardgame_kit::Bots>(config: &G::Config, s: &Settings, g: u64) -> Result<GameData, String> {
    let mut agent = make_agent::<G>(s)?;
    let mut actor = match &s.actor {
        Some(net) => Some(LearnedAgent::<G>::new(net.clone(), 0.0).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut state = G::new_game(config).map_err(|e| e.to_string())?;
    let n = state.num_players();
    let (input_len, plen, vlen) = (G::input_len(config), G::POLICY_LEN, G::VALUE_LEN);
    let mut rng = GameRng::new(s.seed.wrapping_add(g));
    // With an actor, the labelling agent draws from a stream of its own, so
    // that the positions depend on the actor and chance alone.
    let mut label_rng = rng.child(LABEL_STREAM);
    let mut data = GameData::default();
    let mut list = G::ActionList::default();
    let mut chances = G::ChanceList::default();
    let mut idx = vec![0u32; list.capacity()];
    let mut policy = Vec::new();
    let bound = G::max_game_length(config);
    for _ in 0..bound {
        let action = match state.turn() {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&state, &mut rng, &mut chances).ok_or("a chance node without outcomes")?,
            Turn::Player(seat) => {
                state.legal_actions(&mut list);
                let k = list.len();
                if k == 0 || k > idx.len() {
                    return Err(format!("{k} legal actions"));
                }
                state.policy_indices(&list, &mut idx[..k]);
                let row = data.inputs.len();
                data.inputs.resize(row + input_len, 0.0);
                if !state.write_input(seat, &mut data.inputs[row..]) {
                    return Err(format!("the network input of seat {seat} cannot be written"));
                }
                let a = agent.act(&state, seat, if actor.is_some() { &mut label_rng } else { &mut rng });
                let mrow = data.masks.len();
                data.masks.resize(mrow + plen, false);
                data.policy.resize(mrow + plen, 0.0);
                for &i in &idx[..k] {
                    let i = i as usize;
                    if i >= plen {
                        return Err(format!("policy index {i} of {plen}"));
                    }
                    data.masks[mrow + i] = true;
                }
                agent.policy(&mut policy);
                let chosen = list.iter().position(|&b| b == a).ok_or("the agent played an illegal action")?;
                // With an actor, the agent's move is only the target; the
                // actor's (greedy) is played.
                let played = match actor.as_mut() {
                    Some(actor) => {
                        let b = actor.act(&state, seat, &mut rng);
                        if !list.contains(&b) {
                            return Err("the actor played an illegal action".into());
                        }
                        b
                    }
                    None => a,
                };
                if s.sharp || policy.is_empty() {
                    data.policy[mrow + idx[chosen] as usize] = 1.0;
                } else {
                    let mut total = 0.0;
                    for &(b, p) in &policy {
                        if let Some(j) = list.iter().position(|&c| c == b)
                            && p.is_finite()
                            && p > 0.0
                        {
                            data.policy[mrow + idx[j] as usize] += p as f32;
                            total += p;
                        }
                    }
                    if total > 0.0 {
                        data.policy[mrow..mrow + plen].iter_mut().for_each(|x| *x /= total as f32);
                    } else {
                        data.policy[mrow + idx[chosen] as usize] = 1.0;
                    }
                }
                data.seats.push(seat as u32);
                data.rows += 1;
                played
            }
        };
        state.apply(action).map_err(|e| format!("{e:?}"))?;
    }
    // Value targets: the final shares relative to each sample's seat (an
    // unfinished game, cut at the bound, scores its leaders).
    let returns = final_returns(&state, n);
    data.value = vec![0.0; data.rows * vlen];
    for (r, &seat) in data.seats.iter().enumerate() {
        for k in 0..n.min(vlen) {
            data.value[r * vlen + k] = returns[(seat as usize + k) % n] as f32;
        }
    }
    Ok(data)
}

/// Plays every game of `s` on `s.threads` threads; game `g` is seeded by
/// `seed + g` whatever the threads, and the games come back in order.
fn play_all<G: NetGame + boardgame_kit::Bots>(config: &G::Config, s: &Settings) -> Result<Vec<GameData>, String> {
    striped(s.games, s.threads, "self-play", |g| play_one::<G>(config, s, g).map_err(|e| format!("game {g}: {e}")))
}

/// The arrays of `self_play`.
struct Arrays {
    inputs: Vec<f32>,
    masks: Vec<bool>,
    policy: Vec<f32>,
    value: Vec<f32>,
    seats: Vec<u32>,
    games: Vec<u32>,
    rows: usize,
    input_len: usize,
    policy_len: usize,
    value_len: usize,
}

fn run_self_play<G: NetGame + boardgame_kit::Bots>(config: &G::Config, s: &Settings) -> Result<Arrays, String> {
    for net in s.net.iter().chain(&s.actor) {
        boardgame_kit::nn::check_network::<G>(net, config).map_err(|e| e.to_string())?;
    }
    make_agent::<G>(s)?;
    let data = play_all::<G>(config, s)?;
    let mut a = Arrays {
        inputs: Vec::new(),
        masks: Vec::new(),
        policy: Vec::new(),
        value: Vec::new(),
        seats: Vec::new(),
        games: Vec::new(),
        rows: 0,
        input_len: G::input_len(config),
        policy_len: G::POLICY_LEN,
        value_len: G::VALUE_LEN,
    };
    for (g, d) in data.into_iter().enumerate() {
        a.inputs.extend(d.inputs);
        a.masks.extend(d.masks);
        a.policy.extend(d.policy);
        a.value.extend(d.value);
        a.seats.extend(d.seats);
        a.games.extend(std::iter::repeat_n(g as u32, d.rows));
        a.rows += d.rows;
    }
    Ok(a)
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
    check_batch(games, threads, Some(iterations), seed)?;
    let net = weights.map(read_weights).transpose()?.map(Arc::new);
    let actor = actor.map(read_weights).transpose()?.map(Arc::new);
    let teacher: AgentSpec = teacher.parse().map_err(|e| value_error(format!("teacher: {e}")))?;
    let s = Settings { games, seed, threads, iterations, sharp, net, teacher, actor };
    /// Self-play on the engine of `game`, without the GIL.
    struct SelfPlay<'a, 'py> {
        py: Python<'py>,
        s: &'a Settings,
    }
    impl EngineVisitor for SelfPlay<'_, '_> {
        type Output = Result<Arrays, String>;
        fn visit<G: PyEngine>(self, config: G::Config) -> PyResult<Self::Output> {
            Ok(self.py.detach(|| run_self_play::<G>(&config, self.s)))
        }
    }
    let result = visit_game(game, SelfPlay { py, s: &s })?;
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

/// The learner of `nn_match`: the network's greedy policy (`learned`) or
/// the search with it (`learned-ismcts`).
fn learner<G: NetGame + boardgame_kit::Bots>(
    net: &Arc<Network>,
    budget: Option<Budget>,
) -> Result<Box<dyn Agent<G>>, String> {
    match budget {
        None => boardgame_kit::nn::LearnedAgent::<G>::new(net.clone(), 0.0)
            .map(|a| Box::new(a) as Box<dyn Agent<G>>)
            .map_err(|e| e.to_string()),
        Some(b) => G::learned_search_with(net.clone(), b).map_err(|e| e.to_string()),
    }
}

/// Game `g` of a match: the network at seat `g mod players`, `opponent`
/// at every other seat; the network's share (1 a sole win, `1/k` a
/// `k`-way draw).
fn match_game<G: NetGame + boardgame_kit::Bots>(
    config: &G::Config,
    net: &Arc<Network>,
    budget: Option<Budget>,
    opponent: &AgentSpec,
    seed: u64,
    g: u64,
) -> Result<f64, String> {
    let mut state = G::new_game(config).map_err(|e| e.to_string())?;
    let n = state.num_players();
    let me = (g % n as u64) as usize;
    let mut agents = (0..n)
        .map(|s| if s == me { learner::<G>(net, budget) } else { opponent.build::<G>().map_err(|e| e.to_string()) })
        .collect::<Result<Vec<_>, String>>()?;
    let mut rng = GameRng::new(seed.wrapping_add(g));
    let mut chances = G::ChanceList::default();
    for _ in 0..G::max_game_length(config) {
        let a = match state.turn() {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&state, &mut rng, &mut chances).ok_or("a chance node without outcomes")?,
            Turn::Player(seat) => agents[seat].act(&state, seat, &mut rng),
        };
        state.apply(a).map_err(|e| format!("{e:?}"))?;
    }
    let returns = final_returns(&state, n);
    Ok(returns[me])
}

fn run_match<G: NetGame + boardgame_kit::Bots>(
    config: &G::Config,
    net: &Arc<Network>,
    budget: Option<Budget>,
    opponent: &AgentSpec,
    games: u64,
    seed: u64,
    threads: usize,
) -> Result<(Vec<f64>, usize), String> {
    boardgame_kit::nn::check_network::<G>(net, config).map_err(|e| e.to_string())?;
    opponent.build::<G>().map_err(|e| e.to_string())?;
    let players = G::new_game(config).map_err(|e| e.to_string())?.num_players();
    let shares = striped(games, threads, "match", |g| match_game::<G>(config, net, budget, opponent, seed, g))?;
    Ok((shares, players))
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
    check_batch(games, threads, None, seed)?;
    let budget = match (iterations, millis) {
        (None, None) => None,
        (Some(n), None) if (1..=u64::from(MAX_ITERATIONS)).contains(&n) => Some(Budget::Iterations(n)),
        (None, Some(ms)) if (1..=60_000).contains(&ms) => Some(Budget::Time(std::time::Duration::from_millis(ms))),
        _ => return Err(value_error("give iterations (1..=2**20) or millis (1..=60000), not both")),
    };
    let net = Arc::new(read_weights(weights)?);
    let opponent: AgentSpec = opponent.parse().map_err(|e| value_error(format!("opponent: {e}")))?;
    /// A match on the engine of `game`, without the GIL.
    struct Match<'a, 'py> {
        py: Python<'py>,
        net: &'a Arc<Network>,
        budget: Option<Budget>,
        opponent: &'a AgentSpec,
        games: u64,
        seed: u64,
        threads: usize,
    }
    impl EngineVisitor for Match<'_, '_> {
        type Output = Result<(Vec<f64>, usize), String>;
        fn visit<G: PyEngine>(self, config: G::Config) -> PyResult<Self::Output> {
            let Match { py, net, budget, opponent, games, seed, threads } = self;
            Ok(py.detach(|| run_match::<G>(&config, net, budget, opponent, games, seed, threads)))
        }
    }
    let result = visit_game(game, Match { py, net: &net, budget, opponent: &opponent, games, seed, threads })?;
    let (shares, players) = result.map_err(value_error)?;
    Ok((PyArray1::from_vec(py, shares), players))
}

/// Adds this module's functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(nn_info, m)?)?;
    m.add_function(wrap_pyfunction!(nn_forward, m)?)?;
    m.add_function(wrap_pyfunction!(self_play, m)?)?;
    m.add_function(wrap_pyfunction!(nn_match, m)?)?;
    Ok(())
}

/// Every seat's return where a game stopped: the game's own at its end, or
/// its leaders' by score where the length bound cut it.
fn final_returns<G: boardgame_kit::Game>(state: &G, n: usize) -> Vec<f64> {
    let mut returns = vec![0.0; n];
    if state.is_terminal() {
        state.returns(&mut returns);
    } else {
        boardgame_kit::score_leader_returns(state, &mut returns);
    }
    returns
}
