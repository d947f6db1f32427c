//! Agents by name, as the kit names them ([`AgentSpec`]: `random`,
//! `heuristic`, `ismcts:N`, `ismcts-h:N`, `flatmc:N`, `flatmc-h:N`); the engines build
//! their own heuristic and tuned search ([`boardgame_kit::Bots`]). This
//! module reads lists of names and fits them to the seats, asks a seeded
//! agent for one move at a time ([`SeededAgent`]) and plays rollouts
//! ([`Rollouts`]).

use boardgame_kit::{ActionId, Agent, AgentSpec, Bots, Entrant, Evaluation, Game, GameRng, SeatStreams, Turn};

use crate::SimError;

/// Parses a comma-separated agent list.
///
/// # Errors
/// A usage error naming the first unknown agent.
pub fn parse_list(text: &str) -> Result<Vec<AgentSpec>, SimError> {
    text.split(',').map(|s| s.parse::<AgentSpec>().map_err(|e| SimError::Usage(e.to_string()))).collect()
}

/// `specs` stretched to `seats` agents: the last agent listed fills the
/// seats left, so `heuristic,random` in a 5-seat game is one heuristic
/// agent against four random ones, and a single name fills every seat.
///
/// # Errors
/// A usage error when more agents than seats are listed.
pub fn fit(specs: &[AgentSpec], seats: usize, what: &str) -> Result<Vec<AgentSpec>, SimError> {
    match specs.last() {
        Some(last) if specs.len() <= seats => {
            let mut all = specs.to_vec();
            all.resize(seats, last.clone());
            Ok(all)
        }
        _ => Err(SimError::Usage(format!("--agents lists {} agents but {what} {seats}", specs.len()))),
    }
}

/// A fresh agent of `spec` for `G`.
///
/// # Errors
/// A usage error ("unknown agent") when this engine lacks it.
pub fn build<G: Bots>(spec: AgentSpec) -> Result<Box<dyn Agent<G>>, SimError> {
    spec.build::<G>().map_err(|e| SimError::Usage(e.to_string()))
}

/// An arena entrant of `spec` (checked first, so building cannot fail later).
///
/// # Errors
/// As [`build`].
pub fn entrant<G: Bots>(spec: AgentSpec) -> Result<Entrant<G>, SimError> {
    spec.entrant::<G>().map_err(|e| SimError::Usage(e.to_string()))
}

/// One built-in agent of `G` asked for one move at a time, its draws taken
/// from the kit's [`SeatStreams`] of a seed: an agent seeded with a game's
/// seed plays, at every seat, the moves the driver's agents play in that
/// game (what `korovan_caravan.Agent` calls).
pub struct SeededAgent<G: Game> {
    spec: AgentSpec,
    agent: Box<dyn Agent<G>>,
    seats: SeatStreams,
    policy: Vec<(G::Action, f64)>,
}

impl<G: Bots> SeededAgent<G> {
    /// The agent `spec` of `G`, seeded with `seed`.
    ///
    /// # Errors
    /// A usage error with the kit's message when `G` has no such agent.
    pub fn new(spec: AgentSpec, seed: u64) -> Result<Self, SimError> {
        let agent = spec.build::<G>().map_err(|e| SimError::Usage(e.to_string()))?;
        Ok(SeededAgent { spec, agent, seats: SeatStreams::new(seed), policy: Vec::new() })
    }

    /// The agent's name.
    pub fn spec(&self) -> &AgentSpec {
        &self.spec
    }

    /// Whether the agent decides in well under a microsecond (`random`,
    /// `heuristic`): a front end need not release its lock meanwhile.
    pub fn is_cheap(&self) -> bool {
        matches!(self.spec, AgentSpec::Random | AgentSpec::Heuristic)
    }

    /// The action id the agent chooses for `seat`, to move in `state`, from
    /// that seat's stream.
    ///
    /// # Errors
    /// A runtime error for an illegal choice (an engine's agent never makes
    /// one; it is refused rather than played).
    pub fn decide(&mut self, state: &G, seat: usize) -> Result<ActionId, SimError> {
        let action = self.agent.act(state, seat, self.seats.seat(seat));
        if let Err(e) = state.validate(action) {
            return Err(SimError::Runtime(format!("agent `{}` chose an illegal action: {e}", self.spec)));
        }
        Ok(G::action_id(state.config(), action))
    }

