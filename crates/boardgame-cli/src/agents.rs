//! Agents by name: `random`, `heuristic`, `ismcts:N`, `flatmc:N`.

use std::fmt;
use std::str::FromStr;

use boardgame_kit::{Agent, Entrant, RandomAgent};

use crate::CliError;
use crate::games::CliGame;

/// Iterations of a search agent named without a budget (`ismcts`).
pub const DEFAULT_ITERATIONS: u32 = 1000;

/// An agent named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentSpec {
    /// Uniformly random legal actions.
    Random,
    /// The engine's heuristic agent.
    Heuristic,
    /// Information-set MCTS with this many iterations per decision.
    IsMcts(u32),
    /// Flat Monte-Carlo with this many playouts per decision.
    FlatMc(u32),
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Heuristic => f.write_str("heuristic"),
            AgentSpec::IsMcts(n) => write!(f, "ismcts:{n}"),
            AgentSpec::FlatMc(n) => write!(f, "flatmc:{n}"),
        }
    }
}

const KNOWN: &str = "random, heuristic, ismcts:N, flatmc:N";

impl FromStr for AgentSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (kind, budget) = match s.split_once(':') {
            Some((k, b)) => (k, Some(b)),
            None => (s, None),
        };
        let iterations = |b: Option<&str>| -> Result<u32, String> {
            match b {
                None => Ok(DEFAULT_ITERATIONS),
                Some(b) => match b.trim().parse::<u32>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(format!("agent `{s}`: the budget must be a positive number of iterations")),
                },
            }
        };
        match kind {
            "random" if budget.is_none() => Ok(AgentSpec::Random),
            "heuristic" if budget.is_none() => Ok(AgentSpec::Heuristic),
            "ismcts" => Ok(AgentSpec::IsMcts(iterations(budget)?)),
            "flatmc" => Ok(AgentSpec::FlatMc(iterations(budget)?)),
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

/// `specs` stretched to `seats` agents: a single agent fills every seat,
/// otherwise there must be exactly one per seat.
///
/// # Errors
/// A usage error when the count does not fit.
pub fn fit(specs: &[AgentSpec], seats: usize, what: &str) -> Result<Vec<AgentSpec>, CliError> {
    match specs {
        [one] => Ok(vec![*one; seats]),
        _ if specs.len() == seats => Ok(specs.to_vec()),
        _ => Err(CliError::Usage(format!(
            "--agents lists {} agents but {what} {seats} (give one agent for all, or exactly {seats})",
            specs.len()
        ))),
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
        AgentSpec::IsMcts(_) | AgentSpec::FlatMc(_) => {
            Err(CliError::Usage(format!("unknown agent `{spec}`: search agents are not available in this build yet")))
        }
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
