//! WRR-SCAN: weighted round robin over SCAN sweeps, with admission control.
//!
//! Tsai, Chu & Huang, *WRR-SCAN: A Rate-Based Real-Time Disk-Scheduling
//! Algorithm* (EMSOFT '04), §3. Rate-based tasks are admitted through
//! [`WrrScan::admit`] (the test and the weights are in [`wrr_admission`](super::WrrParams));
//! their requests carry the task's class, aperiodic requests class 0.
//!
//! **Rounds.** Time is cut into rounds of length R on a grid from time 0
//! (round k is `[kR, (k+1)R)`; R is the one admission chose and changes as
//! tasks come and go). A round opens at the first decision at or after its
//! start: every task's budget is refilled (x_i blocks, and in versions C and
//! CA one request, the one rotation Eq. (8) charges), the aperiodic
//! server's x_a blocks too, and the sweep direction reverses.
//!
//! **Budgets.** A task's requests wait in arrival order (so an older job is
//! never overtaken by a newer one) and enter the cylinder index of eligible
//! requests only as far as the task's budget for the round allows; the
//! rest wait for the next round. Aperiodic requests sit in an index of
//! their own. A round's cost is thus proportional to what it serves and to
//! the number of tasks, never to the backlog.
//!
//! **The reserved sweep.** One nanosecond after the round opens (so that
//! every request released at that instant, such as CA's aligned jobs, is
//! queued before it starts, whatever order the driver submits them in), the
//! round sweeps once across the disk in its direction, starting from the
//! edge (so that everything queued lies ahead, as in the paper's SCAN),
//! serving in cylinder order
//! the eligible requests and aperiodic ones while x_a lasts. This sweep is
//! what Eqs. (7), (8), (10) bound: one stroke, x_i blocks per task, x_a
//! aperiodic blocks. (The seek that brings the arm to the sweep's first
//! request, from wherever reclaimed work left it, is outside the paper's
//! single t_s; so is any controller overhead. Both come out of the slack the
//! bounds' worst cases leave, which `spindle repro tsai04` reports.)
//!
//! **Bandwidth reclamation** (§3.1 end, §4): once nothing affordable lies
//! ahead, the rest of the round is reclaimed. Queued requests, aperiodic
//! ones beyond x_a included, are served in elevator order as long as the
//! estimator says each ends before the round does, so that reclaimed work
//! never delays the next round's reserved sweep (the guarantee needs an
//! estimator that does not underestimate; the emulator's disk model is
//! exact). When the next request does not fit, the policy holds it and
//! [`Scheduler::next_eligible_at`] names the next round's start. Periodic
//! jobs are thus served in rounds while the disk still does work whenever
//! work is there: the next round's reserved work starts at its boundary,
//! and in between the disk is idle only when nothing fits.
//!
//! **Release-time alignment** (CA, §3.3) is done where a rate-based task is
//! turned into jobs, as the paper says: [`WrrScan::aligned_release`] gives
//! the round start a job's requests should be submitted at (the task's
//! buffer holds one more round's worth of blocks, as the paper requires).
//!
//! **Requests.** A task's request may be at most x_i blocks (of C bytes;
//! [`WrrParams::block_sectors`] sectors each): a driver splits a job into
//! such pieces (one contiguous piece a round in versions C and CA, single
//! blocks in version R, where every block lies elsewhere). Larger ones and
//! requests of classes not admitted are refused at enqueue. Deadlines are
//! not used for ordering: the reservation is the guarantee.
//!
//! With no task admitted there are no rounds and the policy is LOOK.
//!
//! Memory: 62 bytes a queued request (the slab's 47, two cylinder indexes of
//! 7, a place tag); the task table lives in a second storage `T` chosen by
//! the caller (40 bytes a task). Nothing is allocated.

