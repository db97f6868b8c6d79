//! The ledger of logical requests in an array: what each request is, where
//! its copies are, which disks have its operation queued, in service, done or
//! skipped, when it counts as done, and the state of every disk.
//!
//! Every array policy keeps one; the policies differ only in their queues.
//! One [`Record`] per request holds the request and its bookkeeping side by
//! side, so the ledger touches one place per request, not one array per
//! field; only the copies' locations live apart (most requests use few of
//! their eight places).

use super::copies::{Copies, DiskSet, Location, MAX_COPIES, MAX_DISKS};
use super::{Ack, ArrayView, Completion, DiskState, check_disks};
use crate::error::{BuildError, CancelError, CompleteError, DiskStateError, EnqueueError};
use crate::queue::{Fifo, IdIndex, Links, NIL, Slot};
use crate::request::{Block, Blocks, Cyl, Kind, Nanos, Request, RequestId};
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

/// Whether admission asks the estimators for a request's expected service
/// time, which only what each disk has been given ([`DiskLoad`]) sums and
/// only DMQ's routings read: the other policies skip the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timing {
    /// Ask, for [`DiskLoad`].
    Estimated,
    /// Do not ask: the policy never reads [`DiskLoad`], which stays at 0.
    Untimed,
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

/// What the ledger counts for each disk: its queued operations and their
/// expected work, and the operation it serves. Routings read it through
/// [`DiskLoad`].
#[derive(Clone, Copy, Debug)]
struct DiskTally {
    /// Operations queued for each disk, and their expected service time.
    pending: [usize; MAX_DISKS],
    backlog: [Nanos; MAX_DISKS],
    /// The request each disk serves, when it started and for how long it
    /// was expected to take.
    on_disk: [Slot; MAX_DISKS],
    started_at: [Nanos; MAX_DISKS],
    serving_expected: [Nanos; MAX_DISKS],
}

/// What each disk of an array has been given, read straight from the
/// array's ledger when a routing asks (nothing is copied per decision).
#[derive(Clone, Copy, Debug)]
pub struct DiskLoad<'a> {
    tally: &'a DiskTally,
    now: Nanos,
}

impl DiskLoad<'_> {
    /// Operations queued for disk `d` plus the one it serves.
    #[inline]
    pub fn operations(&self, d: usize) -> usize {
        self.tally.pending[d] + usize::from(self.tally.on_disk[d] != NIL)
    }

    /// Expected time for disk `d` to finish everything it has been given:
    /// the estimators' expected service time summed over its queue, plus
    /// what remains (by the same estimate) of the operation in service.
    #[inline]
    pub fn backlog(&self, d: usize) -> Nanos {
        self.tally.backlog[d] + self.in_service_remaining(d)
    }

    /// What remains, by the estimate it started with, of the operation disk
    /// `d` serves (0 when idle or already over its estimate).
    #[inline]
    pub fn in_service_remaining(&self, d: usize) -> Nanos {
        let t = self.tally;
        if t.on_disk[d] != NIL {
            (t.started_at[d] + t.serving_expected[d]).saturating_sub(self.now)
        } else {
            0
        }
    }
}

/// Everything the ledger keeps of one request but its copies' locations:
/// two whole cache lines (aligned so that no record straddles a third),
/// laid out in order: the first holds what starting and finishing an
/// operation update (the disk sets, the estimate, the flags), the second
/// the request and its holders, read when it is routed or reported. (The
/// ids, which every lookup compares, live apart in the ledger's `id_of`.)
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Record {
    /// A write's disks: the holders it is sent to.
    targets: DiskSet,
    queued: DiskSet,
    serving: DiskSet,
    done: DiskSet,
    /// A write's holders that did not (or will not) get it.
    skipped: DiskSet,
    /// Expected service time of one operation of the request.
    expected: Nanos,
    /// When a write was admitted, in the ledger's count of admissions:
    /// the order overlapping writes reach each disk in.
    admitted: u64,
    phase: Phase,
    /// What an event of this request will report (`REPORT_*` bits).
    report: u8,
    in_lagging: bool,
    /// On a chain of the writes in flight: a write admitted and not yet
    /// settled or closed.
    in_flight: bool,
    /// A write that overlapped a write still in flight when it was admitted:
    /// only such a write may have to wait for an earlier one.
    overlaps_earlier: bool,
    /// Held back by a resync barrier (in the ledger's `barred` list): in no queue yet.
    held: bool,
    /// Every copy lies at the request's own block and cylinder (a mirror
    /// laid out identically): its locations are not stored.
    own_place: bool,
    request: Request,
    holders: DiskSet,
}

// Two cache lines, as the layout above promises.
const _: () = assert!(core::mem::size_of::<Record>() == 128);

const EMPTY_RECORD: Record = Record {
    request: Request::new(RequestId(0), Kind::Read, Block(0), Blocks(0), Cyl(0), 0),
    holders: DiskSet::EMPTY,
    targets: DiskSet::EMPTY,
    queued: DiskSet::EMPTY,
    serving: DiskSet::EMPTY,
    done: DiskSet::EMPTY,
    skipped: DiskSet::EMPTY,
    expected: 0,
    admitted: 0,
    phase: Phase::Closed,
    report: 0,
    in_lagging: false,
    in_flight: false,
    overlaps_earlier: false,
    held: false,
    own_place: false,
};

/// Whether the array keeps overlapping writes in order: always but in the
/// build of feature `unordered-writes-for-tests` (the consistency oracle's
/// negative test, and the measure of what the ordering costs).
const ORDERS_WRITES: bool = !cfg!(feature = "unordered-writes-for-tests");
/// Whether the ledger keeps the chains of the writes in flight: the
/// ordering of overlapping writes looks them up, and the resync barrier
/// walks them. Both features together build them out (the "before" of the
/// bookkeeping's cost on the decision benchmark).
const TRACKS_WRITES: bool = ORDERS_WRITES || !cfg!(feature = "unbarriered-resync-for-tests");

