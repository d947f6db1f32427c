//! The hot paths never allocate: legal actions, chance outcomes, validate,
//! apply (legal or not), apply_unchecked, clone, the observation tensor and
//! the compact actions (mask, both mappings, their errors), checked with a counting global allocator along random games.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use boardgame_kit::{Game, GameRng, Turn};
use caravan_core::{Action, Caravan, CaravanConfig, TENSOR_LEN, compact_num_actions};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(|a| a.get())
}

#[test]
fn hot_paths_do_not_allocate() {
    // the counter sees allocations
    let start = allocations();
    let probe = std::hint::black_box(vec![1u8; 16]);
    assert!(allocations() > start && probe.len() == 16);
    for players in 2..=4u8 {
        let config = CaravanConfig { players, max_turns: 150, ..CaravanConfig::default() };
        let mut rng = GameRng::new(u64::from(players));
        let mut tensor = vec![0f32; TENSOR_LEN];
        let mut mask = vec![false; compact_num_actions(&config)];
        let mut short = [0u8; 3];
        let before = allocations();
        // new_game (config validation included) does not allocate either
        let mut state = Caravan::new_game(&config).unwrap();
        let mut list = <Caravan as Game>::ActionList::default();
        let mut chances = <Caravan as Game>::ChanceList::default();
        while !state.is_terminal() {
            state.write_observation_tensor(0, &mut tensor).unwrap();
            let action = match state.turn() {
                Turn::Chance => {
                    state.chance_outcomes(&mut chances);
                    chances[rng.index(chances.len())].action
                }
                _ => {
                    state.legal_actions(&mut list);
                    list[rng.index(list.len())]
                }
            };
            // the compact actions: mask, both mappings, bad ids
            state.write_compact_mask(&mut mask).unwrap();
            assert!(state.write_compact_mask(&mut short).is_err());
            if state.turn() != Turn::Chance {
                let id = state.compact_id(action).unwrap();
                assert_eq!(state.compact_action(id), Ok(action));
                let bogus = rng.below(1000);
                let _ = state.compact_action(bogus);
                let _ = state.compact_id(Action::from_id(rng.below(40_000)).unwrap());
            } else {
                assert!(state.compact_action(0).is_err());
            }
            // an illegal action: an error, no allocation
            let mut copy = state;
            let bogus = Action::from_id(rng.below(40_000)).unwrap();
            let _ = copy.apply(bogus);
            state.validate(action).unwrap();
            let mut fast = state; // a clone is a copy
            fast.apply_unchecked(action);
            state.apply(action).unwrap();
            assert_eq!(fast, state);
        }
        assert_eq!(allocations(), before, "{players} players: the hot paths allocated");
    }
}
