//! CRU-ESQ: concurrent read/update equitable single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.2): as CR-ESQ, but a read may start on any
//! idle disk even while the other disk writes an update; an update still waits
//! until every disk is idle. A read starts on the idle disk whose arm is
//! nearest its copy (ties: the lower disk).

use super::{DiskSet, SingleQueue, SqView, StartRule, nearest};

/// CRU-ESQ's start rule: a read takes the nearest idle disk, whatever the others do.
#[derive(Clone, Copy, Debug, Default)]
pub struct CruEsqRule;

impl StartRule for CruEsqRule {
    fn read_disks(&self, v: &SqView<'_>) -> DiskSet {
        nearest(v.idle.intersection(v.eligible), v.copies, v.heads)
            .map_or(DiskSet::EMPTY, DiskSet::only)
    }
}

/// Concurrent read/update equitable single queue.
pub type CruEsq<S> = SingleQueue<CruEsqRule, S>;
