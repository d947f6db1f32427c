//! Single-learner environments (what `korovan_caravan.learner` steps). One
//! seat of each game is the learner's (fixed, or drawn per episode); the
//! other seats are built-in agents by name ([`AgentSpec`]: `random`,
//! `heuristic`, `ismcts:N`, …, one name for every other seat or one per
//! seat) that play in Rust between the learner's decisions, as chance does.
//! No Python code runs per opponent move: [`LearnerBatch::step`] takes one
//! learner action per game and returns when every game waits for its
//! learner again.
//!
//! # Seeds
//!
//! As the kit's [`boardgame_kit::Batch`], by the same [`SlotSeeds`]: slot `i`
//! plays its games from the seeds `s + i`, `s + i + N`, `s + i + 2N`, …,
//! a game that ends before the learner's first decision skipped for the
//! next. A game of seed `g` draws chance from
//! `GameRng::new(g).child(CHANCE_STREAM)` and seat `p`'s agent from the
//! kit's [`SeatStreams`] of `g` (the [`boardgame_kit::Driver`]'s, so an
//! episode is the driver's game with the learner's actions applied); a
//! learner seat drawn per episode comes from `child(SEAT_STREAM)`,
//! uniformly.
//!
//! # Rewards
//!
//! [`RewardMode`] picks the terminal reward: the engine's shares (1 for a
//! sole winner, `1/k` for each of `k` seats sharing a draw, 0 otherwise) or
//! their zero-sum form `(n·share − 1)/(n − 1)` (+1 for a sole win, −1 for a
//! loss in a two-seat game and `−1/(n−1)` with `n` seats, a draw between
//! them; the seats sum to 0). A shaping coefficient `c` adds, at every
//! learner step, `c · (φ(after) − φ(before))` where `φ` is the learner's
//! score minus the mean score of the other seats ([`score_potential`]):
//! potential-based, so over an episode the shaping sums to
//! `c · (φ(end) − φ(start))` and, undiscounted, leaves the best policies
//! unchanged.
//!
//! # Illegal learner actions
//!
//! [`IllegalMode::Noop`]: an action that is not legal for the learner is a
//! no-op for that game (nothing is played, the reward is 0, the flag
//! `illegal` is 1), so every action of the action space is accepted, as
//! Gymnasium's checks expect. [`IllegalMode::Raise`]: the step is refused
//! before any game moves, naming the game.

use boardgame_kit::nn::NetGame;
use boardgame_kit::{
    Agent, AgentSpec, Bots, CHANCE_STREAM, Game, GameRng, SeatStreams, SlotSeeds, Turn, sample_chance,
};

use crate::games::{CompactActions, Engine, GameName, with_game};
use crate::session::{Bindable, GameCore};
use crate::vector::Slots;

/// Why a learner batch could not be built or stepped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LearnerError {
    /// A bad argument, configuration or output (nothing was played).
    #[error("{0}")]
    Invalid(String),
    /// Game `game`'s learner action is illegal ([`IllegalMode::Raise`]): no
    /// game has advanced.
    #[error("{message}")]
    Action {
        /// The index of the game in the batch.
        game: usize,
        /// What was wrong, naming the game.
        message: String,
    },
}

impl From<String> for LearnerError {
    fn from(message: String) -> Self {
        LearnerError::Invalid(message)
    }
}

/// The stream label of the learner's seat draw (when the seat is drawn per
/// episode): `GameRng::new(game_seed).child(SEAT_STREAM)`, one `index(n)`.
pub const SEAT_STREAM: u32 = u32::MAX;

/// The most seats a learner batch supports.
const MAX_SEATS: usize = 16;

/// The terminal reward of the learner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewardMode {
    /// The engine's returns: 1 for a sole winner, `1/k` for each of `k`
    /// seats sharing a draw, 0 otherwise (they sum to 1).
    Shares,
    /// `(n·share − 1)/(n − 1)`: +1 for a sole win, −1/(n−1) for a loss (−1
    /// with two seats), the seats sum to 0.
    ZeroSum,
}

