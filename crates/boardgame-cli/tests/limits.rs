//! Issue 22, items 14–16 (and the threads of item 11): the binary bounds
//! what it reads, the search budgets it accepts and the threads it needs,
//! and checks a record's path before a game starts. Each test fails on the
//! code before the fix.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boardgame")).args(args).stdin(Stdio::null()).output().expect("the binary runs")
}

/// Runs and expects exit code `code` with one line on stderr; returns it.
fn fails(args: &[&str], code: i32) -> String {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(code), "`boardgame {}`: {err}", args.join(" "));
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("boardgame-cli-limits");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(format!("{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

// ------------------------------------------------------------ item 14

#[cfg(unix)]
#[test]
fn replay_and_merge_of_dev_zero_stop_at_their_cap() {
    let started = Instant::now();
    let err = fails(&["replay", "/dev/zero"], 1);
    assert!(err.contains("/dev/zero: the record is larger than 64 MiB (the most a record may be)"), "{err}");
    let err = fails(&["merge", "/dev/zero"], 1);
    assert!(err.contains("/dev/zero: the result file is larger than 16 MiB (the most a result file may be)"), "{err}");
    // bounded reads: far from the seconds an unbounded read would take
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_file_over_the_cap_is_refused_without_being_read() {
    // a sparse file of 65 MiB: refused from its length alone
    let big = scratch("big.json");
    std::fs::File::create(&big).unwrap().set_len(65 << 20).unwrap();
    let name = big.to_str().unwrap();
    let err = fails(&["replay", name], 1);
    assert!(err.contains("the record is larger than 64 MiB"), "{err}");
    let err = fails(&["merge", name], 1);
    assert!(err.contains("the result file is larger than 16 MiB"), "{err}");
    let _ = std::fs::remove_file(&big);
}

#[test]
fn records_and_results_under_the_caps_still_read() {
    let record = scratch("game.json");
    let out = run(&["play", "korovan", "--seed", "3", "--record", record.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let replayed = run(&["replay", record.to_str().unwrap()]);
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    let results = scratch("results.json");
    let sim = run(&["simulate", "caravan", "-n", "2", "--json", "-q"]);
    assert!(sim.status.success());
    std::fs::write(&results, &sim.stdout).unwrap();
    let merged = run(&["merge", results.to_str().unwrap(), "--json"]);
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
}

// ------------------------------------------------------------ item 15

#[test]
fn search_budgets_beyond_the_cap_are_refused_before_playing() {
    for agents in [
        "ismcts:18446744073709551615ms",
        "ismcts:18446744073709551615",
        "flatmc:99999999999999999999999",
        "ismcts-h:10000001",
        "ismcts:601s",
    ] {
        let started = Instant::now();
        let err = fails(&["simulate", "caravan", "-n", "1", "-a", agents, "-q"], 2);
        assert!(err.contains("the budget is too large (at most 10000000 iterations or 600s per decision)"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(60), "{agents} was refused at once");
        let err = fails(&["play", "caravan", "--agents", agents], 2);
        assert!(err.contains("budget is too large"), "{err}");
    }
}

// ------------------------------------------------------------ item 16

#[test]
fn play_checks_the_record_path_before_the_game_starts() {
    let dir = scratch("a-folder");
    std::fs::create_dir_all(&dir).unwrap();
    for path in ["/nonexistent/x.json", dir.to_str().unwrap()] {
        let o = run(&["play", "korovan", "--seed", "1", "--record", path]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("cannot write the record to {path}")), "{err}");
        assert!(err.contains("checked before the game starts"), "{err}");
        // nothing was shown, nothing played
        assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
    }
}

// ------------------------------------------------- item 11, threads

/// With an address space too small for 1024 thread stacks (`ulimit -v`),
/// `-t 1024` used to panic ("failed to spawn thread"); the games whose
/// thread cannot be spawned are now played by the threads there are, with
/// the same results.
#[cfg(target_os = "linux")]
#[test]
fn threads_the_system_refuses_are_no_failure() {
    let bin = env!("CARGO_BIN_EXE_boardgame");
    let capped = |threads: &str| {
        // MALLOC_ARENA_MAX=1: glibc reserves an arena of 64 MB of address
        // space for a thread that allocates, so under this cap the space could
        // run out inside malloc (an abort, "memory allocation failed") before
        // a spawn is refused, depending on how many threads are running at
        // once; this test is about the spawns the system refuses.
        let script = format!(
            "ulimit -v 300000; export MALLOC_ARENA_MAX=1; exec '{bin}' simulate korovan -n 300 -t {threads} -q --json"
        );
        let o = Command::new("sh").args(["-c", &script]).output().expect("sh runs");
        assert!(o.status.success(), "-t {threads}: {}", String::from_utf8_lossy(&o.stderr));
        o.stdout
    };
    let one = run(&["simulate", "korovan", "-n", "300", "-t", "1", "-q", "--json"]);
    assert!(one.status.success());
    assert_eq!(capped("1024"), one.stdout, "the same results as one thread");
}
