//! `boardgame replay FILE [--step]`: validates a record and prints the game.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use boardgame_kit::{GameRecord, Lang, RecordError, RecordHeader, Turn, Viewer};
use clap::Args;

use crate::error::CliError;
use crate::games::{Engine, GameName, with_game};

/// Arguments of `boardgame replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A game record (JSON), as written by `play --record` (at most 64 MiB).
    file: PathBuf,
    /// Render the whole state after every action (and, on a terminal, wait
    /// for Enter between actions; `q` stops).
    #[arg(long)]
    step: bool,
    /// The language of the words each action is told in: `en` or `ru`
    /// (by default the one of the environment's `LC_ALL`, `LC_MESSAGES` or
    /// `LANG`, else English, as `play`); the notation follows in brackets.
    #[arg(long, value_parser = crate::lang::parse_lang)]
    lang: Option<Lang>,
}

/// Runs `boardgame replay`.
///
/// # Errors
/// A runtime error naming the step and the reason when the record is
/// corrupted.
pub fn run(args: ReplayArgs) -> Result<(), CliError> {
    let text = crate::input::read_capped(&args.file, crate::input::MAX_RECORD_BYTES, "record")?;
    let name = args.file.display().to_string();
    let header = RecordHeader::from_json(&text).map_err(|e| CliError::Runtime(explain(&name, &text, &e)))?;
    let game = GameName::from_engine(&header.engine)
        .ok_or_else(|| CliError::Runtime(format!("{name}: unknown engine `{}` in the record", header.engine)))?;
    let lang = args.lang.unwrap_or_else(crate::lang::env_lang);
    let interactive = args.step && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    with_game!(game, G => replay::<G>(&name, &text, args.step, interactive, lang))
}

/// The error message for a record that does not replay: the file, the step
/// where known, and the reason. A file cut short (its JSON ends early) names
/// the first step it lost: the first id not complete before the cut, or
/// step 0 when it ends before its list of actions.
fn explain(name: &str, text: &str, e: &RecordError) -> String {
    if let RecordError::Json(reason) = e
        && reason.contains("EOF")
    {
        return match cut_step(text) {
            Some((step, false)) => format!("{name}: step {step}: the record is cut off before this action ({reason})"),
            Some((step, true)) => {
                format!("{name}: step {step}: the record is cut off after its last action ({reason})")
            }
            None => format!("{name}: step 0: the record is cut off before its list of actions ({reason})"),
        };
    }
    format!("{name}: {e}")
}

/// Where a cut-off `text` ends relative to its `"actions"` list: the number
/// of complete action ids before the cut (the first lost step), and whether
/// the list itself was closed. `None` when the list never starts.
fn cut_step(text: &str) -> Option<(usize, bool)> {
    let start = text.find("\"actions\"")?;
    let rest = &text[start + "\"actions\"".len()..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('[')?;
    if let Some(end) = rest.find(']') {
        let ids = &rest[..end];
        let n = if ids.trim().is_empty() { 0 } else { ids.matches(',').count() + 1 };
        return Some((n, true));
    }
    // Every id followed by a comma is complete; a last id without one may
    // have been cut.
    Some((rest.matches(',').count(), false))
}

fn replay<G: Engine>(name: &str, text: &str, step: bool, interactive: bool, lang: Lang) -> Result<(), CliError> {
    let record =
        GameRecord::<G::Config>::from_json::<G>(text).map_err(|e| CliError::Runtime(explain(name, text, &e)))?;
    // Validate everything before printing anything.
    let end = record.replay::<G>().map_err(|e| CliError::Runtime(explain(name, text, &e)))?;
    let mut out = std::io::stdout().lock();
    let seats = end.num_players();
    let config = serde_json::to_string(&record.config).unwrap_or_default();
    writeln!(out, "{}: {} with {seats} players, config {config}", name, G::CLI_NAME)?;
    if let Some(seed) = record.seed {
        writeln!(out, "seed {seed}")?;
    }
    for (s, a) in record.agents.iter().enumerate() {
        writeln!(out, "  seat {s}: {a}")?;
    }
    let start = G::new_game(&record.config).map_err(|e| CliError::Runtime(e.to_string()))?;
    if step {
        writeln!(out, "\n{}", start.render())?;
    }
    // The state before each action, for its words: a replay shows
    // everything, so an action is told as its actor (or, for chance, the
    // first seat that sees it) reads it.
    let mut before = start.clone();
    let mut stdin = std::io::stdin().lock();
    let mut stop = false;
    let mut io_error: Option<std::io::Error> = None;
    let width = record.actions.len().saturating_sub(1).to_string().len();
    record
        .replay_with::<G>(|i, action, state| {
            if stop || io_error.is_some() {
                return;
            }
            let turn = before.turn();
            let who = match turn {
                Turn::Player(p) => {
                    let agent = record.agents.get(p).map(|a| format!(" ({a})")).unwrap_or_default();
                    format!("seat {p}{agent}")
                }
                Turn::Chance => "chance".to_string(),
                Turn::Terminal => "?".to_string(),
            };
            let viewer = match turn {
                Turn::Player(p) => Viewer::Seat(p),
                _ => (0..seats)
                    .map(Viewer::Seat)
                    .find(|&v| before.view_action(v, action).is_some())
                    .unwrap_or(Viewer::Spectator),
            };
            let words = before.words(viewer, action, lang);
            before = state.clone();
            let mut write = || -> std::io::Result<()> {
                writeln!(out, "step {i:>width$}  {who}: {words}  [{action}]")?;
                if step {
                    writeln!(out, "{}", state.render())?;
                    if interactive {
                        write!(out, "[Enter: next, q: stop] ")?;
                        out.flush()?;
                        let mut line = String::new();
                        if stdin.read_line(&mut line)? == 0 || line.trim() == "q" {
                            stop = true;
                        }
                    }
                }
                Ok(())
            };
            if let Err(e) = write() {
                io_error = Some(e);
            }
        })
        .map_err(|e| CliError::Runtime(explain(name, text, &e)))?;
    if let Some(e) = io_error {
        return Err(e.into());
    }
    if stop {
        return Ok(());
    }
    if !step {
        writeln!(out, "\n{}", end.render())?;
    }
    match end.outcome() {
        Some(outcome) => {
            let scores: Vec<String> = (0..seats).map(|s| format!("seat {s}: {}", end.score(s))).collect();
            let winners: Vec<String> = outcome.winners().iter().map(|s| s.to_string()).collect();
            let kind = end.end_kind().map(|k| format!(" ({k} end)")).unwrap_or_default();
            writeln!(
                out,
                "The game is over after {} actions{kind}. Scores: {}",
                record.actions.len(),
                scores.join(", ")
            )?;
            writeln!(out, "Winner(s): seat {}", winners.join(", "))?;
        }
        None => writeln!(out, "The record stops after {} actions, before the end of the game.", record.actions.len())?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_names_the_first_lost_step() {
        assert_eq!(cut_step(r#"{"engine": "x", "actions": [1, 2, 3"#), Some((2, false)));
        assert_eq!(cut_step(r#"{"engine": "x", "actions": [1, 2, "#), Some((2, false)));
        assert_eq!(cut_step(r#"{"engine": "x", "actions": ["#), Some((0, false)));
        assert_eq!(cut_step(r#"{"engine": "x", "actions": [1, 2, 3]"#), Some((3, true)));
        assert_eq!(cut_step(r#"{"engine": "x", "actions": []"#), Some((0, true)));
        assert_eq!(cut_step(r#"{"engine": "x", "conf"#), None);
    }
}
