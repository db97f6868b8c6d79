//! VSCAN(R): the continuum between SSTF (R = 0) and SCAN (R = 1).
//!
//! Geist & Daniel, "A continuum of disk scheduling algorithms" (ACM TOCS 5(1),
//! 1987): the arm serves the request with the least effective distance, where
//! a request behind the current direction of travel pays a penalty of
//! R × (number of cylinders). R = 0 is SSTF; with R = 1 nothing behind can beat
//! anything ahead, so the arm sweeps and reverses at the last request (LOOK
//! order). Geist & Daniel found R ≈ 0.2 best.

use crate::error::{BuildError, valid};
use crate::queue::{CylinderIndex, Queue, delegate_to_queue};
use crate::request::{Direction, Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

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
        let penalty = reversal_penalty(cylinders, r)?;
        Ok(VScan {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
            direction: Direction::Up,
            penalty,
        })
    }

    /// The direction of the current sweep.
    pub fn direction(&self) -> Direction {
        self.direction
    }
}

impl<const N: usize> VScan<Inline<N>> {
    /// [`VScan::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `r` is outside [0, 1] or `cylinders` is 0 (which [`VScan::new`]
    /// reports as [`BuildError::InvalidParameter`]); in a `static` or
    /// `const` initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32, r: f64) -> Self {
        VScan {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
            direction: Direction::Up,
            penalty: valid(reversal_penalty(cylinders, r)),
        }
    }
}

/// The penalty for reversing with bias `r`, in cylinders × 2¹⁶.
const fn reversal_penalty(cylinders: u32, r: f64) -> Result<u64, BuildError> {
    // Written out rather than as a range's `contains`, which is not const;
    // NaN fails both comparisons.
    if r >= 0.0 && r <= 1.0 {
        Ok((r * cylinders as f64 * 65_536.0 + 0.5) as u64)
    } else {
        Err(BuildError::InvalidParameter {
            name: "R",
            expected: "a bias in [0, 1]",
        })
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
