//! Embedding the Caravan engine: a 3-player game from a seed, a small greedy
//! policy (seat 0) against two random agents, the board every few turns and
//! the final scores.
//!
//! Run with `cargo run --release --example embed_caravan [seed]`.

use boardgames::caravan::{Act, Action, Caravan, CaravanConfig, Cargo, Square};
use boardgames::kit::{Agent, Game, GameRng, RandomAgent, Turn, sample_chance};

/// A greedy policy, written against the public API only: deliver if it can;
/// move a good closer to its city; lay a chain of camels from a laden camel
/// towards the city its good wants; pick up a good while few are carried;
/// else play a random legal action.
struct Greedy;

impl Agent<Caravan> for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn act(&mut self, state: &Caravan, seat: usize, rng: &mut GameRng) -> Action {
        // Legal actions go into a fixed-capacity list: no allocation.
        let mut actions = <Caravan as Game>::ActionList::default();
        state.legal_actions(&mut actions);
        let board = state.config().board;
        let dist = |a: Square, b: Square| a.row().abs_diff(b.row()) + a.col().abs_diff(b.col());
        // Our camels (square, cargo), and the cities our goods want.
        let camels: Vec<(Square, Cargo)> = state.camels_on_board(seat).collect();
        let cities: Vec<Square> = camels.iter().filter_map(|(_, c)| c.kind()).map(|k| board.city(k)).collect();
        let closer = |to: Square| {
            camels
                .iter()
                .any(|&(sq, _)| dist(sq, to) == 1 && cities.iter().any(|&city| dist(to, city) < dist(sq, city)))
        };
        // Rank every action; `Act` is the decoded, readable form of an action.
        let rank = |a: &Action| match a.act() {
            Act::Good { kind, to, .. } if board.city(kind) == to => 100,
            Act::Good { kind, from, to, .. } if dist(to, board.city(kind)) < dist(from, board.city(kind)) => 50,
            Act::Move { from: None, to } if closer(to) => 20,
            Act::Pick { .. } if cities.len() < 2 => 10,
            _ => 0,
        };
        // The first best-ranked action of the list, or a random one.
        match actions.iter().min_by_key(|a| std::cmp::Reverse(rank(a))) {
            Some(&a) if rank(&a) > 0 => a,
            _ => actions[rng.index(actions.len())],
        }
    }
}

fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2024);
    // The rules' defaults with 3 players; `validate` runs inside `new_game`.
    let config = CaravanConfig::with_players(3);
    let mut game = Caravan::new_game(&config).expect("a valid configuration");

    // One generator per purpose, all derived from the seed: same seed, same game.
    let root = GameRng::new(seed);
    let mut chance_rng = root.child(0);
    let mut seat_rngs = [root.child(1), root.child(2), root.child(3)];
    let mut greedy = Greedy;
    let mut random = RandomAgent;
    let mut chances = <Caravan as Game>::ChanceList::default();
    let mut last_shown = u32::MAX;

    while !game.is_terminal() {
        // Show the board at the start of every 15th turn (after any draws).
        if game.turn_index().is_multiple_of(15) && game.turn_index() != last_shown && game.turn() != Turn::Chance {
            last_shown = game.turn_index();
            println!("{game}");
        }
        let action = match game.turn() {
            // Draws from the bag are explicit chance nodes with exact weights.
            Turn::Chance => sample_chance(&game, &mut chance_rng, &mut chances).expect("a chance node"),
            Turn::Player(0) => greedy.act(&game, 0, &mut seat_rngs[0]),
            Turn::Player(seat) => Agent::<Caravan>::act(&mut random, &game, seat, &mut seat_rngs[seat]),
            Turn::Terminal => unreachable!("the loop stops at the end"),
        };
        // `apply` validates; an illegal action would be a typed error.
        game.apply(action).expect("agents play legal actions");
    }

    println!("{game}");
    println!("ended by {:?} after {} turns", game.end_kind(), game.turn_index());
    for seat in 0..game.num_players() {
        let who = if seat == 0 { "greedy" } else { "random" };
        println!("P{seat} ({who}): {} points, {} goods delivered", game.score(seat), game.delivered_count(seat));
    }
    println!("outcome: {:?}", game.outcome().expect("the game is over"));
}
