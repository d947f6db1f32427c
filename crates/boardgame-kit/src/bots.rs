//! Agents by name: [`Bots`], an engine's own agents, and [`AgentSpec`], the
//! names every front end (the binary, a server, a binding) accepts.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::nn::{NetGame, Network, WeightsError};
use crate::{Agent, Budget, Entrant, Evaluation, FlatMcAgent, Game, GameRng, IsMctsAgent, RandomAgent};

/// An engine's own agents, so that every front end can name them without
/// knowing the engine. Both methods default to `None` (an engine without a
/// heuristic, such as the kit's test game).
pub trait Bots: Game {
    /// The engine's search-free heuristic agent.
    fn heuristic_agent() -> Option<Box<dyn Agent<Self>>> {
        None
    }

    /// The engine's tuned information-set MCTS with `budget` per decision
    /// (the `ismcts-h` of `docs/bots.md`).
    fn tuned_agent(budget: Budget) -> Option<Box<dyn Agent<Self>>> {
        let _ = budget;
        None
    }

    /// Flat Monte-Carlo improving on the heuristic — `flatmc-h:N`: every
    /// legal action tried by rollouts in which the heuristic plays every
    /// seat, [`HEURISTIC_FLAT_DEPTH`] actions deep, scored by score margin
    /// ([`Evaluation::ScoreMargin`]`(`[`HEURISTIC_FLAT_MARGIN`]`)`), all
    /// actions on common random numbers
    /// ([`FlatMcAgent::common_random_numbers`]), `budget` rollouts per
    /// decision, the heuristic's own move kept unless another is better by
    /// more than [`HEURISTIC_FLAT_BASE_MARGIN`] ([`FlatMcAgent::base_agent`]);
    /// its [`Agent::policy`] is the softmax of the actions' mean
    /// values at temperature [`HEURISTIC_FLAT_TEMPERATURE`] (a target for a
    /// network: one rollout step of policy improvement on the heuristic).
    /// The default builds it from [`Bots::heuristic_agent`]; `None` without
    /// one.
    fn heuristic_flat_agent(budget: Budget) -> Option<Box<dyn Agent<Self>>> {
        let (rollout, base) = (Self::heuristic_agent()?, Self::heuristic_agent()?);
        Some(Box::new(
            FlatMcAgent::<Self>::new(budget)
                .rollout_agent(rollout)
                .base_agent(base, HEURISTIC_FLAT_BASE_MARGIN)
                .rollout_depth(HEURISTIC_FLAT_DEPTH)
                .evaluation(Evaluation::ScoreMargin(HEURISTIC_FLAT_MARGIN))
                .common_random_numbers()
                .policy_temperature(HEURISTIC_FLAT_TEMPERATURE),
        ))
    }

    /// The engine's trained network playing its policy at `temperature`
    /// (0: greedy) — `learned`, `learned:T` ([`crate::nn::LearnedAgent`]);
    /// `None` (the default) for an engine that ships no network, an error
    /// when its weights cannot be read.
    fn learned_agent(temperature: f32) -> Option<Result<Box<dyn Agent<Self>>, WeightsError>> {
        let _ = temperature;
        None
    }

    /// The search guided by the engine's trained network with `budget` per
    /// decision — `learned-ismcts:N`, the engine's
    /// [`learned_search_with`](Bots::learned_search_with) over its committed
    /// network; `None` (the default) for an engine that ships no network.
    fn learned_search_agent(budget: Budget) -> Option<Result<Box<dyn Agent<Self>>, WeightsError>> {
        let _ = budget;
        None
    }

    /// The engine's network agent over a network `net` of its layout
    /// (trained, for example, and read from a file) at `temperature` (0:
    /// greedy): what `learned@FILE` and `learned:T@FILE` play
    /// ([`AgentSpec::LearnedFile`]). `None` (the default) for an engine
    /// without a network layout.
    fn learned_agent_from(net: Arc<Network>, temperature: f32) -> Option<Result<Box<dyn Agent<Self>>, WeightsError>> {
        let _ = (net, temperature);
        None
    }

    /// [`Bots::learned_search_with`] for the engines that have a network
    /// layout, `None` (the default) for the others: what
    /// `learned-ismcts:N@FILE` plays ([`AgentSpec::LearnedIsMctsFile`]).
    fn learned_search_agent_from(
        net: Arc<Network>,
        budget: Budget,
    ) -> Option<Result<Box<dyn Agent<Self>>, WeightsError>> {
        let _ = (net, budget);
        None
    }

