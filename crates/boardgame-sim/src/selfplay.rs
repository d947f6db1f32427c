//! Whole games played by networks and agents in threads, for training and
//! measuring networks (what `korovan_caravan.learn` calls):
//!
//! - [`self_play`]: every seat the same agent (the kit's `learned-ismcts`
//!   with a network, or a named teacher); every decision becomes a training
//!   sample ([`SelfPlayData`]);
//! - [`network_match`]: a network against a named agent at every other
//!   seat, its seat rotating; the network's share of each game.
//!
//! Game `g` of a call with seed `s` is played from `GameRng::new(s + g)`
//! (chance and the agents' draws alike), so a call gives the same results
//! whatever its number of threads.

use std::sync::Arc;

use boardgame_kit::nn::{LearnedAgent, NetGame, NetLayout, Network, learned_ismcts};
use boardgame_kit::{ActionBuffer, Agent, AgentSpec, Bots, Budget, Game, GameRng, Turn, sample_chance};

/// The network layout of the engine named `name` ([`Game::NAME`]) with
/// its default configuration ([`NetGame::net_layout`]), and the number of
/// its action ids: what a trainer builds its networks from.
///
/// # Errors
/// [`SelfPlayError::Invalid`] for an unknown engine.
pub fn net_layout(name: &str) -> Result<(NetLayout, usize), SelfPlayError> {
    let Some(game) = crate::games::GameName::from_engine(name) else {
        return Err(SelfPlayError::Invalid(format!(
            "unknown game `{name}` (games: {})",
            crate::games::GameName::list()
        )));
    };
    Ok(crate::games::with_game!(game, G => {
        let config = <G as Game>::Config::default();
        (G::net_layout(&config), G::num_distinct_actions(&config))
    }))
}

/// Why self-play or a match could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelfPlayError {
    /// A count, a budget, a network or an agent that does not fit (nothing
    /// was played).
    #[error("{0}")]
    Invalid(String),
    /// A game could not be played to its end (an engine's or agent's defect).
    #[error("{0}")]
    Play(String),
}

/// The most games one [`self_play`] or [`network_match`] call plays.
pub const MAX_SELF_PLAY_GAMES: u64 = 1 << 20;
/// The most search iterations per decision.
pub const MAX_ITERATIONS: u32 = 1 << 20;
/// The most threads.
pub const MAX_THREADS: usize = 256;
/// The child stream of a game's generator that labels an actor's positions.
const LABEL_STREAM: u32 = 0x1abe;

/// The counts of a batch of games, checked alike by [`self_play`] and
/// [`network_match`] before any work, in this order: `games` in
/// `1..=MAX_SELF_PLAY_GAMES`, `threads` in `1..=MAX_THREADS`, `iterations`
/// (when given) in `1..=MAX_ITERATIONS`, and `seed + games` below 2^64
/// (game `g` is seeded by `seed + g`).
///
/// # Errors
/// [`SelfPlayError::Invalid`] naming the first count out of range.
pub fn check_batch(games: u64, threads: usize, iterations: Option<u32>, seed: u64) -> Result<(), SelfPlayError> {
    let value_error = |m: String| SelfPlayError::Invalid(m);
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
        return Err(value_error("seed + games passes 2**64".to_string()));
    }
    Ok(())
}

/// Runs `f(g)` for every game `g` in `0..games` on `threads` scoped threads
/// (at most one a game): thread `t` plays games `t`, `t + threads`, … in
/// turn and stops at its first error; a thread the system refuses to start
/// has its games played on the calling thread. Returns the results in game
/// order whatever `threads`, or the error of the first thread (by index)
/// that failed; a thread that panicked fails with "a `{what}` thread
/// panicked".
fn striped<T: Send>(
    games: u64,
    threads: usize,
    what: &str,
    f: impl Fn(u64) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let threads = threads.min(games as usize).max(1);
    let f = &f;
    let stripe = move |t: usize| {
        (t as u64..games).step_by(threads).map(|g| f(g).map(|v| (g, v))).collect::<Result<Vec<_>, String>>()
    };
    let per_thread: Vec<Result<Vec<(u64, T)>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| (t, std::thread::Builder::new().spawn_scoped(scope, move || stripe(t)).ok()))
            .collect();
        let join = |(t, handle): (usize, Option<std::thread::ScopedJoinHandle<'_, _>>)| match handle {
            Some(h) => h.join().unwrap_or_else(|_| Err(format!("a {what} thread panicked"))),
            None => stripe(t),
        };
        handles.into_iter().map(join).collect()
    });
    let mut all = Vec::new();
    for r in per_thread {
        all.extend(r?);
    }
    all.sort_by_key(|(g, _)| *g);
    Ok(all.into_iter().map(|(_, v)| v).collect())
}

