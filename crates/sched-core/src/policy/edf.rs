//! EDF: serve the request with the earliest deadline.
//!
//! Earliest deadline first (Liu & Layland 1973), the limit of SSEDO as β → ∞
//! (Chen & Towsley 1991, §3.2). Requests without a deadline come after all
//! that have one, in arrival order.

use crate::error::SchedError;
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::store::{DeadlineHeap, Queue, delegate_to_queue};

/// Earliest deadline first; ties by arrival, then id.
pub struct Edf<const N: usize> {
    queue: Queue<N, DeadlineHeap<N>>,
}

impl<const N: usize> Edf<N> {
    /// An empty queue of capacity `N`.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] when `N` is 0 or above [`crate::MAX_CAPACITY`].
    pub fn new() -> Result<Self, SchedError> {
        Ok(Edf {
            queue: Queue::new(DeadlineHeap::new())?,
        })
    }
}

impl<const N: usize> Scheduler for Edf<N> {
    delegate_to_queue!();

    fn next(&mut self, _head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let s = self.queue.index.peek()?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
