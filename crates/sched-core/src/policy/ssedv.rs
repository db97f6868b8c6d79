//! SSEDV: shortest seek and earliest deadline by value.
//!
//! Named by Chen & Towsley (1991, §3) and defined in Chen, Stankovic, Kurose &
//! Towsley, "Performance evaluation of two new disk scheduling algorithms for
//! real-time systems" (Real-Time Systems 3(3), 1991), which the seeds only cite:
//! every queued request rᵢ gets the priority value α·dᵢ + (1 − α)·lᵢ, where dᵢ
//! is its cylinder distance from the arm and lᵢ the time left to its deadline;
//! the smallest value is served (ties: earlier deadline, arrival, id).
//!
//! Units are our choice, documented here: dᵢ counts cylinders and lᵢ counts
//! `time_unit` nanoseconds (1 ms by default), so α = 0.5 trades one cylinder
//! of seek against one millisecond of slack. A request without a deadline has
//! lᵢ = ∞ unless α = 1. The minimum over the whole queue is found exactly by a
//! threshold search that walks the queue nearest-cylinder-first and
//! earliest-deadline-first at once and stops when no unseen request can beat
//! the best one seen; it visits a handful of requests unless α balances the
//! two terms so finely that many requests are near-ties.

use crate::error::SchedError;
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::store::{CylinderIndex, DeadlineHeap, InOrder, Outward, Queue, Slot, Step, delegate_to_queue};

const ONE: i128 = 1 << 16;

/// Shortest seek and earliest deadline by value.
pub struct Ssedv<const N: usize> {
    queue: Queue<N, (DeadlineHeap<N>, CylinderIndex<N>)>,
    /// α in units of 2⁻¹⁶.
    alpha: i128,
    time_unit: i128,
}

impl<const N: usize> Ssedv<N> {
    /// An empty queue for a disk of `cylinders` cylinders, weighing distance by
    /// `alpha` and slack (in units of `time_unit` ns) by `1 − alpha`.
    ///
    /// # Errors
    /// [`SchedError::InvalidParameter`] when `alpha` is outside [0, 1],
    /// `time_unit` is 0, or the capacity or cylinder count is invalid.
    pub fn new(cylinders: u32, alpha: f64, time_unit: Nanos) -> Result<Self, SchedError> {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(SchedError::InvalidParameter {
                name: "alpha",
                expected: "a weight in [0, 1]",
            });
        }
        if time_unit == 0 {
            return Err(SchedError::InvalidParameter {
                name: "time_unit",
                expected: "at least 1 ns",
            });
        }
        Ok(Ssedv {
            queue: Queue::new((DeadlineHeap::new(), CylinderIndex::new(cylinders)?))?,
            alpha: (alpha * ONE as f64 + 0.5) as i128,
            time_unit: time_unit as i128,
        })
    }

    /// The priority value scaled by 2¹⁶·time_unit, exact in integers.
    #[inline]
    fn value(&self, distance: u32, deadline: Nanos, now: Nanos) -> i128 {
        self.alpha * distance as i128 * self.time_unit
            + (ONE - self.alpha) * (deadline as i128 - now as i128)
    }
}

impl<const N: usize> Scheduler for Ssedv<N> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index: (heap, cylinders) } = &self.queue;
        let h = head.cylinder;
        let mut by_distance = Outward::new(cylinders, slab, h);
        let mut by_deadline = InOrder::<64>::new(heap);
        // Every request not yet seen has a deadline no earlier than `deadline_floor`
        // and lies at least as far away as the distance walk's frontier.
        let mut deadline_floor = slab.deadline(heap.peek()?);
        let mut deadline_walk_open = true;
        let mut best: Option<(i128, Slot)> = None;
        let consider = |s: Slot, best: &mut Option<(i128, Slot)>| {
            let v = self.value(slab.cylinder(s).abs_diff(h), slab.deadline(s), now);
            let better = match *best {
                None => true,
                Some((bv, b)) => v < bv || (v == bv && slab.due_before(s, b)),
            };
            if better {
                *best = Some((v, s));
            }
        };
        loop {
            match by_distance.next(cylinders, slab) {
                Some((s, _)) => consider(s, &mut best),
                None => break, // every request has been seen
            }
            let Some(d_floor) = by_distance.frontier(slab) else {
                break;
            };
            if deadline_walk_open {
                match by_deadline.next(heap, slab) {
                    Step::Item(s) => {
                        consider(s, &mut best);
                        deadline_floor = slab.deadline(s);
                    }
                    Step::Done => break,
                    // The walk's floor stays valid; the distance walk finishes the job.
                    Step::Overflow => deadline_walk_open = false,
                }
            }
            let floor = self.value(d_floor, deadline_floor, now);
            if best.is_some_and(|(bv, _)| floor > bv) {
                break;
            }
        }
        let (_, s) = best?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
