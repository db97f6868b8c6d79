//! Faults as a device wrapper: [`FaultInjector`] sits between a driver and
//! any [`Device`] (the shape of smoltcp's `FaultInjector` middleware) and
//! makes the things a storage engine must survive happen at chosen virtual
//! times, in the emulator and in the real-time block device alike:
//!
//! - a disk **failing**, being **replaced** and resynchronised (delegated to
//!   the inner device's [`fail_disk`](Device::fail_disk) and
//!   [`replace_disk`](Device::replace_disk));
//! - **media errors** on a range of a disk's blocks: a read that disk serves
//!   over the range comes out as [`Outcome::MediaError`] (its time spent, no
//!   data) until a write covering those blocks completes on the disk, which
//!   rewrites them; a replacement disk has none;
//! - a **slow disk**: every service of the disk takes `factor` times as long
//!   for a while ([`DiskModel::set_slowdown`]);
//! - a **power cut**: every drive's write-back cache loses writes it had
//!   acknowledged but not yet put on the media ([`DiskModel::cut_power`]):
//!   all of them, or those the injector's [`CrashModel`] picks with its
//!   seed (a subset, all but a prefix of a legal reordering, some torn at a
//!   sector boundary); each such write is reported with its [`Fate`] so
//!   that a driver holding real bytes can lose them too. Only the drives lose power: the host's queues and the
//!   operation each disk is serving go on (the model does not time a
//!   drive's restart).
//!
//! - **silent faults**, which the device reports as successes: a write
//!   **misdirected** to another block, a read returning a **flipped bit**,
//!   a stored sector's bit flipping (**corrupt-stored**, for the driver
//!   holding the bytes), a **flush failing**; armed for the next requests
//!   by a fault, or drawn per request at [`SilentRates`] from a seed. The
//!   driver moving real bytes takes each request's with
//!   [`FaultInjector::take_silent`]; every one is logged
//!   ([`FaultInjector::silent_log`]).
//!
//! Faults come from a [`Schedule`] — written by hand, read from a TOML or
//! JSON file ([`Schedule::from_file`]), or drawn from a seed
//! ([`Schedule::random`]) — or are injected at once with
//! [`FaultInjector::inject`]. Every scheduled fault applied is reported by
//! [`FaultInjector::poll_applied`], with its effect. With no fault the
//! wrapper is transparent: it passes the [`conformance`](crate::conformance)
//! suite like the device it wraps.

mod crash;
mod schedule;
mod silent;

pub use crash::{CrashModel, Fate, UnknownCrashModel, fates, kept_blocks};
pub use schedule::{RandomFaults, Schedule, ScheduleError};
pub use silent::{RandomSpecError, Silent, SilentKind, SilentRates, SilentRecord};

use std::collections::{HashMap, VecDeque};
use std::ops::Range;

use sched_core::array::{ArrayPolicy, Copies, DiskState};
use sched_core::{Kind, Nanos, Request, RequestId, Scheduler};

use crate::device::{ArrayDevice, Device, DeviceError, DiskDevice, Outcome};
use crate::disk::{DiskError, DiskModel, Unflushed};

use crate::events::EventQueue;

/// A device whose disk models a [`FaultInjector`] may change: slow them,
/// cut their power.
pub trait FaultTarget: Device {
    /// Disk `disk`'s mechanics, if it exists.
    fn model_mut(&mut self, disk: usize) -> Option<&mut DiskModel>;
}

impl<S: Scheduler> FaultTarget for DiskDevice<S> {
    fn model_mut(&mut self, disk: usize) -> Option<&mut DiskModel> {
        (disk == 0).then(|| DiskDevice::model_mut(self))
    }
}

impl<P: ArrayPolicy> FaultTarget for ArrayDevice<P> {
    fn model_mut(&mut self, disk: usize) -> Option<&mut DiskModel> {
        ArrayDevice::model_mut(self, disk)
    }
}

