//! The consistency oracle: every named array policy, driven with random
//! overlapping reads and writes of random sizes under a random
//! acknowledgement rule, with cancels, disk failures, replacements and
//! resync copies at random moments, over disks modelled as block → version
//! stores. Every completed read is checked against a reference model of
//! acknowledged writes (it may return the newest write acknowledged before
//! it was submitted, or a later one, never an older one: no stale read), and
//! once everything has settled and every rebuild that can finish has, every
//! online disk holds the newest acknowledged version of every block (no
//! acknowledged write lost).
//!
//! Each case drives every named policy ([`ArraySpec::named`]) through the
//! same script; `SPINDLE_CONSISTENCY_CASES` sets the number of cases (380 by
//! default: 27 named policies, over 10,000 policy runs).
//!
//! The policies that write one copy (the EW-Array's stripe group) leave the
//! other holders to their driver, which propagates them and reads only
//! copies it knows current; the oracle's driver does that, and checks those
//! policies' reads the same way.
//!
//! The reference model is `tests/support/acknowledged.rs`, shared with the
//! experiments crate's oracles over its replication layer and
//! eager-writing groups.
//!
//! With feature `unordered-writes-for-tests` or `unbarriered-resync-for-tests`
//! (each turns off one of the array's mechanisms, and is for this test
//! alone), the property test is replaced by one showing that the oracle
//! then finds stale reads or lost writes.
#![cfg(feature = "alloc")]

#[path = "support/acknowledged.rs"]
mod acknowledged;

use acknowledged::{Acknowledged, BLANK};
use proptest::prelude::*;
use proptest::test_runner::Config;
use sched_core::array::{
    Ack, AnyArray, ArrayPolicy, ArraySpec, ArrayView, Completion, Copies, DiskSet, DiskState,
    Location, Rebuild, Start,
};
use sched_core::{
    Block, Blocks, Cyl, DiskStateError, Head, Heap, Kind, Nanos, Request, RequestId,
    ServiceEstimator,
};

/// Logical blocks, the most a disk's copy is shifted by, and so the blocks
/// each disk has (and a rebuild copies).
const LOGICAL: u64 = 24;
const MAX_SHIFT: u64 = 8;
const DISK_BLOCKS: u64 = LOGICAL + MAX_SHIFT;
/// Ids of the driver's resync copies.
const COPY_IDS: u64 = 1 << 40;
/// The propagation class of the EW-Array (its default).
const PROPAGATION: u16 = 1;

/// Service: one unit per 4 cylinders of seek, one per block, one of overhead.
struct Arm;

impl ServiceEstimator for Arm {
    fn positioning_time(&self, head: Head, req: &Request, _now: Nanos) -> Nanos {
        u64::from(head.cylinder.abs_diff(req.cylinder)) / 4
    }
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        self.positioning_time(head, req, now) + 1 + u64::from(req.blocks)
    }
    fn expected_service_time(&self, req: &Request) -> Nanos {
        4 + u64::from(req.blocks)
    }
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Submit { write: bool, block: u8, blocks: u8 },
    Cancel { back: u8 },
    Fail { disk: u8 },
    Replace { disk: u8 },
    Copy { disk: u8, blocks: u8 },
}

#[derive(Clone, Debug)]
struct Script {
    disks: usize,
    shifts: Vec<u64>,
    ack: Ack,
    seed: u64,
    events: Vec<(u8, Event)>,
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        8 => (any::<bool>(), 0u8..LOGICAL as u8, 0u8..6)
            .prop_map(|(write, block, blocks)| Event::Submit { write, block, blocks }),
        1 => any::<u8>().prop_map(|back| Event::Cancel { back }),
        1 => any::<u8>().prop_map(|disk| Event::Fail { disk }),
        1 => any::<u8>().prop_map(|disk| Event::Replace { disk }),
        3 => (any::<u8>(), 1u8..12).prop_map(|(disk, blocks)| Event::Copy { disk, blocks }),
    ]
}

fn script() -> impl Strategy<Value = Script> {
    (2usize..=4)
        .prop_flat_map(|disks| {
            (
                Just(disks),
                proptest::collection::vec(prop_oneof![Just(0u64), 0..=MAX_SHIFT], disks),
                prop_oneof![
                    Just(Ack::All),
                    Just(Ack::First),
                    (1u8..=3).prop_map(Ack::Quorum)
                ],
                any::<u64>(),
                proptest::collection::vec((0u8..12, event()), 20..80),
            )
        })
        .prop_map(|(disks, shifts, ack, seed, events)| Script {
            disks,
            shifts,
            ack,
            seed,
            events,
        })
}

