//! Nothing is lost on restart (issue 14 part 5): a server with a data
//! directory is killed mid-game (its runtime dropped, no graceful shutdown),
//! a torn write is planted at the end of the database's WAL, and a new
//! server on the same directory resumes every table: the humans' actions all
//! there (each was on disk before it was answered), the bots playing on to
//! the end, finished tables still showing their record.

mod common;

use std::time::Duration;

use boardgame_server::ServerConfig;
use common::{ChildServer, my_turn, over, token};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn config(dir: &std::path::Path) -> ServerConfig {
    ServerConfig { data_dir: Some(dir.to_path_buf()), bot_delay: Duration::from_millis(20), ..ServerConfig::default() }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

struct Before {
    korovan: String,
    tokens: Vec<String>,
    korovan_log: Vec<Value>,
    bots: String,
    bots_version: u64,
    finished: String,
    finished_record: Value,
}

#[test]
fn a_restarted_server_resumes_every_table() {
    let dir = common::temp_dir("restart");
    let first = runtime();
    let before = first.block_on(async {
        let s = common::start(config(&dir)).await;
        // Humans at seats 0 and 3, bots between.
        let c = s.create(json!({ "game": "korovan", "seats": ["human", "random", "random", "human"] })).await;
        let korovan = c["id"].as_str().unwrap().to_string();
        let tokens = vec![token(&c, 0), token(&c, 3)];
        let mut acted = 0;
        while acted < 6 {
            let v0 = s.view(&korovan, Some(&tokens[0])).await.1;
            let v3 = s.view(&korovan, Some(&tokens[1])).await.1;
            let (t, v) = if my_turn(&v0) { (&tokens[0], v0) } else if my_turn(&v3) { (&tokens[1], v3) } else {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            let a = v["legal"][0]["action"].clone();
            let (st, r) = s.act(&korovan, Some(t), json!({ "action": a, "version": v["version"] })).await;
            assert_eq!(st, StatusCode::OK, "{r}");
            acted += 1;
        }
        let korovan_log = s.view(&korovan, Some(&tokens[0])).await.1["log"].as_array().unwrap().clone();
        // Bots only, slowed down so that the crash comes mid-game.
        let c = s.create(json!({ "game": "caravan", "players": 2, "config": { "max_turns": 40 }, "seats": ["random", "random"] })).await;
        let bots = c["id"].as_str().unwrap().to_string();
        let bots_version = s.wait_for(&bots, None, |v| v["version"].as_u64().unwrap() >= 12).await["version"].as_u64().unwrap();
        // A finished table.
        let c = s.create(json!({ "game": "caravan", "players": 2, "config": { "max_turns": 1 }, "seats": ["human", "random"] })).await;
        let finished = c["id"].as_str().unwrap().to_string();
        let t = token(&c, 0);
        s.wait_for(&finished, Some(&t), my_turn).await;
        assert_eq!(s.act(&finished, Some(&t), json!({ "action": "end" })).await.0, StatusCode::OK);
        s.wait_for(&finished, None, over).await;
        let finished_record =
            s.client.get(s.url(&format!("/api/tables/{finished}/record"))).send().await.unwrap().json().await.unwrap();
        Before { korovan, tokens, korovan_log, bots, bots_version, finished, finished_record }
    });
    // The crash: every task of the first server stops where it is.
    first.shutdown_background();
    // A write torn by the crash: garbage after the WAL's last frame (SQLite
    // checks each frame's checksum and stops at the first that fails).
    let mut wal = boardgame_server::database_path(&dir).into_os_string();
    wal.push("-wal");
    let mut torn = std::fs::OpenOptions::new().create(true).append(true).open(&wal).unwrap();
    std::io::Write::write_all(&mut torn, &[0x5a; 5000]).unwrap();
    drop(torn);

    let second = runtime();
    second.block_on(async {
        let s = common::start(config(&dir)).await;
        // Korovan: the same seats, tokens and log, and the game goes on to its end.
        let v = s.view(&before.korovan, Some(&before.tokens[0])).await.1;
        let log = v["log"].as_array().unwrap();
        assert!(log.len() >= before.korovan_log.len());
        assert_eq!(&log[..before.korovan_log.len()], &before.korovan_log[..], "every action before the crash is kept");
        loop {
            let v0 = s.view(&before.korovan, Some(&before.tokens[0])).await.1;
            if over(&v0) {
                break;
            }
            let v3 = s.view(&before.korovan, Some(&before.tokens[1])).await.1;
            let (t, v) = if my_turn(&v0) {
                (&before.tokens[0], v0)
            } else if my_turn(&v3) {
                (&before.tokens[1], v3)
            } else {
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            };
            let a = v["legal"][0]["action"].clone();
            let (st, r) = s.act(&before.korovan, Some(t), json!({ "action": a, "version": v["version"] })).await;
            assert_eq!(st, StatusCode::OK, "{r}");
        }
        // The bots' table resumed on its own and finished.
        let v = s.wait_for(&before.bots, None, over).await;
        assert!(v["version"].as_u64().unwrap() > before.bots_version, "the bots played on after the restart");
        let record: Value = s
            .client
            .get(s.url(&format!("/api/tables/{}/record", before.bots)))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let record: boardgame_kit::GameRecord<caravan_core::CaravanConfig> = serde_json::from_value(record).unwrap();
        assert!(record.is_complete::<caravan_core::Caravan>().unwrap(), "the resumed game's record replays to its end");
        // The finished table is still there, with the same record.
        let record: Value = s
            .client
            .get(s.url(&format!("/api/tables/{}/record", before.finished)))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(record, before.finished_record);
        s.stop().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// The server of [`kill_nine`]: started by the test binary itself (this
/// test, run with `BOARDGAME_KILL_CHILD=<dir>`), it serves `dir` on a free
/// port, prints the port, and runs until it is killed.
#[test]
#[ignore = "the server process of kill_nine; does nothing when run by hand"]
fn kill_nine_child() {
    let Ok(dir) = std::env::var("BOARDGAME_KILL_CHILD") else { return };
    let rt = runtime();
    rt.block_on(async {
        let mut c = config(std::path::Path::new(&dir));
        c.bot_delay = Duration::from_millis(5);
        let server = boardgame_server::Server::builder(c)
            .game::<korovan_core::Korovan>()
            .game::<caravan_core::Caravan>()
            .build()
            .await
            .unwrap();
        common::serve_in_child(server).await;
    });
}

fn spawn_child(dir: &std::path::Path) -> (ChildServer, String) {
    common::spawn_child_server("kill_nine_child", "BOARDGAME_KILL_CHILD", dir, &[], std::process::Stdio::null())
}

/// What a table showed and acknowledged before a kill.
#[derive(Default)]
struct Seen {
    tokens: Vec<String>,
    /// The longest log each viewer (each token, then the public view) was shown.
    logs: Vec<Vec<Value>>,
    /// Acknowledged actions: (viewer, version after, notation).
    acked: Vec<(usize, u64, String)>,
    /// The game was seen over: checked once more after the next start, then dropped.
    done: bool,
}

/// Checks a viewer's log against what it was shown before: nothing taken back.
fn extends(shown: &[Value], now: &[Value], what: &str) {
    assert!(now.len() >= shown.len(), "{what}: {} actions shown, {} now", shown.len(), now.len());
    assert_eq!(&now[..shown.len()], shown, "{what}: an action shown was taken back");
}

async fn get(c: &reqwest::Client, url: String, token: &str) -> Option<Value> {
    let r = c.get(url).bearer_auth(token).send().await.ok()?;
    if r.status() != StatusCode::OK {
        return None;
    }
    r.json().await.ok()
}

async fn kill_nine(rounds: u64) {
    let dir = common::temp_dir(&format!("kill9-{rounds}"));
    let c = reqwest::Client::builder().timeout(Duration::from_secs(20)).build().unwrap();
    let mut tables: std::collections::BTreeMap<String, Seen> = Default::default();
    let (mut acked, mut shown_views) = (0u64, 0u64);
    let mut lcg = 0x2545_f491_4f6c_dd1d_u64;
    // One start more than kills: the last kill is checked too.
    for round in 0..=rounds {
        let (child, base) = spawn_child(&dir);
        // Everything shown and acknowledged before the last kill is still there.
        for (id, seen) in &mut tables {
            for (viewer, t) in seen.tokens.clone().iter().enumerate() {
                let v = get(&c, format!("{base}/api/tables/{id}/view"), t).await.expect("a kept table");
                let log = v["log"].as_array().unwrap().clone();
                extends(&seen.logs[viewer], &log, &format!("round {round}, table {id}, seat {viewer}"));
                for (seat, version, action) in &seen.acked {
                    if *seat == viewer {
                        let entry = &log[*version as usize - 1];
                        assert_eq!(entry["action"].as_str(), Some(action.as_str()), "an acknowledged action was lost");
                    }
                }
                seen.logs[viewer] = log;
            }
        }
        if round == rounds {
            break;
        }
        // Keep four games going: two people and two bots each.
        tables.retain(|_, seen| !seen.done);
        while tables.len() < 4 {
            let body = json!({ "game": "korovan", "seats": ["human", "random", "human", "random"] });
            let r = c.post(format!("{base}/api/tables")).json(&body).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::CREATED);
            let created: Value = r.json().await.unwrap();
            let seen = Seen {
                tokens: vec![token(&created, 0), token(&created, 2)],
                logs: vec![vec![], vec![]],
                acked: vec![],
                done: false,
            };
            tables.insert(created["id"].as_str().unwrap().to_string(), seen);
        }
        // Play, and kill the server at a random moment (40–400 ms in).
        lcg = lcg.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let kill_after = Duration::from_millis(40 + (lcg >> 33) % 360);
        let killer = std::thread::spawn(move || {
            std::thread::sleep(kill_after);
            drop(child); // SIGKILL
        });
        let until = std::time::Instant::now() + kill_after + Duration::from_millis(50);
        'play: while std::time::Instant::now() < until {
            for (id, seen) in &mut tables {
                for viewer in 0..seen.tokens.len() {
                    let t = seen.tokens[viewer].clone();
                    let Some(v) = get(&c, format!("{base}/api/tables/{id}/view"), &t).await else { break 'play };
                    let log = v["log"].as_array().unwrap().clone();
                    extends(&seen.logs[viewer], &log, "while running");
                    seen.logs[viewer] = log;
                    shown_views += 1;
                    if over(&v) {
                        seen.done = true;
                        continue;
                    }
                    if my_turn(&v) {
                        let legal = v["legal"].as_array().unwrap();
                        let a = legal[(lcg as usize >> 7) % legal.len()]["action"].clone();
                        let r = c
                            .post(format!("{base}/api/tables/{id}/actions"))
                            .bearer_auth(&t)
                            .json(&json!({ "action": a, "version": v["version"] }))
                            .send()
                            .await;
                        let Ok(r) = r else { break 'play };
                        if r.status() == StatusCode::OK {
                            let Ok(done) = r.json::<Value>().await else { break 'play };
                            seen.acked.push((
                                viewer,
                                done["version"].as_u64().unwrap(),
                                done["action"].as_str().unwrap().to_string(),
                            ));
                            acked += 1;
                        }
                    }
                }
            }
        }
        killer.join().unwrap();
    }
    println!("kill -9: {rounds} kills, {acked} acknowledged actions, {shown_views} views checked");
    assert!(acked > rounds, "actions were played between the kills ({acked})");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 22 acceptance: `kill -9` of a server under play, restarted on the
/// same directory, again and again; every acknowledged action survives and
/// nothing shown is ever taken back. 8 kills here; the 60 of the long run:
/// `cargo test -p boardgame-server --test restart -- --ignored kill_nine_60 --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_nine_8() {
    kill_nine(8).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "60 kill -9 restarts, about two minutes; run by hand"]
async fn kill_nine_60() {
    kill_nine(60).await;
}
