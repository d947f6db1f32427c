//! `boardgame simulate`, `boardgame demo` and `boardgame merge`: their
//! arguments and output. The steps (a simulation over a seed range, the
//! merge of its results) are the simulation library's
//! ([`boardgame_sim::simulate`], re-exported here), which the Python binding
//! calls too.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub use boardgame_sim::simulate::*;

use crate::error::CliError;
use crate::games::{GameName, GameOpts, with_game};

/// What `simulate` plays: one game or every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One game.
    One(GameName),
    /// Every game, each with its default number of players.
    All,
}

impl Target {
    fn games(self) -> Vec<GameName> {
        match self {
            Target::One(g) => vec![g],
            Target::All => GameName::ALL.to_vec(),
        }
    }
}

/// The parser of `simulate`'s target: a game's name ([`GameName::ALL`]) or
/// `all`.
fn target_parser() -> impl clap::builder::TypedValueParser<Value = Target> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let games = GameName::ALL.iter().map(|&g| PossibleValue::new(g.cli_name()).help(g.about()));
    let all = PossibleValue::new("all").help("Every game, each with its default number of players");
    PossibleValuesParser::new(games.chain(std::iter::once(all))).try_map(|name: String| {
        if name == "all" {
            return Ok(Target::All);
        }
        GameName::from_cli_name(&name).map(Target::One).ok_or_else(|| format!("unknown game `{name}`"))
    })
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse()
}

/// Arguments of `boardgame simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The game, or `all` for every game with its default player count.
    #[arg(value_parser = target_parser())]
    game: Target,
    #[command(flatten)]
    opts: GameOpts,
    /// Number of games (before sharding).
    #[arg(long, short = 'n', default_value_t = 1000)]
    games: u64,
    /// The agents, comma-separated; the last one listed fills the seats left
    /// (`heuristic,random`: one heuristic agent against random ones). Names:
    /// random, heuristic, ismcts:N, ismcts-h:N (the search with the
    /// engine's heuristic), flatmc:N, flatmc-h:N (flat Monte-Carlo over
    /// the heuristic's rollouts), learned, learned:T (the trained
    /// network, greedy or at a temperature T), learned-ismcts:N (the search
    /// guided by the network) (N iterations per move, or a time like
    /// 200ms). They rotate through the seats from game to
    /// game unless --fixed-seats.
    #[arg(long, short = 'a', default_value = "random")]
    agents: String,
    /// The first game's seed; game i is played from seed + i.
    #[arg(long, short = 's', default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long, short = 't', value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Play only the I-th of K disjoint seed ranges (I from 0), to merge later.
    #[arg(long, value_name = "I/K", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Print mergeable JSON results instead of the table (every field:
    /// docs/simulate-json.md).
    #[arg(long)]
    json: bool,
    /// Agent i always plays seat i (default: agents rotate through the seats).
    #[arg(long)]
    fixed_seats: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Arguments of `boardgame demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Games of each game.
    #[arg(long, short = 'n', default_value_t = 1000)]
    games: u64,
    /// The first game's seed; game i is played from seed + i.
    #[arg(long, short = 's', default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long, short = 't', value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Runs `boardgame demo`: every game with its default configuration, one
/// heuristic agent against random ones where the engine has a heuristic
/// agent (random agents only otherwise), seeds from 0.
///
/// # Errors
/// As [`run`].
pub fn demo(args: DemoArgs) -> Result<(), CliError> {
    let sim = SimulateArgs {
        game: Target::All,
        opts: GameOpts { players: None, config: None },
        games: args.games,
        agents: "random".into(),
        seed: args.seed,
        threads: args.threads,
        shard: None,
        json: false,
        fixed_seats: false,
        quiet: args.quiet,
    };
    let plan: Vec<(GameName, String)> = GameName::ALL
        .iter()
        .map(|&g| {
            let has_heuristic = with_game!(g, G => <G as boardgame_kit::Bots>::heuristic_agent().is_some());
            (g, if has_heuristic { "heuristic,random" } else { "random" }.to_string())
        })
        .collect();
    run_plan(&sim, &plan)
}

/// Arguments of `boardgame merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// JSON results of `simulate --json` of the same game, config and agents
    /// (each file at most 16 MiB).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the merged JSON instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs `boardgame simulate`.
///
/// # Errors
/// Usage errors for bad arguments, runtime errors when a game fails.
pub fn run(args: SimulateArgs) -> Result<(), CliError> {
    let targets = args.game.targets_checked(&args)?;
    let plan: Vec<(GameName, String)> = targets.into_iter().map(|g| (g, args.agents.clone())).collect();
    run_plan(&args, &plan)
}

