//! Shared test machinery: a deterministic disk estimator, random operation
//! sequences, a harness that drives any scheduler through them while checking
//! the queue-keeping invariants, and a brute-force model of every policy.
//!
//! The model works on a plain list of the queued requests and recomputes each
//! decision from the policy's definition, so it shares no code (and no data
//! structure) with the crate.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sched_core::policy::{
    AgedSptf, BFQ_QUEUES, Bfq, BfqParams, CLook, CScan, Edf, Fcfs, FdScan, Look, MqDeadline,
    SatfEw, Scan, ScanEdf, Sptf, Ssedo, Ssedv, Sstf, VScan,
};
use sched_core::{
    AnyScheduler, Block, Blocks, CancelError, Cyl, Direction, Dispatch, EnqueueError, ExpiredRule,
    Head, Inline, Kind, Nanos, PolicySpec, Request, RequestId, Scheduler, ServiceEstimator,
    Storage, Travel,
};

/// Seek `a + b·√distance` (0 on the same cylinder) plus the rotational delay
/// from where the spindle is when the seek ends to the request's sector;
/// transfer is proportional to the length.
pub(crate) struct TestEstimator;

pub(crate) const REVOLUTION: Nanos = 10_000_000;
pub(crate) const SECTORS: u64 = 50;

impl ServiceEstimator for TestEstimator {
    fn positioning_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        let d = head.cylinder.abs_diff(req.cylinder);
        let seek = if d == 0 {
            0
        } else {
            1_000_000 + (50_000.0 * f64::from(d).sqrt()) as Nanos
        };
        let sector_at = (req.block % SECTORS) * (REVOLUTION / SECTORS);
        let arrive = (now + seek) % REVOLUTION;
        seek + (sector_at + REVOLUTION - arrive) % REVOLUTION
    }

    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        self.positioning_time(head, req, now) + u64::from(req.blocks) * 100_000
    }

    fn expected_service_time(&self, req: &Request) -> Nanos {
        // A mean seek plus half a revolution plus the transfer.
        3_000_000 + REVOLUTION / 2 + u64::from(req.blocks) * 100_000
    }
}

/// One step of a random driver.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A fresh request (or a retired id reused); `cyl` is reduced modulo the
    /// disk size; `slack` is `None` for no deadline.
    Enqueue {
        cyl: u32,
        age: Nanos,
        slack: Option<Nanos>,
        block: u64,
        blocks: u32,
        reuse_id: Option<usize>,
    },
    /// Ask for the next request; the arm first jumps to `jump` if given.
    Next { jump: Option<u32> },
    /// Cancel a queued request (`unknown`: an id that is not queued).
    Cancel { pick: usize, unknown: bool },
    /// The clock moves on.
    Advance(Nanos),
    /// Collect every expired request the policy sets aside.
    TakeExpired,
    /// Enqueue a request whose id is already queued.
    Duplicate { pick: usize, cyl: u32 },
    /// Enqueue a request beyond the last cylinder.
    OutOfRange { over: u32 },
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    let enqueue = (
        any::<u32>(),
        prop_oneof![Just(0u64), 0u64..20_000_000],
        prop_oneof![
            3 => (0u64..80_000_000).prop_map(Some),
            1 => Just(None),
            1 => (0u64..4).prop_map(|_| Some(Nanos::MAX)),
        ],
        any::<u64>(),
        1u32..16,
        prop_oneof![4 => Just(None), 1 => any::<usize>().prop_map(Some)],
    )
        .prop_map(|(cyl, age, slack, block, blocks, reuse_id)| Op::Enqueue {
            cyl,
            age,
            slack,
            block,
            blocks,
            reuse_id,
        });
    prop_oneof![
        8 => enqueue,
        6 => prop::option::weighted(0.15, any::<u32>()).prop_map(|jump| Op::Next { jump }),
        1 => (any::<usize>(), prop::bool::weighted(0.2)).prop_map(|(pick, unknown)| Op::Cancel { pick, unknown }),
        1 => (0u64..30_000_000).prop_map(Op::Advance),
        1 => Just(Op::TakeExpired),
        1 => (any::<usize>(), any::<u32>()).prop_map(|(pick, cyl)| Op::Duplicate { pick, cyl }),
        1 => (0u32..1000).prop_map(|over| Op::OutOfRange { over }),
    ]
}

/// A random scenario: disk size, id spacing and the operations.
#[derive(Clone, Debug)]
pub(crate) struct Scenario {
    pub(crate) cylinders: u32,
    pub(crate) id_stride: u64,
    pub(crate) ops: Vec<Op>,
}

