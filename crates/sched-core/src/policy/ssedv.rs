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

use crate::error::{BuildError, valid};
use crate::queue::{CylinderIndex, LinearMin, Queue, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

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
        let (a, b) = key_weights(alpha, time_unit)?;
        let keys = LinearMin::new(&storage, a, b);
        Ok(Ssedv {
            queue: Queue::new(&storage, (CylinderIndex::new(&storage, cylinders)?, keys)),
        })
    }
}

impl<const N: usize> Ssedv<Inline<N>> {
    /// [`Ssedv::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `alpha` is outside [0, 1], `time_unit` is 0 or above
    /// [`MAX_TIME_UNIT`], or `cylinders` is 0 (which [`Ssedv::new`] reports
    /// as [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32, alpha: f64, time_unit: Nanos) -> Self {
        let (a, b) = valid(key_weights(alpha, time_unit));
        Ssedv {
            queue: Queue::inline((CylinderIndex::inline(cylinders), LinearMin::inline(a, b))),
        }
    }
}

/// The key weights (α·2¹⁶·u, (1 − α)·2¹⁶) of the index: scaled by 2¹⁶·u,
/// α·d + (1 − α)·l/u becomes (α·2¹⁶·u)·d + ((1 − α)·2¹⁶)·l.
const fn key_weights(alpha: f64, time_unit: Nanos) -> Result<(u64, u64), BuildError> {
    // Comparisons written out: a range's `contains` is not const. NaN fails them.
    if !(alpha >= 0.0 && alpha <= 1.0) {
        return Err(BuildError::InvalidParameter {
            name: "alpha",
            expected: "a weight in [0, 1]",
        });
    }
    // Bounded so that α·2¹⁶·u fits in 64 bits: the index's products then
    // take one machine multiplication each.
    if time_unit < 1 || time_unit > MAX_TIME_UNIT {
        return Err(BuildError::InvalidParameter {
            name: "time_unit",
            expected: "1 ns ..= 2^48 ns (about 3.3 days)",
        });
    }
    let alpha = (alpha * ONE as f64 + 0.5) as u64;
    Ok((alpha * time_unit, ONE - alpha))
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
