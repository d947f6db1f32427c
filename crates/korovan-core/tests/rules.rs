//! One test (at least) per rule id of docs/rules/korovan.md. Positions are
//! built with `KorovanSetup` → `Korovan::from_setup`.

mod common;

use boardgame_kit::{ChanceOutcome, Game, GameRng, Outcome, Seats, Turn};
use common::*;
use korovan_core::{
    Action, AmbushSet, Card, ConfigError, Helper, HelperCounts, IllegalReason, Korovan, KorovanConfig, KorovanError,
    KorovanSetup, Phase, SetupError,
};

fn hand(kind: Helper, n: u8) -> HelperCounts {
    HelperCounts::NONE.with(kind, n)
}

fn illegal_reason(g: &Korovan, notation: &str) -> IllegalReason {
    match g.validate(notation.parse().unwrap()) {
        Err(KorovanError::Illegal { reason, .. }) => reason,
        other => panic!("{notation}: expected illegal, got {other:?}"),
    }
}

/// Deals the driver's hand with the given kinds (chance actions).
fn deal_all(g: &mut Korovan, kinds: &[Helper]) {
    for &k in kinds {
        g.apply(Action::Deal(k)).unwrap();
    }
}

// ---------------------------------------------------------------- K-1

/// K-1.1: players between 3 and 9.
#[test]
fn k1_1_players_between_3_and_9() {
    for n in [0u8, 1, 2, 10, 255] {
        let err = Korovan::new_game(&KorovanConfig::with_players(n)).unwrap_err();
        assert_eq!(err, KorovanError::Config(ConfigError::Players(n)));
        assert!(err.to_string().contains("between 3 and 9"), "{err}");
    }
    for n in 3..=9 {
        assert_eq!(Korovan::new_game(&KorovanConfig::with_players(n)).unwrap().num_players(), usize::from(n));
    }
}

/// K-1.2: every player starts with n plus 1 cows.
#[test]
fn k1_2_every_player_starts_with_n_plus_1_cows() {
    for n in 3..=9u8 {
        let g = Korovan::new_game(&KorovanConfig::with_players(n)).unwrap();
        for s in 0..usize::from(n) {
            assert_eq!(g.cows(s), n + 1);
        }
        assert_eq!(g.total_cows(), u32::from(n) * u32::from(n + 1));
        assert!(g.total_cows() <= 90);
    }
    // a setup that breaks the total is refused
    let mut s = journey_setup(3, 0, &[1, 3], HelperCounts::NONE);
    s.cows[1] -= 1;
    assert!(matches!(
        Korovan::from_setup(&s),
        Err(KorovanError::Setup(SetupError::CowsTotal { found: 11, expected: 12 }))
    ));
}

/// K-1.3: a competitor lays 1 or 2 of its 2 ambushes.
#[test]
fn k1_3_a_competitor_lays_1_or_2_of_its_2_ambushes() {
    // 2 Empty + 2 Ambush, one kept: the row holds 1 or 2 ambushes
    assert!(AmbushSet::from_mask(0).is_none());
    assert!(AmbushSet::from_mask(7).is_none());
    assert_eq!(AmbushSet::ALL.iter().filter(|s| s.count() == 1).count(), 3);
    assert_eq!(AmbushSet::ALL.iter().filter(|s| s.count() == 2).count(), 3);
    assert!("lay 0+1+2".parse::<Action>().is_err());
    assert!("lay".parse::<Action>().is_err());
}

/// K-1.4: default helper deck has 27 cards.
#[test]
fn k1_4_default_helper_deck_has_27_cards() {
    let c = KorovanConfig::default();
    assert_eq!(c.deck.total(), 27);
    assert_eq!(c.deck.to_array(), [7, 4, 4, 4, 4, 4]);
    let g = Korovan::new_game(&c).unwrap();
    assert_eq!(g.helper_deck().total() + g.helper_hand().total(), 27);
}

// ---------------------------------------------------------------- K-2

/// K-2.1: first driver is configurable.
#[test]
fn k2_1_first_driver_is_configurable() {
    let c = KorovanConfig { first_driver: 3, ..KorovanConfig::default() };
    assert_eq!(Korovan::new_game(&c).unwrap().driver(), Some(3));
    assert_eq!(Korovan::new_game(&KorovanConfig::default()).unwrap().driver(), Some(0));
    let bad = KorovanConfig { first_driver: 5, ..KorovanConfig::default() };
    assert!(matches!(Korovan::new_game(&bad), Err(KorovanError::Config(ConfigError::FirstDriver { .. }))));
}

/// K-2.2: driver passes counter clockwise.
#[test]
fn k2_2_driver_passes_counter_clockwise() {
    let c = KorovanConfig { first_driver: 2, ..KorovanConfig::default() };
    let mut g = Korovan::new_game(&c).unwrap();
    let mut rng = GameRng::new(5);
    let mut drivers = vec![g.driver()];
    while !g.is_terminal() {
        finish_round(&mut g, &mut rng);
        if !g.is_terminal() {
            drivers.push(g.driver());
        }
    }
    // 2 → 1 → 0 → 4 → 3: seat d is followed by (d + N − 1) mod N
    assert_eq!(drivers, [2, 1, 0, 4, 3].map(Some));
}

// ---------------------------------------------------------------- K-3

/// K-3.1: deal is n minus 1 chance nodes weighted by copies left.
#[test]
fn k3_1_deal_is_n_minus_1_chance_nodes_weighted_by_copies_left() {
    let mut g = Korovan::new_game(&KorovanConfig::with_players(4)).unwrap();
    let mut chances = Default::default();
    for drawn in 0..3 {
        assert_eq!(g.turn(), Turn::Chance);
        g.chance_outcomes(&mut chances);
        let total: u32 = chances.iter().map(|o: &ChanceOutcome<Action>| o.weight).sum();
        assert_eq!(total, 27 - drawn);
        if drawn == 0 {
            assert_eq!(chances[0].weight, 7); // Scout: 7 of 27
        }
        g.apply(Action::Deal(Helper::Scout)).unwrap();
        // the number of cards held is public
        assert_eq!(g.observation(1).unwrap().helpers_in_hand, drawn as u8 + 1);
    }
    assert_eq!(g.turn(), Turn::Player(1));
    assert_eq!(g.helper_hand().scout, 3);
    // a kind no longer in the deck cannot be dealt
    let c = KorovanConfig { deck: HelperCounts::NONE.with(Helper::Guard, 3), players: 4, ..Default::default() };
    let mut g = Korovan::new_game(&c).unwrap();
    deal_all(&mut g, &[Helper::Guard, Helper::Guard]);
    assert_eq!(illegal_reason(&g, "deal scout"), IllegalReason::NotInDeck(Helper::Scout));
    g.apply(Action::Deal(Helper::Guard)).unwrap();
    // which cards the driver holds is private
    assert_eq!(g.observation(0).unwrap().helper_hand, Some(HelperCounts::NONE.with(Helper::Guard, 3)));
    assert_eq!(g.observation(1).unwrap().helper_hand, None);
}

