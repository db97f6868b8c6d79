//! MR-ESQ: minimum-read equitable single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.2): serial like S-PSSQ (the head of the FCFS
//! queue waits until every disk is idle), but a read runs on every disk at
//! once and completes with the first copy to finish; the others are aborted.

use super::sq::{SqCore, delegate_to_sq_core};
use super::{ArrayPolicy, DiskSet, Start};
use crate::error::SchedError;
use crate::request::{Head, Nanos};
use crate::scheduler::ServiceEstimator;

/// Minimum-read equitable single queue.
pub struct MrEsq<const N: usize, const D: usize> {
    core: SqCore<N, D>,
}

impl<const N: usize, const D: usize> MrEsq<N, D> {
    /// An empty array queue holding up to `N` logical requests.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count.
    pub fn new() -> Result<Self, SchedError> {
        Ok(MrEsq { core: SqCore::new()? })
    }
}

impl<const N: usize, const D: usize> ArrayPolicy<D> for MrEsq<N, D> {
    delegate_to_sq_core!();

    fn poll_start(&mut self, heads: &[Head; D], _now: Nanos, _est: &[&dyn ServiceEstimator; D]) -> Option<Start> {
        let all = DiskSet::all(D);
        self.core.poll_start(
            heads,
            |v| if v.idle == all { all } else { DiskSet::EMPTY },
            |v| v.idle == all,
        )
    }
}
