//! MR-DMQ: each read joins every queue and completes with the first copy.
//!
//! Towsley, Chen & Yu (1991, §2.2): the other copies are not withdrawn; they
//! are served in turn and their completions ignored (the price of the faster
//! first copy).

use super::DiskSet;
use super::dmq::{ReadRouting, RouteView};

/// Minimum-read routing without abort: a read joins every disk's queue.
#[derive(Clone, Copy, Debug, Default)]
pub struct BothCopies;

impl<const D: usize> ReadRouting<D> for BothCopies {
    fn route(&mut self, _view: &RouteView<'_, D>) -> DiskSet {
        DiskSet::all(D)
    }
}
