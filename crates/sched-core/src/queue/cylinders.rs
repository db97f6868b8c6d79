//! Requests ordered by cylinder, with constant-time nearest-cylinder queries.
//!
//! The cylinder range `0..cylinders` is cut into `N` equal buckets (one per
//! slot). Each bucket holds a list sorted by cylinder, requests on the same
//! cylinder in arrival order (then id); a three-level bitmap finds the next non-empty
//! bucket in either direction. With at least as many buckets as cylinders
//! (an HP 97560 has 1962; a 4096-deep queue has 4096 buckets) every bucket
//! holds one cylinder and each operation is a handful of word operations;
//! otherwise a bucket spans `⌈cylinders / N⌉` cylinders and the cost grows
//! with the number of requests sharing one bucket.

use super::bitmap::Bitmap;
use super::links::Links;
use super::slab::{NIL, Slab, Slot};
use crate::error::{BuildError, EnqueueError, check_cylinders};
use crate::request::{Cylinder, Request};
use crate::storage::{Inline, Slots, Storage};

#[derive(Clone)]
pub(crate) struct CylinderIndex<S: Storage> {
    links: Links<S>,
    firsts: Slots<Slot, S>,
    occupied: Bitmap<S>,
    cylinders: u32,
    /// `bucket(c) = (c · scale) >> 32`, monotone and `< N` for `c < cylinders`.
    scale: u64,
}

impl<S: Storage> CylinderIndex<S> {
    pub(crate) fn new(storage: &S, cylinders: u32) -> Result<Self, BuildError> {
        check_cylinders(cylinders)?;
        Ok(CylinderIndex {
            links: Links::new(storage),
            firsts: Slots::new(storage, NIL),
            occupied: Bitmap::new(storage),
            cylinders,
            scale: ((storage.capacity() as u64) << 32) / cylinders as u64,
        })
    }
}

impl<const N: usize> CylinderIndex<Inline<N>> {
    /// [`CylinderIndex::new`] on inline storage, in const context, for the
    /// policies' `new_inline`.
    ///
    /// # Panics
    /// When `cylinders` is 0, the [`BuildError`] of [`CylinderIndex::new`]:
    /// in a `static` or `const` initializer, a compile error.
    pub(crate) const fn inline(cylinders: u32) -> Self {
        assert!(
            check_cylinders(cylinders).is_ok(),
            "a disk has at least one cylinder"
        );
        CylinderIndex {
            links: Links::inline(),
            firsts: Slots::inline(NIL),
            occupied: Bitmap::inline(),
            cylinders,
            scale: ((N as u64) << 32) / cylinders as u64,
        }
    }
}

impl<S: Storage> CylinderIndex<S> {
    pub(crate) fn cylinders(&self) -> u32 {
        self.cylinders
    }

    /// Rejects a request beyond the disk before anything is stored.
    #[inline]
    pub(crate) fn check(&self, req: &Request) -> Result<(), EnqueueError> {
        if req.cylinder < self.cylinders {
            Ok(())
        } else {
            Err(EnqueueError::CylinderOutOfRange {
                id: req.id,
                cylinder: req.cylinder,
                cylinders: self.cylinders,
            })
        }
    }

    /// The bucket holding cylinder `c` (cylinders beyond the disk map to the last).
    #[inline]
    pub(crate) fn bucket(&self, c: Cylinder) -> usize {
        let c = c.min(self.cylinders - 1);
        ((c as u128 * self.scale as u128) >> 32) as usize
    }

