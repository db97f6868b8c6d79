//! Policies for arrays of up to 64 disks holding copies of the same data:
//! mirrors, N-copy replication, degraded and rebuilding arrays.
//!
//! An [`ArrayPolicy`] is a sans-IO state machine like a
//! [`Scheduler`], one level up. The driver submits
//! *logical* requests together with their [`Copies`] — which disks hold a
//! copy and where on each (block and cylinder) — tells the policy when a disk
//! finishes the operation it was given, and polls for operations to start
//! until the policy has nothing more. An operation sent to disk `d` carries
//! the block and cylinder of the copy on disk `d`.
//!
//! What counts as done is the array's [`Ack`] rule: a read completes with its
//! first copy; a write with all its copies, the first, or k of n (the others
//! finish in the background and stay tracked until they settle). Disks have a
//! [`DiskState`]: a read is only routed to a copy that is up to date (online,
//! or rebuilt past the copy, and not behind an acknowledged write still
//! being propagated); writes skip failed disks and say so in their
//! [`Completion::skipped`], so the driver knows what to resync.
//!
//! Overlapping writes keep their order on each disk: when a write has been
//! acknowledged before all its copies are written (under [`Ack::First`] or
//! a quorum) and a later write overlaps it, a disk holding both writes the
//! earlier first, whatever its queue discipline would choose, so no copy
//! ends with older data than the array acknowledged (DMQ's disk queues and
//! CMQ's auxiliary queues; the single-queue family starts a write on every
//! disk at once). Overlapping writes the array has not acknowledged are the
//! submitter's to order, as on any block device.
//!
//! The driver loop, the same in the emulator, the transaction simulator and a
//! block device (this one compiles; see the crate's `examples/` for a full one):
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use sched_core::array::{ArrayPolicy, ArraySpec, ArrayView, Copies, Location};
//! use sched_core::{Head, Heap, Kind, NullEstimator, Request, RequestId, ServiceEstimator};
//!
//! let mut array = "dmq-sq".parse::<ArraySpec>()?.build(Heap::new(64)?, 2, 1000, 7)?;
//! let heads = [Head::at(0), Head::at(999)];
//! let estimators: [&dyn ServiceEstimator; 2] = [&NullEstimator, &NullEstimator];
//! let view = ArrayView { now: 0, heads: &heads, estimators: &estimators };
//! // A mirrored block: at block 800 (cylinder 100) on disk 0, at block 4000
//! // (cylinder 500) on disk 1.
//! let copies = Copies::new()
//!     .with(0, Location { block: 800, cylinder: 100 })
//!     .with(1, Location { block: 4000, cylinder: 500 });
//! let read = Request::new(RequestId(1), Kind::Read, 800, 8, 100, 0);
//! array.submit(read, &copies, &view)?;
//! // Start what can start: the read goes to one disk, at that disk's copy.
//! let mut started = Vec::new();
//! while let Some(start) = array.poll_start(&view)? {
//!     started.push(start);
//! }
//! assert_eq!(started.len(), 1);
//! let op = started[0].dispatch.request;
//! assert_eq!((started[0].disk, op.block, op.cylinder), (0, 800, 100));
//! // The disk finishes: the read is done.
//! let done = array.complete(started[0].disk, 5_000_000)?;
//! assert_eq!(done.finished.map(|r| r.id), Some(RequestId(1)));
//! # }
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
//!
//! The policies of Towsley, Chen & Yu (1991) and Chen & Towsley (1991) are
//! here, one per file: the single-queue family ([`SPssq`], [`CPssq`],
//! [`CrEsq`], [`CruEsq`], [`MrEsq`]), the distributed multiple-queue family
//! ([`Dmq`] with the read routings [`RandomRead`] (R-DMQ), [`ShortestQueue`]
//! (SQ-DMQ), [`BothCopies`] (MR-DMQ), [`BothCopiesAbort`] (MR-DMQA), [`Md`]
//! (Linux md RAID-1's read balancing) and [`LeastTurnaround`] (Ivy's least
//! expected turnaround)) and the common multiple-queue policy [`Cmq`]. DMQ
//! and CMQ take any [`Scheduler`] as their queue
//! discipline, so the real-time variants are compositions: RT-DMQ is DMQ over
//! [`Ssedo`](crate::policy::Ssedo), RT-CMQ-S is CMQ with SSEDO on the common
//! queue and SSTF on the auxiliary queues. Each start rule and read routing,
//! CMQ and each named composition is a row of the policy table (see
//! [`registry`](crate::registry)).
//!
//! The eager-writing array of Zhang, Yu, Krishnamurthy & Wang (2002) is
//! [`EwArray`]: one stripe group, with foreground and delayed-write queues
//! per disk, whose writes are placed once at dispatch and propagated by the
//! driver.
//!
//! The families share their bookkeeping: [`Array`] keeps the ledger of
//! logical requests and handles completions, cancels and disk failures the
//! same way for all of them; a family supplies only where work waits and
//! which operation starts next, and a new policy of a family only its start
//! rule ([`StartRule`]) or read routing ([`ReadRouting`]).

