//! The training pipeline: distillation of a teacher's search into the
//! network (expert iteration's first round), then policy-gradient
//! self-play against a league of the built-in agents and copies of the
//! learner (PPO), with the learning curve measured against fixed opponents
//! on fixed seeds.

use std::sync::Arc;
use std::time::Instant;

use boardgame_kit::nn::{LearnedAgent, NetGame, Network};
use boardgame_kit::{Arena, Bots, Entrant, GameRng};
use serde::{Deserialize, Serialize};

use crate::data::{Dataset, Seat, build_agent, play_recorded};
use crate::grad::{TrainSettings, Trainer};

/// Distillation: `games` games with `teacher` at every seat; each decision
/// becomes a sample whose target is the teacher's policy (a search's visit
/// shares), and the network is fitted to them for `epochs` passes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Distil {
    /// The teacher, an agent name (`ismcts-h:200`, `heuristic`).
    pub teacher: String,
    /// Games the teacher plays.
    pub games: u64,
    /// Passes over the samples.
    pub epochs: usize,
    /// Samples per Adam step.
    pub batch: usize,
    /// Adam's step size.
    pub learning_rate: f32,
}

/// Imitation on the learner's own states (DAgger): `rounds` rounds of
/// `games` games in which the learner plays one seat (rotating, the
/// network at `temperature`; 0 is greedy) against `against` at every other
/// seat, and `teacher` labels each of the learner's decisions with its own
/// policy on that state. The samples of every round are kept, with the
/// distillation's, and after each round the network is fitted to all of
/// them for `epochs` passes. It corrects what distillation alone cannot:
/// the teacher's games never show the states the learner's own mistakes
/// lead to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dagger {
    /// The teacher, an agent name (`heuristic`, `ismcts-h:1000`).
    pub teacher: String,
    /// The learner's opponents, an agent name.
    pub against: String,
    /// Rounds.
    pub rounds: usize,
    /// Games per round.
    pub games: u64,
    /// The learner's temperature while it plays (0: greedy).
    pub temperature: f32,
    /// Passes over all samples after each round.
    pub epochs: usize,
    /// Samples per Adam step.
    pub batch: usize,
    /// Adam's step size.
    pub learning_rate: f32,
}

/// Policy-gradient self-play: `iterations` rounds of `games` games in which
/// one seat (rotating) is the learner, sampling its policy, and every other
/// seat is drawn from the `league` by weight (`self` is the learner too,
/// whose decisions also become samples); after each round, `epochs` PPO
/// passes over the round's samples with the advantage
/// `own share − predicted own share`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reinforce {
    /// Opponent names with their weights (`heuristic`, `self`, `random`).
    pub league: Vec<(String, f64)>,
    /// Rounds.
    pub iterations: usize,
    /// Games per round.
    pub games: u64,
    /// PPO passes per round.
    pub epochs: usize,
    /// Samples per Adam step.
    pub batch: usize,
    /// Adam's step size.
    pub learning_rate: f32,
    /// The entropy bonus.
    pub entropy: f32,
}

/// Everything a training run needs; with the same options (and the same
/// build) a run gives the same network, bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainOptions {
    /// The hidden layers' widths.
    pub hidden: Vec<usize>,
    /// The seed of the initial weights, the games and the shuffles.
    pub seed: u64,
    /// The distillation phase, if any.
    pub distil: Option<Distil>,
    /// The imitation phase on the learner's own states, if any (after the
    /// distillation, whose samples it keeps; absent from the options' JSON
    /// when there is none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dagger: Option<Dagger>,
    /// The self-play phase, if any.
    pub reinforce: Option<Reinforce>,
    /// Games per opponent at each point of the learning curve.
    pub eval_games: u64,
    /// The opponents of the learning curve (every other seat is one).
    pub eval_against: Vec<String>,
    /// A curve point every this many self-play rounds (and after each
    /// phase).
    pub eval_every: usize,
    /// Worker threads of the curve's games.
    pub threads: usize,
}

/// One opponent's result at a curve point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    /// The opponent (every other seat).
    pub opponent: String,
    /// Games.
    pub games: u64,
    /// The learner's mean share (draws as `1/k`).
    pub share: f64,
    /// Its 95% interval.
    pub low: f64,
    /// Its 95% interval.
    pub high: f64,
    /// The fair share, `1 / players`.
    pub fair: f64,
}

