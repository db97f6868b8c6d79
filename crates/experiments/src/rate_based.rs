//! Rate-based real-time workloads and the WRR-SCAN experiments (Tsai, Chu &
//! Huang, EMSOFT '04, §2 and §4).
//!
//! A task τ_i = (S_i, L_i) with a buffer of B_i bytes becomes periodic jobs:
//! b_i blocks every P_i = B_i / L_i, the k-th released at S_i + (k − 1)·P_i
//! with deadline one period later. Aperiodic tasks read one block each, with
//! exponential gaps. [`run_rate`] drives a [`DiskDevice`] under WRR-SCAN (a
//! version admits the tasks it can and the rest are refused, never run) or
//! under any single-disk policy, SCAN-EDF in the paper (no admission: every
//! task runs; under SCAN-EDF aperiodic requests, which carry no deadline,
//! are served only when no job is pending), and measures what the paper
//! plots.
//!
//! **Data placement.** WRR-SCAN-R reads every block of a job from its own
//! uniformly random place on the disk (one request a block). The other
//! versions and SCAN-EDF ("with compact data", §4) read each task's data
//! from one contiguous file, job after job; WRR-SCAN-C and -CA split a job
//! into pieces of x_i blocks (one a round), SCAN-EDF reads it in one request.
//! Aperiodic blocks lie anywhere, uniformly.
//!
//! **Release-time alignment** (CA): each job is submitted at the start of
//! the round holding its release ([`WrrScan::aligned_release`]); its deadline
//! stays the nominal release plus one period.
//!
//! **Metrics** over the run `[0, duration]`: total seek distance; seek,
//! rotation, transfer, controller overhead and idle time divided by the
//! run's length; utilisation as the paper defines it, transmission time over
//! service time (service = transmission + seek + rotation + the emulated
//! controller's overhead, which the paper's disk model does not have);
//! aperiodic throughput (bytes per second) and mean response; deadline misses
//! per task (a job misses when its last block completes after its deadline,
//! or is still pending when the run ends after its deadline).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use disk_emu::disk::DiskModel;
use disk_emu::{Device, DiskDevice, Outcome, QUEUE_CAPACITY, Rank, Stream};
use sched_core::array::{Copies, Location};
use sched_core::policy::{BFQ_MAX_WEIGHT, BFQ_QUEUES, Bfq, BfqParams, RateTask, WrrMode, WrrScan};
use sched_core::{AnySpec, Block, Blocks, Boxed, Cyl, Kind, Nanos, Request, RequestId, Scheduler};
use serde::{Deserialize, Serialize};

use crate::run_error::RunError;
use crate::seeds::{Purpose, Unit};
use crate::simulation::{Driver, Flow, Simulation};
use crate::workload::WorkloadError;

/// Aperiodic reads that may wait at once; later arrivals are turned away
/// ([`RateReport::aperiodic_dropped`]). Half the device's queue, so that the
/// jobs always find room.
pub const APERIODIC_BACKLOG: u64 = QUEUE_CAPACITY as u64 / 2;

/// Most tasks a WRR-SCAN task table built by [`run_rate`] holds.
pub const MAX_RATE_TASKS: usize = 1024;

const MS: f64 = 1e6;

/// One rate-based task as a sequence of periodic jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateTaskSpec {
    /// The task's request class (1.., 0 is aperiodic).
    pub class: u16,
    /// S_i: release of the first job.
    pub release: Nanos,
    /// P_i: period and relative deadline.
    pub period: Nanos,
    /// b_i: blocks (of the workload's block size) read each period.
    pub blocks: u32,
}

impl RateTaskSpec {
    /// The admission view of the task.
    pub fn task(&self) -> RateTask {
        RateTask {
            class: self.class,
            period: self.period,
            blocks: self.blocks,
        }
    }
}

/// A set of rate-based tasks plus the aperiodic stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateWorkload {
    /// The real-time tasks, in admission order.
    pub tasks: Vec<RateTaskSpec>,
    /// Mean gap between aperiodic one-block reads (0: none).
    pub aperiodic_gap: Nanos,
    /// Device sectors in one block of C bytes.
    pub block_sectors: u32,
}

/// The paper's workload parameters (§4), "variance" read literally (SPEC §6).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tsai04Distribution {
    /// Mean period, ms (5000).
    pub period_mean_ms: f64,
    /// Period variance, ms² (1000).
    pub period_variance_ms2: f64,
    /// Mean buffer, KB (56).
    pub buffer_mean_kb: f64,
    /// Buffer variance, KB² (28).
    pub buffer_variance_kb2: f64,
    /// Mean aperiodic gap, ms (35).
    pub aperiodic_gap_ms: f64,
    /// C, bytes (4096).
    pub block_bytes: u32,
    /// Device sector, bytes (512).
    pub sector_bytes: u32,
}

