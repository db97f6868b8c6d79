//! A disk array of D disks — stripe, RAID-10 or EW-Array — under an
//! accelerated OLTP workload or a replayed trace: the experiment of Zhang,
//! Yu, Krishnamurthy & Wang (FAST 2002, §6, Figure 11), on the event loop.
//!
//! Each stripe group of the [`Layout`] is one [`ArrayDevice`] whose policy is
//! an [`EwArray`] group (SATF-EW per disk for an EW-Array, SATF for the
//! arrays that update in place) and whose free space is a [`GroupSpace`].
//! The driver owns the array-wide state beside it: the [`ReplicaMap`] of
//! every copy, the [`DelayedWrites`] buffer, and the degree of replication.
//!
//! - **Reads** go to the copies holding the current version.
//! - **A user write** goes to its block's copies that have no write in
//!   flight (held back until one has none); the group's policy writes one of
//!   them in the foreground, eagerly on an EW-Array. When it completes, its
//!   old place is freed and the other copies kept at the current degree of
//!   replication are **propagated**: buffered (each disk's propagations are
//!   sent two at a time to its delayed-write queue, served when the disk
//!   has no foreground work) or, when the buffer is full, written at once
//!   as foreground writes.
//! - **Degree of replication.** Under *sustained overload* — the buffer at
//!   least 90 % full for 1 s of virtual time without a break — the array
//!   lowers its degree by one: writes from then on propagate to fewer
//!   copies, and the others go stale (reads avoid them) until their block is
//!   next written at a higher degree. When the buffer has stayed at or below
//!   10 % for 5 s, the degree rises by one again. Both clocks restart at
//!   every change (the hysteresis). The paper says only that the degree is
//!   lowered "as we raise the request arrival rate"; the thresholds are
//!   ours.
//! - **Measurement.** `warmup` arrivals, then `requests` measured ones; the
//!   run ends when the last measured request completes. A run reports the
//!   mean response of the measured requests (reads, writes, all) and the
//!   time-averaged number of user requests in the array over each half of
//!   the measured arrivals' span, from which [`crate::sustainable`] judges
//!   whether the load is sustained.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::Arc;

use disk_emu::disk::{DiskModel, DiskSpec};
use disk_emu::trace::{self, TraceFormat, TraceOptions, TraceReader};
use disk_emu::{ArrayDevice, Device, DeviceError, Moments, Outcome};
use sched_core::array::{Copies, EwArray};
use sched_core::{
    AnyScheduler, BuildError, EnqueueError, Heap, Kind, Nanos, PolicySpec, Request, RequestId,
};
use serde::Serialize;

use crate::array_layout::{Layout, LayoutError, Organisation};
use crate::free_map::{GroupSpace, TrackTable, TrackTableError};
use crate::oltp::{OltpError, OltpSource, OltpWorkload};
use crate::replica_map::{DelayedWrites, ReplicaMap, ReplicaSet};
use crate::seeds::{Purpose, Unit};
use crate::simulation::{Driver, Flow, Simulation};

/// The per-disk queue of a group.
pub type GroupQueue = AnyScheduler<Heap>;
/// A stripe group's policy.
pub type GroupPolicy = EwArray<Vec<GroupQueue>, Vec<GroupQueue>, Heap>;
/// A stripe group's device.
pub type GroupDevice = ArrayDevice<GroupPolicy, GroupSpace>;

/// Logical requests a group holds at once (queued or in service); more is
/// an overflow, which the throughput search counts as overload.
pub const GROUP_CAPACITY: usize = 4096;
/// The paper's delayed-write buffer: 10,000 blocks (Figure 11).
pub const DELAYED_WRITE_BUFFER: usize = 10_000;
/// Propagations sent to one disk's delayed-write queue at a time.
const PROPAGATION_WINDOW: u32 = 2;
/// Request classes beside the users' (class 0): buffered propagations, and
/// propagations written in the foreground because the buffer was full.
const PROPAGATION: u16 = 1;
const FORCED: u16 = 2;
/// Ids of the array's own writes start here (below the device's own).
const OWN_IDS: u64 = 1 << 62;
/// Sustained overload: the buffer this full for this long lowers the degree.
const HIGH_WATER: f64 = 0.9;
const HIGH_FOR: Nanos = 1_000_000_000;
/// Calm: the buffer this empty for this long raises it again.
const LOW_WATER: f64 = 0.1;
const LOW_FOR: Nanos = 5_000_000_000;

