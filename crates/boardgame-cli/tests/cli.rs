//! Integration tests: they run the built `boardgame` binary.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use boardgame_kit::{AGENT_STREAM_BASE, Agent, CHANCE_STREAM, Game, GameRng, RandomAgent, Turn, sample_chance};
use caravan_core::{Caravan, CaravanConfig};
use korovan_core::{Korovan, KorovanConfig};
use serde_json::Value;

/// Runs the binary with `args`, feeding `stdin`.
fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(args)
        // English whatever the machine's locale (`play` and `replay` follow it).
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().expect("stdin");
    // The binary may stop reading before the end (game over): ignore EPIPE.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and expects success; returns stdout.
fn ok(args: &[&str]) -> String {
    let o = run(args, "");
    assert!(o.status.success(), "`boardgame {}` failed: {}", args.join(" "), stderr(&o));
    stdout(&o)
}

/// A fresh path in the test scratch directory.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("boardgame-cli-tests");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(format!("{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().expect("utf-8 path")
}

// ---------------------------------------------------------------- play

/// Garbage, out-of-range numbers, blank lines and commands, then the first
/// action every time until the end (the illegal action: the next test).
#[test]
fn play_handles_bad_input_and_writes_a_record_replay_accepts() {
    let record = scratch("bad-input.json");
    let mut script = String::from("hello there\n0\n99\n-3\n\nhelp\nview\n");
    script.push_str(&"1\n".repeat(400));
    let args = ["play", "korovan", "-p", "3", "--seed", "5", "--agents", "random", "--record"];
    let o = run(&[&args[..], &[path_str(&record)]].concat(), &script);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("Not a command or an action"), "{out}");
    assert!(out.contains("There is no action 0"), "{out}");
    assert!(out.contains("There is no action 99"), "{out}");
    assert!(out.contains("There is no action -3"), "{out}");
    assert!(out.contains("The game is over"), "{out}");
    assert!(out.contains("Record written"), "{out}");
    let replay = ok(&["replay", path_str(&record)]);
    assert!(replay.contains("The game is over"), "{replay}");
}

#[test]
fn play_korovan_to_the_end_with_an_illegal_action_and_replay_it() {
    let record = scratch("korovan.json");
    // Seat 1 lays first in a 3-player game (seat 0 drives): `place 0` parses
    // but is illegal there.
    let mut script = String::from("xyzzy\nplace 0\n42\n");
    script.push_str(&"1\n".repeat(400));
    let args = ["play", "korovan", "-p", "3", "--seat", "1", "--seed", "11", "--agents", "random", "--record"];
    let o = run(&[&args[..], &[path_str(&record)]].concat(), &script);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("Not a command or an action"), "{out}");
    assert!(out.contains("Not legal now"), "{out}");
    assert!(out.contains("There is no action 42"), "{out}");
    assert!(out.contains("The game is over"), "{out}");
    // Others' layouts are laid face down: never shown (K-8.2), in words.
    assert!(!out.lines().any(|l| l.contains("(random): Lay the row")), "a hidden layout was shown:\n{out}");
    assert!(out.contains("(random): Lay a row face down"), "{out}");
    // K-8.1: the end of every round (pay, guard or haggle) is public, and
    // the only hidden actions of bots are their layouts (K-8.2).
    let lines: Vec<&str> = out.lines().collect();
    let ends = lines.iter().filter(|l| l.contains("(random): Pay ") || l.contains("(random): Play Guard")).count();
    assert!(ends > 0, "a bot's payment is shown:\n{out}");
    let hidden = lines.iter().filter(|l| l.contains("Lay a row face down")).count();
    let lays = 3 * 3 - 3 - lines.iter().filter(|l| l.contains("seat 1 (you): Lay the row")).count();
    assert_eq!(hidden, lays, "only the bots' layouts are hidden:\n{out}");
    let text = std::fs::read_to_string(&record).expect("record written");
    let json: Value = serde_json::from_str(&text).expect("record is JSON");
    assert_eq!(json["agents"][1], "human");
    let replay = ok(&["replay", path_str(&record)]);
    assert!(replay.contains("The game is over"), "{replay}");
}

