//! A sequential test of "is A stronger than B?" with as few games as the
//! answer needs (`boardgame sprt A B`).
//!
//! **The games.** At 2 players the games come in pairs: the deal of one
//! seed played twice, A in seat 0 then in seat 1, so the luck of the deal
//! cancels out; an observation is A's mean win share over the pair (0, ¼,
//! ½, ¾ or 1). At `n > 2` players one A sits among `n − 1` copies of B, at
//! seat `seed mod n`; an observation is A's win share of the game (ties
//! split). Observation `i` is played from seed `seed + i`.
//!
//! **The test.** Wald's sequential probability ratio test between H0: A's
//! expected score is `s0` and H1: it is `s1`. It stops for H1 ("A is
//! stronger") once the log-likelihood ratio reaches `ln((1 − β)/α)`, for H0
//! ("not stronger") once it falls to `ln(β/(1 − α))`, or at the game cap
//! (undecided); no decision is taken before [`MIN_OBSERVATIONS`]
//! observations. At 2 players the bounds are in Elo (`s = 1 / (1 +
//! 10^(−elo/400))`); at more, in win share above the fair share `1/n` (`s =
//! 1/n + d`).
//!
//! - **More than 2 players**: an observation is nearly always a win or a
//!   loss, far from an even chance, so the ratio is Bernoulli's: each
//!   observation `x` adds `x ln(s1/s0) + (1 − x) ln((1 − s1)/(1 − s0))`.
//!   It is exact for wins and losses; for a split tie it is a
//!   quasi-likelihood that assumes the largest variance a score of that
//!   mean can have, so it decides no sooner than the exact ratio would.
//!   (A normal approximation with the sample's variance would read a
//!   short run of losses, which has no variance, as certainty: 25 losses in
//!   a row, a 2% event for a seat that wins one game in seven, decided
//!   "not stronger" where the Bernoulli ratio is −0.9 of the −2.9 needed.)
//! - **2 players**: a pair's mean takes five values around ½, and the
//!   pairing removes much of the luck, so the ratio is the generalised
//!   (normal) one for scores in `[0, 1]`: after `N` observations of mean
//!   `x̄` and variance `σ²`, `N (s1 − s0) (2x̄ − s0 − s1) / (2σ²)`, the
//!   variance estimated from the observations and shrunk towards that of
//!   a pair of wins-or-losses at the hypotheses' middle score `m` (`m (1 −
//!   m) / 2`) by [`MIN_OBSERVATIONS`] pseudo-observations.
//!
//! The error rates are checked by simulation in this module's tests
//! (thousands of tests of known win rates under H0 and under H1).
//!
//! The result does not depend on the number of threads: observations are
//! played in batches but read in seed order, and the test stops at the
//! first observation that crosses a bound.

use boardgame_kit::{Arena, Outcome, SHARE_UNIT, share_units};

use crate::SimError;
use crate::agents;
use crate::games::{Engine, GameName, build_config, seats_of, with_game};

/// Observations before the first decision: the variance is estimated from
/// them.
pub const MIN_OBSERVATIONS: u64 = 10;

/// The hypotheses' bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounds {
    /// Elo of A over B under H0 and under H1 (2 players).
    Elo(f64, f64),
    /// A's win share above the fair share `1/n` under H0 and under H1
    /// (more than 2 players).
    Share(f64, f64),
}

/// One test: what `boardgame sprt` takes.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtSpec {
    /// The game.
    pub game: GameName,
    /// Players (the rules' default when `None`).
    pub players: Option<usize>,
    /// A JSON object laid over the rules' defaults.
    pub config: Option<String>,
    /// The agent under test.
    pub a: String,
    /// The agent it is measured against.
    pub b: String,
    /// H0 and H1; `None`: Elo 0 and 50 at 2 players, share +0 and +0.03 at
    /// more.
    pub bounds: Option<Bounds>,
    /// The chance of deciding "stronger" when H0 holds.
    pub alpha: f64,
    /// The chance of deciding "not stronger" when H1 holds.
    pub beta: f64,
    /// The most games to play (pairs count as two).
    pub max_games: u64,
    /// The first observation's seed.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
}

