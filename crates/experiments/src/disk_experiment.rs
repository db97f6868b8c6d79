//! The single-disk experiment: a synthetic workload driving one
//! [`DiskDevice`] through the event loop, over independent replications.

use disk_emu::disk::{DiskModel, DiskSpec};
use disk_emu::{
    Device, DeviceError, DiskDevice, DiskReport, DiskStats, Outcome, QUEUE_CAPACITY, Stream, WarmUp,
};
use sched_core::{Boxed, Nanos, PolicySpec, Request, RequestId, Scheduler, WithPolicy};
use serde::Serialize;

use crate::confidence::MetricTable;
use crate::head_trace::{Fate, HeadTrace, Recorder};
use crate::request_sample::{Ending, RequestSample, SampleSink};
use crate::run_error::{RunError, check_fits, check_requests, check_span};
use crate::seeds::{Purpose, Unit};
use crate::sharding::replicate;
use crate::simulation::{Driver, Flow, Simulation};
use crate::workload::{ArrivalProcess, Arrivals, Generator, RequestMix, kind_class, label_kinds};

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
pub struct DiskExperiment {
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
    /// Seed of the whole experiment: replication r draws from the streams
    /// of unit (seed, point 0, r) (see [`crate::seeds`]).
    pub seed: u64,
    /// Run an open load at or above saturation anyway (see
    /// [`DiskExperiment::check`]): the queue then grows without bound and the
    /// figures depend on the run's length.
    pub allow_overload: bool,
}

/// The single-disk experiment as a driver of the event loop.
struct SingleRun<'s> {
    generator: Generator,
    arrivals: ArrivalProcess,
    next_id: u64,
    completed: u64,
    target: u64,
    /// When the target completion came.
    end: Nanos,
    /// Completions discarded before the measured window (for the recorder).
    warmup: u64,
    /// What the arm did, when the run is traced; the run is the same
    /// without it.
    recorder: Option<Recorder>,
    /// Where each measured request goes as it leaves, when asked for.
    sink: Option<SampleSink<'s>>,
}

impl SingleRun<'_> {
    /// Hands a request that left to the sink, if it is measured: a
    /// completion after the warm-up's, a drop once the warm-up is over (as
    /// the disk's statistics count them).
    fn sample(&mut self, request: &Request, ending: Ending) {
        let measured = match ending {
            Ending::Served { .. } => self.completed > self.warmup,
            Ending::Dropped(_) => self.completed >= self.warmup,
        };
        if let (true, Some(sink)) = (measured, self.sink.as_mut()) {
            sink(&RequestSample {
                id: request.id.0,
                arrival: request.arrival,
                kind: request.kind,
                block: request.block,
                blocks: request.blocks,
                cylinder: Some(request.cylinder),
                deadline: request.deadline,
                ending,
            });
        }
    }
}

impl<Q: Scheduler> Driver<DiskDevice<Q>> for SingleRun<'_> {
    /// An arrival from closed client `u16` (0 for the open stream).
    type Event = u16;
    type Output = DiskReport;
    type Error = RunError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<DiskDevice<Q>, u16>,
        now: Nanos,
        client: u16,
    ) -> Result<Flow, RunError> {
        let d = self.generator.draw(now);
        let id = RequestId(self.next_id);
        let req = d.request(id, now).with_class(kind_class(d.kind));
        self.next_id += 1;
        if let Some(recorder) = &mut self.recorder {
            // A block the disk lacks is refused by `submit` below.
            if let Some(Ok(cylinder)) = sim.device(0).model(0).map(|m| m.locate(d.block)) {
                recorder.arrived(id.0, now, cylinder);
            }
        }
        sim.with_device(0, |disk| disk.submit_at_block(req, now))
            .map_err(|e| RunError::device(e, now))?;
        if let Some(recorder) = &mut self.recorder {
            recorder.waiting(now, sim.device(0).queued());
        }
        if let Some(t) = self.arrivals.after_arrival(id, client, now) {
            sim.schedule(t, 0);
        }
        Ok(Flow::Continue)
    }

    fn on_advance(
        &mut self,
        sim: &mut Simulation<DiskDevice<Q>, u16>,
        now: Nanos,
        _device: usize,
    ) -> Result<(), RunError> {
        if let Some(recorder) = &mut self.recorder {
            recorder.waiting(now, sim.device(0).queued());
        }
        Ok(())
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<DiskDevice<Q>, u16>,
        now: Nanos,
        _device: usize,
        outcome: Outcome,
    ) -> Result<Flow, RunError> {
        let id = match outcome {
            Outcome::Completed(done) => {
                self.completed += 1;
                let t = done.timing;
                self.sample(
                    &done.request,
                    Ending::Served {
                        start: t.start,
                        finish: t.finish,
                        disk: t.disk,
                    },
                );
                if let Some(recorder) = &mut self.recorder {
                    recorder.completed(&done, self.completed > self.warmup);
                }
                if self.completed >= self.target {
                    self.end = now;
                    return Ok(Flow::Stop);
                }
                done.request.id
            }
            // A dropped request's client comes back as if it had completed.
            Outcome::Expired(req) | Outcome::Failed(req) => {
                self.sample(&req, Ending::Dropped(now));
                if let Some(recorder) = &mut self.recorder {
                    recorder.left(req.id.0, Fate::Dropped(now));
                }
                req.id
            }
            Outcome::MediaError { done, .. } => done.request.id,
            Outcome::Resynced { .. } => return Ok(Flow::Continue),
        };
        if let Some((t, client)) = self.arrivals.after_completion(id, now) {
            sim.schedule(t, client);
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        sim: &mut Simulation<DiskDevice<Q>, u16>,
        stopped: bool,
    ) -> Result<DiskReport, RunError> {
        if stopped {
            let end = self.end;
            if self.sink.is_some() {
                // Requests the policy dropped at the instant the target
                // completion came are in the report's window; the loop
                // stopped before handing them over.
                while let Some(outcome) = sim.with_device(0, Device::poll) {
                    if let Outcome::Expired(req) = outcome {
                        self.sample(&req, Ending::Dropped(end));
                    }
                }
            }
            return Ok(sim.with_device(0, |d| d.report(end)));
        }
        Err(RunError::Stalled {
            at_ms: sim.device(0).now() as f64 / 1e6,
            completed: self.completed,
            target: self.target,
        })
    }
}

