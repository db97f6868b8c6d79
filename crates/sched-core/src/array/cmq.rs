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

use super::bookkeeping::{Array, Queues, earlier_overlapping_writes_first};
use super::copies::{Copies, DiskSet};
use super::ledger::Ledger;
use super::{ArrayView, DiskQueues, Start, check_queue_capacity, nearest};
use crate::error::{BuildError, CancelError, EnqueueError, PollError};
use crate::queue::Slot;
use crate::request::{Dispatch, Kind, Nanos, Request};
use crate::scheduler::Scheduler;
use crate::storage::Storage;

/// Common multiple queue: common discipline `C`, auxiliary queues `A`, the
/// ledger on storage `S`.
pub type Cmq<C, A, S> = Array<CmqQueues<C, A>, S>;

/// The queues of a [`Cmq`]: the common queue and one auxiliary queue per disk.
pub struct CmqQueues<C, A> {
    common: C,
    aux: A,
}

/// Only the name: the queues are seen through the array ([`Array`](super::Array)'s
/// `Debug` and the `ArrayPolicy` getters).
impl<C, A> core::fmt::Debug for CmqQueues<C, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CmqQueues").finish_non_exhaustive()
    }
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
        let disks = aux.queues().len();
        Array::with_queues(&storage, disks, CmqQueues { common, aux })
    }

    /// Disks whose auxiliary queue holds writes (at most one at a time for a
    /// healthy mirror).
    pub fn lagging(&self) -> DiskSet {
        let aux = self.inner_queues().aux.queues();
        DiskSet::matching(aux.len(), |d| !aux[d].is_empty())
    }
}

impl<C: Scheduler, A: DiskQueues> CmqQueues<C, A> {
    /// Hands the operation of `s` for disk `d` to `d`'s auxiliary queue.
    fn send_to_aux<S: Storage>(&mut self, ledger: &mut Ledger<S>, s: Slot, d: usize) {
        let op = ledger.op(s, d);
        // As deep as the array, and one operation per request: it cannot fail.
        if self.aux.queues_mut()[d].enqueue(op).is_ok() {
            ledger.enqueued(s, d);
        }
    }
}

impl<C: Scheduler, A: DiskQueues, S: Storage> Queues<S> for CmqQueues<C, A> {
    fn submit(
        &mut self,
        ledger: &mut Ledger<S>,
        req: &Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        let s = ledger.admit_to_common_queue(req, copies, view)?;
        if let Err(e) = self.common.enqueue(*req) {
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
        let now = view.now;
        for d in ledger.idle().iter() {
            // Lagging writes first: their update is already under way. A
            // disk the ledger shows with nothing queued has an empty
            // auxiliary queue, which is not asked (as DMQ asks no empty
            // queue): an empty SSTF queue searches its cylinder index up
            // and down from the arm before it answers `None`, about 160
            // instructions a call.
            if !ledger.unqueued().contains(d)
                && let Some(dispatch) =
                    self.aux.queues_mut()[d].next(view.heads[d], now, view.estimators[d])
            {
                let id = dispatch.request.id;
                let s = ledger
                    .find(id)
                    .filter(|&s| ledger.queued(s).contains(d))
                    .ok_or(PollError::UnknownOperation { disk: d, id })?;
                let (s, dispatch) =
                    if dispatch.request.kind == Kind::Write && ledger.overlapped_earlier(s) {
                        match earlier_overlapping_writes_first(
                            ledger,
                            &mut self.aux.queues_mut()[d],
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
                ledger.start(s, d, now);
                return Ok(Some(Start {
                    disk: d,
                    dispatch,
                    copy_from: None,
                }));
            }
            while let Some(mut taken) = self.common.next(view.heads[d], now, view.estimators[d]) {
                let id = taken.request.id;
                let mut s = ledger
                    .find(id)
                    .filter(|&s| ledger.is_open(s) && ledger.queued(s).is_empty())
                    .ok_or(PollError::UnknownOperation { disk: d, id })?;
                // An earlier overlapping write still in the common queue
                // goes first, so the two reach every disk in order.
                while taken.request.kind == Kind::Write
                    && ledger.overlapped_earlier(s)
                    && let Some(earlier) = ledger.older_unstarted_write(s)
                {
                    let id = ledger.request(earlier).id;
                    let op = self
                        .common
                        .cancel(id)
                        .map_err(|_| PollError::UnknownOperation { disk: d, id })?;
                    self.common
                        .enqueue(taken.request)
                        .map_err(|_| PollError::Requeue {
                            disk: d,
                            id: taken.request.id,
                        })?;
                    taken = Dispatch::direct(op);
                    s = earlier;
                }
                ledger.skip_failed_targets(s);
                if !ledger.is_open(s) {
                    continue; // every target failed: reported by poll_event
                }
                let servers = ledger.servers(s);
                if !servers.contains(d) {
                    // Not servable here: to the nearest disk that can serve it.
                    match nearest(servers, &ledger.copies(s), view.heads) {
                        Some(e) if !ledger.is_write(s) => self.send_to_aux(ledger, s, e),
                        Some(_) => {
                            for e in servers.iter() {
                                self.send_to_aux(ledger, s, e);
                            }
                        }
                        None => ledger.fail(s),
                    }
                    continue;
                }
                if ledger.is_write(s) {
                    for e in servers.without(d).iter() {
                        self.send_to_aux(ledger, s, e);
                    }
                }
                ledger.start(s, d, now);
                let dispatch = Dispatch {
                    request: ledger.op(s, d),
                    travel: taken.travel,
                    chosen: taken.chosen,
                };
                return Ok(Some(Start {
                    disk: d,
                    dispatch,
                    copy_from: None,
                }));
            }
        }
        Ok(None)
    }

    fn read_completion_aborts(&self) -> bool {
        false
    }

    fn read_finished(&mut self, _register: &mut Ledger<S>, _s: Slot) {
        // A read has one operation: nothing of it is left queued.
    }

    fn cancel(&mut self, ledger: &mut Ledger<S>, s: Slot) -> Result<(), CancelError> {
        let id = ledger.request(s).id;
        if self.common.contains(id) {
            let _ = self.common.cancel(id);
            return Ok(());
        }
        ledger.check_cancel(s)?;
        for d in ledger.queued(s).iter() {
            let _ = self.aux.queues_mut()[d].cancel(id);
            ledger.dequeued(s, d);
        }
        Ok(())
    }

    fn take_queued(&mut self, ledger: &mut Ledger<S>, disk: usize) -> Option<Slot> {
        while let Some(op) = self.aux.queues_mut()[disk].pop_any() {
            // An operation that was never ours has nothing to account for.
            if let Some(s) = ledger.find(op.id) {
                return Some(s);
            }
        }
        None
    }

    /// Puts a read that lost its operation back in the common queue.
    fn reroute(&mut self, ledger: &mut Ledger<S>, s: Slot, _view: &ArrayView<'_>) {
        if self.common.enqueue(ledger.request(s)).is_err() {
            ledger.fail(s);
        }
    }

    fn disk_failed(&mut self, ledger: &mut Ledger<S>, _disk: usize) {
        if ledger.live().is_empty() {
            // No disk is left to take requests from the common queue.
            while let Some(r) = self.common.pop_any() {
                if let Some(s) = ledger.find(r.id).filter(|&s| ledger.is_open(s)) {
                    ledger.fail(s);
                }
            }
        }
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
