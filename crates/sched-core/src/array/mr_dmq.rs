//! MR-DMQ: each read joins every queue holding an up-to-date copy.
//!
//! Towsley, Chen & Yu (1991, §2.2): minimum-read routing; every copy is
//! served and the read completes with the first (no copy is withdrawn).

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Minimum-read routing without abort.
#[derive(Clone, Copy, Debug, Default)]
pub struct BothCopies;

impl ReadRouting for BothCopies {
    fn route(&mut self, view: &RouteView<'_>) -> DiskSet {
        view.eligible
    }
}
