//! The EW-Array's array-wide scheduling, for one stripe group: the disks
//! that may hold a block's copies.
//!
//! Zhang, Yu, Krishnamurthy & Wang, *Configuring and Scheduling an
//! Eager-Writing Disk Array for a Transaction Processing Workload* (FAST
//! 2002, §3–4). A read goes to an idle disk holding an up-to-date copy, the
//! one that reaches its copy soonest; when none is idle it joins the queue of
//! every such disk and the first to start it withdraws the others. A write
//! is done once, in the foreground: on the idle holder that reaches a free
//! block soonest (eager writing), else on the holder with the shortest
//! foreground queue; the holders it skips are reported in its
//! [`Completion::skipped`](super::Completion::skipped) for the driver to
//! propagate. The driver's propagation writes (requests of the class the
//! array is built with) wait in each disk's delayed-write queue, served only
//! when that disk has no foreground work.
//!
//! The per-disk disciplines are any [`Scheduler`]s: SATF-EW
//! ([`SatfEw`](crate::policy::SatfEw)) for an EW-Array, SATF
//! ([`Sptf`](crate::policy::Sptf)) for the arrays that update in place
//! (RAID-10, stripes, SR-Arrays), whose "nearest free block" is then the copy
//! itself.

use super::bookkeeping::{Array, Queues, enqueue_on_each};
use super::copies::{Copies, DiskSet};
use super::ledger::{Ledger, Timing, at_copy};
use super::{ArrayView, DiskQueues, Start, check_queue_capacity};

use crate::error::{BuildError, CancelError, EnqueueError, PollError};
use crate::queue::Slot;
use crate::request::{Direction, Dispatch, Kind, Nanos, Request};
use crate::scheduler::Scheduler;
use crate::storage::Storage;

/// An EW-Array stripe group: foreground queues `F`, delayed-write queues
/// `B`, the ledger on storage `S`.
pub type EwArray<F, B, S> = Array<EwQueues<F, B>, S>;

/// The queues of an [`EwArray`]: per disk, one for foreground work and one
/// for the driver's delayed (propagation) writes.
pub struct EwQueues<F, B> {
    foreground: F,
    delayed: B,
    propagation_class: u16,
}

/// Only the name: the queues are seen through the array ([`Array`](super::Array)'s
/// `Debug` and the `ArrayPolicy` getters).
impl<F, B> core::fmt::Debug for EwQueues<F, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EwQueues").finish_non_exhaustive()
    }
}

impl<F: DiskQueues, B: DiskQueues, S: Storage> EwArray<F, B, S> {
    /// A stripe group over the given foreground and delayed-write queues (one
    /// of each per disk, each at least as deep as `storage`); writes of class
    /// `propagation_class` are the driver's propagation writes.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for no disk, more than 64, queue
    /// sets of different sizes, or a queue smaller than the storage.
    pub fn new(
        storage: S,
        foreground: F,
        delayed: B,
        propagation_class: u16,
    ) -> Result<Self, BuildError> {
        check_queue_capacity(foreground.queues(), storage.capacity())?;
        check_queue_capacity(delayed.queues(), storage.capacity())?;
        let disks = foreground.queues().len();
        if delayed.queues().len() != disks {
            return Err(BuildError::invalid(
                "delayed-write queues",
                "one per disk, as many as the foreground queues",
            ));
        }
        Array::with_queues(
            &storage,
            disks,
            EwQueues {
                foreground,
                delayed,
                propagation_class,
            },
        )
    }
}

impl<F: DiskQueues, B: DiskQueues> EwQueues<F, B> {
    /// Live disks serving nothing with no foreground work queued.
    fn idle<S: Storage>(&self, ledger: &Ledger<S>) -> DiskSet {
        let fg = self.foreground.queues();
        let mut idle = ledger.idle();
        for d in idle.iter() {
            if !fg[d].is_empty() {
                idle = idle.without(d);
            }
        }
        idle
    }

    /// Among `candidates`, the disk whose heads reach its copy of `req`
    /// soonest; ties go to the lower disk.
    fn soonest_to_copy(
        req: &Request,
        copies: &Copies,
        candidates: DiskSet,
        view: &ArrayView<'_>,
    ) -> Option<usize> {
        candidates.iter().min_by_key(|&d| {
            let op = copies.location(d).map_or(*req, |at| at_copy(req, at));
            (
                view.estimators[d].positioning_time(view.heads[d], &op, view.now),
                d,
            )
        })
    }

