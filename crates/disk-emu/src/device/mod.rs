//! Emulated block devices with an open, event-by-event API: the [`Device`]
//! trait, its two implementations ([`DiskDevice`], [`ArrayDevice`]) and what
//! they report.

mod array_device;
mod disk_device;
mod places;

pub use array_device::{ARRAY_CAPACITY, ArrayDevice, ArrayOptions, ResyncRate};
pub use disk_device::{DiskDevice, QUEUE_CAPACITY};
pub use places::{FixedPlaces, Places};

use sched_core::array::{Copies, DiskState};
use sched_core::{
    BuildError, CancelError, CompleteError, DiskStateError, EnqueueError, Nanos, PollError,
    Request, RequestId,
};

use crate::disk::{DiskError, DiskModel, ServiceBreakdown};

/// An emulated block device: a deterministic state machine in virtual time
/// that a driver steps, in the manner of quinn-proto's `Connection`. It owns
/// no thread and no clock; the driver (an experiment, a trace replay, a
/// transaction simulator, a block device serving real I/O) tells it what
/// happens and when, and collects what comes out.
///
/// The methods fall in three groups:
///
/// - **Inputs** change the device at a time the driver names:
///   [`submit`](Self::submit) a logical request with its [`Copies`] (which
///   disks hold it and where), [`cancel`](Self::cancel) a queued one,
///   [`advance`](Self::advance) the clock, [`fail_disk`](Self::fail_disk) and
///   [`replace_disk`](Self::replace_disk), [`reset_stats`](Self::reset_stats)
///   at the end of a warm-up.
/// - **Outputs** are polled: [`poll`](Self::poll) yields an [`Outcome`] per
///   finished, expired or failed request (with its [`Timing`]) and per
///   replacement back online; [`next_event_time`](Self::next_event_time)
///   says when the device next acts on its own (a service ends, a policy
///   releases held work, a resync step is due).
/// - **Getters** report the state: [`now`](Self::now),
///   [`disks`](Self::disks), [`disk_state`](Self::disk_state),
///   [`serving`](Self::serving), [`queued`](Self::queued),
///   [`in_system`](Self::in_system), [`model`](Self::model), and the
///   statistics, [`report`](Self::report).
///
/// A driver calls them in this order:
///
/// 1. Let `t` be the earlier of its own next event and `next_event_time()`.
/// 2. `advance(t)`: the device processes everything due at or before `t`
///    (a completion starts the next service at once).
/// 3. `poll()` until `None`, reacting to each outcome.
/// 4. Its own inputs at `t`: `submit`, `cancel`, disk operations.
/// 5. Repeat.
///
/// Inputs at a time `t` while the device has events due *before* `t` are
/// refused ([`DeviceError::Behind`]): advance first. Events due *at* `t`
/// may be processed before or after the driver's inputs at `t`, as the
/// driver chooses (the experiments' event loop ranks them, see its
/// documentation).
///
/// Every implementation passes the suite in [`crate::conformance`]:
/// exactly-once outcomes, cancel semantics, timing parts that sum to the
/// response, monotone time, determinism.
pub trait Device {
    /// What [`report`](Self::report) returns.
    type Report;

    /// A logical request arrives at `now` with its copies; operations the
    /// device can start, start at once. The device fills in each copy's
    /// cylinder from its disk's geometry. Nothing changes on error.
    ///
    /// # Errors
    /// [`DeviceError::Extent`] for a copy beyond its disk;
    /// [`DeviceError::NoSuchDisk`]; [`DeviceError::Refused`] for the policy's
    /// refusal (a full queue, a duplicate id, copies the device cannot use);
    /// [`DeviceError::ReservedId`]; [`DeviceError::DiskState`] when no disk
    /// can take it; [`DeviceError::Behind`] / [`DeviceError::TimeWentBack`].
    fn submit(&mut self, req: Request, copies: &Copies, now: Nanos) -> Result<(), DeviceError>;

    /// Withdraws a queued logical request and returns it; it will have no
    /// outcome.
    ///
    /// # Errors
    /// [`DeviceError::Cancel`]: `UnknownId`, or `InService` for a request
    /// some disk is serving (it runs to its end and completes).
    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError>;

    /// Moves the clock to `to`, processing every event due at or before it
    /// in time order; outcomes wait in [`poll`](Self::poll).
    ///
    /// # Errors
    /// [`DeviceError::TimeWentBack`]; a policy's refusal of a completion (a
    /// bug, reported rather than hidden).
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError>;

    /// Disk `disk` fails at the device's clock: what it was serving and what
    /// only it could serve come out as [`Outcome::Failed`].
    ///
    /// # Errors
    /// [`DeviceError::NoSuchDisk`]; [`DeviceError::DiskState`] for a disk
    /// already failed.
    fn fail_disk(&mut self, disk: usize) -> Result<(), DeviceError>;

    /// A new disk of the same model replaces failed disk `disk` at the
    /// device's clock; [`Outcome::Resynced`] reports it back online.
    ///
    /// # Errors
    /// [`DeviceError::NoSuchDisk`]; [`DeviceError::DiskState`] for a disk
    /// that has not failed; [`DeviceError::Invalid`] for unusable resync
    /// options.
    fn replace_disk(&mut self, disk: usize) -> Result<(), DeviceError>;

    /// Restarts the statistics at the device's clock (the end of a warm-up).
    fn reset_stats(&mut self);

    /// The next outcome, oldest first.
    fn poll(&mut self) -> Option<Outcome>;

    /// When the device next acts on its own, if it has anything to do.
    fn next_event_time(&self) -> Option<Nanos>;

    /// The device's clock: the last time it was advanced to or given an input.
    fn now(&self) -> Nanos;

    /// Number of disks.
    fn disks(&self) -> usize;

    /// The state of `disk`.
    ///
    /// # Errors
    /// [`DeviceError::NoSuchDisk`].
    fn disk_state(&self, disk: usize) -> Result<DiskState, DeviceError>;

    /// The operation `disk` is serving, if any (a device's own traffic, such
    /// as resync writes, has ids from [`DEVICE_IDS`] up).
    fn serving(&self, disk: usize) -> Option<&Request>;

    /// Operations waiting in the device's queues, not yet started.
    fn queued(&self) -> usize;

    /// Logical requests in the device, queued or in service.
    fn in_system(&self) -> usize;

    /// Disk `disk`'s mechanics.
    fn model(&self, disk: usize) -> Option<&DiskModel>;

    /// The statistics of the window from the last reset to `end`.
    fn report(&mut self, end: Nanos) -> Self::Report;
}

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
        let served = start.saturating_add(breakdown.total());
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
///
/// Exhaustive on purpose (not `#[non_exhaustive]`): a driver must handle
/// every outcome, since one it ignored would be a request lost without a
/// word; a new kind of outcome is a breaking change, in the CHANGELOG.
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
    /// A read was served, but the disk that served it could not read one of
    /// its sectors (a media error injected by
    /// [`FaultInjector`](crate::FaultInjector)): the time was spent, the data
    /// is not returned. Another copy, where there is one, may still be read.
    /// Only a device wrapped in a fault injector reports it.
    MediaError {
        /// The read and its timing (`timing.disk` is the disk that failed it).
        done: Done,
        /// The first unreadable block, on that disk.
        block: u64,
    },
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
    /// The array policy refused a completion.
    #[error("array policy: {0}")]
    Complete(#[from] CompleteError),
    /// The array policy refused a disk state change or a resync step.
    #[error("array policy: {0}")]
    DiskChange(#[from] DiskStateError),
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
pub(crate) fn check_input_time(
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
