//! Learned agents: a small policy-and-value network ([`Network`]: a
//! [`Graph`] of typed layers — dense layers as in an [`Mlp`], 3×3
//! convolutions over board planes, residual blocks, pooling, dense heads)
//! read from a versioned
//! weights file (format version 2, [below](#the-weights-file-format-version-2)),
//! played in plain Rust.
//!
//! * [`NetGame`] — what an engine tells the network: the width of its policy
//!   head and where each legal action sits in it (Korovan: the action id;
//!   Caravan: the compact id), and the width of its value head (the most
//!   seats).
//! * [`LearnedAgent`] — plays the network's policy over the legal actions:
//!   greedy, or sampled at a temperature (`learned`, `learned:T`).
//! * [`NetValue`] — the network's value head as the leaf evaluation of
//!   [`IsMctsAgent`] (`learned-ismcts:N`, built by
//!   [`learned_ismcts`]).
//!
//! The network reads the acting seat's observation tensor
//! ([`Game::write_observation_tensor`], through [`NetGame::write_input`],
//! to which an engine may add features computed from that observation)
//! and nothing else, so a learned agent sees only what the seat may know. Its outputs are `POLICY_LEN` policy
//! logits, then `VALUE_LEN` value logits: the value head is a softmax over
//! the seats *relative to the observer* (entry `k` is seat
//! `(observer + k) mod n`), the predicted shares of the win; entries past
//! the number of players are ignored.
//!
//! A decision allocates nothing: the agent keeps its buffers (sized on its
//! first decision for a configuration).
//!
//! An engine that ships weights checks them and its learned agents in one
//! call from its tests: [`check_learned`](crate::check_learned).
//!
//! # The weights file, format version 2
//!
//! All integers little-endian.
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `BGNN` |
//! | 2 | format version (2) |
//! | 1 + n | the game's name ([`Game::NAME`]): its length, then UTF-8 |
//! | 4 · 3 | input length, policy length, value length (the graph's outputs are policy + value) |
//! | 4 + m | a free text (how the network was trained): its length (at most [`MAX_TEXT`]), then UTF-8 |
//! | 2 | number of operations `N` (1 to [`MAX_OPS`]) |
//! | per operation | its kind (1 byte, the numbers of [`Op`]), then its `u32` fields (below) |
//! | 4 · params | per `Conv` and `Dense`, in order, its weights then its biases, `f32` |
//! | 8 | FNV-1a 64 of every byte before it |
//!
//! The fields of each kind: 1 `Input` and 2 `ConcatInput`: start, length;
//! 3 `ToHwc` and 4 `ToChw`: channels, height, width; 5 `Conv`: kernel (1
//! or 3), input channels, output channels, height, width (weights
//! `[ky][kx][input][output]`); 6 `Dense`: inputs, outputs (weights
//! input-major); 7 `Relu`: none; 8 `Store`, 9 `Load`, 10 `Add`, 11 `Concat`:
//! the slot (0 to 3); 12 `GlobalAvgPool`: channels, positions; 13 `Output`:
//! the offset. An MLP is the graph `Input(0, inputs)`, `Dense`, `Relu`, …,
//! `Dense`, `Output(0)` ([`Network::mlp`] gives it back as an [`Mlp`]).
//!
//! A file that is cut short, has bytes after its checksum, a wrong magic,
//! version or checksum, a graph whose shapes do not chain ([`Graph::new`]),
//! a non-finite parameter or more than [`MAX_PARAMETERS`] parameters is
//! refused with a [`WeightsError`] that says which; nothing in it can make
//! the reader panic or allocate more than the file's own size (and the
//! scratch of a forward pass more than [`MAX_ACTIVATION`] entries a
//! buffer).
//!
//! A file of another format version is refused by [`Network::from_bytes`]
//! with [`WeightsError::Version`].

mod graph;
mod mlp;
mod tower;
mod weights;

use std::sync::Arc;

pub use graph::{Conv, Graph, GraphScratch, MAX_ACTIVATION, MAX_OPS, MAX_SLOTS, Op};
pub use mlp::{Layer, Mlp, MlpScratch, NetError};
pub use tower::Tower;
pub use weights::{
    MAGIC, MAX_LAYERS, MAX_PARAMETERS, MAX_TEXT, NetScratch, Network, WEIGHTS_FORMAT_VERSION, WeightsError,
};