    #[inline]
    pub(crate) fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        let b = self.bucket(slab.cylinder(s));
        let first = self.firsts[b];
        if first == NIL {
            self.links.push_back(&mut self.firsts[b], s);
            self.occupied.set(b);
            return;
        }
        // Walk back from the last entry to the first one that sorts before the
        // new request in (cylinder, arrival, id) order. Requests usually arrive
        // in time order, so on a shared cylinder the walk stops at once; a
        // request enqueued with an older arrival time still lands in its place,
        // which keeps ties on one cylinder in arrival order as documented.
        let mut at = self.links.prev(first);
        loop {
            if slab.sits_before(at, s) {
                let after = self.links.next(at);
                self.links.insert_before(after, s);
                return;
            }
            if at == first {
                self.links.insert_before(first, s);
                self.firsts[b] = s;
                return;
            }
            at = self.links.prev(at);
        }
    }

    #[inline]
    pub(crate) fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        let b = self.bucket(slab.cylinder(s));
        self.links.unlink(&mut self.firsts[b], s);
        if self.firsts[b] == NIL {
            self.occupied.clear(b);
        }
    }

    /// The earliest request on the lowest cylinder `>= c`.
    #[inline(always)]
    pub(crate) fn at_or_above(&self, slab: &Slab<S>, c: Cylinder) -> Option<Slot> {
        let b = self.bucket(c);
        let first = self.firsts[b];
        if first != NIL {
            let mut at = first;
            loop {
                if slab.cylinder(at) >= c {
                    return Some(at);
                }
                at = self.links.next(at);
                if at == first {
                    break;
                }
            }
        }
        let b = self.occupied.next_at_or_after(b + 1)?;
        Some(self.firsts[b])
    }

    /// The earliest request on the highest cylinder `<= c`.
    #[inline(always)]
    pub(crate) fn at_or_below(&self, slab: &Slab<S>, c: Cylinder) -> Option<Slot> {
        let b = self.bucket(c);
        if let Some(s) = self.last_at_or_below_in(slab, b, c) {
            return Some(s);
        }
        let b = self.occupied.prev_at_or_before(b.checked_sub(1)?)?;
        self.last_at_or_below_in(slab, b, Cylinder::MAX)
    }

    /// In bucket `b`, the earliest request on the highest cylinder `<= c`.
    #[inline]
    fn last_at_or_below_in(&self, slab: &Slab<S>, b: usize, c: Cylinder) -> Option<Slot> {
        let first = self.firsts[b];
        if first == NIL {
            return None;
        }
        let mut at = self.links.prev(first);
        loop {
            let cyl = slab.cylinder(at);
            if cyl <= c {
                // Step back over later arrivals on the same cylinder.
                while at != first && slab.cylinder(self.links.prev(at)) == cyl {
                    at = self.links.prev(at);
                }
                return Some(at);
            }
            if at == first {
                return None;
            }
            at = self.links.prev(at);
        }
    }

    /// Calls `f` on every request in bucket `b`, in (cylinder, arrival) order.
    #[inline]
    pub(crate) fn for_each_in_bucket(&self, b: usize, mut f: impl FnMut(Slot)) {
        let first = self.firsts[b];
        if first == NIL {
            return;
        }
        let mut at = first;
        loop {
            f(at);
            at = self.links.next(at);
            if at == first {
                return;
            }
        }
    }

    /// Appends `s`, which must not be in the index, to a side list named by
    /// `*first`. A slot outside the index has idle links; lending them out lets
    /// FD-SCAN keep its expired requests in order without a list of its own
    /// (4 bytes a slot saved).
    #[inline]
    pub(crate) fn side_push_back(&mut self, first: &mut Slot, s: Slot) {
        self.links.push_back(first, s);
    }

    /// Unlinks `s` from the side list named by `*first`.
    #[inline]
    pub(crate) fn side_remove(&mut self, first: &mut Slot, s: Slot) {
        self.links.unlink(first, s);
    }

    /// The earliest request on the lowest occupied cylinder.
    #[inline]
    pub(crate) fn lowest(&self) -> Option<Slot> {
        let b = self.occupied.next_at_or_after(0)?;
        Some(self.firsts[b])
    }

    /// The request after `s` in (cylinder, arrival) order.
    #[inline]
    pub(crate) fn successor(&self, slab: &Slab<S>, s: Slot) -> Option<Slot> {
        let n = self.links.next(s);
        let b = self.bucket(slab.cylinder(s));
        if n != self.firsts[b] {
            return Some(n);
        }
        let b = self.occupied.next_at_or_after(b + 1)?;
        Some(self.firsts[b])
    }
}

/// Walks requests outward from a cylinder, nearest first: the candidate order of
/// SSTF, and the enumeration SPTF's window and SSEDV's search draw from.
///
/// The order is total: distance from the start cylinder, then earlier arrival,
/// then lower id, whichever side of the start the requests lie on. Each side
/// keeps a cursor on the earliest unvisited request of its nearest unvisited
/// cylinder: the upward cursor simply follows the list, the downward one walks
/// a cylinder's requests forward and then jumps to the earliest request of the
/// next cylinder down.
#[derive(Clone)]
pub(crate) struct Outward {
    up: Option<Slot>,
    down: Option<Slot>,
    from: Cylinder,
}

impl Outward {
    pub(crate) fn new<S: Storage>(
        index: &CylinderIndex<S>,
        slab: &Slab<S>,
        from: Cylinder,
    ) -> Self {
        let up = index.at_or_above(slab, from);
        let down = match from.checked_sub(1) {
            Some(c) => index.at_or_below(slab, c),
            None => None,
        };
        Outward { up, down, from }
    }

    /// The next request outward and its distance from the start cylinder.
    #[inline]
    pub(crate) fn next<S: Storage>(
        &mut self,
        index: &CylinderIndex<S>,
        slab: &Slab<S>,
    ) -> Option<(Slot, u32)> {
        let take_up = match (self.up, self.down) {
            (Some(u), Some(d)) => {
                let du = slab.cylinder(u) - self.from;
                let dd = self.from - slab.cylinder(d);
                du < dd || (du == dd && slab.arrives_before(u, d))
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return None,
        };
        if take_up {
            let s = self.up?;
            self.up = index.successor(slab, s);
            Some((s, slab.cylinder(s) - self.from))
        } else {
            let s = self.down?;
            let c = slab.cylinder(s);
            self.down = match index.successor(slab, s) {
                Some(n) if slab.cylinder(n) == c => Some(n),
                _ => match c.checked_sub(1) {
                    Some(below) => index.at_or_below(slab, below),
                    None => None,
                },
            };
            Some((s, self.from - c))
        }
    }
}
