//! Env-steps per second of `Batch` (the loop of `benches/batch.rs`), by wall
//! clock and by the CPU time the process was given, so that a figure taken
//! on a machine shared with other jobs can still be read per core.
//!
//! Run: `cargo run --release --example batch_rate -- [korovan|caravan] [threads] [games] [seconds]`
//! (defaults: both engines, 1 thread, 1024 Korovan / 256 Caravan games, 3 s).
//! CPU time is read from `/proc/self/stat` (Linux, 10 ms resolution);
//! elsewhere only the wall-clock rate is printed.

use std::time::{Duration, Instant};

use boardgames::caravan::{Caravan, CaravanConfig};
use boardgames::kit::{Batch, BatchBuffers, Game, GameRng};
use boardgames::korovan::{Korovan, KorovanConfig};

/// Nanoseconds of CPU time (user + system) this process has used, threads
/// that have exited included: fields 14 and 15 of `/proc/self/stat`, in
/// clock ticks of 1/100 s (Linux's `USER_HZ`).
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the command name (field 2) is parenthesised and may hold spaces
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3, so fields 14 and 15 are at 11 and 12
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks * 10_000_000)
}

fn rate<G: Game>(label: &str, config: G::Config, games: usize, threads: usize, seconds: f64) {
    let Ok(batch) = Batch::<G>::new(&config, games, 0) else {
        eprintln!("{label}: invalid configuration");
        return;
    };
    let mut batch = batch.with_threads(threads);
    let mut out = BatchBuffers::new(&batch);
    if batch.observe(&mut out.view()).is_err() {
        return;
    }
    let mut rng = GameRng::new(1);
    let mut actions = vec![0; games];
    // warm-up
    for _ in 0..50 {
        out.random_actions(&mut rng, &mut actions);
        let _ = batch.step(&actions, &mut out.view());
    }
    let (t0, c0) = (Instant::now(), cpu_ns());
    let mut steps = 0u64;
    let mut done = 0u64;
    while t0.elapsed() < Duration::from_secs_f64(seconds) {
        for _ in 0..20 {
            out.random_actions(&mut rng, &mut actions);
            if let Err(e) = batch.step(&actions, &mut out.view()) {
                eprintln!("{label}: {e}");
                return;
            }
            done += out.done.iter().map(|&d| u64::from(d)).sum::<u64>();
        }
        steps += 20 * games as u64;
    }
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (c0, cpu_ns()) {
        (Some(a), Some(b)) => format!(
            ", {:.2} M steps per CPU-second ({:.2} CPU-s over {wall:.2} s wall)",
            steps as f64 / ((b - a) as f64 * 1e-9) / 1e6,
            (b - a) as f64 * 1e-9
        ),
        _ => String::new(),
    };
    println!(
        "{label} {games} games, {threads} thread(s): {:.2} M steps/s wall{cpu}; {done} games finished",
        steps as f64 / wall / 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map_or("both", String::as_str);
    let threads = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let games: Option<usize> = args.get(2).and_then(|s| s.parse().ok());
    let seconds = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    if which != "caravan" {
        let config = KorovanConfig { players: 5, ..KorovanConfig::default() };
        rate::<Korovan>("korovan/5", config, games.unwrap_or(1024), threads, seconds);
    }
    if which != "korovan" {
        let config = CaravanConfig { players: 3, ..CaravanConfig::default() };
        rate::<Caravan>("caravan/3", config, games.unwrap_or(256), threads, seconds);
    }
}
