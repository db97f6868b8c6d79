//! MR-ESQ: minimum-read equitable single queue.
//!
//! Towsley, Chen & Yu (1991, §2.1.2): serial like S-PSSQ (the head of the FCFS
//! queue waits until every disk is idle), but a read runs on every disk at
//! once and completes with the first copy to finish; the others are aborted.

use super::{DiskSet, SingleQueue, SqView, StartRule};

/// MR-ESQ's start rule: when every disk is idle, a read starts on all of them.
#[derive(Clone, Copy, Debug, Default)]
pub struct MrEsqRule;

impl StartRule for MrEsqRule {
    fn read_disks(&self, v: &SqView<'_>) -> DiskSet {
        if v.all_idle() {
            v.eligible
        } else {
            DiskSet::EMPTY
        }
    }
}

/// Minimum-read equitable single queue.
pub type MrEsq<S> = SingleQueue<MrEsqRule, S>;
