//! The minimum of a linear function of (cylinder, deadline) over the requests
//! above or below a cylinder, in O(log N): SSEDV's index.
//!
//! SSEDV serves the least α·dᵢ·u + (1 − α)·(Dᵢ − now) (distance dᵢ, deadline
//! Dᵢ, time unit u). For a request at or above the arm at cylinder h,
//! dᵢ = cᵢ − h, so its value is A·cᵢ + B·Dᵢ minus a term the same for every
//! such request (A = α·u, B = 1 − α, both scaled to integers); below the arm
//! it is −A·cᵢ + B·Dᵢ plus such a term. Neither key depends on the arm or the
//! clock, so they can be kept in order ahead of time: a tournament (segment)
//! tree over the cylinder index's buckets keeps, for every range of buckets,
//! the slot with the least upward key and the slot with the least downward
//! key. A query reads O(log N) nodes, and none at all when the overall
//! winner of one key lies on that key's side of the arm (then it is the
//! answer). An insertion climbs only while the new request beats a node's
//! winner (a level or two for random keys); a removal only through the nodes
//! the removed request won, comparing one sibling per level.
//!
//! Memory: four `Slot` arrays (leaves and inner nodes for each key), 8 bytes
//! a slot.

use super::cylinders::CylinderIndex;
use super::slab::{NIL, Slab, Slot};
use crate::request::Cylinder;
use crate::storage::{Inline, Slots, Storage};

#[derive(Clone)]
pub(crate) struct LinearMin<S: Storage> {
    /// `A` in the keys ±A·c + B·D.
    a: u64,
    /// `B` in the keys ±A·c + B·D.
    b: u64,
    /// Per bucket, the slot with the least upward key (`NIL` if empty).
    up_leaf: Slots<Slot, S>,
    /// Inner nodes 1..N of the upward tree; node `i` has children `2i` and
    /// `2i + 1`, where an index `≥ N` names leaf `index − N`.
    up_inner: Slots<Slot, S>,
    down_leaf: Slots<Slot, S>,
    down_inner: Slots<Slot, S>,
    /// Number of buckets (the capacity).
    n: usize,
}

/// Which of the two keys.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// +A·c + B·D: requests at or above the arm.
    Up,
    /// −A·c + B·D, stored as A·(2³² − 1 − c) + B·D to stay unsigned (the
    /// same order): requests at or below the arm.
    Down,
}

impl<S: Storage> LinearMin<S> {
    /// Keys `±a·c + b·D`. Each product is a single 64 × 64 → 128-bit
    /// multiplication, and every key fits in 97 bits.
    pub(crate) fn new(storage: &S, a: u64, b: u64) -> Self {
        LinearMin {
            n: storage.capacity(),
            a,
            b,
            up_leaf: Slots::new(storage, NIL),
            up_inner: Slots::new(storage, NIL),
            down_leaf: Slots::new(storage, NIL),
            down_inner: Slots::new(storage, NIL),
        }
    }
}

impl<const N: usize> LinearMin<Inline<N>> {
    /// [`LinearMin::new`] on inline storage, in const context.
    pub(crate) const fn inline(a: u64, b: u64) -> Self {
        LinearMin {
            n: N,
            a,
            b,
            up_leaf: Slots::inline(NIL),
            up_inner: Slots::inline(NIL),
            down_leaf: Slots::inline(NIL),
            down_inner: Slots::inline(NIL),
        }
    }
}

impl<S: Storage> LinearMin<S> {
    #[inline]
    fn key(&self, slab: &Slab<S>, side: Side, s: Slot) -> u128 {
        let c = match side {
            Side::Up => slab.cylinder(s),
            Side::Down => Cylinder::MAX - slab.cylinder(s),
        };
        self.a as u128 * c as u128 + self.b as u128 * slab.deadline(s) as u128
    }

    /// Whether `x` (key `kx`) beats `y` (key `ky`): smaller key, then
    /// earlier deadline, arrival, id.
    #[inline]
    fn beats(slab: &Slab<S>, x: Slot, kx: u128, y: Slot, ky: u128) -> bool {
        kx < ky || (kx == ky && slab.due_before(x, y))
    }

