//! A deterministic, virtual-time block-device emulator.
//!
//! Disk mechanics with real geometry drive any `sched-core` policy: requests
//! arrive from a workload or a trace, wait in the policy's queue, are served
//! with times from the disk model, and leave statistics behind. Time is an
//! integer count of nanoseconds; the same configuration and seed give the same
//! bits on every run, whatever the number of threads.

//! ## Layout
//!
//! Two namespaces of their own: [`disk`] (drive specifications, presets,
//! DiskSim files, the mechanical model) and [`trace`] (trace formats and
//! readers). Everything else has one path, at the root:
//!
//! - **Devices** with an open, event-by-event API: [`DiskDevice`],
//!   [`ArrayDevice`], their [`Outcome`]s with per-request [`Timing`] (see
//!   the [`DiskDevice`] documentation for the driver's loop).
//! - **Experiments** built on them: [`Experiment`] (one disk),
//!   [`MirrorExperiment`] (a mirrored pair), [`replay`] (block traces).
//! - **Workloads**: [`Arrivals`], [`RequestMix`], [`Generator`],
//!   [`ArrivalProcess`]; seeded random [`Stream`]s.
//! - **Statistics**: [`DiskStats`], [`ArrayStats`], [`ClassStats`] and their
//!   reports; [`MetricTable`] for confidence intervals over replications.

mod device;
pub mod disk;
mod engine;
mod mirror;
mod random;
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
