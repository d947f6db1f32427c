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
//! expected score is `s0` and H1: it is `s1`, in the generalised form for
//! scores in `[0, 1]`: the log-likelihood ratio after `N` observations of
//! mean `x̄` and variance `σ²` is `N (s1 − s0) (2x̄ − s0 − s1) / (2σ²)`. The
//! test stops for H1 ("A is stronger") once it reaches `ln((1 − β)/α)`, for
//! H0 ("not stronger") once it falls to `ln(β/(1 − α))`, or at the game
//! cap (undecided). At 2 players the bounds are in Elo (`s = 1 / (1 +
//! 10^(−elo/400))`); at more, in win share above the fair share `1/n`
//! (`s = 1/n + d`). The variance is estimated from the observations, shrunk
//! towards that of a win-or-loss at the hypotheses' middle score `m`
//! (`m (1 − m)`, halved for a pair) by [`MIN_OBSERVATIONS`]
//! pseudo-observations, and no decision is taken before
//! [`MIN_OBSERVATIONS`] observations.
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
    let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
    // The variance of one observation were it a win or a loss at the
    // hypotheses' middle score (a pair at 2 players averages two games).
    let middle = (scores[0] + scores[1]) / 2.0;
    let prior_var = middle * (1.0 - middle) / games_per as f64;
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
            sum += x;
            sum_sq += x * x;
            let count = state.observations as f64;
            state.mean = sum / count;
            if state.observations >= MIN_OBSERVATIONS {
                let sample = (sum_sq / count - state.mean * state.mean).max(0.0);
                state.llr = llr(count, state.mean, sample, prior_var, scores);
                if state.llr >= state.upper {
                    state.decision = Some(Decision::Stronger);
                } else if state.llr <= state.lower {
                    state.decision = Some(Decision::NotStronger);
                }
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

/// The log-likelihood ratio of H1 (expected score `scores[1]`) over H0
/// (`scores[0]`) after `count` observations of mean `mean` and sample
/// variance `sample`: the variance shrunk towards `prior_var` by
/// [`MIN_OBSERVATIONS`] pseudo-observations, so that a few equal scores
/// (ten losses in a row) do not read as certainty.
fn llr(count: f64, mean: f64, sample: f64, prior_var: f64, scores: [f64; 2]) -> f64 {
    let k0 = MIN_OBSERVATIONS as f64;
    let var = ((count * sample + k0 * prior_var) / (count + k0)).max(1e-9);
    let [s0, s1] = scores;
    count * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
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

    #[test]
    fn ten_equal_scores_are_no_certainty_and_many_are() {
        // 7 players, H0 +0 and H1 +0.03 above 1/7: ten losses in a row.
        let scores = [1.0 / 7.0, 1.0 / 7.0 + 0.03];
        let m = (scores[0] + scores[1]) / 2.0;
        let lower = (0.05f64 / 0.95).ln();
        assert!(llr(10.0, 0.0, 0.0, m * (1.0 - m), scores) > lower, "ten losses decide nothing");
        assert!(llr(200.0, 0.0, 0.0, m * (1.0 - m), scores) < lower, "two hundred do");
        // The statistic's sign follows the mean's side of the middle.
        assert!(llr(100.0, 0.20, 0.1, 0.1, scores) > 0.0);
        assert!(llr(100.0, 0.10, 0.1, 0.1, scores) < 0.0);
    }
}