use crate::error::{BuildError, CancelError, EnqueueError, valid};
use crate::queue::{CylinderIndex, NIL, Slab, Slot};
use crate::request::{Cylinder, Direction, Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::storage::{Inline, Slots, Storage};

use super::sweep::elevator_pick;
use super::wrr_admission::{
    AdmitError, RateTask, Reservation, Round, WrrMode, WrrParams, largest_round,
};

/// Where a queued request is.
const ELIGIBLE: u8 = 0;
const APERIODIC: u8 = 1;
const WAITING: u8 = 2;

/// Admitted tasks sorted by class, with their per-round budgets and the
/// heads of their waiting lists.
#[derive(Clone)]
struct TaskTable<T: Storage> {
    class: Slots<u16, T>,
    period: Slots<Nanos, T>,
    blocks: Slots<u32, T>,
    /// x_i in sectors.
    budget: Slots<u32, T>,
    /// Sectors served in the open round.
    used: Slots<u32, T>,
    /// Requests served in the open round.
    pieces: Slots<u16, T>,
    /// Sectors and requests in the eligible index.
    eligible: Slots<u32, T>,
    eligible_pieces: Slots<u16, T>,
    /// First request waiting for budget, in arrival order.
    waiting: Slots<Slot, T>,
    len: usize,
    capacity: usize,
}

impl<T: Storage> TaskTable<T> {
    fn new(storage: &T) -> Self {
        TaskTable {
            class: Slots::new(storage, 0),
            period: Slots::new(storage, 0),
            blocks: Slots::new(storage, 0),
            budget: Slots::new(storage, 0),
            used: Slots::new(storage, 0),
            pieces: Slots::new(storage, 0),
            eligible: Slots::new(storage, 0),
            eligible_pieces: Slots::new(storage, 0),
            waiting: Slots::new(storage, NIL),
            len: 0,
            capacity: storage.capacity(),
        }
    }
}

impl<const M: usize> TaskTable<Inline<M>> {
    /// [`TaskTable::new`] on inline storage, in const context; like the
    /// slab, it checks the capacity `M` at compile time.
    const fn inline() -> Self {
        let _checked = Inline::<M>::new();
        TaskTable {
            class: Slots::inline(0),
            period: Slots::inline(0),
            blocks: Slots::inline(0),
            budget: Slots::inline(0),
            used: Slots::inline(0),
            pieces: Slots::inline(0),
            eligible: Slots::inline(0),
            eligible_pieces: Slots::inline(0),
            waiting: Slots::inline(NIL),
            len: 0,
            capacity: M,
        }
    }
}

impl<T: Storage> TaskTable<T> {
    fn find(&self, class: u16) -> Result<usize, usize> {
        self.class.as_slice()[..self.len].binary_search(&class)
    }

    fn task(&self, i: usize) -> RateTask {
        RateTask {
            class: self.class[i],
            period: self.period[i],
            blocks: self.blocks[i],
        }
    }

    fn pairs(&self) -> impl Iterator<Item = (Nanos, u32)> + '_ {
        self.period.as_slice()[..self.len]
            .iter()
            .copied()
            .zip(self.blocks.as_slice()[..self.len].iter().copied())
    }

    /// Opens a gap at `at` (insert) or closes it (remove) in every array.
    fn shift(&mut self, at: usize, insert: bool) {
        let n = self.len;
        macro_rules! each {
            ($($a:ident),*) => {$(
                if insert {
                    self.$a.as_mut_slice().copy_within(at..n, at + 1);
                } else {
                    self.$a.as_mut_slice().copy_within(at + 1..n, at);
                }
            )*};
        }
        each!(
            class,
            period,
            blocks,
            budget,
            used,
            pieces,
            eligible,
            eligible_pieces,
            waiting
        );
        if insert {
            self.len += 1;
        } else {
            self.len -= 1;
        }
    }
}

/// Which part of the open round the disk is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The reserved sweep, at `cursor` (the last cylinder served, or the
    /// edge the sweep starts from).
    Reserved { cursor: Cylinder },
    /// Reclaimed bandwidth, until the round ends.
    Reclaimed,
}

