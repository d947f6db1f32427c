//! Issue 22, items 1–3 and 8: no request can exhaust the server. Replays are
//! bounded and paged; slow and half-open connections time out and are
//! capped (in all and per client address) while other clients are served;
//! event streams are capped; table creation is limited per client address;
//! and every refusal, down to the ones below the router (405, 414, 431, a
//! path that is not UTF-8, malformed HTTP), is JSON `{"error", "code"}`.

mod common;

use common::client_from;

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

fn addr(s: &common::TestServer) -> SocketAddr {
    s.base.trim_start_matches("http://").parse().unwrap()
}

/// A connection to the server from the loopback address `from` (the whole
/// of 127.0.0.0/8 is this machine), so that tests can be several clients.
async fn connect_from(server: SocketAddr, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(server).await.unwrap()
}

/// Sends `request` as is and reads until the server closes the connection
/// (at most 20 s): the status, the headers and the body.
async fn raw(server: SocketAddr, request: &[u8]) -> (u16, String, String) {
    let mut s = TcpStream::connect(server).await.unwrap();
    s.write_all(request).await.unwrap();
    read_answer(&mut s).await
}

async fn read_answer(s: &mut TcpStream) -> (u16, String, String) {
    let mut bytes = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut bytes))
        .await
        .expect("the server answers and closes")
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

