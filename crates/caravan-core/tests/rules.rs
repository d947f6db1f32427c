//! One test (at least) per rule id of C-1..C-9, each on a hand-made
//! position built with `CaravanSetup`.

mod common;

use boardgame_kit::{Game, GameRng, Outcome, Seats, Turn};
use caravan_core::{
    Act, Action, Board, Caravan, CaravanConfig, CaravanError, CaravanSetup, Cargo, ConfigError, EndKind, FULL_BAG,
    IllegalReason, Kind, SetupError, TENSOR_LEN,
};
use common::*;

fn illegal(s: &Caravan, a: &str) -> IllegalReason {
    match s.validate(act(a)) {
        Err(CaravanError::Illegal { reason, .. }) => {
            let mut c = *s;
            assert!(c.apply(act(a)).is_err());
            assert_eq!(&c, s, "a rejected action changed the state");
            assert!(!legal(s).contains(&act(a)), "{a} is listed");
            reason
        }
        other => panic!("{a} should be illegal, got {other:?}\n{s}"),
    }
}

fn is_legal(s: &Caravan, a: &str) -> bool {
    let listed = legal(s).contains(&act(a));
    assert_eq!(listed, s.validate(act(a)).is_ok(), "{a}: list and validate disagree");
    listed
}

/// The position problem `Caravan::from_setup` reports (panics on anything
/// else, a configuration problem included).
fn setup_error(setup: &CaravanSetup) -> Result<Caravan, SetupError> {
    Caravan::from_setup(setup).map_err(|e| match e {
        CaravanError::Setup(e) => e,
        other => panic!("expected a position error, got {other:?}"),
    })
}

fn cargo_at(s: &Caravan, p: usize, square: &str) -> Vec<Cargo> {
    s.camels_on_board(p).filter(|(q, _)| *q == sq(square)).map(|(_, c)| c).collect()
}

// ---------------------------------------------------------------- C-1

#[test]
fn c1_1_two_to_four_players() {
    for p in [0u8, 1, 5] {
        let e = Caravan::new_game(&cfg(p)).unwrap_err();
        assert_eq!(e.to_string(), format!("invalid configuration: players must be between 2 and 4, got {p}"));
    }
    for p in 2..=4u8 {
        assert_eq!(Caravan::new_game(&cfg(p)).unwrap().num_players(), usize::from(p));
    }
}

#[test]
fn c1_2_camels_start_in_supply_five_or_six() {
    let s = Caravan::new_game(&cfg(3)).unwrap();
    assert!((0..3).all(|p| s.supply(p) == 5 && s.camels_on_board(p).count() == 0));
    let six = CaravanConfig { camels: 6, ..cfg(2) };
    let s = Caravan::new_game(&six).unwrap();
    assert_eq!((s.supply(0), s.supply(1)), (6, 6));
    // A hand-made position cannot put a sixth camel on the board in a
    // 5-camel game.
    let mut setup = base(cfg(2), 4, 4);
    for c in ["a2", "b2", "c2", "d2", "e3", "f3"] {
        setup = setup.camel(0, sq(c), Cargo::Empty);
    }
    assert!(matches!(setup_error(&setup), Err(SetupError::Camels { player: 0, found: 6, max: 5 })));
}

#[test]
fn c1_3_forty_eight_goods_accounted_for() {
    let s = Caravan::new_game(&cfg(3)).unwrap();
    assert_eq!(s.goods_by_kind(), FULL_BAG.map(u32::from));
    assert_eq!(FULL_BAG.iter().map(|&n| u32::from(n)).sum::<u32>(), 48);
    // a cube too many or too few is an impossible position
    let mut setup = base(cfg(3), 4, 4);
    setup.bag[Kind::R2 as usize] -= 1;
    let e = Caravan::from_setup(&setup).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid position: C-1.3: R2 cubes must number 3 (bag + lying + carried + delivered), found 2"
    );
    let setup = base(cfg(3), 4, 4).camel(1, sq("f3"), Cargo::Top(Kind::C1));
    let mut bad = setup.clone();
    bad.bag[Kind::C1 as usize] += 1;
    assert!(matches!(setup_error(&bad), Err(SetupError::Goods { .. })));
    assert!(Caravan::from_setup(&setup).is_ok());
}

#[test]
fn c1_4_demand_markers_are_unlimited() {
    // A space may hold any number of markers; a refill still adds one.
    let mut setup = base(cfg(2), 4, 4).clear_space(1).clear_space(2).clear_space(3).camel(0, sq("b3"), Cargo::Empty);
    setup.picks_since_refill = 3;
    setup.space_markers = [0, 0, 0, 0, 200, 0, 0, 0];
    let mut s = game(&setup);
    play(&mut s, "pick 4");
    assert_eq!(s.space_markers(5), 201);
    // and a player may hold any number: picking them all up takes all 201
    let mut setup = base(cfg(2), 4, 4).camel(0, sq("f5"), Cargo::Empty);
    setup.space_markers = [0, 0, 0, 0, 201, 0, 0, 0];
    setup.demand_markers[0] = 50;
    let mut s = game(&setup);
    play(&mut s, "pick 5");
    assert_eq!((s.demand_markers(0), s.space_markers(5)), (251, 0));
}

#[test]
fn c1_5_one_theft_marker_each() {
    let s = Caravan::new_game(&cfg(4)).unwrap();
    assert!((0..4).all(|p| s.theft_markers(p) == 1));
    let mut setup = base(cfg(3), 4, 4);
    setup.theft_markers = [2, 1, 1, 0];
    assert_eq!(setup_error(&setup).unwrap_err(), SetupError::TheftMarkers { found: 4, expected: 3 });
}

// ---------------------------------------------------------------- C-2

#[test]
fn c2_1_cities_of_the_default_board() {
    let b = Board::default();
    let names: Vec<String> = Kind::ALL.iter().map(|&k| b.city(k).to_string()).collect();
    // rare kinds at the edge cities, common at the central ones
    assert_eq!(names, ["d1", "g4", "d7", "a4", "d3", "e4", "d5", "c4"]);
}

