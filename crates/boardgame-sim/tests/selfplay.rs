//! Self-play and network matches: the same results whatever the threads,
//! training arrays of the documented shapes, the network's share of each
//! match game, and counts or budgets out of range refused.

use std::sync::Arc;

use boardgame_kit::nn::NetGame;
use boardgame_kit::{AgentSpec, Budget};
use boardgame_sim::selfplay::{
    MAX_SELF_PLAY_GAMES, SelfPlayError, SelfPlaySpec, check_batch, match_budget, network_match, self_play,
};
use korovan_core::{Korovan, KorovanConfig};

fn config(players: u8) -> KorovanConfig {
    KorovanConfig { players, ..KorovanConfig::default() }
}

fn teacher(games: u64, threads: usize, sharp: bool) -> SelfPlaySpec {
    SelfPlaySpec {
        games,
        seed: 9,
        threads,
        iterations: 8,
        sharp,
        net: None,
        teacher: AgentSpec::Heuristic,
        actor: None,
    }
}

#[test]
fn self_play_gives_one_sample_per_decision_whatever_the_threads() {
    let config = config(3);
    let one = self_play::<Korovan>(&config, &teacher(3, 1, false)).unwrap();
    let two = self_play::<Korovan>(&config, &teacher(3, 2, false)).unwrap();
    assert_eq!(one, two);
    let (rows, plen, vlen) = (one.rows, Korovan::POLICY_LEN, Korovan::VALUE_LEN);
    assert!(rows > 6);
    assert_eq!((one.input_len, one.policy_len, one.value_len), (Korovan::input_len(&config), plen, vlen));
    assert_eq!(one.inputs.len(), rows * one.input_len);
    assert_eq!((one.masks.len(), one.policy.len(), one.value.len()), (rows * plen, rows * plen, rows * vlen));
    assert_eq!((one.seats.len(), one.games.len()), (rows, rows));
    assert!(one.games.windows(2).all(|w| w[0] <= w[1]) && one.games.last() == Some(&2));
    for r in 0..rows {
        let policy = &one.policy[r * plen..(r + 1) * plen];
        let mask = &one.masks[r * plen..(r + 1) * plen];
        assert!((policy.iter().sum::<f32>() - 1.0).abs() < 1e-5, "row {r}: a distribution");
        assert!(policy.iter().zip(mask).all(|(&p, &m)| m || p == 0.0), "row {r}: on legal indices only");
        let value: f32 = one.value[r * vlen..(r + 1) * vlen].iter().sum();
        assert!((value - 1.0).abs() < 1e-5, "row {r}: the shares sum to 1");
    }
    let other = SelfPlaySpec { seed: 10, ..teacher(3, 1, false) };
    assert_ne!(self_play::<Korovan>(&config, &other).unwrap(), one);
}

#[test]
fn sharp_targets_are_the_agents_moves() {
    let data = self_play::<Korovan>(&config(3), &teacher(1, 1, true)).unwrap();
    assert!(data.policy.iter().all(|&p| p == 0.0 || p == 1.0));
    assert_eq!(data.policy.iter().filter(|&&p| p == 1.0).count(), data.rows);
}

#[test]
fn a_network_plays_self_play_and_matches() {
    let net = korovan_core::learned_network().unwrap();
    let config = config(3);
    let spec = SelfPlaySpec { net: Some(net.clone()), ..teacher(1, 1, false) };
    assert!(self_play::<Korovan>(&config, &spec).unwrap().rows > 0);
    let run = |threads| network_match::<Korovan>(&config, &net, None, &AgentSpec::Random, (6, 40, threads));
    let (shares, players) = run(1).unwrap();
    assert_eq!((run(3).unwrap(), players), ((shares.clone(), 3), 3));
    assert_eq!(shares.len(), 6);
    assert!(shares.iter().all(|s| (0.0..=1.0).contains(s)));
    let budget = Some(Budget::Iterations(4));
    let (searched, _) = network_match::<Korovan>(&config, &net, budget, &AgentSpec::Random, (2, 40, 1)).unwrap();
    assert_eq!(searched.len(), 2);
}

#[test]
fn a_network_of_another_game_is_refused() {
    let caravan = caravan_core::learned_network().unwrap();
    let spec = SelfPlaySpec { net: Some(Arc::clone(&caravan)), ..teacher(1, 1, false) };
    assert!(matches!(self_play::<Korovan>(&config(3), &spec), Err(SelfPlayError::Invalid(_))));
    let refused = network_match::<Korovan>(&config(3), &caravan, None, &AgentSpec::Random, (1, 0, 1));
    assert!(matches!(refused, Err(SelfPlayError::Invalid(_))));
}

#[test]
fn counts_and_budgets_out_of_range_are_refused() {
    let message = |r: Result<(), SelfPlayError>| r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message(check_batch(0, 1, None, 0)).contains("games must be in"));
    assert!(message(check_batch(MAX_SELF_PLAY_GAMES + 1, 1, None, 0)).contains("games must be in"));
    assert!(message(check_batch(1, 0, None, 0)).contains("threads must be in"));
    assert!(message(check_batch(1, 1, Some(0), 0)).contains("iterations must be in"));
    assert!(message(check_batch(2, 1, None, u64::MAX)).contains("passes 2**64"));
    assert!(check_batch(1, 1, Some(1), 0).is_ok());
    assert_eq!(match_budget(None, None), Ok(None));
    assert_eq!(match_budget(Some(5), None), Ok(Some(Budget::Iterations(5))));
    for (iterations, millis) in [(Some(1), Some(1)), (Some(0), None), (None, Some(60_001))] {
        assert!(matches!(match_budget(iterations, millis), Err(SelfPlayError::Invalid(_))));
    }
}

#[test]
fn the_library_checks_its_counts_too() {
    let net = korovan_core::learned_network().unwrap();
    let huge = SelfPlaySpec { games: u64::MAX, ..teacher(1, 1, false) };
    assert!(matches!(self_play::<Korovan>(&config(3), &huge), Err(SelfPlayError::Invalid(_))));
    let none = SelfPlaySpec { threads: 0, ..teacher(1, 1, false) };
    assert!(matches!(self_play::<Korovan>(&config(3), &none), Err(SelfPlayError::Invalid(_))));
    let refused = network_match::<Korovan>(&config(3), &net, None, &AgentSpec::Random, (u64::MAX, 0, 1));
    assert!(matches!(refused, Err(SelfPlayError::Invalid(_))));
}
