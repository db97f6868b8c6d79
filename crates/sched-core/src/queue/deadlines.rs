//! Requests in earliest-deadline order: an indexed 4-ary min-heap over slots.
//!
//! Each heap entry packs the high 48 bits of the request's deadline key with
//! its 16-bit slot, so sifting compares entries that sit side by side in the
//! heap array instead of following every slot into the slab's deadline array
//! (at depth 4096 that indirection was a cache miss per child and most of
//! EDF's cost). Only when two entries agree on those 48 bits (deadlines within
//! 65.5 µs of each other) does a comparison consult the slab for the exact
//! order: deadline, then arrival, then id. Four children share a cache line
//! or two, which keeps the pop path short at depth 4096 (six levels).
//!
//! Memory: 8 bytes of entry plus a 2-byte position per slot.

use super::slab::{NIL, Slab, Slot};
use crate::storage::{Inline, Slots, Storage};

const ARITY: usize = 4;
/// The low bits of an entry that hold the slot.
const SLOT_BITS: u32 = 16;

/// A heap entry: the deadline key's high 48 bits above the slot.
#[inline(always)]
fn entry<S: Storage>(slab: &Slab<S>, s: Slot) -> u64 {
    (slab.deadline(s) & !((1 << SLOT_BITS) - 1)) | s as u64
}

#[inline(always)]
fn slot_of(e: u64) -> Slot {
    e as Slot
}

/// Whether entry `a` comes before entry `b` in EDF order.
#[inline(always)]
fn before<S: Storage>(slab: &Slab<S>, a: u64, b: u64) -> bool {
    let (ka, kb) = (a >> SLOT_BITS, b >> SLOT_BITS);
    if ka != kb {
        ka < kb
    } else {
        slab.due_before(slot_of(a), slot_of(b))
    }
}

#[derive(Clone)]
pub(crate) struct DeadlineHeap<S: Storage> {
    heap: Slots<u64, S>,
    /// Position of each slot in `heap`, `NIL` when the slot is not in the heap.
    pos: Slots<Slot, S>,
    len: usize,
}

impl<S: Storage> DeadlineHeap<S> {
    pub(crate) fn new(storage: &S) -> Self {
        DeadlineHeap {
            heap: Slots::new(storage, 0),
            pos: Slots::new(storage, NIL),
            len: 0,
        }
    }
}

impl<const N: usize> DeadlineHeap<Inline<N>> {
    /// [`DeadlineHeap::new`] on inline storage, in const context.
    pub(crate) const fn inline() -> Self {
        DeadlineHeap {
            heap: Slots::inline(0),
            pos: Slots::inline(NIL),
            len: 0,
        }
    }
}

impl<S: Storage> DeadlineHeap<S> {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn contains(&self, s: Slot) -> bool {
        self.pos[s as usize] != NIL
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<Slot> {
        (self.len > 0).then(|| slot_of(self.heap[0]))
    }

    #[inline]
    fn place(&mut self, i: usize, e: u64) {
        self.heap[i] = e;
        self.pos[slot_of(e) as usize] = i as Slot;
    }

    #[inline]
    pub(crate) fn push(&mut self, slab: &Slab<S>, s: Slot) {
        let i = self.len;
        self.len += 1;
        self.sift_up(slab, i, entry(slab, s));
    }

    #[cfg(test)]
    pub(crate) fn pop(&mut self, slab: &Slab<S>) -> Option<Slot> {
        let top = self.peek()?;
        self.remove(slab, top);
        Some(top)
    }

    /// Removes `s` if it is in the heap.
    #[inline]
    pub(crate) fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        let i = self.pos[s as usize];
        if i == NIL {
            return;
        }
        let i = i as usize;
        self.pos[s as usize] = NIL;
        self.len -= 1;
        if i == self.len {
            return;
        }
        let last = self.heap[self.len];
        if i == 0 {
            // Popping the root (EDF's every dispatch): Floyd's bottom-up
            // deletion. The hole sinks to a leaf along the best children, with
            // no comparison against `last` on the way (a former leaf, it almost
            // always belongs near the bottom), then `last` climbs from there.
            let hole = self.sink_hole(slab, 0);
            self.sift_up(slab, hole, last);
        } else if before(slab, last, self.heap[(i - 1) / ARITY]) {
            self.sift_up(slab, i, last);
        } else {
            self.sift_down(slab, i, last);
        }
    }

