//! Decision cost of every sched-core policy: one enqueue plus one dispatch at a
//! constant queue depth, next to naive linear-scan SSTF and EDF.
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
//! Run with `cargo bench --bench decision`; add a filter such as `depth4096`
//! or `array4096` to run one group.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sched_core::array::{AnyArray, ArrayPolicy, ArraySpec};
use sched_core::{
    AnyScheduler, ExpiredRule, Head, Kind, Nanos, PolicySpec, Request, RequestId, Scheduler,
    ServiceEstimator,
};

/// HP 97560 cylinder count (Ruemmler & Wilkes; the WRR-SCAN paper's disk).
const CYLINDERS: u32 = 1962;
/// Nominal time one dispatched request keeps the disk busy.
const SERVICE: Nanos = 5_000_000;
/// Sectors per track of the estimator's rotational model.
const SECTORS: u64 = 72;
/// One revolution at 4002 rpm.
const REVOLUTION: Nanos = 14_992_504;

/// SplitMix64: a tiny, stable, seedable generator (the bench must not depend
/// on a random-number crate's stream staying the same across versions).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (multiply-shift; the bias is irrelevant here).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

/// Linear seek plus the rotational delay to the request's sector: cheap (no
/// square root, one division) yet dependent on the arm, the block and the clock.
struct CheapEstimator;

impl ServiceEstimator for CheapEstimator {
    fn positioning_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        let distance = head.cylinder.abs_diff(req.cylinder) as Nanos;
        let seek = if distance == 0 {
            0
        } else {
            2_000_000 + 4_000 * distance
        };
        let sector_at = (req.block % SECTORS) * (REVOLUTION / SECTORS);
        let arrive = (now + seek) % REVOLUTION;
        seek + (sector_at + REVOLUTION - arrive) % REVOLUTION
    }

    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        self.positioning_time(head, req, now) + req.blocks as Nanos * 200_000
    }
}

/// The state one benchmark carries from iteration to iteration.
struct Workload {
    rng: Rng,
    head: Head,
    now: Nanos,
    next_id: u64,
    max_slack: Nanos,
}

impl Workload {
    fn new(depth: usize) -> Self {
        Workload {
            rng: Rng(0x5EED ^ depth as u64),
            head: Head::at(CYLINDERS / 2),
            now: 0,
            next_id: 0,
            // A request waits about `depth` service times; slack up to twice that.
            max_slack: 2 * depth as Nanos * SERVICE,
        }
    }

    fn fresh(&mut self) -> Request {
        let cylinder = self.rng.below(CYLINDERS as u64) as u32;
        let block = cylinder as u64 * 1_000 + self.rng.below(1_000);
        let slack = self.rng.below(self.max_slack + 1);
        let id = RequestId(self.next_id);
        self.next_id += 1;
        Request::new(id, Kind::Read, block, 8, cylinder, self.now).with_deadline(self.now + slack)
    }

    /// Records a dispatch: the arm moves and the disk is busy for a while.
    fn served(&mut self, req: &Request) {
        self.head = Head::at(req.cylinder);
        self.now += SERVICE;
    }
}

/// Prefills `queue` to `depth` and returns the workload positioned after it.
fn prefill<S: Scheduler>(queue: &mut S, depth: usize) -> Workload {
    let mut w = Workload::new(depth);
    for _ in 0..depth {
        let r = w.fresh();
        queue.enqueue(r, w.now).expect("prefill fits the capacity");
        w.now += SERVICE / depth as Nanos + 1;
    }
    w
}

/// One measured step: dispatch one request, enqueue one fresh request.
/// Returns the number of requests that went through the queue: one, plus
/// any that FD-SCAN in drop mode set aside as expired (each collected the
/// way a driver would and replaced, so the depth stays constant).
#[inline]
fn step<S: Scheduler>(queue: &mut S, w: &mut Workload) -> u64 {
    let mut requests = 1;
    while let Some(r) = queue.take_expired(w.now) {
        black_box(r);
        let r = w.fresh();
        queue.enqueue(r, w.now).expect("depth stays below capacity");
        requests += 1;
    }
    let d = queue
        .next(w.head, w.now, &CheapEstimator)
        .expect("queue is never empty");
    w.served(black_box(&d.request));
    let r = w.fresh();
    queue.enqueue(r, w.now).expect("depth stays below capacity");
    requests
}

/// Times steps until `requests` requests went through, and scales the time to
/// exactly that many: criterion then reports time per request (amortised
/// over the expired ones in drop mode).
fn per_request<S: Scheduler>(queue: &mut S, w: &mut Workload, requests: u64) -> Duration {
    let start = Instant::now();
    let mut done = 0;
    while done < requests {
        done += step(queue, w);
    }
    start.elapsed().mul_f64(requests as f64 / done as f64)
}

/// The naive reference: an unordered `Vec`, scanned in full at each decision.
struct Naive {
    queue: Vec<Request>,
    edf: bool,
}

