//! Fixed-capacity request storage with an id index.
//!
//! Requests are kept as a structure of arrays: index structures compare
//! deadlines and cylinders through dense arrays that stay in cache, and no
//! padding is stored (43 bytes a request instead of the 56 of `Request`),
//! plus 4 bytes of id index: 47 bytes a slot. The free list is threaded
//! through the length array of the free slots, which costs no memory.

use super::ids::IdIndex;
use crate::error::EnqueueError;
use crate::request::{Cylinder, Kind, Nanos, Request, RequestId};
use crate::storage::{Inline, Slots, Storage};

/// Index of a storage slot. Capacities are capped at 65 535 so links fit in 16 bits.
pub(crate) type Slot = u16;
/// The "no slot" link value.
pub(crate) const NIL: Slot = Slot::MAX;

/// Bit 0 of a `flags` byte: the request is a write.
const WRITE: u8 = 1;
/// Bit 1 of a `flags` byte: the request carries a deadline. The dense deadline
/// array holds the sort key (`Nanos::MAX` for none), which cannot tell
/// `Some(Nanos::MAX)` from `None`; the flag can, so a request comes back
/// exactly as it was enqueued.
const HAS_DEADLINE: u8 = 2;

#[derive(Clone)]
pub(crate) struct Slab<S: Storage> {
    ids: Slots<u64, S>,
    blocks: Slots<u64, S>,
    arrivals: Slots<Nanos, S>,
    deadlines: Slots<Nanos, S>,
    cylinders: Slots<Cylinder, S>,
    /// Request lengths; for a free slot, the next free slot (free list).
    lengths: Slots<u32, S>,
    classes: Slots<u16, S>,
    /// [`WRITE`] and [`HAS_DEADLINE`] bits.
    flags: Slots<u8, S>,
    /// First slot of the free list, which continues through `lengths`.
    free_head: Slot,
    /// Slots never used yet start at `fresh`; they need no free-list threading.
    fresh: usize,
    len: usize,
    capacity: usize,
    /// The id → slot index, with 2N cells.
    table: IdIndex<S, 2>,
}

impl<S: Storage> Slab<S> {
    pub(crate) fn new(storage: &S) -> Self {
        Slab {
            ids: Slots::new(storage, 0),
            blocks: Slots::new(storage, 0),
            arrivals: Slots::new(storage, 0),
            deadlines: Slots::new(storage, 0),
            cylinders: Slots::new(storage, 0),
            lengths: Slots::new(storage, 0),
            classes: Slots::new(storage, 0),
            flags: Slots::new(storage, 0),
            free_head: NIL,
            fresh: 0,
            len: 0,
            capacity: storage.capacity(),
            table: IdIndex::new(storage),
        }
    }

    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }
}

impl<const N: usize> Slab<Inline<N>> {
    /// [`Slab::new`] on inline storage, in const context. `Inline::<N>::new`
    /// is called for its compile-time check of `N`: a capacity of 0 or above
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY) stops the build here, for every
    /// policy, since each keeps its requests in a slab.
    pub(crate) const fn inline() -> Self {
        let _checked = Inline::<N>::new();
        Slab {
            ids: Slots::inline(0),
            blocks: Slots::inline(0),
            arrivals: Slots::inline(0),
            deadlines: Slots::inline(0),
            cylinders: Slots::inline(0),
            lengths: Slots::inline(0),
            classes: Slots::inline(0),
            flags: Slots::inline(0),
            free_head: NIL,
            fresh: 0,
            len: 0,
            capacity: N,
            table: IdIndex::inline(),
        }
    }
}

impl<S: Storage> Slab<S> {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn find(&self, id: RequestId) -> Option<Slot> {
        self.table.probe(id.0, |s| self.ids[s as usize]).1
    }

    /// Stores a request, checking capacity and id uniqueness.
    #[inline]
    pub(crate) fn insert(&mut self, req: &Request) -> Result<Slot, EnqueueError> {
        if self.len == self.capacity {
            return Err(EnqueueError::QueueFull {
                capacity: self.capacity,
            });
        }
        let (cell, existing) = self.table.probe(req.id.0, |s| self.ids[s as usize]);
        if existing.is_some() {
            return Err(EnqueueError::DuplicateId(req.id));
        }
        let slot = if self.free_head != NIL {
            let s = self.free_head;
            self.free_head = self.lengths[s as usize] as Slot;
            s
        } else {
            let s = self.fresh as Slot;
            self.fresh += 1;
            s
        };
        let i = slot as usize;
        self.ids[i] = req.id.0;
        self.blocks[i] = req.block;
        self.arrivals[i] = req.arrival;
        self.deadlines[i] = req.deadline_key();
        self.cylinders[i] = req.cylinder;
        self.lengths[i] = req.blocks;
        self.classes[i] = req.class;
        self.flags[i] = match req.kind {
            Kind::Read => 0,
            Kind::Write => WRITE,
        } | if req.deadline.is_some() {
            HAS_DEADLINE
        } else {
            0
        };
        self.table.fill(cell, slot);
        self.len += 1;
        Ok(slot)
    }

