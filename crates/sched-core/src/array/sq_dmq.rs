//! SQ-DMQ: each read joins the shortest queue.
//!
//! Towsley, Chen & Yu (1991, §2.2); DMQ-SQ in Chen & Towsley (1991), their
//! default DMQ. Queue length counts the operations queued at a disk plus the
//! one it is serving; ties go to the disk whose arm is nearest the read's copy,
//! then to the lower disk.

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Shortest-queue read routing.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShortestQueue;

impl<const D: usize> ReadRouting<D> for ShortestQueue {
    fn route(&mut self, v: &RouteView<'_, D>) -> DiskSet {
        let d = (0..D)
            .min_by_key(|&d| (v.load[d], v.heads[d].cylinder.abs_diff(v.placement[d]), d))
            .unwrap_or(0);
        DiskSet::only(d)
    }
}
