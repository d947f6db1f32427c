//! The HTTP layer: routes, extractors, typed errors as JSON responses, the
//! table registry and the idle sweeper.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, FromRequest, Path, Request, State};
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
use crate::engine::{CreateRequest, Engine};
use crate::error::ApiError;
use crate::shared::Shared;
use crate::store::Store;
use crate::table::{ActionText, LiveTable};
use crate::{assets, token};

/// `Json` whose rejections are [`ApiError`]s.
pub(crate) struct Body<T>(T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;
    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let Json(v) = Json::<T>::from_request(req, state).await?;
        Ok(Body(v))
    }
}

/// The server's state.
pub(crate) struct App {
    shared: Arc<Shared>,
    engines: Vec<Arc<dyn Engine>>,
    tables: RwLock<HashMap<String, Arc<dyn LiveTable>>>,
}

impl App {
    pub(crate) fn new(config: ServerConfig, engines: Vec<Arc<dyn Engine>>) -> std::io::Result<Arc<App>> {
        let store = config.data_dir.as_deref().map(Store::open).transpose()?;
        let bots = Arc::new(Semaphore::new(config.bot_threads.max(1)));
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
        }))
    }

    fn engine(&self, name: &str) -> Option<&Arc<dyn Engine>> {
        self.engines.iter().find(|e| e.name() == name)
    }

    fn table(&self, id: &str) -> Result<Arc<dyn LiveTable>, ApiError> {
        let tables = self.tables.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        tables.get(id).cloned().ok_or_else(|| ApiError::unknown_table(id))
    }

    pub(crate) fn table_count(&self) -> usize {
        self.tables.read().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// Resumes every table of the data directory.
    pub(crate) async fn resume_all(self: &Arc<Self>) -> std::io::Result<()> {
        let Some(store) = self.shared.store.clone() else { return Ok(()) };
        let kept = tokio::task::spawn_blocking(move || store.load_all()).await.map_err(std::io::Error::other)??;
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
                Err(e) => eprintln!("table {id}: cannot be resumed: {e}"),
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
        old
    }
}

/// Closes idle tables now and then, moving their files to `expired/`.
pub(crate) async fn sweep(app: Arc<App>) {
    let every = (app.shared.config.idle_expiry / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        let gone = app.expire_idle();
        if let Some(store) = app.shared.store.clone()
            && !gone.is_empty()
        {
            let _ = tokio::task::spawn_blocking(move || {
                for id in gone {
                    if let Err(e) = store.expire(&id) {
                        eprintln!("table {id}: could not move to expired/: {e}");
                    }
                }
            })
            .await;
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
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such API route".into()) });
    Router::new()
        .route("/", get(assets::page))
        .route("/table/{id}", get(assets::page))
        .route("/replay", get(assets::page))
        .route("/assets/{file}", get(assets::asset))
        .nest("/api", api)
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found") })
        .with_state(app)
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
    let id = token::random_hex(token::ID_BYTES).map_err(ApiError::entropy)?;
    let created = engine.create(&app.shared, id.clone(), &req)?;
    {
        let mut tables = app.tables.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if tables.len() >= app.shared.config.max_tables {
            created.table.close();
            return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "full", "the server is full".into()));
        }
        tables.insert(id.clone(), created.table.clone());
    }
    created.table.clone().persist().await;
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

async fn view(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
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
    Path(id): Path<String>,
    headers: HeaderMap,
    Body(req): Body<ActRequest>,
) -> Result<Json<Value>, ApiError> {
    let table = app.table(&id)?;
    let token = bearer(&headers)?.ok_or_else(ApiError::no_token)?;
    let done = table.act(&token, &req.action, req.version)?;
    table.persist().await;
    Ok(Json(done))
}

async fn events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let table = app.table(&id)?;
    let mut stopping = app.shared.stopping.subscribe();
    let stop = async move {
        let _ = stopping.wait_for(|&s| s).await;
    };
    let stream = WatchStream::new(table.subscribe())
        .map(|v| Ok(Event::default().event("update").data(json!({ "version": v }).to_string())))
        .take_until(stop);
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

async fn record(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.table(&id)?.record()?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayRequest {
    record: Value,
    #[serde(default)]
    seat: usize,
}

async fn replay(State(app): State<Arc<App>>, Body(req): Body<ReplayRequest>) -> Result<Json<Value>, ApiError> {
    let game = req.record.get("engine").and_then(Value::as_str).unwrap_or_default().to_string();
    let engine = app
        .engine(&game)
        .ok_or_else(|| {
            ApiError::unprocessable("unknown_game", format!("the record's engine `{game}` is not served here"))
        })?
        .clone();
    let max = 100_000;
    let frames = tokio::task::spawn_blocking(move || engine.replay(req.record, req.seat, max))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(Json(frames))
}
