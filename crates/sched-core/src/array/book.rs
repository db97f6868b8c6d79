//! The register of logical requests in an array: storage, per-disk placement,
//! and which disks have each request's operation queued, in service or done.

use super::{Completion, DiskSet, check_disks};
use crate::error::SchedError;
use crate::request::{Cylinder, Kind, Request, RequestId};
use crate::store::{Slab, Slot};

const NONE: Slot = Slot::MAX;

pub(crate) struct Book<const N: usize, const D: usize> {
    slab: Slab<N>,
    placement: [[Cylinder; D]; N],
    queued: [DiskSet; N],
    serving: [DiskSet; N],
    done: [DiskSet; N],
    /// Completed or cancelled: later completions of its operations are ignored.
    closed: [bool; N],
    /// The slot each disk is serving.
    on_disk: [Slot; D],
    open: usize,
}

impl<const N: usize, const D: usize> Book<N, D> {
    pub(crate) fn new() -> Result<Self, SchedError> {
        check_disks(D)?;
        Ok(Book {
            slab: Slab::new()?,
            placement: [[0; D]; N],
            queued: [DiskSet::EMPTY; N],
            serving: [DiskSet::EMPTY; N],
            done: [DiskSet::EMPTY; N],
            closed: [false; N],
            on_disk: [NONE; D],
            open: 0,
        })
    }

    pub(crate) fn admit(
        &mut self,
        req: &Request,
        placement: [Cylinder; D],
    ) -> Result<Slot, SchedError> {
        let s = self.slab.insert(req)?;
        let i = s as usize;
        self.placement[i] = placement;
        self.queued[i] = DiskSet::EMPTY;
        self.serving[i] = DiskSet::EMPTY;
        self.done[i] = DiskSet::EMPTY;
        self.closed[i] = false;
        self.open += 1;
        Ok(s)
    }

    /// Forgets a request that never got an operation anywhere (a refused submit).
    pub(crate) fn withdraw(&mut self, s: Slot) {
        self.open -= 1;
        self.slab.remove(s);
    }

    pub(crate) fn find(&self, id: RequestId) -> Option<Slot> {
        self.slab.find(id)
    }

    /// The request `id` if it is neither completed nor cancelled.
    pub(crate) fn find_open(&self, id: RequestId) -> Result<Slot, SchedError> {
        self.find(id)
            .filter(|&s| !self.is_closed(s))
            .ok_or(SchedError::UnknownId(id))
    }

    /// The logical request as submitted (cylinder of the copy on disk 0).
    pub(crate) fn request(&self, s: Slot) -> Request {
        let mut r = self.slab.get(s);
        r.cylinder = self.placement[s as usize][0];
        r
    }

    /// The operation for disk `d`: the request with that disk's cylinder.
    pub(crate) fn op(&self, s: Slot, d: usize) -> Request {
        let mut r = self.slab.get(s);
        r.cylinder = self.placement[s as usize][d];
        r
    }

    pub(crate) fn placement(&self, s: Slot) -> &[Cylinder; D] {
        &self.placement[s as usize]
    }

    pub(crate) fn is_update(&self, s: Slot) -> bool {
        self.slab.get(s).kind == Kind::Write
    }

    pub(crate) fn queued(&self, s: Slot) -> DiskSet {
        self.queued[s as usize]
    }

    pub(crate) fn serving(&self, s: Slot) -> DiskSet {
        self.serving[s as usize]
    }

    pub(crate) fn is_closed(&self, s: Slot) -> bool {
        self.closed[s as usize]
    }

    pub(crate) fn mark_queued(&mut self, s: Slot, d: usize) {
        let i = s as usize;
        self.queued[i] = self.queued[i].with(d);
    }

    pub(crate) fn unmark_queued(&mut self, s: Slot, d: usize) {
        let i = s as usize;
        self.queued[i] = self.queued[i].without(d);
    }

    pub(crate) fn is_busy(&self, d: usize) -> bool {
        self.on_disk[d] != NONE
    }

