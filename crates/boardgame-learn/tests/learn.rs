//! The trainer's gradients against finite differences, the pipeline's
//! reproducibility, and a quick run per engine that trains, saves, loads in
//! the kit and plays legal moves (the CI quick mode of issue 21).

use std::sync::Arc;

use boardgame_kit::nn::{LearnedAgent, NetGame, Network};
use boardgame_kit::testgame::HiddenNim;
use boardgame_kit::{Agent, Game, GameRng, RandomAgent, Turn, sample_chance};
use boardgame_learn::{
    Dagger, Dataset, Distil, Reinforce, Seat, Target, TrainOptions, TrainSettings, Trainer, chart_svg, play_recorded,
    train,
};

/// A dataset of both kinds of sample over a 6-input toy layout.
fn toy_data() -> Dataset {
    let mut d = Dataset::new();
    d.push(&[1.0, 0.0, 0.5, 0.0, -1.0, 2.0], &[0, 2, 3], Some(&[0.2, 0.5, 0.3]), (0, 0.0, 0.0), &[1.0, 0.0]);
    d.push(&[0.0, 1.0, 0.0, 0.3, 0.0, 0.0], &[1, 4], Some(&[1.0, 0.0]), (0, 0.0, 0.0), &[0.5, 0.5]);
    d.push(&[0.7, 0.0, 0.0, 0.0, 1.0, 0.0], &[0, 1, 4], None, (2, 0.3, 1.5), &[0.0, 1.0]);
    d.push(&[0.0, 0.0, 1.0, 1.0, 0.0, 0.5], &[2, 3], None, (0, 0.6, -0.8), &[1.0, 0.0]);
    d
}

/// Every parameter's gradient (policy cross-entropy, the PPO surrogate
/// inside its clip range, the entropy bonus, the value cross-entropy)
/// matches central finite differences of the loss.
#[test]
fn gradients_match_finite_differences() {
    let data = toy_data();
    let net = Network::new_random("toy", 6, &[5, 4], 5, 2, 3).unwrap();
    let settings = TrainSettings { entropy_weight: 0.05, clip: 10.0, ..TrainSettings::default() };
    let mut trainer = Trainer::new(net.clone(), settings.clone()).unwrap();
    let grad = trainer.gradient((0..data.len()).map(|i| data.get(i)));
    let mut k = 0;
    let mut checked = 0;
    for layer in 0..net.mlp().unwrap().layers().len() {
        let n = net.mlp().unwrap().layers()[layer].weights.len() + net.mlp().unwrap().layers()[layer].bias.len();
        for j in 0..n {
            let h = 1e-3f32;
            let loss_at = |delta: f32| {
                let mut m = net.clone();
                let l = &mut m.mlp_mut().unwrap().layers_mut()[layer];
                let w = l.weights.len();
                if j < w {
                    l.weights[j] += delta;
                } else {
                    l.bias[j - w] += delta;
                }
                Trainer::new(m, settings.clone()).unwrap().loss((0..data.len()).map(|i| data.get(i)))
            };
            let numeric = (loss_at(h) - loss_at(-h)) / (2.0 * f64::from(h));
            let analytic = f64::from(grad[k]);
            assert!(
                (numeric - analytic).abs() < 2e-3 + 2e-2 * numeric.abs(),
                "layer {layer} parameter {j}: analytic {analytic}, numeric {numeric}"
            );
            if numeric.abs() > 1e-4 {
                checked += 1;
            }
            k += 1;
        }
    }
    assert_eq!(k, grad.len());
    assert!(checked > grad.len() / 3, "only {checked} of {} gradients were non-zero", grad.len());
}

