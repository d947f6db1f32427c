//! Training samples: what a seat saw at a decision (its observation tensor,
//! stored sparsely), the policy indices of its legal actions, the target
//! (a teacher's policy, or the action taken with its advantage) and the
//! game's final shares relative to the seat — and the games that make them.

use std::sync::Arc;

use boardgame_kit::nn::{LearnedAgent, NetGame, Network};
use boardgame_kit::{ActionBuffer, Agent, AgentSpec, Bots, Game, GameRng, Turn, sample_chance};

/// What a sample teaches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target<'a> {
    /// A distribution over the legal actions (in the order of
    /// [`SampleRef::legal`]), summing to 1: distillation.
    Policy(&'a [f32]),
    /// The action taken (its position among the legal actions), its
    /// probability under the policy that took it, and its advantage:
    /// policy gradient.
    Action {
        /// Position among the legal actions.
        taken: u16,
        /// Its probability when it was taken.
        old_prob: f32,
        /// Its advantage.
        advantage: f32,
    },
}

/// One sample, borrowed from a [`Dataset`].
#[derive(Clone, Copy, Debug)]
pub struct SampleRef<'a> {
    /// The non-zero entries of the observation tensor: their indices…
    pub obs_idx: &'a [u32],
    /// …and values.
    pub obs_val: &'a [f32],
    /// The policy index of every legal action.
    pub legal: &'a [u32],
    /// The target.
    pub kind: Target<'a>,
    /// The final shares of the seats relative to the observer (entry `k`:
    /// seat `observer + k`), one per player.
    pub value: &'a [f32],
}

/// Samples, stored flat: a few hundred bytes each however large the
/// observation tensor, since it is stored sparsely.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    obs_idx: Vec<u32>,
    obs_val: Vec<f32>,
    obs_at: Vec<usize>,
    legal: Vec<u32>,
    target: Vec<f32>,
    legal_at: Vec<usize>,
    action: Vec<(u16, f32, f32)>,
    value: Vec<f32>,
    value_at: Vec<usize>,
}

impl Dataset {
    /// An empty dataset.
    pub fn new() -> Self {
        Dataset { obs_at: vec![0], legal_at: vec![0], value_at: vec![0], ..Default::default() }
    }

    /// The number of samples.
    pub fn len(&self) -> usize {
        self.obs_at.len() - 1
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every sample.
    pub fn clear(&mut self) {
        *self = Dataset::new();
    }

    /// Adds a sample: the dense observation (its zeros are dropped), the
    /// legal actions' policy indices, the policy target over them (or the
    /// taken action: position, probability, advantage), and the shares
    /// relative to the observer (filled in later by [`Dataset::set_value`]
    /// when the game is not over yet).
    pub fn push(&mut self, obs: &[f32], legal: &[u32], target: Option<&[f32]>, action: (u16, f32, f32), value: &[f32]) {
        for (i, &x) in obs.iter().enumerate() {
            if x != 0.0 {
                self.obs_idx.push(i as u32);
                self.obs_val.push(x);
            }
        }
        self.obs_at.push(self.obs_idx.len());
        self.legal.extend_from_slice(legal);
        match target {
            Some(t) => self.target.extend_from_slice(t),
            None => self.target.extend(std::iter::repeat_n(f32::NAN, legal.len())),
        }
        self.legal_at.push(self.legal.len());
        self.action.push(action);
        self.value.extend_from_slice(value);
        self.value_at.push(self.value.len());
    }

    /// Sets sample `i`'s value target (its length must be the one pushed).
    pub fn set_value(&mut self, i: usize, value: &[f32]) {
        let r = self.value_at[i]..self.value_at[i + 1];
        self.value[r].copy_from_slice(value);
    }

    /// Sets sample `i`'s advantage (a policy-gradient sample).
    pub fn set_advantage(&mut self, i: usize, advantage: f32) {
        self.action[i].2 = advantage;
    }

    /// Sample `i`'s advantage.
    pub fn advantage(&self, i: usize) -> f32 {
        self.action[i].2
    }

    /// Sample `i`'s own final share (entry 0 of its value target).
    pub fn own_share(&self, i: usize) -> f32 {
        self.value.get(self.value_at[i]).copied().unwrap_or(0.0)
    }

    /// Sample `i`.
    pub fn get(&self, i: usize) -> SampleRef<'_> {
        let o = self.obs_at[i]..self.obs_at[i + 1];
        let l = self.legal_at[i]..self.legal_at[i + 1];
        let target = &self.target[l.clone()];
        let kind = if target.first().is_some_and(|t| t.is_nan()) {
            let (taken, old_prob, advantage) = self.action[i];
            Target::Action { taken, old_prob, advantage }
        } else {
            Target::Policy(target)
        };
        SampleRef {
            obs_idx: &self.obs_idx[o.clone()],
            obs_val: &self.obs_val[o],
            legal: &self.legal[l],
            kind,
            value: &self.value[self.value_at[i]..self.value_at[i + 1]],
        }
    }

