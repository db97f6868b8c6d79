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

use super::book::{Book, DiskLoad, Loss, at_copy};
use super::copies::{Copies, DiskSet, MAX_DISKS};
use super::delegate_to_book;
use super::{
    Ack, ArrayPolicy, ArrayView, Completion, DiskQueues, DiskState, Start, check_queue_capacity,
    nearest,
};
use crate::error::{BuildError, CancelError, CompleteError, EnqueueError, PollError};
use crate::request::{Kind, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::Storage;
use crate::queue::Slot;

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
}

impl RouteView<'_> {
    /// The cylinder distance from disk `d`'s arm to its copy.
    pub fn distance(&self, d: usize) -> u32 {
        let c = self.copies.location(d).map_or(0, |l| l.cylinder);
        self.array.heads[d].cylinder.abs_diff(c)
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

/// Chooses which disks holding a copy get a new write now. Holders left out
/// are reported in the write's [`Completion::skipped`] for the driver to
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
/// register on storage `S`, write routing `W`.
pub struct Dmq<Q, R, S: Storage, W = AllCopies> {
    book: Book<S>,
    queues: Q,
    routing: R,
    writes: W,
    prefer_idle: bool,
    next_sequential: [u64; MAX_DISKS],
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
        Ok(Dmq {
            book: Book::new(&storage, queues.queues().len())?,
            queues,
            routing,
            writes,
            prefer_idle: false,
            next_sequential: [u64::MAX; MAX_DISKS],
        })
    }

    /// Chen & Towsley's modified routing: a read that finds an idle disk with
    /// an up-to-date copy goes to the one whose arm is nearest its copy,
    /// whatever the routing.
    pub fn prefer_idle(mut self) -> Self {
        self.prefer_idle = true;
        self
    }

    /// When writes count as done (default [`Ack::All`]).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a quorum of 0.
    pub fn with_ack(mut self, ack: Ack) -> Result<Self, BuildError> {
        self.book.set_ack(ack)?;
        Ok(self)
    }

    /// The per-disk queues.
    pub fn queues(&self) -> &[Q::Queue] {
        self.queues.queues()
    }

    /// Live disks serving nothing with nothing queued.
    fn idle(&self) -> DiskSet {
        self.book.idle().intersection(self.book.unqueued())
    }

    /// The disks a read joins, among `eligible`.
    fn route_read(
        &mut self,
        req: &Request,
        copies: &Copies,
        eligible: DiskSet,
        view: &ArrayView<'_>,
    ) -> DiskSet {
        let idle = self.idle();
        if self.prefer_idle
            && let Some(d) = nearest(idle.intersection(eligible), copies, view.heads)
        {
            return DiskSet::only(d);
        }
        let disks = self.book.disks();
        let route = RouteView {
            request: req,
            copies,
            eligible,
            idle,
            array: view,
            load: self.book.load(view.now),
            next_sequential: &self.next_sequential[..disks],
        };
        self.routing.route(&route).intersection(eligible)
    }

    /// Puts the operation of `s` in the queue of each disk of `disks`; on a
    /// refusal, takes back what was queued.
    fn enqueue_ops(
        &mut self,
        s: Slot,
        req: &Request,
        copies: &Copies,
        disks: DiskSet,
        now: Nanos,
    ) -> Result<(), EnqueueError> {
        for d in disks.iter() {
            let op = match copies.location(d) {
                Some(at) => at_copy(req, at),
                None => *req,
            };
            if let Err(e) = self.queues.queues_mut()[d].enqueue(op, now) {
                self.unqueue(s);
                return Err(e);
            }
            self.book.enqueued(s, d);
        }
        Ok(())
    }

    /// Withdraws the copies of `s` still queued.
    fn unqueue(&mut self, s: Slot) {
        let id = self.book.request(s).id;
        for d in self.book.queued(s).iter() {
            // The book and the queue agree on what is queued; a queue that
            // lost it anyway has nothing to give back.
            let _ = self.queues.queues_mut()[d].cancel(id);
            self.book.dequeued(s, d);
        }
    }

    /// Routes a read that lost its operations to a failed disk, or fails it.
    fn reroute(&mut self, s: Slot, view: &ArrayView<'_>) {
        let req = self.book.request(s);
        let copies = self.book.copies(s);
        let eligible = self.book.fresh(&req, &copies);
        let mut disks = self.route_read(&req, &copies, eligible, view);
        if disks.is_empty() {
            // The routing's choice failed with its disk: any fresh copy will do.
            disks = eligible.first().map_or(DiskSet::EMPTY, DiskSet::only);
        }
        if disks.is_empty() || self.enqueue_ops(s, &req, &copies, disks, view.now).is_err() {
            self.book.fail(s);
        }
    }
}