    /// The engine's network-guided search over any network `net` of its
    /// layout with `budget` per decision: what `learned-ismcts:N` plays
    /// with the committed network, so that a trained file is measured as it
    /// would play. By default the kit's [`crate::nn::learned_ismcts`] (the
    /// network as prior and leaf value); an engine may override it (both
    /// engines here use their tuned search with the network as its base,
    /// [`IsMctsAgent::base_agent`]).
    ///
    /// # Errors
    /// [`WeightsError::Mismatch`] when `net` is not for this engine.
    fn learned_search_with(net: Arc<Network>, budget: Budget) -> Result<Box<dyn Agent<Self>>, WeightsError>
    where
        Self: NetGame,
    {
        Ok(Box::new(crate::nn::learned_ismcts::<Self>(net, budget)?))
    }
}

impl Bots for crate::testgame::HiddenNim {}

/// The two [`Bots`](crate::Bots) methods that play a network of the
/// engine's layout read from a file (`learned@FILE`, `learned:T@FILE`,
/// `learned-ismcts:N@FILE`), for an engine that implements [`NetGame`](crate::nn::NetGame):
/// [`Bots::learned_agent_from`](crate::Bots::learned_agent_from) as a
/// [`LearnedAgent`](crate::nn::LearnedAgent), and
/// [`Bots::learned_search_agent_from`](crate::Bots::learned_search_agent_from)
/// as the engine's own
/// [`Bots::learned_search_with`](crate::Bots::learned_search_with). Invoke it
/// inside the engine's `impl Bots`.
#[macro_export]
macro_rules! nn_agents_from_files {
    () => {
        fn learned_agent_from(
            net: ::std::sync::Arc<$crate::nn::Network>,
            temperature: f32,
        ) -> ::std::option::Option<
            ::std::result::Result<::std::boxed::Box<dyn $crate::Agent<Self>>, $crate::nn::WeightsError>,
        > {
            ::std::option::Option::Some(
                $crate::nn::LearnedAgent::<Self>::new(net, temperature)
                    .map(|a| ::std::boxed::Box::new(a) as ::std::boxed::Box<dyn $crate::Agent<Self>>),
            )
        }

        fn learned_search_agent_from(
            net: ::std::sync::Arc<$crate::nn::Network>,
            budget: $crate::Budget,
        ) -> ::std::option::Option<
            ::std::result::Result<::std::boxed::Box<dyn $crate::Agent<Self>>, $crate::nn::WeightsError>,
        > {
            ::std::option::Option::Some(<Self as $crate::Bots>::learned_search_with(net, budget))
        }
    };
}

/// Rollout depth of `flatmc-h:N` ([`Bots::heuristic_flat_agent`]), in
/// actions: the depth of Caravan's tuned search.
pub const HEURISTIC_FLAT_DEPTH: usize = 20;

/// Score-margin scale of `flatmc-h:N` ([`Bots::heuristic_flat_agent`]), in
/// score points.
pub const HEURISTIC_FLAT_MARGIN: f64 = 30.0;

/// How much better (in value units) another action must look than the
/// heuristic's own for `flatmc-h:N` to play it
/// ([`FlatMcAgent::base_agent`]): half a score point near level.
pub const HEURISTIC_FLAT_BASE_MARGIN: f64 = 0.5 * HEURISTIC_FLAT_TEMPERATURE;

/// Policy temperature of `flatmc-h:N` ([`Bots::heuristic_flat_agent`]): on
/// the margin scale of [`HEURISTIC_FLAT_MARGIN`] a value of `0.5 + m/60`
/// near level, so one score point of mean margin is one unit of logit.
pub const HEURISTIC_FLAT_TEMPERATURE: f64 = 1.0 / (2.0 * HEURISTIC_FLAT_MARGIN);

/// An agent answering to the name of the [`AgentSpec`] that built it; every
/// other call goes to the agent it wraps.
struct Named<G: Game> {
    name: String,
    inner: Box<dyn Agent<G>>,
}

impl<G: Game> Agent<G> for Named<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, state: &G, seat: usize, rng: &mut GameRng) -> G::Action {
        self.inner.act(state, seat, rng)
    }

    fn reset(&mut self) {
        self.inner.reset();
    }

    fn policy(&self, out: &mut Vec<(G::Action, f64)>) {
        self.inner.policy(out);
    }
}

