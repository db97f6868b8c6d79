//! C-PSSQ: concurrent primary/secondary, single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.1): as S-PSSQ, but a read at the head of the
//! FCFS queue may start whenever the primary disk (disk 0) is idle, so a read
//! can overlap the secondary's write of the previous update. An update still
//! waits until every disk is idle.

use super::{DiskSet, SingleQueue, SqView, StartRule};

/// C-PSSQ's start rule: a read starts on disk 0 as soon as disk 0 is idle.
#[derive(Clone, Copy, Debug, Default)]
pub struct CPssqRule;

impl<const D: usize> StartRule<D> for CPssqRule {
    fn read_disks(&self, v: &SqView<'_, D>) -> DiskSet {
        if v.idle.contains(0) {
            DiskSet::only(0)
        } else {
            DiskSet::EMPTY
        }
    }
}

/// Concurrent primary/secondary single queue.
pub type CPssq<const N: usize, const D: usize> = SingleQueue<CPssqRule, N, D>;
