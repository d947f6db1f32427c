//! `Batch` over the real engines: Korovan and Caravan games stepped together
//! equal the same games played alone by the kit's `Driver` from the same seed, the
//! results do not depend on the number of threads, finished games restart
//! with the slot's next seed, and a bad action id stops the whole batch.

use boardgames::caravan::{Caravan, CaravanConfig};
use boardgames::kit::batch::PAD_ID;
use boardgames::kit::{ActionId, Batch, BatchBuffers, BatchError, Driver, Game, GameRng, LegalFormat, Turn};
use boardgames::korovan::{Korovan, KorovanConfig};

/// The legal ids of game `g`, from the id list or else the mask.
fn legal(out: &BatchBuffers, g: usize) -> Vec<ActionId> {
    if out.legal_ids.is_empty() {
        out.legal_mask(g).iter().enumerate().filter(|&(_, &m)| m == 1).map(|(i, _)| i as ActionId).collect()
    } else {
        out.legal_ids(g).to_vec()
    }
}

fn random_actions(out: &BatchBuffers, n: usize, rng: &mut GameRng) -> Vec<ActionId> {
    (0..n)
        .map(|g| {
            let ids = legal(out, g);
            assert!(!ids.is_empty(), "game {g} has a legal action");
            ids[rng.index(ids.len())]
        })
        .collect()
}

/// One game played alone from `seed` by the kit's `Driver` (chance from the
/// seed's chance stream), decisions applied from outside.
struct Solo<G: Game> {
    driver: Driver<G>,
    seed: u64,
}

impl<G: Game> Solo<G> {
    fn new(config: &G::Config, seed: u64) -> Self {
        let mut solo = Solo { driver: Driver::new(config, seed).unwrap(), seed };
        solo.resolve();
        solo
    }
    fn state(&self) -> &G {
        self.driver.state()
    }
    fn resolve(&mut self) {
        while self.driver.turn() == Turn::Chance {
            self.driver.step_chance().unwrap();
        }
    }
    /// Game `g`'s rows show this game's decision.
    fn check_rows(&self, out: &BatchBuffers, g: usize) {
        let state = self.state();
        let Turn::Player(p) = state.turn() else { panic!("game {g}: a decision is due") };
        assert_eq!(out.player[g], p as u32, "game {g}");
        let mut obs = vec![0f32; G::observation_tensor_len(state.config())];
        state.write_observation_tensor(p, &mut obs).unwrap();
        assert!(out.obs(g) == &obs[..], "game {g}: observation");
        let mut list = G::ActionList::default();
        state.legal_actions(&mut list);
        let ids: Vec<ActionId> = list.iter().map(|&a| G::action_id(state.config(), a)).collect();
        assert_eq!(legal(out, g), ids, "game {g}: legal actions");
        assert_eq!(out.legal_count[g] as usize, ids.len());
    }
    fn play(&mut self, id: ActionId) {
        let a = G::action_from_id(self.state().config(), id).unwrap();
        self.driver.apply(a).unwrap();
        self.resolve();
    }
}

/// Steps a batch and solo games side by side for `steps` steps; returns the
/// number of games finished.
fn batch_equals_solo<G: Game>(config: &G::Config, n: usize, seed: u64, steps: usize, format: LegalFormat) -> usize {
    let mut batch = Batch::<G>::new(config, n, seed).unwrap();
    let mut out = BatchBuffers::with_format(&batch, format, true);
    batch.observe(&mut out.view()).unwrap();
    let mut solos: Vec<Solo<G>> = (0..n).map(|g| Solo::new(config, seed + g as u64)).collect();
    let mut policy = GameRng::new(17);
    let mut finished = 0;
    let mut returns = vec![0.0; batch.num_players()];
    for _ in 0..steps {
        for (g, solo) in solos.iter().enumerate() {
            solo.check_rows(&out, g);
        }
        let actions = random_actions(&out, n, &mut policy);
        batch.step(&actions, &mut out.view()).unwrap();
        for (g, solo) in solos.iter_mut().enumerate() {
            solo.play(actions[g]);
            if out.done[g] == 0 {
                assert!(out.rewards(g).iter().all(|&r| r == 0.0));
                assert_eq!(batch.state(g), Some(solo.state()), "game {g}");
                continue;
            }
            assert!(solo.state().is_terminal(), "game {g} reported done at the end of its game");
            solo.state().returns(&mut returns);
            // the record of the game alone replays to the same end
            assert_eq!(&solo.driver.record().unwrap().replay::<G>().unwrap(), solo.state());
            let expected: Vec<f32> = returns.iter().map(|&r| r as f32).collect();
            assert_eq!(out.rewards(g), &expected[..], "game {g}: final returns");
            assert_eq!(batch.current_seed(g), Some(solo.seed + n as u64), "game {g}: the slot's next seed");
            *solo = Solo::new(config, solo.seed + n as u64);
            finished += 1;
        }
    }
    finished
}