    /// Among `candidates`, the disk whose heads reach a free place for `req`
    /// soonest, in either direction (its copy where it knows no free place);
    /// ties go to the lower disk.
    fn soonest_to_free(
        req: &Request,
        copies: &Copies,
        candidates: DiskSet,
        view: &ArrayView<'_>,
    ) -> Option<usize> {
        candidates.iter().min_by_key(|&d| {
            let (est, head) = (view.estimators[d], view.heads[d]);
            let free = [Direction::Up, Direction::Down]
                .into_iter()
                .filter_map(|sweep| est.nearest_free(head, view.now, sweep, req.blocks))
                .map(|f| f.positioning)
                .min();
            let cost = free.unwrap_or_else(|| {
                let op = copies.location(d).map_or(*req, |at| at_copy(req, at));
                est.positioning_time(head, &op, view.now)
            });
            (cost, d)
        })
    }

    /// The disks a read joins, among `eligible`: the idle one that reaches
    /// its copy soonest, else all of them.
    fn route_read<S: Storage>(
        &self,
        ledger: &Ledger<S>,
        req: &Request,
        copies: &Copies,
        eligible: DiskSet,
        view: &ArrayView<'_>,
    ) -> DiskSet {
        let idle = self.idle(ledger).intersection(eligible);
        match Self::soonest_to_copy(req, copies, idle, view) {
            Some(d) => DiskSet::only(d),
            None => eligible,
        }
    }

    /// The one disk a foreground write goes to, among `eligible`: the idle
    /// one nearest a free place, else the one with the fewest foreground
    /// operations (queued or in service), ties to the lower disk.
    fn route_write<S: Storage>(
        &self,
        ledger: &Ledger<S>,
        req: &Request,
        copies: &Copies,
        eligible: DiskSet,
        view: &ArrayView<'_>,
    ) -> Option<usize> {
        let idle = self.idle(ledger).intersection(eligible);
        if let Some(d) = Self::soonest_to_free(req, copies, idle, view) {
            return Some(d);
        }
        let fg = self.foreground.queues();
        eligible
            .iter()
            .min_by_key(|&d| (fg[d].len() + usize::from(ledger.is_busy(d)), d))
    }

    /// Puts the operation of `s` in the queue of each disk of `disks`
    /// (delayed-write queues with `delayed`); on a refusal, takes back what
    /// was queued.
    fn enqueue_ops<S: Storage>(
        &mut self,
        ledger: &mut Ledger<S>,
        s: Slot,
        req: &Request,
        copies: &Copies,
        disks: DiskSet,
        delayed: bool,
    ) -> Result<(), EnqueueError> {
        if delayed {
            enqueue_on_each(ledger, self.delayed.queues_mut(), s, req, copies, disks)
        } else {
            enqueue_on_each(ledger, self.foreground.queues_mut(), s, req, copies, disks)
        }
    }

    /// Withdraws the operations of `s` still queued, wherever they wait.
    fn unqueue<S: Storage>(&mut self, ledger: &mut Ledger<S>, s: Slot) {
        let id = ledger.request(s).id;
        for d in ledger.queued(s).iter() {
            // The ledger and the queues agree on what is queued: the
            // operation is in one of the two queues of its disk.
            if self.foreground.queues_mut()[d].cancel(id).is_err() {
                let _ = self.delayed.queues_mut()[d].cancel(id);
            }
            ledger.dequeued(s, d);
        }
    }
}

impl<F: DiskQueues, B: DiskQueues, S: Storage> Queues<S> for EwQueues<F, B> {
    fn submit(
        &mut self,
        ledger: &mut Ledger<S>,
        req: &Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        ledger.check_copies(req.id, copies)?;
        let (disks, targets, delayed) = if req.kind == Kind::Write {
            let eligible = copies.holders().intersection(ledger.live());
            if eligible.is_empty() {
                return Err(EnqueueError::NoEligibleDisk(req.id));
            }
            if req.class == self.propagation_class {
                (eligible, eligible, true)
            } else {
                // The one copy written goes to an online disk when one holds
                // the block: a rebuilding disk's range may still be copied
                // over from another disk, which would lose the only copy.
                let online = eligible.intersection(ledger.online());
                let eligible = if online.is_empty() { eligible } else { online };
                let d = self
                    .route_write(ledger, req, copies, eligible, view)
                    .ok_or(EnqueueError::NoRoute(req.id))?;
                (DiskSet::only(d), DiskSet::only(d), false)
            }
        } else {
            let eligible = ledger.fresh(req, copies);
            if eligible.is_empty() {
                return Err(EnqueueError::NoEligibleDisk(req.id));
            }
            let disks = self.route_read(ledger, req, copies, eligible, view);
            (disks, DiskSet::EMPTY, false)
        };
        let s = ledger.admit(req, copies, targets, view, Timing::Untimed)?;
        if let Err(e) = self.enqueue_ops(ledger, s, req, copies, disks, delayed) {
            ledger.withdraw(s);
            return Err(e);
        }
        Ok(())
    }

