//! Requests in earliest-deadline order: an indexed 4-ary min-heap over slots.
//!
//! Keys are read from the slab's dense deadline array (ties: arrival, then id),
//! so the heap itself is two 16-bit arrays. Four children share a cache line of
//! the heap array, which keeps the pop path short at depth 4096 (six levels).

use super::slab::{NIL, Slab, Slot};

const ARITY: usize = 4;

pub(crate) struct DeadlineHeap<const N: usize> {
    heap: [Slot; N],
    /// Position of each slot in `heap`, `NIL` when the slot is not in the heap.
    pos: [Slot; N],
    len: usize,
}

impl<const N: usize> DeadlineHeap<N> {
    pub(crate) const fn new() -> Self {
        DeadlineHeap {
            heap: [NIL; N],
            pos: [NIL; N],
            len: 0,
        }
    }

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
        (self.len > 0).then(|| self.heap[0])
    }

    /// The second entry in deadline order: the best child of the root.
    #[inline]
    pub(crate) fn peek_second<const M: usize>(&self, slab: &Slab<M>) -> Option<Slot> {
        let end = (ARITY + 1).min(self.len);
        (1..end)
            .map(|i| self.heap[i])
            .reduce(|a, b| if slab.due_before(b, a) { b } else { a })
    }

    #[inline]
    fn place(&mut self, i: usize, s: Slot) {
        self.heap[i] = s;
        self.pos[s as usize] = i as Slot;
    }

    #[inline]
    pub(crate) fn push<const M: usize>(&mut self, slab: &Slab<M>, s: Slot) {
        let i = self.len;
        self.len += 1;
        self.sift_up(slab, i, s);
    }

    #[cfg(test)]
    pub(crate) fn pop<const M: usize>(&mut self, slab: &Slab<M>) -> Option<Slot> {
        let top = self.peek()?;
        self.remove(slab, top);
        Some(top)
    }

    /// Removes `s` if it is in the heap.
    #[inline]
    pub(crate) fn remove<const M: usize>(&mut self, slab: &Slab<M>, s: Slot) {
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
        if i > 0 && slab.due_before(last, self.heap[(i - 1) / ARITY]) {
            self.sift_up(slab, i, last);
        } else {
            self.sift_down(slab, i, last);
        }
    }

    #[inline]
    fn sift_up<const M: usize>(&mut self, slab: &Slab<M>, mut i: usize, s: Slot) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.heap[parent];
            if !slab.due_before(s, p) {
                break;
            }
            self.place(i, p);
            i = parent;
        }
        self.place(i, s);
    }

    #[inline]
    fn sift_down<const M: usize>(&mut self, slab: &Slab<M>, mut i: usize, s: Slot) {
        loop {
            let first = ARITY * i + 1;
            if first >= self.len {
                break;
            }
            let end = (first + ARITY).min(self.len);
            let mut best = first;
            for c in first + 1..end {
                if slab.due_before(self.heap[c], self.heap[best]) {
                    best = c;
                }
            }
            let b = self.heap[best];
            if !slab.due_before(b, s) {
                break;
            }
            self.place(i, b);
            i = best;
        }
        self.place(i, s);
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
pub(crate) struct InOrder<const F: usize> {
    frontier: [Slot; F],
    len: usize,
}

impl<const F: usize> InOrder<F> {
    pub(crate) fn new<const N: usize>(heap: &DeadlineHeap<N>) -> Self {
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
    fn before<const N: usize, const M: usize>(
        heap: &DeadlineHeap<N>,
        slab: &Slab<M>,
        a: Slot,
        b: Slot,
    ) -> bool {
        slab.due_before(heap.heap[a as usize], heap.heap[b as usize])
    }

    pub(crate) fn next<const N: usize, const M: usize>(
        &mut self,
        heap: &DeadlineHeap<N>,
        slab: &Slab<M>,
    ) -> Step {
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
                let c = if r < self.len && Self::before(heap, slab, self.frontier[r], self.frontier[l]) {
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
        Step::Item(heap.heap[top as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{Kind, Request, RequestId};

    #[test]
    fn pops_in_deadline_order_and_removes_anywhere() {
        let mut slab = Slab::<256>::new().unwrap();
        let mut heap = DeadlineHeap::<256>::new();
        let mut x = 7u64;
        let mut slots = [NIL; 256];
        for (i, slot) in slots.iter_mut().enumerate() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let r = Request::new(RequestId(i as u64), Kind::Read, 0, 1, 0, (x >> 40) % 5)
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
