//! The real-time device: a disk-emu [`Device`] (wrapped in a
//! [`FaultInjector`]) driven on a clock mapped from the wall clock, with
//! real bytes in one [`Store`] per disk.
//!
//! Each request is submitted to the device at the current virtual time and
//! completes when the device says it does; its bytes move at that moment:
//! a read is served from the store of the disk that served it, a write goes
//! to the store of every disk that has not failed. So the policy objects
//! and the models of the simulation order and time real requests, and a
//! mirror's disks really hold their own data: a replacement is rebuilt by
//! copying, chunk by chunk, as the device's resync mark rises, and a read
//! is only ever sent (by the array policy) to a disk whose copy is current.
//!
//! A single disk that fails answers every request with `EIO` until it is
//! replaced; the replacement keeps the store's bytes, there being no copy
//! to rebuild it from (what is emulated is the drive's service failing,
//! not its platters).
//!
//! Durability follows the model's write-back cache (see
//! `disk_emu::disk::cache`): a `FLUSH` is answered once every write the
//! disks' caches hold is on the media (the model's time), a write with
//! `FUA` once its own data is, and then the backing files are synced. A
//! power cut loses what the fault injector's crash model picks among the
//! writes the caches had acknowledged and not yet put on the media: the
//! engine keeps the old and the new bytes of every write a cache still
//! holds, so it can put back the durable bytes under them and lay again
//! those the crash kept, whole or torn at a sector boundary, in the order
//! they were written.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::time::{Duration, Instant};

use bytes::Bytes;
use disk_emu::faults::{Applied, Fate, Fault, FaultError, FaultInjector, Lost, Silent};
use disk_emu::{ArrayDevice, Device, DeviceError, DiskDevice, FaultTarget, Outcome, ResyncRate};
use sched_core::array::{Copies, DiskSet, DiskState, Location};
use sched_core::{Block, Blocks, Cyl, EnqueueError, Kind, Nanos, Request, RequestId};
use tokio::sync::mpsc::UnboundedSender;

use crate::backing::{Store, StoreError};
use crate::clock::Clock;
use crate::crash_log::LogWriter;
use crate::io_stats::Stats;
use crate::latent::LatentFile;
use crate::nbd::{Command, Errno};
use crate::persist::{MirrorState, SavedDisk, StateFile};

/// The devices the engine serves from: a single disk or an array, with the
/// array operations a mirror needs across restarts.
pub trait Emulated: FaultTarget + Send + 'static {
    /// Changes the resync speed of later replacements.
    ///
    /// # Errors
    /// [`DeviceError::Invalid`] during a resync, for a bad rate, or on a
    /// single disk (which has nothing to resync from).
    fn set_resync_rate(&mut self, rate: ResyncRate) -> Result<(), DeviceError>;

    /// Replaces failed `disk` with one current below block `rebuilt_to`.
    ///
    /// # Errors
    /// As [`Device::replace_disk`].
    fn resume_resync(&mut self, disk: usize, rebuilt_to: u64) -> Result<(), DeviceError>;

    /// The block where a resync of `disk` ends.
    fn resync_end(&self, disk: usize) -> u64;
}

impl Emulated for DiskDevice {
    fn set_resync_rate(&mut self, _: ResyncRate) -> Result<(), DeviceError> {
        Err(DeviceError::Invalid {
            field: "resync",
            expected: "a mirror: a single disk has no copy to resync from",
        })
    }

    fn resume_resync(&mut self, disk: usize, _: u64) -> Result<(), DeviceError> {
        self.replace_disk(disk)
    }

    fn resync_end(&self, disk: usize) -> u64 {
        Device::model(self, disk).map_or(0, |m| m.capacity_blocks())
    }
}

impl Emulated for ArrayDevice {
    fn set_resync_rate(&mut self, rate: ResyncRate) -> Result<(), DeviceError> {
        ArrayDevice::set_resync_rate(self, rate)
    }

    fn resume_resync(&mut self, disk: usize, rebuilt_to: u64) -> Result<(), DeviceError> {
        self.replace_disk_rebuilt_to(disk, rebuilt_to)
    }

    fn resync_end(&self, disk: usize) -> u64 {
        ArrayDevice::resync_end(self, disk)
    }
}

/// A reply on its way to its connection.
#[derive(Debug)]
pub struct Reply {
    /// The client's handle.
    pub handle: u64,
    /// The data of a read, or the error.
    pub result: Result<Option<Vec<u8>>, Errno>,
}

/// Where a connection's replies go.
pub type Replier = UnboundedSender<Reply>;

