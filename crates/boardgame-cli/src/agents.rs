//! Agents by name: `random`, `heuristic`, `ismcts:N`, `ismcts-h:N`, `flatmc:N`.

use std::fmt;
use std::str::FromStr;

use std::time::Duration;

use boardgame_kit::{Agent, Budget, Entrant, FlatMcAgent, IsMctsAgent, RandomAgent};

use crate::error::CliError;
use crate::games::CliGame;

/// Iterations of a search agent named without a budget (`ismcts`).
pub const DEFAULT_ITERATIONS: u64 = 1000;

/// An agent named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentSpec {
    /// Uniformly random legal actions.
    Random,
    /// The engine's heuristic agent.
    Heuristic,
    /// Information-set MCTS with this budget per decision.
    IsMcts(Budget),
    /// Information-set MCTS whose rollouts are played by the engine's
    /// heuristic agent, truncated after [`HEURISTIC_ROLLOUT_DEPTH`](crate::games::HEURISTIC_ROLLOUT_DEPTH) actions
    /// and scored by score margins ([`HEURISTIC_MARGIN_SCALE`](crate::games::HEURISTIC_MARGIN_SCALE)), exploration
    /// [`HEURISTIC_EXPLORATION`](crate::games::HEURISTIC_EXPLORATION) (the Caravan setting of `docs/bots.md`).
    IsMctsH(Budget),
    /// Flat Monte-Carlo with this budget per decision.
    FlatMc(Budget),
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Heuristic => f.write_str("heuristic"),
            AgentSpec::IsMcts(n) => write!(f, "ismcts:{n}"),
            AgentSpec::IsMctsH(n) => write!(f, "ismcts-h:{n}"),
            AgentSpec::FlatMc(n) => write!(f, "flatmc:{n}"),
        }
    }
}

const KNOWN: &str = "random, heuristic, ismcts:N, ismcts-h:N, flatmc:N (N iterations, or a time like 200ms or 2s)";

/// A budget: `N` iterations, or a time per move `Nms`, `Ns`, `Nus`.
fn parse_budget(agent: &str, budget: Option<&str>) -> Result<Budget, String> {
    let Some(b) = budget.map(str::trim) else {
        return Ok(Budget::Iterations(DEFAULT_ITERATIONS));
    };
    let bad =
        || format!("agent `{agent}`: the budget must be a positive number of iterations or a time such as 200ms or 2s");
    let (digits, unit) = b.split_at(b.find(|c: char| !c.is_ascii_digit()).unwrap_or(b.len()));
    let n: u64 = digits.parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(bad());
    }
    match unit {
        "" => Ok(Budget::Iterations(n)),
        "ms" => Ok(Budget::Time(Duration::from_millis(n))),
        "s" => Ok(Budget::Time(Duration::from_secs(n))),
        "us" => Ok(Budget::Time(Duration::from_micros(n))),
        _ => Err(bad()),
    }
}

impl FromStr for AgentSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
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
            _ => Err(format!("unknown agent `{s}` (known: {KNOWN})")),
        }
    }
}

/// Parses a comma-separated agent list.
///
/// # Errors
/// A usage error naming the first unknown agent.
pub fn parse_list(text: &str) -> Result<Vec<AgentSpec>, CliError> {
    text.split(',').map(|s| s.parse::<AgentSpec>().map_err(CliError::Usage)).collect()
}

/// `specs` stretched to `seats` agents: the last agent listed fills the
/// seats left, so `heuristic,random` in a 5-seat game is one heuristic
/// agent against four random ones, and a single name fills every seat.
///
/// # Errors
/// A usage error when more agents than seats are listed.
pub fn fit(specs: &[AgentSpec], seats: usize, what: &str) -> Result<Vec<AgentSpec>, CliError> {
    match specs.last() {
        Some(&last) if specs.len() <= seats => {
            let mut all = specs.to_vec();
            all.resize(seats, last);
            Ok(all)
        }
        _ => Err(CliError::Usage(format!("--agents lists {} agents but {what} {seats}", specs.len()))),
    }
}

