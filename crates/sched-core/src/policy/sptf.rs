//! SPTF: serve the request the heads can reach soonest.
//!
//! Shortest positioning time first (Seltzer, Chen & Ousterhout 1990; Jacobson
//! & Wilkes 1991, who call it SATF): seek plus rotational latency, as the
//! driver's disk model estimates it, is computed for every candidate. That
//! makes it the one policy whose cost grows with the queue; an optional window
//! bounds the candidates to the `k` requests nearest the arm by cylinder
//! (distance, then earlier arrival, then lower id).

use crate::error::{BuildError, valid};
use crate::queue::{CylinderIndex, Outward, Queue, Slot, delegate_to_queue};
use crate::request::{Dispatch, Head, Nanos};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// Shortest positioning time first, optionally over a window of candidates.
#[derive(Clone)]
pub struct Sptf<S: Storage> {
    queue: Queue<S, CylinderIndex<S>>,
    window: usize,
}

impl<S: Storage> Sptf<S> {
    /// An empty queue for a disk of `cylinders` cylinders, considering the
    /// `window` requests nearest the arm (`None`: every request).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a window of 0 or a
    /// disk without cylinders.
    pub fn new(storage: S, cylinders: u32, window: Option<usize>) -> Result<Self, BuildError> {
        Ok(Sptf {
            queue: Queue::new(&storage, CylinderIndex::new(&storage, cylinders)?),
            window: check_window(window)?,
        })
    }
}

impl<const N: usize> Sptf<Inline<N>> {
    /// [`Sptf::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// For a window of 0 or when `cylinders` is 0 (which [`Sptf::new`]
    /// reports as [`BuildError::InvalidParameter`]); in a `static` or
    /// `const` initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32, window: Option<usize>) -> Self {
        Sptf {
            queue: Queue::inline(CylinderIndex::inline(cylinders)),
            window: valid(check_window(window)),
        }
    }
}

pub(crate) const fn check_window(window: Option<usize>) -> Result<usize, BuildError> {
    match window {
        Some(0) => Err(BuildError::InvalidParameter {
            name: "window",
            expected: "at least one candidate",
        }),
        Some(k) => Ok(k),
        None => Ok(usize::MAX),
    }
}

/// Among the `window` requests nearest the arm, the one with the least
/// `positioning time − age_weight · waiting time` (age weight in units of
/// 2⁻¹⁶); ties go to the earlier arrival.
pub(crate) fn best_positioned<S: Storage>(
    queue: &Queue<S, CylinderIndex<S>>,
    window: usize,
    age_weight: i128,
    head: Head,
    now: Nanos,
    est: &dyn ServiceEstimator,
) -> Option<Slot> {
    let Queue { slab, index } = queue;
    let mut walk = Outward::new(index, slab, head.cylinder);
    let mut best: Option<(i128, Slot)> = None;
    for _ in 0..window {
        let Some((s, _)) = walk.next(index, slab) else {
            break;
        };
        let positioning = est.positioning_time(head, &slab.get(s), now) as i128;
        let waited = now.saturating_sub(slab.arrival(s)) as i128;
        // Saturating: a huge aging weight times a long wait must not overflow;
        // saturated scores tie and fall to the earlier arrival, which is the
        // limit of aging (oldest first).
        let score = (positioning << 16).saturating_sub(age_weight.saturating_mul(waited));
        let better = match best {
            None => true,
            Some((b, bs)) => score < b || (score == b && slab.arrives_before(s, bs)),
        };
        if better {
            best = Some((score, s));
        }
    }
    best.map(|(_, s)| s)
}

impl<S: Storage> Scheduler for Sptf<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let s = best_positioned(&self.queue, self.window, 0, head, now, est)?;
        Some(Dispatch::direct(self.queue.take(s)))
    }
}
