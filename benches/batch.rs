//! Criterion benchmark of `Batch`: env-steps per second.
//!
//! One env-step is one game of the batch taking one decision: the action is
//! applied, the chance nodes that follow are resolved, a finished game is
//! restarted, and the next decision is written out — the observation tensor
//! of the player to move and the legal actions (Korovan: the dense mask,
//! Caravan: the padded id list, each engine's default format), rewards and
//! done flags. The policy is uniformly random over the legal actions,
//! sampled here in Rust from those outputs (inside the timing), as a learner
//! would sample from the arrays it is handed.
//!
//! Run: `cargo bench --bench batch` (filter: `korovan`, `caravan`,
//! `threads/1`). Figures and the machine are in docs/scale.md.

use std::hint::black_box;
use std::time::{Duration, Instant};

use boardgames::caravan::{Caravan, CaravanConfig};
use boardgames::kit::{Batch, BatchBuffers, Game, GameRng};
use boardgames::korovan::{Korovan, KorovanConfig};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn bench_batch<G: Game>(c: &mut Criterion, label: &str, config: G::Config, games: usize) {
    let mut group = c.benchmark_group(format!("batch/{label}"));
    group.measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1)).sample_size(20);
    for threads in [1, 2] {
        let mut batch = Batch::<G>::new(&config, games, 0).expect("bench configs are valid").with_threads(threads);
        let mut out = BatchBuffers::new(&batch);
        batch.observe(&mut out.view()).expect("buffers fit");
        let mut rng = GameRng::new(1);
        let mut actions = vec![0; games];
        group.throughput(Throughput::Elements(games as u64));
        group.bench_function(BenchmarkId::new("threads", threads), |b| {
            b.iter_custom(|iters| {
                let t0 = Instant::now();
                for _ in 0..iters {
                    out.random_actions(&mut rng, &mut actions);
                    batch.step(&actions, &mut out.view()).expect("sampled actions are legal");
                    black_box(&out.obs);
                }
                t0.elapsed()
            })
        });
    }
    group.finish();
}

fn korovan(c: &mut Criterion) {
    bench_batch::<Korovan>(c, "korovan/5", KorovanConfig { players: 5, ..KorovanConfig::default() }, 1024);
}

fn caravan(c: &mut Criterion) {
    bench_batch::<Caravan>(c, "caravan/3", CaravanConfig { players: 3, ..CaravanConfig::default() }, 256);
}

criterion_group!(benches, korovan, caravan);
criterion_main!(benches);