/// A point of the learning curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// `start`, `distil`, `reinforce`.
    pub phase: String,
    /// Training samples seen so far (each pass counts).
    pub samples: u64,
    /// Games played for training so far.
    pub games: u64,
    /// Wall-clock seconds since the start (one thread trains; the curve's
    /// games are not counted).
    pub seconds: f64,
    /// Loss and agreement of the last phase's last pass.
    pub policy_loss: f64,
    /// Value loss.
    pub value_loss: f64,
    /// Results against each opponent.
    pub versus: Vec<Versus>,
}

/// A finished run: the network and its learning curve.
#[derive(Clone, Debug)]
pub struct TrainReport {
    /// The trained network.
    pub network: Network,
    /// The learning curve.
    pub curve: Vec<CurvePoint>,
}

/// The seeds of the learning curve's games (fixed, apart from training's).
pub const EVAL_SEED: u64 = 1 << 40;

/// Plays `net` (greedy) against each of `against` at every other seat, seats
/// rotated, on the seeds `EVAL_SEED..EVAL_SEED + games`.
///
/// # Errors
/// An unknown opponent, or a game that fails.
pub fn evaluate<G: NetGame + Bots>(
    config: &G::Config,
    net: &Arc<Network>,
    against: &[String],
    games: u64,
    threads: usize,
) -> Result<Vec<Versus>, String> {
    let players = G::new_game(config).map_err(|e| e.to_string())?.num_players();
    let mut out = Vec::new();
    for opp in against {
        build_agent::<G>(opp, net)?;
        let mut entrants = Vec::new();
        let n = net.clone();
        entrants.push(Entrant::new("learned", move || {
            Box::new(LearnedAgent::<G>::new(n.clone(), 0.0).expect("checked")) as Box<dyn boardgame_kit::Agent<G>>
        }));
        for _ in 1..players {
            let (o, n) = (opp.clone(), net.clone());
            entrants.push(Entrant::new(opp.clone(), move || build_agent::<G>(&o, &n).expect("checked")));
        }
        let report = Arena::<G>::new(config.clone())
            .run(&entrants, EVAL_SEED..EVAL_SEED + games, threads)
            .map_err(|e| e.to_string())?;
        let me = &report.entrants[0];
        let (low, high) = me.win_share_interval();
        out.push(Versus {
            opponent: opp.clone(),
            games: me.games,
            share: me.win_share(),
            low,
            high,
            fair: 1.0 / players as f64,
        });
    }
    Ok(out)
}

/// Runs the pipeline on `config` with `options`, calling `progress` with
/// every curve point as it is measured.
///
/// # Errors
/// A bad option (an unknown agent, an empty phase) or a failing game.
pub fn train<G: NetGame + Bots>(
    config: &G::Config,
    options: &TrainOptions,
    progress: &mut dyn FnMut(&CurvePoint),
) -> Result<TrainReport, String> {
    train_from::<G>(config, options, None, progress)
}