pub(crate) fn scenario(max_ops: usize) -> impl Strategy<Value = Scenario> {
    (
        prop_oneof![Just(1u32), Just(7), Just(16), Just(200), Just(1962)],
        prop_oneof![Just(1u64), Just(1 << 32), Just(0x9E37_79B9)],
        prop::collection::vec(op(), 1..max_ops),
    )
        .prop_map(|(cylinders, id_stride, ops)| Scenario {
            cylinders,
            id_stride,
            ops,
        })
}

/// Everything observable a run produced, in order: two runs of the same
/// scenario must produce equal logs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Out {
    Dispatched(Request, Travel),
    Idle,
    Enqueue(Result<(), EnqueueError>),
    Cancel(Result<Request, CancelError>),
    Expired(Request),
    Drained(Request),
}

/// What a checker sees at a decision: the queue just before it.
pub(crate) struct View<'a> {
    /// Queued requests, by id.
    pub(crate) live: &'a BTreeMap<u64, Request>,
    pub(crate) head: Head,
    pub(crate) now: Nanos,
    pub(crate) cylinders: u32,
}

/// Whether an enqueue was refused because a BFQ has no class queue left,
/// the typed refusal of a request of one class too many (only BFQ keeps a
/// bounded set of class queues).
pub(crate) fn too_many_classes(res: &Result<(), EnqueueError>) -> bool {
    matches!(res, Err(EnqueueError::TooManyClasses { queues, .. }) if *queues == BFQ_QUEUES)
}

/// Whether the policy rejects requests beyond its disk (it orders by cylinder).
pub(crate) fn checks_cylinders(spec: &PolicySpec) -> bool {
    !matches!(
        spec,
        PolicySpec::Fcfs | PolicySpec::Edf | PolicySpec::Ssedo { .. }
    )
}