/// One fault.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// The disk fails.
    FailDisk {
        /// The disk.
        disk: usize,
    },
    /// A new disk replaces the failed one and is resynchronised.
    ReplaceDisk {
        /// The disk.
        disk: usize,
    },
    /// Blocks of a disk become unreadable until rewritten.
    MediaError {
        /// The disk.
        disk: usize,
        /// The blocks, on that disk.
        blocks: Range<u64>,
    },
    /// The disk's services take `factor` times as long for `duration`.
    Slow {
        /// The disk.
        disk: usize,
        /// At least 1.
        factor: f64,
        /// How long, ns.
        duration: Nanos,
    },
    /// Every drive loses the unflushed write-back data the injector's
    /// crash model picks ([`FaultInjector::with_crash_model`]; all of it by
    /// default).
    PowerCut,
    /// A power cut under this crash model rather than the injector's.
    Crash(CrashModel),
    /// The next `count` writes completed land at another block, silently.
    MisdirectWrites {
        /// Writes.
        count: u32,
    },
    /// The next `count` reads completed return a flipped bit, silently.
    CorruptReads {
        /// Reads.
        count: u32,
    },
    /// A bit of a stored block flips (the driver holding the bytes flips
    /// it; the emulator only logs it).
    CorruptStored {
        /// The disk.
        disk: usize,
        /// The block.
        block: u64,
    },
    /// The next `count` flushes fail.
    FailFlushes {
        /// Flushes.
        count: u32,
    },
}

/// A write a power cut took from one disk, wholly or in part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lost {
    /// The disk.
    pub disk: usize,
    /// The write its cache held unflushed.
    pub unflushed: Unflushed,
    /// What became of it: [`Fate::Lost`] or [`Fate::Torn`] (writes the
    /// model kept are not reported).
    pub fate: Fate,
}

/// A scheduled fault the injector applied, and what came of it.
#[derive(Debug)]
pub struct Applied {
    /// When.
    pub at: Nanos,
    /// The fault.
    pub fault: Fault,
    /// Blocks lost (a power cut), or why the fault could not be applied
    /// (failing a disk already failed, a disk beyond the device).
    pub effect: Result<Vec<Lost>, FaultError>,
}

/// Why a fault could not be applied.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FaultError {
    /// The inner device refused (a disk already failed, one not failed to
    /// replace, no such disk).
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The model refused (a slowdown factor below 1).
    #[error(transparent)]
    Model(#[from] DiskError),
    /// A disk beyond the device.
    #[error("disk {disk} is not in the device of {disks} disks")]
    NoSuchDisk {
        /// The disk.
        disk: usize,
        /// Disks in the device.
        disks: usize,
    },
    /// A media error on no block, or past the end of the disk.
    #[error(
        "media error on blocks {first}..{end} of disk {disk}: expected a non-empty range within its {capacity} blocks"
    )]
    BadRange {
        /// The disk.
        disk: usize,
        /// First block.
        first: u64,
        /// Block after the last.
        end: u64,
        /// The disk's capacity.
        capacity: u64,
    },
}

/// The injector's own timed steps.
#[derive(Clone, Debug)]
enum Step {
    /// A scheduled fault.
    Fault(Fault),
    /// The end of slowdown number `generation` of `disk`.
    EndSlow { disk: usize, generation: u64 },
}

/// A [`Device`] wrapper that injects faults (see the [module](self)
/// documentation).
///
/// ```
/// use disk_emu::disk::{DiskModel, presets};
/// use disk_emu::faults::{Fault, FaultInjector, Schedule};
/// use disk_emu::{Device, DiskDevice, Outcome, Stream};
/// use sched_core::array::{Copies, Location};
/// use sched_core::{Block, Blocks, Cyl, Kind, PolicySpec, Request, RequestId};
///
/// let model = DiskModel::from_spec(&presets::hp97560())?;
/// let disk = DiskDevice::new(model, &PolicySpec::Fcfs, Stream::numbered(1))?;
/// let bad = Fault::MediaError { disk: 0, blocks: 1_000..1_008 };
/// let mut dev = FaultInjector::new(disk).with_schedule(Schedule::new().at(0, bad));
/// let at = Copies::everywhere(1, Location { block: 1_004, cylinder: 0 });
/// dev.advance(0)?;
/// dev.submit(Request::new(RequestId(1), Kind::Read, Block(1_004), Blocks(1), Cyl(0), 0), &at, 0)?;
/// while let Some(t) = dev.next_event_time() {
///     dev.advance(t)?;
/// }
/// assert!(matches!(dev.poll(), Some(Outcome::MediaError { block: 1_004, .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FaultInjector<D> {
    inner: D,
    steps: EventQueue<Step>,
    /// Unreadable blocks of each disk, sorted and disjoint.
    bad: Vec<Vec<Range<u64>>>,
    /// Each disk's slowdowns so far: tells the current one's end from an
    /// earlier one's.
    slowed: Vec<u64>,
    /// The copies of every request in the device, to find the blocks a
    /// read or write touched on the disk that served it.
    open: HashMap<u64, Copies>,
    outbox: VecDeque<Outcome>,
    applied: VecDeque<Applied>,
    /// What a power cut takes, and the draws it makes.
    crash_model: CrashModel,
    crash_rng: crate::random::Stream,
    /// Silent faults: chances per request and their draws, those armed
    /// (misdirected writes, corrupt reads, failed flushes), those decided
    /// and not yet taken, and the log of all.
    silent_rates: SilentRates,
    silent_rng: crate::random::Stream,
    armed: [u32; 3],
    silent: HashMap<u64, Silent>,
    silent_log: Vec<SilentRecord>,
}