/// What the test decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// H1: A is stronger (by at least the lower bound, at the test's error
    /// rates).
    Stronger,
    /// H0: A is not stronger by the upper bound.
    NotStronger,
    /// The game cap came first.
    Undecided,
}

/// The state of the test after some observations.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SprtState {
    /// Players at the table.
    pub players: usize,
    /// Observations so far (pairs at 2 players, games at more).
    pub observations: u64,
    /// Games played so far.
    pub games: u64,
    /// A's mean score per observation.
    pub mean: f64,
    /// The log-likelihood ratio (0 before [`MIN_OBSERVATIONS`]).
    pub llr: f64,
    /// The bound that decides H0.
    pub lower: f64,
    /// The bound that decides H1.
    pub upper: f64,
    /// The expected score under H0 and H1.
    pub scores: [f64; 2],
    /// What was decided, once decided.
    pub decision: Option<Decision>,
}

impl SprtState {
    /// A's Elo over B from the mean score (2 players), `None` at more
    /// players or at a score of 0 or 1.
    pub fn elo(&self) -> Option<f64> {
        (self.players == 2 && self.mean > 0.0 && self.mean < 1.0).then(|| -400.0 * (1.0 / self.mean - 1.0).log10())
    }
}

/// The expected score at Elo `elo`.
fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A seat's win share (ties split).
fn share(outcome: Option<Outcome>, seat: usize) -> f64 {
    share_units(outcome, seat) as f64 / SHARE_UNIT as f64
}

/// Runs the test, calling `on_step` after every observation.
///
/// # Errors
/// A usage error for bad arguments (an unknown agent, a bad player count,
/// error rates outside `(0, ½)`, H1 not above H0), a runtime error when an
/// engine refuses a move.
pub fn run_sprt(spec: &SprtSpec, on_step: &mut dyn FnMut(&SprtState)) -> Result<SprtState, SimError> {
    with_game!(spec.game, G => sprt::<G>(spec, on_step))
}