/// The temperature of a `learned:T` agent: finite, above 0 and at most
/// [`Temperature::MAX`]. Compared and hashed by its bits, so that an
/// [`AgentSpec`] is `Eq`; `Display` writes the shortest form that reads
/// back to the same value.
#[derive(Clone, Copy, Debug)]
pub struct Temperature(f32);

impl Temperature {
    /// The highest temperature a name may give.
    pub const MAX: f32 = 100.0;

    /// `t` if it is finite, above 0 and at most [`Temperature::MAX`].
    pub fn new(t: f32) -> Option<Self> {
        (t.is_finite() && t > 0.0 && t <= Self::MAX).then_some(Temperature(t))
    }

    /// The value.
    pub fn get(self) -> f32 {
        self.0
    }
}

impl PartialEq for Temperature {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for Temperature {}
impl std::hash::Hash for Temperature {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}
impl fmt::Display for Temperature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Iterations of a search agent named without a budget (`ismcts`).
pub const DEFAULT_ITERATIONS: u64 = 1000;

/// The largest iteration budget a name may give (`ismcts:10000000`): ten
/// million iterations per decision, minutes of search on any engine, and
/// well within the search's 32-bit visit counts. A larger one is refused
/// ([`AgentSpecError::BudgetCap`]) rather than run for days.
pub const MAX_ITERATIONS: u64 = 10_000_000;

/// The largest time budget per decision a name may give (`ismcts:600s`):
/// ten minutes. A longer one is refused ([`AgentSpecError::BudgetCap`]).
pub const MAX_BUDGET_TIME: Duration = Duration::from_secs(600);

/// A weights file named in an agent's name (`learned@FILE`,
/// `learned:T@FILE`, `learned-ismcts:N@FILE`): its path as written, and the
/// network read from it on first use, shared by the clones of the
/// [`AgentSpec`] that names it (the file is read once). Compared and hashed
/// by its path.
#[derive(Clone)]
pub struct WeightsFile {
    path: Arc<str>,
    net: Arc<OnceLock<Result<Arc<Network>, AgentSpecError>>>,
}

impl WeightsFile {
    /// The file at `path` (not read yet).
    pub fn new(path: &str) -> Self {
        WeightsFile { path: Arc::from(path), net: Arc::new(OnceLock::new()) }
    }

    /// The path as written in the agent's name.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The network in the file, read on the first call.
    ///
    /// # Errors
    /// [`AgentSpecError::WeightsFileUnreadable`] when the file cannot be
    /// read, [`AgentSpecError::WeightsFile`] with the weights loader's
    /// [`WeightsError`] when it is no valid weights file.
    pub fn network(&self) -> Result<Arc<Network>, AgentSpecError> {
        self.net
            .get_or_init(|| {
                let bytes = std::fs::read(&*self.path).map_err(|e| AgentSpecError::WeightsFileUnreadable {
                    path: self.path.to_string(),
                    error: e.to_string(),
                })?;
                Network::from_bytes(&bytes)
                    .map(Arc::new)
                    .map_err(|error| AgentSpecError::WeightsFile { path: self.path.to_string(), error })
            })
            .clone()
    }
}

impl fmt::Debug for WeightsFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WeightsFile").field(&self.path).finish()
    }
}

impl PartialEq for WeightsFile {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Eq for WeightsFile {}

impl std::hash::Hash for WeightsFile {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.path.hash(state);
    }
}

