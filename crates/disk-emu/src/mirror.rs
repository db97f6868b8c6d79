//! A mirrored device: two disks holding copies of the same blocks, driven by
//! any `sched-core` [`ArrayPolicy`].
//!
//! Each disk has its own mechanics and arm. The copy of a block on the second
//! disk sits where the [`Placement`] puts it, so the two copies may lie at
//! different cylinders. The device follows the array driver loop: arrivals
//! are submitted, completions reported, aborted copies stopped, and the
//! policy polled for operations to start until it has none. An aborted copy
//! frees its disk at once; its arm is left where the copy's seek was taking
//! it (the model moves the arm when service starts).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use sched_core::array::{AnyArray, ArrayPolicy, ArraySpec, ArrayView, Copies, Location};
use sched_core::{Heap, Kind, Nanos, Request, RequestId, ServiceEstimator};
use serde::{Deserialize, Serialize};

use crate::disk::{DiskModel, DiskSpec, ServiceBreakdown};
use crate::engine::EventQueue;
use crate::random::{Purpose, Stream};
use crate::sim::{RunError, check_requests, parallel};
use crate::stats::{
    Distribution, DistributionReport, MetricTable, Moments, MomentsReport, TimeWeighted,
};
use crate::workload::{ArrivalProcess, Arrivals, Generator, RequestMix};

/// Logical requests the array holds at most (queued or in service).
pub const ARRAY_CAPACITY: usize = 2048;

/// Heap storage of [`ARRAY_CAPACITY`] slots.
fn array_storage() -> Heap {
    match Heap::new(ARRAY_CAPACITY) {
        Ok(heap) => heap,
        Err(_) => unreachable!("ARRAY_CAPACITY is within sched-core's limits"),
    }
}

const D: usize = 2;

/// Where the second disk keeps its copy of each block.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Placement {
    /// At the same block address (the usual mirror).
    Identical,
    /// Rotated by this fraction of the capacity: block b of disk 1 is at
    /// (b + fraction · capacity) mod capacity on disk 2.
    Shifted {
        /// Offset as a fraction of the capacity, in [0, 1).
        fraction: f64,
    },
    /// In reverse order: block b is at capacity − blocks − b, so data at the
    /// outer edge of one disk is at the inner edge of the other.
    Reversed,
}

impl Placement {
    /// The block of disk 2's copy of `block..block + blocks` on a disk of `capacity` blocks.
    pub fn second_copy(self, block: u64, blocks: u32, capacity: u64) -> u64 {
        let len = u64::from(blocks);
        match self {
            Placement::Identical => block,
            Placement::Shifted { fraction } => {
                let offset = (fraction * capacity as f64) as u64;
                let b = (block + offset) % capacity;
                // Keep the copy contiguous: wrap whole requests.
                if b + len > capacity { 0 } else { b }
            }
            Placement::Reversed => capacity.saturating_sub(block + len),
        }
    }
}

/// A mirrored-disk experiment: one array policy, an open or closed workload
/// of reads and updates, measured over independent replications.
#[derive(Clone, Debug)]
pub struct MirrorExperiment {
    /// The two disks (the same model twice for an ordinary mirror).
    pub disks: [DiskSpec; 2],
    /// How the second disk lays out its copies.
    pub placement: Placement,
    /// The array policy and its queue disciplines.
    pub policy: ArraySpec,
    /// Arrival process; a closed population with no think time measures the
    /// saturation throughput.
    pub arrivals: Arrivals,
    /// Requests: `read_fraction` is p_r; writes are updates of both copies.
    pub mix: RequestMix,
    /// Logical completions measured per replication (after the warm-up).
    pub requests: u64,
    /// Logical completions discarded first.
    pub warmup: u64,
    /// Experiment seed.
    pub seed: u64,
}

/// Time-averaged lengths of the array's queues and the fraction of time the
/// auxiliary queue held more than one write.
#[derive(Clone, Debug, Serialize)]
pub struct QueueStats {
    /// Common queue (single-queue family, CMQ).
    pub common: f64,
    /// Per-disk queues (DMQ).
    pub disk: [f64; 2],
    /// Auxiliary queues (CMQ).
    pub aux: [f64; 2],
    /// Fraction of time some auxiliary queue held more than one write.
    pub aux_over_one: f64,
}