/// WRR-SCAN in one of its three versions, on request storage `S` and task
/// table storage `T`.
///
/// ```
/// use sched_core::policy::{AdmitError, AperiodicReserve, RateTask, WrrMode, WrrParams, WrrScan};
/// use sched_core::{Block, Blocks, Cyl, Head, Inline, Kind, NullEstimator, Request, RequestId, Scheduler};
///
/// let params = WrrParams::tsai04(WrrMode::Contiguous, AperiodicReserve::Blocks(2));
/// let mut q: WrrScan<Inline<64>, Inline<8>> =
///     WrrScan::new(Inline::new(), Inline::new(), 1962, params)?;
/// // A 56 KB buffer filled at 11.2 KB/s: 14 blocks every 5 s.
/// let video = RateTask::from_rate(1, 11_469, 57_344, 4096)?;
/// let r = q.admit(video)?;
/// // The longest round Eq. (8) allows, P/2; all 14 blocks in one round.
/// assert_eq!((r.round, r.blocks_per_round), (video.period / 2, 14));
/// // Far too much for the disk: refused, naming the bound.
/// let hog = RateTask { class: 2, period: 1_000_000_000, blocks: 5_000 };
/// assert!(matches!(q.admit(hog), Err(AdmitError::Unschedulable { .. })));
/// // The task's requests carry its class; aperiodic ones class 0.
/// q.enqueue(Request::new(RequestId(1), Kind::Read, Block(0), Blocks(112), Cyl(900), 0).with_class(1))?;
/// q.enqueue(Request::new(RequestId(2), Kind::Read, Block(0), Blocks(8), Cyl(100), 0))?;
/// // A round opens at 0 and sweeps from 1 ns on, up from cylinder 0 first.
/// assert!(q.next(Head::at(0), 0, &NullEstimator).is_none());
/// assert_eq!(q.next_eligible_at(0), Some(1));
/// let order: Vec<_> = std::iter::from_fn(|| q.next(Head::at(0), 1, &NullEstimator))
///     .map(|d| d.request.id)
///     .collect();
/// assert_eq!(order, [RequestId(2), RequestId(1)]);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct WrrScan<S: Storage, T: Storage = S> {
    slab: Slab<S>,
    /// Periodic requests their task may be served this round.
    eligible: CylinderIndex<S>,
    /// Aperiodic requests (and those of removed tasks).
    aperiodic: CylinderIndex<S>,
    /// ELIGIBLE, APERIODIC or WAITING, per slot.
    place: Slots<u8, S>,
    tasks: TaskTable<T>,
    params: WrrParams,
    /// The round in force; `None` with no task admitted.
    round: Option<Round>,
    cylinders: u32,
    /// End of the open round (0: none open yet).
    round_end: Nanos,
    /// When the open round's reserved sweep may begin (1 ns after it opened).
    sweep_from: Nanos,
    direction: Direction,
    phase: Phase,
    /// Aperiodic sectors served in the open round, the budget, and whether
    /// the reserved sweep has stopped serving them.
    aperiodic_used: u32,
    aperiodic_budget: u32,
    aperiodic_closed: bool,
}

impl<S: Storage, T: Storage> WrrScan<S, T> {
    /// An empty queue with no task admitted for a disk of `cylinders`
    /// cylinders, admitting by `params`; requests live in `storage`, tasks
    /// in `tasks`.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a disk without cylinders, a zero
    /// block size or block time, or a zero rotation bound.
    pub fn new(
        storage: S,
        tasks: T,
        cylinders: u32,
        params: WrrParams,
    ) -> Result<Self, BuildError> {
        check_params(&params)?;
        Ok(Self::idle(
            Slab::new(&storage),
            CylinderIndex::new(&storage, cylinders)?,
            CylinderIndex::new(&storage, cylinders)?,
            Slots::new(&storage, APERIODIC),
            TaskTable::new(&tasks),
            cylinders,
            params,
        ))
    }

    /// The scheduler before its first request, on built storage (one
    /// body for [`WrrScan::new`] and [`WrrScan::new_inline`]).
    const fn idle(
        slab: Slab<S>,
        eligible: CylinderIndex<S>,
        aperiodic: CylinderIndex<S>,
        place: Slots<u8, S>,
        tasks: TaskTable<T>,
        cylinders: u32,
        params: WrrParams,
    ) -> Self {
        WrrScan {
            slab,
            eligible,
            aperiodic,
            place,
            tasks,
            params,
            round: None,
            cylinders,
            round_end: 0,
            sweep_from: 0,
            direction: Direction::Down,
            phase: Phase::Reclaimed,
            aperiodic_used: 0,
            aperiodic_budget: 0,
            aperiodic_closed: false,
        }
    }

    /// The admission constants.
    pub fn params(&self) -> &WrrParams {
        &self.params
    }

    /// The round in force (`None` with no task admitted).
    pub fn round(&self) -> Option<Round> {
        self.round
    }

    /// Number of admitted tasks.
    pub fn tasks(&self) -> usize {
        self.tasks.len
    }

    /// Admits `task` if the version's test passes with it; returns its
    /// reservation. The round length is chosen afresh (the largest that
    /// passes), so the other tasks' reservations may change: read them with
    /// [`reservation`](Self::reservation). Cost: O(n) per round length tried.
    ///
    /// # Errors
    /// [`AdmitError`] naming the field or the bound that failed; nothing changes.
    pub fn admit(&mut self, task: RateTask) -> Result<Reservation, AdmitError> {
        self.params.check_task(&task)?;
        let at = match self.tasks.find(task.class) {
            Ok(_) => return Err(AdmitError::DuplicateClass(task.class)),
            Err(at) => at,
        };
        if self.tasks.len == self.tasks.capacity {
            return Err(AdmitError::TableFull {
                capacity: self.tasks.capacity,
            });
        }
        let table = &self.tasks;
        let round = largest_round(&self.params, || {
            table
                .pairs()
                .chain(core::iter::once((task.period, task.blocks)))
        })?;
        let t = &mut self.tasks;
        t.shift(at, true);
        t.class[at] = task.class;
        t.period[at] = task.period;
        t.blocks[at] = task.blocks;
        t.used[at] = 0;
        t.pieces[at] = 0;
        t.eligible[at] = 0;
        t.eligible_pieces[at] = 0;
        t.waiting[at] = NIL;
        self.install(round);
        Ok(self
            .reservation(task.class)
            .expect("the task was just admitted"))
    }

