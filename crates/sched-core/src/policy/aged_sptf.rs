//! Aged SPTF: positioning time minus a weight times the time already waited.
//!
//! DiskSim's aged shortest-positioning-time-first (Worthington, Ganger & Patt
//! 1994): pure SPTF can starve a request the heads keep missing; subtracting
//! `weight × waiting time` from each candidate's positioning time lets old
//! requests win eventually. Weight 0 is SPTF. Same candidate window as SPTF.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::Storage;

use super::sptf::{best_positioned, check_window};

/// SPTF with aging.
#[derive(Clone)]
pub struct AgedSptf<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
    window: usize,
    /// Weight in units of 2⁻¹⁶ (nanoseconds of positioning per nanosecond waited).
    weight: i128,
}

impl<S: Storage> AgedSptf<S> {
    /// An empty queue for a disk of `cylinders` cylinders; `weight` is the
    /// positioning time forgiven per unit of waiting time (≥ 0).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a negative or non-finite weight, a
    /// window of 0, or a disk without cylinders.
    pub fn new(
        storage: S,
        cylinders: u32,
        weight: f64,
        window: Option<usize>,
    ) -> Result<Self, BuildError> {
        if !(weight >= 0.0 && weight.is_finite()) {
            return Err(BuildError::InvalidParameter {
                name: "weight",
                expected: "a finite weight of at least 0",
            });
        }
        Ok(AgedSptf {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
            window: check_window(window)?,
            weight: (weight * 65_536.0 + 0.5) as i128,
        })
    }
}

impl<S: Storage> Scheduler for AgedSptf<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let s = best_positioned(&self.queue, self.window, self.weight, head, now, est)?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
