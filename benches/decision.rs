//! Decision cost of every sched-core policy: one enqueue plus one dispatch at a
//! constant queue depth (the workload of `spindle::decision_cost`, which
//! `spindle bench sched` measures too), on heap and inline storage, next to naive
//! linear-scan SSTF and EDF and to the idiomatic std-collections versions a
//! Rust user would write instead (SSTF and LOOK over a `BTreeMap` keyed by
//! cylinder, EDF over a `BinaryHeap`, each with a `HashMap` for cancel).
//!
//! Each policy gets a queue whose capacity is the depth. It is prefilled with
//! `depth` random requests; every iteration then dispatches one request (the
//! arm moves to its cylinder, the clock advances by a nominal service time) and
//! enqueues one fresh random request, so every decision is taken over exactly
//! `depth` queued requests. Cylinders are uniform over the 1962 cylinders of an
//! HP 97560, deadlines are arrival plus a uniform slack of up to twice the
//! expected queueing delay (so some requests expire and most do not), and a
//! cheap closed-form estimator stands in for a disk model where SPTF and
//! FD-SCAN need one. Times are per request: one enqueue plus one dispatch (or,
//! for FD-SCAN in drop mode, one enqueue plus one hand-over of an expired
//! request), amortised.
//!
//! The array policies are measured the same way per *logical* request: DMQ
//! and CMQ over SSTF and SSEDO hold 4096 logical requests (three reads to one
//! update, copies at the same cylinder on both disks); each iteration reports
//! the next operation completion (the disks alternate), starts what the
//! policy allows, and submits a fresh request for every one that completes.
//! Their cost per logical request sits next to the single-disk policy they
//! wrap, in the same run (`array4096/...` against `depth4096/...`).
//!
//! In `depthN/NAME` the policy runs on [`Boxed`] storage (heap arrays of a
//! compile-time capacity, the emulator's); `depth4096/NAME-inline` and
//! `depth4096/NAME-heap` are the same policy on [`Inline`] and run-time-sized
//! [`Heap`] storage, and `std-sstf`, `std-look`, `std-edf` are the
//! std-collections references.
//!
//! Run with `cargo bench --bench decision`; add a filter such as `depth4096`,
//! `array4096` or `wrr4096` to run one group. WRR-SCAN-CA (100 rate-based
//! tasks admitted, requests spread uniformly over them and the aperiodic
//! server; when the policy holds work until its next round the simulated
//! disk waits) is measured in `wrr4096` next to LOOK and SCAN-EDF, with the
//! cost of its admission test into a set of 100 tasks;
//! `cargo bench --bench decision -- --wrr` prints just its ratios.
//! Linux's mq-deadline and BFQ are among the policies of every group;
//! `cargo bench --bench decision -- --linux` prints their ratios to SSTF.
//!
//! `cargo bench --bench decision -- --ratios` prints instead the ratios the
//! targets are stated in, robust to a busy machine: at depth 4096 it times
//! heap storage, inline storage and the std-collections reference of each
//! policy in turn, 50,000 requests each, over 15 interleaved rounds, and
//! reports the median of each round's ratio (heap / inline, heap / std),
//! and likewise each array policy against the policy it wraps
//! (`-- --arrays` prints only the arrays').
//!
//! `cargo bench --bench decision -- --one SPEC REQUESTS` runs one policy
//! alone, array or single-disk, at depth 4096 for `REQUESTS` requests after
//! its prefill, and prints its time per request: a process to profile or to
//! count instructions of (`perf stat`, `valgrind --tool=cachegrind`; two
//! counts at different `REQUESTS` cancel the prefill).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group};
use sched_core::array::ArraySpec;
use sched_core::policy::{AperiodicReserve, RateTask, WrrMode, WrrParams, WrrScan};
use sched_core::{
    AnyScheduler, Boxed, CancelError, Cylinder, Direction, Dispatch, EnqueueError, ExpiredRule,
    Head, Heap, Inline, Nanos, PolicySpec, Request, RequestId, Scheduler, ServiceEstimator,
};
use spindle::decision_cost::{
    ArrayRun, CYLINDERS, Rng, median, ns_per_request, per_request, prefill,
};