/// Outside PPO's clip range (ratio above 1 + ε with a positive advantage)
/// the surrogate has no gradient.
#[test]
fn the_clipped_surrogate_stops_the_gradient() {
    let mut d = Dataset::new();
    d.push(&[1.0, 0.5], &[0, 1], None, (0, 1e-3, 1.0), &[]);
    let net = Network::new_random("toy", 2, &[3], 2, 0, 1).unwrap();
    let mut t = Trainer::new(net, TrainSettings { clip: 0.2, ..TrainSettings::default() }).unwrap();
    assert!(t.gradient(std::iter::once(d.get(0))).iter().all(|&g| g == 0.0));
}

/// Distillation lowers the loss on its own samples.
#[test]
fn steps_lower_the_loss() {
    let data = toy_data();
    let net = Network::new_random("toy", 6, &[8], 5, 2, 9).unwrap();
    let mut t = Trainer::new(net, TrainSettings { learning_rate: 1e-2, ..TrainSettings::default() }).unwrap();
    let first = t.loss((0..2).map(|i| data.get(i)));
    for _ in 0..200 {
        t.step((0..2).map(|i| data.get(i)));
    }
    let last = t.loss((0..2).map(|i| data.get(i)));
    assert!(last < first * 0.5, "{first} → {last}");
}

fn quick(distil: Option<Distil>, reinforce: Option<Reinforce>, against: &str) -> TrainOptions {
    TrainOptions {
        hidden: vec![16],
        seed: 7,
        distil,
        dagger: None,
        reinforce,
        eval_games: 8,
        eval_against: vec![against.into()],
        eval_every: 1,
        threads: 1,
    }
}

fn nim_options() -> TrainOptions {
    quick(
        Some(Distil { teacher: "ismcts:30".into(), games: 30, epochs: 4, batch: 16, learning_rate: 3e-3 }),
        Some(Reinforce {
            league: vec![("random".into(), 1.0), ("self".into(), 1.0)],
            iterations: 3,
            games: 20,
            epochs: 2,
            batch: 32,
            learning_rate: 1e-3,
            entropy: 0.01,
        }),
        "random",
    )
}

/// The same options give the same network, bit for bit, and the same curve.
#[test]
fn a_run_is_reproducible() {
    let a = train::<HiddenNim>(&Default::default(), &nim_options(), &mut |_| {}).unwrap();
    let b = train::<HiddenNim>(&Default::default(), &nim_options(), &mut |_| {}).unwrap();
    assert_eq!(a.network.to_bytes(), b.network.to_bytes());
    let shares = |r: &boardgame_learn::TrainReport| r.curve.iter().map(|p| p.versus[0].share).collect::<Vec<_>>();
    assert_eq!(shares(&a), shares(&b));
    assert_eq!(a.curve.len(), 1 + 1 + 3, "start, distil, three rounds");
    let mut other = nim_options();
    other.seed = 8;
    let c = train::<HiddenNim>(&Default::default(), &other, &mut |_| {}).unwrap();
    assert_ne!(a.network.to_bytes(), c.network.to_bytes());
    let svg = chart_svg("nim", &a.curve);
    assert!(svg.starts_with("<svg") && svg.contains("vs random") && svg.trim_end().ends_with("</svg>"));
}

/// A teacher that always names the last legal action (or, when `cheat`,
/// one that is not legal).
struct LastLegal {
    cheat: bool,
}

impl Agent<HiddenNim> for LastLegal {
    fn name(&self) -> String {
        "last-legal".into()
    }
    fn act(&mut self, state: &HiddenNim, _seat: usize, _rng: &mut GameRng) -> <HiddenNim as Game>::Action {
        let mut list = <HiddenNim as Game>::ActionList::default();
        state.legal_actions(&mut list);
        if self.cheat {
            // A dealing action, never legal at a seat's decision.
            return boardgame_kit::testgame::NimAction::Deal(1);
        }
        list[list.len() - 1]
    }
}

