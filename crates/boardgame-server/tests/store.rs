//! The SQLite store seen from outside: a table whose rows do not replay is
//! set aside with its rows kept (and answered `410 set_aside`), a damaged
//! database is refused and left untouched.

mod common;

use std::path::Path;
use std::time::Duration;

use boardgame_server::{Server, ServerConfig};
use common::{my_turn, token};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn config(dir: &Path) -> ServerConfig {
    ServerConfig { data_dir: Some(dir.to_path_buf()), ..common::config() }
}

fn db(dir: &Path) -> rusqlite::Connection {
    let db = rusqlite::Connection::open(boardgame_server::database_path(dir)).unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    db
}

async fn build(dir: &Path) -> Result<Server, boardgame_server::ServerError> {
    Server::builder(config(dir)).game::<korovan_core::Korovan>().game::<caravan_core::Caravan>().build().await
}

/// Plays `n` actions of whichever of `tokens` is to move; the version after.
async fn play(s: &common::TestServer, id: &str, tokens: &[String], n: usize) -> u64 {
    let mut version = 0;
    for _ in 0..n {
        'one: loop {
            for t in tokens {
                let v = s.view(id, Some(t)).await.1;
                if my_turn(&v) {
                    let a = v["legal"][0]["action"].clone();
                    let (st, r) = s.act(id, Some(t), json!({ "action": a, "version": v["version"] })).await;
                    assert_eq!(st, StatusCode::OK, "{r}");
                    version = r["version"].as_u64().unwrap();
                    break 'one;
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    version
}

/// The 64-bit FNV-1a digest of the store, each part preceded by its length
/// (docs/serve.md: an action row's checksum), written out here as the
/// test's own oracle.
fn digest(parts: &[&[u8]]) -> i64 {
    let fnv = |h: u64, bytes: &[u8]| bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let h = parts.iter().fold(0xcbf2_9ce4_8422_2325, |h, p| fnv(fnv(h, &(p.len() as u64).to_le_bytes()), p));
    i64::from_le_bytes(h.to_le_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_whose_rows_do_not_replay_is_set_aside_and_kept() {
    let dir = common::temp_dir("store-aside");
    let s = common::start(config(&dir)).await;
    let humans = json!({ "game": "korovan", "seats": ["human", "human", "human"] });
    let (bad, good) = (s.create(humans.clone()).await, s.create(humans).await);
    let tokens = |c: &Value| (0..3).map(|i| token(c, i)).collect::<Vec<_>>();
    let (bad_id, good_id) = (bad["id"].as_str().unwrap().to_string(), good["id"].as_str().unwrap().to_string());
    let steps = play(&s, &bad_id, &tokens(&bad), 2).await;
    let good_version = play(&s, &good_id, &tokens(&good), 2).await;
    s.stop().await;
    // An action the game cannot play, appended with a valid checksum: the
    // rows check out, but do not replay.
    let conn = db(&dir);
    let (key, last): (i64, i64) = conn
        .query_row(
            "SELECT key, actions.checksum FROM tables JOIN actions ON key = table_key WHERE id = ?1 ORDER BY step DESC LIMIT 1",
            [&bad_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let illegal: u64 = 4_000_000_000;
    let sum = digest(&[&last.to_le_bytes(), &steps.to_le_bytes(), &illegal.to_le_bytes()]);
    conn.execute(
        "INSERT INTO actions (table_key, step, action, checksum) VALUES (?1, ?2, ?3, ?4)",
        rusqlite::params![key, steps as i64, illegal as i64, sum],
    )
    .unwrap();
    conn.execute("UPDATE tables SET steps = steps + 1 WHERE key = ?1", [key]).unwrap();
    drop(conn);
    for start in 0..2 {
        let s = common::start(config(&dir)).await;
        let (status, body) = s.view(&bad_id, None).await;
        assert_eq!(status, StatusCode::GONE, "start {start}: the table is not served: {body}");
        assert_eq!(body["code"], "set_aside");
        assert!(body["error"].as_str().unwrap().contains("its record does not replay"), "{body}");
        assert_eq!(s.view(&good_id, None).await.1["version"], good_version, "start {start}: the other one is");
        s.stop().await;
        let (status, why, rows): (String, String, i64) = db(&dir)
            .query_row(
                "SELECT status, status_why, (SELECT count(*) FROM actions WHERE table_key = key) FROM tables WHERE id = ?1",
                [&bad_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(status, "set_aside");
        assert!(why.starts_with("its record does not replay"), "{why}");
        assert_eq!(rows as u64, steps + 1, "start {start}: every row is kept");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_database_is_refused_and_left_untouched() {
    let dir = common::temp_dir("store-damaged");
    let s = common::start(ServerConfig { table_burst: 100, max_tables_per_client: 100, ..config(&dir) }).await;
    for _ in 0..30 {
        s.create(json!({ "game": "korovan", "seats": ["human", "human", "human"] })).await;
    }
    s.stop().await;
    // The tables' tasks end after the server: the database is closed once
    // the lock file says so (docs/serve.md, "A lost WAL is seen").
    for _ in 0..12_000 {
        if std::fs::read_to_string(dir.join("tables.db.lock")).is_ok_and(|l| l.starts_with("stopped")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Everything into the database file (the WAL emptied), then the server
    // sees a copy of that file alone, damaged.
    db(&dir).query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0)).unwrap();
    let good = std::fs::read(boardgame_server::database_path(&dir)).unwrap();
    assert!(good.len() >= 3 * 4096, "{} bytes", good.len());
    let copy = common::temp_dir("store-damaged-copy");
    std::fs::create_dir_all(&copy).unwrap();
    let mut flipped = good.clone();
    flipped[4096] ^= 0xff; // page 2's b-tree page type
    for (what, bytes) in [("a flipped byte", flipped), ("a cut file", good[..good.len() - 4096 - 100].to_vec())] {
        std::fs::write(boardgame_server::database_path(&copy), &bytes).unwrap();
        let Err(e) = build(&copy).await else { panic!("{what}: the damaged database was served") };
        let e = e.to_string();
        assert!(e.contains("refusing the database") && e.contains("left untouched"), "{what}: {e}");
        assert_eq!(std::fs::read(boardgame_server::database_path(&copy)).unwrap(), bytes, "{what}: the file changed");
    }
    // Page 1 holds the schema (`sqlite_schema`): its b-tree's page type, or
    // a byte of a table's `CREATE` statement. The refusal names the file,
    // says it is damaged and what to do.
    let create = good[..4096].windows(12).rposition(|w| w == b"CREATE TABLE").expect("the schema is on page 1");
    let mut schema_type = good.clone();
    schema_type[100] ^= 0xff;
    let mut schema_text = good.clone();
    schema_text[create + 3] = b'@';
    for (what, bytes) in [("page 1's b-tree type", schema_type), ("a CREATE statement", schema_text)] {
        std::fs::write(boardgame_server::database_path(&copy), &bytes).unwrap();
        let Err(e) = build(&copy).await else { panic!("{what}: the damaged database was served") };
        let e = e.to_string();
        let path = boardgame_server::database_path(&copy);
        assert!(e.starts_with(&format!("refusing the database {}: ", path.display())), "{what}: {e}");
        assert!(e.contains("it is damaged (") && e.contains("): restore a backup."), "{what}: {e}");
        assert!(e.contains("move, copy or restore all three together") && e.ends_with("left untouched"), "{what}: {e}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{what}: the file changed");
        let names: Vec<_> = std::fs::read_dir(&copy).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{what}: only tables.db and its lock file are there: {names:?}");
    }
    std::fs::write(boardgame_server::database_path(&copy), &good).unwrap();
    assert_eq!(build(&copy).await.unwrap().table_count(), 30, "the intact copy is served");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&copy);
}