impl Default for Tsai04Distribution {
    fn default() -> Self {
        Tsai04Distribution {
            period_mean_ms: 5000.0,
            period_variance_ms2: 1000.0,
            buffer_mean_kb: 56.0,
            buffer_variance_kb2: 28.0,
            aperiodic_gap_ms: 35.0,
            block_bytes: 4096,
            sector_bytes: 512,
        }
    }
}

impl Tsai04Distribution {
    /// A task set of `n` tasks (classes 1..=n): periods and buffers normal
    /// (clamped to at least 1 ms and one block), first releases uniform over
    /// the first period (the paper does not say; spreading them keeps the
    /// jobs from all arriving at once).
    ///
    /// # Errors
    /// [`WorkloadError::Invalid`] for a non-positive mean, a negative
    /// variance, `n` beyond [`MAX_RATE_TASKS`], or a block not a whole number
    /// of sectors.
    pub fn task_set(&self, n: usize, seed: u64, set: u64) -> Result<RateWorkload, WorkloadError> {
        let bad = |field, expected, value: f64| WorkloadError::Invalid {
            field,
            expected,
            value: value.to_string(),
        };
        type Check = (&'static str, f64, fn(f64) -> bool, &'static str);
        let checks: [Check; 5] = [
            (
                "period_mean_ms",
                self.period_mean_ms,
                positive,
                "positive and finite",
            ),
            (
                "buffer_mean_kb",
                self.buffer_mean_kb,
                positive,
                "positive and finite",
            ),
            (
                "period_variance_ms2",
                self.period_variance_ms2,
                non_negative,
                "non-negative",
            ),
            (
                "buffer_variance_kb2",
                self.buffer_variance_kb2,
                non_negative,
                "non-negative",
            ),
            (
                "aperiodic_gap_ms",
                self.aperiodic_gap_ms,
                non_negative,
                "non-negative",
            ),
        ];
        for (field, value, ok, expected) in checks {
            if !ok(value) {
                return Err(bad(field, expected, value));
            }
        }
        if self.sector_bytes == 0
            || self.block_bytes == 0
            || !self.block_bytes.is_multiple_of(self.sector_bytes)
        {
            return Err(bad(
                "block_bytes",
                "a positive multiple of the sector size",
                f64::from(self.block_bytes),
            ));
        }
        if n > MAX_RATE_TASKS {
            return Err(bad("tasks", "at most 1024", n as f64));
        }
        let mut draws = Unit::new(seed, 0, set).stream(Purpose::Tasks);
        let mut releases = Unit::new(seed, 0, set).stream(Purpose::Releases);
        let tasks = (0..n)
            .map(|i| {
                let period_ms = draws
                    .normal(self.period_mean_ms, self.period_variance_ms2.sqrt())
                    .max(1.0);
                let buffer_kb = draws
                    .normal(self.buffer_mean_kb, self.buffer_variance_kb2.sqrt())
                    .max(0.0);
                let period = (period_ms * MS) as Nanos;
                let bytes = (buffer_kb * 1024.0).ceil() as u64;
                let blocks = bytes.div_ceil(u64::from(self.block_bytes)).max(1) as u32;
                RateTaskSpec {
                    class: (i + 1) as u16,
                    release: releases.below(period),
                    period,
                    blocks,
                }
            })
            .collect();
        Ok(RateWorkload {
            tasks,
            aperiodic_gap: (self.aperiodic_gap_ms * MS) as Nanos,
            block_sectors: self.block_bytes / self.sector_bytes,
        })
    }
}

fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

fn non_negative(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

/// The label of a rate-based run's policy as the paper writes it:
/// `WRR-SCAN-R`, `-C`, `-CA`, or a single-disk policy's name in capitals
/// (`SCAN-EDF`).
pub fn rate_label(policy: &AnySpec) -> String {
    match policy {
        AnySpec::RateBased(p) => p.mode.to_string(),
        other => other.name().to_ascii_uppercase(),
    }
}

/// One task's fate in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskOutcome {
    /// Its class.
    pub class: u16,
    /// Whether it ran (WRR-SCAN refuses what fails its test).
    pub admitted: bool,
    /// Jobs whose deadline fell in the run, or that completed in it.
    pub jobs: u64,
    /// Of those, the jobs that completed after their deadline or never.
    pub misses: u64,
}