impl RewardMode {
    /// The mode of a name: `shares` or `zero_sum` (also `zero-sum`).
    ///
    /// # Errors
    /// The message for any other name.
    pub fn parse(name: &str) -> Result<Self, LearnerError> {
        match name {
            "shares" => Ok(RewardMode::Shares),
            "zero_sum" | "zero-sum" => Ok(RewardMode::ZeroSum),
            _ => Err(LearnerError::Invalid(format!("unknown reward `{name}` (known: shares, zero_sum)"))),
        }
    }

    /// The name ([`RewardMode::parse`] reads it back).
    pub fn name(self) -> &'static str {
        match self {
            RewardMode::Shares => "shares",
            RewardMode::ZeroSum => "zero_sum",
        }
    }

    /// The reward of a seat whose share is `share` in a game of `players` seats.
    pub fn of_share(self, share: f64, players: usize) -> f64 {
        match self {
            RewardMode::Shares => share,
            RewardMode::ZeroSum if players > 1 => (players as f64 * share - 1.0) / (players as f64 - 1.0),
            RewardMode::ZeroSum => 0.0,
        }
    }
}

/// The shaping potential of `seat`: its score minus the mean score of the
/// other seats (0 in a one-seat game). Summed over the seats it is 0.
pub fn score_potential<G: Game>(state: &G, seat: usize) -> f64 {
    let n = state.num_players();
    if n < 2 {
        return 0.0;
    }
    let own = f64::from(state.score(seat));
    let total: f64 = (0..n).map(|s| f64::from(state.score(s))).sum();
    own - (total - own) / (n as f64 - 1.0)
}

/// What a learner's illegal action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalMode {
    /// The game does not move; reward 0; the `illegal` flag is set.
    Noop,
    /// The step is refused before any game moves.
    Raise,
}

impl IllegalMode {
    /// `noop` or `raise`.
    ///
    /// # Errors
    /// The message for any other name.
    pub fn parse(name: &str) -> Result<Self, LearnerError> {
        match name {
            "noop" => Ok(IllegalMode::Noop),
            "raise" => Ok(IllegalMode::Raise),
            _ => Err(LearnerError::Invalid(format!("unknown illegal-action mode `{name}` (known: noop, raise)"))),
        }
    }
}

/// How the learner's actions are numbered, and their mask.
pub trait LearnerActions<G: Game>: Send + Sync {
    /// The name of the action space (`flat`, `compact`).
    fn name(&self) -> &'static str;
    /// The number of learner actions (one mask row).
    fn num_actions(&self) -> usize;
    /// Writes the mask of `state` (the learner to move) into `row` (of
    /// [`LearnerActions::num_actions`] entries): 1 at every legal learner
    /// action, 0 elsewhere. `scratch` is a scratch list.
    fn write_mask(&self, state: &G, scratch: &mut G::ActionList, row: &mut [u8]);
    /// The engine's action for learner action `a` in `state`, or `None`
    /// when `a` is unknown or illegal there. `legal` is a scratch list.
    fn decode(&self, state: &G, a: u32, legal: &mut G::ActionList) -> Option<G::Action>;
}

/// The engine's flat ids: learner action `a` is the action of id `a`.
pub struct FlatActions {
    num_actions: usize,
}

impl FlatActions {
    /// The flat ids of `config`.
    pub fn new<G: Game>(config: &G::Config) -> Self {
        FlatActions { num_actions: G::num_distinct_actions(config) }
    }
}

impl<G: Game> LearnerActions<G> for FlatActions {
    fn name(&self) -> &'static str {
        "flat"
    }
    fn num_actions(&self) -> usize {
        self.num_actions
    }
    fn write_mask(&self, state: &G, legal: &mut G::ActionList, row: &mut [u8]) {
        row.iter_mut().for_each(|m| *m = 0);
        state.legal_actions(legal);
        for &a in legal.iter() {
            if let Some(m) = row.get_mut(G::action_id(state.config(), a) as usize) {
                *m = 1;
            }
        }
    }
    fn decode(&self, state: &G, a: u32, _legal: &mut G::ActionList) -> Option<G::Action> {
        let action = G::action_from_id(state.config(), a).ok()?;
        state.is_legal(action).then_some(action)
    }
}

