//! One table: the kit's driver, its seats, the game log as each viewer may
//! see it, and the task that plays the bots' and chance's turns.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use boardgame_kit::{ActionId, Agent, AgentSpec, Driver, Game, Lang, Outcome, RandomAgent, Turn, Viewer};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{Notify, watch};

use crate::config::{AgentFactory, ServedGame};
use crate::error::ApiError;
use crate::sched::Owner;
use crate::shared::Shared;
use crate::store::{STORE_FORMAT, StoredSeat, StoredTable};
use crate::token;

/// Who sits in a seat.
#[derive(Clone, Debug)]
pub(crate) enum Seat {
    /// A person, who acts with this secret.
    Human {
        /// 128 bits from the OS, hex.
        token: String,
    },
    /// A bot.
    Bot(AgentSpec),
}

impl Seat {
    pub(crate) fn kind(&self) -> String {
        match self {
            Seat::Human { .. } => "human".to_string(),
            Seat::Bot(spec) => spec.to_string(),
        }
    }
}

/// One action of the log, with what every viewer learnt of it: `views[s]`
/// for seat `s`, `views[n]` for a spectator (`None`: hidden).
struct LogEntry<G: Game> {
    by: Option<usize>,
    views: Vec<Option<G::Action>>,
    /// What every viewer reads of it, in words (`words[v]` as `views[v]`;
    /// viewers who read the same share one copy).
    words: Vec<Arc<Said>>,
}

/// An action in plain words in every language the page speaks
/// (`boardgame_kit::Words`), for one viewer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Said {
    en: String,
    ru: String,
}

impl Said {
    /// For a viewer the log has no words for (cannot happen: every entry
    /// has one per viewer).
    fn hidden() -> Said {
        Said { en: "(hidden)".into(), ru: "(скрыто)".into() }
    }

    pub(crate) fn of<G: ServedGame>(state: &G, viewer: Viewer, action: G::Action) -> Said {
        Said { en: state.words(viewer, action, Lang::En), ru: state.words(viewer, action, Lang::Ru) }
    }
}

impl<G: ServedGame> LogEntry<G> {
    /// The entry of `action` played by `by` in `state` (before it is applied).
    fn new(state: &G, action: G::Action, by: Option<usize>) -> LogEntry<G> {
        let n = state.num_players();
        let viewer = |v: usize| if v < n { Viewer::Seat(v) } else { Viewer::Spectator };
        let views = (0..=n).map(|v| state.view_action(viewer(v), action)).collect();
        let mut words: Vec<Arc<Said>> = Vec::with_capacity(n + 1);
        for v in 0..=n {
            let said = Said::of(state, viewer(v), action);
            let shared = words.iter().find(|w| ***w == said).cloned();
            words.push(shared.unwrap_or_else(|| Arc::new(said)));
        }
        LogEntry { by, views, words }
    }
}

/// The mutable part of a table.
pub(crate) struct Inner<G: Game> {
    driver: Driver<G>,
    log: Vec<LogEntry<G>>,
    /// The bot seat thinking now, if any.
    thinking: Option<usize>,
}

impl<G: ServedGame> Inner<G> {
    /// Replaces the driver by `next`, which is the current one plus the
    /// single action `action` played by `by`, logging what each viewer
    /// learns of it (asked of the state before the action).
    fn commit(&mut self, next: Driver<G>, action: G::Action, by: Option<usize>) {
        self.log.push(LogEntry::new(self.driver.state(), action, by));
        self.driver = next;
    }
}

/// A table shared by the HTTP handlers and its bot task.
pub(crate) struct TableCell<G: Game> {
    pub(crate) id: String,
    seats: Vec<Seat>,
    created: u64,
    inner: Mutex<Inner<G>>,
    version: watch::Sender<u64>,
    wake: Notify,
    closed: AtomicBool,
    /// Milliseconds since the server started, at the last action.
    last_active: AtomicU64,
    /// Held by whoever changes the table (a person's action, a bot's or
    /// chance's): the change is saved, then shown, before the next starts.
    writer: tokio::sync::Mutex<()>,
    shared: Arc<Shared>,
}

