//! The machinery the single-queue policies share: one FCFS queue of logical
//! requests whose head starts when the policy's rule allows, on the disks the
//! rule names (Towsley, Chen & Yu 1991, §2.1). Only the start rule differs.

use super::book::Book;
use super::{Completion, DiskSet, QueueLengths, Start};
use crate::error::SchedError;
use crate::request::{Cylinder, Dispatch, Head, Request, RequestId};
use crate::store::{Fifo, Slot};

const NONE: Slot = Slot::MAX;

/// What the start rule sees of the array.
pub(crate) struct SqView<'a, const D: usize> {
    /// Disks serving nothing.
    pub(crate) idle: DiskSet,
    /// Whether some disk is writing an update.
    pub(crate) writing: bool,
    /// The head request's copies.
    pub(crate) placement: &'a [Cylinder; D],
    /// The arms.
    pub(crate) heads: &'a [Head; D],
}

pub(crate) struct SqCore<const N: usize, const D: usize> {
    book: Book<N, D>,
    waiting: Fifo<N>,
    waiting_len: usize,
    /// Operations committed to an idle disk and not yet handed to the driver.
    ready: [Slot; D],
}

impl<const N: usize, const D: usize> SqCore<N, D> {
    pub(crate) fn new() -> Result<Self, SchedError> {
        Ok(SqCore {
            book: Book::new()?,
            waiting: Fifo::new(),
            waiting_len: 0,
            ready: [NONE; D],
        })
    }

    pub(crate) fn submit(&mut self, req: &Request, placement: [Cylinder; D]) -> Result<(), SchedError> {
        let s = self.book.admit(req, placement)?;
        self.waiting.push_back(s);
        self.waiting_len += 1;
        Ok(())
    }

    /// Starts what the rule allows: `read_disks` names the disks a read at the
    /// head of the queue starts on now, `update_ok` whether an update may
    /// start (on every disk).
    pub(crate) fn poll_start(
        &mut self,
        heads: &[Head; D],
        read_disks: impl Fn(&SqView<'_, D>) -> DiskSet,
        update_ok: impl Fn(&SqView<'_, D>) -> bool,
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
            if update_ok(&view) { DiskSet::all(D) } else { DiskSet::EMPTY }
        } else {
            read_disks(&view)
        };
        if disks.is_empty() {
            return None;
        }
        debug_assert!(disks.intersection(idle) == disks, "rules start only idle disks");
        self.waiting.remove(s);
        self.waiting_len -= 1;
        for d in disks.iter() {
            self.book.mark_queued(s, d);
            self.ready[d] = s;
        }
        self.emit_ready()
    }

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

    /// A read completes with its first copy (any other copy in service is
    /// aborted); an update when every disk has written it.
    pub(crate) fn complete(&mut self, disk: usize) -> Result<Completion, SchedError> {
        let s = self.book.finish_op(disk)?;
        let mut done = Completion::default();
        if !self.book.is_closed(s) {
            if self.book.is_update(s) {
                if self.book.all_done(s) {
                    done.finished = Some(self.book.close(s));
                }
            } else {
                done.finished = Some(self.book.close(s));
                done.abort = self.book.serving(s);
                for d in done.abort.iter() {
                    self.book.abort_op(d);
                }
            }
        }
        self.book.retire_if_idle(s);
        Ok(done)
    }

    pub(crate) fn cancel(&mut self, id: RequestId) -> Result<Request, SchedError> {
        let s = self.book.find(id).filter(|&s| !self.book.is_closed(s)).ok_or(SchedError::UnknownId(id))?;
        let started = !self.book.serving(s).is_empty();
        if started && self.book.is_update(s) {
            return Err(SchedError::InvalidRequest {
                id,
                reason: "an update some disk has started writing cannot be withdrawn",
            });
        }
        if !started {
            self.waiting.remove(s);
            self.waiting_len -= 1;
        }
        let req = self.book.close(s);
        self.book.retire_if_idle(s);
        Ok(req)
    }

    pub(crate) fn in_system(&self) -> usize {
        self.book.open()
    }

    pub(crate) fn is_busy(&self, d: usize) -> bool {
        self.book.is_busy(d)
    }

    pub(crate) fn queue_lengths(&self) -> QueueLengths<D> {
        QueueLengths {
            common: self.waiting_len,
            ..QueueLengths::default()
        }
    }
}

/// Delegates the [`ArrayPolicy`](super::ArrayPolicy) methods other than
/// `poll_start` to a `core: SqCore` field.
macro_rules! delegate_to_sq_core {
    () => {
        fn submit(
            &mut self,
            req: $crate::Request,
            placement: [$crate::Cylinder; D],
            _heads: &[$crate::Head; D],
            _now: $crate::Nanos,
        ) -> Result<(), $crate::SchedError> {
            self.core.submit(&req, placement)
        }
        fn complete(
            &mut self,
            disk: usize,
            _now: $crate::Nanos,
        ) -> Result<$crate::array::Completion, $crate::SchedError> {
            self.core.complete(disk)
        }
        fn cancel(&mut self, id: $crate::RequestId) -> Result<$crate::Request, $crate::SchedError> {
            self.core.cancel(id)
        }
        fn in_system(&self) -> usize {
            self.core.in_system()
        }
        fn is_busy(&self, disk: usize) -> bool {
            self.core.is_busy(disk)
        }
        fn queue_lengths(&self) -> $crate::array::QueueLengths<D> {
            self.core.queue_lengths()
        }
    };
}
pub(crate) use delegate_to_sq_core;