/// Drives `q` (empty, capacity `cap`) through the scenario.
///
/// Checks on the way: every accepted request comes back exactly once, intact
/// (dispatched, expired, cancelled or drained); `len` and `contains` agree
/// with the model; a full queue refuses with `QueueFull` and the refused
/// request is accepted later; duplicates, unknown ids and out-of-range
/// cylinders get their typed errors and change nothing. `check` sees every
/// dispatch with the queue as it was just before.
pub(crate) fn run(
    q: &mut dyn Scheduler,
    spec: &PolicySpec,
    sc: &Scenario,
    check: &mut dyn FnMut(&View, &Dispatch),
) -> Vec<Out> {
    let cap = q.capacity();
    let c = sc.cylinders;
    let mut out = Vec::new();
    let mut live: BTreeMap<u64, Request> = BTreeMap::new();
    let mut retired: Vec<u64> = Vec::new();
    let mut rejected: Vec<Request> = Vec::new();
    let mut returned: BTreeSet<(u64, u64)> = BTreeSet::new(); // (id, generation)
    let mut generation: BTreeMap<u64, u64> = BTreeMap::new();
    let mut accepted = 0usize;
    let mut counter = 0u64;
    let mut now: Nanos = 1_000_000_000;
    let mut head = Head::at(c / 2);
    let est = TestEstimator;

    let mut give_back = |live: &mut BTreeMap<u64, Request>,
                         retired: &mut Vec<u64>,
                         generation: &BTreeMap<u64, u64>,
                         r: &Request| {
        let queued = live
            .remove(&r.id.0)
            .unwrap_or_else(|| panic!("{spec}: {r:?} was not queued"));
        assert_eq!(&queued, r, "{spec}: a request came back altered");
        let g = generation[&r.id.0];
        assert!(returned.insert((r.id.0, g)), "{spec}: {r:?} returned twice");
        retired.push(r.id.0);
    };

    for op in &sc.ops {
        match *op {
            Op::Enqueue {
                cyl,
                age,
                slack,
                block,
                blocks,
                reuse_id,
            } => {
                // A request refused earlier for lack of room is accepted once there is room.
                if live.len() < cap
                    && let Some(r) = rejected.pop()
                {
                    {
                        let before = q.len();
                        let res = q.enqueue(r);
                        out.push(Out::Enqueue(res));
                        if too_many_classes(&res) {
                            assert_eq!(
                                q.len(),
                                before,
                                "{spec}: a refused enqueue changed the queue"
                            );
                            retired.push(r.id.0);
                        } else {
                            assert_eq!(res, Ok(()), "{spec}: refused request retried");
                            assert_eq!(q.len(), before + 1);
                            *generation.entry(r.id.0).or_default() += 1;
                            live.insert(r.id.0, r);
                            accepted += 1;
                        }
                    }
                }
                let id = match reuse_id {
                    Some(i) if !retired.is_empty() => {
                        let k = i % retired.len();
                        retired.swap_remove(k)
                    }
                    _ => {
                        counter += 1;
                        counter.wrapping_mul(sc.id_stride)
                    }
                };
                let arrival = now.saturating_sub(age);
                let mut r = Request::new(
                    RequestId(id),
                    Kind::Read,
                    Block(block),
                    Blocks(blocks),
                    Cyl(cyl % c),
                    arrival,
                );
                if block % 2 == 1 {
                    r.kind = Kind::Write;
                }
                r.class = (block >> 48) as u16;
                if let Some(s) = slack {
                    r = r.with_deadline(if s == Nanos::MAX { s } else { arrival + s });
                }
                let before = q.len();
                let res = q.enqueue(r);
                out.push(Out::Enqueue(res));
                if live.len() == cap {
                    assert_eq!(
                        res,
                        Err(EnqueueError::QueueFull { capacity: cap }),
                        "{spec}"
                    );
                    assert_eq!(
                        q.len(),
                        before,
                        "{spec}: a refused enqueue changed the queue"
                    );
                    assert!(!q.contains(r.id));
                    rejected.push(r);
                } else if too_many_classes(&res) {
                    assert_eq!(
                        q.len(),
                        before,
                        "{spec}: a refused enqueue changed the queue"
                    );
                    assert!(!q.contains(r.id));
                    retired.push(id);
                } else {
                    assert_eq!(res, Ok(()), "{spec}");
                    assert_eq!(q.len(), before + 1);
                    *generation.entry(id).or_default() += 1;
                    live.insert(id, r);
                    accepted += 1;
                }
            }
            Op::Next { jump } => {
                if let Some(j) = jump {
                    head = Head::at(j % c);
                }
                let got = q.next(head, now, &est);
                match got {
                    Some(d) => {
                        check(
                            &View {
                                live: &live,
                                head,
                                now,
                                cylinders: c,
                            },
                            &d,
                        );
                        give_back(&mut live, &mut retired, &generation, &d.request);
                        out.push(Out::Dispatched(d.request, d.travel));
                        now += est.service_time(head, &d.request, now);
                        head = Head::at(d.request.cylinder);
                    }
                    None => {
                        // Only FD-SCAN in drop mode may idle with requests queued,
                        // and then only expired ones remain.
                        let drop = matches!(
                            spec,
                            PolicySpec::FdScan {
                                expired: ExpiredRule::Drop
                            }
                        );
                        // A policy that holds work back (BFQ idling for a
                        // sync queue) says until when.
                        let holding = q.next_eligible_at(now).is_some_and(|t| t > now);
                        assert!(
                            live.is_empty()
                                || holding
                                || (drop && live.values().all(|r| r.deadline_key() < now)),
                            "{spec}: next returned None with {} requests queued",
                            live.len()
                        );
                        out.push(Out::Idle);
                    }
                }
            }
            Op::Cancel { pick, unknown } => {
                let before = q.len();
                if unknown || live.is_empty() {
                    let id = match retired.first() {
                        Some(&id) if pick % 2 == 0 => id,
                        _ => u64::MAX - (pick as u64 % 1000),
                    };
                    if live.contains_key(&id) {
                        continue;
                    }
                    let res = q.cancel(RequestId(id));
                    assert_eq!(res, Err(CancelError::UnknownId(RequestId(id))), "{spec}");
                    assert_eq!(q.len(), before);
                    out.push(Out::Cancel(res));
                } else {
                    let id = *live.keys().nth(pick % live.len()).unwrap();
                    let res = q.cancel(RequestId(id));
                    let r = res.expect("a queued request can be cancelled");
                    give_back(&mut live, &mut retired, &generation, &r);
                    assert_eq!(q.len(), before - 1);
                    out.push(Out::Cancel(Ok(r)));
                }
            }
            Op::Advance(dt) => now += dt,
            Op::TakeExpired => {
                while let Some(r) = q.take_expired(now) {
                    assert!(
                        matches!(
                            spec,
                            PolicySpec::FdScan {
                                expired: ExpiredRule::Drop
                            }
                        ),
                        "{spec}: only FD-SCAN in drop mode sets requests aside"
                    );
                    assert!(
                        r.deadline_key() < now,
                        "{spec}: {r:?} handed over before it expired"
                    );
                    give_back(&mut live, &mut retired, &generation, &r);
                    out.push(Out::Expired(r));
                }
            }
            Op::Duplicate { pick, cyl } => {
                if live.is_empty() {
                    continue;
                }
                let id = *live.keys().nth(pick % live.len()).unwrap();
                let r = Request::new(
                    RequestId(id),
                    Kind::Read,
                    Block(0),
                    Blocks(1),
                    Cyl(cyl % c),
                    now,
                );
                let before = q.len();
                let res = q.enqueue(r);
                if live.len() == cap {
                    assert_eq!(
                        res,
                        Err(EnqueueError::QueueFull { capacity: cap }),
                        "{spec}"
                    );
                } else {
                    assert_eq!(res, Err(EnqueueError::DuplicateId(RequestId(id))), "{spec}");
                }
                assert_eq!(q.len(), before);
                assert!(q.contains(RequestId(id)));
                out.push(Out::Enqueue(res));
            }
            Op::OutOfRange { over } => {
                if !checks_cylinders(spec) {
                    continue;
                }
                counter += 1;
                let id = counter.wrapping_mul(sc.id_stride);
                let r = Request::new(
                    RequestId(id),
                    Kind::Read,
                    Block(0),
                    Blocks(1),
                    Cyl(c + over),
                    now,
                );
                let before = q.len();
                let res = q.enqueue(r);
                assert_eq!(
                    res,
                    Err(EnqueueError::CylinderOutOfRange {
                        id: RequestId(id),
                        cylinder: c + over,
                        cylinders: c
                    }),
                    "{spec}"
                );
                assert_eq!(q.len(), before);
                assert!(!q.contains(RequestId(id)));
                retired.push(id);
                out.push(Out::Enqueue(res));
            }
        }
        assert_eq!(q.len(), live.len(), "{spec}: len disagrees with the model");
        assert_eq!(q.is_empty(), live.is_empty());
        for id in live.keys().take(4) {
            assert!(q.contains(RequestId(*id)));
        }
    }

    // Whatever is left drains out exactly once.
    let left = q.len();
    let mut drained = 0;
    for r in sched_core::drain(q) {
        give_back(&mut live, &mut retired, &generation, &r);
        out.push(Out::Drained(r));
        drained += 1;
    }
    assert_eq!(drained, left);
    assert!(live.is_empty(), "{spec}: {} requests were lost", live.len());
    assert_eq!(q.len(), 0);
    assert_eq!(
        returned.len(),
        accepted,
        "{spec}: accepted and returned counts differ"
    );
    out
}

