//! The reference model of acknowledged writes that the consistency oracles
//! check arrays against: sched-core's own array policies
//! (`tests/consistency.rs`) and the experiments crate's replication layer
//! and eager-writing groups (`crates/experiments/tests/replication.rs`,
//! `eager_array.rs`, which include this file by path).
//!
//! Every write carries a version, larger than that of every write submitted
//! before it, for each block it covers. Inputs to the array (submissions,
//! cancels, completions) are counted; a write is acknowledged at an input.
//! A read submitted at input `s` may return, for each of its blocks, the
//! newest version acknowledged before `s` or a later one, never an older
//! one (a stale read); and once everything has settled, every copy the
//! array counts as current holds the newest acknowledged version (else an
//! acknowledged write was lost). The model knows nothing of disks, copies or
//! queues, so it shares nothing with what it checks.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::ops::Range;

/// A block no write ever reached (a replacement disk not yet copied): never
/// a valid version.
pub(crate) const BLANK: u64 = u64::MAX;

/// The initial contents of every block.
pub(crate) const INITIAL: u64 = 0;

#[derive(Clone, Debug)]
struct Write {
    version: u64,
    blocks: Range<u64>,
    /// The input it was acknowledged at.
    acked: Option<u64>,
    /// Neither withdrawn nor failed.
    live: bool,
    /// Failed (every disk it was sent to failed first).
    failed: bool,
}

/// A stale read: `block` returned `got` though `newest` was acknowledged
/// before the read was submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stale {
    pub(crate) block: u64,
    pub(crate) got: u64,
    pub(crate) newest: u64,
}

impl Stale {
    /// `got` as a message shows it.
    pub(crate) fn got(&self) -> String {
        if self.got == BLANK {
            "blank".to_string()
        } else {
            self.got.to_string()
        }
    }
}

/// The writes submitted to an array and when each was acknowledged.
#[derive(Clone, Debug, Default)]
pub(crate) struct Acknowledged {
    writes: Vec<Write>,
    inputs: u64,
}

impl Acknowledged {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Counts one more input to the array; returns its number.
    pub(crate) fn input(&mut self) -> u64 {
        self.inputs += 1;
        self.inputs
    }

    /// The number of the last input.
    pub(crate) fn inputs(&self) -> u64 {
        self.inputs
    }

    /// A write of `version` to `blocks` was submitted.
    ///
    /// # Panics
    /// If `version` is not above every version submitted before (the model
    /// orders writes by version).
    pub(crate) fn write(&mut self, version: u64, blocks: Range<u64>) {
        assert!(
            self.writes.last().is_none_or(|w| w.version < version) && version != BLANK,
            "versions must rise with submission"
        );
        self.writes.push(Write {
            version,
            blocks,
            acked: None,
            live: true,
            failed: false,
        });
    }

    fn find(&mut self, version: u64) -> &mut Write {
        let i = self
            .writes
            .binary_search_by_key(&version, |w| w.version)
            .unwrap_or_else(|_| panic!("no write of version {version}"));
        &mut self.writes[i]
    }

    /// The write of `version` was acknowledged, at the last input.
    pub(crate) fn acknowledge(&mut self, version: u64) {
        let at = self.inputs;
        let w = self.find(version);
        assert!(w.acked.is_none(), "version {version} acknowledged twice");
        w.acked = Some(at);
    }

    /// The write of `version` was withdrawn (or refused): no buffer holds
    /// it any more.
    pub(crate) fn withdraw(&mut self, version: u64) {
        self.find(version).live = false;
    }

    /// The write of `version` failed: no buffer holds it any more, and what
    /// it wrote, if anything, is undefined.
    pub(crate) fn fail(&mut self, version: u64) {
        let w = self.find(version);
        w.live = false;
        w.failed = true;
    }

    fn failed(&self, version: u64) -> bool {
        self.writes
            .binary_search_by_key(&version, |w| w.version)
            .is_ok_and(|i| self.writes[i].failed)
    }

    /// The newest version of `block` acknowledged before input `before`
    /// ([`INITIAL`] if none).
    pub(crate) fn newest_acked(&self, block: u64, before: u64) -> u64 {
        self.writes
            .iter()
            .rev()
            .find(|w| w.acked.is_some_and(|a| a < before) && w.blocks.contains(&block))
            .map_or(INITIAL, |w| w.version)
    }

    /// The newest version of `block` acknowledged so far.
    pub(crate) fn newest(&self, block: u64) -> u64 {
        self.newest_acked(block, u64::MAX)
    }

    /// The newest version of `block` submitted and neither withdrawn nor
    /// failed: what a delayed-write buffer holds.
    pub(crate) fn newest_live(&self, block: u64) -> u64 {
        self.writes
            .iter()
            .rev()
            .find(|w| w.live && w.blocks.contains(&block))
            .map_or(INITIAL, |w| w.version)
    }

    /// Checks a read of the blocks from `first`, submitted at input
    /// `submitted`, that returned `got` (a version for each block).
    pub(crate) fn check_read(&self, first: u64, got: &[u64], submitted: u64) -> Result<(), Stale> {
        for (block, &got) in (first..).zip(got) {
            let newest = self.newest_acked(block, submitted);
            if got == BLANK || got < newest {
                return Err(Stale { block, got, newest });
            }
        }
        Ok(())
    }

    /// Checks a current copy of `block` once everything has settled: it
    /// holds the newest acknowledged version, or a later write that failed
    /// (a failed write leaves its blocks undefined). `Err` carries the
    /// newest acknowledged version the copy lost.
    pub(crate) fn check_settled(&self, block: u64, got: u64) -> Result<(), u64> {
        let newest = self.newest(block);
        if got == newest || (got > newest && got != BLANK && self.failed(got)) {
            Ok(())
        } else {
            Err(newest)
        }
    }
}
