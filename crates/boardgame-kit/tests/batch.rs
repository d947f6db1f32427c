//! `Batch`: many games stepped together, checked on `HiddenNim`.
#![allow(clippy::needless_range_loop)] // game indices address several parallel arrays

use boardgame_kit::batch::{DENSE_MASK_LIMIT, PAD_ID};
use boardgame_kit::testgame::{HiddenNim, NimConfig};
use boardgame_kit::{
    ActionId, Agent, Batch, BatchBuffers, BatchError, CHANCE_STREAM, Game, GameRng, LegalFormat, Turn, play_game,
    sample_chance,
};

/// The legal ids of game `g` in `out`, from the id list or the mask.
fn legal(out: &BatchBuffers, g: usize) -> Vec<ActionId> {
    if !out.legal_ids.is_empty() {
        out.legal_ids(g).to_vec()
    } else {
        out.legal_mask(g).iter().enumerate().filter(|&(_, &m)| m == 1).map(|(i, _)| i as ActionId).collect()
    }
}

/// Uniformly random legal actions, one per game, from `rng`.
fn random_actions(out: &BatchBuffers, n: usize, rng: &mut GameRng) -> Vec<ActionId> {
    (0..n)
        .map(|g| {
            let ids = legal(out, g);
            assert!(!ids.is_empty(), "game {g} has legal actions");
            ids[rng.index(ids.len())]
        })
        .collect()
}

/// Every output of `steps` steps of a batch with a seeded random policy.
fn trajectory(config: &NimConfig, n: usize, seed: u64, threads: usize, steps: usize) -> Vec<BatchBuffers> {
    let mut batch = Batch::<HiddenNim>::new(config, n, seed).unwrap().with_threads(threads);
    let mut out = BatchBuffers::with_format(&batch, LegalFormat::Both, true);
    batch.observe(&mut out.view()).unwrap();
    let mut policy = GameRng::new(4242);
    let mut seen = vec![out.clone()];
    for _ in 0..steps {
        let actions = random_actions(&out, n, &mut policy);
        batch.step(&actions, &mut out.view()).unwrap();
        seen.push(out.clone());
    }
    seen
}

#[test]
fn results_do_not_depend_on_threads_or_run() {
    let config = NimConfig { stones: 7 };
    let one = trajectory(&config, 37, 11, 1, 120);
    assert!(one.iter().any(|o| o.done.contains(&1)), "games finished");
    for threads in [1, 2, 3, 8, 64] {
        assert!(one == trajectory(&config, 37, 11, threads, 120), "{threads} threads differ from 1");
    }
    // a different seed gives a different run
    assert!(one != trajectory(&config, 37, 12, 1, 120));
}

/// A solo game of `seed` (kit stream convention), checked decision by
/// decision against the batch's rows.
struct Solo {
    state: HiddenNim,
    chance: GameRng,
    seed: u64,
    /// The decisions played, per seat.
    decisions: [Vec<ActionId>; 2],
}

impl Solo {
    fn new(config: &NimConfig, seed: u64) -> Solo {
        let mut solo = Solo {
            state: HiddenNim::new_game(config).unwrap(),
            chance: GameRng::new(seed).child(CHANCE_STREAM),
            seed,
            decisions: [vec![], vec![]],
        };
        solo.resolve();
        solo
    }
    fn resolve(&mut self) {
        let mut buf = Default::default();
        while self.state.turn() == Turn::Chance {
            let a = sample_chance(&self.state, &mut self.chance, &mut buf).unwrap();
            self.state.apply(a).unwrap();
        }
    }
    /// Asserts that game `g`'s rows of `out` show this game's decision.
    fn check_rows(&self, out: &BatchBuffers, g: usize) {
        let Turn::Player(p) = self.state.turn() else { panic!("solo game waits for a decision") };
        assert_eq!(out.player[g], p as u32, "game {g}");
        let mut obs = vec![0f32; HiddenNim::observation_tensor_len(self.state.config())];
        self.state.write_observation_tensor(p, &mut obs).unwrap();
        assert_eq!(out.obs(g), &obs[..], "game {g}");
        let mut list = Default::default();
        self.state.legal_actions(&mut list);
        let ids: Vec<ActionId> = list.iter().map(|&a| HiddenNim::action_id(self.state.config(), a)).collect();
        assert_eq!(legal(out, g), ids, "game {g}");
        assert_eq!(out.legal_count[g] as usize, ids.len());
    }
    fn play(&mut self, id: ActionId) {
        let Turn::Player(p) = self.state.turn() else { panic!("a decision is due") };
        let a = HiddenNim::action_from_id(self.state.config(), id).unwrap();
        self.state.apply(a).unwrap();
        self.decisions[p].push(id);
        self.resolve();
    }
}

/// Replays one seat's decisions (for `play_game`).
struct Scripted(Vec<ActionId>, usize);

impl Agent<HiddenNim> for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn act(&mut self, state: &HiddenNim, _seat: usize, _rng: &mut GameRng) -> <HiddenNim as Game>::Action {
        let id = self.0[self.1];
        self.1 += 1;
        HiddenNim::action_from_id(state.config(), id).unwrap()
    }
}

