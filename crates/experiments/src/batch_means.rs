//! Confidence intervals from a single long run: batch means and the
//! regenerative method. Independent replications are the project's default;
//! these serve when one run must stand alone, as in the mirrored-disk paper
//! (regenerative cycles).

use crate::confidence::{Interval, StatsError, student_t_quantile};
use disk_emu::Moments;

/// Batches kept at most; when full, neighbours merge pairwise, leaving half.
const MAX_BATCHES: usize = 64;

/// Streaming batch means in constant memory.
///
/// Observations are grouped into consecutive batches whose means are treated
/// as independent. Since the run length is not known in advance, the batch
/// size starts at 1 and doubles whenever 64 batches are full (adjacent pairs
/// merge), so at any time there are between 32 and 64 complete batches once
/// 64 observations have been seen, and batches grow with the run — long
/// batches are what makes their means nearly independent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchMeans {
    sums: [f64; MAX_BATCHES],
    full: usize,
    batch_size: u64,
    current_sum: f64,
    current_count: u64,
}

impl Default for BatchMeans {
    fn default() -> Self {
        BatchMeans::new()
    }
}

impl BatchMeans {
    /// Nothing observed yet.
    pub const fn new() -> Self {
        BatchMeans {
            sums: [0.0; MAX_BATCHES],
            full: 0,
            batch_size: 1,
            current_sum: 0.0,
            current_count: 0,
        }
    }

    /// Adds the next observation of the run, in time order.
    pub fn add(&mut self, x: f64) {
        self.current_sum += x;
        self.current_count += 1;
        if self.current_count < self.batch_size {
            return;
        }
        self.sums[self.full] = self.current_sum;
        self.full += 1;
        self.current_sum = 0.0;
        self.current_count = 0;
        if self.full == MAX_BATCHES {
            for i in 0..MAX_BATCHES / 2 {
                self.sums[i] = self.sums[2 * i] + self.sums[2 * i + 1];
            }
            self.full = MAX_BATCHES / 2;
            self.batch_size *= 2;
        }
    }

    /// Number of complete batches.
    pub fn batches(&self) -> usize {
        self.full
    }

    /// Current batch size.
    pub fn batch_size(&self) -> u64 {
        self.batch_size
    }

    /// The interval for the mean from the complete batches (the trailing
    /// partial batch is left out, so that every batch mean has the same
    /// variance), with batches − 1 degrees of freedom.
    pub fn interval(&self, level: f64) -> Result<Interval, StatsError> {
        let mut m = Moments::new();
        for &sum in &self.sums[..self.full] {
            m.add(sum / self.batch_size as f64);
        }
        Interval::from_moments(&m, level)
    }
}

/// The regenerative ratio estimator in constant memory.
///
/// A run splits at regeneration points (for a queue, typically arrivals that
/// find it empty) into independent, identically distributed cycles. Cycle i
/// contributes a total Yᵢ (the sum of response times of its requests) and a
/// length τᵢ (its number of requests, or its duration); the estimate of the
/// mean is r = ΣY / Στ. Its interval uses the variance of Yᵢ − r·τᵢ, kept with
/// centred co-moments (Welford's update for two variables) so that large
/// totals do not cancel. Whether cycles really regenerate is the caller's
/// judgement: for a disk the arm position at the cycle start also matters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Regenerative {
    cycles: u64,
    mean_y: f64,
    mean_tau: f64,
    c_yy: f64,
    c_tt: f64,
    c_yt: f64,
}

impl Regenerative {
    /// No cycles yet.
    pub const fn new() -> Self {
        Regenerative {
            cycles: 0,
            mean_y: 0.0,
            mean_tau: 0.0,
            c_yy: 0.0,
            c_tt: 0.0,
            c_yt: 0.0,
        }
    }

    /// One completed cycle with total `y` and length `tau`.
    pub fn add_cycle(&mut self, y: f64, tau: f64) {
        self.cycles += 1;
        let n = self.cycles as f64;
        let dy = y - self.mean_y;
        let dt = tau - self.mean_tau;
        self.mean_y += dy / n;
        self.mean_tau += dt / n;
        self.c_yy += dy * (y - self.mean_y);
        self.c_tt += dt * (tau - self.mean_tau);
        self.c_yt += dy * (tau - self.mean_tau);
    }