impl<Q: DiskQueues, R: ReadRouting, S: Storage, W: WriteRouting> ArrayPolicy for Dmq<Q, R, S, W> {
    delegate_to_book!();

    fn submit(
        &mut self,
        req: Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        self.book.check_copies(req.id, copies)?;
        let (disks, targets) = if req.kind == Kind::Write {
            let eligible = copies.holders().intersection(self.book.live());
            if eligible.is_empty() {
                return Err(EnqueueError::NoEligibleDisk(req.id));
            }
            let route = WriteView {
                request: &req,
                copies,
                eligible,
                idle: self.idle(),
                array: view,
                load: self.book.load(view.now),
            };
            let targets = self.writes.route(&route).intersection(eligible);
            (targets, targets)
        } else {
            let eligible = self.book.fresh(&req, copies);
            if eligible.is_empty() {
                return Err(EnqueueError::NoEligibleDisk(req.id));
            }
            (
                self.route_read(&req, copies, eligible, view),
                DiskSet::EMPTY,
            )
        };
        if disks.is_empty() {
            return Err(EnqueueError::NoRoute(req.id));
        }
        let s = self.book.admit(&req, copies, targets, view)?;
        if let Err(e) = self.enqueue_ops(s, &req, copies, disks, view.now) {
            self.book.withdraw(s);
            return Err(e);
        }
        Ok(())
    }

    fn complete(&mut self, disk: usize, _now: Nanos) -> Result<Completion, CompleteError> {
        let at_completion = self.routing.abort() == Abort::AtCompletion;
        let (s, done) = self.book.complete_op(disk, at_completion)?;
        if at_completion && done.finished.is_some_and(|r| r.kind == Kind::Read) {
            self.unqueue(s);
        }
        self.book.retire_if_idle(s);
        Ok(done)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.book.find_open(id)?;
        self.book.check_cancel(s)?;
        self.unqueue(s);
        Ok(self.book.withdraw_open(s))
    }

    fn set_disk_state(
        &mut self,
        disk: usize,
        state: DiskState,
        view: &ArrayView<'_>,
    ) -> Result<(), CompleteError> {
        if !self.book.change_state(disk, state)? {
            return Ok(());
        }
        if let Some(s) = self.book.fail_disk(disk)
            && self.book.lose(s, disk) == Loss::Reroute
        {
            self.reroute(s, view);
        }
        while let Some(op) = self.queues.queues_mut()[disk].pop_any() {
            let Some(s) = self.book.find(op.id) else {
                continue; // never ours: nothing to account for
            };
            self.book.dequeued(s, disk);
            if self.book.lose(s, disk) == Loss::Reroute {
                self.reroute(s, view);
            }
        }
        self.next_sequential[disk] = u64::MAX;
        Ok(())
    }

    fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError> {
        for d in 0..self.book.disks() {
            if self.book.is_busy(d) || self.book.state(d) == DiskState::Failed {
                continue;
            }
            let est: &dyn ServiceEstimator = view.estimators[d];
            let Some(dispatch) = self.queues.queues_mut()[d].next(view.heads[d], view.now, est)
            else {
                continue;
            };
            let op = dispatch.request;
            let s = self
                .book
                .find(op.id)
                .filter(|&s| self.book.queued(s).contains(d))
                .ok_or(PollError::UnknownOperation { disk: d, id: op.id })?;
            self.book.start(s, d, view.now);
            self.next_sequential[d] = op.block + op.blocks as u64;
            if op.kind == Kind::Read && self.routing.abort() == Abort::AtStart {
                self.unqueue(s);
            }
            return Ok(Some(Start { disk: d, dispatch }));
        }
        Ok(None)
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
