//! C-4.2, C-6.1, C-7.2, C-9.2: a refill triggered by the action that uses
//! the turn's last allowance is drawn before the turn ends — and so, on the
//! last turn (`max_turns`), before the game ends (issue 22, item 17). Until
//! rules version 2 the engine ended the turn first and, on the last turn,
//! ended the game and dropped the 4 draws.

mod common;

use boardgame_kit::{Agent, Game, GameRecord, GameRng, RandomAgent, Turn, play_game, sample_chance};
use caravan_core::{Caravan, CaravanConfig, CaravanHeuristic, Cargo, EndKind};
use common::*;

/// A position of turn `t` with `left` actions left and 3 pick-ups since the
/// last refill: spaces 1..3 are empty (waiting for the refill's draws) and
/// seat `t % 2` has an unladen camel on space 4 (`b3`), whose good it can
/// pick up — the 4th pick-up.
fn fourth_pick_up(config: CaravanConfig, t: u32, left: u8) -> Caravan {
    let mover = (t % u32::from(config.players)) as u8;
    let mut setup =
        base(config, t, left).clear_space(1).clear_space(2).clear_space(3).camel(mover, sq("b3"), Cargo::Empty);
    setup.picks_since_refill = 3;
    game(&setup)
}

#[test]
fn c6_1_c7_2_the_last_turns_refill_is_drawn_before_the_game_ends() {
    let config = CaravanConfig { max_turns: 5, ..cfg(2) };
    let mut s = fourth_pick_up(config, 4, 1);
    let bag = s.bag_len();
    play(&mut s, "pick 4");
    // C-6.1: the game pauses right after the pick-up; the turn (the last
    // one) is not over yet
    assert_eq!(s.turn(), Turn::Chance, "{s}");
    assert_eq!(s.pending_draws(), 0b1111);
    assert_eq!((s.turn_index(), s.actions_left(), s.end_kind()), (4, 0, None));
    for (n, k) in [(1, "R1"), (2, "C3"), (3, "R2"), (4, "C1")] {
        assert_eq!(s.turn(), Turn::Chance);
        play(&mut s, &format!("draw {k}"));
        assert_eq!(s.lying(n).unwrap().to_string(), k);
    }
    // then the turn ends, and with it the game (C-7.2)
    assert_eq!(s.end_kind(), Some(EndKind::MaxTurns));
    assert_eq!(s.turn_index(), 5);
    assert_eq!(s.bag_len(), bag - 4);
    assert_eq!(s.pending_draws(), 0);
    // the score is what it was after the pick-up (the draws add nothing)
    assert!(s.is_terminal());
}

#[test]
fn c4_2_c9_2_a_refill_by_the_last_allowance_is_drawn_before_the_next_turn() {
    let mut s = fourth_pick_up(cfg(2), 4, 1);
    play(&mut s, "pick 4");
    assert_eq!(s.turn(), Turn::Chance);
    // still seat 0's turn 4 while the goods are drawn
    assert_eq!((s.turn_index(), s.to_move(), s.actions_left()), (4, 0, 0));
    // a state in the middle of the refill round-trips through its setup
    // (C-11.2 accepts 0 actions left while draws are pending)
    assert_eq!(Caravan::from_setup(&s.to_setup()).unwrap(), s);
    for k in ["R1", "C3", "R2"] {
        play(&mut s, &format!("draw {k}"));
        assert_eq!((s.turn(), s.turn_index()), (Turn::Chance, 4));
    }
    play(&mut s, "draw C1");
    // the turn ended after the last draw: seat 1's turn 5, a fresh allowance
    assert_eq!((s.turn(), s.turn_index(), s.actions_left(), s.passes()), (Turn::Player(1), 5, 4, 0));
}

#[test]
fn c11_2_no_actions_left_only_while_draws_are_pending() {
    let mut setup = base(cfg(2), 4, 0).clear_space(1).clear_space(2).clear_space(3).clear_space(4);
    setup.pending_draws = 0b1111;
    let s = game(&setup);
    assert_eq!((s.turn(), s.actions_left()), (Turn::Chance, 0));
    assert!(Caravan::from_setup(&base(cfg(2), 4, 0)).is_err(), "0 actions left with nothing to draw");
}

