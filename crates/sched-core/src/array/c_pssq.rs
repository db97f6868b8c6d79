//! C-PSSQ: concurrent primary/secondary, single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.1): as S-PSSQ, but a read at the head of the
//! FCFS queue may start whenever the primary disk (disk 0 in the paper; here the lowest disk with an up-to-date copy) is idle, so a read
//! can overlap the secondary's write of the previous update. An update still
//! waits until every disk is idle.

use super::{DiskSet, SingleQueue, SqView, StartRule};

/// C-PSSQ's start rule: a read starts on the primary (the lowest disk with
/// an up-to-date copy) as soon as the primary is idle.
#[derive(Clone, Copy, Debug, Default)]
pub struct CPssqRule;

impl StartRule for CPssqRule {
    fn read_disks(&self, v: &SqView<'_>) -> DiskSet {
        match v.primary() {
            Some(d) if v.idle.contains(d) => DiskSet::only(d),
            _ => DiskSet::EMPTY,
        }
    }
}

/// Concurrent primary/secondary single queue.
pub type CPssq<S> = SingleQueue<CPssqRule, S>;
