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
        .args(["serve", "--addr", "127.0.0.1:0", "--bot-delay-ms", "0"])
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
    assert!(second.contains("memory only"), "without --data the tables are not kept: {second}");
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

/// Issue 22 item 5: a copy of a table's file under another name is refused
/// at start-up with a message that says which file and why.
#[test]
fn serve_refuses_a_copied_table_file() {
    let dir = std::env::temp_dir().join(format!("bg-cli-copy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tables")).unwrap();
    let table = r#"{"format":1,"id":"00000000000000aa","game":"korovan","created":1,"seats":[],"record":null}"#;
    std::fs::write(dir.join("tables/00000000000000aa.json"), table).unwrap();
    std::fs::write(dir.join("tables/copy-of-aa.json"), table).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let child = Killed(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    assert!(line.contains("http://"), "the server starts: {line}");
    drop(child);
    let mut err = String::new();
    BufReader::new(stderr).read_to_string(&mut err).unwrap();
    assert!(
        err.contains("copy-of-aa.json") && err.contains("00000000000000aa") && err.contains("not resumed"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