    /// Appends every sample of `other`.
    pub fn extend(&mut self, other: &Dataset) {
        for i in 0..other.len() {
            let s = other.get(i);
            let (o, l) = (self.obs_idx.len(), self.legal.len());
            self.obs_idx.extend_from_slice(s.obs_idx);
            self.obs_val.extend_from_slice(s.obs_val);
            self.obs_at.push(o + s.obs_idx.len());
            self.legal.extend_from_slice(s.legal);
            let r = other.legal_at[i]..other.legal_at[i + 1];
            self.target.extend_from_slice(&other.target[r]);
            self.legal_at.push(l + s.legal.len());
            self.action.push(other.action[i]);
            self.value.extend_from_slice(s.value);
            self.value_at.push(self.value.len());
        }
    }
}

/// The shares of `state`'s seats relative to `seat` (entry `k`: seat
/// `seat + k`), into `out` (one per player).
pub fn relative_shares<G: Game>(state: &G, seat: usize, returns: &mut Vec<f64>, out: &mut Vec<f32>) {
    let n = state.num_players();
    returns.clear();
    returns.resize(n, 0.0);
    state.returns(returns);
    out.clear();
    out.extend((0..n).map(|k| returns[(seat + k) % n] as f32));
}

/// Who plays a seat in a generated game.
pub enum Seat<G: NetGame> {
    /// A fixed agent; its decisions are recorded as distillation samples
    /// (its policy, or its action as the whole policy) when `record`.
    Agent {
        /// The agent.
        agent: Box<dyn Agent<G>>,
        /// Whether its decisions become samples.
        record: bool,
    },
    /// The learner: the network's policy sampled at temperature 1; its
    /// decisions become policy-gradient samples.
    Learner(LearnedAgent<G>),
    /// The learner plays and a teacher labels (imitation on the learner's
    /// own states, DAgger): at each decision the teacher is asked too, on
    /// the same state and with its own random stream, and its policy (or
    /// its move as the whole policy) becomes the sample's target, while the
    /// learner's move is the one played.
    Labelled {
        /// Who plays: the network at its temperature.
        player: LearnedAgent<G>,
        /// Who labels.
        teacher: Box<dyn Agent<G>>,
    },
}

/// The teacher's target over `list` into `target`: its policy, or its move
/// `chosen` as the whole policy when it has none.
fn teacher_target<G: Game>(
    teacher: &dyn Agent<G>,
    list: &G::ActionList,
    chosen: G::Action,
    policy: &mut Vec<(G::Action, f64)>,
    target: &mut Vec<f32>,
) {
    teacher.policy(policy);
    target.clear();
    target.resize(list.len(), 0.0f32);
    if policy.is_empty() {
        if let Some(j) = list.iter().position(|&b| b == chosen) {
            target[j] = 1.0;
        }
    } else {
        for &(a, p) in policy.iter() {
            if let Some(j) = list.iter().position(|&b| b == a) {
                target[j] += p as f32;
            }
        }
    }
}

