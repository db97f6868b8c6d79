//! SSEDO: shortest seek and earliest deadline by ordering.
//!
//! Chen & Towsley (1991, §3.2), after Chen, Stankovic, Kurose & Towsley: the
//! window holds the `m` requests with the earliest deadlines r₁..r_m; request
//! rᵢ gets weight wᵢ = β^(i−1) (β ≥ 1) and the one with the least wᵢ·dᵢ is
//! served, dᵢ being its cylinder distance from the arm; ties go to the earlier
//! deadline. β = 1 is SSTF inside the window, β → ∞ is EDF. The paper uses
//! m = 3, β = 2.

use crate::error::{BuildError, valid};
use crate::queue::{DeadlineHeap, FirstFew, InOrder, Queue, Slot, Step, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// The largest window SSEDO accepts.
pub const MAX_WINDOW: usize = 64;

/// Windows up to this size are enumerated with a linear frontier (cheaper for
/// a few entries); larger ones with a frontier heap.
const SMALL_WINDOW: usize = 8;

/// Weights are fixed-point with 32 fractional bits (a relative error below
/// 2⁻³² for β^(i−1) ≥ 1), saturating at `u64::MAX`; saturation cannot change a
/// decision because any saturated weight times a non-zero distance already
/// exceeds w₁ times the largest possible distance.
const ONE: f64 = 4_294_967_296.0;

/// Shortest seek and earliest deadline by ordering, window `m`, weight base β.
#[derive(Clone)]
pub struct Ssedo<S: Storage> {
    queue: Queue<S, DeadlineHeap<S>>,
    window: usize,
    weights: [u64; MAX_WINDOW],
}

impl<S: Storage> Ssedo<S> {
    /// An empty queue with window `m` and weight base `beta`.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] when `m` is 0 or above [`MAX_WINDOW`],
    /// or `beta` is below 1 or NaN.
    pub fn new(storage: S, m: usize, beta: f64) -> Result<Self, BuildError> {
        let weights = window_weights(m, beta)?;
        Ok(Ssedo {
            queue: Queue::new(&storage, DeadlineHeap::new(&storage)),
            window: m,
            weights,
        })
    }

    /// The window size m.
    pub fn window(&self) -> usize {
        self.window
    }
}

impl<const N: usize> Ssedo<Inline<N>> {
    /// [`Ssedo::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)); the weights
    /// β^(i−1) are computed at compile time, to the same bits as at run time.
    ///
    /// ```
    /// use sched_core::{Inline, policy::Ssedo};
    ///
    /// static QUEUE: Ssedo<Inline<64>> = Ssedo::new_inline(3, 2.0);
    /// assert_eq!(QUEUE.window(), 3);
    /// ```
    ///
    /// A parameter [`Ssedo::new`] refuses does not compile in a `static`:
    ///
    /// ```compile_fail,E0080
    /// use sched_core::{Inline, policy::Ssedo};
    ///
    /// static SHRINKING: Ssedo<Inline<64>> = Ssedo::new_inline(3, 0.5);
    /// ```
    ///
    /// # Panics
    /// When `m` is 0 or above [`MAX_WINDOW`], or `beta` is below 1 or NaN
    /// (which [`Ssedo::new`] reports as [`BuildError::InvalidParameter`]); in
    /// a `static` or `const` initializer that is a compile error, not a
    /// panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(m: usize, beta: f64) -> Self {
        Ssedo {
            queue: Queue::inline(DeadlineHeap::inline()),
            window: m,
            weights: valid(window_weights(m, beta)),
        }
    }
}

/// The weights β^(i−1) of a window of `m`, fixed-point (see [`ONE`]).
const fn window_weights(m: usize, beta: f64) -> Result<[u64; MAX_WINDOW], BuildError> {
    if m == 0 || m > MAX_WINDOW {
        return Err(BuildError::InvalidParameter {
            name: "m",
            expected: "a window of 1 ..= 64 requests",
        });
    }
    // NaN is rejected with everything below 1.
    if beta.is_nan() || beta < 1.0 {
        return Err(BuildError::InvalidParameter {
            name: "beta",
            expected: "a weight base of at least 1",
        });
    }
    let mut weights = [0u64; MAX_WINDOW];
    let mut w = 1.0f64;
    // A `while` loop: iterators are not const.
    let mut i = 0;
    while i < m {
        weights[i] = (w * ONE) as u64; // `as` saturates, and ∞ becomes u64::MAX
        w *= beta;
        i += 1;
    }
    Ok(weights)
}

impl<S: Storage> Scheduler for Ssedo<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, _now: Nanos, _est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Queue { slab, index } = &self.queue;
        let mut best: Option<(u128, Slot)> = None;
        let mut consider = |w: u64, s: Slot| {
            let priority = w as u128 * slab.cylinder(s).abs_diff(head.cylinder) as u128;
            // Strictly less: on a tie the earlier deadline, visited first, stays.
            if best.is_none_or(|(p, _)| priority < p) {
                best = Some((priority, s));
            }
        };
        if self.window <= SMALL_WINDOW {
            // The frontier holds at most 3m + 1 positions, so it never fills.
            let mut walk = FirstFew::<{ 3 * SMALL_WINDOW + 1 }>::new(index);
            for &w in &self.weights[..self.window] {
                let Some(s) = walk.next(index, slab) else {
                    break;
                };
                consider(w, s);
            }
        } else {
            let mut walk = InOrder::<{ 3 * MAX_WINDOW + 4 }>::new(index);
            for &w in &self.weights[..self.window] {
                // The frontier holds at most 3m + 1 positions, so it never overflows.
                let Step::Item(s) = walk.next(index, slab) else {
                    break;
                };
                consider(w, s);
            }
        }
        let (_, s) = best?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