/// An engine's compact action space ([`CompactActions`], from the engine
/// registry) as learner actions.
pub struct Compact<G: Game>(Box<dyn CompactActions<G>>);

impl<G: Game> LearnerActions<G> for Compact<G> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn num_actions(&self) -> usize {
        self.0.num_actions()
    }
    fn write_mask(&self, state: &G, scratch: &mut G::ActionList, row: &mut [u8]) {
        self.0.write_mask(state, scratch, row);
    }
    fn decode(&self, state: &G, a: u32, _legal: &mut G::ActionList) -> Option<G::Action> {
        self.0.decode(state, a)
    }
}

/// The caller's output arrays of one call, row-major, one row per game.
pub struct LearnerOut<'a> {
    /// The learner's observation (`N × obs_len`).
    pub obs: &'a mut [f32],
    /// The learner's mask (`N × num_actions`).
    pub mask: &'a mut [u8],
    /// The learner's seat in the current episode (`N`).
    pub seat: &'a mut [u32],
    /// The learner's reward of this step (`N`).
    pub reward: &'a mut [f32],
    /// 1 where the episode ended in this step (the row shows the next one).
    pub done: &'a mut [u8],
    /// 1 where the learner's action was illegal and ignored ([`IllegalMode::Noop`]).
    pub illegal: &'a mut [u8],
    /// The learner's observation at the end of a finished episode (`N ×
    /// obs_len`; written on done rows only; may be empty: not wanted).
    pub final_obs: &'a mut [f32],
    /// The learner's share (1, `1/k`, 0) of a finished episode, whatever
    /// the reward mode (`N`; 0 on other rows).
    pub share: &'a mut [f32],
}

/// Owned outputs of a learner batch, for Rust callers ([`LearnerBuffers::view`]
/// lends them as a [`LearnerOut`]); `final_obs` is carried.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LearnerBuffers {
    /// See [`LearnerOut::obs`].
    pub obs: Vec<f32>,
    /// See [`LearnerOut::mask`].
    pub mask: Vec<u8>,
    /// See [`LearnerOut::seat`].
    pub seat: Vec<u32>,
    /// See [`LearnerOut::reward`].
    pub reward: Vec<f32>,
    /// See [`LearnerOut::done`].
    pub done: Vec<u8>,
    /// See [`LearnerOut::illegal`].
    pub illegal: Vec<u8>,
    /// See [`LearnerOut::final_obs`].
    pub final_obs: Vec<f32>,
    /// See [`LearnerOut::share`].
    pub share: Vec<f32>,
}

impl LearnerBuffers {
    /// Buffers sized for `batch`.
    pub fn new(batch: &dyn LearnerCore) -> Self {
        let n = batch.num_envs();
        let obs = n * batch.observation_shape().iter().product::<usize>();
        LearnerBuffers {
            obs: vec![0.0; obs],
            mask: vec![0; n * batch.num_actions()],
            seat: vec![0; n],
            reward: vec![0.0; n],
            done: vec![0; n],
            illegal: vec![0; n],
            final_obs: vec![0.0; obs],
            share: vec![0.0; n],
        }
    }

    /// The buffers as a [`LearnerOut`].
    pub fn view(&mut self) -> LearnerOut<'_> {
        LearnerOut {
            obs: &mut self.obs,
            mask: &mut self.mask,
            seat: &mut self.seat,
            reward: &mut self.reward,
            done: &mut self.done,
            illegal: &mut self.illegal,
            final_obs: &mut self.final_obs,
            share: &mut self.share,
        }
    }
}

/// One game of the batch, its streams and its opponents.
struct Slot<G: Game> {
    state: G,
    chance: GameRng,
    rngs: SeatStreams,
    /// The agents of the non-learner seats, in the order of the specs.
    agents: Vec<Box<dyn Agent<G>>>,
    /// `agent_of[seat]`: the index in `agents` of the seat's agent.
    agent_of: [u8; MAX_SEATS],
    learner: usize,
    seed: u64,
    episode: u64,
    potential: f64,
}

