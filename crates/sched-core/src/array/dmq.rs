//! DMQ: a queue per disk; updates write every queue, reads are routed.
//!
//! Towsley, Chen & Yu (1991, §2.2). Every update puts a write in every disk's
//! queue and completes when all are written; a read joins the queue(s) its
//! [`ReadRouting`] names and completes with the first copy. Each queue is any
//! [`Scheduler`]: FCFS in the original policy, SSTF in the modified DMQ of
//! Chen & Towsley (1991, §3.1), SSEDO in RT-DMQ (§3.2), FD-SCAN (§3.4).
//! [`Dmq::prefer_idle`] adds that paper's modified routing: a read arriving
//! when some disk is idle goes to the idle disk whose arm is nearest its copy.
//!
//! Array policies never collect expired requests from their queues: use FD-SCAN
//! with [`ExpiredRule::Keep`](crate::ExpiredRule::Keep) here.

use super::book::Book;
use super::{ArrayPolicy, Completion, DiskSet, QueueLengths, Start, nearest};
use crate::error::SchedError;
use crate::request::{Cylinder, Head, Kind, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::store::Slot;

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

/// What a routing rule sees when a read arrives.
#[derive(Clone, Copy, Debug)]
pub struct RouteView<'a, const D: usize> {
    /// The read's copies: cylinder on each disk.
    pub placement: &'a [Cylinder; D],
    /// The arms.
    pub heads: &'a [Head; D],
    /// Disks serving nothing with nothing queued.
    pub idle: DiskSet,
    /// Operations queued or in service at each disk.
    pub load: [usize; D],
    /// The block after the last one each disk was sent to (a read starting
    /// there is sequential for that disk).
    pub next_sequential: [u64; D],
    /// The read's first block.
    pub block: u64,
}

/// Chooses the queue(s) a read joins.
pub trait ReadRouting<const D: usize> {
    /// A non-empty set of disks whose queues the read joins.
    fn route(&mut self, view: &RouteView<'_, D>) -> DiskSet;

    /// When the other copies of a read sent to several queues are withdrawn.
    fn abort(&self) -> Abort {
        Abort::Never
    }
}

/// Distributed multiple queues over per-disk queues of type `Q`.
pub struct Dmq<Q, R, const N: usize, const D: usize> {
    book: Book<N, D>,
    queues: [Q; D],
    routing: R,
    prefer_idle: bool,
    next_sequential: [u64; D],
}

impl<Q: Scheduler, R: ReadRouting<D>, const N: usize, const D: usize> Dmq<Q, R, N, D> {
    /// An array over the given per-disk queues (each of capacity at least `N`,
    /// so a full array is reported as full before any queue is) and routing.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count,
    /// or a queue smaller than `N`.
    pub fn new(queues: [Q; D], routing: R) -> Result<Self, SchedError> {
        if queues.iter().any(|q| q.capacity() < N) {
            return Err(SchedError::InvalidParameter {
                name: "queue capacity",
                expected: "per-disk queues at least as deep as the array",
            });
        }
        Ok(Dmq {
            book: Book::new()?,
            queues,
            routing,
            prefer_idle: false,
            next_sequential: [u64::MAX; D],
        })
    }

    /// Chen & Towsley's modified routing: a read that finds an idle disk goes
    /// to the idle disk whose arm is nearest its copy, whatever the routing.
    pub fn prefer_idle(mut self) -> Self {
        self.prefer_idle = true;
        self
    }

    /// The per-disk queues.
    pub fn queues(&self) -> &[Q; D] {
        &self.queues
    }

    fn idle(&self) -> DiskSet {
        DiskSet::matching(D, |d| !self.book.is_busy(d) && self.queues[d].is_empty())
    }

    /// Withdraws the copies of `s` still queued.
    fn unqueue(&mut self, s: Slot, id: RequestId) {
        for d in self.book.queued(s).iter() {
            // The book and the queue agree on what is queued, so this cannot fail.
            let _ = self.queues[d].cancel(id);
            self.book.unmark_queued(s, d);
        }
    }
}

impl<Q: Scheduler, R: ReadRouting<D>, const N: usize, const D: usize> ArrayPolicy<D>
    for Dmq<Q, R, N, D>
{
    fn submit(
        &mut self,
        req: Request,
        placement: [Cylinder; D],
        heads: &[Head; D],
        now: Nanos,
    ) -> Result<(), SchedError> {
        let s = self.book.admit(&req, placement)?;
        let disks = if req.kind == Kind::Write {
            DiskSet::all(D)
        } else {
            let idle = self.idle();
            match nearest(idle, &placement, heads) {
                Some(d) if self.prefer_idle => DiskSet::only(d),
                _ => {
                    let view = RouteView {
                        placement: &placement,
                        heads,
                        idle,
                        load: core::array::from_fn(|d| {
                            self.queues[d].len() + usize::from(self.book.is_busy(d))
                        }),
                        next_sequential: self.next_sequential,
                        block: req.block,
                    };
                    self.routing.route(&view).intersection(DiskSet::all(D))
                }
            }
        };
        if disks.is_empty() {
            self.book.withdraw(s);
            return Err(SchedError::InvalidRequest {
                id: req.id,
                reason: "the read routing chose no disk",
            });
        }
        for d in disks.iter() {
            if let Err(e) = self.queues[d].enqueue(self.book.op(s, d), now) {
                self.unqueue(s, req.id);
                self.book.withdraw(s);
                return Err(e);
            }
            self.book.mark_queued(s, d);
        }
        Ok(())
    }

    fn poll_start(
        &mut self,
        heads: &[Head; D],
        now: Nanos,
        est: &[&dyn ServiceEstimator; D],
    ) -> Option<Start> {
        for d in 0..D {
            if self.book.is_busy(d) {
                continue;
            }
            let Some(dispatch) = self.queues[d].next(heads[d], now, est[d]) else {
                continue;
            };
            let op = dispatch.request;
            let s = self
                .book
                .find(op.id)
                .expect("every queued operation is in the book");
            self.book.start(s, d);
            self.next_sequential[d] = op.block + op.blocks as u64;
            if op.kind == Kind::Read && self.routing.abort() == Abort::AtStart {
                self.unqueue(s, op.id);
            }
            return Some(Start { disk: d, dispatch });
        }
        None
    }

    fn complete(&mut self, disk: usize, _now: Nanos) -> Result<Completion, SchedError> {
        let at_completion = self.routing.abort() == Abort::AtCompletion;
        let (s, done) = self.book.complete_op(disk, at_completion)?;
        if let (true, Some(req)) = (at_completion, done.finished) {
            self.unqueue(s, req.id);
        }
        self.book.retire_if_idle(s);
        Ok(done)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, SchedError> {
        let s = self.book.find_open(id)?;
        if self.book.is_update(s) && self.book.queued(s) != DiskSet::all(D) {
            return Err(Book::<N, D>::update_in_progress(id));
        }
        self.unqueue(s, id);
        Ok(self.book.withdraw_open(s))
    }

    fn in_system(&self) -> usize {
        self.book.open()
    }

    fn is_busy(&self, disk: usize) -> bool {
        self.book.is_busy(disk)
    }

    fn queue_lengths(&self) -> QueueLengths<D> {
        QueueLengths {
            disk: core::array::from_fn(|d| self.queues[d].len()),
            ..QueueLengths::default()
        }
    }
}
