//! LOOK: the elevator that reverses at the last request instead of the disk edge.
//!
//! The arm sweeps in one direction serving requests in cylinder order and turns
//! around as soon as nothing lies ahead (Merten 1970; the textbook refinement of
//! Denning's SCAN, 1967).

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Direction, Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

use super::sweep::elevator_pick;

/// Elevator order, reversing at the last request in the current direction.
///
/// A request on the arm's own cylinder counts as ahead in either direction;
/// requests on one cylinder are served in arrival order.
#[derive(Clone)]
pub struct Look<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
    direction: Direction,
}

impl<S: Storage> Look<S> {
    /// An empty queue for a disk with `cylinders` cylinders, sweeping up first.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders.
    pub fn new(storage: S, cylinders: u32) -> Result<Self, BuildError> {
        Ok(Look {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
            direction: Direction::Up,
        })
    }

    /// The direction of the current sweep.
    pub fn direction(&self) -> Direction {
        self.direction
    }
}

impl<const N: usize> Look<Inline<N>> {
    /// An empty queue of `N` inline slots for a disk with `cylinders`
    /// cylinders, sweeping up first, built in const context: the policy can live in a
    /// `static` (see [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `cylinders` is 0 (which [`Look::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time. A
    /// capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY) does
    /// not compile.
    pub const fn new_inline(cylinders: u32) -> Self {
        Look {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
            direction: Direction::Up,
        }
    }
}

impl<S: Storage> Scheduler for Look<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let (s, direction) = elevator_pick(
            &self.queue.index,
            &self.queue.slab,
            head.cylinder,
            self.direction,
        )?;
        self.direction = direction;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