#[test]
fn c2_2_numbered_spaces_in_reading_order() {
    let b = Board::default();
    let names: Vec<String> = (1..=8).map(|n| b.space(n).unwrap().to_string()).collect();
    assert_eq!(names, ["a1", "g1", "e2", "b3", "f5", "c6", "a7", "g7"]);
    assert_eq!(b.space(0), None);
    assert_eq!(b.space(9), None);
}

#[test]
fn c2_3_every_square_is_playable() {
    let s = game(&base(cfg(2), 4, 4));
    // cities, numbered spaces and plain squares alike
    for target in ["d1", "d3", "a1", "e2", "b2", "g7"] {
        assert!(is_legal(&s, &format!("move supply->{target}")), "{target}");
    }
    let moves = legal(&s).iter().filter(|a| matches!(a.act(), Act::Move { .. })).count();
    assert_eq!(moves, 49);
}

#[test]
fn c2_4_board_layout_is_validated_data() {
    let mut config = cfg(2);
    config.board.cities[1] = config.board.spaces[4];
    let e = Caravan::new_game(&config).unwrap_err();
    assert!(e.to_string().contains("numbered space 5 overlaps"), "{e}");
    // another valid layout plays: swap two cities
    let mut config = cfg(2);
    config.board.cities.swap(0, 4);
    let s = Caravan::new_game(&config).unwrap();
    assert_eq!(s.config().board.city(Kind::R1).to_string(), "d3");
}

// ---------------------------------------------------------------- C-3

#[test]
fn c3_1_setup_draws_are_chance_nodes_weighted_by_the_bag() {
    let mut s = Caravan::new_game(&cfg(3)).unwrap();
    let mut chances = <Caravan as Game>::ChanceList::default();
    s.chance_outcomes(&mut chances);
    let weights: Vec<(String, u32)> = chances.iter().map(|o| (o.action.to_string(), o.weight)).collect();
    assert_eq!(
        weights,
        [
            ("draw R1", 3),
            ("draw R2", 3),
            ("draw R3", 3),
            ("draw R4", 3),
            ("draw C1", 9),
            ("draw C2", 9),
            ("draw C3", 9),
            ("draw C4", 9)
        ]
        .map(|(a, w)| (a.to_string(), w))
    );
    // in space order
    for (i, a) in
        ["draw R1", "draw R1", "draw R1", "draw C2", "draw C3", "draw C4", "draw C1", "draw R3"].iter().enumerate()
    {
        assert_eq!(s.turn(), Turn::Chance);
        play(&mut s, a);
        assert_eq!(s.lying(i as u8 + 1).unwrap().to_string(), a[5..]);
    }
    // R1 is exhausted: no longer an outcome (and a draw is not a decision)
    assert_eq!(s.bag()[Kind::R1 as usize], 0);
    assert_eq!(s.turn(), Turn::Player(0));
    assert_eq!(s.bag_len(), 40);
    assert_eq!(illegal(&s, "draw C1"), IllegalReason::NotChance);
    let mut s2 = Caravan::new_game(&cfg(3)).unwrap();
    for _ in 0..3 {
        play(&mut s2, "draw R1");
    }
    s2.chance_outcomes(&mut chances);
    assert!(chances.iter().all(|o| o.action != act("draw R1")));
    assert_eq!(illegal(&s2, "draw R1"), IllegalReason::NotInBag);
    assert_eq!(illegal(&s2, "end"), IllegalReason::ChanceNode);
}

#[test]
fn c3_2_demand_markers_on_spaces_1_2_7_8() {
    let s = Caravan::new_game(&cfg(2)).unwrap();
    let m: Vec<u8> = (1..=8).map(|n| s.space_markers(n)).collect();
    assert_eq!(m, [1, 1, 0, 0, 0, 0, 1, 1]);
}

#[test]
fn c3_3_seat_0_starts_and_play_goes_in_seat_order() {
    let mut s = game(&base(cfg(3), 0, 1));
    assert_eq!(s.turn(), Turn::Player(0));
    for next in [1, 2, 0, 1] {
        play(&mut s, "end");
        assert_eq!(s.turn(), Turn::Player(next));
    }
}

// ---------------------------------------------------------------- C-4

#[test]
fn c4_1_allowance_1_2_3_4_by_turn_index_in_a_2_player_game() {
    let config = CaravanConfig { camels: 6, ..cfg(2) };
    let mut s = game(&base(config, 0, 1));
    let free = ["b2", "c2", "d2", "f2", "b4", "f4", "b5", "c5", "e5", "f5", "b6", "d6"];
    let mut next = free.iter();
    let expected = [(0, 1), (1, 2), (0, 3), (1, 4), (0, 4)];
    for (t, &(seat, allowance)) in expected.iter().enumerate() {
        assert_eq!(s.turn_index(), t as u32);
        assert_eq!(s.turn(), Turn::Player(seat), "turn {t}");
        assert_eq!(s.actions_left(), allowance, "turn {t}");
        if t == 4 {
            break;
        }
        // spend the whole allowance with cost-1 placements
        for i in 1..=allowance {
            play(&mut s, &format!("move supply->{}", next.next().unwrap()));
            if i < allowance {
                assert_eq!(s.actions_left(), allowance - i);
            }
        }
    }
    // seat 0 got 1, 3 and 4 actions, seat 1 got 2 and 4: by turn, not by seat
    assert_eq!(s.turn_index(), 4);
    assert_eq!((s.supply(0), s.supply(1)), (2, 0));
}

#[test]
fn c4_2_end_early_or_when_no_allowance_is_left() {
    let mut s = game(&base(cfg(2), 4, 4));
    play(&mut s, "move supply->b2");
    assert_eq!((s.turn(), s.actions_left()), (Turn::Player(0), 3));
    play(&mut s, "end");
    assert_eq!((s.turn(), s.actions_left()), (Turn::Player(1), 4));
    for t in ["b6", "c2", "e3", "f3"] {
        assert_eq!(s.turn(), Turn::Player(1));
        play(&mut s, &format!("move supply->{t}"));
    }
    // the fourth action closed the turn by itself
    assert_eq!((s.turn(), s.actions_left(), s.turn_index()), (Turn::Player(0), 4, 6));
}

// ---------------------------------------------------------------- C-5.1