#[test]
fn play_caravan_to_the_end_with_an_illegal_action_and_replay_it() {
    let record = scratch("caravan.json");
    // No camel of ours is anywhere yet, so no pick-up is legal.
    let mut script = String::from("pick 3\nmove\n");
    script.push_str(&"1\n".repeat(200));
    let args = [
        "play",
        "caravan",
        "-p",
        "2",
        "--config",
        r#"{"max_turns": 12}"#,
        "--seed",
        "3",
        "--record",
        path_str(&record),
    ];
    let o = run(&args, &script);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("Not legal now"), "{out}");
    assert!(out.contains("`move` is not a command or a move. Type a move as `c4 d4`"), "{out}");
    assert!(out.contains("The game is over"), "{out}");
    let replay = ok(&["replay", path_str(&record), "--step"]);
    assert!(replay.contains("max_turns end"), "{replay}");
}

/// Issue 30, item 7: `replay --lang` defaults to the environment's
/// language, as `play --lang` does (it was English whatever the locale).
#[test]
fn replay_follows_the_locale_as_play_does() {
    let record = scratch("locale.json");
    let o = run(&["play", "caravan", "-p", "2", "-s", "4", "--record", path_str(&record)], "quit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let replay = |lang: &str, args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_boardgame"))
            .args([&["replay", path_str(&record)][..], args].concat())
            .env("LC_ALL", lang)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    assert!(replay("ru_RU.UTF-8", &[]).contains("Из мешка: товар"), "{}", replay("ru_RU.UTF-8", &[]));
    assert!(replay("C", &[]).contains("Draw "));
    assert!(replay("ru_RU.UTF-8", &["--lang", "en"]).contains("Draw "));
    // `play` reads the same environment
    let o = Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(["play", "caravan", "-p", "2", "-s", "4"])
        .env("LC_ALL", "ru_RU.UTF-8")
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(stdout(&o).contains("Из мешка: товар"), "{}", stdout(&o));
}

/// Issue 30, item 8: the terminal Caravan game says `seat 0` (never `P0`)
/// and counts one in the singular; a line that is no move says what a move
/// looks like, a word in a square's place that is no square says what a
/// square is, and a pick-up of a space that does not exist names the
/// spaces there are (1 to 8), in both languages.
#[test]
fn play_caravan_says_seats_and_what_was_expected() {
    let script = "pick 9\np0\npick x\nz9 c4\ns q1\nfoo bar\nquit\n";
    let o = run(&["play", "caravan", "-p", "2", "-s", "5", "--lang", "en"], script);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!out.contains("P0") && !out.contains("P1"), "a seat is `seat N`:\n{out}");
    assert!(out.contains("Caravan: turn 0, seat 0 to move, 1 of 1 action left"), "{out}");
    assert!(out.contains("seat 0: 0 points;"), "{out}");
    for expected in [
        "There is no numbered space `9`: the numbered spaces are 1 to 8, like `pick 3`.",
        "There is no numbered space `0`: the numbered spaces are 1 to 8, like `pick 3`.",
        "There is no numbered space `x`: the numbered spaces are 1 to 8, like `pick 3`.",
        "`z9` is not a square: a square is a column a to g and a row 1 to 7, like `c4`.",
        "`q1` is not a square: a square is a column a to g and a row 1 to 7, like `c4`.",
        "`foo bar` is not a command or a move. Type a move as `c4 d4` (a camel or a good from c4 to d4), `s c4`",
        "You left the game after 8 actions.",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    let o = run(&["play", "caravan", "-p", "2", "-s", "5", "--lang", "ru"], script);
    let out = stdout(&o);
    assert!(out.contains("Нет места с номером `9`: места пронумерованы от 1 до 8"), "{out}");
    assert!(out.contains("`z9` — не клетка"), "{out}");
    assert!(out.contains("`foo bar` — не команда и не ход. Ход вводится как `c4 d4`"), "{out}");
}