/// A single-disk run waiting for its policy's queue: the event loop is
/// compiled for each policy ([`PolicySpec::build_with`]), so that a request
/// costs no dispatch on which policy the device holds.
struct RunUnder<'s> {
    model: DiskModel,
    service: Stream,
    stats: DiskStats,
    /// The arrivals scheduled before the run starts.
    first: Vec<(Nanos, u16)>,
    driver: SingleRun<'s>,
}

impl WithPolicy for RunUnder<'_> {
    type Output = Result<(DiskReport, Option<Recorder>), RunError>;

    fn run<Q: Scheduler>(self, queue: Q) -> Self::Output {
        let RunUnder {
            model,
            service,
            stats,
            first,
            mut driver,
        } = self;
        let disk = DiskDevice::with_policy(model, queue, service).with_stats(stats);
        let mut sim = Simulation::new();
        sim.add_device(disk);
        for (t, client) in first {
            sim.schedule(t, client);
        }
        let report = sim.run(&mut driver)?;
        Ok((report, driver.recorder))
    }
}

impl DiskExperiment {
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
        Self::rate_on(&DiskModel::from_spec(disk)?, mix, load)
    }

    /// [`rate_for`](Self::rate_for) on a disk already built.
    ///
    /// # Errors
    /// [`RunError::Invalid`] for a load that is not positive and finite.
    pub fn rate_on(model: &DiskModel, mix: &RequestMix, load: Load) -> Result<f64, RunError> {
        let rate = match load {
            Load::Rate(r) => r,
            Load::Utilisation(u) => u * 1e9 / Self::mean_isolated_service(model, mix) as f64,
        };
        if !(rate > 0.0 && rate.is_finite()) {
            return Err(RunError::Invalid {
                field: "load",
                expected: "a positive, finite load or rate",
            });
        }
        Ok(rate)
    }

    /// Checks that the experiment can run, before anything runs: something
    /// to measure, a workload that fits the disk (at least one client,
    /// requests no larger than the disk), and an open load below
    /// saturation — the rate at which requests served one at a time, each
    /// taking [`mean_isolated_service`](Self::mean_isolated_service), keep
    /// the disk always busy — unless `allow_overload` is set. Returns the
    /// offered load (NaN for a closed population).
    ///
    /// # Errors
    /// [`RunError::Invalid`], [`RunError::Workload`], [`RunError::Disk`],
    /// [`RunError::Overload`].
    pub fn check(&self) -> Result<f64, RunError> {
        check_requests(self.requests)?;
        self.check_on(&DiskModel::from_spec(&self.disk)?)
    }

    /// [`check`](Self::check) on `model`, this experiment's disk as
    /// [`model`](Self::model) builds it: a caller that builds it anyway
    /// (to run on) need not build it twice.
    ///
    /// # Errors
    /// Those of [`check`](Self::check).
    pub fn check_on(&self, model: &DiskModel) -> Result<f64, RunError> {
        check_requests(self.requests)?;
        self.arrivals.validate()?;
        check_span(&self.arrivals, self.warmup + self.requests)?;
        check_fits(&self.mix, model.capacity_blocks())?;
        let load = match self.arrivals {
            Arrivals::Poisson { rate } => {
                rate * Self::mean_isolated_service(model, &self.mix) as f64 / 1e9
            }
            Arrivals::Closed { .. } => f64::NAN,
        };
        if load >= 1.0 && !self.allow_overload {
            return Err(RunError::Overload { load });
        }
        Ok(load)
    }

    /// The disk, built from its spec, in its initial state: build it once
    /// and give each replication a copy ([`run_on`](Self::run_on)) rather
    /// than building it again for each.
    ///
    /// # Errors
    /// [`RunError::Disk`] for an unusable disk.
    pub fn model(&self) -> Result<DiskModel, RunError> {
        Ok(DiskModel::from_spec(&self.disk)?)
    }

    /// Runs replication `replication` and reports the measured window.
    ///
    /// # Errors
    /// Any [`RunError`]: bad parameters, or a queue overflow under overload.
    pub fn run(&self, replication: u64) -> Result<DiskReport, RunError> {
        self.run_on(self.model()?, replication)
    }

    /// [`run`](Self::run) on `model`, which must be this experiment's disk
    /// as [`model`](Self::model) builds it, untouched.
    ///
    /// # Errors
    /// Any [`RunError`]: bad parameters, or a queue overflow under overload.
    pub fn run_on(&self, model: DiskModel, replication: u64) -> Result<DiskReport, RunError> {
        self.drive(model, replication, None, None)
            .map(|(report, _)| report)
    }

    /// [`run_on`](Self::run_on), handing every measured request to `sink`
    /// as it leaves (see [`crate::request_sample`]); the run and its report
    /// are the same.
    ///
    /// # Errors
    /// Those of [`run_on`](Self::run_on).
    pub fn sample_on(
        &self,
        model: DiskModel,
        replication: u64,
        sink: SampleSink<'_>,
    ) -> Result<DiskReport, RunError> {
        self.drive(model, replication, None, Some(sink))
            .map(|(report, _)| report)
    }

    /// [`run_on`](Self::run_on), recording what the arm did for the first
    /// `followed` requests (and every request competing with them), the
    /// queue over that span and the response times of the measured
    /// completions: the data behind a picture of the run. The report is the
    /// one `run_on` returns; the recording changes nothing in the run.
    ///
    /// # Errors
    /// Those of [`run_on`](Self::run_on).
    pub fn trace_on(
        &self,
        model: DiskModel,
        replication: u64,
        followed: u64,
    ) -> Result<HeadTrace, RunError> {
        let cylinders = model.cylinders();
        let initial = model.head().cylinder;
        let recorder = Recorder::new(followed, initial);
        let (report, recorder) = self.drive(model, replication, Some(recorder), None)?;
        let recorder = recorder.expect("the recorder given comes back");
        Ok(recorder.into_trace(cylinders, initial, report))
    }

    fn drive(
        &self,
        model: DiskModel,
        replication: u64,
        recorder: Option<Recorder>,
        sink: Option<SampleSink<'_>>,
    ) -> Result<(DiskReport, Option<Recorder>), RunError> {
        check_requests(self.requests)?;
        let unit = Unit::new(self.seed, 0, replication);
        let generator = Generator::new(
            self.mix,
            model.capacity_blocks(),
            unit.stream(Purpose::Addresses),
        )?;
        let mut arrivals = ArrivalProcess::new(self.arrivals, unit.stream(Purpose::Arrivals))?;
        let warm_up = if self.warmup > 0 {
            WarmUp::Completions(self.warmup)
        } else {
            WarmUp::None
        };
        let stats = label_kinds(
            DiskStats::new(0).with_warm_up(warm_up),
            self.mix.read_fraction,
        );
        let first = arrivals.first();
        let driver = SingleRun {
            generator,
            arrivals,
            next_id: 0,
            completed: 0,
            target: self.warmup + self.requests,
            end: 0,
            warmup: self.warmup,
            recorder,
            sink,
        };
        let cylinders = model.cylinders();
        let run = RunUnder {
            model,
            service: unit.stream(Purpose::Service { disk: 0 }),
            stats,
            first,
            driver,
        };
        self.policy
            .build_with(Boxed::<QUEUE_CAPACITY>::new(), cylinders, run)
            .map_err(DeviceError::from)?
    }

    /// Runs replications `0..n` on up to `jobs` threads, after
    /// [`check`](Self::check). Each replication has its own random streams,
    /// so the reports are identical whatever `jobs` is.
    ///
    /// # Errors
    /// The check's refusal, or the first failing replication's error.
    pub fn run_replications(&self, n: u64, jobs: usize) -> Result<Vec<DiskReport>, RunError> {
        check_requests(self.requests)?;
        let model = self.model()?;
        self.check_on(&model)?;
        replicate(self, n, jobs, |r| self.run_on(model.clone(), r))
    }
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
    use crate::workload::Addressing;
    use disk_emu::disk::presets;

    fn exp_experiment(policy: PolicySpec, rate: f64) -> DiskExperiment {
        DiskExperiment {
            disk: presets::exponential(45.0),
            policy,
            arrivals: Arrivals::Poisson { rate },
            mix: RequestMix::default(),
            requests: 20_000,
            warmup: 1_000,
            seed: 7,
            allow_overload: false,
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
        let e = DiskExperiment {
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
                capacity: disk_emu::QUEUE_CAPACITY,
                ..
            })
        ));
    }

    #[test]
    fn what_cannot_run_is_refused_before_anything_runs() {
        let overloaded = exp_experiment(PolicySpec::Fcfs, 54.0);
        // 54/s on a disk serving 45/s offers 1.2 of its capacity.
        match overloaded.run_replications(2, 1) {
            Err(RunError::Overload { load }) => assert!((load - 1.2).abs() < 0.01, "{load}"),
            other => panic!("{other:?}"),
        }
        let no_clients = DiskExperiment {
            arrivals: Arrivals::Closed {
                clients: 0,
                think_ms: 1.0,
            },
            ..exp_experiment(PolicySpec::Fcfs, 10.0)
        };
        assert!(matches!(
            no_clients.run_replications(2, 1),
            Err(RunError::Workload(_))
        ));
        let mut huge = exp_experiment(PolicySpec::Fcfs, 10.0);
        huge.mix.blocks = u32::MAX;
        assert!(matches!(
            huge.run_replications(2, 1),
            Err(RunError::Invalid {
                field: "blocks",
                ..
            })
        ));
        // Explicitly allowed, the overload runs until the queue overflows.
        let allowed = DiskExperiment {
            allow_overload: true,
            ..exp_experiment(PolicySpec::Fcfs, 90.0)
        };
        assert!(matches!(
            allowed.run_replications(1, 1),
            Err(RunError::QueueOverflow { .. })
        ));
    }

    /// The samples of a run are the requests its report measures: as many
    /// completions, the same drops and misses; the run is the same.
    #[test]
    fn samples_are_the_measured_requests() {
        use crate::workload::DeadlineRange;
        let mut e = exp_experiment("fd-scan:expired=drop".parse().unwrap(), 40.0);
        e.disk = presets::hp97560();
        e.requests = 3_000;
        e.warmup = 300;
        e.mix.deadline = Some(DeadlineRange {
            min_ms: 20.0,
            max_ms: 40.0,
        });
        let model = e.model().unwrap();
        for replication in 0..6 {
            check_samples(&e, &model, replication);
        }
    }

    fn check_samples(e: &DiskExperiment, model: &DiskModel, replication: u64) {
        use crate::request_sample::{DeadlineOutcome, RequestSample};
        let mut samples: Vec<RequestSample> = Vec::new();
        let sampled = e
            .sample_on(model.clone(), replication, &mut |s: &RequestSample| {
                samples.push(*s)
            })
            .unwrap();
        let plain = e.run_on(model.clone(), replication).unwrap();
        assert_eq!(
            serde_json::to_string(&sampled).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
        let count = |o: DeadlineOutcome| {
            samples
                .iter()
                .filter(|s| s.deadline_outcome() == Some(o))
                .count() as u64
        };
        let served = samples.iter().filter(|s| s.response().is_some()).count() as u64;
        assert_eq!(served, plain.completions);
        let classes =
            |f: fn(&disk_emu::ClassReport) -> u64| plain.classes.iter().map(f).sum::<u64>();
        assert!(classes(|c| c.dropped) > 0);
        assert_eq!(count(DeadlineOutcome::Dropped), classes(|c| c.dropped));
        assert_eq!(
            count(DeadlineOutcome::Missed) + count(DeadlineOutcome::Dropped),
            classes(|c| c.missed)
        );
        assert!(samples.iter().all(|s| s.cylinder.is_some_and(|c| c < 1962)));
        let mean = samples
            .iter()
            .filter_map(RequestSample::response)
            .sum::<u64>() as f64
            / served as f64;
        assert!(
            (mean - plain.response.mean).abs() < 1.0,
            "{mean} {}",
            plain.response.mean
        );
    }

    #[test]
    fn utilisation_load_uses_the_isolated_service_time() {
        let disk = presets::hp97560();
        let mix = RequestMix {
            addressing: Addressing::Uniform,
            ..RequestMix::default()
        };
        let rate = DiskExperiment::rate_for(&disk, &mix, Load::Utilisation(0.5)).unwrap();
        let model = DiskModel::from_spec(&disk).unwrap();
        let service = DiskExperiment::mean_isolated_service(&model, &mix) as f64 / 1e9;
        assert!((rate * service - 0.5).abs() < 1e-9);
        assert!(DiskExperiment::rate_for(&disk, &mix, Load::Rate(-1.0)).is_err());
    }
}