/// `N` single-learner games of engine `G`; see the [module documentation](self).
pub struct LearnerBatch<G: Bots> {
    config: G::Config,
    initial: G,
    slots: Vec<Slot<G>>,
    specs: Vec<AgentSpec>,
    fixed_seat: Option<usize>,
    reward: RewardMode,
    shaping: f64,
    illegal: IllegalMode,
    actions: Box<dyn LearnerActions<G>>,
    seed: u64,
    players: usize,
    inputs: Inputs<G>,
    obs_len: usize,
    pending: Vec<Option<G::Action>>,
}

/// What the learner's rows hold: the observation tensor, the network's
/// input ([`NetGame::write_input`]: the tensor and the engine's features),
/// or every seat's observation tensor (a privileged critic's input).
pub struct Inputs<G: Game> {
    /// `"observation"`, `"network"` or `"all-seats"`.
    pub name: &'static str,
    /// The shape of one row (the observation tensor's, the network input's
    /// length, or the players times the tensor's length).
    pub shape: Vec<usize>,
    /// Writes the row of a seat; `false` when it cannot.
    pub write: fn(&G, usize, &mut [f32]) -> bool,
}

impl<G: NetGame> Inputs<G> {
    /// The inputs named `name` (`"observation"`, `"network"`, `"all-seats"`)
    /// for `config` and its number of `players`.
    ///
    /// `"all-seats"` is the whole table's view, for training only: the
    /// observation tensor of every seat, flattened, the row's own seat first
    /// and then the others in seat order around the table (`seat + 1`,
    /// `seat + 2`, … mod `players`). Every seat's private part is in it, so
    /// it is what a critic that sees the hidden state reads while the
    /// policy reads the first block, the seat's own tensor; an agent that
    /// plays never sees it.
    ///
    /// # Errors
    /// A message for an unknown name.
    pub fn named(name: &str, config: &G::Config, players: usize) -> Result<Self, String> {
        match name {
            "observation" => Ok(Inputs {
                name: "observation",
                shape: G::observation_tensor_shape(config),
                write: |g, seat, out| g.write_observation_tensor(seat, out).is_ok(),
            }),
            "network" => Ok(Inputs {
                name: "network",
                shape: vec![G::input_len(config)],
                write: |g, seat, out| g.write_input(seat, out),
            }),
            "all-seats" => Ok(Inputs {
                name: "all-seats",
                shape: vec![players * G::observation_tensor_shape(config).iter().product::<usize>()],
                write: |g, seat, out| {
                    let n = g.num_players();
                    let width = out.len() / n.max(1);
                    (0..n).all(|k| {
                        g.write_observation_tensor((seat + k) % n, &mut out[k * width..(k + 1) * width]).is_ok()
                    })
                },
            }),
            _ => Err(format!("unknown inputs `{name}` (known: observation, network, all-seats)")),
        }
    }
}

/// Everything a [`LearnerBatch`] is built from.
pub struct LearnerSpec {
    /// The number of games.
    pub num_envs: usize,
    /// The batch seed.
    pub seed: u64,
    /// One agent name for every other seat, or one per other seat.
    pub opponents: Vec<String>,
    /// The learner's seat, or `None` to draw it per episode.
    pub seat: Option<usize>,
    /// The terminal reward.
    pub reward: RewardMode,
    /// The shaping coefficient (0: none).
    pub shaping: f64,
    /// What an illegal learner action does.
    pub illegal: IllegalMode,
}

impl<G: Bindable + Bots> LearnerBatch<G> {
    /// A batch of `config` from `spec`, with the learner actions `actions`.
    ///
    /// # Errors
    /// A message for zero games, a seat out of range, a wrong number of
    /// opponents, an unknown agent name or one the engine lacks, a shaping
    /// coefficient that is not finite.
    pub fn new(
        game: GameCore<G>,
        spec: LearnerSpec,
        actions: Box<dyn LearnerActions<G>>,
        inputs: Inputs<G>,
    ) -> Result<Self, LearnerError> {
        Self::build(game, spec, actions, inputs).map_err(LearnerError::Invalid)
    }

