//! VSCAN(R): the continuum between SSTF (R = 0) and SCAN (R = 1).
//!
//! Geist & Daniel, "A continuum of disk scheduling algorithms" (ACM TOCS 5(1),
//! 1987): the arm serves the request with the least effective distance, where
//! a request behind the current direction of travel pays a penalty of
//! R × (number of cylinders). R = 0 is SSTF; with R = 1 nothing behind can beat
//! anything ahead, so the arm sweeps and reverses at the last request (LOOK
//! order). Geist & Daniel found R ≈ 0.2 best.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Direction, Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::Storage;

/// V(R): SSTF with a reversal penalty of R times the cylinder count.
#[derive(Clone)]
pub struct VScan<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
    direction: Direction,
    /// Penalty for reversing, in cylinders × 2¹⁶.
    penalty: u64,
}

impl<S: Storage> VScan<S> {
    /// An empty queue for a disk of `cylinders` cylinders with bias `r`.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] when `r` is outside [0, 1] or the
    /// disk has no cylinders.
    pub fn new(storage: S, cylinders: u32, r: f64) -> Result<Self, BuildError> {
        if !(0.0..=1.0).contains(&r) {
            return Err(BuildError::InvalidParameter {
                name: "R",
                expected: "a bias in [0, 1]",
            });
        }
        Ok(VScan {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
            direction: Direction::Up,
            penalty: (r * cylinders as f64 * 65_536.0 + 0.5) as u64,
        })
    }

    /// The direction of the current sweep.
    pub fn direction(&self) -> Direction {
        self.direction
    }
}

impl<S: Storage> Scheduler for VScan<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &self.queue;
        let h = head.cylinder;
        let (ahead, behind) = match self.direction {
            Direction::Up => (index.at_or_above(slab, h), index.at_or_below(slab, h)),
            Direction::Down => (index.at_or_below(slab, h), index.at_or_above(slab, h)),
        };
        let cost = |s: crate::queue::Slot| (slab.cylinder(s).abs_diff(h) as u64) << 16;
        let s = match (ahead, behind) {
            // Ties keep the direction.
            (Some(a), Some(b)) if cost(b) + self.penalty < cost(a) => {
                self.direction = self.direction.reversed();
                b
            }
            (Some(a), _) => a,
            (None, Some(b)) => {
                self.direction = self.direction.reversed();
                b
            }
            (None, None) => return None,
        };
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
