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
    let mut masked = BatchBuffers::with_format(&batch, LegalFormat::Mask, false);
    let mut twin = batch.clone();
    let mut mask_twin = batch.clone();
    batch.observe(&mut both.view()).unwrap();
    twin.observe(&mut lean.view()).unwrap();
    mask_twin.observe(&mut masked.view()).unwrap();
    let mut policy = GameRng::new(8);
    for step in 0..40 {
        // the kit's random policy draws what a uniform choice over the legal
        // ids draws, from the id list and from the mask alike
        let mut drawn = vec![0; n];
        for out in [&both, &masked] {
            out.random_actions(&mut GameRng::new(step), &mut drawn);
            assert_eq!(drawn, random_actions(out, n, &mut GameRng::new(step)));
        }
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
        mask_twin.step(&actions, &mut masked.view()).unwrap();
    }
}

/// A game that chance may end before any decision: a coin is flipped;
/// heads ends the game (seat 0 wins), tails lets seat 0 `stop` (seat 1 wins).
mod flip {
    use std::fmt;
    use std::str::FromStr;

    use arrayvec::ArrayVec;
    use boardgame_kit::{ActionId, ChanceOutcome, Game, GameRng, Outcome, Turn, Viewer};
    use serde::{Deserialize, Serialize};

    #[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
    pub struct FlipConfig {
        /// The weight of tails (heads has weight 1).
        pub tails: u32,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum FlipAction {
        Heads,
        Tails,
        Stop,
    }

    impl fmt::Display for FlipAction {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{self:?}")
        }
    }

    impl FromStr for FlipAction {
        type Err = FlipError;
        fn from_str(s: &str) -> Result<Self, FlipError> {
            match s {
                "Heads" => Ok(FlipAction::Heads),
                "Tails" => Ok(FlipAction::Tails),
                "Stop" => Ok(FlipAction::Stop),
                _ => Err(FlipError("not an action")),
            }
        }
    }

