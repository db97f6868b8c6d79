//! Invariants of every array policy, driven by a small virtual-time loop with
//! random service times.
//!
//! On healthy two-disk mirrors (every named policy): each read completes
//! exactly once (also when it runs on several disks), an update completes
//! only after every disk wrote it, cancelled and aborted work never reports
//! completion, every disk receives every update exactly once (in the same
//! order where the disciplines are FCFS), and a full array refuses work
//! without losing any. The policies that write one copy by design
//! ([`WRITES_ONE_COPY`]) instead write each update once and report its
//! other holders skipped, for their driver to propagate.
//!
//! On arrays of 2, 3 and 8 disks whose logical extents are held by random
//! sets of 1 ..= 8 disks at random places, with random disk failures and
//! rebuilds and every write acknowledgement rule: every request completes,
//! is cancelled, refused or failed exactly once; every write settles once
//! with each holder either written once or reported skipped (so with
//! first-copy acknowledgement the other copies are still written); no read
//! starts on a stale copy; and every operation a disk starts carries that
//! disk's block and cylinder.

use sched_core::array::{
    ArrayPolicy, ArrayView, Cmq, Copies, Dmq, Location, SPssq, ShortestQueue, Start,
};
use sched_core::policy::{Fcfs, Sstf};
use sched_core::{
    Block, Blocks, Cyl, Head, Inline, Kind, NullEstimator, Request, RequestId, ServiceEstimator,
};

const CYLINDERS: u32 = 200;

/// A mirrored block whose copy on disk 1 lies elsewhere than on disk 0.
fn shifted_mirror() -> Copies {
    Copies::new()
        .with(
            0,
            Location {
                block: 800,
                cylinder: 10,
            },
        )
        .with(
            1,
            Location {
                block: 4_000,
                cylinder: 150,
            },
        )
}

/// Submits a write and then (with disk 0 failed) a read of a shifted mirror,
/// and returns every operation started: each must carry its disk's copy.
fn serve_shifted_mirror(policy: &mut dyn ArrayPolicy) -> Vec<Start> {
    let heads = [Head::at(0), Head::at(0)];
    let est: [&dyn ServiceEstimator; 2] = [&NullEstimator, &NullEstimator];
    let view = ArrayView {
        now: 0,
        heads: &heads,
        estimators: &est,
    };
    let copies = shifted_mirror();
    let mut started = Vec::new();
    let write = Request::new(RequestId(1), Kind::Write, Block(800), Blocks(8), Cyl(10), 0);
    policy.submit(write, &copies, &view).unwrap();
    while let Some(s) = policy.poll_start(&view).unwrap() {
        started.push(s);
    }
    for s in &started {
        let c = policy.complete(s.disk, 1).unwrap();
        assert!(c.abort.is_empty());
    }
    assert_eq!(policy.in_system(), 0);
    policy.fail_disk(0, &view).unwrap();
    let read = Request::new(RequestId(2), Kind::Read, Block(800), Blocks(8), Cyl(10), 2);
    policy.submit(read, &copies, &view).unwrap();
    let read_start = policy
        .poll_start(&view)
        .unwrap()
        .expect("disk 1 serves the read");
    started.push(read_start);
    let done = policy.complete(read_start.disk, 3).unwrap();
    assert_eq!(done.finished.map(|r| r.id), Some(RequestId(2)));
    started
}

/// The named array policies that write an update on one holder and report
/// the others skipped, for the driver to bring up to date later: the
/// EW-Array's stripe group (Zhang, Yu, Krishnamurthy & Wang 2002), whose
/// driver propagates the other copies from its delayed-write buffer.
const WRITES_ONE_COPY: [&str; 1] = ["ew-array"];

/// Whether the run named `name` (a policy's name, then perhaps its setting)
/// drives one of [`WRITES_ONE_COPY`].
fn writes_one_copy(name: &str) -> bool {
    name.split(' ')
        .next()
        .is_some_and(|policy| WRITES_ONE_COPY.contains(&policy))
}

fn assert_own_blocks(name: &str, started: &[Start]) {
    let copies = shifted_mirror();
    let disks: Vec<usize> = started.iter().map(|s| s.disk).collect();
    let writes = if writes_one_copy(name) { 1 } else { 2 };
    assert_eq!(disks.len(), writes + 1, "{name}: {started:?}");
    assert_eq!(
        started[writes].disk, 1,
        "{name}: the read went to a failed disk"
    );
    for s in started {
        let at = copies.location(s.disk).unwrap();
        let op = s.dispatch.request;
        assert_eq!(
            (op.block, op.cylinder),
            (at.block, at.cylinder),
            "{name}: disk {} served {:?} away from its copy",
            s.disk,
            op.kind
        );
    }
}

/// Regression (issue 7): the operation sent to disk 1 of a mirror kept disk
/// 0's block, so a shifted mirror was served at the wrong place on disk 1.
#[test]
fn a_shifted_mirror_is_served_at_each_disk_own_block() {
    let mut dmq = Dmq::new(
        Inline::<8>::new(),
        [
            Sstf::new(Inline::<8>::new(), CYLINDERS).unwrap(),
            Sstf::new(Inline::<8>::new(), CYLINDERS).unwrap(),
        ],
        ShortestQueue,
    )
    .unwrap();
    assert_own_blocks("dmq", &serve_shifted_mirror(&mut dmq));
    let mut cmq = Cmq::new(
        Inline::<8>::new(),
        Fcfs::new(Inline::<8>::new()),
        [Fcfs::new(Inline::<8>::new()), Fcfs::new(Inline::<8>::new())],
    )
    .unwrap();
    assert_own_blocks("cmq", &serve_shifted_mirror(&mut cmq));
    let mut spssq = SPssq::new(Inline::<8>::new(), 2).unwrap();
    assert_own_blocks("s-pssq", &serve_shifted_mirror(&mut spssq));
}

#[test]
fn specs_parse_print_and_reparse() {
    use sched_core::array::ArraySpec;
    for (name, spec) in ArraySpec::named() {
        let text = spec.to_string();
        assert_eq!(
            text.parse::<ArraySpec>(),
            Ok(spec),
            "{name} printed as {text}"
        );
    }
    let spec: ArraySpec = "cmq:common=ssedo(m=4,beta=3),aux=sstf".parse().unwrap();
    assert_eq!(
        spec,
        ArraySpec::Cmq {
            common: sched_core::PolicySpec::Ssedo { m: 4, beta: 3.0 },
            aux: sched_core::PolicySpec::Sstf
        }
    );
    assert!(
        "dmq:queue=fd-scan(expired=drop)"
            .parse::<ArraySpec>()
            .is_err()
    );
    assert!("r-dmq:alpha=1.5".parse::<ArraySpec>().is_err());
    assert!("raid5".parse::<ArraySpec>().is_err());
    assert_eq!(
        "ivy-dmq".parse::<ArraySpec>().map(|s| s.to_string()),
        Ok(ArraySpec::named()
            .find(|(n, _)| *n == "ivy-dmq")
            .unwrap()
            .1
            .to_string())
    );
}

#[cfg(feature = "alloc")]
mod run_time_arrays {
    use super::*;
    use proptest::prelude::*;
    use sched_core::array::{Ack, AnyArray, ArraySpec, Completion, DiskSet, DiskState, Rebuild};
    use sched_core::{CancelError, DiskStateError, EnqueueError, Heap, Nanos};

    const CAP: usize = 16;

    /// Service times in the driver's time unit: 1 per 10 cylinders of seek, one
    /// per block of transfer, and 1 of overhead.
    struct ArmEstimator;

