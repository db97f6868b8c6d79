//! Streaming count, mean, variance, minimum and maximum of real numbers
//! (Welford's method); whole numbers have the exact [`Tally`](super::Tally).

use serde::{Deserialize, Serialize};

/// Count, mean, variance, minimum and maximum of a stream of numbers, in
/// constant memory.
///
/// Welford's update keeps a running mean and a running sum of squared
/// deviations from it. The textbook `Σx² − n·x̄²` would square response times
/// of about 10⁷ ns into 10¹⁴ and then subtract two nearly equal numbers,
/// keeping only a few significant digits; Welford's form never does.
/// Two accumulators merge with the pairwise formula of Chan, Golub and
/// LeVeque, so per-disk or per-class accumulators combine into a total.
/// Everything is a fixed sequence of IEEE operations: the same inputs in the
/// same order give the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    count: u64,
    mean: f64,
    /// Sum of squared deviations from the current mean.
    m2: f64,
    min: f64,
    max: f64,
}

impl Default for Moments {
    fn default() -> Self {
        Moments::new()
    }
}

impl Moments {
    /// An accumulator that has seen nothing.
    pub const fn new() -> Self {
        Moments {
            count: 0,
            mean: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    /// Adds one observation. It should be finite: a NaN or infinity would
    /// make the mean and variance meaningless from then on.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        // The second factor uses the updated mean: that is what makes the
        // recurrence exact in real arithmetic.
        self.m2 += delta * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// Folds `other` into `self`, as if `self` had seen all of `other`'s
    /// observations too. The result equals single-stream accumulation up to
    /// rounding (not bit for bit: the operations differ).
    pub fn merge(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let n_a = self.count as f64;
        let n_b = other.count as f64;
        let n = n_a + n_b;
        let delta = other.mean - self.mean;
        self.mean += delta * (n_b / n);
        self.m2 += other.m2 + delta * delta * (n_a * n_b / n);
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Arithmetic mean, if there is at least one observation.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then_some(self.mean)
    }

    /// Sample variance (divisor n − 1, unbiased), if there are at least two
    /// observations.
    pub fn variance(&self) -> Option<f64> {
        // Rounding can leave a tiny negative m2 for constant inputs; a
        // variance is never negative.
        (self.count > 1).then(|| (self.m2 / (self.count - 1) as f64).max(0.0))
    }

    /// Sample standard deviation, the square root of [`Moments::variance`].
    pub fn std_dev(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }

    /// Smallest observation.
    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    /// Largest observation.
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// The summary as plain numbers for a report.
    pub fn report(&self) -> MomentsReport {
        MomentsReport {
            count: self.count,
            mean: self.mean().unwrap_or(f64::NAN),
            std_dev: self.std_dev().unwrap_or(f64::NAN),
            min: self.min().unwrap_or(f64::NAN),
            max: self.max().unwrap_or(f64::NAN),
        }
    }
}

/// Count, mean, standard deviation and range of one quantity, in the unit of
/// its observations (nanoseconds for times, cylinders for seek distances).
///
/// A statistic that is undefined (the mean of nothing, the deviation of a
/// single value) is NaN, which `serde_json` writes as `null`: it cannot be
/// mistaken for a measured zero.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MomentsReport {
    /// Number of observations.
    pub count: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor n − 1).
    pub std_dev: f64,
    /// Smallest observation.
    pub min: f64,
    /// Largest observation.
    pub max: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Stream;

    fn two_pass(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
        (mean, var)
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn hand_computed_values() {
        let mut m = Moments::new();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.add(x);
        }
        assert_eq!(m.count(), 8);
        assert_eq!(m.mean(), Some(5.0));
        // Σ(x − 5)² = 32, divided by n − 1 = 7.
        assert!(close(m.variance().unwrap(), 32.0 / 7.0, 1e-15));
        assert_eq!(m.min(), Some(2.0));
        assert_eq!(m.max(), Some(9.0));
    }

    #[test]
    fn undefined_statistics_are_none_and_nan_in_reports() {
        let mut m = Moments::new();
        assert_eq!(
            (m.mean(), m.variance(), m.min(), m.max()),
            (None, None, None, None)
        );
        assert!(m.report().mean.is_nan());
        m.add(3.0);
        assert_eq!(m.mean(), Some(3.0));
        assert_eq!(m.variance(), None);
        let r = m.report();
        assert_eq!((r.count, r.mean, r.min, r.max), (1, 3.0, 3.0, 3.0));
        assert!(r.std_dev.is_nan());
    }

    #[test]
    fn welford_matches_two_pass_on_large_offset_values() {
        // Exponential times around 10 ms plus a 1 s offset: the naive
        // sum-of-squares formula loses most digits here, Welford must not.
        let mut s = Stream::numbered(703);
        let xs: Vec<f64> = (0..100_000)
            .map(|_| (1_000_000_000 + s.exponential(10_000_000)) as f64)
            .collect();
        let mut m = Moments::new();
        xs.iter().for_each(|&x| m.add(x));
        let (mean, var) = two_pass(&xs);
        assert!(
            close(m.mean().unwrap(), mean, 1e-14),
            "{} {}",
            m.mean().unwrap(),
            mean
        );
        assert!(
            close(m.variance().unwrap(), var, 1e-9),
            "{} {}",
            m.variance().unwrap(),
            var
        );
        // Exponential: the standard deviation is close to the mean (10 ms).
        assert!(close(m.std_dev().unwrap(), 1e7, 0.02));
    }

    #[test]
    fn merge_equals_single_stream() {
        let mut s = Stream::numbered(311);
        let xs: Vec<f64> = (0..10_001).map(|_| s.exponential(5_000) as f64).collect();
        let mut whole = Moments::new();
        xs.iter().for_each(|&x| whole.add(x));
        // Uneven parts, including an empty one, merged in order.
        let mut merged = Moments::new();
        for part in [&xs[..0], &xs[..17], &xs[17..6_000], &xs[6_000..]] {
            let mut m = Moments::new();
            part.iter().for_each(|&x| m.add(x));
            merged.merge(&m);
        }
        assert_eq!(merged.count(), whole.count());
        assert_eq!(merged.min(), whole.min());
        assert_eq!(merged.max(), whole.max());
        assert!(close(merged.mean().unwrap(), whole.mean().unwrap(), 1e-13));
        assert!(close(
            merged.variance().unwrap(),
            whole.variance().unwrap(),
            1e-12
        ));
    }

    #[test]
    fn same_inputs_same_bits() {
        let run = || {
            let mut s = Stream::numbered(1123);
            let mut m = Moments::new();
            (0..1000).for_each(|_| m.add(s.exponential(1_000) as f64));
            m
        };
        let (a, b) = (run(), run());
        assert_eq!(a.mean().unwrap().to_bits(), b.mean().unwrap().to_bits());
        assert_eq!(
            a.variance().unwrap().to_bits(),
            b.variance().unwrap().to_bits()
        );
    }
}
