//! Estimates with 95% intervals: win shares (Wilson score interval),
//! differences of independent shares and means of paired differences
//! (normal approximation).
//!
//! A win share is the mean over games of a seat's share of the win: 1 for a
//! sole win, `1/k` for a draw among `k` seats, 0 otherwise (the kit's
//! [`boardgame_kit::SHARE_UNIT`] keeps the sums exact). The share is a mean
//! of values in `[0, 1]`, whose variance is at most `p(1 − p)`; the
//! intervals below use that bound, so they are exact for games without
//! draws and conservative with them.

use serde::{Deserialize, Serialize};

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A value with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// The interval's lower end.
    pub lo: f64,
    /// The interval's upper end.
    pub hi: f64,
}

impl Estimate {
    /// `self` with `c` added to the value and both ends.
    #[must_use]
    pub fn shifted(self, c: f64) -> Estimate {
        Estimate { value: self.value + c, lo: self.lo + c, hi: self.hi + c }
    }

    /// `self` with the value and both ends multiplied by `c > 0`.
    #[must_use]
    pub fn scaled(self, c: f64) -> Estimate {
        Estimate { value: self.value * c, lo: self.lo * c, hi: self.hi * c }
    }

    /// Whether the interval excludes `x`.
    pub fn excludes(self, x: f64) -> bool {
        x < self.lo || x > self.hi
    }

    /// As percentages with one decimal: `23.4% [21.5%, 25.3%]`.
    pub fn pct(self) -> String {
        format!("{:.1}% [{:.1}%, {:.1}%]", 100.0 * self.value, 100.0 * self.lo, 100.0 * self.hi)
    }

    /// As signed percentage points with one decimal: `+2.1 pp [+0.3, +3.9]`.
    pub fn pp(self) -> String {
        format!("{:+.1} pp [{:+.1}, {:+.1}]", 100.0 * self.value, 100.0 * self.lo, 100.0 * self.hi)
    }

    /// As plain numbers with `digits` decimals: `41.2 [40.9, 41.5]`.
    pub fn num(self, digits: usize) -> String {
        format!("{:.d$} [{:.d$}, {:.d$}]", self.value, self.lo, self.hi, d = digits)
    }
}

/// The Wilson score interval of a proportion (or of a mean of values in
/// `[0, 1]`, with the variance bound `p(1 − p)`) `p` over `n` trials at
/// normal quantile `z`, as an [`Estimate`]: the kit's
/// [`boardgame_kit::wilson_interval_at`]. With no trials: `p` in `[0, 1]`.
///
/// ```
/// use boardgame_lab::stats::{wilson, Z95};
/// let e = wilson(0.8, 10, Z95); // 8 successes in 10
/// assert!((e.lo - 0.4902).abs() < 1e-4 && (e.hi - 0.9433).abs() < 1e-4);
/// ```
pub fn wilson(p: f64, n: u64, z: f64) -> Estimate {
    let (lo, hi) = boardgame_kit::wilson_interval_at(p, n, z);
    Estimate { value: p, lo, hi }
}

/// The difference `p1 − p2` of two independent shares over `n1` and `n2`
/// games, with the normal (Wald) interval
/// `± z·sqrt(p1(1 − p1)/n1 + p2(1 − p2)/n2)`. When the two samples share
/// seeds (the lab plays the same seeds in every cell), their positive
/// correlation makes this interval conservative.
///
/// ```
/// use boardgame_lab::stats::{diff_of_shares, Z95};
/// let d = diff_of_shares(0.6, 100, 0.5, 100, Z95);
/// assert!((d.value - 0.1).abs() < 1e-12);
/// assert!((d.lo - (0.1 - Z95 * 0.07)).abs() < 1e-12);
/// ```
pub fn diff_of_shares(p1: f64, n1: u64, p2: f64, n2: u64, z: f64) -> Estimate {
    let var = |p: f64, n: u64| if n == 0 { f64::INFINITY } else { (p * (1.0 - p)).max(0.0) / n as f64 };
    let half = z * (var(p1, n1) + var(p2, n2)).sqrt();
    let d = p1 - p2;
    Estimate { value: d, lo: (d - half).max(-1.0), hi: (d + half).min(1.0) }
}

