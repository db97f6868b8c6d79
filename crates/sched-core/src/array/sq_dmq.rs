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
        // The best so far: its operations, its arm's distance, its disk. The
        // distance only breaks ties, so it is worked out only for one.
        let mut best: Option<(usize, Option<u32>, usize)> = None;
        for d in v.eligible.iter() {
            let operations = v.load.operations(d);
            match best {
                Some((fewest, _, _)) if operations > fewest => {}
                Some((fewest, nearest, e)) if operations == fewest => {
                    let nearest = nearest.unwrap_or_else(|| v.distance(e));
                    let distance = v.distance(d);
                    // Disks come in increasing order: an equal distance
                    // keeps the lower disk.
                    best = Some(if distance < nearest {
                        (operations, Some(distance), d)
                    } else {
                        (fewest, Some(nearest), e)
                    });
                }
                _ => best = Some((operations, None, d)),
            }
        }
        best.map_or(DiskSet::EMPTY, |(_, _, d)| DiskSet::only(d))
    }
}
