//! The single-learner batch: a seed fixes every episode, `reset` restarts
//! from it, drawn seats follow the seat stream, opponents are checked here,
//! illegal actions are a no-op or refused before any game moves, the
//! rewards are the shares or their zero-sum form, and an episode is the
//! kit's driver's game of its seed, its shaping summing to the change of
//! the potential.

use boardgame_kit::{AgentSpec, Driver, Game, GameRng, Turn};
use boardgame_sim::learner::{
    IllegalMode, LearnerBuffers, LearnerCore, LearnerError, LearnerSpec, RewardMode, SEAT_STREAM, new_learner,
    score_potential,
};
use korovan_core::{Korovan, KorovanConfig};

fn spec(num_envs: usize, seed: u64, opponents: &[&str], seat: Option<usize>) -> LearnerSpec {
    LearnerSpec {
        num_envs,
        seed,
        opponents: opponents.iter().map(|s| s.to_string()).collect(),
        seat,
        reward: RewardMode::Shares,
        shaping: 0.0,
        illegal: IllegalMode::Noop,
    }
}

fn korovan(players: u64, spec: LearnerSpec) -> Result<Box<dyn LearnerCore>, LearnerError> {
    new_learner("korovan", Some(players.into()), "{}", "auto", "observation", spec)
}

fn caravan(spec: LearnerSpec) -> Result<Box<dyn LearnerCore>, LearnerError> {
    new_learner("caravan", Some(2.into()), r#"{"max_turns": 40}"#, "auto", "observation", spec)
}

/// The first legal learner action of each row.
fn first_legal(batch: &dyn LearnerCore, out: &LearnerBuffers) -> Vec<u32> {
    let a = batch.num_actions();
    out.mask.chunks(a).map(|row| row.iter().position(|&m| m == 1).unwrap_or(0) as u32).collect()
}

/// The buffers of `steps` steps of first legal actions from a fresh observe.
fn play(batch: &mut dyn LearnerCore, steps: usize) -> Vec<LearnerBuffers> {
    let mut out = LearnerBuffers::new(batch);
    batch.observe(out.view()).unwrap();
    let mut seen = vec![out.clone()];
    for _ in 0..steps {
        let actions = first_legal(batch, &out);
        batch.step(&actions, out.view()).unwrap();
        seen.push(out.clone());
    }
    seen
}

#[test]
fn a_seed_fixes_every_episode() {
    let mut a = korovan(4, spec(3, 11, &["heuristic"], None)).unwrap();
    let mut b = korovan(4, spec(3, 11, &["heuristic"], None)).unwrap();
    let (ra, rb) = (play(a.as_mut(), 80), play(b.as_mut(), 80));
    assert_eq!(ra, rb);
    assert!(ra.iter().any(|o| o.done.contains(&1)), "episodes ended within 80 steps");
    let mut c = korovan(4, spec(3, 12, &["heuristic"], None)).unwrap();
    assert_ne!(play(c.as_mut(), 80), ra, "another seed, other games");
}

#[test]
fn reset_restarts_every_slot_from_the_seed() {
    let mut batch = caravan(spec(4, 5, &["random"], Some(0))).unwrap();
    let fresh = play(batch.as_mut(), 0).remove(0);
    play(batch.as_mut(), 30);
    assert!((0..4).any(|i| batch.finished(i).unwrap() > 0), "slots finished games");
    batch.reset(5);
    let mut out = LearnerBuffers::new(batch.as_ref());
    batch.observe(out.view()).unwrap();
    assert_eq!(out, fresh);
    for i in 0..4 {
        assert_eq!((batch.current_seed(i), batch.finished(i)), (Some(5 + i as u64), Some(0)));
    }
    assert_eq!(batch.current_seed(4), None);
}

#[test]
fn a_drawn_seat_follows_the_seat_stream() {
    let mut batch = korovan(5, spec(64, 100, &["random"], None)).unwrap();
    let out = play(batch.as_mut(), 0).remove(0);
    for (i, &seat) in out.seat.iter().enumerate() {
        let seed = batch.current_seed(i).unwrap();
        assert_eq!(seat as usize, GameRng::new(seed).child(SEAT_STREAM).index(5));
    }
    let distinct: std::collections::BTreeSet<u32> = out.seat.iter().copied().collect();
    assert_eq!(distinct.len(), 5);
}

#[test]
fn opponents_are_one_name_or_one_per_other_seat() {
    let one = korovan(4, spec(1, 0, &["heuristic"], None)).unwrap();
    assert_eq!(one.opponents(), ["heuristic"; 3]);
    let mut mix = korovan(4, spec(2, 0, &["random", "heuristic", "ismcts:8"], None)).unwrap();
    assert_eq!(mix.opponents(), ["random", "heuristic", "ismcts:8"]);
    play(mix.as_mut(), 20);
    let message = |r: Result<Box<dyn LearnerCore>, LearnerError>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message(korovan(5, spec(1, 0, &["random", "heuristic"], None))).contains("one per other seat"));
    assert!(message(korovan(3, spec(1, 0, &["grandmaster"], None))).contains("unknown agent"));
    assert!(message(korovan(3, spec(1, 0, &["random", "ismcts:0"], None))).contains("budget must be a positive"));
}

