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
//! of seek against one millisecond of slack; α is rounded to a multiple of
//! 2⁻¹⁶, and with that rounding the comparison is exact integer arithmetic.
//! lᵢ is negative once a deadline has passed, so overdue requests rank
//! first. A request without a deadline counts as due at `Nanos::MAX` (some
//! 584 years away): unless α = 1 it loses to every request that has a
//! deadline, and among such requests the nearest wins.
//!
//! The minimum over the whole queue is exact and costs O(log N): on each side
//! of the arm the value is a fixed linear function of (cylinder, deadline)
//! plus a constant, so a tournament tree over the cylinder buckets keeps the
//! winner of each side ready (the `LinearMin` index). An earlier version
//! searched nearest-first and earliest-deadline-first at once until no unseen
//! request could win; when slack dominated the value (α = 0.5 with 1 ms units
//! on a deep queue) it visited nearly the whole queue.

use crate::error::BuildError;
use crate::queue::{CylinderIndex, LinearMin, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::Storage;

/// α is kept in units of 2⁻¹⁶.
const ONE: u64 = 1 << 16;

/// The largest time unit SSEDV accepts: 2⁴⁸ ns, about 3.3 days.
pub const MAX_TIME_UNIT: Nanos = 1 << 48;

/// Shortest seek and earliest deadline by value.
#[derive(Clone)]
pub struct Ssedv<S: Storage> {
    queue: Queue<S, (CylinderIndex<S>, LinearMin<S>)>,
}

impl<S: Storage> Ssedv<S> {
    /// An empty queue for a disk of `cylinders` cylinders, weighing distance by
    /// `alpha` and slack (in units of `time_unit` ns) by `1 − alpha`.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] when `alpha` is outside [0, 1],
    /// `time_unit` is 0 or above [`MAX_TIME_UNIT`], or the disk has
    /// no cylinders.
    pub fn new(
        storage: S,
        cylinders: u32,
        alpha: f64,
        time_unit: Nanos,
    ) -> Result<Self, BuildError> {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(BuildError::InvalidParameter {
                name: "alpha",
                expected: "a weight in [0, 1]",
            });
        }
        // Bounded so that α·2¹⁶·u fits in 64 bits: the index's products then
        // take one machine multiplication each.
        if !(1..=MAX_TIME_UNIT).contains(&time_unit) {
            return Err(BuildError::InvalidParameter {
                name: "time_unit",
                expected: "1 ns ..= 2^48 ns (about 3.3 days)",
            });
        }
        let alpha = (alpha * ONE as f64 + 0.5) as u64;
        // Scaled by 2¹⁶·u, α·d + (1 − α)·l/u becomes (α·2¹⁶·u)·d + ((1 − α)·2¹⁶)·l.
        let keys = LinearMin::new(&storage, alpha * time_unit, ONE - alpha);
        Ok(Ssedv {
            queue: Queue::new(&storage, (CylinderIndex::new(&storage, cylinders)?, keys)),
        })
    }
}

impl<S: Storage> Scheduler for Ssedv<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        // `now` shifts every value by the same amount: it cannot change the winner.
        let Queue {
            slab,
            index: (cylinders, keys),
        } = &self.queue;
        let s = keys.least(cylinders, slab, head.cylinder)?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