    /// Whether `task` would be admitted now, and with what reservation;
    /// nothing changes.
    ///
    /// # Errors
    /// As [`admit`](Self::admit).
    pub fn try_admit(&self, task: RateTask) -> Result<Reservation, AdmitError> {
        self.params.check_task(&task)?;
        if self.tasks.find(task.class).is_ok() {
            return Err(AdmitError::DuplicateClass(task.class));
        }
        if self.tasks.len == self.tasks.capacity {
            return Err(AdmitError::TableFull {
                capacity: self.tasks.capacity,
            });
        }
        let round = largest_round(&self.params, || {
            self.tasks
                .pairs()
                .chain(core::iter::once((task.period, task.blocks)))
        })?
        .expect("at least the new task");
        Ok(round.reservation(self.params.mode, &self.params, &task))
    }

    /// Removes the task of `class`, freeing its share (the round is chosen
    /// afresh); returns it, or `None` if no such task is admitted. Its
    /// queued requests stay queued and are served as aperiodic work.
    pub fn remove(&mut self, class: u16) -> Option<RateTask> {
        let at = self.tasks.find(class).ok()?;
        let task = self.tasks.task(at);
        // Its requests become aperiodic work: out of the eligible index and
        // the waiting list, into the aperiodic index.
        while self.tasks.waiting[at] != NIL {
            let s = self.tasks.waiting[at];
            self.eligible.side_remove(&mut self.tasks.waiting[at], s);
            self.place_aperiodic(s);
        }
        // Its eligible requests (a few: one round's worth) are found by a
        // scan of the queue; removal is rare.
        while self.tasks.eligible_pieces[at] > 0 {
            let found = self
                .slab
                .occupied()
                .find(|&s| self.place[s as usize] == ELIGIBLE && self.slab.get(s).class == class);
            let Some(s) = found else { break };
            self.eligible.remove(&self.slab, s);
            self.tasks.eligible_pieces[at] -= 1;
            self.place_aperiodic(s);
        }
        self.tasks.shift(at, false);
        // Removing a task never raises the lower bound nor lowers the upper
        // one below the current round: a round always exists.
        let round = largest_round(&self.params, || self.tasks.pairs())
            .expect("a subset of a schedulable set is schedulable");
        self.install(round);
        Some(task)
    }

    fn place_aperiodic(&mut self, s: Slot) {
        self.place[s as usize] = APERIODIC;
        self.aperiodic.insert(&self.slab, s);
    }

    /// The current reservation of the task of `class`.
    pub fn reservation(&self, class: u16) -> Option<Reservation> {
        let at = self.tasks.find(class).ok()?;
        let round = self.round?;
        Some(round.reservation(self.params.mode, &self.params, &self.tasks.task(at)))
    }

    /// When a job released at `release` should be submitted: in version CA
    /// the start of the round holding `release` (§3.3), otherwise `release`.
    pub fn aligned_release(&self, release: Nanos) -> Nanos {
        match (self.params.mode, self.round) {
            (WrrMode::Aligned, Some(r)) => release - release % r.length,
            _ => release,
        }
    }

    /// Sets the budgets for a new round length and restarts the rounds.
    /// Requests already eligible stay so (for one round a task may get the
    /// larger of its old and new weight).
    fn install(&mut self, round: Option<Round>) {
        self.round = round;
        let spb = self.params.block_sectors;
        for i in 0..self.tasks.len {
            let x = match round {
                Some(r) => {
                    r.reservation(self.params.mode, &self.params, &self.tasks.task(i))
                        .blocks_per_round
                }
                None => 0,
            };
            self.tasks.budget[i] = x.saturating_mul(spb);
        }
        self.aperiodic_budget = round.map_or(0, |r| {
            u32::try_from(r.aperiodic_blocks)
                .unwrap_or(u32::MAX)
                .saturating_mul(spb)
        });
        for i in 0..self.tasks.len {
            self.promote(i);
        }
        // The next decision opens a round on the new grid.
        self.round_end = 0;
    }

    /// Whether task `i` may take a request of `sectors` more this round.
    fn fits(&self, i: usize, sectors: u32) -> bool {
        let t = &self.tasks;
        let committed = t.used[i].saturating_add(t.eligible[i]);
        let one_piece = !matches!(self.params.mode, WrrMode::Random);
        if one_piece && (t.pieces[i] > 0 || t.eligible_pieces[i] > 0) {
            return false;
        }
        committed == 0 || committed.saturating_add(sectors) <= t.budget[i]
    }