/// What one rate-based run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateReport {
    /// The policy.
    pub policy: String,
    /// Tasks offered.
    pub offered: usize,
    /// Tasks admitted (all of them under SCAN-EDF).
    pub admitted: usize,
    /// Round length in force, ns (WRR-SCAN with a task admitted).
    pub round_ns: Option<Nanos>,
    /// x_a: aperiodic blocks reserved a round.
    pub aperiodic_reserved_blocks: Option<u64>,
    /// Length of the run, ns.
    pub duration_ns: Nanos,
    /// Cylinders travelled.
    pub total_seek_distance: u64,
    /// Idle time / run length.
    pub idle: f64,
    /// Seek time / run length.
    pub seek: f64,
    /// Rotational latency / run length.
    pub rotation: f64,
    /// Media transfer / run length.
    pub transfer: f64,
    /// Controller overhead / run length.
    pub overhead: f64,
    /// Transmission / service (transmission + seek + rotation + overhead).
    pub utilisation: f64,
    /// Aperiodic bytes completed per second.
    pub aperiodic_throughput: f64,
    /// Mean aperiodic response, ms (NaN if none completed).
    pub aperiodic_response_ms: f64,
    /// Aperiodic reads completed.
    pub aperiodic_completed: u64,
    /// Aperiodic reads turned away because [`APERIODIC_BACKLOG`] were waiting.
    pub aperiodic_dropped: u64,
    /// Rounds in which the aperiodic server, with work waiting when the
    /// round began, completed fewer than min(waiting, x_a) reads (WRR-SCAN;
    /// 0 otherwise). The reservation promises none.
    pub aperiodic_short_rounds: u64,
    /// Rounds checked for that.
    pub aperiodic_rounds_with_work: u64,
    /// Jobs of admitted tasks that missed their deadline.
    pub deadline_misses: u64,
    /// Jobs of admitted tasks judged.
    pub jobs: u64,
    /// The least time, ms, by which a completed job beat its deadline
    /// (negative for a miss; NaN if no job completed): the guarantee's margin.
    pub min_slack_ms: f64,
    /// Per task.
    pub tasks: Vec<TaskOutcome>,
}

/// A job still being read.
struct Job {
    task: usize,
    remaining: u32,
    deadline: Nanos,
}

/// How each admitted task's jobs become requests.
#[derive(Clone, Copy)]
struct Plan {
    task: usize,
    /// Blocks per request (1 when scattered).
    piece: u32,
    scattered: bool,
    /// Align submissions to rounds of this length (CA).
    align: Option<Nanos>,
    /// First block of the task's file.
    file: u64,
    /// The file's length in blocks.
    file_blocks: u64,
}

/// Runs `workload` on `model` under `policy` for `duration`: WRR-SCAN (a
/// rate-based policy) admits the tasks it can and the rest never run; any
/// single-disk policy (SCAN-EDF in the paper) runs every task, each job read
/// in one request from its task's contiguous file.
///
/// # Errors
/// [`RunError::Invalid`] for an array policy; [`RunError`] when the device
/// refuses a request (a queue overflow under an overload) or the model
/// cannot hold the data.
pub fn run_rate(
    model: &DiskModel,
    workload: &RateWorkload,
    policy: &AnySpec,
    duration: Nanos,
    seed: u64,
    replication: u64,
) -> Result<RateReport, RunError> {
    let service = Unit::new(seed, 0, replication).stream(Purpose::Service { disk: 0 });
    let run = |rounds| Run {
        duration,
        seed,
        replication,
        rounds,
    };
    match policy {
        AnySpec::RateBased(params) => {
            let mut wrr: WrrScan<Boxed<QUEUE_CAPACITY>, Boxed<MAX_RATE_TASKS>> =
                WrrScan::new(Boxed::new(), Boxed::new(), model.cylinders(), *params)?;
            let admitted: Vec<bool> = workload
                .tasks
                .iter()
                .map(|t| wrr.admit(t.task()).is_ok())
                .collect();
            let round = wrr.round();
            let scattered = params.mode == WrrMode::Random;
            let pieces: Vec<u32> = workload
                .tasks
                .iter()
                .map(|t| {
                    wrr.reservation(t.class)
                        .map_or(t.blocks, |r| r.blocks_per_round)
                })
                .collect();
            let align = match params.mode {
                WrrMode::Aligned => round.map(|r| r.length),
                _ => None,
            };
            let device = DiskDevice::with_policy(model.clone(), wrr, service);
            let mut report = drive(
                device,
                workload,
                &admitted,
                |task| Layout {
                    piece: if scattered { 1 } else { pieces[task] },
                    scattered,
                    align,
                },
                &run(round.map(|r| (r.length, r.aperiodic_blocks))),
            )?;
            report.policy = rate_label(policy);
            Ok(report)
        }
        AnySpec::Disk(spec) => {
            let queue = spec.build(Boxed::<QUEUE_CAPACITY>::new(), model.cylinders())?;
            let mut report = run_every_task(model, workload, queue, &run(None))?;
            report.policy = rate_label(policy);
            Ok(report)
        }
        AnySpec::Array(_) => Err(RunError::Invalid {
            field: "policy",
            expected: "a rate-based or a single-disk policy (a rate-based run drives one disk)",
        }),
    }
}

/// The label of [`run_rate_bfq`]'s rows.
pub const BFQ_RATE_LABEL: &str = "BFQ (rate weights)";

