//! CRU-ESQ: concurrent read/update equitable single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.2): as CR-ESQ, but a read may start on any
//! idle disk even while the other disk writes an update; an update still waits
//! until every disk is idle. A read starts on the idle disk whose arm is
//! nearest its copy (ties: the lower disk).

use super::sq::{SqCore, delegate_to_sq_core};
use super::{ArrayPolicy, DiskSet, Start, nearest};
use crate::error::SchedError;
use crate::request::{Head, Nanos};
use crate::scheduler::ServiceEstimator;

/// Concurrent read/update equitable single queue.
pub struct CruEsq<const N: usize, const D: usize> {
    core: SqCore<N, D>,
}

impl<const N: usize, const D: usize> CruEsq<N, D> {
    /// An empty array queue holding up to `N` logical requests.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] for an invalid capacity or disk count.
    pub fn new() -> Result<Self, SchedError> {
        Ok(CruEsq { core: SqCore::new()? })
    }
}

impl<const N: usize, const D: usize> ArrayPolicy<D> for CruEsq<N, D> {
    delegate_to_sq_core!();

    fn poll_start(&mut self, heads: &[Head; D], _now: Nanos, _est: &[&dyn ServiceEstimator; D]) -> Option<Start> {
        self.core.poll_start(
            heads,
            |v| nearest(v.idle, v.placement, v.heads).map_or(DiskSet::EMPTY, DiskSet::only),
            |v| v.idle == DiskSet::all(D),
        )
    }
}