    impl ServiceEstimator for ArmEstimator {
        fn positioning_time(&self, head: Head, req: &Request, _now: Nanos) -> Nanos {
            u64::from(head.cylinder.abs_diff(req.cylinder)) / 10
        }
        fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
            self.positioning_time(head, req, now) + 1 + u64::from(req.blocks)
        }
        fn expected_service_time(&self, req: &Request) -> Nanos {
            u64::from(CYLINDERS) / 30 + 1 + u64::from(req.blocks)
        }
    }

    fn build(spec: &ArraySpec, capacity: usize, disks: usize, seed: u64) -> AnyArray<Heap> {
        spec.build(Heap::new(capacity).unwrap(), disks, CYLINDERS, seed)
            .unwrap()
    }

    /// xorshift: service times vary but the run is reproducible.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// One step of a script: after `gap` time units, something happens.
    #[derive(Clone, Debug)]
    struct Step {
        gap: u64,
        what: What,
    }

    #[derive(Clone, Debug)]
    enum What {
        /// A logical request arrives with its copies; it is withdrawn
        /// `cancel_after` time units later if it is still there.
        Submit {
            kind: Kind,
            block: u64,
            blocks: u32,
            cylinder: u32,
            copies: Copies,
            cancel_after: Option<u8>,
        },
        /// Disk `disk` fails (`fail`), or moves one step along its repair:
        /// failed → rebuilding from 0 → rebuilt `step` blocks further … →
        /// online once rebuilt to the top.
        Disk { disk: usize, fail: bool, step: u64 },
    }

    /// What became of a logical request.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Fate {
        Open,
        Finished,
        Cancelled,
        Refused,
        Failed,
    }

    struct Record {
        req: Request,
        copies: Copies,
        /// Event counter when it was submitted and when acknowledged.
        submitted: u64,
        acked: Option<u64>,
        fate: Fate,
        /// Times a `settled` was reported, and the holders it skipped.
        settled: u32,
        skipped: DiskSet,
        /// Disks that wrote it (a write), that started an operation of it.
        written: DiskSet,
        started: DiskSet,
        /// Holders that were failed at some moment of its life.
        failed_during: DiskSet,
    }

    /// Everything a run produced.
    #[derive(Debug, Default, PartialEq)]
    struct Outcome {
        finished: Vec<RequestId>,
        cancelled: Vec<RequestId>,
        refused: Vec<RequestId>,
        failed: Vec<RequestId>,
        settled: Vec<(RequestId, DiskSet)>,
        /// Per disk, the writes it served, in order.
        writes: Vec<Vec<RequestId>>,
        /// Per disk, every operation started: (id, block, cylinder).
        starts: Vec<Vec<(RequestId, u64, u32)>>,
    }

    /// The driver's view of the array, and the checks made on the way.
    struct Harness {
        name: String,
        disks: usize,
        ack: Ack,
        /// Whether to check the CMQ single-lagging-disk property (healthy mirrors).
        one_lagging_disk: bool,
        records: Vec<Option<Record>>,
        busy: Vec<Option<(u64, Request)>>,
        state: Vec<DiskState>,
        /// Blocks below this hold current data on each disk (a failed disk's
        /// replacement holds none until it is rebuilt).
        valid_to: Vec<u64>,
        /// Whether each disk has a resync range claimed, and copies asked.
        copy_asked: Vec<bool>,
        copies_asked: u64,
        events: u64,
        out: Outcome,
    }

    /// Ids of the harness's resync copies.
    const COPY_IDS: u64 = 1 << 40;

    impl Harness {
        fn record(&mut self, id: RequestId) -> &mut Record {
            let name = &self.name;
            self.records[id.0 as usize]
                .as_mut()
                .unwrap_or_else(|| panic!("{name}: the array reported unknown request {id}"))
        }

        /// Whether the copy of `r` on disk `d` is stale for a read submitted
        /// at event `submitted`: the disk is failed, or was and is not yet
        /// rebuilt past the copy, or misses a write acknowledged before the
        /// read was submitted (unless, `lenient`, the disk failed during
        /// that write's life: then a rebuild restores it).
        fn stale(&self, r: &Record, d: usize, submitted: u64, lenient: bool) -> Option<String> {
            if self.state[d] == DiskState::Failed {
                return Some(format!("disk {d} is failed"));
            }
            let at = r.copies.location(d)?;
            if at.block + u64::from(r.req.blocks) > self.valid_to[d] {
                return Some(format!(
                    "disk {d} is rebuilt to block {} only, the copy ends at {}",
                    self.valid_to[d],
                    at.block + u64::from(r.req.blocks)
                ));
            }
            let (lo, hi) = (r.req.block, r.req.block + u64::from(r.req.blocks));
            for w in self.records.iter().flatten() {
                let overlaps = w.req.block < hi && lo < w.req.block + u64::from(w.req.blocks);
                if w.req.kind == Kind::Write
                    && overlaps
                    && w.acked.is_some_and(|a| a < submitted)
                    && w.copies.holders().contains(d)
                    && !w.written.contains(d)
                    && !(lenient && w.failed_during.contains(d))
                {
                    return Some(format!(
                        "disk {d} has not written {}, acknowledged before the read arrived",
                        w.req.id
                    ));
                }
            }
            None
        }

        fn on_start(&mut self, s: Start) {
            let name = self.name.clone();
            let d = s.disk;
            assert!(d < self.disks, "{name}: start on disk {d} beyond the array");
            assert!(
                self.busy[d].is_none(),
                "{name}: started disk {d} while busy"
            );
            assert_ne!(
                self.state[d],
                DiskState::Failed,
                "{name}: started an operation on failed disk {d}"
            );
            let op = s.dispatch.request;
            if let Some(source) = s.copy_from {
                assert!(
                    op.id.0 >= COPY_IDS && matches!(self.state[d], DiskState::Rebuilding { .. }),
                    "{name}: a copy to disk {d}, {:?}",
                    self.state[d]
                );
                assert_eq!(
                    self.state[source],
                    DiskState::Online,
                    "{name}: a copy from disk {source}"
                );
                self.busy[d] = Some((0, op));
                return;
            }
            let r = self.records[op.id.0 as usize]
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: started unknown request {}", op.id));
            let at = r.copies.location(d).unwrap_or_else(|| {
                panic!("{name}: {} started on disk {d}, which holds no copy", op.id)
            });
            // Each disk serves the operation at its own copy.
            assert_eq!(
                (op.block, op.cylinder),
                (at.block, at.cylinder),
                "{name}: disk {d} got {} away from its copy",
                op.id
            );
            assert_eq!(
                (op.id, op.kind, op.blocks, op.arrival, op.deadline),
                (
                    r.req.id,
                    r.req.kind,
                    r.req.blocks,
                    r.req.arrival,
                    r.req.deadline
                ),
                "{name}: the operation is not its request's"
            );
            assert!(
                !matches!(r.fate, Fate::Cancelled | Fate::Failed | Fate::Refused),
                "{name}: started {} after it was {:?}",
                op.id,
                r.fate
            );
            if op.kind == Kind::Read {
                if let Some(why) = self.stale(r, d, r.submitted, true) {
                    panic!("{name}: read {} started on a stale copy: {why}", op.id);
                }
            } else {
                assert!(
                    !r.written.contains(d) && !r.started.contains(d),
                    "{name}: disk {d} got write {} twice",
                    op.id
                );
            }
            self.record(op.id).started = self.record(op.id).started.with(d);
            self.out.starts[d].push((op.id, op.block, op.cylinder));
            self.busy[d] = Some((0, op));
        }

        fn on_completion(&mut self, c: Completion, aborting: bool) {
            let name = self.name.clone();
            self.events += 1;
            let now_event = self.events;
            if let Some(r) = c.finished {
                let ack = self.ack;
                let rec = self.record(r.id);
                assert_eq!(rec.req, r, "{name}: finished request altered");
                assert_eq!(
                    rec.fate,
                    Fate::Open,
                    "{name}: {} finished when {:?}",
                    r.id,
                    rec.fate
                );
                rec.fate = Fate::Finished;
                rec.acked = Some(now_event);
                if r.kind == Kind::Write {
                    let written = rec.written.len();
                    let reachable = rec
                        .copies
                        .holders()
                        .difference(rec.failed_during.difference(rec.written))
                        .len();
                    let needed = match ack {
                        _ if writes_one_copy(&name) => 1,
                        Ack::All => reachable,
                        Ack::First => 1,
                        Ack::Quorum(k) => usize::from(k),
                        other => panic!("the oracle has no rule for {other:?}"),
                    }
                    .min(reachable)
                    .max(1);
                    assert!(
                        written >= needed,
                        "{name}: update {} acknowledged ({ack:?}) after {written} of {reachable} copies",
                        r.id
                    );
                }
                self.out.finished.push(r.id);
                if aborting {
                    for e in c.abort.iter() {
                        let op = self.busy[e].take().map(|b| b.1);
                        assert_eq!(
                            op.map(|o| o.id),
                            Some(r.id),
                            "{name}: abort of disk {e}, which serves something else"
                        );
                    }
                }
            } else {
                assert!(c.abort.is_empty(), "{name}: abort without a finished read");
            }
            if let Some(r) = c.failed {
                // Failed only for want of a copy. A read: every holder is
                // failed, or stale now (not rebuilt past the copy, or behind
                // an acknowledged write). A write: every holder failed at
                // some moment of its life.
                let rec = self.records[r.id.0 as usize].as_ref().unwrap();
                let fresh = rec.copies.holders().iter().find(|&d| {
                    if r.kind == Kind::Read {
                        self.stale(rec, d, now_event, false).is_none()
                    } else {
                        !rec.failed_during.contains(d)
                    }
                });
                assert_eq!(
                    fresh, None,
                    "{name}: {} failed though disk {fresh:?} could serve it",
                    r.id
                );
                let rec = self.record(r.id);
                assert_eq!(
                    rec.fate,
                    Fate::Open,
                    "{name}: {} failed when {:?}",
                    r.id,
                    rec.fate
                );
                rec.fate = Fate::Failed;
                assert!(
                    rec.written.is_empty(),
                    "{name}: write {} failed though written",
                    r.id
                );
                self.out.failed.push(r.id);
            }
            if let Some(r) = c.settled {
                let rec = self.record(r.id);
                assert_eq!(r.kind, Kind::Write, "{name}: a read settled");
                assert_eq!(
                    rec.fate,
                    Fate::Finished,
                    "{name}: {} settled before it was acknowledged",
                    r.id
                );
                rec.settled += 1;
                assert_eq!(rec.settled, 1, "{name}: {} settled twice", r.id);
                rec.skipped = c.skipped;
                let holders = rec.copies.holders();
                assert!(c.skipped.is_subset(holders), "{name}: skipped a non-holder");
                for h in holders.iter() {
                    assert!(
                        rec.written.contains(h) != c.skipped.contains(h),
                        "{name}: write {} settled with holder {h} written: {}, skipped: {}",
                        r.id,
                        rec.written.contains(h),
                        c.skipped.contains(h)
                    );
                }
                assert!(
                    writes_one_copy(&name) || c.skipped.is_subset(rec.failed_during),
                    "{name}: write {} skipped holders {:?} that never failed",
                    r.id,
                    c.skipped.difference(rec.failed_during)
                );
                self.out.settled.push((r.id, c.skipped));
            } else {
                assert!(c.skipped.is_empty(), "{name}: skipped without settled");
            }
        }
    }

    /// Drives `policy` through the script; returns what happened after
    /// checking, at every step, everything the harness checks.
    fn drive(
        name: &str,
        mut policy: AnyArray<Heap>,
        ack: Ack,
        script: &[Step],
        seed: u64,
        one_lagging_disk: bool,
    ) -> Outcome {
        let disks = policy.disks();
        let mut h = Harness {
            name: name.to_string(),
            disks,
            ack,
            one_lagging_disk,
            records: script.iter().map(|_| None).collect(),
            busy: vec![None; disks],
            state: vec![DiskState::Online; disks],
            valid_to: vec![u64::MAX; disks],
            copy_asked: vec![false; disks],
            copies_asked: 0,
            events: 0,
            out: Outcome {
                writes: vec![Vec::new(); disks],
                starts: vec![Vec::new(); disks],
                ..Outcome::default()
            },
        };
        let mut rng = Rng(seed | 1);
        let mut heads = vec![Head::at(0); disks];
        let est_one = ArmEstimator;
        let est: Vec<&dyn ServiceEstimator> = vec![&est_one; disks];
        let mut now = 0u64;
        let mut next_step = 0usize;
        let mut step_at = script.first().map_or(0, |s| s.gap);
        let mut cancels: Vec<(u64, RequestId)> = Vec::new();
        loop {
            let next_done = (0..disks)
                .filter_map(|d| h.busy[d].map(|(t, _)| (t, d)))
                .min();
            let next_cancel = cancels.iter().map(|c| c.0).min();
            let step = (next_step < script.len()).then_some(step_at);
            let Some(t) = [next_done.map(|x| x.0), next_cancel, step]
                .into_iter()
                .flatten()
                .min()
            else {
                break;
            };
            now = now.max(t);
            if let Some((_, d)) = next_done.filter(|&(t, _)| t == now) {
                let (_, op) = h.busy[d].take().unwrap();
                heads[d] = Head::at(op.cylinder);
                if op.id.0 >= COPY_IDS {
                    let c = policy.complete(d, now).unwrap();
                    assert_eq!(c.resynced, Some(op), "{name}: copy to disk {d}");
                    h.copy_asked[d] = false;
                    h.state[d] = policy.disk_state(d);
                    h.valid_to[d] = match h.state[d] {
                        DiskState::Online => u64::MAX,
                        DiskState::Failed => 0,
                        DiskState::Rebuilding { rebuilt_to } => rebuilt_to,
                    };
                    let end = op.block + u64::from(op.blocks);
                    let expected = if end >= TOP { u64::MAX } else { end };
                    assert_eq!(h.valid_to[d], expected, "{name}: disk {d}'s mark");
                } else {
                    if op.kind == Kind::Write {
                        h.out.writes[d].push(op.id);
                        let rec = h.record(op.id);
                        rec.written = rec.written.with(d);
                    }
                    let c = policy.complete(d, now).unwrap();
                    h.on_completion(c, true);
                }
            } else if next_cancel == Some(now) {
                let i = cancels.iter().position(|c| c.0 == now).unwrap();
                let (_, id) = cancels.remove(i);
                let res = policy.cancel(id);
                let rec = h.record(id);
                match res {
                    Ok(r) => {
                        assert_eq!(rec.req, r, "{name}: cancelled request altered");
                        assert_eq!(
                            rec.fate,
                            Fate::Open,
                            "{name}: cancelled {id} when {:?}",
                            rec.fate
                        );
                        assert!(
                            r.kind == Kind::Read || rec.started.is_empty(),
                            "{name}: cancelled write {id} already started"
                        );
                        rec.fate = Fate::Cancelled;
                        h.out.cancelled.push(id);
                    }
                    Err(CancelError::UnknownId(_)) => assert_ne!(
                        rec.fate,
                        Fate::Open,
                        "{name}: open request {id} unknown to cancel"
                    ),
                    Err(CancelError::InService(_)) => assert!(
                        rec.fate == Fate::Open && r_is_started_write(rec),
                        "{name}: {id} refused as in service"
                    ),
                    Err(e) => panic!("{name}: unexpected cancel error {e}"),
                }
            } else {
                let s = &script[next_step];
                let view = ArrayView {
                    now,
                    heads: &heads,
                    estimators: &est,
                };
                match s.what {
                    What::Submit {
                        kind,
                        block,
                        blocks,
                        cylinder,
                        copies,
                        cancel_after,
                    } => {
                        let id = RequestId(next_step as u64);
                        let req = Request::new(
                            id,
                            kind,
                            Block(block),
                            Blocks(blocks),
                            Cyl(cylinder),
                            now,
                        )
                        .with_deadline(now + 50 + s.gap * 3);
                        h.events += 1;
                        let failed_now =
                            DiskSet::matching(disks, |d| h.state[d] == DiskState::Failed)
                                .intersection(copies.holders());
                        h.records[next_step] = Some(Record {
                            req,
                            copies,
                            submitted: h.events,
                            acked: None,
                            fate: Fate::Open,
                            settled: 0,
                            skipped: DiskSet::EMPTY,
                            written: DiskSet::EMPTY,
                            started: DiskSet::EMPTY,
                            failed_during: failed_now,
                        });
                        match policy.submit(req, &copies, &view) {
                            Ok(()) => {
                                if let Some(k) = cancel_after {
                                    cancels.push((now + u64::from(k), id));
                                }
                            }
                            Err(e) => {
                                match e {
                                    EnqueueError::QueueFull { capacity } => {
                                        assert_eq!(capacity, CAP.min(capacity), "{name}");
                                    }
                                    EnqueueError::NoEligibleDisk(_) => {
                                        let rec = h.records[next_step].as_ref().unwrap();
                                        let fresh = copies.holders().iter().find(|&d| {
                                            if kind == Kind::Write {
                                                h.state[d] != DiskState::Failed
                                            } else {
                                                h.stale(rec, d, rec.submitted, false).is_none()
                                            }
                                        });
                                        assert_eq!(
                                            fresh, None,
                                            "{name}: {id} refused for want of a disk, but disk {fresh:?} could serve it"
                                        );
                                    }
                                    e => panic!("{name}: unexpected submit error {e}"),
                                }
                                h.record(id).fate = Fate::Refused;
                                h.out.refused.push(id);
                            }
                        }
                    }
                    What::Disk { disk, fail, step } => {
                        let d = disk % disks;
                        h.events += 1;
                        match (h.state[d], fail) {
                            (DiskState::Failed, _) => {
                                policy.replace_disk(d, Rebuild::whole(TOP)).unwrap();
                                h.state[d] = DiskState::Rebuilding { rebuilt_to: 0 };
                                h.valid_to[d] = 0;
                            }
                            (_, true) => {
                                // The driver drops what the disk was serving.
                                h.busy[d] = None;
                                h.copy_asked[d] = false;
                                for r in h.records.iter_mut().flatten() {
                                    if r.copies.holders().contains(d) {
                                        r.failed_during = r.failed_during.with(d);
                                    }
                                    // An operation it was serving is lost with it.
                                    if !r.written.contains(d) {
                                        r.started = r.started.without(d);
                                    }
                                }
                                policy.fail_disk(d, &view).unwrap();
                                h.state[d] = DiskState::Failed;
                                h.valid_to[d] = 0;
                            }
                            (DiskState::Rebuilding { rebuilt_to }, false) if !h.copy_asked[d] => {
                                let blocks = step.clamp(1, TOP - rebuilt_to) as u32;
                                let id = RequestId(COPY_IDS + h.copies_asked);
                                let copy = Request::new(
                                    id,
                                    Kind::Write,
                                    Block(rebuilt_to),
                                    Blocks(blocks),
                                    Cyl(0),
                                    now,
                                );
                                match policy.resync(d, copy) {
                                    Ok(()) => {
                                        h.copies_asked += 1;
                                        h.copy_asked[d] = true;
                                    }
                                    Err(DiskStateError::NoSource { .. }) => assert!(
                                        (0..disks)
                                            .all(|e| e == d || h.state[e] != DiskState::Online),
                                        "{name}: no source for disk {d}"
                                    ),
                                    Err(e) => panic!("{name}: resync of disk {d}: {e}"),
                                }
                            }
                            _ => {}
                        }
                        assert_eq!(policy.disk_state(d), h.state[d], "{name}");
                    }
                }
                next_step += 1;
                if next_step < script.len() {
                    step_at = now + script[next_step].gap;
                }
            }
            // Drain the outputs: failure events, then starts, until both are dry.
            let view = ArrayView {
                now,
                heads: &heads,
                estimators: &est,
            };
            // (Polling may itself fail a request that can no longer be served.)
            let mut idle_polls = 0;
            while idle_polls < 2 {
                while let Some(c) = policy.poll_event() {
                    assert!(c.abort.is_empty(), "{name}: an event asks for aborts");
                    h.on_completion(c, false);
                    idle_polls = 0;
                }
                match policy.poll_start(&view).unwrap() {
                    Some(s) => {
                        let d = s.disk;
                        h.on_start(s);
                        let service = 1 + rng.next() % 40;
                        h.busy[d].as_mut().unwrap().0 = now + service;
                        idle_polls = 0;
                    }
                    None => idle_polls += 1,
                }
            }
            for d in 0..disks {
                assert_eq!(
                    policy.is_busy(d),
                    h.busy[d].is_some(),
                    "{name}: disk {d} busy?"
                );
            }
            // CMQ: only the disk that lags behind ever has writes waiting in its
            // auxiliary queue (Towsley, Chen & Yu 1991, §3.3).
            if h.one_lagging_disk
                && let AnyArray::Cmq(cmq) = &policy
            {
                assert!(cmq.lagging().len() <= 1, "{name}: two lagging disks");
            }
        }
        let open: Vec<(RequestId, Kind, DiskSet)> = h
            .records
            .iter()
            .flatten()
            .filter(|r| r.fate == Fate::Open)
            .map(|r| (r.req.id, r.req.kind, r.copies.holders()))
            .collect();
        assert_eq!(
            policy.in_system(),
            0,
            "{name}: requests left behind: {open:?} (id, kind, holders); disks {:?}; \
             common queue {}, disk queues {:?}, auxiliary queues {:?}",
            h.state,
            policy.common_len(),
            (0..disks)
                .map(|d| policy.disk_queue_len(d))
                .collect::<Vec<_>>(),
            (0..disks).map(|d| policy.aux_len(d)).collect::<Vec<_>>(),
        );
        for d in 0..disks {
            assert!(!policy.is_busy(d));
        }
        // Every request has met exactly one fate; every acknowledged write
        // settled once, every holder written once or reported skipped.
        for r in h.records.iter().flatten() {
            assert_ne!(r.fate, Fate::Open, "{name}: {} never finished", r.req.id);
            let writes: Vec<usize> = (0..disks)
                .map(|d| h.out.writes[d].iter().filter(|&&w| w == r.req.id).count())
                .collect();
            assert!(
                writes.iter().all(|&n| n <= 1),
                "{name}: {} writes {writes:?}",
                r.req.id
            );
            match (r.req.kind, r.fate) {
                (Kind::Write, Fate::Finished) => {
                    assert_eq!(r.settled, 1, "{name}: update {} never settled", r.req.id);
                    if writes_one_copy(name) {
                        assert_eq!(
                            r.written.len(),
                            1,
                            "{name}: update {} written twice",
                            r.req.id
                        );
                        assert_eq!(
                            r.written.union(r.skipped),
                            r.copies.holders(),
                            "{name}: update {}: a holder neither written nor skipped",
                            r.req.id
                        );
                    } else if r.failed_during.is_empty() {
                        assert!(r.skipped.is_empty());
                        assert_eq!(
                            r.written,
                            r.copies.holders(),
                            "{name}: update {} not written on every copy",
                            r.req.id
                        );
                    }
                }
                (Kind::Write, _) => {
                    assert_eq!(
                        r.settled, 0,
                        "{name}: {} settled when {:?}",
                        r.req.id, r.fate
                    );
                    assert!(
                        r.written.is_empty(),
                        "{name}: {:?} update {} was written",
                        r.fate,
                        r.req.id
                    );
                }
                _ => {}
            }
        }
        h.out
    }

    fn r_is_started_write(r: &Record) -> bool {
        r.req.kind == Kind::Write && !(r.started.is_empty() && r.written.is_empty())
    }

    // ---- healthy mirrors, every named policy ----

    #[derive(Clone, Debug)]
    struct Arrival {
        gap: u64,
        write: bool,
        cylinder: u32,
        other_cylinder: u32,
        cancel_after: Option<u8>,
    }

    fn arrivals() -> impl Strategy<Value = Vec<Arrival>> {
        prop::collection::vec(
            (
                0u64..30,
                prop::bool::weighted(0.3),
                0..CYLINDERS,
                0..CYLINDERS,
                prop::option::weighted(0.1, 0u8..4),
            )
                .prop_map(|(gap, write, cylinder, other_cylinder, cancel_after)| {
                    Arrival {
                        gap,
                        write,
                        cylinder,
                        other_cylinder,
                        cancel_after,
                    }
                }),
            1..120,
        )
    }

    /// A two-disk mirror: block `10·c` at cylinder `c` on disk 0, block
    /// `10·c'` at cylinder `c'` on disk 1.
    fn mirror_script(script: &[Arrival]) -> Vec<Step> {
        script
            .iter()
            .map(|a| Step {
                gap: a.gap,
                what: What::Submit {
                    kind: if a.write { Kind::Write } else { Kind::Read },
                    block: u64::from(a.cylinder) * 10,
                    blocks: 1,
                    cylinder: a.cylinder,
                    copies: Copies::new()
                        .with(
                            0,
                            Location {
                                block: u64::from(a.cylinder) * 10,
                                cylinder: a.cylinder,
                            },
                        )
                        .with(
                            1,
                            Location {
                                block: u64::from(a.other_cylinder) * 10,
                                cylinder: a.other_cylinder,
                            },
                        ),
                    cancel_after: a.cancel_after,
                },
            })
            .collect()
    }

    fn fcfs_everywhere(spec: &ArraySpec) -> bool {
        use sched_core::PolicySpec::Fcfs;
        match spec {
            ArraySpec::Dmq { queue, .. } => *queue == Fcfs,
            ArraySpec::Cmq { common, aux } => *common == Fcfs && *aux == Fcfs,
            _ => true,
        }
    }

    /// The named policies the healthy-mirror properties hold for: every
    /// one but those that write one copy by design, whose reads may use only
    /// the copies their driver knows to be current (the driver, not the
    /// policy, propagates and tracks freshness: `experiments`'
    /// `eager_array` test drives the EW-Array's).
    fn healthy_mirror_policies() -> impl Iterator<Item = (&'static str, ArraySpec)> {
        ArraySpec::named().filter(|(name, _)| !writes_one_copy(name))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn every_request_is_accounted_for_exactly_once(script in arrivals(), seed in 1u64..1000) {
            let steps = mirror_script(&script);
            for (name, spec) in healthy_mirror_policies() {
                let out = drive(name, build(&spec, CAP, 2, seed), Ack::All, &steps, seed, true);
                let mut seen = vec![0u8; script.len()];
                for id in out.finished.iter().chain(&out.cancelled).chain(&out.refused) {
                    seen[id.0 as usize] += 1;
                }
                prop_assert!(seen.iter().all(|&n| n == 1), "{name}: {seen:?}");
                prop_assert!(out.failed.is_empty(), "{name}: failures on a healthy mirror");
                for id in &out.finished {
                    prop_assert!(!out.cancelled.contains(id), "{name}: cancelled {id} completed");
                }
                // Updates: written on every disk before completing; never more than once per disk.
                for (i, a) in script.iter().enumerate() {
                    let id = RequestId(i as u64);
                    let on_disk: Vec<usize> = (0..2).map(|d| out.writes[d].iter().filter(|&&w| w == id).count()).collect();
                    if a.write && out.finished.contains(&id) {
                        prop_assert_eq!(&on_disk, &vec![1; 2], "{}: update {} writes {:?}", name, id, on_disk);
                    } else if a.write && out.cancelled.contains(&id) {
                        prop_assert_eq!(&on_disk, &vec![0; 2], "{}: cancelled update {} was written", name, id);
                    }
                }
                if fcfs_everywhere(&spec) {
                    prop_assert_eq!(&out.writes[0], &out.writes[1], "{}: FCFS disciplines write in one order", name);
                }
            }
        }

        #[test]
        fn same_inputs_same_outcome(script in arrivals(), seed in 1u64..1000) {
            let steps = mirror_script(&script);
            for (name, spec) in healthy_mirror_policies() {
                let a = drive(name, build(&spec, CAP, 2, seed), Ack::All, &steps, seed, true);
                let b = drive(name, build(&spec, CAP, 2, seed), Ack::All, &steps, seed, true);
                prop_assert_eq!(a, b);
            }
        }
    }

    // ---- random layouts, failures and rebuilds, every acknowledgement ----

    /// Logical extents, blocks per extent, and copy slots per disk.
    const EXTENTS: usize = 10;
    const EXTENT: u64 = 8;
    const SLOTS: usize = 16;
    /// The first block beyond every copy: a disk rebuilt this far is whole.
    const TOP: u64 = SLOTS as u64 * EXTENT;

    /// Where each extent's copies are: a random set of 1 ..= min(D, 8)
    /// holders, each at a random slot of its disk (no two extents share a
    /// slot), at a cylinder rising with the slot.
    fn layout(disks: usize, seed: u64) -> Vec<Copies> {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let shuffled = |n: usize, rng: &mut Rng| {
            let mut v: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                v.swap(i, rng.below(i + 1));
            }
            v
        };
        let slots: Vec<Vec<usize>> = (0..disks).map(|_| shuffled(SLOTS, &mut rng)).collect();
        let band = CYLINDERS / SLOTS as u32;
        (0..EXTENTS)
            .map(|e| {
                let k = 1 + rng.below(disks.min(8));
                let holders = shuffled(disks, &mut rng);
                holders[..k].iter().fold(Copies::new(), |c, &d| {
                    let slot = slots[d][e];
                    c.with(
                        d,
                        Location {
                            block: slot as u64 * EXTENT,
                            cylinder: slot as u32 * band + rng.below(band as usize) as u32,
                        },
                    )
                })
            })
            .collect()
    }

    #[derive(Clone, Debug)]
    enum Event {
        Arrival {
            gap: u64,
            write: bool,
            extent: usize,
            offset: u64,
            blocks: u64,
            cancel_after: Option<u8>,
        },
        Disk {
            gap: u64,
            disk: usize,
            fail: bool,
            step: u64,
        },
    }

    fn events() -> impl Strategy<Value = Vec<Event>> {
        let arrival = (
            0u64..30,
            prop::bool::weighted(0.35),
            0..EXTENTS,
            0..EXTENT,
            1..=EXTENT,
            prop::option::weighted(0.1, 0u8..4),
        )
            .prop_map(|(gap, write, extent, offset, blocks, cancel_after)| {
                Event::Arrival {
                    gap,
                    write,
                    extent,
                    offset,
                    blocks: blocks.min(EXTENT - offset),
                    cancel_after,
                }
            });
        let disk = (
            0u64..30,
            any::<usize>(),
            prop::bool::weighted(0.4),
            0..TOP / 2,
        )
            .prop_map(|(gap, disk, fail, step)| Event::Disk {
                gap,
                disk,
                fail,
                step,
            });
        prop::collection::vec(prop_oneof![10 => arrival, 2 => disk], 1..100)
    }

    fn layout_script(events: &[Event], layout: &[Copies]) -> Vec<Step> {
        events
            .iter()
            .map(|e| match *e {
                Event::Arrival {
                    gap,
                    write,
                    extent,
                    offset,
                    blocks,
                    cancel_after,
                } => {
                    let base = &layout[extent];
                    let copies = base.holders().iter().fold(Copies::new(), |c, d| {
                        let at = base.location(d).unwrap();
                        c.with(
                            d,
                            Location {
                                block: at.block + offset,
                                cylinder: at.cylinder,
                            },
                        )
                    });
                    Step {
                        gap,
                        what: What::Submit {
                            kind: if write { Kind::Write } else { Kind::Read },
                            block: extent as u64 * EXTENT + offset,
                            blocks: blocks as u32,
                            cylinder: copies.locations()[0].cylinder,
                            copies,
                            cancel_after,
                        },
                    }
                }
                Event::Disk {
                    gap,
                    disk,
                    fail,
                    step,
                } => Step {
                    gap,
                    what: What::Disk { disk, fail, step },
                },
            })
            .collect()
    }

    /// The policies run on random layouts: the DMQ routings, the CMQ
    /// compositions and the single-queue family.
    const LAYOUT_SPECS: [&str; 17] = [
        "dmq-sq",
        "dmq-rd",
        "mr-dmq",
        "mr-dmqa",
        "md-raid1",
        "linux-raid1",
        "ivy-dmq",
        "rt-dmq-mr",
        "cmq",
        "cmq-sstf",
        "rt-cmq-f",
        "rt-cmq-w",
        "s-pssq",
        "c-pssq",
        "cr-esq",
        "cru-esq",
        "mr-esq",
    ];

    fn ack() -> impl Strategy<Value = Ack> {
        prop_oneof![Just(Ack::All), Just(Ack::First), Just(Ack::Quorum(2))]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn random_copies_failures_and_rebuilds(
            events in events(),
            layout_seed in any::<u64>(),
            seed in 1u64..1000,
            ack in ack(),
        ) {
            for disks in [2, 3, 8] {
                let layout = layout(disks, layout_seed);
                let steps = layout_script(&events, &layout);
                for name in LAYOUT_SPECS {
                    let spec: ArraySpec = name.parse().unwrap();
                    let policy = build(&spec, CAP, disks, seed).with_ack(ack).unwrap();
                    let name = format!("{name} D={disks} {ack:?}");
                    let out = drive(&name, policy, ack, &steps, seed, false);
                    let mut seen = vec![0u8; steps.len()];
                    for id in out.finished.iter().chain(&out.cancelled).chain(&out.refused).chain(&out.failed) {
                        seen[id.0 as usize] += 1;
                    }
                    for (i, e) in events.iter().enumerate() {
                        let expected = u8::from(matches!(e, Event::Arrival { .. }));
                        prop_assert_eq!(seen[i], expected, "{}: request {} met {} fates", name, i, seen[i]);
                    }
                }
            }
        }
    }

    /// With first-copy acknowledgement a write is done when one disk wrote
    /// it; the other copy is still written, a read arriving meanwhile goes
    /// to the up-to-date disk, and the write settles when both are written.
    #[test]
    fn first_copy_acknowledgement_still_writes_every_copy() {
        for name in ["dmq-sq", "cmq", "cru-esq", "ivy-dmq"] {
            let spec: ArraySpec = name.parse().unwrap();
            let mut policy = build(&spec, 8, 2, 1).with_ack(Ack::First).unwrap();
            let heads = [Head::at(0), Head::at(0)];
            let est: [&dyn ServiceEstimator; 2] = [&ArmEstimator, &ArmEstimator];
            let view = ArrayView {
                now: 0,
                heads: &heads,
                estimators: &est,
            };
            let copies = shifted_mirror();
            let write = Request::new(RequestId(1), Kind::Write, Block(800), Blocks(8), Cyl(10), 0);
            policy.submit(write, &copies, &view).unwrap();
            let a = policy.poll_start(&view).unwrap().unwrap();
            let b = policy.poll_start(&view).unwrap().unwrap();
            assert_eq!((a.disk, b.disk), (0, 1), "{name}");
            let first = policy.complete(1, 5).unwrap();
            assert_eq!(first.finished.map(|r| r.id), Some(RequestId(1)), "{name}");
            assert_eq!(first.settled, None, "{name}");
            // Disk 0 has not written it yet: a read of the block goes to disk 1.
            let read = Request::new(RequestId(2), Kind::Read, Block(800), Blocks(8), Cyl(10), 6);
            policy.submit(read, &copies, &view).unwrap();
            let r = policy.poll_start(&view).unwrap().unwrap();
            assert_eq!(
                r.disk, 1,
                "{name}: read routed to the copy missing the write"
            );
            assert_eq!(r.dispatch.request.block, 4_000, "{name}");
            let second = policy.complete(0, 9).unwrap();
            assert_eq!(second.finished, None, "{name}");
            assert_eq!(second.settled.map(|r| r.id), Some(RequestId(1)), "{name}");
            assert!(second.skipped.is_empty(), "{name}");
            let done = policy.complete(1, 10).unwrap();
            assert_eq!(done.finished.map(|r| r.id), Some(RequestId(2)), "{name}");
            assert_eq!(policy.in_system(), 0, "{name}");
        }
    }

    /// The write-order scenario, under first-copy acknowledgement on two
    /// disks whose arms rest at cylinders 0 and 150: write 0 (cylinder 150)
    /// keeps disk 1 busy while disk 0 acknowledges write 1 (blocks 100..108,
    /// cylinder 100) and then write 2 (`third_block`.., cylinder 104).
    /// Returns the order in which disk 1 then writes its copies of 1 and 2.
    fn lagging_copies_order(name: &str, third_block: u64) -> [u64; 2] {
        let spec: ArraySpec = name.parse().unwrap();
        let mut policy = build(&spec, 8, 2, 1).with_ack(Ack::First).unwrap();
        let est: [&dyn ServiceEstimator; 2] = [&ArmEstimator, &ArmEstimator];
        let heads = [Head::at(0), Head::at(150)];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let mirror = |block: u64, cylinder: u32| {
            let at = Location { block, cylinder };
            Copies::new().with(0, at).with(1, at)
        };
        let write = |id: u64, block: u64, cylinder: u32| {
            Request::new(
                RequestId(id),
                Kind::Write,
                Block(block),
                Blocks(8),
                Cyl(cylinder),
                id,
            )
        };
        let start_all = |policy: &mut AnyArray<Heap>| {
            let mut started = Vec::new();
            while let Some(s) = policy.poll_start(&view).unwrap() {
                started.push((s.disk, s.dispatch.request.id.0));
            }
            started
        };
        policy
            .submit(write(0, 5_000, 150), &mirror(5_000, 150), &view)
            .unwrap();
        assert_eq!(start_all(&mut policy), [(0, 0), (1, 0)], "{name}");
        let _ = policy.complete(0, 1).unwrap();
        policy
            .submit(write(1, 100, 100), &mirror(100, 100), &view)
            .unwrap();
        assert_eq!(start_all(&mut policy), [(0, 1)], "{name}");
        let acked = policy.complete(0, 2).unwrap();
        assert_eq!(acked.finished.map(|r| r.id), Some(RequestId(1)), "{name}");
        policy
            .submit(write(2, third_block, 104), &mirror(third_block, 104), &view)
            .unwrap();
        assert_eq!(start_all(&mut policy), [(0, 2)], "{name}");
        let _ = policy.complete(0, 3).unwrap();
        let _ = policy.complete(1, 4).unwrap();
        let mut order = [0; 2];
        for (slot, done_at) in order.iter_mut().zip([5, 6]) {
            let started = start_all(&mut policy);
            assert!(matches!(started[..], [(1, _)]), "{name}: {started:?}");
            *slot = started[0].1;
            let _ = policy.complete(1, done_at).unwrap();
        }
        assert_eq!(policy.in_system(), 0, "{name}");
        order
    }

    /// With first-copy acknowledgement a write may be overwritten while its
    /// copy still waits at a busy disk. That disk writes the earlier write
    /// first although its discipline (SSTF, the arm at cylinder 150) would
    /// pick the later one at cylinder 104 over the earlier at 100; otherwise
    /// the disk would end with the older data.
    #[test]
    fn a_lagging_copy_is_written_before_a_later_overlapping_write() {
        for name in ["dmq-sq", "dmq", "cmq-sstf", "rt-cmq-s"] {
            // Write 2 overwrites blocks 104..108 of write 1.
            assert_eq!(
                lagging_copies_order(name, 104),
                [1, 2],
                "{name}: write 2 overtook write 1"
            );
        }
    }

    /// Two writes that do not overlap keep the discipline's order.
    #[test]
    fn writes_that_do_not_overlap_keep_the_disciplines_order() {
        for name in ["dmq-sq", "cmq-sstf"] {
            assert_eq!(
                lagging_copies_order(name, 108),
                [2, 1],
                "{name}: SSTF's choice"
            );
        }
    }

    /// Ivy's least expected turnaround: a read goes where the queued work plus
    /// its own service there is least, not to the shorter queue. Disk 0 holds
    /// two short reads (15 units of expected work each), disk 1 one long read
    /// of 200 blocks (207): the new read goes to disk 0, though its queue is
    /// longer; SQ-DMQ would send it to disk 1.
    #[test]
    fn ivy_routes_reads_by_expected_turnaround() {
        let heads = [Head::at(0), Head::at(0)];
        let est: [&dyn ServiceEstimator; 2] = [&ArmEstimator, &ArmEstimator];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let at = |d: usize, c: u32| {
            Copies::new().with(
                d,
                Location {
                    block: u64::from(c) * 10,
                    cylinder: c,
                },
            )
        };
        let both = |c: u32| {
            let l = Location {
                block: u64::from(c) * 10,
                cylinder: c,
            };
            Copies::everywhere(2, l)
        };
        let expected_turnaround = |spec: &str| {
            let mut policy = build(&spec.parse().unwrap(), 8, 2, 1);
            for (id, (d, blocks)) in [(0, 8), (0, 8), (1, 200)].into_iter().enumerate() {
                let r = Request::new(
                    RequestId(id as u64),
                    Kind::Read,
                    Block(0),
                    Blocks(blocks),
                    Cyl(50),
                    0,
                );
                policy.submit(r, &at(d, 50), &view).unwrap();
            }
            let read = Request::new(RequestId(9), Kind::Read, Block(0), Blocks(8), Cyl(100), 0);
            policy.submit(read, &both(100), &view).unwrap();
            (policy.disk_queue_len(0), policy.disk_queue_len(1))
        };
        assert_eq!(expected_turnaround("ivy-dmq"), (3, 1));
        assert_eq!(expected_turnaround("sq-dmq"), (2, 2));
    }

    /// Queues, built by hand: reads of single-copy blocks at `cylinders`
    /// on disk `disk` (ids from `first`), none started.
    fn queue_reads(
        policy: &mut AnyArray<Heap>,
        view: &ArrayView<'_>,
        disk: usize,
        first: u64,
        cylinders: &[u32],
    ) {
        for (k, &c) in cylinders.iter().enumerate() {
            let at = Location {
                block: u64::from(c) * 10,
                cylinder: c,
            };
            let r = Request::new(
                RequestId(first + k as u64),
                Kind::Read,
                Block(at.block),
                Blocks(8),
                Cyl(c),
                0,
            );
            policy
                .submit(r, &Copies::new().with(disk, at), view)
                .unwrap();
        }
    }

    /// Under C-LOOK a read just above the arm is served before the queued
    /// reads below it (they wait for the next sweep): Ivy's rule, told the
    /// discipline's order, sends it to the disk with the longer queue but
    /// nothing ahead of it; counting every queued read (`reorder=false`,
    /// Lo's FIFO reading) sends it to the other disk.
    #[test]
    fn ivy_counts_only_the_work_c_look_serves_first() {
        let heads = [Head::at(100), Head::at(100)];
        let est: [&dyn ServiceEstimator; 2] = [&ArmEstimator, &ArmEstimator];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let chosen = |spec: &str| {
            let mut policy = build(&spec.parse().unwrap(), 16, 2, 1);
            queue_reads(&mut policy, &view, 0, 0, &[50, 50, 50, 50]);
            queue_reads(&mut policy, &view, 1, 10, &[110, 110]);
            let at = Location {
                block: 1_200,
                cylinder: 120,
            };
            let read = Request::new(
                RequestId(99),
                Kind::Read,
                Block(1_200),
                Blocks(8),
                Cyl(120),
                0,
            );
            policy
                .submit(read, &Copies::everywhere(2, at), &view)
                .unwrap();
            (policy.disk_queue_len(0), policy.disk_queue_len(1))
        };
        assert_eq!(chosen("ivy-dmq:queue=c-look"), (5, 2));
        assert_eq!(chosen("ivy-dmq:queue=c-look,reorder=false"), (4, 3));
        // Under FCFS every queued read comes first either way.
        assert_eq!(chosen("ivy-dmq:queue=fcfs"), (4, 3));
    }

    /// Linux's mirror, `linux-raid1`, is md's read balancing over
    /// mq-deadline queues: a write joins every live mirror's queue, and each
    /// disk's queue serves reads before writes as mq-deadline does.
    #[test]
    fn linux_raid1_is_md_over_mq_deadline() {
        let spec: ArraySpec = "linux-raid1".parse().unwrap();
        assert_eq!(spec, "md-raid1:queue=mq-deadline".parse().unwrap());
        assert!(spec.to_string().contains("mq-deadline"), "{spec}");
        let heads = [Head::at(0), Head::at(0)];
        let est: [&dyn ServiceEstimator; 2] = [&ArmEstimator, &ArmEstimator];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let mut policy = build(&spec, 16, 2, 1);
        let at = |block: u64| Location {
            block,
            cylinder: (block / 100) as u32,
        };
        let write = Request::new(RequestId(1), Kind::Write, Block(100), Blocks(8), Cyl(1), 0);
        policy
            .submit(write, &Copies::everywhere(2, at(100)), &view)
            .unwrap();
        assert_eq!((policy.disk_queue_len(0), policy.disk_queue_len(1)), (1, 1));
        // A read arriving later on disk 0 alone goes first there.
        let read = Request::new(
            RequestId(2),
            Kind::Read,
            Block(9_000),
            Blocks(8),
            Cyl(90),
            0,
        );
        policy
            .submit(read, &Copies::new().with(0, at(9_000)), &view)
            .unwrap();
        let first = policy.poll_start(&view).unwrap().unwrap();
        assert_eq!((first.disk, first.dispatch.request.id), (0, RequestId(2)));
    }

    /// Linux md on rotating disks: a read continuing a disk's last operation
    /// stays there; with every disk busy, the nearest head position wins
    /// even over a longer queue; `rotational=false` (md's rule when some
    /// member is an SSD) takes the fewest pending operations.
    #[test]
    fn md_reads_at_the_nearest_head_on_rotating_disks() {
        let heads = [Head::at(0), Head::at(0)];
        let est: [&dyn ServiceEstimator; 2] = [&ArmEstimator, &ArmEstimator];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let both = |block: u64| {
            Copies::everywhere(
                2,
                Location {
                    block,
                    cylinder: (block / 100) as u32,
                },
            )
        };
        let chosen = |spec: &str, block: u64| {
            let mut policy = build(&spec.parse().unwrap(), 16, 2, 1);
            // Disk 0 busy ending at block 1000; disk 1 busy ending at 5000,
            // with one more read queued.
            for (id, (d, b)) in [(0, 992), (1, 4_992), (1, 7_000)].into_iter().enumerate() {
                let at = Location {
                    block: b,
                    cylinder: (b / 100) as u32,
                };
                let r = Request::new(
                    RequestId(id as u64),
                    Kind::Read,
                    Block(b),
                    Blocks(8),
                    Cyl(at.cylinder),
                    0,
                );
                policy.submit(r, &Copies::new().with(d, at), &view).unwrap();
                if id < 2 {
                    policy.poll_start(&view).unwrap().unwrap();
                }
            }
            let read = Request::new(
                RequestId(9),
                Kind::Read,
                Block(block),
                Blocks(8),
                Cyl((block / 100) as u32),
                0,
            );
            policy.submit(read, &both(block), &view).unwrap();
            (policy.disk_queue_len(0), policy.disk_queue_len(1))
        };
        assert_eq!(chosen("md-raid1", 4_800), (0, 2));
        assert_eq!(chosen("linux-raid1", 4_800), (0, 2), "Linux's mirror");
        assert_eq!(chosen("md-raid1:rotational=false", 4_800), (1, 1));
        assert_eq!(chosen("md-raid1", 1_000), (1, 1), "sequential on disk 0");
        assert_eq!(
            chosen("md-raid1:rotational=false", 5_000),
            (0, 2),
            "sequential on disk 1"
        );
    }

    /// Random routing over 4 disks when only disks 1–3 hold the block: each
    /// of them gets about a third of the reads (not the cyclic successor of
    /// disk 0 half of them).
    #[test]
    fn random_routing_draws_among_the_holders() {
        let heads = [Head::at(0); 4];
        let est: [&dyn ServiceEstimator; 4] = [&NullEstimator; 4];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let mut policy = build(&"r-dmq:alpha=0.25".parse().unwrap(), 4_096, 4, 7);
        let at = Location {
            block: 0,
            cylinder: 0,
        };
        let holders = Copies::new().with(1, at).with(2, at).with(3, at);
        for id in 0..3_000 {
            let r = Request::new(RequestId(id), Kind::Read, Block(0), Blocks(8), Cyl(0), 0);
            policy.submit(r, &holders, &view).unwrap();
        }
        assert_eq!(policy.disk_queue_len(0), 0);
        for d in 1..4 {
            let n = policy.disk_queue_len(d);
            assert!((850..1_150).contains(&n), "disk {d}: {n} of 3000 reads");
        }
    }

    /// A disk failing under a write: the write settles without it, reports
    /// it skipped (through `poll_event`), and a read of the block avoids the
    /// replacement until it is rebuilt past the copy.
    #[test]
    fn a_failed_copy_is_skipped_and_not_read_until_rebuilt() {
        for name in ["dmq-sq", "mr-dmq", "cmq", "c-pssq", "ivy-dmq"] {
            let spec: ArraySpec = name.parse().unwrap();
            let mut policy = build(&spec, 8, 2, 1).with_ack(Ack::First).unwrap();
            let heads = [Head::at(0), Head::at(0)];
            let est: [&dyn ServiceEstimator; 2] = [&ArmEstimator, &ArmEstimator];
            let view = ArrayView {
                now: 0,
                heads: &heads,
                estimators: &est,
            };
            let copies = shifted_mirror();
            let write = Request::new(RequestId(1), Kind::Write, Block(800), Blocks(8), Cyl(10), 0);
            policy.submit(write, &copies, &view).unwrap();
            assert_eq!(policy.poll_start(&view).unwrap().map(|s| s.disk), Some(0));
            assert_eq!(policy.poll_start(&view).unwrap().map(|s| s.disk), Some(1));
            let c = policy.complete(0, 3).unwrap();
            assert_eq!(c.finished.map(|r| r.id), Some(RequestId(1)), "{name}");
            policy.fail_disk(1, &view).unwrap();
            assert!(!policy.is_busy(1), "{name}");
            let e = policy
                .poll_event()
                .expect("the write settles without disk 1");
            assert_eq!(e.settled.map(|r| r.id), Some(RequestId(1)), "{name}");
            assert_eq!(e.skipped, DiskSet::only(1), "{name}");
            assert_eq!(policy.poll_event(), None, "{name}");
            // The replacement, rebuilt from block 4000 (the copy is at
            // 4000..4008 on disk 1) in two ranges of four blocks.
            let rebuild = Rebuild {
                current_to: 4_000,
                end: 8_000,
            };
            policy.replace_disk(1, rebuild).unwrap();
            for (n, block) in [4_000u64, 4_004].into_iter().enumerate() {
                let copy = Request::new(
                    RequestId(10 + n as u64),
                    Kind::Write,
                    Block(block),
                    Blocks(4),
                    Cyl(150),
                    4,
                );
                policy.resync(1, copy).unwrap();
                let s = policy.poll_start(&view).unwrap().expect("the copy starts");
                assert_eq!(
                    (s.disk, s.copy_from, s.dispatch.request),
                    (1, Some(0), copy)
                );
                if n == 1 {
                    break;
                }
                assert_eq!(policy.complete(1, 5).unwrap().resynced, Some(copy));
            }
            assert_eq!(
                policy.disk_state(1),
                DiskState::Rebuilding { rebuilt_to: 4_004 },
                "{name}"
            );
            policy.fail_disk(0, &view).unwrap();
            let read = Request::new(RequestId(2), Kind::Read, Block(800), Blocks(8), Cyl(10), 4);
            assert_eq!(
                policy.submit(read, &copies, &view),
                Err(EnqueueError::NoEligibleDisk(RequestId(2))),
                "{name}"
            );
            // The copy started before disk 0 failed: it read its source.
            assert!(policy.complete(1, 5).unwrap().resynced.is_some(), "{name}");
            policy.submit(read, &copies, &view).unwrap();
            let s = policy.poll_start(&view).unwrap().unwrap();
            assert_eq!((s.disk, s.dispatch.request.block), (1, 4_000), "{name}");
            let done = policy.complete(1, 6).unwrap();
            assert_eq!(done.finished.map(|r| r.id), Some(RequestId(2)), "{name}");
        }
    }

    /// A write waiting in a common queue when one of its copies' disks
    /// fails must skip that disk (and report it skipped when it settles),
    /// never start there or wait for it.
    #[test]
    fn a_waiting_write_skips_a_disk_that_failed_meanwhile() {
        for (name, spec) in ArraySpec::named() {
            let mut policy = build(&spec, 8, 2, 1);
            let heads = [Head::at(0); 2];
            let est: [&dyn ServiceEstimator; 2] = [&NullEstimator; 2];
            let view = ArrayView {
                now: 0,
                heads: &heads,
                estimators: &est,
            };
            let copies = shifted_mirror();
            // Two reads keep the disks busy; a write arrives behind them.
            let mut started = Vec::new();
            for (id, kind) in [(1, Kind::Read), (3, Kind::Read), (2, Kind::Write)] {
                let r = Request::new(RequestId(id), kind, Block(800), Blocks(8), Cyl(10), 0);
                policy.submit(r, &copies, &view).unwrap();
                while let Some(s) = policy.poll_start(&view).unwrap() {
                    started.push(s);
                }
            }
            let write_on = |d: usize, started: &[Start]| {
                started
                    .iter()
                    .any(|s| s.disk == d && s.dispatch.request.id == RequestId(2))
            };
            let Some(failing) = [1, 0].into_iter().find(|&d| !write_on(d, &started)) else {
                continue; // the write started everywhere: not this case
            };
            policy.fail_disk(failing, &view).unwrap();
            let mut settled = None;
            let mut check = |c: sched_core::array::Completion| {
                if let Some(w) = c.settled {
                    assert_eq!(c.skipped, DiskSet::only(failing), "{name}: skipped");
                    settled = Some(w.id);
                }
            };
            while let Some(e) = policy.poll_event() {
                check(e);
            }
            let mut busy: Vec<usize> = started
                .iter()
                .map(|s| s.disk)
                .filter(|&d| d != failing)
                .collect();
            let mut now = 1;
            while let Some(d) = busy.pop() {
                let c = policy.complete(d, now).unwrap();
                busy.retain(|b| !c.abort.contains(*b));
                check(c);
                while let Some(e) = policy.poll_event() {
                    check(e);
                }
                while let Some(s) = policy.poll_start(&view).unwrap() {
                    assert_ne!(
                        s.disk, failing,
                        "{name}: started {} on the failed disk",
                        s.dispatch.request.id
                    );
                    busy.push(s.disk);
                }
                now += 1;
            }
            assert_eq!(
                settled,
                Some(RequestId(2)),
                "{name}: the write never settled"
            );
            assert_eq!(policy.in_system(), 0, "{name}");
        }
    }

    #[test]
    fn a_shifted_mirror_is_served_at_each_disk_own_block_by_every_named_policy() {
        for (name, spec) in ArraySpec::named() {
            let mut policy = build(&spec, 8, 2, 1);
            assert_own_blocks(name, &serve_shifted_mirror(&mut policy));
        }
    }

    #[test]
    fn a_full_array_refuses_and_loses_nothing() {
        for (name, spec) in ArraySpec::named() {
            let mut policy = build(&spec, 4, 2, 1);
            let heads = [Head::at(0); 2];
            let est: [&dyn ServiceEstimator; 2] = [&NullEstimator; 2];
            let view = ArrayView {
                now: 0,
                heads: &heads,
                estimators: &est,
            };
            let at = |c: u32| {
                Copies::everywhere(
                    2,
                    Location {
                        block: u64::from(c),
                        cylinder: c,
                    },
                )
            };
            for i in 0..4u64 {
                let r = Request::new(
                    RequestId(i),
                    Kind::Write,
                    Block(i),
                    Blocks(1),
                    Cyl(i as u32),
                    0,
                );
                policy.submit(r, &at(i as u32), &view).unwrap();
            }
            let extra = Request::new(RequestId(9), Kind::Read, Block(9), Blocks(1), Cyl(9), 0);
            assert_eq!(
                policy.submit(extra, &at(9), &view),
                Err(EnqueueError::QueueFull { capacity: 4 }),
                "{name}"
            );
            assert_eq!(policy.in_system(), 4, "{name}");
            let dup = Request::new(RequestId(2), Kind::Read, Block(2), Blocks(1), Cyl(2), 0);
            assert!(
                matches!(
                    policy.submit(dup, &at(2), &view),
                    Err(EnqueueError::QueueFull { .. } | EnqueueError::DuplicateId(_))
                ),
                "{name}"
            );
            assert_eq!(
                policy.complete(0, 0),
                Err(sched_core::CompleteError::IdleDisk { disk: 0 }),
                "{name}"
            );
            assert_eq!(
                policy.complete(2, 0),
                Err(sched_core::CompleteError::NoSuchDisk { disk: 2, disks: 2 }),
                "{name}"
            );
        }
    }

    #[test]
    fn mr_esq_aborts_the_slower_copy() {
        let spec: ArraySpec = "mr-esq".parse().unwrap();
        let mut policy = build(&spec, 4, 2, 1);
        let heads = [Head::at(0); 2];
        let est: [&dyn ServiceEstimator; 2] = [&NullEstimator; 2];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let copies = Copies::new()
            .with(
                0,
                Location {
                    block: 50,
                    cylinder: 5,
                },
            )
            .with(
                1,
                Location {
                    block: 70,
                    cylinder: 7,
                },
            );
        policy
            .submit(
                Request::new(RequestId(1), Kind::Read, Block(50), Blocks(1), Cyl(5), 0),
                &copies,
                &view,
            )
            .unwrap();
        let a = policy.poll_start(&view).unwrap().unwrap();
        let b = policy.poll_start(&view).unwrap().unwrap();
        assert_eq!((a.disk, b.disk), (0, 1));
        assert_eq!(
            (a.dispatch.request.cylinder, b.dispatch.request.cylinder),
            (5, 7)
        );
        assert_eq!(
            (a.dispatch.request.block, b.dispatch.request.block),
            (50, 70)
        );
        let c = policy.complete(1, 10).unwrap();
        assert_eq!(c.finished.map(|r| r.id), Some(RequestId(1)));
        assert_eq!(c.abort, DiskSet::only(0));
        assert!(!policy.is_busy(0) && !policy.is_busy(1));
    }

    #[test]
    fn cmq_sends_the_lagging_write_to_the_auxiliary_queue() {
        let spec: ArraySpec = "cmq".parse().unwrap();
        let mut policy = build(&spec, 8, 2, 1);
        let heads = [Head::at(0); 2];
        let est: [&dyn ServiceEstimator; 2] = [&NullEstimator; 2];
        let view = |now| ArrayView {
            now,
            heads: &heads,
            estimators: &est,
        };
        let at = |c: u32| {
            Copies::everywhere(
                2,
                Location {
                    block: 0,
                    cylinder: c,
                },
            )
        };
        // A read occupies disk 0; an update then starts on disk 1 and its write for
        // disk 0 waits in disk 0's auxiliary queue.
        policy
            .submit(
                Request::new(RequestId(1), Kind::Read, Block(0), Blocks(1), Cyl(5), 0),
                &at(5),
                &view(0),
            )
            .unwrap();
        assert_eq!(
            policy.poll_start(&view(0)).unwrap().map(|s| s.disk),
            Some(0)
        );
        policy
            .submit(
                Request::new(RequestId(2), Kind::Write, Block(0), Blocks(1), Cyl(6), 1),
                &at(6),
                &view(1),
            )
            .unwrap();
        assert_eq!(
            policy.poll_start(&view(1)).unwrap().map(|s| s.disk),
            Some(1)
        );
        assert_eq!(policy.poll_start(&view(1)).unwrap(), None);
        assert_eq!((policy.aux_len(0), policy.aux_len(1)), (1, 0));
        assert_eq!(policy.complete(1, 5).unwrap().finished, None);
        assert_eq!(
            policy.complete(0, 6).unwrap().finished.map(|r| r.id),
            Some(RequestId(1))
        );
        let s = policy.poll_start(&view(6)).unwrap().unwrap();
        assert_eq!((s.disk, s.dispatch.request.id), (0, RequestId(2)));
        assert_eq!(
            policy.complete(0, 9).unwrap().finished.map(|r| r.id),
            Some(RequestId(2))
        );
    }
}
