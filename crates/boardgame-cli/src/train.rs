//! `boardgame train`: a thin launcher of the PyTorch trainers.
//!
//! It runs `<python> -m korovan_caravan.learn.expert_iteration ARGS...`
//! (or, when the first argument names a trainer, `boardgame train ppo
//! ARGS...`, that trainer's module: [`TRAINERS`]) with every other argument
//! after `train` passed through verbatim and the standard streams
//! inherited, and exits with the trainer's exit code (0 done, 2 a usage
//! error, 1 a run error). `<python>` is the environment
//! variable `BOARDGAME_PYTHON` when set and not empty, else `python3`.
//! Training itself (self-play in Rust through the native module, the
//! network in PyTorch) is the Python package's: docs/learning.md.

use std::ffi::{OsStr, OsString};
use std::process::{Command, ExitCode, ExitStatus};

use clap::Args;

use crate::error::CliError;

/// The default trainer's module, run with `python -m`.
pub const MODULE: &str = "korovan_caravan.learn.expert_iteration";

/// The trainers a first argument may name, with their modules: expert
/// iteration (Caravan's committed network) and PPO against built-in seats
/// (Korovan's).
pub const TRAINERS: [(&str, &str); 2] = [("expert-iteration", MODULE), ("ppo", "korovan_caravan.learn.ppo")];

/// The module to run and the arguments it gets: a first argument that
/// names a trainer ([`TRAINERS`]) chooses it and is not passed on; any
/// other first argument (an option, or none) runs expert iteration with
/// every argument.
fn trainer(args: &[OsString]) -> (&'static str, &[OsString]) {
    match args.split_first() {
        Some((first, rest)) => match TRAINERS.iter().find(|(name, _)| first.as_os_str() == OsStr::new(name)) {
            Some((_, module)) => (module, rest),
            None => (MODULE, args),
        },
        None => (MODULE, args),
    }
}

/// The environment variable naming the Python interpreter.
pub const PYTHON_VAR: &str = "BOARDGAME_PYTHON";

/// The interpreter when `BOARDGAME_PYTHON` is unset or empty.
pub const DEFAULT_PYTHON: &str = "python3";

/// What `boardgame train --help` adds below the usage.
pub const AFTER_HELP: &str = "\
Runs `$BOARDGAME_PYTHON -m korovan_caravan.learn.expert_iteration ARGS...` (BOARDGAME_PYTHON
unset or empty: python3) with every argument after `train` passed through unchanged, and exits with
the trainer's exit code (2 a usage error, 1 a run error). A first argument `ppo` runs
`korovan_caravan.learn.ppo` with the rest instead (`expert-iteration` names the default). The
trainer's own options: `boardgame train -- --help`, `boardgame train ppo --help`. It needs the Python package and torch in that interpreter
(`pip install ./python torch`); without the package, Python's ModuleNotFoundError is printed.
See docs/learning.md.

Examples:
  boardgame train --game caravan --out runs/caravan --rounds 20 --games 64 --iterations 64 --threads 2
  boardgame train ppo --out runs/korovan-ppo --updates 10000 --lr 3e-4 --ent-coef 0.01";

/// Arguments of `boardgame train`: everything after it, for the trainer.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The trainer's arguments, passed through unchanged (`--game
    /// caravan --out runs/caravan …`; its options: `boardgame train --
    /// --help`), after an optional first word naming the trainer (`ppo`,
    /// `expert-iteration`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
    args: Vec<OsString>,
}

/// Why the trainer did not run to an exit code.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The interpreter could not be started (not found, not executable…).
    #[error(
        "cannot start the Python interpreter `{python}` ({origin}): {source}; set {PYTHON_VAR} to a Python 3 \
         with the package and torch installed (`pip install ./python torch`, see docs/learning.md)"
    )]
    Start {
        /// The interpreter, as named.
        python: String,
        /// Where the name came from: the variable or the default.
        origin: &'static str,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The trainer ended without an exit code: killed by a signal.
    #[error("the trainer (`{python} -m {module}`) was killed by {}", signal_name(*.signal))]
    Killed {
        /// The interpreter, as named.
        python: String,
        /// The trainer's module.
        module: &'static str,
        /// The signal's number, where the platform reports one.
        signal: Option<i32>,
    },
}

fn signal_name(signal: Option<i32>) -> String {
    signal.map_or_else(|| "a signal".to_string(), |s| format!("signal {s}"))
}

impl From<LaunchError> for CliError {
    fn from(e: LaunchError) -> Self {
        CliError::Runtime(e.to_string())
    }
}

/// Runs `boardgame train`: the trainer, to its exit code.
///
/// # Errors
/// [`LaunchError::Start`] when the interpreter cannot be started,
/// [`LaunchError::Killed`] when the trainer is killed by a signal (both
/// runtime errors, exit code 1).
pub fn run(args: TrainArgs) -> Result<ExitCode, CliError> {
    let from_env = std::env::var_os(PYTHON_VAR).filter(|p| !p.is_empty());
    let origin = if from_env.is_some() { PYTHON_VAR } else { "the default; BOARDGAME_PYTHON is unset or empty" };
    let python = from_env.unwrap_or_else(|| DEFAULT_PYTHON.into());
    let (module, rest) = trainer(&args.args);
    let status = launch(&python, module, rest).map_err(|source| LaunchError::Start {
        python: python.to_string_lossy().into_owned(),
        origin,
        source,
    })?;
    exit_code(status).ok_or_else(|| {
        LaunchError::Killed { python: python.to_string_lossy().into_owned(), module, signal: signal_of(status) }.into()
    })
}

/// Runs `python -m module args…`, the standard streams inherited, and
/// waits for it.
fn launch(python: &OsStr, module: &str, args: &[OsString]) -> std::io::Result<ExitStatus> {
    Command::new(python).arg("-m").arg(module).args(args).status()
}

/// The trainer's exit code as ours; `None` when it has none (a signal). A
/// code outside 0–255 (other platforms) is a failure, 1.
fn exit_code(status: ExitStatus) -> Option<ExitCode> {
    let code = status.code()?;
    Some(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

#[cfg(unix)]
fn signal_of(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal_of(_: ExitStatus) -> Option<i32> {
    None
}
