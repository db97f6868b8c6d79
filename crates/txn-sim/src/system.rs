//! The closed transaction system and its event loop (Chen & Towsley 1991,
//! §2 and §4.1): users think, submit transactions of N_s steps, and each
//! step locks a page, reads it unless it is in the transaction's private
//! buffer, and computes on the EDF CPU; at the end the dirty pages are
//! written back and the transaction commits when every write has completed.
//!
//! Choices where the paper is silent (documented here, once; where the
//! text allows more than one reading, the choice is a
//! [`Readings`](crate::params::Readings) field and the one described here
//! is its default):
//! - The CPU burst of a step follows its page access; the initial CPU
//!   request the paper mentions has no cost of its own.
//! - An update step also reads its page first (read, modify, write back at
//!   commit); a page already in the buffer costs no I/O, and updating it
//!   marks it dirty ([`BufferRule::Reread`] reads it again). Page p is
//!   block p ([`PageLayout::Spread`] spreads a smaller database over the
//!   whole disk).
//! - A transaction aborted by a deadlock releases its locks at once (so its
//!   victims proceed), then spends T_A on the CPU, then restarts from its
//!   first step with the same pages and deadline and an empty buffer (its
//!   copies may be stale once the locks are gone); [`RestartDeadline::Renew`]
//!   gives the restart a deadline of its own.
//! - Without deadlines (Figure 13) nothing ends a livelock in which the
//!   same transactions keep closing cycles and restarting, so there an
//!   aborted transaction restarts only once one of the transactions it was
//!   blocked by has left (a restart delay in the manner of Agrawal, Carey
//!   & Livny's concurrency-control studies). Restart waits then form no
//!   cycle, so some transaction always commits. With deadlines the paper's
//!   immediate restart is kept (unless each restart renews its deadline,
//!   when again nothing would end a livelock).
//! - A transaction is *lost* when its deadline passes before its write
//!   phase: it leaves at once, its locks are released and its queued I/O is
//!   cancelled (a request in service runs to its end, unreported). One whose
//!   deadline passes during the write phase completes its writes and counts
//!   as *missed*. The loss ratio counts both ([`LossRule::LostOnly`]: only
//!   the lost).
//! - DL_LOW = max(1, k · N_u) ([`DlLowRule::AtMostOne`](crate::params::DlLowRule::AtMostOne): min, as printed);
//!   a release grants the lock to every compatible waiter in deadline order
//!   ([`LockWake::ArrivalOrder`](crate::params::LockWake::ArrivalOrder): in
//!   the order they began to wait).
//! - Simultaneous events run in a fixed order: the device's, then the CPU's,
//!   then the timers' (think ends, deadlines) in the order they were set (the
//!   event loop's ranks: the CPU is the first rank after the devices, the
//!   timers the second). A transaction committing exactly at its deadline
//!   meets it.
//! - After the last measured transaction no new one starts; those under way
//!   finish (commit or are lost) and the device drains, so that every run
//!   ends with an empty lock table and every request accounted for.

use disk_emu::{Device, DeviceError, Outcome, Rank, Stream};
use experiments::seeds::{Purpose, Unit};
use experiments::simulation::{Driver, Flow, Simulation};
use sched_core::{Kind, Nanos};

use crate::cpu::EdfCpu;
use crate::io::{IoCounts, IoError, IoLedger, IoReport, IoTag};
use crate::locks::{Acquire, LockTable, Mode, Page, Priority};
use crate::params::{BufferRule, LossRule, PageLayout, ParamError, RestartDeadline, TxnParams};

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Invalid parameters, found before anything ran.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The I/O subsystem failed.
    #[error("I/O: {0}")]
    Io(#[from] IoError),
    /// The device refused an input or misbehaved.
    #[error("I/O: {0}")]
    Device(#[from] DeviceError),
    /// A replication run in another shard of the sweep failed (its error as
    /// met there), or the merged parts do not answer this point.
    #[error(transparent)]
    Sharded(#[from] experiments::sharding::ShardFailure),
    /// A deadline beyond the end of the virtual clock.
    #[error(
        "replication {replication}: at {now} ns a deadline {relative_ms:e} ms later is beyond representable time"
    )]
    ClockOverflow {
        /// The replication.
        replication: u64,
        /// The arrival, ns.
        now: Nanos,
        /// The relative deadline drawn, ms.
        relative_ms: f64,
    },
    /// An invariant of the system broke at the end of a run (a bug).
    #[error("replication {replication}: {what}")]
    Invariant {
        /// The replication.
        replication: u64,
        /// What broke.
        what: String,
    },
}