/// What one replication measured.
#[derive(Clone, Debug, Serialize)]
pub struct MirrorReport {
    /// Reads: response and waiting (arrival to first copy's start).
    pub read: ClassReport,
    /// Updates.
    pub update: ClassReport,
    /// All requests.
    pub all: DistributionReport,
    /// Logical completions per second in the window.
    pub throughput_per_s: f64,
    /// Each disk: utilisation and service-time breakdown of its operations
    /// (aborted copies count as busy time, not as completions).
    pub disks: [DiskUsage; 2],
    /// Queue lengths.
    pub queues: QueueStats,
    /// Length of the measured window, ms.
    pub window_ms: f64,
}

/// Response and waiting times of one class of logical requests, ns.
#[derive(Clone, Debug, Serialize)]
pub struct ClassReport {
    /// Arrival to completion.
    pub response: DistributionReport,
    /// Arrival to the start of the first operation.
    pub waiting: MomentsReport,
}

/// How one disk of the array spent the window.
#[derive(Clone, Debug, Serialize)]
pub struct DiskUsage {
    /// Busy time / window.
    pub utilisation: f64,
    /// Operations completed.
    pub completions: u64,
    /// Operations aborted in service (the losing copy of a read).
    pub aborted: u64,
    /// Service time of completed operations, ns.
    pub service: MomentsReport,
    /// Seek part, ns.
    pub seek: MomentsReport,
    /// Rotational part, ns.
    pub rotation: MomentsReport,
    /// Transfer part, ns.
    pub transfer: MomentsReport,
}

/// Streaming accumulator behind [`DiskUsage`]: a handful of moments, no
/// histograms, since the array's statistics of interest are per class.
#[derive(Clone, Copy, Debug)]
struct Usage {
    busy_since: Option<Nanos>,
    busy: Nanos,
    aborted: u64,
    service: Moments,
    seek: Moments,
    rotation: Moments,
    transfer: Moments,
}

impl Usage {
    fn new() -> Self {
        Usage {
            busy_since: None,
            busy: 0,
            aborted: 0,
            service: Moments::new(),
            seek: Moments::new(),
            rotation: Moments::new(),
            transfer: Moments::new(),
        }
    }

    fn start(&mut self, now: Nanos) {
        self.busy_since = Some(now);
    }

    fn stop(&mut self, now: Nanos) {
        if let Some(t) = self.busy_since.take() {
            self.busy += now - t;
        }
    }

    fn complete(&mut self, now: Nanos, op: &Op) {
        self.stop(now);
        self.service.add((now - op.start) as f64);
        self.seek.add(op.breakdown.seek as f64);
        self.rotation.add(op.breakdown.rotation as f64);
        self.transfer.add(op.breakdown.transfer as f64);
    }

    fn abort(&mut self, now: Nanos) {
        self.stop(now);
        self.aborted += 1;
    }

    /// Restarts the window at `now`; a service under way counts from `now`.
    fn reset(&mut self, now: Nanos) {
        let busy_since = self.busy_since.map(|_| now);
        *self = Usage::new();
        self.busy_since = busy_since;
    }

    fn report(&self, window_start: Nanos, now: Nanos) -> DiskUsage {
        let busy = self.busy + self.busy_since.map_or(0, |t| now - t);
        let window = now - window_start;
        DiskUsage {
            utilisation: if window > 0 {
                busy as f64 / window as f64
            } else {
                f64::NAN
            },
            completions: self.service.count(),
            aborted: self.aborted,
            service: self.service.report(),
            seek: self.seek.report(),
            rotation: self.rotation.report(),
            transfer: self.transfer.report(),
        }
    }
}

/// Request ids are dense integers: a multiplicative hash spreads them well
/// and costs a fraction of the default SipHash on this hot path.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, id: u64) {
        self.0 = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Arrival(u16),
    /// Disk `usize` finishes the operation it started as number `u64`.
    Done(usize, u64),
}

#[derive(Clone, Copy, Debug)]
struct Op {
    req: Request,
    start: Nanos,
    breakdown: ServiceBreakdown,
}

/// Everything measured over the window.
struct Recorder {
    read: Distribution,
    update: Distribution,
    read_wait: Moments,
    update_wait: Moments,
    disks: [Usage; 2],
    queues: [TimeWeighted; 5],
    aux_over_one: TimeWeighted,
    window_start: Nanos,
}