/// K-3.2: everybody but the driver competes.
#[test]
fn k3_2_everybody_but_the_driver_competes() {
    let c = KorovanConfig { players: 6, first_driver: 4, ..Default::default() };
    let mut g = Korovan::new_game(&c).unwrap();
    let mut rng = GameRng::new(1);
    let mut seats = vec![];
    while g.phase() != Phase::Place {
        if let Turn::Player(p) = g.turn()
            && !seats.contains(&p)
        {
            seats.push(p);
        }
        let a = random_action(&g, &mut rng);
        g.apply(a).unwrap();
    }
    seats.sort();
    assert_eq!(seats, vec![0, 1, 2, 3, 5]);
    assert_eq!(g.turn(), Turn::Player(4));
    // K-3.2: each of them owns one of the N−1 rows, the driver none
    let mut owners: Vec<usize> = (1..6).filter_map(|r| g.row_owner(r)).collect();
    owners.sort();
    assert_eq!(owners, vec![0, 1, 2, 3, 5]);
    assert_eq!(g.rows_laid(), 5);
    assert_eq!(g.row_owner(6), None);
}

// ---------------------------------------------------------------- K-4

/// K-4.1: competitors lay clockwise from the drivers left.
#[test]
fn k4_1_competitors_lay_clockwise_from_the_drivers_left() {
    let c = KorovanConfig { players: 5, first_driver: 3, hand_size: Some(0), ..Default::default() };
    let mut g = Korovan::new_game(&c).unwrap();
    let mut order = vec![];
    while g.phase() != Phase::Place {
        if g.phase() == Phase::Lay {
            order.push(g.turn());
            g.apply(Action::Lay(set(1))).unwrap();
        } else {
            g.apply("peek 1.0".parse().unwrap()).unwrap();
        }
    }
    let p = Turn::Player;
    assert_eq!(order, vec![p(4), p(0), p(1), p(2)]);
    for (row, seat) in [(1, 4), (2, 0), (3, 1), (4, 2)] {
        assert_eq!(g.row_owner(row), Some(seat));
    }
}

/// K-4.2: every competitor but the first peeks at a laid card.
#[test]
fn k4_2_every_competitor_but_the_first_peeks_at_a_laid_card() {
    let mut g = Korovan::new_game(&cfg(4, 0)).unwrap();
    // the first competitor lays without peeking
    assert_eq!(g.phase(), Phase::Lay);
    assert_eq!(illegal_reason(&g, "peek 1.0"), IllegalReason::WrongPhase(Phase::Lay));
    play(&mut g, "lay 1");
    // the second must peek first (mandatory): laying is not offered
    assert_eq!(legal(&g), vec!["peek 1.0", "peek 1.1", "peek 1.2"]);
    assert_eq!(illegal_reason(&g, "lay 0"), IllegalReason::WrongPhase(Phase::Peek));
    assert_eq!(illegal_reason(&g, "peek 2.0"), IllegalReason::NoSuchRow { row: 2, laid: 1 });
    play(&mut g, "peek 1.1");
    play(&mut g, "lay 0+2");
    assert_eq!(legal(&g).len(), 6); // any card of rows 1 and 2
    play(&mut g, "peek 2.2");
    // the peeker (seat 2) learnt the card; the target is public, the face is not
    let o2 = g.observation(2).unwrap();
    assert_ne!(o2.known & (1 << 1), 0);
    assert_eq!(o2.known_ambush & (1 << 1), 1 << 1); // row 1 pos 1 is an Ambush
    let o3 = g.observation(3).unwrap();
    assert_eq!(o3.known & (1 << 1), 0);
    assert_eq!(o3.peeks[1], Some(1));
    assert_eq!(o3.peeks[2], Some(5));
    // seat 3 learnt row 2 pos 2
    assert_ne!(o3.known & (1 << 5), 0);
    assert_eq!(g.observation(2).unwrap().known & (1 << 5), 1 << 5); // its own row
    assert_eq!(g.observation(0).unwrap().known, 0);
}

/// K-4.3: lay keeps one card hand card sets the ambush count.
#[test]
fn k4_3_lay_keeps_one_card_hand_card_sets_the_ambush_count() {
    let mut g = Korovan::new_game(&cfg(3, 0)).unwrap();
    assert_eq!(legal(&g), vec!["lay 0", "lay 1", "lay 2", "lay 0+1", "lay 0+2", "lay 1+2"]);
    play(&mut g, "lay 2"); // kept an Ambush
    play(&mut g, "peek 1.0");
    play(&mut g, "lay 0+1"); // kept an Empty
    assert_eq!(g.card(1, 2), Some(Card::Ambush));
    assert_eq!(g.card(1, 0), Some(Card::Empty));
    assert_eq!(g.hand_card(1), Some(Card::Ambush));
    assert_eq!(g.hand_card(2), Some(Card::Empty));
}

/// K-4.4: first competitor knows only its row last row known to its owner alone.
#[test]
fn k4_4_first_competitor_knows_only_its_row_last_row_known_to_its_owner_alone() {
    let mut g = Korovan::new_game(&cfg(5, 0)).unwrap();
    let mut rng = GameRng::new(3);
    while g.phase() != Phase::Place {
        let a = random_action(&g, &mut rng);
        g.apply(a).unwrap();
    }
    let row = |r: u32| 7u32 << ((r - 1) * 3);
    assert_eq!(g.observation(1).unwrap().known, row(1)); // seat 1 laid row 1, never peeked
    for seat in [0, 1, 2, 3] {
        assert_eq!(g.observation(seat).unwrap().known & row(4), 0, "seat {seat}");
    }
    assert_eq!(g.observation(4).unwrap().known & row(4), row(4));
}

// ---------------------------------------------------------------- K-5

/// K-5.1: place puts the token on a position of the current row.
#[test]
fn k5_1_place_puts_the_token_on_a_position_of_the_current_row() {
    let mut g = journey(3, &[1, 1], HelperCounts::NONE);
    assert_eq!(legal(&g), vec!["place 0", "place 1", "place 2"]);
    play(&mut g, "place 2");
    assert_eq!(g.token(), Some(2));
    assert_eq!(g.phase(), Phase::Decide);
    assert_eq!(g.current_row(), Some(1));
    assert_eq!(illegal_reason(&g, "place 1"), IllegalReason::WrongPhase(Phase::Decide));
}

/// K-5.2: placing on a face up card resolves it at once.
#[test]
fn k5_2_placing_on_a_face_up_card_resolves_it_at_once() {
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    s.rows[0].face_up = [true, false, false];
    s.played = HelperCounts::NONE.with(Helper::Flare, 1);
    s.helpers_played = vec![Action::Flare { row: 1, pos: 0 }];
    s.config.hand_size = Some(1);
    let g0 = Korovan::from_setup(&s).unwrap();
    let mut g = g0;
    play(&mut g, "place 0"); // face-up Ambush: resolves, no switch offered
    assert_eq!(g.phase(), Phase::Defend);
    assert_eq!(legal(&g), vec!["pay"]);
    let mut g = g0;
    s.rows[0].face_up = [false, true, false];
    let _ = s;
    play(&mut g, "place 1"); // face-down: the switch is offered
    assert_eq!(g.phase(), Phase::Decide);
}

/// K-5.2: face up empty moves on.
#[test]
fn k5_2_face_up_empty_moves_on() {
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    s.rows[0].face_up = [false, true, false];
    s.played = HelperCounts::NONE.with(Helper::Flare, 1);
    s.helpers_played = vec![Action::Flare { row: 1, pos: 1 }];
    s.config.hand_size = Some(1);
    let mut g = Korovan::from_setup(&s).unwrap();
    play(&mut g, "place 1");
    assert_eq!(g.current_row(), Some(2));
    assert_eq!(g.phase(), Phase::Place);
}

