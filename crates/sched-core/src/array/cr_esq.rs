//! CR-ESQ: concurrent-read equitable single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.2): reads may run on any disk, several at
//! once; an update waits until every disk is idle; no read starts while an
//! update is being written. A read starts on the idle disk whose arm is
//! nearest its copy (ties: the lower disk); the paper's exponential analysis
//! does not care which idle disk, so this choice is ours.

use super::{DiskSet, SingleQueue, SqView, StartRule, nearest};

/// CR-ESQ's start rule: a read takes the nearest idle disk unless an update is writing.
#[derive(Clone, Copy, Debug, Default)]
pub struct CrEsqRule;

impl StartRule for CrEsqRule {
    fn read_disks(&self, v: &SqView<'_>) -> DiskSet {
        match nearest(v.idle.intersection(v.eligible), v.copies, v.heads) {
            Some(d) if !v.writing => DiskSet::only(d),
            _ => DiskSet::EMPTY,
        }
    }
}

/// Concurrent-read equitable single queue.
pub type CrEsq<S> = SingleQueue<CrEsqRule, S>;
