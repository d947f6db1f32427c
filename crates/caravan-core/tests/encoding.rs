//! The observation tensor follows docs/encoding-caravan.md, index by index,
//! on a hand-made position.

use boardgame_kit::Game;
use caravan_core::{Caravan, CaravanConfig, CaravanSetup, Cargo, Kind};

const SQ: usize = 49;
const PLAYER_BASE: usize = 38 * SQ; // 1862
const GLOBAL_BASE: usize = PLAYER_BASE + 4 * 13; // 1914

fn position() -> (CaravanSetup, Caravan) {
    let sq = |s: &str| s.parse().unwrap();
    let setup = CaravanSetup::initial(CaravanConfig::with_players(2))
        .fill_spaces(&[Kind::C1, Kind::C2, Kind::C3, Kind::C4, Kind::R1, Kind::R2, Kind::R3, Kind::R4])
        .camel(0, sq("a1"), Cargo::Empty)
        .camel(1, sq("d4"), Cargo::Top(Kind::C3));
    let game = Caravan::from_setup(&setup).unwrap();
    (setup, game)
}

#[test]
fn tensor_layout_matches_the_document() {
    let (setup, game) = position();
    let config = *game.config();
    assert_eq!(Caravan::observation_tensor_shape(&config), vec![1938]);
    let mut t = vec![f32::NAN; 1938];
    game.write_observation_tensor(1, &mut t).unwrap();
    let at = |plane: usize, square: usize| t[plane * SQ + square];
    // slots are relative to the observer (seat 1): slot 0 = seat 1, slot 1 = seat 0
    assert_eq!(at(1, 0), 1.0, "plane 0..4: slot 1 (seat 0) has an unladen camel on a1");
    assert_eq!(at(0, 0), 0.0);
    assert_eq!(at(4, 24), 1.0, "plane 4..8: slot 0 (seat 1) has a camel with a good on top on d4");
    assert_eq!(at(8, 24), 0.0, "plane 8..12: nothing under");
    assert_eq!(at(20 + 6, 24), 1.0, "plane 20..28: a C3 carried on d4");
    assert_eq!(at(12 + 4, 0), 1.0, "plane 12..20: a C1 lying on space 1 (a1)");
    assert_eq!(at(12 + 3, 48), 1.0, "plane 12..20: an R4 lying on space 8 (g7)");
    for (i, &s) in [0usize, 6, 11, 15, 33, 37, 42, 48].iter().enumerate() {
        assert_eq!(at(37, s), 1.0, "plane 37: numbered space {}", i + 1);
        assert_eq!(at(28, s), f32::from(setup.space_markers[i]), "plane 28: demand markers on space {}", i + 1);
    }
    for (k, &s) in [3usize, 27, 45, 21, 17, 25, 31, 23].iter().enumerate() {
        assert_eq!(at(29 + k, s), 1.0, "plane 29..37: the city of kind {k}");
    }
    let planes_total: f32 = t[..PLAYER_BASE].iter().sum();
    let expected_planes =
        1.0 + 1.0 + 1.0 + 8.0 + 8.0 + 8.0 + setup.space_markers.iter().map(|&m| f32::from(m)).sum::<f32>();
    assert_eq!(planes_total, expected_planes, "nothing else is set in the planes");
    // player scalars: present, supply, demand markers, theft markers, delivered ×8, score
    let slot = |j: usize| &t[PLAYER_BASE + 13 * j..PLAYER_BASE + 13 * (j + 1)];
    assert_eq!(slot(0)[..4], [1.0, 4.0, 0.0, 1.0]);
    assert_eq!(slot(1)[..4], [1.0, 4.0, 0.0, 1.0]);
    assert!(slot(2).iter().chain(slot(3)).all(|&x| x == 0.0), "absent slots are zero");
    // globals
    let g = &t[GLOBAL_BASE..];
    let bag_total: f32 = g[..8].iter().sum();
    assert_eq!(bag_total, f32::from(setup.bag.iter().map(|&b| u16::from(b)).sum::<u16>()));
    assert_eq!(g[8], bag_total);
    assert_eq!(g[10], 1.0, "actions left in turn 0");
    assert_eq!(g[11], 1.0, "allowance of turn 0");
    assert_eq!(g[15..19], [0.0, 1.0, 0.0, 0.0], "seat 0 to move is slot 1 for observer 1");
    assert_eq!(g[19..24], [0.0; 5], "no chance node, not over");
    assert!(t.iter().all(|x| x.is_finite()));
}

#[test]
fn tensor_is_relative_to_the_observer() {
    let (_, game) = position();
    let mut t0 = vec![0f32; 1938];
    let mut t1 = vec![0f32; 1938];
    game.write_observation_tensor(0, &mut t0).unwrap();
    game.write_observation_tensor(1, &mut t1).unwrap();
    // seat 0's own unladen camel is in its slot 0, seat 1's view has it in slot 1
    assert_eq!(t0[0], 1.0);
    assert_eq!(t1[SQ], 1.0);
    assert_ne!(t0, t1);
}
