//! Pinned search results: for fixed seeds and iteration budgets, the moves
//! that [`IsMctsAgent`] and [`FlatMcAgent`] choose over whole `HiddenNim`
//! games, their [`SearchStats`] (searches, iterations, nodes) and a digest
//! of their root statistics after every searched move. Any change of the
//! search that is not bit-exact — another order of random draws, another
//! tie-break, another float summation — changes a line here.
//!
//! The games are driven here (not by `play_game`), with one `GameRng` per
//! game for the agents and chance alike, so the pinned values depend on the
//! search code and `HiddenNim` alone.

use std::hash::Hasher;

use boardgame_kit::Fnv1a;
use boardgame_kit::testgame::{HiddenNim, NimAction, NimConfig};
use boardgame_kit::{
    ActionId, Agent, Evaluation, FlatMcAgent, Game, GameRng, IsMctsAgent, SearchStats, Turn, sample_chance,
};

/// A rollout / prior policy that draws from the rng: it takes the last
/// stones when it can, else a uniformly random legal action.
#[derive(Clone, Copy, Debug, Default)]
struct Greedy;

impl Agent<HiddenNim> for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn act(&mut self, state: &HiddenNim, _seat: usize, rng: &mut GameRng) -> NimAction {
        let mut list = <HiddenNim as Game>::ActionList::default();
        state.legal_actions(&mut list);
        let stones = state.observation(0).map_or(0, |o| o.stones);
        if let Some(&a) = list.iter().find(|&&a| a == NimAction::Take(stones)) {
            return a;
        }
        list[rng.index(list.len())]
    }
}

/// A search agent whose statistics can be pinned.
trait Pinned: Agent<HiddenNim> {
    fn stats(&self) -> SearchStats;
    /// A digest of the root statistics of the last search.
    fn root_digest(&self) -> u64;
}

impl Pinned for IsMctsAgent<HiddenNim> {
    fn stats(&self) -> SearchStats {
        self.total_stats()
    }
    fn root_digest(&self) -> u64 {
        Fnv1a::of_u64s(self.root_edges().iter().flat_map(|e| {
            [
                u64::from(HiddenNim::action_id(&NimConfig::default(), e.action)),
                u64::from(e.visits),
                u64::from(e.availability),
                e.mean_return.to_bits(),
            ]
        }))
    }
}

impl Pinned for FlatMcAgent<HiddenNim> {
    fn stats(&self) -> SearchStats {
        self.total_stats()
    }
    fn root_digest(&self) -> u64 {
        Fnv1a::of_u64s(self.action_values().iter().flat_map(|&(a, n, mean)| {
            [u64::from(HiddenNim::action_id(&NimConfig::default(), a)), u64::from(n), mean.to_bits()]
        }))
    }
}

/// One game of `stones` between two agents made by `make`, driven with one
/// rng seeded `seed`: the action ids, each agent's searches / iterations /
/// nodes, and the digest of every searched move's root statistics.
fn pinned_game<A: Pinned>(make: &dyn Fn() -> A, stones: u8, seed: u64) -> String {
    let config = NimConfig { stones };
    let mut state = HiddenNim::new_game(&config).unwrap();
    let mut agents = [make(), make()];
    let mut rng = GameRng::new(seed);
    let mut chances = <HiddenNim as Game>::ChanceList::default();
    let mut ids: Vec<ActionId> = Vec::new();
    let mut digest = Fnv1a::new();
    loop {
        let action = match state.turn() {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&state, &mut rng, &mut chances).unwrap(),
            Turn::Player(seat) => {
                let a = agents[seat].act(&state, seat, &mut rng);
                digest.write_u64(agents[seat].root_digest());
                a
            }
        };
        ids.push(HiddenNim::action_id(&config, action));
        state.apply(action).unwrap();
    }
    let moves: String = ids.iter().map(|id| id.to_string()).collect();
    let [a, b] = agents.map(|a| a.stats());
    let digest = digest.finish();
    format!(
        "{moves} {}/{}/{} {}/{}/{} {digest:016x}",
        a.searches, a.iterations, a.nodes, b.searches, b.iterations, b.nodes
    )
}

