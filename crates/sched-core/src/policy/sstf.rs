//! SSTF: serve the request whose cylinder is nearest the arm.
//!
//! Shortest seek time first, the seek-greedy classic; the modified DMQ and CMQ
//! policies of Chen & Towsley (1991, §3.1) run it on every queue.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

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

impl<const N: usize> Sstf<Inline<N>> {
    /// An empty queue of `N` inline slots for a disk with `cylinders`
    /// cylinders, built in const context: the policy can live in a
    /// `static`.
    ///
    /// ```
    /// use std::sync::Mutex;
    ///
    /// use sched_core::policy::Sstf;
    /// use sched_core::{Block, Blocks, Cyl, Head, Inline, Kind, NullEstimator, Request, RequestId, Scheduler};
    ///
    /// static QUEUE: Mutex<Sstf<Inline<64>>> = Mutex::new(Sstf::new_inline(1962));
    ///
    /// let mut queue = QUEUE.lock().unwrap();
    /// queue.enqueue(Request::new(RequestId(1), Kind::Read, Block(0), Blocks(8), Cyl(1500), 0))?;
    /// let served = queue.next(Head::at(1400), 0, &NullEstimator).map(|d| d.request.id);
    /// assert_eq!(served, Some(RequestId(1)));
    /// # Ok::<(), sched_core::EnqueueError>(())
    /// ```
    ///
    /// A queue of no slots, or of more than a 16-bit slot index can name,
    /// does not compile:
    ///
    /// ```compile_fail,E0080
    /// use sched_core::{Inline, policy::Sstf};
    ///
    /// static EMPTY: Sstf<Inline<0>> = Sstf::new_inline(1962);
    /// ```
    ///
    /// ```compile_fail,E0080
    /// use sched_core::{Inline, policy::Sstf};
    ///
    /// static HUGE: Sstf<Inline<65_536>> = Sstf::new_inline(1962);
    /// ```
    ///
    /// and neither does a disk without cylinders:
    ///
    /// ```compile_fail,E0080
    /// use sched_core::{Inline, policy::Sstf};
    ///
    /// static FLAT: Sstf<Inline<64>> = Sstf::new_inline(0);
    /// ```
    ///
    /// # Panics
    /// When `cylinders` is 0 (which [`Sstf::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time. A
    /// capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY) does
    /// not compile.
    pub const fn new_inline(cylinders: u32) -> Self {
        Sstf {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
        }
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
