//! Running workloads against emulated disks in virtual time.
//!
//! A [`Unit`] is one disk: its mechanics ([`DiskModel`]), a `sched-core`
//! policy's queue, and its [`DiskStats`]. The unit follows the sans-IO
//! driver loop of `sched-core`: arrivals are enqueued, and whenever the disk
//! is free the policy is asked which request to serve; the model says how long
//! that takes. [`Experiment`] drives one unit with a synthetic workload;
//! [`crate::replay`] drives one unit per device of a trace.

use sched_core::{
    AnyScheduler, BuildError, CompleteError, EnqueueError, Heap, Kind, Nanos, PolicySpec,
    PollError, Request, RequestId, Scheduler,
};
use serde::Serialize;

use crate::disk::{DiskError, DiskModel, DiskSpec, ServiceBreakdown};
use crate::engine::EventQueue;
use crate::random::{Purpose, Stream};
use crate::stats::{Completion, DiskReport, DiskStats, MetricTable, StatsError, WarmUp};
use crate::workload::{ArrivalProcess, Arrivals, Generator, RequestMix, WorkloadError};

/// Depth of every emulated disk's queue. A workload that piles up more
/// requests than this is overloading the disk: the run stops with
/// [`RunError::QueueOverflow`] rather than dropping anything.
pub const QUEUE_CAPACITY: usize = 4096;

/// Heap storage of [`QUEUE_CAPACITY`] slots.
pub(crate) fn queue_storage() -> Heap {
    match Heap::new(QUEUE_CAPACITY) {
        Ok(heap) => heap,
        Err(_) => unreachable!("QUEUE_CAPACITY is within sched-core's limits"),
    }
}

/// Stats class of reads and writes.
const READ: u16 = 0;
const WRITE: u16 = 1;

