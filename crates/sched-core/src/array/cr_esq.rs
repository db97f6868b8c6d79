//! CR-ESQ: concurrent-read equitable single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.2): reads may run on any disk, several at
//! once; an update waits until every disk is idle; no read starts while an
//! update is being written. A read starts on the idle disk whose arm is
//! nearest its copy (ties: the lower disk); the paper's exponential analysis
//! does not care which idle disk, so this choice is ours.

use super::sq::{SqCore, delegate_to_sq_core};
use super::{ArrayPolicy, DiskSet, Start, nearest};
use crate::error::SchedError;
use crate::request::{Head, Nanos};
use crate::scheduler::ServiceEstimator;

/// Concurrent-read equitable single queue.
pub struct CrEsq<const N: usize, const D: usize> {
    core: SqCore<N, D>,
}

impl<const N: usize, const D: usize> CrEsq<N, D> {
    /// An empty array queue holding up to `N` logical requests.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count.
    pub fn new() -> Result<Self, SchedError> {
        Ok(CrEsq { core: SqCore::new()? })
    }
}

impl<const N: usize, const D: usize> ArrayPolicy<D> for CrEsq<N, D> {
    delegate_to_sq_core!();

    fn poll_start(&mut self, heads: &[Head; D], _now: Nanos, _est: &[&dyn ServiceEstimator; D]) -> Option<Start> {
        self.core.poll_start(
            heads,
            |v| match nearest(v.idle, v.placement, v.heads) {
                Some(d) if !v.writing => DiskSet::only(d),
                _ => DiskSet::EMPTY,
            },
            |v| v.idle == DiskSet::all(D),
        )
    }
}
