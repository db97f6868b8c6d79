//! CMQ: a common queue for every request, auxiliary queues for lagging writes.
//!
//! Towsley, Chen & Yu (1991, §2.2): when a disk becomes free it takes a request
//! from the common queue; a read is served there; an update starts its write
//! on that disk and sends the write for every other disk to that disk's
//! *auxiliary queue*, which the disk serves before taking anything new from
//! the common queue. An idle disk starts the write at once; a busy one lags
//! behind, and only the lagging disk's auxiliary queue is ever non-empty.
//!
//! The disciplines are parameters: FCFS for both in the original CMQ; SSTF for
//! both in the modified CMQ of Chen & Towsley (1991, §3.1); RT-CMQ (§3.3) puts
//! SSEDO on the common queue and FCFS (RT-CMQ-F), SSTF (RT-CMQ-S) or SSEDO
//! (RT-CMQ-W) on the auxiliary queues. The common queue orders requests by the
//! cylinder of their copy on disk 0, and is asked with the arm of whichever
//! disk is free: exact for mirrors laid out identically (the papers' setting),
//! an approximation when the copies sit at different cylinders.

use super::book::Book;
use super::{ArrayPolicy, Completion, DiskSet, QueueLengths, Start};
use crate::error::SchedError;
use crate::request::{Cylinder, Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};

/// Common multiple queue: common discipline `C`, auxiliary discipline `A`.
pub struct Cmq<C, A, const N: usize, const D: usize> {
    book: Book<N, D>,
    common: C,
    aux: [A; D],
}

impl<C: Scheduler, A: Scheduler, const N: usize, const D: usize> Cmq<C, A, N, D> {
    /// An array over the given common queue and per-disk auxiliary queues,
    /// each of capacity at least `N` (an update adds at most one write to each
    /// auxiliary queue, so they can never overflow).
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count,
    /// or a queue smaller than `N`.
    pub fn new(common: C, aux: [A; D]) -> Result<Self, SchedError> {
        if common.capacity() < N || aux.iter().any(|q| q.capacity() < N) {
            return Err(SchedError::InvalidParameter {
                name: "queue capacity",
                expected: "common and auxiliary queues at least as deep as the array",
            });
        }
        Ok(Cmq {
            book: Book::new()?,
            common,
            aux,
        })
    }

    /// Disks whose auxiliary queue holds writes (at most one at a time).
    pub fn lagging(&self) -> DiskSet {
        (0..D)
            .filter(|&d| !self.aux[d].is_empty())
            .fold(DiskSet::EMPTY, DiskSet::with)
    }

    fn start(&mut self, s: crate::store::Slot, d: usize, dispatch: Dispatch) -> Start {
        self.book.start(s, d);
        Start { disk: d, dispatch }
    }
}

impl<C: Scheduler, A: Scheduler, const N: usize, const D: usize> ArrayPolicy<D>
    for Cmq<C, A, N, D>
{
    fn submit(
        &mut self,
        req: Request,
        placement: [Cylinder; D],
        _heads: &[Head; D],
        now: Nanos,
    ) -> Result<(), SchedError> {
        let s = self.book.admit(&req, placement)?;
        if let Err(e) = self.common.enqueue(self.book.request(s), now) {
            self.book.withdraw(s);
            return Err(e);
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
            // Lagging writes first: their update is already under way.
            if let Some(dispatch) = self.aux[d].next(heads[d], now, est[d]) {
                let s = self
                    .book
                    .find(dispatch.request.id)
                    .expect("every queued write is in the book");
                return Some(self.start(s, d, dispatch));
            }
            let Some(taken) = self.common.next(heads[d], now, est[d]) else {
                continue;
            };
            let s = self
                .book
                .find(taken.request.id)
                .expect("every queued request is in the book");
            if self.book.is_update(s) {
                for e in (0..D).filter(|&e| e != d) {
                    // Capacity N and one write per update: this cannot fail.
                    let _ = self.aux[e].enqueue(self.book.op(s, e), now);
                    self.book.mark_queued(s, e);
                }
            }
            let dispatch = Dispatch {
                request: self.book.op(s, d),
                travel: taken.travel,
            };
            return Some(self.start(s, d, dispatch));
        }
        None
    }

    fn complete(&mut self, disk: usize, _now: Nanos) -> Result<Completion, SchedError> {
        let (s, done) = self.book.complete_op(disk, false)?;
        self.book.retire_if_idle(s);
        Ok(done)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, SchedError> {
        let s = self.book.find_open(id)?;
        if self.common.contains(id) {
            let _ = self.common.cancel(id);
        } else if self.book.is_update(s) {
            return Err(Book::<N, D>::update_in_progress(id));
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
            common: self.common.len(),
            aux: core::array::from_fn(|d| self.aux[d].len()),
            ..QueueLengths::default()
        }
    }
}