#[test]
fn a_batch_game_equals_the_game_played_alone() {
    let config = NimConfig { stones: 9 };
    let n = 5;
    let seed = 300;
    for format in [LegalFormat::Mask, LegalFormat::Ids] {
        let mut batch = Batch::<HiddenNim>::new(&config, n, seed).unwrap();
        let mut out = BatchBuffers::with_format(&batch, format, true);
        batch.observe(&mut out.view()).unwrap();
        let mut solos: Vec<Solo> = (0..n).map(|g| Solo::new(&config, seed + g as u64)).collect();
        let mut policy = GameRng::new(9);
        let mut finished = 0;
        for _ in 0..200 {
            for (g, solo) in solos.iter().enumerate() {
                solo.check_rows(&out, g);
            }
            let actions = random_actions(&out, n, &mut policy);
            batch.step(&actions, &mut out.view()).unwrap();
            for g in 0..n {
                solos[g].play(actions[g]);
                if out.done[g] == 0 {
                    assert_eq!(out.rewards(g), &[0.0, 0.0]);
                    assert_eq!(batch.state(g), Some(&solos[g].state));
                    continue;
                }
                // the game ended: final returns, then the slot's next seed
                let solo = &solos[g];
                assert!(solo.state.is_terminal());
                let mut returns = [0.0; 2];
                solo.state.returns(&mut returns);
                assert_eq!(out.rewards(g), &returns.map(|r| r as f32));
                assert!((out.rewards(g).iter().sum::<f32>() - 1.0).abs() < 1e-6);
                // the kit's driver plays the same game from the same seed
                let mut a = Scripted(solo.decisions[0].clone(), 0);
                let mut b = Scripted(solo.decisions[1].clone(), 0);
                let mut agents: [&mut dyn Agent<HiddenNim>; 2] = [&mut a, &mut b];
                let driven = play_game::<HiddenNim>(&config, &mut agents, solo.seed).unwrap();
                assert_eq!(driven.state, solo.state);
                assert_eq!((a.1, b.1), (solo.decisions[0].len(), solo.decisions[1].len()));
                let next_seed = batch.game_seed(g, batch.finished(g).unwrap());
                assert_eq!(batch.current_seed(g), Some(next_seed));
                assert_eq!(next_seed, solo.seed + n as u64, "auto-reset takes the slot's next seed");
                solos[g] = Solo::new(&config, next_seed);
                finished += 1;
            }
        }
        assert!(finished > 3 * n, "{finished} games finished");
    }
}

#[test]
fn auto_reset_walks_the_seed_range() {
    let config = NimConfig { stones: 3 };
    let n = 4;
    let mut batch = Batch::<HiddenNim>::new(&config, n, 1000).unwrap();
    let mut out = BatchBuffers::new(&batch);
    batch.observe(&mut out.view()).unwrap();
    let mut played = vec![];
    let mut policy = GameRng::new(1);
    for _ in 0..100 {
        let before: Vec<u64> = (0..n).map(|g| batch.current_seed(g).unwrap()).collect();
        let actions = random_actions(&out, n, &mut policy);
        batch.step(&actions, &mut out.view()).unwrap();
        for g in 0..n {
            if out.done[g] == 1 {
                played.push(before[g]);
                assert_ne!(batch.current_seed(g), Some(before[g]));
                // the new game's first decision is shown: seat 0, full pile
                assert_eq!(out.player[g], 0);
                assert_eq!(batch.state(g).map(|s| s.observation(0).unwrap().stones), Some(3));
            }
        }
    }
    let done_everywhere = (0..n).map(|g| batch.finished(g).unwrap()).min().unwrap();
    assert!(done_everywhere >= 5);
    played.sort_unstable();
    let prefix: Vec<u64> = (1000..1000 + done_everywhere * n as u64).collect();
    assert_eq!(&played[..prefix.len()], &prefix[..], "seeds s..s+e·N were played");
    // reset restarts from a new batch seed, as a new batch would
    batch.reset(77);
    let fresh = Batch::<HiddenNim>::new(&config, n, 77).unwrap();
    for g in 0..n {
        assert_eq!(batch.state(g), fresh.state(g));
        assert_eq!(batch.current_seed(g), Some(77 + g as u64));
    }
}