    fn build(
        game: GameCore<G>,
        spec: LearnerSpec,
        actions: Box<dyn LearnerActions<G>>,
        inputs: Inputs<G>,
    ) -> Result<Self, String> {
        let players = game.initial.num_players();
        if spec.num_envs == 0 {
            return Err("num_envs must be at least 1".to_string());
        }
        if !(2..=MAX_SEATS).contains(&players) {
            return Err(format!("a single-learner environment needs 2 to {MAX_SEATS} seats, the game has {players}"));
        }
        if let Some(s) = spec.seat
            && s >= players
        {
            return Err(format!("seat {s} is out of range: the game has seats 0..{players}"));
        }
        if !spec.shaping.is_finite() {
            return Err(format!("shaping must be a finite number, not {}", spec.shaping));
        }
        let others = players - 1;
        let names: Vec<String> = match spec.opponents.len() {
            1 => vec![spec.opponents[0].clone(); others],
            n if n == others => spec.opponents.clone(),
            n => {
                return Err(format!(
                    "opponents: give one agent name for every other seat or {others} names (one per other seat), not {n}"
                ));
            }
        };
        let mut specs = Vec::with_capacity(others);
        for name in &names {
            let s: AgentSpec = name.parse().map_err(|e| format!("opponents: {e}"))?;
            s.build::<G>().map_err(|e| format!("opponents: {e}"))?;
            specs.push(s);
        }
        // Sizes are checked before anything is allocated, as for `VectorEnv`:
        // never a capacity overflow or an abort.
        let need = crate::vector::env_bytes::<G>(&game.config, spec.num_envs).ok_or_else(|| {
            format!("num_envs={} is too large: its games need more bytes than an address space holds", spec.num_envs)
        })?;
        if let Some(available) = crate::vector::available_memory()
            && need > available
        {
            return Err(format!(
                "num_envs={}: its games need about {need} bytes, more than the {available} bytes of memory available",
                spec.num_envs
            ));
        }
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(spec.num_envs)
            .map_err(|_| format!("num_envs={}: no memory for its games", spec.num_envs))?;
        for _ in 0..spec.num_envs {
            let agents: Vec<Box<dyn Agent<G>>> =
                specs.iter().map(|s| s.build::<G>().map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
            slots.push(Slot {
                state: game.initial.clone(),
                chance: GameRng::new(0),
                rngs: SeatStreams::new(0),
                agents,
                agent_of: [0; MAX_SEATS],
                learner: 0,
                seed: 0,
                episode: 0,
                potential: 0.0,
            });
        }
        let obs_len = inputs.shape.iter().product();
        let mut batch = LearnerBatch {
            config: game.config,
            initial: game.initial,
            slots,
            specs,
            fixed_seat: spec.seat,
            reward: spec.reward,
            shaping: spec.shaping,
            illegal: spec.illegal,
            actions,
            seed: spec.seed,
            players,
            inputs,
            obs_len,
            pending: Vec::with_capacity(spec.num_envs),
        };
        batch.reset(spec.seed);
        Ok(batch)
    }

    /// Restarts every game: slot `i` from seed `seed + i`.
    pub fn reset(&mut self, seed: u64) {
        self.seed = seed;
        let ctx = Ctx {
            initial: &self.initial,
            seeds: SlotSeeds::new(seed, self.slots.len()),
            fixed_seat: self.fixed_seat,
            players: self.players,
            bound: G::max_game_length(&self.config),
        };
        for (i, slot) in self.slots.iter_mut().enumerate() {
            slot.episode = 0;
            ctx.start(slot, i);
        }
    }

    fn check(&self, out: &LearnerOut<'_>) -> Result<(), String> {
        let n = self.slots.len();
        let need = |name: &str, found: usize, expected: usize| {
            if found == expected {
                Ok(())
            } else {
                Err(format!("output `{name}` has {found} entries, expected {expected}"))
            }
        };
        need("obs", out.obs.len(), n * self.obs_len)?;
        need("mask", out.mask.len(), n * self.actions.num_actions())?;
        need("seat", out.seat.len(), n)?;
        need("reward", out.reward.len(), n)?;
        need("done", out.done.len(), n)?;
        need("illegal", out.illegal.len(), n)?;
        need("share", out.share.len(), n)?;
        if !out.final_obs.is_empty() {
            need("final_obs", out.final_obs.len(), n * self.obs_len)?;
        }
        Ok(())
    }

    /// Writes every game's current learner decision (rewards and flags 0).
    ///
    /// # Errors
    /// When an output has the wrong length.
    pub fn observe(&mut self, mut out: LearnerOut<'_>) -> Result<(), LearnerError> {
        self.check(&out)?;
        let mut list = G::ActionList::default();
        for k in 0..self.slots.len() {
            self.write_row(k, &mut out, &mut list);
            out.reward[k] = 0.0;
            out.done[k] = 0;
            out.illegal[k] = 0;
            out.share[k] = 0.0;
        }
        Ok(())
    }

    /// Writes row `k`'s observation, mask and seat.
    fn write_row(&self, k: usize, out: &mut LearnerOut<'_>, list: &mut G::ActionList) {
        let slot = &self.slots[k];
        let w = self.obs_len;
        let a = self.actions.num_actions();
        out.seat[k] = slot.learner as u32;
        let obs = &mut out.obs[k * w..(k + 1) * w];
        let learner_to_move = slot.state.turn() == Turn::Player(slot.learner);
        if !learner_to_move || !(self.inputs.write)(&slot.state, slot.learner, obs) {
            obs.iter_mut().for_each(|x| *x = 0.0);
        }
        let mask = &mut out.mask[k * a..(k + 1) * a];
        if learner_to_move {
            self.actions.write_mask(&slot.state, list, mask);
        } else {
            mask.iter_mut().for_each(|m| *m = 0);
        }
    }

    /// Plays `actions[k]` (a learner action) in game `k` for every game,
    /// then the opponents and chance until the learner decides again;
    /// restarts finished games and writes the next decisions into `out`.
    ///
    /// # Errors
    /// When an output or `actions` has the wrong length; with
    /// [`IllegalMode::Raise`], `(game, message)` for the first game whose
    /// action is illegal — then no game has advanced.
    pub fn step(&mut self, actions: &[u32], mut out: LearnerOut<'_>) -> Result<(), LearnerError> {
        self.check(&out)?;
        let n = self.slots.len();
        if actions.len() != n {
            return Err(LearnerError::Invalid(format!("{} actions were given for {n} games", actions.len())));
        }
        self.pending.clear();
        let mut list = G::ActionList::default();
        for (k, (slot, &a)) in self.slots.iter().zip(actions).enumerate() {
            let decoded = if slot.state.turn() == Turn::Player(slot.learner) {
                self.actions.decode(&slot.state, a, &mut list)
            } else {
                None
            };
            if decoded.is_none() && self.illegal == IllegalMode::Raise {
                self.pending.clear();
                let name = self.actions.name();
                let message =
                    format!("game {k}: learner action {a} is not legal for seat {} ({name} actions)", slot.learner);
                return Err(LearnerError::Action { game: k, message });
            }
            self.pending.push(decoded);
        }
        let ctx = Ctx {
            initial: &self.initial,
            seeds: SlotSeeds::new(self.seed, n),
            fixed_seat: self.fixed_seat,
            players: self.players,
            bound: G::max_game_length(&self.config),
        };
        let mut returns = [0f64; MAX_SEATS];
        let w = self.obs_len;
        for k in 0..n {
            out.reward[k] = 0.0;
            out.done[k] = 0;
            out.share[k] = 0.0;
            let Some(action) = self.pending[k] else {
                out.illegal[k] = 1;
                continue;
            };
            out.illegal[k] = 0;
            let slot = &mut self.slots[k];
            let seat = slot.learner;
            slot.state.apply_unchecked(action);
            ctx.advance(slot);
            let mut reward = 0.0;
            if self.shaping != 0.0 {
                let now = score_potential(&slot.state, seat);
                reward += self.shaping * (now - slot.potential);
            }
            if slot.state.turn() == Turn::Terminal {
                let seats = &mut returns[..self.players];
                slot.state.returns(seats);
                reward += self.reward.of_share(seats[seat], self.players);
                out.share[k] = seats[seat] as f32;
                out.done[k] = 1;
                if !out.final_obs.is_empty() {
                    let row = &mut out.final_obs[k * w..(k + 1) * w];
                    if !(self.inputs.write)(&slot.state, seat, row) {
                        row.iter_mut().for_each(|x| *x = 0.0);
                    }
                }
                slot.episode = slot.episode.wrapping_add(1);
                ctx.start(slot, k);
            } else if self.shaping != 0.0 {
                slot.potential = score_potential(&slot.state, seat);
            }
            out.reward[k] = reward as f32;
        }
        let mut list = G::ActionList::default();
        for k in 0..n {
            self.write_row(k, &mut out, &mut list);
        }
        self.pending.clear();
        Ok(())
    }

    /// The number of games.
    pub fn num_envs(&self) -> usize {
        self.slots.len()
    }
}

/// What starting and advancing a slot need (shared, read-only).
struct Ctx<'a, G: Game> {
    initial: &'a G,
    seeds: SlotSeeds,
    fixed_seat: Option<usize>,
    players: usize,
    bound: usize,
}