/// The naive reference: an unordered `Vec`, scanned in full at each decision.
struct Naive {
    queue: Vec<Request>,
    edf: bool,
}

impl Scheduler for Naive {
    fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
        self.queue.push(req);
        Ok(())
    }
    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let i = if self.edf {
            (0..self.queue.len()).min_by_key(|&i| {
                let r = &self.queue[i];
                (r.deadline_key(), r.arrival, r.id)
            })?
        } else {
            (0..self.queue.len()).min_by_key(|&i| {
                let r = &self.queue[i];
                (r.cylinder.abs_diff(head.cylinder), r.arrival, r.id)
            })?
        };
        Some(Dispatch::direct(self.queue.swap_remove(i)))
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let i = self
            .queue
            .iter()
            .position(|r| r.id == id)
            .ok_or(CancelError::UnknownId(id))?;
        Ok(self.queue.swap_remove(i))
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
    fn capacity(&self) -> usize {
        usize::MAX
    }
    fn contains(&self, id: RequestId) -> bool {
        self.queue.iter().any(|r| r.id == id)
    }
    fn pop_any(&mut self) -> Option<Request> {
        self.queue.pop()
    }
}

/// Sort key of the std-collections cylinder queues: cylinder, arrival, id.
type CylinderKey = (Cylinder, Nanos, u64);

/// The std-collections SSTF and LOOK a Rust user would write: a `BTreeMap`
/// ordered by cylinder, and a `HashMap` from id to key for cancel.
struct StdCylinders {
    by_cylinder: BTreeMap<CylinderKey, Request>,
    keys: HashMap<RequestId, CylinderKey>,
    /// `None` for SSTF; the sweep direction for LOOK.
    sweep: Option<Direction>,
}

impl StdCylinders {
    fn new(sweep: Option<Direction>) -> Self {
        StdCylinders {
            by_cylinder: BTreeMap::new(),
            keys: HashMap::new(),
            sweep,
        }
    }

    fn above(&self, h: Cylinder) -> Option<CylinderKey> {
        self.by_cylinder.range((h, 0, 0)..).next().map(|(k, _)| *k)
    }

    fn below(&self, h: Cylinder) -> Option<CylinderKey> {
        self.by_cylinder
            .range(..(h, 0, 0))
            .next_back()
            .map(|(k, _)| *k)
    }
}

impl Scheduler for StdCylinders {
    fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
        let key = (req.cylinder, req.arrival, req.id.0);
        if self.keys.insert(req.id, key).is_some() {
            return Err(EnqueueError::DuplicateId(req.id));
        }
        self.by_cylinder.insert(key, req);
        Ok(())
    }
    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let h = head.cylinder;
        let key = match self.sweep {
            None => match (self.above(h), self.below(h)) {
                (Some(u), Some(d)) => {
                    if u.0 - h <= h - d.0 {
                        u
                    } else {
                        d
                    }
                }
                (u, d) => u.or(d)?,
            },
            Some(direction) => {
                let (ahead, behind) = match direction {
                    Direction::Up => (self.above(h), self.below(h)),
                    Direction::Down => (self.below(h), self.above(h)),
                };
                match ahead {
                    Some(k) => k,
                    None => {
                        self.sweep = Some(direction.reversed());
                        behind?
                    }
                }
            }
        };
        let req = self.by_cylinder.remove(&key)?;
        self.keys.remove(&req.id);
        Some(Dispatch::direct(req))
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let key = self.keys.remove(&id).ok_or(CancelError::UnknownId(id))?;
        self.by_cylinder
            .remove(&key)
            .ok_or(CancelError::UnknownId(id))
    }
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn capacity(&self) -> usize {
        usize::MAX
    }
    fn contains(&self, id: RequestId) -> bool {
        self.keys.contains_key(&id)
    }
    fn pop_any(&mut self) -> Option<Request> {
        let (_, req) = self.by_cylinder.pop_first()?;
        self.keys.remove(&req.id);
        Some(req)
    }
}