    /// Number of cycles.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// The ratio estimate ΣY / Στ, if some cycle had a non-zero length.
    pub fn ratio(&self) -> Option<f64> {
        (self.cycles > 0 && self.mean_tau != 0.0).then(|| self.mean_y / self.mean_tau)
    }

    /// The interval r ± t·s / (τ̄·√n), s² being the sample variance of
    /// Yᵢ − r·τᵢ, with n − 1 degrees of freedom.
    pub fn interval(&self, level: f64) -> Result<Interval, StatsError> {
        if !(level > 0.0 && level < 1.0) {
            return Err(StatsError::InvalidLevel(level));
        }
        let r = self.ratio().ok_or(StatsError::Empty)?;
        let n = self.cycles;
        // With one cycle there is no spread to estimate (df = 0: no quantile).
        let half_width = student_t_quantile(0.5 + level / 2.0, n - 1).map(|t| {
            // Σ(Yᵢ − r τᵢ)² about the means; the cross term vanishes since
            // Ȳ − r τ̄ = 0. Rounding may leave a tiny negative value.
            let ss = (self.c_yy - 2.0 * r * self.c_yt + r * r * self.c_tt).max(0.0);
            let s = (ss / (n - 1) as f64).sqrt();
            t * s / (self.mean_tau.abs() * (n as f64).sqrt())
        });
        Ok(Interval {
            mean: r,
            half_width,
            n,
            level,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_double_and_means_are_right() {
        let mut b = BatchMeans::new();
        for x in 1..=63 {
            b.add(x as f64);
        }
        assert_eq!((b.batches(), b.batch_size()), (63, 1));
        b.add(64.0);
        assert_eq!((b.batches(), b.batch_size()), (32, 2));
        for x in 65..=100 {
            b.add(x as f64);
        }
        // 50 batches of two: means 1.5, 3.5, …, 99.5.
        assert_eq!((b.batches(), b.batch_size()), (50, 2));
        let i = b.interval(0.95).unwrap();
        assert_eq!(i.mean, 50.5);
        assert_eq!(i.n, 50);
        // Batch means are 2k − ½, k = 1..50: s = 2·sd(1..50) = 2·√212.5.
        let want = student_t_quantile(0.975, 49).unwrap() * 2.0 * 212.5f64.sqrt() / 50f64.sqrt();
        assert!((i.half_width.unwrap() - want).abs() < 1e-9);
        // The trailing partial batch is left out.
        b.add(1e9);
        assert_eq!(b.interval(0.95).unwrap().mean, 50.5);
    }

    #[test]
    fn batch_memory_is_constant() {
        let mut b = BatchMeans::new();
        for x in 0..1_000_000u64 {
            b.add((x % 10) as f64);
        }
        assert!((32..=64).contains(&b.batches()));
        assert_eq!(b.batch_size(), 16_384);
        assert!((b.interval(0.95).unwrap().mean - 4.5).abs() < 1e-3);
        assert!(BatchMeans::new().interval(0.95).is_err());
    }

    #[test]
    fn regenerative_ratio_and_interval() {
        // Y = (1, 5, 3), τ = (1, 2, 1): r = 9/4; Y − rτ = (−1.25, 0.5, 0.75),
        // Σ² = 2.375, s² = 1.1875; τ̄ = 4/3.
        let mut g = Regenerative::new();
        for (y, tau) in [(1.0, 1.0), (5.0, 2.0), (3.0, 1.0)] {
            g.add_cycle(y, tau);
        }
        assert_eq!(g.cycles(), 3);
        assert!((g.ratio().unwrap() - 2.25).abs() < 1e-15);
        let i = g.interval(0.95).unwrap();
        let want =
            student_t_quantile(0.975, 2).unwrap() * 1.1875f64.sqrt() / (4.0 / 3.0 * 3f64.sqrt());
        assert!((i.half_width.unwrap() - want).abs() < 1e-12, "{i:?} {want}");
        assert!((want - 2.030_269_734).abs() < 1e-8);
        // Cycles proportional to their length: no uncertainty at all.
        let mut g = Regenerative::new();
        for tau in [1.0, 2.0, 3.0, 7.0] {
            g.add_cycle(2.0 * tau, tau);
        }
        assert!(g.interval(0.95).unwrap().half_width.unwrap() < 1e-12);
        assert_eq!(Regenerative::new().interval(0.95), Err(StatsError::Empty));
        assert_eq!(g.interval(2.0), Err(StatsError::InvalidLevel(2.0)));
    }
}