/// A future the handlers await, whatever the table's engine.
pub(crate) type Pending<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What the handlers need of a table, whatever its engine.
pub(crate) trait LiveTable: Send + Sync {
    /// The view of the seat holding `token` (the public view without one).
    fn view(&self, token: Option<&str>) -> Result<Value, ApiError>;
    /// Plays `action` for the seat holding `token`: checked, saved (with a
    /// data directory), and only then shown.
    fn act(
        self: Arc<Self>,
        token: String,
        action: ActionText,
        version: Option<u64>,
    ) -> Pending<Result<Value, ApiError>>;
    /// The record, once the game is over.
    fn record(&self) -> Result<Value, ApiError>;
    /// Live updates: the number of actions played.
    fn subscribe(&self) -> watch::Receiver<u64>;
    /// Milliseconds (server clock) of the last action.
    fn last_active(&self) -> u64;
    /// Stops the bot task.
    fn close(&self);
    /// Writes the table to the data directory, if there is one.
    fn save_now(self: Arc<Self>) -> Pending<Result<(), ApiError>>;
    /// Whether the game is over.
    fn finished(&self) -> bool;
}

/// An action as a client names it: notation, or an id.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(untagged)]
pub(crate) enum ActionText {
    /// An action id.
    Id(u64),
    /// Notation (or an id written as text).
    Text(String),
}

#[derive(Serialize)]
struct SeatView {
    seat: usize,
    kind: String,
    score: i32,
    you: bool,
}

#[derive(Serialize)]
struct LogView {
    step: usize,
    /// The seat that acted; `None` for chance.
    by: Option<usize>,
    /// The notation, `None` when hidden from this viewer.
    action: Option<String>,
    id: Option<ActionId>,
    /// The action in words for this viewer (hiding what `action` hides).
    words: Said,
}

#[derive(Serialize)]
struct LegalView {
    id: ActionId,
    action: String,
    /// The action in words.
    words: Said,
}

#[derive(Serialize)]
pub(crate) struct TurnView {
    kind: &'static str,
    seat: Option<usize>,
}

pub(crate) fn turn_view(turn: Turn) -> TurnView {
    match turn {
        Turn::Player(s) => TurnView { kind: "player", seat: Some(s) },
        Turn::Chance => TurnView { kind: "chance", seat: None },
        Turn::Terminal => TurnView { kind: "terminal", seat: None },
    }
}

#[derive(Serialize)]
pub(crate) struct OutcomeView {
    winners: Vec<usize>,
    draw: bool,
}

pub(crate) fn outcome_view(outcome: Option<Outcome>) -> Option<OutcomeView> {
    outcome.map(|o| OutcomeView { winners: o.winners().iter().collect(), draw: matches!(o, Outcome::Draw(_)) })
}