/// Most tasks [`run_rate_bfq`] runs: BFQ keeps [`BFQ_QUEUES`] class queues
/// and the aperiodic reads take one of them. A larger set is refused rather
/// than merged, since tasks sharing a queue would share its weight.
pub const MAX_BFQ_RATE_TASKS: usize = BFQ_QUEUES - 1;

/// BFQ's weight for each class of `workload`, `(class, weight)`: each task
/// a class, the aperiodic reads (class 0) one more when they arrive at all.
/// A class's weight is proportional to its rate, blocks a second (b_i / P_i
/// for a task, one block per mean gap for the aperiodic stream), scaled so
/// that the fastest gets [`BFQ_MAX_WEIGHT`] (1000): `round(1000 · r / r_max)`,
/// clamped to 1 ..= 1000. Proportional weights are what BFQ's shares depend
/// on; mapping the fastest to 1000 keeps the most resolution, and only a
/// class slower than 1/2000 of the fastest has its share raised (to 1).
///
/// # Errors
/// [`WorkloadError::Invalid`] for more than [`MAX_BFQ_RATE_TASKS`] tasks.
pub fn bfq_rate_weights(workload: &RateWorkload) -> Result<Vec<(u16, u16)>, WorkloadError> {
    if workload.tasks.len() > MAX_BFQ_RATE_TASKS {
        return Err(WorkloadError::Invalid {
            field: "tasks",
            expected: "at most 15 tasks under BFQ: it keeps 16 class queues, one a task and one for the aperiodic reads",
            value: workload.tasks.len().to_string(),
        });
    }
    let per_second = |blocks: u32, every: Nanos| f64::from(blocks) * 1e9 / every.max(1) as f64;
    let rates: Vec<(u16, f64)> = workload
        .tasks
        .iter()
        .map(|t| (t.class, per_second(t.blocks, t.period)))
        .chain((workload.aperiodic_gap > 0).then(|| (0, per_second(1, workload.aperiodic_gap))))
        .collect();
    let fastest = rates.iter().map(|&(_, r)| r).fold(0.0, f64::max);
    Ok(rates
        .into_iter()
        .map(|(class, rate)| {
            let weight = (f64::from(BFQ_MAX_WEIGHT) * rate / fastest).round();
            (class, weight.clamp(1.0, f64::from(BFQ_MAX_WEIGHT)) as u16)
        })
        .collect())
}

/// Runs `workload` as [`run_rate`] runs a single-disk policy (every task
/// runs, each job one request from its task's contiguous file), under BFQ
/// with `params` and the weights of [`bfq_rate_weights`]: Linux's
/// proportional-share answer to the rate-based tasks, with no admission.
///
/// # Errors
/// [`RunError::Workload`] for more than [`MAX_BFQ_RATE_TASKS`] tasks; as
/// [`run_rate`] otherwise.
pub fn run_rate_bfq(
    model: &DiskModel,
    workload: &RateWorkload,
    params: BfqParams,
    duration: Nanos,
    seed: u64,
    replication: u64,
) -> Result<RateReport, RunError> {
    let mut bfq = Bfq::new(Boxed::<QUEUE_CAPACITY>::new(), model.cylinders(), params)?;
    for (class, weight) in bfq_rate_weights(workload)? {
        bfq.set_weight(class, weight)?;
    }
    let mut report = run_every_task(
        model,
        workload,
        bfq,
        &Run {
            duration,
            seed,
            replication,
            rounds: None,
        },
    )?;
    report.policy = BFQ_RATE_LABEL.to_string();
    Ok(report)
}

/// Every task of `workload` run under a single-disk `queue`, each job read
/// in one request from its task's contiguous file.
fn run_every_task<S: Scheduler>(
    model: &DiskModel,
    workload: &RateWorkload,
    queue: S,
    run: &Run,
) -> Result<RateReport, RunError> {
    let service = Unit::new(run.seed, 0, run.replication).stream(Purpose::Service { disk: 0 });
    let device = DiskDevice::with_policy(model.clone(), queue, service);
    let admitted = vec![true; workload.tasks.len()];
    drive(
        device,
        workload,
        &admitted,
        |task| Layout {
            piece: workload.tasks[task].blocks,
            scattered: false,
            align: None,
        },
        run,
    )
}

/// How a task's jobs are cut and placed.
struct Layout {
    piece: u32,
    scattered: bool,
    align: Option<Nanos>,
}

/// How long a run lasts, its random streams, and (WRR-SCAN) the round
/// length and x_a the aperiodic server is checked against.
struct Run {
    duration: Nanos,
    seed: u64,
    replication: u64,
    rounds: Option<(Nanos, u64)>,
}