mod bookkeeping;
mod c_pssq;
mod cmq;
mod copies;
mod cr_esq;
mod cru_esq;
mod dmq;
mod ew_array;
mod least_turnaround;
mod ledger;
mod md;
mod mr_dmq;
mod mr_dmqa;
mod mr_esq;
mod r_dmq;
mod s_pssq;
mod single_queue;
mod sq_dmq;

pub use bookkeeping::*;
pub use c_pssq::*;
pub use cmq::*;
pub use copies::*;
pub use cr_esq::*;
pub use cru_esq::*;
pub use dmq::*;
pub use ew_array::*;
pub use least_turnaround::*;
pub use ledger::*;
pub use md::*;
pub use mr_dmq::*;
pub use mr_dmqa::*;
pub use mr_esq::*;
pub use r_dmq::*;
pub use s_pssq::*;
pub use single_queue::*;
pub use sq_dmq::*;

pub use crate::error::ArraySpecError;
#[cfg(feature = "alloc")]
pub use crate::policy_table::AnyArray;
pub use crate::policy_table::{AnyRouting, AnyStartRule, ArraySpec, Routing};

use crate::error::{BuildError, CancelError, CompleteError, EnqueueError, PollError};
use crate::request::{Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};

/// When a write counts as done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ack {
    /// When every copy it was sent to is written (the mirrored-disk papers).
    #[default]
    All,
    /// When the first copy is written; the others finish in the background
    /// (Ivy's RNWN, eager-writing arrays).
    First,
    /// When `k` copies are written (all of them if fewer were sent).
    Quorum(u8),
}

/// The health of one disk of an array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DiskState {
    /// Serving reads and writes.
    #[default]
    Online,
    /// Gone: nothing is sent to it; writes skip it and report so.
    Failed,
    /// A replacement being resynchronised: it receives every write, and
    /// serves reads of copies lying wholly below `rebuilt_to` (a block number
    /// on this disk), which the driver raises as its resync progresses.
    Rebuilding {
        /// Blocks `0..rebuilt_to` of this disk hold current data.
        rebuilt_to: u64,
    },
}

/// What the driver shows the policy of its disks at a moment: the clock, each
/// arm, and each disk's service-time estimator. Both slices have one entry
/// per disk of the array.
#[derive(Clone, Copy)]
pub struct ArrayView<'a> {
    /// The current time.
    pub now: Nanos,
    /// Each disk's arm.
    pub heads: &'a [Head],
    /// Each disk's service-time estimator.
    pub estimators: &'a [&'a dyn ServiceEstimator],
}

/// An operation to start: disk `disk` serves `dispatch.request`, whose id is
/// the logical request's and whose block and cylinder are those of the copy
/// on this disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    /// The disk that starts the operation.
    pub disk: usize,
    /// The operation and the arm's path to it.
    pub dispatch: Dispatch,
}