/// What the array serves.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ArrayWorkload {
    /// The synthetic OLTP workload.
    Oltp(OltpWorkload),
    /// A trace's requests, each 4 KB block of a request one array request
    /// (blocks wrapped onto the database), at the trace's times divided by
    /// the speed-up.
    Trace {
        /// The trace file.
        path: PathBuf,
        /// Its format, or `None` to detect it.
        #[serde(skip)]
        format: Option<TraceFormat>,
        /// The database the blocks are wrapped onto, in array blocks.
        database_blocks: u64,
    },
}

impl ArrayWorkload {
    /// The database, in array blocks.
    pub fn database_blocks(&self) -> u64 {
        match self {
            ArrayWorkload::Oltp(w) => w.database_blocks,
            ArrayWorkload::Trace {
                database_blocks, ..
            } => *database_blocks,
        }
    }
}

/// One array configuration under one workload.
#[derive(Clone, Debug)]
pub struct ArrayExperiment {
    /// The disks' model.
    pub disk: DiskSpec,
    /// Disks of the array.
    pub disks: u32,
    /// How they are organised.
    pub organisation: Organisation,
    /// What they serve.
    pub workload: ArrayWorkload,
    /// The delayed-write buffer, blocks.
    pub buffer: usize,
    /// Arrivals discarded first.
    pub warmup: u64,
    /// Arrivals measured.
    pub requests: u64,
    /// Experiment seed.
    pub seed: u64,
}