/// The writes in flight are chained by the bucket of 16 blocks their first
/// block falls in, hashed onto as many chains as the ledger has slots (so
/// a chain holds one write or none, mostly, and a request of a few blocks
/// finds its candidates in a few lookups of a dense array), and a write
/// spanning more than two buckets on a chain of its own, the long one. A
/// write that overlaps a new request and spans at most two buckets starts
/// in a bucket the request touches or in the one before; so the writes a
/// request may overlap are on those buckets' chains (and the long chain):
/// a few writes, not all those in flight, whose ranges are then compared.
const BUCKET_SHIFT: u32 = 4;

/// The first and the last bucket of blocks `req` touches (not reduced
/// modulo the chains).
#[inline]
fn bucket_span(req: &Request) -> (u64, u64) {
    let first = req.block >> BUCKET_SHIFT;
    let last = req.block.saturating_add(u64::from(req.blocks.max(1)) - 1) >> BUCKET_SHIFT;
    (first, last)
}

/// The chain of bucket `bucket` among `chains` (Fibonacci hashing, so
/// that neighbouring buckets land on different chains).
#[inline]
fn chain_of_bucket(bucket: u64, chains: usize) -> usize {
    let h = bucket.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((u128::from(h) * chains as u128) >> 64) as usize
}

/// A range of a rebuilding disk claimed for copying: the copy operation the
/// driver asked for (its blocks on the rebuilding disk).
#[derive(Clone, Copy, Debug)]
struct Window {
    copy: Request,
    /// The disk the copy reads from, chosen when it starts.
    source: usize,
}

/// The blocks `[first, end)` of `req`.
#[inline]
fn span(req: &Request) -> [u64; 2] {
    [req.block, req.block.saturating_add(u64::from(req.blocks))]
}

/// Whether two block ranges `[first, end)` overlap.
#[inline]
fn spans_overlap(a: [u64; 2], b: [u64; 2]) -> bool {
    a[0] < b[1] && b[0] < a[1]
}

/// Whether the block ranges of two requests overlap.
#[inline]
fn overlap(a: &Request, b: &Request) -> bool {
    spans_overlap(span(a), span(b))
}

pub(crate) struct Ledger<S: Storage> {
    records: Slots<Record, S>,
    /// Where each copy is, in disk order (a mirror's two fill a quarter line).
    locations: Slots<[Location; MAX_COPIES], S>,
    /// Id → slot of every request held, with four cells a slot: probes are
    /// short, and compare the ids kept side by side in `id_of`, not in the
    /// records (a probe passing other requests' cells reads no record).
    ids: IdIndex<S, 4>,
    id_of: Slots<u64, S>,
    /// Free slots below `fresh`, each linking to the next (`NIL` ends).
    next_free: Slots<Slot, S>,
    free_head: Slot,
    /// Slots never used yet start here.
    fresh: usize,
    held: usize,
    capacity: usize,
    /// Acknowledged writes with copies still to write, oldest first.
    lagging: Fifo<S>,
    /// Requests with an event to report, oldest first.
    reports: Fifo<S>,
    /// Writes held back by a resync barrier, in submission order.
    barred: Fifo<S>,
    /// Every write admitted to the queues and not yet settled or closed,
    /// chained by bucket: the first of each chain and of the long chain
    /// (`NIL`: empty), linked through `chains`; no order within a chain
    /// (a write's `admitted` gives it).
    chains: Links<S>,
    chain_first: Slots<Slot, S>,
    /// The blocks `[first, end)` of each write in flight, side by side so
    /// that a walk of the chains compares ranges without reading records.
    spans: Slots<[u64; 2], S>,
    long_first: Slot,
    /// Writes admitted so far.
    admissions: u64,
    /// Each rebuilding disk's end of rebuild (exclusive), and the range it
    /// is copying (claimed by the driver, perhaps not yet started).
    rebuild_end: [u64; MAX_DISKS],
    window: [Option<Window>; MAX_DISKS],
    /// Disks with a claimed resync range, and those copying it now.
    resyncing: DiskSet,
    copying: DiskSet,
    disks: usize,
    /// Every disk, `0..disks`: kept, not worked out again at each of the
    /// tests of a decision that start from it (live, idle, unqueued disks).
    all: DiskSet,
    ack: Ack,
    state: [DiskState; MAX_DISKS],
    /// Disks serving an operation, and disks not [`DiskState::Online`]:
    /// kept with `on_disk` and `state` so the common case (all online) is a
    /// mask test.
    busy: DiskSet,
    degraded: DiskSet,
    /// Disks with operations queued: kept with `tally.pending`.
    queueing: DiskSet,
    tally: DiskTally,
    open: usize,
}