/// The rate-based workload as a driver of the event loop: one event, "the
/// next release is due" (every task's jobs due at that instant, in task
/// order, then the aperiodic arrival), ranked before the device's own
/// events of the same instant so that a job released as a round opens is
/// queued when the round starts; and the end of the run, after everything
/// else at its instant.
struct RateRun<'w> {
    workload: &'w RateWorkload,
    plans: Vec<Plan>,
    /// Next job number of each plan.
    next_job: Vec<u64>,
    next_aperiodic: Nanos,
    places: Stream,
    arrivals: Stream,
    ledger: Ledger,
    ids: u64,
    /// Arrival times of the aperiodic reads submitted.
    aperiodic_arrivals: Vec<Nanos>,
    duration: Nanos,
    /// Device sectors per block of the workload.
    spb: u64,
    /// Blocks the disk holds.
    capacity: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RateEvent {
    Release,
    End,
}

impl RateRun<'_> {
    /// When plan `p`'s job `k` is submitted: its release, aligned to the
    /// round holding it under WRR-SCAN-CA.
    fn submit_at(&self, p: &Plan, k: u64) -> Nanos {
        let t = &self.workload.tasks[p.task];
        let release = t.release + k * t.period;
        match p.align {
            Some(r) => release - release % r,
            None => release,
        }
    }

    /// The next release of any kind.
    fn next_release(&self) -> Nanos {
        self.plans
            .iter()
            .enumerate()
            .map(|(j, p)| self.submit_at(p, self.next_job[j]))
            .min()
            .unwrap_or(Nanos::MAX)
            .min(self.next_aperiodic)
    }

    fn schedule_release<S: Scheduler>(&self, sim: &mut Simulation<DiskDevice<S>, RateEvent>) {
        let t = self.next_release();
        if t <= self.duration {
            sim.schedule_ranked(t, Rank::BEFORE_DEVICES, RateEvent::Release);
        }
    }

    fn submit<S: Scheduler>(
        sim: &mut Simulation<DiskDevice<S>, RateEvent>,
        req: Request,
        t: Nanos,
    ) -> Result<(), RunError> {
        let at = Location {
            block: req.block,
            cylinder: 0,
        };
        sim.with_device(0, |d| d.submit(req, &Copies::everywhere(1, at), t))
            .map_err(|e| RunError::device(e, t))
    }

    /// Every job due at `t`, in task order, then the aperiodic arrival.
    fn release<S: Scheduler>(
        &mut self,
        sim: &mut Simulation<DiskDevice<S>, RateEvent>,
        t: Nanos,
    ) -> Result<(), RunError> {
        let spb = self.spb;
        for j in 0..self.plans.len() {
            let p = self.plans[j];
            while self.submit_at(&p, self.next_job[j]) == t {
                let k = self.next_job[j];
                self.next_job[j] += 1;
                let task = &self.workload.tasks[p.task];
                let release = task.release + k * task.period;
                let deadline = release + task.period;
                let pieces = task.blocks.div_ceil(p.piece);
                self.ledger.jobs.insert(
                    (p.task, k),
                    Job {
                        task: p.task,
                        remaining: pieces,
                        deadline,
                    },
                );
                for piece in 0..pieces {
                    let first = u64::from(piece * p.piece);
                    let len = p.piece.min(task.blocks - piece * p.piece);
                    let block = if p.scattered {
                        self.places.below(self.capacity)
                    } else {
                        p.file + (k * u64::from(task.blocks) + first) % (p.file_blocks)
                    };
                    // A piece never runs past the file's end: wrap it whole.
                    let block = if !p.scattered && block + u64::from(len) > p.file + p.file_blocks {
                        p.file
                    } else {
                        block
                    };
                    self.ids += 1;
                    self.ledger.owner.insert(self.ids, (p.task, k));
                    let req = Request::new(
                        RequestId(self.ids),
                        Kind::Read,
                        Block(block * spb),
                        Blocks(len * spb as u32),
                        Cyl(0),
                        t,
                    )
                    .with_deadline(deadline)
                    .with_class(task.class);
                    Self::submit(sim, req, t)?;
                }
            }
        }
        if self.next_aperiodic == t {
            // A bounded background queue: beyond APERIODIC_BACKLOG waiting
            // reads an arrival is turned away (and counted), so that a
            // policy starving aperiodic work (SCAN-EDF at heavy load) never
            // fills the device's queue under the jobs.
            let waiting =
                self.aperiodic_arrivals.len() as u64 - self.ledger.totals.aperiodic_completed;
            if waiting >= APERIODIC_BACKLOG {
                self.ledger.totals.aperiodic_dropped += 1;
            } else {
                self.ids += 1;
                let req = Request::new(
                    RequestId(self.ids),
                    Kind::Read,
                    Block(self.places.below(self.capacity) * spb),
                    Blocks(spb as u32),
                    Cyl(0),
                    t,
                );
                Self::submit(sim, req, t)?;
                self.aperiodic_arrivals.push(t);
            }
            self.next_aperiodic = t + self
                .arrivals
                .exponential(self.workload.aperiodic_gap)
                .max(1);
        }
        Ok(())
    }
}

