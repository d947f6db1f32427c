//! Property tests over random games of 3..=9 players: conservation (K-1.2),
//! helper accounting, row shape (K-4.3), termination, determinism, illegal
//! actions, observation non-leakage (K-8.5), determinization, codecs, serde.

mod common;

use boardgame_kit::{Game, GameRng, Turn, Viewer};
use common::*;
use korovan_core::{
    Action, AmbushSet, Helper, HelperCounts, Korovan, KorovanConfig, KorovanSetup, NUM_ACTIONS, Phase, TENSOR_LEN,
};
use proptest::prelude::*;

fn config(n: u8, laps: u8, first: u8) -> KorovanConfig {
    KorovanConfig { players: n, laps, first_driver: first % n, ..KorovanConfig::default() }
}

/// Every state of a random game, first to last.
fn game_states(c: &KorovanConfig, seed: u64) -> Vec<Korovan> {
    let mut g = Korovan::new_game(c).unwrap();
    let mut rng = GameRng::new(seed);
    let mut out = vec![g];
    while !g.is_terminal() {
        let a = random_action(&g, &mut rng);
        g.apply(a).unwrap();
        out.push(g);
    }
    out
}

fn check_invariants(g: &Korovan) {
    let n = g.num_players() as u32;
    // K-1.2
    assert_eq!(g.total_cows(), n * (n + 1), "{g}");
    // every helper card is in the deck or the hand (played ones are back in the deck)
    let deck = g.helper_deck().to_array();
    let hand = g.helper_hand().to_array();
    let comp = g.config().deck.to_array();
    for k in 0..6 {
        assert_eq!(u32::from(deck[k]) + u32::from(hand[k]), u32::from(comp[k]));
    }
    assert_eq!(g.helper_hand().total() + g.helper_deck().total(), 27);
    // K-4.3: every laid row holds 1 or 2 ambushes
    for row in 1..=g.rows_laid() as u8 {
        let a = (0..3).filter(|&p| g.card(row, p) == Some(korovan_core::Card::Ambush)).count();
        assert!((1..=2).contains(&a), "row {row} has {a} ambushes");
    }
    // the driver never moves with no cow (K-5.6, K-5.8)
    if !g.is_terminal() {
        assert!(g.driver().is_some_and(|d| g.cows(d) > 0));
    }
    // every reachable state is a valid setup
    let back = Korovan::from_setup(&g.to_setup()).unwrap_or_else(|e| panic!("{e}\n{g}"));
    assert_eq!(&back, g);
}

/// What `seat` may see, recomputed from the setup (independently of the
/// engine's observation code).
fn visible_cells(s: &KorovanSetup, seat: usize) -> u32 {
    let n = usize::from(s.config.players);
    let driver = s.driver();
    let mut m = 0u32;
    for (i, r) in s.rows.iter().enumerate() {
        for p in 0..3 {
            if r.face_up[p] || (seat == driver && r.scouted[p]) {
                m |= 1 << (i * 3 + p);
            }
        }
    }
    if seat != driver && s.phase != Phase::Over {
        let own = (seat + n - driver - 1) % n;
        if own == s.rows.len()
            && let Some((pr, pp)) = s.pending_peek
        {
            m |= 1 << ((usize::from(pr) - 1) * 3 + usize::from(pp));
        }
        if own < s.rows.len() {
            m |= 7 << (own * 3);
            if let Some((pr, pp)) = s.rows[own].peek {
                m |= 1 << ((usize::from(pr) - 1) * 3 + usize::from(pp));
            }
        }
    }
    m
}

/// Rows whose hand card `seat` knows, recomputed from the setup.
fn visible_hands(s: &KorovanSetup, seat: usize) -> u32 {
    let n = usize::from(s.config.players);
    let driver = s.driver();
    let mut m = 0u32;
    for (i, r) in s.rows.iter().enumerate() {
        let shown = r.route.is_some_and(|p| r.ambush.contains(p));
        let own = seat != driver && (seat + n - driver - 1) % n == i;
        if shown || own || (seat == driver && r.spied) {
            m |= 1 << i;
        }
    }
    m
}

