//! Embedding the Korovan engine: a 5-player game from a seed, seat 0 played
//! by a small scripted policy, the others by the kit's random agent.
//! Run with `cargo run --example embed_korovan`.

use boardgames::kit::{Agent, Game, GameRng, RandomAgent, Turn, sample_chance};
use boardgames::korovan::{Action, Korovan, KorovanConfig, Phase};

/// Seat 0's policy: defend when ambushed, steer to a card it knows is Empty,
/// otherwise act like the random agent. It reads only its own observation,
/// so it can never cheat (K-8.5).
fn scripted(game: &Korovan, rng: &mut GameRng) -> Action {
    let mut legal = Default::default();
    game.legal_actions(&mut legal);
    let obs = game.observation(0).expect("seat 0 exists");
    // A cell (row r, position p) is bit 3·(r−1)+p of the observation's masks.
    let known_empty = obs.known & !obs.known_ambush;
    let safe =
        |p: u8| obs.current_row.is_some_and(|r| known_empty & (1 << ((u32::from(r) - 1) * 3 + u32::from(p))) != 0);
    let prefer = |a: &Action| match (obs.phase, *a) {
        (Phase::Defend, Action::Guard) => 3, // cheapest way out first
        (Phase::Defend, Action::Haggle) => 2,
        (Phase::Place, Action::Place(p)) if safe(p) => 2,
        (Phase::Decide, Action::Switch(p)) if safe(p) => 2,
        (Phase::Decide, Action::Reveal) if obs.token.is_some_and(safe) => 2,
        _ => 0,
    };
    match legal.iter().max_by_key(|a| prefer(a)) {
        Some(a) if prefer(a) > 0 => *a,
        _ => legal[rng.index(legal.len())], // nothing better: pick at random
    }
}

fn main() {
    // A validated configuration: 5 players, the default 27-card helper deck.
    let config = KorovanConfig::with_players(5);
    let mut game = Korovan::new_game(&config).expect("5 players is a valid config");
    // One seeded generator: child 0 draws the chance outcomes, child 1 the agents.
    let seed = GameRng::new(2024);
    let (mut chance, mut agents) = (seed.child(0), seed.child(1));
    let mut random = RandomAgent;
    let mut chances = Default::default();
    let mut step = 0;
    while !game.is_terminal() {
        let (who, action) = match game.turn() {
            // The deal is explicit chance (K-3.1): sample it by its weights.
            Turn::Chance => ("chance".to_string(), sample_chance(&game, &mut chance, &mut chances)),
            Turn::Player(0) => ("seat 0".to_string(), Some(scripted(&game, &mut agents))),
            Turn::Player(p) => (format!("seat {p}"), Some(random.act(&game, p, &mut agents))),
            Turn::Terminal => break,
        };
        let action = action.expect("a chance node always has outcomes");
        let round = game.round() + 1;
        // `apply` validates: an illegal action would be an error, never a panic.
        game.apply(action).expect("agents choose legal actions");
        step += 1;
        println!("{step:4} round {round} {who:>7}: {action}");
    }
    // The full table and the result: most cows wins, ties are a draw (K-7.3).
    println!("\n{game}\n");
    for seat in 0..game.num_players() {
        println!("seat {seat}: {} cows", game.score(seat));
    }
    println!("outcome: {:?}", game.outcome().expect("the game is over"));
}
