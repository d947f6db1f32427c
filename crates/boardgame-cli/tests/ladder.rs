//! `boardgame ladder` and `boardgame sprt`, run as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boardgame")).args(args).output().expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "`boardgame {}`: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn usage(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "`boardgame {}` is a usage error", args.join(" "));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("boardgame-ladder-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_ladder_prints_a_table_writes_json_and_a_chart_and_merges_its_shards() {
    let chart = scratch("whole.svg");
    let base = ["ladder", "caravan", "-a", "random,heuristic", "-p", "2,3", "-n", "6", "-q", "-t", "2"];
    let table = ok(&[&base[..], &["--chart", s(&chart)]].concat());
    assert!(table.contains("2 players, 12 games") && table.contains("3 players, 12 games"), "{table}");
    assert!(table.find("heuristic").unwrap() < table.find("random").unwrap(), "best first: {table}");
    let json = ok(&[&base[..], &["--json"]].concat());
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["format"], "boardgame-ladder/1");
    assert_eq!(v["counts"][0]["ratings"].as_array().unwrap().len(), 2);
    assert!(std::fs::read_to_string(&chart).unwrap().starts_with("<svg"));

    let mut parts = Vec::new();
    for i in 0..2 {
        let part = scratch(&format!("part{i}.json"));
        std::fs::write(&part, ok(&[&base[..], &["--shard", &format!("{i}/2"), "--json"]].concat())).unwrap();
        parts.push(part);
    }
    assert_eq!(ok(&["ladder", "--merge", s(&parts[1]), s(&parts[0])]), table, "the merged shards print the whole");
    assert_eq!(ok(&["ladder", "--merge", s(&parts[0]), s(&parts[1]), "--json"]), json);
    // The same shard twice is refused, naming the file.
    let o = run(&["ladder", "--merge", s(&parts[0]), s(&parts[0])]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already counted"));
    // A simulation's results are refused, naming the file and what it holds.
    let sim = scratch("sim.json");
    std::fs::write(&sim, ok(&["simulate", "caravan", "--games", "2", "--json", "-q"])).unwrap();
    let o = run(&["ladder", "--merge", s(&parts[0]), s(&sim)]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{}: a simulation's results", s(&sim))), "{err}");
}

#[test]
fn a_ladder_refuses_bad_arguments() {
    assert!(usage(&["ladder", "caravan", "-a", "random", "-p", "2"]).contains("at least two agents"));
    assert!(usage(&["ladder", "caravan", "-a", "random,heuristic", "-p", "5"]).contains("between 2 and 4"));
    assert!(usage(&["ladder", "caravan", "-a", "random,heuristic", "-p", "x"]).contains("player counts"));
    assert!(usage(&["ladder", "caravan", "-a", "random,wizard", "-p", "2"]).contains("unknown agent `wizard`"));
    assert!(usage(&["ladder", "caravan", "-p", "2"]).contains("--agents"));
}

#[test]
fn sprt_decides_and_prints_its_log_likelihood_ratio() {
    let out = ok(&["sprt", "caravan", "heuristic", "random", "-p", "2", "-t", "2", "--every", "2", "--json"]);
    assert!(out.contains("caravan: heuristic is stronger than random, after"), "{out}");
    assert!(out.lines().filter(|l| l.starts_with("games ") && l.contains("LLR")).count() >= 5, "{out}");
    let v: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(v["state"]["decision"], "stronger");
    assert_eq!(v["state"]["players"], 2);
    let games = v["state"]["games"].as_u64().unwrap();
    assert!(games < 400 && games.is_multiple_of(2), "{games}");
    let out = ok(&["sprt", "korovan", "random", "heuristic", "-p", "4", "-t", "2"]);
    assert!(out.contains("korovan: random is not stronger than heuristic"), "{out}");
    assert!(usage(&["sprt", "korovan", "heuristic", "random", "-p", "4", "--elo", "0,50"]).contains("Elo bounds"));
    assert!(usage(&["sprt", "caravan", "heuristic", "random", "--elo", "0"]).contains("two numbers"));
    assert!(usage(&["sprt", "caravan", "heuristic", "random", "--alpha", "0.7"]).contains("alpha"));
}

#[test]
fn help_names_the_ladder_and_the_test() {
    let help = ok(&["--help"]);
    assert!(help.contains("ladder") && help.contains("sprt"), "{help}");
}

/// The committed lobby ladder (`crates/boardgame-cli/ladder/lobby.json`,
/// `scripts/lobby-ladder.sh`) rates every agent the lobby offers at every
/// player count each game allows, so every count of the lobby is labelled.
#[cfg(feature = "serve")]
#[test]
fn the_committed_lobby_ladder_rates_every_lobby_agent_at_every_count() {
    use boardgame_cli::games::{GameName, build_config, with_game};
    let ladders = boardgame_cli::lobby::lobby_ladders().expect("the committed ladder reads");
    let mut lobby: Vec<String> = boardgame_server::LOBBY_AGENTS.iter().map(|a| a.to_string()).collect();
    lobby.sort();
    for &game in GameName::ALL {
        let r = ladders.iter().find(|r| r.engine == game.cli_name()).expect("every game is rated");
        let counts: Vec<usize> = r.counts.iter().map(|c| c.players).collect();
        let playable: Vec<usize> =
            (1..=16).filter(|&n| with_game!(game, G => build_config::<G>(Some(n), None).is_ok())).collect();
        assert_eq!(counts, playable, "{}: every player count", game.cli_name());
        let mut agents = r.agents.clone();
        agents.sort();
        assert_eq!(agents, lobby, "{}: the lobby's agents", game.cli_name());
        for c in &r.counts {
            assert!(c.games > 0, "{} at {}: games were played", game.cli_name(), c.players);
            let labels = boardgame_sim::ladder::labels(c);
            assert_eq!(labels.len(), lobby.len());
            assert_eq!(labels[0].1, "strongest");
        }
        let strongest = boardgame_cli::lobby::strongest(game);
        assert_eq!(strongest.len(), playable.len());
    }
    let help = ok(&["--help"]);
    for &game in GameName::ALL {
        let (_, best) = &boardgame_cli::lobby::strongest(game)[0];
        assert!(help.contains(best.as_str()), "--help names {}'s strongest agent {best}", game.cli_name());
    }
}