/// Where a transaction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// No transaction (the user thinks, or the run is draining).
    Idle,
    /// Waiting for a lock.
    LockWait,
    /// Waiting for its page to be read.
    Reading,
    /// On the CPU (ready or running) for a step.
    Computing,
    /// On the CPU for the abort after a deadlock.
    Aborting,
    /// Aborted without deadlines: waiting for a blocker to leave before
    /// restarting.
    RestartWait,
    /// Waiting for its dirty pages to be written.
    Writing,
}

#[derive(Clone, Debug)]
struct Txn {
    seq: u64,
    phase: Phase,
    arrival: Nanos,
    deadline: Option<Nanos>,
    priority: Priority,
    steps: Vec<(Page, Mode)>,
    step: usize,
    /// Pages in the private buffer, and whether each is dirty.
    buffer: Vec<(Page, bool)>,
    /// I/O requests issued and not yet finished.
    ios: Vec<u64>,
    pending_writes: usize,
    /// After a deadlock without deadlines: the transactions (slot, sequence
    /// number) it was blocked by; it restarts when one of them has left.
    blockers: Vec<(usize, u64)>,
    /// Whether its last abort was counted in the window (so is its restart).
    abort_counted: bool,
}

impl Txn {
    fn idle() -> Self {
        Txn {
            seq: 0,
            phase: Phase::Idle,
            arrival: 0,
            deadline: None,
            priority: (0, 0),
            steps: Vec::with_capacity(20),
            step: 0,
            buffer: Vec::with_capacity(20),
            ios: Vec::with_capacity(20),
            pending_writes: 0,
            blockers: Vec::new(),
            abort_counted: false,
        }
    }
}

/// The transaction system's own events in the event loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnEvent {
    /// The CPU's running job may be done (stale if the CPU's plan changed).
    Cpu,
    /// A user stops thinking.
    ThinkEnd(usize),
    /// The deadline of the slot's transaction with this sequence number.
    Deadline(usize, u64),
}

/// The CPU's rank among simultaneous events: after the devices' completions.
const CPU: Rank = Rank::after_devices(0);
/// The timers' rank: after the CPU.
const TIMERS: Rank = Rank::after_devices(1);

type Sim<D> = Simulation<D, TxnEvent>;

/// How a transaction left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Committed,
    Missed,
    Lost,
}

/// What one replication measured over its window (the transactions after
/// the warm-up).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunReport {
    /// The replication number.
    pub replication: u64,
    /// Transactions measured.
    pub measured: u64,
    /// Committed by their deadline.
    pub committed: u64,
    /// Lost before their write phase.
    pub lost: u64,
    /// Missed their deadline during the write phase (the database was updated).
    pub missed: u64,
    /// (lost + missed) / measured.
    pub loss_ratio: f64,
    /// Mean response time of the transactions committed in time, ms (NaN if none).
    pub response_ms: f64,
    /// Mean number of steps of the transactions committed in time (NaN if none).
    pub committed_size: f64,
    /// Deadlocks detected (each aborts its requester).
    pub deadlocks: u64,
    /// Transactions restarted after an abort.
    pub restarts: u64,
    /// Queue lengths and disk service in the window.
    pub io: IoReport,
    /// CPU busy fraction in the window.
    pub cpu_utilisation: f64,
    /// Length of the window, ms.
    pub window_ms: f64,
    /// The I/O ledger over the whole run (warm-up and drain included).
    pub ledger: IoCounts,
    /// Transactions started over the whole run.
    pub started: u64,
}

/// Counters over the measured window.
#[derive(Clone, Debug, Default)]
struct Window {
    open: bool,
    start: Nanos,
    cpu_busy_at_start: Nanos,
    committed: u64,
    lost: u64,
    missed: u64,
    response_sum: f64,
    size_sum: f64,
    deadlocks: u64,
    restarts: u64,
}