/// Why the engine could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The export does not fit the disk.
    #[error("--size: {size} bytes, but the disk {model} holds {capacity} bytes")]
    TooBig {
        /// Bytes asked for.
        size: u64,
        /// The disk's model.
        model: String,
        /// Bytes it holds.
        capacity: u64,
    },
    /// The export kept in memory would take more than the machine has.
    #[error(
        "--size: {bytes} bytes in memory ({copies} of the export) is more than this machine's {memory} bytes; give --file FILE to keep the export in files"
    )]
    TooBigForMemory {
        /// Bytes the stores would take.
        bytes: u128,
        /// Copies of the export (one per disk).
        copies: usize,
        /// The machine's memory.
        memory: u64,
    },
    /// One store per disk is needed.
    #[error("{stores} stores for {disks} disks")]
    Stores {
        /// Stores given.
        stores: usize,
        /// Disks.
        disks: usize,
    },
    /// A store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The device refused an operation.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The saved mirror state does not fit this device.
    #[error(transparent)]
    State(#[from] crate::persist::StateError),
    /// The latent errors' file failed.
    #[error(transparent)]
    Latent(#[from] crate::latent::LatentError),
    /// A saved fault could not be applied.
    #[error(transparent)]
    Fault(#[from] FaultError),
    /// The `--record` log failed.
    #[error(transparent)]
    Record(#[from] crate::crash_log::LogError),
}

/// What a request in the device still has to do.
#[derive(Debug)]
enum Op {
    Read,
    Write(Bytes),
    Zero,
}

#[derive(Debug)]
struct Pending {
    reply: Replier,
    handle: u64,
    op: Op,
    offset: u64,
    len: u32,
    fua: bool,
    arrived: Instant,
    /// Disks whose copy failed with a media error: the read is retried on
    /// the others.
    avoid: DiskSet,
}

/// A `FLUSH` or `FUA` write waiting until the caches have written back.
#[derive(Debug)]
struct Waiter {
    at: Nanos,
    reply: Replier,
    handle: u64,
    arrived: Instant,
    /// What to record once it is answered.
    record: Answered,
}

/// Flushes to answer once backing files are synced, and the files: synced
/// without holding the engine, so that an `fdatasync` of many milliseconds
/// holds up no other request.
#[derive(Debug)]
pub struct SyncBatch {
    waiters: Vec<Waiter>,
    files: Vec<(std::sync::Arc<std::fs::File>, std::path::PathBuf)>,
}

impl SyncBatch {
    /// Syncs the files (`fdatasync`).
    ///
    /// # Errors
    /// [`StoreError`] naming the first file that failed.
    pub fn sync(&self) -> Result<(), StoreError> {
        for (file, path) in &self.files {
            file.sync_data().map_err(|source| StoreError {
                path: path.display().to_string(),
                source,
            })?;
        }
        Ok(())
    }
}

/// A request answered, as `--record` logs it.
#[derive(Debug)]
enum Answered {
    /// A write of these bytes (zeroes if `None`).
    Write {
        offset: u64,
        len: u32,
        data: Option<Bytes>,
        fua: bool,
    },
    /// A flush that arrived when this many writes had been answered.
    Flush { covers: u64 },
}

/// A write a drive's cache still holds: the bytes it replaced and its own
/// (zeroes if `None`).
#[derive(Debug)]
struct Undo {
    disk: usize,
    id: RequestId,
    offset: u64,
    old: Vec<u8>,
    new: Option<Bytes>,
}

/// The real-time device (see the [module](self) documentation).
pub struct Engine<D: Emulated> {
    device: FaultInjector<D>,
    stores: Vec<Store>,
    size: u64,
    block_bytes: u64,
    clock: Clock,
    pending: HashMap<u64, Pending>,
    /// Requests the device's queue had no room for, oldest first.
    backlog: VecDeque<u64>,
    waiters: Vec<Waiter>,
    /// Flushes the model has made durable, waiting for the backing files
    /// to be synced.
    to_sync: Vec<Waiter>,
    undo: Vec<Undo>,
    /// Bytes of each disk known current: the export's size for a disk in
    /// service, the copied part for one being rebuilt.
    marks: Vec<u64>,
    /// What each disk's rebuild could not read from any source.
    lost: Vec<Vec<Range<u64>>>,
    next_id: u64,
    stats: Stats,
    state_file: Option<StateFile>,
    saved: Option<MirrorState>,
    saved_at: Instant,
    /// The device refused to advance (an internal error): every request is
    /// answered with `EIO` from then on, rather than retried for ever.
    halted: bool,
    /// `--record`: every answered write and flush.
    recorder: Option<LogWriter>,
    /// Where latent sector errors outlive the server.
    latent: Option<LatentFile>,
    /// A reproducible run: virtual time is the device's own, moved on to
    /// the next event whenever the clock thread looks, never by the wall
    /// clock.
    logical: bool,
}

/// The time scale of a reproducible run's clock: so fast that every
/// virtual time is already past on the wall clock, so the clock thread
/// never sleeps towards one.
pub const LOGICAL_SCALE: f64 = 1e15;

/// Checks that an export of `size` bytes fits every disk of `device`;
/// returns the disks' block size (512 without a model).
///
/// # Errors
/// [`EngineError::TooBig`] naming the disk.
pub fn check_size<D: Device>(device: &D, size: u64) -> Result<u64, EngineError> {
    let mut block_bytes = 512;
    for d in 0..device.disks() {
        if let Some(m) = device.model(d) {
            block_bytes = u64::from(m.block_bytes());
            let capacity = m.capacity_blocks() * block_bytes;
            if size > capacity {
                return Err(EngineError::TooBig {
                    size,
                    model: m.name().to_string(),
                    capacity,
                });
            }
        }
    }
    Ok(block_bytes)
}

impl<D: Emulated> Engine<D> {
    /// An engine serving `size` bytes from `device`, disk `d`'s bytes in
    /// `stores[d]`, on `clock`; a mirror's state is kept in `state_file`
    /// (restored from it if it exists).
    ///
    /// # Errors
    /// [`EngineError`]: an export larger than a disk, a store count other
    /// than the disk count, a saved state that does not fit.
    pub fn new(
        device: FaultInjector<D>,
        stores: Vec<Store>,
        size: u64,
        clock: Clock,
        state_file: Option<StateFile>,
    ) -> Result<Self, EngineError> {
        let disks = device.disks();
        if stores.len() != disks {
            return Err(EngineError::Stores {
                stores: stores.len(),
                disks,
            });
        }
        let block_bytes = check_size(&device, size)?;
        let mut engine = Engine {
            device,
            stores,
            size,
            block_bytes,
            clock,
            pending: HashMap::new(),
            backlog: VecDeque::new(),
            waiters: Vec::new(),
            to_sync: Vec::new(),
            undo: Vec::new(),
            marks: vec![size; disks],
            lost: vec![Vec::new(); disks],
            next_id: 0,
            stats: Stats::new(),
            state_file,
            saved: None,
            saved_at: Instant::now(),
            halted: false,
            recorder: None,
            latent: None,
            logical: false,
        };
        engine.restore()?;
        Ok(engine)
    }

    /// Records every write and flush answered from now on in `log` (see
    /// [`crate::crash_log`]).
    pub fn record_to(&mut self, log: LogWriter) {
        self.recorder = Some(log);
    }

    /// Brings back the latent sector errors `file` holds and keeps it up
    /// to date from now on.
    ///
    /// # Errors
    /// [`EngineError::Latent`] for an unreadable file;
    /// [`EngineError::Fault`] for a range the device refuses.
    pub fn keep_latent_errors(&mut self, mut file: LatentFile) -> Result<(), EngineError> {
        for (disk, blocks) in file.load()? {
            self.device.inject(&Fault::MediaError { disk, blocks })?;
        }
        self.latent = Some(file);
        self.save_latent();
        Ok(())
    }

    /// Writes the latent errors if they changed.
    fn save_latent(&mut self) {
        let Some(file) = &mut self.latent else {
            return;
        };
        let device = &self.device;
        let current = (0..device.disks()).map(|d| device.media_errors(d));
        if let Err(e) = file.save_if_changed(current) {
            eprintln!("spindle serve: {e}");
        }
    }

    /// Logs `answered` if recording.
    fn record(&mut self, answered: &Answered) {
        let Some(log) = &mut self.recorder else {
            return;
        };
        match answered {
            Answered::Write {
                offset,
                len,
                data,
                fua,
            } => log.write(*offset, *len, data.as_deref(), *fua),
            Answered::Flush { covers } => log.flush(*covers),
        }
    }

    /// Writes answered so far, as the record counts them.
    fn answered_writes(&self) -> u64 {
        self.recorder.as_ref().map_or(0, LogWriter::writes)
    }

    /// Brings back a mirror's saved state: failed disks stay failed, a
    /// resync goes on from its saved mark. After an unclean stop the disks
    /// may differ where writes were in flight: every disk but the first in
    /// service is resynchronised from the start, as Linux md does without a
    /// write-intent bitmap.
    fn restore(&mut self) -> Result<(), EngineError> {
        let Some(file) = self.state_file.clone() else {
            return Ok(());
        };
        let disks = self.device.disks();
        if let Some(saved) = file.load(disks, self.size)? {
            let mut kept_one = false;
            for (d, disk) in saved.disks.iter().enumerate() {
                match *disk {
                    SavedDisk::Online if saved.clean || !kept_one => kept_one = true,
                    SavedDisk::Online => self.rebuild(d, 0)?,
                    SavedDisk::Failed => {
                        self.device.fail_disk(d)?;
                        self.marks[d] = 0;
                    }
                    // After an unclean stop even the rebuilt part may
                    // have missed a write in flight.
                    SavedDisk::Rebuilding { rebuilt_to } if saved.clean => {
                        self.rebuild(d, rebuilt_to)?;
                    }
                    SavedDisk::Rebuilding { .. } => self.rebuild(d, 0)?,
                }
            }
            for (disk, bad) in saved.media_errors.iter().enumerate().take(disks) {
                for blocks in bad {
                    let fault = Fault::MediaError {
                        disk,
                        blocks: blocks.clone(),
                    };
                    self.device.inject(&fault).map_err(|e| {
                        crate::persist::StateError::Invalid {
                            path: file.path().to_path_buf(),
                            message: format!("media errors of disk {disk}: {e}"),
                        }
                    })?;
                }
            }
            self.drain_without_replies();
        }
        self.persist(true);
        Ok(())
    }

    fn rebuild(&mut self, disk: usize, rebuilt_to: u64) -> Result<(), EngineError> {
        self.device.fail_disk(disk)?;
        self.device.inner_mut().resume_resync(disk, rebuilt_to)?;
        self.marks[disk] = (rebuilt_to * self.block_bytes).min(self.size);
        Ok(())
    }

    /// Outcomes of disk operations before any request (nothing to reply to).
    fn drain_without_replies(&mut self) {
        while self.device.poll().is_some() {}
    }

    /// The clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The device.
    pub fn device(&self) -> &FaultInjector<D> {
        &self.device
    }

    /// The statistics.
    pub fn stats_mut(&mut self) -> &mut Stats {
        &mut self.stats
    }

    /// When the engine next has something to do on its own.
    pub fn next_wake(&self) -> Option<Nanos> {
        if self.halted {
            return None;
        }
        let waiter = self.waiters.iter().map(|w| w.at).min();
        match (self.device.next_event_time(), waiter) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Every disk's state.
    pub fn disk_states(&self) -> Vec<DiskState> {
        (0..self.device.disks())
            .map(|d| self.device.disk_state(d).unwrap_or(DiskState::Failed))
            .collect()
    }

    /// Makes the run reproducible: virtual time no longer follows the wall
    /// clock; a request arrives at the device's time, and each call of
    /// [`Engine::catch_up`] moves on to the next event at once. The order
    /// of completions, and every fault decision drawn from a seed, is then
    /// a function of the seeds and of the requests in the order they
    /// arrive (the same for a client that waits for each answer before its
    /// next request; pipelined requests still arrive as the host's
    /// scheduling lets them). Build the engine with a clock of
    /// [`LOGICAL_SCALE`].
    pub fn run_logically(&mut self) {
        self.logical = true;
    }

    /// Virtual time now.
    fn virtual_now(&self) -> Nanos {
        if self.logical {
            self.device.now()
        } else {
            self.clock.now()
        }
    }

    /// When virtual time `v` is on the wall clock (none in a reproducible
    /// run, whose virtual time is not the wall clock's).
    fn wall_due(&self, v: Nanos) -> Option<Instant> {
        (!self.logical).then(|| self.clock.wall(v))
    }

    /// Brings the device to the present, completing what is due (in a
    /// reproducible run: to its next event).
    pub fn catch_up(&mut self) {
        let now = match self.next_wake() {
            Some(t) if self.logical => t,
            _ => self.virtual_now(),
        };
        self.advance_to(now);
    }

    /// Steps the device event by event up to `now`, handling each step's
    /// outcomes before the next (so that a resync's copy, a power cut's
    /// losses and the completions around them happen in the model's order).
    fn advance_to(&mut self, now: Nanos) {
        if self.halted {
            return;
        }
        let now = now.max(self.device.now());
        loop {
            let step = self.device.next_event_time().filter(|&t| t <= now);
            let to = step.unwrap_or(now);
            if let Err(e) = self.device.advance(to) {
                self.halt(&e);
                return;
            }
            self.resync_copy();
            while let Some(o) = self.device.poll() {
                self.outcome(o);
            }
            while let Some(applied) = self.device.poll_applied() {
                self.applied(applied);
            }
            self.release_waiters();
            self.retry_backlog();
            if step.is_none() {
                break;
            }
        }
        self.prune_undo();
        self.persist(false);
        self.save_latent();
    }

    /// The device cannot go on: says so once, and answers everything held
    /// (and every later request) with `EIO`.
    fn halt(&mut self, e: &DeviceError) {
        say!(
            "spindle serve: the emulated device stopped: {e}; every request is answered with EIO from now on (restart the server)"
        );
        self.halted = true;
        self.backlog.clear();
        let ids: Vec<u64> = self.pending.keys().copied().collect();
        for id in ids {
            self.fail(id, Errno::Io, None);
        }
        for w in std::mem::take(&mut self.waiters) {
            self.answer(&w.reply, w.handle, w.arrived, None, Err(Errno::Io));
        }
    }

    /// Takes one request of a connection.
    pub fn request(&mut self, reply: &Replier, handle: u64, cmd: Command, payload: Option<Bytes>) {
        let arrived = Instant::now();
        let now = if self.logical {
            self.device.now()
        } else {
            self.clock.virtual_at(arrived)
        };
        self.advance_to(now);
        if self.halted {
            if !matches!(cmd, Command::Disconnect) {
                self.answer(reply, handle, arrived, None, Err(Errno::Io));
            }
            return;
        }
        let (op, offset, len, fua) = match cmd {
            Command::Read { offset, len } => (Op::Read, offset, len, false),
            Command::Write { offset, len, fua } => {
                (Op::Write(payload.unwrap_or_default()), offset, len, fua)
            }
            Command::WriteZeroes { offset, len, fua } => (Op::Zero, offset, len, fua),
            // With no copy left there is nothing to trim or make durable.
            Command::Trim { .. } | Command::Flush if !self.has_live_copy() => {
                self.answer(reply, handle, arrived, None, Err(Errno::Io));
                return;
            }
            // A 1990s disk has no use for the hint.
            Command::Trim { .. } => {
                self.answer(reply, handle, arrived, None, Ok(None));
                return;
            }
            Command::Flush => {
                if self.device.flush_fails() {
                    self.answer(reply, handle, arrived, None, Err(Errno::Io));
                    return;
                }
                let covers = self.answered_writes();
                self.durable(
                    reply.clone(),
                    handle,
                    arrived,
                    None,
                    Answered::Flush { covers },
                );
                return;
            }
            Command::Disconnect => return,
        };
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(
            id,
            Pending {
                reply: reply.clone(),
                handle,
                op,
                offset,
                len,
                fua,
                arrived,
                avoid: DiskSet::EMPTY,
            },
        );
        if !self.submit(id) {
            self.backlog.push_back(id);
        }
        self.stats.depth(self.pending.len());
        // What is already due (everything, on the zero-latency disk)
        // completes now, on this thread, rather than after a wake-up of the
        // clock thread.
        let now = self.virtual_now();
        if self.device.next_event_time().is_some_and(|t| t <= now) {
            self.advance_to(now);
        }
    }

    /// Whether some disk still holds the data (is not failed).
    fn has_live_copy(&self) -> bool {
        (0..self.device.disks())
            .any(|d| !matches!(self.device.disk_state(d), Ok(DiskState::Failed) | Err(_)))
    }

    /// Cancels what `reply`'s connection still has queued (it has gone
    /// away): requests waiting for the device's queue or in it, and
    /// flushes. A request in service finishes unheard.
    pub fn cancel_for(&mut self, reply: &Replier) {
        let mut ids: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.reply.same_channel(reply))
            .map(|(&id, _)| id)
            .collect();
        if ids.is_empty() && self.waiters.is_empty() {
            return;
        }
        ids.sort_unstable();
        for id in ids {
            if let Some(at) = self.backlog.iter().position(|&b| b == id) {
                self.backlog.remove(at);
                self.pending.remove(&id);
            } else if self.device.cancel(RequestId(id)).is_ok() {
                self.pending.remove(&id);
            }
        }
        self.waiters.retain(|w| !w.reply.same_channel(reply));
        while let Some(o) = self.device.poll() {
            self.outcome(o);
        }
        self.retry_backlog();
        self.stats.depth(self.pending.len());
    }

    /// Submits pending request `id` to the device at its clock; `false` if
    /// the device's queue is full (the request stays pending).
    fn submit(&mut self, id: u64) -> bool {
        let Some(p) = self.pending.get(&id) else {
            return true;
        };
        let bb = self.block_bytes;
        let block = p.offset / bb;
        let blocks = (p.offset + u64::from(p.len)).div_ceil(bb) - block;
        let kind = match p.op {
            Op::Read => Kind::Read,
            Op::Write(_) | Op::Zero => Kind::Write,
        };
        let now = self.device.now();
        let req = Request::new(
            RequestId(id),
            kind,
            Block(block),
            Blocks(blocks as u32),
            Cyl(0),
            now,
        );
        let at = Location { block, cylinder: 0 };
        let mut copies = Copies::new();
        for d in (0..self.device.disks()).filter(|&d| !p.avoid.contains(d)) {
            copies = copies.with(d, at);
        }
        match self.device.submit(req, &copies, now) {
            Ok(()) => {}
            Err(DeviceError::Refused(EnqueueError::QueueFull { .. })) => return false,
            // No disk can take it (a failed single disk, a mirror with no
            // copy left): the client gets an I/O error.
            Err(_) => self.fail(id, Errno::Io, None),
        }
        while let Some(o) = self.device.poll() {
            self.outcome(o);
        }
        true
    }

    fn retry_backlog(&mut self) {
        while let Some(&id) = self.backlog.front() {
            if !self.submit(id) {
                break;
            }
            self.backlog.pop_front();
        }
    }

    /// Replies to a pending request with `errno`.
    fn fail(&mut self, id: u64, errno: Errno, due: Option<Instant>) {
        if let Some(p) = self.pending.remove(&id) {
            self.answer(&p.reply, p.handle, p.arrived, due, Err(errno));
        }
    }

    /// Hands a reply to its connection and counts it.
    fn answer(
        &mut self,
        reply: &Replier,
        handle: u64,
        arrived: Instant,
        due: Option<Instant>,
        result: Result<Option<Vec<u8>>, Errno>,
    ) {
        let now = Instant::now();
        let late = due.map_or(Duration::ZERO, |d| now.saturating_duration_since(d));
        self.stats.depth(self.pending.len());
        self.stats.complete(
            now.saturating_duration_since(arrived),
            late,
            result.is_err(),
        );
        // A connection that has gone away no longer wants its replies.
        let _ = reply.send(Reply { handle, result });
    }

    fn outcome(&mut self, o: Outcome) {
        match o {
            Outcome::Completed(done) => {
                let id = done.request.id.0;
                let due = self.wall_due(done.timing.finish);
                let Some(p) = self.pending.remove(&id) else {
                    return;
                };
                let t = &done.timing;
                let service = t.seek + t.rotation + t.transfer + t.overhead;
                self.stats.modelled(t.response(), service);
                let result = match &p.op {
                    Op::Read => {
                        let mut buf = vec![0u8; p.len as usize];
                        let silent = self.device.take_silent(RequestId(id));
                        self.stores[done.timing.disk]
                            .read(p.offset, &mut buf)
                            .map(|()| {
                                if let Some(Silent::ReadCorrupted { bit }) = silent {
                                    flip(&mut buf, bit);
                                }
                                Some(buf)
                            })
                    }
                    Op::Write(data) => self.store_write(id, p.offset, u64::from(p.len), Some(data)),
                    Op::Zero => self.store_write(id, p.offset, u64::from(p.len), None),
                };
                match result {
                    Err(e) => {
                        say!("spindle serve: {e}");
                        self.answer(&p.reply, p.handle, p.arrived, due, Err(Errno::Io));
                    }
                    Ok(data) if !p.fua => {
                        if self.recorder.is_some() && !matches!(p.op, Op::Read) {
                            self.record(&answered_write(&p));
                        }
                        self.answer(&p.reply, p.handle, p.arrived, due, Ok(data));
                    }
                    Ok(_) => {
                        let record = answered_write(&p);
                        self.durable(p.reply, p.handle, p.arrived, Some(RequestId(id)), record);
                    }
                }
            }
            Outcome::MediaError { done, .. } => {
                let id = done.request.id.0;
                let due = self.wall_due(done.timing.finish);
                let disks = self.device.disks();
                let retry = self.pending.get_mut(&id).is_some_and(|p| {
                    p.avoid = p.avoid.with(done.timing.disk);
                    (0..disks).any(|d| {
                        !p.avoid.contains(d)
                            && !matches!(self.device.disk_state(d), Ok(DiskState::Failed) | Err(_))
                    })
                });
                if retry {
                    if !self.submit(id) {
                        self.backlog.push_back(id);
                    }
                } else {
                    self.fail(id, Errno::Io, due);
                }
            }
            Outcome::Failed(r) | Outcome::Expired(r) => self.fail(r.id.0, Errno::Io, None),
            Outcome::Resynced { .. } => {
                self.resync_copy();
                self.persist(true);
            }
        }
    }

    /// Writes `data` (zeroes if `None`) of request `id` at `offset` on every
    /// disk that has not failed, keeping the old and new bytes where the
    /// disk's cache holds the write unflushed.
    fn store_write(
        &mut self,
        id: u64,
        offset: u64,
        len: u64,
        data: Option<&Bytes>,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let now = self.device.now();
        let id = RequestId(id);
        // A misdirected write lands at another block (modulo the export's
        // blocks), at the same offset within it (moved back to fit).
        let offset = match self.device.take_silent(id) {
            Some(Silent::Misdirected { to }) => {
                let bb = self.block_bytes;
                let to = to % (self.size / bb).max(1);
                (to * bb + offset % bb).min(self.size - len)
            }
            _ => offset,
        };
        for d in 0..self.stores.len() {
            if matches!(self.device.disk_state(d), Ok(DiskState::Failed) | Err(_)) {
                continue;
            }
            if self.holds(d, id, now) {
                let mut old = vec![0u8; len as usize];
                self.stores[d].read(offset, &mut old)?;
                self.undo.push(Undo {
                    disk: d,
                    id,
                    offset,
                    old,
                    new: data.cloned(),
                });
            }
            match data {
                Some(bytes) => self.stores[d].write(offset, bytes)?,
                None => self.stores[d].zero(offset, len)?,
            }
        }
        Ok(None)
    }

    /// Whether disk `disk`'s cache holds write `id` off the media at `now`.
    fn holds(&self, disk: usize, id: RequestId, now: Nanos) -> bool {
        self.device
            .model(disk)
            .is_some_and(|m| m.unflushed(now).iter().any(|u| u.id == id))
    }

    /// When write `id` (every write, if `None`) the disks' caches hold is
    /// on the media, or `None` if it is.
    fn durable_at(&self, id: Option<RequestId>) -> Option<Nanos> {
        let now = self.device.now();
        (0..self.device.disks())
            .filter_map(|d| self.device.model(d))
            .flat_map(|m| m.unflushed(now))
            .filter(|u| id.is_none_or(|id| u.id == id))
            .map(|u| u.durable_at)
            .max()
    }

    /// Replies once write `id` (every write, if `None`: a flush) is
    /// durable: on the media of the model, and synced in the backing files.
    fn durable(
        &mut self,
        reply: Replier,
        handle: u64,
        arrived: Instant,
        id: Option<RequestId>,
        record: Answered,
    ) {
        let at = self.durable_at(id).unwrap_or_else(|| self.device.now());
        self.waiters.push(Waiter {
            at,
            reply,
            handle,
            arrived,
            record,
        });
        self.release_waiters();
    }

    fn sync(&self) -> Result<(), StoreError> {
        for s in &self.stores {
            s.sync().inspect_err(|e| say!("spindle serve: {e}"))?;
        }
        Ok(())
    }

    /// Answers the flushes the model has made durable: at once if the
    /// bytes are in RAM, after the backing files are synced otherwise
    /// (which the server does off the engine's lock: [`Engine::take_syncs`]).
    fn release_waiters(&mut self) {
        let now = self.device.now();
        if !self.waiters.iter().any(|w| w.at <= now) {
            return;
        }
        let (due, waiting): (Vec<Waiter>, Vec<Waiter>) =
            self.waiters.drain(..).partition(|w| w.at <= now);
        self.waiters = waiting;
        if self.stores.iter().any(|s| s.sync_handle().is_some()) {
            self.to_sync.extend(due);
            return;
        }
        for w in due {
            let at = self.wall_due(w.at);
            self.record(&w.record);
            self.answer(&w.reply, w.handle, w.arrived, at, Ok(None));
        }
    }

    /// Whether flushes wait for the backing files to be synced.
    pub fn wants_sync(&self) -> bool {
        !self.to_sync.is_empty()
    }

    /// The flushes waiting for the backing files to be synced, and the
    /// files: the caller syncs them without holding the engine
    /// ([`SyncBatch::sync`]), then hands the batch back to
    /// [`Engine::synced`]. `None` if no flush waits.
    pub fn take_syncs(&mut self) -> Option<SyncBatch> {
        if self.to_sync.is_empty() {
            return None;
        }
        Some(SyncBatch {
            waiters: std::mem::take(&mut self.to_sync),
            files: self.stores.iter().filter_map(Store::sync_handle).collect(),
        })
    }

    /// Answers a batch's flushes once its files are synced (`EIO` if that
    /// failed).
    pub fn synced(&mut self, batch: SyncBatch, result: Result<(), StoreError>) {
        let result = match result {
            Ok(()) => Ok(None),
            Err(e) => {
                say!("spindle serve: {e}");
                Err(Errno::Io)
            }
        };
        for w in batch.waiters {
            let at = self.wall_due(w.at);
            if result.is_ok() {
                self.record(&w.record);
            }
            self.answer(&w.reply, w.handle, w.arrived, at, result.clone());
        }
    }

    /// Drops the bytes kept of writes whose caches have put them on the
    /// media.
    fn prune_undo(&mut self) {
        if self.undo.is_empty() {
            return;
        }
        let now = self.device.now();
        let held: Vec<bool> = self
            .undo
            .iter()
            .map(|u| self.holds(u.disk, u.id, now))
            .collect();
        let mut held = held.into_iter();
        self.undo.retain(|_| held.next().unwrap_or(false));
    }

    /// Makes each disk's store what the power cut left: the durable bytes
    /// under every write its cache held, then the writes the crash kept
    /// (whole, or the sectors of a torn one that reached the media) in the
    /// order they were written. Fails the flushes waiting for it.
    fn lose(&mut self, lost: &[Lost]) {
        let bb = self.block_bytes;
        for disk in 0..self.stores.len() {
            let fates: HashMap<RequestId, Fate> = lost
                .iter()
                .filter(|l| l.disk == disk)
                .map(|l| (l.unflushed.id, l.fate))
                .collect();
            if fates.is_empty() {
                continue;
            }
            let (held, others): (Vec<Undo>, Vec<Undo>) = std::mem::take(&mut self.undo)
                .into_iter()
                .partition(|u| u.disk == disk);
            self.undo = others;
            let store = &mut self.stores[disk];
            let mut result = Ok(());
            for u in held.iter().rev() {
                result = result.and(store.write(u.offset, &u.old));
            }
            for u in &held {
                let end = u.offset + u.old.len() as u64;
                let kept_to = match fates.get(&u.id) {
                    None | Some(Fate::Kept) => end,
                    Some(Fate::Lost) => continue,
                    Some(&Fate::Torn { kept_blocks }) => {
                        ((u.offset / bb + kept_blocks) * bb).clamp(u.offset, end)
                    }
                };
                let len = (kept_to - u.offset) as usize;
                result = result.and(match &u.new {
                    Some(bytes) => store.write(u.offset, &bytes[..len]),
                    None => store.zero(u.offset, len as u64),
                });
            }
            if let Err(e) = result {
                eprintln!("spindle serve: {e}");
            }
            // A mirror's copy still in service on this disk when the host
            // was answered is still held: a later cut may take it.
            let now = self.device.now();
            let still: Vec<Undo> = held
                .into_iter()
                .filter(|u| self.holds(disk, u.id, now))
                .collect();
            self.undo.extend(still);
        }
        for w in std::mem::take(&mut self.waiters) {
            self.answer(&w.reply, w.handle, w.arrived, None, Err(Errno::Io));
        }
    }

    fn applied(&mut self, applied: Applied) {
        match applied.effect {
            Ok(lost) => self.lose(&lost),
            Err(e) => say!(
                "spindle serve: the scheduled {} at {} ms of the disks' time could not be applied: {e}",
                described(&applied.fault),
                applied.at as f64 / 1e6
            ),
        }
        self.persist(true);
    }

    /// Applies `fault` now; returns what a power cut lost.
    ///
    /// # Errors
    /// [`FaultError`]: the device's refusal, a disk or range that does not exist.
    pub fn inject(&mut self, fault: &Fault) -> Result<Vec<Lost>, FaultError> {
        self.catch_up();
        let lost = self.device.inject(fault)?;
        self.lose(&lost);
        if let Fault::CorruptStored { disk, block } = *fault {
            self.corrupt_stored(disk, block);
        }
        self.save_latent();
        if let Fault::ReplaceDisk { disk } = *fault {
            self.marks[disk] = 0;
            self.lost[disk].clear();
        }
        // The failure's and the replacement's outcomes.
        let now = self.device.now();
        self.advance_to(now);
        self.persist(true);
        Ok(lost)
    }

    /// Flips one bit of block `block` of disk `disk`'s store (which bit
    /// follows from the block number), if the export holds it.
    fn corrupt_stored(&mut self, disk: usize, block: u64) {
        let bb = self.block_bytes;
        let at = block.saturating_mul(bb) + block % bb;
        let Some(store) = self.stores.get_mut(disk).filter(|_| at < self.size) else {
            return;
        };
        let mut byte = [0u8];
        let flipped = store.read(at, &mut byte).and_then(|()| {
            flip(&mut byte, block % 8);
            store.write(at, &byte)
        });
        if let Err(e) = flipped {
            eprintln!("spindle serve: corrupt-stored: {e}");
        }
    }

    /// The silent faults decided so far (misdirected writes, corrupt
    /// reads, failed flushes), in order.
    pub fn silent_log(&self) -> Vec<String> {
        self.device
            .silent_log()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Sets the resync speed of later replacements.
    ///
    /// # Errors
    /// As [`Emulated::set_resync_rate`].
    pub fn set_resync_rate(&mut self, rate: ResyncRate) -> Result<(), DeviceError> {
        self.device.inner_mut().set_resync_rate(rate)
    }

    /// Copies to each disk being rebuilt the blocks its resync has reached.
    fn resync_copy(&mut self) {
        let all_current = self.marks.iter().all(|&m| m == self.size)
            && (0..self.device.disks())
                .all(|d| matches!(self.device.disk_state(d), Ok(DiskState::Online)));
        if all_current {
            return;
        }
        let states = self.disk_states();
        for d in 0..states.len() {
            let target = match states[d] {
                DiskState::Failed => {
                    self.marks[d] = 0;
                    continue;
                }
                DiskState::Online => self.size,
                DiskState::Rebuilding { rebuilt_to } => {
                    (rebuilt_to.saturating_mul(self.block_bytes)).min(self.size)
                }
            };
            if self.marks[d] >= target {
                continue;
            }
            let sources: Vec<usize> = (0..states.len())
                .filter(|&s| s != d && states[s] == DiskState::Online)
                .collect();
            let Some(&source) = sources.first() else {
                continue;
            };
            let from = self.marks[d];
            if let Err(e) = self.copy_between(d, source, from, target - from) {
                say!("spindle serve: resync of disk {d}: {e}");
                continue;
            }
            // The copy reads its source through the fault injector: what
            // the first source cannot read comes from another copy, and
            // what no copy can read is lost, unreadable on the new disk
            // too (until rewritten), never served as good data.
            let blocks = from / self.block_bytes..target.div_ceil(self.block_bytes);
            for bad in unreadable(self.device.media_errors(source), &blocks) {
                let other = sources[1..]
                    .iter()
                    .copied()
                    .find(|&s| unreadable(self.device.media_errors(s), &bad).is_empty());
                let bytes =
                    bad.start * self.block_bytes..(bad.end * self.block_bytes).min(self.size);
                let copied =
                    other.map(|s| self.copy_between(d, s, bytes.start, bytes.end - bytes.start));
                if let Some(Ok(())) = copied {
                    continue;
                }
                say!(
                    "spindle serve: resync of disk {d}: blocks {}..{} are unreadable on every other copy: lost (reads of them fail until they are rewritten)",
                    bad.start,
                    bad.end
                );
                let fault = Fault::MediaError {
                    disk: d,
                    blocks: bad.clone(),
                };
                if let Err(e) = self.device.inject(&fault) {
                    say!("spindle serve: resync of disk {d}: {e}");
                }
                self.lost[d].push(bad);
            }
            self.marks[d] = target;
        }
    }

    /// Copies `len` bytes at `offset` from disk `from`'s store to disk `to`'s.
    fn copy_between(
        &mut self,
        to: usize,
        from: usize,
        offset: u64,
        len: u64,
    ) -> Result<(), StoreError> {
        let (left, right) = self.stores.split_at_mut(to.max(from));
        let (to_store, from_store) = if to < from {
            (&mut left[to], &right[0])
        } else {
            (&mut right[0], &left[from])
        };
        to_store.copy_from(from_store, offset, len)
    }

    /// Block ranges each rebuild of a disk found unreadable on every
    /// source, since the disk was last replaced.
    pub fn lost(&self, disk: usize) -> &[Range<u64>] {
        self.lost.get(disk).map_or(&[], Vec::as_slice)
    }

    /// Saves the mirror's state if it changed (a resync's progress at most
    /// once a second, unless `now`), syncing a rebuilt disk's store before
    /// its mark is recorded.
    fn persist(&mut self, now: bool) {
        let Some(file) = &self.state_file else {
            return;
        };
        let disks: Vec<SavedDisk> = self
            .disk_states()
            .iter()
            .zip(&self.marks)
            .map(|(s, &mark)| match s {
                DiskState::Online => SavedDisk::Online,
                DiskState::Failed => SavedDisk::Failed,
                DiskState::Rebuilding { .. } => SavedDisk::Rebuilding {
                    rebuilt_to: mark / self.block_bytes,
                },
            })
            .collect();
        let state = MirrorState {
            disks,
            size: self.size,
            clean: false,
            media_errors: (0..self.device.disks())
                .map(|d| self.device.media_errors(d).to_vec())
                .collect(),
        };
        if self.saved.as_ref() == Some(&state) {
            return;
        }
        let progress_only = self.saved.as_ref().is_some_and(|s| {
            s.disks
                .iter()
                .zip(&state.disks)
                .all(|(a, b)| std::mem::discriminant(a) == std::mem::discriminant(b))
        });
        if progress_only && !now && self.saved_at.elapsed() < Duration::from_secs(1) {
            return;
        }
        if self.sync().is_err() {
            return;
        }
        match file.save(&state) {
            Ok(()) => {
                self.saved = Some(state);
                self.saved_at = Instant::now();
            }
            Err(e) => say!("spindle serve: {e}"),
        }
    }

    /// A clean stop: every store synced, the mirror's state saved as clean.
    ///
    /// # Errors
    /// The first store or state file that failed.
    pub fn shut_down(&mut self) -> Result<(), EngineError> {
        self.catch_up();
        self.sync()?;
        if let Some(batch) = self.take_syncs() {
            self.synced(batch, Ok(()));
        }
        if let Some(log) = &mut self.recorder {
            log.finish()?;
        }
        for line in self.silent_log() {
            say!("spindle serve: silent fault: {line}");
        }
        self.persist(true);
        if let (Some(file), Some(state)) = (&self.state_file, &self.saved) {
            file.save(&MirrorState {
                clean: true,
                ..state.clone()
            })?;
        }
        Ok(())
    }
}

/// A fault in the words of the schedule file.
fn described(fault: &Fault) -> String {
    match fault {
        Fault::FailDisk { disk } => format!("fail-disk of disk {disk}"),
        Fault::ReplaceDisk { disk } => format!("replace-disk of disk {disk}"),
        Fault::MediaError { disk, blocks } => {
            format!(
                "media-error on blocks {}..{} of disk {disk}",
                blocks.start, blocks.end
            )
        }
        Fault::Slow {
            disk,
            factor,
            duration,
        } => format!(
            "slow of disk {disk} (factor {factor} for {} ms)",
            *duration as f64 / 1e6
        ),
        Fault::PowerCut => "power-cut".to_string(),
        Fault::Crash(model) => format!("power-cut under the {model} crash model"),
        Fault::MisdirectWrites { count } => format!("misdirect of the next {count} write(s)"),
        Fault::CorruptReads { count } => format!("corrupt-reads of the next {count} read(s)"),
        Fault::CorruptStored { disk, block } => {
            format!("corrupt-stored of block {block} of disk {disk}")
        }
        Fault::FailFlushes { count } => format!("flush-error of the next {count} flush(es)"),
    }
}

/// The parts of `blocks` within the sorted ranges `bad`.
fn unreadable(bad: &[Range<u64>], blocks: &Range<u64>) -> Vec<Range<u64>> {
    bad.iter()
        .map(|b| b.start.max(blocks.start)..b.end.min(blocks.end))
        .filter(|r| r.start < r.end)
        .collect()
}

/// A write or write of zeroes answered, as recorded.
fn answered_write(p: &Pending) -> Answered {
    Answered::Write {
        offset: p.offset,
        len: p.len,
        data: match &p.op {
            Op::Write(data) => Some(data.clone()),
            Op::Read | Op::Zero => None,
        },
        fua: p.fua,
    }
}

/// Flips bit `bit` (modulo the buffer's bits) of `buf`.
fn flip(buf: &mut [u8], bit: u64) {
    if buf.is_empty() {
        return;
    }
    let bit = bit % (buf.len() as u64 * 8);
    buf[(bit / 8) as usize] ^= 1 << (bit % 8);
}
