//! The JSON API over real HTTP on 127.0.0.1: creation, views, actions and
//! every refusal of issue 14 part 4 — each with the right status and the
//! table unchanged afterwards — live updates, the record, limits.

mod common;

use std::time::Duration;

use common::{TestServer, my_turn, over, token};
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Every view of a table: the public one and one per token.
async fn snapshot(s: &TestServer, id: &str, tokens: &[String]) -> Vec<Value> {
    let mut out = vec![s.view(id, None).await.1];
    for t in tokens {
        let (status, v) = s.view(id, Some(t)).await;
        assert_eq!(status, StatusCode::OK);
        out.push(v);
    }
    out
}

/// A Korovan table of three humans, waiting for seat 1 to lay (the deal is
/// chance, played by the server).
async fn korovan_table(s: &TestServer) -> (String, Vec<String>) {
    let c = s.create(json!({ "game": "korovan", "seats": ["human", "human", "human"] })).await;
    let id = c["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> = (0..3).map(|i| token(&c, i)).collect();
    let v = s.wait_for(&id, Some(&tokens[1]), my_turn).await;
    assert_eq!(v["observation"]["phase"], "Lay", "seat 1 lays row 1 first (K-4.1)");
    (id, tokens)
}

async fn post_raw(
    s: &TestServer,
    id: &str,
    token: Option<&str>,
    body: Vec<u8>,
    content_type: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = s.client.post(s.url(&format!("/api/tables/{id}/actions"))).body(body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let r = req.send().await.unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn create_view_and_act() {
    let s = common::start(common::config()).await;
    let c = s.create(json!({ "game": "caravan", "players": 2, "seats": ["human", "random"] })).await;
    let id = c["id"].as_str().unwrap();
    assert_eq!(c["game"], "caravan");
    let t0 = token(&c, 0);
    assert_eq!(t0.len(), 32, "128-bit tokens, hex");
    assert!(c["seats"][1].get("token").is_none(), "bot seats have no token");
    assert!(c["seats"][0]["url"].as_str().unwrap().ends_with(&format!("/table/{id}#seat=0&token={t0}")));
    assert!(c["spectate"].as_str().unwrap().ends_with(&format!("/table/{id}")));
    let v = s.wait_for(id, Some(&t0), my_turn).await;
    assert_eq!(v["seat"], 0);
    assert_eq!(v["log"].as_array().unwrap().len(), 8, "eight setup draws (C-3.1)");
    let legal = v["legal"].as_array().unwrap();
    assert!(legal.iter().any(|a| a["action"] == "end"));
    // By notation, then by id.
    let (st, r) = s.act(id, Some(&t0), json!({ "action": "move supply->d4", "version": v["version"] })).await;
    assert_eq!(st, StatusCode::OK, "{r}");
    assert_eq!(r["action"], "move supply->d4");
    let v = s.wait_for(id, Some(&t0), my_turn).await;
    let end_id = v["legal"].as_array().unwrap().iter().find(|a| a["action"] == "end").unwrap()["id"].clone();
    let (st, r) = s.act(id, Some(&t0), json!({ "action": end_id })).await;
    assert_eq!(st, StatusCode::OK, "{r}");
    // The bot plays seat 1 on its own; once seat 0 (a human) is to move again
    // the table stands still, so both views see one position.
    let seat0 = s.wait_for(id, Some(&t0), |v| my_turn(v) || over(v)).await;
    let public = s.view(id, None).await.1;
    assert!(seat0["version"].is_u64(), "{seat0}");
    assert_eq!(public["version"], seat0["version"], "nothing moved between the two views");
    // C-8.1: Caravan hides nothing, so a spectator sees the whole board
    assert!(public["observation"]["position"].is_object(), "{public}");
    assert_eq!(public["observation"]["position"], seat0["observation"]["position"]);
    assert!(public["legal"].as_array().unwrap().is_empty());
    assert!(public["seat"].is_null());
    // Korovan's observations all hold a seat's secrets: no board for spectators
    let (kid, _) = korovan_table(&s).await;
    assert!(s.view(&kid, None).await.1["observation"].is_null(), "the public view has no seat's observation");
    s.stop().await;
}

#[tokio::test]
async fn every_refusal_leaves_the_table_unchanged() {
    let s = common::start(common::config()).await;
    let (id, tokens) = korovan_table(&s).await;
    let before = snapshot(&s, &id, &tokens).await;
    let version = before[2]["version"].clone();
    let lay = json!({ "action": "lay 0+1", "version": version });

    // Another seat's token: not your turn.
    for t in [&tokens[0], &tokens[2]] {
        let (st, r) = s.act(&id, Some(t), lay.clone()).await;
        assert_eq!(st, StatusCode::CONFLICT, "{r}");
        assert_eq!(r["code"], "not_your_turn");
    }
    // No token, a malformed header, a guessed token.
    let (st, r) = s.act(&id, None, lay.clone()).await;
    assert_eq!((st, r["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("no_token")));
    let r = s
        .client
        .post(s.url(&format!("/api/tables/{id}/actions")))
        .header("authorization", "Basic abc")
        .json(&lay)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let guessed = "0123456789abcdef0123456789abcdef";
    let (st, r) = s.act(&id, Some(guessed), lay.clone()).await;
    assert_eq!((st, r["code"].as_str()), (StatusCode::FORBIDDEN, Some("bad_token")));
    let (st, _) = s.view(&id, Some(guessed)).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "a wrong token is refused, not served the public view");
    // Unknown table.
    let (st, r) = s.act("00000000deadbeef", Some(&tokens[1]), lay.clone()).await;
    assert_eq!((st, r["code"].as_str()), (StatusCode::NOT_FOUND, Some("unknown_table")));
    for path in ["/api/tables/..%2F..%2Fetc%2Fpasswd/view", "/api/tables/../../etc/passwd/view"] {
        let r = s.client.get(s.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
    }
    // The right seat, but an illegal action, bad notation, an unknown id, a stale version.
    for (body, code) in [
        (json!({ "action": "place 1" }), "illegal"),
        (json!({ "action": "peek 1.0" }), "illegal"),
        (json!({ "action": "lay 0+1+2" }), "bad_notation"),
        (json!({ "action": "fly to the moon" }), "bad_notation"),
        (json!({ "action": 103 }), "unknown_action"),
        (json!({ "action": "99999999999" }), "unknown_action"),
        (json!({ "action": u64::MAX }), "unknown_action"),
    ] {
        let (st, r) = s.act(&id, Some(&tokens[1]), body.clone()).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {r}");
        assert_eq!(r["code"], code, "{body}: {r}");
        assert!(!r["error"].as_str().unwrap().is_empty());
    }
    let (st, r) = s.act(&id, Some(&tokens[1]), json!({ "action": "lay 0+1", "version": 0 })).await;
    assert_eq!((st, r["code"].as_str()), (StatusCode::CONFLICT, Some("stale")));
    // Malformed and oversized bodies.
    let t1 = Some(tokens[1].as_str());
    for (body, ct, status) in [
        (b"{\"action\": ".to_vec(), Some("application/json"), StatusCode::BAD_REQUEST),
        (b"not json at all".to_vec(), Some("application/json"), StatusCode::BAD_REQUEST),
        (b"{\"action\": [1, 2]}".to_vec(), Some("application/json"), StatusCode::UNPROCESSABLE_ENTITY),
        (b"{\"move\": \"lay 0+1\"}".to_vec(), Some("application/json"), StatusCode::UNPROCESSABLE_ENTITY),
        (
            b"{\"action\": \"lay 0+1\", \"extra\": 1}".to_vec(),
            Some("application/json"),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (b"{\"action\": \"lay 0+1\"}".to_vec(), None, StatusCode::UNSUPPORTED_MEDIA_TYPE),
        (b"{\"action\": \"lay 0+1\"}".to_vec(), Some("text/plain"), StatusCode::UNSUPPORTED_MEDIA_TYPE),
    ] {
        let (st, r) = post_raw(&s, &id, t1, body.clone(), ct).await;
        assert_eq!(st, status, "{}: {r}", String::from_utf8_lossy(&body));
        assert!(r["error"].is_string(), "errors are JSON: {r}");
    }
    let mut big = b"{\"action\": \"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 64 * 1024));
    big.extend(b"\"}");
    let (st, r) = post_raw(&s, &id, t1, big, Some("application/json")).await;
    assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE, "{r}");
    // A finished game is not over yet: no record.
    let r = s.client.get(s.url(&format!("/api/tables/{id}/record"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT, "the record holds every hidden card: only at the end");

    let after = snapshot(&s, &id, &tokens).await;
    assert_eq!(before, after, "no refusal changed any view of the table");
    // And the legal action still goes through.
    let (st, r) = s.act(&id, Some(&tokens[1]), lay).await;
    assert_eq!(st, StatusCode::OK, "{r}");
    s.stop().await;
}

#[tokio::test]
async fn the_same_action_twice_at_once_counts_once() {
    let s = common::start(common::config()).await;
    // With the view's version: one applies, the other is stale, even where the
    // action would be legal twice (Caravan: two camels onto one square).
    let c = s.create(json!({ "game": "caravan", "players": 2, "seats": ["human", "human"] })).await;
    let id = c["id"].as_str().unwrap().to_string();
    let t0 = token(&c, 0);
    let v = s.wait_for(&id, Some(&t0), my_turn).await;
    let (st, _) = s.act(&id, Some(&t0), json!({ "action": "move supply->d4" })).await;
    assert_eq!(st, StatusCode::OK);
    let t1 = token(&c, 1);
    let v1 = s.wait_for(&id, Some(&t1), my_turn).await;
    let body = json!({ "action": "move supply->c3", "version": v1["version"] });
    let (a, b) = tokio::join!(s.act(&id, Some(&t1), body.clone()), s.act(&id, Some(&t1), body.clone()));
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT], "{a:?} {b:?}");
    let after = s.view(&id, Some(&t1)).await.1;
    let v1_version = v1["version"].as_u64().unwrap();
    assert_eq!(after["version"].as_u64().unwrap(), v1_version + 1, "exactly one action was applied");
    let _ = v;
    // Without a version: the turn passes after a lay, so the second is refused.
    let (kid, tokens) = korovan_table(&s).await;
    let body = json!({ "action": "lay 1+2" });
    let (a, b) = tokio::join!(s.act(&kid, Some(&tokens[1]), body.clone()), s.act(&kid, Some(&tokens[1]), body.clone()));
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT], "{a:?} {b:?}");
    let log = s.view(&kid, Some(&tokens[1])).await.1["log"].clone();
    assert_eq!(log.as_array().unwrap().iter().filter(|e| e["by"] == 1).count(), 1, "seat 1 acted once");
    s.stop().await;
}

#[tokio::test]
async fn a_finished_table_refuses_actions_and_publishes_its_record() {
    let s = common::start(common::config()).await;
    let c = s
        .create(json!({ "game": "caravan", "players": 2, "config": { "max_turns": 2 }, "seats": ["human", "human"] }))
        .await;
    let id = c["id"].as_str().unwrap().to_string();
    let tokens = [token(&c, 0), token(&c, 1)];
    for t in &tokens {
        s.wait_for(&id, Some(t), my_turn).await;
        let (st, r) = s.act(&id, Some(t), json!({ "action": "end" })).await;
        assert_eq!(st, StatusCode::OK, "{r}");
    }
    let v = s.wait_for(&id, Some(&tokens[0]), over).await;
    assert!(v["outcome"]["winners"].is_array());
    let before = snapshot(&s, &id, &tokens).await;
    for t in &tokens {
        let (st, r) = s.act(&id, Some(t), json!({ "action": "end" })).await;
        assert_eq!((st, r["code"].as_str()), (StatusCode::CONFLICT, Some("game_over")), "{r}");
    }
    assert_eq!(before, snapshot(&s, &id, &tokens).await);
    let record: Value =
        s.client.get(s.url(&format!("/api/tables/{id}/record"))).send().await.unwrap().json().await.unwrap();
    assert_eq!(record["engine"], "caravan");
    assert_eq!(record["agents"], json!(["human", "human"]), "one name per seat (docs/serve.md)");
    assert_eq!(record["actions"].as_array().unwrap().len(), 10, "8 draws and 2 passes");
    let record: boardgame_kit::GameRecord<caravan_core::CaravanConfig> = serde_json::from_value(record).unwrap();
    assert!(record.is_complete::<caravan_core::Caravan>().unwrap());
    // The replay endpoint reads it back, frame by frame.
    let r: Value = s
        .client
        .post(s.url("/api/replay"))
        .json(&json!({ "record": record, "seat": 1 }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["frames"].as_array().unwrap().len(), 11);
    assert_eq!(r["frames"][10]["turn"]["kind"], "terminal");
    assert_eq!(r["frames"][10]["observation"]["observer"], 1);
    s.stop().await;
}

#[tokio::test]
async fn creation_is_validated() {
    let mut config = common::config();
    config.max_tables = 2;
    let s = common::start(config).await;
    for (body, code) in [
        (json!({ "game": "chess" }), "unknown_game"),
        (json!({ "game": "korovan", "players": 2 }), "bad_config"),
        (json!({ "game": "korovan", "config": { "colour": "red" } }), "bad_config"),
        (json!({ "game": "korovan", "players": 3, "seats": ["human", "human"] }), "bad_seats"),
        (json!({ "game": "korovan", "seats": ["human", "wizard", "random"] }), "bad_seat"),
        (json!({ "game": "korovan", "seats": ["human", "ismcts:100000000", "random"] }), "bad_seat"),
        (json!({ "game": "korovan", "seats": ["human", "ismcts:1h", "random"] }), "bad_seat"),
        (json!({ "game": "korovan", "seats": ["human", "ismcts:60s", "random"] }), "bad_seat"),
        // A request never names a file on the server's disk.
        (json!({ "game": "korovan", "seats": ["human", "learned@/etc/passwd", "random"] }), "bad_seat"),
        (json!({ "game": "caravan", "seats": ["human", "learned-ismcts:10@/dev/zero"] }), "bad_seat"),
    ] {
        let r = s.client.post(s.url("/api/tables")).json(&body).send().await.unwrap();
        let status = r.status();
        let v: Value = r.json().await.unwrap();
        assert_eq!((status, v["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some(code)), "{body}: {v}");
    }
    s.create(json!({ "game": "korovan" })).await;
    s.create(json!({ "game": "caravan" })).await;
    let r = s.client.post(s.url("/api/tables")).json(&json!({ "game": "caravan" })).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "at most max_tables tables");
    let games: Value = s.client.get(s.url("/api/games")).send().await.unwrap().json().await.unwrap();
    let names: Vec<&str> = games["games"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["korovan", "caravan"]);
    assert_eq!(games["games"][0]["player_counts"], json!([3, 4, 5, 6, 7, 8, 9]));
    assert_eq!(games["games"][1]["player_counts"], json!([2, 3, 4]));
    for g in 0..2 {
        let agents = games["games"][g]["agents"].as_array().unwrap();
        for name in ["learned", "learned-ismcts:300", "ismcts-h:300"] {
            assert!(agents.iter().any(|a| a == name), "the lobby offers {name}: {agents:?}");
        }
    }
    let r = s.client.get(s.url("/api/nothing")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    s.stop().await;
}

#[tokio::test]
async fn idle_tables_expire() {
    let mut config = common::config();
    let expiry = Duration::from_millis(500);
    config.idle_expiry = expiry;
    let s = common::start(config).await;
    // No timing margin: the table cannot expire before `expiry` has passed
    // since `before`, and must be gone some time after.
    let before = std::time::Instant::now();
    let c = s.create(json!({ "game": "korovan" })).await;
    let id = c["id"].as_str().unwrap();
    let (st, _) = s.view(id, None).await;
    if before.elapsed() < expiry {
        assert_eq!(st, StatusCode::OK, "a fresh table is there");
    }
    let gone = loop {
        let (st, v) = s.view(id, None).await;
        if st != StatusCode::OK {
            assert_eq!((st, v["code"].as_str()), (StatusCode::NOT_FOUND, Some("unknown_table")));
            break before.elapsed();
        }
        assert!(before.elapsed() < Duration::from_secs(60), "the idle table never expired");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(gone >= expiry, "expired after {gone:?}, before its {expiry:?} of idleness");
    s.stop().await;
}

#[tokio::test]
async fn pages_and_assets_are_served() {
    let s = common::start(common::config()).await;
    for (path, kind) in [
        ("/", "text/html"),
        ("/table/0123456789abcdef", "text/html"),
        ("/replay", "text/html"),
        ("/assets/app.js", "text/javascript"),
        ("/assets/caravan.js", "text/javascript"),
        ("/assets/korovan.js", "text/javascript"),
        ("/assets/style.css", "text/css"),
    ] {
        let r = s.client.get(s.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert!(r.headers()["content-type"].to_str().unwrap().starts_with(kind), "{path}");
        assert!(!r.text().await.unwrap().is_empty());
    }
    assert_eq!(s.client.get(s.url("/assets/../Cargo.toml")).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(s.client.get(s.url("/assets/secret.js")).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    s.stop().await;
}

#[tokio::test]
async fn live_updates_reach_every_open_page() {
    let s = common::start(common::config()).await;
    let (id, tokens) = korovan_table(&s).await;
    let r = s.client.get(s.url(&format!("/api/tables/{id}/events"))).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let mut stream = r.bytes_stream();
    let version = s.view(&id, None).await.1["version"].as_u64().unwrap();
    let (st, _) = s.act(&id, Some(&tokens[1]), json!({ "action": "lay 0+2" })).await;
    assert_eq!(st, StatusCode::OK);
    let mut text = String::new();
    let want = format!("\"version\":{}", version + 1);
    let found = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(chunk) = stream.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
            if text.contains(&want) {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found, Ok(true), "the event stream announced version {}: {text}", version + 1);
    assert!(text.contains("event: update"));
    s.stop().await;
}
