//! Least expected turnaround: Ivy's copy selection.
//!
//! Lo (1990, *Ivy*, §4.3): a read goes to the copy whose disk would finish it
//! soonest, that is with the least expected wait plus this request's own
//! service there. The wait is what remains of the operation in service plus
//! the queued work the disk would serve before the read: all of it under
//! FCFS (Lo's simulator), but only the part of the sweep between the arm and
//! the read under C-LOOK, whose reordering Lo names as his method's
//! limitation (the queue discipline says which, through
//! [`Scheduler::work_ahead`](crate::Scheduler::work_ahead)). Queued work
//! counts at the estimators' expected service time; the read's own time is
//! the estimator's service time from the arm's present position. Ties go to
//! the lower disk.
//!
//! With `reorder` off the rule counts every queued operation whatever the
//! discipline: Lo's FIFO reading applied as it stands, kept to measure what
//! knowing the discipline's order is worth.

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Least-expected-turnaround read routing.
#[derive(Clone, Copy, Debug)]
pub struct LeastTurnaround {
    /// Whether the queued work ahead of a read is what the discipline would
    /// serve first (`true`) or the whole queue (`false`).
    pub reorder: bool,
}

impl Default for LeastTurnaround {
    fn default() -> Self {
        LeastTurnaround { reorder: true }
    }
}

impl ReadRouting for LeastTurnaround {
    fn route(&mut self, v: &RouteView<'_>) -> DiskSet {
        let turnaround = |d: usize| {
            let own = v.array.estimators[d].service_time(v.array.heads[d], &v.op(d), v.array.now);
            let wait = if self.reorder {
                v.expected_wait(d)
            } else {
                v.load.backlog(d)
            };
            wait.saturating_add(own)
        };
        v.eligible
            .iter()
            .min_by_key(|&d| (turnaround(d), d))
            .map_or(DiskSet::EMPTY, DiskSet::only)
    }
}