/// The named policies that write one copy and leave the others to their driver.
fn writes_one_copy(name: &str) -> bool {
    name == "ew-array"
}

/// What became of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Open,
    Finished,
    /// Withdrawn or refused.
    Gone,
    /// Failed: every disk it was sent to failed first.
    Failed,
}

struct Record {
    req: Request,
    holders: DiskSet,
    /// A write's version of each of its blocks (its id for the driver's
    /// writes, the versions it carries for a propagation).
    data: Vec<u64>,
    /// The input it was submitted at.
    submitted: u64,
    fate: Fate,
}

/// A disk's operation in service: when it ends, what it is, and for a
/// resync copy the data it read from its source when it started.
struct Busy {
    until: u64,
    start: Start,
    copied: Vec<u64>,
}

struct Oracle<'a> {
    name: &'a str,
    script: &'a Script,
    policy: AnyArray<Heap>,
    /// Each disk's blocks: the version each holds.
    blocks: Vec<Vec<u64>>,
    state: Vec<DiskState>,
    busy: Vec<Option<Busy>>,
    heads: Vec<Head>,
    records: Vec<Record>,
    /// The driver's writes (not its propagations), and when each was
    /// acknowledged.
    reference: Acknowledged,
    copy_asked: Vec<bool>,
    copies_asked: u64,
    rng: u64,
    now: u64,
    /// Driver of a policy writing one copy: the version each disk is known
    /// to hold (`None`: unknown, a replacement not copied yet).
    known: Vec<Vec<Option<u64>>>,
    reads_checked: u64,
}

