//! DMQ: a queue per disk; writes join the queues of their copies, reads are routed.
//!
//! Towsley, Chen & Yu (1991, §2.2). Every update puts a write in the queue of
//! every disk holding a copy (or of the disks its [`WriteRouting`] picks) and
//! is done as the array's [`Ack`](super::Ack) rule says; a read joins the
//! queue(s) its [`ReadRouting`] names among the disks with an up-to-date copy
//! and completes with the first copy. Each queue is any [`Scheduler`]: FCFS in
//! the original policy, SSTF in the modified DMQ of Chen & Towsley (1991,
//! §3.1), SSEDO in RT-DMQ (§3.2), FD-SCAN (§3.4). [`Dmq::prefer_idle`] adds
//! that paper's modified routing: a read arriving when some disk with a copy
//! is idle goes to the idle disk whose arm is nearest its copy.
//!
//! Array policies never collect expired requests from their queues: use FD-SCAN
//! with [`ExpiredRule::Keep`](crate::ExpiredRule::Keep) here.

use super::bookkeeping::{Array, Queues, earlier_overlapping_writes_first, enqueue_on_each};
use super::copies::{Copies, DiskSet, MAX_DISKS};
use super::ledger::{DiskLoad, Ledger, Timing, at_copy};
use super::{ArrayView, DiskQueues, Start, check_queue_capacity, nearest};
use core::fmt;

use crate::error::{BuildError, CancelError, EnqueueError, PollError, SpecError};
use crate::policy_table::Codec;
use crate::queue::Slot;
use crate::request::{Head, Kind, Nanos, Request};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::Storage;

/// When the other copies of a read that joined several queues are withdrawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Abort {
    /// Never: every copy is served; only the first completion counts (MR-DMQ).
    #[default]
    Never,
    /// When the first copy starts service, the others leave their queues.
    AtStart,
    /// When the first copy completes, the others leave their queues, and any
    /// already in service is aborted.
    AtCompletion,
}

/// In a description: `abort=start` or `abort=complete` (also `completion`).
impl Codec for Abort {
    type Value = Abort;

    fn parse(text: &str) -> Result<Abort, Option<SpecError>> {
        match text {
            "start" => Ok(Abort::AtStart),
            "complete" | "completion" => Ok(Abort::AtCompletion),
            _ => Err(None),
        }
    }

    fn write(value: &Abort, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match value {
            Abort::AtStart => "start",
            _ => "complete",
        })
    }
}

/// What a read routing sees when a read arrives. Slices have one entry per disk.
#[derive(Clone, Copy)]
pub struct RouteView<'a> {
    /// The read.
    pub request: &'a Request,
    /// Its copies.
    pub copies: &'a Copies,
    /// The holders whose copy is up to date: the routing picks among these.
    pub eligible: DiskSet,
    /// Live disks serving nothing with nothing queued.
    pub idle: DiskSet,
    /// The clock, the arms and the estimators.
    pub array: &'a ArrayView<'a>,
    /// What each disk has been given: operations and expected time to drain.
    pub load: DiskLoad<'a>,
    /// The block after the last one each disk was sent to (a read starting
    /// there is sequential for that disk).
    pub next_sequential: &'a [u64],
    /// Each disk's queue discipline, asked where the read would fall in its
    /// queue.
    pub queues: &'a dyn QueueOrder,
}

impl RouteView<'_> {
    /// The cylinder distance from disk `d`'s arm to its copy.
    #[inline]
    pub fn distance(&self, d: usize) -> u32 {
        let c = self.copies.location(d).map_or(0, |l| l.cylinder);
        self.array.heads[d].cylinder.abs_diff(c)
    }

    /// The read as an operation on disk `d`'s copy.
    #[inline]
    pub fn op(&self, d: usize) -> Request {
        match self.copies.location(d) {
            Some(at) => at_copy(self.request, at),
            None => *self.request,
        }
    }

    /// Expected time before disk `d` would start the read: what remains of
    /// its operation in service, plus the queued work its discipline would
    /// serve first (all of it unless the discipline says otherwise; see
    /// [`Scheduler::work_ahead`]).
    #[inline]
    pub fn expected_wait(&self, d: usize) -> Nanos {
        let est = self.array.estimators[d];
        match self
            .queues
            .work_ahead(d, &self.op(d), self.array.heads[d], est)
        {
            Some(ahead) => self.load.in_service_remaining(d).saturating_add(ahead),
            None => self.load.backlog(d),
        }
    }
}

