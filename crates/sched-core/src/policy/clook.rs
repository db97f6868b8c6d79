//! C-LOOK: serve upward in cylinder order, then jump back to the lowest request.
//!
//! The circular variant of LOOK: service only ever happens on the upward sweep,
//! which evens out the waiting time of edge and middle cylinders.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::Storage;

/// Circular LOOK: upward sweeps only, returning directly to the lowest request.
pub struct CLook<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
}

impl<S: Storage> CLook<S> {
    /// An empty queue for a disk with `cylinders` cylinders.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders.
    pub fn new(storage: S, cylinders: u32) -> Result<Self, BuildError> {
        Ok(CLook {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
        })
    }
}

impl<S: Storage> Scheduler for CLook<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &self.queue;
        let s = index
            .at_or_above(slab, head.cylinder)
            .or_else(|| index.lowest())?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