/// What one finished operation (or one disk failure) means for the array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use = "a completion may finish a request or ask for aborts"]
pub struct Completion {
    /// The logical request now acknowledged, if any: a read's first copy, a
    /// write's copy that meets the [`Ack`] rule.
    pub finished: Option<Request>,
    /// A write all of whose copies are now written or skipped (with
    /// [`Ack::All`] at the same time as `finished`; later with an early
    /// acknowledgement).
    pub settled: Option<Request>,
    /// With `settled`: the holders that did not get the write (failed, or
    /// left out by the write routing). The driver resyncs them.
    pub skipped: DiskSet,
    /// A request that can no longer be served: a write whose every target
    /// failed; a read with no up-to-date copy left on a live disk. That
    /// includes the double fault of a read whose only current copy was lost
    /// while its other copies still await an acknowledged write (with
    /// [`Ack::First`] or a quorum): the policy fails it rather than hold it
    /// for a write it cannot order, and the driver may retry it once that
    /// write settles.
    pub failed: Option<Request>,
    /// Disks whose in-service operation the driver must abort now (the other
    /// copies of a read that has just completed). The policy already counts
    /// them as idle.
    pub abort: DiskSet,
}

impl Completion {
    /// True when the completion reports nothing.
    pub fn is_empty(&self) -> bool {
        *self == Completion::default()
    }
}