/// What each disk's queue discipline says of a new request's place in its
/// queue; the per-disk queues of a [`Dmq`] answer it.
pub trait QueueOrder {
    /// Disk `disk`'s [`Scheduler::work_ahead`] for `req` (`None` for a disk
    /// beyond the array).
    fn work_ahead(
        &self,
        disk: usize,
        req: &Request,
        head: Head,
        est: &dyn ServiceEstimator,
    ) -> Option<Nanos>;
}

impl<Q: DiskQueues> QueueOrder for Q {
    #[inline]
    fn work_ahead(
        &self,
        disk: usize,
        req: &Request,
        head: Head,
        est: &dyn ServiceEstimator,
    ) -> Option<Nanos> {
        self.queues().get(disk)?.work_ahead(req, head, est)
    }
}

/// Chooses the queue(s) a read joins.
pub trait ReadRouting {
    /// A set of disks among `view.eligible` whose queues the read joins.
    fn route(&mut self, view: &RouteView<'_>) -> DiskSet;

    /// When the other copies of a read sent to several queues are withdrawn.
    fn abort(&self) -> Abort {
        Abort::Never
    }
}

/// What a write routing sees when a write arrives.
#[derive(Clone, Copy)]
pub struct WriteView<'a> {
    /// The write.
    pub request: &'a Request,
    /// Its copies.
    pub copies: &'a Copies,
    /// The holders that are not failed: the routing picks among these.
    pub eligible: DiskSet,
    /// Live disks serving nothing with nothing queued.
    pub idle: DiskSet,
    /// The clock, the arms and the estimators.
    pub array: &'a ArrayView<'a>,
    /// What each disk has been given: operations and expected time to drain.
    pub load: DiskLoad<'a>,
}

/// `Debug` for the routings' views: what arrives and where it may go, not
/// the estimators behind the array view.
macro_rules! debug_route_views {
    ($($name:ident),*) => {$(
        impl core::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("request", self.request)
                    .field("copies", self.copies)
                    .field("eligible", &self.eligible)
                    .field("idle", &self.idle)
                    .field("array", self.array)
                    .finish_non_exhaustive()
            }
        }
    )*};
}

debug_route_views!(RouteView, WriteView);

/// Chooses which disks holding a copy get a new write now. Holders left out
/// are reported in the write's [`Completion::skipped`](super::Completion::skipped) for the driver to
/// propagate later (eager writing) or to drop from its map (scatter).
pub trait WriteRouting {
    /// A non-empty set of disks among `view.eligible`.
    fn route(&mut self, view: &WriteView<'_>) -> DiskSet;
}

/// The mirrored-disk papers' write routing: every live copy is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllCopies;

impl WriteRouting for AllCopies {
    fn route(&mut self, view: &WriteView<'_>) -> DiskSet {
        view.eligible
    }
}

/// Distributed multiple queues: per-disk queues `Q`, read routing `R`, the
/// ledger on storage `S`, write routing `W`.
pub type Dmq<Q, R, S, W = AllCopies> = Array<DmqQueues<Q, R, W>, S>;

/// The queues of a [`Dmq`]: one queue discipline per disk, and the routings
/// that fill them.
pub struct DmqQueues<Q, R, W> {
    queues: Q,
    routing: R,
    writes: W,
    prefer_idle: bool,
    next_sequential: [u64; MAX_DISKS],
}

/// Only the name: the queues are seen through the array ([`Array`](super::Array)'s
/// `Debug` and the `ArrayPolicy` getters).
impl<Q, R, W> core::fmt::Debug for DmqQueues<Q, R, W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DmqQueues").finish_non_exhaustive()
    }
}

