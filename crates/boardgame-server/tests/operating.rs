//! An operator's mistakes on a real data folder (docs/serve.md, "Operating
//! it"): a WAL cut, flipped or deleted after a `kill -9`; two servers on one
//! folder once its lock file is removed; the refusal's advice followed; a
//! WAL beside a database it does not belong to; a flipped action row; the
//! folder's mode; links; a full disk. Each starts real servers on a real
//! folder and checks what every seat is served against what it was shown
//! (and so acknowledged) before.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use boardgame_server::{Server, ServerConfig};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn config(dir: &Path) -> ServerConfig {
    ServerConfig { data_dir: Some(dir.to_path_buf()), bot_delay: Duration::ZERO, ..ServerConfig::default() }
}

fn wal(dir: &Path) -> PathBuf {
    dir.join("tables.db-wal")
}

async fn build(config: ServerConfig) -> Result<Server, String> {
    Server::builder(config)
        .game::<korovan_core::Korovan>()
        .game::<caravan_core::Caravan>()
        .build()
        .await
        .map_err(|e| e.to_string())
}

/// A server's address and a client for it.
struct Api {
    base: String,
    client: reqwest::Client,
}

impl Api {
    fn new(base: String) -> Api {
        Api { base, client: reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap() }
    }

    async fn view(&self, id: &str, token: Option<&str>) -> (StatusCode, Value) {
        let mut req = self.client.get(format!("{}/api/tables/{id}/view", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await.unwrap();
        (r.status(), r.json().await.unwrap())
    }

    async fn act(&self, id: &str, token: &str, action: &Value, version: &Value) -> (StatusCode, Value) {
        let r = self
            .client
            .post(format!("{}/api/tables/{id}/actions", self.base))
            .bearer_auth(token)
            .json(&json!({ "action": action, "version": version }))
            .send()
            .await
            .unwrap();
        (r.status(), r.json().await.unwrap())
    }

    /// A Korovan table of three people (nothing moves but what they play,
    /// and chance).
    async fn create(&self) -> Table {
        let r = self
            .client
            .post(format!("{}/api/tables", self.base))
            .json(&json!({ "game": "korovan", "seats": ["human", "human", "human"] }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        let c: Value = r.json().await.unwrap();
        Table { id: c["id"].as_str().unwrap().to_string(), tokens: (0..3).map(|i| common::token(&c, i)).collect() }
    }

    /// The seat to move and its view.
    async fn on_turn(&self, t: &Table) -> (usize, Value) {
        loop {
            for (i, token) in t.tokens.iter().enumerate() {
                let (st, v) = self.view(&t.id, Some(token)).await;
                assert_eq!(st, StatusCode::OK, "{v}");
                if common::my_turn(&v) {
                    return (i, v);
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Plays `n` actions at `t`.
    async fn play(&self, t: &Table, n: usize) {
        for _ in 0..n {
            let (seat, v) = self.on_turn(t).await;
            let (st, r) = self.act(&t.id, &t.tokens[seat], &v["legal"][0]["action"], &v["version"]).await;
            assert_eq!(st, StatusCode::OK, "{r}");
        }
    }

    /// What every viewer of `t` (each seat, then the public) is shown now.
    async fn shown(&self, t: &Table) -> Vec<Vec<Value>> {
        let mut logs = Vec::new();
        for token in t.tokens.iter().map(|t| Some(t.as_str())).chain([None]) {
            let (st, v) = self.view(&t.id, token).await;
            assert_eq!(st, StatusCode::OK, "{v}");
            logs.push(v["log"].as_array().unwrap().clone());
        }
        logs
    }

    /// Checks that every viewer of every table is served a prefix of what
    /// it was shown (all of it if `whole`); how many actions are missing.
    async fn check(&self, tables: &[(Table, Vec<Vec<Value>>)], whole: bool) -> usize {
        let mut missing = 0;
        for (t, shown) in tables {
            let now = if self.view(&t.id, None).await.0 == StatusCode::NOT_FOUND && !whole {
                vec![Vec::new(); shown.len()]
            } else {
                self.shown(t).await
            };
            for (viewer, (before, now)) in shown.iter().zip(&now).enumerate() {
                assert!(now.len() <= before.len(), "table {} viewer {viewer}: served beyond what was shown", t.id);
                assert_eq!(&before[..now.len()], &now[..], "table {} viewer {viewer}: a history never shown", t.id);
                if whole {
                    assert_eq!(now.len(), before.len(), "table {} viewer {viewer}: acknowledged actions lost", t.id);
                }
                if viewer == 3 {
                    missing += before.len() - now.len();
                }
            }
        }
        missing
    }
}

#[derive(Clone)]
struct Table {
    id: String,
    tokens: Vec<String>,
}

/// The server process of the `kill -9` cases: started by the test binary
/// itself with `BOARDGAME_OPERATING_CHILD=<dir>`, it serves `dir` on a free
/// port, prints the port, and runs until it is killed.
#[test]
#[ignore = "the server process of the kill -9 cases; does nothing when run by hand"]
fn operating_child() {
    let Ok(dir) = std::env::var("BOARDGAME_OPERATING_CHILD") else { return };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let server = build(config(Path::new(&dir))).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("PORT {}", listener.local_addr().unwrap().port());
        server.serve(listener, std::future::pending()).await.unwrap();
    });
}

struct Child(std::process::Child);

impl Drop for Child {
    /// `kill -9`.
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_child(dir: &Path) -> (Child, Api) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "operating_child", "--ignored", "--nocapture", "--test-threads", "1"])
        .env("BOARDGAME_OPERATING_CHILD", dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let child = Child(child);
    let mut lines = std::io::BufReader::new(out).lines();
    let port = loop {
        let line = lines.next().expect("the child prints its port").unwrap();
        if let Some((_, p)) = line.split_once("PORT ") {
            break p.trim().to_string();
        }
    };
    (child, Api::new(format!("http://127.0.0.1:{port}")))
}

/// Plays three tables on a child server in `dir` and kills it (`kill -9`):
/// the tables and what each viewer was shown.
async fn played_and_killed(dir: &Path, actions: usize) -> Vec<(Table, Vec<Vec<Value>>)> {
    let (child, api) = spawn_child(dir);
    let mut tables = Vec::new();
    for _ in 0..3 {
        tables.push(api.create().await);
    }
    for t in &tables {
        api.play(t, actions).await;
    }
    let mut shown = Vec::new();
    for t in tables {
        let logs = api.shown(&t).await;
        shown.push((t, logs));
    }
    drop(child);
    assert!(std::fs::metadata(wal(dir)).unwrap().len() > 32, "the commits are in the WAL");
    shown
}

/// A copy of `from`'s files in a new folder `to`.
fn copy_folder(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for name in ["tables.db", "tables.db-wal", "tables.db-shm", "tables.db.lock"] {
        if from.join(name).exists() {
            std::fs::copy(from.join(name), to.join(name)).unwrap();
        }
    }
}

/// Runs an in-process server on `dir` for `f`, then stops it.
async fn serving<T>(config: ServerConfig, f: impl AsyncFnOnce(&Api) -> T) -> T {
    let s = common::start(config).await;
    let api = Api::new(s.base.clone());
    let out = f(&api).await;
    s.stop().await;
    out
}

fn bytes(p: &Path) -> Option<Vec<u8>> {
    std::fs::read(p).ok()
}

/// Issue 44, case 1: after a `kill -9`, the WAL cut (mid-frame, or at a
/// frame boundary), one byte of it flipped, or the WAL deleted. Each start
/// is refused with a message naming what was found, the files copied aside
/// and left as they were; the flag starts from the last intact commit,
/// serving a prefix of what was shown, and the next start goes on from
/// there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_flipped_or_deleted_wal_is_refused_then_recovered_on_request() {
    let killed = common::temp_dir("op-wal");
    let tables = played_and_killed(&killed, 12).await;
    let wal_bytes = bytes(&wal(&killed)).unwrap();
    let page = 4096 + 24;
    assert!(wal_bytes.len() > 32 + 8 * page, "{} bytes of WAL", wal_bytes.len());
    let damages: Vec<(&str, Option<Vec<u8>>, &str)> = vec![
        ("cut mid-frame", Some(wal_bytes[..32 + 3 * page + 1000].to_vec()), "acknowledged commits are lost"),
        ("cut at a frame", Some(wal_bytes[..32 + 2 * page].to_vec()), "acknowledged commits are lost"),
        (
            "a flipped byte",
            Some({
                let mut b = wal_bytes.clone();
                b[32 + 24 + 100] ^= 0x10;
                b
            }),
            "frame 1 does not match its checksum",
        ),
        ("deleted", None, "the WAL, tables.db-wal, is missing"),
    ];
    for (what, damaged, found) in damages {
        let dir = common::temp_dir(&format!("op-wal-{}", what.replace(' ', "-")));
        copy_folder(&killed, &dir);
        match &damaged {
            Some(b) => std::fs::write(wal(&dir), b).unwrap(),
            None => std::fs::remove_file(wal(&dir)).unwrap(),
        }
        let db_before = bytes(&dir.join("tables.db"));
        for attempt in 0..2 {
            let e = build(config(&dir)).await.err().unwrap_or_else(|| panic!("{what}: the server started"));
            assert!(e.contains(found), "{what}: {e}");
            assert!(e.contains("--recover-from-last-intact-commit") && e.contains("copied, untouched"), "{what}: {e}");
            assert_eq!(bytes(&dir.join("tables.db")), db_before, "{what} {attempt}: tables.db was changed");
            assert_eq!(bytes(&wal(&dir)), damaged, "{what} {attempt}: the WAL was changed");
        }
        let aside: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("tables.db.aside-"))
            .collect();
        assert!(!aside.is_empty(), "{what}: the files were copied aside");
        assert_eq!(bytes(&aside[0].join("tables.db")), db_before, "{what}: the copy is the file as it was");
        let recover = ServerConfig { recover_from_last_intact_commit: true, ..config(&dir) };
        let missing = serving(recover, async |api| api.check(&tables, false).await).await;
        assert!(missing > 0, "{what}: acknowledged actions were lost, and the refusal said so");
        let again = serving(config(&dir), async |api| api.check(&tables, false).await).await;
        assert_eq!(again, missing, "{what}: the next start serves what the recovery did");
        let _ = std::fs::remove_dir_all(&dir);
    }
    // The WAL as the kill left it: every action shown is served.
    serving(config(&killed), async |api| api.check(&tables, true).await).await;
    let _ = std::fs::remove_dir_all(&killed);
}