#[test]
fn c5_1_cost_one_to_free_square_two_to_occupied() {
    let setup = base(cfg(2), 4, 4).camel(0, sq("b2"), Cargo::Empty).camel(1, sq("f3"), Cargo::Empty);
    let mut s = game(&setup);
    play(&mut s, "move supply->c2");
    assert_eq!(s.actions_left(), 3);
    play(&mut s, "move supply->f3"); // occupied by an opponent
    assert_eq!(s.actions_left(), 1);
    // own camels occupy too: with 1 left, no move onto b2, c2 or f3
    assert_eq!(illegal(&s, "move supply->b2"), IllegalReason::NeedsTwoActions);
    assert_eq!(illegal(&s, "move c2->f3"), IllegalReason::NeedsTwoActions);
    assert!(is_legal(&s, "move c2->g6")); // no adjacency needed
    let e = s.validate(act("move supply->b2")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "illegal action `move supply->b2`: C-5.1: a move onto an occupied square costs 2 actions, only 1 is left"
    );
    // a good lying there does not occupy a square
    assert!(is_legal(&s, "move supply->a1"));
    play(&mut s, "move b2->g6");
    assert_eq!(s.turn(), Turn::Player(1));
    assert_eq!(cargo_at(&s, 0, "f3"), [Cargo::Empty]);
    assert_eq!(s.camels_on_board(0).count(), 3);
}

#[test]
fn c5_1_only_unladen_camels_of_yours_move_to_another_square() {
    let setup = base(cfg(2), 4, 4)
        .camel(0, sq("b2"), Cargo::Top(Kind::R1))
        .camel(0, sq("c2"), Cargo::Under(Kind::R2))
        .camel(0, sq("e3"), Cargo::Empty)
        .camel(0, sq("e5"), Cargo::Empty)
        .camel(0, sq("e6"), Cargo::Empty)
        .camel(1, sq("f3"), Cargo::Empty);
    let s = game(&setup);
    assert_eq!(illegal(&s, "move b2->b1"), IllegalReason::NoCamelAtSource); // laden
    assert_eq!(illegal(&s, "move c2->b1"), IllegalReason::NoCamelAtSource); // laden (under)
    assert_eq!(illegal(&s, "move f3->b1"), IllegalReason::NoCamelAtSource); // not yours
    assert_eq!(illegal(&s, "move e3->e3"), IllegalReason::SameSquare);
    assert_eq!(illegal(&s, "move supply->b1"), IllegalReason::SupplyEmpty);
    assert!(is_legal(&s, "move e3->b1"));
    // exactly 3 sources × 48 targets of camel moves
    let moves = legal(&s).iter().filter(|a| matches!(a.act(), Act::Move { .. })).count();
    assert_eq!(moves, 3 * 48);
}

// ---------------------------------------------------------------- C-5.2

#[test]
fn c5_2_pick_up_takes_the_good_and_the_markers() {
    let setup = base(cfg(2), 4, 4).camel(0, sq("a1"), Cargo::Empty).camel(0, sq("g1"), Cargo::Top(Kind::R4)).camel(
        1,
        sq("e2"),
        Cargo::Empty,
    );
    let mut s = game(&setup);
    assert_eq!(illegal(&s, "pick 2"), IllegalReason::NoUnladenCamel); // only laden
    assert_eq!(illegal(&s, "pick 3"), IllegalReason::NoUnladenCamel); // not yours
    assert_eq!(illegal(&s, "pick 4"), IllegalReason::NoUnladenCamel); // no camel
    play(&mut s, "pick 1");
    assert_eq!(cargo_at(&s, 0, "a1"), [Cargo::Top(Kind::C1)]);
    assert_eq!(s.lying(1), None);
    assert_eq!((s.demand_markers(0), s.space_markers(1)), (1, 0));
    assert_eq!(s.actions_left(), 3);
    assert_eq!(s.picks_since_refill(), 1);
    assert_eq!(s.delivered_count(0), 0); // never a delivery
    assert_eq!(illegal(&s, "pick 1"), IllegalReason::NoGoodLying);
}

// ---------------------------------------------------------------- C-5.3

#[test]
fn c5_3_a_chain_passes_through_a_laden_camel() {
    let setup = base(cfg(2), 4, 4)
        .camel(0, sq("f2"), Cargo::Top(Kind::C1))
        .camel(0, sq("f3"), Cargo::Top(Kind::C2))
        .camel(0, sq("f4"), Cargo::Empty)
        .camel(0, sq("f6"), Cargo::Empty)
        .camel(1, sq("f5"), Cargo::Empty);
    let mut s = game(&setup);
    let goods: Vec<String> =
        legal(&s).iter().filter(|a| matches!(a.act(), Act::Good { .. })).map(|a| a.to_string()).collect();
    assert_eq!(goods, ["good C1 f2=>f4", "good C2 f3=>f4"]);
    assert_eq!(illegal(&s, "good C1 f2=>f3"), IllegalReason::NoTarget); // laden target
    // an opponent's camel is no link
    assert_eq!(illegal(&s, "good C1 f2=>f6"), IllegalReason::NoChain);
    assert_eq!(illegal(&s, "good C3 f2=>f4"), IllegalReason::NoSuchGood);
    play(&mut s, "good C1 f2=>f4");
    assert_eq!(cargo_at(&s, 0, "f2"), [Cargo::Empty]);
    assert_eq!(cargo_at(&s, 0, "f4"), [Cargo::Top(Kind::C1)]);
    assert_eq!(s.actions_left(), 3);
}

#[test]
fn c5_3_a_good_under_may_move_within_its_square_one_on_top_may_not() {
    let setup = base(cfg(2), 4, 4)
        .camel(0, sq("b2"), Cargo::Under(Kind::C4))
        .camel(0, sq("b2"), Cargo::Empty)
        .camel(0, sq("c5"), Cargo::Top(Kind::C3))
        .camel(0, sq("c5"), Cargo::Empty);
    let mut s = game(&setup);
    assert!(is_legal(&s, "good C4 under b2=>b2"));
    assert_eq!(illegal(&s, "good C3 c5=>c5"), IllegalReason::TopSameSquare);
    play(&mut s, "good C4 under b2=>b2");
    // the good is on top of a camel now, the other camel is free
    let mut at = cargo_at(&s, 0, "b2");
    at.sort();
    assert_eq!(at, [Cargo::Empty, Cargo::Top(Kind::C4)]);
    // (decision) the target is another unladen camel: alone on its square
    // an under good cannot turn over onto its own camel
    let alone = base(cfg(2), 4, 4).camel(0, sq("b2"), Cargo::Under(Kind::C4));
    assert_eq!(illegal(&game(&alone), "good C4 under b2=>b2"), IllegalReason::NoTarget);
}

