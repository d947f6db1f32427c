//! `boardgame train`: trains the network of the `learned` agents with
//! `boardgame-learn`'s pipeline and writes its weights, learning curve
//! (JSON) and chart (SVG).

use std::path::PathBuf;

use boardgame_learn::{CurvePoint, Dagger, Distil, Reinforce, TrainOptions, chart_svg, train_from};
use clap::Args;

use crate::error::CliError;
use crate::games::{CliGame, GameName, GameOpts, build_config, with_game};

/// Arguments of `boardgame train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The game.
    #[arg(value_parser = crate::games::game_parser())]
    game: GameName,
    #[command(flatten)]
    opts: GameOpts,
    /// Where to write the weights (the engines read theirs from
    /// `crates/<game>-core/weights/<game>.bgnn`).
    #[arg(long, short = 'o', value_name = "FILE")]
    out: PathBuf,
    /// Where to write the learning curve, as JSON.
    #[arg(long, value_name = "FILE")]
    curve: Option<PathBuf>,
    /// Where to write the learning curve as an SVG chart.
    #[arg(long, value_name = "FILE")]
    chart: Option<PathBuf>,
    /// Continue from these weights instead of random ones (--hidden is
    /// then theirs).
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Hidden layer widths, comma-separated.
    #[arg(long, default_value = "128,128", value_delimiter = ',')]
    hidden: Vec<usize>,
    /// The seed of the weights, the games and the shuffles.
    #[arg(long, short = 's', default_value_t = 0)]
    seed: u64,
    /// Distillation: the teacher at every seat (`none` skips the phase).
    #[arg(long, default_value = "ismcts-h:200")]
    teacher: String,
    /// Distillation: the teacher's games.
    #[arg(long, default_value_t = 400)]
    teacher_games: u64,
    /// Distillation: passes over its samples.
    #[arg(long, default_value_t = 8)]
    epochs: usize,
    /// Distillation: samples per step.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Distillation: Adam's step size.
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    /// Imitation on the learner's own states (DAgger): rounds (0 skips
    /// the phase). It keeps the distillation's samples and uses its
    /// `--batch` and `--lr`.
    #[arg(long, default_value_t = 0)]
    dagger_rounds: usize,
    /// DAgger: games per round (the learner at one seat, rotating).
    #[arg(long, default_value_t = 100)]
    dagger_games: u64,
    /// DAgger: who labels the learner's decisions.
    #[arg(long, default_value = "heuristic")]
    dagger_teacher: String,
    /// DAgger: who plays the other seats.
    #[arg(long, default_value = "heuristic")]
    dagger_against: String,
    /// DAgger: the learner's temperature while it plays (0: greedy).
    #[arg(long, default_value_t = 0.0)]
    dagger_temperature: f32,
    /// DAgger: passes over all samples after each round.
    #[arg(long, default_value_t = 2)]
    dagger_epochs: usize,
    /// Self-play: the league of the learner's opponents, `name=weight`
    /// comma-separated (`self` is the learner).
    #[arg(long, default_value = "heuristic=3,self=1", value_delimiter = ',')]
    league: Vec<String>,
    /// Self-play: rounds (0 skips the phase).
    #[arg(long, default_value_t = 0)]
    rounds: usize,
    /// Self-play: games per round.
    #[arg(long, default_value_t = 256)]
    round_games: u64,
    /// Self-play: PPO passes per round.
    #[arg(long, default_value_t = 2)]
    ppo_epochs: usize,
    /// Self-play: samples per PPO step.
    #[arg(long, default_value_t = 512)]
    ppo_batch: usize,
    /// Self-play: Adam's step size.
    #[arg(long, default_value_t = 3e-4)]
    ppo_lr: f32,
    /// Self-play: the entropy bonus.
    #[arg(long, default_value_t = 0.01)]
    entropy: f32,
    /// Learning curve: games per opponent per point (0: no curve).
    #[arg(long, default_value_t = 200)]
    eval_games: u64,
    /// Learning curve: the opponents, comma-separated.
    #[arg(long, default_value = "random,heuristic,ismcts-h:200", value_delimiter = ',')]
    eval_against: Vec<String>,
    /// Learning curve: a point every this many self-play rounds.
    #[arg(long, default_value_t = 10)]
    eval_every: usize,
    /// Worker threads of the learning curve's games (default: every core;
    /// training itself is single-threaded). Results do not depend on it.
    #[arg(long, short = 't', value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// A tiny run for CI: a 16-unit network, a few games, a few rounds.
    #[arg(long)]
    quick: bool,
}

/// Runs `boardgame train`.
///
/// # Errors
/// Usage errors for bad arguments, runtime errors for failed games or
/// files.
pub fn run(args: TrainArgs) -> Result<(), CliError> {
    with_game!(args.game, G => run_game::<G>(&args))
}

