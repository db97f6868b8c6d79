//! The single-disk scheduler trait and the service-time estimator disk models implement.

use crate::error::{CancelError, EnqueueError};
use crate::request::{Direction, Dispatch, FreeBlock, Head, Nanos, Request, RequestId};

/// Estimates how long a disk would take to serve a request.
///
/// Disk models implement it (disk-emu's mechanical models track the spindle's
/// rotational phase from the clock, so `now` matters). Policies that only look at
/// cylinder distance or deadlines never call it.
///
/// An estimator is `Sync`: it answers through `&self` alone, and every
/// estimator of this workspace (disk-emu's models, the null one) is plain
/// data. So a `&dyn ServiceEstimator` may be shared across threads, and an
/// [`ArrayView`](crate::array::ArrayView), which holds them, is `Send` and
/// `Sync`: a driver may poll its array from a worker thread. A model that
/// caches answers behind `&self` uses a lock or atomics, not a `Cell`.
pub trait ServiceEstimator: Sync {
    /// Time to position the heads over the first block of `req` if the arm is at
    /// `head` at time `now`: seek plus rotational latency, with any head switch.
    fn positioning_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos;

    /// Time from dispatch to completion: positioning plus transfer plus
    /// controller overhead.
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos;

    /// Expected service time of `req` from an arm at a random position at a
    /// random moment: mean seek plus half a revolution plus transfer and
    /// overhead. Array policies sum it over a disk's queued operations to
    /// estimate how long that disk needs to drain its queue (Ivy's copy
    /// selection); it must depend on the request alone, so that the sum kept
    /// as operations come and go stays exact.
    fn expected_service_time(&self, req: &Request) -> Nanos;

    /// The free place of `blocks` blocks the heads reach soonest from `head`
    /// at `now`, on the arm's own cylinder or beyond it in direction `sweep`:
    /// where an eager write goes (Zhang, Yu, Krishnamurthy & Wang, FAST 2002).
    ///
    /// Only a driver that keeps a free-space map can answer, so the default
    /// answers `None` ("no free place known"): with it an eager-writing
    /// policy writes in place, and every other policy never asks.
    fn nearest_free(
        &self,
        head: Head,
        now: Nanos,
        sweep: Direction,
        blocks: u32,
    ) -> Option<FreeBlock> {
        let _ = (head, now, sweep, blocks);
        None
    }
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
    fn expected_service_time(&self, _req: &Request) -> Nanos {
        0
    }
}

/// A queue discipline for one disk, as a sans-IO state machine.
///
/// The driver owns the clock and the device. Implementations hold a fixed
/// number of requests (the capacity of the [`Storage`](crate::Storage) they
/// were built on), never allocate, and break ties deterministically: by
/// arrival time, then by id, unless a policy's documentation says otherwise.
///
/// The methods fall in three groups:
///
/// - **Inputs**, which change the queue: [`enqueue`](Self::enqueue) a request
///   that arrived, [`cancel`](Self::cancel) one that is no longer wanted.
/// - **Outputs**, which the driver polls: [`next`](Self::next), the request to
///   serve when the disk is free; [`take_expired`](Self::take_expired),
///   requests a deadline policy drops; [`next_eligible_at`](Self::next_eligible_at),
///   when a policy that holds work back will release it; [`pop_any`](Self::pop_any)
///   for draining.
/// - **Getters**: [`len`](Self::len), [`capacity`](Self::capacity),
///   [`is_empty`](Self::is_empty), [`contains`](Self::contains).
///
/// A driver calls them in this order whenever its disk is free: enqueue every
/// arrival up to now; collect `take_expired` until it returns `None`; ask
/// `next`. When `next` returns `None` with requests queued, the policy is
/// holding them back: wake up at `next_eligible_at(now)` (or at the next
/// arrival, whichever is first) and ask again.
///
/// The trait is object safe: drivers may hold `&mut dyn Scheduler`.
pub trait Scheduler {
    /// Adds a request to the queue.
    ///
    /// There is no `now` here: the time a request arrived is its
    /// [`Request::arrival`], which the driver stamps with its own clock, and
    /// that one clock is what the policies order by. A request the driver
    /// queues later than it arrived (a held-back array operation, one moved
    /// from another queue) keeps its arrival time and its place in arrival
    /// order.
    ///
    /// # Errors
    /// [`EnqueueError::QueueFull`] when the queue is at capacity,
    /// [`EnqueueError::DuplicateId`] when a request with the same id is queued,
    /// [`EnqueueError::CylinderOutOfRange`] when the policy orders by cylinder
    /// and the request lies beyond the disk it was built for. The queue is unchanged.
    fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError>;

    /// Removes and returns the request the disk should serve next, or `None` when
    /// nothing is queued (or, for policies that drop expired requests, when only
    /// expired requests remain: collect those with [`Scheduler::take_expired`];
    /// or, for policies that are not work-conserving, when the queued requests
    /// may not start yet: see [`Scheduler::next_eligible_at`]).
    #[must_use = "a dispatched request has left the queue: serve it"]
    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch>;