    #[derive(Debug)]
    pub struct FlipError(&'static str);

    impl fmt::Display for FlipError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for FlipError {}

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Flip {
        config: FlipConfig,
        /// `None` before the flip, then its outcome.
        coin: Option<FlipAction>,
        stopped: bool,
    }

    impl Game for Flip {
        type Config = FlipConfig;
        type Action = FlipAction;
        type ActionList = ArrayVec<FlipAction, 2>;
        type ChanceList = ArrayVec<ChanceOutcome<FlipAction>, 2>;
        type Observation = Option<FlipAction>;
        type Error = FlipError;
        const NAME: &'static str = "flip";
        const RULES_VERSION: u32 = 1;

        fn new_game(config: &FlipConfig) -> Result<Self, FlipError> {
            Ok(Flip { config: *config, coin: None, stopped: false })
        }
        fn config(&self) -> &FlipConfig {
            &self.config
        }
        fn num_players(&self) -> usize {
            2
        }
        fn turn(&self) -> Turn {
            match (self.coin, self.stopped) {
                (None, _) => Turn::Chance,
                (Some(FlipAction::Tails), false) => Turn::Player(0),
                _ => Turn::Terminal,
            }
        }
        fn legal_actions(&self, out: &mut Self::ActionList) {
            out.clear();
            match self.turn() {
                Turn::Chance => {
                    let mut c = Self::ChanceList::default();
                    self.chance_outcomes(&mut c);
                    out.extend(c.iter().map(|o| o.action));
                }
                Turn::Player(_) => out.push(FlipAction::Stop),
                Turn::Terminal => {}
            }
        }
        fn chance_outcomes(&self, out: &mut Self::ChanceList) {
            out.clear();
            if self.turn() == Turn::Chance {
                out.push(ChanceOutcome { action: FlipAction::Heads, weight: 1 });
                if self.config.tails > 0 {
                    out.push(ChanceOutcome { action: FlipAction::Tails, weight: self.config.tails });
                }
            }
        }
        fn validate(&self, action: FlipAction) -> Result<(), FlipError> {
            let mut list = Self::ActionList::default();
            self.legal_actions(&mut list);
            if list.contains(&action) { Ok(()) } else { Err(FlipError("illegal now")) }
        }
        fn apply_unchecked(&mut self, action: FlipAction) {
            match action {
                FlipAction::Stop => self.stopped = true,
                coin => self.coin = Some(coin),
            }
        }
        fn outcome(&self) -> Option<Outcome> {
            (self.turn() == Turn::Terminal)
                .then(|| if self.coin == Some(FlipAction::Heads) { Outcome::Winner(0) } else { Outcome::Winner(1) })
        }
        fn score(&self, _seat: usize) -> i32 {
            0
        }
        fn num_distinct_actions(_: &FlipConfig) -> usize {
            3
        }
        fn max_game_length(_: &FlipConfig) -> usize {
            2
        }
        fn action_id(_: &FlipConfig, action: FlipAction) -> ActionId {
            action as ActionId
        }
        fn action_from_id(_: &FlipConfig, id: ActionId) -> Result<FlipAction, FlipError> {
            [FlipAction::Heads, FlipAction::Tails, FlipAction::Stop]
                .get(id as usize)
                .copied()
                .ok_or(FlipError("unknown id"))
        }
        fn view_action(&self, _viewer: Viewer, action: FlipAction) -> Option<FlipAction> {
            Some(action)
        }
        fn observation(&self, _seat: usize) -> Result<Option<FlipAction>, FlipError> {
            Ok(self.coin)
        }
        fn observation_tensor_shape(_: &FlipConfig) -> Vec<usize> {
            vec![1]
        }
        fn write_observation_tensor(&self, _seat: usize, out: &mut [f32]) -> Result<(), FlipError> {
            out[0] = self.coin.map_or(0.0, |c| c as u8 as f32 + 1.0);
            Ok(())
        }
        fn determinize(&self, _observer: usize, _rng: &mut GameRng) -> Result<Self, FlipError> {
            Ok(*self)
        }
    }
}

#[test]
fn games_that_chance_ends_before_any_decision_are_skipped() {
    use boardgame_kit::batch::{MAX_SKIPPED, NO_PLAYER};
    use flip::{Flip, FlipAction, FlipConfig};

    let config = FlipConfig { tails: 1 };
    // which seeds flip tails, by the kit's stream convention
    let tails = |seed: u64| {
        let state = Flip::new_game(&config).unwrap();
        let mut buf = Default::default();
        sample_chance(&state, &mut GameRng::new(seed).child(CHANCE_STREAM), &mut buf) == Some(FlipAction::Tails)
    };
    let n = 3;
    let mut batch = Batch::<Flip>::new(&config, n, 10).unwrap();
    let mut out = BatchBuffers::new(&batch);
    batch.observe(&mut out.view()).unwrap();
    let mut shown: Vec<Vec<u64>> = vec![vec![]; n];
    for _ in 0..40 {
        for (g, seeds) in shown.iter_mut().enumerate() {
            assert_eq!(out.player[g], 0, "every game waits for seat 0");
            seeds.push(batch.current_seed(g).unwrap());
        }
        batch.step(&[2; 3], &mut out.view()).unwrap();
        assert_eq!(out.done, vec![1; n], "stop ends every game");
        assert!((0..n).all(|g| out.rewards(g) == [0.0, 1.0]), "tails games are won by seat 1");
    }
    for (g, seeds) in shown.iter().enumerate() {
        // slot g shows exactly its seeds (10 + g + e·n) that flip tails, in order
        let expected: Vec<u64> =
            (0..).map(|e| 10 + g as u64 + e * n as u64).filter(|&s| tails(s)).take(seeds.len()).collect();
        assert_eq!(seeds, &expected, "slot {g}");
        assert!(batch.finished(g).unwrap() > 40, "skipped heads games count as finished");
    }

    // chance ends every game: after MAX_SKIPPED skips a slot gives up
    let mut batch = Batch::<Flip>::new(&FlipConfig { tails: 0 }, 2, 0).unwrap();
    let mut out = BatchBuffers::new(&batch);
    batch.observe(&mut out.view()).unwrap();
    assert_eq!(out.player, vec![NO_PLAYER; 2]);
    assert_eq!(out.legal_count, vec![0; 2]);
    assert_eq!(batch.finished(1), Some(MAX_SKIPPED as u64 + 1));
    let err = batch.step(&[2, 2], &mut out.view()).unwrap_err();
    assert!(matches!(err, BatchError::NotToMove { game: 0 }), "{err}");
    assert_eq!(err.to_string(), "game 0 waits for no player's decision");
}