/// Checks that `spec` can be built for `G`.
///
/// # Errors
/// A usage error ("unknown agent") when this engine or this build lacks it.
pub fn check<G: CliGame>(spec: AgentSpec) -> Result<(), CliError> {
    build::<G>(spec).map(|_| ())
}

/// A fresh agent of `spec` for `G`.
///
/// # Errors
/// A usage error ("unknown agent") when this engine or this build lacks it.
pub fn build<G: CliGame>(spec: AgentSpec) -> Result<Box<dyn Agent<G>>, CliError> {
    match spec {
        AgentSpec::Random => Ok(Box::new(RandomAgent)),
        AgentSpec::Heuristic => G::heuristic().ok_or_else(|| {
            CliError::Usage(format!("unknown agent `heuristic`: {} has no heuristic agent yet", G::CLI_NAME))
        }),
        AgentSpec::IsMcts(budget) => Ok(Box::new(IsMctsAgent::<G>::new(budget))),
        AgentSpec::IsMctsH(budget) => G::guided_search(budget).ok_or_else(|| {
            CliError::Usage(format!("unknown agent `ismcts-h`: {} has no heuristic agent yet", G::CLI_NAME))
        }),
        AgentSpec::FlatMc(budget) => Ok(Box::new(FlatMcAgent::<G>::new(budget))),
    }
}

/// An arena entrant of `spec` (checked first, so building cannot fail later).
///
/// # Errors
/// As [`build`].
pub fn entrant<G: CliGame>(spec: AgentSpec) -> Result<Entrant<G>, CliError> {
    check::<G>(spec)?;
    Ok(Entrant::new(spec.to_string(), move || build::<G>(spec).unwrap_or_else(|_| Box::new(RandomAgent))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardgame_kit::testgame::HiddenNim;

    #[test]
    fn names_round_trip_and_budgets_parse() {
        for name in
            ["random", "heuristic", "ismcts:2000", "ismcts-h:1000", "flatmc:50", "ismcts:250ms", "flatmc:1500us"]
        {
            let spec: AgentSpec = name.parse().unwrap();
            assert_eq!(spec.to_string(), name);
        }
        assert_eq!("ismcts".parse::<AgentSpec>().unwrap(), AgentSpec::IsMcts(Budget::Iterations(DEFAULT_ITERATIONS)));
        assert_eq!("ismcts:2s".parse::<AgentSpec>().unwrap(), AgentSpec::IsMcts(Budget::Time(Duration::from_secs(2))));
        for bad in ["", "randy", "random:3", "ismcts:0", "ismcts:x", "ismcts:5h", "flatmc:-1", "heuristic:9"] {
            let err = bad.parse::<AgentSpec>().unwrap_err();
            assert!(err.contains(&format!("`{}`", bad.trim())), "{err}");
        }
        assert!("chess".parse::<AgentSpec>().unwrap_err().starts_with("unknown agent `chess`"));
    }

    #[test]
    fn the_last_agent_fills_the_seats_left() {
        let one = parse_list("random").unwrap();
        assert_eq!(fit(&one, 4, "seats").unwrap().len(), 4);
        let three = parse_list("random,ismcts:5,flatmc:5").unwrap();
        assert_eq!(fit(&three, 3, "seats").unwrap(), three);
        let four = fit(&three, 4, "seats").unwrap();
        assert_eq!(four[3], three[2], "the last agent fills the seats left");
        assert!(matches!(fit(&three, 2, "seats"), Err(CliError::Usage(_))));
        assert!(matches!(parse_list("random,,random"), Err(CliError::Usage(_))));
    }

    #[test]
    fn an_engine_without_a_heuristic_says_unknown_agent() {
        match build::<HiddenNim>(AgentSpec::Heuristic) {
            Err(CliError::Usage(m)) => assert!(m.starts_with("unknown agent `heuristic`"), "{m}"),
            _ => panic!("nim has no heuristic agent"),
        }
        assert!(build::<HiddenNim>(AgentSpec::IsMcts(Budget::Iterations(3))).is_ok());
        assert!(build::<HiddenNim>(AgentSpec::IsMctsH(Budget::Iterations(3))).is_err());
    }
}
