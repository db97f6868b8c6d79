//! The register of logical requests in an array: what each request is, where
//! its copies are, which disks have its operation queued, in service, done or
//! skipped, when it counts as done, and the state of every disk.
//!
//! Every array policy keeps one; the policies differ only in their queues.

use super::copies::{Copies, DiskSet, Location, MAX_COPIES, MAX_DISKS};
use super::{Ack, ArrayView, Completion, DiskState, check_disks};
use crate::error::{BuildError, CancelError, CompleteError, EnqueueError};
use crate::queue::{Fifo, NIL, Slab, Slot};
use crate::request::{Kind, Nanos, Request, RequestId};
use crate::storage::{Slots, Storage};

/// Where a request is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Submitted, not yet acknowledged.
    Open,
    /// Acknowledged (a write may still be settling its other copies).
    Finished,
    /// Withdrawn by the driver, or failed: later completions are ignored.
    Closed,
}

/// `req` as an operation on the copy at `at`.
pub(crate) fn at_copy(req: &Request, at: Location) -> Request {
    let mut op = *req;
    op.block = at.block;
    op.cylinder = at.cylinder;
    op
}

/// What a pending event of a slot reports (bits of `report`).
const REPORT_FINISHED: u8 = 1;
const REPORT_SETTLED: u8 = 2;
const REPORT_FAILED: u8 = 4;

/// What losing an operation (to a disk failure) left a request needing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loss {
    /// Nothing: other operations carry on, or the request is accounted for.
    Absorbed,
    /// A read with no operation left anywhere: route it again.
    Reroute,
}

/// What each disk of an array has been given, read straight from the
/// array's register when a routing asks (nothing is copied per decision).
#[derive(Clone, Copy, Debug)]
pub struct DiskLoad<'a> {
    pending: &'a [usize],
    on_disk: &'a [Slot],
    queued_work: &'a [Nanos],
    started_at: &'a [Nanos],
    serving_expected: &'a [Nanos],
    now: Nanos,
}

impl DiskLoad<'_> {
    /// Operations queued for disk `d` plus the one it serves.
    pub fn operations(&self, d: usize) -> usize {
        self.pending[d] + usize::from(self.on_disk[d] != NIL)
    }

    /// Expected time for disk `d` to finish everything it has been given:
    /// the estimators' expected service time summed over its queue, plus
    /// what remains (by the same estimate) of the operation in service.
    pub fn backlog(&self, d: usize) -> Nanos {
        let remaining = if self.on_disk[d] != NIL {
            (self.started_at[d] + self.serving_expected[d]).saturating_sub(self.now)
        } else {
            0
        };
        self.queued_work[d] + remaining
    }
}

/// Everything the register keeps of one request besides the request itself
/// and its copies' locations: one cache line, read and written together.
#[derive(Clone, Copy, Debug)]
struct Entry {
    holders: DiskSet,
    /// A write's disks: the holders it is sent to.
    targets: DiskSet,
    queued: DiskSet,
    serving: DiskSet,
    done: DiskSet,
    /// A write's holders that did not (or will not) get it.
    skipped: DiskSet,
    /// Expected service time of one operation of the request.
    expected: Nanos,
    phase: Phase,
    /// What an event of this request will report (`REPORT_*` bits).
    report: u8,
    in_lagging: bool,
}

const EMPTY_ENTRY: Entry = Entry {
    holders: DiskSet::EMPTY,
    targets: DiskSet::EMPTY,
    queued: DiskSet::EMPTY,
    serving: DiskSet::EMPTY,
    done: DiskSet::EMPTY,
    skipped: DiskSet::EMPTY,
    expected: 0,
    phase: Phase::Closed,
    report: 0,
    in_lagging: false,
};

pub(crate) struct Register<S: Storage> {
    slab: Slab<S>,
    entries: Slots<Entry, S>,
    /// Where each copy is, in disk order (a mirror's two fill half a line).
    locations: Slots<[Location; MAX_COPIES], S>,
    /// Acknowledged writes with copies still to write, oldest first.
    lagging: Fifo<S>,
    /// Requests with an event to report, oldest first.
    reports: Fifo<S>,
    disks: usize,
    ack: Ack,
    state: [DiskState; MAX_DISKS],
    /// Disks serving an operation, and disks not [`DiskState::Online`]:
    /// kept with `on_disk` and `state` so the common case (all online) is a
    /// mask test.
    busy: DiskSet,
    degraded: DiskSet,
    on_disk: [Slot; MAX_DISKS],
    started_at: [Nanos; MAX_DISKS],
    serving_expected: [Nanos; MAX_DISKS],
    /// Operations queued for each disk, and their expected service time.
    pending: [usize; MAX_DISKS],
    backlog: [Nanos; MAX_DISKS],
    open: usize,
}