/// K-5.3: one switch per step switching onto face up resolves.
#[test]
fn k5_3_one_switch_per_step_switching_onto_face_up_resolves() {
    let mut g = journey(3, &[1, 1], HelperCounts::NONE);
    play(&mut g, "place 0");
    assert_eq!(legal(&g), vec!["switch 1", "switch 2", "reveal"]);
    assert_eq!(illegal_reason(&g, "switch 0"), IllegalReason::SamePosition(0));
    play(&mut g, "switch 2");
    assert_eq!(g.switches_left(), 0);
    assert_eq!(illegal_reason(&g, "switch 1"), IllegalReason::NoSwitchLeft);
    assert_eq!(legal(&g), vec!["reveal"]);
    play(&mut g, "reveal");
    // the next step has its own switch
    assert_eq!(g.current_row(), Some(2));
    play(&mut g, "place 1");
    assert_eq!(g.switches_left(), 1);
    // switching onto a face-up card resolves at once
    let mut s = journey_setup(3, 0, &[2, 1], HelperCounts::NONE);
    s.rows[0].face_up = [false, false, true];
    s.played = HelperCounts::NONE.with(Helper::Flare, 1);
    s.helpers_played = vec![Action::Flare { row: 1, pos: 2 }];
    s.config.hand_size = Some(1);
    let mut g = Korovan::from_setup(&s).unwrap();
    play(&mut g, "place 1");
    play(&mut g, "switch 2"); // face-up Empty: the caravan moves on
    assert_eq!(g.current_row(), Some(2));
    assert_eq!(g.phase(), Phase::Place);
}

/// K-5.4: reveal turns the card face up for everyone.
#[test]
fn k5_4_reveal_turns_the_card_face_up_for_everyone() {
    let mut g = journey(3, &[2, 1], HelperCounts::NONE);
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert!(g.is_face_up(1, 0));
    for seat in 0..3 {
        let o = g.observation(seat).unwrap();
        assert_ne!(o.face_up & 1, 0);
        assert_ne!(o.known & 1, 0);
        assert_eq!(o.route & 1, 1); // the route is public
    }
}

/// K-5.5: fine is 3 when the hand card is an ambush and 2 otherwise.
#[test]
fn k5_5_fine_is_3_when_the_hand_card_is_an_ambush_and_2_otherwise() {
    // row 1 (seat 1) holds one ambush: the kept card is an Ambush → 3
    let mut g = journey(3, &[1, 3], HelperCounts::NONE);
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(g.phase(), Phase::Defend);
    assert_eq!(g.pending_fine(), 3);
    // the owner's hand card is shown to everyone
    let o = g.observation(2).unwrap();
    assert_eq!(o.hand_known & 1, 1);
    assert_eq!(o.hand_ambush & 1, 1);
    play(&mut g, "pay");
    assert_eq!((g.cows(0), g.cows(1)), (1, 7));
    // row 2 (seat 2) holds two ambushes: the kept card is Empty → 2
    let mut g = journey(3, &[2, 3], HelperCounts::NONE);
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    play(&mut g, "place 1");
    play(&mut g, "reveal");
    assert_eq!(g.pending_fine(), 2);
    let o = g.observation(1).unwrap();
    assert_eq!(o.hand_known & 2, 2);
    assert_eq!(o.hand_ambush & 2, 0);
    play(&mut g, "pay");
    // 4 − 2 = 2, then row 2 was the last row: K-5.7 brings one cow from each
    assert_eq!((g.cows(0), g.cows(1), g.cows(2)), (4, 3, 5));
}

/// K-5.6: payment is capped by the drivers cows and the journey ends at 0.
#[test]
fn k5_6_payment_is_capped_by_the_drivers_cows_and_the_journey_ends_at_0() {
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    second_lap(&mut s); // round 3, seat 0 drives again
    s.cows = vec![2, 5, 5];
    let mut g = Korovan::from_setup(&s).unwrap();
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(g.pending_fine(), 3);
    play(&mut g, "pay");
    // only 2 paid; the journey ends at once: no row 2, no K-5.7 reward
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [0, 7, 5]);
    assert_eq!(g.round(), 4);
    assert_eq!(g.driver(), Some(2));
    assert_eq!(g.rows_laid(), 0);
}

/// K-5.7: a driver through every row collects from every competitor with a cow.
#[test]
fn k5_7_a_driver_through_every_row_collects_from_every_competitor_with_a_cow() {
    let mut s = journey_setup(4, 0, &[1, 1, 1], HelperCounts::NONE);
    second_lap(&mut s); // round 4, seat 0 drives again
    s.cows = vec![6, 7, 0, 7];
    let mut g = Korovan::from_setup(&s).unwrap();
    for _ in 0..3 {
        play(&mut g, "place 2");
        play(&mut g, "reveal");
    }
    assert_eq!([g.cows(0), g.cows(1), g.cows(2), g.cows(3)], [8, 6, 0, 6]);
    assert_eq!(g.round(), 5);
    // with all the competitors paying
    let mut g = journey(3, &[1, 1], HelperCounts::NONE);
    play(&mut g, "place 1");
    play(&mut g, "reveal");
    play(&mut g, "place 2");
    play(&mut g, "reveal");
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [6, 3, 3]);
}

/// K-5.7: paying on the last row down to zero gets no reward.
#[test]
fn k5_7_paying_on_the_last_row_down_to_zero_gets_no_reward() {
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    second_lap(&mut s);
    s.cows = vec![3, 5, 4];
    let mut g = Korovan::from_setup(&s).unwrap();
    play(&mut g, "place 1");
    play(&mut g, "reveal");
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    play(&mut g, "pay");
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [0, 5, 7]);
}

/// K-5.8: a cowless driver round is skipped but counts.
#[test]
fn k5_8_a_cowless_driver_round_is_skipped_but_counts() {
    // round 3 (second lap): driver 0 passes both rows; seat 2 (the next driver) has no cow
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    second_lap(&mut s);
    s.cows = vec![4, 8, 0];
    s.config.hand_size = Some(2);
    s.helper_hand = HelperCounts::NONE.with(Helper::Scout, 2);
    let mut g = Korovan::from_setup(&s).unwrap();
    for _ in 0..2 {
        play(&mut g, "place 1");
        play(&mut g, "reveal");
    }
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [5, 7, 0]);
    // round 4 (seat 2) is skipped: no deal, no phase 1; round 5 is seat 1's
    assert_eq!(g.round(), 5);
    assert_eq!(g.driver(), Some(1));
    assert_eq!(g.phase(), Phase::Deal);
    // a cowless driver in the last round: the game ends
    let mut s = journey_setup(3, 1, &[1, 1], HelperCounts::NONE);
    second_lap(&mut s); // round 4: driver 2; round 5, the last, would be seat 1's: make seat 1 cowless
    s.cows = vec![8, 0, 4];
    let mut g = Korovan::from_setup(&s).unwrap();
    assert_eq!(g.driver(), Some(2));
    for _ in 0..2 {
        play(&mut g, "place 1");
        play(&mut g, "reveal");
    }
    // seat 0 paid a cow; seat 1 had none
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [7, 0, 5]);
    assert_eq!(g.round(), 6);
    assert!(g.is_terminal());
    // a setup with a cowless driver to move is impossible
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    s.cows = vec![0, 6, 6];
    assert_eq!(Korovan::from_setup(&s), Err(KorovanError::Setup(SetupError::CowlessDriver(0))));
}

