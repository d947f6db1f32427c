//! Issue 29: one client cannot starve the others. Bot decisions wait in a
//! queue per client and slots go round-robin over the clients, one client
//! holding at most its share of them and spending at most its thinking
//! budget; replays are capped per client too.

mod common;

use common::client_from;

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

async fn create(s: &common::TestServer, client: &reqwest::Client, body: Value) -> String {
    let r = client.post(s.url("/api/tables")).json(&body).send().await.unwrap();
    let status = r.status();
    let v: Value = r.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v["id"].as_str().unwrap().to_string()
}

async fn public_view(s: &common::TestServer, id: &str) -> Value {
    let r = s.client.get(s.url(&format!("/api/tables/{id}/view"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.json().await.unwrap()
}

/// The bot moves in a view's log.
fn bot_moves(view: &Value) -> usize {
    view["log"].as_array().unwrap().iter().filter(|e| !e["by"].is_null()).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_bots_of_one_client_leave_a_slot_to_another() {
    let mut config = common::config();
    // Two slots, one per client at most: whatever the machine's CPU count.
    config.bot_threads = 2;
    config.max_bot_threads_per_client = 1;
    config.max_bot_time = Duration::from_secs(10);
    let s = common::start(config).await;
    // One client fills its share with slow bot-only tables: every decision
    // of theirs thinks for 10 s.
    let greedy = client_from("127.0.0.2");
    let mut slow = Vec::new();
    for _ in 0..6 {
        let seats = ["ismcts:10s", "ismcts:10s", "ismcts:10s"];
        slow.push(create(&s, &greedy, json!({ "game": "korovan", "seats": seats })).await);
    }
    // Until one of them thinks (it holds a slot).
    let mut thinking = false;
    for _ in 0..2000 {
        for id in &slow {
            thinking |= !public_view(&s, id).await["thinking"].is_null();
        }
        if thinking {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(thinking, "the slow bots think");
    // Another client's heuristic bots move meanwhile.
    let started = Instant::now();
    let other = client_from("127.0.0.3");
    let id = create(&s, &other, json!({ "game": "korovan", "seats": ["heuristic", "heuristic", "heuristic"] })).await;
    let mut first = None;
    let view = loop {
        let v = public_view(&s, &id).await;
        if first.is_none() && bot_moves(&v) >= 1 {
            first = Some(started.elapsed());
        }
        if bot_moves(&v) >= 3 {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(started.elapsed() < Duration::from_secs(60), "the heuristic bots never moved");
    };
    let first = first.unwrap();
    let three = started.elapsed();
    // All this while the slow client's first decision was still thinking:
    // the heuristic never waited for a slow bot.
    let mut slow_moves = 0;
    for id in &slow {
        slow_moves += bot_moves(&public_view(&s, id).await);
    }
    assert_eq!(slow_moves, 0, "the slow bots' first decision is still running ({three:?})");
    assert!(first < Duration::from_secs(2), "the first heuristic move took {first:?}");
    assert!(bot_moves(&view) >= 3);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_spent_its_thinking_budget_waits() {
    let mut config = common::config();
    config.bot_threads = 2;
    config.max_bot_threads_per_client = 2;
    // 300 ms of thinking per hour: one searched decision of 400 ms spends it
    // (a decision with a single legal action is not searched, and costs
    // next to nothing).
    config.bot_budget_per_client = Duration::from_millis(300);
    config.bot_budget_window = Duration::from_secs(3600);
    let s = common::start(config).await;
    let seats = ["ismcts:400ms", "ismcts:400ms", "ismcts:400ms"];
    let spender = client_from("127.0.0.2");
    let id = create(&s, &spender, json!({ "game": "korovan", "seats": seats })).await;
    // Within a minute the table stops: two seconds without a move, a bot to
    // move and the game not over. Without a budget it moves every 400 ms.
    let started = Instant::now();
    let mut last = public_view(&s, &id).await;
    let stopped = loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let now = public_view(&s, &id).await;
        if now["version"] == last["version"] && bot_moves(&now) > 0 {
            break now;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the spender's bots never stopped");
        last = now;
    };
    assert_eq!(stopped["turn"]["kind"], "player", "{}", stopped["turn"]);
    // Another client is not held back by that: it has a budget of its own.
    let other = client_from("127.0.0.3");
    let theirs = create(&s, &other, json!({ "game": "korovan", "seats": seats })).await;
    let mut moved = 0;
    for _ in 0..6000 {
        moved = bot_moves(&public_view(&s, &theirs).await);
        if moved > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(moved > 0, "the other client's bots think");
    assert_eq!(public_view(&s, &id).await["version"], stopped["version"], "the spender still waits");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_cannot_hold_every_replay_slot() {
    let mut config = common::config();
    config.max_replays = 2;
    config.max_replays_per_client = 1;
    config.max_replay_actions = 100_000;
    let s = common::start(config).await;
    // One client replays a long game from three loops at once.
    let long = std::sync::Arc::new(common::caravan_record(2_000, 7));
    assert!(long["actions"].as_array().unwrap().len() > 1_500);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let loops: Vec<_> = (0..3)
        .map(|_| {
            let (url, long, done) = (s.url("/api/replay"), long.clone(), done.clone());
            tokio::spawn(async move {
                let greedy = client_from("127.0.0.2");
                let (mut ok, mut refused) = (0, 0);
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    let r = greedy.post(&url).json(&json!({ "record": *long })).send().await.unwrap();
                    match r.status() {
                        StatusCode::OK => ok += 1,
                        StatusCode::TOO_MANY_REQUESTS => {
                            assert_eq!(r.headers()["retry-after"], "1");
                            assert_eq!(r.json::<Value>().await.unwrap()["code"], "too_many_replays");
                            refused += 1;
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        }
                        other => panic!("{other}: {}", r.text().await.unwrap()),
                    }
                    let _ = r.bytes().await;
                }
                (ok, refused)
            })
        })
        .collect();
    // Another client's short replay is served every time meanwhile: the
    // first client holds one slot at most, so one is always free.
    let short = common::caravan_record(25, 3);
    let other = client_from("127.0.0.3");
    for seat in 0..10 {
        let r =
            other.post(s.url("/api/replay")).json(&json!({ "record": short, "seat": seat % 2 })).send().await.unwrap();
        let status = r.status();
        assert_eq!(status, StatusCode::OK, "replay {seat}: {}", r.text().await.unwrap());
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let (mut ok, mut refused) = (0, 0);
    for l in loops {
        let (o, r) = l.await.unwrap();
        ok += o;
        refused += r;
    }
    assert!(ok > 0, "the first client's replays are served, one at a time");
    assert!(refused > 0, "three at once from one client: the others are told to wait ({ok} served)");
    s.stop().await;
}
