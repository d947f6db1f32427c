//! The engines served, behind one object-safe trait: how to build a table
//! from a request, resume one from disk, and replay a record.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use boardgame_kit::{AgentSpec, Budget, Driver, GameRecord, Turn};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::{AgentFactory, ServedGame};
use crate::error::ApiError;
use crate::lobby::LobbyRatings;
use crate::sched::Owner;
use crate::shared::Shared;
use crate::store::StoredTable;
use crate::table::{LiveTable, Seat, TableCell, outcome_view, turn_view};
use crate::token;

/// The body of `POST /api/tables`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateRequest {
    /// The engine's name.
    pub game: String,
    /// The number of players (else the config's, else the rules' default).
    #[serde(default)]
    pub players: Option<usize>,
    /// Configuration fields laid over the rules' defaults.
    #[serde(default)]
    pub config: Option<Map<String, Value>>,
    /// `human` or an agent name per seat; by default seat 0 is human and
    /// the others play the engine's heuristic (random without one).
    #[serde(default)]
    pub seats: Option<Vec<String>>,
    /// The client creating the table (not part of the body): its bots
    /// think in that client's turn and budget.
    #[serde(skip)]
    pub client: Option<crate::net::ClientKey>,
}

/// A new table: its handle and the secrets to hand out.
pub(crate) struct Created {
    pub table: Arc<dyn LiveTable>,
    pub seats: Vec<(String, Option<String>)>,
}

/// An engine, whatever its types.
pub(crate) trait Engine: Send + Sync {
    fn name(&self) -> &'static str;
    /// What the lobby shows: default config, player counts, agents (and
    /// their ratings, when the server was given them).
    fn info(&self) -> Value;
    /// The lobby's rated agents by player count (set once, before serving).
    fn set_lobby(&self, ratings: LobbyRatings) -> Result<(), String>;
    fn create(&self, shared: &Arc<Shared>, id: String, req: &CreateRequest) -> Result<Created, ApiError>;
    fn restore(&self, shared: &Arc<Shared>, stored: StoredTable) -> Result<(Arc<dyn LiveTable>, bool), String>;
    /// One page of the frames of `record` as `seat` saw it, as JSON bytes.
    fn replay(&self, record: Value, seat: usize, page: ReplayPage) -> Result<Vec<u8>, ApiError>;
}

/// Which frames a replay answer holds, and its bounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReplayPage {
    /// The first frame.
    pub from: usize,
    /// At most this many frames.
    pub frames: usize,
    /// At most about this many bytes (at least one frame is sent).
    pub bytes: usize,
    /// The longest record replayed.
    pub max_actions: usize,
}

/// [`Engine`] for `G`.
pub(crate) struct EngineOf<G: ServedGame> {
    agents: AgentFactory<G>,
    lobby: OnceLock<LobbyRatings>,
    _game: PhantomData<fn() -> G>,
}

impl<G: ServedGame> EngineOf<G> {
    pub(crate) fn new(agents: AgentFactory<G>) -> Self {
        EngineOf { agents, lobby: OnceLock::new(), _game: PhantomData }
    }
}

