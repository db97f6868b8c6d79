//! EDF: serve the request with the earliest deadline.
//!
//! Earliest deadline first (Liu & Layland 1973), the limit of SSEDO as β → ∞
//! (Chen & Towsley 1991, §3.2). Requests without a deadline come after all
//! that have one, in arrival order.

use crate::queue::{DeadlineHeap, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// Earliest deadline first; ties by arrival, then id.
#[derive(Clone)]
pub struct Edf<S: Storage> {
    queue: Queue<S, DeadlineHeap<S>>,
}

impl<S: Storage> Edf<S> {
    /// An empty queue holding up to `storage.capacity()` requests.
    pub fn new(storage: S) -> Self {
        Edf {
            queue: Queue::new(&storage, DeadlineHeap::new(&storage)),
        }
    }
}

impl<const N: usize> Edf<Inline<N>> {
    /// An empty queue of `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// Never. A capacity `N` of 0 or above
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY) does not compile.
    pub const fn new_inline() -> Self {
        Edf {
            queue: Queue::inline(DeadlineHeap::inline()),
        }
    }
}

impl<S: Storage> Scheduler for Edf<S> {
    delegate_to_queue!();

    fn next(&mut self, _head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let s = self.queue.index.peek()?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