    pub(crate) fn idle(&self) -> DiskSet {
        (0..D)
            .filter(|&d| !self.is_busy(d))
            .fold(DiskSet::EMPTY, DiskSet::with)
    }

    /// The slot disk `d` is serving.
    pub(crate) fn serving_slot(&self, d: usize) -> Option<Slot> {
        let s = self.on_disk[d];
        (s != NONE).then_some(s)
    }

    /// Whether disk `d` is writing an update.
    pub(crate) fn writing_on(&self, d: usize) -> bool {
        self.serving_slot(d).is_some_and(|s| self.is_update(s))
    }

    /// Disk `d` starts the operation of `s`.
    pub(crate) fn start(&mut self, s: Slot, d: usize) {
        let i = s as usize;
        self.queued[i] = self.queued[i].without(d);
        self.serving[i] = self.serving[i].with(d);
        self.on_disk[d] = s;
    }

    /// Disk `d` finished its operation; returns the slot it served.
    pub(crate) fn finish_op(&mut self, d: usize) -> Result<Slot, SchedError> {
        let s = self.take_disk(d)?;
        let i = s as usize;
        self.done[i] = self.done[i].with(d);
        Ok(s)
    }

    /// Disk `disk` finished its operation. An update completes with its last
    /// write, a read with its first copy; with `abort_siblings`, the other
    /// copies of that read still in service are aborted and reported. The
    /// caller retires the slot once it has withdrawn any queued copies.
    pub(crate) fn complete_op(
        &mut self,
        disk: usize,
        abort_siblings: bool,
    ) -> Result<(Slot, Completion), SchedError> {
        let s = self.finish_op(disk)?;
        let mut done = Completion::default();
        if self.is_closed(s) {
            return Ok((s, done));
        }
        if !self.is_update(s) {
            done.finished = Some(self.close(s));
            if abort_siblings {
                done.abort = self.serving(s);
                for d in done.abort.iter() {
                    self.abort_op(d);
                }
            }
        } else if self.all_done(s) {
            done.finished = Some(self.close(s));
        }
        Ok((s, done))
    }

    /// Disk `d`'s operation is aborted; the disk is idle again.
    pub(crate) fn abort_op(&mut self, d: usize) {
        // Only called for disks the book shows serving.
        let _ = self.take_disk(d);
    }

    fn take_disk(&mut self, d: usize) -> Result<Slot, SchedError> {
        let s = self.on_disk.get(d).copied().unwrap_or(NONE);
        if s == NONE {
            return Err(SchedError::IdleDisk { disk: d });
        }
        self.on_disk[d] = NONE;
        let i = s as usize;
        self.serving[i] = self.serving[i].without(d);
        Ok(s)
    }

    /// Whether every disk has written this update.
    pub(crate) fn all_done(&self, s: Slot) -> bool {
        self.done[s as usize] == DiskSet::all(D)
    }

    /// Marks the request completed (or cancelled) and returns it.
    pub(crate) fn close(&mut self, s: Slot) -> Request {
        self.closed[s as usize] = true;
        self.open -= 1;
        self.request(s)
    }

    /// Withdraws a request: closes it, and frees it at once unless a copy is
    /// still in service (that copy's completion will be ignored).
    pub(crate) fn withdraw_open(&mut self, s: Slot) -> Request {
        let req = self.close(s);
        self.retire_if_idle(s);
        req
    }

    /// Frees a closed request once none of its operations is queued or in service.
    pub(crate) fn retire_if_idle(&mut self, s: Slot) {
        let i = s as usize;
        if self.closed[i] && self.queued[i].is_empty() && self.serving[i].is_empty() {
            self.slab.remove(s);
        }
    }

    /// The refusal to withdraw an update that some disk has started writing:
    /// withdrawing it would leave the copies inconsistent.
    pub(crate) fn update_in_progress(id: RequestId) -> SchedError {
        SchedError::InvalidRequest {
            id,
            reason: "an update some disk has started writing cannot be withdrawn",
        }
    }

    /// Logical requests neither completed nor cancelled.
    pub(crate) fn open(&self) -> usize {
        self.open
    }
}