#[test]
fn play_writes_the_record_on_quit_and_on_end_of_input() {
    let quit = scratch("quit.json");
    let o = run(&["play", "korovan", "--seed", "1", "--record", path_str(&quit)], "1\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let replay = ok(&["replay", path_str(&quit)]);
    assert!(replay.contains("before the end of the game"), "{replay}");

    let eof = scratch("eof.json");
    let o = run(&["play", "korovan", "--seed", "2", "--record", path_str(&eof)], "2\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("End of input"));
    let text = std::fs::read_to_string(&eof).expect("record written on EOF");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    assert!(!json["actions"].as_array().expect("actions").is_empty());
    ok(&["replay", path_str(&eof)]);

    // Search and heuristic bots: the record names them.
    let bots = scratch("bots.json");
    let args =
        ["play", "korovan", "-p", "4", "--agents", "heuristic,ismcts:5", "--seed", "8", "--record", path_str(&bots)];
    let o = run(&args, &"1\n".repeat(3));
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&bots).expect("record")).expect("JSON");
    assert_eq!(json["agents"], serde_json::json!(["human", "heuristic", "ismcts:5", "ismcts:5"]));
    ok(&["replay", path_str(&bots)]);
}

// ------------------------------------------------------------ simulate

#[test]
fn simulate_gives_identical_json_whatever_the_thread_count() {
    for game in [&["korovan", "-n", "24"][..], &["caravan", "-p", "2", "-n", "6", "--config", r#"{"max_turns": 60}"#]] {
        let one = ok(&[&["simulate", "--json", "--seed", "9", "-t", "1"][..], game].concat());
        let two = ok(&[&["simulate", "--json", "--seed", "9", "-t", "2"][..], game].concat());
        let three = ok(&[&["simulate", "--json", "--seed", "9", "-t", "3"][..], game].concat());
        assert_eq!(one, two);
        assert_eq!(one, three);
        let v: Value = serde_json::from_str(&one).expect("JSON");
        assert!(v["games"].as_u64().expect("games") > 0);
    }
}

#[test]
fn shards_merged_equal_one_unsharded_run() {
    let base = ["simulate", "korovan", "-p", "4", "-n", "31", "--seed", "100", "--json", "-t", "2"];
    let whole = ok(&base);
    let mut files = Vec::new();
    for i in 0..2 {
        let path = scratch(&format!("shard{i}.json"));
        let shard = format!("{i}/2");
        std::fs::write(&path, ok(&[&base[..], &["--shard", &shard]].concat())).expect("write shard");
        files.push(path);
    }
    let merged = ok(&["merge", "--json", path_str(&files[1]), path_str(&files[0])]);
    assert_eq!(merged, whole);

    // Caravan keeps its kinds of end through a merge, over three shards.
    let base = ["simulate", "caravan", "-p", "3", "-n", "5", "--config", r#"{"max_turns": 30}"#, "--json"];
    let whole = ok(&base);
    let mut paths = Vec::new();
    for i in 0..3 {
        let path = scratch(&format!("cshard{i}.json"));
        let shard = format!("{i}/3");
        std::fs::write(&path, ok(&[&base[..], &["--shard", &shard]].concat())).expect("write shard");
        paths.push(path);
    }
    let merged = ok(&["merge", "--json", path_str(&paths[0]), path_str(&paths[1]), path_str(&paths[2])]);
    assert_eq!(merged, whole);
    let v: Value = serde_json::from_str(&merged).expect("JSON");
    assert_eq!(v["ends"]["max_turns"], 5);
    // The table of merged results prints.
    let table = ok(&["merge", path_str(&paths[0]), path_str(&paths[1]), path_str(&paths[2])]);
    assert!(table.contains("ends: natural 0 (0.0%); guard ends: max_turns 5 (100.0%), passes 0 (0.0%)"), "{table}");
}

#[test]
fn merge_refuses_overlapping_or_different_runs() {
    let a = scratch("ovl-a.json");
    let b = scratch("ovl-b.json");
    std::fs::write(&a, ok(&["simulate", "korovan", "-n", "10", "--json"])).expect("write");
    std::fs::write(&b, ok(&["simulate", "korovan", "-n", "10", "--seed", "5", "--json"])).expect("write");
    let o = run(&["merge", path_str(&a), path_str(&b)], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("overlap"), "{}", stderr(&o));

    std::fs::write(&b, ok(&["simulate", "korovan", "-n", "10", "--seed", "10", "-p", "3", "--json"])).expect("write");
    let o = run(&["merge", path_str(&a), path_str(&b)], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot merge"), "{}", stderr(&o));
}

#[test]
fn simulate_prints_the_table_with_intervals_lengths_and_ends() {
    let out = ok(&["simulate", "caravan", "-p", "2", "-n", "4", "--config", r#"{"max_turns": 20}"#]);
    for needle in
        ["by agent", "by seat", "95% interval", "mean score", "mean length", "turns", "guard ends: max_turns 4"]
    {
        assert!(out.contains(needle), "missing `{needle}` in\n{out}");
    }
    let out = ok(&["simulate", "korovan", "-n", "10", "--fixed-seats"]);
    assert!(out.contains("rounds") && out.contains("fixed seats"), "{out}");
}

/// The README's main command, with small counts.
#[test]
fn the_main_command_simulates_both_games() {
    let out = ok(&["demo", "-n", "6"]);
    assert!(out.contains("korovan ·") && out.contains("caravan ·"), "{out}");
    assert!(out.contains("ends:"), "{out}");
    assert!(out.contains("0: heuristic"), "{out}");
    let all = ok(&["simulate", "all", "-n", "6", "-t", "1"]);
    assert!(all.contains("korovan ·") && all.contains("caravan ·"), "{all}");
}

/// Issue 30, item 9: `simulate --json` gives each row its `share` beside
/// the exact units, and the rows by agent name; the shares of a game's
/// seats add up to 1; the table pools a repeated name and says why its
/// rows differ (seats rotate in step); every field is documented in
/// docs/simulate-json.md.
#[test]
fn simulate_json_has_shares_and_rows_by_name_and_is_documented() {
    let out = ok(&["simulate", "korovan", "-n", "20", "-a", "heuristic,random", "--json"]);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["format"], "boardgame-simulate/1", "the version stays: the fields are added");
    for rows in ["by_agent", "by_seat", "by_name"] {
        let rows = v[rows].as_array().expect("rows");
        for row in rows {
            let (units, games) = (row["share_units"].as_u64().unwrap(), row["games"].as_u64().unwrap());
            let share = row["share"].as_f64().expect("a share");
            assert_eq!(share, units as f64 / (games as f64 * 720_720.0), "{row}");
        }
    }
    for rows in ["by_agent", "by_seat"] {
        let units: u64 = v[rows].as_array().unwrap().iter().map(|r| r["share_units"].as_u64().unwrap()).sum();
        assert_eq!(units, 20 * 720_720, "{rows}: every game shares out exactly one win");
    }
    let names = v["by_name"].as_array().expect("by_name");
    let pooled: Vec<(&str, u64, u64)> = names
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["entrants"].as_u64().unwrap(), r["games"].as_u64().unwrap()))
        .collect();
    assert_eq!(pooled, [("heuristic", 1, 20), ("random", 4, 80)]);
    let random_wins: u64 = v["by_agent"].as_array().unwrap()[1..].iter().map(|r| r["wins"].as_u64().unwrap()).sum();
    assert_eq!(names[1]["wins"].as_u64(), Some(random_wins));
    // merge reads its own output and writes the same
    let path = scratch("shares.json");
    std::fs::write(&path, &out).expect("write");
    assert_eq!(ok(&["merge", "--json", path_str(&path)]), out);

    let table = ok(&["simulate", "korovan", "-n", "20", "-a", "heuristic,random"]);
    assert!(table.contains("by name\n") && table.contains("  random ×4 "), "{table}");
    assert!(table.contains("note: seats rotate in step (agent i plays seat (i + seed) mod 5)"), "{table}");
    let table = ok(&["simulate", "korovan", "-n", "20", "-a", "heuristic,random", "--fixed-seats"]);
    assert!(table.contains("note: fixed seats (agent i always plays seat i)"), "{table}");
    let table = ok(&["simulate", "korovan", "-p", "3", "-n", "4", "-a", "heuristic,random,flatmc:4"]);
    assert!(!table.contains("note:") && !table.contains("by name"), "{table}");

    // every field written is documented, as `field`
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/simulate-json.md"))
        .expect("docs/simulate-json.md");
    let mut fields: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    for rows in ["by_agent", "by_name"] {
        fields.extend(v[rows][0].as_object().unwrap().keys().cloned());
    }
    for field in fields {
        assert!(doc.contains(&format!("| `{field}`")), "docs/simulate-json.md does not document `{field}`");
    }
    assert!(doc.contains("720720 is lcm(1, 2, …, 16)"), "the unit is explained");
}

#[test]
fn search_agents_by_name_are_reproducible() {
    let args = [
        "simulate",
        "caravan",
        "-p",
        "2",
        "-n",
        "2",
        "-a",
        "ismcts:8,flatmc:8",
        "--config",
        r#"{"max_turns": 10}"#,
        "--json",
    ];
    let a = ok(&args);
    let b = ok(&[&args[..], &["-t", "1"]].concat());
    assert_eq!(a, b);
    let v: Value = serde_json::from_str(&a).expect("JSON");
    assert_eq!(v["agents"], serde_json::json!(["ismcts:8", "flatmc:8"]));
    ok(&["simulate", "korovan", "-p", "3", "-n", "1", "-a", "ismcts:4,random,flatmc:4", "-q"]);
}

#[test]
fn the_last_agent_fills_the_seats_left_and_heuristics_play() {
    let out = ok(&["simulate", "korovan", "-n", "20", "-a", "heuristic,random", "--json"]);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["agents"], serde_json::json!(["heuristic", "random", "random", "random", "random"]));
    assert_eq!(out, ok(&["simulate", "korovan", "-n", "20", "-a", "heuristic,random", "--json", "-t", "1"]));
}

// -------------------------------------------------------------- replay

/// A finished Korovan record, played by `play` with the first action each time.
fn korovan_record(name: &str) -> (PathBuf, Value) {
    let record = scratch(name);
    let o = run(&["play", "korovan", "-p", "3", "--seed", "4", "--record", path_str(&record)], &"1\n".repeat(400));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&record).expect("record");
    (record, serde_json::from_str(&text).expect("JSON"))
}