#[test]
fn bad_arguments_are_refused_with_a_message() {
    let message = |r: Result<Box<dyn LearnerCore>, LearnerError>| match r {
        Err(LearnerError::Invalid(m)) => m,
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    };
    assert!(message(korovan(5, spec(1, 0, &["random"], Some(5)))).contains("seat 5 is out of range"));
    assert!(message(korovan(3, spec(0, 0, &["random"], None))).contains("num_envs"));
    let nan = LearnerSpec { shaping: f64::NAN, ..spec(1, 0, &["random"], None) };
    assert!(message(korovan(3, nan)).contains("finite"));
    assert!(
        message(new_learner("chess", None, "{}", "auto", "observation", spec(1, 0, &["random"], None)))
            .contains("unknown game")
    );
    let compact = new_learner("korovan", Some(3.into()), "{}", "compact", "observation", spec(1, 0, &["random"], None));
    assert!(message(compact).contains("no compact action space"));
    let inputs = new_learner("korovan", Some(3.into()), "{}", "flat", "pixels", spec(1, 0, &["random"], None));
    assert!(message(inputs).contains("unknown inputs"));
    assert!(RewardMode::parse("points").is_err() && IllegalMode::parse("ignore").is_err());
    let mut batch = korovan(3, spec(2, 0, &["random"], None)).unwrap();
    let mut out = LearnerBuffers::new(batch.as_ref());
    assert!(matches!(batch.step(&[0], out.view()), Err(LearnerError::Invalid(_))));
    out.obs.pop();
    assert!(matches!(batch.observe(out.view()), Err(LearnerError::Invalid(_))));
}

#[test]
fn an_illegal_action_is_a_noop_or_refused() {
    let mut noop = caravan(spec(1, 1, &["random"], Some(0))).unwrap();
    let before = play(noop.as_mut(), 0).remove(0);
    let illegal = before.mask.iter().position(|&m| m == 0).unwrap() as u32;
    let mut out = before.clone();
    noop.step(&[illegal], out.view()).unwrap();
    assert_eq!((out.illegal[0], out.reward[0], out.done[0]), (1, 0.0, 0));
    assert_eq!((&out.obs, &out.mask), (&before.obs, &before.mask));

    let strict = LearnerSpec { illegal: IllegalMode::Raise, ..spec(1, 1, &["random"], Some(0)) };
    let mut strict = caravan(strict).unwrap();
    let mut out = play(strict.as_mut(), 0).remove(0);
    match strict.step(&[illegal], out.view()) {
        Err(LearnerError::Action { game, message }) => {
            assert_eq!(game, 0);
            assert!(message.contains("not legal"), "{message}");
        }
        other => panic!("expected the action refused, got {other:?}"),
    }
    strict.observe(out.view()).unwrap();
    assert_eq!(out.mask, before.mask, "nothing moved");
}