/// An agent by name: `random`, `heuristic`, `ismcts:N`, `ismcts-h:N`,
/// `flatmc:N`, `flatmc-h:N`, `learned`, `learned:T`, `learned-ismcts:N`, where `N` is a
/// number of iterations or a time per decision (`200ms`, `2s`, `500us`), at
/// most [`MAX_ITERATIONS`] iterations or [`MAX_BUDGET_TIME`], and `T` a
/// temperature ([`Temperature`]). `Display` writes the name back. A name is
/// read exactly: whitespace around or inside it is refused, and a
/// temperature is checked against its range as written, before rounding.
///
/// The learned agents also play a network of the engine's layout from a
/// weights file (the `.bgnn` a trainer writes): the name, then `@` and the
/// file's path — `learned@runs/quick/latest.bgnn`, `learned:0.5@net.bgnn`,
/// `learned-ismcts:20ms@net.bgnn` (`WeightsFile`). Everything after the
/// first `@` is the path. The file is read when the first agent is built;
/// a file that cannot be read, or is no weights file of the engine, is an
/// error naming the file.
///
/// ```
/// use boardgame_kit::{AgentSpec, Budget, testgame::HiddenNim};
///
/// let spec: AgentSpec = "ismcts:500".parse().unwrap();
/// assert_eq!(spec, AgentSpec::IsMcts(Budget::Iterations(500)));
/// assert_eq!(spec.to_string(), "ismcts:500");
/// let agent = spec.build::<HiddenNim>().unwrap();
/// assert_eq!(agent.name(), "ismcts:500");
/// assert!("heuristic".parse::<AgentSpec>().unwrap().build::<HiddenNim>().is_err()); // none for nim
/// assert!("chess".parse::<AgentSpec>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AgentSpec {
    /// Uniformly random legal actions ([`RandomAgent`]).
    Random,
    /// The engine's heuristic agent ([`Bots::heuristic_agent`]).
    Heuristic,
    /// Plain information-set MCTS ([`IsMctsAgent::new`]) with this budget.
    IsMcts(Budget),
    /// The engine's tuned ISMCTS ([`Bots::tuned_agent`]) with this budget.
    IsMctsH(Budget),
    /// Flat Monte-Carlo ([`FlatMcAgent::new`]) with this budget.
    FlatMc(Budget),
    /// Flat Monte-Carlo over the engine's heuristic
    /// ([`Bots::heuristic_flat_agent`]) with this budget.
    FlatMcH(Budget),
    /// The engine's trained network, greedy (`None`, `learned`) or sampled
    /// at a temperature (`learned:T`) ([`Bots::learned_agent`]).
    Learned(Option<Temperature>),
    /// ISMCTS guided by the engine's network with this budget
    /// ([`Bots::learned_search_agent`]).
    LearnedIsMcts(Budget),
    /// The network of a weights file, greedy (`learned@FILE`) or at a
    /// temperature (`learned:T@FILE`) ([`Bots::learned_agent_from`]).
    LearnedFile(Option<Temperature>, WeightsFile),
    /// ISMCTS guided by the network of a weights file with this budget
    /// (`learned-ismcts:N@FILE`, [`Bots::learned_search_agent_from`]).
    LearnedIsMctsFile(Budget, WeightsFile),
}

/// The agent names [`AgentSpec`] knows, for messages.
pub const AGENT_NAMES: &str = "random, heuristic, ismcts:N, ismcts-h:N, flatmc:N, flatmc-h:N, learned, learned:T, learned-ismcts:N \
     (N iterations, or a time like 200ms or 2s; T a temperature above 0, at most 100; \
     a learned agent plays a weights file as learned@FILE, learned:T@FILE, learned-ismcts:N@FILE)";