impl<S: Scheduler> Driver<DiskDevice<S>> for RateRun<'_> {
    type Event = RateEvent;
    type Output = ();
    type Error = RunError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<DiskDevice<S>, RateEvent>,
        now: Nanos,
        event: RateEvent,
    ) -> Result<Flow, RunError> {
        match event {
            RateEvent::Release => {
                self.release(sim, now)?;
                self.schedule_release(sim);
                Ok(Flow::Continue)
            }
            RateEvent::End => Ok(Flow::Stop),
        }
    }

    fn on_outcome(
        &mut self,
        _sim: &mut Simulation<DiskDevice<S>, RateEvent>,
        _now: Nanos,
        _device: usize,
        outcome: Outcome,
    ) -> Result<Flow, RunError> {
        self.ledger.record(outcome);
        Ok(Flow::Continue)
    }

    /// Brings the device to the end of the run and takes in what it reports.
    fn finish(
        &mut self,
        sim: &mut Simulation<DiskDevice<S>, RateEvent>,
        _stopped: bool,
    ) -> Result<(), RunError> {
        let duration = self.duration;
        sim.with_device(0, |d| {
            d.advance(duration.max(d.now()))?;
            while let Some(o) = d.poll() {
                self.ledger.record(o);
            }
            Ok(())
        })
    }
}

fn drive<S: Scheduler>(
    device: DiskDevice<S>,
    workload: &RateWorkload,
    admitted: &[bool],
    layout: impl Fn(usize) -> Layout,
    run: &Run,
) -> Result<RateReport, RunError> {
    let Run {
        duration,
        seed,
        replication,
        rounds,
    } = *run;
    let spb = u64::from(workload.block_sectors.max(1));
    let model = device.model(0).expect("a single disk has disk 0");
    let sector_bytes = u64::from(model.block_bytes());
    let capacity = model_blocks(model, spb);
    let unit = Unit::new(seed, 0, replication);
    let mut places = unit.stream(Purpose::Addresses);
    let mut arrivals = unit.stream(Purpose::Arrivals);
    let plans: Vec<Plan> = (0..workload.tasks.len())
        .filter(|&i| admitted[i])
        .map(|i| {
            let t = &workload.tasks[i];
            let l = layout(i);
            let jobs = duration / t.period.max(1) + 2;
            let file_blocks = (jobs * u64::from(t.blocks)).min(capacity);
            Plan {
                task: i,
                piece: l.piece.max(1),
                scattered: l.scattered,
                align: l.align,
                file: places.below(capacity - file_blocks + 1),
                file_blocks,
            }
        })
        .collect();
    let next_aperiodic = if workload.aperiodic_gap > 0 {
        arrivals.exponential(workload.aperiodic_gap)
    } else {
        Nanos::MAX
    };
    let ledger = Ledger {
        jobs: HashMap::new(),
        owner: HashMap::new(),
        outcomes: workload
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| TaskOutcome {
                class: t.class,
                admitted: admitted[i],
                jobs: 0,
                misses: 0,
            })
            .collect(),
        totals: Totals::default(),
        aperiodic_done: Vec::new(),
        sector_bytes,
    };
    let mut rate_run = RateRun {
        workload,
        next_job: vec![0; plans.len()],
        plans,
        next_aperiodic,
        places,
        arrivals,
        ledger,
        ids: 0,
        aperiodic_arrivals: Vec::new(),
        duration,
        spb,
        capacity,
    };
    let mut sim = Simulation::new();
    sim.add_device(device);
    rate_run.schedule_release(&mut sim);
    sim.schedule_ranked(duration, Rank::LAST, RateEvent::End);
    sim.run(&mut rate_run)?;
    let RateRun {
        aperiodic_arrivals,
        ledger:
            Ledger {
                jobs,
                mut outcomes,
                totals: acc,
                mut aperiodic_done,
                ..
            },
        ..
    } = rate_run;
    for job in jobs.values() {
        if job.deadline <= duration {
            outcomes[job.task].jobs += 1;
            outcomes[job.task].misses += 1;
        }
    }
    let (short, with_work) = match rounds {
        Some((length, x_a)) => {
            aperiodic_done.sort_unstable();
            short_rounds(&aperiodic_arrivals, &aperiodic_done, length, x_a, duration)
        }
        None => (0, 0),
    };
    let length = duration.max(1) as f64;
    let busy = acc.seek + acc.rotation + acc.transfer + acc.overhead;
    let admitted_count = admitted.iter().filter(|&&a| a).count();
    let (jobs_judged, misses) = outcomes
        .iter()
        .filter(|o| o.admitted)
        .fold((0, 0), |(j, m), o| (j + o.jobs, m + o.misses));
    Ok(RateReport {
        policy: String::new(),
        offered: workload.tasks.len(),
        admitted: admitted_count,
        round_ns: rounds.map(|r| r.0),
        aperiodic_reserved_blocks: rounds.map(|r| r.1),
        duration_ns: duration,
        total_seek_distance: acc.distance,
        idle: (1.0 - busy as f64 / length).max(0.0),
        seek: acc.seek as f64 / length,
        rotation: acc.rotation as f64 / length,
        transfer: acc.transfer as f64 / length,
        overhead: acc.overhead as f64 / length,
        utilisation: if busy == 0 {
            f64::NAN
        } else {
            acc.transfer as f64 / busy as f64
        },
        aperiodic_throughput: acc.aperiodic_bytes as f64 / (length / 1e9),
        aperiodic_response_ms: if acc.aperiodic_completed == 0 {
            f64::NAN
        } else {
            acc.aperiodic_response as f64 / acc.aperiodic_completed as f64 / MS
        },
        aperiodic_completed: acc.aperiodic_completed,
        aperiodic_dropped: acc.aperiodic_dropped,
        aperiodic_short_rounds: short,
        aperiodic_rounds_with_work: with_work,
        deadline_misses: misses,
        jobs: jobs_judged,
        min_slack_ms: if acc.min_slack.is_finite() {
            acc.min_slack / MS
        } else {
            f64::NAN
        },
        tasks: outcomes,
    })
}

