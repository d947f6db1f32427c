//! The HTTP layer: routes, extractors, typed errors as JSON responses, the
//! table registry and the idle sweeper.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio_stream::wrappers::WatchStream;

use crate::config::ServerConfig;
use crate::engine::{CreateRequest, Engine, ReplayPage};
use crate::error::{ApiError, Param};
use crate::net::{Client, ClientKey, PerClient};
use crate::shared::Shared;
use crate::store::{SetAside, Store, StoredTable};
use crate::table::{ActionText, LiveTable};
use crate::{assets, token};

/// `Json` whose rejections are [`ApiError`]s, read within the body timeout.
pub(crate) struct Body<T>(T);

impl<T: serde::de::DeserializeOwned> FromRequest<Arc<App>> for Body<T> {
    type Rejection = ApiError;
    async fn from_request(req: Request, state: &Arc<App>) -> Result<Self, ApiError> {
        let limit = state.shared.config.body_timeout;
        match tokio::time::timeout(limit, Json::<T>::from_request(req, state)).await {
            Ok(parsed) => Ok(Body(parsed?.0)),
            Err(_) => Err(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "body_timeout",
                format!("the request body did not arrive within {limit:?}"),
            )),
        }
    }
}

/// A client's allowance of new tables: a token bucket.
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The server's state.
pub(crate) struct App {
    shared: Arc<Shared>,
    engines: Vec<Arc<dyn Engine>>,
    tables: RwLock<HashMap<String, Arc<dyn LiveTable>>>,
    /// The tables read from the data directory, until resumed.
    kept: Mutex<Vec<StoredTable>>,
    /// The tables set aside: not served, answered `410 set_aside`.
    aside: Mutex<HashMap<String, SetAside>>,
    /// Who created each live table (tables resumed from disk have no one).
    owners: Mutex<HashMap<String, ClientKey>>,
    buckets: Mutex<HashMap<ClientKey, Bucket>>,
    streams: Arc<Semaphore>,
    streams_per_client: Arc<PerClient>,
    replays: Arc<Semaphore>,
    replays_per_client: Arc<PerClient>,
}