// ---------------------------------------------------------------- C-5.4

#[test]
fn c5_4_delivery_only_in_the_matching_city() {
    // d3 is the city of C1
    let setup = base(cfg(2), 4, 4)
        .camel(0, sq("d2"), Cargo::Top(Kind::C1))
        .camel(0, sq("e3"), Cargo::Top(Kind::C2))
        .camel(0, sq("d3"), Cargo::Empty)
        .camel(0, sq("e2"), Cargo::Under(Kind::C1));
    let mut s = game(&setup);
    play(&mut s, "good C2 e3=>d3"); // not the city of C2
    assert_eq!(cargo_at(&s, 0, "d3"), [Cargo::Top(Kind::C2)]);
    assert_eq!(s.delivered_count(0), 0);
    play(&mut s, "good C2 d3=>e3"); // back
    play(&mut s, "good C1 d2=>d3"); // the city of C1: delivered at once
    assert_eq!(s.delivered(0)[Kind::C1 as usize], 1);
    assert_eq!(cargo_at(&s, 0, "d3"), [Cargo::Empty]);
    assert_eq!(cargo_at(&s, 0, "d2"), [Cargo::Empty]);
    play(&mut s, "good C1 under e2=>d3"); // a stolen good delivers too
    assert_eq!(s.delivered(0)[Kind::C1 as usize], 2);
    assert_eq!(s.goods_by_kind(), FULL_BAG.map(u32::from));
}

// ---------------------------------------------------------------- C-5.5

#[test]
fn c5_5_steal_moves_a_good_on_top_under_an_unladen_thief() {
    let setup = base(cfg(3), 3, 4).camel(0, sq("f3"), Cargo::Empty).camel(1, sq("f3"), Cargo::Top(Kind::C1)).camel(
        1,
        sq("f4"),
        Cargo::Empty,
    );
    let mut s = game(&setup);
    assert_eq!(illegal(&s, "steal C1 f3 from P0"), IllegalReason::BadVictim);
    assert_eq!(illegal(&s, "steal C1 f3 from P2"), IllegalReason::NothingToSteal);
    play(&mut s, "steal C1 f3 from P1");
    assert_eq!(cargo_at(&s, 0, "f3"), [Cargo::Under(Kind::C1)]);
    assert_eq!(cargo_at(&s, 1, "f3"), [Cargo::Empty]);
    // the marker goes to the victim
    assert_eq!((s.theft_markers(0), s.theft_markers(1)), (0, 2));
    assert_eq!(s.actions_left(), 3);
    // a good under a camel cannot be stolen: P1 (to move later) cannot
    // take it back though it holds two markers and an unladen camel there
    play(&mut s, "end");
    assert_eq!(s.turn(), Turn::Player(1));
    assert_eq!(illegal(&s, "steal C1 f3 from P0"), IllegalReason::NothingToSteal);
}

#[test]
fn c5_5_needs_a_marker_and_an_unladen_thief() {
    let mut setup = base(cfg(2), 4, 4).camel(0, sq("f3"), Cargo::Empty).camel(1, sq("f3"), Cargo::Top(Kind::C1));
    setup.theft_markers = [0, 2, 0, 0];
    assert_eq!(illegal(&game(&setup), "steal C1 f3 from P1"), IllegalReason::NoTheftMarker);
    let laden = base(cfg(2), 4, 4).camel(0, sq("f3"), Cargo::Top(Kind::C2)).camel(1, sq("f3"), Cargo::Top(Kind::C1));
    assert_eq!(illegal(&game(&laden), "steal C1 f3 from P1"), IllegalReason::NoThief);
    let elsewhere = base(cfg(2), 4, 4).camel(0, sq("f4"), Cargo::Empty).camel(1, sq("f3"), Cargo::Top(Kind::C1));
    assert_eq!(illegal(&game(&elsewhere), "steal C1 f3 from P1"), IllegalReason::NoThief);
}

#[test]
fn c5_5_a_stolen_good_once_moved_is_on_top_again() {
    // P0 holds a stolen C1 under its camel at f3 and moves it to f4; there P1
    // can steal it.
    let setup = base(cfg(2), 4, 4).camel(0, sq("f3"), Cargo::Under(Kind::C1)).camel(0, sq("f4"), Cargo::Empty).camel(
        1,
        sq("f4"),
        Cargo::Empty,
    );
    let mut s = game(&setup);
    play(&mut s, "good C1 under f3=>f4");
    play(&mut s, "end");
    assert!(is_legal(&s, "steal C1 f4 from P0"));
}

// ---------------------------------------------------------------- C-5.6

#[test]
fn c5_6_actions_name_squares_and_are_canonical() {
    // three unladen camels of P0 on f3, two C1 on top of camels at f4: one
    // action per square / kind, never per camel
    let setup = base(cfg(2), 4, 4)
        .camel(0, sq("f3"), Cargo::Empty)
        .camel(0, sq("f3"), Cargo::Empty)
        .camel(0, sq("f3"), Cargo::Empty)
        .camel(0, sq("f4"), Cargo::Top(Kind::C1))
        .camel(0, sq("f4"), Cargo::Top(Kind::C1))
        .camel(1, sq("f3"), Cargo::Top(Kind::C2))
        .camel(1, sq("f3"), Cargo::Top(Kind::C2));
    let config = CaravanConfig { camels: 6, ..cfg(2) };
    let mut setup = setup;
    setup.config = config;
    let s = game(&setup);
    let list = legal(&s);
    let count = |f: &dyn Fn(&Act) -> bool| list.iter().filter(|a| f(&a.act())).count();
    assert_eq!(count(&|a| matches!(a, Act::Move { from: Some(_), .. })), 48);
    assert_eq!(count(&|a| matches!(a, Act::Move { from: None, .. })), 49);
    assert_eq!(count(&|a| matches!(a, Act::Good { .. })), 1);
    assert_eq!(count(&|a| matches!(a, Act::Steal { .. })), 1);
    // every legal action leads to a different state
    let mut after: Vec<Caravan> = list
        .iter()
        .map(|&a| {
            let mut c = s;
            c.apply(a).unwrap();
            c
        })
        .collect();
    let n = after.len();
    after.sort_by_key(|c| serde_json::to_string(c).unwrap());
    after.dedup();
    assert_eq!(after.len(), n);
}