/// Why a run could not complete.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The disk description is unusable.
    #[error(transparent)]
    Disk(#[from] DiskError),
    /// The workload description is unusable.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The policy refused its parameters.
    #[error("policy: {0}")]
    Build(#[from] BuildError),
    /// The policy refused a request.
    #[error("policy: {0}")]
    Refused(#[from] EnqueueError),
    /// An array policy refused a completion.
    #[error("array policy: {0}")]
    Complete(#[from] CompleteError),
    /// An array policy's queue discipline misbehaved.
    #[error("array policy: {0}")]
    Poll(#[from] PollError),
    /// More requests waited than the queue can hold: the offered load exceeds
    /// what the disk serves under this policy.
    #[error(
        "queue overflow at t = {at_ms:.3} ms: {capacity} requests waiting; the offered load exceeds what the disk can serve with this policy"
    )]
    QueueOverflow {
        /// Virtual time of the overflow, ms.
        at_ms: f64,
        /// The queue capacity.
        capacity: usize,
    },
    /// Replication statistics could not be combined.
    #[error(transparent)]
    Stats(#[from] StatsError),
    /// An experiment parameter is outside its domain.
    #[error("{field}: expected {expected}")]
    Invalid {
        /// The parameter.
        field: &'static str,
        /// What it must satisfy.
        expected: &'static str,
    },
}

impl RunError {
    /// A policy's refusal of a request at `now`: a full queue means the
    /// offered load exceeds what the device serves.
    pub(crate) fn refused(e: EnqueueError, now: Nanos) -> RunError {
        match e {
            EnqueueError::QueueFull { capacity } => RunError::QueueOverflow {
                at_ms: now as f64 / 1e6,
                capacity,
            },
            e => RunError::Refused(e),
        }
    }
}

/// Refuses a run that would measure nothing.
pub(crate) fn check_requests(requests: u64) -> Result<(), RunError> {
    if requests == 0 {
        return Err(RunError::Invalid {
            field: "requests",
            expected: "at least one measured request",
        });
    }
    Ok(())
}

/// A request being served and what its service consists of.
#[derive(Clone, Copy, Debug)]
struct InService {
    req: Request,
    start: Nanos,
    breakdown: ServiceBreakdown,
}

/// When a [`Unit`] next needs its driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The request it started finishes then: call [`Unit::complete`].
    Finish(Nanos),
    /// Its policy holds queued work back until then: call [`Unit::wake`].
    Wake(Nanos),
}

/// One emulated disk driven by a policy.
pub struct Unit {
    model: DiskModel,
    queue: AnyScheduler<Heap>,
    in_service: Option<InService>,
    stats: Box<DiskStats>,
    service: Stream,
}

impl Unit {
    /// A disk with `model` mechanics, scheduled by `policy`, recording into
    /// `stats`, drawing random service components from `service`.
    ///
    /// # Errors
    /// The policy's [`BuildError`] for invalid parameters.
    pub fn new(
        model: DiskModel,
        policy: &PolicySpec,
        stats: DiskStats,
        service: Stream,
    ) -> Result<Self, RunError> {
        let queue = policy.build(queue_storage(), model.cylinders())?;
        Ok(Unit {
            model,
            queue,
            in_service: None,
            stats: Box::new(
                stats
                    .with_class_label(READ, "read")
                    .with_class_label(WRITE, "write"),
            ),
            service,
        })
    }

    /// A request for `block..block + blocks` arrives at `now`. Returns when
    /// the unit next needs the driver: when it finishes a request this
    /// arrival started, or when its policy will release held work.
    ///
    /// # Errors
    /// [`RunError::Disk`] for blocks beyond the disk, [`RunError::QueueOverflow`]
    /// when the queue is full, or the policy's refusal.
    pub fn arrive(&mut self, mut req: Request, now: Nanos) -> Result<Option<Next>, RunError> {
        req.cylinder = self.model.check_extent(req.block, req.blocks)?;
        self.queue
            .enqueue(req, now)
            .map_err(|e| RunError::refused(e, now))?;
        self.stats.arrive(now);
        Ok(if self.in_service.is_none() {
            self.dispatch(now)
        } else {
            None
        })
    }

    /// The request in service finishes at `now`. Returns it, and when the
    /// unit next needs the driver (see [`Unit::arrive`]).
    ///
    /// # Panics
    /// If the disk is idle: the caller schedules completions only for started requests.
    pub fn complete(&mut self, now: Nanos) -> (Request, Option<Next>) {
        let done = self
            .in_service
            .take()
            .expect("a completion only follows a start");
        self.stats.complete(Completion {
            arrival: done.req.arrival,
            start: done.start,
            finish: now,
            breakdown: done.breakdown,
            class: if done.req.kind == Kind::Read {
                READ
            } else {
                WRITE
            },
        });
        (done.req, self.dispatch(now))
    }

    /// The wake-up time a policy holding work back asked for has come: start
    /// what it releases, if the disk is free.
    pub fn wake(&mut self, now: Nanos) -> Option<Next> {
        if self.in_service.is_some() {
            return None;
        }
        self.dispatch(now)
    }

    /// Starts the policy's next request, if any, and says when it finishes;
    /// or, when the policy holds its queued work back, when to ask again.
    fn dispatch(&mut self, now: Nanos) -> Option<Next> {
        while self.queue.take_expired(now).is_some() {
            self.stats.withdraw(now);
        }
        let Some(d) = self.queue.next(self.model.head(), now, &self.model) else {
            return self.queue.next_eligible_at(now).map(Next::Wake);
        };
        let breakdown = self
            .model
            .serve(&d.request, d.travel, now, &mut self.service);
        self.stats.start(now);
        self.in_service = Some(InService {
            req: d.request,
            start: now,
            breakdown,
        });
        Some(Next::Finish(now + breakdown.total()))
    }

    /// Statistics over the measured window ending at `end`.
    pub fn report(&mut self, end: Nanos) -> DiskReport {
        self.stats.finish(end)
    }
}

/// How the offered load of an open workload is given.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Load {
    /// Arrivals per second.
    Rate(f64),
    /// A fraction of the disk's capacity to serve random requests one at a
    /// time: rate = load / (mean seek + mean rotation + transfer + overhead).
    Utilisation(f64),
}

/// One disk, one policy, one synthetic workload, measured over independent
/// replications.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The disk.
    pub disk: DiskSpec,
    /// The scheduling policy.
    pub policy: PolicySpec,
    /// Arrival process.
    pub arrivals: Arrivals,
    /// What requests look like.
    pub mix: RequestMix,
    /// Completions measured per replication (after the warm-up).
    pub requests: u64,
    /// Completions discarded at the start of each replication.
    pub warmup: u64,
    /// Seed of the whole experiment; replication r uses streams derived from (seed, r).
    pub seed: u64,
}