/// K-5.9: nothing depends on table talk same actions same game.
#[test]
fn k5_9_nothing_depends_on_table_talk_same_actions_same_game() {
    // K-5.9: the engine has no talk action and reads nothing but the actions:
    // the same actions give the same state, however often and in whatever
    // order other games are played in between
    let play_seed = |seed| {
        let mut g = Korovan::new_game(&KorovanConfig::with_players(6)).unwrap();
        let mut rng = GameRng::new(seed);
        let mut actions = vec![];
        while !g.is_terminal() {
            let a = random_action(&g, &mut rng);
            actions.push(a);
            g.apply(a).unwrap();
        }
        (g, actions)
    };
    let (a, actions) = play_seed(11);
    let _ = play_seed(12);
    let (b, _) = play_seed(11);
    assert_eq!(a, b);
    let mut replay = Korovan::new_game(&KorovanConfig::with_players(6)).unwrap();
    for &x in &actions {
        let before = replay;
        replay.apply(x).unwrap();
        let mut again = before;
        again.apply(x).unwrap();
        assert_eq!(again, replay, "{x} applied twice to the same state");
    }
    assert_eq!(replay, a);
    // every id is a game decision or a deal: there is no talk action
    for id in 0..korovan_core::NUM_ACTIONS as u32 {
        let x = Action::from_id(id).unwrap();
        assert_eq!(x.id(), id);
    }
    assert!(Action::from_id(korovan_core::NUM_ACTIONS as u32).is_err());
}

// ---------------------------------------------------------------- K-6

#[test]
fn k6_scout_looks_privately_at_a_face_down_card_ahead() {
    let mut g = journey(4, &[1, 2, 4], hand(Helper::Scout, 2));
    let l = legal(&g);
    assert_eq!(l.iter().filter(|a| a.starts_with("scout")).count(), 9);
    play(&mut g, "scout 3.2");
    assert_eq!(g.helper_hand().scout, 1);
    assert_eq!(g.helper_deck().scout, 6); // back into the deck
    let od = g.observation(0).unwrap();
    assert_ne!(od.known & (1 << 8), 0);
    assert_ne!(od.known_ambush & (1 << 8), 0);
    assert_eq!(g.observation(1).unwrap().known & (1 << 8), 0);
    assert_eq!(g.observation(1).unwrap().scouted, 1 << 8); // the target is public
    // after Place too, before Reveal
    play(&mut g, "place 0");
    assert!(legal(&g).contains(&"scout 1.1".to_string()));
    play(&mut g, "reveal"); // ambush, fine 3
    play(&mut g, "pay");
    // a passed row is no target
    assert_eq!(illegal_reason(&g, "scout 1.1"), IllegalReason::RowPassed { row: 1, current: 2 });
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(illegal_reason(&g, "scout 2.0"), IllegalReason::RowPassed { row: 2, current: 3 });
}

#[test]
fn k6_scout_needs_a_face_down_target_and_the_card() {
    let g = journey(3, &[1, 1], HelperCounts::NONE);
    assert_eq!(illegal_reason(&g, "scout 1.0"), IllegalReason::NoSuchHelper(Helper::Scout));
    let mut s = journey_setup(3, 0, &[1, 1], hand(Helper::Scout, 1));
    s.rows[1].face_up = [true, false, false];
    s.played = hand(Helper::Flare, 1);
    s.helpers_played = vec![Action::Flare { row: 2, pos: 0 }];
    s.config.hand_size = Some(2);
    let g = Korovan::from_setup(&s).unwrap();
    assert_eq!(illegal_reason(&g, "scout 2.0"), IllegalReason::FaceUp { row: 2, pos: 0 });
    assert_eq!(illegal_reason(&g, "scout 3.0"), IllegalReason::NoSuchRow { row: 3, laid: 2 });
}

#[test]
fn k6_spy_learns_a_rows_hand_card_privately() {
    let mut g = journey(4, &[1, 3, 4], hand(Helper::Spy, 1));
    assert_eq!(
        legal(&g).iter().filter(|a| a.starts_with("spy")).cloned().collect::<Vec<_>>(),
        vec!["spy 1", "spy 2", "spy 3"]
    );
    play(&mut g, "spy 2");
    let o = g.observation(0).unwrap();
    assert_eq!(o.hand_known & 0b010, 0b010);
    assert_eq!(o.hand_ambush & 0b010, 0); // two ambushes: the hand card is Empty
    let o1 = g.observation(1).unwrap();
    assert_eq!(o1.hand_known & 0b010, 0);
    assert_eq!(o1.spied, 0b010);
}

#[test]
fn k6_flare_turns_a_card_face_up_for_everyone() {
    let mut g = journey(3, &[1, 2], hand(Helper::Flare, 1));
    play(&mut g, "flare 2.1");
    assert!(g.is_face_up(2, 1));
    assert_eq!(g.observation(1).unwrap().known_ambush & (1 << 4), 1 << 4);
    assert_eq!(g.helper_hand().flare, 0);
}

#[test]
fn k6_flare_on_the_card_under_the_token_then_switch_or_reveal() {
    let mut g0 = journey(3, &[2, 1], hand(Helper::Flare, 1));
    play(&mut g0, "place 1");
    assert!(legal(&g0).contains(&"flare 1.1".to_string()));
    play(&mut g0, "flare 1.1");
    // the card under the token is face up; the step goes on
    assert!(g0.is_face_up(1, 1));
    assert_eq!(g0.phase(), Phase::Decide);
    assert_eq!(g0.token(), Some(1));
    assert_eq!(legal(&g0), vec!["switch 0", "switch 2", "reveal"]);
    // reveal resolves the flared Ambush
    let mut g = g0;
    play(&mut g, "reveal");
    assert_eq!(g.phase(), Phase::Defend);
    assert_eq!(g.pending_fine(), 3);
    // or the switch still left moves away from it
    let mut g = g0;
    play(&mut g, "switch 0");
    assert_eq!(legal(&g), vec!["reveal"]);
    play(&mut g, "reveal");
    assert_eq!(g.current_row(), Some(2));
}

#[test]
fn k6_second_thought_before_the_first_switch_grants_two() {
    let mut g = journey(3, &[1, 1], hand(Helper::SecondThought, 1));
    // not before Place
    assert_eq!(illegal_reason(&g, "second_thought"), IllegalReason::WrongPhase(Phase::Place));
    play(&mut g, "place 0");
    assert!(legal(&g).contains(&"second_thought".to_string()));
    play(&mut g, "second_thought");
    assert_eq!(g.switches_left(), 2);
    assert_eq!(g.observation(2).unwrap().switches_left, 2); // public
    play(&mut g, "switch 1");
    play(&mut g, "switch 2");
    assert_eq!(g.switches_left(), 0);
    assert_eq!(legal(&g), vec!["reveal"]);
    // after the first switch it also grants one more
    let mut g = journey(3, &[1, 1], hand(Helper::SecondThought, 1));
    play(&mut g, "place 0");
    play(&mut g, "switch 1");
    assert_eq!(legal(&g), vec!["reveal", "second_thought"]);
    play(&mut g, "second_thought");
    assert_eq!(g.switches_left(), 1);
}

#[test]
fn k6_guard_cancels_the_fine() {
    let mut g = journey(3, &[1, 1], hand(Helper::Guard, 1));
    play(&mut g, "place 0");
    assert!(!legal(&g).contains(&"guard".to_string())); // only when an ambush resolves
    play(&mut g, "reveal");
    assert_eq!(legal(&g), vec!["guard", "pay"]);
    play(&mut g, "guard");
    assert_eq!((g.cows(0), g.cows(1)), (4, 4));
    assert_eq!(g.current_row(), Some(2));
    assert_eq!(g.helper_deck().guard, 4);
}

#[test]
fn k6_haggle_reduces_the_fine_by_one() {
    let mut g = journey(3, &[1, 3], hand(Helper::Haggle, 1));
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(legal(&g), vec!["haggle", "pay"]);
    play(&mut g, "haggle");
    assert_eq!((g.cows(0), g.cows(1)), (2, 6));
}

