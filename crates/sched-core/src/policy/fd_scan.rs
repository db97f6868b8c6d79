//! FD-SCAN: sweep toward the request with the earliest feasible deadline.
//!
//! Abbott & Garcia-Molina (1990), as applied to mirrored disks by Chen &
//! Towsley (1991, §3.4). A deadline is feasible when it is no earlier than now
//! plus the request's estimated service time from the arm's position. At each
//! decision the request with the earliest feasible deadline becomes the
//! target; the arm moves toward it, serving the nearest request in that
//! direction first, so it never passes over a request on its way. When no
//! deadline is feasible the arm keeps sweeping in elevator (LOOK) order.
//!
//! Requests whose deadline has passed can never become feasible again, so they
//! leave the deadline order for good: with [`ExpiredRule::Keep`] they are still
//! served when the sweep passes them, with [`ExpiredRule::Drop`] they are set
//! aside for the driver to collect through [`Scheduler::take_expired`] (real-
//! time databases abort such work). Requests without a deadline never set the
//! direction. The paper warns that FD-SCAN is costly to run; here the
//! earliest-feasible search walks the deadline heap in order and stops at the
//! first feasible deadline, so it only visits requests that are not expired
//! yet cannot be reached in time.

use core::fmt;

use crate::error::{BuildError, SpecError};
use crate::policy_table::Codec;
use crate::queue::{
    CylinderIndex, DeadlineHeap, InOrder, Index, NIL, Queue, Slab, Slot, Step, delegate_to_queue,
};
use crate::request::{Direction, Dispatch, Head, Nanos, Request};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

use super::sweep::elevator_pick;

/// What FD-SCAN does with requests whose deadline has passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ExpiredRule {
    /// Keep them queued; they are served when the sweep passes them.
    #[default]
    Keep,
    /// Set them aside; the driver collects them with `take_expired`.
    Drop,
}

/// In a description: `expired=keep` or `expired=drop`.
impl Codec for ExpiredRule {
    type Value = ExpiredRule;

    fn parse(text: &str) -> Result<ExpiredRule, Option<SpecError>> {
        match text {
            "keep" => Ok(ExpiredRule::Keep),
            "drop" => Ok(ExpiredRule::Drop),
            _ => Err(None),
        }
    }

    fn write(value: &ExpiredRule, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match value {
            ExpiredRule::Keep => "keep",
            ExpiredRule::Drop => "drop",
        })
    }

    fn drops_expired(value: &ExpiredRule) -> bool {
        *value == ExpiredRule::Drop
    }
}

/// Unexpired deadlines in a heap; requests the arm may serve by cylinder; in
/// drop mode, expired requests in a FIFO. A slot in the heap is always in the
/// cylinder index; a slot outside the heap is in the cylinder index (keep) or
/// in the expired list (drop). The expired list borrows the cylinder index's
/// links, idle for a slot outside that index, so it costs no memory per slot.
#[derive(Clone)]
struct FdIndex<S: Storage> {
    heap: DeadlineHeap<S>,
    cylinders: CylinderIndex<S>,
    /// First slot of the expired list (drop mode), `NIL` when empty.
    expired: Slot,
    rule: ExpiredRule,
}

impl<S: Storage> Index<S> for FdIndex<S> {
    fn check(&self, req: &Request) -> Result<(), crate::error::EnqueueError> {
        self.cylinders.check(req)
    }
    fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        self.heap.push(slab, s);
        self.cylinders.insert(slab, s);
    }
    fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        if self.heap.contains(s) {
            self.heap.remove(slab, s);
            self.cylinders.remove(slab, s);
        } else if self.rule == ExpiredRule::Drop {
            self.cylinders.side_remove(&mut self.expired, s);
        } else {
            self.cylinders.remove(slab, s);
        }
    }
}

impl<S: Storage> FdIndex<S> {
    /// Takes every request whose deadline is before `now` out of the deadline order.
    fn retire_expired(&mut self, slab: &Slab<S>, now: Nanos) {
        while let Some(s) = self.heap.peek() {
            if slab.deadline(s) >= now {
                break;
            }
            self.heap.remove(slab, s);
            if self.rule == ExpiredRule::Drop {
                self.cylinders.remove(slab, s);
                self.cylinders.side_push_back(&mut self.expired, s);
            }
        }
    }
}

