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
use caravan_core::{Caravan, CaravanConfig, WEIGHTS, learned_network};
use proptest::prelude::*;

/// Games of at most 60 turns: a debug build's forward passes are slow, and
/// the checks concern every decision, not the length of the game.
fn config(players: u8) -> CaravanConfig {
    CaravanConfig { max_turns: 60, ..CaravanConfig::with_players(players) }
}

#[test]
fn the_committed_network_fits_every_player_count_and_is_small() {
    assert!(WEIGHTS.len() <= 1 << 20, "{} bytes", WEIGHTS.len());
    let net = learned_network().unwrap();
    for players in 2..=4u8 {
        check_network::<Caravan>(&net, &config(players)).unwrap();
    }
    assert_eq!(net.game(), "caravan");
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
    let obs = Caravan::input_len(&config(3));
    let foreign =
        Arc::new(Network::new_random("korovan", obs, &[4], Caravan::POLICY_LEN, Caravan::VALUE_LEN, 1).unwrap());
    let err = LearnedAgent::<Caravan>::new(foreign, 0.0).unwrap_err();
    assert!(matches!(err, WeightsError::Mismatch { .. }), "{err}");
    let narrow =
        Arc::new(Network::new_random("caravan", obs, &[4], Caravan::POLICY_LEN - 1, Caravan::VALUE_LEN, 1).unwrap());
    assert!(LearnedAgent::<Caravan>::new(narrow, 0.0).unwrap_err().to_string().contains("its policy has"));
    assert!(err.to_string().contains("trained for `korovan`"), "{err}");
}

#[test]
fn learned_agents_are_named_like_every_other() {
    for name in ["learned", "learned:0.5", "learned-ismcts:20"] {
        let spec: AgentSpec = name.parse().unwrap();
        let mut agent = spec.build::<Caravan>().unwrap();
        let entrant = spec.entrant::<Caravan>().unwrap();
        assert_eq!(entrant.name, name);
        let mut state = Caravan::new_game(&config(2)).unwrap();
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
    for players in [2, 4u8] {
        let make = || "learned".parse::<AgentSpec>().unwrap().build::<Caravan>().unwrap();
        let r = check_agent::<Caravan>(&config(players), &make, 3, 1, true).unwrap();
        assert!(r.decisions > 0 && r.policies == r.decisions && r.determinized == r.decisions, "{r:?}");
        let make = || "learned:1".parse::<AgentSpec>().unwrap().build::<Caravan>().unwrap();
        check_agent::<Caravan>(&config(players), &make, 2, 2, true).unwrap();
    }
    let make = || "learned-ismcts:8".parse::<AgentSpec>().unwrap().build::<Caravan>().unwrap();
    let r = check_agent::<Caravan>(&config(2), &make, 1, 3, false).unwrap();
    assert!(r.policies > 0, "the search writes its visit shares: {r:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `learned` (greedy and sampled) plays only legal actions from any
    /// reachable state of any player count.
    #[test]
    fn learned_only_plays_legal_actions(
        players in 2..=4u8,
        seed in any::<u64>(),
        steps in 0usize..600,
    ) {
        let state = boardgame_kit::strategy::random_walk::<Caravan>(&config(players), seed, steps).state;
        if let Turn::Player(seat) = state.turn() {
            let net = learned_network().unwrap();
            for t in [0.0, 1.0] {
                let mut agent = LearnedAgent::<Caravan>::new(net.clone(), t).unwrap();
                let a = agent.act(&state, seat, &mut GameRng::new(seed));
                prop_assert!(state.is_legal(a), "{:?} at temperature {}", a, t);
            }
        }
    }
}
