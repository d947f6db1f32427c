#![allow(missing_docs, clippy::unwrap_used, clippy::indexing_slicing, clippy::panic, clippy::unreachable, dead_code)]
//! Stand-ins for the kit API that lands on `main` (Viewer, view_action,
//! Bots, AgentSpec, Driver); removed when the kit provides them.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use boardgame_kit::{
    AGENT_STREAM_BASE, Agent, Budget, CHANCE_STREAM, FlatMcAgent, Game, GameRecord, GameRng, IsMctsAgent, RandomAgent,
    RecordError, Turn, sample_chance,
};

/// Who looks at a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// A seat.
    Seat(usize),
    /// Nobody's seat.
    Spectator,
}

/// What `viewer` learns of `action` played in `state`.
pub fn view_action<G: Game>(state: &G, viewer: Viewer, action: G::Action) -> Option<G::Action> {
    let visible = |seat: usize| {
        let after = |a: G::Action| {
            let mut s = state.clone();
            s.apply(a).ok().and_then(|()| s.observation(seat).ok())
        };
        let Some(seen) = after(action) else { return false };
        let mut legal = G::ActionList::default();
        state.legal_actions(&mut legal);
        legal.iter().filter(|&&b| b != action).all(|&b| after(b).as_ref() != Some(&seen))
    };
    let ok = match viewer {
        Viewer::Seat(s) => visible(s),
        Viewer::Spectator => (0..state.num_players()).all(visible),
    };
    ok.then_some(action)
}

/// An engine's own agents.
pub trait Bots: Game {
    /// The heuristic agent.
    fn heuristic_agent() -> Option<Box<dyn Agent<Self>>> {
        None
    }
    /// The tuned ISMCTS.
    fn tuned_agent(_budget: Budget) -> Option<Box<dyn Agent<Self>>> {
        None
    }
}
impl<G: Game> Bots for G {}

/// An agent by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgentSpec {
    /// Random.
    Random,
    /// Heuristic.
    Heuristic,
    /// ISMCTS.
    IsMcts(Budget),
    /// Tuned ISMCTS.
    IsMctsH(Budget),
    /// Flat MC.
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

impl FromStr for AgentSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (kind, bud) = match s.split_once(':') {
            Some((k, b)) => (k, Some(b)),
            None => (s, None),
        };
        let budget = || -> Result<Budget, String> {
            let Some(b) = bud else { return Ok(Budget::Iterations(1000)) };
            let (d, u) = b.split_at(b.find(|c: char| !c.is_ascii_digit()).unwrap_or(b.len()));
            let n: u64 = d.parse().map_err(|_| format!("bad budget in `{s}`"))?;
            match u {
                "" => Ok(Budget::Iterations(n)),
                "ms" => Ok(Budget::Time(Duration::from_millis(n))),
                "s" => Ok(Budget::Time(Duration::from_secs(n))),
                _ => Err(format!("bad budget in `{s}`")),
            }
        };
        match kind {
            "random" if bud.is_none() => Ok(AgentSpec::Random),
            "heuristic" if bud.is_none() => Ok(AgentSpec::Heuristic),
            "ismcts" => Ok(AgentSpec::IsMcts(budget()?)),
            "ismcts-h" => Ok(AgentSpec::IsMctsH(budget()?)),
            "flatmc" => Ok(AgentSpec::FlatMc(budget()?)),
            _ => Err(format!("unknown agent `{s}`")),
        }
    }
}

impl AgentSpec {
    /// Builds the agent.
    pub fn build<G: Bots>(&self) -> Result<Box<dyn Agent<G>>, String> {
        match *self {
            AgentSpec::Random => Ok(Box::new(RandomAgent)),
            AgentSpec::Heuristic => G::heuristic_agent().ok_or_else(|| format!("no heuristic for {}", G::NAME)),
            AgentSpec::IsMcts(b) => Ok(Box::new(IsMctsAgent::<G>::new(b))),
            AgentSpec::IsMctsH(b) => G::tuned_agent(b).ok_or_else(|| format!("no heuristic for {}", G::NAME)),
            AgentSpec::FlatMc(b) => Ok(Box::new(FlatMcAgent::<G>::new(b))),
        }
    }
}

/// The stepping driver.
#[derive(Clone, Debug)]
pub struct Driver<G: Game> {
    state: G,
    record: GameRecord<G::Config>,
    chance: GameRng,
    seats: Vec<GameRng>,
}

impl<G: Game> Driver<G> {
    /// A new game.
    pub fn new(config: &G::Config, seed: u64) -> Result<Self, G::Error> {
        let state = G::new_game(config)?;
        let root = GameRng::new(seed);
        let seats = (0..state.num_players()).map(|s| root.child(AGENT_STREAM_BASE + s as u32)).collect();
        Ok(Driver {
            state,
            record: GameRecord::new::<G>(config.clone(), Some(seed)),
            chance: root.child(CHANCE_STREAM),
            seats,
        })
    }
    /// Resume.
    pub fn from_record(record: &GameRecord<G::Config>) -> Result<Self, RecordError> {
        let mut d = Driver::<G>::new(&record.config, record.seed.unwrap_or(0))
            .map_err(|e| RecordError::InvalidConfig(Box::new(e)))?;
        let mut chances = G::ChanceList::default();
        for (step, &id) in record.actions.iter().enumerate() {
            let a = G::action_from_id(&record.config, id).map_err(|e| RecordError::UnknownAction {
                step,
                id,
                source: Box::new(e),
            })?;
            if Game::turn(&d.state) == Turn::Chance {
                let _ = sample_chance(&d.state, &mut d.chance, &mut chances);
            }
            d.apply(a).map_err(|e| RecordError::IllegalAction {
                step,
                id,
                action: a.to_string(),
                source: Box::new(e),
            })?;
        }
        d.record.agents = record.agents.clone();
        Ok(d)
    }
    /// The state.
    pub fn state(&self) -> &G {
        &self.state
    }
    /// The turn.
    pub fn turn(&self) -> Turn {
        Game::turn(&self.state)
    }
    /// The record.
    pub fn record(&self) -> &GameRecord<G::Config> {
        &self.record
    }
    /// Steps.
    pub fn steps(&self) -> usize {
        self.record.actions.len()
    }
    /// Chance.
    pub fn step_chance(&mut self) -> Option<G::Action> {
        let mut chances = G::ChanceList::default();
        let a = sample_chance(&self.state, &mut self.chance, &mut chances)?;
        self.apply(a).ok()?;
        Some(a)
    }
    /// Agent.
    pub fn step_agent(&mut self, agent: &mut dyn Agent<G>) -> Result<G::Action, G::Error> {
        let Turn::Player(seat) = Game::turn(&self.state) else {
            return Err(format!("no seat to move")
                .parse::<G::Action>()
                .err()
                .unwrap_or_else(|| unreachable_err::<G>()));
        };
        let rng = &mut self.seats[seat];
        let a = agent.act(&self.state, seat, rng);
        self.apply(a)?;
        Ok(a)
    }
    /// Apply.
    pub fn apply(&mut self, action: G::Action) -> Result<(), G::Error> {
        self.state.apply(action)?;
        self.record.actions.push(G::action_id(self.state.config(), action));
        Ok(())
    }
}

fn unreachable_err<G: Game>() -> G::Error {
    match "".parse::<G::Action>() {
        Err(e) => e,
        Ok(_) => unreachable!(),
    }
}