/// A labelled seat (DAgger) plays the learner's moves and records the
/// teacher's: every target is the teacher's one-hot at the last legal
/// action, and the games differ from those the teacher plays itself.
#[test]
fn labelled_seats_play_the_learner_and_learn_the_teacher() {
    let config = Default::default();
    let net = Arc::new(
        Network::new_random(
            "hidden-nim",
            HiddenNim::input_len(&config),
            &[8],
            HiddenNim::POLICY_LEN,
            HiddenNim::VALUE_LEN,
            5,
        )
        .unwrap(),
    );
    let (mut differ, mut samples) = (0, 0);
    for seed in 0..20 {
        let mut data = Dataset::new();
        let mut seats = vec![
            Seat::Labelled {
                player: LearnedAgent::<HiddenNim>::new(net.clone(), 1.0).unwrap(),
                teacher: Box::new(LastLegal { cheat: false }),
            },
            Seat::Agent { agent: Box::new(RandomAgent), record: false },
        ];
        let learner_game = play_recorded(&config, &mut seats, seed, &mut data).unwrap();
        for i in 0..data.len() {
            let s = data.get(i);
            let Target::Policy(t) = s.kind else { panic!("a labelled sample teaches a policy") };
            let mut want = vec![0.0f32; t.len()];
            want[t.len() - 1] = 1.0;
            assert_eq!(t, &want[..], "sample {i} of seed {seed}");
            assert_eq!(s.value.len(), 2);
        }
        samples += data.len();
        let mut seats = vec![
            Seat::Agent { agent: Box::new(LastLegal { cheat: false }), record: true },
            Seat::Agent { agent: Box::new(RandomAgent), record: false },
        ];
        let mut teacher_data = Dataset::new();
        let teacher_game = play_recorded(&config, &mut seats, seed, &mut teacher_data).unwrap();
        differ += usize::from(teacher_game != learner_game);
    }
    assert!(samples > 20, "{samples} samples");
    assert!(differ > 0, "the learner's games were the teacher's");

    let mut seats = vec![
        Seat::Labelled {
            player: LearnedAgent::<HiddenNim>::new(net, 1.0).unwrap(),
            teacher: Box::new(LastLegal { cheat: true }),
        },
        Seat::Agent { agent: Box::new(RandomAgent), record: false },
    ];
    let err = play_recorded(&config, &mut seats, 1, &mut Dataset::new()).unwrap_err();
    assert!(err.contains("teacher of seat 0 chose an illegal action"), "{err}");
}

fn dagger_options() -> TrainOptions {
    let mut o = nim_options();
    o.reinforce = None;
    o.dagger = Some(Dagger {
        teacher: "ismcts:30".into(),
        against: "random".into(),
        rounds: 2,
        games: 10,
        temperature: 0.5,
        epochs: 2,
        batch: 16,
        learning_rate: 3e-3,
    });
    o
}

/// A run with the DAgger phase is reproducible, measures a curve point per
/// round, and changes the network it is given.
#[test]
fn a_dagger_run_is_reproducible() {
    let a = train::<HiddenNim>(&Default::default(), &dagger_options(), &mut |_| {}).unwrap();
    let b = train::<HiddenNim>(&Default::default(), &dagger_options(), &mut |_| {}).unwrap();
    assert_eq!(a.network.to_bytes(), b.network.to_bytes());
    let phases: Vec<&str> = a.curve.iter().map(|p| p.phase.as_str()).collect();
    assert_eq!(phases, ["start", "distil", "dagger", "dagger"]);
    assert!(a.curve[3].games == a.curve[1].games + 20 && a.curve[3].samples > a.curve[1].samples);
    let mut without = dagger_options();
    without.dagger = None;
    let c = train::<HiddenNim>(&Default::default(), &without, &mut |_| {}).unwrap();
    assert_ne!(a.network.to_bytes(), c.network.to_bytes());
    // Without a DAgger phase the options' JSON is what it was before the
    // phase existed (the committed weights' text and their rerun depend on it).
    assert!(!serde_json::to_string(&without).unwrap().contains("dagger"));
}