/// The agents offered in the lobby, when the engine has them (at a player
/// count with [`LobbyRatings`](crate::LobbyRatings), the agents rated there).
pub const LOBBY_AGENTS: [&str; 7] =
    ["heuristic", "random", "learned", "ismcts-h:300", "learned-ismcts:300", "ismcts:1000", "flatmc:200"];

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl<G: ServedGame> EngineOf<G> {
    /// The config of a request: the rules' default, the request's fields
    /// laid over it, then `players` (for configs with a `players` field).
    fn config(req: &CreateRequest) -> Result<G::Config, ApiError> {
        let players = req.players.or(req.seats.as_ref().map(Vec::len));
        let mut base = serde_json::to_value(G::Config::default())
            .map_err(|e| ApiError::internal(format!("cannot serialize the default config: {e}")))?;
        let fields = base.as_object_mut();
        let bad = |m: String| ApiError::unprocessable("bad_config", m);
        match fields {
            Some(fields) => {
                for (key, value) in req.config.iter().flatten() {
                    if !fields.contains_key(key) {
                        let known: Vec<&str> = fields.keys().map(String::as_str).collect();
                        return Err(bad(format!(
                            "{} has no config field `{key}` (fields: {})",
                            G::NAME,
                            known.join(", ")
                        )));
                    }
                    fields.insert(key.clone(), value.clone());
                }
                if let Some(p) = players
                    && fields.contains_key("players")
                {
                    fields.insert("players".into(), Value::from(p));
                }
            }
            None if req.config.as_ref().is_some_and(|c| !c.is_empty()) => {
                return Err(bad(format!("{} has no configurable fields", G::NAME)));
            }
            None => {}
        }
        let config: G::Config = serde_json::from_value(base).map_err(|e| bad(format!("config: {e}")))?;
        let game = G::new_game(&config).map_err(|e| bad(e.to_string()))?;
        if let Some(p) = players
            && p != game.num_players()
        {
            return Err(bad(format!("{} cannot be configured for {p} players", G::NAME)));
        }
        Ok(config)
    }

    fn seat_spec(&self, text: &str, seat: usize, shared: &Shared) -> Result<Option<AgentSpec>, ApiError> {
        if text.trim() == "human" {
            return Ok(None);
        }
        let bad = |m: String| ApiError::unprocessable("bad_seat", format!("seat {seat}: {m}"));
        let spec: AgentSpec = text.parse().map_err(|e| bad(format!("{e} (or `human`)")))?;
        if spec.weights_file().is_some() {
            // A request never names a file on the server's disk.
            return Err(bad(format!("`{spec}`: a request cannot name a weights file (the lobby's agents only)")));
        }
        (self.agents)(&spec).map_err(|e| bad(e.to_string()))?;
        let limit = &shared.config;
        match spec.budget() {
            Some(Budget::Iterations(n)) if n > limit.max_bot_iterations => Err(bad(format!(
                "`{spec}` asks for {n} iterations per decision; this server allows at most {}",
                limit.max_bot_iterations
            ))),
            Some(Budget::Time(t)) if t > limit.max_bot_time => Err(bad(format!(
                "`{spec}` asks for {t:?} per decision; this server allows at most {:?}",
                limit.max_bot_time
            ))),
            _ => Ok(Some(spec)),
        }
    }

    fn default_bot(&self) -> &'static str {
        if (self.agents)(&AgentSpec::Heuristic).is_ok() { "heuristic" } else { "random" }
    }
}

#[derive(Serialize)]
struct Frame<O> {
    step: usize,
    /// The action that led here as the replay's seat saw it: `None` for
    /// the start, and where the engine hides it from that seat
    /// (`Game::view_action`), as in the live view's log.
    action: Option<String>,
    by: Option<usize>,
    turn: crate::table::TurnView,
    scores: Vec<i32>,
    observation: Option<O>,
    /// The action that led here in words, as the replay's seat read it.
    words: Option<crate::table::Said>,
}

