//! Issue 29 item 3: limits that hold. A server whose process may open few
//! files (here `ulimit -n 256`) lowers `max_connections` below what its
//! descriptors allow, so that half-open connections from many addresses
//! are refused with its `503` instead of making it fail to accept
//! (`EMFILE`). The server runs in a child process (this test binary again,
//! under `sh -c 'ulimit -n …; exec …'`), the connections come from this
//! one.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::Duration;

use boardgame_server::{Server, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Set in the child: it serves instead of testing.
const CHILD: &str = "BG_DESCRIPTORS_CHILD";
/// The child's open-file limit.
const LIMIT: u64 = 256;

/// The server of the test, run in the child with the default
/// `max_connections` (1024) and a header timeout no step comes near; it
/// prints its address and stops when its standard input closes.
#[test]
#[ignore = "the server half of connections_stay_within_the_descriptors, which runs it in a child process"]
fn descriptors_child_server() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let config = ServerConfig { header_timeout: Duration::from_secs(3600), ..ServerConfig::default() };
        let server = Server::builder(config).game::<korovan_core::Korovan>().build().await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("addr {}", listener.local_addr().unwrap());
        let stop = async {
            // The parent closes our stdin when it is done.
            let _ = tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await;
        };
        server.serve(listener, stop).await.unwrap();
    });
}

async fn connect_from(server: SocketAddr, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(server).await.unwrap()
}

/// Runs the child server under `ulimit` (the shell's arguments), opens 400
/// half-open connections from 10 addresses, then finishes them all: how
/// many the server held (answered 200) and refused, and its stderr.
async fn half_open_against_child(ulimit: &str) -> (u64, u64, String) {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit {ulimit} && exec \"$0\" --exact descriptors_child_server --ignored --nocapture"))
        .arg(&exe)
        .env(CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let addr: SocketAddr = loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "the child server printed no address");
        if let Some(a) = line.trim().strip_prefix("addr ") {
            break a.parse().unwrap();
        }
    };
    // 10 addresses × 40 half-open connections: more than 256 descriptors,
    // each address within the per-client cap (128).
    let mut half_open = Vec::new();
    for i in 0..400 {
        let mut c = connect_from(addr, &format!("127.0.4.{}", i % 10 + 1)).await;
        let _ = c.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\n").await;
        half_open.push(c);
    }
    // Every connection finishes its request: the held ones are answered,
    // the others were refused at once (or reset, the refusal having met
    // the request's bytes).
    for c in &mut half_open {
        let _ = c.write_all(b"Connection: close\r\n\r\n").await;
    }
    let (mut held, mut refused) = (0u64, 0u64);
    for c in &mut half_open {
        let mut bytes = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(60), c.read_to_end(&mut bytes)).await;
        assert!(read.is_ok(), "every connection is answered and closed");
        let text = String::from_utf8_lossy(&bytes);
        if text.starts_with("HTTP/1.1 200") {
            held += 1;
        } else {
            assert!(text.is_empty() || text.starts_with("HTTP/1.1 503"), "{text}");
            assert!(text.is_empty() || text.contains("too_many_connections"), "{text}");
            refused += 1;
        }
    }
    drop(half_open);
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "the child server failed: {stderr}");
    // Never out of descriptors: the accept loop logs every failure.
    assert!(!stderr.contains("accept:"), "the server failed to accept: {stderr}");
    assert_eq!(held + refused, 400);
    (held, refused, stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_stay_within_the_descriptors() {
    // Soft and hard limit 256: the default 1024 connections are lowered.
    let (held, refused, stderr) = half_open_against_child(&format!("-n {LIMIT}")).await;
    assert!(stderr.contains("max_connections lowered from 1024"), "a warning says so: {stderr}");
    assert!(held > 0 && held + 64 <= LIMIT, "held {held} of 400 with {LIMIT} descriptors");
    assert!(refused >= 400 - LIMIT, "the rest were refused ({refused})");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_soft_limit_is_raised_to_the_hard_one() {
    let hard = Command::new("sh").arg("-c").arg("ulimit -Hn").output().unwrap();
    let hard = String::from_utf8_lossy(&hard.stdout).trim().to_string();
    if hard != "unlimited" && hard.parse::<u64>().unwrap() < 2048 {
        eprintln!("the hard limit of open files is {hard}: too low to test raising the soft one");
        return;
    }
    // Soft limit 256 below a high hard limit: the server raises it and keeps
    // its 1024 connections, so all 400 are held.
    let (held, refused, stderr) = half_open_against_child(&format!("-Sn {LIMIT}")).await;
    assert!(!stderr.contains("lowered"), "{stderr}");
    assert_eq!((held, refused), (400, 0));
}