fn guard<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl App {
    pub(crate) fn new(config: ServerConfig, engines: Vec<Arc<dyn Engine>>) -> std::io::Result<Arc<App>> {
        let (recover, warn) = (config.recover_from_last_intact_commit, config.checkpoint_warning);
        let opened = config.data_dir.as_deref().map(|d| Store::open(d, recover, warn)).transpose()?;
        let (store, kept, aside) = match opened {
            Some(o) => (Some(o.store), o.tables, o.aside),
            None => (None, Vec::new(), HashMap::new()),
        };
        let bots = crate::sched::BotScheduler::new(&config);
        let streams = Arc::new(Semaphore::new(config.max_event_streams));
        let streams_per_client = PerClient::new(config.max_event_streams_per_client);
        let replays = Arc::new(Semaphore::new(config.max_replays));
        let replays_per_client = PerClient::new(config.max_replays_per_client);
        Ok(Arc::new(App {
            shared: Arc::new(Shared {
                config,
                store,
                bots,
                started: Instant::now(),
                stopping: tokio::sync::watch::channel(false).0,
            }),
            engines,
            tables: RwLock::new(HashMap::new()),
            kept: Mutex::new(kept),
            aside: Mutex::new(aside),
            owners: Mutex::new(HashMap::new()),
            buckets: Mutex::new(HashMap::new()),
            streams,
            streams_per_client,
            replays,
            replays_per_client,
        }))
    }

    pub(crate) fn config(&self) -> &ServerConfig {
        &self.shared.config
    }

    /// Whether `client` may create one more table now: at most
    /// `max_tables_per_client` unfinished tables, and a token bucket of
    /// `table_burst` refilled one per `table_refill`.
    fn admit(&self, client: Option<ClientKey>) -> Result<(), ApiError> {
        let Some(key) = client else { return Ok(()) };
        let config = &self.shared.config;
        let live = {
            let owners = guard(&self.owners);
            let tables = self.tables.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            owners.iter().filter(|(id, k)| **k == key && tables.get(*id).is_some_and(|t| !t.finished())).count()
        };
        if live >= config.max_tables_per_client {
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_tables",
                format!(
                    "{key} has {live} unfinished tables, the most one client may have; finish or leave one (idle tables close after {} min)",
                    config.idle_expiry.as_secs() / 60
                ),
            )
            .retry_after(60));
        }
        let mut buckets = guard(&self.buckets);
        let now = Instant::now();
        let burst = f64::from(config.table_burst);
        let b = buckets.entry(key).or_insert(Bucket { tokens: burst, at: now });
        let refill = config.table_refill.as_secs_f64();
        b.tokens =
            if refill > 0.0 { (b.tokens + now.duration_since(b.at).as_secs_f64() / refill).min(burst) } else { burst };
        b.at = now;
        if b.tokens < 1.0 {
            let wait = ((1.0 - b.tokens) * refill).ceil() as u64;
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "slow_down",
                format!(
                    "{key} created {} tables in a short time; one more every {:?} (try again in {wait} s)",
                    config.table_burst, config.table_refill
                ),
            )
            .retry_after(wait));
        }
        b.tokens -= 1.0;
        Ok(())
    }

    fn engine(&self, name: &str) -> Option<&Arc<dyn Engine>> {
        self.engines.iter().find(|e| e.name() == name)
    }

    fn table(&self, id: &str) -> Result<Arc<dyn LiveTable>, ApiError> {
        let tables = self.tables.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        tables.get(id).cloned().ok_or_else(|| match guard(&self.aside).get(id) {
            Some(a) => ApiError::set_aside(id, &a.why),
            None => ApiError::unknown_table(id),
        })
    }

    pub(crate) fn table_count(&self) -> usize {
        self.tables.read().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// Resumes every table of the data directory.
    pub(crate) async fn resume_all(self: &Arc<Self>) -> std::io::Result<()> {
        let kept = std::mem::take(&mut *guard(&self.kept));
        let (mut live, mut done) = (0, 0);
        for stored in kept {
            if self.table_count() >= self.shared.config.max_tables {
                eprintln!("table {}: not resumed, the server is full", stored.id);
                continue;
            }
            if !token::is_hex(&stored.id, token::ID_BYTES) {
                eprintln!("table {}: not an id of this server, skipped", stored.id);
                continue;
            }
            let Some(engine) = self.engine(&stored.game) else {
                eprintln!("table {}: unknown game `{}`, skipped", stored.id, stored.game);
                continue;
            };
            let id = stored.id.clone();
            match engine.restore(&self.shared, stored) {
                Ok((table, finished)) => {
                    if finished {
                        done += 1
                    } else {
                        live += 1
                    }
                    self.tables.write().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id, table);
                }
                Err(e) => {
                    // Its rows do not replay: set aside, kept, not served again.
                    eprintln!("table {id}: cannot be resumed: {e}; set aside, its rows are kept");
                    let why = format!("its record does not replay: {e}");
                    if let Some(store) = &self.shared.store
                        && let Err(e) = store.set_aside(&id, &why).await
                    {
                        eprintln!("table {id}: could not be set aside: {e}");
                    }
                    guard(&self.aside).insert(id, SetAside { why });
                }
            }
        }
        if live + done > 0 {
            eprintln!("resumed {live} unfinished and {done} finished tables");
        }
        Ok(())
    }

    /// Ends every event stream (so that a graceful shutdown completes).
    pub(crate) fn stop_streams(&self) {
        self.shared.stopping.send_replace(true);
    }

    pub(crate) fn close_all(&self) {
        let tables = self.tables.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        for t in tables.values() {
            t.close();
        }
    }

    /// Closes the tables idle for longer than the limit.
    fn expire_idle(&self) -> Vec<String> {
        let limit = u64::try_from(self.shared.config.idle_expiry.as_millis()).unwrap_or(u64::MAX);
        let now = self.shared.now_ms();
        let mut tables = self.tables.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let old: Vec<String> = tables
            .iter()
            .filter(|(_, t)| now.saturating_sub(t.last_active()) > limit)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &old {
            if let Some(t) = tables.remove(id) {
                t.close();
            }
        }
        drop(tables);
        let mut owners = guard(&self.owners);
        for id in &old {
            owners.remove(id);
        }
        // Forget the clients whose allowance is whole again.
        let live: std::collections::HashSet<ClientKey> = owners.values().copied().collect();
        drop(owners);
        let config = &self.shared.config;
        let whole = config.table_refill.saturating_mul(config.table_burst);
        guard(&self.buckets).retain(|k, b| live.contains(k) || b.at.elapsed() < whole);
        old
    }
}

