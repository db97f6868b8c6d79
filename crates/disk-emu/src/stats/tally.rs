//! Exact count, sum and sum of squares of whole numbers, folded into a mean
//! and a variance only when a report is asked for.

use super::moments::MomentsReport;

/// Count, mean, variance, minimum and maximum of a stream of whole numbers
/// (nanoseconds, cylinders, queue lengths), kept as exact integer sums.
///
/// Recording is integer additions and one multiplication: no division and no
/// rounding per observation, so the cost of a long run is a few instructions
/// per value and the result does not depend on the order of the values. The
/// mean and the variance are computed once, from the exact sums, when asked
/// for: the mean is the sum over the count, rounded once or twice; the sum of
/// squared deviations `Σx² − (Σx)²/n` is formed exactly in integers (its
/// fractional part separately), so the cancellation that makes the textbook
/// formula useless in floating point does not arise.
///
/// The sums are exact while `Σx²` stays below 2¹²⁸: 2⁴⁰ observations of
/// values below 2⁴⁴ (about 4.9 hours in nanoseconds), far beyond any run.
/// Past that (values near 2⁶³, a deadline at the end of time) `Σx²`
/// saturates and the deviation is reported as NaN, not as a wrapped
/// number; the count, mean and range stay exact. Merging two tallies is
/// exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    count: u64,
    sum: i128,
    sum_sq: u128,
    min: i64,
    max: i64,
}

impl Default for Tally {
    fn default() -> Self {
        Tally::new()
    }
}

impl Tally {
    /// A tally that has seen nothing.
    pub const fn new() -> Self {
        Tally {
            count: 0,
            sum: 0,
            sum_sq: 0,
            min: i64::MAX,
            max: i64::MIN,
        }
    }

    /// The tally of `count` values whose sum, sum of squares and range are
    /// known (a [`Distribution`](super::Distribution) keeps its own range).
    pub(crate) const fn from_parts(
        count: u64,
        sum: i128,
        sum_sq: u128,
        min: i64,
        max: i64,
    ) -> Self {
        Tally {
            count,
            sum,
            sum_sq,
            min,
            max,
        }
    }

