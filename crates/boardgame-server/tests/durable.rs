//! Issue 22, items 4–6: with a data directory, nothing is shown before it is
//! on disk (people's actions, bots' and chance's), a copy of a table's file
//! under another name is refused at start-up, and the files holding the
//! seats' secrets are private.

mod common;

use std::path::Path;
use std::time::Duration;

use boardgame_server::ServerConfig;
use common::{over, token};
use serde_json::{Value, json};

/// The most actions of table `id` on disk: its file, or the complete lines
/// of the journal (what a restart would read).
fn on_disk(dir: &Path, id: &str) -> usize {
    let steps = |t: &Value| t["record"]["actions"].as_array().map_or(0, Vec::len);
    let mut most = std::fs::read(dir.join("tables").join(format!("{id}.json")))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .map_or(0, |t| steps(&t));
    if let Ok(journal) = std::fs::read(dir.join("journal.log")) {
        for line in journal.split(|&b| b == b'\n') {
            if let Ok(v) = serde_json::from_slice::<Value>(line)
                && v["table"]["id"] == id
            {
                most = most.max(steps(&v["table"]));
            }
        }
    }
    most
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
    s.stop().await;
    // The files hold the seats' secrets: private.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("tables")), 0o700);
        assert_eq!(mode(&dir.join("journal.log")), 0o600);
        for f in std::fs::read_dir(dir.join("tables")).unwrap() {
            assert_eq!(mode(&f.unwrap().path()), 0o600);
        }
    }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_of_a_table_file_is_refused() {
    let dir = common::temp_dir("copy");
    let config = || ServerConfig { data_dir: Some(dir.clone()), ..common::config() };
    let s = common::start(config()).await;
    let c = s.create(json!({ "game": "korovan", "seats": ["human", "human", "human"] })).await;
    let id = c["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> = (0..3).map(|i| token(&c, i)).collect();
    play_one(&s, &id, &tokens).await;
    s.stop().await;
    // A restart writes every table to its file; a copy is made under another
    // name, then the table moves on.
    common::start(config()).await.stop().await;
    let file = dir.join("tables").join(format!("{id}.json"));
    let copy = dir.join("tables").join("0000000000000001.json");
    std::fs::copy(&file, &copy).unwrap();
    let s = common::start(config()).await;
    let latest = play_one(&s, &id, &tokens).await;
    s.stop().await;
    common::start(config()).await.stop().await;
    let server = boardgame_server::Server::builder(config())
        .game::<korovan_core::Korovan>()
        .game::<caravan_core::Caravan>()
        .build()
        .await
        .unwrap();
    assert_eq!(server.table_count(), 1, "one table, not two with one id");
    drop(server);
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The real one, at its latest, plays on and is saved under its own name.
    let s = common::start(config()).await;
    assert_eq!(s.view(&id, None).await.1["version"], latest, "the copy (older) is not what is resumed");
    play_one(&s, &id, &tokens).await;
    s.stop().await;
    assert!(copy.exists(), "the copy is left for its owner to look at");
    let _ = std::fs::remove_dir_all(&dir);
}