use crate::{ActionBuffer, Agent, Budget, Game, GameRng, IsMctsAgent, LeafValue, Turn};

/// A game a [`Network`] can play: the layout of its policy and value heads.
pub trait NetGame: Game {
    /// The width of the policy head: every legal action of every
    /// configuration has an index below it.
    const POLICY_LEN: usize;
    /// The width of the value head: the most seats of any configuration.
    const VALUE_LEN: usize;

    /// The policy index of each of `actions` (legal actions of the seat to
    /// move in `self`), written into `out[..actions.len()]`; every index is
    /// below [`NetGame::POLICY_LEN`] and no two legal actions share one.
    fn policy_indices(&self, actions: &[Self::Action], out: &mut [u32]);

    /// The length of the network's input for `config`: by default the
    /// observation tensor's.
    fn input_len(config: &Self::Config) -> usize {
        Self::observation_tensor_len(config)
    }

    /// Writes the network's input for `seat` into `out` (length
    /// [`NetGame::input_len`]): by default the observation tensor. An
    /// engine may append features computed from the seat's observation
    /// alone (the layout of its policy head, say). `false` when `seat` is
    /// not a seat or `out` has the wrong length.
    fn write_input(&self, seat: usize, out: &mut [f32]) -> bool {
        self.write_observation_tensor(seat, out).is_ok()
    }

    /// Where the network input of `config` holds board planes and where its
    /// policy head reads the board, for a convolution tower ([`Tower`]);
    /// `None` (the default) for an engine without a board layout, whose
    /// networks are dense.
    fn board_layout(config: &Self::Config) -> Option<BoardLayout> {
        let _ = config;
        None
    }

    /// The network layout of `config`: input length, heads and board
    /// layout, as a trainer builds its networks from them.
    fn net_layout(config: &Self::Config) -> NetLayout {
        NetLayout {
            game: Self::NAME,
            input_len: Self::input_len(config),
            policy_len: Self::POLICY_LEN,
            value_len: Self::VALUE_LEN,
            board: Self::board_layout(config),
        }
    }
}

/// What a network of an engine reads and writes ([`NetGame::net_layout`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetLayout {
    /// The engine ([`Game::NAME`]).
    pub game: &'static str,
    /// The length of the network input ([`NetGame::input_len`]).
    pub input_len: usize,
    /// The policy head's width ([`NetGame::POLICY_LEN`]).
    pub policy_len: usize,
    /// The value head's width ([`NetGame::VALUE_LEN`]).
    pub value_len: usize,
    /// The board layout, for engines with one ([`NetGame::board_layout`]).
    pub board: Option<BoardLayout>,
}

/// The board part of a network input and of its policy head: what a
/// [`Tower`] of the engine is built from (its fields of the same names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardLayout {
    /// Board rows.
    pub height: usize,
    /// Board columns.
    pub width: usize,
    /// `(start, channels)` of each range of board planes (CHW) in the input.
    pub planes: Vec<(usize, usize)>,
    /// `(start, len)` of each range of global features in the input.
    pub globals: Vec<(usize, usize)>,
    /// Policy entries before the board part.
    pub policy_before: usize,
    /// Policy planes over the board (CHW).
    pub policy_planes: usize,
    /// Policy entries after the board part.
    pub policy_after: usize,
    /// The start of a policy-shaped range of the input (a move suggested
    /// to the network, one-hot over the policy) that every policy head
    /// reads, if the input has one.
    pub plan: Option<usize>,
}

impl BoardLayout {
    /// The policy's length: `policy_before + policy_planes · height · width
    /// + policy_after`.
    pub fn policy_len(&self) -> usize {
        self.policy_before + self.policy_planes * self.height * self.width + self.policy_after
    }
}

/// The network layout of the test game: the policy head is the action id
/// space, the value head its two seats.
impl NetGame for crate::testgame::HiddenNim {
    const POLICY_LEN: usize = 5;
    const VALUE_LEN: usize = 2;

    fn policy_indices(&self, actions: &[crate::testgame::NimAction], out: &mut [u32]) {
        for (o, &a) in out.iter_mut().zip(actions) {
            *o = crate::testgame::HiddenNim::action_id(self.config(), a);
        }
    }
}