#[derive(Serialize)]
struct View<'a, G: ServedGame> {
    id: &'a str,
    game: &'static str,
    players: usize,
    /// The viewer's seat; `None` for the public view.
    seat: Option<usize>,
    /// Actions played so far (send it back with an action).
    version: u64,
    seats: Vec<SeatView>,
    turn: TurnView,
    /// The bot seat thinking now.
    thinking: Option<usize>,
    /// The kit's observation of the viewer's seat; in the public view the
    /// game's public observation (Caravan's whole board), or `None`.
    observation: Option<G::Observation>,
    log: Vec<LogView>,
    /// Legal actions, when it is the viewer's turn.
    legal: Vec<LegalView>,
    outcome: Option<OutcomeView>,
    config: &'a G::Config,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave a half-made table: every
    // critical section either commits a whole driver or nothing.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<G: ServedGame> TableCell<G> {
    /// A new table, not yet running (see [`TableCell::start`]).
    pub(crate) fn new(
        id: String,
        seats: Vec<Seat>,
        created: u64,
        driver: Driver<G>,
        shared: Arc<Shared>,
    ) -> Arc<TableCell<G>> {
        let steps = driver.steps() as u64;
        let (version, _) = watch::channel(steps);
        let now = shared.now_ms();
        Arc::new(TableCell {
            id,
            seats,
            created,
            inner: Mutex::new(Inner { driver, log: Vec::new(), thinking: None }),
            version,
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            last_active: AtomicU64::new(now),
            writer: tokio::sync::Mutex::new(()),
            shared,
        })
    }

    /// Rebuilds the log of a resumed table by replaying its record: the
    /// views of every action, asked of the state before it.
    pub(crate) fn rebuild_log(&self) -> Result<(), String> {
        let mut inner = lock(&self.inner);
        let record = inner.driver.record().cloned().ok_or("the driver keeps no record")?;
        let mut state = G::new_game(&record.config).map_err(|e| e.to_string())?;
        let mut log = Vec::with_capacity(record.actions.len());
        for &id in &record.actions {
            let action = G::action_from_id(&record.config, id).map_err(|e| e.to_string())?;
            let by = match state.turn() {
                Turn::Player(s) => Some(s),
                _ => None,
            };
            log.push(LogEntry::new(&state, action, by));
            state.apply(action).map_err(|e| e.to_string())?;
        }
        inner.log = log;
        Ok(())
    }

    /// Starts the task that plays chance and the bot seats.
    pub(crate) fn start(self: &Arc<Self>, factory: AgentFactory<G>, owner: Owner) {
        let agents: Vec<Option<Box<dyn Agent<G>>>> = self
            .seats
            .iter()
            .map(|s| match s {
                // Checked when the seat was made; random play if it fails now.
                Seat::Bot(spec) => Some(factory(spec).unwrap_or_else(|_| Box::new(RandomAgent))),
                Seat::Human { .. } => None,
            })
            .collect();
        tokio::spawn(run_table(self.clone(), agents, owner));
    }

    fn seat_of(&self, token: &str) -> Option<usize> {
        // Every seat is compared, so the time taken does not tell which.
        let mut found = None;
        for (s, seat) in self.seats.iter().enumerate() {
            if let Seat::Human { token: t } = seat
                && token::same(t, token)
            {
                found = Some(s);
            }
        }
        found
    }

    fn touch(&self) {
        self.last_active.store(self.shared.now_ms(), Ordering::Relaxed);
    }

    fn announce(&self, steps: usize) {
        self.version.send_replace(steps as u64);
        self.touch();
    }

    fn view_of(&self, inner: &Inner<G>, seat: Option<usize>) -> Value {
        let state = inner.driver.state();
        let n = state.num_players();
        let viewer = seat.unwrap_or(n);
        let turn = state.turn();
        let mut legal = Vec::new();
        if let (Turn::Player(p), Some(s)) = (turn, seat)
            && p == s
        {
            let mut list = G::ActionList::default();
            state.legal_actions(&mut list);
            legal = list
                .iter()
                .map(|&a| LegalView {
                    id: G::action_id(state.config(), a),
                    action: a.to_string(),
                    words: Said::of(state, Viewer::Seat(s), a),
                })
                .collect();
        }
        let log = inner
            .log
            .iter()
            .enumerate()
            .map(|(step, e)| {
                let seen = e.views.get(viewer).copied().flatten();
                LogView {
                    step,
                    by: e.by,
                    action: seen.map(|a| a.to_string()),
                    id: seen.map(|a| G::action_id(state.config(), a)),
                    words: e.words.get(viewer).map_or_else(Said::hidden, |w| Said::clone(w)),
                }
            })
            .collect();
        let view = View::<G> {
            id: &self.id,
            game: G::NAME,
            players: n,
            seat,
            version: inner.driver.steps() as u64,
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(s, k)| SeatView { seat: s, kind: k.kind(), score: state.score(s), you: seat == Some(s) })
                .collect(),
            turn: turn_view(turn),
            thinking: inner.thinking,
            observation: match seat {
                Some(s) => state.observation(s).ok(),
                // a spectator: the public observation, where the game has one
                None => state.public_observation(),
            },
            log,
            legal,
            outcome: outcome_view(state.outcome()),
            config: state.config(),
        };
        serde_json::to_value(&view).unwrap_or(Value::Null)
    }

    fn stored(&self, driver: &Driver<G>) -> StoredTable {
        StoredTable {
            format: STORE_FORMAT,
            id: self.id.clone(),
            game: G::NAME.to_string(),
            created: self.created,
            seats: self
                .seats
                .iter()
                .map(|s| match s {
                    Seat::Human { token } => StoredSeat { kind: "human".into(), token: Some(token.clone()) },
                    Seat::Bot(spec) => StoredSeat { kind: spec.to_string(), token: None },
                })
                .collect(),
            record: driver.record().and_then(|r| serde_json::to_value(r).ok()).unwrap_or(Value::Null),
        }
    }

    /// Saves the table as `driver` has it (with a data directory), on top
    /// of the actions committed in memory (`new`: a table not yet saved);
    /// done once it is on disk. Called with the writer lock held. The store
    /// logs failures.
    async fn save(&self, driver: &Driver<G>, new: bool) -> Result<(), ApiError> {
        let Some(store) = &self.shared.store else { return Ok(()) };
        let known = (!new).then(|| lock(&self.inner).driver.steps() as u64);
        store.save(&self.stored(driver), known).await.map_err(|e| {
            ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                "not_saved",
                format!("the table could not be saved, so nothing was played: {e}"),
            )
        })
    }

    /// Checks and plays a person's action: saved, then committed.
    async fn act_now(&self, token: &str, action: &ActionText, version: Option<u64>) -> Result<Value, ApiError> {
        let seat = self.seat_of(token).ok_or_else(ApiError::bad_token)?;
        let _writer = self.writer.lock().await;
        let (next, action) = {
            let inner = lock(&self.inner);
            let state = inner.driver.state();
            match state.turn() {
                Turn::Terminal => return Err(ApiError::conflict("game_over", "the game is over".into())),
                Turn::Player(p) if p == seat => {}
                Turn::Player(p) => {
                    return Err(ApiError::conflict(
                        "not_your_turn",
                        format!("it is seat {p}'s turn, not seat {seat}'s"),
                    ));
                }
                Turn::Chance => {
                    return Err(ApiError::conflict("not_your_turn", format!("chance acts now, not seat {seat}")));
                }
            }
            let steps = inner.driver.steps() as u64;
            if let Some(v) = version
                && v != steps
            {
                return Err(ApiError::conflict(
                    "stale",
                    format!("the table moved on: your view is at version {v}, the table at {steps}"),
                ));
            }
            let action = Self::parse_action(state, action)?;
            let mut next = inner.driver.clone();
            next.apply(action).map_err(|e| ApiError::unprocessable("illegal", e.to_string()))?;
            (next, action)
        };
        self.save(&next, false).await?;
        let steps = {
            let mut inner = lock(&self.inner);
            inner.commit(next, action, Some(seat));
            inner.driver.steps()
        };
        self.announce(steps);
        self.wake.notify_one();
        Ok(serde_json::json!({ "version": steps, "action": action.to_string() }))
    }

    fn parse_action(state: &G, text: &ActionText) -> Result<G::Action, ApiError> {
        let config = state.config();
        let from_id = |id: u64| {
            u32::try_from(id)
                .map_err(|_| {
                    ApiError::unprocessable(
                        "unknown_action",
                        format!(
                            "unknown action id {id} (the action space has {} ids)",
                            G::num_distinct_actions(config)
                        ),
                    )
                })
                .and_then(|id| {
                    G::action_from_id(config, id).map_err(|e| ApiError::unprocessable("unknown_action", e.to_string()))
                })
        };
        match text {
            ActionText::Id(id) => from_id(*id),
            ActionText::Text(t) => {
                let t = t.trim();
                if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    return t
                        .parse::<u64>()
                        .map_err(|e| ApiError::unprocessable("unknown_action", e.to_string()))
                        .and_then(from_id);
                }
                t.parse::<G::Action>().map_err(|e| ApiError::unprocessable("bad_notation", e.to_string()))
            }
        }
    }
}

