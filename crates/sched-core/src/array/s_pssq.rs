//! S-PSSQ: serial primary/secondary, single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.1): one FCFS queue; only one request is in
//! service at a time; a read runs on the primary disk (disk 0) only, an update
//! writes every disk, and the head of the queue waits until all disks are idle.

use super::{DiskSet, SingleQueue, SqView, StartRule};

/// S-PSSQ's start rule: nothing starts until every disk is idle; reads use disk 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct SPssqRule;

impl<const D: usize> StartRule<D> for SPssqRule {
    fn read_disks(&self, v: &SqView<'_, D>) -> DiskSet {
        if v.idle == DiskSet::all(D) {
            DiskSet::only(0)
        } else {
            DiskSet::EMPTY
        }
    }
}

/// Serial primary/secondary single queue.
pub type SPssq<const N: usize, const D: usize> = SingleQueue<SPssqRule, N, D>;