impl<S: Storage> Ledger<S> {
    pub(crate) fn new(storage: &S, disks: usize) -> Result<Self, BuildError> {
        check_disks(disks)?;
        Ok(Ledger {
            records: Slots::new(storage, EMPTY_RECORD),
            locations: Slots::new(storage, [Location::default(); MAX_COPIES]),
            ids: IdIndex::new(storage),
            id_of: Slots::new(storage, 0),
            next_free: Slots::new(storage, NIL),
            free_head: NIL,
            fresh: 0,
            held: 0,
            capacity: storage.capacity(),
            lagging: Fifo::new(storage),
            reports: Fifo::new(storage),
            barred: Fifo::new(storage),
            chains: Links::new(storage),
            chain_first: Slots::new(storage, NIL),
            spans: Slots::new(storage, [0; 2]),
            long_first: NIL,
            admissions: 0,
            rebuild_end: [0; MAX_DISKS],
            window: [None; MAX_DISKS],
            resyncing: DiskSet::EMPTY,
            copying: DiskSet::EMPTY,
            disks,
            all: DiskSet::all(disks),
            ack: Ack::All,
            state: [DiskState::Online; MAX_DISKS],
            busy: DiskSet::EMPTY,
            degraded: DiskSet::EMPTY,
            queueing: DiskSet::EMPTY,
            tally: DiskTally {
                pending: [0; MAX_DISKS],
                backlog: [0; MAX_DISKS],
                on_disk: [NIL; MAX_DISKS],
                started_at: [0; MAX_DISKS],
                serving_expected: [0; MAX_DISKS],
            },
            open: 0,
        })
    }

    #[inline]
    fn record(&self, s: Slot) -> &Record {
        &self.records[s as usize]
    }

    #[inline]
    fn record_mut(&mut self, s: Slot) -> &mut Record {
        &mut self.records[s as usize]
    }

    /// Whether request `a` arrived before request `b` (then has the lower id).
    pub(crate) fn arrives_before(&self, a: Slot, b: Slot) -> bool {
        let (a, b) = (&self.record(a).request, &self.record(b).request);
        (a.arrival, a.id) < (b.arrival, b.id)
    }

    pub(crate) fn disks(&self) -> usize {
        self.disks
    }

    #[inline]
    pub(crate) fn all(&self) -> DiskSet {
        self.all
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
    #[inline]
    pub(crate) fn live(&self) -> DiskSet {
        if self.degraded.is_empty() {
            return self.all();
        }
        DiskSet::matching(self.disks, |d| self.state[d] != DiskState::Failed)
    }

    /// Disks that are online (neither failed nor rebuilding).
    #[inline]
    pub(crate) fn online(&self) -> DiskSet {
        self.all().difference(self.degraded)
    }

    #[inline]
    pub(crate) fn is_busy(&self, d: usize) -> bool {
        self.busy.contains(d)
    }

    /// Live disks serving nothing.
    #[inline]
    pub(crate) fn idle(&self) -> DiskSet {
        self.live().difference(self.busy)
    }

    /// What each disk has been given, as routings see it at `now`.
    #[inline]
    pub(crate) fn load(&self, now: Nanos) -> DiskLoad<'_> {
        DiskLoad {
            tally: &self.tally,
            now,
        }
    }

    // ---- admission ----

    /// Checks a request's copies against the array.
    #[inline]
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
    #[inline]
    pub(crate) fn fresh(&self, req: &Request, copies: &Copies) -> DiskSet {
        let at = copies.locations();
        self.fresh_among(req, copies.holders(), |k| at[k].block)
    }

    /// [`Ledger::fresh`] over holders whose `k`-th copy (in disk order)
    /// starts at block `block_of(k)`.
    #[inline]
    fn fresh_among(
        &self,
        req: &Request,
        holders: DiskSet,
        block_of: impl Fn(usize) -> u64,
    ) -> DiskSet {
        let mut fresh = holders;
        if !holders.intersection(self.degraded).is_empty() {
            for (k, d) in holders.iter().enumerate() {
                let ok = match self.state[d] {
                    DiskState::Online => true,
                    DiskState::Failed => false,
                    DiskState::Rebuilding { rebuilt_to } => {
                        block_of(k).saturating_add(u64::from(req.blocks)) <= rebuilt_to
                    }
                };
                if !ok {
                    fresh = fresh.without(d);
                }
            }
        }
        if self.lagging.front().is_none() {
            return fresh;
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
            let r = self.record(s);
            let w = &r.request;
            let (wlo, whi) = (w.block, w.block.saturating_add(u64::from(w.blocks)));
            if wlo < hi && lo < whi {
                stale = stale.union(r.targets.difference(r.done));
            }
            s = self.lagging.next(s);
            if s == first {
                return stale;
            }
        }
    }

    /// Whether `s` is a write that overlapped a write in flight when it was
    /// admitted: only such a write may have to wait for an earlier one.
    #[inline]
    pub(crate) fn overlapped_earlier(&self, s: Slot) -> bool {
        ORDERS_WRITES && self.record(s).overlaps_earlier
    }

    /// The earliest write submitted before the write `s`, overlapping it and
    /// still to be written on disk `d` (neither written, skipped nor in
    /// service there), if any: disk `d` must write it before `s`, or `d`
    /// would end up holding older data than another copy, or than the array
    /// acknowledged. Looks only at a write that overlapped one in flight
    /// when it was admitted, and then only at the chains of its buckets.
    #[inline]
    pub(crate) fn older_write_due_on(&self, s: Slot, d: usize) -> Option<Slot> {
        if !ORDERS_WRITES || !self.record(s).overlaps_earlier {
            return None;
        }
        self.earliest_older_overlapping(s, |r| {
            r.targets
                .difference(r.done.union(r.skipped).union(r.serving))
                .contains(d)
        })
    }

    /// The earliest write submitted before the write `s`, overlapping it,
    /// that no disk has queued, started or written yet (it waits in a common
    /// queue), if any: it must start before `s`, or the two would reach the
    /// disks in the wrong order.
    pub(crate) fn older_unstarted_write(&self, s: Slot) -> Option<Slot> {
        if !ORDERS_WRITES || !self.record(s).overlaps_earlier {
            return None;
        }
        self.earliest_older_overlapping(s, |r| r.queued.union(r.serving).union(r.done).is_empty())
    }