#[test]
fn a_bad_action_is_a_typed_error_and_nothing_advances() {
    let config = NimConfig { stones: 6 };
    let n = 6;
    for threads in [1, 2] {
        let mut batch = Batch::<HiddenNim>::new(&config, n, 5).unwrap().with_threads(threads);
        let mut out = BatchBuffers::with_format(&batch, LegalFormat::Both, true);
        batch.observe(&mut out.view()).unwrap();
        let mut policy = GameRng::new(3);
        for _ in 0..3 {
            let actions = random_actions(&out, n, &mut policy);
            batch.step(&actions, &mut out.view()).unwrap();
        }
        let states: Vec<HiddenNim> = (0..n).map(|g| *batch.state(g).unwrap()).collect();
        let seen = out.clone();
        let good = random_actions(&out, n, &mut policy);

        // an id outside the action space
        let mut bad = good.clone();
        bad[4] = 99;
        let err = batch.step(&bad, &mut out.view()).unwrap_err();
        assert!(matches!(err, BatchError::Action { game: 4, id: 99, .. }), "{err}");
        assert!(err.to_string().starts_with("game 4: action id 99 refused: unknown action id 99"), "{err}");
        // a known id that is illegal here (a deal at a player's turn), in two games
        let mut bad = good.clone();
        bad[2] = 0;
        bad[5] = 1;
        let err = batch.step(&bad, &mut out.view()).unwrap_err();
        assert!(matches!(err, BatchError::Action { game: 2, id: 0, .. }), "{err}");
        assert!(err.to_string().contains("it is a player's turn"), "{err}");
        // wrong sizes
        let err = batch.step(&good[..n - 1], &mut out.view()).unwrap_err();
        assert!(matches!(err, BatchError::ActionCount { found: 5, expected: 6 }), "{err}");
        let mut short = out.clone();
        short.obs.pop();
        let err = batch.step(&good, &mut short.view()).unwrap_err();
        assert!(matches!(err, BatchError::Buffer { name: "obs", optional: true, .. }), "{err}");
        assert!(err.to_string().contains("or 0 to skip it"), "{err}");
        short = out.clone();
        short.rewards.push(0.0);
        let err = batch.step(&good, &mut short.view()).unwrap_err();
        assert!(matches!(err, BatchError::Buffer { name: "rewards", found: 13, expected: 12, optional: false }));

        for g in 0..n {
            assert_eq!(batch.state(g), Some(&states[g]), "game {g} did not advance");
        }
        assert!(out == seen, "outputs untouched");
        // the good actions still step every game
        batch.step(&good, &mut out.view()).unwrap();
        assert!((0..n).all(|g| batch.state(g) != Some(&states[g]) || out.done[g] == 1));
    }
}

#[test]
fn construction_errors_and_shapes() {
    let err = Batch::<HiddenNim>::new(&NimConfig { stones: 0 }, 3, 0).unwrap_err();
    assert!(matches!(err, BatchError::Config(_)));
    assert!(err.to_string().starts_with("invalid configuration: stones must be between 1 and 20"), "{err}");
    assert!(matches!(Batch::<HiddenNim>::new(&NimConfig::default(), 0, 0), Err(BatchError::NoGames)));

    let batch = Batch::<HiddenNim>::new(&NimConfig::default(), 3, 0).unwrap();
    assert_eq!((batch.num_games(), batch.num_players(), batch.observation_len()), (3, 2, 6));
    assert_eq!((batch.num_actions(), batch.max_legal()), (5, 3));
    assert_eq!(LegalFormat::for_actions(batch.num_actions()), LegalFormat::Mask);
    assert_eq!(LegalFormat::for_actions(DENSE_MASK_LIMIT + 1), LegalFormat::Ids);
    assert_eq!(batch.game_seed(2, 3), 2 + 3 * 3);
    assert_eq!(Batch::<HiddenNim>::new(&NimConfig::default(), 3, u64::MAX).unwrap().game_seed(1, 0), 0);
    let out = BatchBuffers::new(&batch);
    assert_eq!((out.obs.len(), out.legal_mask.len(), out.legal_ids.len(), out.rewards.len()), (18, 15, 0, 6));
}

#[test]
fn mask_and_ids_agree_and_skipped_outputs_stay_empty() {
    let config = NimConfig { stones: 4 };
    let n = 9;
    let mut batch = Batch::<HiddenNim>::new(&config, n, 0).unwrap();
    let mut both = BatchBuffers::with_format(&batch, LegalFormat::Both, true);
    let mut lean = BatchBuffers::with_format(&batch, LegalFormat::Ids, false);
    let mut twin = batch.clone();
    batch.observe(&mut both.view()).unwrap();
    twin.observe(&mut lean.view()).unwrap();
    let mut policy = GameRng::new(8);
    for _ in 0..40 {
        for g in 0..n {
            let count = both.legal_count[g] as usize;
            let ids = both.legal_ids(g);
            assert_eq!(ids.len(), count);
            let row = &both.legal_ids[g * 3..g * 3 + 3];
            assert!(row[count..].iter().all(|&id| id == PAD_ID), "padding");
            let from_mask: Vec<ActionId> =
                both.legal_mask(g).iter().enumerate().filter(|&(_, &m)| m == 1).map(|(i, _)| i as ActionId).collect();
            assert_eq!(ids, &from_mask[..]);
        }
        assert!(lean.obs.is_empty() && lean.legal_mask.is_empty());
        assert_eq!(
            (&lean.player, &lean.legal_count, &lean.legal_ids),
            (&both.player, &both.legal_count, &both.legal_ids)
        );
        assert_eq!((&lean.rewards, &lean.done), (&both.rewards, &both.done));
        let actions = random_actions(&both, n, &mut policy);
        batch.step(&actions, &mut both.view()).unwrap();
        twin.step(&actions, &mut lean.view()).unwrap();
    }
}