impl<S: Storage> Register<S> {
    pub(crate) fn new(storage: &S, disks: usize) -> Result<Self, BuildError> {
        check_disks(disks)?;
        Ok(Register {
            slab: Slab::new(storage),
            entries: Slots::new(storage, EMPTY_ENTRY),
            locations: Slots::new(storage, [Location::default(); MAX_COPIES]),
            lagging: Fifo::new(storage),
            reports: Fifo::new(storage),
            disks,
            ack: Ack::All,
            state: [DiskState::Online; MAX_DISKS],
            busy: DiskSet::EMPTY,
            degraded: DiskSet::EMPTY,
            on_disk: [NIL; MAX_DISKS],
            started_at: [0; MAX_DISKS],
            serving_expected: [0; MAX_DISKS],
            pending: [0; MAX_DISKS],
            backlog: [0; MAX_DISKS],
            open: 0,
        })
    }

    /// The request storage, for lists ordered by arrival.
    pub(crate) fn slab(&self) -> &Slab<S> {
        &self.slab
    }

    pub(crate) fn disks(&self) -> usize {
        self.disks
    }

    pub(crate) fn all(&self) -> DiskSet {
        DiskSet::all(self.disks)
    }

    pub(crate) fn set_ack(&mut self, ack: Ack) -> Result<(), BuildError> {
        if ack == Ack::Quorum(0) {
            return Err(BuildError::invalid("ack", "a quorum of at least one copy"));
        }
        self.ack = ack;
        Ok(())
    }

    // ---- disks ----

    pub(crate) fn state(&self, d: usize) -> DiskState {
        self.state.get(d).copied().unwrap_or(DiskState::Failed)
    }

    pub(crate) fn check_disk(&self, d: usize) -> Result<(), CompleteError> {
        if d < self.disks {
            Ok(())
        } else {
            Err(CompleteError::NoSuchDisk {
                disk: d,
                disks: self.disks,
            })
        }
    }

    /// Disks that are not failed.
    pub(crate) fn live(&self) -> DiskSet {
        if self.degraded.is_empty() {
            return self.all();
        }
        DiskSet::matching(self.disks, |d| self.state[d] != DiskState::Failed)
    }

    pub(crate) fn is_busy(&self, d: usize) -> bool {
        self.busy.contains(d)
    }

    /// Live disks serving nothing.
    pub(crate) fn idle(&self) -> DiskSet {
        self.live().difference(self.busy)
    }