/// The policies under test: every default, plus parameter variants.
pub(crate) fn all_specs() -> Vec<PolicySpec> {
    let mut v = PolicySpec::DEFAULTS.to_vec();
    v.extend([
        PolicySpec::VScan { r: 0.0 },
        PolicySpec::VScan { r: 1.0 },
        PolicySpec::VScan { r: 0.5 },
        PolicySpec::Ssedo { m: 1, beta: 2.0 },
        PolicySpec::Ssedo { m: 5, beta: 1.0 },
        PolicySpec::Ssedo { m: 6, beta: 1.5 },
        PolicySpec::Ssedo { m: 64, beta: 1.0 },
        PolicySpec::Ssedo { m: 4, beta: 1e12 },
        PolicySpec::Ssedv {
            alpha: 0.0,
            unit: 1_000_000,
        },
        PolicySpec::Ssedv {
            alpha: 1.0,
            unit: 1_000_000,
        },
        PolicySpec::Ssedv {
            alpha: 0.25,
            unit: 1_000,
        },
        PolicySpec::Ssedv {
            alpha: 0.3,
            unit: 1_000_000,
        },
        PolicySpec::ScanEdf {
            granularity: 10_000_000,
        },
        PolicySpec::ScanEdf {
            granularity: 1_000_000_000,
        },
        PolicySpec::FdScan {
            expired: ExpiredRule::Drop,
        },
        PolicySpec::Sptf { window: Some(1) },
        PolicySpec::Sptf { window: Some(3) },
        PolicySpec::AgedSptf {
            weight: 0.0,
            window: None,
        },
        PolicySpec::AgedSptf {
            weight: 1.0 / 64.0,
            window: Some(4),
        },
        PolicySpec::AgedSptf {
            weight: 1e30,
            window: None,
        },
        // Short expiries and batches, so that the scenarios' time steps
        // expire requests, end batches and starve writes.
        PolicySpec::MqDeadline {
            read_expire: 1_000_000,
            write_expire: 5_000_000,
            fifo_batch: 3,
            writes_starved: 1,
        },
        PolicySpec::MqDeadline {
            read_expire: 0,
            write_expire: 0,
            fifo_batch: 0,
            writes_starved: 0,
        },
        // Budgets and timeouts short enough to end slots within a scenario,
        // and no idling at all.
        PolicySpec::Bfq {
            slice_idle: 2_000_000,
            timeout_sync: 10_000_000,
            max_budget: 20,
            fifo_expire_sync: 5_000_000,
            fifo_expire_async: 10_000_000,
        },
        PolicySpec::Bfq {
            slice_idle: 0,
            timeout_sync: 0,
            max_budget: 1,
            fifo_expire_sync: 0,
            fifo_expire_async: 0,
        },
    ]);
    v
}