impl<G: ServedGame> LiveTable for TableCell<G> {
    fn view(&self, token: Option<&str>) -> Result<Value, ApiError> {
        let seat = match token {
            None => None,
            Some(t) => Some(self.seat_of(t).ok_or_else(ApiError::bad_token)?),
        };
        let inner = lock(&self.inner);
        Ok(self.view_of(&inner, seat))
    }

    fn act(
        self: Arc<Self>,
        token: String,
        action: ActionText,
        version: Option<u64>,
    ) -> Pending<Result<Value, ApiError>> {
        Box::pin(async move { self.act_now(&token, &action, version).await })
    }

    fn record(&self) -> Result<Value, ApiError> {
        let inner = lock(&self.inner);
        if inner.driver.turn() != Turn::Terminal {
            return Err(ApiError::conflict(
                "not_finished",
                "the record is published when the game is over (it holds every hidden card)".into(),
            ));
        }
        Ok(inner.driver.record().and_then(|r| serde_json::to_value(r).ok()).unwrap_or(Value::Null))
    }

    fn subscribe(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    fn last_active(&self) -> u64 {
        self.last_active.load(Ordering::Relaxed)
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    fn save_now(self: Arc<Self>) -> Pending<Result<(), ApiError>> {
        Box::pin(async move {
            let _writer = self.writer.lock().await;
            let driver = lock(&self.inner).driver.clone();
            self.save(&driver, true).await
        })
    }

    fn finished(&self) -> bool {
        lock(&self.inner).driver.turn() == Turn::Terminal
    }
}

/// How long a table's task waits before trying again after a failed save.
const SAVE_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// What the table's task does next.
enum Job {
    Wait,
    Chance,
    Bot(usize),
}

/// Plays chance and the bot seats until the game ends or the table closes.
async fn run_table<G: ServedGame>(cell: Arc<TableCell<G>>, mut agents: Vec<Option<Box<dyn Agent<G>>>>, owner: Owner) {
    for a in agents.iter_mut().flatten() {
        a.reset();
    }
    loop {
        if cell.closed.load(Ordering::SeqCst) {
            return;
        }
        let job = {
            let inner = lock(&cell.inner);
            match inner.driver.turn() {
                Turn::Chance => Job::Chance,
                Turn::Player(s) if agents.get(s).is_some_and(Option::is_some) => Job::Bot(s),
                _ => Job::Wait,
            }
        };
        match job {
            Job::Wait => cell.wake.notified().await,
            Job::Chance => {
                let writer = cell.writer.lock().await;
                let next = {
                    let inner = lock(&cell.inner);
                    let mut next = inner.driver.clone();
                    match next.step_chance() {
                        Some(a) => (next, a),
                        None => {
                            eprintln!("table {}: a chance node listed no outcome", cell.id);
                            return;
                        }
                    }
                };
                if cell.save(&next.0, false).await.is_err() {
                    // Nothing is shown that is not saved: try again later.
                    drop(writer);
                    tokio::time::sleep(SAVE_RETRY).await;
                    continue;
                }
                let steps = {
                    let mut inner = lock(&cell.inner);
                    inner.commit(next.0, next.1, None);
                    inner.driver.steps()
                };
                drop(writer);
                cell.announce(steps);
            }
            Job::Bot(seat) => {
                if !cell.shared.config.bot_delay.is_zero() {
                    tokio::time::sleep(cell.shared.config.bot_delay).await;
                }
                // The table waits for its turn among its client's tables, and
                // the client for its turn among the clients.
                let Some(slot) = cell.shared.bots.slot(owner).await else { return };
                if cell.closed.load(Ordering::SeqCst) {
                    return;
                }
                let Some(mut agent) = agents.get_mut(seat).and_then(Option::take) else { return };
                let (mut next, before) = {
                    let mut inner = lock(&cell.inner);
                    inner.thinking = Some(seat);
                    (inner.driver.clone(), inner.driver.steps())
                };
                cell.version.send_modify(|_| {});
                let thought = tokio::task::spawn_blocking(move || {
                    let r = next.step_agent(&mut *agent);
                    (next, agent, r)
                })
                .await;
                // The slot is given back (its time charged) before the save.
                drop(slot);
                let writer = cell.writer.lock().await;
                let (next, action) = {
                    let mut inner = lock(&cell.inner);
                    inner.thinking = None;
                    match thought {
                        Ok((next, agent, Ok(action))) if inner.driver.steps() == before => {
                            if let Some(slot) = agents.get_mut(seat) {
                                *slot = Some(agent);
                            }
                            (next, action)
                        }
                        Ok((_, _, Err(e))) => {
                            // Nothing was played; the seat goes on with uniformly random play.
                            eprintln!(
                                "table {}: the bot of seat {seat} failed ({e}); it plays at random from now on",
                                cell.id
                            );
                            if let Some(slot) = agents.get_mut(seat) {
                                *slot = Some(Box::new(RandomAgent));
                            }
                            continue;
                        }
                        Ok(_) => {
                            eprintln!("table {}: the table changed while seat {seat} thought", cell.id);
                            return;
                        }
                        Err(e) => {
                            eprintln!("table {}: bot of seat {seat} stopped: {e}", cell.id);
                            return;
                        }
                    }
                };
                if cell.save(&next, false).await.is_err() {
                    // Not shown; the bot thinks again later.
                    drop(writer);
                    cell.version.send_modify(|_| {});
                    tokio::time::sleep(SAVE_RETRY).await;
                    continue;
                }
                let steps = {
                    let mut inner = lock(&cell.inner);
                    inner.commit(next, action, Some(seat));
                    inner.driver.steps()
                };
                drop(writer);
                cell.announce(steps);
            }
        }
    }
}
