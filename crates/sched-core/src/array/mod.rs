//! Policies for arrays of D disks holding copies of the same data: mirrors
//! (D = 2) and N-copy replication.
//!
//! An [`ArrayPolicy`] is a sans-IO state machine like a [`Scheduler`](crate::Scheduler),
//! one level up. The driver submits *logical* requests (a read, or an update
//! that must reach every copy), tells the policy when a disk finishes the
//! operation it was given, and polls for operations to start until the policy
//! has nothing more:
//!
//! ```text
//! on arrival:    policy.submit(req, placement, &heads, now)?; start_what_you_can()
//! on completion: let c = policy.complete(disk, now)?;
//!                for d in c.abort { device.abort(d) }   // a sibling copy lost the race
//!                if let Some(r) = c.finished { report(r) }
//!                start_what_you_can()
//! start_what_you_can():
//!                while let Some(s) = policy.poll_start(&heads, now, &estimators) {
//!                    device.start(s.disk, s.dispatch)
//!                }
//! ```
//!
//! `placement[d]` is the cylinder of the request's copy on disk `d` (copies may
//! sit at different cylinders). Operations carry the logical request's id; a
//! disk serves one operation at a time and the policy tracks which.
//!
//! The policies of Towsley, Chen & Yu (1991) and Chen & Towsley (1991) are
//! here, one per file: the single-queue family ([`SPssq`], [`CPssq`],
//! [`CrEsq`], [`CruEsq`], [`MrEsq`]), the distributed multiple-queue family
//! ([`Dmq`] with the read routings [`RandomRead`] (R-DMQ), [`ShortestQueue`]
//! (SQ-DMQ), [`BothCopies`] (MR-DMQ), [`BothCopiesAbort`] (MR-DMQA), and
//! [`Md`], Linux md RAID-1's read balancing) and the common multiple-queue
//! policy [`Cmq`]. DMQ and CMQ take any [`Scheduler`](crate::Scheduler) as
//! their queue discipline, so the real-time variants are compositions: RT-DMQ
//! is DMQ over [`Ssedo`](crate::policy::Ssedo), RT-CMQ-S is CMQ with SSEDO on
//! the common queue and SSTF on the auxiliary queues.

mod any;
mod book;
mod c_pssq;
mod cmq;
mod cr_esq;
mod cru_esq;
mod dmq;
mod md;
mod mr_dmq;
mod mr_dmqa;
mod mr_esq;
mod r_dmq;
mod s_pssq;
mod sq;
mod sq_dmq;

pub use any::{AnyArray, AnyDmq, ArraySpec, ArraySpecError, Routing};
pub use c_pssq::{CPssq, CPssqRule};
pub use cmq::Cmq;
pub use cr_esq::{CrEsq, CrEsqRule};
pub use cru_esq::{CruEsq, CruEsqRule};
pub use dmq::{Abort, Dmq, ReadRouting, RouteView};
pub use md::Md;
pub use mr_dmq::BothCopies;
pub use mr_dmqa::BothCopiesAbort;
pub use mr_esq::{MrEsq, MrEsqRule};
pub use r_dmq::RandomRead;
pub use s_pssq::{SPssq, SPssqRule};
pub use sq::{SingleQueue, SqView, StartRule};
pub use sq_dmq::ShortestQueue;

use crate::error::SchedError;
use crate::request::{Cylinder, Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::ServiceEstimator;

/// The largest array: disk sets are 32-bit masks.
pub const MAX_DISKS: usize = 32;

/// A set of disks of an array, as a bit mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DiskSet(u32);

impl DiskSet {
    /// No disk.
    pub const EMPTY: DiskSet = DiskSet(0);

    /// Disks `0..d`.
    pub const fn all(d: usize) -> DiskSet {
        if d >= 32 {
            DiskSet(u32::MAX)
        } else {
            DiskSet((1u32 << d) - 1)
        }
    }

    /// The disks among `0..d` that satisfy `pred`.
    pub fn matching(d: usize, pred: impl Fn(usize) -> bool) -> DiskSet {
        (0..d)
            .filter(|&i| pred(i))
            .fold(DiskSet::EMPTY, DiskSet::with)
    }

    /// Just disk `d`.
    pub const fn only(d: usize) -> DiskSet {
        DiskSet(1 << d)
    }

    /// Whether disk `d` is in the set.
    pub const fn contains(self, d: usize) -> bool {
        self.0 & (1 << d) != 0
    }

    /// The set with disk `d` added.
    pub const fn with(self, d: usize) -> DiskSet {
        DiskSet(self.0 | 1 << d)
    }

    /// The set with disk `d` removed.
    pub const fn without(self, d: usize) -> DiskSet {
        DiskSet(self.0 & !(1 << d))
    }

    /// True when no disk is in the set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of disks in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Disks in both sets.
    pub const fn intersection(self, other: DiskSet) -> DiskSet {
        DiskSet(self.0 & other.0)
    }

    /// The raw mask (bit d = disk d).
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The disks in increasing order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        core::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let d = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(d)
        })
    }
}

