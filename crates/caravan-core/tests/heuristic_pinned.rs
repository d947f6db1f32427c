//! Pins the choices of the Caravan heuristic (`CaravanHeuristic::plan`) over
//! every decision of many seeded games: a digest of the action id it plans
//! in each state, so any change to its decisions — a faster cost map, a
//! different tie-break — fails here loudly. The value was computed with the
//! planner as it was before its speed work; a change that is meant to alter
//! the heuristic's play re-pins it (and says so in its commit).
//!
//! The games are driven by this file's own choices (not by `play_game` or
//! `sample_chance`), from sorted lists of legal ids and chance outcomes, so
//! the states they visit depend only on the rules' legal sets and chance
//! outcomes, not on the order an engine lists them in or on how it draws.
//! Seats are of three kinds: `H` plays the plan, `R` a uniformly random
//! legal action, `M` the plan with probability 3/4 and a random action
//! otherwise; the plan is asked for (and digested) at every decision, whoever
//! plays it.

use std::hash::Hasher;

use boardgame_kit::{Fnv1a, Game, GameRng, Turn};
use caravan_core::{Caravan, CaravanConfig, CaravanHeuristic};

/// Plays one game with `seats` (a letter per seat, see the module docs) and
/// folds the id of the heuristic's plan at every decision into `h`; returns
/// the number of decisions.
fn game(config: &CaravanConfig, seats: &str, seed: u64, h: &mut Fnv1a) -> usize {
    let seats: Vec<u8> = seats.bytes().collect();
    let mut state = Caravan::new_game(config).unwrap();
    let mut rng = GameRng::new(seed);
    let bot = CaravanHeuristic::new();
    let mut list = <Caravan as Game>::ActionList::default();
    let mut chances = <Caravan as Game>::ChanceList::default();
    let mut decisions = 0;
    loop {
        let action = match state.turn() {
            Turn::Terminal => return decisions,
            Turn::Chance => {
                state.chance_outcomes(&mut chances);
                let mut outcomes: Vec<(u32, u32, _)> =
                    chances.iter().map(|o| (Caravan::action_id(config, o.action), o.weight, o.action)).collect();
                outcomes.sort_by_key(|o| o.0);
                let total: u64 = outcomes.iter().map(|o| u64::from(o.1)).sum();
                let mut r = rng.below_u64(total);
                let mut pick = outcomes[0].2;
                for o in &outcomes {
                    if r < u64::from(o.1) {
                        pick = o.2;
                        break;
                    }
                    r -= u64::from(o.1);
                }
                pick
            }
            Turn::Player(seat) => {
                decisions += 1;
                let plan = bot.plan(&state, seat);
                assert!(state.validate(plan).is_ok(), "the plan {plan} is legal");
                h.write_u32(Caravan::action_id(config, plan));
                let random = match seats[seat] {
                    b'H' => false,
                    b'R' => true,
                    _ => rng.below(4) == 0,
                };
                if random {
                    state.legal_actions(&mut list);
                    let mut ids: Vec<u32> = list.iter().map(|&a| Caravan::action_id(config, a)).collect();
                    ids.sort_unstable();
                    Caravan::action_from_id(config, ids[rng.index(ids.len())]).unwrap()
                } else {
                    plan
                }
            }
        };
        state.apply(action).unwrap();
    }
}

/// Every player count, both camel counts, heuristic-only, mixed, random-only
/// and heuristic-against-random tables; returns (decisions, digest).
fn digest(games_per_table: u64) -> (usize, u64) {
    let mut h = Fnv1a::new();
    let mut decisions = 0;
    for players in 2..=4u8 {
        for camels in [5u8, 6] {
            let all = |c: char| std::iter::repeat_n(c, usize::from(players)).collect::<String>();
            let one_h = format!("H{}", "R".repeat(usize::from(players) - 1));
            let tables = [(all('H'), 400), (all('M'), 250), (one_h, 120), (all('R'), 60)];
            for (seats, max_turns) in &tables {
                let config = CaravanConfig { players, camels, max_turns: *max_turns, ..Default::default() };
                for g in 0..games_per_table {
                    let seed = 1000 * u64::from(players) + 100 * u64::from(camels) + g;
                    decisions += game(&config, seats, seed, &mut h);
                }
            }
        }
    }
    (decisions, h.finish())
}

#[test]
fn heuristic_choices_are_pinned() {
    let (decisions, h) = digest(8);
    assert_eq!((decisions, h), (62_665, 7_529_886_263_429_202_328), "decisions and digest of the heuristic's plans");
}