/// The std-collections EDF a Rust user would write: a `BinaryHeap` of
/// (deadline, arrival, id), requests in a `HashMap`; a cancelled request
/// stays in the heap and is skipped when it surfaces.
#[derive(Default)]
struct StdEdf {
    heap: BinaryHeap<Reverse<(Nanos, Nanos, u64)>>,
    queued: HashMap<RequestId, Request>,
}

impl Scheduler for StdEdf {
    fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
        if self.queued.insert(req.id, req).is_some() {
            return Err(EnqueueError::DuplicateId(req.id));
        }
        self.heap
            .push(Reverse((req.deadline_key(), req.arrival, req.id.0)));
        Ok(())
    }
    fn next(&mut self, _head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        while let Some(Reverse((_, _, id))) = self.heap.pop() {
            if let Some(req) = self.queued.remove(&RequestId(id)) {
                return Some(Dispatch::direct(req));
            }
        }
        None
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        self.queued.remove(&id).ok_or(CancelError::UnknownId(id))
    }
    fn len(&self) -> usize {
        self.queued.len()
    }
    fn capacity(&self) -> usize {
        usize::MAX
    }
    fn contains(&self, id: RequestId) -> bool {
        self.queued.contains_key(&id)
    }
    fn pop_any(&mut self) -> Option<Request> {
        let id = *self.queued.keys().next()?;
        self.queued.remove(&id)
    }
}

/// The policies measured: every default, plus the variants whose cost differs.
fn specs() -> Vec<(String, PolicySpec)> {
    let mut v: Vec<(String, PolicySpec)> = PolicySpec::DEFAULTS
        .iter()
        .map(|s| (s.name().to_string(), *s))
        .collect();
    v.push((
        "fd-scan-drop".into(),
        PolicySpec::FdScan {
            expired: ExpiredRule::Drop,
        },
    ));
    v.push(("sptf-w32".into(), PolicySpec::Sptf { window: Some(32) }));
    v.push((
        "aged-sptf-w32".into(),
        PolicySpec::AgedSptf {
            weight: 0.01,
            window: Some(32),
        },
    ));
    v
}

fn measure<S: Scheduler + ?Sized>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    queue: &mut S,
    depth: usize,
) {
    let mut w = prefill(queue, depth);
    group.bench_function(BenchmarkId::from_parameter(name), |b| {
        b.iter_custom(|n| per_request(queue, &mut w, n))
    });
}

/// Every policy at `depth` on boxed storage (the emulator's), the references
/// beside it, and (`variants`) every policy on inline and on run-time-sized
/// heap storage of the same depth.
fn bench_depth<const N: usize>(c: &mut Criterion, variants: bool) {
    let mut group = c.benchmark_group(format!("depth{N}"));
    for (name, spec) in specs() {
        let mut queue = spec
            .build(Boxed::<N>::new(), CYLINDERS)
            .expect("valid spec");
        measure(&mut group, &name, &mut queue, N);
        if variants {
            // Built in its box: a 4096-deep inline queue is ~250 KB.
            let mut queue: Box<AnyScheduler<Inline<N>>> =
                Box::new(spec.build(Inline::new(), CYLINDERS).expect("valid spec"));
            measure(&mut group, &format!("{name}-inline"), queue.as_mut(), N);
            let heap = Heap::new(N).expect("a valid depth");
            let mut queue = spec.build(heap, CYLINDERS).expect("valid spec");
            measure(&mut group, &format!("{name}-heap"), &mut queue, N);
        }
    }
    for (name, edf) in [("naive-sstf", false), ("naive-edf", true)] {
        let mut queue = Naive {
            queue: Vec::with_capacity(N + 1),
            edf,
        };
        measure(&mut group, name, &mut queue, N);
    }
    measure(&mut group, "std-sstf", &mut StdCylinders::new(None), N);
    measure(
        &mut group,
        "std-look",
        &mut StdCylinders::new(Some(Direction::Up)),
        N,
    );
    measure(&mut group, "std-edf", &mut StdEdf::default(), N);
    group.finish();
}

