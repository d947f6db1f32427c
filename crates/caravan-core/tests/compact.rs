//! The compact action space (`compact` module, `docs/encoding-caravan.md`):
//! over reachable states, the compact ids and the legal flat actions are a
//! bijection, and the compact mask is exactly the image of the legal
//! actions; bad ids are typed errors.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use boardgame_kit::strategy::reachable_state;
use boardgame_kit::{Game, GameRng, Turn, sample_chance};
use caravan_core::{
    Act, Action, Caravan, CaravanConfig, Cargo, CompactError, IllegalReason, Kind, MAX_COMPACT_ACTIONS,
    compact_num_actions,
};
use common::*;
use proptest::prelude::*;

/// Which block of the compact layout an action falls in.
fn block(a: Action) -> &'static str {
    match a.act() {
        Act::End => "end",
        Act::Pick { .. } => "pick",
        Act::Move { from: None, .. } => "supply",
        Act::Move { .. } => "move",
        Act::Good { under: false, .. } => "good",
        Act::Good { under: true, .. } => "under",
        Act::Steal { .. } => "steal",
        Act::Draw(_) => "draw",
    }
}

/// Checks the bijection and the mask in `s`; returns the blocks of the
/// legal actions seen.
fn check_state(s: &Caravan) -> Result<BTreeSet<&'static str>, TestCaseError> {
    let n = compact_num_actions(s.config());
    let mut mask = vec![false; n];
    let count = s.write_compact_mask(&mut mask).unwrap();
    let mut mask_u8 = vec![7u8; n];
    prop_assert_eq!(s.write_compact_mask(&mut mask_u8).unwrap(), count);
    prop_assert!(mask_u8.iter().zip(&mask).all(|(&b, &m)| b == u8::from(m)));
    let mut seen = BTreeSet::new();
    match s.turn() {
        Turn::Player(_) => {}
        _ => {
            // no decision: an empty mask, and every mapping refused
            prop_assert_eq!(count, 0);
            prop_assert!(mask.iter().all(|&m| !m));
            prop_assert!(matches!(s.compact_action(0), Err(CompactError::NoDecision(_))));
            prop_assert!(matches!(s.compact_id(Action::END), Err(CompactError::NoDecision(_))));
            prop_assert!(s.compact_index().is_err());
            return Ok(seen);
        }
    }
    let legal = legal(s);
    prop_assert_eq!(count, legal.len());
    // flat -> compact: injective, into the mask, and back
    let mut image = BTreeMap::new();
    for &a in &legal {
        let id = s.compact_id(a).unwrap();
        prop_assert!((id as usize) < n);
        prop_assert!(mask[id as usize], "{} -> {} not in the mask", a, id);
        prop_assert_eq!(s.compact_action(id).unwrap(), a);
        prop_assert!(image.insert(id, a).is_none(), "two legal actions share compact id {}", id);
        seen.insert(block(a));
    }
    // compact -> flat: every id of the mask is legal, every other refused
    let index = s.compact_index().unwrap();
    for id in 0..n as u32 {
        match s.compact_action(id) {
            Ok(a) => {
                prop_assert!(mask[id as usize], "{} decodes to {} outside the mask", id, a);
                prop_assert_eq!(image.get(&id), Some(&a));
                prop_assert_eq!(index.encode(a), Some(id));
            }
            Err(e) => {
                prop_assert!(!mask[id as usize], "mask id {} refused: {}", id, e);
                prop_assert!(matches!(e, CompactError::EmptySlot { .. } | CompactError::Illegal { .. }), "{:?}", e);
            }
        }
    }
    prop_assert_eq!(mask.iter().filter(|&&m| m).count(), image.len());
    // beyond the space
    prop_assert_eq!(s.compact_action(n as u32), Err(CompactError::UnknownId { id: n as u32, num_ids: n as u32 }));
    // an illegal flat action has no compact id
    let illegal = (0..<Caravan as Game>::num_distinct_actions(s.config()) as u32)
        .step_by(97)
        .filter_map(Action::from_id)
        .find(|a| !legal.contains(a));
    if let Some(a) = illegal {
        prop_assert!(matches!(s.compact_id(a), Err(CompactError::Illegal { .. })), "{} has a compact id", a);
    }
    Ok(seen)
}