/// A name that is no [`AgentSpec`], or an agent this engine lacks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentSpecError {
    /// The name is not one of [`AGENT_NAMES`].
    #[error("unknown agent `{0}` (known: {AGENT_NAMES})")]
    Unknown(String),
    /// The budget is not a positive count or time.
    #[error("agent `{0}`: the budget must be a positive number of iterations or a time such as 200ms or 2s")]
    Budget(String),
    /// The budget is above [`MAX_ITERATIONS`] or [`MAX_BUDGET_TIME`].
    #[error(
        "agent `{0}`: the budget is too large (at most {MAX_ITERATIONS} iterations or {secs}s per decision)",
        secs = MAX_BUDGET_TIME.as_secs()
    )]
    BudgetCap(String),
    /// The engine has no agent of this kind.
    #[error("unknown agent `{agent}`: {engine} has no heuristic agent")]
    NotForEngine {
        /// The agent's name.
        agent: String,
        /// The engine's name ([`Game::NAME`]).
        engine: &'static str,
    },
    /// The temperature of `learned:T` is not a number above 0 and at most
    /// [`Temperature::MAX`].
    #[error(
        "agent `{0}`: the temperature must be a number above 0 and at most 100, such as 0.5 \
         (a weights file is named after `@`: learned@FILE, learned:T@FILE)"
    )]
    Temperature(String),
    /// `@` with no path after it.
    #[error("agent `{0}`: no weights file after `@` (learned@FILE, learned:T@FILE, learned-ismcts:N@FILE)")]
    NoPath(String),
    /// `@FILE` after an agent that plays no network.
    #[error("agent `{0}`: only learned and learned-ismcts play a weights file (`@FILE`)")]
    NotANetworkAgent(String),
    /// The weights file cannot be read.
    #[error("the weights file {path} cannot be read: {error}")]
    WeightsFileUnreadable {
        /// The file's path.
        path: String,
        /// Why (the system's message).
        error: String,
    },
    /// The weights file is no valid weights file, or none of the engine's
    /// layout.
    #[error("the weights file {path}: {error}")]
    WeightsFile {
        /// The file's path.
        path: String,
        /// The weights loader's error.
        error: WeightsError,
    },
    /// The engine ships no trained network.
    #[error("unknown agent `{agent}`: {engine} ships no trained network")]
    NoNetwork {
        /// The agent's name.
        agent: String,
        /// The engine's name ([`Game::NAME`]).
        engine: &'static str,
    },
    /// The engine's network could not be read.
    #[error("agent `{agent}`: the network of {engine} cannot be read: {error}")]
    Network {
        /// The agent's name.
        agent: String,
        /// The engine's name ([`Game::NAME`]).
        engine: &'static str,
        /// Why.
        error: WeightsError,
    },
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Heuristic => f.write_str("heuristic"),
            AgentSpec::IsMcts(n) => write!(f, "ismcts:{n}"),
            AgentSpec::IsMctsH(n) => write!(f, "ismcts-h:{n}"),
            AgentSpec::FlatMc(n) => write!(f, "flatmc:{n}"),
            AgentSpec::FlatMcH(n) => write!(f, "flatmc-h:{n}"),
            AgentSpec::Learned(None) => f.write_str("learned"),
            AgentSpec::Learned(Some(t)) => write!(f, "learned:{t}"),
            AgentSpec::LearnedIsMcts(n) => write!(f, "learned-ismcts:{n}"),
            AgentSpec::LearnedFile(None, file) => write!(f, "learned@{}", file.path()),
            AgentSpec::LearnedFile(Some(t), file) => write!(f, "learned:{t}@{}", file.path()),
            AgentSpec::LearnedIsMctsFile(n, file) => write!(f, "learned-ismcts:{n}@{}", file.path()),
        }
    }
}

/// A budget: `N` iterations, or a time per decision `Nms`, `Ns`, `Nus`;
/// [`DEFAULT_ITERATIONS`] when absent; refused above [`MAX_ITERATIONS`] or
/// [`MAX_BUDGET_TIME`] (digits beyond 64 bits included).
fn parse_budget(agent: &str, budget: Option<&str>) -> Result<Budget, AgentSpecError> {
    let Some(b) = budget else {
        return Ok(Budget::Iterations(DEFAULT_ITERATIONS));
    };
    let bad = || AgentSpecError::Budget(agent.to_string());
    let cap = || AgentSpecError::BudgetCap(agent.to_string());
    let (digits, unit) = b.split_at(b.find(|c: char| !c.is_ascii_digit()).unwrap_or(b.len()));
    if digits.is_empty() {
        return Err(bad());
    }
    let time: Option<fn(u64) -> Duration> = match unit {
        "" => None,
        "ms" => Some(Duration::from_millis),
        "s" => Some(Duration::from_secs),
        "us" => Some(Duration::from_micros),
        _ => return Err(bad()),
    };
    // Only digits are left: a parse failure is an overflow of 64 bits.
    let n: u64 = digits.parse().map_err(|_| cap())?;
    if n == 0 {
        return Err(bad());
    }
    match time.map(|of| of(n)) {
        None if n > MAX_ITERATIONS => Err(cap()),
        None => Ok(Budget::Iterations(n)),
        Some(t) if t > MAX_BUDGET_TIME => Err(cap()),
        Some(t) => Ok(Budget::Time(t)),
    }
}

impl FromStr for AgentSpec {
    type Err = AgentSpecError;

