//! Benchmarking move generation over positions of your own with criterion.
//!
//! The positions are built from seeds: for each seed, a random legal walk
//! (chance by its weights) of a length drawn from the same seed, cut at the
//! next player decision. Criterion then times `legal_actions` over the whole
//! set (one iteration = every position once), for Korovan and Caravan.
//! Swap in your own positions (from records, from a solver…) in
//! [`positions`].
//!
//! Run with `cargo run --release --example bench_movegen`: it measures and
//! prints criterion's timings (a name filter may follow `--`, e.g.
//! `-- korovan`; criterion's own options follow `-- --bench`, e.g.
//! `-- --bench --save-baseline before`). `--quick` measures for a moment
//! only (`cargo test --examples` runs it so).
//!
//! Its baseline is its own: the measuring runs save their results in
//! criterion's directory (`target/criterion`) under the group names
//! `bench_movegen/korovan/legal_actions` and
//! `bench_movegen/caravan/legal_actions`, which no other benchmark uses, so
//! a run compares against the previous measuring run of this example only.
//! The quick runs (`--quick`, `cargo test`) write to a directory of their own
//! under the system's temporary directory and remove it, so they leave no
//! baseline behind.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use boardgames::caravan::{Caravan, CaravanConfig};
use boardgames::kit::{Game, GameRng, Turn, random_action};
use boardgames::korovan::{Korovan, KorovanConfig};
use criterion::{Criterion, Throughput};

/// `count` positions of `config`, from seeds `0..count`: each a random walk
/// of up to `max_len` actions, continued to the next player decision (so
/// `legal_actions` lists a player's choices, not chance outcomes); a game
/// that ends first gives its last decision.
fn positions<G: Game>(config: &G::Config, count: u64, max_len: u64) -> Vec<G> {
    (0..count)
        .filter_map(|seed| {
            let mut state = G::new_game(config).ok()?;
            let mut rng = GameRng::new(seed);
            let len = rng.below_u64(max_len);
            let mut last_decision = None;
            let mut played = 0;
            loop {
                match state.turn() {
                    Turn::Terminal => return last_decision,
                    Turn::Player(_) if played >= len => return Some(state),
                    Turn::Player(_) => last_decision = Some(state.clone()),
                    Turn::Chance => {}
                }
                let action = random_action(&state, &mut rng)?;
                state.apply(action).ok()?;
                played += 1;
            }
        })
        .collect()
}

/// The first part of every group name: this example's results apart from
/// any other benchmark's in criterion's directory.
const GROUP_PREFIX: &str = "bench_movegen";

/// Times `legal_actions` over every position of `set`, as one group named
/// `name` with one benchmark per set.
fn bench_legal<G: Game>(c: &mut Criterion, name: &str, sets: &[(&str, Vec<G>)]) {
    let mut group = c.benchmark_group(format!("{GROUP_PREFIX}/{name}/legal_actions"));
    let mut list = G::ActionList::default();
    for (label, set) in sets {
        group.throughput(Throughput::Elements(set.len() as u64));
        group.bench_function(*label, |b| {
            b.iter(|| {
                let mut total = 0;
                for state in set {
                    black_box(state).legal_actions(&mut list);
                    total += list.len();
                }
                black_box(total)
            });
        });
    }
    group.finish();
}

/// The benchmarks, with `count` positions per set.
fn benches(c: &mut Criterion, count: u64) {
    let korovan: Vec<(&str, Vec<Korovan>)> = [3u8, 5, 9]
        .into_iter()
        .zip(["3 players", "5 players", "9 players"])
        .map(|(n, label)| (label, positions::<Korovan>(&KorovanConfig::with_players(n), count, 300)))
        .collect();
    let caravan: Vec<(&str, Vec<Caravan>)> = [2u8, 3, 4]
        .into_iter()
        .zip(["2 players", "3 players", "4 players"])
        .map(|(n, label)| (label, positions::<Caravan>(&CaravanConfig::with_players(n), count, 200)))
        .collect();
    for (label, set) in &korovan {
        assert!(!set.is_empty(), "korovan {label}: no position reached");
    }
    for (label, set) in &caravan {
        assert!(!set.is_empty(), "caravan {label}: no position reached");
    }
    bench_legal(c, "korovan", &korovan);
    bench_legal(c, "caravan", &caravan);
}

/// Where a quick run writes criterion's files: a directory of this process
/// under the system's temporary directory, removed when the run ends.
fn quick_dir() -> PathBuf {
    std::env::temp_dir().join(format!("bench_movegen-quick-{}", std::process::id()))
}

/// A criterion that measures for a moment only (CI, a first look), writing
/// to [`quick_dir`]: its figures never become the baseline of a measuring
/// run.
fn quick() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(20))
        .measurement_time(Duration::from_millis(50))
        .sample_size(10)
        .nresamples(1000)
        .without_plots()
        .output_directory(&quick_dir())
}

/// How the example was asked to run: `--quick`, criterion's own options
/// (`-- --bench --save-baseline x`, handed to criterion, which measures only
/// with `--bench`), or nothing but an optional name filter (`-- korovan`):
/// then it measures, as `cargo run --example` promises.
fn criterion_for(args: &[String]) -> Criterion {
    if args.iter().any(|a| a == "--quick") {
        quick()
    } else if args.iter().any(|a| a.starts_with('-')) {
        Criterion::default().configure_from_args()
    } else {
        // Criterion::default() measures (its mode is Benchmark until
        // configure_from_args, without `--bench`, turns it into a test run).
        match args.first() {
            Some(filter) => Criterion::default().with_filter(filter.as_str()),
            None => Criterion::default(),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick_mode = args.iter().any(|a| a == "--quick");
    let mut c = criterion_for(&args);
    benches(&mut c, if quick_mode { 20 } else { 500 });
    c.final_summary();
    if quick_mode {
        let _ = std::fs::remove_dir_all(quick_dir());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_decisions_and_reproducible() {
        let a = positions::<Korovan>(&KorovanConfig::with_players(5), 10, 300);
        let b = positions::<Korovan>(&KorovanConfig::with_players(5), 10, 300);
        assert_eq!(a.len(), 10, "one position per seed");
        assert!(a.iter().all(|s| matches!(s.turn(), Turn::Player(_))));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.to_string(), y.to_string(), "same seed, same position");
        }
    }

    /// `cargo run --example bench_movegen` (no arguments, or a filter)
    /// measures: criterion runs the routine for many iterations, not once
    /// as in its test mode.
    #[test]
    fn a_plain_run_measures() {
        for args in [vec![], vec!["count".to_string()]] {
            let calls = std::sync::atomic::AtomicU64::new(0);
            let dir = std::env::temp_dir().join(format!("bench-movegen-test-{}", std::process::id()));
            let mut c = criterion_for(&args)
                .warm_up_time(Duration::from_millis(5))
                .measurement_time(Duration::from_millis(20))
                .sample_size(10)
                .nresamples(10)
                .without_plots()
                .output_directory(&dir);
            c.bench_function("count", |b| b.iter(|| calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
            let _ = std::fs::remove_dir_all(&dir);
            assert!(calls.into_inner() > 100, "{args:?}: criterion measured, it did not only test the routine");
        }
    }

    #[test]
    fn the_benchmarks_run_quickly() {
        let mut c = quick();
        benches(&mut c, 5);
        assert!(quick_dir().is_dir(), "a quick run writes to its own directory");
        let _ = std::fs::remove_dir_all(quick_dir());
    }
}