/// Whether `net` fits `G` (name, policy and value widths) with the
/// observation length of `config`.
///
/// # Errors
/// [`WeightsError::Mismatch`] saying what differs.
pub fn check_network<G: NetGame>(net: &Network, config: &G::Config) -> Result<(), WeightsError> {
    net.check_fits(G::NAME, G::input_len(config), G::POLICY_LEN, G::VALUE_LEN)
}

/// Reads a weights file for `G` and checks that it fits `G` with the input
/// of `config` ([`check_network`]): what an engine does, once, with the
/// weights it ships.
///
/// # Errors
/// The [`WeightsError`] of a corrupt file or of a network for another
/// game or layout.
pub fn read_network<G: NetGame>(bytes: &[u8], config: &G::Config) -> Result<Arc<Network>, WeightsError> {
    let net = Network::from_bytes(bytes)?;
    check_network::<G>(&net, config)?;
    Ok(Arc::new(net))
}

/// Networks trained at a player count of their own: `(players, network)`.
pub type PlayerNetworks = Vec<(usize, Arc<Network>)>;

/// Reads the networks of `files`, `(players, weights)` each (an engine's
/// networks trained for a player count of their own), checked against
/// `config` as [`read_network`] does.
///
/// # Errors
/// The first file's [`WeightsError`] that does not read or fit.
pub fn read_networks<G: NetGame>(files: &[(usize, &[u8])], config: &G::Config) -> Result<PlayerNetworks, WeightsError> {
    files.iter().map(|&(players, bytes)| Ok((players, read_network::<G>(bytes, config)?))).collect()
}

/// An engine's agent over its committed networks: `make` of `default`, or,
/// where some player counts have a network of their own (`by_players`), a
/// [`ByPlayers`](crate::ByPlayers) of `make` over each of them and over
/// `default` at the other counts.
///
/// # Errors
/// The first of `make`'s errors.
pub fn agent_by_players<G: Game>(
    default: Arc<Network>,
    by_players: PlayerNetworks,
    make: impl Fn(Arc<Network>) -> Result<Box<dyn Agent<G>>, WeightsError>,
) -> Result<Box<dyn Agent<G>>, WeightsError> {
    let other = make(default)?;
    if by_players.is_empty() {
        return Ok(other);
    }
    let agents = by_players.into_iter().map(|(n, net)| Ok((n, make(net)?))).collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(crate::ByPlayers::new(other, agents)))
}

/// The buffers of one forward pass over a game's state.
#[derive(Debug)]
struct Eval {
    obs: Vec<f32>,
    out: Vec<f32>,
    scratch: NetScratch,
    indices: Vec<u32>,
}

impl Eval {
    fn new(net: &Network) -> Self {
        Eval {
            obs: vec![0.0; net.obs_len()],
            out: vec![0.0; net.outputs()],
            scratch: net.scratch(),
            indices: Vec::new(),
        }
    }

    /// The network's outputs for `seat`'s observation of `state`; `false`
    /// when the observation does not fit (another configuration's tensor).
    fn run<G: NetGame>(&mut self, net: &Network, state: &G, seat: usize) -> bool {
        state.write_input(seat, &mut self.obs) && net.forward(&self.obs, &mut self.scratch, &mut self.out).is_ok()
    }
}

/// Softmax of `logits[idx]` at `temperature` over the given indices, into
/// `probs` (cleared first); `temperature` ≤ 0 is treated as a tiny one.
fn softmax_over(logits: &[f32], idx: &[u32], temperature: f32, probs: &mut Vec<f64>) {
    probs.clear();
    let t = if temperature > 1e-6 { f64::from(temperature) } else { 1e-6 };
    let max = idx.iter().map(|&i| f64::from(logits[i as usize])).fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for &i in idx {
        let e = ((f64::from(logits[i as usize]) - max) / t).exp();
        probs.push(e);
        sum += e;
    }
    for p in probs.iter_mut() {
        *p /= sum;
    }
}

