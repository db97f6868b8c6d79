//! The workload that measures a scheduling decision's cost, shared by the
//! criterion bench (`cargo bench --bench decision`) and `spindle bench
//! sched`, so that both time the same thing.
//!
//! A queue is prefilled with `depth` random requests; every step then
//! dispatches one request (the arm moves to its cylinder, the clock advances
//! by a nominal service time) and enqueues one fresh random request, so every
//! decision is taken over exactly `depth` queued requests. Cylinders are
//! uniform over the 1962 cylinders of an HP 97560, deadlines are arrival
//! plus a uniform slack of up to twice the expected queueing delay (so some
//! requests expire and most do not), and a cheap closed-form estimator
//! stands in for a disk model where SPTF and FD-SCAN need one. Times are per
//! request: one enqueue plus one dispatch (or, for FD-SCAN in drop mode, one
//! enqueue plus one hand-over of an expired request), amortised.
//!
//! An array policy ([`ArrayRun`]) is measured per *logical* request over a
//! mirrored pair holding a steady backlog (three reads to one update,
//! copies at the same cylinder on both disks): each step reports the next
//! operation completion (the disks alternate), starts what the policy
//! allows, and submits a fresh request for every one that completes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use sched_core::array::{AnyArray, ArrayPolicy, ArraySpec, ArrayView, Copies, Location};
use sched_core::{
    Block, Blocks, BuildError, Cyl, Head, Kind, Nanos, Request, RequestId, Scheduler,
    ServiceEstimator, Storage,
};

/// HP 97560 cylinder count (Ruemmler & Wilkes; the WRR-SCAN paper's disk).
pub const CYLINDERS: u32 = 1962;
/// Nominal time one dispatched request keeps the disk busy.
pub const SERVICE: Nanos = 5_000_000;
/// Sectors per track of the estimator's rotational model.
const SECTORS: u64 = 72;
/// One revolution at 4002 rpm.
const REVOLUTION: Nanos = 14_992_504;

/// SplitMix64: a tiny, stable, seedable generator (the measurement must not
/// depend on a random-number crate's stream staying the same across
/// versions).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (multiply-shift; the bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// Linear seek plus the rotational delay to the request's sector: cheap (no
/// square root, one division) yet dependent on the arm, the block and the
/// clock.
pub struct CheapEstimator;

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
    fn expected_service_time(&self, req: &Request) -> Nanos {
        REVOLUTION + req.blocks as Nanos * 200_000
    }
}

/// The state one measurement carries from step to step.
pub struct Workload {
    /// The random stream of cylinders, blocks and slacks.
    pub rng: Rng,
    head: Head,
    /// The workload's clock.
    pub now: Nanos,
    next_id: u64,
    max_slack: Nanos,
}

impl Workload {
    /// The workload of a queue `depth` deep.
    pub fn new(depth: usize) -> Self {
        Workload {
            rng: Rng(0x5EED ^ depth as u64),
            head: Head::at(CYLINDERS / 2),
            now: 0,
            next_id: 0,
            // A request waits about `depth` service times; slack up to twice that.
            max_slack: 2 * depth as Nanos * SERVICE,
        }
    }

    /// A fresh random read arriving now.
    pub fn fresh(&mut self) -> Request {
        let cylinder = self.rng.below(CYLINDERS as u64) as u32;
        let block = cylinder as u64 * 1_000 + self.rng.below(1_000);
        let slack = self.rng.below(self.max_slack + 1);
        let id = RequestId(self.next_id);
        self.next_id += 1;
        Request::new(
            id,
            Kind::Read,
            Block(block),
            Blocks(8),
            Cyl(cylinder),
            self.now,
        )
        .with_deadline(self.now + slack)
    }

    /// Records a dispatch: the arm moves and the disk is busy for a while.
    fn served(&mut self, req: &Request) {
        self.head = Head::at(req.cylinder);
        self.now += SERVICE;
    }
}

/// Prefills `queue` to `depth` and returns the workload positioned after it.
///
/// # Panics
/// If the queue holds fewer than `depth` requests.
pub fn prefill<S: Scheduler + ?Sized>(queue: &mut S, depth: usize) -> Workload {
    let mut w = Workload::new(depth);
    for _ in 0..depth {
        let r = w.fresh();
        queue.enqueue(r).expect("prefill fits the capacity");
        w.now += SERVICE / depth as Nanos + 1;
    }
    w
}