impl Recorder {
    fn new(now: Nanos) -> Self {
        Recorder {
            read: Distribution::new(),
            update: Distribution::new(),
            read_wait: Moments::new(),
            update_wait: Moments::new(),
            disks: [Usage::new(); 2],
            queues: [TimeWeighted::new(now, 0); 5],
            aux_over_one: TimeWeighted::new(now, 0),
            window_start: now,
        }
    }

    /// Starts the measured window at `now`, keeping the state of the queues.
    fn reset(&mut self, now: Nanos) {
        self.read = Distribution::new();
        self.update = Distribution::new();
        self.read_wait = Moments::new();
        self.update_wait = Moments::new();
        for d in &mut self.disks {
            d.reset(now);
        }
        for q in &mut self.queues {
            q.reset(now);
        }
        self.aux_over_one.reset(now);
        self.window_start = now;
    }

    fn queues(&mut self, now: Nanos, q: &dyn ArrayPolicy) {
        let aux = [q.aux_len(0), q.aux_len(1)];
        let lens = [
            q.common_len(),
            q.disk_queue_len(0),
            q.disk_queue_len(1),
            aux[0],
            aux[1],
        ];
        for (acc, len) in self.queues.iter_mut().zip(lens) {
            acc.set(now, len as u64);
        }
        self.aux_over_one
            .set(now, u64::from(aux.iter().any(|&a| a > 1)));
    }

    fn finish(&mut self, now: Nanos) -> MirrorReport {
        let mut all = self.read;
        all.merge(&self.update);
        let window = now - self.window_start;
        MirrorReport {
            read: ClassReport {
                response: self.read.report(),
                waiting: self.read_wait.report(),
            },
            update: ClassReport {
                response: self.update.report(),
                waiting: self.update_wait.report(),
            },
            throughput_per_s: if window > 0 {
                all.moments().count() as f64 * 1e9 / window as f64
            } else {
                f64::NAN
            },
            all: all.report(),
            disks: [
                self.disks[0].report(self.window_start, now),
                self.disks[1].report(self.window_start, now),
            ],
            queues: QueueStats {
                common: self.queues[0].mean(now),
                disk: [self.queues[1].mean(now), self.queues[2].mean(now)],
                aux: [self.queues[3].mean(now), self.queues[4].mean(now)],
                aux_over_one: self.aux_over_one.mean(now),
            },
            window_ms: window as f64 / 1e6,
        }
    }
}