// ---------------------------------------------------------------- C-6

#[test]
fn c6_1_c9_2_refill_after_the_fourth_pick_up_then_the_turn_goes_on() {
    let mut setup = base(cfg(2), 4, 4).clear_space(1).clear_space(2).clear_space(3).camel(0, sq("b3"), Cargo::Empty);
    setup.picks_since_refill = 3;
    setup.space_markers = [0, 0, 0, 2, 0, 1, 1, 0];
    let mut s = game(&setup);
    play(&mut s, "pick 4");
    // the 4 goods still lying got one more marker; the picked space's went
    // to the player; the empty spaces wait for draws in order
    let m: Vec<u8> = (1..=8).map(|n| s.space_markers(n)).collect();
    assert_eq!(m, [0, 0, 0, 0, 1, 2, 2, 1]);
    assert_eq!(s.demand_markers(0), 2);
    assert_eq!(s.turn(), Turn::Chance);
    assert_eq!(s.pending_draws(), 0b1111);
    assert_eq!(s.picks_since_refill(), 0);
    for (n, k) in [(1, "R1"), (2, "C3"), (3, "R2"), (4, "C1")] {
        assert_eq!(s.turn(), Turn::Chance);
        play(&mut s, &format!("draw {k}"));
        assert_eq!(s.lying(n).unwrap().to_string(), k);
    }
    // C-9.2: P0's turn goes on with its 3 actions left
    assert_eq!((s.turn(), s.actions_left()), (Turn::Player(0), 3));
    assert_eq!(s.bag_len(), 48 - 8 + 3 - 4);
}

#[test]
fn c6_2_c9_3_exactly_ten_refills_in_a_biased_game() {
    for (players, seed) in [(2u8, 3u64), (3, 1), (4, 2)] {
        let config = CaravanConfig { players, max_turns: 2000, ..CaravanConfig::default() };
        let g = biased_game(config, seed, false);
        assert_eq!(g.refills, 10, "{players} players");
        assert_eq!(g.state.end_kind(), Some(EndKind::Natural), "{}", g.state);
        assert_eq!(g.state.bag_len(), 0);
    }
}

#[test]
fn c6_2_no_refill_and_no_markers_once_the_bag_is_empty() {
    let mut setup = base(cfg(2), 4, 4)
        .clear_space(1)
        .clear_space(2)
        .clear_space(3)
        .camel(0, sq("b3"), Cargo::Empty)
        .empty_bag_into(1);
    setup.picks_since_refill = 3;
    let mut s = game(&setup);
    assert_eq!(s.bag_len(), 0);
    play(&mut s, "pick 4");
    assert_eq!(s.turn(), Turn::Player(0));
    assert_eq!(s.pending_draws(), 0);
    let m: Vec<u8> = (1..=8).map(|n| s.space_markers(n)).collect();
    assert_eq!(m, [1, 1, 0, 0, 0, 0, 1, 1]); // unchanged
}

// ---------------------------------------------------------------- C-7

#[test]
fn c7_1_the_first_delivery_after_the_bag_empties_ends_the_game_mid_turn() {
    let setup = base(cfg(2), 10, 4).camel(0, sq("d2"), Cargo::Top(Kind::C1)).camel(0, sq("d3"), Cargo::Empty).camel(
        0,
        sq("e3"),
        Cargo::Top(Kind::C2),
    );
    // with goods in the bag a delivery does not end the game
    let mut s = game(&setup);
    play(&mut s, "good C1 d2=>d3");
    assert_eq!(s.turn(), Turn::Player(0));
    // once the bag is empty it does, with 2 actions unused
    let mut s = game(&setup.clone().empty_bag_into(1));
    play(&mut s, "good C2 e3=>d3"); // a move, not a delivery
    assert_eq!(s.turn(), Turn::Player(0));
    play(&mut s, "good C2 d3=>e3");
    play(&mut s, "good C1 d2=>d3");
    assert_eq!(s.turn(), Turn::Terminal);
    assert_eq!(s.end_kind(), Some(EndKind::Natural));
    assert!(s.outcome().is_some());
    assert_eq!(illegal(&s, "end"), IllegalReason::GameOver);
    assert!(legal(&s).is_empty());
}

#[test]
fn c7_2_guard_max_turns() {
    let config = CaravanConfig { max_turns: 10, ..cfg(2) };
    let mut s = game(&base(config, 9, 4));
    play(&mut s, "move supply->b2");
    assert_eq!(s.turn(), Turn::Player(1));
    play(&mut s, "end");
    assert_eq!(s.end_kind(), Some(EndKind::MaxTurns));
    assert_eq!(s.turn_index(), 10);
    assert!(s.to_string().starts_with("Caravan: game over after 10 turns (max_turns end)"), "{s}");
    assert!(s.is_terminal());
}

#[test]
fn c7_2_guard_a_full_round_of_passes() {
    let mut s = game(&base(cfg(3), 2, 3));
    // passes at t = 2, 3 are in the opening and do not count
    for _ in 0..4 {
        play(&mut s, "end");
    }
    assert_eq!((s.turn_index(), s.passes()), (6, 2));
    // an action resets the count
    play(&mut s, "move supply->b2");
    play(&mut s, "end");
    assert_eq!(s.passes(), 0);
    play(&mut s, "end");
    play(&mut s, "end");
    assert!(!s.is_terminal());
    play(&mut s, "end");
    assert_eq!(s.end_kind(), Some(EndKind::Passes));
    // a turn ended by `end` after an action is no pass
    let mut s = game(&base(cfg(2), 4, 4));
    play(&mut s, "end");
    play(&mut s, "move supply->b2");
    play(&mut s, "end");
    assert_eq!(s.passes(), 0);
    // passes take precedence when the last one completes turn max_turns
    let config = CaravanConfig { max_turns: 7, ..cfg(3) };
    let mut s = game(&base(config, 4, 4));
    for _ in 0..3 {
        play(&mut s, "end");
    }
    assert_eq!((s.turn_index(), s.end_kind()), (7, Some(EndKind::Passes)));
}

