//! The mirrored experiment: a workload of reads and updates driving a
//! two-disk [`ArrayDevice`] under any `sched-core` array policy, through the
//! event loop.
//!
//! Each disk has its own mechanics and arm. The copy of a block on the second
//! disk sits where the [`Placement`] puts it, so the two copies may lie at
//! different cylinders.

use disk_emu::disk::{DiskModel, DiskSpec};
use disk_emu::{
    ArrayDevice, ArrayQueueReport, Device, DiskUsageReport, Distribution, DistributionReport, Done,
    Moments, MomentsReport, Outcome,
};
use sched_core::array::ArraySpec;
use sched_core::{Kind, Nanos, Request, RequestId};
use serde::{Deserialize, Serialize};

use crate::confidence::MetricTable;
use crate::disk_experiment::DiskExperiment;
use crate::head_trace::{ArrayRecorder, ArrayTrace};
use crate::placement::Placement;
use crate::request_sample::{Ending, RequestSample, SampleSink};
use crate::run_error::{RunError, check_fits, check_requests, check_span};
use crate::seeds::{Purpose, Unit};
use crate::sharding::replicate;
use crate::simulation::{Driver, Flow, Simulation};
use crate::workload::{ArrivalProcess, Arrivals, Generator, RequestMix};

/// A mirrored-disk experiment: one array policy, an open or closed workload
/// of reads and updates, measured over independent replications.
#[derive(Clone, Debug)]
pub struct MirrorExperiment {
    /// The two disks (the same model twice for an ordinary mirror).
    pub disks: [DiskSpec; 2],
    /// How the second disk lays out its copies (a two-disk placement).
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
    /// Run an open load at or above saturation anyway (see
    /// [`MirrorExperiment::check`]).
    pub allow_overload: bool,
}

/// What one replication measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MirrorReport {
    /// Reads: response and waiting (arrival to first copy's start).
    pub read: KindReport,
    /// Updates.
    pub update: KindReport,
    /// All requests.
    pub all: DistributionReport,
    /// Logical completions per second in the window.
    pub throughput_per_s: f64,
    /// Each disk: utilisation and service-time breakdown of its operations
    /// (aborted copies count as busy time, not as completions).
    pub disks: Vec<DiskUsageReport>,
    /// Queue lengths.
    pub queues: ArrayQueueReport,
    /// Length of the measured window, ms.
    pub window_ms: f64,
    /// How the requests with deadlines fared.
    pub deadlines: DeadlineReport,
}

/// How the requests with a deadline fared in the measured window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeadlineReport {
    /// Completions that had a deadline.
    pub with_deadline: u64,
    /// Deadlines missed: completions after their deadline plus drops.
    pub missed: u64,
    /// Requests dropped unserved because their deadline passed.
    pub dropped: u64,
    /// `missed / (with_deadline + dropped)`; NaN without deadlines.
    pub miss_ratio: f64,
    /// Mean of max(0, finish − deadline) over completions with a deadline, ns.
    pub tardiness_mean: f64,
}

/// What [`DeadlineReport`] is made from.
#[derive(Clone, Copy, Debug, Default)]
struct DeadlineTally {
    with_deadline: u64,
    missed: u64,
    dropped: u64,
    tardiness: Moments,
}

impl DeadlineTally {
    fn complete(&mut self, finish: Nanos, deadline: Option<Nanos>) {
        if let Some(deadline) = deadline {
            self.with_deadline += 1;
            let late = finish.saturating_sub(deadline);
            if late > 0 {
                self.missed += 1;
            }
            self.tardiness.add(late as f64);
        }
    }

    fn drop_expired(&mut self) {
        self.dropped += 1;
        self.missed += 1;
    }

    fn report(&self) -> DeadlineReport {
        let judged = self.with_deadline + self.dropped;
        DeadlineReport {
            with_deadline: self.with_deadline,
            missed: self.missed,
            dropped: self.dropped,
            miss_ratio: if judged > 0 {
                self.missed as f64 / judged as f64
            } else {
                f64::NAN
            },
            tardiness_mean: self.tardiness.mean().unwrap_or(f64::NAN),
        }
    }
}

/// Response and waiting times of the reads or of the updates, ns.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KindReport {
    /// Arrival to completion.
    pub response: DistributionReport,
    /// Arrival to the start of the first operation.
    pub waiting: MomentsReport,
}