fn sprt<G: Engine>(spec: &SprtSpec, on_step: &mut dyn FnMut(&SprtState)) -> Result<SprtState, SimError> {
    let usage = |m: String| SimError::Usage(m);
    for (name, p) in [("alpha", spec.alpha), ("beta", spec.beta)] {
        if !(p > 0.0 && p < 0.5) {
            return Err(usage(format!("{name} must be above 0 and below 0.5, got {p}")));
        }
    }
    let config = build_config::<G>(spec.players, spec.config.as_deref())?;
    let n = seats_of::<G>(&config);
    let bounds = spec.bounds.unwrap_or(if n == 2 { Bounds::Elo(0.0, 50.0) } else { Bounds::Share(0.0, 0.03) });
    let scores = match (bounds, n) {
        (Bounds::Elo(e0, e1), 2) => [score_of_elo(e0), score_of_elo(e1)],
        (Bounds::Share(d0, d1), n) if n > 2 => [1.0 / n as f64 + d0, 1.0 / n as f64 + d1],
        (Bounds::Elo(..), _) => return Err(usage(format!("Elo bounds are for 2 players; at {n} give share bounds"))),
        (Bounds::Share(..), _) => return Err(usage("share bounds are for more than 2 players; at 2 give Elo".into())),
    };
    if scores[0] >= scores[1] || scores[0] <= 0.0 || scores[1] >= 1.0 || scores.iter().any(|s| !s.is_finite()) {
        return Err(usage(format!(
            "H1's score {:.4} must be above H0's {:.4}, both inside (0, 1)",
            scores[1], scores[0]
        )));
    }
    let a = agents::parse_list(&spec.a)?;
    let b = agents::parse_list(&spec.b)?;
    let (Some(a), Some(b), 1, 1) = (a.first(), b.first(), a.len(), b.len()) else {
        return Err(usage("A and B are one agent each".into()));
    };
    // The tables: A then B, B then A (2 players); A and n − 1 B (more).
    let entrant = |s: &boardgame_kit::AgentSpec| agents::entrant::<G>(s.clone());
    let ab = [entrant(a)?, entrant(b)?];
    let ba = [entrant(b)?, entrant(a)?];
    let mut table = vec![entrant(a)?];
    for _ in 1..n {
        table.push(entrant(b)?);
    }
    let games_per = if n == 2 { 2 } else { 1 };

    // One observation: A's score from seed `seed`.
    let observe = |seed: u64| -> Result<f64, SimError> {
        let fail = |e| SimError::Runtime(format!("{}: seed {seed}: {e}", G::CLI_NAME));
        if n == 2 {
            let arena = Arena::<G>::new(config.clone()).rotate_seats(false);
            let first = arena.play_one(&ab, seed).map_err(fail)?;
            let second = arena.play_one(&ba, seed).map_err(fail)?;
            Ok((share(first.state.outcome(), 0) + share(second.state.outcome(), 1)) / 2.0)
        } else {
            let game = Arena::<G>::new(config.clone()).play_one(&table, seed).map_err(fail)?;
            Ok(share(game.state.outcome(), game.seat_of[0]))
        }
    };

    let (alpha, beta) = (spec.alpha, spec.beta);
    let mut state = SprtState {
        players: n,
        observations: 0,
        games: 0,
        mean: 0.0,
        llr: 0.0,
        lower: (beta / (1.0 - alpha)).ln(),
        upper: ((1.0 - beta) / alpha).ln(),
        scores,
        decision: None,
    };
    let mut statistic = Statistic::new(n, scores);
    let threads = spec.threads.max(1);
    let mut next = spec.seed;
    while state.games + games_per <= spec.max_games {
        let left = (spec.max_games - state.games) / games_per;
        let batch = (threads as u64 * 4).min(left).max(1);
        let seeds: Vec<u64> = (0..batch).filter_map(|i| next.checked_add(i)).collect();
        if seeds.is_empty() {
            return Err(usage(format!("the seeds from {} go past the last seed {}", spec.seed, u64::MAX)));
        }
        let results = play_batch(&seeds, threads, &observe);
        for r in results {
            let x = r?;
            state.observations += 1;
            state.games += games_per;
            statistic.push(x);
            state.mean = statistic.mean();
            if state.observations >= MIN_OBSERVATIONS {
                state.llr = statistic.llr();
                state.decision = decide(state.llr, state.lower, state.upper);
            }
            on_step(&state);
            if state.decision.is_some() {
                return Ok(state);
            }
        }
        next = match next.checked_add(batch) {
            Some(s) => s,
            None => break,
        };
    }
    state.decision = Some(Decision::Undecided);
    Ok(state)
}

/// The decision at log-likelihood ratio `llr` between the bounds.
fn decide(llr: f64, lower: f64, upper: f64) -> Option<Decision> {
    if llr >= upper {
        Some(Decision::Stronger)
    } else if llr <= lower {
        Some(Decision::NotStronger)
    } else {
        None
    }
}

/// The running log-likelihood ratio of H1 (expected score `scores[1]`)
/// over H0 (`scores[0]`), as the module's documentation gives it.
#[derive(Clone, Debug)]
struct Statistic {
    /// Pairs at 2 players: the shrunk normal ratio; else Bernoulli's.
    paired: bool,
    scores: [f64; 2],
    count: f64,
    sum: f64,
    sum_sq: f64,
    /// The Bernoulli log-likelihood ratio so far.
    bernoulli: f64,
    /// What a win and what a loss add to it.
    per_win: f64,
    per_loss: f64,
}

impl Statistic {
    fn new(players: usize, scores: [f64; 2]) -> Self {
        let [s0, s1] = scores;
        Statistic {
            paired: players == 2,
            scores,
            count: 0.0,
            sum: 0.0,
            sum_sq: 0.0,
            bernoulli: 0.0,
            per_win: (s1 / s0).ln(),
            per_loss: ((1.0 - s1) / (1.0 - s0)).ln(),
        }
    }

    /// One more observation, a score in `[0, 1]`.
    fn push(&mut self, x: f64) {
        self.count += 1.0;
        self.sum += x;
        self.sum_sq += x * x;
        self.bernoulli += x * self.per_win + (1.0 - x) * self.per_loss;
    }

    /// The mean score so far (0 before any observation).
    fn mean(&self) -> f64 {
        if self.count > 0.0 { self.sum / self.count } else { 0.0 }
    }

