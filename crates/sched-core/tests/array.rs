//! Invariants of every array policy, driven by a small virtual-time loop with
//! random service times: each read completes exactly once (also when it runs
//! on several disks), an update completes only after every disk wrote it,
//! cancelled and aborted work never reports completion, every disk receives
//! every update exactly once (in the same order where the disciplines are
//! FCFS), and a full array refuses work without losing any.

use proptest::prelude::*;
use sched_core::array::{AnyArray, ArrayPolicy, ArraySpec, DiskSet};
use sched_core::{Head, Kind, NullEstimator, Request, RequestId, SchedError, ServiceEstimator};

const D: usize = 2;
const CAP: usize = 16;
const CYLINDERS: u32 = 200;

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
            .prop_map(
                |(gap, write, cylinder, other_cylinder, cancel_after)| Arrival {
                    gap,
                    write,
                    cylinder,
                    other_cylinder,
                    cancel_after,
                },
            ),
        1..120,
    )
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
}

#[derive(Default)]
struct Outcome {
    finished: Vec<RequestId>,
    cancelled: Vec<RequestId>,
    refused: Vec<RequestId>,
    writes: [Vec<RequestId>; D],
}

fn drive(spec: &ArraySpec, script: &[Arrival], seed: u64) -> Outcome {
    let mut policy = spec.build::<CAP, D>(CYLINDERS, seed).unwrap();
    let mut rng = Rng(seed | 1);
    let mut heads = [Head::at(0); D];
    let est: [&dyn ServiceEstimator; D] = [&NullEstimator; D];
    let mut busy: [Option<(u64, Request)>; D] = [None; D];
    let mut out = Outcome::default();
    let mut now = 0u64;
    let mut next_arrival = 0usize;
    let mut arrival_at = script[0].gap;
    let mut cancels: Vec<(u64, RequestId)> = Vec::new();
    loop {
        let next_done = (0..D).filter_map(|d| busy[d].map(|(t, _)| (t, d))).min();
        let next_cancel = cancels.iter().map(|c| c.0).min();
        let arrival = (next_arrival < script.len()).then_some(arrival_at);
        let t = [next_done.map(|x| x.0), next_cancel, arrival]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = t else { break };
        now = now.max(t);
        if next_done.is_some_and(|(t, _)| t == now) {
            let (_, d) = next_done.unwrap();
            let (_, op) = busy[d].take().unwrap();
            heads[d] = Head::at(op.cylinder);
            if op.kind == Kind::Write {
                out.writes[d].push(op.id);
            }
            let c = policy.complete(d, now).unwrap();
            for e in c.abort.iter() {
                assert!(busy[e].take().is_some(), "abort of an idle disk");
            }
            if let Some(r) = c.finished {
                if r.kind == Kind::Write {
                    for (e, writes) in out.writes.iter().enumerate() {
                        assert!(
                            writes.contains(&r.id),
                            "{spec}: update {} completed before disk {e} wrote it",
                            r.id
                        );
                    }
                }
                out.finished.push(r.id);
            }
        } else if next_cancel == Some(now) {
            let i = cancels.iter().position(|c| c.0 == now).unwrap();
            let (_, id) = cancels.remove(i);
            match policy.cancel(id) {
                Ok(r) => out.cancelled.push(r.id),
                Err(SchedError::UnknownId(_)) | Err(SchedError::InvalidRequest { .. }) => {}
                Err(e) => panic!("unexpected cancel error {e}"),
            }
        } else {
            let a = &script[next_arrival];
            let id = RequestId(next_arrival as u64);
            let kind = if a.write { Kind::Write } else { Kind::Read };
            let req = Request::new(id, kind, a.cylinder as u64 * 10, 1, a.cylinder, now)
                .with_deadline(now + 50 + a.gap * 3);
            match policy.submit(req, [a.cylinder, a.other_cylinder], &heads, now) {
                Ok(()) => {
                    if let Some(k) = a.cancel_after {
                        cancels.push((now + k as u64, id));
                    }
                }
                Err(SchedError::QueueFull { .. }) => out.refused.push(id),
                Err(e) => panic!("unexpected submit error {e}"),
            }
            next_arrival += 1;
            if next_arrival < script.len() {
                arrival_at = now + script[next_arrival].gap;
            }
        }
        while let Some(s) = policy.poll_start(&heads, now, &est) {
            assert!(
                busy[s.disk].is_none(),
                "{spec}: started disk {} while busy",
                s.disk
            );
            let service = 1 + rng.next() % 40;
            busy[s.disk] = Some((now + service, s.dispatch.request));
        }
        // CMQ: only the disk that lags behind ever has writes waiting in its
        // auxiliary queue (Towsley, Chen & Yu 1991, §3.3).
        if let AnyArray::Cmq(cmq) = &policy {
            assert!(cmq.lagging().len() <= 1, "{spec}: two lagging disks");
        }
    }
    assert_eq!(policy.in_system(), 0, "{spec}: requests left behind");
    for d in 0..D {
        assert!(!policy.is_busy(d));
    }
    out
}