    /// Frees a slot and returns the request it held.
    #[inline]
    pub(crate) fn remove(&mut self, slot: Slot) -> Request {
        let req = self.get(slot);
        let ids = &self.ids;
        self.table
            .remove(slot, ids[slot as usize], |s| ids[s as usize]);
        self.lengths[slot as usize] = u32::from(self.free_head);
        self.free_head = slot;
        self.len -= 1;
        req
    }

    #[inline]
    pub(crate) fn get(&self, slot: Slot) -> Request {
        let i = slot as usize;
        let flags = self.flags[i];
        Request {
            id: RequestId(self.ids[i]),
            kind: if flags & WRITE != 0 {
                Kind::Write
            } else {
                Kind::Read
            },
            block: self.blocks[i],
            blocks: self.lengths[i],
            cylinder: self.cylinders[i],
            arrival: self.arrivals[i],
            deadline: (flags & HAS_DEADLINE != 0).then_some(self.deadlines[i]),
            class: self.classes[i],
        }
    }

    #[inline]
    pub(crate) fn cylinder(&self, slot: Slot) -> Cylinder {
        self.cylinders[slot as usize]
    }

    /// The deadline as a sort key (`Nanos::MAX` when the request has none).
    #[inline]
    pub(crate) fn deadline(&self, slot: Slot) -> Nanos {
        self.deadlines[slot as usize]
    }

    #[inline]
    pub(crate) fn arrival(&self, slot: Slot) -> Nanos {
        self.arrivals[slot as usize]
    }

    /// Deterministic tie-break between two requests: earlier arrival, then lower id.
    #[inline]
    pub(crate) fn arrives_before(&self, a: Slot, b: Slot) -> bool {
        let (a, b) = (a as usize, b as usize);
        (self.arrivals[a], self.ids[a]) < (self.arrivals[b], self.ids[b])
    }

    /// Cylinder-list order: lower cylinder, then earlier arrival, then lower id.
    #[inline]
    pub(crate) fn sits_before(&self, a: Slot, b: Slot) -> bool {
        let (ca, cb) = (self.cylinders[a as usize], self.cylinders[b as usize]);
        ca < cb || (ca == cb && self.arrives_before(a, b))
    }

    /// EDF order: earlier deadline, then earlier arrival, then lower id.
    #[inline]
    pub(crate) fn due_before(&self, a: Slot, b: Slot) -> bool {
        let (da, db) = (self.deadlines[a as usize], self.deadlines[b as usize]);
        da < db || (da == db && self.arrives_before(a, b))
    }

    /// The occupied slot with the lowest index, for draining.
    pub(crate) fn any_occupied(&self) -> Option<Slot> {
        // Every occupied slot is in the id table, so scanning it finds one.
        self.table.occupied().min()
    }

    /// Every occupied slot, in no particular order (linear: only for fallbacks).
    pub(crate) fn occupied(&self) -> impl Iterator<Item = Slot> + '_ {
        self.table.occupied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Block, Blocks, Cyl};
    use crate::storage::Inline;

    fn req(id: u64) -> Request {
        Request::new(
            RequestId(id),
            Kind::Write,
            Block(id * 8),
            Blocks(8),
            Cyl(id as u32),
            id,
        )
        .with_deadline(id + 5)
    }

    #[test]
    fn insert_find_remove_round_trip() {
        let mut slab = Slab::new(&Inline::<4>::new());
        let a = slab.insert(&req(10)).unwrap();
        let b = slab.insert(&req(11)).unwrap();
        assert_eq!(slab.find(RequestId(10)), Some(a));
        assert_eq!(
            slab.insert(&req(10)),
            Err(EnqueueError::DuplicateId(RequestId(10)))
        );
        assert_eq!(slab.remove(a), req(10));
        assert_eq!(slab.find(RequestId(10)), None);
        assert_eq!(slab.find(RequestId(11)), Some(b));
        slab.insert(&req(12)).unwrap();
        slab.insert(&req(13)).unwrap();
        slab.insert(&req(14)).unwrap();
        assert_eq!(
            slab.insert(&req(15)),
            Err(EnqueueError::QueueFull { capacity: 4 })
        );
        assert_eq!(slab.len(), 4);
    }

    #[test]
    fn table_survives_heavy_churn_with_colliding_ids() {
        let mut slab = Slab::new(&Inline::<64>::new());
        let mut live: [Option<Slot>; 256] = [None; 256];
        let mut x = 1u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let id = (x % 256) as usize;
            match live[id] {
                Some(s) => {
                    assert_eq!(slab.find(RequestId(id as u64 * 1024)), Some(s));
                    slab.remove(s);
                    live[id] = None;
                }
                None if slab.len() < 64 => {
                    live[id] = Some(slab.insert(&req(id as u64 * 1024)).unwrap());
                }
                None => assert_eq!(slab.find(RequestId(id as u64 * 1024)), None),
            }
        }
        for (id, s) in live.iter().enumerate() {
            assert_eq!(slab.find(RequestId(id as u64 * 1024)), *s);
        }
    }
}