/// K-6.1: at most one defence per ambush.
#[test]
fn k6_1_at_most_one_defence_per_ambush() {
    let hand2 = HelperCounts::NONE.with(Helper::Guard, 1).with(Helper::Haggle, 1);
    let mut g = journey(3, &[1, 1], hand2);
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    assert_eq!(legal(&g), vec!["guard", "haggle", "pay"]);
    play(&mut g, "haggle");
    // the ambush is settled: no Guard for it any more
    assert_eq!(g.phase(), Phase::Place);
    assert_eq!(illegal_reason(&g, "guard"), IllegalReason::WrongPhase(Phase::Place));
    assert_eq!(g.helper_hand().guard, 1);
}

/// K-6.2: reveal and pay are asked even alone.
#[test]
fn k6_2_reveal_and_pay_are_asked_even_alone() {
    let mut g = journey(3, &[1, 1], HelperCounts::NONE);
    play(&mut g, "place 1");
    play(&mut g, "switch 0");
    assert_eq!(g.turn(), Turn::Player(0));
    assert_eq!(legal(&g), vec!["reveal"]);
    play(&mut g, "reveal");
    assert_eq!(legal(&g), vec!["pay"]);
}

/// K-6.2: the decisions asked do not depend on the hand.
#[test]
fn k6_2_the_decisions_asked_do_not_depend_on_the_hand() {
    // the same public actions ask the same player at the same points whatever the hand
    let hands = [
        HelperCounts::NONE.with(Helper::Scout, 2),
        HelperCounts::NONE.with(Helper::Guard, 1).with(Helper::Haggle, 1),
        HelperCounts::NONE.with(Helper::SecondThought, 2),
    ];
    let script = ["place 0", "reveal", "pay", "place 2", "switch 1", "reveal", "pay"];
    let mut traces = vec![];
    for h in hands {
        let mut g = journey(3, &[1, 3], h);
        let mut trace = vec![];
        for a in script {
            trace.push((g.turn(), g.phase(), g.observation(1).unwrap()));
            play(&mut g, a);
        }
        trace.push((g.turn(), g.phase(), g.observation(1).unwrap()));
        traces.push(trace);
    }
    assert_eq!(traces[0], traces[1]);
    assert_eq!(traces[1], traces[2]);
}

/// K-6.3: the deck must hold the hand.
#[test]
fn k6_3_the_deck_must_hold_the_hand() {
    let c = KorovanConfig { deck: HelperCounts::NONE.with(Helper::Guard, 3), ..Default::default() };
    assert_eq!(c.validate(), Err(ConfigError::DeckTooSmall { deck: 3, hand: 4 }));
    let c = KorovanConfig { hand_size: Some(2), deck: HelperCounts::NONE.with(Helper::Guard, 3), ..Default::default() };
    assert!(c.validate().is_ok());
    let c = KorovanConfig { hand_size: Some(17), ..Default::default() };
    assert_eq!(c.validate(), Err(ConfigError::HandTooLarge(17)));
}

// ---------------------------------------------------------------- K-7

/// K-7.1: clean up returns cards and passes the deck.
#[test]
fn k7_1_clean_up_returns_cards_and_passes_the_deck() {
    let mut g = journey(3, &[1, 1], HelperCounts::NONE.with(Helper::Scout, 1).with(Helper::Guard, 1));
    play(&mut g, "scout 2.0");
    for _ in 0..2 {
        play(&mut g, "place 2");
        play(&mut g, "reveal");
    }
    assert_eq!(g.round(), 1);
    assert_eq!(g.driver(), Some(2));
    assert_eq!(g.rows_laid(), 0);
    assert_eq!(g.helper_hand(), HelperCounts::NONE);
    assert_eq!(g.helper_deck(), HelperCounts::DEFAULT_DECK);
    assert_eq!(g.helpers_played(), HelperCounts::NONE);
    assert_eq!(g.phase(), Phase::Deal);
}

/// K-7.2: the game ends after every player drove once per lap.
#[test]
fn k7_2_the_game_ends_after_every_player_drove_once_per_lap() {
    for laps in [1u8, 2] {
        let c = KorovanConfig { players: 4, laps, ..Default::default() };
        let mut g = Korovan::new_game(&c).unwrap();
        let mut rng = GameRng::new(u64::from(laps));
        let mut rounds = 0;
        while !g.is_terminal() {
            finish_round(&mut g, &mut rng);
            rounds += 1;
        }
        assert_eq!(g.round(), 4 * u32::from(laps));
        assert!(rounds <= 4 * usize::from(laps));
        assert!(g.apply(Action::Pay).is_err());
    }
    assert_eq!(KorovanConfig { laps: 0, ..Default::default() }.validate(), Err(ConfigError::Laps(0)));
}

/// K-7.3: most cows wins a tie is a friendship draw.
#[test]
fn k7_3_most_cows_wins_a_tie_is_a_friendship_draw() {
    // last round of 3 (round 2, driver seat 1); row 1 = seat 2, row 2 = seat 0
    let mut s = journey_setup(3, 2, &[1, 1], HelperCounts::NONE);
    s.cows = vec![5, 2, 5];
    let g0 = Korovan::from_setup(&s).unwrap();
    assert_eq!(g0.driver(), Some(1));
    let mut g = g0;
    for _ in 0..2 {
        play(&mut g, "place 1");
        play(&mut g, "reveal");
    }
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [4, 4, 4]);
    assert_eq!(g.outcome(), Some(Outcome::Draw(Seats::from_bits(0b111))));
    let mut r = [0.0; 3];
    g.returns(&mut r);
    assert_eq!(r, [1.0 / 3.0; 3]);
    // a partial tie: two seats share the most
    let mut g = g0;
    play(&mut g, "place 1");
    play(&mut g, "reveal");
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    play(&mut g, "pay"); // seat 1 pays 2 (all it has) to seat 0
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [7, 0, 5]);
    assert_eq!(g.outcome(), Some(Outcome::Winner(0)));
}

/// K-7.4: score is cows and a single best wins.
#[test]
fn k7_4_score_is_cows_and_a_single_best_wins() {
    let mut s = journey_setup(3, 2, &[1, 1], HelperCounts::NONE);
    s.cows = vec![4, 4, 4];
    let mut g = Korovan::from_setup(&s).unwrap();
    assert_eq!(g.outcome(), None);
    for _ in 0..2 {
        play(&mut g, "place 1");
        play(&mut g, "reveal");
    }
    assert_eq!(g.outcome(), Some(Outcome::Winner(1)));
    assert_eq!((g.score(0), g.score(1), g.score(2), g.score(3)), (3, 6, 3, 0));
}

// ---------------------------------------------------------------- K-8

/// K-8.1: public information is in every observation.
#[test]
fn k8_1_public_information_is_in_every_observation() {
    let mut g = journey(4, &[1, 2, 4], hand(Helper::Flare, 1).with(Helper::Scout, 1));
    play(&mut g, "flare 2.1");
    play(&mut g, "scout 3.0");
    play(&mut g, "place 2");
    for seat in 0..4 {
        let o = g.observation(seat).unwrap();
        assert_eq!(o.cows[..4], [5, 5, 5, 5]);
        assert_eq!(o.driver, 0);
        assert_eq!(o.phase, Phase::Decide);
        assert_eq!(o.token, Some(2));
        assert_eq!(o.current_row, Some(1));
        assert_eq!(o.face_up, 1 << 4);
        assert_eq!(o.known_ambush & (1 << 4), 1 << 4);
        assert_eq!(o.scouted, 1 << 6);
        assert_eq!(o.played, hand(Helper::Flare, 1).with(Helper::Scout, 1));
        // every helper played with its target, in order
        let log: Vec<String> = o.helpers_played.iter().map(|a| a.to_string()).collect();
        assert_eq!(log, ["flare 2.1", "scout 3.0"]);
        assert!(o.to_string().contains("played this round: flare 2.1, scout 3.0"), "{o}");
        assert_eq!(o.helpers_in_hand, 0);
        assert_eq!(o.peeks[1], Some(0));
        assert_eq!(o.switches_left, 1);
    }
}

