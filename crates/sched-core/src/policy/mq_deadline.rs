//! mq-deadline: Linux's deadline I/O scheduler for one rotating disk.
//!
//! After `block/mq-deadline.c` (Jens Axboe, 2016, the blk-mq adaptation of
//! the 2002 deadline scheduler) and `Documentation/block/deadline-iosched.rst`.
//! Each direction (reads, writes) has a queue sorted by position and a FIFO
//! in arrival order; a request expires `read_expire` (500 ms) or
//! `write_expire` (5 s) after it arrived. The scheduler serves *batches* of
//! one direction:
//!
//! - While a batch has served fewer than `fifo_batch` (16) requests and its
//!   direction has a request at or beyond the last one dispatched in it, the
//!   batch goes on in sorted order. Expiry is only looked at between
//!   batches, "to limit extra seeking", as the documentation says.
//! - A new batch picks its direction: reads when any are queued, unless
//!   writes wait and reads have already been preferred over waiting writes
//!   `writes_starved` (2) times, in which case writes (and the count starts
//!   again); writes when no reads are queued.
//! - The new batch starts at the oldest request of its direction if that one
//!   has expired or nothing of the direction lies at or beyond the
//!   direction's last dispatched position; otherwise it continues from that
//!   position in sorted order (a one-way elevator per direction, restarting
//!   from the oldest request rather than from sector 0).
//!
//! Positions are kept per direction, as the kernel's `latest_pos` since
//! Linux 6.0 (before that a batch in one direction forgot the other's
//! position and restarted it from its FIFO).
//!
//! **Sector order at cylinder granularity.** The kernel sorts by sector;
//! here the sort key is the request's cylinder (the driver maps blocks to
//! cylinders monotonically), and requests on one cylinder are taken in
//! arrival order rather than by sector: the same order up to requests that
//! share a cylinder, whose relative order costs no seek.
//!
//! **Left out, and why.** *Request merging* (front and back merges of
//! adjacent bios into one request) happens before a request reaches a
//! sched-core queue: a driver hands over whole requests, and a merged pair is
//! simply one larger request. *I/O priority classes* (RT, BE, IDLE, each
//! with its own queues, served in strict order with `prio_aging_expire`)
//! have no counterpart in [`Request`](crate::Request): `class` is a client or
//! stream here, not a priority; every request is in the best-effort class,
//! the one the kernel gives requests without an I/O priority. *Zoned writes*
//! (one write per sequential zone in flight) concern SMR and ZNS devices,
//! which no disk model here describes. The `async_depth` limit on
//! asynchronous requests bounds the kernel's tag allocation, not the order of
//! dispatch, and has no counterpart in a queue that holds requests it is
//! given.
//!
//! Reads sort on keys `0..C` of one cylinder index and writes on `C..2C` (C
//! the disk's cylinders): one index holds both directions' sorted queues in
//! its two halves. Memory: 62 bytes a queued request (the slab's 47, the
//! index's 7, two FIFO links of 4, shared by no other list), no allocation.