/// Logical requests held by each array benchmark.
const ARRAY_DEPTH: usize = 4096;

/// `spec` on a mirrored pair holding [`ARRAY_DEPTH`] logical requests.
fn array_run(spec: &ArraySpec) -> ArrayRun<Boxed<ARRAY_DEPTH>> {
    ArrayRun::new(spec, Boxed::new(), ARRAY_DEPTH).expect("valid spec")
}

fn bench_arrays(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("array{ARRAY_DEPTH}"));
    for name in [
        "sq-dmq:queue=sstf",
        "sq-dmq:queue=ssedo",
        "cmq:common=sstf,aux=sstf",
        "cmq:common=ssedo,aux=sstf",
    ] {
        let spec: ArraySpec = name.parse().expect("a built-in array policy");
        let mut run = array_run(&spec);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|n| run.per_request(n))
        });
    }
    group.finish();
}

fn decision(c: &mut Criterion) {
    bench_depth::<8>(c, false);
    bench_depth::<64>(c, false);
    bench_depth::<512>(c, false);
    bench_depth::<4096>(c, true);
    bench_wrr(c);
    bench_arrays(c);
}

/// Rate-based tasks admitted in the WRR-SCAN benchmarks: 14 blocks every
/// 5 s (the paper's means), as many as WRR-SCAN-CA admits with a 0.5 %
/// aperiodic share.
const WRR_TASKS: u16 = 100;

/// WRR-SCAN-CA with [`WRR_TASKS`] tasks admitted, on boxed storage.
fn wrr_scan(depth_storage: Boxed<4096>) -> WrrScan<Boxed<4096>, Boxed<256>> {
    let params = WrrParams::tsai04(WrrMode::Aligned, AperiodicReserve::Share { ppm: 5_000 });
    let mut q = WrrScan::new(depth_storage, Boxed::new(), CYLINDERS, params).expect("valid");
    for class in 1..=WRR_TASKS {
        q.admit(wrr_task(class)).expect("the set is schedulable");
    }
    q
}

/// Task `class`: periods spread ±20 ms around 5 s.
fn wrr_task(class: u16) -> RateTask {
    RateTask {
        class,
        period: 5_000_000_000 + (u64::from(class) * 7_919_993) % 40_000_000 - 20_000_000,
        blocks: 14,
    }
}

/// WRR-SCAN driven as a disk would drive it: each request gets a class
/// (uniform over the admitted tasks and the aperiodic server), and when the
/// policy holds its work until the next round the disk waits for it (the
/// wait is kept as a clock skew, so the workload's own clock is untouched).
struct WrrDriver {
    q: WrrScan<Boxed<4096>, Boxed<256>>,
    rng: Rng,
    skew: Nanos,
}

impl Scheduler for WrrDriver {
    fn enqueue(&mut self, mut req: Request) -> Result<(), EnqueueError> {
        req.class = self.rng.below(u64::from(WRR_TASKS) + 1) as u16;
        self.q.enqueue(req)
    }
    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        loop {
            let t = now + self.skew;
            if let Some(d) = self.q.next(head, t, est) {
                return Some(d);
            }
            let wake = self.q.next_eligible_at(t)?;
            self.skew += wake - t;
        }
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        self.q.cancel(id)
    }
    fn len(&self) -> usize {
        self.q.len()
    }
    fn capacity(&self) -> usize {
        self.q.capacity()
    }
    fn contains(&self, id: RequestId) -> bool {
        self.q.contains(id)
    }
    fn pop_any(&mut self) -> Option<Request> {
        self.q.pop_any()
    }
}