/// Events of a single-disk run.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// A request arrives (from the open stream, or from closed client `u16`).
    Arrival(u16),
    /// The disk finishes its request.
    Done,
    /// The policy releases work it held back.
    Wake,
}

impl Next {
    fn event(self) -> (Nanos, Event) {
        match self {
            Next::Finish(t) => (t, Event::Done),
            Next::Wake(t) => (t, Event::Wake),
        }
    }
}

impl Experiment {
    /// The mean service time of one request of the mix served alone, ns:
    /// mean random seek + mean rotational latency + transfer + overhead.
    pub fn mean_isolated_service(model: &DiskModel, mix: &RequestMix) -> Nanos {
        model.mean_random_seek()
            + model.mean_rotational_latency()
            + model.transfer_time(0, mix.blocks)
            + model.overhead()
    }

    /// The Poisson rate that offers `load` to this disk and mix.
    ///
    /// # Errors
    /// [`RunError::Disk`] for an unusable disk, [`RunError::Invalid`] for a
    /// load that is not positive and finite.
    pub fn rate_for(disk: &DiskSpec, mix: &RequestMix, load: Load) -> Result<f64, RunError> {
        let rate = match load {
            Load::Rate(r) => r,
            Load::Utilisation(u) => {
                let model = DiskModel::from_spec(disk)?;
                u * 1e9 / Self::mean_isolated_service(&model, mix) as f64
            }
        };
        if !(rate > 0.0 && rate.is_finite()) {
            return Err(RunError::Invalid {
                field: "load",
                expected: "a positive, finite load or rate",
            });
        }
        Ok(rate)
    }

    /// Runs replication `replication` and reports the measured window.
    ///
    /// # Errors
    /// Any [`RunError`]: bad parameters, or a queue overflow under overload.
    pub fn run(&self, replication: u64) -> Result<DiskReport, RunError> {
        check_requests(self.requests)?;
        let model = DiskModel::from_spec(&self.disk)?;
        let mut generator = Generator::new(
            self.mix,
            model.capacity_blocks(),
            Stream::new(self.seed, replication, Purpose::Addresses),
        )?;
        let mut arrivals = ArrivalProcess::new(
            self.arrivals,
            Stream::new(self.seed, replication, Purpose::Arrivals),
        )?;
        let warm_up = if self.warmup > 0 {
            WarmUp::Completions(self.warmup)
        } else {
            WarmUp::None
        };
        let mut unit = Unit::new(
            model,
            &self.policy,
            DiskStats::new(0).with_warm_up(warm_up),
            Stream::new(self.seed, replication, Purpose::Service),
        )?;
        let mut events = EventQueue::new();
        for (t, client) in arrivals.first() {
            events.schedule(t, Event::Arrival(client));
        }
        let target = self.warmup + self.requests;
        let mut next_id = 0u64;
        let mut completed = 0u64;
        while let Some((now, event)) = events.pop() {
            match event {
                Event::Arrival(client) => {
                    let d = generator.draw(now);
                    let mut req =
                        Request::new(RequestId(next_id), d.kind, d.block, d.blocks, 0, now)
                            .with_class(client);
                    req.deadline = d.deadline;
                    next_id += 1;
                    if let Some((t, e)) = unit.arrive(req, now)?.map(Next::event) {
                        events.schedule(t, e);
                    }
                    if let Some(t) = arrivals.after_arrival(now) {
                        events.schedule(t, Event::Arrival(0));
                    }
                }
                Event::Wake => {
                    if let Some((t, e)) = unit.wake(now).map(Next::event) {
                        events.schedule(t, e);
                    }
                }
                Event::Done => {
                    let (req, next) = unit.complete(now);
                    if let Some((t, e)) = next.map(Next::event) {
                        events.schedule(t, e);
                    }
                    completed += 1;
                    if completed >= target {
                        return Ok(unit.report(now));
                    }
                    if let Some(t) = arrivals.after_completion(now) {
                        events.schedule(t, Event::Arrival(req.class));
                    }
                }
            }
        }
        unreachable!("an open stream or a closed client always has a next event")
    }

    /// Runs replications `0..n` on `jobs` threads. Each replication has its own
    /// random streams, so the reports are identical whatever `jobs` is.
    ///
    /// # Errors
    /// The first failing replication's error.
    pub fn run_replications(&self, n: u64, jobs: usize) -> Result<Vec<DiskReport>, RunError> {
        parallel(n, jobs, |r| self.run(r))
    }
}

