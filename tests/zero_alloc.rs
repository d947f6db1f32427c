//! Zero heap allocation in the hot paths (issue "Performance").
//!
//! A counting global allocator counts allocations made by this thread while
//! counting is on. After a warm-up game, complete random games of every
//! engine — legal-action generation, chance sampling, checked `apply`,
//! `clone`, and the observation tensor of every seat written into a caller
//! buffer at every step — must perform **zero** allocations.
//!
//! The same holds for `Batch::step` on one thread: after construction, a
//! step of every game (validation, apply, chance, auto-reset, observation,
//! mask or padded ids, rewards) writes into preallocated buffers only.
//!
//! `unsafe` is needed to implement `GlobalAlloc`; it only forwards to the
//! system allocator. This file is a test, not library code.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use boardgames::caravan::{Caravan, CaravanConfig};
use boardgames::kit::testgame::{HiddenNim, NimConfig};
use boardgames::kit::{ActionId, Batch, BatchBuffers, Game, GameRng, LegalFormat, Turn, sample_chance};
use boardgames::korovan::{Korovan, KorovanConfig};

struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call unchanged to the system allocator; the
// thread-local cells are const-initialised and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ON.with(|on| on.get()) {
            COUNT.with(|c| c.set(c.get() + 1));
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ON.with(|on| on.get()) {
            COUNT.with(|c| c.set(c.get() + 1));
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Plays one complete random game with every hot-path call; returns actions.
fn full_game<G: Game>(config: &G::Config, rng: &mut GameRng, tensor: &mut [f32]) -> usize {
    let Ok(mut state) = G::new_game(config) else { return 0 };
    let mut list = G::ActionList::default();
    let mut chances = G::ChanceList::default();
    let mut steps = 0;
    loop {
        for seat in 0..state.num_players() {
            let _ = state.write_observation_tensor(seat, tensor);
        }
        let action = match state.turn() {
            Turn::Terminal => break,
            Turn::Chance => match sample_chance(&state, rng, &mut chances) {
                Some(a) => a,
                None => break,
            },
            Turn::Player(_) => {
                state.legal_actions(&mut list);
                list[rng.index(list.len())]
            }
        };
        let copy = state.clone();
        if state.apply(action).is_err() || copy == state {
            // every action changes the state; reaching here is a bug
            return usize::MAX;
        }
        steps += 1;
    }
    steps
}

fn assert_no_allocations<G: Game>(config: G::Config, games: usize) {
    let mut tensor = vec![0f32; G::observation_tensor_len(&config)];
    let mut rng = GameRng::new(99);
    // warm-up (lazy statics, first-use initialisation)
    assert!(full_game::<G>(&config, &mut rng, &mut tensor) > 0);
    COUNT.with(|c| c.set(0));
    ON.with(|on| on.set(true));
    let mut actions = 0usize;
    for _ in 0..games {
        actions = actions.saturating_add(full_game::<G>(&config, &mut rng, &mut tensor));
    }
    ON.with(|on| on.set(false));
    let count = COUNT.with(|c| c.get());
    assert!(actions > games && actions < usize::MAX / 2, "games were played ({actions} actions)");
    assert_eq!(count, 0, "{} made {count} allocations over {games} games ({actions} actions)", G::NAME);
}

#[test]
fn the_counter_counts() {
    ON.with(|on| on.set(true));
    let v = std::hint::black_box(vec![1u8; 10]);
    ON.with(|on| on.set(false));
    assert_eq!(v.len(), 10);
    assert!(COUNT.with(|c| c.get()) >= 1);
}

#[test]
fn hidden_nim_allocates_nothing() {
    assert_no_allocations::<HiddenNim>(NimConfig { stones: 20 }, 200);
}

#[test]
fn korovan_allocates_nothing() {
    for players in [3, 5, 9] {
        let config = KorovanConfig { players, ..KorovanConfig::default() };
        assert_no_allocations::<Korovan>(config, 30);
    }
}

#[test]
fn caravan_allocates_nothing() {
    for players in [2, 3, 4] {
        let config = CaravanConfig { players, ..CaravanConfig::default() };
        assert_no_allocations::<Caravan>(config, 3);
    }
}

/// Steps a batch of `games` games `steps` times with uniformly random legal
/// actions (read from the legal outputs) and counts allocations.
fn assert_batch_allocates_nothing<G: Game>(config: G::Config, games: usize, steps: usize, format: LegalFormat) {
    let mut batch = Batch::<G>::new(&config, games, 5).expect("valid config");
    let mut out = BatchBuffers::with_format(&batch, format, true);
    batch.observe(&mut out.view()).expect("buffers fit");
    let mut actions: Vec<ActionId> = vec![0; games];
    let mut rng = GameRng::new(6);
    let width = batch.max_legal();
    let masks = batch.num_actions();
    let mut step = |batch: &mut Batch<G>, out: &mut BatchBuffers| {
        for (g, a) in actions.iter_mut().enumerate() {
            let k = rng.index(out.legal_count[g] as usize);
            *a = if out.legal_ids.is_empty() {
                let row = &out.legal_mask[g * masks..(g + 1) * masks];
                row.iter().enumerate().filter(|&(_, &m)| m == 1).nth(k).map_or(0, |(id, _)| id as ActionId)
            } else {
                out.legal_ids[g * width + k]
            };
        }
        batch.step(&actions, &mut out.view()).is_ok()
    };
    for _ in 0..10 {
        assert!(step(&mut batch, &mut out));
    }
    COUNT.with(|c| c.set(0));
    ON.with(|on| on.set(true));
    let mut ok = 0;
    let mut finished = 0;
    for _ in 0..steps {
        ok += usize::from(step(&mut batch, &mut out));
        finished += out.done.iter().filter(|&&d| d == 1).count();
    }
    ON.with(|on| on.set(false));
    let count = COUNT.with(|c| c.get());
    assert_eq!(ok, steps, "every step succeeded");
    assert!(finished > 0, "games finished and restarted");
    assert_eq!(count, 0, "Batch<{}> made {count} allocations over {steps} steps of {games} games", G::NAME);
}

#[test]
fn batch_step_allocates_nothing() {
    assert_batch_allocates_nothing::<HiddenNim>(NimConfig { stones: 20 }, 16, 200, LegalFormat::Both);
    for players in [3, 5, 9] {
        let config = KorovanConfig { players, ..KorovanConfig::default() };
        assert_batch_allocates_nothing::<Korovan>(config, 32, 600, LegalFormat::Mask);
    }
    let config = CaravanConfig { players: 3, ..CaravanConfig::default() };
    assert_batch_allocates_nothing::<Caravan>(config, 4, 1500, LegalFormat::Ids);
}

/// A `learned` decision (the observation tensor, the forward
/// pass, the legal actions' policy indices, the choice and the kept
/// policy) allocates nothing once the agent is built, greedy or sampled.
fn assert_learned_allocates_nothing<G: boardgames::kit::nn::NetGame>(
    config: G::Config,
    net: std::sync::Arc<boardgames::kit::nn::Network>,
) {
    use boardgames::kit::Agent;
    for temperature in [0.0, 1.0] {
        let mut agent = boardgames::kit::nn::LearnedAgent::<G>::new(net.clone(), temperature).unwrap();
        let mut state = G::new_game(&config).unwrap();
        let mut rng = GameRng::new(7);
        let mut chances = G::ChanceList::default();
        let (mut decisions, mut count) = (0usize, 0usize);
        while !state.is_terminal() && decisions < 400 {
            let a = match state.turn() {
                Turn::Player(s) => {
                    COUNT.with(|c| c.set(0));
                    ON.with(|on| on.set(true));
                    let a = agent.act(&state, s, &mut rng);
                    ON.with(|on| on.set(false));
                    count += COUNT.with(|c| c.get());
                    decisions += 1;
                    a
                }
                _ => sample_chance(&state, &mut rng, &mut chances).unwrap(),
            };
            state.apply(a).unwrap();
        }
        assert!(decisions > 10, "{decisions} decisions");
        assert_eq!(count, 0, "{}: {count} allocations in {decisions} learned decisions", G::NAME);
    }
}

#[test]
fn learned_decisions_allocate_nothing() {
    assert_learned_allocates_nothing::<Korovan>(
        KorovanConfig::with_players(5),
        boardgames::korovan::learned_network().unwrap(),
    );
    assert_learned_allocates_nothing::<Caravan>(
        CaravanConfig::with_players(2),
        boardgames::caravan::learned_network().unwrap(),
    );
}
