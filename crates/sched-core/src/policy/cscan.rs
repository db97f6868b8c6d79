//! C-SCAN: serve upward to the disk edge, return to cylinder 0, sweep again.
//!
//! The circular variant of SCAN. Its order matches C-LOOK; the dispatch that
//! starts a new sweep carries [`Travel::Wrap`] so the driver charges the trip
//! to the last cylinder and the return seek to cylinder 0.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos, Travel};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// Circular SCAN: upward sweeps to the edge, with a return seek to cylinder 0.
#[derive(Clone)]
pub struct CScan<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
}

impl<S: Storage> CScan<S> {
    /// An empty queue for a disk with `cylinders` cylinders.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders.
    pub fn new(storage: S, cylinders: u32) -> Result<Self, BuildError> {
        Ok(CScan {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
        })
    }
}

impl<const N: usize> CScan<Inline<N>> {
    /// An empty queue of `N` inline slots for a disk with `cylinders`
    /// cylinders, built in const context: the policy can live in a
    /// `static` (see [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `cylinders` is 0 (which [`CScan::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time. A
    /// capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY) does
    /// not compile.
    pub const fn new_inline(cylinders: u32) -> Self {
        CScan {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
        }
    }
}

impl<S: Storage> Scheduler for CScan<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &self.queue;
        let (s, travel) = match index.at_or_above(slab, head.cylinder) {
            Some(s) => (s, Travel::Direct),
            None => (
                index.lowest()?,
                Travel::Wrap {
                    edge: index.cylinders() - 1,
                    restart: 0,
                },
            ),
        };
        Some(Dispatch {
            request: self.queue.take(s),
            travel,
            chosen: None,
        })
    }
}
