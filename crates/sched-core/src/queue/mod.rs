//! What a queue is built from: the slab that stores requests and the indexes
//! that order them, all in fixed-capacity storage.
//!
//! A policy is a [`Queue`] — the request slab plus one [`Index`] ordering the
//! slots the way the policy needs — and a `next` rule. Every per-slot array
//! comes from the caller's [`Storage`]: inline or on the heap, never chosen here.
//!
//! Memory per slot (the budget is 64 bytes; `tests/parameters.rs` checks it):
//!
//! | structure | bytes | what |
//! |---|---|---|
//! | [`Slab`] | 47 | the request fields (43, no padding) and the id table (4); the free list reuses the length field |
//! | [`Fifo`] | 4 | list links |
//! | [`CylinderIndex`] | 7 | list links (4), bucket heads (2), bitmap (1, of which 7/8 idle: stable Rust cannot size an array by N/8) |
//! | [`DeadlineHeap`] | 10 | packed (deadline, slot) entry (8), position (2) |
//! | [`LinearMin`] | 8 | two tournament trees of slots |
//!
//! So FCFS takes 51 bytes, the cylinder-ordered policies 54, EDF and SSEDO
//! 57, SSEDV 62, SCAN-EDF and FD-SCAN 64 (FD-SCAN's expired list borrows the
//! cylinder links of the slots it holds).

mod bitmap;
mod cylinders;
mod deadlines;
mod ids;
mod linear_min;
mod links;
mod slab;

pub(crate) use cylinders::{CylinderIndex, Outward};
pub(crate) use deadlines::{DeadlineHeap, FirstFew, InOrder, Step};
pub(crate) use ids::IdIndex;
pub(crate) use linear_min::LinearMin;
pub(crate) use links::{Fifo, Links};
pub(crate) use slab::{NIL, Slab, Slot};

use crate::error::{CancelError, EnqueueError};
use crate::request::{Request, RequestId};
use crate::storage::{Inline, Storage};

/// An ordering of the queued slots, kept in step with the slab by [`Queue`].
pub(crate) trait Index<S: Storage> {
    /// Refuses a request the index cannot hold, before it is stored.
    fn check(&self, _req: &Request) -> Result<(), EnqueueError> {
        Ok(())
    }
    /// Adds a freshly stored slot.
    fn insert(&mut self, slab: &Slab<S>, s: Slot);
    /// Removes a slot that is about to be freed, wherever the index keeps it.
    fn remove(&mut self, slab: &Slab<S>, s: Slot);
}

/// FCFS order: arrival time, then id (see [`Fifo::insert_by_arrival`]).
impl<S: Storage> Index<S> for Fifo<S> {
    fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        self.insert_by_arrival(s, |a, b| slab.arrives_before(a, b));
    }
    fn remove(&mut self, _slab: &Slab<S>, s: Slot) {
        Fifo::remove(self, s);
    }
}

impl<S: Storage> Index<S> for CylinderIndex<S> {
    fn check(&self, req: &Request) -> Result<(), EnqueueError> {
        CylinderIndex::check(self, req)
    }
    fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        CylinderIndex::insert(self, slab, s);
    }
    fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        CylinderIndex::remove(self, slab, s);
    }
}

impl<S: Storage> Index<S> for DeadlineHeap<S> {
    fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        self.push(slab, s);
    }
    fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        DeadlineHeap::remove(self, slab, s);
    }
}

/// Cylinder order with the SSEDV minimum over it.
impl<S: Storage> Index<S> for (CylinderIndex<S>, LinearMin<S>) {
    fn check(&self, req: &Request) -> Result<(), EnqueueError> {
        self.0.check(req)
    }
    fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        self.0.insert(slab, s);
        self.1.insert(&self.0, slab, s);
    }
    fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        self.0.remove(slab, s);
        self.1.remove(&self.0, slab, s);
    }
}

/// The slab and one index over it: the storage half of every policy.
#[derive(Clone)]
pub(crate) struct Queue<S: Storage, X> {
    pub(crate) slab: Slab<S>,
    pub(crate) index: X,
}

impl<S: Storage, X: Index<S>> Queue<S, X> {
    pub(crate) fn new(storage: &S, index: X) -> Self {
        Queue {
            slab: Slab::new(storage),
            index,
        }
    }

    #[inline]
    pub(crate) fn enqueue(&mut self, req: &Request) -> Result<Slot, EnqueueError> {
        self.index.check(req)?;
        let s = self.slab.insert(req)?;
        self.index.insert(&self.slab, s);
        Ok(s)
    }

    /// Takes a slot out of the index and the slab.
    #[inline]
    pub(crate) fn take(&mut self, s: Slot) -> Request {
        self.index.remove(&self.slab, s);
        self.slab.remove(s)
    }

    pub(crate) fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.slab.find(id).ok_or(CancelError::UnknownId(id))?;
        Ok(self.take(s))
    }

    pub(crate) fn pop_any(&mut self) -> Option<Request> {
        let s = self.slab.any_occupied()?;
        Some(self.take(s))
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.slab.len()
    }

    pub(crate) fn contains(&self, id: RequestId) -> bool {
        self.slab.find(id).is_some()
    }
}

impl<const N: usize, X> Queue<Inline<N>, X> {
    /// [`Queue::new`] on inline storage, in const context; the slab checks
    /// the capacity `N` at compile time.
    pub(crate) const fn inline(index: X) -> Self {
        Queue {
            slab: Slab::inline(),
            index,
        }
    }
}

/// The [`Scheduler`](crate::Scheduler) methods every policy delegates to its
/// `queue: Queue<S, _>` field unchanged.
macro_rules! delegate_to_queue {
    () => {
        fn enqueue(&mut self, req: $crate::Request) -> Result<(), $crate::EnqueueError> {
            self.queue.enqueue(&req).map(|_| ())
        }
        fn cancel(
            &mut self,
            id: $crate::RequestId,
        ) -> Result<$crate::Request, $crate::CancelError> {
            self.queue.cancel(id)
        }
        fn len(&self) -> usize {
            self.queue.len()
        }
        fn capacity(&self) -> usize {
            self.queue.slab.capacity()
        }
        fn contains(&self, id: $crate::RequestId) -> bool {
            self.queue.contains(id)
        }
        fn pop_any(&mut self) -> Option<$crate::Request> {
            self.queue.pop_any()
        }
    };
}
pub(crate) use delegate_to_queue;
