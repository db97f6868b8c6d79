//! SCAN: the elevator that sweeps all the way to the disk edge before reversing.
//!
//! Denning (1967). The service order matches LOOK; what differs is the arm's
//! path: when nothing lies ahead the arm still travels to the last (or first)
//! cylinder, and the dispatch says so with [`Travel::ViaEdge`] so that the
//! driver charges the extra seek.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Direction, Dispatch, Head, Nanos, Travel};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

use super::sweep::elevator_pick;

/// Elevator order with full sweeps to the disk edges.
#[derive(Clone)]
pub struct Scan<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
    direction: Direction,
}

impl<S: Storage> Scan<S> {
    /// An empty queue for a disk with `cylinders` cylinders, sweeping up first.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders.
    pub fn new(storage: S, cylinders: u32) -> Result<Self, BuildError> {
        Ok(Scan {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
            direction: Direction::Up,
        })
    }

    /// The direction of the current sweep.
    pub fn direction(&self) -> Direction {
        self.direction
    }
}

impl<const N: usize> Scan<Inline<N>> {
    /// An empty queue of `N` inline slots for a disk with `cylinders`
    /// cylinders, sweeping up first, built in const context: the policy can live in a
    /// `static` (see [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `cylinders` is 0 (which [`Scan::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time. A
    /// capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY) does
    /// not compile.
    pub const fn new_inline(cylinders: u32) -> Self {
        Scan {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
            direction: Direction::Up,
        }
    }
}

impl<S: Storage> Scheduler for Scan<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let (s, direction) = elevator_pick(
            &self.queue.index,
            &self.queue.slab,
            head.cylinder,
            self.direction,
        )?;
        let edge = match self.direction {
            Direction::Up => self.queue.index.cylinders() - 1,
            Direction::Down => 0,
        };
        let travel = if direction != self.direction && head.cylinder != edge {
            Travel::ViaEdge { edge }
        } else {
            Travel::Direct
        };
        self.direction = direction;
        Some(Dispatch {
            request: self.queue.take(s),
            travel,
            chosen: None,
        })
    }
}