#[test]
fn rewards_are_the_shares_or_their_zero_sum_form() {
    assert_eq!(RewardMode::ZeroSum.of_share(1.0, 2), 1.0);
    assert_eq!(RewardMode::ZeroSum.of_share(0.0, 2), -1.0);
    assert_eq!(RewardMode::ZeroSum.of_share(0.5, 2), 0.0);
    assert_eq!(RewardMode::ZeroSum.of_share(0.0, 5), -0.25);
    assert_eq!(RewardMode::Shares.of_share(0.25, 4), 0.25);
    let with = |reward| LearnerSpec { reward, ..spec(8, 21, &["heuristic"], None) };
    let mut shares = korovan(5, with(RewardMode::Shares)).unwrap();
    let mut zero_sum = korovan(5, with(RewardMode::ZeroSum)).unwrap();
    let (a, b) = (play(shares.as_mut(), 120), play(zero_sum.as_mut(), 120));
    let mut ended = 0;
    for (a, b) in a.iter().zip(&b) {
        assert_eq!((&a.done, &a.share, &a.obs), (&b.done, &b.share, &b.obs));
        for k in 0..8 {
            if a.done[k] == 1 {
                ended += 1;
                assert_eq!(a.reward[k], a.share[k]);
                assert_eq!(b.reward[k], RewardMode::ZeroSum.of_share(f64::from(a.share[k]), 5) as f32);
            } else {
                assert_eq!((a.reward[k], b.reward[k]), (0.0, 0.0));
            }
        }
    }
    assert!(ended > 0, "episodes ended");
}

/// Chance and the opponents (`random`, from the driver's seat streams)
/// until `seat` decides or the game ends.
fn advance(driver: &mut Driver<Korovan>, seat: usize, opponent: &mut dyn boardgame_kit::Agent<Korovan>) {
    while let Turn::Chance | Turn::Player(_) = driver.turn() {
        match driver.turn() {
            Turn::Player(p) if p == seat => return,
            Turn::Chance => {
                driver.step_chance();
            }
            _ => {
                driver.step_agent(opponent).unwrap();
            }
        }
    }
}

#[test]
fn an_episode_is_the_drivers_game_and_the_shaping_telescopes() {
    let (seed, seat, c) = (77, 1, 0.25);
    let spec = LearnerSpec { reward: RewardMode::ZeroSum, shaping: c, ..spec(1, seed, &["random"], Some(seat)) };
    let mut batch = new_learner("korovan", Some(3.into()), "{}", "flat", "observation", spec).unwrap();
    let mut out = LearnerBuffers::new(batch.as_ref());
    batch.observe(out.view()).unwrap();
    let config = KorovanConfig { players: 3, ..KorovanConfig::default() };
    let mut driver = Driver::<Korovan>::new(&config, seed).unwrap();
    let mut opponent = AgentSpec::Random.build::<Korovan>().unwrap();
    advance(&mut driver, seat, opponent.as_mut());
    let start = score_potential(driver.state(), seat);
    let mut obs = vec![0.0; Korovan::observation_tensor_len(&config)];
    let mut total = 0.0;
    for _ in 0..Korovan::max_game_length(&config) {
        driver.state().write_observation_tensor(seat, &mut obs).unwrap();
        assert_eq!(out.obs, obs, "the learner sees the driver's game");
        let action = first_legal(batch.as_ref(), &out)[0];
        batch.step(&[action], out.view()).unwrap();
        total += f64::from(out.reward[0]);
        driver.apply(Korovan::action_from_id(&config, action).unwrap()).unwrap();
        advance(&mut driver, seat, opponent.as_mut());
        if out.done[0] == 1 {
            break;
        }
    }
    assert_eq!(driver.turn(), Turn::Terminal, "the episode ended with the driver's game");
    let mut returns = [0.0; 3];
    driver.state().returns(&mut returns);
    assert_eq!(f64::from(out.share[0]), returns[seat]);
    let expected = RewardMode::ZeroSum.of_share(returns[seat], 3) + c * (score_potential(driver.state(), seat) - start);
    assert!((total - expected).abs() < 1e-4, "{total} against {expected}");
}