impl<G: Game> Ctx<'_, G> {
    /// Starts slot `game`'s next game (its `slot.episode`-th), draws the
    /// learner's seat if it is not fixed, and advances to the learner's
    /// first decision; a game that ends before it is skipped for the next
    /// seed ([`SlotSeeds::start`]).
    fn start(&self, slot: &mut Slot<G>, game: usize) {
        let mut episode = slot.episode;
        self.seeds.start(game, &mut episode, |seed| {
            let root = GameRng::new(seed);
            slot.seed = seed;
            slot.state = self.initial.clone();
            slot.chance = root.child(CHANCE_STREAM);
            slot.rngs = SeatStreams::from_root(root.clone());
            slot.learner = match self.fixed_seat {
                Some(s) => s,
                None => root.child(SEAT_STREAM).index(self.players),
            };
            let mut k = 0u8;
            for p in 0..self.players {
                if p != slot.learner {
                    slot.agent_of[p] = k;
                    k += 1;
                }
            }
            for agent in &mut slot.agents {
                agent.reset();
            }
            self.advance(slot);
            let decides = slot.state.turn() == Turn::Player(slot.learner);
            if decides {
                slot.potential = score_potential(&slot.state, slot.learner);
            }
            decides
        });
        slot.episode = episode;
    }

    /// Plays chance and the opponents until the learner's decision or the
    /// end (bounded by the engine's declared game length).
    fn advance(&self, slot: &mut Slot<G>) {
        let mut chances = G::ChanceList::default();
        for _ in 0..=self.bound {
            match slot.state.turn() {
                Turn::Terminal => return,
                Turn::Player(p) if p == slot.learner => return,
                Turn::Chance => match sample_chance(&slot.state, &mut slot.chance, &mut chances) {
                    Some(a) => slot.state.apply_unchecked(a),
                    None => return,
                },
                Turn::Player(p) => {
                    let agent = &mut slot.agents[slot.agent_of[p] as usize];
                    let a = agent.act(&slot.state, p, slot.rngs.seat(p));
                    slot.state.apply_unchecked(a);
                }
            }
        }
    }
}

