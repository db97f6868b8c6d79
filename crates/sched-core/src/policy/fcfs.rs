//! FCFS: serve requests in the order they arrived.
//!
//! The baseline of every paper in this project (Towsley, Chen & Yu 1991 use it
//! for all queues of the original PSSQ, ESQ, DMQ and CMQ policies).

use crate::error::SchedError;
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::store::{Fifo, Queue, delegate_to_queue};

/// First come, first served: the request with the earliest `arrival` time,
/// then the lower id.
///
/// Drivers normally enqueue in arrival order, and then this is enqueue order;
/// a request enqueued late with an older arrival time (one moved from another
/// queue, say) still takes its place by arrival time.
pub struct Fcfs<const N: usize> {
    queue: Queue<N, Fifo<N>>,
}

impl<const N: usize> Fcfs<N> {
    /// An empty queue of capacity `N`.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] when `N` is 0 or above [`crate::MAX_CAPACITY`].
    pub fn new() -> Result<Self, SchedError> {
        Ok(Fcfs {
            queue: Queue::new(Fifo::new())?,
        })
    }
}

impl<const N: usize> Scheduler for Fcfs<N> {
    delegate_to_queue!();

    fn next(&mut self, _head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let s = self.queue.index.front()?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
