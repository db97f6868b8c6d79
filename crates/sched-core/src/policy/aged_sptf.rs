//! Aged SPTF: positioning time minus a weight times the time already waited.
//!
//! DiskSim's aged shortest-positioning-time-first (Worthington, Ganger & Patt
//! 1994): pure SPTF can starve a request the heads keep missing; subtracting
//! `weight × waiting time` from each candidate's positioning time lets old
//! requests win eventually. Weight 0 is SPTF. Same candidate window as SPTF.

use crate::error::{BuildError, valid};
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

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
        let weight = aging_weight(weight)?;
        Ok(AgedSptf {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
            window: check_window(window)?,
            weight,
        })
    }
}

impl<const N: usize> AgedSptf<Inline<N>> {
    /// [`AgedSptf::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// For a negative or non-finite weight, a window of 0, or when
    /// `cylinders` is 0 (which [`AgedSptf::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32, weight: f64, window: Option<usize>) -> Self {
        AgedSptf {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
            window: valid(check_window(window)),
            weight: valid(aging_weight(weight)),
        }
    }
}

/// The aging weight in units of 2⁻¹⁶.
const fn aging_weight(weight: f64) -> Result<i128, BuildError> {
    if weight >= 0.0 && weight.is_finite() {
        Ok((weight * 65_536.0 + 0.5) as i128)
    } else {
        Err(BuildError::InvalidParameter {
            name: "weight",
            expected: "a finite weight of at least 0",
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