/// What a mirrored pair's report is made of beyond the array's own
/// statistics: the logical requests' responses and waits, reads and
/// updates apart, and their deadlines, over a window. The synthetic run
/// and the trace replay ([`crate::replay_mirrored`]) both count with it, so
/// their reports mean the same.
#[derive(Clone, Debug)]
pub(crate) struct MirrorTally {
    read: Distribution,
    update: Distribution,
    read_wait: Moments,
    update_wait: Moments,
    deadlines: DeadlineTally,
    window_start: Nanos,
}

impl MirrorTally {
    /// An empty tally of the window opening at `window_start`.
    pub(crate) fn new(window_start: Nanos) -> Self {
        MirrorTally {
            read: Distribution::new(),
            update: Distribution::new(),
            read_wait: Moments::new(),
            update_wait: Moments::new(),
            deadlines: DeadlineTally::default(),
            window_start,
        }
    }

    /// A logical request completed at `now`: its response from arrival,
    /// its wait until its first operation started.
    pub(crate) fn complete(&mut self, done: &Done, now: Nanos) {
        let r = done.request;
        let (resp, wait) = (now - r.arrival, done.first_start - r.arrival);
        if r.kind == Kind::Read {
            self.read.record(resp);
            self.read_wait.add(wait as f64);
        } else {
            self.update.record(resp);
            self.update_wait.add(wait as f64);
        }
        self.deadlines.complete(now, r.deadline);
    }

    /// A request was dropped unserved, its deadline passed.
    pub(crate) fn drop_expired(&mut self) {
        self.deadlines.drop_expired();
    }

    /// The report of the window closing at `now`, with `array`'s usage.
    pub(crate) fn report(&self, array: &mut ArrayDevice, now: Nanos) -> MirrorReport {
        let mut all = self.read;
        all.merge(&self.update);
        let window = now - self.window_start;
        let usage = array.report(now);
        MirrorReport {
            read: KindReport {
                response: self.read.report(),
                waiting: self.read_wait.report(),
            },
            update: KindReport {
                response: self.update.report(),
                waiting: self.update_wait.report(),
            },
            throughput_per_s: if window > 0 {
                all.moments().count() as f64 * 1e9 / window as f64
            } else {
                f64::NAN
            },
            all: all.report(),
            disks: usage.disks,
            queues: usage.queues,
            window_ms: window as f64 / 1e6,
            deadlines: self.deadlines.report(),
        }
    }
}

/// The mirrored experiment as a driver of the event loop.
struct MirrorRun<'s> {
    generator: Generator,
    arrivals: ArrivalProcess,
    placement: Placement,
    /// Blocks both disks hold.
    capacity: u64,
    next_id: u64,
    completed: u64,
    warmup: u64,
    target: u64,
    /// What the measured window's completions and drops add up to.
    tally: MirrorTally,
    /// When the target completion came.
    end: Nanos,
    /// What the arms did, when the run is traced; the run is the same
    /// without it.
    recorder: Option<ArrayRecorder>,
    /// Where each measured request goes as it leaves, when asked for.
    sink: Option<SampleSink<'s>>,
}

impl MirrorRun<'_> {
    /// Hands a request that left to the sink, if it is measured (as the
    /// tallies count it: a completion after the warm-up's, a drop once the
    /// warm-up is over).
    fn sample(&mut self, r: &Request, ending: Ending) {
        let measured = match ending {
            Ending::Served { .. } => self.completed > self.warmup,
            Ending::Dropped(_) => self.completed >= self.warmup,
        };
        if let (true, Some(sink)) = (measured, self.sink.as_mut()) {
            sink(&RequestSample {
                id: r.id.0,
                arrival: r.arrival,
                kind: r.kind,
                block: r.block,
                blocks: r.blocks,
                cylinder: None,
                deadline: r.deadline,
                ending,
            });
        }
    }

    fn reset(&mut self, now: Nanos) {
        self.tally = MirrorTally::new(now);
    }
}