fn fcfs_everywhere(spec: &ArraySpec) -> bool {
    use sched_core::PolicySpec::Fcfs;
    match spec {
        ArraySpec::Dmq { queue, .. } => *queue == Fcfs,
        ArraySpec::Cmq { common, aux } => *common == Fcfs && *aux == Fcfs,
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_request_is_accounted_for_exactly_once(script in arrivals(), seed in 1u64..1000) {
        for (name, spec) in ArraySpec::NAMED {
            let out = drive(&spec, &script, seed);
            let mut seen = vec![0u8; script.len()];
            for id in out.finished.iter().chain(&out.cancelled).chain(&out.refused) {
                seen[id.0 as usize] += 1;
            }
            prop_assert!(seen.iter().all(|&n| n == 1), "{name}: {seen:?}");
            for id in &out.finished {
                prop_assert!(!out.cancelled.contains(id), "{name}: cancelled {id} completed");
            }
            // Updates: written on every disk before completing; never more than once per disk.
            for (i, a) in script.iter().enumerate() {
                let id = RequestId(i as u64);
                let on_disk: Vec<usize> = (0..D).map(|d| out.writes[d].iter().filter(|&&w| w == id).count()).collect();
                if a.write && out.finished.contains(&id) {
                    prop_assert_eq!(&on_disk, &vec![1; D], "{}: update {} writes {:?}", name, id, on_disk);
                } else if a.write && out.cancelled.contains(&id) {
                    prop_assert_eq!(&on_disk, &vec![0; D], "{}: cancelled update {} was written", name, id);
                }
            }
            if fcfs_everywhere(&spec) {
                prop_assert_eq!(&out.writes[0], &out.writes[1], "{}: FCFS disciplines write in one order", name);
            }
        }
    }

    #[test]
    fn same_inputs_same_outcome(script in arrivals(), seed in 1u64..1000) {
        for (_, spec) in ArraySpec::NAMED {
            let a = drive(&spec, &script, seed);
            let b = drive(&spec, &script, seed);
            prop_assert_eq!(a.finished, b.finished);
            prop_assert_eq!(a.writes, b.writes);
        }
    }
}

#[test]
fn a_full_array_refuses_and_loses_nothing() {
    for (name, spec) in ArraySpec::NAMED {
        let mut policy = spec.build::<4, D>(CYLINDERS, 1).unwrap();
        let heads = [Head::at(0); D];
        for i in 0..4u64 {
            let r = Request::new(RequestId(i), Kind::Write, i, 1, i as u32, 0);
            policy.submit(r, [i as u32; D], &heads, 0).unwrap();
        }
        let extra = Request::new(RequestId(9), Kind::Read, 9, 1, 9, 0);
        assert_eq!(
            policy.submit(extra, [9; D], &heads, 0),
            Err(SchedError::QueueFull { capacity: 4 }),
            "{name}"
        );
        assert_eq!(policy.in_system(), 4, "{name}");
        let dup = Request::new(RequestId(2), Kind::Read, 2, 1, 2, 0);
        assert!(
            matches!(
                policy.submit(dup, [2; D], &heads, 0),
                Err(SchedError::QueueFull { .. } | SchedError::DuplicateId(_))
            ),
            "{name}"
        );
        assert_eq!(
            policy.complete(0, 0),
            Err(SchedError::IdleDisk { disk: 0 }),
            "{name}"
        );
    }
}

#[test]
fn mr_esq_aborts_the_slower_copy() {
    let spec: ArraySpec = "mr-esq".parse().unwrap();
    let mut policy = spec.build::<4, D>(CYLINDERS, 1).unwrap();
    let heads = [Head::at(0); D];
    let est: [&dyn ServiceEstimator; D] = [&NullEstimator; D];
    policy
        .submit(
            Request::new(RequestId(1), Kind::Read, 0, 1, 5, 0),
            [5, 7],
            &heads,
            0,
        )
        .unwrap();
    let a = policy.poll_start(&heads, 0, &est).unwrap();
    let b = policy.poll_start(&heads, 0, &est).unwrap();
    assert_eq!((a.disk, b.disk), (0, 1));
    assert_eq!(
        (a.dispatch.request.cylinder, b.dispatch.request.cylinder),
        (5, 7)
    );
    let c = policy.complete(1, 10).unwrap();
    assert_eq!(c.finished.map(|r| r.id), Some(RequestId(1)));
    assert_eq!(c.abort, DiskSet::only(0));
    assert!(!policy.is_busy(0) && !policy.is_busy(1));
}

#[test]
fn cmq_sends_the_lagging_write_to_the_auxiliary_queue() {
    let spec: ArraySpec = "cmq".parse().unwrap();
    let mut policy = spec.build::<8, D>(CYLINDERS, 1).unwrap();
    let heads = [Head::at(0); D];
    let est: [&dyn ServiceEstimator; D] = [&NullEstimator; D];
    // A read occupies disk 0; an update then starts on disk 1 and its write for
    // disk 0 waits in disk 0's auxiliary queue.
    policy
        .submit(
            Request::new(RequestId(1), Kind::Read, 0, 1, 5, 0),
            [5, 5],
            &heads,
            0,
        )
        .unwrap();
    assert_eq!(policy.poll_start(&heads, 0, &est).map(|s| s.disk), Some(0));
    policy
        .submit(
            Request::new(RequestId(2), Kind::Write, 0, 1, 6, 1),
            [6, 6],
            &heads,
            1,
        )
        .unwrap();
    assert_eq!(policy.poll_start(&heads, 1, &est).map(|s| s.disk), Some(1));
    assert_eq!(policy.poll_start(&heads, 1, &est), None);
    assert_eq!(policy.queue_lengths().aux, [1, 0]);
    assert_eq!(policy.complete(1, 5).unwrap().finished, None);
    assert_eq!(
        policy.complete(0, 6).unwrap().finished.map(|r| r.id),
        Some(RequestId(1))
    );
    let s = policy.poll_start(&heads, 6, &est).unwrap();
    assert_eq!((s.disk, s.dispatch.request.id), (0, RequestId(2)));
    assert_eq!(
        policy.complete(0, 9).unwrap().finished.map(|r| r.id),
        Some(RequestId(2))
    );
}

#[test]
fn specs_parse_print_and_reparse() {
    for (name, spec) in ArraySpec::NAMED {
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
}
