//! A disk array of D disks — stripe, RAID-10, SR-Array or EW-Array — under
//! an accelerated OLTP workload or a replayed trace: the experiment of
//! Zhang, Yu, Krishnamurthy & Wang (FAST 2002, §6, Figure 11), on the event
//! loop.
//!
//! Each stripe group of the [`Layout`] is one [`ArrayDevice`] whose policy is
//! an [`EwArray`] group (SATF-EW per disk for an EW-Array, SATF for the
//! arrays that update in place) and whose places are a [`GroupSpace`]: the
//! free blocks of an EW-Array, the rotational replicas of an SR-Array. The
//! driver ([`crate::array_driver`]) owns the array-wide state beside it: the
//! [`ReplicaMap`](crate::replica_map::ReplicaMap) of every copy, the
//! [`DelayedWrites`](crate::replica_map::DelayedWrites) buffer, and the
//! degree of replication.
//!
//! - **Reads** go to the copies holding the current version: the group's
//!   policy sends a read to the idle holder nearest its copy, else queues it
//!   at every holder (the first to start withdraws the others); on an
//!   SR-Array the disk serves it at the rotational replica its heads reach
//!   first.
//! - **A user write** goes to its block's copies that have no write in
//!   flight (held back until one has none); the group's policy writes one of
//!   them in the foreground — eagerly at the nearest free block on an
//!   EW-Array, at the nearest rotational replica on an SR-Array — and the
//!   user's write is done when that copy is on the platter (the paper's
//!   one-copy guarantee of Figure 11). When it completes, its old place is
//!   freed and the other copies kept at the current degree of replication
//!   are **propagated**: buffered (each disk's propagations are sent two at
//!   a time to its delayed-write queue, served when the disk has no
//!   foreground work) or, when the buffer is full, written at once as
//!   foreground writes. RAID-10 updates both copies in place and
//!   propagates its second copy the same way, through the buffer (the
//!   paper's Figure 11 runs propagate in the background), but never lowers
//!   its degree; `raid10:foreground` writes the second copy at once in the
//!   foreground, always.
//! - **Degree of replication** (EW- and SR-Arrays). Under *sustained
//!   overload* — the buffer at least 90 % full for 1 s of virtual time
//!   without a break — the array lowers its degree by one: writes from then
//!   on propagate to fewer copies, and the others go stale (reads avoid
//!   them) until their block is next written at a higher degree. When the
//!   buffer has stayed at or below 10 % for 5 s, the degree rises by one
//!   again. Both clocks restart at every change (the hysteresis). The paper
//!   says only that the degree is lowered "as we raise the request arrival
//!   rate"; the thresholds are ours.
//! - **Measurement.** `warmup` arrivals, then `requests` measured ones; the
//!   run ends when the last measured request completes. A run reports the
//!   mean response of the measured requests (reads, writes, all), the
//!   time-averaged number of user requests in the array over each of ten
//!   batches of the measured arrivals, and the growth of that number (the
//!   least-squares slope over the batches) as a fraction of the arrival
//!   rate — the share of arrivals the array does not keep up with — from
//!   which [`crate::sustainable`] judges whether the load is sustained.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use disk_emu::ArrayDevice;
use disk_emu::disk::{DiskModel, DiskSpec};
use disk_emu::trace::{self, TraceFormat, TraceOptions};
use sched_core::array::EwArray;
use sched_core::{AnyScheduler, BuildError, Heap, PolicySpec};
use serde::Serialize;