/// Why an array run failed.
#[derive(Debug, thiserror::Error)]
pub enum ArrayError {
    /// The organisation does not fit.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The workload's parameters.
    #[error(transparent)]
    Workload(#[from] OltpError),
    /// The disk cannot place eager writes.
    #[error(transparent)]
    Table(#[from] TrackTableError),
    /// The disk description.
    #[error(transparent)]
    Disk(#[from] disk_emu::disk::DiskError),
    /// A policy could not be built.
    #[error("policy: {0}")]
    Build(#[from] BuildError),
    /// A device misbehaved or refused an input.
    #[error("device: {0}")]
    Device(#[from] DeviceError),
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] disk_emu::trace::TraceError),
    /// A group's queues filled up: the load is beyond what it serves.
    #[error("overload: a stripe group held {GROUP_CAPACITY} requests at t = {at_ms:.1} ms")]
    Overflow {
        /// Virtual time of the overflow, ms.
        at_ms: f64,
    },
    /// The array's bookkeeping broke an invariant (a bug).
    #[error("invariant: {0}")]
    Invariant(String),
    /// Nothing to measure.
    #[error("requests: expected at least one measured request")]
    NoRequests,
}

/// What one run measured.
#[derive(Clone, Debug, Serialize)]
pub struct ArrayReport {
    /// The speed-up the workload was played at.
    pub speedup: f64,
    /// Measured requests completed.
    pub completed: u64,
    /// Mean response of all measured requests, ms.
    pub mean_response_ms: f64,
    /// Mean response of measured reads, ms.
    pub read_response_ms: f64,
    /// Mean response of measured writes, ms.
    pub write_response_ms: f64,
    /// Largest response, ms.
    pub max_response_ms: f64,
    /// Time-averaged user requests in the array over the first and second
    /// halves of the measured arrivals' span.
    pub in_array: [f64; 2],
    /// Measured requests per second of virtual time.
    pub throughput_per_s: f64,
    /// Mean utilisation of the disks over the measured span.
    pub utilisation: f64,
    /// Propagations written through the buffer, and in the foreground
    /// because it was full.
    pub propagated: u64,
    /// Propagations written in the foreground.
    pub forced: u64,
    /// Fullest the buffer got, blocks.
    pub buffer_peak: usize,
    /// Lowest degree of replication the run fell to, and the number of
    /// changes of degree.
    pub lowest_degree: u32,
    /// Changes of the degree of replication.
    pub degree_changes: u32,
    /// User requests simulated per second of wall time (the event loop,
    /// setting up the array excluded).
    pub requests_per_wall_s: f64,
}

/// What an operation in flight is.
#[derive(Clone, Copy, Debug)]
enum Flight {
    Read {
        block: u64,
        arrival: Nanos,
    },
    Write {
        block: u64,
        copies: ReplicaSet,
        version: u32,
        arrival: Nanos,
    },
    Propagation {
        block: u64,
        replica: u32,
        version: u32,
        forced: bool,
    },
}

/// Where requests come from.
enum Source {
    Oltp(OltpSource),
    Trace {
        reader: Box<TraceReader<BufReader<File>>>,
        speedup: f64,
        database: u64,
        /// Blocks of the current record still to issue.
        pending: VecDeque<(Kind, u64)>,
    },
}

/// The driver (see the module documentation).
struct ArrayRun {
    layout: Layout,
    table: Arc<TrackTable>,
    map: ReplicaMap,
    buffer: DelayedWrites,
    source: Source,
    degree: u32,
    lowest_degree: u32,
    degree_changes: u32,
    high_since: Option<Nanos>,
    low_since: Option<Nanos>,
    flights: HashMap<u64, Flight>,
    /// User writes held because every copy had a write in flight.
    held: HashMap<u64, VecDeque<(u64, Nanos)>>,
    /// Propagations sent per disk and not yet complete.
    sent: Vec<u32>,
    next_id: u64,
    next_own: u64,
    arrivals: u64,
    warmup: u64,
    target: u64,
    measured_done: u64,
    /// The half of the measured arrivals under way, and when each began
    /// and the last ended.
    half: Option<usize>,
    bounds: [Nanos; 3],
    outstanding: u64,
    area: [f64; 2],
    last_change: Nanos,
    all: Moments,
    reads: Moments,
    writes: Moments,
    propagated: u64,
    forced: u64,
    buffer_peak: usize,
    end: Nanos,
    ops: u64,
}

impl ArrayExperiment {
    /// The layout of the experiment on its disks.
    ///
    /// # Errors
    /// [`ArrayError`] for a disk that cannot be built or an organisation
    /// that does not fit it.
    pub fn layout(&self) -> Result<Layout, ArrayError> {
        let model = DiskModel::from_spec(&self.disk)?;
        let capacity = model.capacity_blocks() / u64::from(SECTORS);
        Ok(Layout::new(
            self.organisation,
            self.disks,
            capacity,
            self.workload.database_blocks(),
        )?)
    }

    /// Runs replication `replication` at `speedup`.
    ///
    /// # Errors
    /// [`ArrayError`]; [`ArrayError::Overflow`] when a group's queues fill.
    pub fn run(&self, speedup: f64, replication: u64) -> Result<ArrayReport, ArrayError> {
        if self.requests == 0 {
            return Err(ArrayError::NoRequests);
        }
        let model = DiskModel::from_spec(&self.disk)?;
        let layout = self.layout()?;
        let table = Arc::new(TrackTable::new(&model, layout.region, SECTORS)?);
        let unit = Unit::new(self.seed, 0, replication);
        let source = match &self.workload {
            ArrayWorkload::Oltp(w) => {
                w.validate(speedup)?;
                Source::Oltp(OltpSource::new(
                    w,
                    speedup,
                    unit.stream(Purpose::Arrivals),
                    unit.stream(Purpose::Addresses),
                ))
            }
            ArrayWorkload::Trace { path, format, .. } => {
                if !(speedup.is_finite() && speedup > 0.0) {
                    return Err(OltpError::Invalid {
                        parameter: "speedup",
                        expected: "a positive, finite factor",
                        value: speedup,
                    }
                    .into());
                }
                Source::Trace {
                    reader: Box::new(trace::open(path, *format, TraceOptions::default())?),
                    speedup,
                    database: layout.database,
                    pending: VecDeque::new(),
                }
            }
        };
        let mut sim: Simulation<GroupDevice, ()> = Simulation::new();
        for g in 0..layout.groups {
            sim.add_device(group_device(&layout, &model, &table, g, &unit)?);
        }
        let mut run = ArrayRun {
            map: ReplicaMap::new(&layout),
            buffer: DelayedWrites::new(self.buffer, layout.disks_used() as usize),
            sent: vec![0; layout.disks_used() as usize],
            degree: layout.mirrors,
            lowest_degree: layout.mirrors,
            layout,
            table,
            source,
            degree_changes: 0,
            high_since: None,
            low_since: None,
            flights: HashMap::new(),
            held: HashMap::new(),
            next_id: 0,
            next_own: OWN_IDS,
            arrivals: 0,
            warmup: self.warmup,
            target: self.warmup + self.requests,
            measured_done: 0,
            half: None,
            bounds: [0; 3],
            outstanding: 0,
            area: [0.0; 2],
            last_change: 0,
            all: Moments::new(),
            reads: Moments::new(),
            writes: Moments::new(),
            propagated: 0,
            forced: 0,
            buffer_peak: 0,
            end: 0,
            ops: 0,
        };
        let first = run.next_arrival(0)?;
        match first {
            Some(t) => sim.schedule(t, ()),
            None => return Err(ArrayError::NoRequests),
        }
        // The emulator's speed: the event loop alone, not the setting up.
        let started = std::time::Instant::now();
        let mut report = sim.run(&mut run)?;
        report.speedup = speedup;
        report.requests_per_wall_s = run.arrivals as f64 / started.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// Sectors per array block: 4 KB of 512-byte sectors.
pub const SECTORS: u32 = 8;

/// Stripe group `g`'s device: its disks, their queues (SATF-EW for an
/// eager array, SATF otherwise) and its free space, holding every slot of
/// the region but those of the group's blocks.
fn group_device(
    layout: &Layout,
    model: &DiskModel,
    table: &Arc<TrackTable>,
    g: u32,
    unit: &Unit,
) -> Result<GroupDevice, ArrayError> {
    let members = layout.mirrors as usize;
    let spec = if layout.eager {
        PolicySpec::SatfEw
    } else {
        PolicySpec::Sptf { window: None }
    };
    let queues = || -> Result<Vec<GroupQueue>, ArrayError> {
        (0..members)
            .map(|_| Ok(spec.build(heap()?, model.cylinders())?))
            .collect()
    };
    let policy = EwArray::new(heap()?, queues()?, queues()?, PROPAGATION)?;
    let service = (0..members as u32)
        .map(|r| {
            unit.stream(Purpose::Service {
                disk: layout.disk(g, r),
            })
        })
        .collect();
    let mut space = GroupSpace::new(table.clone(), members);
    if layout.eager {
        let mut used = vec![false; table.slots() as usize];
        let mut local = 0;
        while u64::from(g) + local * u64::from(layout.groups) < layout.database {
            used[layout.initial_slot(local) as usize] = true;
            local += 1;
        }
        for r in 0..members {
            for (slot, &u) in used.iter().enumerate() {
                if !u {
                    space.release(r, slot as u64);
                }
            }
        }
    }
    Ok(
        ArrayDevice::with_policy(vec![model.clone(); members], policy, service)?
            .with_free_space(space),
    )
}

fn heap() -> Result<Heap, ArrayError> {
    Heap::new(GROUP_CAPACITY).map_err(|e| ArrayError::Invariant(e.to_string()))
}

impl ArrayRun {
    /// Draws the next arrival after `now`, if the run wants one.
    fn next_arrival(&mut self, now: Nanos) -> Result<Option<Nanos>, ArrayError> {
        if self.arrivals >= self.target {
            return Ok(None);
        }
        Ok(match &mut self.source {
            Source::Oltp(s) => Some(now + s.gap()),
            Source::Trace {
                reader,
                speedup,
                database,
                pending,
            } => {
                if !pending.is_empty() {
                    return Ok(Some(now));
                }
                let Some(record) = reader.next().transpose()? else {
                    return Ok(None);
                };
                let first = record.block * 512 / 4096;
                let last = (record.block + u64::from(record.blocks) - 1) * 512 / 4096;
                for b in first..=last {
                    pending.push_back((record.kind, b % *database));
                }
                let at = record.arrival.unwrap_or(now) as f64 / *speedup;
                Some((at as Nanos).max(now))
            }
        })
    }

    /// The next request's kind and block.
    fn draw(&mut self) -> (Kind, u64) {
        match &mut self.source {
            Source::Oltp(s) => s.request(),
            Source::Trace { pending, .. } => pending.pop_front().unwrap_or((Kind::Read, 0)),
        }
    }

    /// Adds the user requests in the array up to `now` to the half under way.
    fn accumulate(&mut self, now: Nanos) {
        if let Some(h) = self.half {
            self.area[h] += self.outstanding as f64 * (now - self.last_change) as f64;
        }
        self.last_change = now;
    }

    fn copies(&self, block: u64, set: ReplicaSet) -> Copies {
        (0..self.layout.mirrors)
            .filter(|r| set & 1 << r != 0)
            .fold(Copies::new(), |c, r| {
                c.with(r as usize, self.table.location(self.map.slot(block, r)))
            })
    }

    fn submit(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        req: Request,
        copies: &Copies,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        self.ops += 1;
        match sim.with_device(g as usize, |d| d.submit(req, copies, now)) {
            Ok(()) => Ok(()),
            Err(DeviceError::Refused(EnqueueError::QueueFull { .. })) => {
                Err(ArrayError::Overflow {
                    at_ms: now as f64 / 1e6,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Sends user write `id` of `block` to its copies without a write in
    /// flight, or holds it.
    fn write(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        id: u64,
        block: u64,
        arrival: Nanos,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let set = self.map.writable(block);
        if set == 0 {
            self.held.entry(block).or_default().push_back((id, arrival));
            return Ok(());
        }
        let (g, _) = self.layout.locate(block);
        let copies = self.copies(block, set);
        let version = self.map.write_started(block, set);
        self.flights.insert(
            id,
            Flight::Write {
                block,
                copies: set,
                version,
                arrival,
            },
        );
        let req = Request::new(RequestId(id), Kind::Write, 0, SECTORS, 0, arrival);
        self.submit(sim, g, req, &copies, now)
    }

    /// Buffers (or, the buffer full, writes at once) every copy of `block`
    /// kept at the current degree that is behind; `written` is the copy a
    /// write just put the current version on.
    fn propagate(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        block: u64,
        written: Option<u32>,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let (g, _) = self.layout.locate(block);
        let first = written.unwrap_or(0);
        let kept: Vec<u32> = (0..self.layout.mirrors)
            .filter(|&r| r != first)
            .take(self.degree as usize - 1)
            .collect();
        for r in kept {
            if !self.map.needs_propagation(block, r) {
                continue;
            }
            let disk = self.layout.disk(g, r) as usize;
            if self.buffer.push(disk, block) {
                self.map.set_pending(block, r, true);
                self.buffer_peak = self.buffer_peak.max(self.buffer.held());
                self.fill(sim, g, r, now)?;
            } else {
                self.send_propagation(sim, g, r, block, true, now)?;
            }
        }
        Ok(())
    }

    /// Sends buffered propagations of replica `r` of group `g` while its
    /// disk has fewer than the window in flight.
    fn fill(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        r: u32,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let disk = self.layout.disk(g, r) as usize;
        while self.sent[disk] < PROPAGATION_WINDOW {
            let Some(block) = self.buffer.next_for(disk) else {
                return Ok(());
            };
            let behind = self.map.version(block, r) < self.map.current(block);
            if !behind || self.map.writable(block) & 1 << r == 0 {
                // Written meanwhile, or a write of it is in flight (which
                // propagates again if it needs to when it completes).
                self.map.set_pending(block, r, false);
                self.buffer.written();
                continue;
            }
            self.sent[disk] += 1;
            self.send_propagation(sim, g, r, block, false, now)?;
        }
        Ok(())
    }

    fn send_propagation(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        r: u32,
        block: u64,
        forced: bool,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let version = self.map.propagation_started(block, r);
        let id = self.next_own;
        self.next_own += 1;
        self.flights.insert(
            id,
            Flight::Propagation {
                block,
                replica: r,
                version,
                forced,
            },
        );
        let class = if forced { FORCED } else { PROPAGATION };
        let req = Request::new(RequestId(id), Kind::Write, 0, SECTORS, 0, now).with_class(class);
        let copies = self.copies(block, 1 << r);
        self.submit(sim, g, req, &copies, now)
    }

    /// Applies a completed write of `block` on replica `r` of group `g`.
    #[allow(clippy::too_many_arguments)]
    fn written(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        id: u64,
        block: u64,
        copies: ReplicaSet,
        r: u32,
        version: u32,
        now: Nanos,
    ) -> Result<(), ArrayError> {
        let slot = sim
            .with_device(g as usize, |d| {
                d.free_space_mut().take_placement(RequestId(id))
            })
            .map(|(disk, slot)| {
                debug_assert_eq!(disk as u32, r);
                slot
            });
        if let Some((replica, old)) = self.map.write_done(block, copies, r, version, slot) {
            self.release(sim, g, replica, old)?;
        }
        self.propagate(sim, block, Some(r), now)?;
        if let Some(mut waiting) = self.held.remove(&block)
            && let Some((wid, arrival)) = waiting.pop_front()
        {
            if !waiting.is_empty() {
                self.held.insert(block, waiting);
            }
            self.write(sim, wid, block, arrival, now)?;
        }
        Ok(())
    }

    fn release(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        g: u32,
        replica: u32,
        slot: u64,
    ) -> Result<(), ArrayError> {
        if sim.with_device(g as usize, |d| {
            d.free_space_mut().release(replica as usize, slot)
        }) {
            Ok(())
        } else {
            Err(ArrayError::Invariant(format!(
                "slot {slot} of group {g} replica {replica} freed twice"
            )))
        }
    }

    /// Lowers or raises the degree of replication (see the module
    /// documentation).
    fn control_degree(&mut self, now: Nanos) {
        let fill = self.buffer.held() as f64 / self.buffer.capacity().max(1) as f64;
        if fill >= HIGH_WATER {
            let since = *self.high_since.get_or_insert(now);
            if now - since >= HIGH_FOR && self.degree > 1 {
                self.degree -= 1;
                self.lowest_degree = self.lowest_degree.min(self.degree);
                self.degree_changes += 1;
                self.high_since = None;
                self.low_since = None;
            }
        } else {
            self.high_since = None;
        }
        if fill <= LOW_WATER {
            let since = *self.low_since.get_or_insert(now);
            if now - since >= LOW_FOR && self.degree < self.layout.mirrors {
                self.degree += 1;
                self.degree_changes += 1;
                self.high_since = None;
                self.low_since = None;
            }
        } else {
            self.low_since = None;
        }
    }

    fn measured(&self, id: u64) -> bool {
        id >= self.warmup && id < self.target
    }
}

impl Driver<GroupDevice> for ArrayRun {
    type Event = ();
    type Output = ArrayReport;
    type Error = ArrayError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        now: Nanos,
        _event: (),
    ) -> Result<Flow, ArrayError> {
        let id = self.next_id;
        self.next_id += 1;
        self.arrivals += 1;
        self.accumulate(now);
        let second_half = self.warmup + (self.target - self.warmup) / 2;
        if id == self.warmup {
            self.half = Some(0);
            self.bounds[0] = now;
            for g in 0..sim.device_count() {
                sim.with_device(g, Device::reset_stats);
            }
        } else if id == second_half {
            self.half = Some(1);
            self.bounds[1] = now;
        }
        self.outstanding += 1;
        let (kind, block) = self.draw();
        self.control_degree(now);
        match kind {
            Kind::Read => {
                let (g, _) = self.layout.locate(block);
                let copies = self.copies(block, self.map.fresh(block));
                self.map.read_started(block);
                self.flights.insert(
                    id,
                    Flight::Read {
                        block,
                        arrival: now,
                    },
                );
                let req = Request::new(RequestId(id), Kind::Read, 0, SECTORS, 0, now);
                self.submit(sim, g, req, &copies, now)?;
            }
            Kind::Write => self.write(sim, id, block, now, now)?,
        }
        match self.next_arrival(now)? {
            Some(t) => sim.schedule(t, ()),
            None => {
                self.half = None;
                self.bounds[2] = now;
            }
        }
        Ok(Flow::Continue)
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        now: Nanos,
        device: usize,
        outcome: Outcome,
    ) -> Result<Flow, ArrayError> {
        let Outcome::Completed(done) = outcome else {
            return Err(ArrayError::Invariant(format!(
                "unexpected outcome {outcome:?}"
            )));
        };
        let id = done.request.id.0;
        let g = device as u32;
        let flight = self
            .flights
            .remove(&id)
            .ok_or_else(|| ArrayError::Invariant(format!("completion of unknown request {id}")))?;
        let r = done.timing.disk as u32;
        let user = match flight {
            Flight::Read { block, arrival } => {
                for (replica, slot) in self.map.read_finished(block) {
                    self.release(sim, g, replica, slot)?;
                }
                Some((Kind::Read, arrival))
            }
            Flight::Write {
                block,
                copies,
                version,
                arrival,
            } => {
                self.written(sim, g, id, block, copies, r, version, now)?;
                Some((Kind::Write, arrival))
            }
            Flight::Propagation {
                block,
                replica,
                version,
                forced,
            } => {
                if forced {
                    self.forced += 1;
                } else {
                    self.propagated += 1;
                    self.buffer.written();
                    self.map.set_pending(block, replica, false);
                    self.sent[self.layout.disk(g, replica) as usize] -= 1;
                }
                self.written(sim, g, id, block, 1 << replica, replica, version, now)?;
                self.fill(sim, g, replica, now)?;
                None
            }
        };
        let Some((kind, arrival)) = user else {
            return Ok(Flow::Continue);
        };
        self.accumulate(now);
        self.outstanding -= 1;
        if self.measured(id) {
            let response = (now - arrival) as f64 / 1e6;
            self.all.add(response);
            match kind {
                Kind::Read => self.reads.add(response),
                Kind::Write => self.writes.add(response),
            }
            self.measured_done += 1;
            if self.measured_done == self.target - self.warmup {
                self.end = now;
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        sim: &mut Simulation<GroupDevice, ()>,
        _stopped: bool,
    ) -> Result<ArrayReport, ArrayError> {
        let conflicts: u64 = sim.devices().map(|d| d.free_space().conflicts()).sum();
        if conflicts > 0 {
            return Err(ArrayError::Invariant(format!(
                "{conflicts} eager writes were placed on blocks that were not free"
            )));
        }
        let [start, mid, end] = self.bounds;
        let span = self.end.saturating_sub(start).max(1);
        let mut busy = 0.0;
        let mut disks = 0;
        for g in 0..sim.device_count() {
            let report = sim.with_device(g, |d| d.report(self.end));
            for u in &report.disks {
                busy += u.utilisation;
                disks += 1;
            }
        }
        let mean = |m: &Moments| m.mean().unwrap_or(f64::NAN);
        Ok(ArrayReport {
            speedup: 0.0,
            completed: self.measured_done,
            mean_response_ms: mean(&self.all),
            read_response_ms: mean(&self.reads),
            write_response_ms: mean(&self.writes),
            max_response_ms: self.all.max().unwrap_or(f64::NAN),
            in_array: [
                self.area[0] / (mid.saturating_sub(start)).max(1) as f64,
                self.area[1] / (end.saturating_sub(mid)).max(1) as f64,
            ],
            throughput_per_s: self.measured_done as f64 * 1e9 / span as f64,
            utilisation: if disks > 0 { busy / disks as f64 } else { 0.0 },
            propagated: self.propagated,
            forced: self.forced,
            buffer_peak: self.buffer_peak,
            lowest_degree: self.lowest_degree,
            degree_changes: self.degree_changes,
            requests_per_wall_s: 0.0,
        })
    }
}
