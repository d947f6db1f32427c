//! A learned agent's decision allocates nothing, with a convolution
//! tower (`Graph`) as with an MLP: checked with a counting global
//! allocator over whole games of the test game.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use boardgame_kit::nn::{LearnedAgent, NetGame, Network, Tower};
use boardgame_kit::testgame::HiddenNim;
use boardgame_kit::{Agent, Game, GameRng, Turn};

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

/// A tower over the test game's observation read as one row of planes.
fn tower_net() -> Network {
    let len = HiddenNim::observation_tensor_len(&Default::default());
    let tower = Tower {
        inputs: len,
        planes: vec![(0, 1)],
        globals: vec![(0, len)],
        height: 1,
        width: len,
        channels: 6,
        blocks: 2,
        hidden: 8,
        policy_before: HiddenNim::POLICY_LEN,
        policy_planes: 0,
        policy_after: 0,
        value_len: HiddenNim::VALUE_LEN,
    };
    Network::from_graph("hidden-nim", HiddenNim::POLICY_LEN, HiddenNim::VALUE_LEN, "", tower.build(3).unwrap()).unwrap()
}

#[test]
fn learned_decisions_do_not_allocate() {
    let probe = allocations();
    let v = std::hint::black_box(vec![1u8; 8]);
    assert!(allocations() > probe && v.len() == 8, "the counter sees allocations");
    let len = HiddenNim::observation_tensor_len(&Default::default());
    let nets = [tower_net(), Network::new_random("hidden-nim", len, &[8, 8], 5, 2, 1).unwrap()];
    assert!(nets[0].mlp().is_none() && nets[1].mlp().is_some());
    for net in nets {
        let net = Arc::new(net);
        let mut agent = LearnedAgent::<HiddenNim>::new(net.clone(), 0.0).unwrap();
        let mut hot = LearnedAgent::<HiddenNim>::new(net.clone(), 1.0).unwrap();
        let mut rng = GameRng::new(7);
        let mut chances = <HiddenNim as Game>::ChanceList::default();
        let mut decisions = 0;
        for game in 0..20 {
            let mut state = HiddenNim::new_game(&Default::default()).unwrap();
            while !state.is_terminal() {
                let a = match state.turn() {
                    Turn::Player(seat) => {
                        let before = allocations();
                        let a = if game % 2 == 0 {
                            agent.act(&state, seat, &mut rng)
                        } else {
                            hot.act(&state, seat, &mut rng)
                        };
                        assert_eq!(allocations(), before, "a decision allocated");
                        decisions += 1;
                        a
                    }
                    _ => boardgame_kit::sample_chance(&state, &mut rng, &mut chances).unwrap(),
                };
                state.apply(a).unwrap();
            }
        }
        assert!(decisions > 20);
        // The forward pass itself, on a fresh scratch made before counting.
        let mut scratch = net.scratch();
        let mut out = vec![0.0; net.outputs()];
        let input = vec![0.5; len];
        let before = allocations();
        net.forward(&input, &mut scratch, &mut out).unwrap();
        assert_eq!(allocations(), before);
        assert!(out.iter().all(|x| x.is_finite()));
    }
}