use crate::array_driver::{ArrayRun, PROPAGATION, Source};
use crate::array_layout::{Layout, LayoutError, Organisation};
use crate::free_map::{
    GroupSpace, RotationalCopies, RotationalFitError, TrackTable, TrackTableError,
};
use crate::oltp::{OltpError, OltpSource, OltpWorkload};
use crate::seeds::{Purpose, Unit};
use crate::simulation::Simulation;

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
/// Sectors per array block: 4 KB of 512-byte sectors.
pub const SECTORS: u32 = 8;

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
    /// The rotational replicas do not fit the disk.
    #[error(transparent)]
    Rotational(#[from] RotationalFitError),
    /// The disk description.
    #[error(transparent)]
    Disk(#[from] disk_emu::disk::DiskError),
    /// A policy could not be built.
    #[error("policy: {0}")]
    Build(#[from] BuildError),
    /// A device misbehaved or refused an input.
    #[error("device: {0}")]
    Device(#[from] disk_emu::DeviceError),
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] disk_emu::trace::TraceError),
    /// The trace has no arrival times (a closed-loop validation trace).
    #[error(
        "{0}: the trace has no arrival times (a closed-loop validation trace, replayed by `spindle replay`); an array replays timed traces: DiskSim ASCII, MSR, SPC or SRT"
    )]
    Untimed(String),
    /// A trace request larger than an array replays.
    #[error(
        "{file}: a request of {blocks} blocks of 4 KB; an array replays requests of at most 65536 (256 MB)"
    )]
    TraceRequest {
        /// The trace.
        file: String,
        /// Its 4 KB blocks.
        blocks: u64,
    },
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
    /// The same over each of ten batches of the measured arrivals.
    pub in_array_batches: Vec<f64>,
    /// Growth of the requests in the array: the least-squares slope of the
    /// batches' averages against time, requests per second.
    pub growth_per_s: f64,
    /// The growth as a share of the arrival rate: the fraction of arrivals
    /// the array falls behind by (about 0 when the load is sustained,
    /// 1 − capacity/rate beyond it, whatever the run's length).
    pub drift: f64,
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

    /// Stripe group `group`'s device as replication `replication` of a run
    /// starts it: its disks, their queues, its places (the free space of an
    /// EW-Array with the database at its initial slots, or the rotational
    /// replicas of an SR-Array), and nothing submitted yet. For drivers of
    /// their own, such as the device conformance suite.
    ///
    /// # Errors
    /// [`ArrayError`] for a disk or organisation that does not fit, or a
    /// group beyond the layout's.
    pub fn group_device(&self, group: u32, replication: u64) -> Result<GroupDevice, ArrayError> {
        let model = DiskModel::from_spec(&self.disk)?;
        let layout = self.layout()?;
        if group >= layout.groups {
            return Err(ArrayError::Invariant(format!(
                "group {group} of a layout of {} groups",
                layout.groups
            )));
        }
        let (table, rotational) = tables(&layout, &model)?;
        let unit = Unit::new(self.seed, 0, replication);
        group_device(&layout, &model, &table, rotational.as_ref(), group, &unit)
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
        let (table, rotational) = tables(&layout, &model)?;
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
            sim.add_device(group_device(
                &layout,
                &model,
                &table,
                rotational.as_ref(),
                g,
                &unit,
            )?);
        }
        let mut run = ArrayRun::new(
            layout,
            table,
            rotational,
            source,
            self.buffer,
            self.warmup,
            self.requests,
        );
        let first = run.next_arrival(0)?;
        match first {
            Some(t) => sim.schedule(t, ()),
            None => return Err(ArrayError::NoRequests),
        }
        // The emulator's speed: the event loop alone, not the setting up.
        let started = std::time::Instant::now();
        let mut report = sim.run(&mut run)?;
        report.speedup = speedup;
        report.requests_per_wall_s = run.arrivals() as f64 / started.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// The region's track table and, on an SR-Array, where each block's
/// rotational replicas lie (the table then spans what they need: the slots
/// a track cannot divide evenly among its replicas stay unused).
fn tables(
    layout: &Layout,
    model: &DiskModel,
) -> Result<(Arc<TrackTable>, Option<Arc<RotationalCopies>>), ArrayError> {
    if layout.rotational == 1 {
        return Ok((
            Arc::new(TrackTable::new(model, layout.region, SECTORS)?),
            None,
        ));
    }
    let capacity = model.capacity_blocks() / u64::from(SECTORS);
    // Tracks of n slots hold ⌊n / D_r⌋ blocks: at most D_r − 1 slots of
    // each are lost, a third of the region on the shortest tracks at most.
    let bound = (layout.region + layout.region / 2).min(capacity);
    let wide = TrackTable::new(model, bound, SECTORS)?;
    let copies = RotationalCopies::new(&wide, layout.per_disk, layout.rotational)?;
    let table = TrackTable::new(model, copies.extent(), SECTORS)?;
    Ok((Arc::new(table), Some(Arc::new(copies))))
}

/// Stripe group `g`'s device: its disks, their queues (SATF-EW for an
/// eager array, SATF otherwise) and its places: an EW-Array's free space,
/// every slot of the region but those of the group's blocks; an SR-Array's
/// rotational replicas.
fn group_device(
    layout: &Layout,
    model: &DiskModel,
    table: &Arc<TrackTable>,
    rotational: Option<&Arc<RotationalCopies>>,
    g: u32,
    unit: &Unit,
) -> Result<GroupDevice, ArrayError> {
    let members = layout.mirrors;
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
    let service = (0..members)
        .map(|m| {
            unit.stream(Purpose::Service {
                disk: g + m * layout.groups,
            })
        })
        .collect();
    let mut space = GroupSpace::new(table.clone(), members as usize);
    if let Some(copies) = rotational {
        space = space.with_rotational(copies.clone());
    }
    if layout.eager {
        let mut used = vec![false; table.slots() as usize];
        let mut local = 0;
        while u64::from(g) + local * u64::from(layout.groups) < layout.database {
            used[layout.initial_slot(local) as usize] = true;
            local += 1;
        }
        for m in 0..members as usize {
            for (slot, &u) in used.iter().enumerate() {
                if !u {
                    space.release(m, slot as u64);
                }
            }
        }
    }
    Ok(
        ArrayDevice::with_policy(vec![model.clone(); members as usize], policy, service)?
            .with_places(space),
    )
}

fn heap() -> Result<Heap, ArrayError> {
    Heap::new(GROUP_CAPACITY).map_err(|e| ArrayError::Invariant(e.to_string()))
}
