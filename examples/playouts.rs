//! Uniform random playouts from the initial state, the workload that
//! `scripts/instructions.sh` measures in instructions per action.
//!
//! `cargo run --release --example playouts -- <korovan|caravan> <players> <games> [seed]`
//! plays `games` complete games (chance included) with the kit's
//! [`playout`], game `i` from `GameRng::new(seed + i)`, and prints the total
//! number of actions played. With 0 games it only starts and exits: the
//! baseline that the script subtracts.

use std::process::ExitCode;

use boardgames::caravan::{Caravan, CaravanConfig};
use boardgames::kit::{Game, GameRng, playout};
use boardgames::korovan::{Korovan, KorovanConfig};

fn run<G: Game>(config: &G::Config, games: u64, seed: u64) -> Result<u64, String> {
    let start = G::new_game(config).map_err(|e| e.to_string())?;
    let mut total = 0u64;
    for i in 0..games {
        let mut state = start.clone();
        let mut rng = GameRng::new(seed.wrapping_add(i));
        total += playout(&mut state, &mut rng, usize::MAX) as u64;
    }
    Ok(total)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: playouts <korovan|caravan> <players> <games> [seed]";
    let (Some(game), Some(players), Some(games)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let (Ok(players), Ok(games)) = (players.parse::<u8>(), games.parse::<u64>()) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let seed = args.get(3).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    let result = match game.as_str() {
        "korovan" => run::<Korovan>(&KorovanConfig::with_players(players), games, seed),
        "caravan" => run::<Caravan>(&CaravanConfig::with_players(players), games, seed),
        _ => Err(usage.to_string()),
    };
    match result {
        Ok(actions) => {
            println!("{actions}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