/// A learner batch of any engine behind one object-safe trait (what
/// `korovan_caravan.learner` steps); its [`Slots::num_actions`] counts the
/// learner's actions.
pub trait LearnerCore: Slots {
    /// What the rows hold: `"observation"`, `"network"` or `"all-seats"`.
    fn inputs(&self) -> &'static str;
    /// The name of the learner's action space.
    fn actions(&self) -> &'static str;
    /// The opponents' names, in the order of the other seats.
    fn opponents(&self) -> Vec<String>;
    /// The fixed learner seat (`None`: drawn per episode).
    fn seat(&self) -> Option<usize>;
    /// The reward mode's name.
    fn reward(&self) -> &'static str;
    /// The shaping coefficient.
    fn shaping(&self) -> f64;
    /// Writes the current decisions.
    ///
    /// # Errors
    /// When an output has the wrong length.
    fn observe(&mut self, out: LearnerOut<'_>) -> Result<(), LearnerError>;
    /// Steps every game.
    ///
    /// # Errors
    /// As [`LearnerBatch::step`].
    fn step(&mut self, actions: &[u32], out: LearnerOut<'_>) -> Result<(), LearnerError>;
}

impl<G: Bindable + Bots> Slots for LearnerBatch<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn config_json(&self) -> String {
        serde_json::to_string(&self.config).unwrap_or_default()
    }
    fn num_envs(&self) -> usize {
        self.slots.len()
    }
    fn num_players(&self) -> usize {
        self.players
    }
    fn observation_shape(&self) -> Vec<usize> {
        self.inputs.shape.clone()
    }
    fn num_actions(&self) -> usize {
        self.actions.num_actions()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn current_seed(&self, game: usize) -> Option<u64> {
        self.slots.get(game).map(|s| s.seed)
    }
    fn finished(&self, game: usize) -> Option<u64> {
        self.slots.get(game).map(|s| s.episode)
    }
    fn reset(&mut self, seed: u64) {
        LearnerBatch::reset(self, seed);
    }
}

impl<G: Bindable + Bots> LearnerCore for LearnerBatch<G> {
    fn inputs(&self) -> &'static str {
        self.inputs.name
    }
    fn actions(&self) -> &'static str {
        self.actions.name()
    }
    fn opponents(&self) -> Vec<String> {
        self.specs.iter().map(ToString::to_string).collect()
    }
    fn seat(&self) -> Option<usize> {
        self.fixed_seat
    }
    fn reward(&self) -> &'static str {
        self.reward.name()
    }
    fn shaping(&self) -> f64 {
        self.shaping
    }
    fn observe(&mut self, out: LearnerOut<'_>) -> Result<(), LearnerError> {
        LearnerBatch::observe(self, out)
    }
    fn step(&mut self, actions: &[u32], out: LearnerOut<'_>) -> Result<(), LearnerError> {
        LearnerBatch::step(self, actions, out)
    }
}