impl Driver<ArrayDevice> for MirrorRun<'_> {
    /// An arrival from closed client `u16` (0 for the open stream).
    type Event = u16;
    type Output = MirrorReport;
    type Error = RunError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<ArrayDevice, u16>,
        now: Nanos,
        client: u16,
    ) -> Result<Flow, RunError> {
        let d = self.generator.draw(now);
        let copies = self.placement.copies(d.block, d.blocks, self.capacity);
        let id = RequestId(self.next_id);
        let req = d.request(id, now);
        self.next_id += 1;
        if let Some(recorder) = &mut self.recorder {
            let array = sim.device(0);
            let cylinders = copies
                .holders()
                .iter()
                .filter_map(|disk| {
                    let at = copies.location(disk)?;
                    let cylinder = array.model(disk)?.locate(at.block).ok()?;
                    Some((disk, cylinder))
                })
                .collect();
            recorder.arrived(id.0, now, d.kind, cylinders);
        }
        sim.with_device(0, |array| array.submit(req, &copies, now))
            .map_err(|e| RunError::device(e, now))?;
        if let Some(recorder) = &mut self.recorder {
            recorder.observe(now, sim.device(0));
        }
        if let Some(t) = self.arrivals.after_arrival(id, client, now) {
            sim.schedule(t, 0);
        }
        Ok(Flow::Continue)
    }

    fn on_advance(
        &mut self,
        sim: &mut Simulation<ArrayDevice, u16>,
        now: Nanos,
        _device: usize,
    ) -> Result<(), RunError> {
        if let Some(recorder) = &mut self.recorder {
            recorder.observe(now, sim.device(0));
        }
        Ok(())
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<ArrayDevice, u16>,
        now: Nanos,
        _device: usize,
        outcome: Outcome,
    ) -> Result<Flow, RunError> {
        if let Some(recorder) = &mut self.recorder {
            match &outcome {
                Outcome::Completed(done) => {
                    recorder.left(done.request.id.0, now);
                    if self.completed >= self.warmup {
                        recorder.measured(now - done.request.arrival);
                    }
                }
                Outcome::Expired(r) | Outcome::Failed(r) => recorder.left(r.id.0, now),
                Outcome::MediaError { done, .. } => recorder.left(done.request.id.0, now),
                Outcome::Resynced { .. } => {}
            }
        }
        let r = match outcome {
            Outcome::Completed(done) => {
                let r = done.request;
                self.tally.complete(&done, now);
                self.completed += 1;
                self.sample(
                    &r,
                    Ending::Served {
                        start: done.first_start,
                        finish: now,
                        disk: done.timing.disk,
                    },
                );
                if self.completed == self.warmup {
                    self.reset(now);
                    sim.with_device(0, Device::reset_stats);
                }
                if self.completed >= self.target {
                    self.end = now;
                    return Ok(Flow::Stop);
                }
                r.id
            }
            Outcome::Expired(r) => {
                self.tally.drop_expired();
                self.sample(&r, Ending::Dropped(now));
                r.id
            }
            Outcome::Failed(r) => r.id,
            Outcome::MediaError { done, .. } => done.request.id,
            Outcome::Resynced { .. } => return Ok(Flow::Continue),
        };
        if let Some((t, client)) = self.arrivals.after_completion(r, now) {
            sim.schedule(t, client);
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        sim: &mut Simulation<ArrayDevice, u16>,
        stopped: bool,
    ) -> Result<MirrorReport, RunError> {
        if stopped {
            let end = self.end;
            return Ok(sim.with_device(0, |array| self.tally.report(array, end)));
        }
        Err(RunError::Stalled {
            at_ms: sim.device(0).now() as f64 / 1e6,
            completed: self.completed,
            target: self.target,
        })
    }
}

impl MirrorExperiment {
    /// The load `rate` requests per second offer the pair (see
    /// [`check`](Self::check)): a read is one operation, an update two, each
    /// taking the disks' mean isolated service time, two disks serving.
    fn offered_load(rate: f64, models: &[DiskModel], mix: &RequestMix) -> f64 {
        let service: f64 = models
            .iter()
            .map(|m| DiskExperiment::mean_isolated_service(m, mix) as f64 / 1e9)
            .sum::<f64>()
            / models.len() as f64;
        let ops = 2.0 - mix.read_fraction;
        rate * ops * service / 2.0
    }

