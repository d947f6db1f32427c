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
use boardgames::kit::{ActionId, Batch, BatchBuffers, Game, GameRng};
use boardgames::korovan::{Korovan, KorovanConfig};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// The index of the `k`-th (from 0) set byte of a 0/1 `mask`, eight bytes
/// at a time (a set byte is one set bit, so a word's popcount counts them).
fn kth_set(mask: &[u8], mut k: u32) -> usize {
    let mut chunks = mask.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let ones = word.count_ones();
        if k < ones {
            for _ in 0..k {
                word &= word - 1;
            }
            return base + (word.trailing_zeros() / 8) as usize;
        }
        k -= ones;
        base += 8;
    }
    let tail = chunks.remainder().iter().enumerate().filter(|&(_, &m)| m != 0);
    tail.map(|(i, _)| base + i).nth(k as usize).unwrap_or(0)
}

/// A uniformly random legal action of every game, from the outputs: from
/// the padded id list when there is one, else from the mask.
fn sample(out: &BatchBuffers, rng: &mut GameRng, actions: &mut [ActionId]) {
    let n = actions.len();
    if !out.legal_ids.is_empty() {
        let width = out.legal_ids.len() / n;
        for (g, a) in actions.iter_mut().enumerate() {
            *a = out.legal_ids[g * width + rng.below(out.legal_count[g]) as usize];
        }
    } else {
        let width = out.legal_mask.len() / n;
        for (g, a) in actions.iter_mut().enumerate() {
            let k = rng.below(out.legal_count[g]);
            *a = kth_set(&out.legal_mask[g * width..(g + 1) * width], k) as ActionId;
        }
    }
}

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
                    sample(&out, &mut rng, &mut actions);
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