/// The JSON error body of a refusal: checks its shape, returns its code.
fn json_code(status: u16, head: &str, body: &str) -> String {
    assert!(head.contains("content-type: application/json"), "{status}: not JSON: {head}");
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{status}: body {body:?}: {e}"));
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    v["code"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn errors_below_the_router_are_json() {
    let s = common::start(common::config()).await;
    let a = addr(&s);
    // 405: a route that exists, with another method.
    let (st, head, body) =
        raw(a, b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
    assert_eq!(st, 405);
    assert_eq!(json_code(st, &head, &body), "method_not_allowed");
    let (st, head, body) = raw(a, b"DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (405, "method_not_allowed"));
    // 414: a long request target.
    let long = format!("GET /api/games?{} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "a".repeat(10_000));
    let (st, head, body) = raw(a, long.as_bytes()).await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (414, "uri_too_long"));
    // 431: too many headers, and headers too large (hyper's own refusals).
    let mut many = "GET /api/games HTTP/1.1\r\nHost: x\r\n".to_string();
    for i in 0..150 {
        many.push_str(&format!("x-h{i}: {i}\r\n"));
    }
    many.push_str("\r\n");
    let (st, head, body) = raw(a, many.as_bytes()).await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (431, "headers_too_large"));
    let big = format!("GET /api/games HTTP/1.1\r\nHost: x\r\nx-big: {}\r\n\r\n", "b".repeat(70_000));
    let (st, head, body) = raw(a, big.as_bytes()).await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (431, "headers_too_large"));
    // A path that is not UTF-8, percent-encoded: on the API, a page, an asset.
    let (st, head, body) =
        raw(a, b"GET /api/tables/%FF%FE/view HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (400, "bad_path"));
    let (st, head, body) = raw(a, b"GET /assets/%C3%28 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (400, "bad_path"));
    let (st, head, body) = raw(a, b"GET /%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (404, "not_found"));
    // Raw bytes that are not even a request target: hyper's 400, as JSON.
    let (st, head, body) = raw(a, b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (400, "bad_request"));
    let (st, head, body) = raw(a, b"NOT HTTP AT ALL\r\n\r\n").await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (400, "bad_request"));
    s.stop().await;
}

/// A valid Caravan record of a game played at random, with its action count.
fn long_record(max_turns: u32) -> (Value, usize) {
    let record = common::caravan_record(max_turns, 7);
    let n = record["actions"].as_array().unwrap().len();
    (record, n)
}

#[tokio::test]
async fn replays_are_bounded_and_paged() {
    let mut config = common::config();
    config.replay_page = 50;
    config.max_replay_output = 40 * 1024;
    config.max_replay_actions = 5_000;
    let s = common::start(config).await;
    let (record, n) = long_record(200);
    assert!(n > 300, "a long game: {n} actions");
    // Every page within its bounds; together they are the whole game.
    let mut from = 0usize;
    let mut steps = Vec::new();
    let mut pages = 0;
    loop {
        let r = s
            .client
            .post(s.url("/api/replay"))
            .json(&json!({ "record": record, "seat": 1, "from": from }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let bytes = r.bytes().await.unwrap();
        assert!(bytes.len() <= 40 * 1024 + 4096, "a page is within the output bound: {} bytes", bytes.len());
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["frames_total"], n + 1);
        assert_eq!(v["from"], from);
        let frames = v["frames"].as_array().unwrap();
        assert!(!frames.is_empty() && frames.len() <= 50, "{} frames", frames.len());
        steps.extend(frames.iter().map(|f| f["step"].as_u64().unwrap() as usize));
        pages += 1;
        match v["next"].as_u64() {
            Some(next) => from = next as usize,
            None => {
                assert!(v["outcome"].is_object(), "the outcome of the whole game is on every page");
                break;
            }
        }
    }
    assert!(pages > 6, "{pages} pages");
    assert_eq!(steps, (0..=n).collect::<Vec<_>>(), "the pages hold every frame once, in order");
    // Beyond the last frame.
    let r = s.client.post(s.url("/api/replay")).json(&json!({ "record": record, "from": n + 1 })).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    // A record above the length bound is refused before it is replayed.
    let mut huge = record.clone();
    huge["actions"] = Value::from(vec![0u32; 5_001]);
    let r = s.client.post(s.url("/api/replay")).json(&json!({ "record": huge })).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "too_long");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_at_once_are_capped() {
    let mut config = common::config();
    config.max_replays = 1;
    config.max_replay_actions = 100_000;
    let s = common::start(config).await;
    let (record, n) = long_record(2_000);
    assert!(n > 1_500, "{n} actions");
    let body = json!({ "record": record });
    // Six clients (each within its own share), one replay slot in all.
    let clients: Vec<reqwest::Client> = (0..6).map(|i| client_from(&format!("127.0.3.{}", i + 1))).collect();
    let sends = clients.iter().map(|c| c.post(s.url("/api/replay")).json(&body).send());
    let answers = futures_util::future::join_all(sends).await;
    let mut busy = 0;
    for r in answers {
        let r = r.unwrap();
        match r.status() {
            StatusCode::OK => {}
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_eq!(r.headers()["retry-after"], "1");
                assert_eq!(r.json::<Value>().await.unwrap()["code"], "busy");
                busy += 1;
            }
            other => panic!("{other}"),
        }
    }
    assert!(busy > 0, "with one replay allowed at a time, some of six at once are told to come back");
    s.stop().await;
}

/// A header timeout no step of a test comes near: connections are held
/// until the test itself ends them, so what is counted cannot depend on the
/// machine's speed.
const NEVER: Duration = Duration::from_secs(3600);

/// Waits until `url` answers 200 from `client`: a connection the server has
/// just closed gives its slot back right after the close, so the first
/// attempt may still find the cap full (`503 too_many_connections`).
async fn served_again(client: &reqwest::Client, url: &str) {
    for _ in 0..400 {
        match client.get(url).send().await {
            Ok(r) if r.status() == StatusCode::OK => return,
            Ok(r) => {
                let status = r.status();
                let v: Value = r.json().await.unwrap_or_default();
                assert_eq!(
                    (status, v["code"].as_str()),
                    (StatusCode::SERVICE_UNAVAILABLE, Some("too_many_connections"))
                );
            }
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{url} was never served again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_open_connections_do_not_keep_others_out() {
    let mut config = common::config();
    config.max_connections = 64;
    config.max_connections_per_client = 32;
    // No half-open connection times out during the test: the count below
    // is the cap's alone, however slow the machine.
    config.header_timeout = NEVER;
    let s = common::start(config).await;
    let a = addr(&s);
    // 200 connections from 127.0.0.1 that do not finish their headers.
    let mut half_open = Vec::new();
    for _ in 0..200 {
        let mut c = TcpStream::connect(a).await.unwrap();
        let _ = c.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\n").await;
        half_open.push(c);
    }
    // Another client is served meanwhile.
    let r = client_from("127.0.0.2").get(s.url("/api/games")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // Now every half-open connection finishes its request: the ones the
    // server holds are answered 200, the others were refused at once (a
    // JSON 503, or a reset when the refusal met the request's bytes).
    for c in &mut half_open {
        let _ = c.write_all(b"Connection: close\r\n\r\n").await;
    }
    let (mut held, mut refused) = (0, 0);
    for c in &mut half_open {
        let (st, head, body) = read_answer(c).await;
        match st {
            200 => held += 1,
            0 => refused += 1,
            503 => {
                assert_eq!(json_code(st, &head, &body), "too_many_connections");
                assert!(head.contains("retry-after: 1"), "{head}");
                refused += 1;
            }
            other => panic!("{other}: {head}"),
        }
    }
    assert_eq!(held, 32, "the server held exactly the per-client cap of one address's connections");
    assert_eq!(refused, 200 - 32, "the rest were refused");
    // And the first client's address is served again.
    served_again(&s.client, &s.url("/api/games")).await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_cap_holds_and_frees() {
    let mut config = common::config();
    config.max_connections = 16;
    config.header_timeout = NEVER;
    let s = common::start(config).await;
    let a = addr(&s);
    let mut idle = Vec::new();
    for i in 0..16 {
        idle.push(connect_from(a, &format!("127.0.1.{}", i + 1)).await);
    }
    // The 17th, from yet another address, is refused at once with JSON,
    // however long it took to accept the 16 (none of them can time out).
    let mut over = connect_from(a, "127.0.2.1").await;
    let (st, head, body) = read_answer(&mut over).await;
    assert_eq!((st, json_code(st, &head, &body).as_str()), (503, "too_many_connections"));
    assert!(head.contains("retry-after: 1"));
    // Connections that go away free their slots.
    drop(idle);
    served_again(&client_from("127.0.2.2"), &s.url("/api/games")).await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_time_out_and_free_their_slots() {
    let mut config = common::config();
    config.max_connections = 16;
    config.header_timeout = Duration::from_millis(800);
    let s = common::start(config).await;
    let a = addr(&s);
    let mut idle = Vec::new();
    for i in 0..16 {
        idle.push(connect_from(a, &format!("127.0.1.{}", i + 1)).await);
    }
    // Silent connections are closed after the header timeout, which frees them.
    for c in &mut idle {
        let mut buf = Vec::new();
        let n = tokio::time::timeout(Duration::from_secs(60), c.read_to_end(&mut buf)).await;
        assert!(n.is_ok(), "a silent connection is closed");
    }
    // Held open on this side, they no longer count on the server's.
    served_again(&client_from("127.0.2.1"), &s.url("/api/games")).await;
    drop(idle);
    s.stop().await;
}

#[tokio::test]
async fn slow_bodies_and_idle_connections_time_out() {
    // The body timeout alone: the idle timeout cannot close the connection
    // first, however slow the machine.
    let mut config = common::config();
    config.body_timeout = Duration::from_millis(500);
    config.idle_connection_timeout = NEVER;
    config.header_timeout = NEVER;
    let s = common::start(config).await;
    let a = addr(&s);
    // A body that never arrives in full.
    let mut c = TcpStream::connect(a).await.unwrap();
    c.write_all(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"game\"")
        .await
        .unwrap();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(20), c.read(&mut buf)).await.expect("answered").unwrap();
    let text = String::from_utf8_lossy(&buf[..n]).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    assert_eq!(json_code(408, &head.to_ascii_lowercase(), body), "body_timeout");
    s.stop().await;

    // The idle timeout, with a header timeout no step comes near.
    let mut config = common::config();
    config.idle_connection_timeout = Duration::from_millis(700);
    config.header_timeout = NEVER;
    let s = common::start(config).await;
    let a = addr(&s);
    // A kept-alive connection with nothing more to say is closed when idle
    // (the header timeout, which also bounds the wait for a next request,
    // is an hour).
    let mut c = TcpStream::connect(a).await.unwrap();
    c.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut got = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(60), c.read_to_end(&mut got)).await;
    assert!(closed.is_ok(), "the idle connection was closed");
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"), "after its answer");
    s.stop().await;
}

#[tokio::test]
async fn event_streams_are_capped() {
    let mut config = common::config();
    config.max_event_streams = 3;
    config.max_event_streams_per_client = 2;
    let s = common::start(config).await;
    let id = s.create(json!({ "game": "korovan" })).await["id"].as_str().unwrap().to_string();
    let url = s.url(&format!("/api/tables/{id}/events"));
    let mine = client_from("127.0.0.1");
    let a = mine.get(&url).send().await.unwrap();
    let b = mine.get(&url).send().await.unwrap();
    assert_eq!((a.status(), b.status()), (StatusCode::OK, StatusCode::OK));
    let third = mine.get(&url).send().await.unwrap();
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS, "two per client");
    assert!(third.headers().contains_key("retry-after"));
    assert_eq!(third.json::<Value>().await.unwrap()["code"], "too_many_streams");
    let other = client_from("127.0.0.2").get(&url).send().await.unwrap();
    assert_eq!(other.status(), StatusCode::OK, "another client still gets one");
    let fourth = client_from("127.0.0.3").get(&url).send().await.unwrap();
    assert_eq!(fourth.status(), StatusCode::SERVICE_UNAVAILABLE, "three in all");
    assert_eq!(fourth.json::<Value>().await.unwrap()["code"], "too_many_streams");
    drop((a, b, other));
    s.stop().await;
}

#[tokio::test]
async fn table_creation_is_limited_per_client() {
    let mut config = common::config();
    config.table_burst = 3;
    config.table_refill = Duration::from_secs(600);
    config.max_tables_per_client = 4;
    let s = common::start(config).await;
    let body = json!({ "game": "korovan" });
    let one = client_from("127.0.0.1");
    for _ in 0..3 {
        assert_eq!(one.post(s.url("/api/tables")).json(&body).send().await.unwrap().status(), StatusCode::CREATED);
    }
    let r = one.post(s.url("/api/tables")).json(&body).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=600).contains(&wait), "Retry-After {wait}");
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "slow_down");
    // Another address is not held back.
    let two = client_from("127.0.0.2");
    assert_eq!(two.post(s.url("/api/tables")).json(&body).send().await.unwrap().status(), StatusCode::CREATED);
    s.stop().await;

    // The count: at most 4 unfinished tables per client, however slowly made.
    let mut config = common::config();
    config.table_burst = 100;
    config.max_tables_per_client = 4;
    let s = common::start(config).await;
    for _ in 0..4 {
        assert_eq!(one.post(s.url("/api/tables")).json(&body).send().await.unwrap().status(), StatusCode::CREATED);
    }
    let r = one.post(s.url("/api/tables")).json(&body).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(r.headers().contains_key("retry-after"));
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "too_many_tables");
    assert_eq!(two.post(s.url("/api/tables")).json(&body).send().await.unwrap().status(), StatusCode::CREATED);
    s.stop().await;
}

#[tokio::test]
async fn limits_out_of_range_are_refused() {
    for bad in [
        boardgame_server::ServerConfig { idle_expiry: Duration::from_secs(u64::MAX / 2), ..common::config() },
        boardgame_server::ServerConfig { max_connections: 0, ..common::config() },
        boardgame_server::ServerConfig { header_timeout: Duration::ZERO, ..common::config() },
    ] {
        let built = boardgame_server::Server::builder(bad).game::<korovan_core::Korovan>().build().await;
        let Err(e) = built else { panic!("a config out of range was accepted") };
        assert!(e.to_string().contains("out of range") || e.to_string().contains("at least 1"), "{e}");
    }
}