/// Builds the concrete policy type the spec names on `storage` and hands it to `f`.
pub(crate) fn with_concrete<S: Storage, R>(
    storage: S,
    spec: PolicySpec,
    cylinders: u32,
    f: impl FnOnce(&mut dyn Scheduler) -> R,
) -> R {
    let st = storage;
    match spec {
        PolicySpec::Fcfs => f(&mut Fcfs::new(st)),
        PolicySpec::Sstf => f(&mut Sstf::new(st, cylinders).unwrap()),
        PolicySpec::Scan => f(&mut Scan::new(st, cylinders).unwrap()),
        PolicySpec::Look => f(&mut Look::new(st, cylinders).unwrap()),
        PolicySpec::CScan => f(&mut CScan::new(st, cylinders).unwrap()),
        PolicySpec::CLook => f(&mut CLook::new(st, cylinders).unwrap()),
        PolicySpec::VScan { r } => f(&mut VScan::new(st, cylinders, r).unwrap()),
        PolicySpec::Edf => f(&mut Edf::new(st)),
        PolicySpec::Ssedo { m, beta } => f(&mut Ssedo::new(st, m, beta).unwrap()),
        PolicySpec::Ssedv { alpha, unit } => {
            f(&mut Ssedv::new(st, cylinders, alpha, unit).unwrap())
        }
        PolicySpec::ScanEdf { granularity } => {
            f(&mut ScanEdf::new(st, cylinders, granularity).unwrap())
        }
        PolicySpec::FdScan { expired } => f(&mut FdScan::new(st, cylinders, expired).unwrap()),
        PolicySpec::Sptf { window } => f(&mut Sptf::new(st, cylinders, window).unwrap()),
        PolicySpec::AgedSptf { weight, window } => {
            f(&mut AgedSptf::new(st, cylinders, weight, window).unwrap())
        }
        PolicySpec::SatfEw => f(&mut SatfEw::new(st, cylinders).unwrap()),
        PolicySpec::Bfq {
            slice_idle,
            timeout_sync,
            max_budget,
            fifo_expire_sync,
            fifo_expire_async,
        } => {
            let params = BfqParams {
                slice_idle,
                timeout_sync,
                max_budget: max_budget as u32,
                fifo_expire_sync,
                fifo_expire_async,
            };
            f(&mut Bfq::new(st, cylinders, params).unwrap())
        }
        PolicySpec::MqDeadline {
            read_expire,
            write_expire,
            fifo_batch,
            writes_starved,
        } => f(&mut MqDeadline::new(
            st,
            cylinders,
            read_expire,
            write_expire,
            fifo_batch,
            writes_starved,
        )
        .unwrap()),
    }
}

/// Runs the scenario on `AnyScheduler<Inline<N>>` built from the spec.
pub(crate) fn run_any<const N: usize>(
    spec: PolicySpec,
    sc: &Scenario,
    check: &mut dyn FnMut(&View, &Dispatch),
) -> Vec<Out> {
    let mut q: Box<AnyScheduler<Inline<N>>> =
        Box::new(spec.build(Inline::<N>::new(), sc.cylinders).unwrap());
    run(q.as_mut(), &spec, sc, check)
}

/// Runs the scenario on the concrete policy type over `Inline<N>`.
pub(crate) fn run_concrete<const N: usize>(
    spec: PolicySpec,
    sc: &Scenario,
    check: &mut dyn FnMut(&View, &Dispatch),
) -> Vec<Out> {
    with_concrete(Inline::<N>::new(), spec, sc.cylinders, |q| {
        run(q, &spec, sc, check)
    })
}

/// Runs the scenario on `AnyScheduler<Heap>` of `capacity` slots.
#[cfg(feature = "alloc")]
pub(crate) fn run_heap(
    capacity: usize,
    spec: PolicySpec,
    sc: &Scenario,
    check: &mut dyn FnMut(&View, &Dispatch),
) -> Vec<Out> {
    let storage = sched_core::Heap::new(capacity).unwrap();
    let mut q = spec.build(storage, sc.cylinders).unwrap();
    run(&mut q, &spec, sc, check)
}

