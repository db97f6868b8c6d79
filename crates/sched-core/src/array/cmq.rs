//! CMQ: a common queue for every request, auxiliary queues for lagging writes.
//!
//! Towsley, Chen & Yu (1991, §2.2): when a disk becomes free it takes a request
//! from the common queue; a read is served there; an update starts its write
//! on that disk and sends the write for every other copy to that disk's
//! *auxiliary queue*, which the disk serves before taking anything new from
//! the common queue. An idle disk starts the write at once; a busy one lags
//! behind, and only the lagging disk's auxiliary queue is ever non-empty.
//!
//! The disciplines are parameters: FCFS for both in the original CMQ; SSTF for
//! both in the modified CMQ of Chen & Towsley (1991, §3.1); RT-CMQ (§3.3) puts
//! SSEDO on the common queue and FCFS (RT-CMQ-F), SSTF (RT-CMQ-S) or SSEDO
//! (RT-CMQ-W) on the auxiliary queues.
//!
//! Two choices the papers, whose mirrors are identical and always healthy,
//! leave open: the common queue orders requests by the cylinder the driver
//! submitted them with (the logical request's), and is asked with the arm of
//! whichever disk is free — exact for mirrors laid out identically, an
//! approximation otherwise. And a request a free disk cannot serve (it holds
//! no up-to-date copy, or is not among a write's targets) goes to the
//! auxiliary queue of the eligible disk whose arm is nearest its copy, where
//! it is served ahead of new work like a lagging write.

use super::book::{Book, Loss};
use super::copies::{Copies, DiskSet};
use super::delegate_to_book;
use super::{
    Ack, ArrayPolicy, ArrayView, Completion, DiskQueues, DiskState, Start, check_queue_capacity,
    nearest,
};
use crate::error::{BuildError, CancelError, CompleteError, EnqueueError, PollError};
use crate::request::{Dispatch, Nanos, Request, RequestId};
use crate::scheduler::Scheduler;
use crate::storage::Storage;
use crate::queue::Slot;

/// Common multiple queue: common discipline `C`, auxiliary queues `A`, the
/// register on storage `S`.
pub struct Cmq<C, A, S: Storage> {
    book: Book<S>,
    common: C,
    aux: A,
}

impl<C: Scheduler, A: DiskQueues, S: Storage> Cmq<C, A, S> {
    /// An array over the given common queue and per-disk auxiliary queues
    /// (one per disk), each at least as deep as `storage` (an update adds at
    /// most one write to each auxiliary queue, so they never overflow).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for no auxiliary queue or more than
    /// [`MAX_DISKS`](super::MAX_DISKS), or a queue smaller than the storage.
    pub fn new(storage: S, common: C, aux: A) -> Result<Self, BuildError> {
        check_queue_capacity(core::slice::from_ref(&common), storage.capacity())?;
        check_queue_capacity(aux.queues(), storage.capacity())?;
        Ok(Cmq {
            book: Book::new(&storage, aux.queues().len())?,
            common,
            aux,
        })
    }

    /// When writes count as done (default [`Ack::All`]).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a quorum of 0.
    pub fn with_ack(mut self, ack: Ack) -> Result<Self, BuildError> {
        self.book.set_ack(ack)?;
        Ok(self)
    }

    /// Disks whose auxiliary queue holds writes (at most one at a time for a
    /// healthy mirror).
    pub fn lagging(&self) -> DiskSet {
        let aux = self.aux.queues();
        DiskSet::matching(aux.len(), |d| !aux[d].is_empty())
    }

    /// Hands the operation of `s` for disk `d` to `d`'s auxiliary queue.
    fn send_to_aux(&mut self, s: Slot, d: usize, now: Nanos) {
        let op = self.book.op(s, d);
        // As deep as the array, and one operation per request: it cannot fail.
        if self.aux.queues_mut()[d].enqueue(op, now).is_ok() {
            self.book.enqueued(s, d);
        }
    }

    /// Puts a read that lost its operation back in the common queue.
    fn requeue(&mut self, s: Slot, now: Nanos) {
        if self.common.enqueue(self.book.request(s), now).is_err() {
            self.book.fail(s);
        }
    }
}

