//! Typed errors, one type per operation: reading a policy description,
//! building a policy, enqueueing (or submitting to an array), cancelling,
//! completing, and polling an array.
//!
//! Nothing is lost when one is returned: requests are `Copy`, so the caller
//! still holds whatever was refused. Every enum is `#[non_exhaustive]`, so new
//! refusals can be added without breaking a driver's `match`. [`Error`]
//! holds any of them, for a caller that handles errors in one place.

use core::fmt;

use crate::PolicySpec;
use crate::array::{ArraySpec, DiskState};
use crate::request::{Cylinder, RequestId};

/// Why a policy description did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecError {
    /// The name is not one of [`PolicySpec::NAMES`].
    UnknownPolicy,
    /// The policy takes no parameter of that name.
    UnknownParameter {
        /// The policy's canonical name.
        policy: &'static str,
    },
    /// A parameter is not `key=value` or its value does not parse.
    BadValue {
        /// The parameter.
        parameter: &'static str,
        /// What its value must look like.
        expected: &'static str,
    },
    /// The values parse but the policy rejects them.
    Invalid(BuildError),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownPolicy => {
                f.write_str("unknown policy (known: ")?;
                for (i, name) in PolicySpec::NAMES.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(name)?;
                }
                f.write_str(")")
            }
            SpecError::UnknownParameter { policy } => {
                write!(f, "{policy} takes no such parameter")
            }
            SpecError::BadValue {
                parameter,
                expected,
            } => write!(f, "parameter {parameter}: expected {expected}"),
            SpecError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for SpecError {}

/// Why an array policy description did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArraySpecError {
    /// The name is not an array policy.
    UnknownPolicy,
    /// The policy takes no parameter of that name.
    UnknownParameter,
    /// A parameter's value does not parse.
    BadValue {
        /// The parameter.
        parameter: &'static str,
        /// What it must look like.
        expected: &'static str,
    },
    /// A nested queue discipline did not parse.
    Queue(SpecError),
    /// The values parse but a constructor rejects them.
    Invalid(BuildError),
}

impl fmt::Display for ArraySpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArraySpecError::UnknownPolicy => {
                f.write_str("unknown array policy (known: ")?;
                for (i, (name, _)) in ArraySpec::NAMED.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(name)?;
                }
                f.write_str(")")
            }
            ArraySpecError::UnknownParameter => {
                f.write_str("no such parameter for this array policy")
            }
            ArraySpecError::BadValue {
                parameter,
                expected,
            } => write!(f, "parameter {parameter}: expected {expected}"),
            ArraySpecError::Queue(e) => write!(f, "queue discipline: {e}"),
            ArraySpecError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for ArraySpecError {}

/// Why a policy could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// A constructor parameter is outside its domain.
    InvalidParameter {
        /// The parameter's name as the paper writes it (`m`, `beta`, `alpha`, ...).
        name: &'static str,
        /// What the parameter must satisfy.
        expected: &'static str,
    },
}

impl BuildError {
    pub(crate) const fn invalid(name: &'static str, expected: &'static str) -> Self {
        BuildError::InvalidParameter { name, expected }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::InvalidParameter { name, expected } => {
                write!(f, "invalid parameter {name}: expected {expected}")
            }
        }
    }
}

impl core::error::Error for BuildError {}

/// Why a request was not queued (by a [`Scheduler`](crate::Scheduler)) or not
/// accepted (by an [`ArrayPolicy`](crate::array::ArrayPolicy)). The queue or
/// array is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnqueueError {
    /// The queue already holds `capacity` requests.
    QueueFull {
        /// The fixed capacity of the queue.
        capacity: usize,
    },
    /// A request with this id is already queued (in an array: still has an
    /// operation queued or in service).
    DuplicateId(RequestId),
    /// The request addresses a cylinder beyond the disk the queue was built for.
    CylinderOutOfRange {
        /// The offending request.
        id: RequestId,
        /// Its cylinder.
        cylinder: Cylinder,
        /// Number of cylinders the queue was built for.
        cylinders: u32,
    },
    /// The copies handed to an array do not fit it: no holder, a disk beyond
    /// the array, more copies than an array request may have, or a location
    /// list of the wrong length.
    InvalidCopies {
        /// The offending request.
        id: RequestId,
        /// What is wrong with them.
        reason: &'static str,
    },
    /// No disk can serve the request: every holder of a read is failed or
    /// stale, or every holder of a write is failed.
    NoEligibleDisk(RequestId),
    /// The array's read or write routing chose no eligible disk.
    NoRoute(RequestId),
    /// A rate-based policy (WRR-SCAN) has admitted no task of this class.
    NotAdmitted {
        /// The offending request.
        id: RequestId,
        /// Its class.
        class: u16,
    },
    /// The request is larger than its task may be served in one round.
    ExceedsReservation {
        /// The offending request.
        id: RequestId,
        /// Its length in sectors.
        blocks: u32,
        /// The task's per-round budget in sectors.
        per_round: u32,
    },
    /// A proportional-share policy (BFQ) already keeps a queue for each of
    /// its `queues` classes, every one busy or in service: a request of
    /// another class has no queue to join until one of them empties.
    TooManyClasses {
        /// The offending request.
        id: RequestId,
        /// Its class.
        class: u16,
        /// The number of class queues the policy keeps.
        queues: usize,
    },
}