impl MirrorExperiment {
    /// Runs replication `replication`.
    ///
    /// # Errors
    /// [`RunError`] for bad parameters or a queue overflow under overload.
    pub fn run(&self, replication: u64) -> Result<MirrorReport, RunError> {
        check_requests(self.requests)?;
        let mut models = [
            DiskModel::from_spec(&self.disks[0])?,
            DiskModel::from_spec(&self.disks[1])?,
        ];
        let capacity = models[0].capacity_blocks().min(models[1].capacity_blocks());
        let cylinders = models[0].cylinders().max(models[1].cylinders());
        let mut policy: AnyArray<Heap> = self.policy.build(
            array_storage(),
            D,
            cylinders,
            self.seed ^ replication.wrapping_mul(0x9E37_79B9),
        )?;
        let mut generator = Generator::new(
            self.mix,
            capacity,
            Stream::new(self.seed, replication, Purpose::Addresses),
        )?;
        let mut arrivals = ArrivalProcess::new(
            self.arrivals,
            Stream::new(self.seed, replication, Purpose::Arrivals),
        )?;
        let mut service = [
            Stream::new(self.seed, replication, Purpose::Service),
            Stream::new(self.seed, replication, Purpose::Other(1)),
        ];
        let mut events = EventQueue::new();
        for (t, client) in arrivals.first() {
            events.schedule(t, Event::Arrival(client));
        }
        let mut rec = Recorder::new(0);
        let mut busy: [Option<Op>; D] = [None; D];
        let mut started = [0u64; D];
        let mut first_start: HashMap<u64, Nanos, BuildHasherDefault<IdHasher>> = HashMap::default();
        let mut next_id = 0u64;
        let mut completed = 0u64;
        let target = self.warmup + self.requests;
        while let Some((now, event)) = events.pop() {
            match event {
                Event::Arrival(client) => {
                    let d = generator.draw(now);
                    let second = self.placement.second_copy(d.block, d.blocks, capacity);
                    let copies = Copies::new()
                        .with(
                            0,
                            Location {
                                block: d.block,
                                cylinder: models[0].check_extent(d.block, d.blocks)?,
                            },
                        )
                        .with(
                            1,
                            Location {
                                block: second,
                                cylinder: models[1].check_extent(second, d.blocks)?,
                            },
                        );
                    let cylinder = models[0].check_extent(d.block, d.blocks)?;
                    let mut req =
                        Request::new(RequestId(next_id), d.kind, d.block, d.blocks, cylinder, now)
                            .with_class(client);
                    req.deadline = d.deadline;
                    next_id += 1;
                    let heads = [models[0].head(), models[1].head()];
                    let est: [&dyn ServiceEstimator; D] = [&models[0], &models[1]];
                    let view = ArrayView {
                        now,
                        heads: &heads,
                        estimators: &est,
                    };
                    policy
                        .submit(req, &copies, &view)
                        .map_err(|e| RunError::refused(e, now))?;
                    if let Some(t) = arrivals.after_arrival(now) {
                        events.schedule(t, Event::Arrival(0));
                    }
                }
                Event::Done(disk, number) => {
                    if started[disk] != number || busy[disk].is_none() {
                        continue; // an aborted copy's completion
                    }
                    let op = busy[disk].take().expect("checked above");
                    rec.disks[disk].complete(now, &op);
                    let c = policy.complete(disk, now)?;
                    for e in c.abort.iter() {
                        if busy[e].take().is_some() {
                            rec.disks[e].abort(now);
                        }
                    }
                    if c.finished.is_none() && op.req.kind == Kind::Read {
                        // A read copy that finished nothing: its read had
                        // already completed with another copy (MR-DMQ).
                        first_start.remove(&op.req.id.0);
                    }
                    if let Some(r) = c.finished {
                        let start = first_start.remove(&r.id.0).unwrap_or(now);
                        let (resp, wait) = (now - r.arrival, start - r.arrival);
                        if r.kind == Kind::Read {
                            rec.read.record(resp);
                            rec.read_wait.add(wait as f64);
                        } else {
                            rec.update.record(resp);
                            rec.update_wait.add(wait as f64);
                        }
                        completed += 1;
                        if completed == self.warmup {
                            rec.reset(now);
                        }
                        if completed >= target {
                            rec.queues(now, &policy);
                            return Ok(rec.finish(now));
                        }
                        if let Some(t) = arrivals.after_completion(now) {
                            events.schedule(t, Event::Arrival(r.class));
                        }
                    }
                }
            }
            // Start whatever the policy allows.
            loop {
                let heads = [models[0].head(), models[1].head()];
                let start = {
                    let est: [&dyn ServiceEstimator; D] = [&models[0], &models[1]];
                    let view = ArrayView {
                        now,
                        heads: &heads,
                        estimators: &est,
                    };
                    policy.poll_start(&view)?
                };
                let Some(s) = start else { break };
                let breakdown = models[s.disk].serve(
                    &s.dispatch.request,
                    s.dispatch.travel,
                    now,
                    &mut service[s.disk],
                );
                rec.disks[s.disk].start(now);
                first_start.entry(s.dispatch.request.id.0).or_insert(now);
                started[s.disk] += 1;
                busy[s.disk] = Some(Op {
                    req: s.dispatch.request,
                    start: now,
                    breakdown,
                });
                events.schedule(
                    now + breakdown.total(),
                    Event::Done(s.disk, started[s.disk]),
                );
            }
            rec.queues(now, &policy);
        }
        unreachable!("an open stream or a closed client always has a next event")
    }

    /// Replications `0..n` on `jobs` threads; identical whatever `jobs` is.
    ///
    /// # Errors
    /// The first failing replication's error.
    pub fn run_replications(&self, n: u64, jobs: usize) -> Result<Vec<MirrorReport>, RunError> {
        parallel(n, jobs, |r| self.run(r))
    }
}