    /// The earliest write in flight admitted before the write `s`,
    /// overlapping it and `wanted`, if any.
    #[cold]
    fn earliest_older_overlapping(
        &self,
        s: Slot,
        wanted: impl Fn(&Record) -> bool,
    ) -> Option<Slot> {
        let later = self.record(s);
        let blocks = span(&later.request);
        let mut earliest: Option<(u64, Slot)> = None;
        self.any_write_near(&later.request, |l| {
            if !spans_overlap(self.spans[l as usize], blocks) {
                return false;
            }
            let r = self.record(l);
            if r.admitted < later.admitted
                && earliest.is_none_or(|(at, _)| r.admitted < at)
                && wanted(r)
            {
                earliest = Some((r.admitted, l));
            }
            false
        });
        earliest.map(|(_, l)| l)
    }

    /// Stores a request with its copies. `targets` are the disks a write is
    /// sent to (ignored for reads).
    #[inline]
    pub(crate) fn admit(
        &mut self,
        req: &Request,
        copies: &Copies,
        targets: DiskSet,
        view: &ArrayView<'_>,
        timing: Timing,
    ) -> Result<Slot, EnqueueError> {
        if self.held == self.capacity {
            return Err(EnqueueError::QueueFull {
                capacity: self.capacity,
            });
        }
        let id_of = &self.id_of;
        let (cell, existing) = self.ids.probe(req.id.0, |s| id_of[s as usize]);
        if existing.is_some() {
            return Err(EnqueueError::DuplicateId(req.id));
        }
        let s = if self.free_head != NIL {
            let s = self.free_head;
            self.free_head = self.next_free[s as usize];
            s
        } else {
            let s = self.fresh as Slot;
            self.fresh += 1;
            s
        };
        self.ids.fill(cell, s);
        self.id_of[s as usize] = req.id.0;
        self.held += 1;
        let holders = copies.holders();
        let at = copies.locations();
        let own_place = at
            .iter()
            .all(|l| l.block == req.block && l.cylinder == req.cylinder);
        if !own_place {
            for (place, at) in self.locations[s as usize].iter_mut().zip(at) {
                *place = *at;
            }
        }
        let is_write = req.kind == Kind::Write;
        // The estimate of the first disk that may serve it stands for every
        // copy: the disks of an array share a model.
        let expected = match (holders.first(), at.first()) {
            _ if timing == Timing::Untimed => 0,
            (Some(d), Some(_)) if own_place => view.estimators[d].expected_service_time(req),
            (Some(d), Some(&at)) => view.estimators[d].expected_service_time(&at_copy(req, at)),
            _ => 0,
        };
        *self.record_mut(s) = Record {
            request: *req,
            holders,
            targets: if is_write { targets } else { DiskSet::EMPTY },
            queued: DiskSet::EMPTY,
            serving: DiskSet::EMPTY,
            done: DiskSet::EMPTY,
            skipped: if is_write {
                holders.difference(targets)
            } else {
                DiskSet::EMPTY
            },
            expected,
            admitted: self.admissions,
            phase: Phase::Open,
            report: 0,
            in_lagging: false,
            in_flight: is_write && TRACKS_WRITES,
            overlaps_earlier: is_write && ORDERS_WRITES && self.overlaps_in_flight(req),
            held: false,
            own_place,
        };
        if is_write && TRACKS_WRITES {
            self.admissions += 1;
            self.spans[s as usize] = span(req);
            let first = match self.chain_of(req) {
                Some(c) => &mut self.chain_first[c],
                None => &mut self.long_first,
            };
            self.chains.push_back(first, s);
        }
        self.open += 1;
        Ok(s)
    }