    fn from_str(s: &str) -> Result<Self, AgentSpecError> {
        if let Some((name, path)) = s.split_once('@') {
            if path.is_empty() {
                return Err(AgentSpecError::NoPath(s.to_string()));
            }
            let file = WeightsFile::new(path);
            // The name before `@` reads as any other; errors name the whole.
            let whole = |e: AgentSpecError| match e {
                AgentSpecError::Temperature(_) => AgentSpecError::Temperature(s.to_string()),
                AgentSpecError::Budget(_) => AgentSpecError::Budget(s.to_string()),
                AgentSpecError::BudgetCap(_) => AgentSpecError::BudgetCap(s.to_string()),
                _ => AgentSpecError::Unknown(s.to_string()),
            };
            return match name.parse::<AgentSpec>().map_err(whole)? {
                AgentSpec::Learned(t) => Ok(AgentSpec::LearnedFile(t, file)),
                AgentSpec::LearnedIsMcts(b) => Ok(AgentSpec::LearnedIsMctsFile(b, file)),
                _ => Err(AgentSpecError::NotANetworkAgent(s.to_string())),
            };
        }
        // A name holds no whitespace: `"random "` is refused (as unknown),
        // not read as `random`.
        let (kind, budget) = match s.split_once(':') {
            Some((k, b)) => (k, Some(b)),
            None => (s, None),
        };
        match kind {
            "random" if budget.is_none() => Ok(AgentSpec::Random),
            "heuristic" if budget.is_none() => Ok(AgentSpec::Heuristic),
            "ismcts" => Ok(AgentSpec::IsMcts(parse_budget(s, budget)?)),
            "ismcts-h" => Ok(AgentSpec::IsMctsH(parse_budget(s, budget)?)),
            "flatmc" => Ok(AgentSpec::FlatMc(parse_budget(s, budget)?)),
            "flatmc-h" => Ok(AgentSpec::FlatMcH(parse_budget(s, budget)?)),
            "learned" => match budget {
                None => Ok(AgentSpec::Learned(None)),
                // the range is checked on the written value, before rounding
                // to f32 (`learned:100.0000001` is above the maximum, not 100)
                Some(t) => t
                    .parse::<f64>()
                    .ok()
                    .filter(|&t| t <= f64::from(Temperature::MAX))
                    .and_then(|t| Temperature::new(t as f32))
                    .map(|t| AgentSpec::Learned(Some(t)))
                    .ok_or_else(|| AgentSpecError::Temperature(s.to_string())),
            },
            "learned-ismcts" => Ok(AgentSpec::LearnedIsMcts(parse_budget(s, budget)?)),
            _ => Err(AgentSpecError::Unknown(s.to_string())),
        }
    }
}

impl AgentSpec {
    /// The search budget per decision, for the agents that search.
    pub fn budget(&self) -> Option<Budget> {
        match *self {
            AgentSpec::IsMcts(b)
            | AgentSpec::IsMctsH(b)
            | AgentSpec::FlatMc(b)
            | AgentSpec::FlatMcH(b)
            | AgentSpec::LearnedIsMcts(b)
            | AgentSpec::LearnedIsMctsFile(b, _) => Some(b),
            AgentSpec::Random | AgentSpec::Heuristic | AgentSpec::Learned(_) | AgentSpec::LearnedFile(..) => None,
        }
    }

    /// The weights file the agent plays, for the agents named with `@FILE`.
    pub fn weights_file(&self) -> Option<&WeightsFile> {
        match self {
            AgentSpec::LearnedFile(_, file) | AgentSpec::LearnedIsMctsFile(_, file) => Some(file),
            _ => None,
        }
    }

    /// A fresh agent of this kind for `G`.
    ///
    /// # Errors
    /// [`AgentSpecError::NotForEngine`] when `G` has no agent of this kind
    /// (`heuristic`, `ismcts-h` and `flatmc-h` need [`Bots`]' agents).
    ///
    /// The agent's [`Agent::name`] is this name (`flatmc-h:2500`, not the
    /// `flatmc:2500` of the search it is made of), so tables and records
    /// say which agent played.
    pub fn build<G: Bots>(&self) -> Result<Box<dyn Agent<G>>, AgentSpecError> {
        let agent = self.build_unnamed::<G>()?;
        let name = self.to_string();
        Ok(if agent.name() == name { agent } else { Box::new(Named { name, inner: agent }) })
    }