/// Plays one game from `seed` (chance from stream 0 of the seed, seat `s`
/// from stream `1 + s`, a [`Seat::Labelled`] seat's teacher from stream
/// `1 + n + s` of `n` players) and appends the recorded decisions to `data`;
/// returns the final state.
///
/// # Errors
/// A message when the configuration is refused or the game does not end
/// within its length bound.
pub fn play_recorded<G: NetGame>(
    config: &G::Config,
    seats: &mut [Seat<G>],
    seed: u64,
    data: &mut Dataset,
) -> Result<G, String> {
    let mut state = G::new_game(config).map_err(|e| e.to_string())?;
    let n = state.num_players();
    if seats.len() != n {
        return Err(format!("{} seats for a game of {n}", seats.len()));
    }
    let root = GameRng::new(seed);
    let mut chance_rng = root.child(0);
    let mut rngs: Vec<GameRng> = (0..n).map(|s| root.child(1 + s as u32)).collect();
    let mut teacher_rngs: Vec<GameRng> = (0..n).map(|s| root.child((1 + n + s) as u32)).collect();
    let mut chances = G::ChanceList::default();
    let mut list = G::ActionList::default();
    let mut obs = vec![0.0f32; G::input_len(config)];
    let mut idx = vec![0u32; list.capacity()];
    let mut policy = Vec::new();
    let mut target = Vec::new();
    let first = data.len();
    let mut seat_of = Vec::new();
    let blank = vec![0.0f32; n];
    for s in seats.iter_mut() {
        match s {
            Seat::Agent { agent, .. } => agent.reset(),
            Seat::Learner(l) => l.reset(),
            Seat::Labelled { player, teacher } => {
                player.reset();
                teacher.reset();
            }
        }
    }
    for _ in 0..G::max_game_length(config) {
        let seat = match state.turn() {
            Turn::Terminal => break,
            Turn::Chance => {
                let a = sample_chance(&state, &mut chance_rng, &mut chances).ok_or("a chance node without outcomes")?;
                state.apply_unchecked(a);
                continue;
            }
            Turn::Player(s) => s,
        };
        state.legal_actions(&mut list);
        let k = list.len();
        let rng = &mut rngs[seat];
        let mut taught = None;
        let (action, record) = match &mut seats[seat] {
            Seat::Agent { agent, record } => (agent.act(&state, seat, rng), *record),
            Seat::Learner(l) => (l.act(&state, seat, rng), true),
            Seat::Labelled { player, teacher } => {
                let a = player.act(&state, seat, rng);
                taught = Some(teacher.act(&state, seat, &mut teacher_rngs[seat]));
                (a, true)
            }
        };
        if !state.is_legal(action) {
            return Err(format!("seat {seat} chose an illegal action"));
        }
        if taught.is_some_and(|t| !state.is_legal(t)) {
            return Err(format!("the teacher of seat {seat} chose an illegal action"));
        }
        if record && k > 1 {
            if !state.write_input(seat, &mut obs) {
                return Err(format!("the network input of seat {seat} cannot be written"));
            }
            state.policy_indices(&list, &mut idx[..k]);
            let pos = list.iter().position(|&a| a == action).unwrap_or(0);
            match &seats[seat] {
                Seat::Agent { agent, .. } => {
                    teacher_target(agent.as_ref(), &list, action, &mut policy, &mut target);
                    data.push(&obs, &idx[..k], Some(&target), (0, 0.0, 0.0), &blank);
                }
                Seat::Labelled { teacher, .. } => {
                    teacher_target(teacher.as_ref(), &list, taught.unwrap_or(action), &mut policy, &mut target);
                    data.push(&obs, &idx[..k], Some(&target), (0, 0.0, 0.0), &blank);
                }
                Seat::Learner(l) => {
                    l.policy(&mut policy);
                    let p = policy.get(pos).map_or(1.0, |&(_, p)| p as f32);
                    data.push(&obs, &idx[..k], None, (pos as u16, p, 0.0), &blank);
                }
            }
            seat_of.push(seat);
        }
        state.apply_unchecked(action);
    }
    if !state.is_terminal() {
        return Err("the game did not end within its length bound".into());
    }
    let (mut returns, mut rel) = (Vec::new(), Vec::new());
    for (j, &seat) in seat_of.iter().enumerate() {
        relative_shares(&state, seat, &mut returns, &mut rel);
        data.set_value(first + j, &rel);
    }
    Ok(state)
}

/// An agent by name for generated games (`self` is the learner itself,
/// greedy at temperature 0 when `greedy`, else sampled).
///
/// # Errors
/// The name's error.
pub fn build_agent<G: NetGame + Bots>(name: &str, net: &Arc<Network>) -> Result<Box<dyn Agent<G>>, String> {
    if name == "self" {
        return LearnedAgent::<G>::new(net.clone(), 1.0)
            .map(|a| Box::new(a) as Box<dyn Agent<G>>)
            .map_err(|e| e.to_string());
    }
    if let Some(budget) = name.strip_prefix("self-ismcts:") {
        let spec: AgentSpec =
            format!("learned-ismcts:{budget}").parse().map_err(|e: boardgame_kit::AgentSpecError| e.to_string())?;
        let budget = spec.budget().ok_or("a budget")?;
        return boardgame_kit::nn::learned_ismcts::<G>(net.clone(), budget)
            .map(|a| Box::new(a) as Box<dyn Agent<G>>)
            .map_err(|e| e.to_string());
    }
    let spec: AgentSpec = name.parse().map_err(|e: boardgame_kit::AgentSpecError| e.to_string())?;
    spec.build::<G>().map_err(|e| e.to_string())
}
