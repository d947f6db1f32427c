//! Cost per decision of every agent by name (`docs/bots.md`, "Learned
//! agents"): `random`, `heuristic`, `learned`, `learned:1`,
//! `ismcts-h:100` and `learned-ismcts:100`, each asked for its move at the
//! decisions of a seeded heuristic game (Korovan 5 players, Caravan 2).
//!
//! Caravan's `learned` is the residual convolution tower trained in
//! PyTorch (16 channels, 2 blocks, the planner's move as input),
//! so its row is the cost of a decision with a network that sees the board.
//!
//! `cargo bench --bench agents`

use std::time::Duration;

use boardgames::caravan::{Caravan, CaravanConfig};
use boardgames::kit::{Agent, AgentSpec, Bots, Game, GameRng, Turn, sample_chance};
use boardgames::korovan::{Korovan, KorovanConfig};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const AGENTS: [&str; 6] = ["random", "heuristic", "learned", "learned:1", "ismcts-h:100", "learned-ismcts:100"];

/// Every decision of a heuristic game from `seed`, with its seat.
fn decisions<G: Game + Bots>(config: &G::Config, seed: u64) -> Vec<(G, usize)> {
    let mut heuristic = G::heuristic_agent().expect("both engines have one");
    let mut state = G::new_game(config).expect("a valid config");
    let mut rng = GameRng::new(seed);
    let mut chances = G::ChanceList::default();
    let mut out = Vec::new();
    while !state.is_terminal() {
        let a = match state.turn() {
            Turn::Player(s) => {
                out.push((state.clone(), s));
                heuristic.act(&state, s, &mut rng)
            }
            _ => sample_chance(&state, &mut rng, &mut chances).expect("outcomes"),
        };
        state.apply(a).expect("legal");
    }
    out
}

fn bench_game<G: Game + Bots>(c: &mut Criterion, label: &str, config: &G::Config) {
    let positions = decisions::<G>(config, 3);
    let mut group = c.benchmark_group(format!("agents/{label}"));
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1)).sample_size(20);
    for name in AGENTS {
        let mut agent = name.parse::<AgentSpec>().expect("a name").build::<G>().expect("an agent");
        let mut rng = GameRng::new(1);
        let mut k = 0usize;
        group.bench_function(BenchmarkId::new("decision", name), |b| {
            b.iter(|| {
                let (state, seat) = &positions[k % positions.len()];
                k += 1;
                agent.act(state, *seat, &mut rng)
            })
        });
    }
    group.finish();
}

fn agents(c: &mut Criterion) {
    bench_game::<Korovan>(c, "korovan-5p", &KorovanConfig::with_players(5));
    bench_game::<Caravan>(c, "caravan-2p", &CaravanConfig::with_players(2));
}

criterion_group!(benches, agents);
criterion_main!(benches);
