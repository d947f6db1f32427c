//! Pinned search results on Korovan (5 players): for fixed positions (from a seeded
//! heuristic game), seeds and iteration budgets, the move that the kit's
//! `IsMctsAgent` (as `ismcts` and as the tuned `ismcts-h`) and
//! `FlatMcAgent` choose, their searches / iterations / nodes and a digest
//! of their root statistics. A change of the search that is not bit-exact
//! changes a line here. The game is driven here with one `GameRng`, so the
//! values depend on the search code and the engine alone.

use boardgame_kit::Fnv1a;
use boardgame_kit::{ActionId, Agent, FlatMcAgent, Game, GameRng, IsMctsAgent, SearchStats, decision_positions};
use korovan_core::{Korovan, KorovanConfig, KorovanHeuristic};

fn config() -> KorovanConfig {
    KorovanConfig { players: 5, ..Default::default() }
}

/// Every `step`-th decision position of a heuristic game (seed 3), at most
/// `count` of them, with the seat to move.
fn positions(step: usize, count: usize) -> Vec<(Korovan, usize)> {
    let mut bots: Vec<KorovanHeuristic> = (0..5).map(|_| KorovanHeuristic::new()).collect();
    let mut agents: Vec<&mut dyn Agent<Korovan>> = bots.iter_mut().map(|b| b as &mut dyn Agent<Korovan>).collect();
    decision_positions(Korovan::new_game(&config()).unwrap(), &mut agents, &mut GameRng::new(3), step, count).unwrap()
}

fn line(name: &str, i: usize, action: ActionId, s: SearchStats, digest: u64) -> String {
    format!("{name} {i}: {action} {}/{}/{} {digest:016x}", s.searches, s.iterations, s.nodes)
}

fn ismcts_line(name: &str, agent: &mut IsMctsAgent<Korovan>, positions: &[(Korovan, usize)]) -> Vec<String> {
    let config = config();
    let mut out = Vec::new();
    for (i, (state, seat)) in positions.iter().enumerate() {
        let a = agent.act(state, *seat, &mut GameRng::new(i as u64));
        let digest = Fnv1a::of_u64s(agent.root_edges().iter().flat_map(|e| {
            [
                u64::from(Korovan::action_id(&config, e.action)),
                u64::from(e.visits),
                u64::from(e.availability),
                e.mean_return.to_bits(),
            ]
        }));
        out.push(line(name, i, Korovan::action_id(&config, a), agent.last_search(), digest));
    }
    out
}

fn flat_line(name: &str, agent: &mut FlatMcAgent<Korovan>, positions: &[(Korovan, usize)]) -> Vec<String> {
    let config = config();
    let mut out = Vec::new();
    for (i, (state, seat)) in positions.iter().enumerate() {
        let a = agent.act(state, *seat, &mut GameRng::new(i as u64));
        let digest = Fnv1a::of_u64s(
            agent
                .action_values()
                .iter()
                .flat_map(|&(a, n, mean)| [u64::from(Korovan::action_id(&config, a)), u64::from(n), mean.to_bits()]),
        );
        out.push(line(name, i, Korovan::action_id(&config, a), agent.last_search(), digest));
    }
    out
}

fn actual() -> Vec<String> {
    let positions = positions(7, 4);
    let mut out = Vec::new();
    out.extend(ismcts_line("ismcts", &mut IsMctsAgent::with_iterations(200), &positions));
    out.extend(ismcts_line(
        "ismcts-h",
        &mut IsMctsAgent::with_iterations(200)
            .chance_branching(false)
            .searcher_rollout_agent(Box::new(KorovanHeuristic::new())),
        &positions,
    ));
    out.extend(flat_line("flatmc", &mut FlatMcAgent::with_iterations(60), &positions));
    out
}

/// Recorded before the search code was split into its phases.
const PINNED: &[&str] = &[
    "ismcts 0: 30 1/200/201 bc9caa0bdbff0002",
    "ismcts 1: 69 1/200/201 77753860b3c9ca46",
    "ismcts 2: 51 1/200/201 74f1831d2049a04c",
    "ismcts 3: 34 1/200/201 04529188f36c707f",
    "ismcts-h 0: 34 1/200/201 e7040edf6a57741a",
    "ismcts-h 1: 51 1/200/201 2f87c4f9e857e714",
    "ismcts-h 2: 53 1/200/201 fc659459054706ad",
    "ismcts-h 3: 32 1/200/201 d388f9ac327cdc7a",
    "flatmc 0: 34 1/60/0 c59ebb11d3cf9780",
    "flatmc 1: 47 1/60/0 7db25cfb1c22ace3",
    "flatmc 2: 37 1/60/0 4f117ab0f5d8ccbf",
    "flatmc 3: 30 1/60/0 79392291084d3dec",
];

#[test]
fn search_results_are_pinned() {
    let actual = actual();
    if actual.len() != PINNED.len() || actual.iter().zip(PINNED).any(|(a, p)| a != p) {
        // The lines to compare (or, after an intended change, to pin anew).
        for line in &actual {
            println!("    \"{line}\",");
        }
    }
    assert_eq!(actual.len(), PINNED.len(), "one pinned line per agent and position");
    for (a, p) in actual.iter().zip(PINNED) {
        assert_eq!(a, p);
    }
}
