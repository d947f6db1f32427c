//! `boardgame play`: a person plays in the terminal against bots.
//!
//! The person sees only their own view (the engine's observation, rendered
//! by the engine) and the actions others play that they may see. The game
//! uses the kit driver's seed scheme (chance from stream
//! `CHANCE_STREAM`, seat `s` from `AGENT_STREAM_BASE + s`), so a record's
//! seed and agents say how the bots and the dice behaved.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use boardgame_kit::{Agent, Driver, GameRng, Turn, Viewer};
use clap::Args;

use crate::agents;
use crate::error::CliError;
use crate::games::{CliGame, GameName, GameOpts, build_config, seats_of, with_game};

/// Arguments of `boardgame play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game.
    game: GameName,
    #[command(flatten)]
    opts: GameOpts,
    /// Your seat, from 0.
    #[arg(long, default_value_t = 0)]
    seat: usize,
    /// The bots, in seat order (your seat skipped), comma-separated; the
    /// last one listed fills the seats left. Names: random, heuristic,
    /// ismcts:N, flatmc:N (N iterations per move, or a time like 200ms).
    #[arg(long, default_value = "random")]
    agents: String,
    /// The game's seed (random when omitted; printed so you can replay it).
    #[arg(long)]
    seed: Option<u64>,
    /// Show your view after every action of the others too (not only when
    /// it is your turn).
    #[arg(long)]
    watch: bool,
    /// Write the game record (JSON) here when the game ends or you quit.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

/// Runs `boardgame play` on stdin/stdout.
///
/// # Errors
/// Usage errors for bad arguments; runtime errors for I/O.
pub fn run(args: PlayArgs) -> Result<(), CliError> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    with_game!(args.game, G => session::<G>(&args, &mut stdin.lock(), &mut stdout.lock()))
}

const HELP: &str = "Type the number of an action or its notation. Other commands: \
`view` shows the game again, `help` shows this, `quit` (or end of input) stops the game.";

/// The width the list of actions is laid out in.
const LINE_WIDTH: usize = 100;

enum Input<A> {
    Act(A),
    Quit,
}

fn session<G: CliGame>(args: &PlayArgs, input: &mut impl BufRead, out: &mut impl Write) -> Result<(), CliError> {
    let config = build_config::<G>(args.opts.players, args.opts.config.as_deref())?;
    let seats = seats_of::<G>(&config);
    let me = args.seat;
    if me >= seats {
        return Err(CliError::Usage(format!("--seat must be below {seats} (seats 0..{seats}), got {me}")));
    }
    let specs = agents::fit(&agents::parse_list(&args.agents)?, seats - 1, "the game has bots for")?;
    let mut bots: Vec<Option<Box<dyn Agent<G>>>> = Vec::with_capacity(seats);
    let mut names = Vec::with_capacity(seats);
    let mut spec_iter = specs.into_iter();
    for seat in 0..seats {
        if seat == me {
            bots.push(None);
            names.push("human".to_string());
        } else if let Some(spec) = spec_iter.next() {
            let mut agent = agents::build::<G>(spec)?;
            agent.reset();
            names.push(agent.name());
            bots.push(Some(agent));
        }
    }
    // Whatever happens in the game (the end, a quit, an error), the record
    // of what was played is written: the file is created before the game
    // starts (and before anything is shown), so a path that cannot be
    // written is refused at once, not after the game.
    let mut file = match &args.record {
        Some(path) => Some((
            path,
            std::fs::File::create(path).map_err(|e| {
                CliError::Runtime(format!(
                    "cannot write the record to {}: {e} (checked before the game starts)",
                    path.display()
                ))
            })?,
        )),
        None => None,
    };
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let mut driver = Driver::<G>::new(&config, seed).map_err(|e| CliError::Usage(e.to_string()))?;
    driver.set_agent_names(names.clone());

    writeln!(out, "{} with {seats} players, seed {seed}; you are seat {me}.", G::CLI_NAME)?;
    for (s, n) in names.iter().enumerate() {
        if s != me {
            writeln!(out, "  seat {s}: {n}")?;
        }
    }
    writeln!(out, "{HELP}")?;

    let mut legal = G::ActionList::default();
    let bound = G::max_game_length(&config);
    let viewer = Viewer::Seat(me);
    let mut game = || -> Result<bool, CliError> {
        loop {
            if driver.steps() > bound {
                return Err(CliError::Runtime(format!("the game did not end within its bound of {bound} actions")));
            }
            let before = driver.state().clone();
            match driver.turn() {
                Turn::Terminal => return Ok(false),
                Turn::Chance => {
                    let Some(a) = driver.step_chance() else {
                        return Err(CliError::Runtime("a chance node listed no outcome".into()));
                    };
                    if before.view_action(viewer, a).is_some() {
                        writeln!(out, "chance: {a}")?;
                    }
                }
                Turn::Player(seat) if seat == me => {
                    driver.state().legal_actions(&mut legal);
                    match ask::<G>(driver.state(), me, &legal, input, out)? {
                        Input::Act(a) => {
                            driver.apply(a).map_err(|e| CliError::Runtime(e.to_string()))?;
                            writeln!(out, "seat {me} (you): {a}")?;
                        }
                        Input::Quit => return Ok(true),
                    }
                }
                Turn::Player(seat) => {
                    let Some(Some(bot)) = bots.get_mut(seat) else {
                        return Err(CliError::Runtime(format!("no agent for seat {seat}")));
                    };
                    let a = driver.step_agent(&mut **bot).map_err(|e| CliError::Runtime(e.to_string()))?;
                    // what seat `me` learns of it (K-8.1: a round's public end shows)
                    match before.view_action(viewer, a) {
                        Some(a) => writeln!(out, "seat {seat} ({}): {a}", bot.name())?,
                        None => writeln!(out, "seat {seat} ({}) played a hidden action", bot.name())?,
                    }
                }
            }
            let mine = before.turn() == Turn::Player(me);
            if args.watch && !mine && !driver.state().is_terminal() {
                writeln!(out, "{}", driver.state().render_view(me))?;
            }
        }
    };
    let result = game();
    let state = driver.state().clone();
    let record =
        driver.into_record().unwrap_or_else(|| boardgame_kit::GameRecord::new::<G>(config.clone(), Some(seed)));
    if let Some((path, file)) = &mut file {
        file.write_all((record.to_json() + "\n").as_bytes())
            .map_err(|e| CliError::Runtime(format!("cannot write the record to {}: {e}", path.display())))?;
    }
    let quit = result?;
    if quit {
        writeln!(out, "You left the game after {} actions.", record.actions.len())?;
    } else {
        writeln!(out, "\nThe game is over.\n{}", state.render_view(me))?;
        if let Some(outcome) = state.outcome() {
            let scores: Vec<String> = (0..seats).map(|s| format!("seat {s}: {}", state.score(s))).collect();
            writeln!(out, "Scores: {}", scores.join(", "))?;
            let winners: Vec<String> = outcome.winners().iter().map(|s| s.to_string()).collect();
            let verdict = if outcome.is_winner(me) {
                if outcome.winners().len() > 1 { "You share the win." } else { "You win!" }
            } else {
                "You lose."
            };
            writeln!(out, "Winner(s): seat {}. {verdict}", winners.join(", "))?;
        }
    }
    if let Some(path) = &args.record {
        writeln!(out, "Record written to {}.", path.display())?;
    }
    Ok(())
}