    /// The agent of [`AgentSpec::build`] under whatever name it gives itself.
    fn build_unnamed<G: Bots>(&self) -> Result<Box<dyn Agent<G>>, AgentSpecError> {
        let missing = || AgentSpecError::NotForEngine { agent: self.to_string(), engine: G::NAME };
        match *self {
            AgentSpec::Random => Ok(Box::new(RandomAgent)),
            AgentSpec::Heuristic => G::heuristic_agent().ok_or_else(missing),
            AgentSpec::IsMcts(budget) => Ok(Box::new(IsMctsAgent::<G>::new(budget))),
            AgentSpec::IsMctsH(budget) => G::tuned_agent(budget).ok_or_else(missing),
            AgentSpec::FlatMc(budget) => Ok(Box::new(FlatMcAgent::<G>::new(budget))),
            AgentSpec::FlatMcH(budget) => G::heuristic_flat_agent(budget).ok_or_else(missing),
            AgentSpec::Learned(t) => self.network_agent::<G>(G::learned_agent(t.map_or(0.0, Temperature::get))),
            AgentSpec::LearnedIsMcts(budget) => self.network_agent::<G>(G::learned_search_agent(budget)),
            AgentSpec::LearnedFile(t, ref file) => {
                let net = file.network()?;
                self.file_agent::<G>(file, G::learned_agent_from(net, t.map_or(0.0, Temperature::get)))
            }
            AgentSpec::LearnedIsMctsFile(budget, ref file) => {
                let net = file.network()?;
                self.file_agent::<G>(file, G::learned_search_agent_from(net, budget))
            }
        }
    }

    /// The agent a [`Bots`] method gave over the network of `file`, or why
    /// not (the loader's error naming the file).
    fn file_agent<G: Bots>(
        &self,
        file: &WeightsFile,
        made: Option<Result<Box<dyn Agent<G>>, WeightsError>>,
    ) -> Result<Box<dyn Agent<G>>, AgentSpecError> {
        match made {
            None => Err(AgentSpecError::NoNetwork { agent: self.to_string(), engine: G::NAME }),
            Some(Err(error)) => Err(AgentSpecError::WeightsFile { path: file.path().to_string(), error }),
            Some(Ok(agent)) => Ok(agent),
        }
    }

    /// The agent a network-backed [`Bots`] method gave, or why not.
    fn network_agent<G: Bots>(
        &self,
        made: Option<Result<Box<dyn Agent<G>>, WeightsError>>,
    ) -> Result<Box<dyn Agent<G>>, AgentSpecError> {
        match made {
            None => Err(AgentSpecError::NoNetwork { agent: self.to_string(), engine: G::NAME }),
            Some(Err(error)) => Err(AgentSpecError::Network { agent: self.to_string(), engine: G::NAME, error }),
            Some(Ok(agent)) => Ok(agent),
        }
    }