impl Oracle<'_> {
    fn one_copy(&self) -> bool {
        writes_one_copy(self.name)
    }

    fn physical(&self, d: usize, logical: u64) -> u64 {
        logical + self.script.shifts[d]
    }

    fn copies(&self, block: u64, disks: DiskSet) -> Copies {
        disks.iter().fold(Copies::new(), |c, d| {
            let b = self.physical(d, block);
            c.with(
                d,
                Location {
                    block: b,
                    cylinder: b as u32 * 4,
                },
            )
        })
    }

    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Whether `id` is one of the driver's writes (not a propagation): a
    /// version of its own in the reference model.
    fn user_write(&self, id: RequestId) -> bool {
        self.records
            .iter()
            .any(|r| r.req.id == id && r.req.kind == Kind::Write && r.req.class != PROPAGATION)
    }

    fn record(&mut self, id: RequestId) -> &mut Record {
        self.records
            .iter_mut()
            .find(|r| r.req.id == id)
            .unwrap_or_else(|| panic!("unknown request {id}"))
    }

    fn view_parts(&self) -> (Vec<Head>, Vec<&'static dyn ServiceEstimator>) {
        (
            self.heads.clone(),
            vec![&Arm as &dyn ServiceEstimator; self.script.disks],
        )
    }

    fn fail_disk(&mut self, d: usize) {
        if self.state[d] == DiskState::Failed {
            let (heads, est) = self.view_parts();
            let view = ArrayView {
                now: self.now,
                heads: &heads,
                estimators: &est,
            };
            assert!(
                matches!(
                    self.policy.fail_disk(d, &view),
                    Err(DiskStateError::Transition { .. })
                ),
                "{}: a failed disk failed again",
                self.name
            );
            return;
        }
        self.busy[d] = None;
        self.copy_asked[d] = false;
        let (heads, est) = self.view_parts();
        let view = ArrayView {
            now: self.now,
            heads: &heads,
            estimators: &est,
        };
        self.policy.fail_disk(d, &view).unwrap();
        self.state[d] = DiskState::Failed;
        self.known[d] = vec![None; LOGICAL as usize];
    }

    fn replace_disk(&mut self, d: usize) {
        let result = self.policy.replace_disk(d, Rebuild::whole(DISK_BLOCKS));
        if self.state[d] != DiskState::Failed {
            assert!(
                matches!(result, Err(DiskStateError::Transition { .. })),
                "{}: disk {d} replaced while {:?}",
                self.name,
                self.state[d]
            );
            return;
        }
        result.unwrap();
        self.state[d] = DiskState::Rebuilding { rebuilt_to: 0 };
        self.blocks[d] = vec![BLANK; DISK_BLOCKS as usize];
    }

    /// Asks for the next range of disk `d` to be copied; false if it cannot be.
    fn ask_copy(&mut self, d: usize, blocks: u64) -> bool {
        let DiskState::Rebuilding { rebuilt_to } = self.state[d] else {
            return false;
        };
        if self.copy_asked[d] {
            return false;
        }
        let blocks = blocks.clamp(1, DISK_BLOCKS - rebuilt_to) as u32;
        let id = RequestId(COPY_IDS + self.copies_asked);
        let copy = Request::new(
            id,
            Kind::Write,
            Block(rebuilt_to),
            Blocks(blocks),
            Cyl(rebuilt_to as u32 * 4),
            self.now,
        );
        match self.policy.resync(d, copy) {
            Ok(()) => {
                self.copies_asked += 1;
                self.copy_asked[d] = true;
                true
            }
            Err(DiskStateError::NoSource { .. }) => false,
            Err(e) => panic!("{}: resync of disk {d}: {e}", self.name),
        }
    }

    /// Submits a request of `blocks` logical blocks from `block`, with
    /// copies on `holders`; a write carries `data`.
    fn submit(
        &mut self,
        kind: Kind,
        block: u64,
        blocks: u64,
        class: u16,
        data: Vec<u64>,
        holders: DiskSet,
    ) {
        if holders.is_empty() {
            return;
        }
        let submitted = self.reference.input();
        let id = RequestId(self.records.len() as u64 + 1);
        let copies = self.copies(block, holders);
        let cylinder = copies.locations()[0].cylinder;
        let mut req = Request::new(
            id,
            kind,
            Block(block),
            Blocks(blocks as u32),
            Cyl(cylinder),
            self.now,
        );
        req.class = class;
        let (heads, est) = self.view_parts();
        let view = ArrayView {
            now: self.now,
            heads: &heads,
            estimators: &est,
        };
        let accepted = self.policy.submit(req, &copies, &view).is_ok();
        if kind == Kind::Write && class != PROPAGATION {
            self.reference.write(id.0, block..block + blocks);
            if !accepted {
                self.reference.withdraw(id.0);
            }
        }
        self.records.push(Record {
            req,
            holders,
            data,
            submitted,
            fate: if accepted { Fate::Open } else { Fate::Gone },
        });
    }

    /// A new logical read or write from the script.
    fn submit_new(&mut self, write: bool, block: u64, blocks: u64) {
        let all = DiskSet::all(self.script.disks);
        let id = self.records.len() as u64 + 1;
        if write {
            self.submit(
                Kind::Write,
                block,
                blocks,
                0,
                vec![id; blocks as usize],
                all,
            );
            return;
        }
        let holders = if self.one_copy() {
            // Only copies the driver knows to be current.
            DiskSet::matching(self.script.disks, |d| {
                (block..block + blocks).all(|b| {
                    let latest = self.reference.newest(b);
                    self.known[d][b as usize].is_some_and(|k| k >= latest)
                })
            })
        } else {
            all
        };
        self.submit(Kind::Read, block, blocks, 0, Vec::new(), holders);
    }

    fn cancel(&mut self, back: u8) {
        let open: Vec<RequestId> = self
            .records
            .iter()
            // A driver writing one copy has its writes' data in its
            // delayed-write buffer, and propagates it: it withdraws reads only.
            .filter(|r| r.fate == Fate::Open && (r.req.kind == Kind::Read || !self.one_copy()))
            .map(|r| r.req.id)
            .collect();
        let Some(&id) = open.iter().rev().nth(usize::from(back) % open.len().max(1)) else {
            return;
        };
        self.reference.input();
        if self.policy.cancel(id).is_ok() {
            self.record(id).fate = Fate::Gone;
            if self.user_write(id) {
                self.reference.withdraw(id.0);
            }
        }
    }

    /// Starts what the array starts and reports what it reports.
    fn drain(&mut self) -> Result<(), String> {
        loop {
            while let Some(c) = self.policy.poll_event() {
                self.on_completion(c, None)?;
            }
            let (heads, est) = self.view_parts();
            let view = ArrayView {
                now: self.now,
                heads: &heads,
                estimators: &est,
            };
            let Some(start) = self.policy.poll_start(&view).unwrap() else {
                if self.policy.poll_event().is_none() {
                    return Ok(());
                }
                continue;
            };
            let d = start.disk;
            assert!(
                self.busy[d].is_none(),
                "{}: disk {d} started while busy",
                self.name
            );
            assert_ne!(
                self.state[d],
                DiskState::Failed,
                "{}: start on failed disk {d}",
                self.name
            );
            let op = start.dispatch.request;
            let copied = match start.copy_from {
                Some(source) => {
                    assert_eq!(
                        self.state[source],
                        DiskState::Online,
                        "{}: copy from disk {source}",
                        self.name
                    );
                    // The driver reads the range's data from the source now.
                    (op.block..op.block + u64::from(op.blocks))
                        .map(|p| match p.checked_sub(self.script.shifts[d]) {
                            Some(l) if l < LOGICAL => {
                                self.blocks[source][self.physical(source, l) as usize]
                            }
                            _ => 0,
                        })
                        .collect()
                }
                None => Vec::new(),
            };
            let seek = u64::from(self.heads[d].cylinder.abs_diff(op.cylinder)) / 4;
            let until = self.now + 1 + seek + self.next_random() % 12;
            self.busy[d] = Some(Busy {
                until,
                start,
                copied,
            });
        }
    }

    /// Disk `d` finishes its operation.
    fn finish(&mut self, d: usize) -> Result<(), String> {
        let busy = self.busy[d].take().expect("a busy disk");
        let op = busy.start.dispatch.request;
        self.heads[d] = Head::at(op.cylinder);
        let range = op.block as usize..(op.block + u64::from(op.blocks)) as usize;
        self.reference.input();
        if busy.start.copy_from.is_some() {
            self.blocks[d][range.clone()].copy_from_slice(&busy.copied);
            let c = self.policy.complete(d, self.now).unwrap();
            assert_eq!(c.resynced, Some(op), "{}: the copy to disk {d}", self.name);
            self.copy_asked[d] = false;
            self.state[d] = self.policy.disk_state(d);
            if self.one_copy() {
                let source = busy.start.copy_from.unwrap_or(0);
                for p in range {
                    if let Some(l) = (p as u64)
                        .checked_sub(self.script.shifts[d])
                        .filter(|&l| l < LOGICAL)
                    {
                        self.known[d][l as usize] = self.known[source][l as usize];
                    }
                }
            }
            return Ok(());
        }
        let mut read = None;
        if op.kind == Kind::Write {
            let data = self.record(op.id).data.clone();
            self.blocks[d][range].copy_from_slice(&data);
        } else {
            read = Some(self.blocks[d][range].to_vec());
        }
        let c = self.policy.complete(d, self.now).unwrap();
        self.on_completion(c, read.map(|data| (d, data)))
    }

    /// What a completion means; `read` is the data the finishing disk read.
    fn on_completion(
        &mut self,
        c: Completion,
        read: Option<(usize, Vec<u64>)>,
    ) -> Result<(), String> {
        for e in c.abort.iter() {
            self.busy[e] = None;
        }
        if let Some(r) = c.finished {
            let rec = self.record(r.id);
            assert_eq!(rec.fate, Fate::Open, "finished twice");
            rec.fate = Fate::Finished;
            let submitted = rec.submitted;
            if self.user_write(r.id) {
                self.reference.acknowledge(r.id.0);
            }
            if r.kind == Kind::Read {
                let (d, data) = read
                    .ok_or_else(|| format!("{}: read {} finished by a failure", self.name, r.id))?;
                self.reads_checked += 1;
                if let Err(stale) = self.reference.check_read(r.block, &data, submitted) {
                    return Err(format!(
                        "{}: stale read: {} of block {} (at {} on disk {d}) returned version {} though {} was acknowledged before it was submitted",
                        self.name,
                        r.id,
                        stale.block,
                        self.physical(d, stale.block),
                        stale.got(),
                        stale.newest,
                    ));
                }
            }
        }
        if let Some(r) = c.failed {
            self.record(r.id).fate = Fate::Failed;
            if self.user_write(r.id) {
                self.reference.fail(r.id.0);
            }
        }
        if let Some(w) = c.settled
            && self.one_copy()
        {
            let holders = self.record(w.id).holders;
            let data = self.record(w.id).data.clone();
            for d in holders.difference(c.skipped).iter() {
                for (i, &v) in data.iter().enumerate() {
                    let k = &mut self.known[d][w.block as usize + i];
                    *k = Some(k.map_or(v, |k| k.max(v)));
                }
            }
            // The driver propagates its newest data of those blocks to
            // the holders the write skipped that are still there.
            let to = c
                .skipped
                .intersection(DiskSet::matching(self.script.disks, |d| {
                    self.state[d] != DiskState::Failed
                }));
            let range = w.block..w.block + u64::from(w.blocks);
            let versions: Vec<u64> = range.map(|b| self.reference.newest_live(b)).collect();
            self.submit(
                Kind::Write,
                w.block,
                u64::from(w.blocks),
                PROPAGATION,
                versions,
                to,
            );
        }
        Ok(())
    }

    /// Checks that no acknowledged write is lost: every disk holds the
    /// newest acknowledged version of every block where it is current
    /// (online, or below its rebuilt mark; for a policy writing one copy,
    /// where its driver knows it current).
    fn check_final(&self) -> Result<(), String> {
        for b in 0..LOGICAL {
            let newest = self.reference.newest(b);
            for d in 0..self.script.disks {
                let p = self.physical(d, b);
                let current = match self.state[d] {
                    DiskState::Online => true,
                    DiskState::Failed => false,
                    DiskState::Rebuilding { rebuilt_to } => p < rebuilt_to,
                } && (!self.one_copy()
                    || self.known[d][b as usize].is_some_and(|k| k >= newest));
                let got = self.blocks[d][p as usize];
                // A write that failed leaves its blocks undefined: a copy
                // its driver propagated before it failed may hold it.
                if current && self.reference.check_settled(b, got).is_err() {
                    return Err(format!(
                        "{}: lost write: disk {d} ({:?}) holds version {got} of block {b}, but {newest} was acknowledged",
                        self.name, self.state[d]
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Runs `script` on the policy `spec` names; returns the reads checked, or
/// the first stale read or lost write.
fn run(name: &str, spec: &ArraySpec, script: &Script) -> Result<u64, String> {
    let disks = script.disks;
    let policy = spec
        .build(Heap::new(256).unwrap(), disks, 200, script.seed)
        .unwrap()
        .with_ack(script.ack)
        .unwrap();
    let mut o = Oracle {
        name,
        script,
        policy,
        blocks: vec![vec![0; DISK_BLOCKS as usize]; disks],
        state: vec![DiskState::Online; disks],
        busy: (0..disks).map(|_| None).collect(),
        heads: vec![Head::at(0); disks],
        records: Vec::new(),
        reference: Acknowledged::new(),
        copy_asked: vec![false; disks],
        copies_asked: 0,
        rng: script.seed | 1,
        now: 0,
        known: vec![vec![Some(0); LOGICAL as usize]; disks],
        reads_checked: 0,
    };
    let mut next = 0;
    let mut event_at = script.events.first().map_or(0, |e| u64::from(e.0));
    loop {
        let done_at = (0..disks)
            .filter_map(|d| o.busy[d].as_ref().map(|b| (b.until, d)))
            .min();
        let event = (next < script.events.len()).then_some(event_at);
        match (done_at, event) {
            (Some((t, d)), e) if e.is_none_or(|e| t <= e) => {
                o.now = o.now.max(t);
                o.finish(d)?;
            }
            (_, Some(t)) => {
                o.now = o.now.max(t);
                let d = |disk: u8| usize::from(disk) % disks;
                match script.events[next].1 {
                    Event::Submit {
                        write,
                        block,
                        blocks,
                    } => {
                        let block = u64::from(block);
                        let blocks = 1 + u64::from(blocks) % (LOGICAL - block).min(6);
                        o.submit_new(write, block, blocks);
                    }
                    Event::Cancel { back } => o.cancel(back),
                    Event::Fail { disk } => o.fail_disk(d(disk)),
                    Event::Replace { disk } => o.replace_disk(d(disk)),
                    Event::Copy { disk, blocks } => {
                        o.ask_copy(d(disk), u64::from(blocks));
                    }
                }
                next += 1;
                if let Some(e) = script.events.get(next) {
                    event_at = o.now + u64::from(e.0);
                }
            }
            _ => {
                // Quiet: finish every rebuild that can finish.
                let asked = (0..disks).filter(|&d| o.ask_copy(d, 8)).count();
                o.drain()?;
                if asked == 0 && o.busy.iter().all(Option::is_none) {
                    break;
                }
                continue;
            }
        }
        o.drain()?;
    }
    assert_eq!(
        o.policy.in_system(),
        0,
        "{name}: requests left in the array"
    );
    o.check_final()?;
    Ok(o.reads_checked)
}

/// Runs `script` on every named policy: the first violation, if any.
fn run_all(script: &Script) -> Result<u64, String> {
    let mut reads = 0;
    for (name, spec) in ArraySpec::named() {
        reads += run(name, &spec, script)?;
    }
    Ok(reads)
}

#[cfg(not(any(
    feature = "unordered-writes-for-tests",
    feature = "unbarriered-resync-for-tests"
)))]
fn cases() -> u32 {
    std::env::var("SPINDLE_CONSISTENCY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(380)
}

#[cfg(not(any(
    feature = "unordered-writes-for-tests",
    feature = "unbarriered-resync-for-tests"
)))]
proptest! {
    #![proptest_config(Config::with_cases(cases()))]

    #[test]
    fn no_policy_returns_stale_data_or_loses_an_acknowledged_write(script in script()) {
        if let Err(violation) = run_all(&script) {
            prop_assert!(false, "{violation}");
        }
    }
}