/// One replication of the transaction system: a driver of the event loop
/// over an I/O device `D`.
pub struct System<'p, D> {
    params: &'p TxnParams,
    replication: u64,
    step_cpu: Nanos,
    abort_cpu: Nanos,
    think: Nanos,
    /// T_C + T_D, ns per step.
    per_step: f64,
    bounds: Option<(f64, f64)>,
    /// Blocks of the disk (for the page layout).
    capacity: u64,
    io: IoLedger,
    /// The device, until the run puts it in the event loop.
    device: Option<D>,
    cpu: EdfCpu,
    /// The CPU finish the event loop holds an event for.
    cpu_entered: Option<Nanos>,
    locks: LockTable,
    txns: Vec<Txn>,
    think_stream: Stream,
    shape_stream: Stream,
    deadline_stream: Stream,
    next_seq: u64,
    finished: u64,
    stopping: bool,
    window: Window,
    io_report: Option<IoReport>,
    window_end: Nanos,
    cpu_busy_at_end: Nanos,
    woken: Vec<usize>,
    now: Nanos,
}

impl<'p, D: Device> System<'p, D>
where
    IoReport: From<D::Report>,
{
    /// Replication `replication` of `params` on `device`, ready to run.
    ///
    /// # Errors
    /// Invalid parameters.
    pub fn new(params: &'p TxnParams, replication: u64, device: D) -> Result<Self, SimError> {
        params.validate()?;
        let users = params.users as usize;
        let unit = Unit::new(params.seed, 0, replication);
        let capacity = params.capacity()?;
        Ok(System {
            params,
            replication,
            step_cpu: TxnParams::nanos(params.step_cpu_ms),
            abort_cpu: TxnParams::nanos(params.abort_cpu_ms),
            think: TxnParams::nanos(params.think_ms),
            per_step: (params.step_cpu_ms + params.disk_ms) * 1e6,
            bounds: params.deadline_bounds(),
            capacity,
            io: IoLedger::new(
                device.disks(),
                device.model(0).map_or(0, |m| m.capacity_blocks()),
            ),
            device: Some(device),
            cpu: EdfCpu::new(),
            cpu_entered: None,
            locks: LockTable::new(users, params.readings.lock_wake),
            txns: vec![Txn::idle(); users],
            think_stream: unit.stream(Purpose::Arrivals),
            shape_stream: unit.stream(Purpose::Addresses),
            deadline_stream: unit.stream(Purpose::Deadlines),
            next_seq: 0,
            finished: 0,
            stopping: false,
            window: Window {
                open: params.warmup == 0,
                ..Window::default()
            },
            io_report: None,
            window_end: 0,
            cpu_busy_at_end: 0,
            woken: Vec::new(),
            now: 0,
        })
    }

    /// Runs to the end: the measured transactions, then the drain.
    ///
    /// # Errors
    /// A device failure, or a broken invariant at the end.
    pub fn run(mut self) -> Result<RunReport, SimError> {
        let mut sim = Sim::new();
        if let Some(device) = self.device.take() {
            sim.add_device(device);
        }
        for u in 0..self.txns.len() {
            let t = self.think_stream.exponential(self.think);
            sim.schedule_ranked(t, TIMERS, TxnEvent::ThinkEnd(u));
        }
        sim.run(&mut self)
    }

    /// Keeps one event in the loop for the CPU's next finish.
    fn sync_cpu(&mut self, sim: &mut Sim<D>) {
        let next = self.cpu.next_finish();
        if next != self.cpu_entered {
            if let Some(t) = next {
                sim.schedule_ranked(t, CPU, TxnEvent::Cpu);
            }
            self.cpu_entered = next;
        }
    }

    /// A user stops thinking: a new transaction.
    fn begin(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        if self.stopping {
            return Ok(());
        }
        let p = self.params;
        let span = u64::from(p.steps_max - p.steps_min) + 1;
        let n = p.steps_min as usize + self.shape_stream.below(span) as usize;
        let seq = self.next_seq;
        self.next_seq += 1;
        let now = self.now;
        let deadline = self.draw_deadline(n)?;
        let txn = &mut self.txns[u];
        txn.seq = seq;
        txn.arrival = now;
        txn.deadline = deadline;
        txn.priority = (deadline.unwrap_or(now), seq);
        txn.step = 0;
        txn.buffer.clear();
        txn.ios.clear();
        txn.steps.clear();
        for _ in 0..n {
            let page = self.shape_stream.below(p.pages);
            let mode = if self.shape_stream.chance(p.read_probability) {
                Mode::Shared
            } else {
                Mode::Exclusive
            };
            txn.steps.push((page, mode));
        }
        if let Some(d) = deadline {
            sim.schedule_ranked(d, TIMERS, TxnEvent::Deadline(u, seq));
        }
        self.start_step(sim, u)
    }

    /// A deadline for a transaction of `steps` steps starting now: now +
    /// T_min · η, η ~ U[DL_LOW, DL_UP] (`None` without deadlines).
    fn draw_deadline(&mut self, steps: usize) -> Result<Option<Nanos>, SimError> {
        let Some((low, up)) = self.bounds else {
            return Ok(None);
        };
        let eta = low + (up - low) * self.deadline_stream.uniform();
        let relative = (self.per_step * steps as f64 * eta).round();
        // Validation bounds the relative deadline to half the clock; a run
        // that still reached past the clock's end is an error, never a
        // wrapped (early) deadline.
        let now = self.now;
        (relative < Nanos::MAX as f64)
            .then(|| now.checked_add(relative as Nanos))
            .flatten()
            .map(Some)
            .ok_or(SimError::ClockOverflow {
                replication: self.replication,
                now,
                relative_ms: relative / 1e6,
            })
    }

    /// The block holding `page` under the layout reading.
    fn block(&self, page: Page) -> u64 {
        page_block(
            self.params.readings.layout,
            page,
            self.params.pages,
            self.capacity,
        )
    }

    /// The next step: its lock, or the write phase after the last.
    fn start_step(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        let txn = &self.txns[u];
        if txn.step == txn.steps.len() {
            return self.write_back(sim, u);
        }
        let (page, mode) = txn.steps[txn.step];
        match self.locks.acquire(u, page, mode, txn.priority) {
            Acquire::Granted => self.access(sim, u),
            Acquire::Waiting => {
                self.txns[u].phase = Phase::LockWait;
                Ok(())
            }
            Acquire::Deadlock => self.abort(sim, u),
        }
    }

    /// The lock is held: read the page unless it is in the buffer.
    fn access(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        let now = self.now;
        let reread = self.params.readings.buffer == BufferRule::Reread;
        let (page, mode) = self.txns[u].steps[self.txns[u].step];
        let block = self.block(page);
        let txn = &mut self.txns[u];
        if !reread && let Some(slot) = txn.buffer.iter_mut().find(|(p, _)| *p == page) {
            slot.1 |= mode == Mode::Exclusive;
            return self.compute(u);
        }
        let tag = IoTag {
            txn: u,
            seq: txn.seq,
        };
        let id = self
            .io
            .submit(sim, tag, Kind::Read, block, txn.deadline, now)?;
        txn.ios.push(id);
        txn.phase = Phase::Reading;
        Ok(())
    }

    fn compute(&mut self, u: usize) -> Result<(), SimError> {
        let txn = &mut self.txns[u];
        txn.phase = Phase::Computing;
        self.cpu.add(u, self.step_cpu, txn.priority, self.now);
        Ok(())
    }

    fn on_io(&mut self, sim: &mut Sim<D>, id: u64, tag: IoTag) -> Result<(), SimError> {
        let txn = &mut self.txns[tag.txn];
        let Some(at) = txn.ios.iter().position(|&i| i == id) else {
            self.io.orphaned();
            return Ok(());
        };
        debug_assert_eq!(txn.seq, tag.seq);
        txn.ios.swap_remove(at);
        match txn.phase {
            Phase::Reading => {
                let (page, mode) = txn.steps[txn.step];
                let dirty = mode == Mode::Exclusive;
                match txn.buffer.iter_mut().find(|(p, _)| *p == page) {
                    // Read again (BufferRule::Reread): one copy in the buffer.
                    Some(slot) => slot.1 |= dirty,
                    None => txn.buffer.push((page, dirty)),
                }
                self.compute(tag.txn)
            }
            Phase::Writing => {
                txn.pending_writes -= 1;
                if txn.pending_writes == 0 {
                    self.commit(sim, tag.txn)?;
                }
                Ok(())
            }
            phase => Err(SimError::Invariant {
                replication: self.replication,
                what: format!("I/O completion for a transaction in phase {phase:?}"),
            }),
        }
    }

    fn on_cpu(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        match self.txns[u].phase {
            Phase::Computing => {
                self.txns[u].step += 1;
                self.start_step(sim, u)
            }
            Phase::Aborting => {
                let blocked = self.txns[u]
                    .blockers
                    .iter()
                    .any(|&(w, seq)| self.txns[w].seq == seq && self.txns[w].phase != Phase::Idle);
                if blocked {
                    self.txns[u].phase = Phase::RestartWait;
                    Ok(())
                } else {
                    self.restart(sim, u)
                }
            }
            phase => Err(SimError::Invariant {
                replication: self.replication,
                what: format!("CPU completion for a transaction in phase {phase:?}"),
            }),
        }
    }

    fn restart(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        if self.params.readings.restart == RestartDeadline::Renew && self.bounds.is_some() {
            let steps = self.txns[u].steps.len();
            let deadline = self.draw_deadline(steps)?;
            let txn = &mut self.txns[u];
            txn.deadline = deadline;
            txn.priority = (deadline.unwrap_or(self.now), txn.seq);
            if let Some(d) = deadline {
                // The old deadline's event finds the transaction's deadline
                // moved and does nothing.
                sim.schedule_ranked(d, TIMERS, TxnEvent::Deadline(u, txn.seq));
            }
        }
        let txn = &mut self.txns[u];
        if txn.abort_counted && self.window.open {
            self.window.restarts += 1;
        }
        txn.step = 0;
        txn.blockers.clear();
        self.start_step(sim, u)
    }

    /// Whether an aborted transaction restarts only once a blocker has left:
    /// when no deadline ends a livelock, that is without deadlines and when
    /// each restart renews its deadline.
    fn restart_waits(&self) -> bool {
        self.bounds.is_none() || self.params.readings.restart == RestartDeadline::Renew
    }

    /// Deadlock: the requester releases everything and pays T_A on the CPU.
    fn abort(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        if self.window.open {
            self.window.deadlocks += 1;
        }
        self.txns[u].abort_counted = self.window.open;
        if self.restart_waits() {
            let (page, mode) = self.txns[u].steps[self.txns[u].step];
            let mut blockers = std::mem::take(&mut self.txns[u].blockers);
            blockers.clear();
            for w in self.locks.conflicting_holders(u, page, mode) {
                blockers.push((w, self.txns[w].seq));
            }
            self.txns[u].blockers = blockers;
        }
        self.release(sim, u)?;
        let txn = &mut self.txns[u];
        txn.buffer.clear();
        txn.phase = Phase::Aborting;
        self.cpu.add(u, self.abort_cpu, txn.priority, self.now);
        Ok(())
    }

    /// Releases `u`'s locks and lets the transactions granted one proceed.
    fn release(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        let mut woken = std::mem::take(&mut self.woken);
        woken.clear();
        self.locks.release_all(u, &mut woken);
        for &w in &woken {
            debug_assert_eq!(self.txns[w].phase, Phase::LockWait);
            self.access(sim, w)?;
        }
        self.woken = woken;
        Ok(())
    }

    fn write_back(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        let now = self.now;
        let txn = &mut self.txns[u];
        txn.phase = Phase::Writing;
        txn.pending_writes = 0;
        let tag = IoTag {
            txn: u,
            seq: txn.seq,
        };
        for &(page, dirty) in &txn.buffer {
            if dirty {
                let block = page_block(
                    self.params.readings.layout,
                    page,
                    self.params.pages,
                    self.capacity,
                );
                let id = self
                    .io
                    .submit(sim, tag, Kind::Write, block, txn.deadline, now)?;
                txn.ios.push(id);
                txn.pending_writes += 1;
            }
        }
        if txn.pending_writes == 0 {
            self.commit(sim, u)?;
        }
        Ok(())
    }

    fn commit(&mut self, sim: &mut Sim<D>, u: usize) -> Result<(), SimError> {
        self.release(sim, u)?;
        let fate = match self.txns[u].deadline {
            Some(d) if self.now > d => Fate::Missed,
            _ => Fate::Committed,
        };
        self.leave(sim, u, fate)
    }

    fn on_deadline(&mut self, sim: &mut Sim<D>, u: usize, seq: u64) -> Result<(), SimError> {
        let txn = &self.txns[u];
        if txn.seq != seq || txn.deadline != Some(self.now) {
            return Ok(()); // another transaction's, or a deadline since renewed
        }
        match txn.phase {
            Phase::Idle | Phase::Writing => Ok(()),
            Phase::LockWait
            | Phase::Reading
            | Phase::Computing
            | Phase::Aborting
            | Phase::RestartWait => {
                self.release(sim, u)?;
                let ios = std::mem::take(&mut self.txns[u].ios);
                for &id in &ios {
                    self.io.cancel(sim, id)?;
                }
                let mut ios = ios;
                ios.clear();
                self.txns[u].ios = ios;
                self.cpu.remove(u, self.now);
                self.leave(sim, u, Fate::Lost)
            }
        }
    }

    /// The transaction of `u` leaves; the user thinks again unless the run
    /// is draining.
    fn leave(&mut self, sim: &mut Sim<D>, u: usize, fate: Fate) -> Result<(), SimError> {
        let now = self.now;
        let txn = &mut self.txns[u];
        txn.phase = Phase::Idle;
        self.finished += 1;
        if self.window.open {
            match fate {
                Fate::Committed => {
                    self.window.committed += 1;
                    self.window.response_sum += (now - txn.arrival) as f64;
                    self.window.size_sum += txn.steps.len() as f64;
                }
                Fate::Missed => self.window.missed += 1,
                Fate::Lost => self.window.lost += 1,
            }
        }
        if self.finished == self.params.warmup {
            self.window = Window {
                open: true,
                start: now,
                cpu_busy_at_start: self.cpu_busy(now),
                ..Window::default()
            };
            sim.with_device(0, D::reset_stats);
        }
        if self.finished == self.params.transactions {
            self.window.open = false;
            self.stopping = true;
            self.window_end = now;
            self.cpu_busy_at_end = self.cpu_busy(now);
            self.io_report = Some(sim.with_device(0, |d| d.report(now)).into());
        }
        if !self.stopping {
            let t = now + self.think_stream.exponential(self.think);
            sim.schedule_ranked(t, TIMERS, TxnEvent::ThinkEnd(u));
        }
        let seq = self.txns[u].seq;
        for w in 0..self.txns.len() {
            let waiter = &self.txns[w];
            if waiter.phase == Phase::RestartWait && waiter.blockers.contains(&(u, seq)) {
                self.restart(sim, w)?;
            }
        }
        Ok(())
    }

    /// CPU time used up to `now` (the running job's current stretch included).
    fn cpu_busy(&self, now: Nanos) -> Nanos {
        let running = self
            .cpu
            .next_finish()
            .map_or(0, |_| now - self.cpu.running_since());
        self.cpu.busy() + running
    }

    fn finish_report(&mut self) -> Result<RunReport, SimError> {
        let broken = |what: String| SimError::Invariant {
            replication: self.replication,
            what,
        };
        if !self.locks.is_empty() {
            return Err(broken("the lock table is not empty at the end".into()));
        }
        if self.io.outstanding() != 0 {
            return Err(broken(format!(
                "{} I/O requests neither completed nor cancelled",
                self.io.outstanding()
            )));
        }
        if let Some(u) = self.txns.iter().position(|t| t.phase != Phase::Idle) {
            return Err(broken(format!("transaction of user {u} never finished")));
        }
        if !self.cpu.is_idle() {
            return Err(broken("the CPU still has work".into()));
        }
        let ledger = self.io.counts();
        if ledger.issued != ledger.completed + ledger.cancelled {
            return Err(broken(format!("I/O ledger does not balance: {ledger:?}")));
        }
        let Some(io) = self.io_report.take() else {
            return Err(broken(
                "the run ended before its last measured transaction".into(),
            ));
        };
        let w = &self.window;
        let measured = w.committed + w.lost + w.missed;
        let span = (self.window_end - w.start) as f64;
        let per_commit = |sum: f64| {
            if w.committed > 0 {
                sum / w.committed as f64
            } else {
                f64::NAN
            }
        };
        Ok(RunReport {
            replication: self.replication,
            measured,
            committed: w.committed,
            lost: w.lost,
            missed: w.missed,
            loss_ratio: match self.params.readings.loss {
                LossRule::LostOrMissed => w.lost + w.missed,
                LossRule::LostOnly => w.lost,
            } as f64
                / measured as f64,
            response_ms: per_commit(w.response_sum) / 1e6,
            committed_size: per_commit(w.size_sum),
            deadlocks: w.deadlocks,
            restarts: w.restarts,
            io,
            cpu_utilisation: if span > 0.0 {
                (self.cpu_busy_at_end - w.cpu_busy_at_start) as f64 / span
            } else {
                f64::NAN
            },
            window_ms: span / 1e6,
            ledger,
            started: self.next_seq,
        })
    }
}