/// Feasible-deadline SCAN.
#[derive(Clone)]
pub struct FdScan<S: Storage> {
    queue: Queue<S, FdIndex<S>>,
    direction: Direction,
}

impl<S: Storage> FdScan<S> {
    /// An empty queue for a disk of `cylinders` cylinders.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders.
    pub fn new(storage: S, cylinders: u32, rule: ExpiredRule) -> Result<Self, BuildError> {
        Ok(FdScan {
            queue: Queue::new(
                &storage,
                FdIndex {
                    heap: DeadlineHeap::new(&storage),
                    cylinders: CylinderIndex::new(&storage, cylinders)?,
                    expired: NIL,
                    rule,
                },
            ),
            direction: Direction::Up,
        })
    }

    /// The direction the arm last moved in.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The queued request with the earliest feasible deadline.
    fn target(&self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Slot> {
        let Queue { slab, index } = &self.queue;
        let feasible = |s: Slot| {
            let deadline = slab.deadline(s);
            deadline != Nanos::MAX
                && deadline >= now.saturating_add(est.service_time(head, &slab.get(s), now))
        };
        let mut walk = InOrder::<96>::new(&index.heap);
        loop {
            match walk.next(&index.heap, slab) {
                Step::Item(s) if slab.deadline(s) == Nanos::MAX => return None,
                Step::Item(s) if feasible(s) => return Some(s),
                Step::Item(_) => {}
                Step::Done => return None,
                // Very many unreachable deadlines: finish with a scan of the heap.
                Step::Overflow => {
                    return slab
                        .occupied()
                        .filter(|&s| index.heap.contains(s) && feasible(s))
                        .reduce(|a, b| if slab.due_before(b, a) { b } else { a });
                }
            }
        }
    }
}

impl<const N: usize> FdScan<Inline<N>> {
    /// [`FdScan::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `cylinders` is 0 (which [`FdScan::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32, rule: ExpiredRule) -> Self {
        FdScan {
            queue: Queue::inline(FdIndex {
                heap: DeadlineHeap::inline(),
                cylinders: CylinderIndex::inline(cylinders),
                expired: NIL,
                rule,
            }),
            direction: Direction::Up,
        }
    }
}

impl<S: Storage> Scheduler for FdScan<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &mut self.queue;
        index.retire_expired(slab, now);
        let h = head.cylinder;
        let s = match self.target(head, now, est) {
            Some(t) => {
                let Queue { slab, index } = &self.queue;
                // Toward the target; it lies ahead, so the nearest request in
                // that direction is at most as far as the target itself.
                // A target on the arm's own cylinder needs no movement, so the
                // sweep keeps its direction (for the LOOK fallback later).
                let c = slab.cylinder(t);
                let direction = match c.cmp(&h) {
                    core::cmp::Ordering::Greater => Direction::Up,
                    core::cmp::Ordering::Less => Direction::Down,
                    core::cmp::Ordering::Equal => self.direction,
                };
                let s = match direction {
                    Direction::Up => index.cylinders.at_or_above(slab, h)?,
                    Direction::Down => index.cylinders.at_or_below(slab, h)?,
                };
                self.direction = direction;
                s
            }
            None => {
                let Queue { slab, index } = &self.queue;
                let (s, direction) = elevator_pick(&index.cylinders, slab, h, self.direction)?;
                self.direction = direction;
                s
            }
        };
        Some(Dispatch::direct(self.queue.take(s)))
    }

    fn take_expired(&mut self, now: Nanos) -> Option<Request> {
        let Queue { slab, index } = &mut self.queue;
        if index.rule == ExpiredRule::Keep {
            return None;
        }
        index.retire_expired(slab, now);
        let s = index.expired;
        if s == NIL {
            return None;
        }
        Some(self.queue.take(s))
    }
}