/// With one of the array's mechanisms turned off, the oracle finds a stale
/// read or a lost write within a few hundred cases.
#[cfg(any(
    feature = "unordered-writes-for-tests",
    feature = "unbarriered-resync-for-tests"
))]
#[test]
fn without_the_mechanism_the_oracle_finds_stale_data() {
    let mut runner = proptest::test_runner::TestRunner::new(Config {
        cases: 2_000,
        failure_persistence: None,
        ..Config::default()
    });
    let found = runner.run(&script(), |script| {
        run_all(&script).map_err(TestCaseError::fail)?;
        Ok(())
    });
    let Err(failure) = found else {
        panic!("2,000 cases and no stale read: the oracle does not see the hole");
    };
    let found = failure.to_string();
    assert!(
        found.contains("stale read") || found.contains("lost write"),
        "{found}"
    );
    eprintln!("the oracle found: {found}");
}

/// The script runs as many policies as the registry names, every one of
/// them an array policy: the oracle misses none.
#[test]
fn the_oracle_drives_every_named_array_policy() {
    let named = ArraySpec::named().count();
    assert_eq!(named, ArraySpec::NAMED.len());
    assert!(named >= 25, "only {named} array policies named");
}

/// A checked state machine: each refused transition is a typed error and
/// changes nothing.
#[test]
fn disks_move_only_online_failed_rebuilding_online() {
    let spec: ArraySpec = "dmq".parse().unwrap();
    let mut p = spec.build(Heap::new(8).unwrap(), 2, 200, 1).unwrap();
    let heads = [Head::at(0); 2];
    let est: [&dyn ServiceEstimator; 2] = [&Arm, &Arm];
    let view = ArrayView {
        now: 0,
        heads: &heads,
        estimators: &est,
    };
    let copy = |id, block, blocks| {
        Request::new(
            RequestId(id),
            Kind::Write,
            Block(block),
            Blocks(blocks),
            Cyl(0),
            0,
        )
    };
    // Online: cannot be replaced or resynced.
    assert_eq!(
        p.replace_disk(1, Rebuild::whole(100)),
        Err(DiskStateError::Transition {
            disk: 1,
            from: DiskState::Online,
            to: "be replaced (only a failed disk is)"
        })
    );
    assert_eq!(
        p.resync(1, copy(9, 0, 10)),
        Err(DiskStateError::NotRebuilding {
            disk: 1,
            state: DiskState::Online
        })
    );
    p.fail_disk(1, &view).unwrap();
    // Failed: cannot fail again, nor be resynced, nor come online by itself.
    assert!(matches!(
        p.fail_disk(1, &view),
        Err(DiskStateError::Transition {
            from: DiskState::Failed,
            ..
        })
    ));
    assert!(matches!(
        p.resync(1, copy(9, 0, 10)),
        Err(DiskStateError::NotRebuilding { .. })
    ));
    assert_eq!(p.disk_state(1), DiskState::Failed);
    p.replace_disk(1, Rebuild::whole(100)).unwrap();
    assert_eq!(p.disk_state(1), DiskState::Rebuilding { rebuilt_to: 0 });
    // Rebuilding: ranges in order, within the rebuild, one at a time.
    assert_eq!(
        p.resync(1, copy(9, 10, 10)),
        Err(DiskStateError::OutOfOrder {
            disk: 1,
            expected: 0,
            block: 10
        })
    );
    assert_eq!(
        p.resync(1, copy(9, 0, 101)),
        Err(DiskStateError::BadRange {
            disk: 1,
            end: 100,
            range_end: 101
        })
    );
    assert!(matches!(
        p.resync(1, copy(9, 0, 0)),
        Err(DiskStateError::BadRange { .. })
    ));
    assert!(matches!(
        p.replace_disk(1, Rebuild::whole(100)),
        Err(DiskStateError::Transition { .. })
    ));
    assert_eq!(
        p.resync(5, copy(9, 0, 1)),
        Err(DiskStateError::NoSuchDisk { disk: 5, disks: 2 })
    );
    p.resync(1, copy(9, 0, 60)).unwrap();
    assert_eq!(
        p.resync(1, copy(10, 60, 40)),
        Err(DiskStateError::CopyInProgress { disk: 1 })
    );
    let s = p.poll_start(&view).unwrap().expect("the copy starts");
    assert_eq!((s.disk, s.copy_from), (1, Some(0)));
    assert_eq!(
        p.complete(1, 1).unwrap().resynced.map(|r| r.id),
        Some(RequestId(9))
    );
    assert_eq!(p.disk_state(1), DiskState::Rebuilding { rebuilt_to: 60 });
    p.resync(1, copy(10, 60, 40)).unwrap();
    p.poll_start(&view).unwrap().expect("the copy starts");
    assert!(p.complete(1, 2).unwrap().resynced.is_some());
    assert_eq!(p.disk_state(1), DiskState::Online);
    // Only disk 1 left: disk 0 replaced has no source.
    p.fail_disk(0, &view).unwrap();
    p.fail_disk(1, &view).unwrap();
    p.replace_disk(0, Rebuild::whole(100)).unwrap();
    assert_eq!(
        p.resync(0, copy(11, 0, 10)),
        Err(DiskStateError::NoSource { disk: 0 })
    );
    // A checkpointed resync resumes part way; one with nothing left is online.
    p.replace_disk(
        1,
        Rebuild {
            current_to: 100,
            end: 100,
        },
    )
    .unwrap();
    assert_eq!(p.disk_state(1), DiskState::Online);
}

