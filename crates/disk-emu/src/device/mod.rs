//! Emulated block devices with an open, event-by-event API (see the crate
//! documentation, "Driving a device").

mod array;
mod disk;

pub use array::{ARRAY_CAPACITY, ArrayDevice, ArrayOptions, ResyncRate};
pub use disk::{DiskDevice, QUEUE_CAPACITY};

use sched_core::array::DiskState;
use sched_core::{
    BuildError, CancelError, CompleteError, EnqueueError, Nanos, PollError, Request, RequestId,
};

use crate::disk::{DiskError, ServiceBreakdown};

/// Where a request's time went: `wait + seek + rotation + transfer +
/// overhead + held` is its response time, `finish − arrival`.
///
/// The service parts are those of the *critical* operation, the one whose
/// end completed the request: the only one on a single disk, the copy that
/// answered a read, the copy that met a write's acknowledgement rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// When the request was submitted.
    pub arrival: Nanos,
    /// When the critical operation started its seek.
    pub start: Nanos,
    /// When the request completed.
    pub finish: Nanos,
    /// `start − arrival`: queueing before the critical operation.
    pub wait: Nanos,
    /// Arm movement.
    pub seek: Nanos,
    /// Rotational latency, head switches included.
    pub rotation: Nanos,
    /// Media transfer.
    pub transfer: Nanos,
    /// Controller and bus overhead.
    pub overhead: Nanos,
    /// Time between the end of the critical operation and the completion:
    /// zero, except for a write acknowledged when a disk holding one of its
    /// pending copies failed.
    pub held: Nanos,
    /// Cylinders the arm travelled for the critical operation.
    pub seek_distance: u32,
    /// The disk that served the critical operation (0 on a single disk).
    pub disk: usize,
}

impl Timing {
    /// Timing of an operation on `disk` that started at `start` with
    /// `breakdown`, for a request that arrived at `arrival` and completed at
    /// `finish`.
    fn new(
        arrival: Nanos,
        start: Nanos,
        breakdown: &ServiceBreakdown,
        finish: Nanos,
        disk: usize,
    ) -> Self {
        let served = start + breakdown.total();
        Timing {
            arrival,
            start,
            finish,
            wait: start - arrival,
            seek: breakdown.seek,
            rotation: breakdown.rotation,
            transfer: breakdown.transfer,
            overhead: breakdown.overhead,
            held: finish - served,
            seek_distance: breakdown.seek_distance,
            disk,
        }
    }

    /// `finish − arrival`.
    pub fn response(&self) -> Nanos {
        self.finish - self.arrival
    }

    /// The service time of the critical operation: seek + rotation + transfer + overhead.
    pub fn service(&self) -> Nanos {
        self.seek + self.rotation + self.transfer + self.overhead
    }
}

/// A completed request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    /// The request as submitted (class, deadline and id untouched; on a
    /// single disk the cylinder is filled in).
    pub request: Request,
    /// Where its time went.
    pub timing: Timing,
    /// When its first operation started (an array's read may run on several
    /// copies; on a single disk this is `timing.start`).
    pub first_start: Nanos,
}

/// What a device reports about a request or a disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The request completed.
    Completed(Done),
    /// The policy dropped the queued request unserved because its deadline
    /// passed (FD-SCAN in drop mode).
    Expired(Request),
    /// No disk can serve the request any more: every up-to-date copy of a
    /// read, or every target of a write, is on a failed disk.
    Failed(Request),
    /// The replacement `disk` is fully resynchronised and back online.
    Resynced {
        /// The disk.
        disk: usize,
        /// When its last resync write completed.
        at: Nanos,
    },
}

/// Ids at or above this are the device's own (resync traffic); a driver's
/// requests must use ids below it.
pub const DEVICE_IDS: u64 = 1 << 63;

/// Why a device refused an input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceError {
    /// The policy could not be built.
    #[error("policy: {0}")]
    Build(#[from] BuildError),
    /// The request does not fit the disk.
    #[error("request {id}: {source}")]
    Extent {
        /// The request.
        id: RequestId,
        /// What does not fit.
        source: DiskError,
    },
    /// The policy refused the request (a full queue, a duplicate id, ...).
    #[error("policy: {0}")]
    Refused(#[from] EnqueueError),
    /// A request id in the device's own range.
    #[error("request {0}: ids from 2^63 up are reserved for the device's own traffic")]
    ReservedId(RequestId),
    /// The request could not be withdrawn: unknown, or in service.
    #[error("cancel: {0}")]
    Cancel(#[from] CancelError),
    /// The array policy refused a completion or disk state change.
    #[error("array policy: {0}")]
    Complete(#[from] CompleteError),
    /// The array policy's queue discipline misbehaved.
    #[error("array policy: {0}")]
    Poll(#[from] PollError),
    /// An input at `now` while the device has events due before `now`:
    /// advance it first.
    #[error("input at t = {now} ns, but the device has an event due at {due} ns: advance first")]
    Behind {
        /// The input's time.
        now: Nanos,
        /// The device's next event.
        due: Nanos,
    },
    /// A time before the device's clock.
    #[error("time went back: t = {now} ns is before the device's clock, {clock} ns")]
    TimeWentBack {
        /// The time given.
        now: Nanos,
        /// The device's clock.
        clock: Nanos,
    },
    /// A disk operation on a disk not in a state for it.
    #[error("disk {disk} is {state:?}: {expected}")]
    DiskState {
        /// The disk.
        disk: usize,
        /// Its state.
        state: DiskState,
        /// What the operation needs.
        expected: &'static str,
    },
    /// A disk beyond the array.
    #[error("disk {disk} is not in the array of {disks} disks")]
    NoSuchDisk {
        /// The disk.
        disk: usize,
        /// Disks in the array.
        disks: usize,
    },
    /// A device parameter is outside its domain.
    #[error("{field}: expected {expected}")]
    Invalid {
        /// The parameter.
        field: &'static str,
        /// What it must satisfy.
        expected: &'static str,
    },
}

/// Checks the time of an input: not before the clock, not past a due event.
fn check_input_time(
    now: Nanos,
    clock: Nanos,
    next_event: Option<Nanos>,
) -> Result<(), DeviceError> {
    if now < clock {
        return Err(DeviceError::TimeWentBack { now, clock });
    }
    match next_event {
        Some(due) if due < now => Err(DeviceError::Behind { now, due }),
        _ => Ok(()),
    }
}