use crate::error::{BuildError, CancelError, EnqueueError, valid};
use crate::queue::{CylinderIndex, Fifo, Slab, Slot};
use crate::request::{Cylinder, Dispatch, Head, Kind, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// Index of a direction in the per-direction arrays.
const READ: usize = 0;
/// See [`READ`].
const WRITE: usize = 1;

/// Linux's mq-deadline: sorted batches per direction, FIFO expiry between
/// batches, reads preferred over writes `writes_starved` times.
///
/// ```
/// use sched_core::{Block, Blocks, Cyl, Head, Kind, NullEstimator, Request, RequestId, Scheduler};
/// use sched_core::{Inline, policy::MqDeadline};
///
/// let mut q = MqDeadline::new(Inline::<8>::new(), 1000, 500_000_000, 5_000_000_000, 16, 2)?;
/// q.enqueue(Request::new(RequestId(1), Kind::Write, Block(0), Blocks(8), Cyl(10), 0))?;
/// q.enqueue(Request::new(RequestId(2), Kind::Read, Block(0), Blocks(8), Cyl(900), 0))?;
/// // Reads come first while writes have not been passed over twice.
/// let first = q.next(Head::at(0), 0, &NullEstimator).unwrap();
/// assert_eq!(first.request.id, RequestId(2));
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct MqDeadline<S: Storage> {
    slab: Slab<S>,
    /// Reads at their cylinder, writes at `cylinders +` their cylinder.
    sorted: CylinderIndex<S>,
    fifo: [Fifo<S>; 2],
    cylinders: u32,
    expire: [Nanos; 2],
    fifo_batch: usize,
    writes_starved: usize,
    /// Direction of the batch in progress (`None` before the first dispatch).
    batch: Option<usize>,
    /// Requests the batch in progress has dispatched.
    batching: usize,
    /// Times a read batch was chosen while writes waited, since the last write batch.
    starved: usize,
    /// Sort key of the last request dispatched in each direction.
    latest: [Cylinder; 2],
}

impl<S: Storage> MqDeadline<S> {
    /// An empty queue for a disk with `cylinders` cylinders and the kernel's
    /// tunables: `read_expire` and `write_expire` (ns after arrival),
    /// `fifo_batch` (requests a batch may hold; 0 acts as 1, as in the
    /// kernel), `writes_starved` (read batches chosen over waiting writes
    /// before a write batch).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders or with
    /// more than 2³¹ (the two directions share one index of 2C keys).
    pub fn new(
        storage: S,
        cylinders: u32,
        read_expire: Nanos,
        write_expire: Nanos,
        fifo_batch: usize,
        writes_starved: usize,
    ) -> Result<Self, BuildError> {
        Ok(Self::idle(
            Slab::new(&storage),
            CylinderIndex::new(&storage, sort_keys(cylinders)?)?,
            [Fifo::new(&storage), Fifo::new(&storage)],
            cylinders,
            [read_expire, write_expire],
            fifo_batch,
            writes_starved,
        ))
    }

    /// The scheduler before its first request, on built storage (one
    /// body for [`MqDeadline::new`] and [`MqDeadline::new_inline`]).
    const fn idle(
        slab: Slab<S>,
        sorted: CylinderIndex<S>,
        fifo: [Fifo<S>; 2],
        cylinders: u32,
        expire: [Nanos; 2],
        fifo_batch: usize,
        writes_starved: usize,
    ) -> Self {
        MqDeadline {
            slab,
            sorted,
            fifo,
            cylinders,
            expire,
            fifo_batch,
            writes_starved,
            batch: None,
            batching: 0,
            starved: 0,
            latest: [0, cylinders],
        }
    }

    /// The direction a stored slot belongs to, read from its sort key.
    fn direction(&self, s: Slot) -> usize {
        if self.slab.cylinder(s) >= self.cylinders {
            WRITE
        } else {
            READ
        }
    }

    /// The request of direction `dir` at or beyond the direction's last
    /// dispatched position, nearest to it.
    fn next_in_order(&self, dir: usize) -> Option<Slot> {
        let s = self.sorted.at_or_above(&self.slab, self.latest[dir])?;
        (self.direction(s) == dir).then_some(s)
    }

    /// Whether the oldest request of `dir` has expired by `now`.
    fn fifo_expired(&self, dir: usize, now: Nanos) -> bool {
        self.fifo[dir]
            .front()
            .is_some_and(|s| now >= self.slab.arrival(s).saturating_add(self.expire[dir]))
    }

    /// Takes a slot out of every list and gives the request back as enqueued.
    fn take(&mut self, s: Slot) -> Request {
        let dir = self.direction(s);
        self.sorted.remove(&self.slab, s);
        self.fifo[dir].remove(s);
        let mut req = self.slab.remove(s);
        if dir == WRITE {
            req.cylinder -= self.cylinders;
        }
        req
    }
}

impl<const N: usize> MqDeadline<Inline<N>> {
    /// [`MqDeadline::new`] on `N` inline slots, with the same tunables,
    /// built in const context: the policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `cylinders` is 0 or above 2³¹ − 1 (which [`MqDeadline::new`]
    /// reports as [`BuildError::InvalidParameter`]); in a `static` or
    /// `const` initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(
        cylinders: u32,
        read_expire: Nanos,
        write_expire: Nanos,
        fifo_batch: usize,
        writes_starved: usize,
    ) -> Self {
        Self::idle(
            Slab::inline(),
            CylinderIndex::inline(valid(sort_keys(cylinders))),
            [Fifo::inline(), Fifo::inline()],
            cylinders,
            [read_expire, write_expire],
            fifo_batch,
            writes_starved,
        )
    }
}

/// The keys of the one cylinder index both directions share: 2C.
const fn sort_keys(cylinders: u32) -> Result<u32, BuildError> {
    match cylinders.checked_mul(2) {
        Some(keys) => Ok(keys),
        None => Err(BuildError::invalid(
            "cylinders",
            "at most 2^31 - 1 cylinders",
        )),
    }
}

impl<S: Storage> Scheduler for MqDeadline<S> {
    fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
        if req.cylinder >= self.cylinders {
            return Err(EnqueueError::CylinderOutOfRange {
                id: req.id,
                cylinder: req.cylinder,
                cylinders: self.cylinders,
            });
        }
        let (dir, key) = match req.kind {
            Kind::Read => (READ, req.cylinder),
            Kind::Write => (WRITE, req.cylinder + self.cylinders),
        };
        let s = self.slab.insert(&Request {
            cylinder: key,
            ..req
        })?;
        self.sorted.insert(&self.slab, s);
        let slab = &self.slab;
        self.fifo[dir].insert_by_arrival(s, |a, b| slab.arrives_before(a, b));
        Ok(())
    }

    fn next(&mut self, _head: Head, now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        // The batch in progress goes on in sorted order while it may.
        if let Some(dir) = self.batch
            && self.batching < self.fifo_batch
            && let Some(s) = self.next_in_order(dir)
        {
            self.batching += 1;
            self.latest[dir] = self.slab.cylinder(s);
            return Some(Dispatch::direct(self.take(s)));
        }
        // A new batch: reads unless writes have starved long enough.
        let writes_wait = self.fifo[WRITE].front().is_some();
        let dir = if self.fifo[READ].front().is_some() {
            let starve = writes_wait && self.starved >= self.writes_starved;
            if writes_wait {
                self.starved += 1;
            }
            if starve { WRITE } else { READ }
        } else if writes_wait {
            WRITE
        } else {
            return None;
        };
        if dir == WRITE {
            self.starved = 0;
        }
        let s = match self.next_in_order(dir) {
            Some(s) if !self.fifo_expired(dir, now) => s,
            _ => self.fifo[dir].front()?,
        };
        self.batch = Some(dir);
        self.batching = 1;
        self.latest[dir] = self.slab.cylinder(s);
        Some(Dispatch::direct(self.take(s)))
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.slab.find(id).ok_or(CancelError::UnknownId(id))?;
        Ok(self.take(s))
    }

    fn len(&self) -> usize {
        self.slab.len()
    }

    fn capacity(&self) -> usize {
        self.slab.capacity()
    }

    fn contains(&self, id: RequestId) -> bool {
        self.slab.find(id).is_some()
    }

    fn pop_any(&mut self) -> Option<Request> {
        let s = self.slab.any_occupied()?;
        Some(self.take(s))
    }
}
