//! The single-queue (SQ) family of Towsley, Chen & Yu (1991, §2.1): every
//! request joins one FCFS queue, and the request at its head starts when the
//! policy's [`StartRule`] allows, on the disks the rule names. S-PSSQ, C-PSSQ,
//! CR-ESQ, CRU-ESQ and MR-ESQ differ only in that rule.

use super::book::Book;
use super::{ArrayPolicy, Completion, DiskSet, QueueLengths, Start};
use crate::error::SchedError;
use crate::request::{Cylinder, Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::ServiceEstimator;
use crate::store::{Fifo, Slot};

const NONE: Slot = Slot::MAX;

/// What a start rule sees of the array when a request is at the head of the queue.
#[derive(Clone, Copy, Debug)]
pub struct SqView<'a, const D: usize> {
    /// Disks serving nothing.
    pub idle: DiskSet,
    /// Whether some disk is writing an update.
    pub writing: bool,
    /// The head request's copies: cylinder on each disk.
    pub placement: &'a [Cylinder; D],
    /// The arms.
    pub heads: &'a [Head; D],
}

/// When the request at the head of the single queue may start, and where.
pub trait StartRule<const D: usize> {
    /// The disks a read at the head starts on now (empty: it waits). Only
    /// idle disks may be named.
    fn read_disks(&self, view: &SqView<'_, D>) -> DiskSet;

    /// Whether an update at the head may start now, writing every disk. In
    /// every SQ policy an update waits until all disks are idle.
    fn update_may_start(&self, view: &SqView<'_, D>) -> bool {
        view.idle == DiskSet::all(D)
    }
}

/// One FCFS queue of logical requests whose head starts as rule `R` allows.
pub struct SingleQueue<R, const N: usize, const D: usize> {
    book: Book<N, D>,
    waiting: Fifo<N>,
    waiting_len: usize,
    /// Operations committed to an idle disk and not yet handed to the driver.
    ready: [Slot; D],
    rule: R,
}

impl<R: StartRule<D> + Default, const N: usize, const D: usize> SingleQueue<R, N, D> {
    /// An empty array queue holding up to `N` logical requests.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count.
    pub fn new() -> Result<Self, SchedError> {
        Ok(SingleQueue {
            book: Book::new()?,
            waiting: Fifo::new(),
            waiting_len: 0,
            ready: [NONE; D],
            rule: R::default(),
        })
    }
}

impl<R: StartRule<D>, const N: usize, const D: usize> SingleQueue<R, N, D> {
    fn emit_ready(&mut self) -> Option<Start> {
        let d = (0..D).find(|&d| self.ready[d] != NONE)?;
        let s = self.ready[d];
        self.ready[d] = NONE;
        self.book.start(s, d);
        Some(Start {
            disk: d,
            dispatch: Dispatch::direct(self.book.op(s, d)),
        })
    }
}

impl<R: StartRule<D>, const N: usize, const D: usize> ArrayPolicy<D> for SingleQueue<R, N, D> {
    fn submit(
        &mut self,
        req: Request,
        placement: [Cylinder; D],
        _heads: &[Head; D],
        _now: Nanos,
    ) -> Result<(), SchedError> {
        let s = self.book.admit(&req, placement)?;
        self.waiting.push_back(s);
        self.waiting_len += 1;
        Ok(())
    }

    fn poll_start(
        &mut self,
        heads: &[Head; D],
        _now: Nanos,
        _est: &[&dyn ServiceEstimator; D],
    ) -> Option<Start> {
        if let Some(start) = self.emit_ready() {
            return Some(start);
        }
        let s = self.waiting.front()?;
        let idle = self.book.idle();
        let view = SqView {
            idle,
            writing: (0..D).any(|d| self.book.writing_on(d)),
            placement: self.book.placement(s),
            heads,
        };
        let disks = if self.book.is_update(s) {
            if self.rule.update_may_start(&view) {
                DiskSet::all(D)
            } else {
                DiskSet::EMPTY
            }
        } else {
            self.rule.read_disks(&view)
        };
        if disks.is_empty() {
            return None;
        }
        debug_assert!(
            disks.intersection(idle) == disks,
            "rules start only idle disks"
        );
        self.waiting.remove(s);
        self.waiting_len -= 1;
        for d in disks.iter() {
            self.book.mark_queued(s, d);
            self.ready[d] = s;
        }
        self.emit_ready()
    }

    /// A read completes with its first copy (MR-ESQ aborts the others); an
    /// update when every disk has written it.
    fn complete(&mut self, disk: usize, _now: Nanos) -> Result<Completion, SchedError> {
        let (s, done) = self.book.complete_op(disk, true)?;
        self.book.retire_if_idle(s);
        Ok(done)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, SchedError> {
        let s = self.book.find_open(id)?;
        let started = !self.book.serving(s).is_empty();
        if started && self.book.is_update(s) {
            return Err(Book::<N, D>::update_in_progress(id));
        }
        if !started {
            self.waiting.remove(s);
            self.waiting_len -= 1;
        }
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
            common: self.waiting_len,
            ..QueueLengths::default()
        }
    }
}
