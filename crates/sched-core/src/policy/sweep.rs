//! The elevator rule LOOK, SCAN, SCAN-EDF and FD-SCAN's fallback share.

use crate::queue::{CylinderIndex, Slab, Slot};
use crate::request::{Cylinder, Direction};
use crate::storage::Storage;

/// The next request in `direction` from cylinder `h` (the arm's own cylinder
/// counts as ahead), or, when nothing lies ahead, the nearest one behind; with
/// the direction the arm moves in to reach it.
pub(crate) fn elevator_pick<S: Storage>(
    index: &CylinderIndex<S>,
    slab: &Slab<S>,
    h: Cylinder,
    direction: Direction,
) -> Option<(Slot, Direction)> {
    let ahead = match direction {
        Direction::Up => index.at_or_above(slab, h),
        Direction::Down => index.at_or_below(slab, h),
    };
    if let Some(s) = ahead {
        return Some((s, direction));
    }
    let behind = match direction {
        Direction::Up => index.at_or_below(slab, h),
        Direction::Down => index.at_or_above(slab, h),
    }?;
    Some((behind, direction.reversed()))
}
