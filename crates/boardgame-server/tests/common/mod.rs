//! A server on 127.0.0.1 (port 0) for the tests, with a real HTTP client.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use boardgame_server::{Server, ServerConfig};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

/// A running server and a client for it.
pub struct TestServer {
    pub base: String,
    pub client: Client,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// The games every test server serves.
pub async fn start(config: ServerConfig) -> TestServer {
    start_with_lobby(config, Vec::new()).await
}

/// [`start`], with the lobby's ratings of some games (engine name, ratings).
#[allow(dead_code)] // not every test binary rates its lobby
pub async fn start_with_lobby(config: ServerConfig, lobby: Vec<(&str, boardgame_server::LobbyRatings)>) -> TestServer {
    let mut builder = Server::builder(config).game::<korovan_core::Korovan>().game::<caravan_core::Caravan>();
    for (game, ratings) in lobby {
        builder = builder.lobby(game, ratings).expect("the lobby's ratings fit");
    }
    let server = builder.build().await.expect("server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        server
            .serve(listener, async move {
                let _ = rx.await;
            })
            .await
            .expect("serve");
    });
    TestServer {
        base: format!("http://{addr}"),
        client: Client::builder().timeout(Duration::from_secs(60)).build().expect("client"),
        shutdown: Some(tx),
        task: Some(task),
    }
}

pub fn config() -> ServerConfig {
    ServerConfig::default()
}

pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bg-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

impl TestServer {
    /// The same server through another client (say, bound to another
    /// loopback address); stopping it does nothing.
    pub fn with_client(&self, client: Client) -> TestServer {
        TestServer { base: self.base.clone(), client, shutdown: None, task: None }
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POST /api/tables; panics unless 201.
    pub async fn create(&self, body: Value) -> Value {
        let r = self.client.post(self.url("/api/tables")).json(&body).send().await.expect("send");
        let status = r.status();
        let v: Value = r.json().await.expect("json");
        assert_eq!(status, StatusCode::CREATED, "{v}");
        v
    }

    pub async fn view(&self, id: &str, token: Option<&str>) -> (StatusCode, Value) {
        let mut req = self.client.get(self.url(&format!("/api/tables/{id}/view")));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await.expect("send");
        (r.status(), json_body(r).await)
    }

    pub async fn act(&self, id: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        let mut req = self.client.post(self.url(&format!("/api/tables/{id}/actions"))).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await.expect("send");
        (r.status(), json_body(r).await)
    }

    /// Waits until the view of `token` satisfies `done` (bots and chance act
    /// in the background).
    pub async fn wait_for(&self, id: &str, token: Option<&str>, done: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..6000 {
            let (s, v) = self.view(id, token).await;
            assert_eq!(s, StatusCode::OK, "{v}");
            if done(&v) {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("the table never reached the expected state");
    }
}

/// A response's JSON body. Parsed by `Value`'s `FromStr`, which is compiled
/// inside serde_json (optimised in the dev profile: the workspace's
/// Cargo.toml), where `Response::json` would instantiate the generic parser
/// in this test crate, unoptimised: the views of a long game, read after
/// every action (tests/hidden.rs), are megabytes of JSON.
pub async fn json_body(r: reqwest::Response) -> Value {
    r.text().await.expect("body").parse().expect("json")
}

/// The token of `seat` in a creation answer.
pub fn token(created: &Value, seat: usize) -> String {
    created["seats"][seat]["token"].as_str().expect("a human seat").to_string()
}

/// Whether it is `seat`'s turn in `view`.
pub fn my_turn(view: &Value) -> bool {
    view["turn"]["kind"] == "player" && view["turn"]["seat"] == view["seat"]
}

/// Whether the game in `view` is over.
pub fn over(view: &Value) -> bool {
    view["turn"]["kind"] == "terminal"
}

pub fn table(kind: &str, seats: &[&str]) -> Value {
    json!({ "game": kind, "players": seats.len(), "seats": seats })
}

/// An HTTP client whose requests come from `ip` (a loopback address such as
/// `127.0.0.2`), so the server's per-client limits see another client.
pub fn client_from(ip: &str) -> Client {
    Client::builder().local_address(Some(ip.parse().unwrap())).timeout(Duration::from_secs(60)).build().unwrap()
}

/// A valid record of a 2-player Caravan game played at random to its end
/// (at most `max_turns` turns, dealt from `seed`).
pub fn caravan_record(max_turns: u32, seed: u64) -> Value {
    use boardgame_kit::{Driver, RandomAgent, Turn};
    let config: caravan_core::CaravanConfig =
        serde_json::from_value(json!({ "players": 2, "max_turns": max_turns })).unwrap();
    let mut d = Driver::<caravan_core::Caravan>::new(&config, seed).unwrap();
    while d.turn() != Turn::Terminal {
        if d.turn() == Turn::Chance {
            d.step_chance().unwrap();
        } else {
            d.step_agent(&mut RandomAgent).unwrap();
        }
    }
    serde_json::to_value(d.record().unwrap()).unwrap()
}

/// A server in a child process, killed (`kill -9`) when dropped.
pub struct ChildServer(pub std::process::Child);

impl Drop for ChildServer {
    /// `kill -9`.
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts this test binary again as a server process: it runs the ignored
/// test `child_test` with `var=dir` and `env` set (that test serves `dir`,
/// [`serve_in_child`]); returns the child and its base URL, read from the
/// `PORT n` line it prints.
pub fn spawn_child_server(
    child_test: &str,
    var: &str,
    dir: &std::path::Path,
    env: &[(&str, &str)],
    stderr: std::process::Stdio,
) -> (ChildServer, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child_test, "--ignored", "--nocapture", "--test-threads", "1"])
        .env(var, dir)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let child = ChildServer(child);
    let mut lines = std::io::BufReader::new(out).lines();
    let port = loop {
        let line = lines.next().expect("the child prints its port").unwrap();
        // The harness may print "test <name> ... " on the same line.
        if let Some((_, p)) = line.split_once("PORT ") {
            break p.trim().to_string();
        }
    };
    (child, format!("http://127.0.0.1:{port}"))
}

/// The child's side of [`spawn_child_server`]: serves `server` on a free
/// port of 127.0.0.1, prints `PORT n`, and runs until it is killed.
pub async fn serve_in_child(server: Server) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("PORT {}", listener.local_addr().unwrap().port());
    server.serve(listener, std::future::pending()).await.unwrap();
}