    /// What each disk has been given, as routings see it at `now`.
    pub(crate) fn load(&self, now: Nanos) -> DiskLoad<'_> {
        let n = self.disks;
        DiskLoad {
            pending: &self.pending[..n],
            on_disk: &self.on_disk[..n],
            queued_work: &self.backlog[..n],
            started_at: &self.started_at[..n],
            serving_expected: &self.serving_expected[..n],
            now,
        }
    }

    // ---- admission ----

    /// Checks a request's copies against the array.
    pub(crate) fn check_copies(&self, id: RequestId, copies: &Copies) -> Result<(), EnqueueError> {
        let invalid = |reason| EnqueueError::InvalidCopies { id, reason };
        if let Some(reason) = copies.invalid() {
            return Err(invalid(reason));
        }
        if copies.holders().is_empty() {
            return Err(invalid("no disk holds a copy"));
        }
        if !copies.holders().is_subset(self.all()) {
            return Err(invalid("a copy on a disk beyond the array"));
        }
        Ok(())
    }

    /// The holders of `copies` whose copy of `req` is up to date: online, or
    /// rebuilt past it, and not behind an acknowledged write still settling.
    pub(crate) fn fresh(&self, req: &Request, copies: &Copies) -> DiskSet {
        let holders = copies.holders();
        let blocks = copies.locations().iter().map(|at| at.block);
        self.fresh_among(req, holders, blocks)
    }

    /// [`Register::fresh`] over holders whose copies start at `blocks` (in disk order).
    fn fresh_among(
        &self,
        req: &Request,
        holders: DiskSet,
        blocks: impl Iterator<Item = u64>,
    ) -> DiskSet {
        let mut fresh = holders;
        if !holders.intersection(self.degraded).is_empty() {
            for (d, block) in holders.iter().zip(blocks) {
                let ok = match self.state[d] {
                    DiskState::Online => true,
                    DiskState::Failed => false,
                    DiskState::Rebuilding { rebuilt_to } => {
                        block.saturating_add(u64::from(req.blocks)) <= rebuilt_to
                    }
                };
                if !ok {
                    fresh = fresh.without(d);
                }
            }
        }
        fresh.difference(self.behind_lagging_writes(req))
    }

    /// Disks still to write an acknowledged write overlapping `req`.
    fn behind_lagging_writes(&self, req: &Request) -> DiskSet {
        let mut stale = DiskSet::EMPTY;
        let Some(first) = self.lagging.front() else {
            return stale;
        };
        let (lo, hi) = (req.block, req.block.saturating_add(u64::from(req.blocks)));
        let mut s = first;
        loop {
            let w = self.slab.get(s);
            let (wlo, whi) = (w.block, w.block.saturating_add(u64::from(w.blocks)));
            if wlo < hi && lo < whi {
                let i = s as usize;
                stale = stale.union(self.entries[i].targets.difference(self.entries[i].done));
            }
            s = self.lagging.next(s);
            if s == first {
                return stale;
            }
        }
    }

    /// Stores a request with its copies. `targets` are the disks a write is
    /// sent to (ignored for reads).
    pub(crate) fn admit(
        &mut self,
        req: &Request,
        copies: &Copies,
        targets: DiskSet,
        view: &ArrayView<'_>,
    ) -> Result<Slot, EnqueueError> {
        let s = self.slab.insert(req)?;
        let i = s as usize;
        let holders = copies.holders();
        self.entries[i].holders = holders;
        for (k, at) in copies.locations().iter().enumerate() {
            self.locations[i][k] = *at;
        }
        let is_write = req.kind == Kind::Write;
        self.entries[i].targets = if is_write { targets } else { DiskSet::EMPTY };
        self.entries[i].skipped = if is_write {
            holders.difference(targets)
        } else {
            DiskSet::EMPTY
        };
        self.entries[i].queued = DiskSet::EMPTY;
        self.entries[i].serving = DiskSet::EMPTY;
        self.entries[i].done = DiskSet::EMPTY;
        self.entries[i].phase = Phase::Open;
        self.entries[i].report = 0;
        self.entries[i].in_lagging = false;
        // The estimate of the first disk that may serve it stands for every
        // copy: the disks of an array share a model.
        self.entries[i].expected = match (holders.first(), copies.locations().first()) {
            (Some(d), Some(&at)) => view.estimators[d].expected_service_time(&at_copy(req, at)),
            _ => 0,
        };
        self.open += 1;
        Ok(s)
    }

    /// Checks a request a common queue will hold (SQ family, CMQ) and admits
    /// it: a read needs an up-to-date copy, a write a live holder, whose
    /// holders it is then sent to.
    pub(crate) fn admit_to_common_queue(
        &mut self,
        req: &Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<Slot, EnqueueError> {
        self.check_copies(req.id, copies)?;
        let targets = if req.kind == Kind::Write {
            copies.holders().intersection(self.live())
        } else {
            self.fresh(req, copies)
        };
        if targets.is_empty() {
            return Err(EnqueueError::NoEligibleDisk(req.id));
        }
        self.admit(req, copies, targets, view)
    }

    /// Forgets a request that never got an operation anywhere (a refused submit).
    pub(crate) fn withdraw(&mut self, s: Slot) {
        self.open -= 1;
        self.entries[s as usize].phase = Phase::Closed;
        self.slab.remove(s);
    }

    pub(crate) fn find(&self, id: RequestId) -> Option<Slot> {
        self.slab.find(id)
    }

    /// The request `id` if it is neither finished nor withdrawn.
    pub(crate) fn find_open(&self, id: RequestId) -> Result<Slot, CancelError> {
        self.find(id)
            .filter(|&s| self.entries[s as usize].phase == Phase::Open)
            .ok_or(CancelError::UnknownId(id))
    }

    // ---- what a request is ----

    /// The logical request as submitted.
    pub(crate) fn request(&self, s: Slot) -> Request {
        self.slab.get(s)
    }

    /// Where the copy of `s` on disk `d` lives (`None` if `d` holds none).
    pub(crate) fn location(&self, s: Slot, d: usize) -> Option<Location> {
        let i = s as usize;
        let holders = self.entries[i].holders;
        if !holders.contains(d) {
            return None;
        }
        let k = holders.rank(d);
        Some(self.locations[i][k])
    }

    /// The copies of `s`.
    pub(crate) fn copies(&self, s: Slot) -> Copies {
        let i = s as usize;
        let mut c = Copies::new();
        for (k, d) in self.entries[i].holders.iter().enumerate() {
            c = c.with(d, self.locations[i][k]);
        }
        c
    }

    /// The operation for disk `d`: the request at that disk's copy.
    pub(crate) fn op(&self, s: Slot, d: usize) -> Request {
        let r = self.slab.get(s);
        match self.location(s, d) {
            Some(at) => at_copy(&r, at),
            None => r,
        }
    }

    /// Disks with nothing queued.
    pub(crate) fn unqueued(&self) -> DiskSet {
        DiskSet::matching(self.disks, |d| self.pending[d] == 0)
    }

    pub(crate) fn is_write(&self, s: Slot) -> bool {
        self.slab.get(s).kind == Kind::Write
    }

    pub(crate) fn queued(&self, s: Slot) -> DiskSet {
        self.entries[s as usize].queued
    }

    pub(crate) fn serving(&self, s: Slot) -> DiskSet {
        self.entries[s as usize].serving
    }

    pub(crate) fn is_open(&self, s: Slot) -> bool {
        self.entries[s as usize].phase == Phase::Open
    }

    /// Disks that may serve `s` now: a read's up-to-date holders, a write's
    /// targets not yet written.
    pub(crate) fn servers(&self, s: Slot) -> DiskSet {
        let i = s as usize;
        if self.is_write(s) {
            self.entries[i]
                .targets
                .difference(self.entries[i].done)
                .difference(self.entries[i].skipped)
        } else {
            let n = self.entries[i].holders.len();
            let at = &self.locations[i][..n];
            self.fresh_among(
                &self.slab.get(s),
                self.entries[i].holders,
                at.iter().map(|l| l.block),
            )
        }
    }

    // ---- operations ----

    /// An operation of `s` joins the queue of disk `d`.
    pub(crate) fn enqueued(&mut self, s: Slot, d: usize) {
        let i = s as usize;
        self.entries[i].queued = self.entries[i].queued.with(d);
        self.pending[d] += 1;
        self.backlog[d] += self.entries[i].expected;
    }

    /// The operation of `s` left the queue of disk `d` without being served.
    pub(crate) fn dequeued(&mut self, s: Slot, d: usize) {
        let i = s as usize;
        if self.entries[i].queued.contains(d) {
            self.entries[i].queued = self.entries[i].queued.without(d);
            self.pending[d] -= 1;
            self.backlog[d] -= self.entries[i].expected;
        }
    }

    /// Whether disk `d` is writing a write.
    pub(crate) fn writing_on(&self, d: usize) -> bool {
        let s = self.on_disk[d];
        s != NIL && self.is_write(s)
    }

    /// Disk `d` starts the operation of `s`.
    pub(crate) fn start(&mut self, s: Slot, d: usize, now: Nanos) {
        self.dequeued(s, d);
        let i = s as usize;
        self.entries[i].serving = self.entries[i].serving.with(d);
        self.on_disk[d] = s;
        self.busy = self.busy.with(d);
        self.started_at[d] = now;
        self.serving_expected[d] = self.entries[i].expected;
    }

    fn take_disk(&mut self, d: usize) -> Result<Slot, CompleteError> {
        self.check_disk(d)?;
        let s = self.on_disk[d];
        if s == NIL {
            return Err(CompleteError::IdleDisk { disk: d });
        }
        self.on_disk[d] = NIL;
        self.busy = self.busy.without(d);
        let i = s as usize;
        self.entries[i].serving = self.entries[i].serving.without(d);
        Ok(s)
    }

    /// Disk `d`'s operation is aborted; the disk is idle again.
    pub(crate) fn abort_op(&mut self, d: usize) {
        // Only called for disks the book shows serving.
        let _ = self.take_disk(d);
    }

    /// Copies a write needs before it is acknowledged.
    fn needed(&self, s: Slot) -> usize {
        let i = s as usize;
        let reachable = self.entries[i]
            .targets
            .difference(self.entries[i].skipped)
            .len();
        let wanted = match self.ack {
            Ack::All => reachable,
            Ack::First => 1,
            Ack::Quorum(k) => usize::from(k),
        };
        wanted.min(reachable)
    }

    /// Every target of a write is written or skipped.
    fn settled(&self, s: Slot) -> bool {
        let i = s as usize;
        self.entries[i]
            .targets
            .is_subset(self.entries[i].done.union(self.entries[i].skipped))
    }

    /// Disk `disk` finished its operation. A read completes with its first
    /// copy; with `abort_siblings`, the other copies still in service are
    /// aborted and reported. A write is acknowledged when the [`Ack`] rule is
    /// met and settles when every target is written. The caller retires the
    /// slot once it has withdrawn any queued copies.
    pub(crate) fn complete_op(
        &mut self,
        disk: usize,
        abort_siblings: bool,
    ) -> Result<(Slot, Completion), CompleteError> {
        let s = self.take_disk(disk)?;
        let i = s as usize;
        self.entries[i].done = self.entries[i].done.with(disk);
        let mut c = Completion::default();
        if self.entries[i].phase == Phase::Closed {
            return Ok((s, c));
        }
        if !self.is_write(s) {
            if self.entries[i].phase == Phase::Open {
                c.finished = Some(self.finish(s));
                if abort_siblings {
                    c.abort = self.entries[i].serving;
                    for d in c.abort.iter() {
                        self.abort_op(d);
                    }
                }
            }
            return Ok((s, c));
        }
        self.account_write(s, &mut c);
        Ok((s, c))
    }

    /// Acknowledges and settles a write as far as its copies allow.
    fn account_write(&mut self, s: Slot, c: &mut Completion) {
        let i = s as usize;
        if self.entries[i].phase == Phase::Open {
            if self.entries[i].done.is_empty() && self.settled(s) {
                // Every target was skipped: nothing was written anywhere.
                c.failed = Some(self.close(s));
                return;
            }
            if self.entries[i].done.len() >= self.needed(s) {
                c.finished = Some(self.finish(s));
            }
        }
        if self.entries[i].phase == Phase::Finished && self.settled(s) {
            c.settled = Some(self.request(s));
            c.skipped = self.entries[i].skipped;
            if self.entries[i].in_lagging {
                self.lagging.remove(s);
                self.entries[i].in_lagging = false;
            }
        } else if self.entries[i].phase == Phase::Finished && !self.entries[i].in_lagging {
            self.lagging.push_back(s);
            self.entries[i].in_lagging = true;
        }
    }

    fn finish(&mut self, s: Slot) -> Request {
        self.entries[s as usize].phase = Phase::Finished;
        self.open -= 1;
        self.request(s)
    }

    /// Closes an open request (withdrawn or failed) and returns it.
    fn close(&mut self, s: Slot) -> Request {
        self.entries[s as usize].phase = Phase::Closed;
        self.open -= 1;
        self.request(s)
    }

    /// The refusal, if any, to withdraw `s`: a write some disk has started.
    pub(crate) fn check_cancel(&self, s: Slot) -> Result<(), CancelError> {
        let i = s as usize;
        if self.is_write(s)
            && !(self.entries[i].serving.is_empty() && self.entries[i].done.is_empty())
        {
            Err(CancelError::InService(self.slab.get(s).id))
        } else {
            Ok(())
        }
    }

    /// Withdraws a request whose queued operations the caller has removed:
    /// closes it, and frees it at once unless a copy is still in service
    /// (that copy's completion will be ignored).
    pub(crate) fn withdraw_open(&mut self, s: Slot) -> Request {
        let req = self.close(s);
        self.retire_if_idle(s);
        req
    }

    /// Frees a request that is done with once none of its operations is
    /// queued or in service and nothing about it remains to report.
    pub(crate) fn retire_if_idle(&mut self, s: Slot) {
        let i = s as usize;
        if self.entries[i].phase != Phase::Open
            && self.entries[i].queued.is_empty()
            && self.entries[i].serving.is_empty()
            && !self.entries[i].in_lagging
            && self.entries[i].report == 0
        {
            self.slab.remove(s);
        }
    }

    // ---- failures ----

    /// Applies a state change to disk `d`. Returns whether the disk has just
    /// failed, in which case the caller takes back what was queued for it and
    /// calls [`Register::fail_disk`].
    pub(crate) fn change_state(
        &mut self,
        d: usize,
        state: DiskState,
    ) -> Result<bool, CompleteError> {
        self.check_disk(d)?;
        if state == DiskState::Failed {
            return Ok(true);
        }
        self.set_state(d, state);
        Ok(false)
    }

    /// Marks disk `d` failed and takes back the operation it was serving.
    pub(crate) fn fail_disk(&mut self, d: usize) -> Option<Slot> {
        self.state[d] = DiskState::Failed;
        self.degraded = self.degraded.with(d);
        self.take_disk(d).ok()
    }

    pub(crate) fn set_state(&mut self, d: usize, state: DiskState) {
        self.state[d] = state;
        self.degraded = if state == DiskState::Online {
            self.degraded.without(d)
        } else {
            self.degraded.with(d)
        };
    }

    /// `s` lost its operation on the failed disk `d`. A write skips `d` (and
    /// may be acknowledged, settle or fail for it); a read with no operation
    /// left anywhere must be routed again.
    pub(crate) fn lose(&mut self, s: Slot, d: usize) -> Loss {
        let i = s as usize;
        if self.is_write(s) {
            self.entries[i].skipped = self.entries[i].skipped.with(d);
            let mut c = Completion::default();
            self.account_write(s, &mut c);
            self.note(s, &c);
            Loss::Absorbed
        } else if self.entries[i].phase == Phase::Open
            && self.entries[i].queued.is_empty()
            && self.entries[i].serving.is_empty()
        {
            Loss::Reroute
        } else {
            self.retire_if_idle(s);
            Loss::Absorbed
        }
    }

    /// Skips the targets of a write still waiting in a common queue whose
    /// disks failed after it was submitted: having no operation there, the
    /// failure could not take one back. The write fails if no target is left.
    pub(crate) fn skip_failed_targets(&mut self, s: Slot) {
        if self.degraded.is_empty() || !self.is_write(s) {
            return;
        }
        let i = s as usize;
        let gone = self.entries[i]
            .targets
            .difference(self.entries[i].done)
            .difference(self.entries[i].skipped)
            .difference(self.live());
        for d in gone.iter() {
            let _ = self.lose(s, d);
        }
    }

    /// `s` cannot be served any more: report it failed.
    pub(crate) fn fail(&mut self, s: Slot) {
        let req = self.close(s);
        let c = Completion {
            failed: Some(req),
            ..Completion::default()
        };
        self.note(s, &c);
    }

    /// Queues an event for [`Register::poll_event`].
    fn note(&mut self, s: Slot, c: &Completion) {
        let i = s as usize;
        let bits = if c.finished.is_some() {
            REPORT_FINISHED
        } else {
            0
        } | if c.settled.is_some() {
            REPORT_SETTLED
        } else {
            0
        } | if c.failed.is_some() { REPORT_FAILED } else { 0 };
        if bits == 0 {
            self.retire_if_idle(s);
            return;
        }
        if self.entries[i].report == 0 {
            self.reports.push_back(s);
        }
        self.entries[i].report |= bits;
    }

    /// The oldest event caused by a failure.
    pub(crate) fn poll_event(&mut self) -> Option<Completion> {
        let s = self.reports.front()?;
        self.reports.remove(s);
        let i = s as usize;
        let bits = core::mem::take(&mut self.entries[i].report);
        let req = self.request(s);
        let settled = bits & REPORT_SETTLED != 0;
        let c = Completion {
            finished: (bits & REPORT_FINISHED != 0).then_some(req),
            settled: settled.then_some(req),
            skipped: if settled {
                self.entries[i].skipped
            } else {
                DiskSet::EMPTY
            },
            failed: (bits & REPORT_FAILED != 0).then_some(req),
            abort: DiskSet::EMPTY,
        };
        self.retire_if_idle(s);
        Some(c)
    }

    /// Logical requests neither finished nor withdrawn.
    pub(crate) fn open(&self) -> usize {
        self.open
    }
}
