//! What every array policy does the same way: accepting completions,
//! withdrawing requests and taking failed disks out of service, all on the
//! [`Ledger`] of logical requests. A policy supplies only its [`Queues`]:
//! where a request waits and which operation starts next (its routing and
//! start rules); [`Array`] does the rest.

use super::copies::DiskSet;
use super::ledger::{Ledger, Loss, at_copy};
use super::{Ack, ArrayPolicy, ArrayView, Completion, Copies, DiskState, Rebuild, Start};
use crate::error::{
    BuildError, CancelError, CompleteError, DiskStateError, EnqueueError, PollError,
};
use crate::queue::Slot;
use crate::request::{Dispatch, Kind, Nanos, Request, RequestId};
use crate::scheduler::Scheduler;
use crate::storage::Storage;

/// An array policy: the ledger of logical requests every policy keeps,
/// and the queues `Q` that make it a single-queue, DMQ or CMQ policy (see
/// [`SingleQueue`](super::SingleQueue), [`Dmq`](super::Dmq),
/// [`Cmq`](super::Cmq) and, with feature `alloc`, `AnyArray`).
pub struct Array<Q, S: Storage> {
    ledger: Ledger<S>,
    queues: Q,
}

/// What the array holds: its disks and the logical requests open in it.
impl<Q, S: Storage> core::fmt::Debug for Array<Q, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Array")
            .field("disks", &self.ledger.disks())
            .field("in_system", &self.ledger.open())
            .finish_non_exhaustive()
    }
}