fn replay_fails(path: &std::path::Path) -> String {
    let o = run(&["replay", path_str(path)], "");
    assert_eq!(o.status.code(), Some(1), "stdout: {}", stdout(&o));
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn replay_of_a_truncated_record_names_the_step() {
    let (record, json) = korovan_record("trunc.json");
    let text = std::fs::read_to_string(&record).expect("record");
    let n = json["actions"].as_array().expect("actions").len();
    // Cut inside the action list, right after the comma that ends step 9.
    let at = text.match_indices(',').filter(|(i, _)| *i > text.find("\"actions\"").unwrap_or(0)).nth(9);
    let (cut, _) = at.expect("enough actions");
    std::fs::write(&record, &text[..=cut]).expect("write");
    let err = replay_fails(&record);
    assert!(err.contains("step 10"), "{err}");
    assert!(n > 10);
    // Cut in the middle of the file.
    std::fs::write(&record, &text[..text.len() / 2]).expect("write");
    assert!(replay_fails(&record).contains("step "));
    // Only the closing brace lost.
    std::fs::write(&record, text.trim_end().trim_end_matches('}')).expect("write");
    let err = replay_fails(&record);
    assert!(err.contains(&format!("step {n}: the record is cut off after its last action")), "{err}");
}

#[test]
fn replay_of_an_edited_record_names_the_step() {
    let (record, json) = korovan_record("edit.json");
    // An id outside the action space.
    let mut bad = json.clone();
    bad["actions"][7] = Value::from(9999);
    std::fs::write(&record, bad.to_string()).expect("write");
    let err = replay_fails(&record);
    assert!(err.contains("step 7") && err.contains("9999"), "{err}");

    // An id inside the action space that is illegal where it stands.
    let config: KorovanConfig = serde_json::from_value(json["config"].clone()).expect("config");
    let ids: Vec<u32> =
        json["actions"].as_array().expect("actions").iter().map(|v| v.as_u64().expect("id") as u32).collect();
    let step = ids.len() / 2;
    let mut state = Korovan::new_game(&config).expect("config");
    for &id in &ids[..step] {
        state.apply(Korovan::action_from_id(&config, id).expect("id")).expect("legal");
    }
    let illegal = (0..Korovan::num_distinct_actions(&config) as u32)
        .find(|&id| !state.is_legal(Korovan::action_from_id(&config, id).expect("id")))
        .expect("some id is illegal");
    let mut bad = json.clone();
    bad["actions"][step] = Value::from(illegal);
    std::fs::write(&record, bad.to_string()).expect("write");
    let err = replay_fails(&record);
    assert!(err.contains(&format!("step {step}")) && err.contains("illegal"), "{err}");

    // A record of an unknown engine, and an invalid config.
    let mut bad = json.clone();
    bad["engine"] = Value::from("chess");
    std::fs::write(&record, bad.to_string()).expect("write");
    assert!(replay_fails(&record).contains("unknown engine"));
    let mut bad = json;
    bad["config"]["players"] = Value::from(2);
    std::fs::write(&record, bad.to_string()).expect("write");
    assert!(replay_fails(&record).contains("players must be between 3 and 9"));
}

// --------------------------------------------------------------- perft

/// The counts `perft` prints, by depth.
fn perft_counts(out: &str) -> Vec<u64> {
    out.lines()
        .filter(|l| l.starts_with("depth"))
        .map(|l| {
            let count = l.split(':').nth(1).and_then(|r| r.split_whitespace().next()).expect("a count");
            count.parse().expect("a number")
        })
        .collect()
}

/// The start position of `perft --seed X --moves K`, rebuilt with the kit.
fn seeded_start<G: Game>(config: &G::Config, seed: u64, moves: usize) -> G {
    let mut state = G::new_game(config).expect("config");
    let root = GameRng::new(seed);
    let mut chance = root.child(CHANCE_STREAM);
    let mut rngs: Vec<GameRng> = (0..state.num_players()).map(|s| root.child(AGENT_STREAM_BASE + s as u32)).collect();
    let mut buf = G::ChanceList::default();
    let mut played = 0;
    loop {
        let a = match state.turn() {
            Turn::Terminal => break,
            Turn::Player(_) if played >= moves => break,
            Turn::Chance => sample_chance(&state, &mut chance, &mut buf).expect("outcome"),
            Turn::Player(p) => RandomAgent.act(&state, p, &mut rngs[p]),
        };
        state.apply(a).expect("legal");
        played += 1;
    }
    state
}

fn library_counts<G: Game>(state: &G, depth: usize) -> Vec<u64> {
    (1..=depth).map(|d| boardgame_kit::perft(state, d)).collect()
}

#[test]
fn perft_counts_equal_the_library() {
    let k3 = KorovanConfig::with_players(3);
    let out = ok(&["perft", "korovan", "-p", "3", "--depth", "5"]);
    assert_eq!(perft_counts(&out), library_counts(&Korovan::new_game(&k3).expect("config"), 5));

    let out = ok(&["perft", "korovan", "-p", "3", "--depth", "4", "--seed", "3", "--moves", "10"]);
    assert_eq!(perft_counts(&out), library_counts(&seeded_start::<Korovan>(&k3, 3, 10), 4));

    let c2 = CaravanConfig::with_players(2);
    let out = ok(&["perft", "caravan", "-p", "2", "--depth", "3"]);
    assert_eq!(perft_counts(&out), library_counts(&Caravan::new_game(&c2).expect("config"), 3));

    let out = ok(&["perft", "caravan", "-p", "2", "--depth", "2", "--seed", "7"]);
    let start = seeded_start::<Caravan>(&c2, 7, 0);
    assert!(matches!(start.turn(), Turn::Player(0)));
    assert_eq!(perft_counts(&out), library_counts(&start, 2));
}

/// The columns of a `perft` row: the sequences, those whose last action is
/// a chance outcome, those whose last action is a decision.
fn perft_rows(out: &str) -> Vec<[u64; 3]> {
    out.lines()
        .filter(|l| l.starts_with("depth"))
        .map(|l| {
            let mut n = l.split(':').nth(1).expect("a row").split_whitespace().map(|w| w.parse().expect("a number"));
            [n.next().unwrap(), n.next().unwrap(), n.next().unwrap()]
        })
        .collect()
}

/// Issue 30, item 8: `perft` counts chance outcomes as actions (the kit's
/// perft), and says so: each depth splits its count by the last action's
/// kind, and from Caravan's initial position (the deal) a note says that no
/// sequence reached a decision and how to start at one.
#[test]
fn perft_says_what_it_counts() {
    let out = ok(&["perft", "caravan", "-p", "2", "--depth", "3"]);
    assert!(out.contains("chance outcomes (deals, draws) as well as decisions"), "{out}");
    assert_eq!(perft_rows(&out), [[8, 8, 0], [64, 64, 0], [512, 512, 0]], "{out}");
    assert!(out.contains("note: every sequence counted is chance outcomes alone (the deal)"), "{out}");
    assert!(out.contains("--seed S"), "{out}");

    let out = ok(&["perft", "caravan", "-p", "2", "--depth", "2", "--seed", "7"]);
    let rows = perft_rows(&out);
    assert!(rows.iter().all(|&[n, c, d]| n == c + d && d > 0), "{out}");
    assert!(!out.contains("note:"), "{out}");
    // Korovan deals two actions, then a seat decides: no note once a depth
    // reaches the decisions.
    let out = ok(&["perft", "korovan", "-p", "3", "--depth", "3"]);
    assert_eq!(perft_rows(&out), [[6, 6, 0], [36, 36, 0], [216, 0, 216]], "{out}");
    assert!(!out.contains("note:"), "{out}");
}

// --------------------------------------------------- bench, exit codes

#[test]
fn bench_prints_a_row_per_player_count() {
    let out = ok(&["bench", "korovan", "--millis", "2"]);
    let rows = out.lines().filter(|l| l.starts_with("korovan")).count();
    assert_eq!(rows, 3, "{out}");
    let out = ok(&["bench", "caravan", "-p", "2", "--millis", "2"]);
    assert!(out.lines().any(|l| l.starts_with("caravan")), "{out}");
}

#[test]
fn usage_errors_exit_2_and_runtime_errors_exit_1() {
    for args in [
        &["simulate", "chess"][..],
        &["simulate", "korovan", "-a", "bogus"],
        &["simulate", "korovan", "-a", "ismcts:0"],
        &["simulate", "korovan", "-p", "3", "-a", "random,random,random,random"],
        &["simulate", "korovan", "--shard", "2/2"],
        &["simulate", "korovan", "--threads", "0"],
        &["simulate", "all", "--players", "3"],
        &["simulate", "caravan", "--config", r#"{"colour": 1}"#],
        &["play", "korovan", "-p", "2"],
        &["play", "korovan", "--seat", "7"],
        &["perft", "caravan"],
        &["frobnicate"],
    ] {
        let o = run(args, "");
        assert_eq!(o.status.code(), Some(2), "`{}`: {}", args.join(" "), stderr(&o));
    }
    let o = run(&["simulate", "korovan", "-a", "bogus"], "");
    assert!(stderr(&o).contains("unknown agent `bogus`"), "{}", stderr(&o));
    let o = run(&["play", "korovan", "-p", "2"], "");
    assert!(stderr(&o).contains("players must be between 3 and 9, got 2"), "{}", stderr(&o));

    let o = run(&["play", "korovan", "--record", "/nonexistent/dir/record.json"], "1\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot write the record"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("Your actions"), "refused before the game starts");

    let o = run(&["replay", "/nonexistent/record.json"], "");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).trim_end().lines().count(), 1);
    assert!(stderr(&o).starts_with("error: "));
}

// ---------------------------------------------------------------- help

/// The help of every command that takes agents names every agent the kit
/// builds (`ismcts-h:N` among them, the one the docs recommend), and the
/// commands that take a game list the two games, not the hidden test game.
#[test]
fn help_names_every_agent_and_game() {
    for cmd in ["simulate", "play", "balance"] {
        let help = ok(&[cmd, "--help"]);
        for agent in
            ["random", "heuristic", "ismcts:N", "ismcts-h:N", "flatmc:N", "flatmc-h:N", "learned", "learned-ismcts:N"]
        {
            assert!(help.contains(agent), "`{cmd} --help` omits {agent}: {help}");
        }
    }
    assert!(ok(&["--help"]).contains("ismcts-h:N"));
    for cmd in ["simulate", "play", "perft", "bench", "balance"] {
        let help = ok(&[cmd, "--help"]);
        assert!(help.contains("korovan") && help.contains("caravan"), "`{cmd} --help`: {help}");
        assert!(!help.contains("nim"), "`{cmd} --help` shows the test game: {help}");
    }
    // The kit's test game is no engine of the registry: refused.
    assert_eq!(run(&["perft", "nim", "--depth", "1"], "").status.code(), Some(2));
}
