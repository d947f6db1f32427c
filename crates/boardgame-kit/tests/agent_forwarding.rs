//! `Box<A>` and `&mut A` are agents that forward every method of `A`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use boardgame_kit::testgame::HiddenNim;
use boardgame_kit::{Agent, Game, GameRng, RandomAgent, Turn, random_action};

/// An agent that overrides every provided method and counts its calls
/// of `act` and `reset`, to see nothing is lost behind a box or a
/// borrow.
#[derive(Default)]
struct Marked {
    acts: Arc<AtomicUsize>,
    resets: Arc<AtomicUsize>,
}

impl Agent<HiddenNim> for Marked {
    fn name(&self) -> String {
        "marked".to_string()
    }
    fn act(&mut self, state: &HiddenNim, seat: usize, rng: &mut GameRng) -> <HiddenNim as Game>::Action {
        self.acts.fetch_add(1, Ordering::Relaxed);
        RandomAgent.act(state, seat, rng)
    }
    fn reset(&mut self) {
        self.resets.fetch_add(1, Ordering::Relaxed);
    }
    fn policy(&self, out: &mut Vec<(<HiddenNim as Game>::Action, f64)>) {
        out.clear();
        out.push(("take 1".parse().unwrap(), 1.0));
    }
}

/// Calls every method of `agent` once through the trait; returns its
/// name and the length of the policy it wrote.
fn exercise<A: Agent<HiddenNim>>(agent: &mut A) -> (String, usize) {
    let mut state = HiddenNim::new_game(&Default::default()).unwrap();
    let mut rng = GameRng::new(1);
    while state.turn() == Turn::Chance {
        let a = random_action(&state, &mut rng).unwrap();
        state.apply(a).unwrap();
    }
    let Turn::Player(seat) = state.turn() else { unreachable!() };
    let action = agent.act(&state, seat, &mut rng);
    assert!(state.is_legal(action));
    agent.reset();
    let mut policy = vec![("take 2".parse().unwrap(), 0.5)];
    agent.policy(&mut policy);
    (agent.name(), policy.len())
}

#[test]
fn boxes_and_borrows_forward_every_method() {
    let marked = Marked::default();
    let (acts, resets) = (Arc::clone(&marked.acts), Arc::clone(&marked.resets));
    let counts = || (acts.load(Ordering::Relaxed), resets.load(Ordering::Relaxed));

    let mut boxed: Box<dyn Agent<HiddenNim>> = Box::new(marked);
    assert_eq!(exercise(&mut boxed), ("marked".to_string(), 1));
    assert_eq!(counts(), (1, 1));
    assert_eq!(exercise(&mut &mut boxed), ("marked".to_string(), 1));
    assert_eq!(counts(), (2, 2));
    let mut borrowed: &mut dyn Agent<HiddenNim> = &mut boxed;
    assert_eq!(exercise(&mut borrowed), ("marked".to_string(), 1));
    assert_eq!(counts(), (3, 3));
    assert_eq!(exercise(&mut Box::new(&mut boxed)), ("marked".to_string(), 1));
    assert_eq!(counts(), (4, 4));

    // The defaults stay the defaults: a random agent writes no policy.
    let mut random: Box<dyn Agent<HiddenNim>> = Box::new(RandomAgent);
    assert_eq!(exercise(&mut &mut random), ("random".to_string(), 0));
}
