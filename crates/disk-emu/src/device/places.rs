//! Where an array's operations may be served when the place is decided at
//! dispatch, not at submission: the driver's free-block maps for eager
//! writes, and the rotational replicas of an SR-Array's blocks. An
//! [`ArrayDevice`](super::ArrayDevice) consults its [`Places`] through its
//! disks' estimators and tells it where each such operation started.
//!
//! - **Eager writing** (Zhang, Yu, Krishnamurthy & Wang, FAST 2002) decides
//!   where a write goes at the moment a disk starts it: a policy such as
//!   SATF-EW asks its disk's
//!   [`ServiceEstimator::nearest_free`](sched_core::ServiceEstimator::nearest_free)
//!   and returns the place in [`Dispatch::chosen`](sched_core::Dispatch::chosen).
//!   The device answers from [`Places::nearest_free`], serves the write
//!   there and [`claims`](Places::claim) it, so that the next decision sees
//!   it taken.
//! - **Rotational replicas** (Yu et al., OSDI 2000): a block kept several
//!   times on one track may be served at whichever copy the heads reach
//!   first. [`Places::nearest_copy`] names that copy; the device's
//!   estimators charge a request the positioning time of its nearest copy
//!   — so that any positioning-time policy (SATF) compares requests by the
//!   copies it would really serve — and the device serves the request
//!   there, claiming the place as it starts.
//!
//! What follows from the place — freeing an overwritten block, which copy
//! now holds the newest data — is the driver's business: it owns the map of
//! where each block's copies are, and reaches the places through
//! [`ArrayDevice::places_mut`](super::ArrayDevice::places_mut).

use sched_core::array::Location;
use sched_core::{Direction, FreeBlock, Head, Nanos, Request};

use crate::disk::DiskModel;

/// Places of an array's disks decided at dispatch (see the module
/// documentation). Every method has a default for a layout without such
/// places: nothing is free, every block is where the request says.
///
/// `Sync`, because the device hands its policy each disk's
/// [`ServiceEstimator`](sched_core::ServiceEstimator), which is `Sync`, and
/// those estimators read the places.
pub trait Places: Sync {
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
    ) -> Option<FreeBlock> {
        let _ = (disk, model, head, now, sweep, blocks);
        None
    }

    /// The copy of `op`'s data on disk `disk` that the heads reach soonest
    /// from `head` at `now`, with its positioning time; `None` when `op` is
    /// served where it says (one copy on the disk, or an operation that
    /// must go to one particular copy).
    fn nearest_copy(
        &self,
        disk: usize,
        model: &DiskModel,
        head: Head,
        now: Nanos,
        op: &Request,
    ) -> Option<FreeBlock> {
        let _ = (disk, model, head, now, op);
        None
    }

    /// Disk `disk` starts `op` (as queued) at `at`, a place its policy
    /// chose (a free block) or [`nearest_copy`](Self::nearest_copy) named.
    fn claim(&mut self, disk: usize, op: &Request, at: Location) {
        let _ = (disk, op, at);
    }
}

/// Fixed places: nothing free, one copy per disk, every operation served
/// where it was submitted. The places of every array that updates in
/// place without rotational replicas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixedPlaces;

impl Places for FixedPlaces {}
