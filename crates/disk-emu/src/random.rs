//! Seeded, reproducible random streams.
//!
//! Every replication of an experiment draws from its own independent PCG
//! stream (`rand_pcg::Pcg64`, whose output is fixed by its published
//! algorithm), derived from the experiment seed, the replication number and a
//! purpose tag; so replication 7 gives the same bits whether it runs first,
//! last, alone or on another thread. Distributions come from `rand_distr`,
//! whose versions the lockfile pins.

use rand::RngExt;
use rand_distr::{Distribution, Exp, Normal};
use rand_pcg::Pcg64;
use sched_core::Nanos;

/// What a stream is used for: separate purposes never share random numbers,
/// so adding a draw for one never shifts another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Inter-arrival and think times.
    Arrivals,
    /// Request addresses, sizes and kinds.
    Addresses,
    /// Random parts of service times (rotational latency drawn at random,
    /// stochastic service models).
    Service,
    /// Anything else an experiment needs (routing choices, deadlines), by number.
    Other(u32),
}

impl Purpose {
    fn tag(self) -> u64 {
        match self {
            Purpose::Arrivals => 1,
            Purpose::Addresses => 2,
            Purpose::Service => 3,
            Purpose::Other(n) => 1_000 + n as u64,
        }
    }
}

/// SplitMix64 finaliser: spreads structured inputs over all 64 bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One independent random stream.
#[derive(Clone, Debug)]
pub struct Stream {
    rng: Pcg64,
}

impl Stream {
    /// The stream for `purpose` in replication `replication` of an experiment seeded `seed`.
    pub fn new(seed: u64, replication: u64, purpose: Purpose) -> Self {
        let state = (mix(seed) as u128) << 64 | mix(seed ^ 0x5DEE_CE66_D1CE_5EED) as u128;
        // PCG streams are selected by the increment: distinct (replication,
        // purpose) pairs give distinct, statistically independent sequences.
        let stream = (mix(replication) as u128) << 64
            | mix(replication.wrapping_mul(31) ^ purpose.tag()) as u128;
        Stream {
            rng: Pcg64::new(state, stream),
        }
    }

    /// Uniform on [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// Uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.rng.random_range(0..n)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// An exponential duration with the given mean, rounded to whole nanoseconds.
    pub fn exponential(&mut self, mean: Nanos) -> Nanos {
        if mean == 0 {
            return 0;
        }
        let exp = Exp::new(1.0 / mean as f64).expect("a positive rate");
        (exp.sample(&mut self.rng) + 0.5) as Nanos
    }

    /// A normal draw with the given mean and standard deviation (a
    /// non-finite or negative deviation is treated as 0).
    pub fn normal(&mut self, mean: f64, std_dev: f64) -> f64 {
        match Normal::new(mean, std_dev) {
            Ok(n) => n.sample(&mut self.rng),
            Err(_) => mean,
        }
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
    fn same_inputs_same_bits_and_streams_differ() {
        let mut a = Stream::new(42, 3, Purpose::Arrivals);
        let mut b = Stream::new(42, 3, Purpose::Arrivals);
        let mut c = Stream::new(42, 4, Purpose::Arrivals);
        let mut d = Stream::new(42, 3, Purpose::Service);
        let xs: Vec<u64> = (0..8).map(|_| a.below(u64::MAX)).collect();
        assert_eq!(xs, (0..8).map(|_| b.below(u64::MAX)).collect::<Vec<_>>());
        assert_ne!(xs, (0..8).map(|_| c.below(u64::MAX)).collect::<Vec<_>>());
        assert_ne!(xs, (0..8).map(|_| d.below(u64::MAX)).collect::<Vec<_>>());
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut s = Stream::new(1, 0, Purpose::Arrivals);
        let n = 200_000;
        let mean = (0..n).map(|_| s.exponential(1_000_000) as f64).sum::<f64>() / n as f64;
        assert!((mean / 1e6 - 1.0).abs() < 0.01, "{mean}");
    }
}
