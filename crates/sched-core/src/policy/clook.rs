//! C-LOOK: serve upward in cylinder order, then jump back to the lowest request.
//!
//! The circular variant of LOOK: service only ever happens on the upward sweep,
//! which evens out the waiting time of edge and middle cylinders. HP-UX's
//! disk driver swept this way (Lo 1990, *Ivy*, §4.2.5, calls it CSCAN).

use crate::error::BuildError;
use crate::queue::Slot;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos, Request};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// Circular LOOK: upward sweeps only, returning directly to the lowest request.
#[derive(Clone)]
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

impl<const N: usize> CLook<Inline<N>> {
    /// An empty queue of `N` inline slots for a disk with `cylinders`
    /// cylinders, built in const context: the policy can live in a
    /// `static` (see [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `cylinders` is 0 (which [`CLook::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time. A
    /// capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY) does
    /// not compile.
    pub const fn new_inline(cylinders: u32) -> Self {
        CLook {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
        }
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

    /// The sweep from the arm up to `req`'s cylinder: the queued requests
    /// at or above the arm and at or below `req` (those on `req`'s own
    /// cylinder arrived earlier, so they go first); when `req` lies below
    /// the arm, the rest of this sweep and the next one up to `req`.
    fn work_ahead(&self, req: &Request, head: Head, est: &dyn ServiceEstimator) -> Option<Nanos> {
        let Queue { slab, index } = &self.queue;
        let mut work: Nanos = 0;
        let mut add_from = |mut at: Option<Slot>, last: u32| {
            while let Some(s) = at.filter(|&s| slab.cylinder(s) <= last) {
                work = work.saturating_add(est.expected_service_time(&slab.get(s)));
                at = index.successor(slab, s);
            }
        };
        let from_arm = index.at_or_above(slab, head.cylinder);
        if req.cylinder >= head.cylinder {
            add_from(from_arm, req.cylinder);
        } else {
            add_from(from_arm, u32::MAX);
            add_from(index.lowest(), req.cylinder);
        }
        Some(work)
    }
}