impl Scheduler for Naive {
    fn enqueue(&mut self, req: Request, _now: Nanos) -> Result<(), sched_core::SchedError> {
        self.queue.push(req);
        Ok(())
    }
    fn next(
        &mut self,
        head: Head,
        _now: Nanos,
        _est: &dyn ServiceEstimator,
    ) -> Option<sched_core::Dispatch> {
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
        Some(sched_core::Dispatch::direct(self.queue.swap_remove(i)))
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, sched_core::SchedError> {
        let i = self
            .queue
            .iter()
            .position(|r| r.id == id)
            .ok_or(sched_core::SchedError::UnknownId(id))?;
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

fn bench_depth<const N: usize>(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("depth{N}"));
    for (name, spec) in specs() {
        // The queue is large (up to ~256 KiB at depth 4096): keep it on the heap.
        let mut queue: Box<AnyScheduler<N>> =
            Box::new(spec.build::<N>(CYLINDERS).expect("valid spec"));
        let mut w = prefill(queue.as_mut(), N);
        group.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter_custom(|n| per_request(queue.as_mut(), &mut w, n))
        });
    }
    for (name, edf) in [("naive-sstf", false), ("naive-edf", true)] {
        let mut queue = Naive {
            queue: Vec::with_capacity(N + 1),
            edf,
        };
        let mut w = prefill(&mut queue, N);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|n| per_request(&mut queue, &mut w, n))
        });
    }
    group.finish();
}

/// Logical requests held by each array benchmark.
const ARRAY_DEPTH: usize = 4096;

/// A mirrored pair under a steady backlog of logical requests.
struct ArrayRun {
    policy: Box<AnyArray<ARRAY_DEPTH, 2>>,
    w: Workload,
    heads: [Head; 2],
    /// When each disk's operation in service ends (`Nanos::MAX`: idle).
    busy_until: [Nanos; 2],
}

impl ArrayRun {
    fn new(spec: &ArraySpec) -> Self {
        // A CMQ of depth 4096 holds three 4096-deep queues (~0.8 MB) and is
        // moved through several frames while it is built: build it on a
        // thread with room for that, as the emulator's workers do.
        let spec = *spec;
        let policy = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                Box::new(
                    spec.build::<ARRAY_DEPTH, 2>(CYLINDERS, 1)
                        .expect("valid spec"),
                )
            })
            .expect("a builder thread")
            .join()
            .expect("building the policy");
        let mut run = ArrayRun {
            policy,
            w: Workload::new(ARRAY_DEPTH),
            heads: [Head::at(CYLINDERS / 2); 2],
            busy_until: [Nanos::MAX; 2],
        };
        // Keep two slots free so a completed request can always be replaced
        // while its sibling copy is still being retired.
        for _ in 0..ARRAY_DEPTH - 2 {
            run.submit();
        }
        run.start();
        run
    }

    fn submit(&mut self) {
        let mut r = self.w.fresh();
        if self.w.rng.below(4) == 0 {
            r.kind = Kind::Write;
        }
        let placement = [r.cylinder; 2];
        self.policy
            .submit(r, placement, &self.heads, self.w.now)
            .expect("the backlog stays below capacity");
    }

    fn start(&mut self) {
        let est: [&dyn ServiceEstimator; 2] = [&CheapEstimator; 2];
        while let Some(s) = self.policy.poll_start(&self.heads, self.w.now, &est) {
            self.heads[s.disk] = Head::at(black_box(s.dispatch.request.cylinder));
            self.busy_until[s.disk] = self.w.now + SERVICE;
        }
    }

    /// Completes the next operation; returns the logical requests it finished.
    fn step(&mut self) -> u64 {
        let d = if self.busy_until[0] <= self.busy_until[1] {
            0
        } else {
            1
        };
        self.w.now = self.w.now.max(self.busy_until[d]);
        self.busy_until[d] = Nanos::MAX;
        let c = self
            .policy
            .complete(d, self.w.now)
            .expect("the disk was busy");
        for e in c.abort.iter() {
            self.busy_until[e] = Nanos::MAX;
        }
        let finished = u64::from(c.finished.is_some());
        if finished == 1 {
            self.submit();
        }
        self.start();
        finished
    }

    fn per_request(&mut self, requests: u64) -> Duration {
        let start = Instant::now();
        let mut done = 0;
        while done < requests {
            done += self.step();
        }
        start.elapsed().mul_f64(requests as f64 / done as f64)
    }
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
        let mut run = ArrayRun::new(&spec);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|n| run.per_request(n))
        });
    }
    group.finish();
}

fn decision(c: &mut Criterion) {
    bench_depth::<8>(c);
    bench_depth::<64>(c);
    bench_depth::<512>(c);
    bench_depth::<4096>(c);
    bench_arrays(c);
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
criterion_main!(benches);