/// Plays a [`Network`]'s policy: the legal action with the highest logit
/// (temperature 0, `learned`), or one sampled from the softmax of the
/// logits over the legal actions divided by the temperature (`learned:T`).
/// Ties go to the first legal action in the engine's order, so a greedy
/// game replays exactly.
///
/// ```
/// use std::sync::Arc;
/// use boardgame_kit::nn::{LearnedAgent, NetGame, Network};
/// use boardgame_kit::{Agent, Game, GameRng, Turn, testgame::HiddenNim};
///
/// let config = Default::default();
/// let obs = HiddenNim::observation_tensor_len(&config);
/// let net = Network::new_random("hidden-nim", obs, &[16], HiddenNim::POLICY_LEN, HiddenNim::VALUE_LEN, 1).unwrap();
/// let mut agent = LearnedAgent::<HiddenNim>::new(Arc::new(net), 0.0).unwrap();
/// let mut state = HiddenNim::new_game(&config).unwrap();
/// let mut rng = GameRng::new(3);
/// while let Turn::Chance = state.turn() {
///     let a = state.sample_chance_outcome(&mut rng).unwrap();
///     state.apply(a).unwrap();
/// }
/// let Turn::Player(seat) = state.turn() else { unreachable!() };
/// let action = agent.act(&state, seat, &mut rng);
/// assert!(state.is_legal(action));
/// assert_eq!(agent.name(), "learned");
/// ```
pub struct LearnedAgent<G: NetGame> {
    net: Arc<Network>,
    temperature: f32,
    eval: Eval,
    list: G::ActionList,
    probs: Vec<f64>,
    last: Vec<(G::Action, f64)>,
}

impl<G: NetGame> std::fmt::Debug for LearnedAgent<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LearnedAgent").field("temperature", &self.temperature).finish_non_exhaustive()
    }
}

impl<G: NetGame> LearnedAgent<G> {
    /// An agent playing `net` at `temperature` (0: greedy; negative or
    /// non-finite counts as 0).
    ///
    /// # Errors
    /// [`WeightsError::Mismatch`] when `net` is not for `G` (its name, or
    /// the widths of its heads).
    pub fn new(net: Arc<Network>, temperature: f32) -> Result<Self, WeightsError> {
        net.check_fits(G::NAME, net.obs_len(), G::POLICY_LEN, G::VALUE_LEN)?;
        let temperature = if temperature.is_finite() { temperature.max(0.0) } else { 0.0 };
        let mut eval = Eval::new(&net);
        let list = G::ActionList::default();
        let cap = list.capacity();
        eval.indices = vec![0; cap];
        Ok(LearnedAgent { net, temperature, eval, list, probs: Vec::with_capacity(cap), last: Vec::with_capacity(cap) })
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The temperature (0: greedy).
    pub fn temperature(&self) -> f32 {
        self.temperature
    }

    /// The network's distribution over `state`'s legal actions for `seat`
    /// (the softmax of their logits at temperature 1), written into `out`
    /// (cleared first) as `(action, probability)`; `false` when there is no
    /// legal action or the observation does not fit.
    pub fn distribution(&mut self, state: &G, seat: usize, out: &mut Vec<(G::Action, f64)>) -> bool {
        out.clear();
        if !self.evaluate(state, seat) {
            return false;
        }
        softmax_over(&self.eval.out, &self.eval.indices[..self.list.len()], 1.0, &mut self.probs);
        out.extend(self.list.iter().copied().zip(self.probs.iter().copied()));
        true
    }

    /// Runs the network for `seat` and indexes the legal actions.
    fn evaluate(&mut self, state: &G, seat: usize) -> bool {
        state.legal_actions(&mut self.list);
        let n = self.list.len();
        if n == 0 || n > self.eval.indices.len() || !self.eval.run(&self.net, state, seat) {
            return false;
        }
        state.policy_indices(&self.list, &mut self.eval.indices[..n]);
        let plen = self.net.policy_len() as u32;
        self.eval.indices[..n].iter().all(|&i| i < plen)
    }
}

impl<G: NetGame> Agent<G> for LearnedAgent<G> {
    /// `learned`, or `learned:T` at a temperature `T` > 0.
    fn name(&self) -> String {
        if self.temperature > 0.0 { format!("learned:{}", self.temperature) } else { "learned".to_string() }
    }

    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        self.last.clear();
        if !self.evaluate(state, seat) {
            return crate::search::fallback_action(state, &self.list, rng);
        }
        let n = self.list.len();
        let logits = &self.eval.out;
        let idx = &self.eval.indices[..n];
        let chosen = if self.temperature > 0.0 {
            softmax_over(logits, idx, self.temperature, &mut self.probs);
            let u = rng.unit_f64();
            let mut acc = 0.0;
            let mut pick = n - 1;
            for (k, p) in self.probs.iter().enumerate() {
                acc += p;
                if u < acc {
                    pick = k;
                    break;
                }
            }
            pick
        } else {
            let mut best = 0;
            for k in 1..n {
                if logits[idx[k] as usize] > logits[idx[best] as usize] {
                    best = k;
                }
            }
            best
        };
        // The logits are kept; `policy` makes the softmax when asked.
        let t = f64::from(self.temperature.max(1.0));
        self.last.extend(self.list.iter().zip(idx).map(|(&a, &i)| (a, f64::from(logits[i as usize]) / t)));
        self.list[chosen]
    }