    /// The action ids the agent chooses for each `(state, seat)` in turn,
    /// as that many [`SeededAgent::decide`] calls would.
    ///
    /// # Errors
    /// A usage error for no states; the first refused choice, naming its
    /// index (`states[i]: …`).
    pub fn decide_all(&mut self, states: &[(&G, usize)]) -> Result<Vec<ActionId>, SimError> {
        if states.is_empty() {
            return Err(SimError::Usage("at least one state is needed, got none".into()));
        }
        let mut ids = Vec::with_capacity(states.len());
        for (i, &(state, seat)) in states.iter().enumerate() {
            ids.push(self.decide(state, seat).map_err(|e| SimError::Runtime(format!("states[{i}]: {e}")))?);
        }
        Ok(ids)
    }

    /// The policy of the decision that chose `id` in `state`, `(id,
    /// probability)` ascending by id: uniform over the legal actions for
    /// `random`, the agent's own (a search's root visit shares), else all on
    /// `id`.
    pub fn policy_ids(&mut self, state: &G, id: ActionId) -> Vec<(ActionId, f64)> {
        let config = state.config();
        let mut policy: Vec<(ActionId, f64)> = if self.spec == AgentSpec::Random {
            let mut list = G::ActionList::default();
            state.legal_actions(&mut list);
            let p = 1.0 / list.len().max(1) as f64;
            list.iter().map(|&a| (G::action_id(config, a), p)).collect()
        } else {
            self.agent.policy(&mut self.policy);
            self.policy.iter().map(|&(a, p)| (G::action_id(config, a), p)).collect()
        };
        if policy.is_empty() {
            // A deterministic choice (heuristic, a forced move): all on it.
            policy.push((id, 1.0));
        }
        policy.sort_unstable_by_key(|&(a, _)| a);
        policy
    }

    /// Resets the agent's memory, and its streams to `seed` if given.
    pub fn restart(&mut self, seed: Option<u64>) {
        self.agent.reset();
        if let Some(seed) = seed {
            self.seats = SeatStreams::new(seed);
        }
    }
}

/// The default `margin_scale` of [`cut_evaluation`], in score points: the
/// tuned Caravan search's (a common good is worth 3 points, a rare one 6).
pub const DEFAULT_MARGIN_SCALE: f64 = 30.0;

/// How a rollout's cut state is scored: `"leader"` (the default: 1 shared
/// among the seats with the best score) or `"margin"` (`0.5 + 0.5·tanh(margin
/// / margin_scale)` of each seat's score margin over the best other seat;
/// `margin_scale` [`DEFAULT_MARGIN_SCALE`] by default).
///
/// # Errors
/// A usage error for another name, or a `margin_scale` that is not a
/// positive number with `"margin"`.
pub fn cut_evaluation(cut_value: Option<&str>, margin_scale: Option<f64>) -> Result<Evaluation, SimError> {
    let margin_scale = margin_scale.unwrap_or(DEFAULT_MARGIN_SCALE);
    match cut_value.unwrap_or("leader") {
        "leader" => Ok(Evaluation::LeaderShare),
        "margin" if margin_scale.is_finite() && margin_scale > 0.0 => Ok(Evaluation::ScoreMargin(margin_scale)),
        "margin" => Err(SimError::Usage(format!("margin_scale must be positive, got {margin_scale}"))),
        other => Err(SimError::Usage(format!("unknown cut_value `{other}` (known: leader, margin)"))),
    }
}

/// The seat to move in `state`, for an agent asked to act there (`what`
/// names the state in the message, written only on error).
///
/// # Errors
/// A usage error where no seat is to move (a chance node, the end).
pub fn seat_to_move<G: Game, W: std::fmt::Display>(state: &G, what: impl FnOnce() -> W) -> Result<usize, SimError> {
    match state.turn() {
        Turn::Player(seat) => Ok(seat),
        turn => Err(SimError::Usage(format!(
            "no seat is to move in {} ({} {turn:?}): an agent acts only for the seat to move",
            what(),
            G::NAME
        ))),
    }
}

/// Rollouts of `G`: a policy (uniform random by the kit's fast draws, or a
/// built-in agent) plays every seat, chance by its weights, to the end or a
/// depth limit, where the state is scored by an [`Evaluation`] (a finished
/// game always by its real returns).
pub struct Rollouts<G: Game> {
    policy: Option<Box<dyn Agent<G>>>,
    depth: Option<usize>,
    evaluation: Evaluation,
    values: Vec<f64>,
}