/// Where an array policy keeps the work it has not started, and which
/// operation it starts next: the part in which array policies differ.
/// Completions, cancels and disk failures are handled by [`Array`] on the
/// ledger, calling these hooks where the queues are concerned.
pub(crate) trait Queues<S: Storage> {
    /// Registers and queues a logical request, or refuses it with nothing kept.
    fn submit(
        &mut self,
        ledger: &mut Ledger<S>,
        req: &Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError>;

    /// The next operation to start on an idle disk.
    fn poll_start(
        &mut self,
        ledger: &mut Ledger<S>,
        view: &ArrayView<'_>,
    ) -> Result<Option<Start>, PollError>;

    /// Whether the first completion of a read aborts its other copies in service.
    fn read_completion_aborts(&self) -> bool;

    /// The read `s` has just been acknowledged: its copies still queued may
    /// be withdrawn.
    fn read_finished(&mut self, ledger: &mut Ledger<S>, s: Slot);

    /// Takes the open request `s` out of the queues before it is withdrawn,
    /// or refuses (a write some disk has started).
    fn cancel(&mut self, ledger: &mut Ledger<S>, s: Slot) -> Result<(), CancelError>;

    /// One request with an operation queued for the failed disk `disk`,
    /// taken out of that disk's queue; `None` when none is left.
    fn take_queued(&mut self, ledger: &mut Ledger<S>, disk: usize) -> Option<Slot>;

    /// Queues again a read that lost its every operation to a failed disk,
    /// or reports it failed.
    fn reroute(&mut self, ledger: &mut Ledger<S>, s: Slot, view: &ArrayView<'_>);

    /// Disk `disk` failed and its operations have been taken back.
    fn disk_failed(&mut self, ledger: &mut Ledger<S>, disk: usize);

    /// See [`ArrayPolicy::next_eligible_at`].
    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos>;

    /// See [`ArrayPolicy::common_len`].
    fn common_len(&self) -> usize;

    /// See [`ArrayPolicy::disk_queue_len`].
    fn disk_queue_len(&self, disk: usize) -> usize;

    /// See [`ArrayPolicy::aux_len`].
    fn aux_len(&self, disk: usize) -> usize;

    /// Whether the queues have committed an operation to idle disk `disk`
    /// that the next poll hands out (the single-queue family).
    fn committed(&self, _disk: usize) -> bool {
        false
    }
}

impl<Q, S: Storage> Array<Q, S> {
    /// An array of `disks` disks whose ledger holds `storage.capacity()`
    /// logical requests, over `queues`.
    pub(crate) fn with_queues(storage: &S, disks: usize, queues: Q) -> Result<Self, BuildError> {
        Ok(Array {
            ledger: Ledger::new(storage, disks)?,
            queues,
        })
    }

    /// When writes count as done (default [`Ack::All`]).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a quorum of 0.
    pub fn with_ack(mut self, ack: Ack) -> Result<Self, BuildError> {
        self.ledger.set_ack(ack)?;
        Ok(self)
    }

    /// The policy's queues.
    pub(crate) fn inner_queues(&self) -> &Q {
        &self.queues
    }

    /// The policy's queues, to change how they route.
    pub(crate) fn inner_queues_mut(&mut self) -> &mut Q {
        &mut self.queues
    }
}

/// Submits again the held writes whose barrier has fallen, then starts a
/// claimed resync copy on an idle disk if no write overlapping it is in
/// flight.
#[cold]
fn resync_work<S: Storage>(
    ledger: &mut Ledger<S>,
    queues: &mut impl Queues<S>,
    view: &ArrayView<'_>,
) -> Option<Start> {
    while let Some((req, copies)) = ledger.release_held() {
        if queues.submit(ledger, &req, &copies, view).is_err() {
            ledger.fail_released(&req, &copies, view);
        }
    }
    for d in ledger.resync_waiting().iter() {
        if queues.committed(d) {
            continue;
        }
        if let Some((copy, source)) = ledger.start_copy(d) {
            return Some(Start {
                disk: d,
                dispatch: Dispatch::direct(copy),
                copy_from: Some(source),
            });
        }
    }
    None
}

impl<Q: Queues<S>, S: Storage> ArrayPolicy for Array<Q, S> {
    #[inline]
    fn submit(
        &mut self,
        req: Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        if self.ledger.must_hold(&req, copies) {
            return self.ledger.hold(&req, copies, view);
        }
        self.queues.submit(&mut self.ledger, &req, copies, view)
    }

    #[inline]
    fn complete(&mut self, disk: usize, _now: Nanos) -> Result<Completion, CompleteError> {
        if let Some(copy) = self.ledger.finish_copy(disk) {
            return Ok(Completion {
                resynced: Some(copy),
                ..Completion::default()
            });
        }
        let aborts = self.queues.read_completion_aborts();
        let mut done = Completion::default();
        let s = self.ledger.complete_op(disk, aborts, &mut done)?;
        if done.finished.is_some_and(|r| r.kind == Kind::Read) {
            self.queues.read_finished(&mut self.ledger, s);
        }
        self.ledger.retire_if_idle(s);
        Ok(done)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.ledger.find_open(id)?;
        if self.ledger.is_held(s) {
            return Ok(self.ledger.cancel_held(s));
        }
        self.queues.cancel(&mut self.ledger, s)?;
        Ok(self.ledger.withdraw_open(s))
    }

    fn fail_disk(&mut self, disk: usize, view: &ArrayView<'_>) -> Result<(), DiskStateError> {
        self.ledger.check_fail(disk)?;
        if let Some(s) = self.ledger.fail_disk(disk)
            && self.ledger.lose(s, disk) == Loss::Reroute
        {
            self.queues.reroute(&mut self.ledger, s, view);
        }
        while let Some(s) = self.queues.take_queued(&mut self.ledger, disk) {
            self.ledger.dequeued(s, disk);
            if self.ledger.lose(s, disk) == Loss::Reroute {
                self.queues.reroute(&mut self.ledger, s, view);
            }
        }
        self.queues.disk_failed(&mut self.ledger, disk);
        Ok(())
    }

    fn replace_disk(&mut self, disk: usize, rebuild: Rebuild) -> Result<(), DiskStateError> {
        self.ledger.replace(disk, rebuild.current_to, rebuild.end)
    }

    fn resync(&mut self, disk: usize, copy: Request) -> Result<(), DiskStateError> {
        self.ledger.claim_resync(disk, &copy)
    }

    fn contains(&self, id: RequestId) -> bool {
        self.ledger.find(id).is_some()
    }

    #[inline]
    fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError> {
        if (!self.ledger.resync_waiting().is_empty() || self.ledger.holds_writes())
            && let Some(start) = resync_work(&mut self.ledger, &mut self.queues, view)
        {
            return Ok(Some(start));
        }
        self.queues.poll_start(&mut self.ledger, view)
    }

    fn poll_event(&mut self) -> Option<Completion> {
        self.ledger.poll_event()
    }

    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        self.queues.next_eligible_at(now)
    }

    fn disks(&self) -> usize {
        self.ledger.disks()
    }

    fn disk_state(&self, disk: usize) -> DiskState {
        self.ledger.state(disk)
    }

    fn in_system(&self) -> usize {
        self.ledger.open()
    }

    fn is_busy(&self, disk: usize) -> bool {
        self.ledger.is_busy(disk)
    }

    fn common_len(&self) -> usize {
        self.queues.common_len()
    }

    fn disk_queue_len(&self, disk: usize) -> usize {
        self.queues.disk_queue_len(disk)
    }

    fn aux_len(&self, disk: usize) -> usize {
        self.queues.aux_len(disk)
    }
}

/// Keeps overlapping writes in submission order on each disk, whatever the
/// disk's queue discipline: when `queue`, disk `d`'s, dispatched the write
/// `*s` while a write submitted earlier that overlaps it is still to be
/// written on `d`, the earlier one starts instead (reached by a direct seek)
/// and `*s` goes back to wait; repeated until nothing earlier overlaps.
/// Returns the slot and operation to start, or `None` (with the write back
/// in the queue) when the earlier write is not in this queue yet, so `d`
/// must wait. Called only for a write that overlapped a write in flight
/// when it was admitted ([`Ledger::overlapped_earlier`]): rarely. (Taking
/// and returning them by value, not through references, lets the common
/// path that never calls it keep the dispatch out of memory.)
///
/// A discipline that orders by position (C-LOOK, SSTF) could otherwise
/// write two overlapping writes in one order on one disk and in the other
/// on another, leaving the copies different (and, once both are
/// acknowledged, one of them older than the array acknowledged); under
/// [`Ack::First`] or a quorum, an acknowledged write could land after a
/// newer one. Linux md serialises overlapping writes for the same reason.
///
/// # Errors
/// [`PollError::UnknownOperation`] when the queue lost the earlier write,
/// [`PollError::Requeue`] when it refuses `s` back.
#[cold]
pub(crate) fn earlier_overlapping_writes_first<S: Storage>(
    ledger: &Ledger<S>,
    queue: &mut impl Scheduler,
    d: usize,
    mut s: Slot,
    mut dispatch: Dispatch,
) -> Result<Option<(Slot, Dispatch)>, PollError> {
    while ledger.is_write(s)
        && let Some(earlier) = ledger.older_write_due_on(s, d)
    {
        let later = dispatch.request;
        let waiting = ledger.queued(earlier).contains(d);
        let op = if waiting {
            let id = ledger.request(earlier).id;
            Some(
                queue
                    .cancel(id)
                    .map_err(|_| PollError::UnknownOperation { disk: d, id })?,
            )
        } else {
            None
        };
        queue.enqueue(later).map_err(|_| PollError::Requeue {
            disk: d,
            id: later.id,
        })?;
        let Some(op) = op else {
            return Ok(None);
        };
        dispatch = Dispatch::direct(op);
        s = earlier;
    }
    Ok(Some((s, dispatch)))
}

/// Queues an operation of `s` on each disk of `disks`, at that disk's copy,
/// in the disk's queue of `queues`; when one refuses, withdraws those this
/// call queued and returns the refusal, so the request is queued on every
/// disk or on none (DMQ's disk queues, an eager-writing array's foreground
/// or delayed-write queues).
///
/// # Errors
/// The first queue's refusal ([`EnqueueError::QueueFull`] and the like).
#[inline(always)]
pub(crate) fn enqueue_on_each<S: Storage>(
    ledger: &mut Ledger<S>,
    queues: &mut [impl Scheduler],
    s: Slot,
    req: &Request,
    copies: &Copies,
    disks: DiskSet,
) -> Result<(), EnqueueError> {
    // Admission found whether every copy lies at the request's own place
    // (a mirror laid out identically): then each disk's operation is the
    // request itself, with no copy to look up.
    let own_place = ledger.at_own_place(s);
    for d in disks.iter() {
        let op = if own_place {
            *req
        } else {
            copies.location(d).map_or(*req, |at| at_copy(req, at))
        };
        if let Err(e) = queues[d].enqueue(op) {
            for queued in disks.iter().take_while(|&q| q != d) {
                // Queued by this call a moment ago: the queue gives it back.
                let _ = queues[queued].cancel(req.id);
                ledger.dequeued(s, queued);
            }
            return Err(e);
        }
        ledger.enqueued(s, d);
    }
    Ok(())
}