/// K-8.2 and K-8.3: private parts.
#[test]
fn k8_2_and_k8_3_private_parts() {
    let mut g = journey(4, &[1, 2, 4], hand(Helper::Scout, 1).with(Helper::Spy, 1));
    play(&mut g, "scout 3.0");
    play(&mut g, "spy 1");
    let row = |r: u32| 7u32 << ((r - 1) * 3);
    // K-8.2: own row, own hand card, own peek (journey setups peek at 1.0)
    let o2 = g.observation(2).unwrap();
    assert_eq!(o2.known, row(2) | 1);
    assert_eq!(o2.hand_known, 0b010);
    assert_eq!(o2.helper_hand, None);
    // K-8.3: the driver's hand and scout/spy results
    let o0 = g.observation(0).unwrap();
    assert_eq!(o0.known, 1 << 6);
    assert_eq!(o0.hand_known, 0b001);
    assert_eq!(o0.helper_hand, Some(HelperCounts::NONE));
}

/// K-8.4: no state holds a future draw.
#[test]
fn k8_4_no_state_holds_a_future_draw() {
    // two games dealt different cards agree on everything before the deal
    let g = Korovan::new_game(&KorovanConfig::default()).unwrap();
    let mut a = g;
    let mut b = g;
    a.apply(Action::Deal(Helper::Scout)).unwrap();
    b.apply(Action::Deal(Helper::Guard)).unwrap();
    assert_ne!(a, b);
    // the state is plain data: the deck is counts, with no order
    assert_eq!(g.helper_deck(), HelperCounts::DEFAULT_DECK);
    assert!(std::mem::size_of::<Korovan>() <= 128);
}

/// K-8.5: hidden differences do not reach the observation.
#[test]
fn k8_5_hidden_differences_do_not_reach_the_observation() {
    // the same public history with different rows 2..3 and a different hand
    let a = journey(4, &[1, 2, 4], hand(Helper::Guard, 1));
    let b = journey(4, &[1, 6, 3], hand(Helper::Scout, 1));
    let o = |g: &Korovan, s| g.observation(s).unwrap();
    assert_eq!(o(&a, 1), o(&b, 1)); // seat 1 knows row 1 and nothing of rows 2..3
    let mut ta = vec![0.0; korovan_core::TENSOR_LEN];
    let mut tb = ta.clone();
    a.write_observation_tensor(1, &mut ta).unwrap();
    b.write_observation_tensor(1, &mut tb).unwrap();
    assert_eq!(ta, tb);
    assert_ne!(o(&a, 2), o(&b, 2)); // seat 2 sees its own row
    assert_ne!(o(&a, 0), o(&b, 0)); // the driver sees its hand
    // K-9.3: nothing of the deck's remaining composition in a competitor's view
    assert!(!format!("{}", o(&a, 3)).contains("guard"));
}

// ---------------------------------------------------------------- K-9

/// K-9.1: the route tells apart two face up empties.
#[test]
fn k9_1_the_route_tells_apart_two_face_up_empties() {
    let mut s = journey_setup(3, 0, &[4, 1], HelperCounts::NONE);
    s.rows[0].face_up = [true, false, false];
    s.played = hand(Helper::Flare, 1);
    s.helpers_played = vec![Action::Flare { row: 1, pos: 0 }];
    s.config.hand_size = Some(1);
    let g = Korovan::from_setup(&s).unwrap();
    let mut a = g;
    play(&mut a, "place 0"); // the flared Empty
    let mut b = g;
    play(&mut b, "place 1");
    play(&mut b, "reveal");
    assert_eq!(a.current_row(), b.current_row());
    assert_ne!(a, b); // the route keeps which card the caravan passed
}

/// K-9.2: useless defences and repeated looks are legal.
#[test]
fn k9_2_useless_defences_and_repeated_looks_are_legal() {
    let mut s = journey_setup(3, 0, &[1, 1], hand(Helper::Haggle, 1).with(Helper::Scout, 1));
    second_lap(&mut s);
    s.cows = vec![1, 6, 5];
    let mut g = Korovan::from_setup(&s).unwrap();
    play(&mut g, "scout 1.0");
    assert!(g.validate("scout 1.0".parse().unwrap()).is_err()); // no Scout left
    play(&mut g, "place 0");
    play(&mut g, "reveal");
    play(&mut g, "haggle"); // 3 − 1 = 2 > 1 cow: still bust
    assert_eq!(g.cows(0), 0);
    assert_eq!(g.round(), 4);
}

// ---------------------------------------------------------------- setup

#[test]
fn setup_rejects_impossible_positions() {
    let ok = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    assert!(Korovan::from_setup(&ok).is_ok());
    let bad = |f: &dyn Fn(&mut KorovanSetup)| {
        let mut s = ok.clone();
        f(&mut s);
        match Korovan::from_setup(&s) {
            Err(KorovanError::Setup(e)) => e,
            other => panic!("accepted: {other:?}"),
        }
    };
    assert!(matches!(bad(&|s| s.cows.pop().map(|_| ()).unwrap()), SetupError::CowsLength { .. }));
    assert!(matches!(bad(&|s| s.rows.pop().map(|_| ()).unwrap()), SetupError::RowCount { .. }));
    assert!(matches!(bad(&|s| s.rows[1].peek = None), SetupError::Row { row: 2, .. }));
    assert!(matches!(bad(&|s| s.rows[1].peek = Some((2, 0))), SetupError::Row { row: 2, .. }));
    assert!(matches!(bad(&|s| s.rows[0].peek = Some((1, 0))), SetupError::Row { row: 1, .. }));
    assert!(matches!(bad(&|s| s.token = Some(1)), SetupError::Journey(_)));
    assert!(matches!(bad(&|s| s.current_row = 3), SetupError::Journey(_)));
    assert!(matches!(bad(&|s| s.round = 3), SetupError::Round { .. }));
    assert!(matches!(bad(&|s| s.helper_hand.guard = 1), SetupError::Helpers(_)));
    assert!(matches!(bad(&|s| s.rows[0].face_up[0] = true), SetupError::Helpers(_)));
    assert!(matches!(bad(&|s| s.rows[0].scouted[0] = true), SetupError::Helpers(_)));
    assert!(matches!(
        bad(&|s| {
            s.current_row = 2;
            s.rows[0].route = Some(1);
        }),
        SetupError::Row { row: 1, .. }
    ));
    // configuration problems are configuration errors, not position errors
    let mut c = ok.clone();
    c.config.players = 2;
    assert_eq!(Korovan::from_setup(&c), Err(KorovanError::Config(ConfigError::Players(2))));
    // a passed row with its route is fine
    let mut s = ok.clone();
    s.current_row = 2;
    s.rows[0].route = Some(1);
    s.rows[0].face_up = [false, true, false];
    let g = Korovan::from_setup(&s).unwrap();
    assert_eq!(g.to_setup(), s);
    // Defend needs the token on the resolved ambush
    let mut d = s.clone();
    d.phase = Phase::Defend;
    d.token = Some(0);
    d.rows[1].route = Some(0);
    d.rows[1].face_up = [true, false, false];
    assert_eq!(Korovan::from_setup(&d).unwrap().pending_fine(), 3);
    d.token = Some(1);
    assert!(Korovan::from_setup(&d).is_err());
}

