//! FCFS: serve requests in the order they arrived.
//!
//! The baseline of every paper in this project (Towsley, Chen & Yu 1991 use it
//! for all queues of the original PSSQ, ESQ, DMQ and CMQ policies).

use crate::queue::{Fifo, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// First come, first served: the request with the earliest `arrival` time,
/// then the lower id.
///
/// Drivers normally enqueue in arrival order, and then this is enqueue order;
/// a request enqueued late with an older arrival time (one moved from another
/// queue, say) still takes its place by arrival time.
#[derive(Clone)]
pub struct Fcfs<S: Storage> {
    queue: Queue<S, Fifo<S>>,
}

impl<S: Storage> Fcfs<S> {
    /// An empty queue holding up to `storage.capacity()` requests.
    pub fn new(storage: S) -> Self {
        Fcfs {
            queue: Queue::new(&storage, Fifo::new(&storage)),
        }
    }
}

impl<const N: usize> Fcfs<Inline<N>> {
    /// An empty queue of `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// Never. A capacity `N` of 0 or above
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY) does not compile.
    pub const fn new_inline() -> Self {
        Fcfs {
            queue: Queue::inline(Fifo::inline()),
        }
    }
}

impl<S: Storage> Scheduler for Fcfs<S> {
    delegate_to_queue!();

    fn next(&mut self, _head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let s = self.queue.index.front()?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
