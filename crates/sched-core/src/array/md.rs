//! Linux md RAID-1 read balancing, as a DMQ read routing.
//!
//! A baseline from practice (the kernel's `read_balance` in drivers/md/raid1.c,
//! summarised, not transcribed): a read that continues where a disk's last
//! operation ended stays on that disk (so sequential streams keep one arm);
//! otherwise it goes to an idle disk, else to the disk with the fewest pending
//! operations, ties broken by the arm nearest the read's copy, then the lower
//! disk.

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Linux md RAID-1 style read balancing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Md;

impl ReadRouting for Md {
    fn route(&mut self, v: &RouteView<'_>) -> DiskSet {
        let sequential = v
            .eligible
            .iter()
            .find(|&d| v.copies.location(d).map(|l| l.block) == Some(v.next_sequential[d]));
        if let Some(d) = sequential {
            return DiskSet::only(d);
        }
        v.eligible
            .iter()
            .min_by_key(|&d| (!v.idle.contains(d), v.load.operations(d), v.distance(d), d))
            .map_or(DiskSet::EMPTY, DiskSet::only)
    }
}
