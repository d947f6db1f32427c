//! Nothing is lost on restart (issue 14 part 5): a server with a data
//! directory is killed mid-game (its runtime dropped, no graceful shutdown),
//! a leftover temporary file and a corrupt table file are planted, and a new
//! server on the same directory resumes every table: the humans' actions all
//! there (each was on disk before it was answered), the bots playing on to
//! the end, finished tables still showing their record.

mod common;

use std::time::Duration;

use boardgame_server::ServerConfig;
use common::{my_turn, over, token};
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
    std::fs::write(dir.join("tables").join(format!("{}.json.tmp", before.korovan)), b"{\"format\": 1, \"id\": \"torn")
        .unwrap();
    std::fs::write(dir.join("tables").join("0123456789abcdef.json"), b"not a table").unwrap();

    let second = runtime();
    second.block_on(async {
        let s = common::start(config(&dir)).await;
        assert!(!dir.join("tables").join(format!("{}.json.tmp", before.korovan)).exists(), "the torn write is gone");
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