    fn make_eligible(&mut self, i: usize, s: Slot) {
        let blocks = self.slab.get(s).blocks;
        self.place[s as usize] = ELIGIBLE;
        self.eligible.insert(&self.slab, s);
        self.tasks.eligible[i] = self.tasks.eligible[i].saturating_add(blocks);
        self.tasks.eligible_pieces[i] = self.tasks.eligible_pieces[i].saturating_add(1);
    }

    /// Moves task `i`'s oldest waiting requests into the eligible index
    /// while its budget allows.
    fn promote(&mut self, i: usize) {
        loop {
            let s = self.tasks.waiting[i];
            if s == NIL || !self.fits(i, self.slab.get(s).blocks) {
                return;
            }
            self.eligible.side_remove(&mut self.tasks.waiting[i], s);
            self.make_eligible(i, s);
        }
    }

    /// Opens the round holding `now`.
    fn open_round(&mut self, now: Nanos, length: Nanos) {
        self.round_end = (now / length + 1).saturating_mul(length);
        self.sweep_from = now.saturating_add(1).min(self.round_end);
        self.direction = self.direction.reversed();
        let cursor = match self.direction {
            Direction::Up => 0,
            Direction::Down => self.cylinders - 1,
        };
        self.phase = Phase::Reserved { cursor };
        self.aperiodic_used = 0;
        self.aperiodic_closed = self.aperiodic_budget == 0;
        for i in 0..self.tasks.len {
            self.tasks.used[i] = 0;
            self.tasks.pieces[i] = 0;
            self.promote(i);
        }
    }

    /// Takes slot `s` out of wherever it is; `served` charges its task.
    fn take(&mut self, s: Slot, served: bool) -> Request {
        let req = self.slab.get(s);
        match self.place[s as usize] {
            ELIGIBLE => {
                self.eligible.remove(&self.slab, s);
                if let Ok(i) = self.tasks.find(req.class) {
                    let t = &mut self.tasks;
                    t.eligible[i] = t.eligible[i].saturating_sub(req.blocks);
                    t.eligible_pieces[i] = t.eligible_pieces[i].saturating_sub(1);
                    if served {
                        t.used[i] = t.used[i].saturating_add(req.blocks);
                        t.pieces[i] = t.pieces[i].saturating_add(1);
                    } else {
                        self.promote(i);
                    }
                }
            }
            WAITING => {
                if let Ok(i) = self.tasks.find(req.class) {
                    self.eligible.side_remove(&mut self.tasks.waiting[i], s);
                }
            }
            _ => {
                self.aperiodic.remove(&self.slab, s);
                if served {
                    self.aperiodic_used = self.aperiodic_used.saturating_add(req.blocks);
                }
            }
        }
        self.place[s as usize] = APERIODIC;
        self.slab.remove(s)
    }

    /// Whether the reserved sweep may serve an aperiodic request of `sectors`.
    fn aperiodic_affordable(&self, sectors: u32) -> bool {
        self.aperiodic_used == 0 && self.aperiodic_budget > 0
            || self.aperiodic_used.saturating_add(sectors) <= self.aperiodic_budget
    }

    fn ahead(
        index: &CylinderIndex<S>,
        slab: &Slab<S>,
        cursor: Cylinder,
        d: Direction,
    ) -> Option<Slot> {
        match d {
            Direction::Up => index.at_or_above(slab, cursor),
            Direction::Down => index.at_or_below(slab, cursor),
        }
    }

    /// Of two candidates, the one the arm reaches first moving `d` from `h`
    /// (ahead before behind, then nearer; the periodic one on a tie).
    fn first_of(
        &self,
        h: Cylinder,
        d: Direction,
        a: Option<(Slot, Direction)>,
        b: Option<(Slot, Direction)>,
    ) -> Option<(Slot, Direction)> {
        match (a, b) {
            (Some(x), Some(y)) => {
                let key =
                    |(s, dir): (Slot, Direction)| (dir != d, self.slab.cylinder(s).abs_diff(h));
                Some(if key(y) < key(x) { y } else { x })
            }
            (x, None) => x,
            (None, y) => y,
        }
    }
}