impl<Q: DiskQueues, R: ReadRouting, S: Storage> Dmq<Q, R, S> {
    /// An array over the given per-disk queues (one per disk, each at least
    /// as deep as `storage`, so a full array is reported as full before any
    /// queue is) and read routing; every write goes to every live copy and
    /// is acknowledged when all are written.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for no queue or more than
    /// [`MAX_DISKS`], or a queue smaller than the storage.
    pub fn new(storage: S, queues: Q, routing: R) -> Result<Self, BuildError> {
        Self::with_write_routing(storage, queues, routing, AllCopies)
    }
}

impl<Q: DiskQueues, R: ReadRouting, S: Storage, W: WriteRouting> Dmq<Q, R, S, W> {
    /// As [`Dmq::new`], with a write routing of its own.
    ///
    /// # Errors
    /// As [`Dmq::new`].
    pub fn with_write_routing(
        storage: S,
        queues: Q,
        routing: R,
        writes: W,
    ) -> Result<Self, BuildError> {
        check_queue_capacity(queues.queues(), storage.capacity())?;
        let disks = queues.queues().len();
        Array::with_queues(
            &storage,
            disks,
            DmqQueues {
                queues,
                routing,
                writes,
                prefer_idle: false,
                next_sequential: [u64::MAX; MAX_DISKS],
            },
        )
    }

    /// Chen & Towsley's modified routing: a read that finds an idle disk with
    /// an up-to-date copy goes to the one whose arm is nearest its copy,
    /// whatever the routing.
    pub fn prefer_idle(mut self) -> Self {
        self.inner_queues_mut().prefer_idle = true;
        self
    }

    /// The per-disk queues.
    pub fn queues(&self) -> &[Q::Queue] {
        self.inner_queues().queues.queues()
    }
}

impl<Q: DiskQueues, R: ReadRouting, W: WriteRouting> DmqQueues<Q, R, W> {
    /// Live disks serving nothing with nothing queued.
    fn idle<S: Storage>(ledger: &Ledger<S>) -> DiskSet {
        ledger.idle().intersection(ledger.unqueued())
    }

    /// The disks a read joins, among `eligible`.
    fn route_read<S: Storage>(
        &mut self,
        ledger: &Ledger<S>,
        req: &Request,
        copies: &Copies,
        eligible: DiskSet,
        view: &ArrayView<'_>,
    ) -> DiskSet {
        let idle = Self::idle(ledger);
        if self.prefer_idle
            && let Some(d) = nearest(idle.intersection(eligible), copies, view.heads)
        {
            return DiskSet::only(d);
        }
        let disks = ledger.disks();
        let route = RouteView {
            request: req,
            copies,
            eligible,
            idle,
            array: view,
            load: ledger.load(view.now),
            next_sequential: &self.next_sequential[..disks],
            queues: &self.queues,
        };
        self.routing.route(&route).intersection(eligible)
    }

    /// Withdraws the copies of `s` still queued.
    fn unqueue<S: Storage>(&mut self, ledger: &mut Ledger<S>, s: Slot) {
        let id = ledger.request(s).id;
        for d in ledger.queued(s).iter() {
            // The ledger and the queue agree on what is queued; a queue
            // that lost it anyway has nothing to give back.
            let _ = self.queues.queues_mut()[d].cancel(id);
            ledger.dequeued(s, d);
        }
    }
}

impl<Q: DiskQueues, R: ReadRouting, S: Storage, W: WriteRouting> Queues<S> for DmqQueues<Q, R, W> {
    fn submit(
        &mut self,
        ledger: &mut Ledger<S>,
        req: &Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        ledger.check_copies(req.id, copies)?;
        let (disks, targets) = if req.kind == Kind::Write {
            let eligible = copies.holders().intersection(ledger.live());
            if eligible.is_empty() {
                return Err(EnqueueError::NoEligibleDisk(req.id));
            }
            let route = WriteView {
                request: req,
                copies,
                eligible,
                idle: Self::idle(ledger),
                array: view,
                load: ledger.load(view.now),
            };
            let targets = self.writes.route(&route).intersection(eligible);
            (targets, targets)
        } else {
            let eligible = ledger.fresh(req, copies);
            if eligible.is_empty() {
                return Err(EnqueueError::NoEligibleDisk(req.id));
            }
            (
                self.route_read(ledger, req, copies, eligible, view),
                DiskSet::EMPTY,
            )
        };
        if disks.is_empty() {
            return Err(EnqueueError::NoRoute(req.id));
        }
        let s = ledger.admit(req, copies, targets, view, Timing::Estimated)?;
        if let Err(e) = enqueue_on_each(ledger, self.queues.queues_mut(), s, req, copies, disks) {
            ledger.withdraw(s);
            return Err(e);
        }
        Ok(())
    }