/// The difference `pa − pb` of the win shares of two seats measured in the
/// same `n` games, with the normal interval of the mean per-game difference
/// `d = share_a − share_b`. Its variance is bounded by
/// `E[d²] − (pa − pb)² ≤ pa + pb − (pa − pb)²`, since `d² ≤ |d| ≤ share_a +
/// share_b`: exact without draws, conservative with them. (Two seats of one
/// game are negatively correlated — one's win is the other's loss — so the
/// independent-samples formula would be too narrow here.)
///
/// ```
/// use boardgame_lab::stats::{diff_within_games, Z95};
/// let d = diff_within_games(0.3, 0.2, 100, Z95); // variance 0.5 − 0.01
/// assert!((d.hi - 0.1 - Z95 * 0.07).abs() < 1e-12);
/// ```
pub fn diff_within_games(pa: f64, pb: f64, n: u64, z: f64) -> Estimate {
    let d = pa - pb;
    if n == 0 {
        return Estimate { value: d, lo: -1.0, hi: 1.0 };
    }
    let half = z * ((pa + pb - d * d).max(0.0) / n as f64).sqrt();
    Estimate { value: d, lo: (d - half).max(-1.0), hi: (d + half).min(1.0) }
}

/// The mean of `n` observations from their sum and sum of squares, with the
/// normal interval `± z·s/√n` (`s` the sample standard deviation, `n − 1`
/// in its denominator). Fewer than 2 observations give an unbounded
/// interval.
///
/// ```
/// use boardgame_lab::stats::{mean_interval, Z95};
/// // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7.
/// let e = mean_interval(40.0, 232.0, 8, Z95);
/// assert_eq!(e.value, 5.0);
/// assert!((e.hi - 5.0 - Z95 * (32.0f64 / 7.0 / 8.0).sqrt()).abs() < 1e-12);
/// ```
pub fn mean_interval(sum: f64, sum_sq: f64, n: u64, z: f64) -> Estimate {
    if n == 0 {
        return Estimate { value: 0.0, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
    }
    let nf = n as f64;
    let mean = sum / nf;
    if n < 2 {
        return Estimate { value: mean, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
    }
    let var = ((sum_sq - sum * sum / nf) / (nf - 1.0)).max(0.0);
    let half = z * (var / nf).sqrt();
    Estimate { value: mean, lo: mean - half, hi: mean + half }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    /// Published Wilson 95% intervals (Newcombe 1998, Table I, method 3;
    /// Brown, Cai and DasGupta 2001), to four decimals.
    #[test]
    fn wilson_matches_published_values() {
        for (x, n, lo, hi) in [
            (81u64, 263u64, 0.2553, 0.3662),
            (15, 148, 0.0624, 0.1605),
            (0, 20, 0.0, 0.1611),
            (1, 29, 0.0061, 0.1718),
            (29, 29, 0.8830, 1.0),
        ] {
            let e = wilson(x as f64 / n as f64, n, Z95);
            assert!(close(e.lo, lo, 1e-4) && close(e.hi, hi, 1e-4), "{x}/{n}: {e:?}");
        }
    }

    #[test]
    fn wilson_agrees_with_the_kit_and_holds_its_point() {
        for (x, n) in [(0u64, 1u64), (3, 7), (500, 1000), (1999, 2000), (10, 10)] {
            let e = wilson(x as f64 / n as f64, n, Z95);
            let (lo, hi) = boardgame_kit::wilson_interval(x, n, Z95);
            assert!(close(e.lo, lo, 1e-12) && close(e.hi, hi, 1e-12));
            assert!(e.lo <= e.value && e.value <= e.hi && e.hi > e.lo);
        }
        assert_eq!(wilson(0.3, 0, Z95), Estimate { value: 0.3, lo: 0.0, hi: 1.0 });
    }

    #[test]
    fn differences_and_means_match_hand_computed_values() {
        // Newcombe's example 1 (56/70 vs 48/80): difference 0.2, Wald
        // interval 0.0575 to 0.3425.
        let d = diff_of_shares(56.0 / 70.0, 70, 48.0 / 80.0, 80, Z95);
        assert!(close(d.value, 0.2, 1e-12) && close(d.lo, 0.0575, 1e-4) && close(d.hi, 0.3425, 1e-4), "{d:?}");
        // Paired differences 1, 0, 0, -1, 1: mean 0.2, variance 0.7.
        let e = mean_interval(1.0, 3.0, 5, Z95);
        assert!(close(e.value, 0.2, 1e-12) && close(e.hi - e.value, Z95 * (0.7f64 / 5.0).sqrt(), 1e-12));
        assert!(mean_interval(1.0, 1.0, 1, Z95).hi.is_infinite());
        assert_eq!(wilson(0.25, 100, Z95).shifted(-0.25).value, 0.0);
        assert_eq!(Estimate { value: 0.5, lo: 0.25, hi: 0.75 }.pct(), "50.0% [25.0%, 75.0%]");
        assert_eq!(Estimate { value: 0.02, lo: -0.01, hi: 0.05 }.pp(), "+2.0 pp [-1.0, +5.0]");
    }
}
