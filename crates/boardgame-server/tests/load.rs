//! A bounded load test on loopback: tables of bots playing on their own
//! (the CLI's pacing, 300 ms before each bot decision) while polling clients,
//! each a person at a table of its own, read their view every 200 ms and act
//! when it is their turn. Reports p50/p99 latency of actions (POST) and of
//! views (GET).
//!
//! `load_small` runs in the normal test suite (20 bot tables, 5 clients,
//! 5 s). The full run of `docs/serve.md` (200 bot tables, 50 clients, 30 s)
//! and the same with every table kept on disk (`--data`) are ignored by
//! default:
//! `cargo test --release -p boardgame-server --test load -- --ignored --nocapture`.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{TestServer, my_turn, over, token};
use reqwest::StatusCode;
use serde_json::json;
use tokio::sync::Mutex;

#[derive(Default)]
struct Samples {
    actions: Vec<Duration>,
    views: Vec<Duration>,
    errors: usize,
    games: usize,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn client(s: Arc<TestServer>, until: Instant, samples: Arc<Mutex<Samples>>) {
    let new_table = || async {
        let c = s
            .create(
                json!({ "game": "korovan", "seats": ["human", "heuristic", "heuristic", "heuristic", "heuristic"] }),
            )
            .await;
        (c["id"].as_str().unwrap().to_string(), token(&c, 0))
    };
    let (mut id, mut t) = new_table().await;
    let mut k = 0usize;
    while Instant::now() < until {
        let started = Instant::now();
        let (st, v) = s.view(&id, Some(&t)).await;
        let took = started.elapsed();
        let mut got = samples.lock().await;
        got.views.push(took);
        if st != StatusCode::OK {
            got.errors += 1;
        }
        drop(got);
        if over(&v) {
            samples.lock().await.games += 1;
            (id, t) = new_table().await;
            continue;
        }
        if my_turn(&v) {
            let legal = v["legal"].as_array().unwrap();
            let a = legal[k % legal.len()]["action"].clone();
            k += 1;
            let started = Instant::now();
            let (st, _) = s.act(&id, Some(&t), json!({ "action": a, "version": v["version"] })).await;
            let took = started.elapsed();
            let mut got = samples.lock().await;
            got.actions.push(took);
            if st != StatusCode::OK {
                got.errors += 1;
            }
            continue;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn run(bot_tables: usize, clients: usize, seconds: u64, data: bool) {
    let mut config = common::config();
    let dir = common::temp_dir("load");
    if data {
        config.data_dir = Some(dir.clone());
    }
    config.bot_delay = Duration::from_millis(300);
    config.max_tables = bot_tables + clients * 20;
    // One address (loopback) plays every client: no per-client limits.
    config.table_burst = 1_000_000;
    config.max_tables_per_client = 1_000_000;
    let s = Arc::new(common::start(config).await);
    let setups = [
        json!({ "game": "korovan", "seats": ["heuristic", "random", "heuristic", "random", "heuristic"] }),
        json!({ "game": "caravan", "players": 3, "seats": ["heuristic", "random", "heuristic"] }),
    ];
    let mut bot_ids = Vec::new();
    for i in 0..bot_tables {
        bot_ids.push(s.create(setups[i % 2].clone()).await["id"].as_str().unwrap().to_string());
    }
    let samples = Arc::new(Mutex::new(Samples::default()));
    let until = Instant::now() + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..clients).map(|_| tokio::spawn(client(s.clone(), until, samples.clone()))).collect();
    for t in tasks {
        t.await.unwrap();
    }
    let mut bot_actions = 0u64;
    for id in &bot_ids {
        bot_actions += s.view(id, None).await.1["version"].as_u64().unwrap();
    }
    let mut got = samples.lock().await;
    got.actions.sort();
    got.views.sort();
    let (a50, a99) = (percentile(&got.actions, 0.5), percentile(&got.actions, 0.99));
    let (v50, v99) = (percentile(&got.views, 0.5), percentile(&got.views, 0.99));
    println!(
        "load{}: {bot_tables} bot tables, {clients} polling clients, {seconds} s: {} actions p50 {a50:.2?} p99 {a99:.2?}; \
         {} views p50 {v50:.2?} p99 {v99:.2?}; {bot_actions} actions on the bot tables; {} client games finished; {} errors",
        if data { " (with --data)" } else { "" },
        got.actions.len(),
        got.views.len(),
        got.games,
        got.errors
    );
    assert_eq!(got.errors, 0, "no request failed under load");
    assert!(!got.actions.is_empty() && !got.views.is_empty());
    assert!(bot_actions > bot_tables as u64, "the bot tables played while the clients polled");
    assert!(a99 < Duration::from_secs(5), "actions are answered within seconds under load (p99 {a99:?})");
    drop(got);
    match Arc::try_unwrap(s) {
        Ok(s) => s.stop().await,
        Err(_) => panic!("a client still holds the server"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_small() {
    run(20, 5, 5, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the full load test of docs/serve.md; run by hand in release"]
async fn load_full() {
    run(200, 50, 30, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the full load test of docs/serve.md, every table kept on disk; run by hand in release"]
async fn load_full_with_data() {
    run(200, 50, 30, true).await;
}