/// What a rate run has seen so far: jobs still being read and the owner of
/// each of their requests, per-task outcomes and the run's totals.
struct Ledger {
    jobs: HashMap<(usize, u64), Job>,
    /// Request id → the job (task, number) it reads for.
    owner: HashMap<u64, (usize, u64)>,
    outcomes: Vec<TaskOutcome>,
    totals: Totals,
    /// Completion times of aperiodic reads.
    aperiodic_done: Vec<Nanos>,
    sector_bytes: u64,
}

impl Ledger {
    /// Takes in an outcome the device reported.
    fn record(&mut self, o: Outcome) {
        let Outcome::Completed(d) = o else { return };
        let acc = &mut self.totals;
        let t = d.timing;
        acc.seek += t.seek;
        acc.rotation += t.rotation;
        acc.transfer += t.transfer;
        acc.overhead += t.overhead;
        acc.distance += u64::from(t.seek_distance);
        if d.request.class == 0 {
            acc.aperiodic_bytes += u64::from(d.request.blocks) * self.sector_bytes;
            acc.aperiodic_response += t.response();
            acc.aperiodic_completed += 1;
            self.aperiodic_done.push(t.finish);
            return;
        }
        let Some(key) = self.owner.remove(&d.request.id.0) else {
            return;
        };
        let Entry::Occupied(mut pending) = self.jobs.entry(key) else {
            return;
        };
        pending.get_mut().remaining -= 1;
        if pending.get().remaining == 0 {
            let job = pending.remove();
            let o = &mut self.outcomes[job.task];
            o.jobs += 1;
            let slack = job.deadline as f64 - t.finish as f64;
            acc.min_slack = acc.min_slack.min(slack);
            if t.finish > job.deadline {
                o.misses += 1;
            }
        }
    }
}

struct Totals {
    seek: Nanos,
    rotation: Nanos,
    transfer: Nanos,
    overhead: Nanos,
    distance: u64,
    aperiodic_bytes: u64,
    aperiodic_response: Nanos,
    aperiodic_completed: u64,
    aperiodic_dropped: u64,
    /// Least deadline − completion over completed jobs, ns.
    min_slack: f64,
}

impl Default for Totals {
    fn default() -> Self {
        Totals {
            seek: 0,
            rotation: 0,
            transfer: 0,
            overhead: 0,
            distance: 0,
            aperiodic_bytes: 0,
            aperiodic_response: 0,
            aperiodic_completed: 0,
            aperiodic_dropped: 0,
            min_slack: f64::INFINITY,
        }
    }
}

/// Blocks of `spb` sectors the disk holds.
fn model_blocks(model: &DiskModel, spb: u64) -> u64 {
    (model.capacity_blocks() / spb).max(1)
}