fn wrr_driver() -> WrrDriver {
    WrrDriver {
        q: wrr_scan(Boxed::new()),
        rng: Rng(0xC1A55),
        skew: 0,
    }
}

/// WRR-SCAN-CA at depth 4096 next to LOOK and SCAN-EDF measured in the same
/// group, and the cost of admission into a set of [`WRR_TASKS`].
fn bench_wrr(c: &mut Criterion) {
    let mut group = c.benchmark_group("wrr4096");
    measure(&mut group, "wrr-scan-ca", &mut wrr_driver(), 4096);
    for name in ["look", "scan-edf"] {
        let spec: PolicySpec = name.parse().expect("a built-in policy");
        let mut queue = spec.build(Boxed::<4096>::new(), CYLINDERS).expect("valid");
        measure(&mut group, name, &mut queue, 4096);
    }
    let set = wrr_scan(Boxed::new());
    let newcomer = RateTask {
        class: WRR_TASKS + 1,
        period: 5_000_000_000,
        blocks: 14,
    };
    group.bench_function("admission-test-into-100", |b| {
        b.iter(|| black_box(set.try_admit(black_box(newcomer))))
    });
    let mut set = wrr_scan(Boxed::new());
    group.bench_function("admit-and-remove-into-100", |b| {
        b.iter(|| {
            black_box(set.admit(black_box(newcomer)).expect("fits"));
            black_box(set.remove(newcomer.class));
        })
    });
    group.finish();
}

fn config() -> Criterion {
    // Short runs: the machine is shared, so rely on medians and ratios.
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = decision
}

/// The interleaved ratio measurement described in the module documentation.
fn ratios() {
    single_disk_ratios();
    println!();
    array_ratios();
}

/// The single-disk half of [`ratios`].
fn single_disk_ratios() {
    const DEPTH: usize = 4096;
    const ROUNDS: usize = 15;
    const REQUESTS: u64 = 50_000;
    let heap = Heap::new(DEPTH).expect("a valid depth");
    let std_reference = |name: &str| -> Option<Box<dyn Scheduler>> {
        match name {
            "sstf" => Some(Box::new(StdCylinders::new(None))),
            "look" => Some(Box::new(StdCylinders::new(Some(Direction::Up)))),
            "edf" => Some(Box::new(StdEdf::default())),
            _ => None,
        }
    };
    println!("depth {DEPTH}, median of {ROUNDS} interleaved rounds of {REQUESTS} requests");
    println!(
        "{:<14} {:>7} {:>7} {:>7} {:>7} {:>12} {:>11} {:>10}",
        "policy", "inline", "boxed", "heap", "std", "boxed/inline", "heap/inline", "boxed/std"
    );
    for (name, spec) in specs()
        .into_iter()
        .filter(|(n, _)| !n.starts_with("sptf") && n != "aged-sptf")
    {
        let mut inline: Box<AnyScheduler<Inline<DEPTH>>> =
            Box::new(spec.build(Inline::new(), CYLINDERS).expect("valid spec"));
        let mut boxed = spec
            .build(Boxed::<DEPTH>::new(), CYLINDERS)
            .expect("valid spec");
        let mut on_heap = spec.build(heap, CYLINDERS).expect("valid spec");
        let mut reference = std_reference(&name);
        let mut w_inline = prefill(inline.as_mut(), DEPTH);
        let mut w_boxed = prefill(&mut boxed, DEPTH);
        let mut w_heap = prefill(&mut on_heap, DEPTH);
        let mut w_std = reference.as_mut().map(|q| prefill(q.as_mut(), DEPTH));
        // Times per round: inline, boxed, heap, std.
        let mut t: [Vec<f64>; 4] = Default::default();
        for _ in 0..ROUNDS {
            t[0].push(ns_per_request(inline.as_mut(), &mut w_inline, REQUESTS));
            t[1].push(ns_per_request(&mut boxed, &mut w_boxed, REQUESTS));
            t[2].push(ns_per_request(&mut on_heap, &mut w_heap, REQUESTS));
            if let (Some(q), Some(w)) = (reference.as_mut(), w_std.as_mut()) {
                t[3].push(ns_per_request(q.as_mut(), w, REQUESTS));
            }
        }
        let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
        let (std_ns, boxed_std) = if t[3].is_empty() {
            (String::from("-"), String::from("-"))
        } else {
            (
                format!("{:.0}", median(t[3].clone())),
                format!("{:.2}", ratio(&t[1], &t[3])),
            )
        };
        println!(
            "{:<14} {:>7.0} {:>7.0} {:>7.0} {:>7} {:>12.3} {:>11.3} {:>10}",
            name,
            median(t[0].clone()),
            median(t[1].clone()),
            median(t[2].clone()),
            std_ns,
            ratio(&t[1], &t[0]),
            ratio(&t[2], &t[0]),
            boxed_std
        );
    }
}

