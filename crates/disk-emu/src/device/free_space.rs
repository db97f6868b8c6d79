//! Free space an array's eager writes may take: the driver's free-block maps,
//! which an [`ArrayDevice`](super::ArrayDevice) consults through its disks'
//! estimators and updates as it starts eager writes.
//!
//! Eager writing (Zhang, Yu, Krishnamurthy & Wang, FAST 2002) decides where a
//! write goes at the moment a disk starts it: a policy such as SATF-EW asks
//! its disk's [`ServiceEstimator::nearest_free`](sched_core::ServiceEstimator::nearest_free)
//! and returns the place in [`Dispatch::chosen`](sched_core::Dispatch::chosen).
//! The device answers the question from its [`FreeSpace`] and the disk's
//! model, serves the write at the chosen place, and [`claims`](FreeSpace::claim)
//! it so that the next decision sees it taken. Freeing the write's old place
//! once it completes is the driver's business: it owns the map of where each
//! block's copies are, and reaches the free space through
//! [`ArrayDevice::free_space_mut`](super::ArrayDevice::free_space_mut).

use sched_core::array::Location;
use sched_core::{Direction, FreeBlock, Head, Nanos, Request};

use crate::disk::DiskModel;

/// Which blocks of an array's disks are free for eager writes.
pub trait FreeSpace {
    /// The free place of `blocks` blocks on disk `disk` (whose mechanics are
    /// `model`) that the heads reach soonest from `head` at `now`, on the
    /// arm's cylinder or beyond it in direction `sweep`, with the
    /// positioning time [`ServiceEstimator::positioning_time`](sched_core::ServiceEstimator::positioning_time)
    /// would give a request there; `None` when there is none.
    fn nearest_free(
        &self,
        disk: usize,
        model: &DiskModel,
        head: Head,
        now: Nanos,
        sweep: Direction,
        blocks: u32,
    ) -> Option<FreeBlock>;

    /// Disk `disk` starts writing `op` (as queued) at `at`, a place the
    /// policy chose: it is no longer free.
    fn claim(&mut self, disk: usize, op: &Request, at: Location);
}

/// No free space: every write goes where it was submitted. The free space
/// of every array that updates in place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoFreeSpace;

impl FreeSpace for NoFreeSpace {
    fn nearest_free(
        &self,
        _disk: usize,
        _model: &DiskModel,
        _head: Head,
        _now: Nanos,
        _sweep: Direction,
        _blocks: u32,
    ) -> Option<FreeBlock> {
        None
    }

    fn claim(&mut self, _disk: usize, _op: &Request, _at: Location) {}
}