/// Simulates each game of `plan` with its agents, printing a table (or JSON)
/// per game.
fn run_plan(args: &SimulateArgs, plan: &[(GameName, String)]) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    for (i, (game, agents)) in plan.iter().enumerate() {
        let started = Instant::now();
        let spec = SimSpec {
            game: *game,
            players: args.opts.players,
            config: args.opts.config.clone(),
            games: args.games,
            agents: agents.clone(),
            seed: args.seed,
            threads: threads(args),
            shard: args.shard,
            fixed_seats: args.fixed_seats,
        };
        // drawn at its end when finished, cleared if an error returns first
        let bar = Ticker::new(game.cli_name(), args.quiet);
        let results = simulate_spec_with(&spec, &bar)?;
        bar.finish();
        let secs = started.elapsed().as_secs_f64();
        if args.json {
            writeln!(stdout, "{}", to_json(&results))?;
        } else {
            if i > 0 {
                writeln!(stdout)?;
            }
            write!(stdout, "{}", table(&results))?;
            let threads = threads(args);
            let rate = if secs > 0.0 { results.games as f64 / secs } else { 0.0 };
            writeln!(
                stdout,
                "{} games in {secs:.2} s on {threads} thread{} ({rate:.0} games/s)",
                results.games,
                if threads == 1 { "" } else { "s" }
            )?;
        }
    }
    Ok(())
}

impl Target {
    fn targets_checked(self, args: &SimulateArgs) -> Result<Vec<GameName>, CliError> {
        let games = self.games();
        if games.len() > 1 {
            if args.opts.players.is_some() || args.opts.config.is_some() {
                return Err(CliError::Usage("--players and --config need a single game, not `all`".into()));
            }
            if args.json {
                return Err(CliError::Usage("--json needs a single game, not `all`".into()));
            }
        }
        if games.is_empty() {
            return Err(CliError::Runtime("no game is available in this build".into()));
        }
        Ok(games)
    }
}

fn threads(args: &SimulateArgs) -> usize {
    args.threads.map_or_else(every_core, |t| t as usize)
}

/// The default of every command's `--threads`: one worker per core (at
/// most [`MAX_THREADS`]).
pub fn every_core() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(MAX_THREADS)
}

/// Runs `boardgame merge`.
///
/// # Errors
/// Runtime errors for unreadable files or results that do not merge.
pub fn merge(args: MergeArgs) -> Result<(), CliError> {
    let mut acc: Option<SimResults> = None;
    for path in &args.files {
        let text = crate::input::read_capped(path, crate::input::MAX_RESULTS_BYTES, "result file")?;
        merge_text(&mut acc, &text).map_err(|e| CliError::Runtime(format!("{}: {e}", path.display())))?;
    }
    let Some(r) = acc else {
        return Err(CliError::Usage("no files to merge".into()));
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", to_json(&r))?;
    } else {
        write!(out, "{}", table(&r))?;
    }
    Ok(())
}

/// A progress bar of games on stderr that ends on its true count. It shows
/// nothing until the run says how many games it plays (no `0/0` frame);
/// [`Ticker::finish`] draws the last count (`40/40 games, 2s`) and leaves
/// it; a ticker dropped unfinished (the run failed) is cleared, so neither
/// a stale count nor a false `40/40` stands above the error.
///
/// Why a plain `indicatif` bar stopped at `39/40`: `inc` draws only when
/// its rate limit allows (a burst, then one draw a millisecond), so the
/// last games are often not drawn, and `finish_and_clear` then removed the
/// bar without ever drawing the end.
pub struct Ticker {
    bar: ProgressBar,
    /// Where the bar draws once its length is known; `None`: hidden.
    target: Mutex<Option<ProgressDrawTarget>>,
}

impl Ticker {
    /// A bar named `prefix` on stderr; hidden when `quiet` or when stderr is
    /// no terminal (so logs and pipes stay clean).
    pub fn new(prefix: &'static str, quiet: bool) -> Ticker {
        let target = (!quiet && std::io::stderr().is_terminal()).then(ProgressDrawTarget::stderr);
        Ticker::drawing_to(prefix, target)
    }

    /// A bar named `prefix` that draws to `target` (`None`: nowhere) once
    /// [`Ticker::start`] gives its length.
    pub fn drawing_to(prefix: &'static str, target: Option<ProgressDrawTarget>) -> Ticker {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} games, {elapsed} (eta {eta})")
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_prefix(prefix);
        Ticker { bar, target: Mutex::new(target) }
    }

