//! `boardgame perft`: counts of action sequences per depth, with the kit's
//! [`boardgame_kit::perft`].

use std::io::Write;
use std::time::Instant;

use boardgame_kit::{AGENT_STREAM_BASE, Agent, CHANCE_STREAM, GameRng, RandomAgent, Turn, sample_chance};
use clap::Args;

use crate::error::CliError;
use crate::games::{CliGame, GameName, GameOpts, build_config, with_game};

/// Arguments of `boardgame perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The game.
    game: GameName,
    #[command(flatten)]
    opts: GameOpts,
    /// Count sequences of 1 to D actions (chance outcomes count as actions).
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(0..=64))]
    depth: u32,
    /// Start from the game of this seed between random agents (the game
    /// `simulate --seed X --games 1 --fixed-seats` plays), at its first
    /// decision after --moves actions. Without it: the initial position.
    #[arg(long, short = 's')]
    seed: Option<u64>,
    /// With --seed: play at least this many actions first.
    #[arg(long, default_value_t = 0, requires = "seed")]
    moves: usize,
}

/// Runs `boardgame perft`.
///
/// # Errors
/// Usage errors for bad arguments.
pub fn run(args: PerftArgs) -> Result<(), CliError> {
    with_game!(args.game, G => perft::<G>(&args))
}

/// The start position: the initial state, or the game of `seed` between
/// random agents at its first decision after `moves` actions.
fn start<G: CliGame>(config: &G::Config, seed: Option<u64>, moves: usize) -> Result<(G, usize), CliError> {
    let mut state = G::new_game(config).map_err(|e| CliError::Usage(e.to_string()))?;
    let Some(seed) = seed else {
        return Ok((state, 0));
    };
    let root = GameRng::new(seed);
    let mut chance = root.child(CHANCE_STREAM);
    let mut rngs: Vec<GameRng> = (0..state.num_players()).map(|s| root.child(AGENT_STREAM_BASE + s as u32)).collect();
    let mut buf = G::ChanceList::default();
    let mut played = 0;
    loop {
        let action = match state.turn() {
            Turn::Terminal => break,
            Turn::Player(_) if played >= moves => break,
            Turn::Chance => sample_chance(&state, &mut chance, &mut buf),
            Turn::Player(p) => rngs.get_mut(p).map(|rng| RandomAgent.act(&state, p, rng)),
        };
        let Some(action) = action else { break };
        state.apply(action).map_err(|e| CliError::Runtime(e.to_string()))?;
        played += 1;
    }
    Ok((state, played))
}

fn perft<G: CliGame>(args: &PerftArgs) -> Result<(), CliError> {
    let config = build_config::<G>(args.opts.players, args.opts.config.as_deref())?;
    let (state, played) = start::<G>(&config, args.seed, args.moves)?;
    let mut out = std::io::stdout().lock();
    let from = match args.seed {
        None => "the initial position".to_string(),
        Some(seed) => format!("seed {seed} after {played} actions"),
    };
    writeln!(out, "perft {} with {} players, from {from}", G::CLI_NAME, state.num_players())?;
    for depth in 1..=args.depth as usize {
        let t = Instant::now();
        let count = boardgame_kit::perft(&state, depth);
        let secs = t.elapsed().as_secs_f64();
        let rate = if secs > 0.0 { format!("{:.1} M nodes/s", count as f64 / secs / 1e6) } else { "-".into() };
        writeln!(out, "depth {depth:>2}: {count:>16}   {secs:>9.3} s   {rate}")?;
    }
    Ok(())
}