impl fmt::Display for EnqueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnqueueError::QueueFull { capacity } => {
                write!(f, "queue full: capacity {capacity} reached")
            }
            EnqueueError::DuplicateId(id) => write!(f, "request {id} is already queued"),
            EnqueueError::CylinderOutOfRange {
                id,
                cylinder,
                cylinders,
            } => write!(
                f,
                "request {id} addresses cylinder {cylinder}, but the disk has {cylinders} cylinders"
            ),
            EnqueueError::InvalidCopies { id, reason } => {
                write!(f, "request {id}: invalid copies: {reason}")
            }
            EnqueueError::NoEligibleDisk(id) => {
                write!(f, "request {id}: no online, up-to-date disk holds a copy")
            }
            EnqueueError::NoRoute(id) => write!(f, "request {id}: the routing chose no disk"),
            EnqueueError::NotAdmitted { id, class } => {
                write!(f, "request {id}: no task of class {class} is admitted")
            }
            EnqueueError::ExceedsReservation {
                id,
                blocks,
                per_round,
            } => write!(
                f,
                "request {id}: {blocks} sectors exceed its task's {per_round} sectors a round"
            ),
            EnqueueError::TooManyClasses { id, class, queues } => write!(
                f,
                "request {id}: class {class} finds all {queues} class queues busy"
            ),
        }
    }
}

impl core::error::Error for EnqueueError {}

/// Why a request could not be withdrawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancelError {
    /// No queued (or, in an array, open) request has this id.
    UnknownId(RequestId),
    /// Part of the request is already being served: a write that some disk
    /// has started cannot be withdrawn without leaving the copies inconsistent.
    InService(RequestId),
}

impl fmt::Display for CancelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CancelError::UnknownId(id) => write!(f, "no queued request has id {id}"),
            CancelError::InService(id) => {
                write!(f, "request {id} is in service and cannot be withdrawn")
            }
        }
    }
}

impl core::error::Error for CancelError {}

/// Why a reported completion was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompleteError {
    /// The disk was serving nothing.
    IdleDisk {
        /// The disk.
        disk: usize,
    },
    /// The disk is not part of the array.
    NoSuchDisk {
        /// The disk.
        disk: usize,
        /// Disks in the array.
        disks: usize,
    },
}

impl fmt::Display for CompleteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompleteError::IdleDisk { disk } => {
                write!(
                    f,
                    "disk {disk} reported a completion but was serving nothing"
                )
            }
            CompleteError::NoSuchDisk { disk, disks } => {
                write!(f, "disk {disk} is not in the array of {disks} disks")
            }
        }
    }
}

impl core::error::Error for CompleteError {}

/// Why an array refused a change of a disk's state or a step of its resync.
///
/// A disk moves only along Online → Failed → Rebuilding → Online (see
/// [`DiskState`]): it fails, a replacement enters through
/// [`replace_disk`](crate::array::ArrayPolicy::replace_disk), and it comes
/// back online when the array's resync has copied its last range. Anything
/// else is refused here and changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiskStateError {
    /// The disk is not part of the array.
    NoSuchDisk {
        /// The disk.
        disk: usize,
        /// Disks in the array.
        disks: usize,
    },
    /// The disk cannot go from its state to the one asked for: only a
    /// working disk fails, only a failed disk is replaced.
    Transition {
        /// The disk.
        disk: usize,
        /// Its state.
        from: DiskState,
        /// What was asked.
        to: &'static str,
    },
    /// A resync step for a disk that is not rebuilding.
    NotRebuilding {
        /// The disk.
        disk: usize,
        /// Its state.
        state: DiskState,
    },
    /// A resync step while the disk's previous range is still being copied.
    CopyInProgress {
        /// The disk.
        disk: usize,
    },
    /// A resync range that does not start at the disk's rebuilt mark: ranges
    /// are copied in order, so the mark means "everything below is current".
    OutOfOrder {
        /// The disk.
        disk: usize,
        /// Where the next range must start (the rebuilt mark).
        expected: u64,
        /// Where the range asked for starts.
        block: u64,
    },
    /// A resync range that is empty or runs past the end of the rebuild.
    BadRange {
        /// The disk.
        disk: usize,
        /// The rebuild's end (exclusive).
        end: u64,
        /// The block after the range asked for.
        range_end: u64,
    },
    /// No other disk is online to copy from.
    NoSource {
        /// The disk being rebuilt.
        disk: usize,
    },
}