    /// The better of a keyed candidate (possibly `NIL`) and slot `y`.
    ///
    /// Written to compile to selects rather than branches: along a tree walk
    /// the outcome is a coin toss, and mispredictions would serialize the
    /// (independent) loads of the slots' cylinders and deadlines. `NIL` gets
    /// the largest key; only an exact tie of two real keys branches.
    #[inline(always)]
    fn better_keyed(&self, slab: &Slab<S>, side: Side, x: (Slot, u128), y: Slot) -> (Slot, u128) {
        let real = y != NIL;
        let ky = self.key(slab, side, if real { y } else { 0 });
        let ky = if real { ky } else { u128::MAX };
        if ky == x.1 && real && x.0 != NIL {
            return if slab.due_before(y, x.0) { (y, ky) } else { x };
        }
        let take = ky < x.1;
        (if take { y } else { x.0 }, if take { ky } else { x.1 })
    }

    #[inline]
    fn node(&self, side: Side, i: usize) -> Slot {
        match (side, i >= self.n) {
            (Side::Up, true) => self.up_leaf[i - self.n],
            (Side::Up, false) => self.up_inner[i],
            (Side::Down, true) => self.down_leaf[i - self.n],
            (Side::Down, false) => self.down_inner[i],
        }
    }

    #[inline]
    fn set(&mut self, side: Side, i: usize, s: Slot) {
        match (side, i >= self.n) {
            (Side::Up, true) => self.up_leaf[i - self.n] = s,
            (Side::Up, false) => self.up_inner[i] = s,
            (Side::Down, true) => self.down_leaf[i - self.n] = s,
            (Side::Down, false) => self.down_inner[i] = s,
        }
    }

    /// Accounts for `s`, just added to `index`: it replaces the winner of
    /// each node on its leaf's path for as long as it beats that winner. The
    /// new slot's key is computed once and carried up.
    #[inline]
    pub(crate) fn insert(&mut self, index: &CylinderIndex<S>, slab: &Slab<S>, s: Slot) {
        let b = index.bucket(slab.cylinder(s));
        for side in [Side::Up, Side::Down] {
            let ks = self.key(slab, side, s);
            let mut i = b + self.n;
            while i >= 1 {
                let w = self.node(side, i);
                if w != NIL && !Self::beats(slab, s, ks, w, self.key(slab, side, w)) {
                    break;
                }
                self.set(side, i, s);
                i /= 2;
            }
        }
    }

    /// Accounts for `s`, just taken out of `index` (its slab entry still
    /// intact). Only nodes that `s` won change: the leaf's new winner comes
    /// from a scan of its bucket, and each node above takes the better of the
    /// winner carried up and the sibling's winner, until a node that `s` did
    /// not win.
    #[inline]
    pub(crate) fn remove(&mut self, index: &CylinderIndex<S>, slab: &Slab<S>, s: Slot) {
        let b = index.bucket(slab.cylinder(s));
        for side in [Side::Up, Side::Down] {
            let mut i = b + self.n;
            if self.node(side, i) != s {
                continue; // s wins no node of this tree
            }
            let mut w = (NIL, u128::MAX);
            index.for_each_in_bucket(b, |t| w = self.better_keyed(slab, side, w, t));
            self.set(side, i, w.0);
            while i > 1 {
                let sibling = self.node(side, i ^ 1);
                i /= 2;
                if self.node(side, i) != s {
                    break;
                }
                w = self.better_keyed(slab, side, w, sibling);
                self.set(side, i, w.0);
            }
        }
    }

    /// The least slot by one key over buckets `lo..hi`, with its key.
    #[inline]
    fn range_min(&self, slab: &Slab<S>, side: Side, lo: usize, hi: usize) -> (Slot, u128) {
        let (mut l, mut r) = (lo + self.n, hi + self.n);
        let mut best = (NIL, u128::MAX);
        while l < r {
            if l & 1 == 1 {
                best = self.better_keyed(slab, side, best, self.node(side, l));
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                best = self.better_keyed(slab, side, best, self.node(side, r));
            }
            l /= 2;
            r /= 2;
        }
        best
    }

