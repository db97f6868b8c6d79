//! S-PSSQ: serial primary/secondary, single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.1): one FCFS queue; only one request is in
//! service at a time; a read runs on the primary disk (disk 0) only, an update
//! writes every disk, and the head of the queue waits until all disks are idle.

use super::sq::{SqCore, delegate_to_sq_core};
use super::{ArrayPolicy, DiskSet, Start};
use crate::error::SchedError;
use crate::request::{Head, Nanos};
use crate::scheduler::ServiceEstimator;

/// Serial primary/secondary single queue.
pub struct SPssq<const N: usize, const D: usize> {
    core: SqCore<N, D>,
}

impl<const N: usize, const D: usize> SPssq<N, D> {
    /// An empty array queue holding up to `N` logical requests.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count.
    pub fn new() -> Result<Self, SchedError> {
        Ok(SPssq { core: SqCore::new()? })
    }
}

impl<const N: usize, const D: usize> ArrayPolicy<D> for SPssq<N, D> {
    delegate_to_sq_core!();

    fn poll_start(&mut self, heads: &[Head; D], _now: Nanos, _est: &[&dyn ServiceEstimator; D]) -> Option<Start> {
        let all = DiskSet::all(D);
        self.core.poll_start(
            heads,
            |v| if v.idle == all { DiskSet::only(0) } else { DiskSet::EMPTY },
            |v| v.idle == all,
        )
    }
}