    /// Adds one observation.
    #[inline]
    pub fn add(&mut self, x: i64) {
        self.count += 1;
        self.sum += i128::from(x);
        let magnitude = u128::from(x.unsigned_abs());
        self.sum_sq = self.sum_sq.saturating_add(magnitude * magnitude);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// Adds one non-negative observation (a time in ns, a count). Values
    /// from 2⁶³ (292 years in nanoseconds) are taken as 2⁶³ − 1.
    #[inline]
    pub fn add_unsigned(&mut self, x: u64) {
        self.add(saturate(x));
    }

    /// Folds `other` into `self`, exactly: the result is the tally of both
    /// streams.
    pub fn merge(&mut self, other: &Tally) {
        self.count += other.count;
        self.sum += other.sum;
        self.sum_sq = self.sum_sq.saturating_add(other.sum_sq);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact sum of the observations.
    pub fn sum(&self) -> i128 {
        self.sum
    }

    /// Arithmetic mean, if there is at least one observation.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    /// Sample variance (divisor n − 1, unbiased), if there are at least two
    /// observations.
    pub fn variance(&self) -> Option<f64> {
        (self.count > 1).then(|| self.squared_deviations() / (self.count - 1) as f64)
    }

    /// Sample standard deviation, the square root of [`Tally::variance`].
    pub fn std_dev(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }

    /// Smallest observation.
    pub fn min(&self) -> Option<i64> {
        (self.count > 0).then_some(self.min)
    }

    /// Largest observation.
    pub fn max(&self) -> Option<i64> {
        (self.count > 0).then_some(self.max)
    }

    /// Σ(x − x̄)² = Σx² − (Σx)²/n. With |Σx| = q·n + r (0 ≤ r < n),
    /// (Σx)²/n = q²·n + 2·q·r + r²/n, and every integer term is at most Σx²
    /// (Cauchy–Schwarz), so the integer part is formed exactly in `u128` and
    /// only the fraction of r²/n is rounded.
    /// A saturated `Σx²` (or a term past `u128`) gives NaN.
    fn squared_deviations(&self) -> f64 {
        if self.sum_sq == u128::MAX {
            return f64::NAN;
        }
        let n = u128::from(self.count);
        let total = self.sum.unsigned_abs();
        let (q, r) = (total / n, total % n);
        let square = q
            .checked_mul(q)
            .and_then(|qq| qq.checked_mul(n))
            .zip(q.checked_mul(2 * r))
            .zip(r.checked_mul(r));
        let Some(((qqn, qr2), rr)) = square else {
            return f64::NAN;
        };
        let whole = self.sum_sq - qqn - qr2 - rr / n;
        let fraction = (rr % n) as f64 / n as f64;
        whole as f64 - fraction
    }

    /// The summary as plain numbers for a report.
    pub fn report(&self) -> MomentsReport {
        MomentsReport {
            count: self.count,
            mean: self.mean().unwrap_or(f64::NAN),
            std_dev: self.std_dev().unwrap_or(f64::NAN),
            min: self.min().map_or(f64::NAN, |x| x as f64),
            max: self.max().map_or(f64::NAN, |x| x as f64),
        }
    }
}

/// The sums of a [`Tally`] of non-negative values without its count: for
/// several quantities observed together (the parts of every service), which
/// share one count kept by their owner, each value costing two additions, a
/// multiplication and two comparisons in unsigned arithmetic. The tally it
/// gives ([`Sums::tally`]) is the one [`Tally::add_unsigned`] would have
/// built from the same values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sums {
    sum: u128,
    sum_sq: u128,
    min: u64,
    max: u64,
}

impl Sums {
    /// Nothing observed.
    pub(crate) const fn new() -> Self {
        Sums {
            sum: 0,
            sum_sq: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Adds one value; from 2⁶³ up, it is taken as 2⁶³ − 1 (as in
    /// [`Tally::add_unsigned`]).
    #[inline]
    pub(crate) fn add(&mut self, x: u64) {
        let x = x.min(i64::MAX as u64);
        self.sum += u128::from(x);
        self.sum_sq = self.sum_sq.saturating_add(u128::from(x) * u128::from(x));
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// The tally of the `count` values added.
    pub(crate) fn tally(&self, count: u64) -> Tally {
        if count == 0 {
            return Tally::new();
        }
        // Below 2⁶³ each, 2⁶⁴ of them at most: the sum fits an i128.
        Tally::from_parts(
            count,
            self.sum as i128,
            self.sum_sq,
            self.min as i64,
            self.max as i64,
        )
    }
}

/// `x` as an `i64`, at most `i64::MAX`.
#[inline]
pub(crate) fn saturate(x: u64) -> i64 {
    i64::try_from(x).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Stream;

    fn two_pass(xs: &[i64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = xs
            .iter()
            .map(|&x| (x as f64 - mean) * (x as f64 - mean))
            .sum::<f64>()
            / (n - 1.0);
        (mean, var)
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    /// Sums kept without a count give the tally `add_unsigned` builds from
    /// the same values: ordinary ones, zero, and values from 2⁶³ up.
    #[test]
    fn sums_give_the_tally_of_the_same_values() {
        assert_eq!(Sums::new().tally(0), Tally::new());
        let mut rng = Stream::numbered(7);
        let mut values: Vec<u64> = (0..1_000).map(|_| rng.below(20_000_000)).collect();
        values.extend([0, 5, 17]);
        for big in [false, true] {
            if big {
                values.extend([1 << 63, u64::MAX]);
            }
            let (mut sums, mut tally) = (Sums::new(), Tally::new());
            for &v in &values {
                sums.add(v);
                tally.add_unsigned(v);
            }
            let built = sums.tally(values.len() as u64);
            assert_eq!(built, tally);
            assert_eq!(built.max() == Some(i64::MAX), big, "{built:?}");
            assert_eq!(built.min(), Some(0));
        }
    }

    #[test]
    fn values_at_the_end_of_time_saturate_into_nan_not_a_wrapped_number() {
        let mut t = Tally::new();
        for _ in 0..8 {
            t.add(i64::MIN + 1);
            t.add_unsigned(u64::MAX);
        }
        assert_eq!(t.count(), 16);
        assert_eq!(t.min(), Some(i64::MIN + 1));
        assert_eq!(t.max(), Some(i64::MAX));
        assert!(t.std_dev().unwrap().is_nan());
        let mut small = Tally::new();
        for x in [1, 2, 3, 4] {
            small.add(x);
        }
        small.merge(&t);
        assert!(small.std_dev().unwrap().is_nan());
    }

    #[test]
    fn hand_computed_values() {
        let mut t = Tally::new();
        for x in [2, 4, 4, 4, 5, 5, 7, 9] {
            t.add(x);
        }
        assert_eq!((t.count(), t.sum()), (8, 40));
        assert_eq!(t.mean(), Some(5.0));
        // Σ(x − 5)² = 32, divided by n − 1 = 7: exact integers, one rounding.
        assert_eq!(t.variance(), Some(32.0 / 7.0));
        assert_eq!((t.min(), t.max()), (Some(2), Some(9)));
        // A mean that is not whole: 1, 2 → 1.5, Σ(x − 1.5)² = 0.5.
        let mut t = Tally::new();
        t.add(1);
        t.add(2);
        assert_eq!((t.mean(), t.variance()), (Some(1.5), Some(0.5)));
    }

    #[test]
    fn negative_values_are_exact_too() {
        let mut t = Tally::new();
        for x in [-5, 15, -7] {
            t.add(x);
        }
        // Mean 1, deviations −6, 14, −8: Σ = 296, over 2.
        assert_eq!((t.mean(), t.variance()), (Some(1.0), Some(148.0)));
        assert_eq!((t.min(), t.max()), (Some(-7), Some(15)));
    }

    #[test]
    fn undefined_statistics_are_none_and_nan_in_reports() {
        let mut t = Tally::new();
        assert_eq!(
            (t.mean(), t.variance(), t.min(), t.max()),
            (None, None, None, None)
        );
        assert!(t.report().mean.is_nan() && t.report().min.is_nan());
        t.add_unsigned(3);
        assert_eq!((t.mean(), t.variance()), (Some(3.0), None));
        let r = t.report();
        assert_eq!((r.count, r.mean, r.min, r.max), (1, 3.0, 3.0, 3.0));
        assert!(r.std_dev.is_nan());
        // Beyond i64 saturates rather than wrapping negative.
        t.add_unsigned(u64::MAX);
        assert_eq!(t.max(), Some(i64::MAX));
    }

    #[test]
    fn matches_two_pass_on_large_offset_values() {
        // Exponential times around 10 ms plus a 1 s offset: the naive
        // floating-point sum of squares loses most digits here, the integer
        // one none.
        let mut s = Stream::numbered(703);
        let xs: Vec<i64> = (0..100_000)
            .map(|_| (1_000_000_000 + s.exponential(10_000_000)) as i64)
            .collect();
        let mut t = Tally::new();
        xs.iter().for_each(|&x| t.add(x));
        let (mean, var) = two_pass(&xs);
        assert!(close(t.mean().unwrap(), mean, 1e-14));
        assert!(close(t.variance().unwrap(), var, 1e-9));
        assert!(close(t.std_dev().unwrap(), 1e7, 0.02));
    }

    #[test]
    fn constant_values_have_no_spread() {
        let mut t = Tally::new();
        (0..1_001).for_each(|_| t.add(123_456_789_012));
        assert_eq!(
            (t.mean(), t.variance()),
            (Some(123_456_789_012.0), Some(0.0))
        );
    }

    #[test]
    fn merge_is_exactly_the_single_stream() {
        let mut s = Stream::numbered(311);
        let xs: Vec<i64> = (0..10_001).map(|_| s.exponential(5_000) as i64).collect();
        let mut whole = Tally::new();
        xs.iter().for_each(|&x| whole.add(x));
        let mut merged = Tally::new();
        for part in [&xs[..0], &xs[..17], &xs[17..6_000], &xs[6_000..]] {
            let mut t = Tally::new();
            part.iter().for_each(|&x| t.add(x));
            merged.merge(&t);
        }
        assert_eq!(merged, whole);
    }
}
