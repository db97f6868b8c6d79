//! Linux md RAID-1 read balancing, as a DMQ read routing.
//!
//! A baseline from practice: the kernel's `read_balance` (drivers/md/raid1.c;
//! `choose_best_rdev` since Linux 6.9), summarised, not transcribed. A read
//! that continues where a disk's last operation ended stays on that disk (so
//! sequential streams keep one arm); otherwise it goes to an idle disk (none
//! pending); otherwise, when every disk rotates, to the disk whose head
//! position (where its last operation ended, in blocks) is nearest the read's
//! copy, and when some disk does not, to the disk with the fewest pending
//! operations (ties by the nearer head). Remaining ties go to the lower disk.
//! md keeps the head position in sectors of each member; here it is the
//! block after the last operation a disk started, 0 before the first, as md
//! starts it.

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Linux md RAID-1 read balancing.
#[derive(Clone, Copy, Debug)]
pub struct Md {
    /// Every disk rotates: a busy array reads from the nearest head, not
    /// from the fewest pending operations.
    pub rotational: bool,
}

impl Default for Md {
    fn default() -> Self {
        Md { rotational: true }
    }
}

impl ReadRouting for Md {
    fn route(&mut self, v: &RouteView<'_>) -> DiskSet {
        let copy = |d: usize| v.copies.location(d).map_or(v.request.block, |l| l.block);
        let sequential = v.eligible.iter().find(|&d| copy(d) == v.next_sequential[d]);
        if let Some(d) = sequential {
            return DiskSet::only(d);
        }
        if let Some(d) = v.eligible.intersection(v.idle).first() {
            return DiskSet::only(d);
        }
        let head_distance = |d: usize| {
            let head = match v.next_sequential[d] {
                u64::MAX => 0,
                end => end,
            };
            copy(d).abs_diff(head)
        };
        let best = if self.rotational {
            v.eligible.iter().min_by_key(|&d| (head_distance(d), d))
        } else {
            v.eligible
                .iter()
                .min_by_key(|&d| (v.load.operations(d), head_distance(d), d))
        };
        best.map_or(DiskSet::EMPTY, DiskSet::only)
    }
}