/// Shows the person's view and the numbered legal actions, and reads until
/// the person gives a legal action or quits.
fn ask<G: CliGame>(
    state: &G,
    me: usize,
    legal: &G::ActionList,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Input<G::Action>, CliError> {
    let show = |out: &mut dyn Write| -> std::io::Result<()> {
        writeln!(out, "\n{}", state.render_view(me))?;
        writeln!(out, "Your actions:")?;
        let items: Vec<String> = legal.iter().enumerate().map(|(i, a)| format!("{:>3}) {a}", i + 1)).collect();
        let width = items.iter().map(String::len).max().unwrap_or(0) + 2;
        let columns = (LINE_WIDTH / width).max(1);
        for line in items.chunks(columns) {
            let cells: Vec<String> = line.iter().map(|c| format!("{c:<width$}")).collect();
            writeln!(out, "  {}", cells.concat().trim_end())?;
        }
        Ok(())
    };
    show(out)?;
    let mut line = String::new();
    loop {
        write!(out, "seat {me}> ")?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(out, "\nEnd of input: leaving the game.")?;
            return Ok(Input::Quit);
        }
        let text = line.trim();
        match text {
            "" => continue,
            "quit" | "exit" | "q" => return Ok(Input::Quit),
            "help" | "?" => {
                writeln!(out, "{HELP}")?;
                continue;
            }
            "view" | "show" => {
                show(out)?;
                continue;
            }
            _ => {}
        }
        if let Ok(n) = text.parse::<i64>() {
            match usize::try_from(n).ok().and_then(|n| n.checked_sub(1)).and_then(|i| legal.get(i)) {
                Some(&a) => return Ok(Input::Act(a)),
                None => {
                    writeln!(out, "There is no action {n}: choose 1 to {}.", legal.len())?;
                    continue;
                }
            }
        }
        match text.parse::<G::Action>() {
            Ok(a) => match state.validate(a) {
                Ok(()) => return Ok(Input::Act(a)),
                Err(e) => writeln!(out, "Not legal now: {e}.")?,
            },
            Err(e) => writeln!(out, "Not a command or an action: {e}. Type `help` for help.")?,
        }
    }
}

fn fresh_seed() -> u64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    // Mix so that consecutive calls give unrelated-looking seeds.
    GameRng::new(nanos ^ u64::from(std::process::id())).next_u64() >> 16
}
