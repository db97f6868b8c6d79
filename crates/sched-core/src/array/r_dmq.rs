//! R-DMQ: each read joins one disk's queue at random.
//!
//! Towsley, Chen & Yu (1991, §2.2): a read chooses queue i with probability
//! αᵢ (the paper studies α₁ = α₂ = ½); DMQ-RD in Chen & Towsley (1991). The
//! choice uses a seeded SplitMix64 generator compared against integer
//! thresholds, so the same seed gives the same routing on every platform.

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};
use crate::error::SchedError;

/// Random read routing with fixed probabilities.
#[derive(Clone, Debug)]
pub struct RandomRead<const D: usize> {
    /// Cumulative probabilities as fractions of 2⁶⁴ (the last is implicit).
    thresholds: [u64; D],
    state: u64,
}

impl<const D: usize> RandomRead<D> {
    /// Disk d chosen with probability `alpha[d] / Σ alpha`.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] when a weight is negative or not
    /// finite, or all are zero.
    pub fn new(alpha: [f64; D], seed: u64) -> Result<Self, SchedError> {
        let bad = SchedError::InvalidParameter {
            name: "alpha",
            expected: "finite non-negative routing weights, not all zero",
        };
        if alpha.iter().any(|a| !(a.is_finite() && *a >= 0.0)) {
            return Err(bad);
        }
        let total: f64 = alpha.iter().sum();
        if total <= 0.0 {
            return Err(bad);
        }
        let mut thresholds = [u64::MAX; D];
        let mut cumulative = 0.0;
        for (t, a) in thresholds.iter_mut().zip(alpha) {
            cumulative += a / total;
            // `as` saturates, so the last threshold reaches u64::MAX.
            *t = (cumulative * 18_446_744_073_709_551_616.0) as u64;
        }
        thresholds[D - 1] = u64::MAX;
        Ok(RandomRead {
            thresholds,
            state: seed,
        })
    }

    /// Disk 0 with probability `alpha`, the other disks sharing the rest
    /// evenly (for a mirror: α₁ = α, α₂ = 1 − α).
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] when `alpha` is outside [0, 1].
    pub fn with_alpha(alpha: f64, seed: u64) -> Result<Self, SchedError> {
        if !(0.0..=1.0).contains(&alpha) || (D == 1 && alpha < 1.0) {
            return Err(SchedError::InvalidParameter {
                name: "alpha",
                expected: "a probability in [0, 1]",
            });
        }
        let rest = if D > 1 {
            (1.0 - alpha) / (D - 1) as f64
        } else {
            0.0
        };
        Self::new(
            core::array::from_fn(|d| if d == 0 { alpha } else { rest }),
            seed,
        )
    }

    fn draw(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl<const D: usize> ReadRouting<D> for RandomRead<D> {
    fn route(&mut self, _view: &RouteView<'_, D>) -> DiskSet {
        let x = self.draw();
        let d = self.thresholds.iter().position(|&t| x < t).unwrap_or(D - 1);
        DiskSet::only(d)
    }
}