/// Indices into [`FaultInjector::armed`].
const MISDIRECT: usize = 0;
const CORRUPT_READ: usize = 1;
const FAIL_FLUSH: usize = 2;

impl<D: FaultTarget> FaultInjector<D> {
    /// Wraps `inner`, with no fault scheduled.
    pub fn new(inner: D) -> Self {
        let disks = inner.disks();
        FaultInjector {
            inner,
            steps: EventQueue::new(),
            bad: vec![Vec::new(); disks],
            slowed: vec![0; disks],
            open: HashMap::new(),
            outbox: VecDeque::new(),
            applied: VecDeque::new(),
            crash_model: CrashModel::LoseAll,
            crash_rng: crate::random::Stream::numbered(0),
            silent_rates: SilentRates::default(),
            silent_rng: crate::random::Stream::numbered(0),
            armed: [0; 3],
            silent: HashMap::new(),
            silent_log: Vec::new(),
        }
    }

    /// The same injector with silent faults drawn per request at `rates`.
    #[must_use]
    pub fn with_silent_rates(mut self, rates: SilentRates) -> Self {
        self.silent_rng = crate::random::Stream::numbered(rates.seed);
        self.silent_rates = rates;
        self
    }

    /// The silent fault decided for request `id` when it completed, once.
    pub fn take_silent(&mut self, id: RequestId) -> Option<Silent> {
        self.silent.remove(&id.0)
    }

    /// Whether the flush arriving now fails (armed, or drawn); logged.
    pub fn flush_fails(&mut self) -> bool {
        let fails = self.decide(FAIL_FLUSH, self.silent_rates.flush_error);
        if fails {
            self.silent_log.push(SilentRecord {
                at: self.inner.now(),
                disk: 0,
                request: None,
                blocks: 0..0,
                what: SilentKind::FlushFailed,
            });
        }
        fails
    }

    /// Every silent fault decided so far, in order.
    pub fn silent_log(&self) -> &[SilentRecord] {
        &self.silent_log
    }

    /// Whether a fault of kind `which` happens now: an armed one if any,
    /// else drawn at `rate` (no draw at rate 0, so that a run without
    /// silent faults draws nothing).
    fn decide(&mut self, which: usize, rate: f64) -> bool {
        if self.armed[which] > 0 {
            self.armed[which] -= 1;
            true
        } else {
            rate > 0.0 && self.silent_rng.chance(rate)
        }
    }

    /// Decides the silent fault of a request completed on `disk` over
    /// `blocks`.
    fn decide_silent(&mut self, id: u64, kind: Kind, disk: usize, blocks: Range<u64>) {
        let len = blocks.end - blocks.start;
        let latent = self.silent_rates.latent;
        if kind == Kind::Write && latent > 0.0 && self.silent_rng.chance(latent) {
            add_range(&mut self.bad[disk], blocks.clone());
            self.silent_log.push(SilentRecord {
                at: self.inner.now(),
                disk,
                request: Some(id),
                blocks: blocks.clone(),
                what: SilentKind::Latent,
            });
        }
        let silent = match kind {
            Kind::Write if self.decide(MISDIRECT, self.silent_rates.misdirect) => {
                let capacity = self.inner.model(disk).map_or(0, DiskModel::capacity_blocks);
                let mut to = self.silent_rng.below(capacity.saturating_sub(len).max(1));
                if to == blocks.start {
                    to = (to + len) % capacity.saturating_sub(len).max(1);
                }
                Silent::Misdirected { to }
            }
            Kind::Read if self.decide(CORRUPT_READ, self.silent_rates.corrupt_read) => {
                let bytes = self.inner.model(disk).map_or(512, DiskModel::block_bytes);
                Silent::ReadCorrupted {
                    bit: self.silent_rng.below(len * u64::from(bytes) * 8),
                }
            }
            _ => return,
        };
        self.silent_log.push(SilentRecord {
            at: self.inner.now(),
            disk,
            request: Some(id),
            blocks,
            what: match silent {
                Silent::Misdirected { to } => SilentKind::Misdirected { to },
                Silent::ReadCorrupted { bit } => SilentKind::ReadCorrupted { bit },
            },
        });
        self.silent.insert(id, silent);
    }