impl fmt::Display for DiskStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiskStateError::NoSuchDisk { disk, disks } => {
                write!(f, "disk {disk} is not in the array of {disks} disks")
            }
            DiskStateError::Transition { disk, from, to } => write!(
                f,
                "disk {disk} is {from:?} and cannot {to} (a disk goes online → failed → rebuilding → online)"
            ),
            DiskStateError::NotRebuilding { disk, state } => {
                write!(
                    f,
                    "disk {disk} is {state:?}, not rebuilding: nothing to resync"
                )
            }
            DiskStateError::CopyInProgress { disk } => {
                write!(f, "disk {disk} is still copying its previous resync range")
            }
            DiskStateError::OutOfOrder {
                disk,
                expected,
                block,
            } => write!(
                f,
                "disk {disk}: the next resync range starts at its rebuilt mark, block {expected}, not {block}"
            ),
            DiskStateError::BadRange {
                disk,
                end,
                range_end,
            } => write!(
                f,
                "disk {disk}: a resync range must hold at least one block and end by block {end} (asked up to {range_end})"
            ),
            DiskStateError::NoSource { disk } => {
                write!(f, "disk {disk} has no online disk to be rebuilt from")
            }
        }
    }
}

impl core::error::Error for DiskStateError {}

/// Why an array could not say what to start next: one of its queue
/// disciplines misbehaved (a user-written [`Scheduler`](crate::Scheduler)
/// handed back a request it was never given). The operation is dropped from
/// that queue and nothing else changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PollError {
    /// The queue of `disk` dispatched an id the array does not know.
    UnknownOperation {
        /// The disk whose queue dispatched it.
        disk: usize,
        /// The id it dispatched.
        id: RequestId,
    },
    /// The queue of `disk` refused to take back an operation it had just
    /// dispatched, which waits behind an earlier overlapping write (see
    /// [`ArrayPolicy`](crate::array::ArrayPolicy)'s write order).
    Requeue {
        /// The disk whose queue refused it.
        disk: usize,
        /// The operation's id.
        id: RequestId,
    },
}

impl fmt::Display for PollError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PollError::UnknownOperation { disk, id } => write!(
                f,
                "the queue of disk {disk} dispatched request {id}, which the array never gave it"
            ),
            PollError::Requeue { disk, id } => write!(
                f,
                "the queue of disk {disk} refused to take back request {id}, which waits behind an earlier overlapping write"
            ),
        }
    }
}

impl core::error::Error for PollError {}

/// The value a parameter check built, or, for an invalid parameter, a panic
/// in the error's words: the const constructors (`new_inline`) report a
/// [`BuildError`] this way, which a `static` or `const` initializer turns
/// into a compile error.
pub(crate) const fn valid<T: Copy>(checked: Result<T, BuildError>) -> T {
    match checked {
        Ok(value) => value,
        Err(BuildError::InvalidParameter { expected, .. }) => panic!("{}", expected),
    }
}

/// Checks the cylinder count of a disk.
pub(crate) const fn check_cylinders(cylinders: u32) -> Result<(), BuildError> {
    if cylinders == 0 {
        Err(BuildError::invalid("cylinders", "at least one cylinder"))
    } else {
        Ok(())
    }
}

/// The umbrella [`Error`] from one list of its variants: the enum, its
/// words (the operation's own), its source and a `From` for each.
macro_rules! umbrella {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// Any error of this crate, for a caller that handles them in one
        /// place (`?` converts each operation's error into it). Each variant
        /// keeps the operation's own error, which says what was refused and
        /// why.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Error {
            $($(#[$doc])* $variant($ty),)*
        }

        impl fmt::Display for Error {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Error::$variant(e) => e.fmt(f),)*
                }
            }
        }

        impl core::error::Error for Error {
            fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
                Some(match self {
                    $(Error::$variant(e) => e,)*
                })
            }
        }

        $(
            impl From<$ty> for Error {
                fn from(e: $ty) -> Self {
                    Error::$variant(e)
                }
            }
        )*
    };
}

umbrella! {
    /// A policy description did not parse.
    Spec(SpecError),
    /// An array policy description did not parse.
    ArraySpec(ArraySpecError),
    /// A description of any policy did not parse.
    AnySpec(crate::AnySpecError),
    /// A storage capacity out of range.
    Capacity(crate::CapacityError),
    /// A policy could not be built.
    Build(BuildError),
    /// A request was refused.
    Enqueue(EnqueueError),
    /// A cancel was refused.
    Cancel(CancelError),
    /// A completion was refused.
    Complete(CompleteError),
    /// A disk-state change was refused.
    DiskState(DiskStateError),
    /// An array could not say what to start.
    Poll(PollError),
}