/// [`train`] from the weights of `init` instead of random ones (a run
/// continued: its text is kept and the new options appended).
///
/// # Errors
/// As [`train`]; also when `init` does not fit `G` and `config`.
pub fn train_from<G: NetGame + Bots>(
    config: &G::Config,
    options: &TrainOptions,
    init: Option<Network>,
    progress: &mut dyn FnMut(&CurvePoint),
) -> Result<TrainReport, String> {
    let obs_len = G::input_len(config);
    let players = G::new_game(config).map_err(|e| e.to_string())?.num_players();
    let run = format!("{} {} players; {}", G::NAME, players, serde_json::to_string(options).unwrap_or_default());
    let net = match init {
        Some(mut net) => {
            boardgame_kit::nn::check_network::<G>(&net, config).map_err(|e| e.to_string())?;
            let text = format!("{}; then {run}", net.text());
            net.set_text(&text);
            net
        }
        None => {
            let mut net =
                Network::new_random(G::NAME, obs_len, &options.hidden, G::POLICY_LEN, G::VALUE_LEN, options.seed)
                    .map_err(|e| e.to_string())?;
            net.set_text(&run);
            net
        }
    };
    // Every name is checked before any work.
    let probe = Arc::new(net.clone());
    let names = options
        .distil
        .iter()
        .map(|d| &d.teacher)
        .chain(options.dagger.iter().flat_map(|d| [&d.teacher, &d.against]))
        .chain(options.reinforce.iter().flat_map(|r| r.league.iter().map(|(n, _)| n)));
    for name in names.chain(&options.eval_against) {
        build_agent::<G>(name, &probe)?;
    }
    let start = Instant::now();
    let mut trainer = Trainer::new(net, TrainSettings::default())?;
    let mut rng = GameRng::new(options.seed ^ 0x5eed);
    let mut curve = Vec::new();
    let (mut samples, mut games) = (0u64, 0u64);
    let mut point = |phase: &str, trainer: &Trainer, samples, games, pl, vl, curve: &mut Vec<CurvePoint>| {
        let net = Arc::new(trainer.network());
        let versus = evaluate::<G>(config, &net, &options.eval_against, options.eval_games, options.threads)?;
        let p = CurvePoint {
            phase: phase.to_string(),
            samples,
            games,
            seconds: start.elapsed().as_secs_f64(),
            policy_loss: pl,
            value_loss: vl,
            versus,
        };
        progress(&p);
        curve.push(p);
        Ok::<(), String>(())
    };
    if options.eval_games > 0 {
        point("start", &trainer, 0, 0, 0.0, 0.0, &mut curve)?;
    }

    // The distillation's samples, kept for the imitation phase.
    let mut data = Dataset::new();
    if let Some(d) = &options.distil {
        let net = Arc::new(trainer.network());
        for g in 0..d.games {
            let mut seats: Vec<Seat<G>> = (0..players)
                .map(|_| Seat::Agent { agent: build_agent::<G>(&d.teacher, &net).expect("checked"), record: true })
                .collect();
            play_recorded(config, &mut seats, options.seed.wrapping_add(g), &mut data)?;
        }
        games += d.games;
        trainer.settings_mut().learning_rate = d.learning_rate;
        let (mut pl, mut vl) = (0.0, 0.0);
        let mut order: Vec<usize> = (0..data.len()).collect();
        for _ in 0..d.epochs {
            let mut pass = Pass::default();
            epoch(&mut trainer, &data, &mut order, d.batch, &mut rng, &mut pass);
            samples += pass.samples;
            (pl, vl) = pass.means();
        }
        if options.eval_games > 0 {
            point("distil", &trainer, samples, games, pl, vl, &mut curve)?;
        }
    }

    if let Some(d) = &options.dagger {
        trainer.settings_mut().learning_rate = d.learning_rate;
        let mut seed = options.seed.wrapping_add(2 << 32);
        let mut order = Vec::new();
        for round in 0..d.rounds {
            let net = Arc::new(trainer.network());
            for g in 0..d.games {
                let learner_seat = (g as usize) % players;
                let mut seats: Vec<Seat<G>> = Vec::with_capacity(players);
                for s in 0..players {
                    seats.push(if s == learner_seat {
                        Seat::Labelled {
                            player: LearnedAgent::<G>::new(net.clone(), d.temperature).map_err(|e| e.to_string())?,
                            teacher: build_agent::<G>(&d.teacher, &net)?,
                        }
                    } else {
                        Seat::Agent { agent: build_agent::<G>(&d.against, &net)?, record: false }
                    });
                }
                play_recorded(config, &mut seats, seed, &mut data)?;
                seed = seed.wrapping_add(1);
            }
            games += d.games;
            order.clear();
            order.extend(0..data.len());
            let mut pass = Pass::default();
            for _ in 0..d.epochs {
                pass = Pass::default();
                epoch(&mut trainer, &data, &mut order, d.batch, &mut rng, &mut pass);
                samples += pass.samples;
            }
            if curve_due(options, round, d.rounds) {
                let (pl, vl) = pass.means();
                point("dagger", &trainer, samples, games, pl, vl, &mut curve)?;
            }
        }
    }

    if let Some(r) = &options.reinforce {
        let total: f64 = r.league.iter().map(|(_, w)| w.max(0.0)).sum();
        if r.league.is_empty() || total.is_nan() || total <= 0.0 {
            return Err("the league needs at least one opponent with a positive weight".into());
        }
        trainer.settings_mut().learning_rate = r.learning_rate;
        trainer.settings_mut().entropy_weight = r.entropy;
        let mut data = Dataset::new();
        let mut order = Vec::new();
        let mut seed = options.seed.wrapping_add(1 << 32);
        for it in 0..r.iterations {
            let net = Arc::new(trainer.network());
            data.clear();
            for _ in 0..r.games {
                let learner_seat = rng.index(players);
                let mut seats: Vec<Seat<G>> = Vec::with_capacity(players);
                for s in 0..players {
                    let name = if s == learner_seat {
                        "self"
                    } else {
                        let mut u = rng.unit_f64() * total;
                        let mut pick = &r.league[0].0;
                        for (name, w) in &r.league {
                            if u < w.max(0.0) {
                                pick = name;
                                break;
                            }
                            u -= w.max(0.0);
                        }
                        pick.as_str()
                    };
                    seats.push(if name == "self" {
                        Seat::Learner(LearnedAgent::<G>::new(net.clone(), 1.0).map_err(|e| e.to_string())?)
                    } else {
                        Seat::Agent { agent: build_agent::<G>(name, &net)?, record: false }
                    });
                }
                play_recorded(config, &mut seats, seed, &mut data)?;
                seed = seed.wrapping_add(1);
            }
            games += r.games;
            // Advantage: own share minus the value head's prediction,
            // normalised over the round.
            let advantages = advantages(&data, &net);
            let mean = advantages.iter().sum::<f32>() / advantages.len().max(1) as f32;
            let var = advantages.iter().map(|a| (a - mean) * (a - mean)).sum::<f32>() / advantages.len().max(1) as f32;
            let sd = var.sqrt().max(1e-6);
            for (i, a) in advantages.iter().enumerate() {
                data.set_advantage(i, (a - mean) / sd);
            }
            order.clear();
            order.extend(0..data.len());
            let mut pass = Pass::default();
            for _ in 0..r.epochs {
                epoch(&mut trainer, &data, &mut order, r.batch, &mut rng, &mut pass);
            }
            samples += pass.samples;
            if curve_due(options, it, r.iterations) {
                let (pl, vl) = pass.means();
                point("reinforce", &trainer, samples, games, pl, vl, &mut curve)?;
            }
        }
    }
    Ok(TrainReport { network: trainer.into_network(), curve })
}