    /// The same injector with power cuts under `model`, drawn from a
    /// stream seeded with `seed`: the same seed and the same sequence of
    /// cuts pick the same writes.
    #[must_use]
    pub fn with_crash_model(mut self, model: CrashModel, seed: u64) -> Self {
        self.crash_model = model;
        self.crash_rng = crate::random::Stream::numbered(seed);
        self
    }

    /// The crash model of [`Fault::PowerCut`].
    pub fn crash_model(&self) -> CrashModel {
        self.crash_model
    }

    /// The same injector with `schedule`'s faults to come.
    #[must_use]
    pub fn with_schedule(mut self, schedule: Schedule) -> Self {
        for (at, fault) in schedule.into_faults() {
            self.steps.schedule(at, Step::Fault(fault));
        }
        self
    }

    /// The wrapped device.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The wrapped device, for its own operations (an array's resync rate).
    /// Requests submitted or cancelled through it escape the injector.
    pub fn inner_mut(&mut self) -> &mut D {
        &mut self.inner
    }

    /// The unreadable block ranges of `disk`.
    pub fn media_errors(&self, disk: usize) -> &[Range<u64>] {
        self.bad.get(disk).map_or(&[], Vec::as_slice)
    }

    /// The next scheduled fault applied, oldest first.
    pub fn poll_applied(&mut self) -> Option<Applied> {
        self.applied.pop_front()
    }

    /// Applies `fault` now, at the device's clock; returns what a power cut
    /// lost.
    ///
    /// # Errors
    /// [`FaultError`]: the inner device's or model's refusal, a disk beyond
    /// the device, an empty or out-of-range media error. Nothing changes on
    /// error.
    pub fn inject(&mut self, fault: &Fault) -> Result<Vec<Lost>, FaultError> {
        let lost = self.apply(fault)?;
        self.drain();
        Ok(lost)
    }

    fn check_disk(&self, disk: usize) -> Result<(), FaultError> {
        let disks = self.inner.disks();
        if disk < disks {
            Ok(())
        } else {
            Err(FaultError::NoSuchDisk { disk, disks })
        }
    }

    fn apply(&mut self, fault: &Fault) -> Result<Vec<Lost>, FaultError> {
        let now = self.inner.now();
        match *fault {
            Fault::FailDisk { disk } => {
                self.check_disk(disk)?;
                self.inner.fail_disk(disk)?;
            }
            Fault::ReplaceDisk { disk } => {
                self.check_disk(disk)?;
                self.inner.replace_disk(disk)?;
                // A new disk: no bad blocks, normal speed (the device puts
                // in the model as built).
                self.bad[disk].clear();
                self.slowed[disk] += 1;
            }
            Fault::MediaError { disk, ref blocks } => {
                self.check_disk(disk)?;
                let capacity = self.inner.model(disk).map_or(0, DiskModel::capacity_blocks);
                if blocks.is_empty() || blocks.end > capacity {
                    return Err(FaultError::BadRange {
                        disk,
                        first: blocks.start,
                        end: blocks.end,
                        capacity,
                    });
                }
                add_range(&mut self.bad[disk], blocks.clone());
            }
            Fault::Slow {
                disk,
                factor,
                duration,
            } => {
                self.check_disk(disk)?;
                let disks = self.inner.disks();
                let model = self
                    .inner
                    .model_mut(disk)
                    .ok_or(FaultError::NoSuchDisk { disk, disks })?;
                model.set_slowdown(factor)?;
                self.slowed[disk] += 1;
                self.steps.schedule(
                    now.saturating_add(duration),
                    Step::EndSlow {
                        disk,
                        generation: self.slowed[disk],
                    },
                );
            }
            Fault::PowerCut => return Ok(self.cut_power(self.crash_model, now)),
            Fault::Crash(model) => return Ok(self.cut_power(model, now)),
            Fault::MisdirectWrites { count } => self.armed[MISDIRECT] += count,
            Fault::CorruptReads { count } => self.armed[CORRUPT_READ] += count,
            Fault::FailFlushes { count } => self.armed[FAIL_FLUSH] += count,
            Fault::CorruptStored { disk, block } => {
                self.check_disk(disk)?;
                let capacity = self.inner.model(disk).map_or(0, DiskModel::capacity_blocks);
                if block >= capacity {
                    return Err(FaultError::BadRange {
                        disk,
                        first: block,
                        end: block.saturating_add(1),
                        capacity,
                    });
                }
            }
        }
        Ok(Vec::new())
    }

