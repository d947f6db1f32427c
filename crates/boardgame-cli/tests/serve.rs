//! `boardgame serve`: the binary starts the web table, prints the address it
//! listens on (port 0 picks a free one) and serves the page and the API.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A plain HTTP/1.1 exchange; returns the status line and the body.
fn http(addr: &str, request: &str) -> (String, String) {
    let mut s = TcpStream::connect(addr).expect("the server accepts connections");
    s.write_all(request.as_bytes()).unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text.lines().next().unwrap_or_default().to_string();
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

#[test]
fn serve_prints_its_address_and_answers() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(["serve", "--addr", "127.0.0.1:0", "--bot-delay-ms", "0", "--memory"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().unwrap();
    let child = Killed(child);
    let mut lines = BufReader::new(stdout);
    let mut line = String::new();
    lines.read_line(&mut line).unwrap();
    let mut second = String::new();
    lines.read_line(&mut second).unwrap();
    assert!(second.contains("memory only"), "with --memory the tables are not kept: {second}");
    let url =
        line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("no address in {line:?}"));
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    assert!(!addr.ends_with(":0"), "a free port was picked: {addr}");
    let (status, body) = http(addr, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert!(status.contains("200"), "{status}");
    assert!(body.contains("/assets/app.js"));
    let (status, body) = http(addr, "GET /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert!(status.contains("200"), "{status}");
    assert!(body.contains("\"korovan\"") && body.contains("\"caravan\""), "{body}");
    // The lobby's agents are labelled from the committed ladder, at every count.
    let games: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    for (g, counts) in [(0, 3..=9), (1, 2..=4)] {
        for n in counts {
            let rated = games["games"][g]["ratings"][n.to_string()].as_array().expect("ratings at every count");
            assert_eq!(rated[0]["label"], "strongest", "{n}: {rated:?}");
            assert_eq!(rated.len(), 7, "every lobby agent at {n} players");
        }
    }
    let create = r#"{"game": "caravan", "players": 2}"#;
    let (status, body) = http(
        addr,
        &format!(
            "POST /api/tables HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{create}",
            create.len()
        ),
    );
    assert!(status.contains("201"), "{status} {body}");
    assert!(body.contains("\"kind\":\"heuristic\""), "the empty seats get the engine's heuristic: {body}");
    drop(child);
}

#[test]
fn serve_refuses_a_bad_address() {
    let o = Command::new(env!("CARGO_BIN_EXE_boardgame")).args(["serve", "--addr", "nowhere"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "a usage error");
}

/// Issue 22 item 7: durations and sizes out of range are refused (as usage
/// errors, before anything starts), not overflowed.
#[test]
fn serve_refuses_limits_out_of_range() {
    for args in [
        ["--idle-minutes", "307445734561825861"],
        ["--idle-minutes", "0"],
        ["--idle-minutes", "525601"],
        ["--bot-delay-ms", "18446744073709551615"],
        ["--max-tables", "0"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_boardgame"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?} is a usage error");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(args[0]) && err.contains("not in"), "{args:?}: {err}");
    }
}

/// Starts `boardgame serve` in `cwd` with `args`; the child, its address and
/// the second line it printed.
fn start_in(cwd: &std::path::Path, args: &[&str]) -> (Killed, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(["serve", "--addr", "127.0.0.1:0", "--bot-delay-ms", "0"])
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let child = Killed(child);
    let (mut first, mut second) = (String::new(), String::new());
    lines.read_line(&mut first).unwrap();
    lines.read_line(&mut second).unwrap();
    let url = first.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{first:?}"));
    (child, url.trim_start_matches("http://").trim_end_matches('/').to_string(), second)
}

/// Issue 29: with no flag, `serve` keeps its tables in `./boardgame-data/`
/// (an SQLite database, private), says where, and a table survives a
/// `kill -9` and a restart.
#[test]
fn serve_keeps_tables_in_the_working_directory_by_default() {
    let cwd = std::env::temp_dir().join(format!("bg-cli-default-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cwd);
    std::fs::create_dir_all(&cwd).unwrap();
    let (child, addr, second) = start_in(&cwd, &[]);
    let db = cwd.canonicalize().unwrap().join("boardgame-data").join("tables.db");
    assert!(second.contains(&db.display().to_string()), "the database's path is printed: {second}");
    let create = r#"{"game": "caravan", "players": 2, "seats": ["human", "heuristic"]}"#;
    let (status, body) = http(
        &addr,
        &format!(
            "POST /api/tables HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{create}",
            create.len()
        ),
    );
    assert!(status.contains("201"), "{status} {body}");
    let id = body.split("\"id\":\"").nth(1).and_then(|r| r.split('"').next()).unwrap().to_string();
    drop(child); // kill -9
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&cwd.join("boardgame-data")), 0o700);
        assert_eq!(mode(&db), 0o600);
    }
    let (child, addr, _) = start_in(&cwd, &[]);
    let (status, body) =
        http(&addr, &format!("GET /api/tables/{id}/view HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    assert!(status.contains("200"), "the table survived the restart: {status} {body}");
    drop(child);
    // --export-table prints a table's record, read-only, and serves nothing.
    let export = |id: &str| {
        Command::new(env!("CARGO_BIN_EXE_boardgame"))
            .args(["serve", "--export-table", id])
            .current_dir(&cwd)
            .output()
            .unwrap()
    };
    let o = export(&id);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let record: serde_json::Value = serde_json::from_slice(&o.stdout).expect("the record is JSON");
    assert_eq!(record["engine"], "caravan", "{record}");
    assert_eq!(record["agents"], serde_json::json!(["human", "heuristic"]), "{record}");
    assert!(record["actions"].is_array(), "{record}");
    let o = export("0000000000000000");
    assert_eq!(o.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&o.stderr).is_empty());
    // --purge-expired purges before serving (nothing has expired here).
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(["serve", "--addr", "127.0.0.1:0", "--purge-expired"])
        .current_dir(&cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let child = Killed(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    assert!(line.contains("http://"), "it serves after purging: {line}");
    drop(child);
    let mut err = String::new();
    BufReader::new(stderr).read_to_string(&mut err).unwrap();
    assert!(err.contains(&format!("purged 0 expired tables from {}", db.display())), "{err}");
    let _ = std::fs::remove_dir_all(&cwd);
}

/// Issue 29: a damaged database is refused with a clear message (exit 1)
/// and left as it was.
#[test]
fn serve_refuses_a_damaged_database() {
    let dir = std::env::temp_dir().join(format!("bg-cli-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let junk = b"SQLite format 3\0 and then nothing a database holds".repeat(200);
    std::fs::write(dir.join("tables.db"), &junk).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "a runtime error");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("refusing the database") && err.contains("left untouched"), "{err}");
    assert_eq!(std::fs::read(dir.join("tables.db")).unwrap(), junk, "the file is unchanged");
    let o = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(["serve", "--addr", "127.0.0.1:0", "--purge-expired", "--data"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "nor purged");
    assert_eq!(std::fs::read(dir.join("tables.db")).unwrap(), junk, "the file is unchanged");
    let _ = std::fs::remove_dir_all(&dir);
}
