//! `boardgame balance` end to end: a tiny sweep writes the report folder,
//! the same seed writes the same files, shards merge into the whole run,
//! and bad arguments are usage errors (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boardgame")).args(args).output().expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "`boardgame {}` failed: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("boardgame-balance-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn a_tiny_korovan_sweep_writes_the_report_and_repeats_byte_for_byte() {
    let (a, b) = (temp_dir("a"), temp_dir("b"));
    let args = |dir: &Path, threads: &str| {
        vec![
            "balance".to_string(),
            "korovan".into(),
            "--players".into(),
            "3..4".into(),
            "--sweep".into(),
            "deck.scout=0,8".into(),
            "--games".into(),
            "12".into(),
            "--worth".into(),
            "--worth-games".into(),
            "6".into(),
            "--seed".into(),
            "7".into(),
            "--threads".into(),
            threads.into(),
            "--out".into(),
            dir.display().to_string(),
        ]
    };
    let out = ok(&args(&a, "2").iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.contains("report.md") && out.contains("games in"), "{out}");
    ok(&args(&b, "1").iter().map(String::as_str).collect::<Vec<_>>());
    let (fa, fb) = (files(&a), files(&b));
    let names: Vec<&str> = fa.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "lead.svg",
            "length.svg",
            "report.md",
            "results.json",
            "seats.svg",
            "sweep-deck-scout.svg",
            "sweep-players.svg",
            "worth.svg"
        ]
    );
    assert_eq!(fa, fb, "the same seed gives byte-identical files, whatever the threads");
    let md = String::from_utf8_lossy(&fa[2].1).into_owned();
    assert!(md.contains("games per cell: 12 (seeds 7..19") && md.contains("players=4, deck.scout=8"), "{md}");
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

#[test]
fn shards_merge_into_the_whole_run() {
    let (whole, s0, s1, merged) = (temp_dir("whole"), temp_dir("s0"), temp_dir("s1"), temp_dir("merged"));
    let base = ["balance", "caravan", "--players", "2", "--sweep", "camels=5,6", "--games", "4", "-q"];
    let with = |extra: &[&str]| -> Vec<String> { base.iter().chain(extra).map(|s| s.to_string()).collect() };
    let call = |v: Vec<String>| ok(&v.iter().map(String::as_str).collect::<Vec<_>>());
    call(with(&["--out", &whole.display().to_string()]));
    call(with(&["--shard", "0/2", "--out", &s0.display().to_string()]));
    call(with(&["--shard", "1/2", "--out", &s1.display().to_string()]));
    let (r0, r1) = (s0.join("results.json"), s1.join("results.json"));
    ok(&[
        "balance",
        "caravan",
        "--merge",
        &r0.display().to_string(),
        &r1.display().to_string(),
        "--out",
        &merged.display().to_string(),
    ]);
    assert_eq!(files(&whole), files(&merged));
    let o = run(&["balance", "korovan", "--merge", &r0.display().to_string(), "--out", &merged.display().to_string()]);
    assert_eq!(o.status.code(), Some(1), "caravan results are not korovan's");
    for d in [whole, s0, s1, merged] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn bad_arguments_are_usage_errors() {
    let out = temp_dir("bad");
    let out = out.display().to_string();
    for (args, needle) in [
        (vec!["--sweep", "deck.scot=1"], "unknown field `scot`"),
        (vec!["--sweep", "fines.one_ambush=0"], "fines.one_ambush must be at least 1"),
        (vec!["--players", "2..4"], "between 3 and 9"),
        (vec!["--agents", "chess"], "unknown agent `chess`"),
        (vec!["--config", "{\"lapz\": 2}"], "lapz"),
        (vec!["--shard", "2/2"], "--shard"),
        (vec!["--sweep", "laps"], "path=values"),
    ] {
        let mut all = vec!["balance", "korovan", "--games", "2", "--out", &out];
        all.extend(args);
        let o = run(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(needle), "{all:?}: {err}");
    }
    let o = run(&["balance", "korovan", "--agents", "bogus", "--out", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!Path::new(&out).exists(), "nothing is written on a usage error");
}