    /// The least slot by one key among the requests on that key's side of the
    /// arm (at or above `h` for up, at or below for down), for a power-of-two
    /// `N`, where node `v` at depth `d` covers a contiguous run of `N / 2^d`
    /// buckets.
    ///
    /// Walks from the root toward the arm's bucket `hb`. A node whose winner
    /// lies on the wanted side ends the walk: that winner beats the rest of
    /// the node. Otherwise the child away from the arm lies wholly on the
    /// wanted side (its winner is a candidate) or wholly on the other (it is
    /// skipped), and the walk goes on into the child holding `hb`. Returns the
    /// best candidate and whether the walk reached `hb`'s leaf, whose bucket
    /// the caller must then scan (it may straddle the arm).
    #[inline]
    fn descend(&self, slab: &Slab<S>, side: Side, h: Cylinder, hb: usize) -> ((Slot, u128), bool) {
        let mut best = (NIL, u128::MAX);
        let (mut v, mut lo, mut width) = (1, 0, self.n);
        loop {
            let w = self.node(side, v);
            if w == NIL {
                return (best, false);
            }
            let c = slab.cylinder(w);
            let wanted = match side {
                Side::Up => c >= h,
                Side::Down => c <= h,
            };
            if wanted {
                return (self.better_keyed(slab, side, best, w), false);
            }
            if v >= self.n {
                return (best, true);
            }
            width /= 2;
            let hb_right = hb >= lo + width;
            let away = match (side, hb_right) {
                (Side::Up, false) => Some(2 * v + 1),
                (Side::Down, true) => Some(2 * v),
                _ => None,
            };
            if let Some(a) = away {
                best = self.better_keyed(slab, side, best, self.node(side, a));
            }
            if hb_right {
                v = 2 * v + 1;
                lo += width;
            } else {
                v *= 2;
            }
        }
    }

    /// The request with the least value α·|c − h|·u + (1 − α)·D over all of
    /// `index` (ties: earlier deadline, arrival, id).
    #[inline]
    pub(crate) fn least(
        &self,
        index: &CylinderIndex<S>,
        slab: &Slab<S>,
        h: Cylinder,
    ) -> Option<Slot> {
        // Every request's value is at least its upward key minus A·h (and at
        // least its downward key plus A·h), with equality on its own side. So
        // the overall upward winner, if it lies at or above the arm, beats
        // everything: no range query is needed. Likewise downward.
        let (up_root, down_root) = if self.n > 1 {
            (self.up_inner[1], self.down_inner[1])
        } else {
            (self.up_leaf[0], self.down_leaf[0])
        };
        if up_root == NIL {
            return None;
        }
        if slab.cylinder(up_root) >= h {
            return Some(up_root);
        }
        if slab.cylinder(down_root) <= h {
            return Some(down_root);
        }
        let hb = index.bucket(h);
        let (mut up, mut down, scan) = if self.n.is_power_of_two() {
            let (up, up_leaf) = self.descend(slab, Side::Up, h, hb);
            let (down, down_leaf) = self.descend(slab, Side::Down, h, hb);
            (up, down, up_leaf || down_leaf)
        } else {
            // Node ranges are not contiguous: combine the canonical nodes of
            // the buckets wholly above and wholly below the arm's bucket.
            let up = self.range_min(slab, Side::Up, hb + 1, self.n);
            let down = self.range_min(slab, Side::Down, 0, hb);
            (up, down, true)
        };
        if scan {
            // The arm's own bucket may hold cylinders on both sides of it.
            index.for_each_in_bucket(hb, |t| {
                if slab.cylinder(t) >= h {
                    up = self.better_keyed(slab, Side::Up, up, t);
                }
                if slab.cylinder(t) <= h {
                    down = self.better_keyed(slab, Side::Down, down, t);
                }
            });
        }
        let (up, down) = (up.0, down.0);
        if up == NIL || down == NIL {
            let s = if up == NIL { down } else { up };
            return (s != NIL).then_some(s);
        }
        // Full values, up to the same additive constant for both.
        let value = |s: Slot| {
            self.a as u128 * slab.cylinder(s).abs_diff(h) as u128
                + self.b as u128 * slab.deadline(s) as u128
        };
        let (vu, vd) = (value(up), value(down));
        Some(if Self::beats(slab, up, vu, down, vd) {
            up
        } else {
            down
        })
    }
}