    /// Every drive loses power at `now`; `model` picks what each loses.
    fn cut_power(&mut self, model: CrashModel, now: Nanos) -> Vec<Lost> {
        let mut lost = Vec::new();
        for disk in 0..self.inner.disks() {
            let Some(m) = self.inner.model_mut(disk) else {
                continue;
            };
            let volatile = m.cut_power(now);
            let blocks: Vec<Range<u64>> = volatile.iter().map(|u| u.blocks.clone()).collect();
            let fate = fates(model, &blocks, &mut self.crash_rng);
            lost.extend(
                volatile
                    .into_iter()
                    .zip(fate)
                    .filter(|(_, f)| *f != Fate::Kept)
                    .map(|(unflushed, fate)| Lost {
                        disk,
                        unflushed,
                        fate,
                    }),
            );
        }
        lost
    }

    /// Takes the inner device's outcomes through the media-error filter.
    fn drain(&mut self) {
        while let Some(o) = self.inner.poll() {
            let o = self.filter(o);
            self.outbox.push_back(o);
        }
    }

    fn filter(&mut self, o: Outcome) -> Outcome {
        match o {
            Outcome::Completed(done) => {
                let Some(copies) = self.open.remove(&done.request.id.0) else {
                    return o;
                };
                let len = u64::from(done.request.blocks.max(1));
                let disk = done.timing.disk;
                let first = copies
                    .location(disk)
                    .map_or(done.request.block, |at| at.block);
                match done.request.kind {
                    Kind::Read => {
                        let unreadable = first_bad(self.media_errors(disk), first..first + len);
                        match unreadable {
                            Some(block) => Outcome::MediaError { done, block },
                            None => {
                                self.decide_silent(
                                    done.request.id.0,
                                    Kind::Read,
                                    disk,
                                    first..first + len,
                                );
                                o
                            }
                        }
                    }
                    Kind::Write => {
                        // Every disk still holding the write has rewritten its copy.
                        for (disk, at) in copies.holders().iter().zip(copies.locations()) {
                            let written = !matches!(
                                self.inner.disk_state(disk),
                                Ok(DiskState::Failed) | Err(_)
                            );
                            if written && let Some(bad) = self.bad.get_mut(disk) {
                                remove_range(bad, at.block..at.block + len);
                            }
                        }
                        self.decide_silent(
                            done.request.id.0,
                            Kind::Write,
                            disk,
                            first..first + len,
                        );
                        o
                    }
                }
            }
            Outcome::Expired(r) | Outcome::Failed(r) => {
                self.open.remove(&r.id.0);
                o
            }
            Outcome::MediaError { done, .. } => {
                self.open.remove(&done.request.id.0);
                o
            }
            Outcome::Resynced { .. } => o,
        }
    }
}

impl<D: FaultTarget> Device for FaultInjector<D> {
    type Report = D::Report;

