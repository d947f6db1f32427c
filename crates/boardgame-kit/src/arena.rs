//! [`Arena`]: many seeded games between agents, with win rates and 95%
//! confidence intervals.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::{Agent, Game, PlayError, play_from};

/// Builds a fresh agent for each game (agents may keep memory within a game).
pub type AgentFactory<G> = Box<dyn Fn() -> Box<dyn Agent<G>> + Send + Sync>;

/// A participant of an arena: a name and a way to make its agent.
pub struct Entrant<G: Game> {
    /// The name shown in reports.
    pub name: String,
    make: AgentFactory<G>,
}

impl<G: Game> Entrant<G> {
    /// An entrant named `name` whose agents `make` builds.
    pub fn new(name: impl Into<String>, make: impl Fn() -> Box<dyn Agent<G>> + Send + Sync + 'static) -> Self {
        Entrant { name: name.into(), make: Box::new(make) }
    }

    /// A fresh agent of this entrant.
    pub fn agent(&self) -> Box<dyn Agent<G>> {
        (self.make)()
    }
}

/// The result of one arena game.
#[derive(Clone, Debug)]
pub struct ArenaGame<G: Game> {
    /// The game's seed.
    pub seed: u64,
    /// `seat_of[e]` is the seat entrant `e` played.
    pub seat_of: Vec<usize>,
    /// The final state.
    pub state: G,
    /// Actions played, chance included.
    pub length: usize,
}

/// Win/draw/loss counts and score sums of one entrant. Sums are integers so
/// that reports merge exactly, whatever the order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntrantStats {
    /// The entrant's name.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Games won alone.
    pub wins: u64,
    /// Games drawn (sharing the best result).
    pub draws: u64,
    /// Sum of final scores.
    pub score_sum: i64,
    /// Win shares in units of [`SHARE_UNIT`]: a sole win adds `SHARE_UNIT`,
    /// a draw among `k` seats `SHARE_UNIT / k` (exact for every `k ≤ 16`).
    #[serde(default)]
    pub share_units: u64,
}

/// The unit of [`EntrantStats::share_units`]: lcm(1..=16), so that a draw
/// among any number of seats is a whole number of units.
pub const SHARE_UNIT: u64 = 720_720;

/// The win share of `seat` in a game that ended with `outcome`, in units of
/// [`SHARE_UNIT`]: `SHARE_UNIT` for a sole win, `SHARE_UNIT / k` for a draw
/// among `k` seats, 0 otherwise (and for a game not over).
pub fn share_units(outcome: Option<crate::Outcome>, seat: usize) -> u64 {
    match outcome {
        Some(crate::Outcome::Winner(w)) if w == seat => SHARE_UNIT,
        Some(crate::Outcome::Draw(s)) if s.contains(seat) => SHARE_UNIT / s.len().max(1) as u64,
        _ => 0,
    }
}

impl EntrantStats {
    /// Counts one finished game in which this entrant played `seat` and
    /// scored `score`.
    pub fn record(&mut self, outcome: Option<crate::Outcome>, seat: usize, score: i32) {
        self.games += 1;
        self.score_sum += i64::from(score);
        match outcome {
            Some(crate::Outcome::Winner(w)) if w == seat => self.wins += 1,
            Some(crate::Outcome::Draw(s)) if s.contains(seat) => self.draws += 1,
            _ => {}
        }
        self.share_units += share_units(outcome, seat);
    }

    /// Adds another tally of the same entrant. Sums saturate rather than
    /// wrap (no real run comes near); [`EntrantStats::checked_merge`] says
    /// when they would overflow.
    pub fn merge(&mut self, other: &EntrantStats) {
        self.games = self.games.saturating_add(other.games);
        self.wins = self.wins.saturating_add(other.wins);
        self.draws = self.draws.saturating_add(other.draws);
        self.score_sum = self.score_sum.saturating_add(other.score_sum);
        self.share_units = self.share_units.saturating_add(other.share_units);
    }

    /// The sum of `self` and `other`, or `None` when a count would overflow.
    pub fn checked_merge(&self, other: &EntrantStats) -> Option<EntrantStats> {
        Some(EntrantStats {
            name: self.name.clone(),
            games: self.games.checked_add(other.games)?,
            wins: self.wins.checked_add(other.wins)?,
            draws: self.draws.checked_add(other.draws)?,
            score_sum: self.score_sum.checked_add(other.score_sum)?,
            share_units: self.share_units.checked_add(other.share_units)?,
        })
    }

    /// The mean win share: a sole win counts 1, a draw among `k` seats
    /// `1/k`. Over all seats of a game the shares sum to 1, so the fair
    /// share of an `n`-player game is `1/n`.
    pub fn win_share(&self) -> f64 {
        if self.games == 0 { 0.0 } else { self.share_units as f64 / (self.games as f64 * SHARE_UNIT as f64) }
    }