/// The array half of [`ratios`]: each array policy against the policy it
/// wraps (`--arrays` alone).
fn array_ratios() {
    const ROUNDS: usize = 15;
    const REQUESTS: u64 = 50_000;
    println!(
        "{:<26} {:>9} {:>12} {:>9} {:>7}",
        "array policy (2 disks)", "array ns", "wraps", "wrapped ns", "ratio"
    );
    for (array, wrapped) in [
        ("sq-dmq:queue=sstf", "sstf"),
        ("sq-dmq:queue=ssedo", "ssedo"),
        ("cmq:common=sstf,aux=sstf", "sstf"),
        ("cmq:common=ssedo,aux=sstf", "ssedo"),
    ] {
        let mut run = array_run(&array.parse().expect("a built-in array policy"));
        let spec: PolicySpec = wrapped.parse().expect("a built-in policy");
        let mut single = spec
            .build(Boxed::<ARRAY_DEPTH>::new(), CYLINDERS)
            .expect("valid spec");
        let mut w = prefill(&mut single, ARRAY_DEPTH);
        let (mut a, mut s, mut ratio) = (vec![], vec![], vec![]);
        for _ in 0..ROUNDS {
            let ta = run.per_request(REQUESTS).as_nanos() as f64 / REQUESTS as f64;
            let ts = ns_per_request(&mut single, &mut w, REQUESTS);
            a.push(ta);
            s.push(ts);
            ratio.push(ta / ts);
        }
        println!(
            "{:<26} {:>9.0} {:>12} {:>9.0} {:>7.2}",
            array,
            median(a),
            wrapped,
            median(s),
            median(ratio)
        );
    }
}

/// WRR-SCAN-CA against LOOK and SCAN-EDF, interleaved like [`ratios`], and
/// the admission test into a set of [`WRR_TASKS`].
fn wrr_ratios() {
    const DEPTH: usize = 4096;
    const ROUNDS: usize = 15;
    const REQUESTS: u64 = 50_000;
    let mut wrr = wrr_driver();
    let mut look = PolicySpec::Look
        .build(Boxed::<DEPTH>::new(), CYLINDERS)
        .expect("valid");
    let mut scan_edf = PolicySpec::ScanEdf { granularity: 1 }
        .build(Boxed::<DEPTH>::new(), CYLINDERS)
        .expect("valid");
    let mut w = [
        prefill(&mut wrr, DEPTH),
        prefill(&mut look, DEPTH),
        prefill(&mut scan_edf, DEPTH),
    ];
    let mut t: [Vec<f64>; 3] = Default::default();
    for _ in 0..ROUNDS {
        t[0].push(ns_per_request(&mut wrr, &mut w[0], REQUESTS));
        t[1].push(ns_per_request(&mut look, &mut w[1], REQUESTS));
        t[2].push(ns_per_request(&mut scan_edf, &mut w[2], REQUESTS));
    }
    let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
    println!();
    println!(
        "wrr-scan-ca ({WRR_TASKS} tasks) {:.0} ns/request; look {:.0}, scan-edf {:.0}; wrr/look {:.2}, wrr/scan-edf {:.2}",
        median(t[0].clone()),
        median(t[1].clone()),
        median(t[2].clone()),
        ratio(&t[0], &t[1]),
        ratio(&t[0], &t[2])
    );
    let set = wrr_scan(Boxed::new());
    let newcomer = RateTask {
        class: WRR_TASKS + 1,
        period: 5_000_000_000,
        blocks: 14,
    };
    let per_round = 20_000u32;
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for _ in 0..per_round {
            black_box(set.try_admit(black_box(newcomer)).expect("fits"));
        }
        times.push(start.elapsed().as_nanos() as f64 / f64::from(per_round));
    }
    println!(
        "admission test of one task into a set of {WRR_TASKS}: {:.0} ns (median of {ROUNDS} rounds)",
        median(times)
    );
}

