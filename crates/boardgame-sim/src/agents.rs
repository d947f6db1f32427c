//! Agents by name, as the kit names them ([`AgentSpec`]: `random`,
//! `heuristic`, `ismcts:N`, `ismcts-h:N`, `flatmc:N`, `flatmc-h:N`); the engines build
//! their own heuristic and tuned search ([`boardgame_kit::Bots`]). This
//! module only reads lists of names and fits them to the seats.

use boardgame_kit::{Agent, AgentSpec, Bots, Entrant};

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
