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
//! The array never returns stale data: see [`ArrayPolicy`] for the
//! guarantee, the order of overlapping writes and the resync barrier that
//! give it, and the disk state machine.
//!
//! The driver loop, the same in the emulator, the transaction simulator and a
//! block device (this one compiles; see the crate's `examples/` for a full one):
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use sched_core::array::{ArrayPolicy, ArraySpec, ArrayView, Copies, Location};
//! use sched_core::{Block, Blocks, Cyl, Head, Heap, Kind, NullEstimator, Request, RequestId, ServiceEstimator};
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
//! let read = Request::new(RequestId(1), Kind::Read, Block(800), Blocks(8), Cyl(100), 0);
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

use crate::error::{
    BuildError, CancelError, CompleteError, DiskStateError, EnqueueError, PollError,
};
use crate::request::{Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};

/// When a write counts as done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
///
/// A disk moves only along Online → Failed → Rebuilding → Online:
/// [`ArrayPolicy::fail_disk`] takes a working disk out,
/// [`ArrayPolicy::replace_disk`] puts a replacement in its place, and the
/// array brings it online when its resync ([`ArrayPolicy::resync`]) has
/// copied the last range. A blank disk is never declared current by the
/// driver; only a replacement whose blocks the driver has kept current
/// (a resync checkpointed before a restart, md's `recovery_offset`) may
/// start part way, or online when nothing is left; and the replacement in a
/// one-disk array, which has no copy to rebuild from (its data went with
/// the failed disk), is online at once, like a new plain disk.
///
/// Exhaustive on purpose (not `#[non_exhaustive]`): what a driver may read
/// from or write to depends on the state, so it must decide for every one;
/// a new state is a breaking change, in the CHANGELOG.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DiskState {
    /// Serving reads and writes.
    #[default]
    Online,
    /// Gone: nothing is sent to it; writes skip it and report so.
    Failed,
    /// A replacement being resynchronised: it receives every write, and
    /// serves reads of copies lying wholly below `rebuilt_to` (a block number
    /// on this disk), which rises as the array's resync copies are written.
    Rebuilding {
        /// Blocks `0..rebuilt_to` of this disk hold current data.
        rebuilt_to: u64,
    },
}

/// How a replacement disk is to be rebuilt: blocks `current_to..end` of it
/// are copied from the other disks, in ranges the driver asks for with
/// [`ArrayPolicy::resync`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rebuild {
    /// Blocks below this are already current: 0 for a blank disk; a mark the
    /// driver checkpointed with the disk's data, to resume a resync.
    pub current_to: u64,
    /// The block after the last to copy (the disk's capacity, usually).
    pub end: u64,
}

impl Rebuild {
    /// A blank disk whose blocks `0..end` are all to be copied.
    pub const fn whole(end: u64) -> Self {
        Rebuild { current_to: 0, end }
    }
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

impl core::fmt::Debug for ArrayView<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ArrayView")
            .field("now", &self.now)
            .field("heads", &self.heads)
            .finish_non_exhaustive()
    }
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
    /// A resync copy (the range the driver asked for with
    /// [`ArrayPolicy::resync`], as a write on the rebuilding `disk`): the
    /// driver reads those blocks' data now from this online disk, where its
    /// layout puts them, and writes it on `disk`. `None` for every other
    /// operation.
    pub copy_from: Option<usize>,
}

/// What one finished operation (or one disk failure) means for the array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use = "a completion may finish a request or ask for aborts"]
#[non_exhaustive]
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
    /// A resync copy now written on its disk: the disk's rebuilt mark has
    /// risen past it (see [`ArrayPolicy::disk_state`]; online after the last).
    pub resynced: Option<Request>,
}

impl Completion {
    /// True when the completion reports nothing.
    pub fn is_empty(&self) -> bool {
        *self == Completion::default()
    }
}