impl<S: Storage, T: Storage> Scheduler for WrrScan<S, T> {
    fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
        self.eligible.check(&req)?;
        let task = if req.class == 0 {
            None
        } else {
            let Ok(i) = self.tasks.find(req.class) else {
                return Err(EnqueueError::NotAdmitted {
                    id: req.id,
                    class: req.class,
                });
            };
            if req.blocks > self.tasks.budget[i] {
                return Err(EnqueueError::ExceedsReservation {
                    id: req.id,
                    blocks: req.blocks,
                    per_round: self.tasks.budget[i],
                });
            }
            Some(i)
        };
        let s = self.slab.insert(&req)?;
        match task {
            None => self.place_aperiodic(s),
            Some(i) if self.tasks.waiting[i] == NIL && self.fits(i, req.blocks) => {
                self.make_eligible(i, s);
            }
            Some(i) => {
                self.place[s as usize] = WAITING;
                self.eligible.side_push_back(&mut self.tasks.waiting[i], s);
            }
        }
        Ok(())
    }

    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        let Some(round) = self.round else {
            // No task: plain LOOK over the aperiodic work.
            let (s, direction) =
                elevator_pick(&self.aperiodic, &self.slab, head.cylinder, self.direction)?;
            self.direction = direction;
            return Some(Dispatch::direct(self.take(s, true)));
        };
        if now >= self.round_end {
            self.open_round(now, round.length);
        }
        if now < self.sweep_from {
            return None;
        }
        if let Phase::Reserved { cursor } = self.phase {
            let d = self.direction;
            loop {
                let periodic = Self::ahead(&self.eligible, &self.slab, cursor, d).map(|s| (s, d));
                let aperiodic = if self.aperiodic_closed {
                    None
                } else {
                    Self::ahead(&self.aperiodic, &self.slab, cursor, d).map(|s| (s, d))
                };
                let Some((s, _)) = self.first_of(cursor, d, periodic, aperiodic) else {
                    self.phase = Phase::Reclaimed;
                    break;
                };
                if self.place[s as usize] == APERIODIC
                    && !self.aperiodic_affordable(self.slab.get(s).blocks)
                {
                    self.aperiodic_closed = true;
                    continue;
                }
                self.phase = Phase::Reserved {
                    cursor: self.slab.cylinder(s),
                };
                return Some(Dispatch::direct(self.take(s, true)));
            }
        }
        // Reclaimed time: whatever is queued and fits before the round ends.
        let h = head.cylinder;
        let periodic = elevator_pick(&self.eligible, &self.slab, h, self.direction);
        let aperiodic = elevator_pick(&self.aperiodic, &self.slab, h, self.direction);
        let (s, direction) = self.first_of(h, self.direction, periodic, aperiodic)?;
        let req = self.slab.get(s);
        let end = now.saturating_add(est.service_time(head, &req, now));
        if end > self.round_end {
            return None;
        }
        self.direction = direction;
        Some(Dispatch::direct(self.take(s, true)))
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.slab.find(id).ok_or(CancelError::UnknownId(id))?;
        Ok(self.take(s, false))
    }

    fn len(&self) -> usize {
        self.slab.len()
    }

    fn capacity(&self) -> usize {
        self.slab.capacity()
    }

    fn contains(&self, id: RequestId) -> bool {
        self.slab.find(id).is_some()
    }

    fn pop_any(&mut self) -> Option<Request> {
        let s = self.slab.any_occupied()?;
        Some(self.take(s, false))
    }

    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        if self.round.is_none() || self.is_empty() {
            return None;
        }
        if now < self.sweep_from {
            return Some(self.sweep_from);
        }
        (self.round_end > now).then_some(self.round_end)
    }
}

impl<const N: usize, const M: usize> WrrScan<Inline<N>, Inline<M>> {
    /// [`WrrScan::new`] on `N` inline request slots and `M` inline task
    /// slots, built in const context: the policy can live in a `static`
    /// (see [`Sstf::new_inline`](crate::policy::Sstf::new_inline)), with
    /// [`WrrParams::tsai04`] as its parameters if need be, and tasks are
    /// admitted at run time on the locked static.
    ///
    /// ```
    /// use std::sync::Mutex;
    ///
    /// use sched_core::Inline;
    /// use sched_core::policy::{AperiodicReserve, RateTask, WrrMode, WrrParams, WrrScan};
    ///
    /// const PARAMS: WrrParams = WrrParams::tsai04(WrrMode::Contiguous, AperiodicReserve::Blocks(2));
    /// static QUEUE: Mutex<WrrScan<Inline<64>, Inline<8>>> = Mutex::new(WrrScan::new_inline(1962, PARAMS));
    ///
    /// let video = RateTask::from_rate(1, 11_469, 57_344, 4096)?;
    /// let r = QUEUE.lock().unwrap().admit(video)?;
    /// assert_eq!(r.blocks_per_round, 14);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// The task table is checked like the request slots: a table of no
    /// tasks does not compile.
    ///
    /// ```compile_fail,E0080
    /// use sched_core::Inline;
    /// use sched_core::policy::{AperiodicReserve, WrrMode, WrrParams, WrrScan};
    ///
    /// const PARAMS: WrrParams = WrrParams::tsai04(WrrMode::Contiguous, AperiodicReserve::Blocks(2));
    /// static NO_TASKS: WrrScan<Inline<64>, Inline<0>> = WrrScan::new_inline(1962, PARAMS);
    /// ```
    ///
    /// # Panics
    /// For a disk without cylinders, a zero block size or block time, or a
    /// zero rotation bound (which [`WrrScan::new`] reports as
    /// [`BuildError::InvalidParameter`]); in a `static` or `const`
    /// initializer that is a compile error, not a panic at run time. A
    /// capacity `N` or `M` of 0 or above
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY) does not compile.
    pub const fn new_inline(cylinders: u32, params: WrrParams) -> Self {
        valid(check_params(&params));
        Self::idle(
            Slab::inline(),
            CylinderIndex::inline(cylinders),
            CylinderIndex::inline(cylinders),
            Slots::inline(APERIODIC),
            TaskTable::inline(),
            cylinders,
            params,
        )
    }
}