/// Bad options are refused with a message, not a panic.
#[test]
fn bad_options_are_refused() {
    let mut o = nim_options();
    o.distil.as_mut().unwrap().teacher = "chess".into();
    assert!(train::<HiddenNim>(&Default::default(), &o, &mut |_| {}).unwrap_err().contains("unknown agent `chess`"));
    let mut o = nim_options();
    o.reinforce.as_mut().unwrap().league = vec![("random".into(), 0.0)];
    assert!(train::<HiddenNim>(&Default::default(), &o, &mut |_| {}).unwrap_err().contains("positive weight"));
    for field in 0..2 {
        let mut o = dagger_options();
        let d = o.dagger.as_mut().unwrap();
        *(if field == 0 { &mut d.teacher } else { &mut d.against }) = "chess".into();
        assert!(
            train::<HiddenNim>(&Default::default(), &o, &mut |_| {}).unwrap_err().contains("unknown agent `chess`")
        );
    }
    let mut o = nim_options();
    o.eval_against = vec!["heuristic".into()];
    assert!(train::<HiddenNim>(&Default::default(), &o, &mut |_| {}).is_err());
}

/// Trains on `config` in the quick mode, saves, reads the file back, and
/// plays whole games with the loaded `learned` agent at every seat: every
/// move legal.
fn trains_saves_loads_and_plays<G: NetGame + boardgame_kit::Bots>(config: G::Config, teacher: &str) {
    let options = quick(
        Some(Distil { teacher: teacher.into(), games: 2, epochs: 2, batch: 64, learning_rate: 1e-3 }),
        Some(Reinforce {
            league: vec![("heuristic".into(), 1.0), ("self".into(), 1.0)],
            iterations: 1,
            games: 2,
            epochs: 1,
            batch: 128,
            learning_rate: 3e-4,
            entropy: 0.01,
        }),
        "random",
    );
    let report = train::<G>(&config, &options, &mut |_| {}).unwrap();
    assert_eq!(report.curve.len(), 3);
    let path = std::env::temp_dir().join(format!("boardgame-learn-{}-{}.bgnn", G::NAME, std::process::id()));
    std::fs::write(&path, report.network.to_bytes()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).ok();
    let net = Arc::new(Network::from_bytes(&bytes).unwrap());
    assert_eq!(*net, report.network);
    boardgame_kit::nn::check_network::<G>(&net, &config).unwrap();
    let mut agent = LearnedAgent::<G>::new(net, 0.0).unwrap();
    for seed in 0..2 {
        let mut state = G::new_game(&config).unwrap();
        let mut rng = GameRng::new(seed);
        let mut chances = G::ChanceList::default();
        let mut moves = 0;
        while !state.is_terminal() && moves < 5000 {
            let a = match state.turn() {
                Turn::Chance => sample_chance(&state, &mut rng, &mut chances).unwrap(),
                Turn::Player(s) => {
                    moves += 1;
                    agent.act(&state, s, &mut rng)
                }
                Turn::Terminal => unreachable!(),
            };
            state.apply(a).expect("the learned agent plays legal moves");
        }
        assert!(moves > 0);
    }
}

#[test]
fn quick_mode_korovan() {
    trains_saves_loads_and_plays::<korovan_core::Korovan>(korovan_core::KorovanConfig::with_players(4), "heuristic");
}

#[test]
fn quick_mode_caravan() {
    let config = caravan_core::CaravanConfig { max_turns: 60, ..caravan_core::CaravanConfig::with_players(2) };
    trains_saves_loads_and_plays::<caravan_core::Caravan>(config, "ismcts-h:10");
}

#[test]
fn quick_mode_hidden_nim() {
    let r = train::<HiddenNim>(&Default::default(), &nim_options(), &mut |_| {}).unwrap();
    let agent = LearnedAgent::<HiddenNim>::new(Arc::new(r.network), 0.0).unwrap();
    assert_eq!(agent.name(), "learned");
}