/// A write overlapping a range being copied waits for the copy; the copy
/// waits for a write in flight over its range; `contains` tells what the
/// array still holds. (Without the barrier, the copy would start at once.)
#[cfg(not(feature = "unbarriered-resync-for-tests"))]
#[test]
fn writes_wait_for_the_copy_of_their_range_and_the_copy_for_writes_in_flight() {
    let spec: ArraySpec = "dmq".parse().unwrap();
    let mut p = spec.build(Heap::new(8).unwrap(), 2, 200, 1).unwrap();
    let heads = [Head::at(0); 2];
    let est: [&dyn ServiceEstimator; 2] = [&Arm, &Arm];
    let view = ArrayView {
        now: 0,
        heads: &heads,
        estimators: &est,
    };
    let everywhere = |b| {
        Copies::everywhere(
            2,
            Location {
                block: b,
                cylinder: 0,
            },
        )
    };
    p.fail_disk(1, &view).unwrap();
    p.replace_disk(1, Rebuild::whole(100)).unwrap();
    // A write in flight over blocks 10..14: the copy of 0..50 waits for it.
    let w1 = Request::new(RequestId(1), Kind::Write, Block(10), Blocks(4), Cyl(0), 0);
    p.submit(w1, &everywhere(10), &view).unwrap();
    let copy = Request::new(RequestId(100), Kind::Write, Block(0), Blocks(50), Cyl(0), 0);
    p.resync(1, copy).unwrap();
    let mut starts = Vec::new();
    while let Some(s) = p.poll_start(&view).unwrap() {
        starts.push((s.disk, s.dispatch.request.id, s.copy_from));
    }
    assert_eq!(
        starts,
        vec![(0, RequestId(1), None), (1, RequestId(1), None)]
    );
    // A write over 20..22 arrives while the range is claimed: it is held.
    let w2 = Request::new(RequestId(2), Kind::Write, Block(20), Blocks(2), Cyl(0), 1);
    p.submit(w2, &everywhere(20), &view).unwrap();
    assert!(p.contains(RequestId(2)));
    assert_eq!(p.disk_queue_len(0) + p.disk_queue_len(1), 0);
    assert!(p.complete(0, 2).unwrap().settled.is_none());
    assert_eq!(
        p.poll_start(&view).unwrap(),
        None,
        "the copy waits for disk 1's write"
    );
    let done = p.complete(1, 3).unwrap();
    assert_eq!(done.settled.map(|r| r.id), Some(RequestId(1)));
    assert!(!p.contains(RequestId(1)));
    let s = p.poll_start(&view).unwrap().expect("now the copy starts");
    assert_eq!(
        (s.disk, s.copy_from, s.dispatch.request.id),
        (1, Some(0), RequestId(100))
    );
    assert_eq!(
        p.poll_start(&view).unwrap(),
        None,
        "the held write waits for the copy"
    );
    assert_eq!(p.complete(1, 4).unwrap().resynced, Some(copy));
    let mut after = Vec::new();
    while let Some(s) = p.poll_start(&view).unwrap() {
        after.push((s.disk, s.dispatch.request.id));
    }
    assert_eq!(after, vec![(0, RequestId(2)), (1, RequestId(2))]);
}

