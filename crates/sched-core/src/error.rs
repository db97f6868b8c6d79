//! Typed errors: every way a scheduler can refuse what it is asked.

use core::fmt;

use crate::request::{Cylinder, RequestId};

/// Why a scheduler refused an operation. Nothing is lost when one is returned:
/// requests are `Copy`, so the caller still holds whatever was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedError {
    /// The queue already holds `capacity` requests.
    QueueFull {
        /// The fixed capacity of the queue.
        capacity: usize,
    },
    /// A request with this id is already queued.
    DuplicateId(RequestId),
    /// No queued request has this id.
    UnknownId(RequestId),
    /// The request addresses a cylinder beyond the disk the scheduler was built for.
    CylinderOutOfRange {
        /// The offending request.
        id: RequestId,
        /// Its cylinder.
        cylinder: Cylinder,
        /// Number of cylinders the scheduler was built for.
        cylinders: u32,
    },
    /// A constructor parameter is outside its domain.
    InvalidParameter {
        /// The parameter's name as the paper writes it (`m`, `beta`, `alpha`, ...).
        name: &'static str,
        /// What the parameter must satisfy.
        expected: &'static str,
    },
    /// An array was told a disk finished, but the disk was serving nothing.
    IdleDisk {
        /// The disk.
        disk: usize,
    },
    /// The request does not fit the array it was submitted to (wrong disk count,
    /// a read routed to a disk that holds no copy, ...).
    InvalidRequest {
        /// The offending request.
        id: RequestId,
        /// What is wrong with it.
        reason: &'static str,
    },
}

impl fmt::Display for SchedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedError::QueueFull { capacity } => {
                write!(f, "queue full: capacity {capacity} reached")
            }
            SchedError::DuplicateId(id) => write!(f, "request {id} is already queued"),
            SchedError::UnknownId(id) => write!(f, "no queued request has id {id}"),
            SchedError::CylinderOutOfRange {
                id,
                cylinder,
                cylinders,
            } => write!(
                f,
                "request {id} addresses cylinder {cylinder}, but the disk has {cylinders} cylinders"
            ),
            SchedError::InvalidParameter { name, expected } => {
                write!(f, "invalid parameter {name}: expected {expected}")
            }
            SchedError::IdleDisk { disk } => {
                write!(
                    f,
                    "disk {disk} reported a completion but was serving nothing"
                )
            }
            SchedError::InvalidRequest { id, reason } => {
                write!(f, "invalid request {id}: {reason}")
            }
        }
    }
}

impl core::error::Error for SchedError {}

/// Checks a capacity: at least one slot, and few enough for 16-bit slot links.
pub(crate) const fn check_capacity(n: usize) -> Result<(), SchedError> {
    if n == 0 || n > crate::MAX_CAPACITY {
        Err(SchedError::InvalidParameter {
            name: "capacity",
            expected: "1 ..= 65535 requests",
        })
    } else {
        Ok(())
    }
}

/// Checks the cylinder count of a disk.
pub(crate) const fn check_cylinders(cylinders: u32) -> Result<(), SchedError> {
    if cylinders == 0 {
        Err(SchedError::InvalidParameter {
            name: "cylinders",
            expected: "at least one cylinder",
        })
    } else {
        Ok(())
    }
}