    /// A 95% interval of the win share: the Wilson score interval at the
    /// share's mean, which uses the largest variance a mean of values in
    /// `[0, 1]` can have, `p(1 − p)/n` — exact for games without draws,
    /// conservative with them, and never collapsed to a point at 0% or 100%.
    pub fn win_share_interval(&self) -> (f64, f64) {
        wilson_interval_at(self.win_share(), self.games, 1.959_963_984_540_054)
    }

    /// Games lost (0 for an inconsistent tally with more wins and draws
    /// than games).
    pub fn losses(&self) -> u64 {
        self.games.saturating_sub(self.wins).saturating_sub(self.draws)
    }
    /// Share of games won alone.
    pub fn win_rate(&self) -> f64 {
        ratio(self.wins, self.games)
    }
    /// The 95% Wilson score interval of the win rate.
    pub fn win_interval(&self) -> (f64, f64) {
        wilson_interval(self.wins, self.games, 1.959_963_984_540_054)
    }
    /// Mean final score.
    pub fn mean_score(&self) -> f64 {
        if self.games == 0 { 0.0 } else { self.score_sum as f64 / self.games as f64 }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// The Wilson score interval for `successes` out of `trials` at normal
/// quantile `z` (1.96 for 95%). `(0, 1)` when there are no trials.
pub fn wilson_interval(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    wilson_interval_at(successes as f64 / trials as f64, trials, z)
}

/// The Wilson score interval at an observed proportion `p` in `[0, 1]` over
/// `trials` at normal quantile `z`: the interval of a win share (a mean of
/// values in `[0, 1]`, taken as the proportion; its variance bound
/// `p(1 − p)` makes the interval exact without draws and conservative with
/// them). The interval holds `p` and lies in `[0, 1]`; `(0, 1)` when there
/// are no trials. The one Wilson interval of the workspace's Rust code.
///
/// ```
/// use boardgame_kit::wilson_interval_at;
/// let (lo, hi) = wilson_interval_at(0.8, 10, 1.959_963_984_540_054); // 8 successes in 10
/// assert!((lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4);
/// assert_eq!(wilson_interval_at(0.0, 10, 1.96).0, 0.0);
/// ```
pub fn wilson_interval_at(p: f64, trials: u64, z: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt() / denom;
    // Mathematically lo ≤ p ≤ hi; the clamps keep rounding from breaking it.
    ((center - half).max(0.0).min(p), (center + half).min(1.0).max(p))
}

/// Aggregated results of many games. Merge shards with [`ArenaReport::merge`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaReport {
    /// Per entrant, in entrant order.
    pub entrants: Vec<EntrantStats>,
    /// Games played.
    pub games: u64,
    /// Sum of game lengths in actions (chance included).
    pub length_sum: u64,
}

impl ArenaReport {
    /// Adds `other` (same entrants) into `self`.
    ///
    /// # Errors
    /// When the entrants differ.
    pub fn merge(&mut self, other: &ArenaReport) -> Result<(), String> {
        if self.entrants.is_empty() && self.games == 0 {
            *self = other.clone();
            return Ok(());
        }
        let names = |r: &ArenaReport| r.entrants.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
        if names(self) != names(other) {
            return Err(format!("cannot merge reports of {:?} and {:?}", names(self), names(other)));
        }
        for (a, b) in self.entrants.iter_mut().zip(&other.entrants) {
            a.merge(b);
        }
        self.games += other.games;
        self.length_sum += other.length_sum;
        Ok(())
    }

    /// Mean game length in actions.
    pub fn mean_length(&self) -> f64 {
        if self.games == 0 { 0.0 } else { self.length_sum as f64 / self.games as f64 }
    }

    fn add<G: Game>(&mut self, game: &ArenaGame<G>) {
        let outcome = game.state.outcome();
        for (e, stats) in self.entrants.iter_mut().enumerate() {
            let seat = game.seat_of[e];
            stats.record(outcome, seat, game.state.score(seat));
        }
        self.games += 1;
        self.length_sum += game.length as u64;
    }
}

/// One worker's report, or the seed of its first failing game and the error.
type ShardResult<G> = Result<ArenaReport, (u64, PlayError<<G as Game>::Error>)>;

/// Plays seeded games between entrants (one entrant per seat).
///
/// Game `seed` is played by [`crate::play_game`]'s driver from that seed;
/// with seat rotation (the default) entrant `e` sits at seat
/// `(e + seed) mod n`, so every entrant plays every seat equally often over
/// consecutive seeds. Results depend only on the seeds, never on the number
/// of threads or the order games finish in.
///
/// ```
/// use boardgame_kit::{Arena, Entrant, RandomAgent, testgame::HiddenNim};
/// let arena = Arena::<HiddenNim>::new(Default::default());
/// let entrants = [
///     Entrant::new("a", || Box::new(RandomAgent)),
///     Entrant::new("b", || Box::new(RandomAgent)),
/// ];
/// let report = arena.run(&entrants, 0..200, 2).unwrap();
/// assert_eq!(report.games, 200);
/// let (lo, hi) = report.entrants[0].win_interval();
/// assert!(lo <= report.entrants[0].win_rate() && report.entrants[0].win_rate() <= hi);
/// ```
pub struct Arena<G: Game> {
    config: G::Config,
    rotate: bool,
}

impl<G: Game> Arena<G> {
    /// An arena for games of `config`, rotating seats.
    pub fn new(config: G::Config) -> Self {
        Arena { config, rotate: true }
    }

