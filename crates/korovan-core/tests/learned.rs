//! The learned agents (issue 21, `docs/bots.md` "Learned agents"): the
//! committed network loads and fits every player count, a corrupt copy is
//! a typed error, the forward pass is pinned by a golden test, the agents
//! are named like every other, pass the kit's agent conformance, and play
//! only legal actions from reachable states.

use std::sync::Arc;

use boardgame_kit::conformance::check_agent;
use boardgame_kit::nn::NetGame;
use boardgame_kit::nn::{LearnedAgent, Network, WeightsError, check_network};
use boardgame_kit::{Agent, AgentSpec, Game, GameRng, Turn};
use korovan_core::{Korovan, KorovanConfig, WEIGHTS, learned_network};
use proptest::prelude::*;

fn config(players: u8) -> KorovanConfig {
    KorovanConfig::with_players(players)
}

#[test]
fn the_committed_network_fits_every_player_count_and_is_small() {
    assert!(WEIGHTS.len() <= 1 << 20, "{} bytes", WEIGHTS.len());
    let net = learned_network().unwrap();
    for players in 3..=9u8 {
        check_network::<Korovan>(&net, &config(players)).unwrap();
    }
    assert_eq!(net.game(), "korovan");
    assert!(net.text().contains("\"seed\""), "the file says how it was trained: {}", net.text());
}

#[test]
fn a_corrupt_or_foreign_weights_file_is_a_typed_error() {
    let mut flipped = WEIGHTS.to_vec();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x10;
    assert!(matches!(
        Network::from_bytes(&flipped),
        Err(WeightsError::Checksum { .. } | WeightsError::NonFinite { .. })
    ));
    assert!(matches!(Network::from_bytes(&WEIGHTS[..WEIGHTS.len() - 3]), Err(WeightsError::Truncated { .. })));
    assert_eq!(Network::from_bytes(b"not a network"), Err(WeightsError::Magic));
    let obs = Korovan::input_len(&config(3));
    let foreign =
        Arc::new(Network::new_random("caravan", obs, &[4], Korovan::POLICY_LEN, Korovan::VALUE_LEN, 1).unwrap());
    let err = LearnedAgent::<Korovan>::new(foreign, 0.0).unwrap_err();
    assert!(matches!(err, WeightsError::Mismatch { .. }), "{err}");
    let narrow =
        Arc::new(Network::new_random("korovan", obs, &[4], Korovan::POLICY_LEN - 1, Korovan::VALUE_LEN, 1).unwrap());
    assert!(LearnedAgent::<Korovan>::new(narrow, 0.0).unwrap_err().to_string().contains("its policy has"));
    assert!(err.to_string().contains("trained for `caravan`"), "{err}");
}

#[test]
fn learned_agents_are_named_like_every_other() {
    for name in ["learned", "learned:0.5", "learned-ismcts:20"] {
        let spec: AgentSpec = name.parse().unwrap();
        let mut agent = spec.build::<Korovan>().unwrap();
        let entrant = spec.entrant::<Korovan>().unwrap();
        assert_eq!(entrant.name, name);
        let mut state = Korovan::new_game(&config(3)).unwrap();
        let mut rng = GameRng::new(5);
        while let Turn::Chance = state.turn() {
            let a = state.sample_chance_outcome(&mut rng).unwrap();
            state.apply(a).unwrap();
        }
        let Turn::Player(seat) = state.turn() else { unreachable!() };
        assert!(state.is_legal(agent.act(&state, seat, &mut rng)), "{name}");
    }
}

#[test]
fn learned_agents_pass_the_agent_conformance() {
    for players in [3, 9u8] {
        let make = || "learned".parse::<AgentSpec>().unwrap().build::<Korovan>().unwrap();
        let r = check_agent::<Korovan>(&config(players), &make, 3, 1, true).unwrap();
        assert!(r.decisions > 0 && r.policies == r.decisions && r.determinized == r.decisions, "{r:?}");
        let make = || "learned:1".parse::<AgentSpec>().unwrap().build::<Korovan>().unwrap();
        check_agent::<Korovan>(&config(players), &make, 2, 2, true).unwrap();
    }
    let make = || "learned-ismcts:8".parse::<AgentSpec>().unwrap().build::<Korovan>().unwrap();
    let r = check_agent::<Korovan>(&config(3), &make, 1, 3, false).unwrap();
    assert!(r.policies > 0, "the search writes its visit shares: {r:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `learned` (greedy and sampled) plays only legal actions from any
    /// reachable state of any player count.
    #[test]
    fn learned_only_plays_legal_actions(
        players in 3..=9u8,
        seed in any::<u64>(),
        steps in 0usize..300,
    ) {
        let state = boardgame_kit::strategy::random_walk::<Korovan>(&config(players), seed, steps).state;
        if let Turn::Player(seat) = state.turn() {
            let net = learned_network().unwrap();
            for t in [0.0, 1.0] {
                let mut agent = LearnedAgent::<Korovan>::new(net.clone(), t).unwrap();
                let a = agent.act(&state, seat, &mut GameRng::new(seed));
                prop_assert!(state.is_legal(a), "{:?} at temperature {}", a, t);
            }
        }
    }
}

/// Fixed inputs → fixed outputs of the committed network, to 1e-4
/// (relative above 1): a
/// synthetic input, and the input at the first decision after 15 random
/// actions of seed 7. Regenerate (the failure message prints the values)
/// only with new weights.
#[test]
fn golden_forward_pass() {
    let net = learned_network().unwrap();
    let len = net.obs_len();
    let synthetic: Vec<f32> = (0..len).map(|i| ((i * 37) % 11) as f32 / 10.0).collect();
    let mut walk = boardgame_kit::strategy::random_walk::<Korovan>(&config(3), 7, 15).state;
    let mut rng = GameRng::new(7);
    while walk.turn() == Turn::Chance {
        let a = walk.sample_chance_outcome(&mut rng).unwrap();
        walk.apply(a).unwrap();
    }
    let Turn::Player(seat) = walk.turn() else { panic!("the walk ended") };
    let mut from_state = vec![0.0f32; len];
    assert!(walk.write_input(seat, &mut from_state));
    let mut scratch = boardgame_kit::nn::MlpScratch::for_mlp(net.mlp());
    let mut out = vec![0.0f32; net.mlp().outputs()];
    let mut got = Vec::new();
    for input in [&synthetic, &from_state] {
        net.mlp().forward(input, &mut scratch, &mut out).unwrap();
        got.extend_from_slice(&out[..4]);
        got.extend_from_slice(&out[net.policy_len()..net.policy_len() + 3]);
    }
    let expected: [f32; 14] = GOLDEN;
    let close = got.iter().zip(&expected).all(|(a, b)| (a - b).abs() <= 1e-4 * b.abs().max(1.0));
    assert!(close, "the forward pass changed: got {got:?}, pinned {expected:?}");
}

/// The pinned outputs of [`golden_forward_pass`]: for each input the first
/// four policy logits, then the first three value logits.
const GOLDEN: [f32; 14] = [
    -2.2445621,
    -1.320044,
    2.6284378,
    0.42149186,
    1.4363141,
    -1.5177462,
    1.724482,
    -1.1733428,
    -0.20927976,
    -0.3363236,
    -0.04680431,
    -0.113176286,
    -0.6228361,
    2.8638823,
];
