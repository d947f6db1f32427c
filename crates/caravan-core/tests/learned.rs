//! The learned agents (`docs/bots.md` "Learned agents"): the
//! committed network and its agents pass the kit's `check_learned` (the
//! weights fit every player count, a corrupt or foreign copy is a typed
//! error, the agents are named like every other and pass the agent
//! conformance), the forward pass is pinned by a golden test, and the
//! agents play only legal actions from reachable states.

use boardgame_kit::nn::LearnedAgent;
use boardgame_kit::{Agent, Game, GameRng, Turn, check_learned, check_player_networks, golden_outputs};
use caravan_core::{Caravan, CaravanConfig, WEIGHTS, WEIGHTS_BY_PLAYERS, learned_network, learned_networks_by_players};
use proptest::prelude::*;

/// Games of at most 60 turns: a debug build's forward passes are slow, and
/// the checks concern every decision, not the length of the game.
fn config(players: u8) -> CaravanConfig {
    CaravanConfig { max_turns: 60, ..CaravanConfig::with_players(players) }
}

/// The kit's checks of a shipped network and its agents
/// ([`check_learned`]): the weights fit every player count, damaged and
/// foreign copies are typed errors, the agents build by name and pass the
/// agent conformance; and the file is small and says how it was trained.
#[test]
fn the_committed_network_and_its_agents_pass_the_kits_checks() {
    assert!(WEIGHTS.len() <= 1 << 20, "{} bytes", WEIGHTS.len());
    let configs: Vec<CaravanConfig> = (2..=4u8).map(config).collect();
    let r = check_learned::<Caravan>(WEIGHTS, &configs).unwrap();
    assert_eq!((r.configs, r.refused, r.names), (3, 5, 3), "{r:?}");
    assert!(r.decisions > 0, "{r:?}");
    let net = learned_network().unwrap();
    assert_eq!(net.game(), "caravan");
    assert!(net.text().contains("\"seed\""), "the file says how it was trained: {}", net.text());
}

/// The networks trained at a player count of their own pass the kit's
/// checks at their count ([`check_player_networks`]) and are what
/// [`learned_networks_by_players`] reads.
#[test]
fn the_networks_of_player_counts_pass_the_kits_checks() {
    assert!(!WEIGHTS_BY_PLAYERS.is_empty(), "Caravan ships a network for a player count of its own");
    let decisions =
        check_player_networks::<Caravan>(WEIGHTS, WEIGHTS_BY_PLAYERS, |n| config(u8::try_from(n).unwrap_or(0)))
            .unwrap();
    assert!(decisions > 0);
    let counts: Vec<usize> = learned_networks_by_players().unwrap().iter().map(|(n, _)| *n).collect();
    assert_eq!(counts, WEIGHTS_BY_PLAYERS.iter().map(|(n, _)| *n).collect::<Vec<_>>());
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

/// Fixed inputs → fixed outputs of the committed network, to 1e-4
/// (relative above 1): a
/// synthetic input, and the input at the first decision after 40 random
/// actions of seed 7. Regenerate (the failure message prints the values)
/// only with new weights.
#[test]
fn golden_forward_pass() {
    let net = learned_network().unwrap();
    let walk = boardgame_kit::strategy::random_walk::<Caravan>(&config(3), 7, 40).state;
    let got = golden_outputs(&net, walk, 7).unwrap();
    let expected: [f32; 14] = GOLDEN;
    let close = got.iter().zip(&expected).all(|(a, b)| (a - b).abs() <= 1e-4 * b.abs().max(1.0));
    assert!(got.len() == 14 && close, "the forward pass changed: got {got:?}, pinned {expected:?}");
}

/// The pinned outputs of [`golden_forward_pass`]: for each input the first
/// four policy logits, then the first three value logits.
const GOLDEN: [f32; 14] = [
    -0.49907357,
    4.1985984,
    -3.115644,
    -2.0711725,
    1.4655988,
    0.13431817,
    1.35064,
    -3.2508528,
    2.8211937,
    2.2280278,
    5.239907,
    1.5384088,
    1.1263536,
    -0.4203809,
];

/// `learned-ismcts:N` is the tuned search (`ismcts-h`) improving on the
/// network's greedy move as its base, with the engine's margin: by name it
/// plays what that composition of public parts plays, move for move.
#[test]
fn the_network_guided_search_is_ismcts_h_with_the_network_as_its_base() {
    use boardgame_kit::{AgentSpec, Budget, same_decisions};
    let mut named = "learned-ismcts:40".parse::<AgentSpec>().unwrap().build::<Caravan>().unwrap();
    let base = LearnedAgent::<Caravan>::new(learned_network().unwrap(), 0.0).unwrap();
    let mut composed = caravan_core::tuned_ismcts(Budget::Iterations(40))
        .base_agent(Box::new(base), caravan_core::LEARNED_SEARCH_MARGIN);
    let n = same_decisions::<Caravan>(&mut *named, &mut composed, &CaravanConfig::with_players(2), 1, 3).unwrap();
    assert!(n >= 10, "{n} decisions compared");
}

/// The board layout the engine declares ([`NetGame::board_layout`]) is the
/// one the committed network reads: its input ranges are the layout's
/// global and plane ranges, in the order the trainer's tower emits them,
/// and the heads add up to the policy.
#[test]
fn the_declared_board_layout_is_the_committed_networks() {
    use boardgame_kit::nn::{NetGame, Op};
    let layout = Caravan::net_layout(&CaravanConfig::default());
    let board = layout.board.clone().expect("Caravan has a board layout");
    assert_eq!((layout.policy_len, layout.value_len), (790, 4));
    assert_eq!(board.policy_len(), layout.policy_len);
    assert_eq!(layout.input_len, board.plan.unwrap_or(0) + layout.policy_len, "the plan ends the input");
    assert_eq!((board.height, board.width), (7, 7));
    let net = learned_network().unwrap();
    let read: Vec<(usize, usize)> = net
        .graph()
        .ops()
        .iter()
        .filter_map(|op| match op {
            Op::Input { start, len } | Op::ConcatInput { start, len } => Some((*start, *len)),
            _ => None,
        })
        .collect();
    let squares = board.height * board.width;
    let plan = board.plan.expect("a planner's move");
    let mut expected = board.globals.clone();
    expected.extend(board.planes.iter().map(|&(start, c)| (start, c * squares)));
    expected.push((plan + board.policy_before, board.policy_planes * squares));
    expected.push((plan, board.policy_before));
    expected.push((plan + board.policy_before + board.policy_planes * squares, board.policy_after));
    assert_eq!(read, expected);
}
