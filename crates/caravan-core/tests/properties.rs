//! Property tests over arbitrary seeds, 2..=4 players and random (or
//! biased) legal play.

mod common;

use std::collections::HashSet;

use boardgame_kit::{Agent, Game, GameRecord, GameRng, RandomAgent, Turn, play_game, sample_chance};
use caravan_core::{Act, Action, Caravan, CaravanConfig, CaravanSetup, Cargo, FULL_BAG, allowance};
use common::*;
use proptest::prelude::*;

/// A walk of `steps` actions: the biased driver with probability
/// `bias / 4`, a uniform random action otherwise (chance by its weights).
fn walk(players: u8, seed: u64, steps: usize, bias: u32) -> Vec<(Caravan, Option<Action>)> {
    let config = CaravanConfig { players, max_turns: 200, ..CaravanConfig::default() };
    let mut s = Caravan::new_game(&config).unwrap();
    let mut rng = GameRng::new(seed);
    let mut buf = Default::default();
    let mut out = Vec::with_capacity(steps + 1);
    for _ in 0..steps {
        let a = match s.turn() {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&s, &mut rng, &mut buf).unwrap(),
            Turn::Player(_) => {
                if rng.below(4) < bias {
                    biased_action(&s, &mut rng)
                } else {
                    let l = legal(&s);
                    // steals are rare under uniform play: favour them
                    match l.iter().find(|a| matches!(a.act(), Act::Steal { .. })) {
                        Some(&st) if rng.below(2) == 0 => st,
                        _ => l[rng.index(l.len())],
                    }
                }
            }
        };
        out.push((s, Some(a)));
        s.apply(a).unwrap();
    }
    out.push((s, None));
    out
}

fn camels_by_player(s: &Caravan, p: usize) -> Vec<(caravan_core::Square, Cargo)> {
    let mut v: Vec<_> = s.camels_on_board(p).collect();
    v.sort();
    v
}