    /// The softmax over the legal actions of the last decision, at the
    /// agent's temperature (at 1 for the greedy agent).
    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        out.clear();
        let max = self.last.iter().map(|&(_, z)| z).fold(f64::NEG_INFINITY, f64::max);
        out.extend(self.last.iter().map(|&(a, z)| (a, (z - max).exp())));
        let sum: f64 = out.iter().map(|&(_, p)| p).sum();
        out.iter_mut().for_each(|(_, p)| *p /= sum);
    }

    fn reset(&mut self) {
        self.last.clear();
    }
}

/// The value head of a [`Network`] as the leaf evaluation of a search
/// ([`IsMctsAgent::leaf_value`]): at a cut, chance is played on by its
/// weights until a seat is to move (or the game ends: its real returns),
/// and that seat's observation gives the predicted shares of every seat.
pub struct NetValue<G: NetGame> {
    net: Arc<Network>,
    eval: Eval,
    values: Vec<f64>,
    _game: std::marker::PhantomData<fn() -> G>,
}

impl<G: NetGame> NetValue<G> {
    /// The value head of `net`.
    ///
    /// # Errors
    /// [`WeightsError::Mismatch`] when `net` is not for `G`, or has no
    /// value head.
    pub fn new(net: Arc<Network>) -> Result<Self, WeightsError> {
        net.check_fits(G::NAME, net.obs_len(), G::POLICY_LEN, G::VALUE_LEN)?;
        if net.value_len() == 0 {
            return Err(WeightsError::Mismatch { game: G::NAME.into(), what: "it has no value head".into() });
        }
        let eval = Eval::new(&net);
        Ok(NetValue { net, eval, values: Vec::new(), _game: std::marker::PhantomData })
    }

    /// The predicted shares of `state` from `seat`'s observation, per
    /// absolute seat, into `out` (entries past the players set to 0);
    /// `false` when the observation does not fit.
    pub fn shares(&mut self, state: &G, seat: usize, out: &mut [f64]) -> bool {
        out.iter_mut().for_each(|v| *v = 0.0);
        if !self.eval.run(&self.net, state, seat) {
            return false;
        }
        let n = state.num_players().min(self.net.value_len());
        let logits = &self.eval.out[self.net.policy_len()..self.net.policy_len() + n];
        self.values.clear();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for &z in logits {
            let e = f64::from(z - max).exp();
            self.values.push(e);
            sum += e;
        }
        for (k, v) in self.values.iter().enumerate() {
            if let Some(o) = out.get_mut((seat + k) % n.max(1)) {
                *o = v / sum;
            }
        }
        true
    }
}

impl<G: NetGame> LeafValue<G> for NetValue<G> {
    fn name(&self) -> String {
        "learned value".to_string()
    }

    fn evaluate(&mut self, state: &mut G, rng: &mut GameRng, out: &mut [f64]) {
        let bound = G::max_game_length(state.config());
        for _ in 0..bound {
            match state.turn() {
                Turn::Chance => match state.sample_chance_outcome(rng) {
                    Some(a) => state.apply_unchecked(a),
                    None => break,
                },
                Turn::Terminal => {
                    state.returns(out);
                    return;
                }
                Turn::Player(seat) => {
                    if !self.shares(state, seat, out) {
                        crate::score_leader_returns(state, out);
                    }
                    return;
                }
            }
        }
        crate::score_leader_returns(state, out);
    }
}