/// Changes what `seat` may not see: other row layouts (consistent with what
/// it saw) and, unless it drives, the driver's hand.
fn scramble(g: &Korovan, seat: usize, rng: &mut GameRng) -> Korovan {
    let mut s = g.to_setup();
    let cells = visible_cells(&s, seat);
    let hands = visible_hands(&s, seat);
    for i in 0..s.rows.len() {
        let truth = s.rows[i].ambush;
        let options: Vec<AmbushSet> = AmbushSet::ALL
            .into_iter()
            .filter(|c| {
                (0..3u8).all(|p| cells & (1 << (i * 3 + usize::from(p))) == 0 || c.contains(p) == truth.contains(p))
                    && (hands & (1 << i) == 0 || c.count() == truth.count())
            })
            .collect();
        s.rows[i].ambush = options[rng.index(options.len())];
    }
    if seat != s.driver() && s.phase != Phase::Over {
        // move one card of the hand to another kind, if the composition allows
        let mut h = s.helper_hand.to_array();
        let p = s.played.to_array();
        let comp = s.config.deck.to_array();
        let from = rng.index(6);
        let to = rng.index(6);
        if h[from] > 0 && h[to] + p[to] < comp[to] {
            h[from] -= 1;
            h[to] += 1;
        }
        s.helper_hand = HelperCounts::from_array(h);
    }
    Korovan::from_setup(&s).unwrap()
}

