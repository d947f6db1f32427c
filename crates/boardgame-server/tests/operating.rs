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
use common::ChildServer;
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

    /// The seat to move and its view (chance acts meanwhile); `None` once
    /// the game is over.
    async fn on_turn(&self, t: &Table) -> Option<(usize, Value)> {
        loop {
            for (i, token) in t.tokens.iter().enumerate() {
                let (st, v) = self.view(&t.id, Some(token)).await;
                assert_eq!(st, StatusCode::OK, "{v}");
                if common::my_turn(&v) {
                    return Some((i, v));
                }
                if common::over(&v) {
                    return None;
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Plays `n` actions at `t` (fewer if the game ends).
    async fn play(&self, t: &Table, n: usize) {
        for _ in 0..n {
            let Some((seat, v)) = self.on_turn(t).await else { return };
            let (st, r) = self.act(&t.id, &t.tokens[seat], &v["legal"][0]["action"], &v["version"]).await;
            assert_eq!(st, StatusCode::OK, "{r}");
        }
    }

    /// What every viewer of `t` (each seat, then the public) is shown once
    /// chance has acted (a person is to move, or the game is over).
    async fn shown(&self, t: &Table) -> Vec<Vec<Value>> {
        self.on_turn(t).await;
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
        let mut c = config(Path::new(&dir));
        if let Ok(ms) = std::env::var("BOARDGAME_CHECKPOINT_WARNING_MS") {
            c.checkpoint_warning = Duration::from_millis(ms.parse().unwrap());
        }
        if std::env::var("BOARDGAME_TABLES_PER_CLIENT").is_ok_and(|n| n == "many") {
            (c.table_burst, c.max_tables_per_client) = (1000, 1000);
        }
        common::serve_in_child(build(c).await.unwrap()).await;
    });
}

fn spawn_child(dir: &Path) -> (ChildServer, Api) {
    spawn_child_with(dir, &[], std::process::Stdio::null())
}

fn spawn_child_with(dir: &Path, env: &[(&str, &str)], stderr: std::process::Stdio) -> (ChildServer, Api) {
    let (child, base) = common::spawn_child_server("operating_child", "BOARDGAME_OPERATING_CHILD", dir, env, stderr);
    (child, Api::new(base))
}

/// Plays three tables on a child server in `dir` and kills it (`kill -9`):
/// the tables and what each viewer was shown. A reader holds a transaction
/// meanwhile, so that every commit stays in the WAL (the checkpointer
/// cannot copy past the reader's snapshot).
async fn played_and_killed(dir: &Path, actions: usize) -> Vec<(Table, Vec<Vec<Value>>)> {
    let (child, api) = spawn_child(dir);
    let reader = rusqlite::Connection::open_with_flags(
        boardgame_server::database_path(dir),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    reader.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let _: i64 = reader.query_row("SELECT count(*) FROM tables", [], |r| r.get(0)).unwrap();
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
    drop(reader);
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

/// Runs an in-process server on `dir` for `f`, stops it, and waits until
/// its database is closed (its tables' tasks end after the server).
async fn serving<T>(config: ServerConfig, f: impl AsyncFnOnce(&Api) -> T) -> T {
    let dir = config.data_dir.clone().unwrap();
    let s = common::start(config).await;
    let api = Api::new(s.base.clone());
    let out = f(&api).await;
    s.stop().await;
    closed(&dir).await;
    out
}

/// Waits until the folder's lock file says its server closed the database
/// cleanly (a bound only a server that never closes reaches).
async fn closed(dir: &Path) {
    for _ in 0..12_000 {
        if std::fs::read_to_string(dir.join("tables.db.lock")).is_ok_and(|l| l.starts_with("stopped")) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the server on {} never closed its database", dir.display());
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
    let half = 32 + (wal_bytes.len() - 32) / page / 2 * page;
    let damages: Vec<(&str, Option<Vec<u8>>, &str)> = vec![
        // Cut in the WAL's second half: its frames were written after the
        // reader's snapshot, so none was copied into tables.db yet.
        ("cut mid-frame", Some(wal_bytes[..half + 1000].to_vec()), "acknowledged commits are lost"),
        ("cut at a frame", Some(wal_bytes[..half].to_vec()), "acknowledged commits are lost"),
        (
            "a flipped byte",
            Some({
                let mut b = wal_bytes.clone();
                b[half + 24 + 100] ^= 0x10;
                b
            }),
            "does not match its checksum, and",
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
        // Killed during a checkpoint, tables.db alone is half-copied: without
        // its WAL it cannot be read at all, and the refusal says so.
        let half_copied = "without the whole of its WAL (tables.db-wal is missing) tables.db cannot be read";
        let mut unreadable = false;
        for attempt in 0..2 {
            let e = build(config(&dir)).await.err().unwrap_or_else(|| panic!("{what}: the server started"));
            unreadable = damaged.is_none() && e.contains(half_copied);
            if unreadable {
                assert_eq!(bytes(&dir.join("tables.db")), db_before, "{what} {attempt}: tables.db was changed");
                assert!(!wal(&dir).exists(), "{what} {attempt}: a WAL was made");
                continue;
            }
            assert!(e.contains(found), "{what}: {e}");
            assert!(e.contains("--recover-from-last-intact-commit") && e.contains("copied, untouched"), "{what}: {e}");
            assert_eq!(bytes(&dir.join("tables.db")), db_before, "{what} {attempt}: tables.db was changed");
            assert_eq!(bytes(&wal(&dir)), damaged, "{what} {attempt}: the WAL was changed");
        }
        if unreadable {
            println!("{what}: killed during a checkpoint; tables.db cannot be read without its WAL (refused)");
            let _ = std::fs::remove_dir_all(&dir);
            continue;
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

/// Issue 44, case 2: the lock file removed while a server runs, and a
/// second server started on the folder. Both load the same tables; on each
/// table only the first to append is acknowledged, the other answers
/// `503 not_saved`; a later start serves exactly what was acknowledged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_after_the_lock_is_removed_never_both_acknowledge_a_table() {
    let dir = common::temp_dir("op-two");
    let tables = serving(config(&dir), async |api| {
        let (a, b) = (api.create().await, api.create().await);
        api.play(&a, 2).await;
        api.play(&b, 2).await;
        [a, b]
    })
    .await;
    let first = common::start(config(&dir)).await;
    std::fs::remove_file(dir.join("tables.db.lock")).unwrap();
    let second = common::start(config(&dir)).await;
    let (one, two) = (Api::new(first.base.clone()), Api::new(second.base.clone()));
    // Table 0: the first server appends first; table 1: the second does.
    let mut shown = Vec::new();
    for (t, (winner, loser)) in tables.iter().zip([(&one, &two), (&two, &one)]) {
        let (seat, v) = winner.on_turn(t).await.unwrap();
        let (seat_l, v_l) = loser.on_turn(t).await.unwrap();
        assert_eq!((seat, &v["version"]), (seat_l, &v_l["version"]), "both servers loaded the same table");
        let (st, r) = winner.act(&t.id, &t.tokens[seat], &v["legal"][0]["action"], &v["version"]).await;
        assert_eq!(st, StatusCode::OK, "{r}");
        let legal = v_l["legal"].as_array().unwrap();
        let other = &legal[legal.len() - 1]["action"];
        let (st, r) = loser.act(&t.id, &t.tokens[seat], other, &v_l["version"]).await;
        assert_eq!((st, r["code"].as_str()), (StatusCode::SERVICE_UNAVAILABLE, Some("not_saved")), "{r}");
        assert!(r["error"].as_str().unwrap().contains("another server writes to the same data folder"), "{r}");
        // The loser shows nothing it did not save.
        assert_eq!(loser.view(&t.id, None).await.1["version"], v_l["version"]);
        shown.push((t.clone(), winner.shown(t).await));
    }
    first.stop().await;
    second.stop().await;
    // The last of the two to close empties the WAL into tables.db.
    for _ in 0..12_000 {
        if !wal(&dir).exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    serving(config(&dir), async |api| api.check(&shown, true).await).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 44, case 3: the refusal's advice followed. After a `kill -9`,
/// `tables.db` moved away or deleted (its WAL left behind): refused, nothing
/// created over the WAL; all three files moved back together: every action
/// shown is served. After a clean stop, `tables.db` moved away alone: refused
/// too, until it is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moving_the_three_files_together_as_the_refusal_says_keeps_every_action() {
    let dir = common::temp_dir("op-advice");
    let tables = played_and_killed(&dir, 6).await;
    let db = dir.join("tables.db");
    let wal_before = bytes(&wal(&dir));
    let moved = dir.join("tables.db.bad");
    std::fs::rename(&db, &moved).unwrap();
    for _ in 0..2 {
        let e = build(config(&dir)).await.err().expect("started without its database");
        assert!(e.contains("it is missing, but its -wal or -shm file is there"), "{e}");
        assert!(e.contains("move, copy or restore all three together"), "{e}");
        assert!(!db.exists(), "no database was created over the WAL");
        assert_eq!(bytes(&wal(&dir)), wal_before, "the WAL was not used up");
    }
    std::fs::rename(&moved, &db).unwrap();
    serving(config(&dir), async |api| api.check(&tables, true).await).await;
    // Stopped cleanly (the WAL checkpointed and removed), then moved away.
    std::fs::rename(&db, &moved).unwrap();
    let e = build(config(&dir)).await.err().expect("started without its database");
    assert!(e.contains("it is missing, but this folder's server acknowledged"), "{e}");
    assert!(!db.exists());
    std::fs::rename(&moved, &db).unwrap();
    serving(config(&dir), async |api| api.check(&tables, true).await).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 44, case 4: a WAL beside a database it does not continue — the WAL
/// of another folder, or an older copy of `tables.db` put back beside the
/// newer WAL. Refused, and neither file is changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wal_beside_a_database_it_does_not_continue_is_refused() {
    let (a, b) = (common::temp_dir("op-foreign-a"), common::temp_dir("op-foreign-b"));
    // An older copy of b's database: from before its last two runs.
    serving(config(&b), async |api| api.play(&api.create().await, 2).await).await;
    let old = bytes(&b.join("tables.db")).unwrap();
    // Twenty tables later, the file is larger (the store only grows).
    serving(config(&b), async |api| {
        for _ in 0..20 {
            api.play(&api.create().await, 10).await;
        }
    })
    .await;
    assert!(std::fs::metadata(b.join("tables.db")).unwrap().len() > old.len() as u64);
    let tables_a = played_and_killed(&a, 6).await;
    let tables_b = played_and_killed(&b, 6).await;
    let copy = common::temp_dir("op-foreign-copy");
    // An older tables.db is seen by its size, noted after each checkpoint
    // (the store only grows).
    for (what, wal_from, db_bytes, found) in [
        ("a's WAL beside b's database", &a, None, &["is not the WAL this server wrote beside tables.db"][..]),
        (
            "an older tables.db beside its WAL",
            &b,
            Some(old),
            &["is smaller than it was after the server's last checkpoint"][..],
        ),
    ] {
        copy_folder(&b, &copy);
        std::fs::copy(wal(wal_from), wal(&copy)).unwrap();
        if let Some(old) = &db_bytes {
            std::fs::write(copy.join("tables.db"), old).unwrap();
        }
        let (db_before, wal_before) = (bytes(&copy.join("tables.db")), bytes(&wal(&copy)));
        let e = build(config(&copy)).await.err().unwrap_or_else(|| panic!("{what}: the server started"));
        assert!(found.iter().any(|f| e.contains(f)), "{what}: {e}");
        assert_eq!(bytes(&copy.join("tables.db")), db_before, "{what}: tables.db was changed");
        assert_eq!(bytes(&wal(&copy)), wal_before, "{what}: the WAL was changed");
    }
    serving(config(&a), async |api| api.check(&tables_a, true).await).await;
    serving(config(&b), async |api| api.check(&tables_b, true).await).await;
    for d in [a, b, copy] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The database's size the lock file notes (after the last checkpoint).
fn noted_size(dir: &Path) -> Option<u64> {
    std::fs::read_to_string(dir.join("tables.db.lock")).ok()?.split_whitespace().nth(3)?.parse().ok()
}

/// Issue 44, case 4: an older copy of `tables.db` taken while the server
/// ran — after a checkpoint had grown it, before the next — put back beside
/// the WAL after a `kill -9`. Refused by its size, noted after each
/// checkpoint, and neither file is changed; the files as they were serve
/// every action shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_tables_db_copied_while_the_server_ran_is_refused() {
    let dir = common::temp_dir("op-older");
    let db = boardgame_server::database_path(&dir);
    let (child, api) = spawn_child_with(&dir, &[("BOARDGAME_TABLES_PER_CLIENT", "many")], std::process::Stdio::null());
    let mut tables = Vec::new();
    // Tables, until the database (read through its WAL) needs more than
    // `than` bytes; then the checkpointer copies them into the file, which
    // grows past `than` (a bound only a server that never checkpoints
    // reaches). Freed pages of the migrations are filled first.
    let grow = async |tables: &mut Vec<Table>, than: u64| {
        let pages = || -> u64 {
            let reader =
                rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
            reader.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).unwrap();
            reader.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap()
        };
        while pages() * 4096 <= than {
            let t = api.create().await;
            api.play(&t, 8).await;
            tables.push(t);
        }
        for _ in 0..12_000 {
            if noted_size(&dir).is_some_and(|size| size > than) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("the lock file never noted a checkpoint that grew tables.db past {than} bytes");
    };
    grow(&mut tables, std::fs::metadata(&db).unwrap().len()).await;
    let old = bytes(&db).unwrap();
    grow(&mut tables, old.len() as u64).await;
    let mut shown = Vec::new();
    for t in tables {
        api.play(&t, 2).await;
        let logs = api.shown(&t).await;
        shown.push((t, logs));
    }
    println!("{} tables, an older tables.db of {} bytes", shown.len(), old.len());
    drop(child);
    let (db_killed, wal_killed) = (bytes(&db), bytes(&wal(&dir)));
    std::fs::write(&db, &old).unwrap();
    let e = build(config(&dir)).await.err().expect("the older tables.db was served");
    assert!(e.contains("is smaller than it was after the server's last checkpoint"), "{e}");
    assert!(e.contains("--recover-from-last-intact-commit"), "{e}");
    assert_eq!(bytes(&db).as_deref(), Some(&old[..]), "tables.db was changed");
    assert_eq!(bytes(&wal(&dir)), wal_killed, "the WAL was changed");
    std::fs::write(&db, db_killed.unwrap()).unwrap();
    serving(config(&dir), async |api| api.check(&shown, true).await).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 44, case 5: one flipped byte in an action row. Its table answers
/// `410 set_aside` with why (not `404 unknown_table`), its record can be
/// exported up to its last verified step, and the other tables are served
/// as they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_action_row_sets_its_table_aside_and_its_verified_steps_can_be_exported() {
    let dir = common::temp_dir("op-row");
    let (bad, good) = serving(config(&dir), async |api| {
        let (bad, good) = (api.create().await, api.create().await);
        api.play(&bad, 6).await;
        api.play(&good, 6).await;
        let shown = api.shown(&good).await;
        (bad, (good, shown))
    })
    .await;
    let db = rusqlite::Connection::open(boardgame_server::database_path(&dir)).unwrap();
    let flipped = db
        .execute(
            "UPDATE actions SET action = (action | 1) - (action & 1) WHERE step = 3 AND table_key = (SELECT key FROM tables WHERE id = ?1)",
            [&bad.id],
        )
        .unwrap();
    assert_eq!(flipped, 1);
    drop(db);
    let good_version = serving(config(&dir), async |api| {
        for token in bad.tokens.iter().map(|t| Some(t.as_str())).chain([None]) {
            let (st, v) = api.view(&bad.id, token).await;
            assert_eq!((st, v["code"].as_str()), (StatusCode::GONE, Some("set_aside")), "{v}");
            assert!(v["error"].as_str().unwrap().contains("action row 3 does not match its checksum"), "{v}");
        }
        let (st, v) = api.act(&bad.id, &bad.tokens[0], &json!(0), &json!(0)).await;
        assert_eq!((st, v["code"].as_str()), (StatusCode::GONE, Some("set_aside")), "{v}");
        api.check(std::slice::from_ref(&good), true).await;
        api.view(&good.0.id, None).await.1["version"].as_u64().unwrap()
    })
    .await;
    let record = boardgame_server::export_table(&dir, &bad.id).unwrap();
    assert_eq!(record["actions"].as_array().unwrap().len(), 3, "the steps before the flipped row: {record}");
    let whole = boardgame_server::export_table(&dir, &good.0.id).unwrap();
    assert_eq!(whole["actions"].as_array().unwrap().len() as u64, good_version, "an intact table exports whole");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 44, case 6: the server sets the mode only of a folder it makes
/// (`0700`); an existing folder keeps its mode (`0755`, a sticky `1777`);
/// the data files are `0600`.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_folder_the_server_makes_gets_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    let parent = common::temp_dir("op-modes");
    let made = parent.join("made/data");
    let tables = serving(config(&made), async |api| {
        let t = api.create().await;
        api.play(&t, 2).await;
        vec![(t.clone(), api.shown(&t).await)]
    })
    .await;
    assert_eq!(mode(&made), 0o700, "a folder the server makes is private");
    for file in ["tables.db", "tables.db.lock"] {
        assert_eq!(mode(&made.join(file)), 0o600, "{file}");
    }
    for existing in [0o755, 0o1777, 0o750] {
        let dir = parent.join(format!("{existing:o}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(existing)).unwrap();
        for name in ["tables.db", "tables.db.lock"] {
            std::fs::copy(made.join(name), dir.join(name)).unwrap();
        }
        serving(config(&dir), async |api| api.check(&tables, true).await).await;
        assert_eq!(mode(&dir), existing, "the mode of a folder the server did not make is kept");
        assert_eq!(mode(&dir.join("tables.db")), 0o600);
    }
    let _ = std::fs::remove_dir_all(&parent);
}

/// Issue 44, case 8: links. A data file that is a symbolic link (dangling
/// or not) or not a file is refused with a message; nothing is created at
/// the link's target, and the folder's tables stay as they were.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_and_odd_files_in_the_data_folder_are_refused() {
    let dir = common::temp_dir("op-links");
    let tables = serving(config(&dir), async |api| {
        let t = api.create().await;
        api.play(&t, 3).await;
        vec![(t.clone(), api.shown(&t).await)]
    })
    .await;
    let target = common::temp_dir("op-links-target");
    let db = dir.join("tables.db");
    let real = dir.join("real.db");
    std::fs::rename(&db, &real).unwrap();
    for (what, name, to) in [
        ("a dangling tables.db", "tables.db", target.clone()),
        ("tables.db linked to a database", "tables.db", real.clone()),
        ("a dangling lock", "tables.db.lock", target.clone()),
    ] {
        let link = dir.join(name);
        let kept = dir.join(format!("{name}.kept"));
        if link.exists() {
            std::fs::rename(&link, &kept).unwrap();
        }
        std::os::unix::fs::symlink(&to, &link).unwrap();
        let e = build(config(&dir)).await.err().unwrap_or_else(|| panic!("{what}: the server started"));
        assert!(e.contains("is a symbolic link") && e.contains(name), "{what}: {e}");
        assert!(!target.exists(), "{what}: the link's target was created");
        std::fs::remove_file(&link).unwrap();
        if kept.exists() {
            std::fs::rename(&kept, &link).unwrap();
        }
        if name == "tables.db.lock" {
            std::fs::rename(&real, &db).unwrap();
        }
    }
    std::fs::rename(&db, &real).unwrap();
    std::fs::create_dir(&db).unwrap();
    let e = build(config(&dir)).await.err().expect("a folder named tables.db was opened");
    assert!(e.contains("is not a file"), "{e}");
    std::fs::remove_dir(&db).unwrap();
    std::fs::rename(&real, &db).unwrap();
    serving(config(&dir), async |api| api.check(&tables, true).await).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small tmpfs mounted at a new folder (the tests run as root in CI);
/// `None`, said aloud, where mounting is not allowed.
fn small_disk(name: &str, size: &str) -> Option<PathBuf> {
    let at = common::temp_dir(name);
    std::fs::create_dir_all(&at).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(&at)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("SKIPPED: a full disk needs a small tmpfs, and `mount -t tmpfs` is not allowed here (not root)");
        let _ = std::fs::remove_dir(&at);
    }
    mounted.then_some(at)
}

fn unmount(at: &Path) {
    let _ = std::process::Command::new("umount").arg(at).status();
    let _ = std::fs::remove_dir(at);
}

/// Issue 44, messages: a full disk. While running, a save the disk cannot
/// take answers `503 not_saved` saying so; once space is freed play goes on
/// with every acknowledged table and action kept. At start, the refusal
/// names the disk.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_saves_and_loses_nothing_acknowledged() {
    let Some(disk) = small_disk("op-full", "400k") else { return };
    let dir = disk.join("data");
    let roomy = ServerConfig { max_tables_per_client: 1_000_000, table_burst: 1_000_000, ..config(&dir) };
    let s = common::start(roomy.clone()).await;
    let api = Api::new(s.base.clone());
    let mut tables = Vec::new();
    let full = loop {
        assert!(tables.len() < 5000, "the disk never filled up");
        let r = api
            .client
            .post(format!("{}/api/tables", api.base))
            .json(&json!({ "game": "korovan", "seats": ["human", "human", "human"] }))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let c: Value = r.json().await.unwrap();
        if status != StatusCode::CREATED {
            assert_eq!((status, c["code"].as_str()), (StatusCode::SERVICE_UNAVAILABLE, Some("not_saved")), "{c}");
            break c["error"].as_str().unwrap().to_string();
        }
        tables.push(Table {
            id: c["id"].as_str().unwrap().to_string(),
            tokens: (0..3).map(|i| common::token(&c, i)).collect(),
        });
    };
    assert!(full.contains("the disk is full"), "{full}");
    // Space freed: play goes on (the deals that waited for it first).
    let grown = std::process::Command::new("mount").args(["-o", "remount,size=16m"]).arg(&disk).status().unwrap();
    assert!(grown.success());
    api.play(&tables[0], 3).await;
    let mut shown = Vec::new();
    for t in &tables {
        api.on_turn(t).await;
        shown.push((t.clone(), api.shown(t).await));
    }
    s.stop().await;
    serving(roomy, async |api| api.check(&shown, true).await).await;
    // A start on a full disk names the disk.
    let filler = disk.join("filler");
    let _ = std::fs::write(&filler, vec![0u8; 16 << 20]);
    let e = build(config(&disk.join("new"))).await.err().expect("a database was made on a full disk");
    assert!(e.contains("the disk is full"), "{e}");
    // Space freed, the same folder starts: the refused start left nothing
    // half-made in the way.
    std::fs::remove_file(&filler).unwrap();
    let played = serving(config(&disk.join("new")), async |api| {
        let t = api.create().await;
        api.play(&t, 2).await;
        vec![(t.clone(), api.shown(&t).await)]
    })
    .await;
    serving(config(&disk.join("new")), async |api| api.check(&played, true).await).await;
    unmount(&disk);
}

/// Issue 44, bounded WAL: a reader that holds a transaction (a backup, a
/// forgotten `sqlite3` shell) keeps the WAL from being copied into the
/// database; past `checkpoint_warning` (a minute by default, 1 ms here)
/// the server says so, naming the WAL; play goes on meanwhile, and once the
/// reader ends every action shown is served after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_holding_the_wal_is_warned_about() {
    use std::io::BufRead;
    let dir = common::temp_dir("op-reader");
    let (mut child, api) =
        spawn_child_with(&dir, &[("BOARDGAME_CHECKPOINT_WARNING_MS", "1")], std::process::Stdio::piped());
    let t = api.create().await;
    api.play(&t, 2).await;
    // A reader's transaction: its snapshot pins the WAL.
    let reader = rusqlite::Connection::open_with_flags(
        boardgame_server::database_path(&dir),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let _: i64 = reader.query_row("SELECT count(*) FROM actions", [], |r| r.get(0)).unwrap();
    let stderr = child.0.stderr.take().unwrap();
    // The child's stderr, read to its end (a closed pipe would fail its
    // next line), its warnings sent on.
    let (tx, warned) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if l.contains("has kept tables.db-wal") {
                let _ = tx.send(l);
            }
        }
    });
    // Commits after the reader's snapshot, which the checkpointer cannot copy.
    let line = loop {
        if let Ok(line) = warned.try_recv() {
            break line;
        }
        api.play(&t, 1).await;
    };
    assert!(line.contains("a reader (a backup, an sqlite3 shell left open)"), "{line}");
    let shown = vec![(t.clone(), api.shown(&t).await)];
    reader.execute_batch("COMMIT").unwrap();
    drop(reader);
    drop(child);
    serving(config(&dir), async |api| api.check(&shown, true).await).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 44, restore: a backup taken with `VACUUM INTO` while the server
/// ran, put in place after a clean stop (no WAL beside it), starts — its
/// commit is older than the folder's last, which is logged as a restore —
/// and serves what the backup holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_restored_after_a_clean_stop_is_served() {
    let dir = common::temp_dir("op-restore");
    let backup = dir.with_extension("backup.db");
    let _ = std::fs::remove_file(&backup);
    let at_backup = serving(config(&dir), async |api| {
        let t = api.create().await;
        api.play(&t, 3).await;
        let shown = vec![(t.clone(), api.shown(&t).await)];
        let db = rusqlite::Connection::open(boardgame_server::database_path(&dir)).unwrap();
        db.execute("VACUUM INTO ?1", [backup.to_str().unwrap()]).unwrap();
        api.play(&t, 3).await;
        shown
    })
    .await;
    std::fs::copy(&backup, boardgame_server::database_path(&dir)).unwrap();
    serving(config(&dir), async |api| api.check(&at_backup, true).await).await;
    let _ = std::fs::remove_file(&backup);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 44, case 6: an existing folder every user may write to (a sticky
/// `1777`, as `/tmp`) is used as it is, with a warning that says so.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_every_user_can_write_is_warned_about_and_kept() {
    use std::io::BufRead;
    use std::os::unix::fs::PermissionsExt;
    let dir = common::temp_dir("op-shared");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let (mut child, api) = spawn_child_with(&dir, &[], std::process::Stdio::piped());
    let t = api.create().await;
    api.play(&t, 1).await;
    let stderr = child.0.stderr.take().unwrap();
    drop(child);
    let warning = std::io::BufReader::new(stderr).lines().map_while(Result::ok).find(|l| l.starts_with("warning:"));
    let warning = warning.expect("a warning");
    assert!(warning.contains("can be written by every user") && warning.contains("1777"), "{warning}");
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o7777, 0o1777, "its mode is kept");
    let _ = std::fs::remove_dir_all(&dir);
}
