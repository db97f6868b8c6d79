//! C-PSSQ: concurrent primary/secondary, single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.1): as S-PSSQ, but a read at the head of the
//! FCFS queue may start whenever the primary disk (disk 0) is idle, so a read
//! can overlap the secondary's write of the previous update. An update still
//! waits until every disk is idle.

use super::sq::{SqCore, delegate_to_sq_core};
use super::{ArrayPolicy, DiskSet, Start};
use crate::error::SchedError;
use crate::request::{Head, Nanos};
use crate::scheduler::ServiceEstimator;

/// Concurrent primary/secondary single queue.
pub struct CPssq<const N: usize, const D: usize> {
    core: SqCore<N, D>,
}

impl<const N: usize, const D: usize> CPssq<N, D> {
    /// An empty array queue holding up to `N` logical requests.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count.
    pub fn new() -> Result<Self, SchedError> {
        Ok(CPssq { core: SqCore::new()? })
    }
}

impl<const N: usize, const D: usize> ArrayPolicy<D> for CPssq<N, D> {
    delegate_to_sq_core!();

    fn poll_start(&mut self, heads: &[Head; D], _now: Nanos, _est: &[&dyn ServiceEstimator; D]) -> Option<Start> {
        self.core.poll_start(
            heads,
            |v| if v.idle.contains(0) { DiskSet::only(0) } else { DiskSet::EMPTY },
            |v| v.idle == DiskSet::all(D),
        )
    }
}