/// A scheduling policy for an array of disks holding copies of the same data.
///
/// The methods fall in three groups, as in a protocol state machine:
///
/// - **Inputs**: [`submit`](Self::submit) a logical request with its copies;
///   [`complete`](Self::complete) when a disk finishes its operation;
///   [`cancel`](Self::cancel) a request no longer wanted;
///   [`set_disk_state`](Self::set_disk_state) when a disk fails, is replaced
///   or has been rebuilt further.
/// - **Outputs**: [`poll_start`](Self::poll_start), the next operation to
///   start on an idle disk; [`poll_event`](Self::poll_event), completions
///   caused by a disk failure rather than by a finished operation;
///   [`next_eligible_at`](Self::next_eligible_at), the wake-up hint of queue
///   disciplines that hold work back.
/// - **Getters**: [`disks`](Self::disks), [`disk_state`](Self::disk_state),
///   [`in_system`](Self::in_system), [`is_busy`](Self::is_busy), the queue
///   lengths.
///
/// After every input the driver drains the outputs: `poll_event` until
/// `None`, then `poll_start` until `None`, starting each operation on its disk.
/// When `poll_start` returns `None` with work queued and no disk busy, wake up
/// at `next_eligible_at(now)`.
///
/// Object safe: drivers may hold `&mut dyn ArrayPolicy`.
///
/// # Panics
/// Methods taking an [`ArrayView`] index its slices by disk: a view with
/// fewer heads or estimators than [`disks`](Self::disks) panics. That is a
/// driver's bug, never a consequence of the requests it forwards.
pub trait ArrayPolicy {
    /// Accepts a logical request: a read (one up-to-date copy suffices) or a
    /// write (an update of the copies its routing chooses).
    ///
    /// # Errors
    /// [`EnqueueError::QueueFull`]; [`EnqueueError::DuplicateId`] (an id stays
    /// in use until every operation of its request has left the array);
    /// [`EnqueueError::InvalidCopies`]; [`EnqueueError::NoEligibleDisk`];
    /// [`EnqueueError::NoRoute`]; or a queue discipline's refusal. Nothing is
    /// kept when an error is returned.
    fn submit(
        &mut self,
        req: Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError>;

    /// Disk `disk` finished the operation it was serving.
    ///
    /// # Errors
    /// [`CompleteError::IdleDisk`] when the policy gave that disk nothing to
    /// serve; [`CompleteError::NoSuchDisk`].
    fn complete(&mut self, disk: usize, now: Nanos) -> Result<Completion, CompleteError>;

    /// Withdraws a logical request (a lost transaction withdrawing its I/O).
    /// Queued operations are removed; a read's operation already in service
    /// runs to its end and its completion is ignored.
    ///
    /// # Errors
    /// [`CancelError::UnknownId`] when the request is not in the array (or has
    /// finished); [`CancelError::InService`] for a write some disk has
    /// started, since withdrawing it would leave the copies inconsistent.
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError>;

    /// Changes the state of `disk`. Failing a disk drops the operation it was
    /// serving and the operations queued for it: writes skip it, reads move
    /// to another up-to-date copy or fail. Their outcomes come out of
    /// [`poll_event`](Self::poll_event).
    ///
    /// # Errors
    /// [`CompleteError::NoSuchDisk`].
    fn set_disk_state(
        &mut self,
        disk: usize,
        state: DiskState,
        view: &ArrayView<'_>,
    ) -> Result<(), CompleteError>;

    /// The next operation to start on an idle disk, or `None` when nothing can
    /// start now. The driver calls it until it returns `None`.
    ///
    /// # Errors
    /// [`PollError::UnknownOperation`] when a queue discipline hands back a
    /// request the array never gave it (a bug in a user-written
    /// [`Scheduler`]); the array is unchanged and polling may go on.
    fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError>;

    /// A completion caused by a disk failure (a write whose last pending copy
    /// was on the failed disk, a read left without a copy), oldest first.
    #[must_use = "an event may finish or fail a request"]
    fn poll_event(&mut self) -> Option<Completion>;

    /// The earliest time after `now` at which a queue discipline holding work
    /// back may release it (see [`Scheduler::next_eligible_at`]).
    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos>;

    /// Number of disks.
    fn disks(&self) -> usize;

    /// The state of `disk` ([`DiskState::Failed`] for a disk beyond the array).
    fn disk_state(&self, disk: usize) -> DiskState;

    /// Logical requests submitted and neither finished, failed nor cancelled.
    fn in_system(&self) -> usize;

    /// Whether `disk` is serving an operation.
    fn is_busy(&self, disk: usize) -> bool;

    /// Requests waiting in the common queue (SQ family, CMQ; 0 for DMQ).
    fn common_len(&self) -> usize;

    /// Operations waiting in the own queue of `disk` (DMQ; 0 for the others).
    fn disk_queue_len(&self, disk: usize) -> usize;

    /// Lagging writes waiting in the auxiliary queue of `disk` (CMQ; 0 for the others).
    fn aux_len(&self, disk: usize) -> usize;
}

/// The per-disk queues of an array, in a container the caller chooses: a
/// fixed array `[Q; D]` (no allocation), or with feature `alloc` a `Vec<Q>`
/// or `Box<[Q]>`.
pub trait DiskQueues {
    /// The queue discipline.
    type Queue: Scheduler;
    /// The queues, one per disk.
    fn queues(&self) -> &[Self::Queue];
    /// The queues, one per disk.
    fn queues_mut(&mut self) -> &mut [Self::Queue];
}

impl<Q: Scheduler, const D: usize> DiskQueues for [Q; D] {
    type Queue = Q;
    fn queues(&self) -> &[Q] {
        self
    }
    fn queues_mut(&mut self) -> &mut [Q] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<Q: Scheduler> DiskQueues for alloc::vec::Vec<Q> {
    type Queue = Q;
    fn queues(&self) -> &[Q] {
        self
    }
    fn queues_mut(&mut self) -> &mut [Q] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<Q: Scheduler> DiskQueues for alloc::boxed::Box<[Q]> {
    type Queue = Q;
    fn queues(&self) -> &[Q] {
        self
    }
    fn queues_mut(&mut self) -> &mut [Q] {
        self
    }
}

/// Checks a disk count against [`MAX_DISKS`].
pub(crate) const fn check_disks(d: usize) -> Result<(), BuildError> {
    if d == 0 || d > MAX_DISKS {
        Err(BuildError::invalid("disks", "1 ..= 64 disks"))
    } else {
        Ok(())
    }
}

/// Checks that every queue holds at least `capacity` requests, so a full
/// array is reported as full before any of its queues is.
pub(crate) fn check_queue_capacity<Q: Scheduler>(
    queues: &[Q],
    capacity: usize,
) -> Result<(), BuildError> {
    if queues.iter().any(|q| q.capacity() < capacity) {
        Err(BuildError::invalid(
            "queue capacity",
            "queues at least as deep as the array",
        ))
    } else {
        Ok(())
    }
}

/// The disk in `candidates` whose arm is nearest its copy; ties go to the lower index.
#[inline]
pub(crate) fn nearest(candidates: DiskSet, copies: &Copies, heads: &[Head]) -> Option<usize> {
    candidates.iter().min_by_key(|&d| {
        let c = copies.location(d).map_or(0, |l| l.cylinder);
        (heads[d].cylinder.abs_diff(c), d)
    })
}