    /// Moves the best child into the hole at `i` level by level until the hole
    /// reaches a leaf; returns the leaf position.
    #[inline]
    fn sink_hole(&mut self, slab: &Slab<S>, mut i: usize) -> usize {
        let len = self.len;
        loop {
            let first = ARITY * i + 1;
            if first >= len {
                return i;
            }
            let end = (first + ARITY).min(len);
            let (best, b) = self.best_child(slab, first, end);
            self.place(i, b);
            i = best;
        }
    }

    #[inline]
    fn sift_up(&mut self, slab: &Slab<S>, mut i: usize, e: u64) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.heap[parent];
            if !before(slab, e, p) {
                break;
            }
            self.place(i, p);
            i = parent;
        }
        self.place(i, e);
    }

    /// The best of the children at `first..end` and its position.
    #[inline(always)]
    fn best_child(&self, slab: &Slab<S>, first: usize, end: usize) -> (usize, u64) {
        if end - first == ARITY {
            // A full family: the least packed entry, found with selects rather
            // than branches (random deadlines make every branch a coin toss).
            // Packed order is (high 48 bits, slot), so that entry has the least
            // high part; if no sibling shares it, it is the exact winner.
            let [a, b, c, d] = [
                self.heap[first],
                self.heap[first + 1],
                self.heap[first + 2],
                self.heap[first + 3],
            ];
            let (i01, m01) = if b < a { (1, b) } else { (0, a) };
            let (i23, m23) = if d < c { (3, d) } else { (2, c) };
            let (i, m) = if m23 < m01 { (i23, m23) } else { (i01, m01) };
            let hi = m >> SLOT_BITS;
            let sharing = [a, b, c, d]
                .iter()
                .filter(|&&x| x >> SLOT_BITS == hi)
                .count();
            if sharing == 1 {
                return (first + i, m);
            }
        }
        let mut best = first;
        let mut b = self.heap[first];
        for c in first + 1..end {
            let x = self.heap[c];
            if before(slab, x, b) {
                best = c;
                b = x;
            }
        }
        (best, b)
    }

    #[inline]
    fn sift_down(&mut self, slab: &Slab<S>, mut i: usize, e: u64) {
        let len = self.len;
        loop {
            let first = ARITY * i + 1;
            if first >= len {
                break;
            }
            let end = (first + ARITY).min(len);
            let (best, b) = self.best_child(slab, first, end);
            if !before(slab, b, e) {
                break;
            }
            self.place(i, b);
            i = best;
        }
        self.place(i, e);
    }
}

/// Visits the first few heap entries in deadline order: a small unsorted
/// frontier of heap positions, whose least entry is found by a branch-free
/// scan of packed keys. For the handful of entries SSEDO's usual windows ask
/// for this beats [`InOrder`]'s frontier heap, whose every comparison is an
/// unpredictable branch; its cost grows with the square of the count, so it
/// serves at most `(F − 1) / 3` entries (the frontier grows by three a step).
#[derive(Clone)]
pub(crate) struct FirstFew<const F: usize> {
    /// Heap positions not yet visited whose parents have been.
    frontier: [u16; F],
    len: usize,
}

impl<const F: usize> FirstFew<F> {
    pub(crate) fn new<S: Storage>(heap: &DeadlineHeap<S>) -> Self {
        FirstFew {
            frontier: [0; F],
            len: usize::from(heap.len > 0),
        }
    }

    /// The next entry in deadline order, `None` when the heap is exhausted or
    /// the frontier is full.
    #[inline]
    pub(crate) fn next<S: Storage>(
        &mut self,
        heap: &DeadlineHeap<S>,
        slab: &Slab<S>,
    ) -> Option<Slot> {
        if self.len == 0 {
            return None;
        }
        let live = &self.frontier[..self.len];
        // Least packed entry by selects; exact unless another entry shares its
        // high bits, which a second, exact pass settles.
        let mut at = 0;
        let mut least = heap.heap[live[0] as usize];
        for (k, &p) in live.iter().enumerate().skip(1) {
            let e = heap.heap[p as usize];
            let take = e < least;
            at = if take { k } else { at };
            least = if take { e } else { least };
        }
        let hi = least >> SLOT_BITS;
        if live
            .iter()
            .filter(|&&p| heap.heap[p as usize] >> SLOT_BITS == hi)
            .count()
            > 1
        {
            for (k, &p) in live.iter().enumerate() {
                let e = heap.heap[p as usize];
                if before(slab, e, least) {
                    at = k;
                    least = e;
                }
            }
        }
        let top = self.frontier[at] as usize;
        self.len -= 1;
        self.frontier[at] = self.frontier[self.len];
        let first_child = ARITY * top + 1;
        let end = (first_child + ARITY).min(heap.len);
        if first_child < end {
            if self.len + (end - first_child) > F {
                return None;
            }
            for c in first_child..end {
                self.frontier[self.len] = c as u16;
                self.len += 1;
            }
        }
        Some(slot_of(least))
    }
}