/// A learner batch of the engine `name`, with the action space `actions`
/// (`flat`: the engine's ids; `compact`: the engine's compact actions
/// ([`Engine::compact_actions`]), where it has them (Caravan); `auto`:
/// compact where the engine has them, else flat).
///
/// # Errors
/// The message for an unknown engine or action space, or whatever
/// [`LearnerBatch::new`] refuses.
pub fn new_learner(
    name: &str,
    players: Option<serde_json::Value>,
    overlay: &str,
    actions: &str,
    inputs: &str,
    spec: LearnerSpec,
) -> Result<Box<dyn LearnerCore>, LearnerError> {
    fn build<G: Bindable + Engine + NetGame>(
        players: Option<serde_json::Value>,
        overlay: &str,
        (actions, inputs): (&str, &str),
        spec: LearnerSpec,
    ) -> Result<Box<dyn LearnerCore>, String> {
        let game = GameCore::<G>::from_overlay(players, overlay)?;
        let inputs = Inputs::<G>::named(inputs, &game.config, game.initial.num_players())?;
        let codec: Box<dyn LearnerActions<G>> = match (actions, G::compact_actions(&game.config)) {
            ("flat", _) | ("auto", None) => Box::new(FlatActions::new::<G>(&game.config)),
            ("compact" | "auto", Some(compact)) => Box::new(Compact(compact)),
            ("compact", None) => return Err(format!("{} has no compact action space (use actions=\"flat\")", G::NAME)),
            _ => return Err(format!("unknown action space `{actions}` (known: auto, flat, compact)")),
        };
        Ok(Box::new(LearnerBatch::build(game, spec, codec, inputs)?))
    }
    let Some(game) = GameName::from_engine(name) else {
        let names: Vec<&str> = GameName::ALL.iter().map(|g| g.engine_name()).collect();
        return Err(LearnerError::Invalid(format!("unknown game `{name}` (games: {})", names.join(", "))));
    };
    with_game!(game, G => build::<G>(players, overlay, (actions, inputs), spec)).map_err(LearnerError::Invalid)
}
