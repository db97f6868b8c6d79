//! What every run on the emulator shares: why it can fail, and the checks
//! made before anything runs.

use disk_emu::DeviceError;
use disk_emu::disk::DiskError;
use sched_core::{BuildError, CompleteError, EnqueueError, Nanos, PollError};

use crate::confidence::StatsError;
use crate::workload::{Arrivals, RequestMix, WorkloadError};

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
    /// what the device (a disk, or a mirrored pair) serves under this policy.
    #[error(
        "queue overflow at t = {at_ms:.3} ms: {capacity} requests waiting; the offered load exceeds what the device (a disk, or a mirrored pair) can serve with this policy"
    )]
    QueueOverflow {
        /// Virtual time of the overflow, ms.
        at_ms: f64,
        /// The queue capacity.
        capacity: usize,
    },
    /// A device refused an input or misbehaved.
    #[error("device: {0}")]
    Device(DeviceError),
    /// The workload ran out of events before its target (every closed
    /// client waiting on a request that will never complete).
    #[error("the run stalled at t = {at_ms:.3} ms with {completed} of {target} completions")]
    Stalled {
        /// Virtual time of the last event, ms.
        at_ms: f64,
        /// Completions counted.
        completed: u64,
        /// Completions needed.
        target: u64,
    },
    /// The offered load is at or above what the device can serve: the queue
    /// would grow without bound and every figure would depend on the run's
    /// length. Runs only with `allow_overload`.
    #[error(
        "offered load {load:.3} of the device's capacity is at or above saturation; the queue would grow without bound (allow overload explicitly to run it anyway)"
    )]
    Overload {
        /// Offered work per unit of capacity.
        load: f64,
    },
    /// The run would last longer than the clock can count.
    #[error(
        "at this arrival rate the run would last {years:.3e} years of simulated time, past what the clock counts (about 73 years with margin): raise the rate or measure fewer requests"
    )]
    Span {
        /// Simulated years the run would take.
        years: f64,
    },
    /// Replication statistics could not be combined.
    #[error(transparent)]
    Stats(#[from] StatsError),
    /// A replication run in another shard of the sweep failed (its error
    /// as met there), or the merged parts do not answer this point.
    #[error(transparent)]
    Sharded(#[from] crate::sharding::ShardFailure),
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
    /// A device's refusal of an input at `now`: a full queue means the
    /// offered load exceeds what the device serves; a request beyond the
    /// disk is the disk's error.
    pub fn device(e: DeviceError, now: Nanos) -> RunError {
        match e {
            DeviceError::Refused(EnqueueError::QueueFull { capacity }) => RunError::QueueOverflow {
                at_ms: now as f64 / 1e6,
                capacity,
            },
            e => RunError::from(e),
        }
    }
}

/// Refuses an open run whose arrivals would pass the end of the clock: its
/// `completions` at `arrivals`' rate would take over half of the 292 years
/// of simulated time an integer nanosecond counts (half, so that the
/// randomness of the gaps cannot carry it over).
pub fn check_span(arrivals: &Arrivals, completions: u64) -> Result<(), RunError> {
    if let Arrivals::Poisson { rate } = *arrivals {
        let span_ns = completions as f64 / rate * 1e9;
        if span_ns > (u64::MAX / 4) as f64 {
            return Err(RunError::Span {
                years: span_ns / 1e9 / 3.156e7,
            });
        }
    }
    Ok(())
}

/// Refuses a run that would measure nothing.
pub fn check_requests(requests: u64) -> Result<(), RunError> {
    if requests == 0 {
        return Err(RunError::Invalid {
            field: "requests",
            expected: "at least one measured request",
        });
    }
    Ok(())
}

impl From<DeviceError> for RunError {
    fn from(e: DeviceError) -> Self {
        match e {
            DeviceError::Build(e) => RunError::Build(e),
            DeviceError::Extent { source, .. } => RunError::Disk(source),
            DeviceError::Refused(e) => RunError::Refused(e),
            DeviceError::Complete(e) => RunError::Complete(e),
            DeviceError::Poll(e) => RunError::Poll(e),
            e => RunError::Device(e),
        }
    }
}

/// Refuses a mix whose requests do not fit a disk of `capacity` blocks.
pub fn check_fits(mix: &RequestMix, capacity: u64) -> Result<(), RunError> {
    mix.validate()?;
    if u64::from(mix.blocks) > capacity {
        return Err(RunError::Invalid {
            field: "blocks",
            expected: "requests no larger than the disk",
        });
    }
    Ok(())
}
