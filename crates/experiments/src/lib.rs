//! What is run on the disk emulator: workloads, placement of copies, the one
//! event loop that drives the devices, seeds, independent replications, and
//! the experiments built on them.
//!
//! `disk-emu` is the emulator: disk models, trace readers, devices and the
//! clock. This crate holds everything a user runs *on* it:
//!
//! - **The event loop**: [`Simulation`] and the [`Driver`] trait, with the
//!   documented tie rule for simultaneous events ([`simulation`]). Every
//!   experiment in the tree is a driver of it.
//! - **Workloads** ([`workload`]): arrival processes, request mixes,
//!   generators; rate-based real-time tasks ([`rate_based`]).
//! - **Placement** ([`Placement`]): the [`Copies`](sched_core::array::Copies)
//!   of each logical request — a single disk, identical, shifted and
//!   reversed mirrors, N copies; and Ivy's dynamic replication
//!   ([`replication`]): each object's copy map and history under RNWN,
//!   RNW1, RNW1CR, scatter and scatter + RNW1CR.
//! - **Seeds** ([`seeds`]): where every random stream comes from.
//! - **Replications** ([`parallel`], [`MetricTable`], [`Interval`],
//!   [`BatchMeans`]): independent runs on several threads with results
//!   identical to a serial run, and their confidence intervals.
//! - **Sharded runs** ([`sharding`]): one command's units split across
//!   processes or machines ([`replicate`]) and merged back bit for bit.
//! - **Experiments**: one disk ([`DiskExperiment`]), a mirrored pair
//!   ([`MirrorExperiment`]), trace replay on a disk or a mirrored pair per
//!   traced device ([`replay`], [`replay_mirrored`]), Ivy's replication
//!   on a real trace ([`run_ivy`], [`ivy_sweep`]), the rate-based WRR-SCAN
//!   runs ([`run_rate`]), disk arrays — stripe, RAID-10, the SR-Array, the
//!   eager-writing EW-Array — under an accelerated OLTP workload
//!   ([`ArrayExperiment`], with the organisations in [`Layout`], their
//!   free-block maps in [`free_map`], the copies and the delayed-write
//!   buffer in [`replica_map`], the workload in [`oltp`] and the search for
//!   the maximum sustainable speed-up in [`sustainable`]).

mod array_driver;
mod array_experiment;
mod array_layout;
mod batch_means;
mod confidence;
mod disk_experiment;
pub mod free_map;
pub mod head_trace;
mod ivy_replay;
mod mirror_experiment;
pub mod oltp;
mod parallel;
mod placement;
pub mod rate_based;
mod replay_target;
pub mod replica_map;
pub mod replication;
pub mod request_sample;
mod run_error;
pub mod seeds;
pub mod sharding;
pub mod simulation;
pub mod sustainable;
mod trace_replay;
pub mod workload;
mod wrr_constants;

pub use array_experiment::{
    ArrayError, ArrayExperiment, ArrayReport, ArrayWorkload, DELAYED_WRITE_BUFFER, GROUP_CAPACITY,
    GroupDevice, GroupPolicy, GroupQueue, SECTORS,
};
pub use array_layout::{Layout, LayoutError, MAX_ROTATIONAL, Organisation};
pub use batch_means::{BatchMeans, Regenerative};
pub use confidence::{
    Interval, MetricRow, MetricTable, StatsError, normal_quantile, student_t_quantile,
};
pub use disk_experiment::{DiskExperiment, Load, headline_metrics, metric_table};
pub use head_trace::{
    ArrayRequest, ArrayTrace, DiskArm, Fate, HeadTrace, Operation, QueueSteps, TracedRequest,
};
pub use ivy_replay::{
    CopySelection, IVY_METRICS, IvyConfig, IvyDisk, IvyError, IvyMeasures, IvyPoint, IvySweep,
    IvyTrace, TracedDisk, Units, distinct_configs, ivy_sweep, run_ivy,
};
pub use mirror_experiment::{
    DeadlineReport, KindReport, MirrorExperiment, MirrorReport, mirror_metrics, mirror_table,
};
pub use parallel::parallel;
pub use placement::Placement;
pub use rate_based::{
    APERIODIC_BACKLOG, BFQ_RATE_LABEL, MAX_BFQ_RATE_TASKS, MAX_RATE_TASKS, RateReport,
    RateTaskSpec, RateWorkload, TaskOutcome, Tsai04Distribution, bfq_rate_weights, rate_label,
    run_rate, run_rate_bfq,
};
pub use replay_target::MirrorPolicy;
pub use replication::{CopyCost, Replication, ReplicationConfig, ReplicationPolicy};
pub use request_sample::{DeadlineOutcome, Ending, RequestSample, SampleSink};
pub use run_error::{RunError, check_fits, check_requests, check_span};
pub use sharding::{replicate, replicate_points};
pub use simulation::{Driver, Flow, Simulation};
pub use trace_replay::{
    DeviceReport, DeviceSampleSink, Fit, ObservedReplay, ReplayError, ReplayOptions, ReplayReport,
    Validation, replay, replay_mirrored, replay_observed,
};
pub use workload::{
    Addressing, ArrivalProcess, Arrivals, DeadlineRange, Draw, Generator, READ_CLASS, RequestMix,
    WRITE_CLASS, WorkloadError, kind_class, label_kinds,
};
pub use wrr_constants::wrr_params_on;