/// Two overlapping writes neither of which is acknowledged yet reach every
/// disk in submission order, though each disk's SSTF queue would serve the
/// later, nearer one first (the hole that left mirrors holding different
/// data once both were acknowledged under `Ack::All`).
#[cfg(not(feature = "unordered-writes-for-tests"))]
#[test]
fn unacknowledged_overlapping_writes_reach_every_disk_in_submission_order() {
    for name in ["dmq", "cmq-sstf", "rt-cmq-s"] {
        let spec: ArraySpec = name.parse().unwrap();
        let mut p = spec.build(Heap::new(8).unwrap(), 2, 200, 1).unwrap();
        let heads = [Head::at(0); 2];
        let est: [&dyn ServiceEstimator; 2] = [&Arm, &Arm];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let write = |id, block, blocks, cylinder| {
            (
                Request::new(
                    RequestId(id),
                    Kind::Write,
                    Block(block),
                    Blocks(blocks),
                    Cyl(cylinder),
                    0,
                ),
                Copies::everywhere(2, Location { block, cylinder }),
            )
        };
        // Blocks 0..8 keep both disks busy while the other two arrive.
        let mut order = vec![Vec::new(); 2];
        let (req, copies) = write(0, 0, 8, 0);
        p.submit(req, &copies, &view).unwrap();
        while let Some(s) = p.poll_start(&view).unwrap() {
            order[s.disk].push(s.dispatch.request.id.0);
        }
        // Blocks 800..816 far away, then 808..816 near the arms.
        for (req, copies) in [write(1, 800, 16, 190), write(2, 808, 8, 10)] {
            p.submit(req, &copies, &view).unwrap();
        }
        for _ in 0..3 {
            for d in 0..2 {
                if p.is_busy(d) {
                    let _ = p.complete(d, 1).unwrap();
                }
            }
            while let Some(s) = p.poll_start(&view).unwrap() {
                order[s.disk].push(s.dispatch.request.id.0);
            }
        }
        assert_eq!(order, vec![vec![0, 1, 2], vec![0, 1, 2]], "{name}");
        assert_eq!(p.in_system(), 0, "{name}");
    }
}