/// The exploration constant of [`learned_ismcts`].
pub const LEARNED_EXPLORATION: f64 = 0.4;
/// The prior weight of [`learned_ismcts`] (progressive bias towards the
/// network's greedy choice).
pub const LEARNED_PRIOR_WEIGHT: f64 = 1.0;

/// `learned-ismcts:N`: [`IsMctsAgent`] with `budget` per decision, the
/// network's greedy policy as its prior ([`IsMctsAgent::prior_agent`],
/// weight [`LEARNED_PRIOR_WEIGHT`]) and its value head at every leaf in
/// place of a rollout ([`NetValue`], rollout depth 0), chance not branching
/// the tree, exploration [`LEARNED_EXPLORATION`].
///
/// # Errors
/// [`WeightsError::Mismatch`] when `net` is not for `G`.
pub fn learned_ismcts<G: NetGame>(net: Arc<Network>, budget: Budget) -> Result<IsMctsAgent<G>, WeightsError> {
    let prior = LearnedAgent::<G>::new(net.clone(), 0.0)?;
    let value = NetValue::<G>::new(net)?;
    Ok(IsMctsAgent::new(budget)
        .prior_agent(Box::new(prior), LEARNED_PRIOR_WEIGHT)
        .rollout_depth(0)
        .leaf_value(Box::new(value))
        .chance_branching(false)
        .exploration(LEARNED_EXPLORATION))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgame::{HiddenNim, NimAction};

    fn nim_net(seed: u64) -> Arc<Network> {
        let len = HiddenNim::observation_tensor_len(&Default::default());
        Arc::new(Network::new_random("hidden-nim", len, &[12], 5, 2, seed).unwrap())
    }

    /// A dealt position where seat 0 is to move.
    fn position() -> HiddenNim {
        let mut s = HiddenNim::new_game(&Default::default()).unwrap();
        s.apply(NimAction::Deal(2)).unwrap();
        s.apply(NimAction::Deal(1)).unwrap();
        s
    }

    #[test]
    fn greedy_plays_the_highest_legal_logit_and_sampling_follows_the_softmax() {
        let net = nim_net(4);
        let state = position();
        let mut greedy = LearnedAgent::<HiddenNim>::new(net.clone(), 0.0).unwrap();
        let mut dist = Vec::new();
        assert!(greedy.distribution(&state, 0, &mut dist));
        assert!((dist.iter().map(|&(_, p)| p).sum::<f64>() - 1.0).abs() < 1e-9);
        let best = dist.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
        let a = greedy.act(&state, 0, &mut GameRng::new(1));
        assert_eq!(a, best);
        let mut policy = Vec::new();
        greedy.policy(&mut policy);
        for (x, y) in policy.iter().zip(&dist) {
            assert_eq!(x.0, y.0);
            assert!((x.1 - y.1).abs() < 1e-9);
        }
        // Sampling at temperature 1: frequencies close to the softmax.
        let mut hot = LearnedAgent::<HiddenNim>::new(net, 1.0).unwrap();
        assert_eq!(hot.name(), "learned:1");
        let mut rng = GameRng::new(9);
        let n = 20_000;
        let mut counts = vec![0usize; dist.len()];
        for _ in 0..n {
            let a = hot.act(&state, 0, &mut rng);
            assert!(state.is_legal(a));
            counts[dist.iter().position(|&(b, _)| b == a).unwrap()] += 1;
        }
        for (k, &(_, p)) in dist.iter().enumerate() {
            let f = counts[k] as f64 / n as f64;
            assert!((f - p).abs() < 0.02, "action {k}: {f} vs {p}");
        }
    }

    #[test]
    fn a_network_for_another_game_or_layout_is_refused() {
        let len = HiddenNim::observation_tensor_len(&Default::default());
        let other = Arc::new(Network::new_random("korovan", len, &[4], 5, 2, 1).unwrap());
        let e = LearnedAgent::<HiddenNim>::new(other, 0.0).unwrap_err();
        assert!(e.to_string().contains("trained for `korovan`"), "{e}");
        let wide = Arc::new(Network::new_random("hidden-nim", len, &[4], 6, 2, 1).unwrap());
        assert!(LearnedAgent::<HiddenNim>::new(wide.clone(), 0.0).is_err());
        assert!(NetValue::<HiddenNim>::new(wide.clone()).is_err());
        assert!(learned_ismcts::<HiddenNim>(wide, Budget::Iterations(5)).is_err());
        // An observation of another length: the agent falls back to a legal move.
        let short = Arc::new(Network::new_random("hidden-nim", len + 1, &[4], 5, 2, 1).unwrap());
        let mut agent = LearnedAgent::<HiddenNim>::new(short, 0.0).unwrap();
        let state = position();
        assert!(state.is_legal(agent.act(&state, 0, &mut GameRng::new(2))));
        assert!(check_network::<HiddenNim>(&agent.network().clone(), &Default::default()).is_err());
        assert!(check_network::<HiddenNim>(&nim_net(1), &Default::default()).is_ok());
    }

    #[test]
    fn the_value_head_gives_shares_per_absolute_seat() {
        let net = nim_net(7);
        let mut value = NetValue::<HiddenNim>::new(net).unwrap();
        let state = position();
        let (mut from0, mut from1) = ([0.0; 2], [0.0; 2]);
        assert!(value.shares(&state, 0, &mut from0));
        assert!(value.shares(&state, 1, &mut from1));
        for v in [from0, from1] {
            assert!((v[0] + v[1] - 1.0).abs() < 1e-9 && v.iter().all(|&x| x > 0.0), "{v:?}");
        }
        // A leaf at a chance node is played on to a decision first.
        let mut fresh = HiddenNim::new_game(&Default::default()).unwrap();
        let mut out = [0.0; 2];
        value.evaluate(&mut fresh, &mut GameRng::new(3), &mut out);
        assert!(fresh.turn() != Turn::Chance && (out[0] + out[1] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn learned_ismcts_searches_with_the_network_and_no_rollouts() {
        let mut agent = learned_ismcts::<HiddenNim>(nim_net(5), Budget::Iterations(64)).unwrap();
        let state = position();
        let a = agent.act(&state, 0, &mut GameRng::new(1));
        assert!(state.is_legal(a));
        assert_eq!(agent.last_search().iterations, 64);
        let again = learned_ismcts::<HiddenNim>(nim_net(5), Budget::Iterations(64)).unwrap().act(
            &state,
            0,
            &mut GameRng::new(1),
        );
        assert_eq!(a, again, "the same seed gives the same move");
    }

    /// A seat that peeks at the other seat's hidden card.
    struct Peeker;
    impl Agent<HiddenNim> for Peeker {
        fn name(&self) -> String {
            "peeker".into()
        }
        fn act(&mut self, state: &HiddenNim, seat: usize, rng: &mut GameRng) -> NimAction {
            let other = state.observation(1 - seat).map(|o| o.own_card).unwrap_or(0);
            let mut list = <HiddenNim as Game>::ActionList::default();
            state.legal_actions(&mut list);
            if other >= 2 { list[0] } else { list[rng.index(list.len())] }
        }
    }

    #[test]
    fn learned_agents_pass_the_agent_conformance_and_a_peeker_fails_it() {
        let net = nim_net(2);
        for t in [0.0, 1.0] {
            let n = net.clone();
            let make =
                move || Box::new(LearnedAgent::<HiddenNim>::new(n.clone(), t).unwrap()) as Box<dyn Agent<HiddenNim>>;
            let r = crate::conformance::check_agent::<HiddenNim>(&Default::default(), &make, 30, 0, true).unwrap();
            assert_eq!(r.games, 30);
            assert!(r.decisions > 30 && r.policies == r.decisions && r.determinized == r.decisions, "{r:?}");
        }
        let n = net.clone();
        let make = move || {
            Box::new(learned_ismcts::<HiddenNim>(n.clone(), Budget::Iterations(20)).unwrap())
                as Box<dyn Agent<HiddenNim>>
        };
        crate::conformance::check_agent::<HiddenNim>(&Default::default(), &make, 10, 0, false).unwrap();
        let make = || Box::new(Peeker) as Box<dyn Agent<HiddenNim>>;
        let err = crate::conformance::check_agent::<HiddenNim>(&Default::default(), &make, 30, 0, true).unwrap_err();
        assert!(err.message.contains("cannot tell apart"), "{err}");
    }
}