/// The options the arguments name.
fn options(args: &TrainArgs) -> Result<TrainOptions, CliError> {
    let mut league = Vec::new();
    for item in &args.league {
        let (name, w) = item.split_once('=').unwrap_or((item.as_str(), "1"));
        let w: f64 = w
            .trim()
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| CliError::Usage(format!("--league `{item}`: the weight must be a number ≥ 0")))?;
        league.push((name.trim().to_string(), w));
    }
    if args.hidden.is_empty() || args.hidden.contains(&0) || args.hidden.len() > 8 {
        return Err(CliError::Usage("--hidden: one to eight widths above 0, e.g. 128,128".into()));
    }
    if args.hidden.iter().any(|&h| h > 4096) {
        return Err(CliError::Usage("--hidden: widths of at most 4096".into()));
    }
    let t = args.dagger_temperature;
    if !(t.is_finite() && (0.0..=boardgame_kit::Temperature::MAX).contains(&t)) {
        return Err(CliError::Usage(format!(
            "--dagger-temperature {t}: a number from 0 (greedy) to {}",
            boardgame_kit::Temperature::MAX
        )));
    }
    let mut o = TrainOptions {
        hidden: args.hidden.clone(),
        seed: args.seed,
        distil: (args.teacher != "none" && args.teacher_games > 0).then(|| Distil {
            teacher: args.teacher.clone(),
            games: args.teacher_games,
            epochs: args.epochs,
            batch: args.batch,
            learning_rate: args.lr,
        }),
        dagger: (args.dagger_rounds > 0).then(|| Dagger {
            teacher: args.dagger_teacher.clone(),
            against: args.dagger_against.clone(),
            rounds: args.dagger_rounds,
            games: args.dagger_games,
            temperature: args.dagger_temperature,
            epochs: args.dagger_epochs,
            batch: args.batch,
            learning_rate: args.lr,
        }),
        reinforce: (args.rounds > 0).then_some(Reinforce {
            league,
            iterations: args.rounds,
            games: args.round_games,
            epochs: args.ppo_epochs,
            batch: args.ppo_batch,
            learning_rate: args.ppo_lr,
            entropy: args.entropy,
        }),
        eval_games: args.eval_games,
        eval_against: args.eval_against.clone(),
        eval_every: args.eval_every,
        threads: args.threads.map_or_else(boardgame_cli::simulate::every_core, |t| t as usize),
    };
    if args.quick {
        o.hidden = vec![16];
        if let Some(d) = o.distil.as_mut() {
            d.games = d.games.min(4);
            d.epochs = d.epochs.min(2);
        }
        if let Some(d) = o.dagger.as_mut() {
            d.rounds = d.rounds.min(2);
            d.games = d.games.min(4);
            d.epochs = d.epochs.min(1);
        }
        if let Some(r) = o.reinforce.as_mut() {
            r.iterations = r.iterations.min(2);
            r.games = r.games.min(8);
        }
        o.eval_games = o.eval_games.min(10);
    }
    Ok(o)
}

fn run_game<G: CliGame + boardgame_kit::nn::NetGame>(args: &TrainArgs) -> Result<(), CliError> {
    let config = build_config::<G>(args.opts.players, args.opts.config.as_deref())?;
    let options = options(args)?;
    let mut progress = |p: &CurvePoint| {
        let vs: Vec<String> =
            p.versus.iter().map(|v| format!("{} {:.3} [{:.3}, {:.3}]", v.opponent, v.share, v.low, v.high)).collect();
        eprintln!(
            "{:>9} {:>8.1}s games {:>7} samples {:>9} policy {:.3} value {:.3} | {}",
            p.phase,
            p.seconds,
            p.games,
            p.samples,
            p.policy_loss,
            p.value_loss,
            vs.join(" | ")
        );
    };
    let init = match &args.init {
        None => None,
        Some(path) => {
            let bytes =
                std::fs::read(path).map_err(|e| CliError::Runtime(format!("cannot read {}: {e}", path.display())))?;
            let net = boardgame_kit::nn::Network::from_bytes(&bytes)
                .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
            Some(net)
        }
    };
    let report = train_from::<G>(&config, &options, init, &mut progress).map_err(CliError::Usage)?;
    let write = |path: &PathBuf, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|e| CliError::Runtime(format!("cannot write {}: {e}", path.display())))
    };
    write(&args.out, &report.network.to_bytes())?;
    if let Some(path) = &args.curve {
        let json = serde_json::json!({
            "game": G::NAME,
            "options": options,
            "parameters": report.network.num_parameters(),
            "curve": report.curve,
        });
        write(path, serde_json::to_string_pretty(&json).unwrap_or_default().as_bytes())?;
    }
    if let Some(path) = &args.chart {
        let players = G::new_game(&config).map(|g| g.num_players()).unwrap_or(0);
        let title = format!("{} {players}p: learned (greedy) share against each opponent", G::NAME);
        write(path, chart_svg(&title, &report.curve).as_bytes())?;
    }
    println!(
        "wrote {} ({} parameters, {} bytes)",
        args.out.display(),
        report.network.num_parameters(),
        report.network.to_bytes().len()
    );
    Ok(())
}
