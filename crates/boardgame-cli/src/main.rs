//! `boardgame`: demo, play, simulate, merge, ladder, sprt, replay, perft,
//! bench, serve, balance and train over the Korovan and Caravan engines. A thin layer: every rule lives in the
//! engine crates, every generic tool in `boardgame-kit`; `train` launches the
//! Python package's PyTorch trainer.
//!
//! Exit codes: 0 success, 2 usage error, 1 runtime error (one line on
//! stderr); `train` exits with the trainer's exit code.
#![forbid(unsafe_code)]

mod balance;
mod bench;
mod ladder;
mod lang;
mod perft;
mod play;
mod replay;
#[cfg(feature = "serve")]
mod serve;
mod train;

// The library half (`src/lib.rs`): the engines' adapters, the error, the
// simulate/merge arguments (the steps are boardgame-sim's, which the Python
// binding shares).
use boardgame_cli::{agents, error, games, input, lobby, simulate};

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;

const EXAMPLES: &str = "\
Games: korovan (3-9 players), caravan (2-4 players).
Agents: random, heuristic, ismcts:N, ismcts-h:N, flatmc:N, flatmc-h:N, learned, learned:T, learned-ismcts:N (N iterations
per move, at most 10000000, or a time such as 200ms, at most 600s; T a temperature). A trained weights file plays as
learned@FILE, learned:T@FILE or learned-ismcts:N@FILE.

Examples:
  boardgame demo                                           both games, 1000 games each, heuristic vs random
  boardgame simulate caravan -p 2 -n 200 -a ismcts:1000,random
  boardgame simulate korovan -n 100000 --shard 0/4 --json > part0.json   (then: boardgame merge part*.json)
  boardgame play korovan --players 5 --agents ismcts:500 --record game.json
  boardgame play caravan --lang ru                        type `c4 d4`, `s c4`, `pick 3`, `end`; `list`, `rules`, `help`
  boardgame ladder caravan -a random,heuristic,learned,ismcts-h:100 -p 2,4 -n 200 --json l.json --chart l.svg
  boardgame sprt caravan learned heuristic -p 2                 is learned stronger? stops as soon as the games decide
  boardgame simulate caravan -p 2 -a learned@runs/quick/latest.bgnn,heuristic   a freshly trained network
  boardgame replay game.json --step --lang ru
  boardgame perft caravan --players 2 --depth 4
  boardgame bench
  boardgame serve --addr 127.0.0.1:8080                   play in the browser (tables kept in ./boardgame-data/)
  boardgame train --game caravan --out runs/caravan --quick   the PyTorch trainer (Python); see docs/learning.md
  boardgame balance korovan --players 3..9 --games 2000 --out report   (add --sweep deck.scout=0..8, --worth)";

/// The examples, and the strongest agent of each game by player count (the
/// committed lobby ladder, docs/bots.md).
fn after_help() -> String {
    format!("{EXAMPLES}\n\nThe strongest agents (the lobby's ladder, docs/bots.md):\n{}", lobby::strongest_text())
}

/// Play, simulate, replay and measure the Korovan and Caravan engines.
#[derive(Parser, Debug)]
#[command(name = "boardgame", version, about, long_about = None, propagate_version = true, after_help = after_help())]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// A short simulation of both games: a heuristic bot against random ones.
    Demo(simulate::DemoArgs),
    /// Play a game in the terminal against bots.
    Play(play::PlayArgs),
    /// Play many seeded games between agents and print their results.
    Simulate(simulate::SimulateArgs),
    /// Merge JSON results of `simulate --json` (e.g. shards) into one.
    Merge(simulate::MergeArgs),
    /// Rate agents against each other at several player counts (Elo with
    /// 95% intervals, a table, JSON and a chart); shards merge exactly.
    Ladder(ladder::LadderArgs),
    /// Is A stronger than B? A sequential test that stops as soon as the
    /// games decide (Wald's SPRT), printing its log-likelihood ratio.
    Sprt(ladder::SprtArgs),
    /// Validate a game record and print the game action by action.
    Replay(replay::ReplayArgs),
    /// Count action sequences to a depth (move-generation check).
    Perft(perft::PerftArgs),
    /// A quick throughput table (release builds give meaningful figures).
    Bench(bench::BenchArgs),
    /// Serve the web table: play in the browser, humans and bots at one table.
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
    /// Balance lab: self-play over a grid of configurations, a report
    /// folder with win shares, intervals and charts.
    Balance(balance::BalanceArgs),
    /// Train a network for the learned agents: runs the PyTorch trainer
    /// `python3 -m korovan_caravan.learn.expert_iteration` (or, after `ppo`,
    /// `korovan_caravan.learn.ppo`) with these arguments.
    #[command(after_help = train::AFTER_HELP)]
    Train(train::TrainArgs),
}

fn run(cli: Cli) -> Result<ExitCode, CliError> {
    let done = match cli.command {
        Command::Play(a) => play::run(a),
        Command::Demo(a) => simulate::demo(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Merge(a) => simulate::merge(a),
        Command::Ladder(a) => ladder::run(a),
        Command::Sprt(a) => ladder::run_sprt(a),
        Command::Replay(a) => replay::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Bench(a) => bench::run(a),
        // The trainer's exit code is the command's.
        Command::Train(a) => return train::run(a),
        #[cfg(feature = "serve")]
        Command::Serve(a) => serve::run(a),
        Command::Balance(a) => balance::run(a).map_err(|f| match f {
            balance::Failure::Usage(m) => CliError::Usage(m),
            balance::Failure::Runtime(m) => CliError::Runtime(m),
        }),
    };
    done.map(|()| ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            let line = e.message().replace('\n', " ");
            eprintln!("error: {line}");
            match e {
                CliError::Usage(_) => ExitCode::from(2),
                CliError::Runtime(_) | CliError::BrokenPipe => ExitCode::from(1),
            }
        }
    }
}
