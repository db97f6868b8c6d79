//! Reproducible random streams.
//!
//! A [`Stream`] is one PCG generator (`rand_pcg::Pcg64`, whose output is
//! fixed by its published algorithm) with the draws the models need.
//! Distributions come from `rand_distr`, whose versions the lockfile pins.
//!
//! The emulator never decides where a stream comes from: a device draws the
//! random parts of its service times from the stream its driver hands it.
//! Experiments derive every stream from their coordinates (seed,
//! configuration point, replication, purpose) in one place, the experiments
//! crate's `seeds` module; [`Stream::numbered`] gives tests and examples a
//! reproducible stream without that machinery.

use rand::RngExt;
use rand_distr::{Distribution, Exp, Normal};
use rand_pcg::Pcg64;
use sched_core::Nanos;

/// Exponential durations with a given mean, rounded to whole nanoseconds:
/// built once, drawn from many times ([`Stream::draw`]).
#[derive(Clone, Copy, Debug)]
pub struct Exponential(Option<Exp<f64>>);

impl Exponential {
    /// Durations with mean `mean` ns (always 0 for a mean of 0).
    pub fn new(mean: Nanos) -> Self {
        Exponential((mean > 0).then(|| Exp::new(1.0 / mean as f64).expect("a positive rate")))
    }
}

/// One independent random stream.
#[derive(Clone, Debug)]
pub struct Stream {
    rng: Pcg64,
}

impl Stream {
    /// The PCG generator with this `state` and stream `increment`: distinct
    /// increments give distinct, statistically independent sequences.
    pub fn from_parts(state: u128, increment: u128) -> Self {
        Stream {
            rng: Pcg64::new(state, increment),
        }
    }

    /// Stream `n` of a fixed family of independent streams, for tests and
    /// examples that need reproducible numbers but no experiment coordinates.
    pub fn numbered(n: u64) -> Self {
        const STATE: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;
        Self::from_parts(STATE, u128::from(n) << 1 | 1)
    }

    /// A uniform 64-bit word.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.random::<u64>()
    }

    /// Uniform on [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// Uniform integer in `0..n` (`n > 0`).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.rng.random_range(0..n)
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// An exponential duration with the given mean, rounded to whole nanoseconds.
    pub fn exponential(&mut self, mean: Nanos) -> Nanos {
        self.draw(&Exponential::new(mean))
    }

    /// A duration from `distribution` (built once for many draws).
    #[inline]
    pub fn draw(&mut self, distribution: &Exponential) -> Nanos {
        match &distribution.0 {
            Some(exp) => (exp.sample(&mut self.rng) + 0.5) as Nanos,
            None => 0,
        }
    }

    /// A normal draw with the given mean and standard deviation (a
    /// non-finite or negative deviation is treated as 0).
    pub fn normal(&mut self, mean: f64, std_dev: f64) -> f64 {
        match Normal::new(mean, std_dev) {
            Ok(n) => n.sample(&mut self.rng),
            Err(_) => mean,
        }
    }

    /// A draw from any real-valued distribution of `rand_distr` (built once
    /// for many draws), for workloads whose shape the streams above lack
    /// (a Zipf popularity, say).
    pub fn sample<D: Distribution<f64>>(&mut self, distribution: &D) -> f64 {
        distribution.sample(&mut self.rng)
    }

    /// Uniform duration on [lo, hi].
    pub fn uniform_between(&mut self, lo: Nanos, hi: Nanos) -> Nanos {
        if hi <= lo {
            return lo;
        }
        lo + self.rng.random_range(0..=hi - lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_number_same_bits_and_numbers_differ() {
        let draw = |n| {
            let mut s = Stream::numbered(n);
            (0..8).map(|_| s.below(u64::MAX)).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut s = Stream::numbered(1);
        let n = 200_000;
        let mean = (0..n).map(|_| s.exponential(1_000_000) as f64).sum::<f64>() / n as f64;
        assert!((mean / 1e6 - 1.0).abs() < 0.01, "{mean}");
    }
}