fn tensor(g: &Korovan, seat: usize) -> Vec<f32> {
    let mut t = vec![0.0; TENSOR_LEN];
    g.write_observation_tensor(seat, &mut t).unwrap();
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// K-1.2 conservation, helper accounting, K-4.3 row shape and
    /// termination within max_game_length, after every action.
    #[test]
    fn invariants_hold_after_every_action(seed in any::<u64>(), n in 3u8..=9, laps in 1u8..=2, first in 0u8..9) {
        let c = config(n, laps, first);
        let states = game_states(&c, seed);
        for g in &states {
            check_invariants(g);
        }
        prop_assert!(states.len() - 1 <= Korovan::max_game_length(&c));
        prop_assert!(states.last().unwrap().outcome().is_some());
    }

    /// Same seed and actions ⇒ the identical game.
    #[test]
    fn determinism(seed in any::<u64>(), n in 3u8..=9) {
        let c = config(n, 1, 0);
        prop_assert_eq!(game_states(&c, seed), game_states(&c, seed));
    }

    /// An illegal action is an error and leaves the state unchanged; every
    /// listed action validates.
    #[test]
    fn illegal_actions_leave_the_state_unchanged(seed in any::<u64>(), n in 3u8..=9) {
        let c = config(n, 1, seed as u8);
        for g in game_states(&c, seed).iter().step_by(7) {
            let mut list = Default::default();
            g.legal_actions(&mut list);
            for id in 0..NUM_ACTIONS as u32 {
                let a = Action::from_id(id).unwrap();
                let mut h = *g;
                let listed = list.contains(&a) || (g.turn() == Turn::Chance && list.contains(&a));
                match h.apply(a) {
                    Ok(()) => prop_assert!(listed, "{a} applied but is not listed"),
                    Err(_) => {
                        prop_assert!(!listed, "{a} listed but rejected");
                        prop_assert_eq!(&h, g);
                    }
                }
            }
        }
    }

    /// K-8.5: two states that differ only in what p may not see give p
    /// identical observations and tensors; what p sees does change them.
    #[test]
    fn observations_never_leak(seed in any::<u64>(), n in 3u8..=9) {
        let c = config(n, 1, 0);
        let mut rng = GameRng::new(seed ^ 0x5eed);
        for g in game_states(&c, seed).iter().step_by(3) {
            for seat in 0..usize::from(n) {
                let other = scramble(g, seat, &mut rng);
                prop_assert_eq!(g.observation(seat).unwrap(), other.observation(seat).unwrap());
                prop_assert_eq!(tensor(g, seat), tensor(&other, seat));
            }
        }
    }

    /// K-8.1, K-8.2, K-8.3, K-9.1: what a seat sees of an action
    /// (`view_action`) agrees with its observations. A seat sees an action
    /// exactly when its observation after it tells it from every other legal
    /// action — except where a round ends, since clean-up forgets the round
    /// (K-9.1: `pay` and `haggle` may leave the same next round, and both are
    /// public). Only deals (the driver's, K-8.3) and lays (the layer's,
    /// K-8.2) are ever hidden; a spectator sees what every seat sees.
    #[test]
    fn view_action_agrees_with_observations(seed in any::<u64>(), n in 3u8..=9) {
        let c = config(n, 1, 0);
        let mut list = Default::default();
        for g in game_states(&c, seed).iter().step_by(4) {
            g.legal_actions(&mut list);
            let children: Vec<Korovan> = list.iter().map(|&a| { let mut x = *g; x.apply(a).unwrap(); x }).collect();
            for seat in 0..usize::from(n) {
                let after: Vec<_> = children.iter().map(|x| x.observation(seat).unwrap()).collect();
                for (i, &a) in list.iter().enumerate() {
                    let twins = (0..list.len()).filter(|&j| j != i && after[j] == after[i]).count();
                    let round_ends = children[i].round() != g.round() || children[i].is_terminal();
                    let hidden_kind = matches!(a, Action::Deal(_) | Action::Lay(_));
                    match g.view_action(Viewer::Seat(seat), a) {
                        Some(b) => {
                            prop_assert_eq!(b, a);
                            prop_assert!(twins == 0 || round_ends, "{} seen by seat {} but not told apart\n{}", a, seat, g);
                        }
                        None => {
                            prop_assert!(hidden_kind, "{} hidden from seat {}", a, seat);
                            prop_assert!(twins > 0 || list.len() == 1, "{} hidden from seat {} but told apart\n{}", a, seat, g);
                        }
                    }
                    if g.view_action(Viewer::Spectator, a).is_some() {
                        prop_assert!(g.view_action(Viewer::Seat(seat), a).is_some());
                    }
                }
            }
            for &a in list.iter() {
                let hidden_kind = matches!(a, Action::Deal(_) | Action::Lay(_));
                prop_assert_eq!(g.view_action(Viewer::Spectator, a), (!hidden_kind).then_some(a));
            }
        }
    }

    /// Determinization keeps the observer's observation and tensor, gives a
    /// valid state, and keeps whose turn it is.
    #[test]
    fn determinize_is_consistent(seed in any::<u64>(), n in 3u8..=9) {
        let c = config(n, 1, 0);
        let mut rng = GameRng::new(seed);
        for g in game_states(&c, seed).iter().step_by(5) {
            for seat in 0..usize::from(n) {
                let d = g.determinize(seat, &mut rng).unwrap();
                prop_assert_eq!(g.observation(seat).unwrap(), d.observation(seat).unwrap());
                prop_assert_eq!(tensor(g, seat), tensor(&d, seat));
                prop_assert_eq!(g.turn(), d.turn());
                check_invariants(&d);
            }
        }
    }

    /// serde round trips of state, observation, config and actions.
    #[test]
    fn serde_round_trips(seed in any::<u64>(), n in 3u8..=9) {
        let c = config(n, 1, 0);
        let json = serde_json::to_string(&c).unwrap();
        prop_assert_eq!(serde_json::from_str::<KorovanConfig>(&json).unwrap(), c);
        for g in game_states(&c, seed).iter().step_by(11) {
            let json = serde_json::to_string(g).unwrap();
            prop_assert_eq!(&serde_json::from_str::<Korovan>(&json).unwrap(), g);
            let o = g.observation(0).unwrap();
            let json = serde_json::to_string(&o).unwrap();
            prop_assert_eq!(serde_json::from_str::<korovan_core::KorovanObservation>(&json).unwrap(), o);
        }
    }
}

