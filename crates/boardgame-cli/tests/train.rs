//! `boardgame train`, the thin launcher of the PyTorch trainers:
//! it runs `$BOARDGAME_PYTHON -m korovan_caravan.learn.expert_iteration
//! ARGS...`. No test needs Python: `BOARDGAME_PYTHON` names a missing
//! file or a small shell script that stands in for the interpreter.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Mutex;

const MODULE: &str = "korovan_caravan.learn.expert_iteration";

/// One test at a time: a test writes an executable script, and a process
/// spawned by another thread while that file is open for writing would make
/// running it fail with "text file busy" (ETXTBSY).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `boardgame args…` with `BOARDGAME_PYTHON` set to `python`, and
/// `envs` on top.
fn train(python: &str, args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_boardgame"))
        .args(args)
        .env("LC_ALL", "C")
        .env("BOARDGAME_PYTHON", python)
        .envs(envs.iter().copied())
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory in the test scratch space.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("boardgame-cli-tests")
        .join(format!("{}-train-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A stand-in interpreter: a shell script with `body`, executable.
#[cfg(unix)]
fn fake_python(dir: &std::path::Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("python");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write the script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// A stand-in interpreter that writes its arguments, one a line, to the
/// file `$ARGV_OUT`, prints a line on each stream and exits with 3.
#[cfg(unix)]
const RECORD_ARGS: &str = r#"for a in "$@"; do printf '%s\n' "$a"; done > "$ARGV_OUT"
echo "trainer stdout"
echo "trainer stderr" >&2
exit 3"#;

#[test]
fn a_missing_interpreter_is_an_error_that_names_it_and_the_variable() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let o = train("/nonexistent/python", &["train", "--game", "caravan"], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.starts_with("error: cannot start the Python interpreter `/nonexistent/python`"), "{err}");
    assert!(err.contains("BOARDGAME_PYTHON") && err.contains("pip install ./python torch"), "{err}");
    assert!(err.contains("docs/learning.md"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
}

#[cfg(unix)]
#[test]
fn the_arguments_pass_through_verbatim_and_the_exit_code_comes_back() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("argv");
    let python = fake_python(&dir, RECORD_ARGS);
    let argv_out = dir.join("argv");
    const PPO: &str = "korovan_caravan.learn.ppo";
    // (the command line, the module run, the arguments it gets)
    let cases: [(&[&str], &str, &[&str]); 9] = [
        (
            &["train", "--game", "caravan", "--out", "x", "--lr", "1e-3"],
            MODULE,
            &["--game", "caravan", "--out", "x", "--lr", "1e-3"],
        ),
        // `--` hands the trainer its own `--help`; after the first trainer
        // argument, so does a bare `--help`.
        (&["train", "--", "--help"], MODULE, &["--help"]),
        (&["train", "--game", "korovan", "--help"], MODULE, &["--game", "korovan", "--help"]),
        // Spaces, an empty argument and a lone `-` stay as they are.
        (&["train", "--out", "a b", "", "-"], MODULE, &["--out", "a b", "", "-"]),
        // A first argument naming a trainer chooses its module and is not passed on.
        (&["train", "ppo", "--out", "r", "--updates", "3"], PPO, &["--out", "r", "--updates", "3"]),
        (&["train", "ppo", "--help"], PPO, &["--help"]),
        (&["train", "expert-iteration", "--game", "caravan"], MODULE, &["--game", "caravan"]),
        // Only the first argument names one: elsewhere `ppo` is the trainer's.
        (&["train", "--out", "ppo"], MODULE, &["--out", "ppo"]),
        (&["train", "PPO"], MODULE, &["PPO"]),
    ];
    for (args, module, passed) in cases {
        let _ = std::fs::remove_file(&argv_out);
        let o = train(python.to_str().unwrap(), args, &[("ARGV_OUT", argv_out.to_str().unwrap())]);
        assert_eq!(o.status.code(), Some(3), "{args:?}: the trainer's exit code: {}", stderr(&o));
        // The standard streams are the trainer's.
        assert_eq!(String::from_utf8_lossy(&o.stdout), "trainer stdout\n");
        assert_eq!(stderr(&o), "trainer stderr\n");
        let got = std::fs::read_to_string(&argv_out).expect("the stand-in ran");
        let mut expected = vec!["-m", module];
        expected.extend_from_slice(passed);
        assert_eq!(got.lines().collect::<Vec<_>>(), expected, "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn the_trainers_success_and_usage_error_are_the_commands() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("codes");
    let python = fake_python(&dir, r#"exit "$CODE""#);
    for code in [0, 1, 2] {
        let o = train(python.to_str().unwrap(), &["train"], &[("CODE", &code.to_string())]);
        assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
        assert_eq!(stderr(&o), "", "nothing of the launcher's own");
    }
}

#[cfg(unix)]
#[test]
fn a_trainer_killed_by_a_signal_is_an_error_that_says_so() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("signal");
    let python = fake_python(&dir, "kill -9 $$");
    for (args, module) in
        [(&["train", "--game", "caravan"][..], MODULE), (&["train", "ppo"][..], "korovan_caravan.learn.ppo")]
    {
        let o = train(python.to_str().unwrap(), args, &[]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: the trainer (`"), "{err}");
        // the error names the module that ran
        assert!(err.contains(&format!("-m {module}`) was killed by signal 9")), "{err}");
    }
}

#[test]
fn the_help_says_what_it_runs_and_where_it_is_documented() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // The launcher's own help, whatever the interpreter: it is not run.
    let o = train("/nonexistent/python", &["train", "--help"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = String::from_utf8_lossy(&o.stdout);
    for needle in [
        MODULE,
        "korovan_caravan.learn.ppo",
        "docs/learning.md",
        "BOARDGAME_PYTHON",
        "python3",
        "boardgame train -- --help",
        "boardgame train ppo --help",
    ] {
        assert!(help.contains(needle), "`train --help` lacks {needle}: {help}");
    }
}