    /// The Poisson rate (requests per second) that offers `load` of the
    /// pair's capacity, as [`check`](Self::check) measures it.
    ///
    /// # Errors
    /// An unusable disk.
    pub fn rate_for(disks: &[DiskSpec; 2], mix: &RequestMix, load: f64) -> Result<f64, RunError> {
        let models = [
            DiskModel::from_spec(&disks[0])?,
            DiskModel::from_spec(&disks[1])?,
        ];
        Ok(load / Self::offered_load(1.0, &models, mix))
    }

    /// Checks that the experiment can run, before anything runs (see
    /// [`DiskExperiment::check`]): the open load is the work it offers the two
    /// disks — a read is one operation, an update two — over what they serve
    /// working in parallel on requests each taking the disk's mean isolated
    /// service time; no policy sustains a load at or above 1. Returns it
    /// (NaN for a closed population).
    ///
    /// # Errors
    /// [`RunError::Invalid`], [`RunError::Workload`], [`RunError::Disk`],
    /// [`RunError::Overload`].
    pub fn check(&self) -> Result<f64, RunError> {
        check_requests(self.requests)?;
        check_mirror_placement(self.placement)?;
        let models = [
            DiskModel::from_spec(&self.disks[0])?,
            DiskModel::from_spec(&self.disks[1])?,
        ];
        self.arrivals.validate()?;
        check_span(&self.arrivals, self.warmup + self.requests)?;
        check_fits(
            &self.mix,
            models[0].capacity_blocks().min(models[1].capacity_blocks()),
        )?;
        let load = match self.arrivals {
            Arrivals::Poisson { rate } => Self::offered_load(rate, &models, &self.mix),
            Arrivals::Closed { .. } => f64::NAN,
        };
        if load >= 1.0 && !self.allow_overload {
            return Err(RunError::Overload { load });
        }
        Ok(load)
    }

    /// Runs replication `replication`.
    ///
    /// # Errors
    /// [`RunError`] for bad parameters or a queue overflow under overload.
    pub fn run(&self, replication: u64) -> Result<MirrorReport, RunError> {
        self.run_on(self.models()?, replication)
    }

    /// The two disks, built from their specs, in their initial state: build
    /// them once and give each replication a copy ([`run_on`](Self::run_on)).
    ///
    /// # Errors
    /// [`RunError::Disk`] for an unusable disk.
    pub fn models(&self) -> Result<Vec<DiskModel>, RunError> {
        Ok(vec![
            DiskModel::from_spec(&self.disks[0])?,
            DiskModel::from_spec(&self.disks[1])?,
        ])
    }

    /// [`run`](Self::run) on `models`, which must be this experiment's disks
    /// as [`models`](Self::models) builds them, untouched.
    ///
    /// # Errors
    /// [`RunError`] for bad parameters or a queue overflow under overload.
    pub fn run_on(
        &self,
        models: Vec<DiskModel>,
        replication: u64,
    ) -> Result<MirrorReport, RunError> {
        self.drive(models, replication, None, None)
            .map(|(report, _)| report)
    }

    /// [`run_on`](Self::run_on), recording what each disk's arm did for the
    /// first `followed` requests (and every request competing with them),
    /// the queue over that span and the response times of the measured
    /// completions: the data behind a picture of the run. The report is the
    /// one `run_on` returns; the recording changes nothing in the run.
    ///
    /// # Errors
    /// Those of [`run_on`](Self::run_on).
    pub fn trace_on(
        &self,
        models: Vec<DiskModel>,
        replication: u64,
        followed: u64,
    ) -> Result<ArrayTrace, RunError> {
        let (report, recorder) = self.drive(models, replication, Some(followed), None)?;
        let recorder = recorder.expect("a traced run has a recorder");
        Ok(recorder.into_trace(report))
    }

    /// [`run_on`](Self::run_on), handing every measured request to `sink`
    /// as it leaves (see [`crate::request_sample`]); the run and its report
    /// are the same.
    ///
    /// # Errors
    /// Those of [`run_on`](Self::run_on).
    pub fn sample_on(
        &self,
        models: Vec<DiskModel>,
        replication: u64,
        sink: SampleSink<'_>,
    ) -> Result<MirrorReport, RunError> {
        self.drive(models, replication, None, Some(sink))
            .map(|(report, _)| report)
    }