impl<G: Bots> Rollouts<G> {
    /// Rollouts played by `policy` (`random`: the kit's allocation-free
    /// draws), cut after `depth` actions (chance included) if given.
    ///
    /// # Errors
    /// A usage error when `G` has no such agent.
    pub fn new(policy: &AgentSpec, depth: Option<usize>, evaluation: Evaluation) -> Result<Self, SimError> {
        let policy = match policy {
            AgentSpec::Random => None,
            spec => Some(spec.build::<G>().map_err(|e| SimError::Usage(e.to_string()))?),
        };
        Ok(Rollouts { policy, depth, evaluation, values: Vec::new() })
    }

    /// The mean per-seat values of `n` rollouts from `state`, every draw
    /// from `rng`.
    ///
    /// # Errors
    /// A usage error for no rollouts (`n` = 0).
    pub fn mean_values(&mut self, state: &G, n: usize, rng: &mut GameRng) -> Result<Vec<f64>, SimError> {
        if n == 0 {
            return Err(SimError::Usage("n (rollouts per evaluation) must be at least 1".to_string()));
        }
        let seats = state.num_players();
        let mut sum = vec![0.0; seats];
        self.values.resize(seats, 0.0);
        for _ in 0..n {
            self.rollout(state.clone(), rng, &mut sum);
        }
        let n = n as f64;
        sum.iter_mut().for_each(|v| *v /= n);
        Ok(sum)
    }

    /// Plays `state` on once (an illegal choice of the policy replaced by a
    /// random legal action) and adds its per-seat values into `sum`.
    fn rollout(&mut self, mut state: G, rng: &mut GameRng, sum: &mut [f64]) {
        let bound = G::max_game_length(state.config());
        let limit = self.depth.map_or(bound, |d| d.min(bound));
        let mut steps = 0;
        while steps < limit {
            let action = match state.turn() {
                Turn::Terminal => break,
                Turn::Chance => state.sample_chance_outcome(rng),
                Turn::Player(seat) => match self.policy.as_mut() {
                    None => state.random_legal_action(rng),
                    Some(agent) => {
                        let a = agent.act(&state, seat, rng);
                        if state.is_legal(a) { Some(a) } else { state.random_legal_action(rng) }
                    }
                },
            };
            let Some(action) = action else { break };
            state.apply_unchecked(action);
            steps += 1;
        }
        self.evaluation.evaluate(&state, &mut self.values);
        for (s, v) in sum.iter_mut().zip(&self.values) {
            *s += v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardgame_kit::Budget;
    use boardgame_kit::testgame::HiddenNim;

    #[test]
    fn lists_parse_and_name_the_unknown_agent() {
        let list = parse_list("random,ismcts:5,flatmc:250ms").unwrap();
        assert_eq!(list.len(), 3);
        match parse_list("random,chess") {
            Err(SimError::Usage(m)) => assert!(m.starts_with("unknown agent `chess`"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse_list("random,,random"), Err(SimError::Usage(_))));
    }

    #[test]
    fn the_last_agent_fills_the_seats_left() {
        let one = parse_list("random").unwrap();
        assert_eq!(fit(&one, 4, "seats").unwrap().len(), 4);
        let three = parse_list("random,ismcts:5,flatmc:5").unwrap();
        assert_eq!(fit(&three, 3, "seats").unwrap(), three);
        let four = fit(&three, 4, "seats").unwrap();
        assert_eq!(four[3], three[2], "the last agent fills the seats left");
        assert!(matches!(fit(&three, 2, "seats"), Err(SimError::Usage(_))));
    }

    #[test]
    fn an_engine_without_a_heuristic_says_unknown_agent() {
        match build::<HiddenNim>(AgentSpec::Heuristic) {
            Err(SimError::Usage(m)) => assert!(m.starts_with("unknown agent `heuristic`"), "{m}"),
            _ => panic!("nim has no heuristic agent"),
        }
        assert!(build::<HiddenNim>(AgentSpec::IsMcts(Budget::Iterations(3))).is_ok());
        assert!(entrant::<HiddenNim>(AgentSpec::IsMctsH(Budget::Iterations(3))).is_err());
    }
}
