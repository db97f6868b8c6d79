//! An id → slot index: open addressing with linear probing and
//! backward-shift deletion (no tombstones accumulate), `CELLS` cells per
//! slot of storage, Fibonacci hashing of the caller's request ids. The ids
//! themselves live with the requests; the index reads them through the
//! `id_of` function each operation is given.

use super::slab::{NIL, Slot};
use crate::storage::{Inline, Slots, Storage};

/// The cell an id hashes to in a table of `len` cells.
#[inline]
fn home(id: u64, len: usize) -> usize {
    let h = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h as u128 * len as u128) >> 64) as usize
}

#[derive(Clone)]
pub(crate) struct IdIndex<S: Storage, const CELLS: usize> {
    cells: Slots<[Slot; CELLS], S>,
}

impl<S: Storage, const CELLS: usize> IdIndex<S, CELLS> {
    pub(crate) fn new(storage: &S) -> Self {
        IdIndex {
            cells: Slots::new(storage, [NIL; CELLS]),
        }
    }
}

impl<const N: usize, const CELLS: usize> IdIndex<Inline<N>, CELLS> {
    /// [`IdIndex::new`] on inline storage, in const context.
    pub(crate) const fn inline() -> Self {
        IdIndex {
            cells: Slots::inline([NIL; CELLS]),
        }
    }
}

impl<S: Storage, const CELLS: usize> IdIndex<S, CELLS> {
    #[inline]
    fn cells(&self) -> &[Slot] {
        self.cells.as_slice().as_flattened()
    }

    #[inline]
    fn cells_mut(&mut self) -> &mut [Slot] {
        self.cells.as_mut_slice().as_flattened_mut()
    }

    /// Finds the cell holding `id`, or the empty cell where it would go.
    #[inline]
    pub(crate) fn probe(&self, id: u64, id_of: impl Fn(Slot) -> u64) -> (usize, Option<Slot>) {
        let cells = self.cells();
        let len = cells.len();
        let mut i = home(id, len);
        loop {
            let s = cells[i];
            if s == NIL {
                return (i, None);
            }
            if id_of(s) == id {
                return (i, Some(s));
            }
            i += 1;
            if i == len {
                i = 0;
            }
        }
    }

    /// Fills the empty `cell` [`IdIndex::probe`] returned with `slot`.
    #[inline]
    pub(crate) fn fill(&mut self, cell: usize, slot: Slot) {
        self.cells_mut()[cell] = slot;
    }

    /// Deletes `slot`, whose id is `id`, shifting later cells of its probe run back.
    #[inline]
    pub(crate) fn remove(&mut self, slot: Slot, id: u64, id_of: impl Fn(Slot) -> u64) {
        let len = self.cells().len();
        // Look for the slot itself: no need to read each probed cell's id.
        let mut hole = home(id, len);
        while self.cells()[hole] != slot {
            hole += 1;
            if hole == len {
                hole = 0;
            }
        }
        let mut j = hole;
        loop {
            j += 1;
            if j == len {
                j = 0;
            }
            let s = self.cells()[j];
            if s == NIL {
                break;
            }
            let h = home(id_of(s), len);
            // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
            let stays = if hole <= j {
                hole < h && h <= j
            } else {
                hole < h || h <= j
            };
            if !stays {
                self.cells_mut()[hole] = s;
                hole = j;
            }
        }
        self.cells_mut()[hole] = NIL;
    }

    /// Every indexed slot, in no particular order.
    pub(crate) fn occupied(&self) -> impl Iterator<Item = Slot> + '_ {
        self.cells().iter().copied().filter(|&s| s != NIL)
    }
}