/// The block of `page` of a database of `pages` on a disk of `capacity`
/// blocks (validation keeps `pages` within `capacity`).
fn page_block(layout: PageLayout, page: Page, pages: u64, capacity: u64) -> u64 {
    match layout {
        PageLayout::Packed => page,
        PageLayout::Spread => (u128::from(page) * u128::from(capacity) / u128::from(pages)) as u64,
    }
}

impl<D: Device> Driver<D> for System<'_, D>
where
    IoReport: From<D::Report>,
{
    type Event = TxnEvent;
    type Output = RunReport;
    type Error = SimError;

    fn on_event(
        &mut self,
        sim: &mut Sim<D>,
        now: Nanos,
        event: TxnEvent,
    ) -> Result<Flow, SimError> {
        self.now = now;
        match event {
            TxnEvent::Cpu => {
                if self.cpu.next_finish() != Some(now) {
                    return Ok(Flow::Continue); // the CPU's plan changed since
                }
                self.cpu_entered = None;
                if let Some(u) = self.cpu.finish(now) {
                    self.on_cpu(sim, u)?;
                }
            }
            TxnEvent::ThinkEnd(u) => self.begin(sim, u)?,
            TxnEvent::Deadline(u, seq) => self.on_deadline(sim, u, seq)?,
        }
        self.sync_cpu(sim);
        Ok(Flow::Continue)
    }

    fn on_outcome(
        &mut self,
        sim: &mut Sim<D>,
        now: Nanos,
        _device: usize,
        outcome: Outcome,
    ) -> Result<Flow, SimError> {
        self.now = now;
        if let Some((id, tag)) = self.io.outcome(sim, outcome, now)? {
            self.on_io(sim, id, tag)?;
        }
        self.sync_cpu(sim);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, _sim: &mut Sim<D>, _stopped: bool) -> Result<RunReport, SimError> {
        self.finish_report()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use sched_core::AnySpec;

    use crate::params::{Deadlines, DlLowRule, LockWake, Readings, SsedoWindow};
    use crate::replications::{run, run_replications};

    fn small(users: u32, io: &str) -> TxnParams {
        let mut p = TxnParams::chen_towsley_91(users, io.parse().unwrap());
        p.transactions = 150;
        p.warmup = 20;
        p
    }

    #[test]
    fn two_transactions_on_two_pages_deadlock_and_both_commit() {
        // Two users updating the same two pages in random order, no
        // deadlines to rescue them: every deadlock must be resolved by
        // aborting the requester, and every transaction must commit.
        let mut p = small(2, "fcfs");
        p.pages = 2;
        p.steps_min = 2;
        p.steps_max = 2;
        p.read_probability = 0.0;
        p.think_ms = 0.0;
        p.deadlines = Deadlines::None;
        let r = run(&p, 0).unwrap();
        assert_eq!(r.committed, 130);
        assert!(r.deadlocks > 0, "no deadlock in {r:?}");
        assert!(r.restarts > 0 && r.restarts <= r.deadlocks);
    }

    #[test]
    fn the_same_seed_gives_the_same_report_whatever_the_jobs() {
        let p = small(10, "rt-cmq");
        let serial = run_replications(&p, 4, 1).unwrap();
        let parallel = run_replications(&p, 4, 2).unwrap();
        assert_eq!(serial, parallel);
        assert_ne!(serial[0], serial[1], "replications differ");
    }

    #[test]
    fn without_deadlines_nothing_is_lost() {
        let mut p = small(12, "dmq");
        p.deadlines = Deadlines::None;
        let r = run(&p, 3).unwrap();
        assert_eq!(r.loss_ratio, 0.0);
        assert_eq!(r.committed, 130);
    }

    #[test]
    fn the_loosest_representable_deadlines_lose_nothing() {
        // k = 1e8: deadlines of up to 4.8e12 ms, as good as none; before
        // the deadline arithmetic was checked, larger k wrapped the clock
        // and lost transactions at once.
        let mut p = small(20, "rt-dmq");
        p.deadlines = Deadlines::Scaled { k: 1e8, alpha: 3.0 };
        let r = run(&p, 0).unwrap();
        assert_eq!(r.loss_ratio, 0.0);
    }

    #[test]
    fn invalid_parameters_fail_before_running() {
        let mut p = small(4, "ssedo");
        p.users = 0;
        assert!(matches!(
            run(&p, 0),
            Err(SimError::Params(ParamError::NoUsers))
        ));
        assert!(matches!(
            run_replications(&p, 2, 2),
            Err(SimError::Params(ParamError::NoUsers))
        ));
    }

    const SPECS: &[&str] = &[
        "fcfs",
        "sstf",
        "ssedo",
        "fd-scan:expired=drop",
        "rt-dmq",
        "rt-dmq-rd",
        "rt-dmq-mr",
        "dmq-mr",
        "fd-dmq",
        "dmq-sq:queue=edf",
        "cmq-sstf",
        "rt-cmq-f",
        "rt-cmq-w",
        "r-dmq",
        "mr-dmq",
        "md-raid1",
        "cmq:common=ssedo(m=2,beta=3),aux=edf",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any configuration runs to its end with the lock table empty and
        /// every I/O request completed or cancelled exactly once (the run
        /// checks both and fails otherwise).
        #[test]
        fn every_run_ends_clean(
            users in 1u32..16,
            steps_min in 1u32..6,
            extra in 0u32..10,
            pages in 2u64..400,
            read in 0.0f64..=1.0,
            think in 0.0f64..500.0,
            deadline in prop_oneof![
                Just(Deadlines::None),
                (0.05f64..2.0, 1.0f64..4.0).prop_map(|(k, alpha)| Deadlines::Scaled { k, alpha }),
                (0.1f64..3.0, 1.0f64..4.0).prop_map(|(low, alpha)| Deadlines::Fixed { low, alpha }),
            ],
            spec in 0usize..SPECS.len(),
            seed in 0u64..1000,
            readings in (any::<[bool; 6]>(), prop::option::of((1usize..6, 1.0f64..4.0))),
        ) {
            let io: AnySpec = SPECS[spec].parse().unwrap();
            let mut p = TxnParams::chen_towsley_91(users, io);
            p.steps_min = steps_min;
            p.steps_max = steps_min + extra;
            p.pages = pages;
            p.read_probability = read;
            p.think_ms = think;
            p.deadlines = deadline;
            p.transactions = 60;
            p.warmup = 10;
            p.seed = seed;
            let ([min, renew, lost_only, reread, spread, fifo], ssedo) = readings;
            p.readings = Readings {
                dl_low: if min { DlLowRule::AtMostOne } else { DlLowRule::AtLeastOne },
                restart: if renew { RestartDeadline::Renew } else { RestartDeadline::Keep },
                loss: if lost_only { LossRule::LostOnly } else { LossRule::LostOrMissed },
                buffer: if reread { BufferRule::Reread } else { BufferRule::Cached },
                layout: if spread { PageLayout::Spread } else { PageLayout::Packed },
                lock_wake: if fifo { LockWake::ArrivalOrder } else { LockWake::EarliestDeadline },
                ssedo: ssedo.map(|(m, beta)| SsedoWindow { m, beta }),
            };
            let r = run(&p, 0).unwrap();
            prop_assert_eq!(r.measured, 50);
            prop_assert_eq!(r.ledger.issued, r.ledger.completed + r.ledger.cancelled);
            prop_assert!(r.ledger.orphaned <= r.ledger.completed);
            prop_assert!(r.restarts <= r.deadlocks);
        }
    }
}