/// A walk mixing the biased driver (goods, deliveries, pick-ups) with
/// uniform play that favours steals, so that every kind of action occurs.
fn mixed_walk(config: CaravanConfig, seed: u64, steps: usize) -> Vec<Caravan> {
    let mut s = Caravan::new_game(&config).unwrap();
    let mut rng = GameRng::new(seed);
    let mut buf = Default::default();
    let mut out = vec![s];
    for _ in 0..steps {
        let a = match s.turn() {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&s, &mut rng, &mut buf).unwrap(),
            Turn::Player(_) => {
                let l = legal(&s);
                match l.iter().find(|a| matches!(a.act(), Act::Steal { .. })) {
                    Some(&st) if rng.below(2) == 0 => st,
                    _ if rng.below(4) < 3 => biased_action(&s, &mut rng),
                    _ => l[rng.index(l.len())],
                }
            }
        };
        s.apply(a).unwrap();
        out.push(s);
    }
    out
}

fn configs() -> impl Strategy<Value = CaravanConfig> {
    (2u8..=4, 5u8..=6).prop_map(|(players, camels)| CaravanConfig { players, camels, ..CaravanConfig::default() })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The kit's reachable states (uniform random walks).
    #[test]
    fn bijection_on_reachable_states(state in configs().prop_flat_map(|c| reachable_state::<Caravan>(c, 400))) {
        check_state(&state)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any id, any flat action, any reachable state: an answer or a typed
    /// error, never a panic; an answer is legal.
    #[test]
    fn arbitrary_ids_never_panic(
        state in configs().prop_flat_map(|c| reachable_state::<Caravan>(c, 300)),
        id in any::<u32>(),
        flat in 0u32..42_451,
    ) {
        if let Ok(a) = state.compact_action(id) {
            prop_assert!(state.validate(a).is_ok());
        }
        if let Ok(index) = state.compact_index() {
            let _ = index.decode(id);
        }
        let action = Action::from_id(flat).unwrap();
        if let Ok(cid) = state.compact_id(action) {
            prop_assert_eq!(state.compact_action(cid), Ok(action));
        }
        // Buffers of every length from 1 to n + 1: only n is accepted (the
        // buffer is two longer than the largest space, so that 4 players'
        // n + 1 = 791 fits).
        let mut mask = [0u8; MAX_COMPACT_ACTIONS + 2];
        let n = compact_num_actions(state.config());
        prop_assert!(state.write_compact_mask(&mut mask[..(id as usize % (n + 2)).max(1)]).is_ok() == (id as usize % (n + 2) == n));
    }
}

proptest! {
    // each case checks ~50 states of a walk whose driver tries every action
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Every state of a mixed walk (goods moved, delivered and stolen).
    #[test]
    fn bijection_along_mixed_walks(config in configs(), seed in any::<u64>()) {
        for s in mixed_walk(config, seed, 160).iter().step_by(3) {
            check_state(s)?;
        }
    }
}

/// The tests above are not vacuous: the mixed walks reach every block of
/// the layout (goods on top and under, steals), and the largest space.
#[test]
fn walks_reach_every_kind_of_action() {
    let mut seen = BTreeSet::new();
    for seed in 0..18 {
        let config =
            CaravanConfig { players: 2 + (seed % 3) as u8, camels: 5 + (seed % 2) as u8, ..Default::default() };
        for s in mixed_walk(config, seed, 240).iter().step_by(4) {
            seen.extend(check_state(s).unwrap());
        }
    }
    let all: BTreeSet<_> = ["end", "pick", "supply", "move", "good", "under", "steal"].into();
    assert_eq!(seen, all);
    assert_eq!(compact_num_actions(&CaravanConfig::with_players(4)), MAX_COMPACT_ACTIONS);
}

/// A hand-made position: ids by the documented layout, slots in square
/// order, two laden camels with one cargo on one square are one good slot.
#[test]
fn documented_ids_in_a_hand_made_position() {
    let config = CaravanConfig { players: 3, camels: 6, ..Default::default() };
    let setup = base(config, 7, 4)
        .camel(1, sq("b2"), Cargo::Empty)
        .camel(1, sq("e2"), Cargo::Top(Kind::C1))
        .camel(1, sq("e2"), Cargo::Top(Kind::C1))
        .camel(1, sq("e2"), Cargo::Under(Kind::R2))
        .camel(1, sq("e2"), Cargo::Empty)
        .camel(1, sq("f2"), Cargo::Empty)
        .camel(0, sq("e2"), Cargo::Top(Kind::C3))
        .camel(2, sq("b2"), Cargo::Top(Kind::C4));
    let s = game(&setup);
    assert_eq!(s.turn(), Turn::Player(1));
    let sqi = |name: &str| u32::from(sq(name).index());
    // unladen slots: b2 (0), e2 (1), f2 (2); good slots: C1 on e2 (0), R2 under e2 (1)
    let expect = [
        ("end", 0),
        ("pick 3", 3),
        ("move b2->c4", 9 + 49 + sqi("c4")),
        ("move f2->b2", 9 + 3 * 49 + sqi("b2")),
        ("good C1 e2=>f2", 352 + sqi("f2")),
        ("good R2 under e2=>e2", 352 + 49 + sqi("e2")),
        // P1 steals from P2 (one seat on) at b2 (slot 0), from P0 (two on) at e2 (slot 1)
        ("steal C4 b2 from P2", 646 + Kind::C4 as u32),
        ("steal C3 e2 from P0", 646 + (6 + 1) * 8 + Kind::C3 as u32),
    ];
    for (text, id) in expect {
        let a = act(text);
        assert_eq!(s.compact_id(a), Ok(id), "{text}");
        assert_eq!(s.compact_action(id), Ok(a), "{text}");
    }
    // good slot 2 does not exist; unladen slot 3 neither
    assert_eq!(
        s.compact_action(352 + 2 * 49),
        Err(CompactError::EmptySlot { id: 352 + 98, what: "good", slot: 2, available: 2 })
    );
    assert!(matches!(s.compact_action(9 + 4 * 49), Err(CompactError::EmptySlot { slot: 3, available: 3, .. })));
    // all six camels are on the board
    assert_eq!(
        s.compact_action(9 + sqi("c4")),
        Err(CompactError::Illegal { action: act("move supply->c4"), reason: IllegalReason::SupplyEmpty })
    );
    // a good on top cannot move within its square
    assert_eq!(
        s.compact_action(352 + sqi("e2")),
        Err(CompactError::Illegal { action: act("good C1 e2=>e2"), reason: IllegalReason::TopSameSquare })
    );
    assert_eq!(
        s.compact_id(act("move c4->d4")),
        Err(CompactError::Illegal { action: act("move c4->d4"), reason: IllegalReason::NoCamelAtSource })
    );
    check_state(&s).unwrap();
    // the messages say what was wrong
    let e = s.compact_action(10_000).unwrap_err();
    assert_eq!(e.to_string(), "compact id 10000 is outside the compact action space 0..742");
    let e = s.write_compact_mask(&mut [false; 5]).unwrap_err();
    assert_eq!(e.to_string(), "a compact mask needs 742 entries (one per compact id), the buffer has 5");
    assert!(s.compact_action(352 + 98).unwrap_err().to_string().contains("good slot 2"));
}

/// Chance nodes and the end have no decision: the mask is empty.
#[test]
fn no_decision_no_mask() {
    let s = Caravan::new_game(&cfg(2)).unwrap();
    assert_eq!(s.turn(), Turn::Chance);
    let mut mask = vec![true; 694];
    assert_eq!(s.write_compact_mask(&mut mask), Ok(0));
    assert!(mask.iter().all(|&m| !m));
    let e = s.compact_id(Action::draw(Kind::R1)).unwrap_err();
    assert!(e.to_string().contains("chance node"), "{e}");
    let g = biased_game(cfg(2), 3, false).state;
    assert!(g.is_terminal());
    assert_eq!(
        g.compact_action(0).unwrap_err().to_string(),
        "compact actions name a player's decisions, but the game is over"
    );
    let mut f = vec![1f32; 694];
    assert_eq!(g.write_compact_mask(&mut f), Ok(0));
    assert!(f.iter().all(|&x| x == 0.0));
}
