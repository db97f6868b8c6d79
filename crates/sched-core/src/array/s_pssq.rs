//! S-PSSQ: serial primary/secondary, single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.1): one FCFS queue; only one request is in
//! service at a time; a read runs on the primary disk (disk 0 in the paper; here the lowest disk with an up-to-date copy) only, an update
//! writes every disk, and the head of the queue waits until all disks are idle.

use super::{DiskSet, SingleQueue, SqView, StartRule};

/// S-PSSQ's start rule: nothing starts until every live disk is idle; reads
/// use the primary, the lowest disk with an up-to-date copy.
#[derive(Clone, Copy, Debug, Default)]
pub struct SPssqRule;

impl StartRule for SPssqRule {
    fn read_disks(&self, v: &SqView<'_>) -> DiskSet {
        match v.primary() {
            Some(d) if v.all_idle() => DiskSet::only(d),
            _ => DiskSet::EMPTY,
        }
    }
}

/// Serial primary/secondary single queue.
pub type SPssq<S> = SingleQueue<SPssqRule, S>;