/// The ordering finds every earlier overlapping write, however long either
/// is (a long write is indexed apart from the short ones), and orders no
/// write behind one it does not overlap, though their blocks fall in the
/// same bucket modulo the index's size: of two writes queued while the
/// disks are busy, the far one submitted first, the later, near one is
/// written first on each disk only when they do not overlap.
#[cfg(not(feature = "unordered-writes-for-tests"))]
#[test]
fn overlapping_writes_long_or_short_stay_in_order_and_only_they() {
    // (earlier write's blocks, later write's blocks, whether they overlap).
    let cases = [
        ((800, 100), (850, 8), true), // a short write inside a long one
        ((880, 8), (800, 100), true), // a long write over a short one
        ((800, 8), (807, 40), true),  // one block shared, across buckets
        ((800, 8), (808, 8), false),  // adjacent
        ((800, 16), (800 + 16 * 1024, 16), false), // same bucket modulo 1024
        ((0, 40_000), (20_000, 8), true), // a write over every bucket
        ((20_000, 8), (0, 40_000), true),
    ];
    for ((b1, n1), (b2, n2), overlapping) in cases {
        let spec: ArraySpec = "dmq".parse().unwrap();
        let mut p = spec.build(Heap::new(8).unwrap(), 2, 200, 1).unwrap();
        let heads = [Head::at(0); 2];
        let est: [&dyn ServiceEstimator; 2] = [&Arm, &Arm];
        let view = ArrayView {
            now: 0,
            heads: &heads,
            estimators: &est,
        };
        let write = |id, block, blocks, cylinder| {
            (
                Request::new(
                    RequestId(id),
                    Kind::Write,
                    Block(block),
                    Blocks(blocks),
                    Cyl(cylinder),
                    0,
                ),
                Copies::everywhere(2, Location { block, cylinder }),
            )
        };
        let mut order = vec![Vec::new(); 2];
        let (req, copies) = write(0, 1_000_000, 8, 0);
        p.submit(req, &copies, &view).unwrap();
        while let Some(s) = p.poll_start(&view).unwrap() {
            order[s.disk].push(s.dispatch.request.id.0);
        }
        for (req, copies) in [write(1, b1, n1, 190), write(2, b2, n2, 10)] {
            p.submit(req, &copies, &view).unwrap();
        }
        for _ in 0..3 {
            for d in 0..2 {
                if p.is_busy(d) {
                    let _ = p.complete(d, 1).unwrap();
                }
            }
            while let Some(s) = p.poll_start(&view).unwrap() {
                order[s.disk].push(s.dispatch.request.id.0);
            }
        }
        let expected = if overlapping { [0, 1, 2] } else { [0, 2, 1] };
        assert_eq!(
            order,
            vec![expected.to_vec(), expected.to_vec()],
            "{b1}+{n1} then {b2}+{n2}"
        );
        assert_eq!(p.in_system(), 0);
    }
}