/// One measured step: dispatch one request, enqueue one fresh request.
/// Returns the number of requests that went through the queue: one, plus
/// any that FD-SCAN in drop mode set aside as expired (each collected the
/// way a driver would and replaced, so the depth stays constant).
///
/// # Panics
/// If the queue is empty or overflows (the depth stays constant, so it
/// never does).
#[inline]
pub fn step<S: Scheduler + ?Sized>(queue: &mut S, w: &mut Workload) -> u64 {
    let mut requests = 1;
    while let Some(r) = queue.take_expired(w.now) {
        black_box(r);
        let r = w.fresh();
        queue.enqueue(r).expect("depth stays below capacity");
        requests += 1;
    }
    let d = queue
        .next(w.head, w.now, &CheapEstimator)
        .expect("queue is never empty");
    w.served(black_box(&d.request));
    let r = w.fresh();
    queue.enqueue(r).expect("depth stays below capacity");
    requests
}

/// Times steps until `requests` requests went through, and scales the time
/// to exactly that many: the time per request (amortised over the expired
/// ones in drop mode).
pub fn per_request<S: Scheduler + ?Sized>(
    queue: &mut S,
    w: &mut Workload,
    requests: u64,
) -> Duration {
    let start = Instant::now();
    let mut done = 0;
    while done < requests {
        done += step(queue, w);
    }
    start.elapsed().mul_f64(requests as f64 / done as f64)
}

/// Nanoseconds per request over `requests` more requests of a prefilled
/// queue.
pub fn ns_per_request<S: Scheduler + ?Sized>(
    queue: &mut S,
    w: &mut Workload,
    requests: u64,
) -> f64 {
    per_request(queue, w, requests).as_nanos() as f64 / requests as f64
}

/// The median of `xs` (the upper one of an even count).
///
/// # Panics
/// If `xs` is empty.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// A mirrored pair under a steady backlog of logical requests.
pub struct ArrayRun<S: Storage> {
    policy: AnyArray<S>,
    w: Workload,
    heads: [Head; 2],
    /// When each disk's operation in service ends (`Nanos::MAX`: idle).
    busy_until: [Nanos; 2],
}

impl<S: Storage + Clone> ArrayRun<S> {
    /// `spec` on a mirrored pair, its ledger and queues on `storage`, holding
    /// a backlog of `depth` logical requests (two below the storage's
    /// capacity, so a completed request can always be replaced while its
    /// sibling copy is still being retired).
    ///
    /// # Errors
    /// The policy cannot be built.
    ///
    /// # Panics
    /// If the backlog does not fit the storage.
    pub fn new(spec: &ArraySpec, storage: S, depth: usize) -> Result<Self, BuildError> {
        let policy = spec.build(storage, 2, CYLINDERS, 1)?;
        let mut run = ArrayRun {
            policy,
            w: Workload::new(depth),
            heads: [Head::at(CYLINDERS / 2); 2],
            busy_until: [Nanos::MAX; 2],
        };
        for _ in 0..depth - 2 {
            run.submit();
        }
        run.start();
        Ok(run)
    }

    fn submit(&mut self) {
        let mut r = self.w.fresh();
        if self.w.rng.below(4) == 0 {
            r.kind = Kind::Write;
        }
        let copies = Copies::everywhere(
            2,
            Location {
                block: r.block,
                cylinder: r.cylinder,
            },
        );
        let est: [&dyn ServiceEstimator; 2] = [&CheapEstimator; 2];
        let view = ArrayView {
            now: self.w.now,
            heads: &self.heads,
            estimators: &est,
        };
        self.policy
            .submit(r, &copies, &view)
            .expect("the backlog stays below capacity");
    }

    fn start(&mut self) {
        let est: [&dyn ServiceEstimator; 2] = [&CheapEstimator; 2];
        loop {
            let view = ArrayView {
                now: self.w.now,
                heads: &self.heads,
                estimators: &est,
            };
            let Some(s) = self.policy.poll_start(&view).expect("known operations") else {
                break;
            };
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

    /// Times steps until `requests` logical requests finished.
    pub fn per_request(&mut self, requests: u64) -> Duration {
        let start = Instant::now();
        let mut done = 0;
        while done < requests {
            done += self.step();
        }
        start.elapsed().mul_f64(requests as f64 / done as f64)
    }
}