/// An operation to start: disk `disk` serves `dispatch.request`, whose id is
/// the logical request's and whose cylinder is that of the copy on this disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    /// The disk that starts the operation.
    pub disk: usize,
    /// The operation and the arm's path to it.
    pub dispatch: Dispatch,
}

/// What one finished operation means for the array.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// The logical request that is now complete, if this operation completed
    /// one (a read's first copy, an update's last write).
    pub finished: Option<Request>,
    /// Disks whose in-service operation the driver must abort now (the other
    /// copies of a read that has just completed). The policy already counts
    /// them as idle.
    pub abort: DiskSet,
}

/// How many operations wait in each queue of an array policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueLengths<const D: usize> {
    /// The common queue (SQ family, CMQ); 0 for DMQ.
    pub common: usize,
    /// Each disk's own queue (DMQ); 0 for the others.
    pub disk: [usize; D],
    /// Each disk's auxiliary queue of lagging writes (CMQ); 0 for the others.
    pub aux: [usize; D],
}

impl<const D: usize> Default for QueueLengths<D> {
    fn default() -> Self {
        QueueLengths {
            common: 0,
            disk: [0; D],
            aux: [0; D],
        }
    }
}

/// A scheduling policy for an array of `D` disks holding copies of the same data.
///
/// Object safe: drivers may hold `&mut dyn ArrayPolicy<2>`.
pub trait ArrayPolicy<const D: usize> {
    /// Accepts a logical request: a read (one copy suffices) or a write (an
    /// update of every copy). `placement[d]` is the cylinder of the copy on
    /// disk `d`; `heads` are the arms' positions now.
    ///
    /// # Errors
    /// [`SchedError::QueueFull`], [`SchedError::DuplicateId`] (an id stays in
    /// use until every operation of its request has left the array), or a
    /// queue discipline's refusal. Nothing is kept when an error is returned.
    fn submit(
        &mut self,
        req: Request,
        placement: [Cylinder; D],
        heads: &[Head; D],
        now: Nanos,
    ) -> Result<(), SchedError>;

    /// The next operation to start on an idle disk, or `None` when nothing can
    /// start now. The driver calls it until it returns `None`.
    fn poll_start(
        &mut self,
        heads: &[Head; D],
        now: Nanos,
        est: &[&dyn ServiceEstimator; D],
    ) -> Option<Start>;

    /// Disk `disk` finished the operation it was serving.
    ///
    /// # Errors
    /// [`SchedError::IdleDisk`] when the policy gave that disk nothing to serve.
    fn complete(&mut self, disk: usize, now: Nanos) -> Result<Completion, SchedError>;

    /// Withdraws a logical request (a lost transaction withdrawing its I/O).
    /// Queued operations are removed; an operation already in service runs to
    /// its end and its completion is ignored.
    ///
    /// # Errors
    /// [`SchedError::UnknownId`] when the request is not in the array (or has
    /// completed); [`SchedError::InvalidRequest`] for an update some disk has
    /// already started writing, since withdrawing it would leave the copies
    /// inconsistent.
    fn cancel(&mut self, id: RequestId) -> Result<Request, SchedError>;

    /// Logical requests submitted and neither completed nor cancelled.
    fn in_system(&self) -> usize;

    /// Whether `disk` is serving an operation.
    fn is_busy(&self, disk: usize) -> bool;

    /// Operations waiting in each queue.
    fn queue_lengths(&self) -> QueueLengths<D>;
}

/// Checks the disk count shared by every array policy.
pub(crate) const fn check_disks(d: usize) -> Result<(), SchedError> {
    if d == 0 || d > MAX_DISKS {
        Err(SchedError::InvalidParameter {
            name: "D",
            expected: "1 ..= 32 disks",
        })
    } else {
        Ok(())
    }
}

/// The idle disk (in `idle`) whose arm is nearest its copy; ties go to the lower index.
pub(crate) fn nearest<const D: usize>(
    idle: DiskSet,
    placement: &[Cylinder; D],
    heads: &[Head; D],
) -> Option<usize> {
    idle.iter()
        .min_by_key(|&d| (heads[d].cylinder.abs_diff(placement[d]), d))
}