/// Per-replication metrics of a mirrored run, times in ms.
pub fn mirror_metrics(r: &MirrorReport) -> Vec<(&'static str, f64)> {
    let ms = |ns: f64| ns / 1e6;
    vec![
        ("read_ms", ms(r.read.response.mean)),
        ("update_ms", ms(r.update.response.mean)),
        ("all_ms", ms(r.all.mean)),
        ("read_wait_ms", ms(r.read.waiting.mean)),
        ("update_wait_ms", ms(r.update.waiting.mean)),
        ("throughput_per_s", r.throughput_per_s),
        ("util_disk1", r.disks[0].utilisation),
        ("util_disk2", r.disks[1].utilisation),
        ("service_disk1_ms", ms(r.disks[0].service.mean)),
        ("service_disk2_ms", ms(r.disks[1].service.mean)),
        ("aborted_disk1", r.disks[0].aborted as f64),
        ("aborted_disk2", r.disks[1].aborted as f64),
        ("queue_common", r.queues.common),
        ("queue_disk1", r.queues.disk[0]),
        ("queue_disk2", r.queues.disk[1]),
        ("queue_aux", r.queues.aux[0] + r.queues.aux[1]),
        ("aux_over_one", r.queues.aux_over_one),
    ]
}

/// Confidence intervals of [`mirror_metrics`] over replications; a metric
/// undefined in some replication (no reads at p_r = 0) is left out.
pub fn mirror_table(reports: &[MirrorReport]) -> MetricTable {
    let mut table = MetricTable::new();
    for (r, report) in reports.iter().enumerate() {
        for (name, value) in mirror_metrics(report) {
            if value.is_finite() {
                // Names are unique per replication, so recording cannot fail.
                let _ = table.record(r as u64, name, value);
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets;

    fn experiment(policy: &str, arrivals: Arrivals) -> MirrorExperiment {
        MirrorExperiment {
            disks: [presets::exponential(45.0), presets::exponential(45.0)],
            placement: Placement::Identical,
            policy: policy.parse().unwrap(),
            arrivals,
            mix: RequestMix {
                read_fraction: 0.75,
                ..RequestMix::default()
            },
            requests: 20_000,
            warmup: 2_000,
            seed: 3,
        }
    }

    #[test]
    fn placements_keep_copies_on_the_disk() {
        for p in [
            Placement::Identical,
            Placement::Shifted { fraction: 0.5 },
            Placement::Reversed,
        ] {
            for b in [0, 10, 990, 992] {
                let c = p.second_copy(b, 8, 1000);
                assert!(c + 8 <= 1000, "{p:?} {b} -> {c}");
            }
        }
        assert_eq!(Placement::Reversed.second_copy(0, 8, 1000), 992);
        assert_eq!(
            Placement::Shifted { fraction: 0.25 }.second_copy(100, 8, 1000),
            350
        );
    }

    #[test]
    fn same_seed_same_bits_any_thread_count() {
        let e = experiment("cmq", Arrivals::Poisson { rate: 40.0 });
        let a = serde_json::to_string(&e.run_replications(3, 1).unwrap()).unwrap();
        let b = serde_json::to_string(&e.run_replications(3, 2).unwrap()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn every_policy_runs_and_disks_share_the_writes() {
        for (name, _) in ArraySpec::NAMED {
            let r = experiment(name, Arrivals::Poisson { rate: 20.0 })
                .run(0)
                .unwrap();
            assert!(
                r.read.response.count > 10_000 && r.update.response.count > 3_000,
                "{name}"
            );
            // Every update writes both disks, so neither disk is idle for long.
            assert!(
                r.disks[0].utilisation > 0.05 && r.disks[1].utilisation > 0.05,
                "{name}"
            );
        }
    }

    #[test]
    fn aborted_copies_do_not_complete() {
        let r = experiment("mr-esq", Arrivals::Poisson { rate: 20.0 })
            .run(0)
            .unwrap();
        // Reads run on both disks but each completes once: the disks together
        // complete one operation per read plus two per update.
        let ops = r.disks[0].completions + r.disks[1].completions;
        let logical = r.read.response.count + 2 * r.update.response.count;
        let slack = (logical as f64 * 0.01) as u64 + 10;
        assert!(
            ops.abs_diff(logical) <= slack,
            "{ops} operations for {logical}"
        );
    }
}
