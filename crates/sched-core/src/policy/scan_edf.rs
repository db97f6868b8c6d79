//! SCAN-EDF: earliest deadline first, equal deadlines in SCAN order.
//!
//! Reddy & Wyllie (1993), the priority-based baseline of the WRR-SCAN paper
//! (Tsai, Chu & Huang 2004, §5). Deadlines are grouped by a granularity g:
//! requests whose deadlines fall in the same multiple of g count as equal
//! (g = 1 ns means exact equality). The earliest group is served in elevator
//! order from the arm; requests without a deadline form the last group.
//!
//! The earliest group is moved out of the deadline heap into a cylinder index
//! once, so serving a group of k requests costs O(k log N), not O(k²). A
//! group of one (the usual case with exact deadlines) is served straight from
//! the heap without that move. When a new request opens an even earlier group
//! while one is being served, a single-request group is served at once; a
//! larger one sends the current group back to the heap (a cost proportional
//! to that group, paid only when deadlines arrive out of order).

use crate::error::{BuildError, valid};
use crate::queue::{CylinderIndex, DeadlineHeap, Index, Queue, Slab, Slot, delegate_to_queue};
use crate::request::{Direction, Dispatch, Head, Nanos, Request};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

use super::sweep::elevator_pick;

/// Every slot is either in `pending` (deadline order) or in `active` (the
/// earliest group, in cylinder order), never both.
#[derive(Clone)]
struct GroupIndex<S: Storage> {
    pending: DeadlineHeap<S>,
    active: CylinderIndex<S>,
    active_group: u64,
    active_len: usize,
    granularity: u64,
}

impl<S: Storage> GroupIndex<S> {
    #[inline]
    fn group(&self, slab: &Slab<S>, s: Slot) -> u64 {
        // Exact ties (the default) need no 64-bit division.
        let d = slab.deadline(s);
        if self.granularity == 1 {
            d
        } else {
            d / self.granularity
        }
    }

    /// Sends the active group back to the heap.
    fn unload(&mut self, slab: &Slab<S>) {
        while let Some(s) = self.active.lowest() {
            self.active.remove(slab, s);
            self.pending.push(slab, s);
        }
        self.active_len = 0;
    }

    /// Takes the earliest pending request out of the heap and returns it if
    /// no other request shares its group; otherwise makes that group the
    /// active one (the previous active group goes back to the heap) and
    /// returns `None`. Popping first and looking at the new top costs no more
    /// than EDF's own pop, which keeps exact ties (the common case) cheap.
    fn pop_if_alone(&mut self, slab: &Slab<S>) -> Option<Slot> {
        let p = self.pending.peek()?;
        let g = self.group(slab, p);
        self.pending.remove(slab, p);
        match self.pending.peek() {
            Some(q) if self.group(slab, q) == g => {
                self.unload(slab);
                self.active_group = g;
                self.active.insert(slab, p);
                self.active_len = 1;
                while let Some(s) = self.pending.peek() {
                    if self.group(slab, s) != g {
                        break;
                    }
                    self.pending.remove(slab, s);
                    self.active.insert(slab, s);
                    self.active_len += 1;
                }
                None
            }
            _ => Some(p),
        }
    }
}

impl<S: Storage> Index<S> for GroupIndex<S> {
    fn check(&self, req: &Request) -> Result<(), crate::error::EnqueueError> {
        self.active.check(req)
    }
    fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        if self.active_len > 0 && self.group(slab, s) == self.active_group {
            self.active.insert(slab, s);
            self.active_len += 1;
        } else {
            self.pending.push(slab, s);
        }
    }
    fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        if self.pending.contains(s) {
            self.pending.remove(slab, s);
        } else {
            self.active.remove(slab, s);
            self.active_len -= 1;
        }
    }
}

/// Earliest deadline first, ties (within the granularity) in elevator order.
#[derive(Clone)]
pub struct ScanEdf<S: Storage> {
    queue: Queue<S, GroupIndex<S>>,
    direction: Direction,
}

impl<S: Storage> ScanEdf<S> {
    /// An empty queue for a disk of `cylinders` cylinders; deadlines within the
    /// same multiple of `granularity` ns are treated as equal.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] when `granularity` is 0 or the disk
    /// has no cylinders.
    pub fn new(storage: S, cylinders: u32, granularity: Nanos) -> Result<Self, BuildError> {
        let granularity = check_granularity(granularity)?;
        Ok(ScanEdf {
            queue: Queue::new(
                &storage,
                GroupIndex {
                    pending: DeadlineHeap::new(&storage),
                    active: CylinderIndex::new(&storage, cylinders)?,
                    active_group: 0,
                    active_len: 0,
                    granularity,
                },
            ),
            direction: Direction::Up,
        })
    }
}

impl<const N: usize> ScanEdf<Inline<N>> {
    /// [`ScanEdf::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `granularity` or `cylinders` is 0 (which [`ScanEdf::new`]
    /// reports as [`BuildError::InvalidParameter`]); in a `static` or
    /// `const` initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32, granularity: Nanos) -> Self {
        ScanEdf {
            queue: Queue::inline(GroupIndex {
                pending: DeadlineHeap::inline(),
                active: CylinderIndex::inline(cylinders),
                active_group: 0,
                active_len: 0,
                granularity: valid(check_granularity(granularity)),
            }),
            direction: Direction::Up,
        }
    }
}

/// Checks the deadline granularity: a group spans at least 1 ns.
const fn check_granularity(granularity: Nanos) -> Result<Nanos, BuildError> {
    if granularity == 0 {
        Err(BuildError::InvalidParameter {
            name: "granularity",
            expected: "at least 1 ns",
        })
    } else {
        Ok(granularity)
    }
}

impl<S: Storage> Scheduler for ScanEdf<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &mut self.queue;
        if let Some(p) = index.pending.peek() {
            let earlier = index.active_len == 0 || index.group(slab, p) < index.active_group;
            if earlier && let Some(p) = index.pop_if_alone(slab) {
                // A group of one, served in elevator order: the arm turns
                // round if the request lies behind it, as elevator_pick
                // would decide for that group.
                let c = slab.cylinder(p);
                let behind = match self.direction {
                    Direction::Up => c < head.cylinder,
                    Direction::Down => c > head.cylinder,
                };
                if behind {
                    self.direction = self.direction.reversed();
                }
                // Already out of the heap: only the slab still holds it.
                return Some(Dispatch::direct(slab.remove(p)));
            }
        }
        let (s, direction) = elevator_pick(&index.active, slab, head.cylinder, self.direction)?;
        self.direction = direction;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