/// Runs `f(0..n)` on a pool of `jobs` threads, results in replication order.
///
/// # Errors
/// The first (lowest-numbered) failing replication's error.
pub fn parallel<T: Send, E: Send>(
    n: u64,
    jobs: usize,
    f: impl Fn(u64) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .expect("a thread pool of the requested size");
    pool.install(|| (0..n).into_par_iter().map(&f).collect::<Vec<_>>())
        .into_iter()
        .collect()
}

/// The headline metrics of a disk report, for confidence intervals across
/// replications: (name, value) in a fixed order. Times in ms.
pub fn headline_metrics(r: &DiskReport) -> Vec<(&'static str, f64)> {
    let ms = |ns: f64| ns / 1e6;
    vec![
        ("response_ms", ms(r.response.mean)),
        ("response_p95_ms", ms(r.response.p95)),
        ("waiting_ms", ms(r.waiting.mean)),
        ("service_ms", ms(r.service.mean)),
        ("seek_ms", ms(r.breakdown.seek.mean)),
        ("rotation_ms", ms(r.breakdown.rotation.mean)),
        ("transfer_ms", ms(r.breakdown.transfer.mean)),
        ("overhead_ms", ms(r.breakdown.overhead.mean)),
        ("seek_cylinders", r.breakdown.seek_distance.mean),
        ("utilisation", r.utilisation),
        ("queue_mean", r.queue.time_mean),
        ("queue_seen_by_arrivals", r.queue.found.mean),
        ("throughput_per_s", r.throughput_per_s),
    ]
}

/// Confidence intervals of [`headline_metrics`] over a set of replications.
///
/// # Errors
/// [`RunError::Stats`] if a metric is not finite in some replication.
pub fn metric_table(reports: &[DiskReport]) -> Result<MetricTable, RunError> {
    let mut table = MetricTable::new();
    for (r, report) in reports.iter().enumerate() {
        for (name, value) in headline_metrics(report) {
            table.record(r as u64, name, value)?;
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets;
    use crate::workload::Addressing;

    fn exp_experiment(policy: PolicySpec, rate: f64) -> Experiment {
        Experiment {
            disk: presets::exponential(45.0),
            policy,
            arrivals: Arrivals::Poisson { rate },
            mix: RequestMix::default(),
            requests: 20_000,
            warmup: 1_000,
            seed: 7,
        }
    }

    #[test]
    fn same_seed_same_report_any_thread_count() {
        let e = exp_experiment(PolicySpec::Fcfs, 30.0);
        let a = e.run_replications(4, 1).unwrap();
        let b = e.run_replications(4, 3).unwrap();
        let json = |v: &Vec<DiskReport>| serde_json::to_string(v).unwrap();
        assert_eq!(json(&a), json(&b));
        assert_ne!(json(&a[..1].to_vec()), json(&a[1..2].to_vec()));
    }

    #[test]
    fn closed_clients_keep_at_most_their_number_outstanding() {
        let e = Experiment {
            arrivals: Arrivals::Closed {
                clients: 3,
                think_ms: 5.0,
            },
            ..exp_experiment(PolicySpec::Sstf, 1.0)
        };
        let r = e.run(0).unwrap();
        assert!(r.system.max <= 3, "{}", r.system.max);
        assert_eq!(r.completions, 20_000);
    }

    #[test]
    fn overload_is_an_error_not_a_silent_drop() {
        let e = exp_experiment(PolicySpec::Fcfs, 90.0);
        assert!(matches!(
            e.run(0),
            Err(RunError::QueueOverflow {
                capacity: QUEUE_CAPACITY,
                ..
            })
        ));
    }

    #[test]
    fn utilisation_load_uses_the_isolated_service_time() {
        let disk = presets::hp97560();
        let mix = RequestMix {
            addressing: Addressing::Uniform,
            ..RequestMix::default()
        };
        let rate = Experiment::rate_for(&disk, &mix, Load::Utilisation(0.5)).unwrap();
        let model = DiskModel::from_spec(&disk).unwrap();
        let service = Experiment::mean_isolated_service(&model, &mix) as f64 / 1e9;
        assert!((rate * service - 0.5).abs() < 1e-9);
        assert!(Experiment::rate_for(&disk, &mix, Load::Rate(-1.0)).is_err());
    }
}