#[test]
fn errors_say_why() {
    let g = journey(3, &[1, 1], HelperCounts::NONE);
    let e = g.validate("guard".parse().unwrap()).unwrap_err().to_string();
    assert!(e.contains("place phase"), "{e}");
    let e = "peek 9.0".parse::<Action>().unwrap_err().to_string();
    assert!(e.contains("cannot parse"), "{e}");
    assert!(g.observation(3).unwrap_err().to_string().contains("seat 3 does not exist"));
    let mut buf = [0.0f32; 5];
    assert!(g.write_observation_tensor(0, &mut buf).is_err());
}

/// K-9.3: a competitor cannot tell the drivers hand from the deck.
#[test]
fn k9_3_a_competitor_cannot_tell_the_drivers_hand_from_the_deck() {
    // same hand size, different kinds: competitors' observations agree
    let a = journey(4, &[1, 2, 4], hand(Helper::Guard, 2));
    let b = journey(4, &[1, 2, 4], hand(Helper::Scout, 1).with(Helper::Spy, 1));
    for seat in 1..4 {
        assert_eq!(a.observation(seat).unwrap(), b.observation(seat).unwrap());
    }
    assert_ne!(a.observation(0).unwrap(), b.observation(0).unwrap());
}

#[test]
fn the_wrong_player_is_refused() {
    let mut g = journey(3, &[1, 1], HelperCounts::NONE);
    let e = g.apply_for(1, "place 0".parse().unwrap()).unwrap_err();
    assert!(matches!(e, KorovanError::Illegal { reason: IllegalReason::NotYourTurn { seat: 1, .. }, .. }));
    assert!(e.to_string().contains("seat 1 is not to act"), "{e}");
    g.apply_for(0, "place 0".parse().unwrap()).unwrap();
}

// ---------------------------------------------------------------- names, variants, setups

