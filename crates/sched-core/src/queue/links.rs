//! Intrusive circular doubly linked lists threaded through storage slots.

use super::slab::{NIL, Slot};
use crate::storage::{Inline, Slots, Storage};

/// `next`/`prev` links for every slot. A slot belongs to at most one list of a
/// given `Links`; a list is named by its first slot (`NIL` when empty) and its
/// last slot is `prev[first]`.
#[derive(Clone)]
pub(crate) struct Links<S: Storage> {
    next: Slots<Slot, S>,
    prev: Slots<Slot, S>,
}

impl<S: Storage> Links<S> {
    pub(crate) fn new(storage: &S) -> Self {
        Links {
            next: Slots::new(storage, NIL),
            prev: Slots::new(storage, NIL),
        }
    }
}

impl<const N: usize> Links<Inline<N>> {
    /// [`Links::new`] on inline storage, in const context.
    pub(crate) const fn inline() -> Self {
        Links {
            next: Slots::inline(NIL),
            prev: Slots::inline(NIL),
        }
    }
}

impl<S: Storage> Links<S> {
    #[inline]
    pub(crate) fn next(&self, s: Slot) -> Slot {
        self.next[s as usize]
    }

    #[inline]
    pub(crate) fn prev(&self, s: Slot) -> Slot {
        self.prev[s as usize]
    }

    /// Appends `s` to the list starting at `*first`.
    #[inline]
    pub(crate) fn push_back(&mut self, first: &mut Slot, s: Slot) {
        if *first == NIL {
            self.next[s as usize] = s;
            self.prev[s as usize] = s;
            *first = s;
        } else {
            self.insert_before(*first, s);
        }
    }

    /// Links `s` just before `at` (which is in a list).
    #[inline]
    pub(crate) fn insert_before(&mut self, at: Slot, s: Slot) {
        let p = self.prev[at as usize];
        self.next[p as usize] = s;
        self.prev[s as usize] = p;
        self.next[s as usize] = at;
        self.prev[at as usize] = s;
    }

    /// Adds `s` to the list starting at `*first` in (arrival, id) order:
    /// see [`Fifo::insert_by_arrival`].
    #[inline]
    pub(crate) fn insert_by_arrival(
        &mut self,
        first: &mut Slot,
        s: Slot,
        arrives_before: impl Fn(Slot, Slot) -> bool,
    ) {
        if *first == NIL {
            self.push_back(first, s);
            return;
        }
        let mut at = self.prev(*first);
        loop {
            if arrives_before(at, s) {
                let after = self.next(at);
                self.insert_before(after, s);
                return;
            }
            if at == *first {
                self.insert_before(at, s);
                *first = s;
                return;
            }
            at = self.prev(at);
        }
    }

    /// Unlinks `s` from the list starting at `*first`.
    #[inline]
    pub(crate) fn unlink(&mut self, first: &mut Slot, s: Slot) {
        let n = self.next[s as usize];
        if n == s {
            *first = NIL;
            return;
        }
        let p = self.prev[s as usize];
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
        if *first == s {
            *first = n;
        }
    }
}

/// A FIFO of slots: one list with its own first slot.
#[derive(Clone)]
pub(crate) struct Fifo<S: Storage> {
    links: Links<S>,
    first: Slot,
}

impl<S: Storage> Fifo<S> {
    pub(crate) fn new(storage: &S) -> Self {
        Fifo {
            links: Links::new(storage),
            first: NIL,
        }
    }
}

impl<const N: usize> Fifo<Inline<N>> {
    /// [`Fifo::new`] on inline storage, in const context.
    pub(crate) const fn inline() -> Self {
        Fifo {
            links: Links::inline(),
            first: NIL,
        }
    }
}

impl<S: Storage> Fifo<S> {
    #[inline]
    pub(crate) fn push_back(&mut self, s: Slot) {
        self.links.push_back(&mut self.first, s);
    }

    /// Adds `s` in (arrival, id) order, after every request that arrives
    /// before it (`arrives_before(a, b)`: `a` arrived first, or at the same
    /// time with a lower id). Drivers enqueue in time order, so the walk back
    /// from the last request stops at once; only a request enqueued with an
    /// older arrival time than some queued one walks further.
    #[inline]
    pub(crate) fn insert_by_arrival(
        &mut self,
        s: Slot,
        arrives_before: impl Fn(Slot, Slot) -> bool,
    ) {
        self.links
            .insert_by_arrival(&mut self.first, s, arrives_before);
    }

    /// The slot after `s` in the (circular) list.
    #[inline]
    pub(crate) fn next(&self, s: Slot) -> Slot {
        self.links.next(s)
    }

    #[inline]
    pub(crate) fn front(&self) -> Option<Slot> {
        (self.first != NIL).then_some(self.first)
    }

    #[inline]
    pub(crate) fn remove(&mut self, s: Slot) {
        self.links.unlink(&mut self.first, s);
    }
}
