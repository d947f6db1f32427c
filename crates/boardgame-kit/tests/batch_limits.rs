//! Issue 22 items 10 and 11: a batch too large for the memory is an error
//! (`BatchError::OutOfMemory`), never an abort of the process or a
//! "capacity overflow" panic; `reset` reuses the batch's memory; a step on
//! many threads gives the results of one thread.

use boardgame_kit::testgame::{HiddenNim, NimConfig};
use boardgame_kit::{Batch, BatchBuffers, BatchError, GameRng};

#[test]
fn a_batch_beyond_the_memory_is_an_error() {
    let config = NimConfig::default();
    for games in [usize::MAX, usize::MAX / 2, 1 << 62, 1 << 50, 1 << 45] {
        match Batch::<HiddenNim>::new(&config, games, 0) {
            Err(BatchError::OutOfMemory { games: g, bytes }) => {
                assert_eq!(g, games);
                assert_eq!(bytes, Batch::<HiddenNim>::bytes_for(games));
            }
            Err(e) => panic!("{games} games: {e}"),
            Ok(_) => panic!("{games} games were allocated"),
        }
    }
    assert_eq!(Batch::<HiddenNim>::bytes_for(usize::MAX), None);
    let message = Batch::<HiddenNim>::new(&config, usize::MAX, 0).err().unwrap().to_string();
    assert_eq!(
        message,
        format!("cannot allocate a batch of {} games (more bytes than the address space holds)", usize::MAX)
    );
}

#[test]
fn reset_replays_the_same_games_in_place() {
    let config = NimConfig::default();
    let mut batch = Batch::<HiddenNim>::new(&config, 37, 9).unwrap();
    let mut out = BatchBuffers::new(&batch);
    let mut actions = vec![0; 37];
    let mut run = |batch: &mut Batch<HiddenNim>| {
        let mut rng = GameRng::new(1);
        let mut seen = Vec::new();
        batch.observe(&mut out.view()).unwrap();
        for _ in 0..50 {
            out.random_actions(&mut rng, &mut actions);
            batch.step(&actions, &mut out.view()).unwrap();
            seen.push((out.player.clone(), out.done.clone(), out.rewards.clone()));
        }
        seen
    };
    let first = run(&mut batch);
    assert!((0..37).any(|g| batch.finished(g).unwrap() > 0), "some games ended");
    batch.reset(9);
    assert!((0..37).all(|g| batch.finished(g) == Some(0)));
    assert_eq!((0..37).map(|g| batch.current_seed(g).unwrap()).collect::<Vec<_>>(), (9..46).collect::<Vec<u64>>());
    let fresh = Batch::<HiddenNim>::new(&config, 37, 9).unwrap();
    assert_eq!(format!("{batch:?}"), format!("{fresh:?}"), "a reset batch is a new batch");
    assert_eq!(run(&mut batch), first, "the same games again");
}

#[test]
fn many_threads_step_as_one() {
    let config = NimConfig::default();
    let steps = |threads: usize| {
        let mut batch = Batch::<HiddenNim>::new(&config, 64, 3).unwrap().with_threads(threads);
        let mut out = BatchBuffers::new(&batch);
        let mut rng = GameRng::new(2);
        let mut actions = vec![0; 64];
        batch.observe(&mut out.view()).unwrap();
        let mut seen = Vec::new();
        for _ in 0..40 {
            out.random_actions(&mut rng, &mut actions);
            batch.step(&actions, &mut out.view()).unwrap();
            seen.push((out.player.clone(), out.legal_count.clone(), out.rewards.clone(), out.done.clone()));
        }
        seen
    };
    let one = steps(1);
    for threads in [2, 7, 64, 1024] {
        assert_eq!(steps(threads), one, "{threads} threads");
    }
}