    /// An arena entrant of this kind, named by the spec.
    ///
    /// # Errors
    /// As [`AgentSpec::build`], checked once here so that building the
    /// entrant's agents later cannot fail.
    pub fn entrant<G: Bots>(&self) -> Result<Entrant<G>, AgentSpecError> {
        self.build::<G>()?;
        let spec = self.clone();
        Ok(Entrant::new(self.to_string(), move || spec.build::<G>().unwrap_or_else(|_| Box::new(RandomAgent))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgame::HiddenNim;

    #[test]
    fn names_round_trip_and_budgets_parse() {
        for name in [
            "random",
            "heuristic",
            "ismcts:2000",
            "ismcts-h:1000",
            "flatmc:50",
            "flatmc-h:2500",
            "ismcts:250ms",
            "flatmc:1500us",
            "flatmc-h:20ms",
        ] {
            let spec: AgentSpec = name.parse().unwrap();
            assert_eq!(spec.to_string(), name);
        }
        assert_eq!("ismcts".parse::<AgentSpec>().unwrap(), AgentSpec::IsMcts(Budget::Iterations(DEFAULT_ITERATIONS)));
        assert_eq!("ismcts:2s".parse::<AgentSpec>().unwrap(), AgentSpec::IsMcts(Budget::Time(Duration::from_secs(2))));
        for bad in ["", "randy", "random:3", "ismcts:0", "ismcts:x", "ismcts:5h", "flatmc:-1", "heuristic:9"] {
            let err = bad.parse::<AgentSpec>().unwrap_err().to_string();
            assert!(err.contains(&format!("`{}`", bad.trim())), "{err}");
        }
        assert!("chess".parse::<AgentSpec>().unwrap_err().to_string().starts_with("unknown agent `chess`"));
    }

    /// Issue 30 item 14: whitespace in a name and a temperature that rounds
    /// into the range are refused, not read as a neighbouring name.
    #[test]
    fn whitespace_and_rounded_temperatures_are_refused() {
        for bad in ["random ", " heuristic", "ismcts: 100", "ismcts:100 ", "learned:0.5 ", "learned :0.5", "\tflatmc"] {
            let err = bad.parse::<AgentSpec>().unwrap_err().to_string();
            assert!(err.contains(&format!("`{bad}`")), "{bad:?}: {err}");
        }
        for bad in ["learned:100.0000001", "learned:1e-60", "learned:100.00000000000001"] {
            assert_eq!(bad.parse::<AgentSpec>().unwrap_err(), AgentSpecError::Temperature(bad.to_string()));
        }
        assert_eq!("learned:100".parse::<AgentSpec>().unwrap().to_string(), "learned:100");
        assert_eq!("learned:0.25".parse::<AgentSpec>().unwrap().to_string(), "learned:0.25");
    }

    /// Issue 22 item 15: a budget that would search for days (or overflow)
    /// is refused with the cap in the message; the caps themselves parse.
    #[test]
    fn budgets_above_the_caps_are_refused() {
        for ok in ["ismcts:10000000", "flatmc:600s", "ismcts-h:600000ms", "ismcts:600000000us"] {
            assert!(ok.parse::<AgentSpec>().is_ok(), "{ok}");
        }
        for big in [
            "ismcts:18446744073709551615ms",
            "ismcts:18446744073709551615",
            "ismcts:18446744073709551616",
            "flatmc:99999999999999999999999s",
            "ismcts:10000001",
            "ismcts-h:601s",
            "flatmc:600001ms",
            "ismcts:600000001us",
        ] {
            let err = big.parse::<AgentSpec>().unwrap_err();
            assert_eq!(err, AgentSpecError::BudgetCap(big.to_string()));
            let text = err.to_string();
            assert!(text.contains("at most 10000000 iterations or 600s per decision"), "{text}");
        }
        for bad in ["ismcts:ms", "ismcts:0s", "ismcts:99999999999999999999h"] {
            assert_eq!(bad.parse::<AgentSpec>().unwrap_err(), AgentSpecError::Budget(bad.to_string()), "{bad}");
        }
    }

    #[test]
    fn an_engine_without_a_heuristic_says_unknown_agent() {
        let err = AgentSpec::Heuristic.build::<HiddenNim>().err().unwrap();
        assert_eq!(err, AgentSpecError::NotForEngine { agent: "heuristic".into(), engine: "hidden-nim" });
        assert!(err.to_string().starts_with("unknown agent `heuristic`"), "{err}");
        assert!(AgentSpec::IsMctsH(Budget::Iterations(3)).build::<HiddenNim>().is_err());
        assert!(AgentSpec::IsMctsH(Budget::Iterations(3)).entrant::<HiddenNim>().is_err());
        let err = AgentSpec::FlatMcH(Budget::Iterations(3)).build::<HiddenNim>().err().unwrap();
        assert_eq!(err, AgentSpecError::NotForEngine { agent: "flatmc-h:3".into(), engine: "hidden-nim" });
        for spec in
            [AgentSpec::Random, AgentSpec::IsMcts(Budget::Iterations(3)), AgentSpec::FlatMc(Budget::Iterations(3))]
        {
            let agent = spec.build::<HiddenNim>().unwrap();
            assert_eq!(agent.name(), spec.to_string());
            assert_eq!(spec.entrant::<HiddenNim>().unwrap().agent().name(), spec.to_string());
        }
    }

    #[test]
    fn names_parse_and_an_engine_without_a_network_says_so() {
        for name in ["learned", "learned:0.5", "learned:2", "learned-ismcts:100", "learned-ismcts:10ms"] {
            let spec: AgentSpec = name.parse().unwrap();
            assert_eq!(spec.to_string(), name);
            let err = spec.build::<HiddenNim>().err().unwrap();
            assert_eq!(err, AgentSpecError::NoNetwork { agent: name.into(), engine: "hidden-nim" });
            assert!(err.to_string().contains("ships no trained network"), "{err}");
        }
        for bad in ["learned:0", "learned:-1", "learned:nan", "learned:inf", "learned:101", "learned:x", "learned:"] {
            assert_eq!(bad.parse::<AgentSpec>(), Err(AgentSpecError::Temperature(bad.into())), "{bad}");
        }
        assert!("learned-ismcts:0".parse::<AgentSpec>().is_err());
        assert!("learned-ismcts:10000001".parse::<AgentSpec>().is_err());
        assert_eq!("learned-ismcts:7".parse::<AgentSpec>().unwrap().budget(), Some(Budget::Iterations(7)));
        assert_eq!("learned:3".parse::<AgentSpec>().unwrap().budget(), None);
        assert!(HiddenNim::learned_agent(0.0).is_none());
    }
}
