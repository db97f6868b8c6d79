//! The single-disk scheduler trait and the service-time estimator disk models implement.

use crate::error::SchedError;
use crate::request::{Dispatch, Head, Nanos, Request, RequestId};

/// Estimates how long a disk would take to serve a request.
///
/// Disk models implement it (disk-emu's mechanical models track the spindle's
/// rotational phase from the clock, so `now` matters). Policies that only look at
/// cylinder distance or deadlines never call it.
pub trait ServiceEstimator {
    /// Time to position the heads over the first block of `req` if the arm is at
    /// `head` at time `now`: seek plus rotational latency, with any head switch.
    fn positioning_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos;

    /// Time from dispatch to completion: positioning plus transfer plus
    /// controller overhead.
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos;
}

/// An estimator that knows nothing: every request costs nothing to reach or serve.
///
/// Drivers without a disk model pass it; with it SPTF degenerates to FCFS-like
/// tie-breaking and FD-SCAN treats every unexpired deadline as feasible.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullEstimator;

impl ServiceEstimator for NullEstimator {
    fn positioning_time(&self, _head: Head, _req: &Request, _now: Nanos) -> Nanos {
        0
    }
    fn service_time(&self, _head: Head, _req: &Request, _now: Nanos) -> Nanos {
        0
    }
}

/// A queue discipline for one disk, as a sans-IO state machine.
///
/// The driver owns the clock and the device. It enqueues requests as they arrive
/// and, whenever the disk is free, asks [`Scheduler::next`] which request to
/// serve. Implementations hold a fixed number of requests (their const generic
/// capacity), never allocate, and break ties deterministically: by arrival time,
/// then by id, unless a policy's documentation says otherwise.
///
/// The trait is object safe: drivers may hold `&mut dyn Scheduler`.
pub trait Scheduler {
    /// Adds a request to the queue.
    ///
    /// # Errors
    /// [`SchedError::QueueFull`] when the queue is at capacity,
    /// [`SchedError::DuplicateId`] when a request with the same id is queued,
    /// [`SchedError::CylinderOutOfRange`] when the policy orders by cylinder and
    /// the request lies beyond the disk it was built for. The queue is unchanged.
    fn enqueue(&mut self, req: Request, now: Nanos) -> Result<(), SchedError>;

    /// Removes and returns the request the disk should serve next, or `None` when
    /// nothing is queued (or, for policies that drop expired requests, when only
    /// expired requests remain: collect those with [`Scheduler::take_expired`]).
    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch>;

    /// Withdraws a queued request (a lost transaction withdrawing its I/O).
    ///
    /// # Errors
    /// [`SchedError::UnknownId`] when no queued request has this id.
    fn cancel(&mut self, id: RequestId) -> Result<Request, SchedError>;

    /// Number of queued requests, expired ones awaiting collection included.
    fn len(&self) -> usize;

    /// The fixed number of requests the queue can hold.
    fn capacity(&self) -> usize;

    /// True when nothing is queued.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a request with this id is queued.
    fn contains(&self, id: RequestId) -> bool;

    /// Removes some queued request regardless of policy order (the one in the
    /// lowest storage slot), for draining a queue on shutdown or failover.
    fn pop_any(&mut self) -> Option<Request>;

    /// Removes one request whose deadline passed before `now`, if the policy
    /// drops expired requests (FD-SCAN in drop mode). Drivers call it until it
    /// returns `None` before each [`Scheduler::next`]; the default drops nothing.
    fn take_expired(&mut self, now: Nanos) -> Option<Request> {
        let _ = now;
        None
    }
}

/// Iterator that empties a scheduler, see [`drain`].
pub struct Drain<'a, S: Scheduler + ?Sized> {
    queue: &'a mut S,
}

impl<S: Scheduler + ?Sized> Iterator for Drain<'_, S> {
    type Item = Request;
    fn next(&mut self) -> Option<Request> {
        self.queue.pop_any()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.queue.len();
        (n, Some(n))
    }
}

/// Empties `queue`, yielding every queued request once (in storage order).
pub fn drain<S: Scheduler + ?Sized>(queue: &mut S) -> Drain<'_, S> {
    Drain { queue }
}