/// The settings of one [`self_play`] call.
#[derive(Clone, Debug)]
pub struct SelfPlaySpec {
    /// The number of games (game `g` seeded by `seed + g`).
    pub games: u64,
    /// The seed of game 0.
    pub seed: u64,
    /// Threads (the results do not depend on them).
    pub threads: usize,
    /// Search iterations per decision with a network.
    pub iterations: u32,
    /// The policy target is the agent's move, not its policy.
    pub sharp: bool,
    /// The network of the `learned-ismcts` search every seat plays; `None`:
    /// the `teacher` plays.
    pub net: Option<Arc<Network>>,
    /// The agent every seat plays without a network.
    pub teacher: AgentSpec,
    /// If set, this network's greedy policy plays every move and the agent
    /// of `net`/`teacher` only gives the targets (DAgger).
    pub actor: Option<Arc<Network>>,
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

fn make_agent<G: NetGame + Bots>(s: &SelfPlaySpec) -> Result<Box<dyn Agent<G>>, String> {
    match &s.net {
        Some(net) => learned_ismcts::<G>(net.clone(), Budget::Iterations(u64::from(s.iterations)))
            .map(|a| Box::new(a) as Box<dyn Agent<G>>)
            .map_err(|e| e.to_string()),
        None => s.teacher.build::<G>().map_err(|e| e.to_string()),
    }
}

/// Plays game `g` of `s`: every seat the same agent (a fresh one per game),
/// or with `s.actor` the actor's moves with the agent's targets.
fn play_one<G: NetGame + Bots>(config: &G::Config, s: &SelfPlaySpec, g: u64) -> Result<GameData, String> {
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
fn play_all<G: NetGame + Bots>(config: &G::Config, s: &SelfPlaySpec) -> Result<Vec<GameData>, String> {
    striped(s.games, s.threads, "self-play", |g| play_one::<G>(config, s, g).map_err(|e| format!("game {g}: {e}")))
}

/// The samples of [`self_play`], row-major, one row per decision in game
/// order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfPlayData {
    /// The network input of the seat to move (`rows × input_len`).
    pub inputs: Vec<f32>,
    /// The legal policy indices (`rows × policy_len`).
    pub masks: Vec<bool>,
    /// The policy target (`rows × policy_len`).
    pub policy: Vec<f32>,
    /// The final shares relative to the seat (`rows × value_len`).
    pub value: Vec<f32>,
    /// The seat of each row.
    pub seats: Vec<u32>,
    /// The game of each row.
    pub games: Vec<u32>,
    /// The number of rows.
    pub rows: usize,
    /// The network input's length.
    pub input_len: usize,
    /// The policy head's length.
    pub policy_len: usize,
    /// The value head's length.
    pub value_len: usize,
}

/// Self-play of `s.games` games of `config` on `s.threads` threads, every
/// seat the same agent: with `s.net`, the kit's `learned-ismcts` search with
/// that network as prior and leaf value, `s.iterations` per decision;
/// without, the agent `s.teacher`. With `s.actor` that network's greedy
/// policy plays every move and the agent above only gives the targets.
/// Every decision becomes a sample: the network input of the seat to move,
/// the mask of its legal policy indices, the target (the agent's policy
/// over its legal actions or, with `s.sharp`, its move) and the game's
/// final shares relative to the seat. Game `g` is seeded by `s.seed + g`.
///
/// # Errors
/// [`SelfPlayError::Invalid`] for counts out of range ([`check_batch`]), a
/// network that does not fit `G` or an agent `G` lacks;
/// [`SelfPlayError::Play`] naming the game that failed.
pub fn self_play<G: NetGame + Bots>(config: &G::Config, s: &SelfPlaySpec) -> Result<SelfPlayData, SelfPlayError> {
    check_batch(s.games, s.threads, Some(s.iterations), s.seed)?;
    for net in s.net.iter().chain(&s.actor) {
        boardgame_kit::nn::check_network::<G>(net, config).map_err(|e| SelfPlayError::Invalid(e.to_string()))?;
    }
    make_agent::<G>(s).map_err(SelfPlayError::Invalid)?;
    let data = play_all::<G>(config, s).map_err(SelfPlayError::Play)?;
    let mut a = SelfPlayData {
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

/// The learner of [`network_match`]: the network's greedy policy (`learned`) or
/// the search with it (`learned-ismcts`).
fn learner<G: NetGame + Bots>(net: &Arc<Network>, budget: Option<Budget>) -> Result<Box<dyn Agent<G>>, String> {
    match budget {
        None => LearnedAgent::<G>::new(net.clone(), 0.0)
            .map(|a| Box::new(a) as Box<dyn Agent<G>>)
            .map_err(|e| e.to_string()),
        Some(b) => G::learned_search_with(net.clone(), b).map_err(|e| e.to_string()),
    }
}

/// Game `g` of a match: the network at seat `g mod players`, `opponent`
/// at every other seat; the network's share (1 a sole win, `1/k` a
/// `k`-way draw).
fn match_game<G: NetGame + Bots>(
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

/// The search budget of a match's network: none (greedy), `iterations`
/// (1..=2^20) or `millis` per decision (1..=60000), not both.
///
/// # Errors
/// [`SelfPlayError::Invalid`] for both, or a value out of range.
pub fn match_budget(iterations: Option<u64>, millis: Option<u64>) -> Result<Option<Budget>, SelfPlayError> {
    match (iterations, millis) {
        (None, None) => Ok(None),
        (Some(n), None) if (1..=u64::from(MAX_ITERATIONS)).contains(&n) => Ok(Some(Budget::Iterations(n))),
        (None, Some(ms)) if (1..=60_000).contains(&ms) => Ok(Some(Budget::Time(std::time::Duration::from_millis(ms)))),
        _ => Err(SelfPlayError::Invalid("give iterations (1..=2**20) or millis (1..=60000), not both".to_string())),
    }
}

/// A match of `net` against `opponent` at every other seat: game `g` (of
/// `games`) seeded by `seed + g`, the network at seat `g mod players`,
/// greedy (`learned`) without a `budget`, else the engine's
/// `learned-ismcts` search with it ([`Bots::learned_search_with`]); on
/// `threads` threads. Returns the network's share of each game (1 a sole
/// win, `1/k` a `k`-way draw, 0 a loss) and the number of players.
///
/// # Errors
/// [`SelfPlayError::Invalid`] for counts out of range ([`check_batch`]), a
/// network that does not fit `G`, an agent `G` lacks or a bad
/// configuration; [`SelfPlayError::Play`] naming
/// the failure of a game.
pub fn network_match<G: NetGame + Bots>(
    config: &G::Config,
    net: &Arc<Network>,
    budget: Option<Budget>,
    opponent: &AgentSpec,
    (games, seed, threads): (u64, u64, usize),
) -> Result<(Vec<f64>, usize), SelfPlayError> {
    let invalid = |e: String| SelfPlayError::Invalid(e);
    check_batch(games, threads, None, seed)?;
    boardgame_kit::nn::check_network::<G>(net, config).map_err(|e| invalid(e.to_string()))?;
    opponent.build::<G>().map_err(|e| invalid(e.to_string()))?;
    let players = G::new_game(config).map_err(|e| invalid(e.to_string()))?.num_players();
    let shares = striped(games, threads, "match", |g| match_game::<G>(config, net, budget, opponent, seed, g))
        .map_err(SelfPlayError::Play)?;
    Ok((shares, players))
}

/// Every seat's return where a game stopped: the game's own at its end, or
/// its leaders' by score where the length bound cut it.
fn final_returns<G: Game>(state: &G, n: usize) -> Vec<f64> {
    let mut returns = vec![0.0; n];
    if state.is_terminal() {
        state.returns(&mut returns);
    } else {
        boardgame_kit::score_leader_returns(state, &mut returns);
    }
    returns
}