/// Linux's schedulers against SSTF at depth 4096 on boxed storage,
/// interleaved like [`ratios`]: the targets are mq-deadline within
/// 2× SSTF's decision cost and BFQ within 4×.
fn linux_ratios() {
    const DEPTH: usize = 4096;
    const ROUNDS: usize = 15;
    const REQUESTS: u64 = 50_000;
    let build = |name: &str| {
        let spec: PolicySpec = name.parse().expect("a built-in policy");
        spec.build(Boxed::<DEPTH>::new(), CYLINDERS)
            .expect("valid spec")
    };
    let mut queues = [build("sstf"), build("mq-deadline"), build("bfq")];
    let mut w: Vec<_> = queues.iter_mut().map(|q| prefill(q, DEPTH)).collect();
    let mut t: [Vec<f64>; 3] = Default::default();
    for _ in 0..ROUNDS {
        for (k, q) in queues.iter_mut().enumerate() {
            t[k].push(ns_per_request(q, &mut w[k], REQUESTS));
        }
    }
    let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
    println!(
        "depth {DEPTH}: sstf {:.0} ns/request, mq-deadline {:.0}, bfq {:.0}; mq-deadline/sstf {:.2}, bfq/sstf {:.2} (median of {ROUNDS} rounds)",
        median(t[0].clone()),
        median(t[1].clone()),
        median(t[2].clone()),
        ratio(&t[1], &t[0]),
        ratio(&t[2], &t[0])
    );
}

/// One policy alone (`--one SPEC REQUESTS`): see the module documentation.
fn one(spec: &str, requests: u64) {
    let ns = if let Ok(array) = spec.parse::<ArraySpec>() {
        let mut run = array_run(&array);
        run.per_request(requests).as_nanos() as f64 / requests as f64
    } else {
        let spec: PolicySpec = spec.parse().expect("a built-in policy or array policy");
        let mut single = spec
            .build(Boxed::<ARRAY_DEPTH>::new(), CYLINDERS)
            .expect("valid spec");
        let mut w = prefill(&mut single, ARRAY_DEPTH);
        ns_per_request(&mut single, &mut w, requests)
    };
    println!("{spec} {requests} requests: {ns:.0} ns a request");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--one") {
        let spec = args.get(i + 1).expect("--one SPEC REQUESTS");
        let requests = args
            .get(i + 2)
            .and_then(|n| n.parse().ok())
            .expect("--one SPEC REQUESTS");
        one(spec, requests);
        return;
    }
    if std::env::args().any(|a| a == "--linux") {
        linux_ratios();
        return;
    }
    if std::env::args().any(|a| a == "--wrr") {
        wrr_ratios();
        return;
    }
    if std::env::args().any(|a| a == "--arrays") {
        array_ratios();
        return;
    }
    if std::env::args().any(|a| a == "--ratios") {
        ratios();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
