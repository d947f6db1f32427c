//! The help text (issue 30, item 7): `boardgame --help` names every
//! subcommand on its first line and in its list, and the flags that several
//! subcommands share have one spelling (long and short name) and one default
//! everywhere, as each `boardgame X --help` prints them.

use std::collections::BTreeMap;
use std::process::Command;

/// Every subcommand of the binary.
fn subcommands() -> Vec<&'static str> {
    let mut all =
        vec!["demo", "play", "simulate", "merge", "ladder", "sprt", "replay", "perft", "bench", "balance", "train"];
    if cfg!(feature = "serve") {
        all.push("serve");
    }
    all
}

fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_boardgame")).args(args).env("LC_ALL", "C").output().expect("runs");
    assert!(o.status.success(), "`boardgame {}` failed: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("UTF-8 help")
}

/// One option as a subcommand's help shows it.
#[derive(Debug, Clone, PartialEq)]
struct Flag {
    short: Option<char>,
    default: Option<String>,
}

/// The options of a `--help` text, by long name: the header line of each
/// (`  -s, --seed <SEED>` or `      --json`, indented at most 6 columns)
/// and its text up to the next header, where clap prints `[default: …]`.
fn flags(help: &str) -> BTreeMap<String, Flag> {
    let mut out: BTreeMap<String, Flag> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut in_options = false;
    for line in help.lines() {
        if line == "Options:" {
            in_options = true;
            continue;
        }
        if !in_options {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let text = line.trim_start();
        if (2..=6).contains(&indent) && text.starts_with('-') {
            let mut words = text.split([' ', ',']).filter(|w| !w.is_empty());
            let mut short = None;
            let mut long = None;
            for w in words.by_ref().take(2) {
                if let Some(l) = w.strip_prefix("--") {
                    long = Some(l.split('=').next().unwrap_or(l).to_string());
                } else if let Some(s) = w.strip_prefix('-') {
                    short = s.chars().next();
                }
            }
            let long = long.unwrap_or_else(|| panic!("an option without a long name: `{line}`"));
            assert!(!out.contains_key(&long), "--{long} twice in:\n{help}");
            out.insert(long.clone(), Flag { short, default: None });
            current = Some(long);
            // A short help keeps the text on the header line.
            if let Some(d) = default_in(text) {
                out.get_mut(current.as_ref().unwrap()).unwrap().default = Some(d);
            }
        } else if let (Some(name), Some(d)) = (&current, default_in(text)) {
            out.get_mut(name).unwrap().default = Some(d);
        }
    }
    out
}

fn default_in(text: &str) -> Option<String> {
    let start = text.find("[default: ")? + "[default: ".len();
    let end = text[start..].find(']')? + start;
    Some(text[start..end].to_string())
}

#[test]
fn the_main_help_names_every_subcommand() {
    let text = help(&["--help"]);
    let first = text.lines().next().expect("a first line");
    let list = text.split("Commands:").nth(1).expect("a list of commands");
    for cmd in subcommands() {
        assert!(first.contains(cmd), "the first line does not name `{cmd}`: {first}");
        assert!(list.lines().any(|l| l.trim_start().starts_with(&format!("{cmd} "))), "`{cmd}` not listed:\n{text}");
        // `boardgame help X` and `boardgame X --help` work for each.
        assert!(help(&[cmd, "--help"]).contains(&format!("Usage: boardgame {cmd}")));
    }
    let listed =
        list.lines().skip(1).take_while(|l| !l.is_empty()).filter(|l| !l.trim_start().starts_with("help ")).count();
    assert_eq!(listed, subcommands().len(), "a subcommand this test does not know:\n{text}");
}

/// The convention: the short name and the default of every shared flag.
/// `None` as the default: the help shows none (`--threads`: every core;
/// `--lang`: the environment's language; `--agents`: each command says
/// whom it seats by default, see below).
const CONVENTION: &[(&str, Option<char>, Option<&str>)] = &[
    ("players", Some('p'), None),
    ("config", None, None),
    ("agents", Some('a'), None),
    ("games", Some('n'), Some("1000")),
    ("seed", Some('s'), Some("0")),
    ("threads", Some('t'), None),
    ("quiet", Some('q'), None),
    ("out", Some('o'), None),
    ("lang", None, None),
    ("json", None, None),
    ("shard", None, None),
    ("merge", None, None),
    ("help", Some('h'), None),
    ("version", Some('V'), None),
];

/// Defaults that differ on purpose, by (subcommand, flag): whom `simulate`
/// and `balance` seat when no agents are named (`play` seats the engine's
/// heuristic and says so), where `balance` writes its report (a folder),
/// and the seed of `perft` and `play` (none: the initial position, a fresh
/// game). `train` has no options of its own: it passes its arguments to the
/// Python trainer (`tests/train.rs`). `ladder` and `sprt` start at seed
/// 1,000,000, where the strength figures of docs/bots.md start (training
/// uses the seeds below).
const OWN_DEFAULTS: &[(&str, &str, &str)] = &[
    ("simulate", "agents", "random"),
    ("balance", "agents", "heuristic"),
    ("balance", "out", "balance-report"),
    ("ladder", "seed", "1000000"),
    ("sprt", "seed", "1000000"),
];

#[test]
fn shared_flags_have_one_spelling_and_one_default() {
    let mut seen: BTreeMap<String, Vec<(&str, Flag)>> = BTreeMap::new();
    for cmd in subcommands() {
        for (long, flag) in flags(&help(&[cmd, "--help"])) {
            seen.entry(long).or_default().push((cmd, flag));
        }
    }
    // The flags this test expects to share are shared, in the commands
    // that take them.
    for (long, cmds) in [
        ("agents", &["play", "simulate", "balance"][..]),
        ("seed", &["demo", "play", "simulate", "perft", "balance"]),
        ("threads", &["demo", "simulate", "balance"]),
        ("games", &["demo", "simulate", "balance"]),
        ("quiet", &["demo", "simulate", "balance"]),
        ("lang", &["play", "replay"]),
        ("out", &["balance"]),
        ("players", &["play", "simulate", "perft", "bench", "balance"]),
    ] {
        let have: Vec<&str> = seen.get(long).map(|v| v.iter().map(|(c, _)| *c).collect()).unwrap_or_default();
        for c in cmds {
            assert!(have.contains(c), "`{c}` lacks --{long} (has it: {have:?})");
        }
    }
    for (long, uses) in &seen {
        if uses.len() < 2 {
            continue;
        }
        let rule = CONVENTION.iter().find(|(l, _, _)| l == long);
        let Some(&(_, short, default)) = rule else {
            panic!("--{long} is shared by {:?} but not in the convention of this test", uses.iter().map(|u| u.0));
        };
        for (cmd, flag) in uses {
            assert_eq!(flag.short, short, "`{cmd} --{long}`: short name");
            let own = OWN_DEFAULTS.iter().find(|(c, l, _)| c == cmd && l == long).map(|(_, _, d)| *d);
            let expected = own.or(default);
            // A flag without a default (optional, or required) shows none.
            if flag.default.is_some() || own.is_some() {
                assert_eq!(flag.default.as_deref(), expected, "`{cmd} --{long}`: default");
            }
        }
    }
    // The defaults that must not show: every core, the environment's
    // language.
    for long in ["threads", "lang"] {
        for (cmd, flag) in &seen[long] {
            assert_eq!(flag.default, None, "`{cmd} --{long}` shows a default");
        }
    }
}