    /// Whether entrants rotate through the seats (default `true`); without
    /// rotation entrant `e` always plays seat `e`.
    #[must_use]
    pub fn rotate_seats(mut self, rotate: bool) -> Self {
        self.rotate = rotate;
        self
    }

    /// The seat entrant `e` plays in game `seed` of an `n`-seat game.
    pub fn seat_of(&self, entrant: usize, seed: u64, n: usize) -> usize {
        if self.rotate { ((entrant as u64 + seed % n as u64) % n as u64) as usize } else { entrant }
    }

    /// Plays the game of `seed`.
    ///
    /// # Errors
    /// As [`crate::play_game`].
    pub fn play_one(&self, entrants: &[Entrant<G>], seed: u64) -> Result<ArenaGame<G>, PlayError<G::Error>> {
        let mut state = G::new_game(&self.config).map_err(PlayError::Config)?;
        let n = state.num_players();
        if entrants.len() != n {
            return Err(PlayError::AgentCount { seats: n, agents: entrants.len() });
        }
        let seat_of: Vec<usize> = (0..n).map(|e| self.seat_of(e, seed, n)).collect();
        let mut by_seat: Vec<Option<Box<dyn Agent<G>>>> = (0..n).map(|_| None).collect();
        for (e, entrant) in entrants.iter().enumerate() {
            by_seat[seat_of[e]] = Some(entrant.agent());
        }
        let mut boxes: Vec<Box<dyn Agent<G>>> = by_seat.into_iter().flatten().collect();
        let mut refs: Vec<&mut dyn Agent<G>> = boxes.iter_mut().map(|b| &mut **b as &mut dyn Agent<G>).collect();
        let length = play_from(&mut state, &mut refs, seed)?;
        Ok(ArenaGame { seed, seat_of, state, length })
    }

    /// Plays every seed of `seeds` over `threads` threads and aggregates.
    ///
    /// # Errors
    /// The first error of any game (by seed order).
    pub fn run(
        &self,
        entrants: &[Entrant<G>],
        seeds: Range<u64>,
        threads: usize,
    ) -> Result<ArenaReport, PlayError<G::Error>> {
        self.run_with(entrants, seeds, threads, &|_| {})
    }

    /// As [`Arena::run`], calling `on_game` for every finished game (from the
    /// worker threads, in no particular order) — for progress bars and
    /// engine-specific statistics.
    ///
    /// # Errors
    /// The first error of any game (by seed order).
    pub fn run_with(
        &self,
        entrants: &[Entrant<G>],
        seeds: Range<u64>,
        threads: usize,
        on_game: &(dyn Fn(&ArenaGame<G>) + Sync),
    ) -> Result<ArenaReport, PlayError<G::Error>> {
        let threads = threads.max(1);
        let empty = ArenaReport {
            entrants: entrants.iter().map(|e| EntrantStats { name: e.name.clone(), ..Default::default() }).collect(),
            ..Default::default()
        };
        let worker = |t: usize| -> ShardResult<G> {
            let mut report = empty.clone();
            let Some(mut seed) = seeds.start.checked_add(t as u64) else {
                return Ok(report);
            };
            while seed < seeds.end {
                let game = self.play_one(entrants, seed).map_err(|e| (seed, e))?;
                on_game(&game);
                report.add(&game);
                seed = match seed.checked_add(threads as u64) {
                    Some(s) => s,
                    None => break,
                };
            }
            Ok(report)
        };
        let results: Vec<ShardResult<G>> = if threads == 1 {
            vec![worker(0)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| (t, std::thread::Builder::new().spawn_scoped(scope, move || worker(t))))
                    .collect();
                handles
                    .into_iter()
                    .map(|(t, h)| match h {
                        Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                        // No thread to be had (the system's thread or memory
                        // limit): this one plays the worker's seeds, with the
                        // same results.
                        Err(_) => worker(t),
                    })
                    .collect()
            })
        };
        let mut total = empty.clone();
        let mut first_err: Option<(u64, PlayError<G::Error>)> = None;
        for r in results {
            match r {
                Ok(rep) => {
                    // Same entrants on every shard: merge cannot fail.
                    let _ = total.merge(&rep);
                }
                Err((seed, e)) => {
                    if first_err.as_ref().is_none_or(|(s, _)| seed < *s) {
                        first_err = Some((seed, e));
                    }
                }
            }
        }
        match first_err {
            Some((_, e)) => Err(e),
            None => Ok(total),
        }
    }
}
