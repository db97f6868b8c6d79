//! R-DMQ: each read joins one disk's queue at random.
//!
//! Towsley, Chen & Yu (1991, §2.2): a read chooses queue i with probability
//! αᵢ (the paper studies α₁ = α₂ = ½); DMQ-RD in Chen & Towsley (1991). The
//! choice uses a seeded SplitMix64 generator compared against integer
//! thresholds, so the same seed gives the same routing on every platform.
//! When some disks hold no up-to-date copy (failed, stale, or holding none:
//! a replicated object on some of the disks), the draw is among those that
//! do, each in proportion to its weight (evenly if all their weights are
//! 0): one draw per read whatever the array's health.

use super::DiskSet;
use super::copies::MAX_DISKS;
use super::dmq::{ReadRouting, RouteView};
use crate::error::BuildError;

/// Random read routing with fixed probabilities.
#[derive(Clone, Debug)]
pub struct RandomRead {
    /// Cumulative probabilities as fractions of 2⁶⁴ (the last is implicit).
    thresholds: [u64; MAX_DISKS],
    disks: usize,
    state: u64,
}

impl RandomRead {
    /// Disk d chosen with probability `alpha[d] / Σ alpha`.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] when a weight is negative or not
    /// finite, all are zero, or there are none or more than [`MAX_DISKS`].
    pub fn new(alpha: &[f64], seed: u64) -> Result<Self, BuildError> {
        let bad = BuildError::invalid(
            "alpha",
            "1 ..= 64 finite non-negative routing weights, not all zero",
        );
        if alpha.is_empty()
            || alpha.len() > MAX_DISKS
            || alpha.iter().any(|a| !(a.is_finite() && *a >= 0.0))
        {
            return Err(bad);
        }
        let total: f64 = alpha.iter().sum();
        if total <= 0.0 {
            return Err(bad);
        }
        let mut thresholds = [u64::MAX; MAX_DISKS];
        let mut cumulative = 0.0;
        for (t, a) in thresholds.iter_mut().zip(alpha) {
            cumulative += a / total;
            // `as` saturates, so the last threshold reaches u64::MAX.
            *t = (cumulative * 18_446_744_073_709_551_616.0) as u64;
        }
        thresholds[alpha.len() - 1] = u64::MAX;
        Ok(RandomRead {
            thresholds,
            disks: alpha.len(),
            state: seed,
        })
    }

    /// Disk 0 with probability `alpha`, the other `disks − 1` sharing the
    /// rest evenly (for a mirror: α₁ = α, α₂ = 1 − α).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] when `alpha` is outside [0, 1] (or
    /// below 1 for a single disk), or `disks` is 0 or above [`MAX_DISKS`].
    pub fn with_alpha(disks: usize, alpha: f64, seed: u64) -> Result<Self, BuildError> {
        if !(0.0..=1.0).contains(&alpha) || (disks == 1 && alpha < 1.0) {
            return Err(BuildError::invalid("alpha", "a probability in [0, 1]"));
        }
        if disks == 0 || disks > MAX_DISKS {
            return Err(BuildError::invalid("disks", "1 ..= 64 disks"));
        }
        let rest = if disks > 1 {
            (1.0 - alpha) / (disks - 1) as f64
        } else {
            0.0
        };
        let mut weights = [rest; MAX_DISKS];
        weights[0] = alpha;
        Self::new(&weights[..disks], seed)
    }

    fn draw(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl RandomRead {
    /// Disk `d`'s share of 2⁶⁴ (the last disk's one short of its share).
    fn weight(&self, d: usize) -> u128 {
        let below = if d == 0 { 0 } else { self.thresholds[d - 1] };
        u128::from(self.thresholds[d] - below)
    }
}

impl ReadRouting for RandomRead {
    fn route(&mut self, view: &RouteView<'_>) -> DiskSet {
        let x = self.draw();
        let n = self.disks;
        let eligible = view.eligible.intersection(DiskSet::all(n));
        if eligible == DiskSet::all(n) {
            let drawn = self.thresholds[..n]
                .iter()
                .position(|&t| x < t)
                .unwrap_or(n - 1);
            return DiskSet::only(drawn);
        }
        let total: u128 = eligible.iter().map(|d| self.weight(d)).sum();
        if total == 0 {
            let k = ((u128::from(x) * eligible.len() as u128) >> 64) as usize;
            return eligible.iter().nth(k).map_or(DiskSet::EMPTY, DiskSet::only);
        }
        let target = (u128::from(x) * total) >> 64;
        let mut below = 0;
        for d in eligible.iter() {
            below += self.weight(d);
            if target < below {
                return DiskSet::only(d);
            }
        }
        DiskSet::EMPTY
    }
}