fn check_invariants(s: &Caravan) -> Result<(), TestCaseError> {
    let c = s.config();
    // C-1.3: every good in exactly one place, 48 in all
    prop_assert_eq!(s.goods_by_kind(), FULL_BAG.map(u32::from));
    for p in 0..usize::from(c.players) {
        // C-1.2: a camel is in the supply or on the board, never both
        prop_assert_eq!(usize::from(s.supply(p)) + s.camels_on_board(p).count(), usize::from(c.camels));
    }
    // C-1.5
    let theft: u32 = (0..4).map(|p| u32::from(s.theft_markers(p))).sum();
    prop_assert_eq!(theft, u32::from(c.players));
    // C-4: allowance left within the turn's allowance
    if let Turn::Player(_) = s.turn() {
        prop_assert!(s.actions_left() >= 1);
        prop_assert!(s.actions_left() <= allowance(s.turn_index()));
    }
    // the position survives the setup round trip (and validates)
    let back = Caravan::from_setup(&s.to_setup());
    prop_assert_eq!(back.as_ref(), Ok(s));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_along_play(players in 2u8..=4, seed: u64, steps in 0usize..400, bias in 0u32..=4) {
        let w = walk(players, seed, steps, bias);
        for (i, (s, a)) in w.iter().enumerate() {
            check_invariants(s)?;
            let (Some(a), Some((next, _))) = (a, w.get(i + 1)) else { continue };
            // C-5: laden camels never move; only the good moved or stolen
            // leaves its camel
            if let Act::Move { .. } | Act::End = a.act() {
                for p in 0..usize::from(players) {
                    let laden = |x: &Caravan| -> Vec<_> {
                        camels_by_player(x, p).into_iter().filter(|(_, c)| *c != Cargo::Empty).collect()
                    };
                    prop_assert_eq!(laden(s), laden(next));
                }
            }
        }
    }

    /// The engine's fast draws (`random_legal_action` counts and decodes,
    /// `sample_chance_outcome` walks the bag) are exactly the listed draws
    /// of the kit's defaults — same action, same rng state after — at every
    /// state of biased and uniform walks (natural ends, goods moving,
    /// steals), chance nodes and the end included.
    #[test]
    fn fast_draws_are_the_listed_draws(players in 2u8..=4, seed: u64, steps in 0usize..400, bias in 0u32..=4) {
        let w = walk(players, seed, steps, bias);
        let mut chances = Default::default();
        for (s, _) in &w {
            let l = legal(s);
            for k in 0..3u64 {
                let mut fast = GameRng::new(seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let mut slow = fast.clone();
                let drawn = s.random_legal_action(&mut fast);
                let listed = l.get(slow.index(l.len())).copied();
                prop_assert_eq!(drawn, listed);
                prop_assert_eq!(&fast, &slow);
                let drawn = s.sample_chance_outcome(&mut fast);
                let listed = sample_chance(s, &mut slow, &mut chances);
                prop_assert_eq!(drawn, listed);
                prop_assert_eq!(&fast, &slow);
            }
        }
    }

    /// The camel planes of the observation tensor (docs/encoding-caravan.md:
    /// unladen, on top, under per player slot; goods carried per kind) count
    /// exactly the camels `camels_on_board` lists, stacked camels included.
    #[test]
    fn tensor_camel_planes_count_the_camels_on_board(players in 2u8..=4, seed: u64, steps in 0usize..400, bias in 0u32..=4) {
        const SQ: usize = 49;
        let w = walk(players, seed, steps, bias);
        let n = usize::from(players);
        let mut t = vec![0f32; 1938];
        for (s, _) in w.iter().step_by(7) {
            for seat in 0..n {
                s.write_observation_tensor(seat, &mut t).unwrap();
                let mut want = vec![0f32; 28 * SQ];
                for j in 0..n {
                    for (sq, cargo) in s.camels_on_board((seat + j) % n) {
                        let i = usize::from(sq.index());
                        match cargo {
                            Cargo::Empty => want[j * SQ + i] += 1.0,
                            Cargo::Top(k) => {
                                want[(4 + j) * SQ + i] += 1.0;
                                want[(20 + k as usize) * SQ + i] += 1.0;
                            }
                            Cargo::Under(k) => {
                                want[(8 + j) * SQ + i] += 1.0;
                                want[(20 + k as usize) * SQ + i] += 1.0;
                            }
                        }
                    }
                }
                // planes 12..20 are the goods lying: skip them
                prop_assert_eq!(&t[..12 * SQ], &want[..12 * SQ]);
                prop_assert_eq!(&t[20 * SQ..28 * SQ], &want[20 * SQ..28 * SQ]);
            }
        }
    }

    #[test]
    fn canonical_actions_lead_to_distinct_states(players in 2u8..=4, seed: u64, steps in 8usize..300, bias in 0u32..=4) {
        // C-5.6: applying each legal action to clones gives pairwise
        // different states
        let w = walk(players, seed, steps, bias);
        let (s, _) = w.last().unwrap();
        let list = legal(s);
        let mut seen = HashSet::new();
        for &a in &list {
            let mut c = *s;
            c.apply(a).unwrap();
            prop_assert!(seen.insert(c), "two actions lead to the same state, one is {}", a);
        }
    }

    #[test]
    fn illegal_actions_are_errors_and_change_nothing(players in 2u8..=4, seed: u64, steps in 0usize..300, ids in proptest::collection::vec(0u32..42_451, 64)) {
        let w = walk(players, seed, steps, 2);
        let (s, _) = w.last().unwrap();
        let list = legal(s);
        for id in ids {
            match Caravan::action_from_id(s.config(), id) {
                Ok(a) => {
                    let mut c = *s;
                    let r = c.apply(a);
                    prop_assert_eq!(r.is_ok(), list.contains(&a));
                    if r.is_err() {
                        prop_assert_eq!(&c, s);
                    }
                }
                Err(_) => prop_assert!(id as usize >= Caravan::num_distinct_actions(s.config())),
            }
        }
    }

    #[test]
    fn same_seed_and_actions_same_state(players in 2u8..=4, seed: u64, steps in 0usize..300) {
        let a = walk(players, seed, steps, 2);
        let b = walk(players, seed, steps, 2);
        prop_assert_eq!(a.last().unwrap().0, b.last().unwrap().0);
        // replaying the recorded actions gives the same state
        let config = *a[0].0.config();
        let mut s = Caravan::new_game(&config).unwrap();
        for (_, act) in &a {
            if let Some(act) = act {
                s.apply(*act).unwrap();
            }
        }
        prop_assert_eq!(s, a.last().unwrap().0);
    }

    #[test]
    fn codecs_round_trip(players in 2u8..=4, seed: u64, steps in 0usize..300) {
        let w = walk(players, seed, steps, 2);
        let (s, _) = w.last().unwrap();
        let config = s.config();
        for a in legal(s) {
            let id = Caravan::action_id(config, a);
            prop_assert_eq!(Caravan::action_from_id(config, id).unwrap(), a);
            prop_assert_eq!(a.to_string().parse::<Action>().unwrap(), a);
            let json = serde_json::to_string(&a).unwrap();
            prop_assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), a);
        }
        let json = serde_json::to_string(s).unwrap();
        prop_assert_eq!(&serde_json::from_str::<Caravan>(&json).unwrap(), s);
        let setup: CaravanSetup = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&Caravan::from_setup(&setup).unwrap(), s);
        for seat in 0..usize::from(players) {
            let obs = s.observation(seat).unwrap();
            let back = serde_json::from_str(&serde_json::to_string(&obs).unwrap()).unwrap();
            prop_assert_eq!(obs, back);
        }
        let cj = serde_json::to_string(config).unwrap();
        prop_assert_eq!(&serde_json::from_str::<CaravanConfig>(&cj).unwrap(), config);
    }

    #[test]
    fn random_games_terminate_and_records_replay(players in 2u8..=4, seed: u64) {
        let config = CaravanConfig { players, max_turns: 120, ..CaravanConfig::default() };
        let mut agents: Vec<RandomAgent> = vec![RandomAgent; usize::from(players)];
        let mut refs: Vec<&mut dyn Agent<Caravan>> =
            agents.iter_mut().map(|a| a as &mut dyn Agent<Caravan>).collect();
        let game = play_game::<Caravan>(&config, &mut refs, seed).unwrap();
        prop_assert!(game.state.is_terminal());
        prop_assert!(game.record.actions.len() <= Caravan::max_game_length(&config));
        let json = game.record.to_json();
        let record = GameRecord::<CaravanConfig>::from_json::<Caravan>(&json).unwrap();
        prop_assert_eq!(record.replay::<Caravan>().unwrap(), game.state);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// The kit's generic strategy of reachable states: C-8, nothing hidden,
    /// so determinization is the identity and every seat's observation is
    /// the whole position.
    #[test]
    fn reachable_states_observe_everything(
        state in boardgame_kit::strategy::reachable_state::<Caravan>(CaravanConfig::with_players(4), 600)
    ) {
        check_invariants(&state)?;
        let mut rng = GameRng::new(3);
        for seat in 0..4 {
            prop_assert_eq!(state.determinize(seat, &mut rng).unwrap(), state);
            let obs = state.observation(seat).unwrap();
            prop_assert_eq!(Caravan::from_setup(&obs.position).unwrap(), state);
        }
    }
}

#[test]
fn biased_games_terminate_naturally_and_keep_invariants() {
    for (players, seed) in [(2u8, 10u64), (3, 11), (4, 12)] {
        let config = CaravanConfig { players, max_turns: 2000, ..CaravanConfig::default() };
        let g = biased_game(config, seed, true);
        for s in &g.states {
            check_invariants(s).unwrap();
        }
        assert!(g.state.is_terminal());
    }
}
