//! Aged SPTF: positioning time minus a weight times the time already waited.
//!
//! DiskSim's aged shortest-positioning-time-first (Worthington, Ganger & Patt
//! 1994): pure SPTF can starve a request the heads keep missing; subtracting
//! `weight × waiting time` from each candidate's positioning time lets old
//! requests win eventually. Weight 0 is SPTF. Same candidate window as SPTF.

use crate::error::SchedError;
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::store::{CylinderIndex, Queue, delegate_to_queue};

use super::sptf::{best_positioned, check_window};

/// SPTF with aging.
pub struct AgedSptf<const N: usize> {
    queue: Queue<N, CylinderIndex<N>>,
    window: usize,
    /// Weight in units of 2⁻¹⁶ (nanoseconds of positioning per nanosecond waited).
    weight: i128,
}

impl<const N: usize> AgedSptf<N> {
    /// An empty queue for a disk of `cylinders` cylinders; `weight` is the
    /// positioning time forgiven per unit of waiting time (≥ 0).
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for a negative or non-finite weight, a
    /// window of 0, or an invalid capacity or cylinder count.
    pub fn new(cylinders: u32, weight: f64, window: Option<usize>) -> Result<Self, SchedError> {
        if !(weight >= 0.0 && weight.is_finite()) {
            return Err(SchedError::InvalidParameter {
                name: "weight",
                expected: "a finite weight of at least 0",
            });
        }
        Ok(AgedSptf {
            queue: Queue::new(CylinderIndex::new(cylinders)?)?,
            window: check_window(window)?,
            weight: (weight * 65_536.0 + 0.5) as i128,
        })
    }
}

impl<const N: usize> Scheduler for AgedSptf<N> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let s = best_positioned(&self.queue, self.window, self.weight, head, now, est)?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
