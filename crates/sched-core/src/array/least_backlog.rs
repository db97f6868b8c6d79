//! Least expected turnaround: Ivy's copy selection.
//!
//! Lo (1990, *Ivy*, §4.3): a read goes to the copy whose disk would finish it
//! soonest, that is with the least queued service time plus this request's
//! own service time there. The queued time is the disk's backlog (the
//! estimators' expected service time summed over its queue, plus what
//! remains of the operation in service); the request's own time is the
//! estimator's service time from the arm's present position. Ties go to the
//! lower disk.

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Least-expected-turnaround read routing.
#[derive(Clone, Copy, Debug, Default)]
pub struct LeastBacklog;

impl ReadRouting for LeastBacklog {
    fn route(&mut self, v: &RouteView<'_>) -> DiskSet {
        let turnaround = |d: usize| {
            let mut op = *v.request;
            if let Some(at) = v.copies.location(d) {
                op.block = at.block;
                op.cylinder = at.cylinder;
            }
            let own = v.array.estimators[d].service_time(v.array.heads[d], &op, v.array.now);
            v.load.backlog(d).saturating_add(own)
        };
        v.eligible
            .iter()
            .min_by_key(|&d| (turnaround(d), d))
            .map_or(DiskSet::EMPTY, DiskSet::only)
    }
}