#[test]
fn c7_3_score_rare_6_common_3_marker_1() {
    let mut setup =
        base(cfg(2), 4, 4).deliver(0, Kind::R1, 1).deliver(0, Kind::C2, 2).camel(0, sq("b2"), Cargo::Top(Kind::R2));
    setup.demand_markers = [3, 0, 0, 0];
    let s = game(&setup);
    assert_eq!(s.score(0), 6 + 2 * 3 + 3);
    assert_eq!(s.score(1), 0);
    assert_eq!(s.score(7), 0);
}

#[test]
fn c7_4_c9_4_held_penalty_variant() {
    let held = [Kind::C1, Kind::C2, Kind::C3, Kind::R1, Kind::R2];
    for (h, penalty) in [0, 0, 1, 3, 6, 10].iter().enumerate() {
        let mut setup = base(cfg(2), 4, 4).deliver(0, Kind::C4, 5);
        for (i, &k) in held.iter().take(h).enumerate() {
            setup = setup.camel(0, sq(["b2", "c2", "e3", "f3", "b6"][i]), Cargo::Top(k));
        }
        let plain = game(&setup);
        assert_eq!(plain.score(0), 15, "no penalty by default");
        setup.config.held_penalty = true;
        let variant = game(&setup);
        assert_eq!(variant.score(0), 15 - penalty, "{h} held");
    }
    // six camels: 15
    let mut config = CaravanConfig { camels: 6, held_penalty: true, ..cfg(2) };
    config.max_turns = 400;
    let mut setup = base(config, 4, 4);
    for (i, c) in ["b2", "c2", "e3", "f3", "b6", "e6"].iter().enumerate() {
        setup = setup.camel(0, sq(c), Cargo::Under(Kind::ALL[i]));
    }
    assert_eq!(game(&setup).score(0), -15);
}

fn ended(setup: CaravanSetup) -> Caravan {
    let mut setup = setup;
    setup.end = Some(EndKind::MaxTurns);
    game(&setup)
}

#[test]
fn c7_5_most_points_then_most_goods_then_draw() {
    // P0: 6 points from one rare; P1: 6 points from two common goods
    let setup = base(cfg(3), 4, 4).deliver(0, Kind::R1, 1).deliver(1, Kind::C1, 2);
    assert_eq!(ended(setup.clone()).outcome(), Some(Outcome::Winner(1)));
    // P2 catches up on both: a draw between P1 and P2, P0 loses
    let tie = setup.deliver(2, Kind::C2, 2);
    let s = ended(tie.clone());
    assert_eq!(s.outcome(), Some(Outcome::Draw(Seats::EMPTY.with(1).with(2))));
    let mut r = [0.0; 3];
    s.returns(&mut r);
    assert_eq!(r, [0.0, 0.5, 0.5]);
    // a marker more decides on points first
    let mut more = tie;
    more.demand_markers[0] = 1;
    assert_eq!(ended(more).outcome(), Some(Outcome::Winner(0)));
    // no outcome while the game goes on
    assert_eq!(game(&base(cfg(3), 4, 4)).outcome(), None);
}

// ---------------------------------------------------------------- C-8

#[test]
fn c8_1_c8_2_observation_is_the_whole_state_and_determinization_a_copy() {
    let setup = base(cfg(3), 4, 4).camel(0, sq("b2"), Cargo::Top(Kind::R1)).camel(1, sq("f3"), Cargo::Under(Kind::C1));
    let s = game(&setup);
    for seat in 0..3 {
        let obs = s.observation(seat).unwrap();
        assert_eq!(obs.observer as usize, seat);
        assert_eq!(Caravan::from_setup(&obs.position).unwrap(), s);
        let mut rng = GameRng::new(seat as u64);
        assert_eq!(s.determinize(seat, &mut rng).unwrap(), s);
    }
    assert!(matches!(s.observation(3), Err(CaravanError::Seat { seat: 3, players: 3 })));
    assert!(s.determinize(5, &mut GameRng::new(1)).is_err());
    // the bag is public as a multiset (C-8.1)
    assert_eq!(s.observation(0).unwrap().position.bag, s.bag());
}