/// What an in-order walk of the heap yields next.
pub(crate) enum Step {
    /// The next slot in deadline order.
    Item(Slot),
    /// Every slot has been visited.
    Done,
    /// The walk's fixed frontier is full; the caller must fall back to a scan.
    Overflow,
}

/// Visits heap entries in deadline order without modifying the heap: a
/// best-first search from the root whose frontier (at most `F` heap positions)
/// grows by at most three entries per step.
#[derive(Clone)]
pub(crate) struct InOrder<const F: usize> {
    frontier: [Slot; F],
    len: usize,
}

impl<const F: usize> InOrder<F> {
    pub(crate) fn new<S: Storage>(heap: &DeadlineHeap<S>) -> Self {
        let mut walk = InOrder {
            frontier: [0; F],
            len: 0,
        };
        if heap.len > 0 {
            walk.frontier[0] = 0;
            walk.len = 1;
        }
        walk
    }

    #[inline]
    fn before<S: Storage>(heap: &DeadlineHeap<S>, slab: &Slab<S>, a: Slot, b: Slot) -> bool {
        before(slab, heap.heap[a as usize], heap.heap[b as usize])
    }

    pub(crate) fn next<S: Storage>(&mut self, heap: &DeadlineHeap<S>, slab: &Slab<S>) -> Step {
        if self.len == 0 {
            return Step::Done;
        }
        // Pop the best heap position from the frontier (a small binary heap).
        let top = self.frontier[0];
        self.len -= 1;
        if self.len > 0 {
            let last = self.frontier[self.len];
            let mut i = 0;
            loop {
                let l = 2 * i + 1;
                if l >= self.len {
                    break;
                }
                let r = l + 1;
                let c = if r < self.len
                    && Self::before(heap, slab, self.frontier[r], self.frontier[l])
                {
                    r
                } else {
                    l
                };
                if !Self::before(heap, slab, self.frontier[c], last) {
                    break;
                }
                self.frontier[i] = self.frontier[c];
                i = c;
            }
            self.frontier[i] = last;
        }
        let first_child = ARITY * top as usize + 1;
        let end = (first_child + ARITY).min(heap.len);
        if first_child < end {
            if self.len + (end - first_child) > F {
                return Step::Overflow;
            }
            for c in first_child..end {
                let mut i = self.len;
                self.len += 1;
                while i > 0 {
                    let p = (i - 1) / 2;
                    if !Self::before(heap, slab, c as Slot, self.frontier[p]) {
                        break;
                    }
                    self.frontier[i] = self.frontier[p];
                    i = p;
                }
                self.frontier[i] = c as Slot;
            }
        }
        Step::Item(slot_of(heap.heap[top as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Block, Blocks, Cyl, Kind, Request, RequestId};

    #[test]
    fn pops_in_deadline_order_and_removes_anywhere() {
        let storage = crate::storage::Inline::<256>::new();
        let mut slab = Slab::new(&storage);
        let mut heap = DeadlineHeap::new(&storage);
        let mut x = 7u64;
        let mut slots = [NIL; 256];
        for (i, slot) in slots.iter_mut().enumerate() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let r = Request::new(
                RequestId(i as u64),
                Kind::Read,
                Block(0),
                Blocks(1),
                Cyl(0),
                (x >> 40) % 5,
            )
            .with_deadline(x % 50);
            *slot = slab.insert(&r).unwrap();
            heap.push(&slab, *slot);
        }
        for s in slots.iter().step_by(3) {
            heap.remove(&slab, *s);
        }
        // The in-order walk sees exactly the pop order.
        let mut walk = InOrder::<1024>::new(&heap);
        let mut walked = [NIL; 256];
        let mut n = 0;
        while let Step::Item(s) = walk.next(&heap, &slab) {
            walked[n] = s;
            n += 1;
        }
        assert_eq!(n, heap.len());
        let mut prev = None;
        for w in walked.iter().take(n) {
            let s = heap.pop(&slab).unwrap();
            assert_eq!(s, *w);
            if let Some(p) = prev {
                assert!(slab.due_before(p, s));
            }
            prev = Some(s);
        }
        assert!(heap.pop(&slab).is_none());
    }
}