/// Runs the scenario on the concrete policy type over `Heap` storage.
#[cfg(feature = "alloc")]
pub(crate) fn run_concrete_heap(
    capacity: usize,
    spec: PolicySpec,
    sc: &Scenario,
    check: &mut dyn FnMut(&View, &Dispatch),
) -> Vec<Out> {
    let storage = sched_core::Heap::new(capacity).unwrap();
    with_concrete(storage, spec, sc.cylinders, |q| run(q, &spec, sc, check))
}

// ---------------------------------------------------------------------------
// The brute-force model.

/// Arrival-then-id order, the tie-break every policy documents.
pub(crate) fn fifo_key(r: &Request) -> (Nanos, u64) {
    (r.arrival, r.id.0)
}

pub(crate) fn edf_key(r: &Request) -> (Nanos, Nanos, u64) {
    (r.deadline_key(), r.arrival, r.id.0)
}

pub(crate) fn distance(h: Head, r: &Request) -> u32 {
    h.cylinder.abs_diff(r.cylinder)
}

/// The nearest request at or above `h` (earliest on its cylinder).
pub(crate) fn nearest_up<'a>(cands: &[&'a Request], h: u32) -> Option<&'a Request> {
    cands
        .iter()
        .copied()
        .filter(|r| r.cylinder >= h)
        .min_by_key(|r| (r.cylinder, fifo_key(r)))
}

/// The nearest request at or below `h` (earliest on its cylinder).
pub(crate) fn nearest_down<'a>(cands: &[&'a Request], h: u32) -> Option<&'a Request> {
    cands
        .iter()
        .copied()
        .filter(|r| r.cylinder <= h)
        .min_by_key(|r| (std::cmp::Reverse(r.cylinder), fifo_key(r)))
}

/// The LOOK rule: the nearest request ahead (own cylinder included), else the
/// nearest behind with the direction reversed.
pub(crate) fn elevator<'a>(
    cands: &[&'a Request],
    h: u32,
    dir: Direction,
) -> Option<(&'a Request, Direction)> {
    let (ahead, behind) = match dir {
        Direction::Up => (nearest_up(cands, h), nearest_down(cands, h)),
        Direction::Down => (nearest_down(cands, h), nearest_up(cands, h)),
    };
    ahead
        .map(|r| (r, dir))
        .or_else(|| behind.map(|r| (r, dir.reversed())))
}

/// The `k` requests nearest the arm in (distance, arrival, id) order.
pub(crate) fn k_nearest<'a>(cands: &[&'a Request], h: Head, k: usize) -> Vec<&'a Request> {
    let mut v = cands.to_vec();
    v.sort_by_key(|r| (distance(h, r), fifo_key(r)));
    v.truncate(k);
    v
}

/// Exact ratio `p/q` for a β the tests use.
fn beta_ratio(beta: f64) -> Option<(u128, u128)> {
    if beta == 1.0 {
        Some((1, 1))
    } else if beta == 2.0 {
        Some((2, 1))
    } else if beta == 1.5 {
        Some((3, 2))
    } else {
        None
    }
}

/// Exact multiple of 2⁻¹⁶ for a weight the tests use.
fn dyadic(x: f64) -> Option<i128> {
    let scaled = x * 65_536.0;
    (scaled.fract() == 0.0 && (0.0..=65_536.0).contains(&scaled)).then_some(scaled as i128)
}

/// The model's memory between decisions: the sweep direction, and
/// mq-deadline's batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Model {
    pub(crate) spec: PolicySpec,
    pub(crate) direction: Direction,
    pub(crate) batch: Batch,
}

/// mq-deadline's state as its documentation describes it: the direction of
/// the batch in progress and how many requests it served, the read batches
/// chosen over waiting writes, the last cylinder served in each direction
/// (reads 0, writes 1).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Batch {
    pub(crate) direction: Option<usize>,
    pub(crate) served: usize,
    pub(crate) starved: usize,
    pub(crate) latest: [u32; 2],
}

impl Model {
    pub(crate) fn new(spec: PolicySpec) -> Self {
        Model {
            spec,
            direction: Direction::Up,
            batch: Batch::default(),
        }
    }