    /// `games` games will be played: the bar shows, at 0.
    pub fn start(&self, games: u64) {
        self.bar.set_length(games);
        if let Some(target) = self.target.lock().unwrap_or_else(|p| p.into_inner()).take() {
            self.bar.set_draw_target(target);
        }
        self.bar.tick();
    }

    /// One more game was played.
    pub fn tick(&self) {
        self.bar.inc(1);
    }

    /// Every game was played: the bar is drawn at its end and left on the
    /// screen.
    pub fn finish(self) {
        self.bar.finish();
    }
}

impl Drop for Ticker {
    /// Clears a bar left unfinished (after [`Ticker::finish`], a no-op).
    fn drop(&mut self) {
        if !self.bar.is_finished() {
            self.bar.finish_and_clear();
        }
    }
}

impl Progress for Ticker {
    fn start(&self, games: u64) {
        Ticker::start(self, games);
    }

    fn game(&self) {
        self.tick();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use indicatif::{ProgressDrawTarget, TermLike};

    use super::Ticker;

    /// A terminal in memory: the rows on the screen and the cursor.
    #[derive(Debug, Default)]
    struct Screen {
        rows: Vec<String>,
        row: usize,
        col: usize,
    }

    #[derive(Debug, Clone, Default)]
    struct Term(Arc<Mutex<Screen>>);

    impl Term {
        fn text(&self) -> String {
            let s = self.0.lock().unwrap();
            s.rows.iter().map(|r| r.trim_end()).filter(|r| !r.is_empty()).collect::<Vec<_>>().join("\n")
        }

        fn target(&self) -> ProgressDrawTarget {
            // No rate limit: every change is drawn.
            ProgressDrawTarget::term_like(Box::new(self.clone()))
        }
    }

    impl TermLike for Term {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
            let mut s = self.0.lock().unwrap();
            s.row = s.row.saturating_sub(n);
            Ok(())
        }
        fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
            self.0.lock().unwrap().row += n;
            Ok(())
        }
        fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
            self.0.lock().unwrap().col += n;
            Ok(())
        }
        fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
            let mut s = self.0.lock().unwrap();
            s.col = s.col.saturating_sub(n);
            Ok(())
        }
        fn write_line(&self, line: &str) -> std::io::Result<()> {
            self.write_str(line)?;
            let mut s = self.0.lock().unwrap();
            s.row += 1;
            s.col = 0;
            Ok(())
        }
        fn write_str(&self, text: &str) -> std::io::Result<()> {
            let mut s = self.0.lock().unwrap();
            let (row, col) = (s.row, s.col);
            if s.rows.len() <= row {
                s.rows.resize(row + 1, String::new());
            }
            let mut line: Vec<char> = s.rows[row].chars().collect();
            line.resize(line.len().max(col), ' ');
            line.truncate(col);
            line.extend(text.chars());
            s.rows[row] = line.into_iter().collect();
            s.col = col + text.chars().count();
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            let mut s = self.0.lock().unwrap();
            let row = s.row;
            if let Some(r) = s.rows.get_mut(row) {
                r.clear();
            }
            s.col = 0;
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The bar ends on its true count: 40 games played in a burst (whose
    /// last ticks the bar's rate limit does not draw) end on `40/40`; a
    /// run that fails after 39 games leaves no bar; nothing shows before
    /// the length is known.
    #[test]
    fn a_ticker_ends_on_its_true_count() {
        let term = Term::default();
        let ticker = Ticker::drawing_to("caravan", Some(term.target()));
        assert_eq!(term.text(), "", "no 0/0 frame before the length is known");
        ticker.start(40);
        assert!(term.text().starts_with("caravan [") && term.text().contains(" 0/40 games"), "{}", term.text());
        for _ in 0..40 {
            ticker.tick();
        }
        ticker.finish();
        let end = term.text();
        assert!(end.starts_with("caravan [==============================] 40/40 games"), "{end}");

        let term = Term::default();
        let ticker = Ticker::drawing_to("korovan", Some(term.target()));
        ticker.start(40);
        for _ in 0..39 {
            ticker.tick();
        }
        // the run fails at its 40th game: the ticker is dropped unfinished
        drop(ticker);
        assert_eq!(term.text(), "", "a failed run leaves neither 39/40 nor a false 40/40 above its error");
        // a hidden ticker (quiet, or no terminal) counts without drawing
        let hidden = Ticker::drawing_to("nim", None);
        hidden.start(3);
        hidden.tick();
        drop(hidden);
    }
}