/// Whether `s`, a finished game, shows refill draws that were never made:
/// while the bag holds goods, every empty numbered space is one picked up
/// since the last refill (C-6.1, C-11.2).
fn dropped_draws(s: &Caravan) -> bool {
    let empty = (1..=8).filter(|&n| s.lying(n).is_none()).count();
    s.bag_len() > 0 && empty != usize::from(s.picks_since_refill())
}

#[test]
fn c6_1_no_game_ends_with_a_refill_undrawn() {
    // Heuristic games cut short at every turn count of a range: some end
    // with the 4th pick-up as the last turn's last action.
    let mut hits = 0;
    for max_turns in 8..=60 {
        for players in 2..=4u8 {
            let config = CaravanConfig { players, max_turns, ..CaravanConfig::default() };
            let mut bots: Vec<CaravanHeuristic> = (0..players).map(|_| CaravanHeuristic::new()).collect();
            let mut agents: Vec<&mut dyn Agent<Caravan>> =
                bots.iter_mut().map(|b| b as &mut dyn Agent<Caravan>).collect();
            let seed = u64::from(max_turns) * 10 + u64::from(players);
            let played = play_game::<Caravan>(&config, &mut agents, seed).unwrap();
            let s = played.state;
            assert!(!dropped_draws(&s), "max_turns {max_turns}, {players} players, seed {seed}:\n{s}");
            // the record replays to the same end
            let replayed = played.record.replay::<Caravan>().unwrap();
            assert_eq!(replayed, s);
            // a game whose last action is a draw ended by the refill of its last turn
            let last = *played.record.actions.last().unwrap();
            if Caravan::action_from_id(&config, last).unwrap().to_string().starts_with("draw") {
                hits += 1;
                assert_eq!(s.end_kind(), Some(EndKind::MaxTurns));
            }
        }
    }
    assert!(hits > 0, "no game of the range ends with the last turn's refill");
}

#[test]
fn c6_1_random_and_biased_games_never_drop_draws() {
    let mut buf = Default::default();
    for seed in 0..40u64 {
        let config = CaravanConfig { players: 2 + (seed % 3) as u8, max_turns: 20 + seed as u32, ..Default::default() };
        let g = biased_game(config, seed, false);
        assert!(!dropped_draws(&g.state), "seed {seed}:\n{}", g.state);
        let mut agents = [RandomAgent, RandomAgent, RandomAgent, RandomAgent];
        let n = usize::from(config.players);
        let mut refs: Vec<&mut dyn Agent<Caravan>> =
            agents.iter_mut().take(n).map(|a| a as &mut dyn Agent<Caravan>).collect();
        let s = play_game::<Caravan>(&config, &mut refs, seed).unwrap().state;
        assert!(!dropped_draws(&s), "seed {seed}:\n{s}");
    }
    // the chance samplers see the pending draws at the end of the last turn
    let mut s = fourth_pick_up(CaravanConfig { max_turns: 5, ..cfg(2) }, 4, 1);
    play(&mut s, "pick 4");
    let mut rng = GameRng::new(1);
    let mut draws = 0;
    while let Some(a) = sample_chance(&s, &mut rng, &mut buf) {
        s.apply(a).unwrap();
        draws += 1;
    }
    assert_eq!((draws, s.end_kind()), (4, Some(EndKind::MaxTurns)));
}

#[test]
fn records_of_the_old_rules_are_refused() {
    // rules version 2: a record written under version 1 (which dropped the
    // last turn's refill) no longer replays
    let config = CaravanConfig { max_turns: 5, ..cfg(2) };
    let mut record = GameRecord::<CaravanConfig>::new::<Caravan>(config, Some(1));
    assert_eq!(record.rules_version, 2);
    record.rules_version = 1;
    let err = GameRecord::<CaravanConfig>::from_json::<Caravan>(&record.to_json()).unwrap_err();
    assert!(err.to_string().contains("rules version"), "{err}");
}
