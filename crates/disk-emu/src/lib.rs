//! A deterministic, virtual-time block-device emulator.
//!
//! Disk mechanics with real geometry drive any `sched-core` policy: requests
//! arrive from a workload or a trace, wait in the policy's queue, are served
//! with times from the disk model, and leave statistics behind. Time is an
//! integer count of nanoseconds; the same configuration and seed give the same
//! bits on every run, whatever the number of threads.
//!
//! ## Layout
//!
//! Two namespaces of their own: [`disk`] (drive specifications, presets,
//! DiskSim files, the mechanical model) and [`trace`] (trace formats and
//! readers). Everything else has one path, at the root:
//!
//! - **Devices** with an open, event-by-event API: [`DiskDevice`],
//!   [`ArrayDevice`], their [`Outcome`]s with per-request [`Timing`] (see
//!   [Driving a device](#driving-a-device)).
//! - **Experiments** built on them: [`Experiment`] (one disk),
//!   [`MirrorExperiment`] (a mirrored pair), [`replay`] (block traces).
//! - **Workloads**: [`Arrivals`], [`RequestMix`], [`Generator`],
//!   [`ArrivalProcess`]; seeded random [`Stream`]s; rate-based real-time
//!   tasks ([`RateWorkload`], [`Tsai04Distribution`]) run by [`run_rate`].
//! - **Statistics**: [`DiskStats`], [`ArrayStats`], [`ClassStats`] and their
//!   reports; [`MetricTable`] for confidence intervals over replications.
//!
//! ## Driving a device
//!
//! The devices have an open, event-by-event API: one disk ([`DiskDevice`]) or
//! an array of 1 to 64 disks holding copies of the same data ([`ArrayDevice`]).
//!
//! A device is a deterministic state machine in virtual time, like the
//! `sched-core` policies it drives and in the manner of quinn-proto's
//! `Connection`: it owns no thread and no clock. The driver — an experiment,
//! a trace replay, a transaction simulator, a block device serving real I/O
//! — tells it what happens and when, and collects what comes out:
//!
//! - **Inputs** change the device at a time the driver names: `submit` a
//!   request (an array takes a logical request with its [`Copies`]);
//!   `cancel` a queued one; `advance` the clock to a time; on an array,
//!   `fail_disk`, `replace_disk`.
//! - **Outputs** are polled: [`poll`](DiskDevice::poll) yields an
//!   [`Outcome`] per finished, expired or failed request, with its
//!   [`Timing`]; `next_event_time` says when the device next has something
//!   to do on its own (a service ends, a policy releases held work, a resync
//!   step is due).
//! - **Getters** report the state: the clock, queue lengths, what each disk
//!   serves, disk states, statistics.
//!
//! A driver calls them in this order:
//!
//! 1. Let `t` be the earlier of its own next event and `next_event_time()`.
//! 2. `advance(t)`: the device processes everything due at or before `t`
//!    (completions start the next service at once).
//! 3. `poll()` until `None`, reacting to each outcome.
//! 4. Handle its own events at `t`: `submit`, `cancel`, disk operations.
//! 5. Repeat.
//!
//! Inputs at a time `t` while the device has events due *before* `t` are
//! refused ([`DeviceError::Behind`]): advance first. Events due *at* `t` may
//! be processed before or after the driver's inputs at `t`, as the driver
//! chooses; the crate's experiments and replays, which share one such loop,
//! take simultaneous events in the order they were scheduled.
//!
//! [`Copies`]: sched_core::array::Copies

mod device;
pub mod disk;
mod engine;
mod mirror;
mod random;
mod rate;
mod replay;
mod sim;
mod stats;
pub mod trace;
mod workload;

pub use device::{
    ARRAY_CAPACITY, ArrayDevice, ArrayOptions, DEVICE_IDS, DeviceError, DiskDevice, Done, Outcome,
    QUEUE_CAPACITY, ResyncRate, Timing,
};
pub use mirror::{
    KindReport, MirrorExperiment, MirrorReport, Placement, mirror_metrics, mirror_table,
};
pub use random::{Purpose, Stream};
pub use rate::{
    APERIODIC_BACKLOG, Contender, MAX_RATE_TASKS, RateReport, RateTaskSpec, RateWorkload,
    TaskOutcome, Tsai04Distribution, run_rate,
};
pub use replay::{DeviceReport, ReplayError, ReplayOptions, ReplayReport, Validation, replay};
pub use sim::{Experiment, Load, RunError, headline_metrics, metric_table, parallel};
pub use stats::{
    ArrayQueueReport, ArrayReport, ArrayStats, BatchMeans, BreakdownReport, ClassReport,
    ClassStats, Completion, DiskReport, DiskStats, DiskUsageReport, Distribution,
    DistributionReport, FOUND_BINS, Histogram, Interval, MetricRow, MetricTable, Moments,
    MomentsReport, QueueAccumulator, QueueReport, Regenerative, StatsError, TimeWeighted, WarmUp,
    normal_quantile, student_t_quantile,
};
pub use workload::{
    Addressing, ArrivalProcess, Arrivals, DeadlineRange, Draw, Generator, RequestMix, WorkloadError,
};
