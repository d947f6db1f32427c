//! The binary given bad or edge-case input: each test pins a fix (issue 11,
//! part 9) and fails on the code before it.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boardgame")).args(args).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and expects success; returns stdout.
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "`boardgame {}` failed: {}", args.join(" "), stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs and expects exit code `code`; returns stderr.
fn fails(args: &[&str], code: i32) -> String {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "`boardgame {}`: {err}", args.join(" "));
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

/// A fresh path in the test scratch directory.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("boardgame-cli-bad-input");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(format!("{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The configuration `simulate --json` reports for `--config overlay`.
fn config_of(game: &str, overlay: &str) -> Value {
    let out = ok(&["simulate", game, "-n", "1", "--config", overlay, "--json", "-q"]);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    v["config"].clone()
}

// ------------------------------------------------------------- --config

#[test]
fn config_lays_nested_objects_over_the_defaults() {
    let default = config_of("korovan", "{}");
    let deck = config_of("korovan", r#"{"deck": {"scout": 10}}"#)["deck"].clone();
    assert_eq!(deck["scout"], 10);
    for kind in ["spy", "flare", "second_thought", "guard", "haggle"] {
        assert_eq!(deck[kind], default["deck"][kind], "{kind} keeps its default: {deck}");
        assert_ne!(deck[kind], 0, "{kind}");
    }
    // Top-level fields still replace, and untouched ones keep their default.
    let c = config_of("korovan", r#"{"laps": 2, "deck": {"guard": 1}}"#);
    assert_eq!(c["laps"], 2);
    assert_eq!(c["deck"]["guard"], 1);
    assert_eq!(c["deck"]["scout"], default["deck"]["scout"]);
    assert_eq!(c["players"], default["players"]);
}

#[test]
fn config_rejects_unknown_keys_at_any_depth_naming_the_path() {
    // The notation's word `second` is not the config's `second_thought`.
    let err = fails(&["simulate", "korovan", "-n", "1", "--config", r#"{"deck": {"second": 1}}"#], 2);
    assert!(err.contains("`deck.second`"), "{err}");
    assert!(err.contains("second_thought"), "the fields there are listed: {err}");
    let err = fails(&["simulate", "caravan", "-n", "1", "--config", r#"{"board": {"citys": [1]}}"#], 2);
    assert!(err.contains("`board.citys`"), "{err}");
    let err = fails(&["perft", "korovan", "-d", "1", "--config", r#"{"colour": 1}"#], 2);
    assert!(err.contains("`colour`"), "{err}");
}

#[test]
fn an_engine_configuration_error_has_one_prefix() {
    for (game, overlay) in [("korovan", r#"{"players": 2}"#), ("caravan", r#"{"max_turns": 0}"#)] {
        let err = fails(&["simulate", game, "-n", "1", "--config", overlay], 2);
        assert_eq!(err.matches("configuration").count(), 1, "{err}");
        assert!(err.contains(game), "the game is named: {err}");
    }
}

// ------------------------------------------------------------ simulate

const LAST: u64 = u64::MAX;

#[test]
fn the_last_seed_can_be_played() {
    let last = LAST.to_string();
    let one = ok(&["simulate", "caravan", "-p", "2", "-a", "random", "-n", "1", "--seed", &last, "--json", "-t", "3"]);
    let v: Value = serde_json::from_str(&one).expect("JSON");
    assert_eq!(v["games"], 1);
    // The range is half-open: it ends one past the last seed.
    assert!(one.contains(&format!("{LAST},\n      18446744073709551616")), "{one}");
    // One game past the last seed is refused, not wrapped.
    let err = fails(&["simulate", "caravan", "-p", "2", "-a", "random", "-n", "2", "--seed", &last], 2);
    assert!(err.contains("past the last seed"), "{err}");
    // The last seed's game counts as any other: shards at the top of the
    // seed space merge into the unsharded run.
    let start = (LAST - 4).to_string();
    let base = ["simulate", "korovan", "-p", "3", "-n", "5", "--seed", &start, "--json", "-t", "2"];
    let whole = ok(&base);
    let mut files = Vec::new();
    for i in 0..2 {
        let path = scratch(&format!("top{i}.json"));
        std::fs::write(&path, ok(&[&base[..], &["--shard", &format!("{i}/2")]].concat())).expect("write");
        files.push(path);
    }
    let merged = ok(&["merge", "--json", path_str(&files[0]), path_str(&files[1])]);
    assert_eq!(merged, whole);
    let table = ok(&["merge", path_str(&files[1])]);
    assert!(table.contains("..18446744073709551616"), "{table}");
}

// --------------------------------------------------------------- merge

/// Results of `simulate caravan` (2 random players) over `n` games from
/// `seed`, as JSON.
fn sim_results(seed: u64, n: u64) -> Value {
    let (n, seed) = (n.to_string(), seed.to_string());
    let out = ok(&["simulate", "caravan", "-p", "2", "-a", "random", "-n", &n, "--seed", &seed, "--json", "-q"]);
    serde_json::from_str(&out).expect("JSON")
}

/// Writes `files` and merges them; expects exit 1 and returns stderr, which
/// must name the offending file (`bad`, an index into `files`).
fn merge_fails<T: ToString>(name: &str, files: &[T], bad: usize) -> String {
    let paths: Vec<PathBuf> = files
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let path = scratch(&format!("{name}{i}.json"));
            std::fs::write(&path, v.to_string()).expect("write");
            path
        })
        .collect();
    let mut args = vec!["merge"];
    args.extend(paths.iter().map(|p| path_str(p)));
    let err = fails(&args, 1);
    assert!(err.contains(path_str(&paths[bad])), "the file is named: {err}");
    err
}

#[test]
fn merge_refuses_inconsistent_seed_ranges() {
    // `seeds: []` with games: merged with itself it would double them.
    let mut empty = sim_results(0, 10);
    empty["seeds"] = serde_json::json!([]);
    let err = merge_fails("noseeds", &[empty.clone(), empty], 0);
    assert!(err.contains("10 games, but the seed ranges hold 0 seeds"), "{err}");

    let mut inverted = sim_results(0, 10);
    inverted["seeds"] = serde_json::json!([[10, 0]]);
    let err = merge_fails("inverted", &[sim_results(20, 5), inverted], 1);
    assert!(err.contains("inverted"), "{err}");

    let mut overlapping = sim_results(0, 10);
    overlapping["seeds"] = serde_json::json!([[0, 6], [4, 8]]);
    let err = merge_fails("overlapping", &[overlapping], 0);
    assert!(err.contains("overlap"), "{err}");

    // A range past 2^64 (JSON numbers are unbounded; `Value` is not).
    let mut past = sim_results(0, 10);
    past["seeds"] = serde_json::json!([[18446744073709551610u64, 1]]);
    let text = past.to_string().replace("18446744073709551610,1", "18446744073709551610,18446744073709551620");
    assert!(merge_fails("past", &[text], 0).contains("past the last seed"));

    // The same file twice: every game would count twice.
    let same = sim_results(0, 10);
    assert!(merge_fails("twice", &[same.clone(), same], 1).contains("overlap"));
}

#[test]
fn merge_refuses_rows_of_the_wrong_length_or_count() {
    let mut short = sim_results(0, 10);
    short["by_seat"].as_array_mut().expect("rows").pop();
    let err = merge_fails("seats", &[sim_results(10, 4), short], 1);
    assert!(err.contains("per-seat rows"), "{err}");

    let mut long = sim_results(0, 10);
    let extra = long["by_agent"][0].clone();
    long["by_agent"].as_array_mut().expect("rows").push(extra);
    assert!(merge_fails("agents", &[long], 0).contains("per-agent rows"));

    let mut wins = sim_results(0, 10);
    wins["by_agent"][1]["wins"] = Value::from(11);
    assert!(merge_fails("wins", &[wins], 0).contains("wins"));

    let mut games = sim_results(0, 10);
    games["by_seat"][0]["games"] = Value::from(9);
    assert!(merge_fails("rowgames", &[games], 0).contains("played 9 games of 10"));
}

#[test]
fn merge_refuses_sums_that_overflow() {
    let mut a = sim_results(0, 10);
    a["length_sum"] = Value::from(u64::MAX - 5);
    let b = sim_results(10, 10);
    let err = merge_fails("overflow", &[a, b], 1);
    assert!(err.contains("length sum overflows"), "{err}");

    let mut a = sim_results(0, 10);
    a["by_agent"][0]["score_sum"] = Value::from(i64::MAX);
    let err = merge_fails("scores", &[a, sim_results(10, 10)], 1);
    assert!(err.contains("score sum"), "{err}");
}

#[test]
fn merge_refuses_different_games_configs_and_agents() {
    let korovan: Value =
        serde_json::from_str(&ok(&["simulate", "korovan", "-n", "2", "--seed", "10", "--json"])).expect("JSON");
    assert!(merge_fails("engines", &[sim_results(0, 10), korovan], 1).contains("different engines"));
    let mut config = sim_results(10, 10);
    config["config"]["stones"] = Value::from(9);
    assert!(merge_fails("configs", &[sim_results(0, 10), config], 1).contains("different configs"));
    let mut agents = sim_results(10, 10);
    agents["agents"][1] = Value::from("flatmc:5");
    agents["by_agent"][1]["name"] = Value::from("flatmc:5");
    assert!(merge_fails("agentnames", &[sim_results(0, 10), agents], 1).contains("different agents"));
    // Consistent shards still merge.
    let parts = [sim_results(0, 10), sim_results(10, 10)];
    let paths: Vec<PathBuf> = parts
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let p = scratch(&format!("good{i}.json"));
            std::fs::write(&p, v.to_string()).expect("write");
            p
        })
        .collect();
    let merged: Value =
        serde_json::from_str(&ok(&["merge", "--json", path_str(&paths[0]), path_str(&paths[1])])).expect("JSON");
    assert_eq!(merged, sim_results(0, 20));
}

// --------------------------------------------------------------- perft

#[test]
fn perft_bounds_its_time_and_says_so() {
    let started = std::time::Instant::now();
    let o = run(&["perft", "korovan", "-p", "3", "--depth", "64", "--max-time", "1"]);
    let secs = started.elapsed().as_secs_f64();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(secs < 60.0, "stopped after {secs:.1} s");
    assert!(err.contains("did not finish within --max-time 1 s"), "{err}");
    // The depths printed before the stop are complete and right.
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let counts: Vec<&str> = out.lines().filter(|l| l.starts_with("depth")).collect();
    assert!(counts.len() >= 3, "{out}");
    assert!(counts[2].contains(" 216 "), "korovan 3 players, depth 3: {out}");
    let depth = counts.len() + 1;
    assert!(err.contains(&format!("depth {depth} did not finish")), "{err}");
    // The limit and its default are documented.
    let help = ok(&["perft", "--help"]);
    assert!(help.contains("--max-time <SECONDS>") && help.contains("[default: 600]"), "{help}");
    assert!(ok(&["perft", "korovan", "-p", "3", "-d", "3", "--max-time", "5"]).contains("depth  3"));
    assert_eq!(run(&["perft", "korovan", "-p", "3", "-d", "3", "--max-time", "0"]).status.code(), Some(2));
}