    /// The log-likelihood ratio so far.
    fn llr(&self) -> f64 {
        if !self.paired {
            return self.bernoulli;
        }
        let [s0, s1] = self.scores;
        let middle = (s0 + s1) / 2.0;
        let prior_var = middle * (1.0 - middle) / 2.0;
        let (count, mean) = (self.count, self.mean());
        let sample = (self.sum_sq / count - mean * mean).max(0.0);
        let k0 = MIN_OBSERVATIONS as f64;
        let var = ((count * sample + k0 * prior_var) / (count + k0)).max(1e-9);
        count * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }
}

/// The observations of `seeds`, in their order, over `threads` threads.
fn play_batch<F>(seeds: &[u64], threads: usize, observe: &F) -> Vec<Result<f64, SimError>>
where
    F: Fn(u64) -> Result<f64, SimError> + Sync,
{
    if threads <= 1 || seeds.len() <= 1 {
        return seeds.iter().map(|&s| observe(s)).collect();
    }
    let mut out: Vec<Option<Result<f64, SimError>>> = (0..seeds.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let chunks: Vec<_> = out
            .chunks_mut(seeds.len().div_ceil(threads))
            .zip(seeds.chunks(seeds.len().div_ceil(threads)))
            .map(|(slots, seeds)| {
                scope.spawn(move || {
                    for (slot, &seed) in slots.iter_mut().zip(seeds) {
                        *slot = Some(observe(seed));
                    }
                })
            })
            .collect();
        for c in chunks {
            if let Err(p) = c.join() {
                std::panic::resume_unwind(p);
            }
        }
    });
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(SimError::Runtime("an observation was not played".into()))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardgame_kit::GameRng;

    /// The scores of H0 and H1 with the default bounds at `players`.
    fn default_scores(players: usize) -> [f64; 2] {
        if players == 2 {
            [0.5, score_of_elo(50.0)]
        } else {
            let fair = 1.0 / players as f64;
            [fair, fair + 0.03]
        }
    }

    /// What one test decides on observations drawn by `draw`, capped at
    /// `cap` observations.
    fn simulate(players: usize, cap: u64, draw: &mut dyn FnMut() -> f64) -> Option<Decision> {
        let (lower, upper) = ((0.05f64 / 0.95).ln(), (0.95f64 / 0.05).ln());
        let mut statistic = Statistic::new(players, default_scores(players));
        for i in 1..=cap {
            statistic.push(draw());
            if i >= MIN_OBSERVATIONS
                && let Some(d) = decide(statistic.llr(), lower, upper)
            {
                return Some(d);
            }
        }
        None
    }

    /// How often `tests` simulated tests decide `wrong`, each observation
    /// drawn by `draw` from the generator.
    fn error_rate(players: usize, tests: u32, wrong: Decision, draw: &dyn Fn(&mut GameRng) -> f64) -> f64 {
        let mut rng = GameRng::new(7);
        let mut errors = 0;
        for _ in 0..tests {
            if simulate(players, 100_000, &mut || draw(&mut rng)) == Some(wrong) {
                errors += 1;
            }
        }
        f64::from(errors) / f64::from(tests)
    }

    #[test]
    fn a_short_run_of_losses_at_many_seats_decides_nothing() {
        // 7 players: 25 losses in a row (a 2% event for a seat that wins one
        // game in seven) are far from the evidence the bounds ask for.
        let mut losses = Statistic::new(7, default_scores(7));
        for _ in 0..25 {
            losses.push(0.0);
        }
        assert!((losses.llr() - 25.0 * (0.827_143f64 / 0.857_143).ln()).abs() < 1e-4);
        assert_eq!(decide(losses.llr(), (0.05f64 / 0.95).ln(), (0.95f64 / 0.05).ln()), None);
        assert_eq!(simulate(7, 25, &mut || 0.0), None);
        // Losses alone decide in the end, and wins alone the other way.
        assert_eq!(simulate(7, 1_000, &mut || 0.0), Some(Decision::NotStronger));
        assert_eq!(simulate(7, 1_000, &mut || 1.0), Some(Decision::Stronger));
        // A split tie counts as its share of a win.
        let mut tie = Statistic::new(7, default_scores(7));
        tie.push(0.5);
        let mut win_and_loss = Statistic::new(7, default_scores(7));
        win_and_loss.push(1.0);
        win_and_loss.push(0.0);
        assert!((2.0 * tie.llr() - win_and_loss.llr()).abs() < 1e-12);
    }

    #[test]
    fn ten_equal_pairs_are_not_read_as_certainty() {
        // Ten lost pairs have no variance: shrunk towards a pair of
        // wins-or-losses, they weigh about twice what twenty lost games
        // weigh in Bernoulli's ratio (without the shrinking, millions of
        // times that).
        let [s0, s1] = default_scores(2);
        let twenty_losses = 20.0 * ((1.0 - s1) / (1.0 - s0)).ln();
        let mut pairs = Statistic::new(2, default_scores(2));
        for _ in 0..10 {
            pairs.push(0.0);
        }
        assert!(pairs.llr() < 0.0 && pairs.llr() > 2.5 * twenty_losses, "{} against {twenty_losses}", pairs.llr());
        // The statistic's sign follows the mean's side of the middle.
        let mut above = Statistic::new(2, default_scores(2));
        let mut below = Statistic::new(2, default_scores(2));
        for x in [0.75, 0.5, 1.0, 0.25] {
            above.push(x);
            below.push(1.0 - x);
        }
        assert!(above.llr() > 0.0 && below.llr() < 0.0);
    }

    /// A score of mean `p`: a win with probability `p`, with one game in
    /// ten a tie split two ways.
    fn share_draw(p: f64) -> impl Fn(&mut GameRng) -> f64 {
        move |rng| {
            let u = rng.unit_f64();
            if u < 0.1 {
                0.5
            } else if u < 0.1 + 0.9 * p {
                1.0
            } else {
                0.0
            }
        }
    }

    #[test]
    fn the_share_tests_error_rates_are_at_most_alpha_and_beta() {
        // α = β = 0.05; 2,000 simulated tests give a standard error of 0.005.
        for players in [3, 7, 9] {
            let [s0, s1] = default_scores(players);
            // Mean p: 0.1·½ + 0.9·p' with p' solved for the mean.
            let with_mean = |m: f64| share_draw((m - 0.05) / 0.9);
            let false_stronger = error_rate(players, 2_000, Decision::Stronger, &with_mean(s0));
            let false_not = error_rate(players, 2_000, Decision::NotStronger, &with_mean(s1));
            assert!(false_stronger <= 0.06, "{players} players: H0 decided stronger in {false_stronger}");
            assert!(false_not <= 0.06, "{players} players: H1 decided not stronger in {false_not}");
        }
    }

    /// A pair's mean of score `m`: each game a win with probability `m`,
    /// the two games of a pair agreeing more often than by chance (the same
    /// deal), as five values 0, ¼, ½, ¾, 1 (a split tie one game in ten).
    fn pair_draw(m: f64) -> impl Fn(&mut GameRng) -> f64 {
        move |rng| {
            let game = |rng: &mut GameRng| {
                let u = rng.unit_f64();
                if u < 0.1 {
                    0.5
                } else if u < 0.1 + 0.9 * ((m - 0.05) / 0.9) {
                    1.0
                } else {
                    0.0
                }
            };
            let first = game(rng);
            // Half the time the deal decides the second game as the first.
            let second = if rng.unit_f64() < 0.5 { first } else { game(rng) };
            (first + second) / 2.0
        }
    }

    #[test]
    fn the_paired_tests_error_rates_are_near_alpha_and_beta() {
        // The normal approximation errs a little more often than α with a
        // small sample's variance (about 5.7% here): within two points.
        let [s0, s1] = default_scores(2);
        let false_stronger = error_rate(2, 2_000, Decision::Stronger, &pair_draw(s0));
        let false_not = error_rate(2, 2_000, Decision::NotStronger, &pair_draw(s1));
        assert!(false_stronger <= 0.07, "H0 decided stronger in {false_stronger}");
        assert!(false_not <= 0.07, "H1 decided not stronger in {false_not}");
    }
}