    #[inline]
    fn poll_start(
        &mut self,
        ledger: &mut Ledger<S>,
        view: &ArrayView<'_>,
    ) -> Result<Option<Start>, PollError> {
        // Only a disk with operations queued has anything to start.
        for d in ledger.idle().difference(ledger.unqueued()).iter() {
            let est: &dyn ServiceEstimator = view.estimators[d];
            let Some(dispatch) = self.queues.queues_mut()[d].next(view.heads[d], view.now, est)
            else {
                continue;
            };
            let id = dispatch.request.id;
            let s = ledger
                .find(id)
                .filter(|&s| ledger.queued(s).contains(d))
                .ok_or(PollError::UnknownOperation { disk: d, id })?;
            let (s, dispatch) =
                if dispatch.request.kind == Kind::Write && ledger.overlapped_earlier(s) {
                    match earlier_overlapping_writes_first(
                        ledger,
                        &mut self.queues.queues_mut()[d],
                        d,
                        s,
                        dispatch,
                    )? {
                        Some(first) => first,
                        None => continue,
                    }
                } else {
                    (s, dispatch)
                };
            let op = dispatch.request;
            ledger.start(s, d, view.now);
            self.next_sequential[d] = op.block + op.blocks as u64;
            if op.kind == Kind::Read && self.routing.abort() == Abort::AtStart {
                self.unqueue(ledger, s);
            }
            return Ok(Some(Start {
                disk: d,
                dispatch,
                copy_from: None,
            }));
        }
        Ok(None)
    }

    fn read_completion_aborts(&self) -> bool {
        self.routing.abort() == Abort::AtCompletion
    }

    fn read_finished(&mut self, ledger: &mut Ledger<S>, s: Slot) {
        if self.routing.abort() == Abort::AtCompletion {
            self.unqueue(ledger, s);
        }
    }

    fn cancel(&mut self, ledger: &mut Ledger<S>, s: Slot) -> Result<(), CancelError> {
        ledger.check_cancel(s)?;
        self.unqueue(ledger, s);
        Ok(())
    }

    fn take_queued(&mut self, ledger: &mut Ledger<S>, disk: usize) -> Option<Slot> {
        while let Some(op) = self.queues.queues_mut()[disk].pop_any() {
            // An operation that was never ours has nothing to account for.
            if let Some(s) = ledger.find(op.id) {
                return Some(s);
            }
        }
        None
    }

    /// Routes a read that lost its operations to a failed disk, or fails it.
    fn reroute(&mut self, ledger: &mut Ledger<S>, s: Slot, view: &ArrayView<'_>) {
        let req = ledger.request(s);
        let copies = ledger.copies(s);
        let eligible = ledger.fresh(&req, &copies);
        let mut disks = self.route_read(ledger, &req, &copies, eligible, view);
        if disks.is_empty() {
            // The routing's choice failed with its disk: any fresh copy will do.
            disks = eligible.first().map_or(DiskSet::EMPTY, DiskSet::only);
        }
        if disks.is_empty()
            || enqueue_on_each(ledger, self.queues.queues_mut(), s, &req, &copies, disks).is_err()
        {
            ledger.fail(s);
        }
    }

    fn disk_failed(&mut self, _register: &mut Ledger<S>, disk: usize) {
        self.next_sequential[disk] = u64::MAX;
    }

    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        self.queues
            .queues()
            .iter()
            .filter_map(|q| q.next_eligible_at(now))
            .min()
    }

    fn common_len(&self) -> usize {
        0
    }

    fn disk_queue_len(&self, disk: usize) -> usize {
        self.queues.queues().get(disk).map_or(0, Scheduler::len)
    }

    fn aux_len(&self, _disk: usize) -> usize {
        0
    }
}