    /// The request the policy's definition serves, with its travel, computed
    /// by brute force over the queued requests; `None` for parameter values
    /// the model cannot compute exactly (it then checks nothing).
    pub(crate) fn expect(&mut self, v: &View) -> Option<(Request, Travel)> {
        let est = TestEstimator;
        let h = v.head;
        let now = v.now;
        let all: Vec<&Request> = v.live.values().collect();
        let pick = |r: Option<&Request>| r.copied();
        let direct = |r: Option<Request>| r.map(|r| (r, Travel::Direct));
        match self.spec {
            PolicySpec::Fcfs => direct(pick(all.iter().copied().min_by_key(|r| fifo_key(r)))),
            PolicySpec::Sstf => direct(pick(
                all.iter()
                    .copied()
                    .min_by_key(|r| (distance(h, r), fifo_key(r))),
            )),
            PolicySpec::VScan { r: 1.0 } => {
                let (r, d) = elevator(&all, h.cylinder, self.direction)?;
                self.direction = d;
                Some((*r, Travel::Direct))
            }
            PolicySpec::Look => {
                let (r, d) = elevator(&all, h.cylinder, self.direction)?;
                self.direction = d;
                Some((*r, Travel::Direct))
            }
            PolicySpec::Scan => {
                let (r, d) = elevator(&all, h.cylinder, self.direction)?;
                let edge = match self.direction {
                    Direction::Up => v.cylinders - 1,
                    Direction::Down => 0,
                };
                let travel = if d != self.direction && h.cylinder != edge {
                    Travel::ViaEdge { edge }
                } else {
                    Travel::Direct
                };
                self.direction = d;
                Some((*r, travel))
            }
            PolicySpec::CLook | PolicySpec::CScan => match nearest_up(&all, h.cylinder) {
                Some(r) => Some((*r, Travel::Direct)),
                None => {
                    let r = all
                        .iter()
                        .copied()
                        .min_by_key(|r| (r.cylinder, fifo_key(r)))?;
                    let travel = if matches!(self.spec, PolicySpec::CScan) {
                        Travel::Wrap {
                            edge: v.cylinders - 1,
                            restart: 0,
                        }
                    } else {
                        Travel::Direct
                    };
                    Some((*r, travel))
                }
            },
            PolicySpec::VScan { r: 0.0 } => {
                // SSTF, except that an equal distance keeps the direction.
                let (ahead, behind) = match self.direction {
                    Direction::Up => (nearest_up(&all, h.cylinder), nearest_down(&all, h.cylinder)),
                    Direction::Down => {
                        (nearest_down(&all, h.cylinder), nearest_up(&all, h.cylinder))
                    }
                };
                let take_behind = match (ahead, behind) {
                    (Some(a), Some(b)) => distance(h, b) < distance(h, a),
                    (None, Some(_)) => true,
                    _ => false,
                };
                if take_behind {
                    self.direction = self.direction.reversed();
                    Some((*behind?, Travel::Direct))
                } else {
                    Some((*ahead?, Travel::Direct))
                }
            }
            PolicySpec::VScan { .. } => None,
            PolicySpec::Edf => direct(pick(all.iter().copied().min_by_key(|r| edf_key(r)))),
            PolicySpec::Ssedo { m, beta } => {
                let (p, q) = beta_ratio(beta)?;
                let mut window = all.clone();
                window.sort_by_key(|r| edf_key(r));
                window.truncate(m);
                // w_i = (p/q)^(i-1); scaled by q^(m-1) to stay in integers.
                let weight = |i: usize| p.pow(i as u32) * q.pow((m - 1 - i) as u32);
                let best = window
                    .iter()
                    .enumerate()
                    .min_by_key(|(i, r)| (weight(*i) * u128::from(distance(h, r)), *i))?;
                Some((**best.1, Travel::Direct))
            }
            PolicySpec::Ssedv { alpha, unit } => {
                let a = dyadic(alpha)?;
                // Scaled by 2¹⁶·unit: α·d·unit + (1 − α)·(deadline − now).
                let value = |r: &Request| {
                    a * i128::from(distance(h, r)) * i128::from(unit)
                        + (65_536 - a) * (i128::from(r.deadline_key()) - i128::from(now))
                };
                direct(pick(
                    all.iter().copied().min_by_key(|r| (value(r), edf_key(r))),
                ))
            }
            PolicySpec::ScanEdf { granularity } => {
                let group = |r: &Request| r.deadline_key() / granularity;
                let g = all.iter().map(|r| group(r)).min()?;
                let cands: Vec<&Request> = all.iter().copied().filter(|r| group(r) == g).collect();
                let (r, d) = elevator(&cands, h.cylinder, self.direction)?;
                self.direction = d;
                Some((*r, Travel::Direct))
            }
            PolicySpec::FdScan { expired } => {
                let cands: Vec<&Request> = all
                    .iter()
                    .copied()
                    .filter(|r| expired == ExpiredRule::Keep || r.deadline_key() >= now)
                    .collect();
                let target = cands
                    .iter()
                    .copied()
                    .filter(|r| {
                        r.deadline.is_some_and(|d| {
                            d != Nanos::MAX && d >= now && d >= now + est.service_time(h, r, now)
                        })
                    })
                    .min_by_key(|r| edf_key(r));
                match target {
                    Some(t) => {
                        let dir = match t.cylinder.cmp(&h.cylinder) {
                            std::cmp::Ordering::Greater => Direction::Up,
                            std::cmp::Ordering::Less => Direction::Down,
                            std::cmp::Ordering::Equal => self.direction,
                        };
                        self.direction = dir;
                        let r = match dir {
                            Direction::Up => nearest_up(&cands, h.cylinder),
                            Direction::Down => nearest_down(&cands, h.cylinder),
                        }?;
                        Some((*r, Travel::Direct))
                    }
                    None => {
                        let (r, d) = elevator(&cands, h.cylinder, self.direction)?;
                        self.direction = d;
                        Some((*r, Travel::Direct))
                    }
                }
            }
            PolicySpec::Sptf { window } => {
                let cands = k_nearest(&all, h, window.unwrap_or(usize::MAX));
                direct(pick(cands.iter().copied().min_by_key(|r| {
                    (est.positioning_time(h, r, now), fifo_key(r))
                })))
            }
            PolicySpec::AgedSptf { weight, window } => {
                let w = dyadic(weight)?;
                let cands = k_nearest(&all, h, window.unwrap_or(usize::MAX));
                direct(pick(cands.iter().copied().min_by_key(|r| {
                    let pos = i128::from(est.positioning_time(h, r, now)) << 16;
                    (
                        pos - w * i128::from(now.saturating_sub(r.arrival)),
                        fifo_key(r),
                    )
                })))
            }
            PolicySpec::MqDeadline {
                read_expire,
                write_expire,
                fifo_batch,
                writes_starved,
            } => {
                let direction = |r: &Request| usize::from(r.kind == Kind::Write);
                let in_order = |d: usize, from: u32| {
                    all.iter()
                        .copied()
                        .filter(|r| direction(r) == d && r.cylinder >= from)
                        .min_by_key(|r| (r.cylinder, fifo_key(r)))
                };
                let oldest = |d: usize| {
                    all.iter()
                        .copied()
                        .filter(|r| direction(r) == d)
                        .min_by_key(|r| fifo_key(r))
                };
                let b = &mut self.batch;
                if let Some(d) = b.direction
                    && b.served < fifo_batch
                    && let Some(r) = in_order(d, b.latest[d])
                {
                    b.served += 1;
                    b.latest[d] = r.cylinder;
                    return Some((*r, Travel::Direct));
                }
                let writes = oldest(1).is_some();
                let d = if oldest(0).is_some() {
                    let switch = writes && b.starved >= writes_starved;
                    if writes {
                        b.starved += 1;
                    }
                    usize::from(switch)
                } else if writes {
                    1
                } else {
                    return None;
                };
                if d == 1 {
                    b.starved = 0;
                }
                let expire = [read_expire, write_expire][d];
                let first = oldest(d)?;
                let expired = now >= first.arrival.saturating_add(expire);
                let r = match in_order(d, b.latest[d]) {
                    Some(r) if !expired => r,
                    _ => first,
                };
                b.direction = Some(d);
                b.served = 1;
                b.latest[d] = r.cylinder;
                Some((*r, Travel::Direct))
            }
            // BFQ's choices depend on virtual times and idling: its own
            // tests (`tests/linux.rs`) check them.
            PolicySpec::Bfq { .. } => None,
            PolicySpec::SatfEw => {
                // The test estimator knows no free space: writes are served
                // in place, and SATF-EW is SATF within the sweep.
                let ahead = |dir: Direction| {
                    all.iter()
                        .copied()
                        .filter(|r| match dir {
                            Direction::Up => r.cylinder >= h.cylinder,
                            Direction::Down => r.cylinder <= h.cylinder,
                        })
                        .min_by_key(|r| (est.positioning_time(h, r, now), fifo_key(r)))
                };
                let (r, d) = match ahead(self.direction) {
                    Some(r) => (r, self.direction),
                    None => (ahead(self.direction.reversed())?, self.direction.reversed()),
                };
                self.direction = d;
                Some((*r, Travel::Direct))
            }
        }
    }

    /// Asserts the dispatch is the one the definition serves (when the model
    /// computes this spec exactly).
    pub(crate) fn check(&mut self, v: &View, d: &Dispatch) {
        if let Some((r, travel)) = self.expect(v) {
            assert_eq!(
                (d.request, d.travel),
                (r, travel),
                "{}: served {:?} from head {} at {}; the definition serves {:?}",
                self.spec,
                d.request,
                v.head.cylinder,
                v.now,
                r
            );
        }
    }
}
