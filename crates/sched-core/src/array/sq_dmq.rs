//! SQ-DMQ: each read joins the shortest queue.
//!
//! Towsley, Chen & Yu (1991, §2.2): a read joins the queue of the disk with
//! the fewest operations queued or in service (DMQ-SQ in Chen & Towsley
//! 1991); ties go to the arm nearest the read's copy, then the lower disk.

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Shortest-queue read routing.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShortestQueue;

impl ReadRouting for ShortestQueue {
    #[inline]
    fn route(&mut self, v: &RouteView<'_>) -> DiskSet {
        let mut best: Option<(usize, u32, usize)> = None;
        for d in v.eligible.iter() {
            let key = (v.load.operations(d), v.distance(d), d);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map_or(DiskSet::EMPTY, |(_, _, d)| DiskSet::only(d))
    }
}
