//! SSTF: serve the request whose cylinder is nearest the arm.
//!
//! Shortest seek time first, the seek-greedy classic; the modified DMQ and CMQ
//! policies of Chen & Towsley (1991, §3.1) run it on every queue.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::Storage;

/// Shortest seek (cylinder distance) first.
///
/// Of two requests at the same distance on either side of the arm, the one that
/// arrived first is served (then the lower id); on one cylinder, arrival order.
#[derive(Clone)]
pub struct Sstf<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
}

impl<S: Storage> Sstf<S> {
    /// An empty queue for a disk with `cylinders` cylinders.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders.
    pub fn new(storage: S, cylinders: u32) -> Result<Self, BuildError> {
        Ok(Sstf {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
        })
    }
}

impl<S: Storage> Scheduler for Sstf<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &self.queue;
        let h = head.cylinder;
        let up = index.at_or_above(slab, h);
        let down = index.at_or_below(slab, h);
        let s = match (up, down) {
            (Some(u), Some(d)) => {
                let du = slab.cylinder(u) - h;
                let dd = h - slab.cylinder(d);
                if du < dd || (du == dd && slab.arrives_before(u, d)) {
                    u
                } else {
                    d
                }
            }
            (u, d) => u.or(d)?,
        };
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
