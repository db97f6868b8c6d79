//! C-LOOK: serve upward in cylinder order, then jump back to the lowest request.
//!
//! The circular variant of LOOK: service only ever happens on the upward sweep,
//! which evens out the waiting time of edge and middle cylinders.

use crate::error::SchedError;
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::store::{CylinderIndex, Queue, delegate_to_queue};

/// Circular LOOK: upward sweeps only, returning directly to the lowest request.
pub struct CLook<const N: usize> {
    queue: Queue<N, CylinderIndex<N>>,
}

impl<const N: usize> CLook<N> {
    /// An empty queue for a disk with `cylinders` cylinders.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for a capacity of 0 (or above
    /// [`crate::MAX_CAPACITY`]) or a disk without cylinders.
    pub fn new(cylinders: u32) -> Result<Self, SchedError> {
        Ok(CLook {
            queue: Queue::new(CylinderIndex::new(cylinders)?)?,
        })
    }
}

impl<const N: usize> Scheduler for CLook<N> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &self.queue;
        let s = index
            .at_or_above(slab, head.cylinder)
            .or_else(|| index.lowest())?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