/// The admission constants a round needs to be positive.
const fn check_params(params: &WrrParams) -> Result<(), BuildError> {
    if params.block_sectors == 0 {
        return Err(BuildError::invalid("C", "at least one sector a block"));
    }
    if params.block_time == 0 {
        return Err(BuildError::invalid("C/V", "a positive block transfer time"));
    }
    if params.rotation == 0 || params.revolution == 0 {
        return Err(BuildError::invalid("t_r", "a positive rotation time"));
    }
    Ok(())
}

/// What the queue holds, its capacity and the round in force, not its slots.
impl<S: Storage, T: Storage> core::fmt::Debug for WrrScan<S, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WrrScan")
            .field("queued", &Scheduler::len(self))
            .field("capacity", &Scheduler::capacity(self))
            .field("round", &self.round())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{AperiodicReserve, Bound};
    use crate::request::{Block, Blocks, Cyl};
    use crate::request::{Kind, RequestId};
    use crate::scheduler::NullEstimator;
    use crate::storage::Inline;

    const MS: Nanos = 1_000_000;

    fn wrr(mode: WrrMode) -> WrrScan<Inline<64>, Inline<8>> {
        WrrScan::new(
            Inline::new(),
            Inline::new(),
            1962,
            WrrParams::tsai04(mode, AperiodicReserve::Blocks(1)),
        )
        .unwrap()
    }

    fn req(id: u64, class: u16, cylinder: u32, sectors: u32) -> Request {
        Request::new(
            RequestId(id),
            Kind::Read,
            Block(0),
            Blocks(sectors),
            Cyl(cylinder),
            0,
        )
        .with_class(class)
    }

    fn task(class: u16) -> RateTask {
        RateTask {
            class,
            period: 5000 * MS,
            blocks: 14,
        }
    }

    #[test]
    fn admission_returns_the_reservation_and_removal_frees_it() {
        let mut q = wrr(WrrMode::Aligned);
        let r = q.admit(task(3)).unwrap();
        // CA: R = min P = 5 s, q' = 1, x = 14 blocks.
        assert_eq!(r.round, 5000 * MS);
        assert_eq!((r.rounds_per_period, r.blocks_per_round), (1, 14));
        assert_eq!(r.weight, 14 * 1_462_857);
        assert_eq!(q.admit(task(3)), Err(AdmitError::DuplicateClass(3)));
        assert_eq!(q.remove(3), Some(task(3)));
        assert!(q.round().is_none());
        assert_eq!(q.remove(3), None);
    }

    #[test]
    fn a_full_disk_refuses_with_the_bound_and_a_removal_makes_room() {
        let mut q: WrrScan<Inline<8>, Inline<256>> = WrrScan::new(
            Inline::new(),
            Inline::new(),
            1962,
            WrrParams::tsai04(WrrMode::Contiguous, AperiodicReserve::Blocks(1)),
        )
        .unwrap();
        let mut class = 1;
        let err = loop {
            match q.admit(task(class)) {
                Ok(_) => class += 1,
                Err(e) => break e,
            }
        };
        assert!(matches!(
            err,
            AdmitError::Unschedulable {
                bound: Bound::Eq8,
                ..
            }
        ));
        // 2500 ms rounds, 15.7 + 24.46 (x_a) + n·(23 + 14·1.463) ms: 56 tasks.
        assert_eq!(q.tasks(), 56);
        assert!(q.remove(1).is_some());
        assert!(q.admit(task(class)).is_ok());
    }

    #[test]
    fn requests_of_unknown_classes_or_beyond_the_weight_are_refused() {
        let mut q = wrr(WrrMode::Contiguous);
        q.admit(task(2)).unwrap();
        assert!(matches!(
            q.enqueue(req(1, 5, 10, 8)),
            Err(EnqueueError::NotAdmitted { class: 5, .. })
        ));
        // x = 14 blocks = 112 sectors.
        assert!(q.enqueue(req(1, 2, 10, 112)).is_ok());
        assert!(matches!(
            q.enqueue(req(2, 2, 10, 113)),
            Err(EnqueueError::ExceedsReservation { .. })
        ));
    }

    #[test]
    fn a_round_serves_each_task_its_weight_in_one_sweep_then_holds() {
        let mut q = wrr(WrrMode::Random);
        // R: 8 tasks with 14 blocks every 5 s do not fit in 2.5 s rounds
        // (8 · 14 · 24.46 ms): shorter rounds, fewer blocks each.
        for class in 1..=8 {
            q.admit(task(class)).unwrap();
        }
        let r = q.reservation(1).unwrap();
        let per_round = r.blocks_per_round;
        assert!(per_round < 14);
        for i in 0..14u32 {
            q.enqueue(req(u64::from(i), 1, 100 + i * 10, 8)).unwrap();
            q.enqueue(req(100 + u64::from(i), 2, 1500 - i * 10, 8))
                .unwrap();
        }
        let est = NullEstimator;
        let mut served = [0u32; 3];
        let mut cylinders = [0u32; 64];
        let mut n = 0;
        // The round opens at 0; its sweep starts 1 ns later.
        assert!(q.next(Head::at(0), 0, &est).is_none());
        assert_eq!(q.next_eligible_at(0), Some(1));
        // Reserved sweep: x_i blocks of each task, in one direction.
        while let Some(d) = q.next(Head::at(0), 1, &est) {
            served[d.request.class as usize] += 1;
            cylinders[n] = d.request.cylinder;
            n += 1;
            if n == 2 * per_round as usize {
                break;
            }
        }
        assert_eq!(served, [0, per_round, per_round]);
        let sweep = &cylinders[..n];
        let sorted_up = sweep.windows(2).all(|w| w[0] <= w[1]);
        let sorted_down = sweep.windows(2).all(|w| w[0] >= w[1]);
        assert!(sorted_up || sorted_down, "one sweep: {sweep:?}");
        // Nothing else is affordable before the round ends (NullEstimator
        // reclaims nothing because every budget is spent).
        assert!(q.next(Head::at(0), 2, &est).is_none());
        let end = q.next_eligible_at(2).unwrap();
        assert_eq!(end, r.round);
        // The next round sweeps the other way and serves the next x_i each.
        assert!(q.next(Head::at(0), end, &est).is_none());
        let first = q.next(Head::at(0), end + 1, &est).unwrap();
        let second = q.next(Head::at(0), end + 1, &est).unwrap();
        let was_up = sorted_up && !sorted_down;
        if was_up {
            assert!(first.request.cylinder >= second.request.cylinder);
        } else {
            assert!(first.request.cylinder <= second.request.cylinder);
        }
    }

    #[test]
    fn the_aperiodic_server_gets_its_blocks_and_reclaimed_time() {
        let mut q = wrr(WrrMode::Contiguous);
        q.admit(task(1)).unwrap();
        for i in 0..5 {
            q.enqueue(req(i, 0, 100 * i as u32, 8)).unwrap();
        }
        let est = NullEstimator;
        // x_a = 1 in the reserved sweep, the rest reclaimed (all fit: the
        // estimator says they take no time).
        let mut n = 0;
        assert!(q.next(Head::at(0), 0, &est).is_none());
        while q.next(Head::at(0), 1, &est).is_some() {
            n += 1;
        }
        assert_eq!(n, 5);
        assert!(q.is_empty());
    }

    #[test]
    fn without_tasks_it_is_look() {
        let mut q = wrr(WrrMode::Aligned);
        for (i, c) in [50u32, 10, 70, 30].into_iter().enumerate() {
            q.enqueue(req(i as u64, 0, c, 8)).unwrap();
        }
        let est = NullEstimator;
        let order: [u32; 4] =
            core::array::from_fn(|_| q.next(Head::at(40), 0, &est).unwrap().request.cylinder);
        // LOOK starts downward here (the policy's initial direction).
        assert_eq!(order, [30, 10, 50, 70]);
    }

    #[test]
    fn ca_releases_jobs_at_round_starts() {
        let mut q = wrr(WrrMode::Aligned);
        q.admit(task(1)).unwrap();
        assert_eq!(q.aligned_release(7000 * MS), 5000 * MS);
        let mut c = wrr(WrrMode::Contiguous);
        c.admit(task(1)).unwrap();
        assert_eq!(c.aligned_release(7000 * MS), 7000 * MS);
    }
}