    fn submit(&mut self, req: Request, copies: &Copies, now: Nanos) -> Result<(), DeviceError> {
        super::device::check_input_time(now, self.inner.now(), self.next_event_time())?;
        self.inner.submit(req, copies, now)?;
        self.open.insert(req.id.0, *copies);
        self.drain();
        Ok(())
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError> {
        let req = self.inner.cancel(id)?;
        self.open.remove(&id.0);
        self.drain();
        Ok(req)
    }

    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        if to < self.inner.now() {
            return Err(DeviceError::TimeWentBack {
                now: to,
                clock: self.inner.now(),
            });
        }
        while let Some(at) = self.steps.peek_time().filter(|&t| t <= to) {
            self.inner.advance(at)?;
            self.drain();
            let Some((_, step)) = self.steps.pop() else {
                break;
            };
            match step {
                Step::Fault(fault) => {
                    let effect = self.apply(&fault);
                    self.drain();
                    self.applied.push_back(Applied { at, fault, effect });
                }
                Step::EndSlow { disk, generation } => {
                    if self.slowed[disk] == generation
                        && let Some(model) = self.inner.model_mut(disk)
                    {
                        model.restore_speed();
                    }
                }
            }
        }
        self.inner.advance(to)?;
        self.drain();
        Ok(())
    }

    fn fail_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        self.inner.fail_disk(disk)?;
        self.drain();
        Ok(())
    }

    fn replace_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        self.inner.replace_disk(disk)?;
        if let Some(bad) = self.bad.get_mut(disk) {
            bad.clear();
            self.slowed[disk] += 1;
        }
        self.drain();
        Ok(())
    }

    fn reset_stats(&mut self) {
        self.inner.reset_stats();
    }

    fn poll(&mut self) -> Option<Outcome> {
        self.outbox.pop_front()
    }

    fn next_event_time(&self) -> Option<Nanos> {
        match (self.inner.next_event_time(), self.steps.peek_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn now(&self) -> Nanos {
        self.inner.now()
    }

    fn disks(&self) -> usize {
        self.inner.disks()
    }

    fn disk_state(&self, disk: usize) -> Result<DiskState, DeviceError> {
        self.inner.disk_state(disk)
    }

    fn serving(&self, disk: usize) -> Option<&Request> {
        self.inner.serving(disk)
    }

    fn queued(&self) -> usize {
        self.inner.queued()
    }

    fn in_system(&self) -> usize {
        self.inner.in_system()
    }

    fn model(&self, disk: usize) -> Option<&DiskModel> {
        self.inner.model(disk)
    }

    fn report(&mut self, end: Nanos) -> D::Report {
        self.inner.report(end)
    }
}

/// The first block of `span` in one of the sorted, disjoint `ranges`.
fn first_bad(ranges: &[Range<u64>], span: Range<u64>) -> Option<u64> {
    ranges
        .iter()
        .find(|r| r.start < span.end && span.start < r.end)
        .map(|r| r.start.max(span.start))
}

/// Adds `new` to sorted, disjoint `ranges`, merging what it touches.
fn add_range(ranges: &mut Vec<Range<u64>>, new: Range<u64>) {
    let mut merged = new;
    ranges.retain(|r| {
        let touches = r.start <= merged.end && merged.start <= r.end;
        if touches {
            merged = merged.start.min(r.start)..merged.end.max(r.end);
        }
        !touches
    });
    let at = ranges.partition_point(|r| r.start < merged.start);
    ranges.insert(at, merged);
}

/// Takes `gone` out of sorted, disjoint `ranges`.
fn remove_range(ranges: &mut Vec<Range<u64>>, gone: Range<u64>) {
    let mut kept = Vec::with_capacity(ranges.len() + 1);
    for r in ranges.drain(..) {
        if r.end <= gone.start || gone.end <= r.start {
            kept.push(r);
            continue;
        }
        if r.start < gone.start {
            kept.push(r.start..gone.start);
        }
        if gone.end < r.end {
            kept.push(gone.end..r.end);
        }
    }
    *ranges = kept;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_split() {
        let mut r = Vec::new();
        add_range(&mut r, 10..20);
        add_range(&mut r, 30..40);
        add_range(&mut r, 18..31);
        assert_eq!(r, vec![Range { start: 10, end: 40 }]);
        remove_range(&mut r, 15..25);
        assert_eq!(r, [10..15, 25..40]);
        assert_eq!(first_bad(&r, 0..11), Some(10));
        assert_eq!(first_bad(&r, 15..25), None);
        assert_eq!(first_bad(&r, 20..30), Some(25));
        remove_range(&mut r, 0..100);
        assert!(r.is_empty());
    }
}
