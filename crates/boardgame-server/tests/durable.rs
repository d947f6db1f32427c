//! Issue 22, items 4–6, on the database of issue 29: with a data directory,
//! nothing is shown before it is on disk (people's actions, bots' and
//! chance's), a table row changed or copied under another id is set aside
//! at start-up (never served twice), and the files holding the seats'
//! secrets are private.

mod common;

use std::path::Path;
use std::time::Duration;

use boardgame_server::ServerConfig;
use common::{over, token};
use serde_json::json;

/// The actions of table `id` in the database (what a restart would read:
/// its committed rows).
fn on_disk(dir: &Path, id: &str) -> usize {
    let db = rusqlite::Connection::open_with_flags(
        boardgame_server::database_path(dir),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    let n: i64 = db
        .query_row("SELECT count(*) FROM actions JOIN tables ON key = table_key WHERE id = ?1", [id], |r| r.get(0))
        .unwrap();
    n as usize
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_shown_before_it_is_on_disk() {
    let dir = common::temp_dir("durable");
    // Bots wait 1 ms a move, so that the random games last long enough on
    // a fast, idle machine for the views below to catch them mid-game (at
    // no delay they finished within 27 views on CI's machine).
    let config = ServerConfig { data_dir: Some(dir.clone()), bot_delay: Duration::from_millis(1), ..common::config() };
    let s = common::start(config).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let c = s
            .create(json!({ "game": "caravan", "players": 2, "config": { "max_turns": 400 }, "seats": ["random", "random"] }))
            .await;
        ids.push(c["id"].as_str().unwrap().to_string());
    }
    // A person too: her action is on disk when it is answered, and before.
    let c = s.create(json!({ "game": "korovan", "seats": ["human", "random", "random"] })).await;
    let (korovan, t) = (c["id"].as_str().unwrap().to_string(), token(&c, 0));
    let mut checked = 0;
    let mut finished = 0;
    while finished < ids.len() {
        finished = 0;
        for id in &ids {
            let v = s.view(id, None).await.1;
            let shown = v["version"].as_u64().unwrap() as usize;
            assert_eq!(v["log"].as_array().unwrap().len(), shown);
            let kept = on_disk(&dir, id);
            assert!(kept >= shown, "table {id} shows {shown} actions, only {kept} are on disk");
            checked += 1;
            finished += usize::from(over(&v));
        }
        let v = s.view(&korovan, Some(&t)).await.1;
        if common::my_turn(&v) {
            let a = v["legal"][0]["action"].clone();
            let (st, r) = s.act(&korovan, Some(&t), json!({ "action": a, "version": v["version"] })).await;
            assert_eq!(st, reqwest::StatusCode::OK, "{r}");
            let acked = r["version"].as_u64().unwrap() as usize;
            assert!(on_disk(&dir, &korovan) >= acked, "an acknowledged action is on disk");
        }
    }
    assert!(checked > 30, "{checked} views checked");
    // The files hold the seats' secrets: private (the database and, while
    // it is open, its WAL and shared-memory files).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        let db = boardgame_server::database_path(&dir);
        assert_eq!(mode(&db), 0o600);
        for suffix in ["-wal", "-shm"] {
            let mut p = db.clone().into_os_string();
            p.push(suffix);
            assert_eq!(mode(Path::new(&p)), 0o600, "{p:?}");
        }
    }
    s.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays one action of whichever of `tokens` is to move; the new version.
async fn play_one(s: &common::TestServer, id: &str, tokens: &[String]) -> u64 {
    loop {
        for t in tokens {
            let v = s.view(id, Some(t)).await.1;
            if common::my_turn(&v) {
                let a = v["legal"][0]["action"].clone();
                let (st, r) = s.act(id, Some(t), json!({ "action": a, "version": v["version"] })).await;
                assert_eq!(st, reqwest::StatusCode::OK, "{r}");
                return r["version"].as_u64().unwrap();
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The probe of issue 29: a flipped byte of a table's id made the old
/// journal serve a second table with the same tokens. A row whose id was
/// changed, or a copy of a row under another id, does not match its
/// checksum: it is set aside (kept, not served), and no two tables share
/// their seats' tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_or_copied_table_row_is_set_aside() {
    let dir = common::temp_dir("copy");
    let config = || ServerConfig { data_dir: Some(dir.clone()), ..common::config() };
    let s = common::start(config()).await;
    let mut tables = Vec::new();
    for _ in 0..3 {
        let c = s.create(json!({ "game": "korovan", "seats": ["human", "human", "human"] })).await;
        let id = c["id"].as_str().unwrap().to_string();
        let tokens: Vec<String> = (0..3).map(|i| token(&c, i)).collect();
        let version = play_one(&s, &id, &tokens).await;
        tables.push((id, tokens, version));
    }
    s.stop().await;
    let (flipped, copied, intact) = (&tables[0], &tables[1], &tables[2]);
    // One table's id with a byte changed; a copy of another under a new id.
    let mut new_id = flipped.0.clone().into_bytes();
    new_id[5] = if new_id[5] == b'0' { b'1' } else { b'0' };
    let new_id = String::from_utf8(new_id).unwrap();
    let db = rusqlite::Connection::open(boardgame_server::database_path(&dir)).unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    db.execute("UPDATE tables SET id = ?1 WHERE id = ?2", [&new_id, &flipped.0]).unwrap();
    db.execute(
        "INSERT INTO tables (id, game, created, seats, record, steps, checksum)
         SELECT '0000000000000001', game, created, seats, record, steps, checksum FROM tables WHERE id = ?1",
        [&copied.0],
    )
    .unwrap();
    db.execute(
        "INSERT INTO actions (table_key, step, action, checksum)
         SELECT (SELECT key FROM tables WHERE id = '0000000000000001'), step, action, actions.checksum
         FROM actions JOIN tables ON key = table_key WHERE id = ?1",
        [&copied.0],
    )
    .unwrap();
    drop(db);
    let s = common::start(config()).await;
    assert_eq!(s.view(&flipped.0, None).await.0, reqwest::StatusCode::NOT_FOUND, "the old id names no table");
    for aside in [&new_id, &"0000000000000001".to_string()] {
        let (status, body) = s.view(aside, None).await;
        assert_eq!((status, body["code"].as_str()), (reqwest::StatusCode::GONE, Some("set_aside")), "{aside}: {body}");
    }
    // The intact tables play on, each under its own id and tokens.
    for (id, tokens, version) in [copied, intact] {
        assert_eq!(s.view(id, Some(&tokens[0])).await.1["version"], *version);
        play_one(&s, id, tokens).await;
    }
    s.stop().await;
    let db = rusqlite::Connection::open(boardgame_server::database_path(&dir)).unwrap();
    let status = |id: &str| -> String {
        db.query_row("SELECT status || ': ' || coalesce(status_why, '') FROM tables WHERE id = ?1", [id], |r| r.get(0))
            .unwrap()
    };
    assert!(status(&new_id).starts_with("set_aside: its row does not match its checksum"), "{}", status(&new_id));
    assert!(status("0000000000000001").starts_with("set_aside"), "{}", status("0000000000000001"));
    assert_eq!(status(&copied.0), "live: ");
    let kept: i64 = db.query_row("SELECT count(*) FROM actions", [], |r| r.get(0)).unwrap();
    assert!(kept as u64 >= flipped.2 + 2 * copied.2 + intact.2 + 2, "every row is kept ({kept})");
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}