    /// Withdraws a queued request (a lost transaction withdrawing its I/O).
    ///
    /// # Errors
    /// [`CancelError::UnknownId`] when no queued request has this id.
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError>;

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
    #[must_use = "the request has left the queue"]
    fn pop_any(&mut self) -> Option<Request>;

    /// Removes one request whose deadline passed before `now`, if the policy
    /// drops expired requests (FD-SCAN in drop mode). Drivers call it until it
    /// returns `None` before each [`Scheduler::next`]; the default drops nothing.
    #[must_use = "the expired request has left the queue: report it"]
    fn take_expired(&mut self, now: Nanos) -> Option<Request> {
        let _ = now;
        None
    }

    /// The wake-up hint of a policy that is not work-conserving (WRR-SCAN holds
    /// jobs to round boundaries): when [`Scheduler::next`] returned `None` with
    /// requests queued, the earliest time after `now` at which it may return
    /// one without any new input. `None` (the default, right for every
    /// work-conserving policy) means "not before the next enqueue".
    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        let _ = now;
        None
    }

    /// The expected work (`est.expected_service_time` summed) of the queued
    /// requests this discipline would serve before `req`, were `req`
    /// enqueued now with the arm at `head`: what a router predicting `req`'s
    /// wait needs from a discipline that reorders its queue (Ivy's copy
    /// selection, Lo 1990 §4.3). `None`, the default, means every queued
    /// request comes first, which is exact for FCFS; C-LOOK answers for
    /// itself.
    fn work_ahead(&self, req: &Request, head: Head, est: &dyn ServiceEstimator) -> Option<Nanos> {
        let _ = (req, head, est);
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

impl<S: Scheduler + ?Sized> core::fmt::Debug for Drain<'_, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Drain")
            .field("remaining", &self.queue.len())
            .finish()
    }
}

/// Forwards every method, default ones included, to the referent or box:
/// generic code takes `impl Scheduler` and a caller passes `&mut policy`,
/// `Box<dyn Scheduler>` or `&mut dyn Scheduler` alike.
macro_rules! forward_scheduler {
    ($($(#[$attr:meta])* [$($generics:tt)*] $ty:ty;)*) => {$(
        $(#[$attr])*
        impl<$($generics)*> Scheduler for $ty {
            #[inline]
            fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
                (**self).enqueue(req)
            }
            #[inline]
            fn next(
                &mut self,
                head: Head,
                now: Nanos,
                est: &dyn ServiceEstimator,
            ) -> Option<Dispatch> {
                (**self).next(head, now, est)
            }
            #[inline]
            fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
                (**self).cancel(id)
            }
            #[inline]
            fn len(&self) -> usize {
                (**self).len()
            }
            #[inline]
            fn capacity(&self) -> usize {
                (**self).capacity()
            }
            #[inline]
            fn is_empty(&self) -> bool {
                (**self).is_empty()
            }
            #[inline]
            fn contains(&self, id: RequestId) -> bool {
                (**self).contains(id)
            }
            #[inline]
            fn pop_any(&mut self) -> Option<Request> {
                (**self).pop_any()
            }
            #[inline]
            fn take_expired(&mut self, now: Nanos) -> Option<Request> {
                (**self).take_expired(now)
            }
            #[inline]
            fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
                (**self).next_eligible_at(now)
            }
            #[inline]
            fn work_ahead(
                &self,
                req: &Request,
                head: Head,
                est: &dyn ServiceEstimator,
            ) -> Option<Nanos> {
                (**self).work_ahead(req, head, est)
            }
        }
    )*};
}

forward_scheduler! {
    [S: Scheduler + ?Sized] &mut S;
    #[cfg(feature = "alloc")]
    [S: Scheduler + ?Sized] alloc::boxed::Box<S>;
}

/// Forwards every method, the default one included, to the referent or box.
macro_rules! forward_estimator {
    ($($(#[$attr:meta])* [$($generics:tt)*] $ty:ty;)*) => {$(
        $(#[$attr])*
        impl<$($generics)*> ServiceEstimator for $ty {
            #[inline]
            fn positioning_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
                (**self).positioning_time(head, req, now)
            }
            #[inline]
            fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
                (**self).service_time(head, req, now)
            }
            #[inline]
            fn expected_service_time(&self, req: &Request) -> Nanos {
                (**self).expected_service_time(req)
            }
            #[inline]
            fn nearest_free(
                &self,
                head: Head,
                now: Nanos,
                sweep: Direction,
                blocks: u32,
            ) -> Option<FreeBlock> {
                (**self).nearest_free(head, now, sweep, blocks)
            }
        }
    )*};
}

forward_estimator! {
    [E: ServiceEstimator + ?Sized] &E;
    #[cfg(feature = "alloc")]
    [E: ServiceEstimator + ?Sized] alloc::boxed::Box<E>;
}