    /// Checks a request a common queue will hold (SQ family, CMQ) and admits
    /// it: a read needs an up-to-date copy, a write a live holder, whose
    /// holders it is then sent to.
    #[inline(always)]
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
        // Neither the single-queue family nor CMQ routes by load.
        self.admit(req, copies, targets, view, Timing::Untimed)
    }

    /// Frees slot `s`.
    #[inline(always)]
    fn free(&mut self, s: Slot) {
        let id_of = &self.id_of;
        self.ids.remove(s, id_of[s as usize], |t| id_of[t as usize]);
        self.next_free[s as usize] = self.free_head;
        self.free_head = s;
        self.held -= 1;
    }

    /// Forgets a request that never got an operation anywhere (a refused
    /// submit, or a held write about to be submitted again).
    pub(crate) fn withdraw(&mut self, s: Slot) {
        self.open -= 1;
        self.record_mut(s).phase = Phase::Closed;
        self.leave_in_flight(s);
        self.free(s);
    }

    /// The chain of a write in flight: its first bucket's, or `None` for the
    /// long chain.
    #[inline]
    fn chain_of(&self, req: &Request) -> Option<usize> {
        let (first, last) = bucket_span(req);
        (last - first <= 1).then(|| chain_of_bucket(first, self.chain_first.as_slice().len()))
    }

    /// Takes the write `s` out of the writes in flight (settled or closed).
    #[inline]
    fn leave_in_flight(&mut self, s: Slot) {
        if self.record(s).in_flight {
            self.record_mut(s).in_flight = false;
            let req = self.record(s).request;
            let first = match self.chain_of(&req) {
                Some(c) => &mut self.chain_first[c],
                None => &mut self.long_first,
            };
            self.chains.unlink(first, s);
        }
    }

    /// Whether `req` overlaps a write in flight.
    #[inline]
    fn overlaps_in_flight(&self, req: &Request) -> bool {
        let blocks = span(req);
        self.any_write_near(req, |l| spans_overlap(self.spans[l as usize], blocks))
    }

    /// Whether `hit` holds for a write in flight that may overlap `req`:
    /// those on the chains of the buckets `req` touches and of the one
    /// before, and on the long chain; every write in flight when `req`
    /// spans as many buckets as there are chains.
    #[inline]
    fn any_write_near(&self, req: &Request, mut hit: impl FnMut(Slot) -> bool) -> bool {
        let (first, last) = bucket_span(req);
        let from = first.saturating_sub(1);
        let heads = self.chain_first.as_slice();
        if last - from >= heads.len() as u64 {
            return self.any_write_in_flight(hit);
        }
        (from..=last).any(|b| self.any_on_chain(heads[chain_of_bucket(b, heads.len())], &mut hit))
            || self.any_on_chain(self.long_first, &mut hit)
    }

    /// Whether `hit` holds for a write in flight: a walk of every chain.
    fn any_write_in_flight(&self, mut hit: impl FnMut(Slot) -> bool) -> bool {
        self.chain_first
            .as_slice()
            .iter()
            .any(|&first| self.any_on_chain(first, &mut hit))
            || self.any_on_chain(self.long_first, &mut hit)
    }

    /// Whether `hit` holds for a write on the chain starting at `first`.
    #[inline]
    fn any_on_chain(&self, first: Slot, hit: &mut impl FnMut(Slot) -> bool) -> bool {
        if first == NIL {
            return false;
        }
        let mut l = first;
        loop {
            if hit(l) {
                return true;
            }
            l = self.chains.next(l);
            if l == first {
                return false;
            }
        }
    }

    #[inline]
    pub(crate) fn find(&self, id: RequestId) -> Option<Slot> {
        let id_of = &self.id_of;
        self.ids.probe(id.0, |s| id_of[s as usize]).1
    }

    /// The request `id` if it is neither finished nor withdrawn.
    pub(crate) fn find_open(&self, id: RequestId) -> Result<Slot, CancelError> {
        self.find(id)
            .filter(|&s| self.record(s).phase == Phase::Open)
            .ok_or(CancelError::UnknownId(id))
    }

    // ---- what a request is ----

    /// The logical request as submitted.
    #[inline]
    pub(crate) fn request(&self, s: Slot) -> Request {
        self.record(s).request
    }

    /// Whether every copy of `s` lies at the request's own block and
    /// cylinder: its operation on any disk is the request as submitted.
    #[inline]
    pub(crate) fn at_own_place(&self, s: Slot) -> bool {
        self.record(s).own_place
    }

    /// Where the `k`-th copy of `s` (in disk order) lives.
    #[inline]
    fn kth_location(&self, s: Slot, k: usize) -> Location {
        let r = self.record(s);
        if r.own_place {
            Location {
                block: r.request.block,
                cylinder: r.request.cylinder,
            }
        } else {
            self.locations[s as usize][k]
        }
    }

    /// Where the copy of `s` on disk `d` lives (`None` if `d` holds none).
    #[inline]
    pub(crate) fn location(&self, s: Slot, d: usize) -> Option<Location> {
        let holders = self.record(s).holders;
        if !holders.contains(d) {
            return None;
        }
        Some(self.kth_location(s, holders.rank(d)))
    }

    /// The copies of `s`.
    pub(crate) fn copies(&self, s: Slot) -> Copies {
        self.record(s)
            .holders
            .iter()
            .enumerate()
            .fold(Copies::new(), |c, (k, d)| {
                c.with(d, self.kth_location(s, k))
            })
    }

    /// The operation for disk `d`: the request at that disk's copy.
    #[inline]
    pub(crate) fn op(&self, s: Slot, d: usize) -> Request {
        let r = self.request(s);
        match self.location(s, d) {
            Some(at) => at_copy(&r, at),
            None => r,
        }
    }

    /// Disks with nothing queued.
    #[inline]
    pub(crate) fn unqueued(&self) -> DiskSet {
        self.all().difference(self.queueing)
    }

    #[inline]
    pub(crate) fn is_write(&self, s: Slot) -> bool {
        self.record(s).request.kind == Kind::Write
    }

    #[inline]
    pub(crate) fn queued(&self, s: Slot) -> DiskSet {
        self.record(s).queued
    }

    pub(crate) fn serving(&self, s: Slot) -> DiskSet {
        self.record(s).serving
    }

    #[inline]
    pub(crate) fn is_open(&self, s: Slot) -> bool {
        self.record(s).phase == Phase::Open
    }

    /// Disks that may serve `s` now: a read's up-to-date holders, a write's
    /// targets not yet written.
    #[inline]
    pub(crate) fn servers(&self, s: Slot) -> DiskSet {
        let r = self.record(s);
        if r.request.kind == Kind::Write {
            r.targets.difference(r.done).difference(r.skipped)
        } else {
            self.fresh_among(&r.request, r.holders, |k| self.kth_location(s, k).block)
        }
    }

    // ---- operations ----

    /// An operation of `s` joins the queue of disk `d`.
    #[inline]
    pub(crate) fn enqueued(&mut self, s: Slot, d: usize) {
        let r = &mut self.records[s as usize];
        r.queued = r.queued.with(d);
        self.tally.pending[d] += 1;
        self.tally.backlog[d] += r.expected;
        self.queueing = self.queueing.with(d);
    }

    /// The operation of `s` left the queue of disk `d` without being served.
    #[inline]
    pub(crate) fn dequeued(&mut self, s: Slot, d: usize) {
        let r = &mut self.records[s as usize];
        if r.queued.contains(d) {
            r.queued = r.queued.without(d);
            self.tally.pending[d] -= 1;
            self.tally.backlog[d] -= r.expected;
            if self.tally.pending[d] == 0 {
                self.queueing = self.queueing.without(d);
            }
        }
    }

    /// Whether disk `d` is writing a write.
    pub(crate) fn writing_on(&self, d: usize) -> bool {
        let s = self.tally.on_disk[d];
        s != NIL && self.is_write(s)
    }

    /// Disk `d` starts the operation of `s`.
    #[inline]
    pub(crate) fn start(&mut self, s: Slot, d: usize, now: Nanos) {
        self.dequeued(s, d);
        let r = &mut self.records[s as usize];
        r.serving = r.serving.with(d);
        let expected = r.expected;
        self.tally.on_disk[d] = s;
        self.busy = self.busy.with(d);
        self.tally.started_at[d] = now;
        self.tally.serving_expected[d] = expected;
    }

    #[inline]
    fn take_disk(&mut self, d: usize) -> Result<Slot, CompleteError> {
        self.check_disk(d)?;
        let s = self.tally.on_disk[d];
        if s == NIL {
            return Err(CompleteError::IdleDisk { disk: d });
        }
        self.tally.on_disk[d] = NIL;
        self.busy = self.busy.without(d);
        let r = self.record_mut(s);
        r.serving = r.serving.without(d);
        Ok(s)
    }

    /// Disk `d`'s operation is aborted; the disk is idle again.
    pub(crate) fn abort_op(&mut self, d: usize) {
        // Only called for disks the ledger shows serving.
        let _ = self.take_disk(d);
    }

    /// Copies a write needs before it is acknowledged.
    fn needed(&self, s: Slot) -> usize {
        let r = self.record(s);
        let reachable = r.targets.difference(r.skipped).len();
        let wanted = match self.ack {
            Ack::All => reachable,
            Ack::First => 1,
            Ack::Quorum(k) => usize::from(k),
        };
        wanted.min(reachable)
    }

    /// Every target of a write is written or skipped.
    fn settled(&self, s: Slot) -> bool {
        let r = self.record(s);
        r.targets.is_subset(r.done.union(r.skipped))
    }

    /// Disk `disk` finished its operation, which was of the request in
    /// slot `s` (returned), and `c` says what that means. A read completes
    /// with its first copy; with `abort_siblings`, the other copies still in
    /// service are aborted and reported. A write is acknowledged when the
    /// [`Ack`] rule is met and settles when every target is written. The
    /// caller retires the slot once it has withdrawn any queued copies.
    #[inline(always)]
    pub(crate) fn complete_op(
        &mut self,
        disk: usize,
        abort_siblings: bool,
        c: &mut Completion,
    ) -> Result<Slot, CompleteError> {
        let s = self.take_disk(disk)?;
        let r = self.record_mut(s);
        r.done = r.done.with(disk);
        if r.phase == Phase::Closed {
            return Ok(s);
        }
        if r.request.kind == Kind::Write {
            self.account_write(s, c);
        } else if r.phase == Phase::Open {
            c.finished = Some(self.finish(s));
            if abort_siblings {
                c.abort = self.record(s).serving;
                for d in c.abort.iter() {
                    self.abort_op(d);
                }
            }
        }
        Ok(s)
    }

    /// Acknowledges and settles a write as far as its copies allow.
    fn account_write(&mut self, s: Slot, c: &mut Completion) {
        if self.record(s).phase == Phase::Open {
            if self.record(s).done.is_empty() && self.settled(s) {
                // Every target was skipped: nothing was written anywhere.
                c.failed = Some(self.close(s));
                return;
            }
            if self.record(s).done.len() >= self.needed(s) {
                c.finished = Some(self.finish(s));
            }
        }
        let (phase, in_lagging) = (self.record(s).phase, self.record(s).in_lagging);
        if phase == Phase::Finished && self.settled(s) {
            c.settled = Some(self.request(s));
            c.skipped = self.record(s).skipped;
            self.leave_in_flight(s);
            if in_lagging {
                self.lagging.remove(s);
                self.record_mut(s).in_lagging = false;
            }
        } else if phase == Phase::Finished && !in_lagging {
            self.lagging.push_back(s);
            self.record_mut(s).in_lagging = true;
        }
    }

    #[inline]
    fn finish(&mut self, s: Slot) -> Request {
        self.open -= 1;
        let r = self.record_mut(s);
        r.phase = Phase::Finished;
        r.request
    }

    /// Closes an open request (withdrawn or failed) and returns it.
    fn close(&mut self, s: Slot) -> Request {
        self.open -= 1;
        self.leave_in_flight(s);
        let r = self.record_mut(s);
        r.phase = Phase::Closed;
        r.request
    }

    /// The refusal, if any, to withdraw `s`: a write some disk has started.
    pub(crate) fn check_cancel(&self, s: Slot) -> Result<(), CancelError> {
        let r = self.record(s);
        if r.request.kind == Kind::Write && !(r.serving.is_empty() && r.done.is_empty()) {
            Err(CancelError::InService(r.request.id))
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
    #[inline]
    pub(crate) fn retire_if_idle(&mut self, s: Slot) {
        let r = self.record(s);
        if r.phase != Phase::Open
            && r.queued.is_empty()
            && r.serving.is_empty()
            && !r.in_lagging
            && r.report == 0
        {
            self.free(s);
        }
    }

    // ---- failures ----

    fn disk_error(&self, d: usize) -> DiskStateError {
        DiskStateError::NoSuchDisk {
            disk: d,
            disks: self.disks,
        }
    }

    /// Checks that disk `d` may fail: it is online or rebuilding.
    pub(crate) fn check_fail(&self, d: usize) -> Result<(), DiskStateError> {
        if d >= self.disks {
            return Err(self.disk_error(d));
        }
        match self.state[d] {
            DiskState::Failed => Err(DiskStateError::Transition {
                disk: d,
                from: DiskState::Failed,
                to: "fail",
            }),
            _ => Ok(()),
        }
    }

    /// Marks disk `d` failed, drops its resync and takes back the operation
    /// it was serving.
    pub(crate) fn fail_disk(&mut self, d: usize) -> Option<Slot> {
        self.state[d] = DiskState::Failed;
        self.degraded = self.degraded.with(d);
        self.window[d] = None;
        self.resyncing = self.resyncing.without(d);
        if self.copying.contains(d) {
            self.copying = self.copying.without(d);
            self.busy = self.busy.without(d);
            return None;
        }
        self.take_disk(d).ok()
    }

    /// A replacement for the failed disk `d` enters the array, to be rebuilt
    /// up to block `end`; blocks below `current_to` are already current (a
    /// resync the driver checkpointed and resumes). Online at once when
    /// nothing is left to copy.
    pub(crate) fn replace(
        &mut self,
        d: usize,
        current_to: u64,
        end: u64,
    ) -> Result<(), DiskStateError> {
        if d >= self.disks {
            return Err(self.disk_error(d));
        }
        let from = self.state[d];
        if from != DiskState::Failed {
            return Err(DiskStateError::Transition {
                disk: d,
                from,
                to: "be replaced (only a failed disk is)",
            });
        }
        self.rebuild_end[d] = end;
        // A one-disk array keeps no other copy to rebuild from: its data
        // went with the failed disk, and the replacement is a new disk.
        if current_to >= end || self.disks == 1 {
            self.state[d] = DiskState::Online;
            self.degraded = self.degraded.without(d);
        } else {
            self.state[d] = DiskState::Rebuilding {
                rebuilt_to: current_to,
            };
        }
        Ok(())
    }

    /// The driver asks to copy `copy` (a range of disk `d`'s blocks) next.
    pub(crate) fn claim_resync(&mut self, d: usize, copy: &Request) -> Result<(), DiskStateError> {
        if d >= self.disks {
            return Err(self.disk_error(d));
        }
        let DiskState::Rebuilding { rebuilt_to } = self.state[d] else {
            return Err(DiskStateError::NotRebuilding {
                disk: d,
                state: self.state[d],
            });
        };
        if self.resyncing.contains(d) {
            return Err(DiskStateError::CopyInProgress { disk: d });
        }
        if copy.block != rebuilt_to {
            return Err(DiskStateError::OutOfOrder {
                disk: d,
                expected: rebuilt_to,
                block: copy.block,
            });
        }
        let range_end = copy.block.saturating_add(u64::from(copy.blocks));
        if copy.blocks == 0 || range_end > self.rebuild_end[d] {
            return Err(DiskStateError::BadRange {
                disk: d,
                end: self.rebuild_end[d],
                range_end,
            });
        }
        if self.resync_source(d).is_none() {
            return Err(DiskStateError::NoSource { disk: d });
        }
        let mut op = *copy;
        op.kind = Kind::Write;
        self.window[d] = Some(Window {
            copy: op,
            source: d,
        });
        self.resyncing = self.resyncing.with(d);
        Ok(())
    }

    /// An online disk other than `d` to copy from: the lowest.
    fn resync_source(&self, d: usize) -> Option<usize> {
        (0..self.disks).find(|&e| e != d && self.state[e] == DiskState::Online)
    }

    /// Disks whose claimed range holds back writes overlapping it: those
    /// copying it, and those that will once the writes in flight drain. A
    /// range left without an online disk to copy from (its source failed
    /// after the claim) holds nothing back: it would wait for ever.
    fn barring(&self) -> DiskSet {
        let mut barring = self.copying;
        for d in self.resync_waiting().iter() {
            if self.resync_source(d).is_some() {
                barring = barring.with(d);
            }
        }
        barring
    }

    /// Disks whose claimed resync range waits to start.
    #[inline]
    pub(crate) fn resync_waiting(&self) -> DiskSet {
        self.resyncing.difference(self.copying)
    }

    /// Whether write `s` may overlap the range being copied to disk `d`:
    /// compared at `d`'s copy of it, and assumed for a write with no copy
    /// on `d` (whose blocks there the array cannot know).
    fn overlaps_window(&self, s: Slot, d: usize) -> bool {
        match (self.window[d], self.location(s, d)) {
            (Some(w), Some(at)) => overlap(&w.copy, &at_copy(&self.record(s).request, at)),
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// Starts the copy of the range claimed for the idle disk `d` if no
    /// write overlapping it is in flight (md's `raise_barrier`: the copy
    /// reads a source no write is changing, and lands before any later
    /// write of those blocks).
    pub(crate) fn start_copy(&mut self, d: usize) -> Option<(Request, usize)> {
        let mut w = self.window[d]?;
        if self.busy.contains(d) || self.copying.contains(d) {
            return None;
        }
        if !cfg!(feature = "unbarriered-resync-for-tests")
            && self.any_write_in_flight(|l| self.overlaps_window(l, d))
        {
            return None;
        }
        let source = self.resync_source(d)?;
        w.source = source;
        self.window[d] = Some(w);
        self.copying = self.copying.with(d);
        self.busy = self.busy.with(d);
        Some((w.copy, source))
    }

    /// Disk `d` finished copying its claimed range, if it was copying one:
    /// its rebuilt mark rises past the range, and it is online once the
    /// mark reaches the rebuild's end. Returns the copy.
    pub(crate) fn finish_copy(&mut self, d: usize) -> Option<Request> {
        if !self.copying.contains(d) {
            return None;
        }
        self.copying = self.copying.without(d);
        self.busy = self.busy.without(d);
        self.resyncing = self.resyncing.without(d);
        let w = self.window[d].take()?;
        let to = w.copy.block + u64::from(w.copy.blocks);
        if to >= self.rebuild_end[d] {
            self.state[d] = DiskState::Online;
            self.degraded = self.degraded.without(d);
        } else {
            self.state[d] = DiskState::Rebuilding { rebuilt_to: to };
        }
        Some(w.copy)
    }

    /// Whether a new write must wait for a resync barrier: it overlaps a
    /// range being copied (at the copying disk's copy of it), or a write
    /// already held (which it must not overtake).
    #[inline]
    pub(crate) fn must_hold(&self, req: &Request, copies: &Copies) -> bool {
        if req.kind != Kind::Write
            || (self.resyncing.is_empty() && self.barred.front().is_none())
            || cfg!(feature = "unbarriered-resync-for-tests")
        {
            return false;
        }
        for d in self.barring().iter() {
            let overlaps = match (self.window[d], copies.location(d)) {
                (Some(w), Some(at)) => overlap(&w.copy, &at_copy(req, at)),
                (Some(_), None) => true,
                (None, _) => false,
            };
            if overlaps {
                return true;
            }
        }
        self.overlaps_held(req, NIL)
    }

    /// Whether `req` overlaps a held write before `before` (all of them
    /// with `NIL`).
    fn overlaps_held(&self, req: &Request, before: Slot) -> bool {
        let Some(first) = self.barred.front() else {
            return false;
        };
        let mut l = first;
        while l != before {
            if overlap(&self.record(l).request, req) {
                return true;
            }
            l = self.barred.next(l);
            if l == first {
                break;
            }
        }
        false
    }

    /// Keeps a write back until the barrier it waits for falls.
    pub(crate) fn hold(
        &mut self,
        req: &Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        self.check_copies(req.id, copies)?;
        let s = self.admit(req, copies, DiskSet::EMPTY, view, Timing::Untimed)?;
        self.leave_in_flight(s);
        self.record_mut(s).held = true;
        self.barred.push_back(s);
        Ok(())
    }

    /// The oldest held write that may go now (it overlaps no range being
    /// copied and no older held write), taken out of the ledger for the
    /// caller to submit again, with its copies.
    pub(crate) fn release_held(&mut self) -> Option<(Request, Copies)> {
        let first = self.barred.front()?;
        let mut l = first;
        loop {
            let req = self.record(l).request;
            let blocked = self.barring().iter().any(|d| self.overlaps_window(l, d))
                || self.overlaps_held(&req, l);
            if !blocked {
                let copies = self.copies(l);
                self.barred.remove(l);
                self.record_mut(l).held = false;
                self.withdraw(l);
                return Some((req, copies));
            }
            l = self.barred.next(l);
            if l == first {
                return None;
            }
        }
    }

    /// Whether `s` is a write held by a resync barrier.
    pub(crate) fn is_held(&self, s: Slot) -> bool {
        self.record(s).held
    }

    /// Withdraws the held write `s`.
    pub(crate) fn cancel_held(&mut self, s: Slot) -> Request {
        self.barred.remove(s);
        self.record_mut(s).held = false;
        let req = self.request(s);
        self.withdraw(s);
        req
    }

    /// A held write that could not be submitted again: admitted bare and
    /// reported failed.
    pub(crate) fn fail_released(&mut self, req: &Request, copies: &Copies, view: &ArrayView<'_>) {
        if let Ok(s) = self.admit(req, copies, DiskSet::EMPTY, view, Timing::Untimed) {
            self.fail(s);
        }
    }

    /// Whether any write is held by a resync barrier.
    #[inline]
    pub(crate) fn holds_writes(&self) -> bool {
        self.barred.front().is_some()
    }

    /// `s` lost its operation on the failed disk `d`. A write skips `d` (and
    /// may be acknowledged, settle or fail for it); a read with no operation
    /// left anywhere must be routed again.
    pub(crate) fn lose(&mut self, s: Slot, d: usize) -> Loss {
        if self.is_write(s) {
            let r = self.record_mut(s);
            r.skipped = r.skipped.with(d);
            let mut c = Completion::default();
            self.account_write(s, &mut c);
            self.note(s, &c);
            return Loss::Absorbed;
        }
        let r = self.record(s);
        if r.phase == Phase::Open && r.queued.is_empty() && r.serving.is_empty() {
            Loss::Reroute
        } else {
            self.retire_if_idle(s);
            Loss::Absorbed
        }
    }

    /// Skips the targets of a write still waiting in a common queue whose
    /// disks failed after it was submitted: having no operation there, the
    /// failure could not take one back. The write fails if no target is left.
    #[inline]
    pub(crate) fn skip_failed_targets(&mut self, s: Slot) {
        if self.degraded.is_empty() || !self.is_write(s) {
            return;
        }
        let r = self.record(s);
        let gone = r
            .targets
            .difference(r.done)
            .difference(r.skipped)
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

    /// Queues an event for [`Ledger::poll_event`].
    fn note(&mut self, s: Slot, c: &Completion) {
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
        if self.record(s).report == 0 {
            self.reports.push_back(s);
        }
        self.record_mut(s).report |= bits;
    }

    /// The oldest event caused by a failure.
    pub(crate) fn poll_event(&mut self) -> Option<Completion> {
        let s = self.reports.front()?;
        self.reports.remove(s);
        let bits = core::mem::take(&mut self.record_mut(s).report);
        let r = self.record(s);
        let req = r.request;
        let settled = bits & REPORT_SETTLED != 0;
        let c = Completion {
            finished: (bits & REPORT_FINISHED != 0).then_some(req),
            settled: settled.then_some(req),
            skipped: if settled { r.skipped } else { DiskSet::EMPTY },
            failed: (bits & REPORT_FAILED != 0).then_some(req),
            abort: DiskSet::EMPTY,
            resynced: None,
        };
        self.retire_if_idle(s);
        Some(c)
    }

    /// Logical requests neither finished nor withdrawn.
    pub(crate) fn open(&self) -> usize {
        self.open
    }
}