/// Closes idle tables now and then, marking them expired in the database.
pub(crate) async fn sweep(app: Arc<App>) {
    let every = (app.shared.config.idle_expiry / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        let gone = app.expire_idle();
        if let Some(store) = &app.shared.store {
            for id in gone {
                if let Err(e) = store.expire(&id).await {
                    eprintln!("table {id}: could not be marked expired: {e}");
                }
            }
        }
    }
}

/// The router: the page, its assets and the JSON API.
pub(crate) fn router(app: Arc<App>) -> Router {
    let api = Router::new()
        .route("/games", get(games))
        .route("/tables", post(create_table))
        .route("/tables/{id}/view", get(view))
        .route("/tables/{id}/actions", post(act))
        .route("/tables/{id}/events", get(events))
        .route("/tables/{id}/record", get(record))
        .layer(DefaultBodyLimit::max(app.shared.config.max_body))
        .merge(
            Router::new()
                .route("/replay", post(replay))
                .layer(DefaultBodyLimit::max(app.shared.config.max_replay_body)),
        )
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such API route".into()) })
        .method_not_allowed_fallback(method_not_allowed);
    Router::new()
        .route("/", get(assets::page))
        .route("/table/{id}", get(assets::page))
        .route("/replay", get(assets::page))
        .route("/assets/{file}", get(assets::asset))
        .nest("/api", api)
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such page".into()) })
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(uri_limit))
        .with_state(app)
}

/// The longest request target (path and query) answered (`414` beyond).
pub(crate) const MAX_URI: usize = 8 * 1024;

async fn uri_limit(req: Request, next: axum::middleware::Next) -> Response {
    let len = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if len > MAX_URI {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!("the request target has {len} bytes; at most {MAX_URI} are read"),
        )
        .into_response();
    }
    next.run(req).await
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
    )
}

fn bearer(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else { return Ok(None) };
    let text = value.to_str().map_err(|_| ApiError::no_token())?;
    match text.strip_prefix("Bearer ").map(str::trim) {
        Some(t) if !t.is_empty() => Ok(Some(t.to_string())),
        _ => Err(ApiError::no_token()),
    }
}

async fn games(State(app): State<Arc<App>>) -> Json<Value> {
    Json(json!({ "games": app.engines.iter().map(|e| e.info()).collect::<Vec<_>>() }))
}

fn base_url(headers: &HeaderMap) -> String {
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| h.bytes().all(|b| b.is_ascii_alphanumeric() || b".:-[]".contains(&b)))
        .map(|h| format!("http://{h}"))
        .unwrap_or_default()
}

async fn create_table(
    State(app): State<Arc<App>>,
    Client(client): Client,
    headers: HeaderMap,
    Body(req): Body<CreateRequest>,
) -> Result<Response, ApiError> {
    let engine = app.engine(&req.game).ok_or_else(|| {
        let known: Vec<&str> = app.engines.iter().map(|e| e.name()).collect();
        ApiError::unprocessable("unknown_game", format!("unknown game `{}` (known: {})", req.game, known.join(", ")))
    })?;
    if app.table_count() >= app.shared.config.max_tables {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "full",
            format!("the server holds its maximum of {} tables; try again later", app.shared.config.max_tables),
        ));
    }
    app.admit(client)?;
    let id = token::random_hex(token::ID_BYTES).map_err(ApiError::entropy)?;
    let mut req = req;
    req.client = client;
    let created = engine.create(&app.shared, id.clone(), &req)?;
    {
        let mut tables = app.tables.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if tables.len() >= app.shared.config.max_tables {
            created.table.close();
            return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "full", "the server is full".into()));
        }
        tables.insert(id.clone(), created.table.clone());
    }
    if let Err(e) = created.table.clone().save_now().await {
        created.table.close();
        app.tables.write().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&id);
        return Err(e);
    }
    if let Some(key) = client {
        guard(&app.owners).insert(id.clone(), key);
    }
    let base = base_url(&headers);
    let seats: Vec<Value> = created
        .seats
        .iter()
        .enumerate()
        .map(|(seat, (kind, token))| match token {
            Some(t) => json!({
                "seat": seat, "kind": kind, "token": t,
                "url": format!("{base}/table/{id}#seat={seat}&token={t}"),
            }),
            None => json!({ "seat": seat, "kind": kind }),
        })
        .collect();
    let body = json!({
        "id": id,
        "game": engine.name(),
        "seats": seats,
        "spectate": format!("{base}/table/{id}"),
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn view(State(app): State<Arc<App>>, Param(id): Param, headers: HeaderMap) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    let token = bearer(&headers)?;
    Ok(Json(table.view(token.as_deref())?))
}

/// The body of `POST /api/tables/{id}/actions`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActRequest {
    action: ActionText,
    /// The `version` of the view the client acted on; a stale one is refused.
    #[serde(default)]
    version: Option<u64>,
}