impl<G: ServedGame> Engine for EngineOf<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }

    fn info(&self) -> Value {
        let default = G::Config::default();
        let players = G::new_game(&default).map(|g| g.num_players()).unwrap_or(0);
        // The counts the engine accepts, asked of the engine itself.
        let counts: Vec<usize> = (1..=16)
            .filter(|&p| {
                let req =
                    CreateRequest { game: G::NAME.into(), players: Some(p), config: None, seats: None, client: None };
                Self::config(&req).is_ok()
            })
            .collect();
        let agents: Vec<&str> = LOBBY_AGENTS
            .iter()
            .copied()
            .filter(|a| a.parse::<AgentSpec>().is_ok_and(|s| (self.agents)(&s).is_ok()))
            .collect();
        let ratings: Map<String, Value> = self
            .lobby
            .get()
            .into_iter()
            .flatten()
            .map(|(n, list)| (n.to_string(), serde_json::to_value(list).unwrap_or(Value::Null)))
            .collect();
        serde_json::json!({
            "name": G::NAME,
            "players": players,
            "player_counts": counts,
            "config": serde_json::to_value(&default).unwrap_or(Value::Null),
            "agents": agents,
            "ratings": ratings,
            "default_bot": self.default_bot(),
            "how_to_play": {
                "en": <G as boardgame_kit::Words>::how_to_play(boardgame_kit::Lang::En),
                "ru": <G as boardgame_kit::Words>::how_to_play(boardgame_kit::Lang::Ru),
            },
            "rules": <G as boardgame_kit::Words>::rules_text(),
        })
    }

    fn set_lobby(&self, ratings: LobbyRatings) -> Result<(), String> {
        for (&n, list) in &ratings {
            let req = CreateRequest { game: G::NAME.into(), players: Some(n), config: None, seats: None, client: None };
            Self::config(&req).map_err(|e| format!("lobby ratings of {} at {n} players: {e:?}", G::NAME))?;
            for a in list {
                let spec: AgentSpec = a.agent.parse().map_err(|e| format!("lobby ratings of {}: {e}", G::NAME))?;
                if spec.weights_file().is_some() {
                    return Err(format!("lobby ratings of {}: `{}` names a weights file", G::NAME, a.agent));
                }
                (self.agents)(&spec).map_err(|e| format!("lobby ratings of {}: {e}", G::NAME))?;
                if !crate::lobby::LABELS.contains(&a.label.as_str()) {
                    return Err(format!("lobby ratings of {}: unknown label `{}`", G::NAME, a.label));
                }
            }
        }
        self.lobby.set(ratings).map_err(|_| format!("the lobby ratings of {} were given twice", G::NAME))
    }

    fn create(&self, shared: &Arc<Shared>, id: String, req: &CreateRequest) -> Result<Created, ApiError> {
        let config = Self::config(req)?;
        let n = G::new_game(&config)
            .map(|g| g.num_players())
            .map_err(|e| ApiError::unprocessable("bad_config", e.to_string()))?;
        let names: Vec<String> = match &req.seats {
            Some(s) => s.clone(),
            None => (0..n).map(|s| if s == 0 { "human".into() } else { self.default_bot().into() }).collect(),
        };
        if names.len() != n {
            return Err(ApiError::unprocessable(
                "bad_seats",
                format!("the table has {n} seats but {} were given", names.len()),
            ));
        }
        let mut seats = Vec::with_capacity(n);
        for (s, name) in names.iter().enumerate() {
            seats.push(match self.seat_spec(name, s, shared)? {
                None => Seat::Human { token: token::random_hex(token::TOKEN_BYTES).map_err(ApiError::entropy)? },
                Some(spec) => Seat::Bot(spec),
            });
        }
        let seed = token::random_seed().map_err(ApiError::entropy)?;
        let mut driver =
            Driver::<G>::new(&config, seed).map_err(|e| ApiError::unprocessable("bad_config", e.to_string()))?;
        let secrets: Vec<(String, Option<String>)> = seats
            .iter()
            .map(|s| match s {
                Seat::Human { token } => ("human".to_string(), Some(token.clone())),
                Seat::Bot(spec) => (spec.to_string(), None),
            })
            .collect();
        // The record names every seat: `human` or the bot's agent.
        driver.set_agent_names(secrets.iter().map(|(name, _)| name.clone()).collect());
        let cell = TableCell::new(id, seats, unix_now(), driver, shared.clone());
        cell.start(self.agents, req.client.map_or_else(Owner::lone, Owner::Client));
        Ok(Created { table: cell, seats: secrets })
    }

    fn restore(&self, shared: &Arc<Shared>, stored: StoredTable) -> Result<(Arc<dyn LiveTable>, bool), String> {
        let record: GameRecord<G::Config> =
            GameRecord::from_json::<G>(&stored.record.to_string()).map_err(|e| e.to_string())?;
        let driver = Driver::<G>::from_record(&record).map_err(|e| e.to_string())?;
        let finished = driver.turn() == Turn::Terminal;
        let n = driver.state().num_players();
        if stored.seats.len() != n {
            return Err(format!("{} seats kept for a game of {n}", stored.seats.len()));
        }
        let mut seats = Vec::with_capacity(n);
        for (s, kept) in stored.seats.iter().enumerate() {
            seats.push(match (&kept.token, kept.kind.as_str()) {
                (Some(t), "human") if token::is_hex(t, token::TOKEN_BYTES) => Seat::Human { token: t.clone() },
                (None, kind) => {
                    let spec: AgentSpec = kind.parse().map_err(|e| format!("seat {s}: {e}"))?;
                    (self.agents)(&spec).map_err(|e| format!("seat {s}: {e}"))?;
                    Seat::Bot(spec)
                }
                _ => return Err(format!("seat {s}: neither a human with a token nor a bot")),
            });
        }
        let cell = TableCell::new(stored.id, seats, stored.created, driver, shared.clone());
        cell.rebuild_log()?;
        cell.start(self.agents, Owner::lone());
        Ok((cell, finished))
    }

    fn replay(&self, record: Value, seat: usize, page: ReplayPage) -> Result<Vec<u8>, ApiError> {
        let bad = |m: String| ApiError::unprocessable("bad_record", m);
        let record: GameRecord<G::Config> =
            GameRecord::from_json::<G>(&record.to_string()).map_err(|e| bad(e.to_string()))?;
        if record.actions.len() > G::max_game_length(&record.config).min(page.max_actions) {
            return Err(bad(format!("the record has {} actions, more than a game can have", record.actions.len())));
        }
        let mut state = G::new_game(&record.config).map_err(|e| bad(e.to_string()))?;
        let n = state.num_players();
        if seat >= n {
            return Err(bad(format!("seat {seat} does not exist ({n} players)")));
        }
        let total = record.actions.len() + 1;
        if page.from >= total {
            return Err(bad(format!("frame {} does not exist (the record has {total} frames)", page.from)));
        }
        let frame = |state: &G, step: usize, action: Option<String>, by: Option<usize>, words| Frame::<G::Observation> {
            step,
            action,
            by,
            words,
            turn: turn_view(state.turn()),
            scores: (0..n).map(|s| state.score(s)).collect(),
            observation: state.observation(seat).ok(),
        };
        // Frames are written as they are made, within the page's bounds;
        // the rest of the record is still checked (every action legal).
        let mut frames = b"[".to_vec();
        let mut next = None;
        // Adds the frame of `step`, or says the page is full.
        let push = |frames: &mut Vec<u8>, f: &Frame<G::Observation>, step: usize| -> Result<bool, ApiError> {
            let bytes = serde_json::to_vec(f).map_err(|e| ApiError::internal(format!("a frame: {e}")))?;
            let count = step.saturating_sub(page.from);
            if count > 0 && (count >= page.frames || frames.len() + bytes.len() > page.bytes) {
                return Ok(false);
            }
            if count > 0 {
                frames.push(b',');
            }
            frames.extend_from_slice(&bytes);
            Ok(true)
        };
        if page.from == 0 && !push(&mut frames, &frame(&state, 0, None, None, None), 0)? {
            next = Some(0);
        }
        for (step, &id) in record.actions.iter().enumerate() {
            let action = G::action_from_id(&record.config, id).map_err(|e| bad(format!("step {step}: {e}")))?;
            let by = match state.turn() {
                Turn::Player(s) => Some(s),
                _ => None,
            };
            let viewer = boardgame_kit::Viewer::Seat(seat);
            let words = crate::table::Said::of(&state, viewer, action);
            // What this seat learnt of the action, as its live log showed it
            // (`None` where the engine hides it).
            let seen = state.view_action(viewer, action).map(|a| a.to_string());
            state.apply(action).map_err(|e| bad(format!("step {step}: {e}")))?;
            let at = step + 1;
            if at >= page.from && next.is_none() && !push(&mut frames, &frame(&state, at, seen, by, Some(words)), at)? {
                next = Some(at);
            }
        }
        frames.push(b']');
        let head = serde_json::to_vec(&serde_json::json!({
            "game": G::NAME,
            "players": n,
            "seat": seat,
            "config": serde_json::to_value(&record.config).unwrap_or(Value::Null),
            "agents": record.agents,
            "outcome": outcome_view(state.outcome()),
            "frames_total": total,
            "from": page.from,
            "next": next,
        }))
        .map_err(|e| ApiError::internal(format!("the replay: {e}")))?;
        // `{…head…}` becomes `{…head…,"frames":[…]}`.
        let mut out = head;
        out.pop();
        out.extend_from_slice(b",\"frames\":");
        out.extend_from_slice(&frames);
        out.push(b'}');
        Ok(out)
    }
}