#[test]
fn c8_1_every_action_is_seen_by_every_viewer_draws_included() {
    use boardgame_kit::Viewer;
    let config = CaravanConfig { max_turns: 2000, ..cfg(3) };
    let g = biased_game(config, 2, true);
    let mut seen = [0usize; 2];
    for s in g.states.iter().step_by(7) {
        let actions = match s.turn() {
            Turn::Terminal => continue,
            Turn::Chance => {
                let mut chances = <Caravan as Game>::ChanceList::default();
                s.chance_outcomes(&mut chances);
                seen[0] += 1;
                chances.iter().map(|o| o.action).collect()
            }
            Turn::Player(_) => {
                seen[1] += 1;
                legal(s)
            }
        };
        for a in actions {
            for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Seat(2), Viewer::Spectator] {
                assert_eq!(s.view_action(viewer, a), Some(a), "{viewer:?} {a}");
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "chance nodes and decisions both checked: {seen:?}");
}

#[test]
fn c8_1_tensor_layout() {
    let setup = base(cfg(3), 4, 4).camel(0, sq("b2"), Cargo::Top(Kind::R1)).camel(1, sq("f3"), Cargo::Under(Kind::C1));
    let s = game(&setup);
    assert_eq!(Caravan::observation_tensor_shape(s.config()), vec![TENSOR_LEN]);
    let mut t0 = vec![0f32; TENSOR_LEN];
    let mut t1 = vec![0f32; TENSOR_LEN];
    s.write_observation_tensor(0, &mut t0).unwrap();
    s.write_observation_tensor(1, &mut t1).unwrap();
    let b2 = usize::from(sq("b2").index());
    let f3 = usize::from(sq("f3").index());
    // plane 4 + slot: camels with a good on top; plane 8 + slot: under
    assert_eq!(t0[4 * 49 + b2], 1.0);
    assert_eq!(t0[(8 + 1) * 49 + f3], 1.0);
    // seen from seat 1, seat 1 is slot 0 and seat 0 is slot 2
    assert_eq!(t1[8 * 49 + f3], 1.0);
    assert_eq!(t1[(4 + 2) * 49 + b2], 1.0);
    // carried goods by kind (planes 20..28), lying goods (12..20)
    assert_eq!(t0[20 * 49 + b2], 1.0);
    let a1 = usize::from(sq("a1").index());
    assert_eq!(t0[(12 + 4) * 49 + a1], 1.0); // C1 lies on space 1
    let mut short = vec![0f32; 10];
    assert!(matches!(s.write_observation_tensor(0, &mut short), Err(CaravanError::Buffer { .. })));
}

// ---------------------------------------------------------------- C-9

#[test]
fn c9_1_end_is_always_legal() {
    // even for a player whose camels are all laden and who has 1 action left
    let mut setup = base(cfg(2), 1, 1);
    for (i, c) in ["b2", "c2", "e3", "f3", "b6"].iter().enumerate() {
        setup = setup.camel(1, sq(c), Cargo::Top(Kind::ALL[4 + i % 4]));
    }
    let s = game(&setup);
    assert_eq!(legal(&s), [Action::END]);
}

#[test]
fn display_shows_board_camels_goods_scores_and_turn() {
    let setup = base(cfg(2), 5, 3)
        .camel(0, sq("b2"), Cargo::Top(Kind::R1))
        .camel(1, sq("b2"), Cargo::Empty)
        .camel(1, sq("f3"), Cargo::Under(Kind::C1))
        .deliver(0, Kind::R2, 1);
    let text = game(&setup).to_string();
    for needle in [
        "turn 5, seat 1 to move, 3 of 4 actions left",
        "@R1",
        "#1 C1*1",
        "0^R11.",
        "1vC1",
        "b2 seat 0 ^R1",
        "f3 seat 1 vC1",
        "seat 0: 6 points",
        "<- to move",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // Seats are `seat N` as everywhere else (the notation alone says `P1`).
    assert!(!text.contains("P0") && !text.contains("P1"), "{text}");
    // a seat's view is the same board (C-8.1)
    let view = game(&setup).observation(1).unwrap().to_string();
    assert_eq!(view, format!("Seen by seat 1\n{text}"));
    let mut bad = game(&setup).observation(0).unwrap();
    bad.position.bag[0] += 1;
    assert!(bad.to_string().contains("(not a valid position: invalid position: C-1.3"), "{bad}");
}

/// One point, one action, one camel, one good: the board counts in the
/// singular when there is one (issue 30: it said `1 points`).
#[test]
fn display_counts_one_in_the_singular() {
    let start = Caravan::new_game(&cfg(2)).unwrap();
    let text = start.to_string();
    assert!(text.contains("turn 0, seat 0 to move, 1 of 1 action left"), "{text}");
    let mut setup = base(cfg(2), 5, 3).deliver(1, Kind::C1, 1);
    for square in ["b2", "c2", "e3", "f3", "b6", "c6"] {
        if game(&setup).supply(0) == 1 {
            break;
        }
        setup = setup.camel(0, sq(square), Cargo::Empty);
    }
    assert_eq!(game(&setup).supply(0), 1);
    let text = game(&setup).to_string();
    for needle in ["seat 0: 0 points;", "markers: ", "; 1 camel in supply", "seat 1: 3 points;"] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    assert!(!text.contains("1 camels") && !text.contains(" 1 points"), "{text}");
}

/// C-11.2: every clause of what a hand-made position must satisfy is
/// checked, with an error that says which (the goods, camel and theft-marker
/// clauses are in the C-1 tests above).
#[test]
fn c11_2_setup_errors_say_why() {
    let mut s = base(cfg(2), 4, 4);
    s.actions_left = 0;
    assert_eq!(
        Caravan::from_setup(&s).unwrap_err().to_string(),
        "invalid position: C-4.1: turn 4 allows 1..=4 actions left, got 0"
    );
    let s = base(cfg(2), 1, 3);
    assert!(matches!(setup_error(&s), Err(SetupError::ActionsLeft { .. })));
    let s = base(cfg(2), 4, 4).camel(2, sq("b2"), Cargo::Empty);
    assert!(matches!(setup_error(&s), Err(SetupError::CamelOwner { .. })));
    let s = base(cfg(2), 4, 4).camel(0, sq("d3"), Cargo::Top(Kind::C1));
    assert!(matches!(setup_error(&s), Err(SetupError::Undelivered { .. })));
    let s = base(cfg(2), 4, 4).clear_space(2);
    assert!(matches!(setup_error(&s), Err(SetupError::EmptySpaces { .. })));
    let mut s = base(cfg(2), 4, 4);
    s.pending_draws = 1;
    assert!(matches!(setup_error(&s), Err(SetupError::Pending(_))));
    let mut s = base(cfg(2), 4, 4);
    s.end = Some(EndKind::Natural);
    assert!(matches!(setup_error(&s), Err(SetupError::NaturalEnd(_))));
    let mut s = base(cfg(2), 4, 4);
    s.passes = 2;
    assert!(matches!(setup_error(&s), Err(SetupError::Passes { .. })));
    let mut s = base(cfg(2), 4, 4);
    s.demand_markers[3] = 1;
    assert!(matches!(setup_error(&s), Err(SetupError::AbsentPlayer { .. })));
    let s = base(cfg(2), 400, 4);
    assert!(matches!(setup_error(&s), Err(SetupError::TurnIndex { .. })));
    // picks since the refill in 0..=3: four emptied spaces and a count of 4
    let mut s = base(cfg(2), 4, 4).clear_space(1).clear_space(2).clear_space(3).clear_space(4);
    s.picks_since_refill = 4;
    assert_eq!(setup_error(&s), Err(SetupError::Picks(4)));
    s.picks_since_refill = 3;
    assert!(matches!(setup_error(&s), Err(SetupError::EmptySpaces { empty: 4, expected: 3, .. })));
    // pending draws: only with the pick count at 0, and no more than the bag holds
    let mut s = base(cfg(2), 4, 4).clear_space(1);
    s.picks_since_refill = 1;
    assert!(game(&s).pending_draws() == 0);
    s.pending_draws = 1;
    assert!(matches!(setup_error(&s), Err(SetupError::Pending(m)) if m.contains("pick count")));
    s.picks_since_refill = 0;
    assert_eq!(game(&s).pending_draws(), 1);
    let mut s = base(cfg(2), 4, 4).clear_space(1).clear_space(2).empty_bag_into(0);
    s.bag[Kind::C1 as usize] = 2;
    s.delivered[0][Kind::C1 as usize] -= 2;
    s.pending_draws = 0b11;
    assert_eq!(game(&s).pending_draws(), 0b11);
    s.bag[Kind::C1 as usize] = 1;
    s.delivered[0][Kind::C1 as usize] += 1;
    assert!(matches!(setup_error(&s), Err(SetupError::Pending(m)) if m.contains("more draws")));
}

#[test]
fn c11_1_max_game_length_is_48_draws_and_4_decisions_a_turn() {
    for max_turns in [1, 7, 400, 1_000_000] {
        let c = CaravanConfig { max_turns, ..cfg(2) };
        assert_eq!(Caravan::max_game_length(&c), 48 + 4 * max_turns as usize);
    }
    for max_turns in [0, 1_000_001] {
        let e = Caravan::new_game(&CaravanConfig { max_turns, ..cfg(2) }).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid configuration: max_turns must be between 1 and 1000000, got {max_turns}")
        );
    }
    // Turns of cost-1 actions only: the 8 setup draws, then turns of 1, 2, 3
    // and 4 placements on free squares (6 camels each, so the supply lasts).
    let mut s = Caravan::new_game(&CaravanConfig { max_turns: 4, camels: 6, ..cfg(2) }).unwrap();
    let mut steps = 0;
    let mut rng = GameRng::new(5);
    let mut chances = <Caravan as Game>::ChanceList::default();
    while !s.is_terminal() {
        let a = match s.turn() {
            Turn::Chance => boardgame_kit::sample_chance(&s, &mut rng, &mut chances).unwrap(),
            // a cost-1 placement on a free square
            _ => {
                let occupied: Vec<_> = (0..2).flat_map(|p| s.camels_on_board(p).map(|(q, _)| q)).collect();
                *legal(&s)
                    .iter()
                    .find(|a| matches!(a.act(), Act::Move { from: None, to } if !occupied.contains(&to)))
                    .unwrap()
            }
        };
        s.apply(a).unwrap();
        steps += 1;
    }
    assert_eq!(steps, 8 + (1 + 2 + 3 + 4));
    assert!(steps <= Caravan::max_game_length(s.config()));
}

#[test]
fn c11_3_the_biased_driver_ends_naturally_after_ten_refills_in_60_to_80_turns() {
    for players in 2u8..=4 {
        let mut turns = Vec::new();
        for seed in 0..6u64 {
            let config = CaravanConfig { players, max_turns: 2000, ..CaravanConfig::default() };
            let g = biased_game(config, seed, false);
            assert_eq!((g.refills, g.state.end_kind()), (10, Some(EndKind::Natural)), "{players}p seed {seed}");
            turns.push(g.state.turns_played());
        }
        let mean = turns.iter().sum::<u32>() as f64 / turns.len() as f64;
        assert!((60.0..=80.0).contains(&mean), "{players} players: {turns:?}");
        assert!(turns.iter().all(|t| (45..=95).contains(t)), "{players} players: {turns:?}");
    }
}

#[test]
fn c7_1_turns_played_counts_the_turn_a_natural_end_cuts_short() {
    let config = CaravanConfig { players: 3, max_turns: 2000, ..CaravanConfig::default() };
    let g = biased_game(config, 4, false);
    assert_eq!(g.state.end_kind(), Some(EndKind::Natural));
    assert_eq!(g.state.turns_played(), g.state.turn_index() + 1);
    // the guard ends after whole turns: nothing is added
    let mut s = Caravan::new_game(&CaravanConfig { max_turns: 5, ..cfg(2) }).unwrap();
    let mut rng = GameRng::new(1);
    let mut chances = <Caravan as Game>::ChanceList::default();
    while !s.is_terminal() {
        assert_eq!(s.turns_played(), s.turn_index());
        let a = match s.turn() {
            Turn::Chance => boardgame_kit::sample_chance(&s, &mut rng, &mut chances).unwrap(),
            _ => Action::END,
        };
        s.apply(a).unwrap();
    }
    assert_eq!(s.end_kind(), Some(EndKind::MaxTurns));
    assert_eq!((s.turns_played(), s.turn_index()), (5, 5));
}

#[test]
fn c11_2_a_bad_config_in_a_setup_is_a_config_error_not_a_setup_error() {
    let mut s = base(cfg(2), 4, 4);
    s.config.players = 5;
    assert_eq!(Caravan::from_setup(&s), Err(CaravanError::Config(ConfigError::Players(5))));
    assert_eq!(
        Caravan::from_setup(&s).unwrap_err().to_string(),
        "invalid configuration: players must be between 2 and 4, got 5"
    );
    s.config.players = 2;
    s.config.max_turns = 0;
    assert!(matches!(Caravan::from_setup(&s), Err(CaravanError::Config(ConfigError::MaxTurns { .. }))));
}

#[test]
fn serde_state_is_validated_on_the_way_in() {
    let setup = base(cfg(2), 4, 4).camel(0, sq("b2"), Cargo::Top(Kind::R1));
    let s = game(&setup);
    let json = serde_json::to_string(&s).unwrap();
    let back: Caravan = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    // tamper: an extra cube in the bag
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["bag"][0] = serde_json::json!(3);
    let e = serde_json::from_value::<Caravan>(v).unwrap_err();
    assert!(e.to_string().contains("R1 cubes must number 3"), "{e}");
    // actions and configs as text
    let a: Action = serde_json::from_str("\"steal R2 c4 from P1\"").unwrap();
    assert_eq!(a, act("steal R2 c4 from P1"));
    assert!(serde_json::from_str::<Action>("\"fly away\"").is_err());
    let c: CaravanConfig = serde_json::from_str(r#"{"players": 4}"#).unwrap();
    assert_eq!(c.players, 4);
    assert_eq!(c.max_turns, 400);
}