async fn act(
    State(app): State<Arc<App>>,
    Param(id): Param,
    headers: HeaderMap,
    Body(req): Body<ActRequest>,
) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    let token = bearer(&headers)?.ok_or_else(ApiError::no_token)?;
    Ok(Json(table.act(token, req.action, req.version).await?))
}

async fn events(
    State(app): State<Arc<App>>,
    Client(client): Client,
    Param(id): Param,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let table = app.table(&id)?;
    let config = &app.shared.config;
    let Ok(permit) = app.streams.clone().try_acquire_owned() else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_streams",
            format!(
                "the server holds its maximum of {} event streams; poll the view instead",
                config.max_event_streams
            ),
        )
        .retry_after(10));
    };
    let slot = match client {
        Some(key) => Some(app.streams_per_client.try_take(key).ok_or_else(|| {
            ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_streams",
                format!("{key} holds its maximum of {} event streams", config.max_event_streams_per_client),
            )
            .retry_after(10)
        })?),
        None => None,
    };
    let mut stopping = app.shared.stopping.subscribe();
    let stop = async move {
        let _ = stopping.wait_for(|&s| s).await;
    };
    let stream = WatchStream::new(table.subscribe())
        .map(move |v| {
            // Held as long as the stream is open.
            let _held = (&permit, &slot);
            Ok(Event::default().event("update").data(json!({ "version": v }).to_string()))
        })
        .take_until(stop);
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

async fn record(State(app): State<Arc<App>>, Param(id): Param) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.table(&id)?.record()?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayRequest {
    record: Value,
    #[serde(default)]
    seat: usize,
    /// The first frame of the page (frame `k` is the position after `k`
    /// actions).
    #[serde(default)]
    from: usize,
}

async fn replay(
    State(app): State<Arc<App>>,
    Client(client): Client,
    Body(req): Body<ReplayRequest>,
) -> Result<Response, ApiError> {
    let config = &app.shared.config;
    let actions = req.record.get("actions").and_then(Value::as_array).map_or(0, Vec::len);
    if actions > config.max_replay_actions {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_long",
            format!("the record has {actions} actions; this server replays at most {}", config.max_replay_actions),
        ));
    }
    let game = req.record.get("engine").and_then(Value::as_str).unwrap_or_default().to_string();
    let engine = app
        .engine(&game)
        .ok_or_else(|| {
            ApiError::unprocessable("unknown_game", format!("the record's engine `{game}` is not served here"))
        })?
        .clone();
    // One client's share first, so that it cannot hold every slot.
    let slot = match client {
        Some(key) => Some(app.replays_per_client.try_take(key).ok_or_else(|| {
            ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_replays",
                format!(
                    "{key} has {} replays being built, the most one client may have; try again when one is done",
                    config.max_replays_per_client
                ),
            )
            .retry_after(1)
        })?),
        None => None,
    };
    let Ok(permit) = app.replays.clone().try_acquire_owned() else {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            format!("{} replays are being built; try again in a moment", config.max_replays),
        )
        .retry_after(1));
    };
    let page = ReplayPage {
        from: req.from,
        frames: config.replay_page,
        bytes: config.max_replay_output,
        max_actions: config.max_replay_actions,
    };
    let body = tokio::task::spawn_blocking(move || {
        let _held = (permit, slot);
        engine.replay(req.record, req.seat, page)
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}