/// A named agent configuration: its name and how to make the agent.
type Config<A> = (&'static str, Box<dyn Fn() -> A>);

/// The agent configurations under test, by name.
fn ismcts_configs() -> Vec<Config<IsMctsAgent<HiddenNim>>> {
    vec![
        ("default", Box::new(|| IsMctsAgent::with_iterations(64))),
        (
            "depth+margin",
            Box::new(|| {
                IsMctsAgent::with_iterations(48)
                    .rollout_depth(2)
                    .exploration(1.4)
                    .evaluation(Evaluation::ScoreMargin(2.0))
            }),
        ),
        ("open-chance+cap", Box::new(|| IsMctsAgent::with_iterations(40).chance_branching(false).max_nodes(16))),
        ("open-others", Box::new(|| IsMctsAgent::with_iterations(40).open_loop_others(true).rollout_depth(3))),
        (
            "prior+rollout-agent",
            Box::new(|| {
                IsMctsAgent::with_iterations(50)
                    .prior_agent(Box::new(Greedy), 1.0)
                    .rollout_agent(Box::new(Greedy))
                    .rollout_depth(4)
                    .exploration(0.3)
            }),
        ),
        (
            "searcher-agent",
            Box::new(|| {
                IsMctsAgent::with_iterations(40).searcher_rollout_agent(Box::new(Greedy)).chance_branching(false)
            }),
        ),
    ]
}

fn flat_configs() -> Vec<Config<FlatMcAgent<HiddenNim>>> {
    vec![
        ("default", Box::new(|| FlatMcAgent::with_iterations(64))),
        (
            "depth+margin+agent",
            Box::new(|| {
                FlatMcAgent::with_iterations(30)
                    .rollout_depth(1)
                    .evaluation(Evaluation::ScoreMargin(1.0))
                    .rollout_agent(Box::new(Greedy))
            }),
        ),
    ]
}

const SEEDS: [u64; 4] = [0, 1, 7, 42];
const STONES: u8 = 15;

fn actual() -> Vec<String> {
    let mut out = Vec::new();
    for (name, make) in ismcts_configs() {
        for seed in SEEDS {
            out.push(format!("ismcts {name} {seed}: {}", pinned_game(&*make, STONES, seed)));
        }
    }
    for (name, make) in flat_configs() {
        for seed in SEEDS {
            out.push(format!("flatmc {name} {seed}: {}", pinned_game(&*make, STONES, seed)));
        }
    }
    out
}

/// Recorded before the search code was split into its phases; a change
/// here means the search no longer draws, counts or chooses as it did.
const PINNED: &[&str] = &[
    "ismcts default 0: 203344344343 5/320/215 4/256/170 211ed148ca9ff2a6",
    "ismcts default 1: 10444434334 5/320/172 4/256/154 8352270d18c8e526",
    "ismcts default 7: 013443343434 5/320/211 5/320/165 1a62c40488edc4aa",
    "ismcts default 42: 213343443434 5/320/219 5/320/172 0d638f0b89658acf",
    "ismcts depth+margin 0: 2034333344334 6/288/209 5/240/183 cb804f1af3022099",
    "ismcts depth+margin 1: 104343433434 5/240/178 5/240/157 691a1ccf6be3696a",
    "ismcts depth+margin 7: 014343433434 5/240/182 5/240/150 eb244480273756e8",
    "ismcts depth+margin 42: 213443343434 5/240/180 5/240/159 539d3ff6e5e97112",
    "ismcts open-chance+cap 0: 2043433333434 6/240/78 5/200/70 ffb283529e01a8d2",
    "ismcts open-chance+cap 1: 1043343334334 6/240/77 5/200/70 c9a53b4503135c6b",
    "ismcts open-chance+cap 7: 01444433434 5/200/63 4/160/54 6176d6086ee745db",
    "ismcts open-chance+cap 42: 214343434334 5/200/71 5/200/62 1bc598eef3f2128c",
    "ismcts open-others 0: 20434443434 5/200/94 4/160/62 145abc1a55f3f20e",
    "ismcts open-others 1: 103434343434 5/200/90 5/200/72 f12418f7ee24d215",
    "ismcts open-others 7: 014433344334 5/200/93 5/200/69 209e310fe4ffe8e7",
    "ismcts open-others 42: 214343343434 5/200/102 5/200/74 8cf3f59189241fda",
    "ismcts prior+rollout-agent 0: 20344443434 5/250/156 4/200/127 332011fd4b5c20cf",
    "ismcts prior+rollout-agent 1: 10344444343 4/200/144 4/200/125 48920773a464a426",
    "ismcts prior+rollout-agent 7: 01443444334 5/250/145 4/200/124 436357fb44c263a4",
    "ismcts prior+rollout-agent 42: 213443434343 5/250/171 4/200/126 b58aa5501b077cdf",
    "ismcts searcher-agent 0: 204433343434 5/200/151 5/200/131 3fd0862f1bfd08b0",
    "ismcts searcher-agent 1: 1033343433434 6/240/170 5/200/154 c59bf3a0aa6b1686",
    "ismcts searcher-agent 7: 0133433433434 6/240/167 5/200/147 e719b4bb1423b941",
    "ismcts searcher-agent 42: 21444434334 5/200/127 4/160/105 ef7770df3b0c8347",
    "flatmc default 0: 2033334343434 6/384/0 5/320/0 726b09883ee5cfa0",
    "flatmc default 1: 10334444434 5/320/0 4/256/0 31f24553104870ad",
    "flatmc default 7: 013334443434 5/320/0 5/320/0 d15ef0cdfdf4b05d",
    "flatmc default 42: 21333343333434 6/384/0 6/384/0 6a25a271d9b37059",
    "flatmc depth+margin+agent 0: 2033333333333334 7/210/0 7/210/0 5d1ad53bfae60e3d",
    "flatmc depth+margin+agent 1: 1033333333333334 7/210/0 7/210/0 dc9667325da27d17",
    "flatmc depth+margin+agent 7: 0133333333333334 7/210/0 7/210/0 6a931f2d15239ff3",
    "flatmc depth+margin+agent 42: 2133333333333334 7/210/0 7/210/0 0b9bf0e97305617c",
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
    assert_eq!(actual.len(), PINNED.len(), "one pinned line per configuration and seed");
    for (a, p) in actual.iter().zip(PINNED) {
        assert_eq!(a, p);
    }
}