impl<C: Scheduler, A: DiskQueues, S: Storage> ArrayPolicy for Cmq<C, A, S> {
    delegate_to_book!();

    fn submit(
        &mut self,
        req: Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        let s = self.book.admit_to_common_queue(&req, copies, view)?;
        if let Err(e) = self.common.enqueue(req, view.now) {
            self.book.withdraw(s);
            return Err(e);
        }
        Ok(())
    }

    fn complete(&mut self, disk: usize, _now: Nanos) -> Result<Completion, CompleteError> {
        let (s, done) = self.book.complete_op(disk, false)?;
        self.book.retire_if_idle(s);
        Ok(done)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.book.find_open(id)?;
        if self.common.contains(id) {
            let _ = self.common.cancel(id);
        } else {
            self.book.check_cancel(s)?;
            for d in self.book.queued(s).iter() {
                let _ = self.aux.queues_mut()[d].cancel(id);
                self.book.dequeued(s, d);
            }
        }
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
            self.requeue(s, view.now);
        }
        while let Some(op) = self.aux.queues_mut()[disk].pop_any() {
            let Some(s) = self.book.find(op.id) else {
                continue; // never ours: nothing to account for
            };
            self.book.dequeued(s, disk);
            if self.book.lose(s, disk) == Loss::Reroute {
                self.requeue(s, view.now);
            }
        }
        if self.book.live().is_empty() {
            // No disk is left to take requests from the common queue.
            while let Some(r) = self.common.pop_any() {
                if let Some(s) = self.book.find(r.id).filter(|&s| self.book.is_open(s)) {
                    self.book.fail(s);
                }
            }
        }
        Ok(())
    }

    fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError> {
        let now = view.now;
        for d in 0..self.book.disks() {
            if self.book.is_busy(d) || self.book.state(d) == DiskState::Failed {
                continue;
            }
            // Lagging writes first: their update is already under way.
            if let Some(dispatch) =
                self.aux.queues_mut()[d].next(view.heads[d], now, view.estimators[d])
            {
                let id = dispatch.request.id;
                let s = self
                    .book
                    .find(id)
                    .filter(|&s| self.book.queued(s).contains(d))
                    .ok_or(PollError::UnknownOperation { disk: d, id })?;
                self.book.start(s, d, now);
                return Ok(Some(Start { disk: d, dispatch }));
            }
            while let Some(taken) = self.common.next(view.heads[d], now, view.estimators[d]) {
                let id = taken.request.id;
                let s = self
                    .book
                    .find(id)
                    .filter(|&s| self.book.is_open(s) && self.book.queued(s).is_empty())
                    .ok_or(PollError::UnknownOperation { disk: d, id })?;
                self.book.skip_failed_targets(s);
                if !self.book.is_open(s) {
                    continue; // every target failed: reported by poll_event
                }
                let servers = self.book.servers(s);
                if !servers.contains(d) {
                    // Not servable here: to the nearest disk that can serve it.
                    match nearest(servers, &self.book.copies(s), view.heads) {
                        Some(e) if !self.book.is_write(s) => self.send_to_aux(s, e, now),
                        Some(_) => {
                            for e in servers.iter() {
                                self.send_to_aux(s, e, now);
                            }
                        }
                        None => self.book.fail(s),
                    }
                    continue;
                }
                if self.book.is_write(s) {
                    for e in servers.without(d).iter() {
                        self.send_to_aux(s, e, now);
                    }
                }
                self.book.start(s, d, now);
                let dispatch = Dispatch {
                    request: self.book.op(s, d),
                    travel: taken.travel,
                };
                return Ok(Some(Start { disk: d, dispatch }));
            }
        }
        Ok(None)
    }

    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        let aux = self
            .aux
            .queues()
            .iter()
            .filter_map(|q| q.next_eligible_at(now));
        self.common
            .next_eligible_at(now)
            .into_iter()
            .chain(aux)
            .min()
    }

    fn common_len(&self) -> usize {
        self.common.len()
    }

    fn disk_queue_len(&self, _disk: usize) -> usize {
        0
    }

    fn aux_len(&self, disk: usize) -> usize {
        self.aux.queues().get(disk).map_or(0, Scheduler::len)
    }
}