#[test]
fn korovan_batch_games_equal_games_played_alone() {
    for players in [3, 5, 9] {
        let config = KorovanConfig { players, ..KorovanConfig::default() };
        for format in [LegalFormat::Mask, LegalFormat::Ids] {
            // random games last about 36, 128 and 476 actions (3, 5, 9 players)
            let steps = [0, 0, 0, 100, 0, 200, 0, 0, 0, 500][usize::from(players)];
            let finished = batch_equals_solo::<Korovan>(&config, 6, 40, steps, format);
            assert!(finished >= 3, "{players} players: {finished} games finished");
        }
    }
}

#[test]
fn caravan_batch_games_equal_games_played_alone() {
    for players in [2, 3, 4] {
        let config = CaravanConfig { players, ..CaravanConfig::default() };
        batch_equals_solo::<Caravan>(&config, 3, 7, 60, LegalFormat::Ids);
    }
    // long enough for games to finish and restart
    let config = CaravanConfig { players: 2, ..CaravanConfig::default() };
    let finished = batch_equals_solo::<Caravan>(&config, 2, 0, 3000, LegalFormat::Ids);
    assert!(finished >= 1, "{finished} Caravan games finished");
}

/// Every output of `steps` steps with a seeded random policy.
fn trajectory<G: Game>(config: &G::Config, n: usize, threads: usize, steps: usize) -> Vec<BatchBuffers> {
    let mut batch = Batch::<G>::new(config, n, 3).unwrap().with_threads(threads);
    let mut out = BatchBuffers::new(&batch);
    batch.observe(&mut out.view()).unwrap();
    let mut policy = GameRng::new(5);
    let mut seen = vec![];
    for _ in 0..steps {
        let actions = random_actions(&out, n, &mut policy);
        batch.step(&actions, &mut out.view()).unwrap();
        seen.push(out.clone());
    }
    seen
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let config = KorovanConfig { players: 5, ..KorovanConfig::default() };
    let one = trajectory::<Korovan>(&config, 23, 1, 120);
    assert!(one.iter().any(|o| o.done.contains(&1)));
    for threads in [2, 3, 7] {
        assert!(one == trajectory::<Korovan>(&config, 23, threads, 120), "korovan: {threads} threads");
    }
    let config = CaravanConfig { players: 3, ..CaravanConfig::default() };
    let one = trajectory::<Caravan>(&config, 5, 1, 40);
    for threads in [2, 5] {
        assert!(one == trajectory::<Caravan>(&config, 5, threads, 40), "caravan: {threads} threads");
    }
}

#[test]
fn default_formats_and_a_bad_id_stop_the_batch() {
    let korovan = Batch::<Korovan>::new(&KorovanConfig::default(), 4, 0).unwrap();
    let caravan = Batch::<Caravan>::new(&CaravanConfig { players: 3, ..CaravanConfig::default() }, 4, 0).unwrap();
    // Korovan's 103 ids: a dense mask; Caravan's tens of thousands: padded ids
    assert_eq!(korovan.num_actions(), 103);
    assert_eq!(LegalFormat::for_actions(korovan.num_actions()), LegalFormat::Mask);
    assert!(caravan.num_actions() > 40_000);
    assert_eq!(LegalFormat::for_actions(caravan.num_actions()), LegalFormat::Ids);
    let out = BatchBuffers::new(&caravan);
    assert!(out.legal_mask.is_empty() && out.legal_ids.len() == 4 * caravan.max_legal());

    let mut batch = caravan.with_threads(2);
    let mut out = BatchBuffers::new(&batch);
    batch.observe(&mut out.view()).unwrap();
    let width = batch.max_legal();
    for g in 0..4 {
        let count = out.legal_count[g] as usize;
        assert!(count > 0 && out.legal_ids[g * width + count..(g + 1) * width].iter().all(|&id| id == PAD_ID));
    }
    let states: Vec<Caravan> = (0..4).map(|g| *batch.state(g).unwrap()).collect();
    let mut actions: Vec<ActionId> = (0..4).map(|g| out.legal_ids(g)[0]).collect();
    actions[3] = u32::MAX - 1;
    let err = batch.step(&actions, &mut out.view()).unwrap_err();
    assert!(matches!(err, BatchError::Action { game: 3, .. }), "{err}");
    assert!(err.to_string().starts_with("game 3: action id 4294967294 refused: "), "{err}");
    // an id of the action space that is not legal now
    let illegal = (0..batch.num_actions() as ActionId).find(|id| !out.legal_ids(1).contains(id)).unwrap();
    actions[3] = out.legal_ids(3)[0];
    actions[1] = illegal;
    let err = batch.step(&actions, &mut out.view()).unwrap_err();
    assert!(matches!(err, BatchError::Action { game: 1, .. }), "{err}");
    for (g, s) in states.iter().enumerate() {
        assert_eq!(batch.state(g), Some(s), "game {g} did not advance");
    }
}
