//! docs/serve.md's SQL comes from the code: its schema block is exactly the
//! schema of a database the server made, and every query of the page runs
//! on such a database.

mod common;

use std::time::Duration;

use boardgame_server::ServerConfig;
use serde_json::json;

/// The page's ```sql blocks.
fn sql_blocks() -> Vec<String> {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/serve.md")).unwrap();
    page.split("```sql\n").skip(1).map(|b| b.split("```").next().unwrap().to_string()).collect()
}

/// Statements without comments, quotes or runs of white space.
fn statements(sql: &str) -> Vec<String> {
    let plain: String = sql.lines().map(|l| l.split("--").next().unwrap()).collect::<Vec<_>>().join(" ");
    plain
        .split(';')
        .map(|s| s.replace('"', "").split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_schema_and_queries_are_the_databases() {
    let dir = common::temp_dir("docs-sql");
    let s = common::start(ServerConfig { data_dir: Some(dir.clone()), ..common::config() }).await;
    let c = s.create(json!({ "game": "caravan", "players": 2, "seats": ["random", "random"] })).await;
    let id = c["id"].as_str().unwrap().to_string();
    s.wait_for(&id, None, |v| v["version"].as_u64().unwrap() >= 3).await;
    s.stop().await;
    let db = rusqlite::Connection::open_with_flags(
        boardgame_server::database_path(&dir),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    let blocks = sql_blocks();
    assert!(blocks.len() >= 2, "a schema and queries");
    let mut real: Vec<String> = db
        .prepare("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|s| statements(&s.unwrap()).concat())
        .collect();
    let mut documented = statements(&blocks[0]);
    real.sort();
    documented.sort();
    assert_eq!(documented, real, "docs/serve.md's schema is the database's");
    let mut ran = 0;
    for block in &blocks[1..] {
        for q in statements(block) {
            let q = q.replace("3f9c0d6a1b2e4f58", &id);
            let mut st = db.prepare(&q).unwrap_or_else(|e| panic!("{q}: {e}"));
            let n = st.query_map([], |_| Ok(())).unwrap().count();
            assert!(n > 0 || q.contains("set_aside"), "{q}: no rows on a database with a table");
            ran += 1;
        }
    }
    assert!(ran >= 5, "{ran} queries");
    let _ = std::fs::remove_dir_all(&dir);
}