    fn poll_start(
        &mut self,
        ledger: &mut Ledger<S>,
        view: &ArrayView<'_>,
    ) -> Result<Option<Start>, PollError> {
        for d in ledger.idle().difference(ledger.unqueued()).iter() {
            let (est, head) = (view.estimators[d], view.heads[d]);
            let (mut dispatch, mut delayed) =
                match self.foreground.queues_mut()[d].next(head, view.now, est) {
                    Some(dispatch) => (dispatch, false),
                    None => match self.delayed.queues_mut()[d].next(head, view.now, est) {
                        Some(dispatch) => (dispatch, true),
                        None => continue,
                    },
                };
            let id = dispatch.request.id;
            let mut s = ledger
                .find(id)
                .filter(|&s| ledger.queued(s).contains(d))
                .ok_or(PollError::UnknownOperation { disk: d, id })?;
            // An earlier overlapping write still due on this disk (in either
            // of its queues) is written first: a propagation write must not
            // land over a newer foreground write of the same blocks.
            while ledger.is_write(s)
                && let Some(earlier) = ledger.older_write_due_on(s, d)
                && ledger.queued(earlier).contains(d)
            {
                let id = ledger.request(earlier).id;
                let (op, was_delayed) = match self.foreground.queues_mut()[d].cancel(id) {
                    Ok(op) => (op, false),
                    Err(_) => (
                        self.delayed.queues_mut()[d]
                            .cancel(id)
                            .map_err(|_| PollError::UnknownOperation { disk: d, id })?,
                        true,
                    ),
                };
                let later = dispatch.request;
                let back = if delayed {
                    self.delayed.queues_mut()[d].enqueue(later)
                } else {
                    self.foreground.queues_mut()[d].enqueue(later)
                };
                back.map_err(|_| PollError::Requeue {
                    disk: d,
                    id: later.id,
                })?;
                dispatch = Dispatch::direct(op);
                delayed = was_delayed;
                s = earlier;
            }
            let op = dispatch.request;
            ledger.start(s, d, view.now);
            if op.kind == Kind::Read {
                // The first copy to start takes the read: the others leave.
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
        false
    }

    fn read_finished(&mut self, _ledger: &mut Ledger<S>, _s: Slot) {
        // A read left every other queue when it started.
    }

    fn cancel(&mut self, ledger: &mut Ledger<S>, s: Slot) -> Result<(), CancelError> {
        ledger.check_cancel(s)?;
        self.unqueue(ledger, s);
        Ok(())
    }

    fn take_queued(&mut self, ledger: &mut Ledger<S>, disk: usize) -> Option<Slot> {
        loop {
            let op = match self.foreground.queues_mut()[disk].pop_any() {
                Some(op) => op,
                None => self.delayed.queues_mut()[disk].pop_any()?,
            };
            // An operation that was never ours has nothing to account for.
            if let Some(s) = ledger.find(op.id) {
                return Some(s);
            }
        }
    }

    /// Routes a read that lost its operations to a failed disk, or fails it.
    fn reroute(&mut self, ledger: &mut Ledger<S>, s: Slot, view: &ArrayView<'_>) {
        let req = ledger.request(s);
        let copies = ledger.copies(s);
        let eligible = ledger.fresh(&req, &copies);
        let disks = self.route_read(ledger, &req, &copies, eligible, view);
        if disks.is_empty()
            || self
                .enqueue_ops(ledger, s, &req, &copies, disks, false)
                .is_err()
        {
            ledger.fail(s);
        }
    }

    fn disk_failed(&mut self, _ledger: &mut Ledger<S>, _disk: usize) {}

    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        self.foreground
            .queues()
            .iter()
            .filter_map(|q| q.next_eligible_at(now))
            .chain(
                self.delayed
                    .queues()
                    .iter()
                    .filter_map(|q| q.next_eligible_at(now)),
            )
            .min()
    }

    fn common_len(&self) -> usize {
        0
    }

    /// The foreground queue of `disk`.
    fn disk_queue_len(&self, disk: usize) -> usize {
        self.foreground.queues().get(disk).map_or(0, Scheduler::len)
    }

    /// The delayed-write queue of `disk`.
    fn aux_len(&self, disk: usize) -> usize {
        self.delayed.queues().get(disk).map_or(0, Scheduler::len)
    }
}