/// K-4.1, K-6: one word per helper kind — notation, deck key and display.
#[test]
fn one_name_per_helper_kind() {
    for kind in Helper::ALL {
        let deal: Action = format!("deal {kind}").parse().unwrap();
        assert_eq!(deal, Action::Deal(kind));
        assert_eq!(kind.to_string(), kind.name());
        // the deck key is the same word
        let json = format!(r#"{{"{}": 3}}"#, kind.name());
        let counts: HelperCounts = serde_json::from_str(&json).unwrap();
        assert_eq!(counts, HelperCounts::NONE.with(kind, 3));
    }
    assert_eq!(Action::SecondThought.to_string(), "second_thought");
    assert_eq!("second_thought".parse::<Action>().unwrap(), Action::SecondThought);
    assert_eq!("deal second_thought".parse::<Action>().unwrap(), Action::Deal(Helper::SecondThought));
    // only the canonical word parses
    for bad in ["second", "deal second", "secondthought", "second-thought", "SecondThought"] {
        assert!(matches!(bad.parse::<Action>(), Err(KorovanError::Notation { .. })), "{bad}");
    }
}

/// K-1.4, K-6.3: every config struct refuses unknown keys, naming them.
#[test]
fn unknown_config_keys_are_errors() {
    let err = serde_json::from_str::<KorovanConfig>(r#"{"deck": {"scout": 7, "second": 4}}"#).unwrap_err();
    assert!(err.to_string().contains("unknown field `second`"), "{err}");
    let err = serde_json::from_str::<KorovanConfig>(r#"{"fines": {"one": 3}}"#).unwrap_err();
    assert!(err.to_string().contains("unknown field `one`"), "{err}");
    let err = serde_json::from_str::<KorovanConfig>(r#"{"player": 4}"#).unwrap_err();
    assert!(err.to_string().contains("unknown field `player`"), "{err}");
    // missing keys take their defaults; older configs (without the balance knobs) parse
    let old = r#"{"players":3,"first_driver":0,"laps":1,"deck":{"scout":7,"spy":4,"flare":4,"second_thought":4,"guard":4,"haggle":4},"hand_size":null}"#;
    let c: KorovanConfig = serde_json::from_str(old).unwrap();
    assert_eq!(c, KorovanConfig::with_players(3));
    // every key is written, so a front end can lay values over the defaults
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains(r#""starting_cows":null"#) && json.contains(r#""fines":{"one_ambush":3,"two_ambushes":2}"#));
    assert_eq!(serde_json::from_str::<KorovanConfig>(&json).unwrap(), c);
    let partial: KorovanConfig = serde_json::from_str(r#"{"fines": {"one_ambush": 4}}"#).unwrap();
    assert_eq!(partial.fines, korovan_core::Fines { one_ambush: 4, two_ambushes: 2 });
}

/// K-1.2 (variant): the starting cows are configurable, N+1 by default, and
/// the conservation invariant follows them.
#[test]
fn k1_2_starting_cows_variant() {
    let c = KorovanConfig { players: 4, starting_cows: Some(9), ..KorovanConfig::default() };
    let mut g = Korovan::new_game(&c).unwrap();
    assert_eq!((0..4).map(|s| g.cows(s)).collect::<Vec<_>>(), [9; 4]);
    let mut rng = GameRng::new(4);
    while !g.is_terminal() {
        let a = random_action(&g, &mut rng);
        g.apply(a).unwrap();
        assert_eq!(g.total_cows(), 36); // K-1.2: N · starting cows
    }
    assert_eq!(KorovanConfig::with_players(4).start_cows(), 5);
    // the setups follow the configured start
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    s.config.starting_cows = Some(2);
    s.cows = vec![2, 2, 2];
    assert!(Korovan::from_setup(&s).is_ok());
    s.cows = vec![4, 4, 4];
    assert_eq!(Korovan::from_setup(&s), Err(KorovanError::Setup(SetupError::CowsTotal { found: 12, expected: 6 })));
    // validated: at least 1, and N·cows within a byte
    for (n, cows) in [(3, 0), (9, 29), (3, 86)] {
        let c = KorovanConfig { players: n, starting_cows: Some(cows), ..KorovanConfig::default() };
        assert!(matches!(c.validate(), Err(ConfigError::StartingCows { .. })), "{n} players, {cows} cows");
    }
    let c = KorovanConfig { players: 9, starting_cows: Some(28), ..KorovanConfig::default() };
    assert!(c.validate().is_ok());
}

/// K-5.5 (variant): the fines are configurable, 3 and 2 by default, and
/// every fine of the game reads them.
#[test]
fn k5_5_fines_variant() {
    let fines = korovan_core::Fines { one_ambush: 5, two_ambushes: 1 };
    let mut s = journey_setup(3, 0, &[1, 3], HelperCounts::NONE);
    s.config.fines = fines;
    let mut g = Korovan::from_setup(&s).unwrap();
    play(&mut g, "place 0");
    play(&mut g, "reveal"); // row 1 holds one ambush
    assert_eq!(g.pending_fine(), 5);
    play(&mut g, "pay");
    assert_eq!([g.cows(0), g.cows(1), g.cows(2)], [0, 8, 4]); // capped at 4, the journey ends
    let mut s = journey_setup(3, 0, &[3, 3], HelperCounts::NONE);
    s.config.fines = fines;
    let mut g = Korovan::from_setup(&s).unwrap();
    play(&mut g, "place 0");
    play(&mut g, "reveal"); // row 1 holds two ambushes
    assert_eq!(g.pending_fine(), 1);
    // a Defend setup reads the configured fine too
    let mut d = journey_setup(3, 0, &[1, 3], HelperCounts::NONE);
    d.config.fines = fines;
    d.phase = Phase::Defend;
    d.token = Some(0);
    d.rows[0].route = Some(0);
    d.rows[0].face_up = [true, false, false];
    assert_eq!(Korovan::from_setup(&d).unwrap().pending_fine(), 5);
    // validated: a fine is at least one cow
    let c = KorovanConfig { fines: korovan_core::Fines { one_ambush: 3, two_ambushes: 0 }, ..KorovanConfig::default() };
    assert_eq!(c.validate(), Err(ConfigError::Fine { which: "two_ambushes", fine: 0 }));
    assert_eq!(KorovanConfig::default().fines, korovan_core::Fines { one_ambush: 3, two_ambushes: 2 });
}

/// K-1.2, K-5.5, K-5.7: a setup whose cows no game can reach is refused.
#[test]
fn setup_refuses_cows_out_of_reach() {
    // round 0 before the journey: nothing has moved, every seat holds N+1
    let mut s = KorovanSetup::new(KorovanConfig::default()).unwrap();
    assert_eq!(s.cows, vec![6; 5]);
    s.cows = vec![1, 1, 1, 1, 26];
    assert_eq!(
        Korovan::from_setup(&s),
        Err(KorovanError::Setup(SetupError::CowsOutOfReach { seat: 0, cows: 1, low: 6, high: 6 }))
    );
    // round 0, row 2 of the journey: only the owner of a row passed on an
    // ambush may have gained, at most that row's fine, from the driver
    let mut s = journey_setup(4, 0, &[1, 3, 3], HelperCounts::NONE);
    s.current_row = 2;
    s.rows[0].route = Some(0);
    s.rows[0].face_up = [true, false, false];
    s.cows = vec![2, 8, 5, 5]; // seat 1 owns row 1 (one ambush: fine 3)
    assert!(Korovan::from_setup(&s).is_ok());
    s.cows = vec![1, 9, 5, 5];
    assert!(matches!(
        Korovan::from_setup(&s),
        Err(KorovanError::Setup(SetupError::CowsOutOfReach { seat: 1, cows: 9, low: 5, high: 8 }))
    ));
    s.cows = vec![1, 8, 6, 5]; // seat 2's row is not passed yet
    assert!(matches!(Korovan::from_setup(&s), Err(KorovanError::Setup(SetupError::CowsOutOfReach { seat: 2, .. }))));
    // a row passed on an Empty pays its owner nothing
    s.rows[0].route = Some(1);
    s.rows[0].face_up = [false, true, false];
    s.cows = vec![4, 6, 5, 5];
    assert!(matches!(Korovan::from_setup(&s), Err(KorovanError::Setup(SetupError::CowsOutOfReach { seat: 1, .. }))));
    // later rounds: a competitor loses at most one toll per round
    let mut s = journey_setup(4, 2, &[1, 3, 3], HelperCounts::NONE);
    s.cows = vec![2, 10, 3, 5]; // round 2 (driver 2): seat 0 drove round 0, seat 3 round 1
    assert!(Korovan::from_setup(&s).is_ok());
    s.cows = vec![3, 11, 3, 3]; // seat 1 never drove: at most 5 + 2·3 = 11, at least 3
    assert!(Korovan::from_setup(&s).is_ok());
    s.cows = vec![4, 12, 2, 2];
    assert!(matches!(
        Korovan::from_setup(&s),
        Err(KorovanError::Setup(SetupError::CowsOutOfReach { seat: 1, cows: 12, low: 3, high: 11 }))
    ));
}

/// K-8.1: the log of helpers played must agree with the counts and targets.
#[test]
fn setup_checks_the_helper_log() {
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE);
    s.config.hand_size = Some(2);
    s.rows[1].face_up = [true, false, false];
    s.rows[1].scouted = [false, true, false];
    s.played = hand(Helper::Flare, 1).with(Helper::Scout, 1);
    s.helpers_played = vec!["scout 2.1".parse().unwrap(), "flare 2.0".parse().unwrap()];
    let g = Korovan::from_setup(&s).unwrap();
    assert_eq!(g.helper_log().iter().collect::<Vec<_>>(), s.helpers_played);
    assert_eq!(g.to_setup(), s);
    let refused = |f: &dyn Fn(&mut KorovanSetup)| {
        let mut t = s.clone();
        f(&mut t);
        matches!(Korovan::from_setup(&t), Err(KorovanError::Setup(SetupError::Helpers(_))))
    };
    assert!(refused(&|t| t.helpers_played.clear()));
    assert!(refused(&|t| t.helpers_played.truncate(1)));
    assert!(refused(&|t| t.helpers_played[0] = "scout 2.2".parse().unwrap()));
    assert!(refused(&|t| t.helpers_played[1] = "flare 2.2".parse().unwrap()));
    assert!(refused(&|t| t.helpers_played[1] = "pay".parse().unwrap()));
    assert!(refused(&|t| t.helpers_played.push("guard".parse().unwrap())));
}

/// K-7.2: nobody drives once the game is over.
#[test]
fn k7_2_no_driver_after_the_game() {
    let mut g = Korovan::new_game(&cfg(3, 0)).unwrap();
    assert_eq!(g.driver(), Some(0));
    let mut rng = GameRng::new(2);
    while !g.is_terminal() {
        assert!(g.driver().is_some());
        let a = random_action(&g, &mut rng);
        g.apply(a).unwrap();
    }
    assert_eq!(g.driver(), None);
}

/// K-8.1, K-8.2, K-8.3, K-4.2, K-9.1: what each seat sees of each action.
#[test]
fn k8_1_public_actions_and_private_ones() {
    use boardgame_kit::Viewer::{Seat, Spectator};
    let mut g = Korovan::new_game(&KorovanConfig::with_players(4)).unwrap();
    // K-3.1, K-8.3: the deal is the driver's (seat 0) alone
    let deal = Action::Deal(Helper::Guard);
    assert_eq!(g.view_action(Seat(0), deal), Some(deal));
    assert_eq!(g.view_action(Seat(1), deal), None);
    assert_eq!(g.view_action(Spectator, deal), None);
    deal_all(&mut g, &[Helper::Guard, Helper::Scout, Helper::Spy]);
    // K-4.3, K-8.2: a lay is its layer's (seat 1) alone
    let lay: Action = "lay 0+2".parse().unwrap();
    assert_eq!(g.view_action(Seat(1), lay), Some(lay));
    for v in [Seat(0), Seat(2), Seat(3), Spectator] {
        assert_eq!(g.view_action(v, lay), None);
    }
    play(&mut g, "lay 0+2");
    // K-4.2: which card is peeked is public (not what it shows)
    let peek: Action = "peek 1.1".parse().unwrap();
    for v in [Seat(0), Seat(1), Seat(2), Seat(3), Spectator] {
        assert_eq!(g.view_action(v, peek), Some(peek));
    }
    // K-8.1: the journey is public, helpers with their targets, and the
    // payment that ends a round (K-9.1)
    let mut j = journey(3, &[1, 1], hand(Helper::Scout, 1).with(Helper::Haggle, 1));
    for a in ["scout 2.0", "place 0", "reveal", "haggle"] {
        let x: Action = a.parse().unwrap();
        for v in [Seat(0), Seat(1), Seat(2), Spectator] {
            assert_eq!(j.view_action(v, x), Some(x), "{a}");
        }
        play(&mut j, a);
    }
}