#[test]
fn action_codec_round_trips() {
    for id in 0..NUM_ACTIONS as u32 {
        let a = Action::from_id(id).unwrap();
        assert_eq!(a.id(), id);
        let text = a.to_string();
        assert_eq!(text.parse::<Action>().unwrap(), a, "{text}");
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), a);
    }
    assert!(Action::from_id(NUM_ACTIONS as u32).is_err());
    for bad in [
        "",
        "peek",
        "peek 0.1",
        "peek 1.3",
        "peek 1.-1",
        "lay 0+0",
        "lay 3",
        "spy 9",
        "place 3",
        "deal joker",
        "pay 1",
        "reveal now",
        "scout 1.1.1",
    ] {
        assert!(bad.parse::<Action>().is_err(), "{bad:?}");
    }
    assert_eq!(" peek 2.1 ".parse::<Action>().unwrap(), Action::Peek { row: 2, pos: 1 });
    assert_eq!(Helper::from_name("second_thought"), Some(Helper::SecondThought));
    assert_eq!(Helper::from_name("second"), None);
}

#[test]
fn deserializing_an_impossible_state_fails() {
    let g = Korovan::new_game(&KorovanConfig::default()).unwrap();
    let mut v: serde_json::Value = serde_json::to_value(g).unwrap();
    v["cows"][0] = serde_json::json!(7);
    let err = serde_json::from_value::<Korovan>(v).unwrap_err().to_string();
    assert!(err.contains("K-1.2"), "{err}");
    let bad_set = serde_json::from_str::<AmbushSet>("7").unwrap_err().to_string();
    assert!(bad_set.contains("1 or 2"), "{bad_set}");
    let bad_cfg = serde_json::from_str::<KorovanConfig>(r#"{"players": 2}"#).unwrap();
    assert!(Korovan::new_game(&bad_cfg).is_err());
}

/// K-8.6: the driver's hand as determinized for a competitor follows the
/// hypergeometric law of the deal (K-3.1): with the default deck and a hand
/// of 1, P(Scout) = 7/27.
#[test]
fn k8_6_determinized_hand_follows_the_deal() {
    let mut s = journey_setup(3, 0, &[1, 1], HelperCounts::NONE.with(Helper::Guard, 1));
    s.config.hand_size = Some(1);
    let g = Korovan::from_setup(&s).unwrap();
    let mut rng = GameRng::new(4);
    let trials = 27_000;
    let mut scouts = 0;
    for _ in 0..trials {
        let d = g.determinize(1, &mut rng).unwrap();
        assert_eq!(d.helper_hand().total(), 1);
        scouts += u32::from(d.helper_hand().scout);
        // the driver's own determinization keeps its hand
        assert_eq!(g.determinize(0, &mut rng).unwrap().helper_hand(), g.helper_hand());
    }
    assert!((6_300..7_700).contains(&scouts), "{scouts}");
    // a row whose one card the observer knows is redrawn among the 4
    // layouts that agree with it (in a 3-player game seat 2 peeked at 1.0)
    let mut seen = std::collections::HashSet::new();
    for _ in 0..400 {
        let d = g.determinize(2, &mut rng).unwrap();
        assert_eq!(d.card(1, 0), g.card(1, 0));
        seen.insert((0..3).map(|p| d.card(1, p)).collect::<Vec<_>>());
    }
    assert_eq!(seen.len(), 3); // {0} is Ambush at 0: {0}, {0,1}, {0,2}
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// `apply_unchecked` of any action, legal or not, never panics, and nor
    /// do the queries on the (meaningless) state it leaves.
    #[test]
    fn apply_unchecked_never_panics(seed in any::<u64>(), n in 3u8..=9) {
        let c = config(n, 1, 0);
        let mut rng = GameRng::new(seed);
        for g in game_states(&c, seed).iter().step_by(23) {
            for id in 0..NUM_ACTIONS as u32 {
                let mut h = *g;
                h.apply_unchecked(Action::from_id(id).unwrap());
                let mut l = Default::default();
                h.legal_actions(&mut l);
                let _ = h.turn();
                let _ = h.outcome();
                let _ = h.to_string();
                let seat = id as usize % usize::from(n);
                let _ = tensor(&h, seat);
                let _ = h.observation(seat).unwrap().to_string();
                let _ = h.determinize(seat, &mut rng);
            }
        }
    }
}

/// A hand-made, malformed observation still writes a tensor and renders.
#[test]
fn malformed_observations_do_not_panic() {
    let g = Korovan::new_game(&KorovanConfig::default()).unwrap();
    let mut o = g.observation(1).unwrap();
    o.players = 0;
    o.observer = 200;
    o.driver = 250;
    o.rows_laid = 200;
    o.current_row = Some(0);
    o.token = Some(9);
    o.turn = Turn::Player(usize::MAX);
    o.peeks = [Some(255); 8];
    let mut t = vec![0.0; TENSOR_LEN];
    o.write_tensor(&mut t).unwrap();
    let _ = o.to_string();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    /// K-1.2 and K-8.5 on the kit's arbitrary reachable states.
    #[test]
    fn kit_reachable_states_keep_the_invariants(
        g in (3u8..=9).prop_flat_map(|n| boardgame_kit::strategy::reachable_state::<Korovan>(config(n, 1, 0), 400))
    ) {
        check_invariants(&g);
        let mut rng = GameRng::new(u64::from(g.round()));
        for seat in 0..g.num_players() {
            let d = g.determinize(seat, &mut rng).unwrap();
            prop_assert_eq!(tensor(&g, seat), tensor(&d, seat));
        }
    }
}

/// The tensor follows the layout of docs/encoding-korovan.md.
#[test]
fn tensor_layout_matches_the_documentation() {
    let mut s = journey_setup(4, 1, &[1, 3, 6], HelperCounts::NONE.with(Helper::Guard, 2).with(Helper::Spy, 1));
    s.cows = vec![3, 6, 5, 6];
    s.rows[1].face_up = [false, true, false];
    s.helper_hand = HelperCounts::NONE.with(Helper::Guard, 2);
    s.played = HelperCounts::NONE.with(Helper::Spy, 1);
    s.rows[2].spied = true;
    // one Flare was needed for the face-up card: move it into the config's hand
    s.config.hand_size = Some(4);
    s.played = s.played.with(Helper::Flare, 1);
    s.helpers_played = vec!["flare 2.1".parse().unwrap(), "spy 3".parse().unwrap()];
    let g = Korovan::from_setup(&s).unwrap();
    assert_eq!(g.driver(), Some(3)); // round 1: seat 0 − 1
    let t = tensor(&g, 3);
    assert_eq!(t[3], 1.0); // observer 3
    assert_eq!(t[9 + 3], 1.0); // 4 players
    assert_eq!(t[18 + 3], 1.0); // driver 3
    assert_eq!(t[27 + 3], 1.0); // seat 3 to act
    assert_eq!(t[38 + 3], 1.0); // phase place
    assert_eq!(&t[45..49], &[3.0, 6.0, 5.0, 6.0]); // cows
    assert_eq!((t[54], t[55]), (1.0, 0.0)); // round, lap
    assert_eq!(t[56], 1.0); // current row 1
    assert_eq!(t[64..73].iter().sum::<f32>(), 9.0); // 9 cells laid
    assert_eq!(t[88 + 4], 1.0); // cell 2.1 face up
    assert_eq!(t[112 + 4], 1.0); // and an Ambush (row 2 = {0,1})
    assert_eq!(t[208], 1.0); // rows 2 and 3 peeked at 1.0 (journey setups)
    assert_eq!(t[256 + 2], 0.0); // row 3 = {1,2}: hand card Empty
    assert_eq!(t[264 + 2], 1.0); // spied: known Empty
    assert_eq!(t[272 + 2], 1.0); // row 3 spied
    assert_eq!((t[288], t[289], t[290]), (1.0, 0.0, 2.0));
    assert_eq!(t[291 + 4], 2.0); // two Guards in the driver's hand
    assert_eq!((t[297 + 1], t[297 + 2]), (1.0, 1.0)); // Spy and Flare played
    // a competitor sees no hand and its own row
    let t1 = tensor(&g, 1);
    assert_eq!(t1[291..297].iter().sum::<f32>(), 0.0);
    assert_eq!(t1[280 + 1], 1.0); // seat 1 owns row 2 (driver 3: rows 0, 1, 2)
    assert_eq!(t1[264 + 2], 0.0); // the spy's result is the driver's
}
