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

impl<const D: usize> ReadRouting<D> for Md {
    fn route(&mut self, v: &RouteView<'_, D>) -> DiskSet {
        if let Some(d) = (0..D).find(|&d| v.next_sequential[d] == v.block) {
            return DiskSet::only(d);
        }
        let d = (0..D)
            .min_by_key(|&d| {
                (
                    !v.idle.contains(d),
                    v.load[d],
                    v.heads[d].cylinder.abs_diff(v.placement[d]),
                    d,
                )
            })
            .unwrap_or(0);
        DiskSet::only(d)
    }
}