    fn drive(
        &self,
        models: Vec<DiskModel>,
        replication: u64,
        followed: Option<u64>,
        sink: Option<SampleSink<'_>>,
    ) -> Result<(MirrorReport, Option<ArrayRecorder>), RunError> {
        check_requests(self.requests)?;
        let unit = Unit::new(self.seed, 0, replication);
        check_mirror_placement(self.placement)?;
        let capacity = models[0].capacity_blocks().min(models[1].capacity_blocks());
        let generator = Generator::new(self.mix, capacity, unit.stream(Purpose::Addresses))?;
        let mut arrivals = ArrivalProcess::new(self.arrivals, unit.stream(Purpose::Arrivals))?;
        let service = vec![
            unit.stream(Purpose::Service { disk: 0 }),
            unit.stream(Purpose::Service { disk: 1 }),
        ];
        let array = ArrayDevice::new(models, &self.policy, service, unit.value(Purpose::Routing))?;
        let recorder = followed.map(|n| ArrayRecorder::new(n, &array));
        let mut sim = Simulation::new();
        sim.add_device(array);
        for (t, client) in arrivals.first() {
            sim.schedule(t, client);
        }
        let mut run = MirrorRun {
            generator,
            arrivals,
            placement: self.placement,
            capacity,
            next_id: 0,
            completed: 0,
            warmup: self.warmup,
            target: self.warmup + self.requests,
            tally: MirrorTally::new(0),
            end: 0,
            recorder,
            sink,
        };
        let report = sim.run(&mut run)?;
        Ok((report, run.recorder))
    }

    /// Replications `0..n` on up to `jobs` threads, after
    /// [`check`](Self::check); identical whatever `jobs` is.
    ///
    /// # Errors
    /// The check's refusal, or the first failing replication's error.
    pub fn run_replications(&self, n: u64, jobs: usize) -> Result<Vec<MirrorReport>, RunError> {
        self.check()?;
        let models = self.models()?;
        replicate(self, n, jobs, |r| self.run_on(models.clone(), r))
    }
}

/// Refuses a placement that is not of two disks, or not usable.
pub(crate) fn check_mirror_placement(placement: Placement) -> Result<(), RunError> {
    if placement.disks() != 2 || placement.invalid().is_some() {
        return Err(RunError::Invalid {
            field: "placement",
            expected: "a mirror of two disks: identical with 2 copies, shifted by a fraction in [0, 1), or reversed",
        });
    }
    Ok(())
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
    use disk_emu::disk::presets;

    fn experiment(policy: &str, arrivals: Arrivals) -> MirrorExperiment {
        MirrorExperiment {
            disks: [presets::exponential(45.0), presets::exponential(45.0)],
            placement: Placement::MIRROR,
            policy: policy.parse().unwrap(),
            arrivals,
            mix: RequestMix {
                read_fraction: 0.75,
                ..RequestMix::default()
            },
            requests: 20_000,
            warmup: 2_000,
            seed: 3,
            allow_overload: false,
        }
    }

    /// The samples of a mirrored run are the requests its tallies count.
    #[test]
    fn samples_are_the_measured_requests() {
        use crate::request_sample::{DeadlineOutcome, RequestSample};
        use crate::workload::DeadlineRange;
        let mut e = experiment("rt-dmq", Arrivals::Poisson { rate: 60.0 });
        e.requests = 4_000;
        e.warmup = 400;
        e.mix.deadline = Some(DeadlineRange {
            min_ms: 20.0,
            max_ms: 60.0,
        });
        let models = e.models().unwrap();
        let mut samples: Vec<RequestSample> = Vec::new();
        let sampled = e
            .sample_on(models.clone(), 0, &mut |s: &RequestSample| samples.push(*s))
            .unwrap();
        let plain = e.run_on(models, 0).unwrap();
        assert_eq!(
            serde_json::to_string(&sampled).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
        assert_eq!(samples.len() as u64, e.requests);
        let missed = samples
            .iter()
            .filter(|s| s.deadline_outcome() == Some(DeadlineOutcome::Missed))
            .count() as u64;
        assert!(missed > 0);
        assert_eq!(missed, plain.deadlines.missed);
        let reads = samples.iter().filter(|s| s.kind == Kind::Read).count() as u64;
        assert_eq!(reads, plain.read.response.count);
        assert!(samples.iter().all(|s| s.cylinder.is_none()));
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