/// A scheduling policy for an array of disks holding copies of the same data.
///
/// # What a read returns
///
/// A read never returns data older than the newest write acknowledged
/// before the read was submitted, whatever the policy, the acknowledgement
/// rule ([`Ack`]) or the routing, through failures, replacements and
/// rebuilds. Three mechanisms give it, all inside the array:
///
/// - **Overlapping writes are serialised per disk.** Two writes whose block
///   ranges overlap reach every disk holding both in submission order: a
///   disk about to start a write first starts any earlier overlapping write
///   still due on it, whatever its queue discipline prefers, and a common
///   queue (CMQ) hands out an earlier overlapping write before a later one.
///   All copies therefore end with the data of the last write submitted,
///   and an early acknowledgement ([`Ack::First`], a quorum) can never be
///   overtaken by an older copy landing late. We order rather than version
///   the copies because a disk holds one version of a block: refusing a
///   stale copy after it is written would need a second place to keep it;
///   holding the later write costs nothing unless two writes in flight
///   overlap, the case md also serialises. Writes that do not overlap keep
///   their discipline's order.
/// - **Reads go only to current copies**: online disks, or rebuilding ones
///   below their rebuilt mark, that are not still to write an acknowledged
///   write overlapping the read.
/// - **Resync barriers.** A rebuilding disk is copied in ranges the driver
///   asks for ([`resync`](Self::resync)); while a range is claimed, new
///   writes overlapping it (or with no copy on that disk, whose blocks
///   there the array cannot know) wait, held out of every queue; the copy
///   starts only once no write overlapping it is in flight (md's `raise_barrier` /
///   `wait_barrier`), so it reads a source no write is changing and lands
///   before any later write of those blocks, and the rebuilt mark rises only
///   when the copy is on the disk ([`Completion::resynced`]).
///
/// Overlap is judged on the logical request's blocks (and, for a resync
/// range, on the rebuilding disk's copy). The bookkeeping is allocation
/// free: writes in flight are chained by the bucket of 16 blocks they
/// start in, on as many chains as the array holds requests (in caller
/// storage, with each write's block range beside them), so a write learns
/// at admission, from the few writes on the chains of its buckets, whether
/// it overlaps one; only such a write, when it starts, looks on those
/// chains again for an earlier one still due. Otherwise it costs a flag
/// test per start and a mask test while no disk is rebuilding, and
/// nothing on single-disk policies.
///
/// Two limits: a write-one-copy policy (the EW-Array) leaves the holders
/// it skips to its driver, which must give a read only copies it knows
/// current; and a rebuild copies from the lowest online disk, which for
/// such a policy may lack writes its driver has yet to propagate (the
/// driver knows which: [`Start::copy_from`] names the source).
///
/// # Protocol
///
/// The methods fall in three groups, as in a protocol state machine:
///
/// - **Inputs**: [`submit`](Self::submit) a logical request with its copies;
///   [`complete`](Self::complete) when a disk finishes its operation;
///   [`cancel`](Self::cancel) a request no longer wanted;
///   [`fail_disk`](Self::fail_disk), [`replace_disk`](Self::replace_disk)
///   and [`resync`](Self::resync) for the life of a disk.
/// - **Outputs**: [`poll_start`](Self::poll_start), the next operation to
///   start on an idle disk; [`poll_event`](Self::poll_event), completions
///   caused by a disk failure rather than by a finished operation;
///   [`next_eligible_at`](Self::next_eligible_at), the wake-up hint of queue
///   disciplines that hold work back.
/// - **Getters**: [`disks`](Self::disks), [`disk_state`](Self::disk_state),
///   [`in_system`](Self::in_system), [`contains`](Self::contains),
///   [`is_busy`](Self::is_busy), the queue lengths.
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

    /// Disk `disk` (online or rebuilding) fails. The operation it was
    /// serving and those queued for it are dropped: writes skip it, reads
    /// move to another up-to-date copy or fail; their outcomes come out of
    /// [`poll_event`](Self::poll_event). A resync of the disk ends.
    ///
    /// # Errors
    /// [`DiskStateError::NoSuchDisk`]; [`DiskStateError::Transition`] for a
    /// disk already failed.
    fn fail_disk(&mut self, disk: usize, view: &ArrayView<'_>) -> Result<(), DiskStateError>;

    /// A replacement takes the failed disk `disk`'s place: it is
    /// [`DiskState::Rebuilding`] from `rebuild.current_to` (online at once if
    /// that is at or past `rebuild.end`, or in a one-disk array), receives
    /// every write, and serves reads below its rebuilt mark.
    ///
    /// # Errors
    /// [`DiskStateError::NoSuchDisk`]; [`DiskStateError::Transition`] for a
    /// disk that has not failed.
    fn replace_disk(&mut self, disk: usize, rebuild: Rebuild) -> Result<(), DiskStateError>;

    /// The driver asks for the next range of the rebuilding `disk` to be
    /// copied: `copy` (its id the driver's, unused by any request in the
    /// array; `block` the disk's rebuilt mark; `blocks` at least one, within
    /// the rebuild; `cylinder` where the range lies on the disk). New writes
    /// overlapping the range wait from now on; the copy comes out of
    /// [`poll_start`](Self::poll_start) (with [`Start::copy_from`]) once
    /// no write overlapping it is in flight and the disk is idle; its
    /// [`complete`](Self::complete) raises the mark (with
    /// [`Completion::resynced`]). One range at a time per disk.
    ///
    /// # Errors
    /// [`DiskStateError::NotRebuilding`], [`DiskStateError::CopyInProgress`],
    /// [`DiskStateError::OutOfOrder`], [`DiskStateError::BadRange`],
    /// [`DiskStateError::NoSource`] (no other disk online), or
    /// [`DiskStateError::NoSuchDisk`]; nothing changes.
    fn resync(&mut self, disk: usize, copy: Request) -> Result<(), DiskStateError>;

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

    /// Whether the array still holds request `id`: open, a write still
    /// settling its copies, or an operation still in service or to report.
    /// Until it is false, submitting that id again is refused as a duplicate.
    fn contains(&self, id: RequestId) -> bool;

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

/// Forwards every method to the referent or box: generic code takes `impl
/// ArrayPolicy` and a caller passes `&mut policy`, `Box<dyn ArrayPolicy>` or
/// `&mut dyn ArrayPolicy` alike.
macro_rules! forward_array_policy {
    ($($(#[$attr:meta])* [$($generics:tt)*] $ty:ty;)*) => {$(
        $(#[$attr])*
        impl<$($generics)*> ArrayPolicy for $ty {
            #[inline]
            fn submit(
                &mut self,
                req: Request,
                copies: &Copies,
                view: &ArrayView<'_>,
            ) -> Result<(), EnqueueError> {
                (**self).submit(req, copies, view)
            }
            #[inline]
            fn complete(&mut self, disk: usize, now: Nanos) -> Result<Completion, CompleteError> {
                (**self).complete(disk, now)
            }
            #[inline]
            fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
                (**self).cancel(id)
            }
            #[inline]
            fn fail_disk(
                &mut self,
                disk: usize,
                view: &ArrayView<'_>,
            ) -> Result<(), DiskStateError> {
                (**self).fail_disk(disk, view)
            }
            #[inline]
            fn replace_disk(&mut self, disk: usize, rebuild: Rebuild) -> Result<(), DiskStateError> {
                (**self).replace_disk(disk, rebuild)
            }
            #[inline]
            fn resync(&mut self, disk: usize, copy: Request) -> Result<(), DiskStateError> {
                (**self).resync(disk, copy)
            }
            #[inline]
            fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError> {
                (**self).poll_start(view)
            }
            #[inline]
            fn poll_event(&mut self) -> Option<Completion> {
                (**self).poll_event()
            }
            #[inline]
            fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
                (**self).next_eligible_at(now)
            }
            #[inline]
            fn disks(&self) -> usize {
                (**self).disks()
            }
            #[inline]
            fn disk_state(&self, disk: usize) -> DiskState {
                (**self).disk_state(disk)
            }
            #[inline]
            fn in_system(&self) -> usize {
                (**self).in_system()
            }
            #[inline]
            fn contains(&self, id: RequestId) -> bool {
                (**self).contains(id)
            }
            #[inline]
            fn is_busy(&self, disk: usize) -> bool {
                (**self).is_busy(disk)
            }
            #[inline]
            fn common_len(&self) -> usize {
                (**self).common_len()
            }
            #[inline]
            fn disk_queue_len(&self, disk: usize) -> usize {
                (**self).disk_queue_len(disk)
            }
            #[inline]
            fn aux_len(&self, disk: usize) -> usize {
                (**self).aux_len(disk)
            }
        }
    )*};
}

forward_array_policy! {
    [A: ArrayPolicy + ?Sized] &mut A;
    #[cfg(feature = "alloc")]
    [A: ArrayPolicy + ?Sized] alloc::boxed::Box<A>;
}