/// Rounds `[kR, (k+1)R)` that began with aperiodic reads waiting, and of
/// those the ones completing fewer than min(waiting, x_a) reads.
fn short_rounds(
    arrivals: &[Nanos],
    done: &[Nanos],
    round: Nanos,
    x_a: u64,
    duration: Nanos,
) -> (u64, u64) {
    let (mut short, mut with_work) = (0, 0);
    let mut k = 0;
    while (k + 1) * round <= duration {
        let start = k * round;
        let end = start + round;
        let arrived = arrivals.partition_point(|&a| a <= start) as u64;
        let finished = done.partition_point(|&f| f <= start) as u64;
        let waiting = arrived.saturating_sub(finished);
        if waiting > 0 {
            with_work += 1;
            let served = (done.partition_point(|&f| f <= end) as u64) - finished;
            if served < waiting.min(x_a) {
                short += 1;
            }
        }
        k += 1;
    }
    (short, with_work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use disk_emu::disk::presets;
    use sched_core::policy::{AperiodicReserve, WrrParams};

    #[test]
    fn the_paper_distribution_reads_variance_literally() {
        let w = Tsai04Distribution::default().task_set(500, 3, 0).unwrap();
        let periods: Vec<f64> = w.tasks.iter().map(|t| t.period as f64 / 1e6).collect();
        let mean = periods.iter().sum::<f64>() / 500.0;
        let var = periods.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / 499.0;
        // Variance 1000 ms², not a standard deviation of 1000 ms.
        assert!((mean - 5000.0).abs() < 5.0, "{mean}");
        assert!((700.0..1300.0).contains(&var), "{var}");
        // 56 KB with a standard deviation of 5.3 KB, in 4 KB blocks (rounded up).
        let blocks = w.tasks.iter().map(|t| f64::from(t.blocks)).sum::<f64>() / 500.0;
        assert!((14.0..15.0).contains(&blocks), "{blocks}");
        assert!(w.tasks.iter().all(|t| (8..=21).contains(&t.blocks)));
        assert!(w.tasks.iter().all(|t| t.release < t.period));
    }

    #[test]
    fn a_bad_distribution_is_a_typed_error() {
        let bad = Tsai04Distribution {
            period_mean_ms: -1.0,
            ..Tsai04Distribution::default()
        };
        assert!(matches!(
            bad.task_set(3, 1, 0),
            Err(WorkloadError::Invalid {
                field: "period_mean_ms",
                ..
            })
        ));
        let bad = Tsai04Distribution {
            block_bytes: 1000,
            ..Tsai04Distribution::default()
        };
        assert!(matches!(
            bad.task_set(3, 1, 0),
            Err(WorkloadError::Invalid {
                field: "block_bytes",
                ..
            })
        ));
    }

    #[test]
    fn bfq_weights_follow_the_rates_and_refuse_a_sixteenth_task() {
        let w = RateWorkload {
            tasks: [
                (1, 1_000_000_000, 100),
                (2, 2_000_000_000, 10),
                (3, 1_000_000_000, 1),
            ]
            .map(|(class, period, blocks)| RateTaskSpec {
                class,
                release: 0,
                period,
                blocks,
            })
            .to_vec(),
            // One block every 40 ms: 25 a second.
            aperiodic_gap: 40_000_000,
            block_sectors: 8,
        };
        // 100, 5, 1 and 25 blocks a second against the fastest's 100; the
        // slowest's 10 is exact, nothing clamped.
        assert_eq!(
            bfq_rate_weights(&w).unwrap(),
            vec![(1, 1000), (2, 50), (3, 10), (0, 250)]
        );
        let crowd = RateWorkload {
            tasks: (1..=16)
                .map(|class| RateTaskSpec {
                    class,
                    release: 0,
                    period: 1_000_000_000,
                    blocks: 1,
                })
                .collect(),
            ..w
        };
        assert!(matches!(
            bfq_rate_weights(&crowd),
            Err(WorkloadError::Invalid { field: "tasks", .. })
        ));
        let fifteen = RateWorkload {
            tasks: crowd.tasks[..15].to_vec(),
            ..crowd
        };
        assert_eq!(bfq_rate_weights(&fifteen).unwrap().len(), 16);
    }

    #[test]
    fn runs_are_deterministic_and_count_every_job() {
        let model = DiskModel::from_spec(&presets::hp97560()).unwrap();
        let w = Tsai04Distribution::default().task_set(20, 5, 1).unwrap();
        let c = AnySpec::RateBased(WrrParams::tsai04(
            WrrMode::Contiguous,
            AperiodicReserve::Share { ppm: 5_000 },
        ));
        let a = run_rate(&model, &w, &c, 20_000_000_000, 5, 1).unwrap();
        let b = run_rate(&model, &w, &c, 20_000_000_000, 5, 1).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.admitted, 20);
        // Each task's jobs whose deadline falls in 20 s are all judged.
        for (t, o) in w.tasks.iter().zip(&a.tasks) {
            let due = (20_000_000_000 - t.release) / t.period;
            assert!(
                o.jobs >= due,
                "task {}: {} jobs judged, {due} due",
                t.class,
                o.jobs
            );
        }
        assert_eq!(a.deadline_misses, 0);
        let parts = a.idle + a.seek + a.rotation + a.transfer + a.overhead;
        assert!((parts - 1.0).abs() < 0.01, "{parts}");
        let e = run_rate(
            &model,
            &w,
            &"scan-edf".parse().unwrap(),
            20_000_000_000,
            5,
            1,
        )
        .unwrap();
        assert_eq!(e.policy, "SCAN-EDF");
        assert!(e.aperiodic_completed > 0);
    }
}