/// Whether round `round` (from 0) of `rounds` ends with a curve point:
/// every `eval_every` rounds and after the last, when there is a curve.
fn curve_due(options: &TrainOptions, round: usize, rounds: usize) -> bool {
    let done = round + 1;
    options.eval_games > 0 && (done == rounds || (options.eval_every > 0 && done.is_multiple_of(options.eval_every)))
}

/// What passes over a dataset measured: the sums of their steps' mean
/// losses, their steps and their samples.
#[derive(Default)]
struct Pass {
    policy: f64,
    value: f64,
    steps: usize,
    samples: u64,
}

impl Pass {
    /// The mean policy and value losses per step (0 without a step).
    fn means(&self) -> (f64, f64) {
        let s = self.steps.max(1) as f64;
        (self.policy / s, self.value / s)
    }
}

/// One pass over `data` in a fresh shuffle of `order` (drawn from `rng`),
/// one Adam step per `batch` samples, added into `pass`.
fn epoch(trainer: &mut Trainer, data: &Dataset, order: &mut [usize], batch: usize, rng: &mut GameRng, pass: &mut Pass) {
    rng.shuffle(order);
    for chunk in order.chunks(batch.max(1)) {
        let st = trainer.step(chunk.iter().map(|&i| data.get(i)));
        pass.policy += st.policy_loss;
        pass.value += st.value_loss;
        pass.steps += 1;
        pass.samples += chunk.len() as u64;
    }
}

/// `own share − predicted own share` of every sample of `data`, the
/// prediction from the value head of `net` at the sample's observation.
fn advantages(data: &Dataset, net: &Network) -> Vec<f32> {
    let mut obs = vec![0.0f32; net.obs_len()];
    let mut out = vec![0.0f32; net.outputs()];
    let mut scratch = net.scratch();
    let p = net.policy_len();
    (0..data.len())
        .map(|i| {
            let s = data.get(i);
            obs.iter_mut().for_each(|x| *x = 0.0);
            for (&j, &x) in s.obs_idx.iter().zip(s.obs_val) {
                obs[j as usize] = x;
            }
            let n = s.value.len().min(net.value_len());
            if net.forward(&obs, &mut scratch, &mut out).is_err() || n == 0 {
                return 0.0;
            }
            let z = &out[p..p + n];
            let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e: f32 = z.iter().map(|&x| (x - max).exp()).sum();
            let own = (z[0] - max).exp() / e;
            data.own_share(i) - own
        })
        .collect()
}
