//! SATF-EW: shortest access time first, extended for eager writing.
//!
//! Zhang, Yu, Krishnamurthy & Wang, *Configuring and Scheduling an
//! Eager-Writing Disk Array for a Transaction Processing Workload* (FAST
//! 2002, §4): compare the queued read the heads reach soonest with the
//! nearest free block for a queued write, and serve whichever is closer; the
//! write goes to that free block, chosen at dispatch. To keep the head from
//! exhausting the free space of one region, the arm sweeps in one seek
//! direction until nothing lies ahead, then reverses.
//!
//! The free block comes from the driver's
//! [`ServiceEstimator::nearest_free`]. Where the estimator knows no free
//! space (it answers `None` in both directions), writes are served in place
//! like reads, and SATF-EW is SATF restricted to the sweep.

use crate::array::Location;
use crate::error::{BuildError, EnqueueError};
use crate::queue::{CylinderIndex, Fifo, Index, Queue, Slab, Slot, delegate_to_queue};
use crate::request::{Direction, Dispatch, FreeBlock, Head, Kind, Nanos, Request};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Storage};

/// Reads (and writes served in place) by cylinder, writes in arrival order.
#[derive(Clone)]
pub(crate) struct ReadsAndWrites<S: Storage> {
    cylinders: CylinderIndex<S>,
    writes: Fifo<S>,
}

impl<S: Storage> Index<S> for ReadsAndWrites<S> {
    fn check(&self, req: &Request) -> Result<(), EnqueueError> {
        self.cylinders.check(req)
    }
    fn insert(&mut self, slab: &Slab<S>, s: Slot) {
        self.cylinders.insert(slab, s);
        if slab.get(s).kind == Kind::Write {
            self.writes
                .insert_by_arrival(s, |a, b| slab.arrives_before(a, b));
        }
    }
    fn remove(&mut self, slab: &Slab<S>, s: Slot) {
        self.cylinders.remove(slab, s);
        if slab.get(s).kind == Kind::Write {
            self.writes.remove(s);
        }
    }
}

/// What the arm could do next, and how long positioning for it takes.
#[derive(Clone, Copy)]
struct Candidate {
    slot: Slot,
    positioning: Nanos,
    chosen: Option<Location>,
}

/// SATF-EW (see the module documentation).
///
/// Ties between candidates go to the earlier arrival, then the lower id.
#[derive(Clone)]
pub struct SatfEw<S: Storage> {
    queue: Queue<S, ReadsAndWrites<S>>,
    direction: Direction,
}

impl<S: Storage> SatfEw<S> {
    /// An empty queue for a disk of `cylinders` cylinders, sweeping up first.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders.
    pub fn new(storage: S, cylinders: u32) -> Result<Self, BuildError> {
        Ok(SatfEw {
            queue: Queue::new(
                &storage,
                ReadsAndWrites {
                    cylinders: CylinderIndex::new(&storage, cylinders)?,
                    writes: Fifo::new(&storage),
                },
            ),
            direction: Direction::Up,
        })
    }

    /// The direction of the current sweep.
    pub fn direction(&self) -> Direction {
        self.direction
    }
}

impl<const N: usize> SatfEw<Inline<N>> {
    /// [`SatfEw::new`] on `N` inline slots, built in const context: the
    /// policy can live in a `static` (see
    /// [`Sstf::new_inline`](crate::policy::Sstf::new_inline)).
    ///
    /// # Panics
    /// When `cylinders` is 0 (which [`SatfEw::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time.
    /// A capacity `N` of 0 or above [`MAX_CAPACITY`](crate::MAX_CAPACITY)
    /// does not compile.
    pub const fn new_inline(cylinders: u32) -> Self {
        SatfEw {
            queue: Queue::inline(ReadsAndWrites {
                cylinders: CylinderIndex::inline(cylinders),
                writes: Fifo::inline(),
            }),
            direction: Direction::Up,
        }
    }
}

impl<S: Storage> SatfEw<S> {
    /// The best candidate on the arm's cylinder or ahead of it in `sweep`:
    /// the reads there by positioning time (the writes too when they are
    /// served `in_place`), against the oldest write at `free`, a free place
    /// ahead.
    fn best_ahead(
        &self,
        head: Head,
        now: Nanos,
        est: &dyn ServiceEstimator,
        sweep: Direction,
        in_place: bool,
        free: Option<FreeBlock>,
    ) -> Option<Candidate> {
        let Queue { slab, index } = &self.queue;
        let mut best: Option<Candidate> = None;
        let mut consider = |c: Candidate| {
            let better = match best {
                None => true,
                Some(b) => {
                    c.positioning < b.positioning
                        || (c.positioning == b.positioning && slab.arrives_before(c.slot, b.slot))
                }
            };
            if better {
                best = Some(c);
            }
        };
        let mut at = match sweep {
            Direction::Up => index.cylinders.at_or_above(slab, head.cylinder),
            Direction::Down => index.cylinders.at_or_below(slab, head.cylinder),
        };
        while let Some(s) = at {
            let req = slab.get(s);
            if req.kind == Kind::Read || in_place {
                consider(Candidate {
                    slot: s,
                    positioning: est.positioning_time(head, &req, now),
                    chosen: None,
                });
            }
            at = step(&index.cylinders, slab, s, sweep);
        }
        if let (Some(free), Some(w)) = (free, index.writes.front()) {
            consider(Candidate {
                slot: w,
                positioning: free.positioning,
                chosen: Some(free.at),
            });
        }
        best
    }
}

/// The request after `s` in a sweep: upward, the next in (cylinder, arrival)
/// order; downward, the rest of `s`'s cylinder in arrival order, then the
/// cylinder below.
fn step<S: Storage>(
    index: &CylinderIndex<S>,
    slab: &Slab<S>,
    s: Slot,
    sweep: Direction,
) -> Option<Slot> {
    match sweep {
        Direction::Up => index.successor(slab, s),
        Direction::Down => {
            let c = slab.cylinder(s);
            match index.successor(slab, s) {
                Some(n) if slab.cylinder(n) == c => Some(n),
                _ => index.at_or_below(slab, c.checked_sub(1)?),
            }
        }
    }
}

impl<S: Storage> Scheduler for SatfEw<S> {
    delegate_to_queue!();

    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let ahead = self.direction;
        let behind = ahead.reversed();
        // The free places for the oldest write, ahead and (only if needed)
        // behind; writes are served in place when neither exists.
        let blocks = self
            .queue
            .index
            .writes
            .front()
            .map(|w| self.queue.slab.get(w).blocks);
        let free = |sweep| blocks.and_then(|b| est.nearest_free(head, now, sweep, b));
        let free_ahead = free(ahead);
        let mut free_behind = None;
        let in_place = blocks.is_some() && free_ahead.is_none() && {
            free_behind = free(behind);
            free_behind.is_none()
        };
        let (c, sweep) = match self.best_ahead(head, now, est, ahead, in_place, free_ahead) {
            Some(c) => (c, ahead),
            None => {
                if free_behind.is_none() && !in_place {
                    free_behind = free(behind);
                }
                let c = self.best_ahead(head, now, est, behind, in_place, free_behind)?;
                (c, behind)
            }
        };
        self.direction = sweep;
        let request = self.queue.take(c.slot);
        Some(match c.chosen {
            Some(at) => Dispatch::placed(request, at),
            None => Dispatch::direct(request),
        })
    }
}
