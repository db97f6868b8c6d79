//! Ivy on a real trace: a timed block trace replayed open-loop at its own
//! arrival times onto N disks under a [`Replication`] policy and a copy
//! selection rule, measuring what Lo's tables measure (Lo 1990, *Ivy*, §6).
//!
//! - **The trace** is read once into memory ([`IvyTrace`], 24 bytes a
//!   request: 44,519 requests of HP's `ajw.1week.srt` take 1 MB) and shared
//!   by every configuration of a sweep. By default ([`Units::Separate`])
//!   each traced disk is replicated on its own N disks (one [`ArrayDevice`]
//!   a traced disk), as Lo simulated each file system alone (§6.1), so
//!   N = 1 replays each traced disk as it was. [`Units::Overlay`] puts
//!   every traced disk on one set of N disks, each scaled over the whole
//!   drive (the traced machine held root and swap on one HP 7937): the
//!   units then contend for the same arms.
//! - **The disks** are the drive the trace was recorded on, from its SRT
//!   header ([`disk_emu::disk::from_srt`]), or any model: its blocks must be
//!   the trace's blocks (the trace is loaded in the model's block size), and
//!   a traced disk of a different size is mapped onto it by proportional
//!   scaling of the block address: block b of a traced disk of C_t blocks
//!   lies at ⌊b · C_d / C_t⌋ on a disk of C_d blocks (moved down when the
//!   request would run past the end), so each request keeps its relative
//!   place on the stroke and its length in bytes. (The paper's HP 7935 and
//!   HP 7937 are larger than the traced `hp335h`: the map stretches.)
//! - **Copy selection** is a DMQ read routing ([`CopySelection`]) over a
//!   per-disk queue discipline (FCFS as in the paper, C-LOOK as HP-UX swept),
//!   or, under FCFS, Lo's exact rule ([`CopySelection::IvyExact`]), which
//!   the replay applies itself from an exact shadow of every disk.
//! - **Copies** cost what [`CopyCost`] says: nothing (Lo), disk work queued
//!   apart at lower priority, or disk work queued with the foreground. A
//!   background operation starts only on a disk with nothing queued or in
//!   service, and then runs to its end (a foreground arrival waits behind
//!   it). Nothing bounds how long it waits: while a disk never idles its
//!   copy work waits, the object keeps serving reads from the copies it
//!   has, and the work is done when the disk next idles (at the latest when
//!   the trace ends and the queues drain). No claim is made that copies
//!   keep up on a busier trace; [`IvyMeasures::copy_wait`] says how long
//!   they waited.
//! - **What is measured** (Lo §6.1): the mean seek distance of every disk
//!   operation; the mean number of operations at a disk (queued or in
//!   service, not counting the newcomer) as seen by each operation arriving
//!   there — every operation (disk queue length), the reads, and the write
//!   operations (each copy of a write) —; and the mean and standard
//!   deviation of read, write and overall turnaround, from a request's
//!   arrival to its completion (a write's: its acknowledgement; a request
//!   cut into pieces at object boundaries: its last piece's). Copy
//!   traffic counts in the seek distance and the disk queue length, not in
//!   the read and write columns.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::time::{Duration, Instant};

use disk_emu::disk::{DiskError, DiskModel, DiskSpec, from_srt};
use disk_emu::trace::{self, TraceError, TraceFormat, TraceOptions};
use disk_emu::{ArrayDevice, Device, DeviceError, Moments, Outcome, Stream};
use sched_core::array::{ArrayPolicy, ArraySpec, Copies, DiskSet, Location, MAX_COPIES, Routing};
use sched_core::{
    Block, Blocks, Boxed, BuildError, Cyl, EnqueueError, Kind, Nanos, PolicySpec, Request,
    RequestId, Travel,
};
use serde::{Deserialize, Serialize};

use crate::confidence::{MetricTable, StatsError};
use crate::replication::{
    CopyCost, CopyJob, CopyTimer, Replication, ReplicationConfig, ReplicationError,
    ReplicationPolicy, ReplicationSummary,
};
use crate::seeds::{Purpose, Unit};
use crate::sharding::{ShardFailure, replicate_points};
use crate::simulation::{Driver, Flow, Simulation};
use crate::trace_replay::scale_onto;

/// Why an Ivy replay could not run.
#[derive(Debug, thiserror::Error)]
pub enum IvyError {
    /// A replication run in another shard of the sweep failed (its error as
    /// met there), or the merged parts do not answer this point.
    #[error(transparent)]
    Sharded(#[from] ShardFailure),
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The trace has no arrival times (a closed-loop validation trace).
    #[error("{0}: the trace has no arrival times to replay")]
    Untimed(String),
    /// The trace has no requests.
    #[error("{0}: the trace has no requests")]
    Empty(String),
    /// The disk is unusable.
    #[error(transparent)]
    Disk(#[from] DiskError),
    /// The disk's blocks are not the trace's.
    #[error(
        "the disk has {disk}-byte blocks but the trace was loaded in {trace}-byte blocks: load it in the disk's"
    )]
    BlockSize {
        /// The disk's block size.
        disk: u32,
        /// The trace's.
        trace: u32,
    },
    /// The trace's own drive was asked for, but its header does not describe
    /// the traced disk.
    #[error("{file}: the trace's header describes no disk {device}: name a disk model")]
    NoTracedDrive {
        /// The trace file.
        file: String,
        /// The traced device.
        device: u32,
    },
    /// An object size that is not a whole number of blocks.
    #[error("extent: {bytes} bytes is not a positive multiple of the {block}-byte block")]
    Extent {
        /// The extent asked for.
        bytes: u64,
        /// The block size.
        block: u32,
    },
    /// The replication layer refused its parameters or a request.
    #[error(transparent)]
    Replication(#[from] ReplicationError),
    /// Lo's exact copy choice asked for under a discipline that reorders.
    #[error(
        "routing ivy-exact is Lo's FIFO rule (the queued work is what the disk serves first): it needs fcfs queues, not {0}"
    )]
    ExactNeedsFcfs(PolicySpec),
    /// The array policy refused its parameters.
    #[error("policy: {0}")]
    Build(#[from] BuildError),
    /// A device refused a request or misbehaved.
    #[error("request {record} of the trace: {source}")]
    Device {
        /// The trace request (0-based) being handled, or the last one.
        record: usize,
        /// What the device said.
        source: Box<DeviceError>,
    },
    /// A request failed or was dropped (a bug: the disks never fail here).
    #[error("request {0:?} was lost by the array")]
    Lost(Request),
    /// The run ended with work unfinished (a bug, reported).
    #[error("the replay ended with {0}")]
    Unfinished(&'static str),
    /// `ivy-exact`'s shadow of a disk predicted another completion time for
    /// a read than the disk's (a bug, reported: the rule would not be exact).
    #[error(
        "ivy-exact: a read predicted to complete at {predicted} ns completed at {completed} ns"
    )]
    ShadowDiverged {
        /// The shadow's completion time.
        predicted: Nanos,
        /// The disk's.
        completed: Nanos,
    },
    /// Summarising the replications failed.
    #[error(transparent)]
    Stats(#[from] StatsError),
}

impl From<DeviceError> for IvyError {
    fn from(e: DeviceError) -> Self {
        IvyError::Device {
            record: 0,
            source: Box::new(e),
        }
    }
}

/// One request of a trace, as the replay keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TracedRequest {
    arrival: Nanos,
    block: u64,
    blocks: u32,
    /// Index of its traced disk in [`IvyTrace::disks`].
    disk: u16,
    write: bool,
}

/// A traced disk: its device number, its size, its requests.
#[derive(Clone, Debug, Serialize)]
pub struct TracedDisk {
    /// The trace's device number.
    pub device: u32,
    /// Its size in the trace's blocks: from the SRT header, or else the end
    /// of the highest request.
    pub blocks: u64,
    /// Reads on it.
    pub reads: u64,
    /// Writes on it.
    pub writes: u64,
    /// The drive it was recorded on, when the trace's header describes it.
    #[serde(skip)]
    pub drive: Option<DiskSpec>,
}

/// A timed trace held in memory for replay under many configurations.
#[derive(Clone, Debug)]
pub struct IvyTrace {
    file: String,
    block_bytes: u32,
    requests: Vec<TracedRequest>,
    disks: Vec<TracedDisk>,
}

impl IvyTrace {
    /// Reads the timed trace at `path` (format detected unless given), its
    /// blocks counted in `options.block_size` bytes, keeping the devices
    /// `options.devices` names (all by default).
    ///
    /// # Errors
    /// [`IvyError::Trace`] for a file that cannot be read (naming the record);
    /// [`IvyError::Untimed`] for a trace without arrival times;
    /// [`IvyError::Empty`] for one without requests.
    pub fn load(
        path: impl AsRef<Path>,
        format: Option<TraceFormat>,
        options: TraceOptions,
    ) -> Result<Self, IvyError> {
        let block_bytes = options.block_size;
        let mut reader = trace::open(path, format, options)?;
        let file = reader.file().to_string();
        let mut index: BTreeMap<u32, u16> = BTreeMap::new();
        let mut disks: Vec<TracedDisk> = Vec::new();
        let mut requests = Vec::new();
        for record in reader.by_ref() {
            let record = record?;
            let arrival = record
                .arrival
                .ok_or_else(|| IvyError::Untimed(file.clone()))?;
            let disk = *index.entry(record.device).or_insert_with(|| {
                disks.push(TracedDisk {
                    device: record.device,
                    blocks: 0,
                    reads: 0,
                    writes: 0,
                    drive: None,
                });
                (disks.len() - 1) as u16
            });
            let d = &mut disks[usize::from(disk)];
            let write = record.kind == Kind::Write;
            if write {
                d.writes += 1;
            } else {
                d.reads += 1;
            }
            d.blocks = d.blocks.max(record.block + u64::from(record.blocks));
            requests.push(TracedRequest {
                arrival,
                block: record.block,
                blocks: record.blocks,
                disk,
                write,
            });
        }
        if requests.is_empty() {
            return Err(IvyError::Empty(file));
        }
        if let Some(header) = reader.srt_header() {
            for d in &mut disks {
                if let Some(h) = header.disk(d.device) {
                    let bytes = h.sectors() * u64::from(h.sector_size);
                    d.blocks = d.blocks.max(bytes / u64::from(block_bytes));
                    d.drive = Some(from_srt(h)?);
                }
            }
        }
        Ok(IvyTrace {
            file,
            block_bytes,
            requests,
            disks,
        })
    }

    /// The requests arriving in `from..to` (ns from the trace's start), the
    /// traced disks kept whole: a shorter replay of the same system.
    pub fn window(&self, from: Nanos, to: Nanos) -> IvyTrace {
        IvyTrace {
            requests: self
                .requests
                .iter()
                .filter(|r| (from..to).contains(&r.arrival))
                .copied()
                .collect(),
            ..self.clone()
        }
    }

    /// The file it was read from.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Bytes a block.
    pub fn block_bytes(&self) -> u32 {
        self.block_bytes
    }

    /// Requests held.
    pub fn requests(&self) -> usize {
        self.requests.len()
    }

    /// The traced disks, in the order the trace first names them.
    pub fn disks(&self) -> &[TracedDisk] {
        &self.disks
    }
}

/// Which disks the copies live on.
#[derive(Clone, Debug, PartialEq)]
pub enum IvyDisk {
    /// Each traced disk's own drive, from the trace's header.
    Traced,
    /// This model for every disk.
    Model(Box<DiskSpec>),
}

/// How a read picks among the current copies of its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CopySelection {
    /// Lo's rule (§4.3), FCFS queues only: the disk whose queue, at the
    /// exact service times its operations will take, empties soonest, plus
    /// the seek from where that queue leaves the arm. The replay keeps a
    /// shadow of each disk (its model and random stream, cloned) that serves
    /// every operation as it is queued, in FIFO order, so the times are
    /// the ones the disk will take, not estimates.
    IvyExact,
    /// An estimate of least turnaround (`ivy-dmq`): queued work counted at
    /// expected service times, as the per-disk discipline would serve it,
    /// plus the read's own expected service from the arm's present
    /// position. Not Lo's rule: see [`IvyExact`](Self::IvyExact).
    LeastTurnaround,
    /// The same estimate counting every queued operation whatever the
    /// discipline (`ivy-dmq:reorder=false`).
    LeastBacklog,
    /// Linux md RAID-1's read balancing on rotating disks (`md-raid1`).
    Md,
    /// The fewest operations queued or in service (`sq-dmq`).
    ShortestQueue,
    /// A copy drawn uniformly at random (`r-dmq` with equal weights).
    Random,
}

impl CopySelection {
    /// The rules compared in the tables (`ivy-exact` under FCFS only).
    pub const COMPARED: [CopySelection; 5] = [
        CopySelection::IvyExact,
        CopySelection::LeastTurnaround,
        CopySelection::Md,
        CopySelection::ShortestQueue,
        CopySelection::Random,
    ];

    /// The name the command line uses.
    pub const fn name(self) -> &'static str {
        match self {
            CopySelection::IvyExact => "ivy-exact",
            CopySelection::LeastTurnaround => "expected-turnaround",
            CopySelection::LeastBacklog => "least-backlog",
            CopySelection::Md => "md",
            CopySelection::ShortestQueue => "shortest-queue",
            CopySelection::Random => "random",
        }
    }

    /// Every rule, by name (`least-turnaround`, the estimate's former
    /// name, still accepted).
    pub fn parse(name: &str) -> Option<CopySelection> {
        if name == "least-turnaround" {
            return Some(CopySelection::LeastTurnaround);
        }
        [
            CopySelection::IvyExact,
            CopySelection::LeastTurnaround,
            CopySelection::LeastBacklog,
            CopySelection::Md,
            CopySelection::ShortestQueue,
            CopySelection::Random,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }

    /// Whether the rule is defined under `discipline` (Lo's exact rule
    /// assumes FIFO queues).
    pub fn defined_under(self, discipline: PolicySpec) -> bool {
        self != CopySelection::IvyExact || discipline == PolicySpec::Fcfs
    }

    /// The array policy: this routing over `disks` disks, each queue under
    /// `discipline`. (Under [`IvyExact`](Self::IvyExact) the replay names
    /// the one disk each read goes to, which any routing then takes.)
    pub fn array_spec(self, disks: usize, discipline: PolicySpec) -> ArraySpec {
        let routing = match self {
            CopySelection::IvyExact => Routing::LeastTurnaround { reorder: false },
            CopySelection::LeastTurnaround => Routing::LeastTurnaround { reorder: true },
            CopySelection::LeastBacklog => Routing::LeastTurnaround { reorder: false },
            CopySelection::Md => Routing::Md { rotational: true },
            CopySelection::ShortestQueue => Routing::ShortestQueue,
            CopySelection::Random => Routing::RandomRead {
                alpha: 1.0 / disks.max(1) as f64,
            },
        };
        ArraySpec::Dmq {
            routing,
            queue: discipline,
            modified: false,
        }
    }
}

/// Which disks a traced disk's copies live on (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Units {
    /// Each traced disk on N disks of its own (Lo: each file system alone).
    Separate,
    /// Every traced disk on the same N disks.
    Overlay,
}

impl Units {
    /// The name the command line uses.
    pub const fn name(self) -> &'static str {
        match self {
            Units::Separate => "separate",
            Units::Overlay => "overlay",
        }
    }
}

/// An unknown `units` name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown units `{0}` (known: separate, overlay)")]
pub struct UnknownUnits(pub String);

impl std::str::FromStr for Units {
    type Err = UnknownUnits;

    fn from_str(s: &str) -> Result<Self, UnknownUnits> {
        [Units::Separate, Units::Overlay]
            .into_iter()
            .find(|u| u.name() == s)
            .ok_or_else(|| UnknownUnits(s.to_string()))
    }
}

/// One configuration of an Ivy replay.
#[derive(Clone, Debug, PartialEq)]
pub struct IvyConfig {
    /// The disks.
    pub disk: IvyDisk,
    /// The replication policy.
    pub policy: ReplicationPolicy,
    /// N: disks per traced disk, and copies of a replicated object.
    pub copies: usize,
    /// The copy selection rule.
    pub selection: CopySelection,
    /// Every disk's queue discipline.
    pub discipline: PolicySpec,
    /// Bytes an object (extent) spans.
    pub extent_bytes: u64,
    /// RNW1 family: how long after an object's last write its copies are
    /// made.
    pub delay: Nanos,
    /// What making a copy costs the disks.
    pub copy_cost: CopyCost,
    /// Each traced disk on disks of its own, or all on one set.
    pub units: Units,
    /// Whether a request crossing object boundaries is cut into one
    /// operation per run of objects held alike (`false`: the request
    /// belongs to its first block's object, Lo's whole files).
    pub split: bool,
}

/// What one replication of one configuration measured.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct IvyMeasures {
    /// Mean seek distance of every disk operation, cylinders.
    pub seek_distance: f64,
    /// Operations at a disk seen by each arriving operation.
    pub queue: f64,
    /// The same seen by each read.
    pub read_queue: f64,
    /// The same seen by each write operation (every copy of a write).
    pub write_queue: f64,
    /// Read turnaround, ns.
    pub read: Moments,
    /// Write turnaround (to acknowledgement), ns.
    pub write: Moments,
    /// Every request's turnaround, ns.
    pub overall: Moments,
    /// Copy reads and copy writes issued (one a disk written).
    pub copy_operations: u64,
    /// Background copy operations: how long each waited, ns, from being
    /// queued to starting on a disk (empty under other copy costs).
    pub copy_wait: Moments,
    /// What the replication layers did.
    pub replication: ReplicationSummary,
}

/// Blocks of a traced disk mapped onto an emulated one (module documentation).
#[derive(Clone, Copy, Debug)]
struct Scale {
    traced: u64,
    disk: u64,
}

impl Scale {
    fn block(&self, block: u64, blocks: u32) -> u64 {
        scale_onto(block, u64::from(blocks), self.traced, self.disk)
    }
}

/// What a submitted operation is.
#[derive(Clone, Copy, Debug)]
enum Work {
    /// A piece of trace request `record`.
    Foreground { record: u32, write: bool },
    /// The read of a copy job.
    CopyRead(CopyJob),
    /// A write of the copy of `object` to the disks `targets` (one of them,
    /// under background copies).
    CopyWrite {
        object: u64,
        generation: u32,
        targets: DiskSet,
    },
}

impl Work {
    fn kind(self) -> Kind {
        match self {
            Work::Foreground { write: true, .. } | Work::CopyWrite { .. } => Kind::Write,
            _ => Kind::Read,
        }
    }
}

/// An operation awaiting its outcome: what it is, the traced disk and the
/// traced blocks it covers, and (a read under `ivy-exact`) when its shadow
/// said it would complete.
#[derive(Clone, Copy, Debug)]
struct Pending {
    work: Work,
    traced: u16,
    block: u64,
    blocks: u32,
    predicted: Option<Nanos>,
}

/// Background copy work waiting for one of the disks `on` to idle.
#[derive(Clone, Copy, Debug)]
struct Deferred {
    traced: u16,
    work: Work,
    block: u64,
    blocks: u32,
    /// A read's sources, or a write's one target.
    on: DiskSet,
    queued: Nanos,
}

/// The array behind each traced disk.
type Array = ArrayDevice;

/// Operations awaiting their outcome, in slots reused as outcomes come:
/// a request's id is its sequence number above its slot (ids stay unique,
/// as an array keeps an acknowledged write's id until its last copy is
/// written).
#[derive(Default)]
struct PendingSlots {
    slots: Vec<Pending>,
    free: Vec<u32>,
    sequence: u64,
}

const SLOT_BITS: u32 = 24;

impl PendingSlots {
    fn insert(&mut self, p: Pending) -> RequestId {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = p;
                s
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        };
        self.sequence += 1;
        RequestId(self.sequence << SLOT_BITS | u64::from(slot))
    }

    fn get_mut(&mut self, id: RequestId) -> &mut Pending {
        &mut self.slots[(id.0 & ((1 << SLOT_BITS) - 1)) as usize]
    }

    fn take(&mut self, id: RequestId) -> Pending {
        let slot = (id.0 & ((1 << SLOT_BITS) - 1)) as u32;
        self.free.push(slot);
        self.slots[slot as usize]
    }

    fn is_empty(&self) -> bool {
        self.free.len() == self.slots.len()
    }
}

/// Mean of what arriving operations saw.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    total: u64,
    count: u64,
}

impl Seen {
    fn add(&mut self, n: usize) {
        self.total += n as u64;
        self.count += 1;
    }
    fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total as f64 / self.count as f64
        }
    }
}

/// A disk as `ivy-exact` sees it: a clone of its model and of its random
/// stream, which serves every operation when it is queued, at the moment
/// the FIFO disk will start it. The times are therefore the disk's own
/// (what Lo's simulator computed as each request was queued, §4.3), and the
/// model's arm is where the queue will leave it.
struct Shadow {
    model: DiskModel,
    service: Stream,
    /// When the last operation queued will complete.
    free_at: Nanos,
}

impl Shadow {
    /// Lo's cost of a read at `cylinder` on this disk at `now`: the queue's
    /// remaining work plus the seek from where it leaves the arm.
    fn cost(&self, cylinder: u32, now: Nanos) -> Nanos {
        let seek = self
            .model
            .seek_time(self.model.head().cylinder.abs_diff(cylinder));
        self.free_at.saturating_sub(now).saturating_add(seek)
    }

    /// Queues `req` at `now`: when it will complete.
    fn serve(&mut self, req: &Request, now: Nanos) -> Nanos {
        let start = self.free_at.max(now);
        let b = self
            .model
            .serve(req, Travel::Direct, start, &mut self.service);
        self.free_at = start + b.total();
        self.free_at
    }
}

/// The driver's own events.
#[derive(Clone, Copy, Debug)]
enum IvyEvent {
    /// The next trace request is due.
    Arrival,
    /// A copy timer of traced disk `disk`'s objects.
    Copy { disk: u16, timer: CopyTimer },
}

/// One replication of one configuration, as a driver of the event loop.
struct IvyRun<'a> {
    trace: &'a IvyTrace,
    layers: Vec<Replication>,
    scales: Vec<Scale>,
    /// The simulation's device (array) each traced disk is on.
    array_of: Vec<usize>,
    copy_cost: CopyCost,
    /// Background copy work of each array, oldest first.
    background: Vec<VecDeque<Deferred>>,
    /// Copy write operations still to complete, per (traced disk, object):
    /// the copies join the holders when the last is written.
    copy_writes_left: HashMap<(u16, u64), u32>,
    /// `ivy-exact`: each array's disks' shadows.
    shadows: Option<Vec<Vec<Shadow>>>,
    next: usize,
    pending: PendingSlots,
    /// Pieces of each trace request not yet done.
    remaining: Vec<u16>,
    /// The pieces of the request being submitted (kept to reuse its memory).
    pieces: Vec<(u64, u32, DiskSet)>,
    read: Moments,
    write: Moments,
    seen: Seen,
    seen_read: Seen,
    seen_write: Seen,
    copy_operations: u64,
    copy_wait: Moments,
}

/// Operations at disk `d` of `array`: queued or in service.
fn occupancy(array: &Array, d: usize) -> usize {
    let p = array.policy();
    p.disk_queue_len(d) + usize::from(p.is_busy(d))
}

impl IvyRun<'_> {
    /// Submits an operation on the traced blocks `block..block + blocks` of
    /// traced disk `traced` to the disks `to` (a read: one of them),
    /// counting what it found there.
    #[allow(clippy::too_many_arguments)]
    fn submit(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        traced: u16,
        work: Work,
        block: u64,
        blocks: u32,
        to: DiskSet,
        now: Nanos,
    ) -> Result<(), IvyError> {
        let kind = work.kind();
        let id = self.pending.insert(Pending {
            work,
            traced,
            block,
            blocks,
            predicted: None,
        });
        let at = Location {
            block: self.scales[usize::from(traced)].block(block, blocks),
            cylinder: 0,
        };
        let req = Request::new(id, kind, Block(at.block), Blocks(blocks), Cyl(0), now);
        let g = self.array_of[usize::from(traced)];
        let mut before = [0usize; MAX_COPIES];
        for d in to.iter() {
            before[d] = occupancy(sim.device(g), d);
        }
        let device_error = |e| IvyError::Device {
            record: self.next.saturating_sub(1),
            source: Box::new(e),
        };
        let to = match &self.shadows {
            Some(shadows) if kind == Kind::Read && to.len() > 1 => {
                // Lo's choice, among the copies the array deems current (a
                // copy behind an acknowledged RNWN write is not): the
                // least cost first, the lower disk on a tie.
                let cylinder = shadows[g][0].model.locate(at.block)?;
                let mut order: Vec<(Nanos, usize)> = to
                    .iter()
                    .map(|d| (shadows[g][d].cost(cylinder, now), d))
                    .collect();
                order.sort_unstable();
                let mut chosen = None;
                for (_, d) in order {
                    let copies = Copies::new().with(d, at);
                    match sim.with_device(g, |a| a.submit(req, &copies, now)) {
                        Ok(()) => {
                            chosen = Some(d);
                            break;
                        }
                        Err(DeviceError::Refused(EnqueueError::NoEligibleDisk(_))) => {}
                        Err(e) => return Err(device_error(e)),
                    }
                }
                let Some(d) = chosen else {
                    self.pending.take(id);
                    return Err(device_error(DeviceError::Refused(
                        EnqueueError::NoEligibleDisk(id),
                    )));
                };
                DiskSet::only(d)
            }
            _ => {
                let copies = to.iter().fold(Copies::new(), |c, d| c.with(d, at));
                sim.with_device(g, |a| a.submit(req, &copies, now))
                    .map_err(device_error)?;
                to
            }
        };
        // A write joins every target; a read the one disk it was routed to.
        let joined = match kind {
            Kind::Write => to,
            Kind::Read => to
                .iter()
                .find(|&d| occupancy(sim.device(g), d) > before[d])
                .map_or(DiskSet::EMPTY, DiskSet::only),
        };
        for d in joined.iter() {
            self.seen.add(before[d]);
            match work {
                Work::Foreground { write: false, .. } => self.seen_read.add(before[d]),
                Work::Foreground { write: true, .. } => self.seen_write.add(before[d]),
                _ => {}
            }
        }
        if let Some(shadows) = &mut self.shadows {
            let mut done = None;
            for d in joined.iter() {
                done = Some(shadows[g][d].serve(&req, now));
            }
            if kind == Kind::Read {
                self.pending.get_mut(id).predicted = done;
            }
        }
        Ok(())
    }

    /// Starts copy work: at once, or (background copies) once one of the
    /// disks `on` idles.
    #[allow(clippy::too_many_arguments)]
    fn copy_work(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        traced: u16,
        work: Work,
        block: u64,
        blocks: u32,
        on: DiskSet,
        now: Nanos,
    ) -> Result<(), IvyError> {
        if self.copy_cost != CopyCost::Background {
            self.copy_operations += match work {
                Work::CopyWrite { targets, .. } => targets.len() as u64,
                _ => 1,
            };
            return self.submit(sim, traced, work, block, blocks, on, now);
        }
        let g = self.array_of[usize::from(traced)];
        self.background[g].push_back(Deferred {
            traced,
            work,
            block,
            blocks,
            on,
            queued: now,
        });
        self.start_background(sim, g, now)
    }

    /// Starts the oldest background work each idle disk of array `g` can
    /// take.
    fn start_background(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        g: usize,
        now: Nanos,
    ) -> Result<(), IvyError> {
        for d in 0..sim.device(g).disks() {
            if self.background[g].is_empty() {
                break;
            }
            if occupancy(sim.device(g), d) > 0 {
                continue;
            }
            let Some(k) = self.background[g].iter().position(|w| w.on.contains(d)) else {
                continue;
            };
            let Some(w) = self.background[g].remove(k) else {
                continue;
            };
            self.copy_wait.add((now - w.queued) as f64);
            self.copy_operations += 1;
            self.submit(
                sim,
                w.traced,
                w.work,
                w.block,
                w.blocks,
                DiskSet::only(d),
                now,
            )?;
        }
        Ok(())
    }

    /// Starts a copy job: its read.
    fn start_copy(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        traced: u16,
        job: CopyJob,
        now: Nanos,
    ) -> Result<(), IvyError> {
        let work = Work::CopyRead(job);
        self.copy_work(sim, traced, work, job.block, job.blocks, job.sources, now)
    }

    /// Submits trace request `r`'s pieces.
    fn arrive(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        r: usize,
        now: Nanos,
    ) -> Result<(), IvyError> {
        let t = self.trace.requests[r];
        let mut pieces = std::mem::take(&mut self.pieces);
        pieces.clear();
        let layer = &mut self.layers[usize::from(t.disk)];
        let push = |block, blocks, disks| pieces.push((block, blocks, disks));
        if t.write {
            layer.write(t.block, t.blocks, now, push)?;
        } else {
            layer.read(t.block, t.blocks, push)?;
        }
        self.remaining[r] = pieces.len() as u16;
        let work = Work::Foreground {
            record: r as u32,
            write: t.write,
        };
        let submitted = pieces.iter().try_for_each(|&(block, blocks, disks)| {
            self.submit(sim, t.disk, work, block, blocks, disks, now)
        });
        self.pieces = pieces;
        submitted
    }
}

impl Driver<Array> for IvyRun<'_> {
    type Event = IvyEvent;
    type Output = IvyMeasures;
    type Error = IvyError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        now: Nanos,
        event: IvyEvent,
    ) -> Result<Flow, IvyError> {
        match event {
            IvyEvent::Arrival => {
                let r = self.next;
                self.next += 1;
                self.arrive(sim, r, now)?;
                if let Some(next) = self.trace.requests.get(self.next) {
                    sim.schedule(next.arrival.max(now), IvyEvent::Arrival);
                }
            }
            IvyEvent::Copy { disk, timer } => {
                if let Some(job) = self.layers[usize::from(disk)].copy_due(timer) {
                    self.start_copy(sim, disk, job, now)?;
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        now: Nanos,
        device: usize,
        outcome: Outcome,
    ) -> Result<Flow, IvyError> {
        let done = match outcome {
            Outcome::Completed(done) => done,
            Outcome::Failed(r) | Outcome::Expired(r) => return Err(IvyError::Lost(r)),
            // Only a fault injector reports one; the replay has none.
            Outcome::MediaError { done, .. } => return Err(IvyError::Lost(done.request)),
            Outcome::Resynced { .. } => return Ok(Flow::Continue),
        };
        let p = self.pending.take(done.request.id);
        if let Some(predicted) = p.predicted.filter(|&t| t != now) {
            return Err(IvyError::ShadowDiverged {
                predicted,
                completed: now,
            });
        }
        let traced = p.traced;
        let t = usize::from(traced);
        match p.work {
            Work::Foreground { record, write } => {
                if write {
                    self.layers[t].write_done(p.block, p.blocks, now, |timer| {
                        sim.schedule(
                            timer.at,
                            IvyEvent::Copy {
                                disk: traced,
                                timer,
                            },
                        );
                    });
                }
                let r = record as usize;
                self.remaining[r] -= 1;
                if self.remaining[r] == 0 {
                    let turnaround = (now - self.trace.requests[r].arrival) as f64;
                    if write {
                        self.write.add(turnaround);
                    } else {
                        self.read.add(turnaround);
                    }
                }
            }
            Work::CopyRead(job) => {
                let (targets, next) = self.layers[t].copy_read_done(&job);
                if !targets.is_empty() {
                    let work = Work::CopyWrite {
                        object: job.object,
                        generation: job.generation,
                        targets,
                    };
                    if self.copy_cost == CopyCost::Background {
                        self.copy_writes_left
                            .insert((traced, job.object), targets.len() as u32);
                        for d in targets.iter() {
                            let on = DiskSet::only(d);
                            self.copy_work(sim, traced, work, job.block, job.blocks, on, now)?;
                        }
                    } else {
                        self.copy_writes_left.insert((traced, job.object), 1);
                        self.copy_work(sim, traced, work, job.block, job.blocks, targets, now)?;
                    }
                }
                if let Some(job) = next {
                    self.start_copy(sim, traced, job, now)?;
                }
            }
            Work::CopyWrite {
                object,
                generation,
                targets,
            } => {
                let left = self.copy_writes_left.entry((traced, object)).or_insert(1);
                *left -= 1;
                if *left == 0 {
                    self.copy_writes_left.remove(&(traced, object));
                    if let Some(job) = self.layers[t].copy_written(object, generation, targets) {
                        self.start_copy(sim, traced, job, now)?;
                    }
                }
            }
        }
        if self.copy_cost == CopyCost::Background {
            self.start_background(sim, device, now)?;
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        sim: &mut Simulation<Array, IvyEvent>,
        _stopped: bool,
    ) -> Result<IvyMeasures, IvyError> {
        let served = self.read.count() + self.write.count();
        if self.next < self.trace.requests.len() || served < self.trace.requests.len() as u64 {
            return Err(IvyError::Unfinished("trace requests not served"));
        }
        if !self.pending.is_empty()
            || !self.layers.iter().all(Replication::is_quiet)
            || !self.copy_writes_left.is_empty()
            || self.background.iter().any(|b| !b.is_empty())
        {
            return Err(IvyError::Unfinished("copies or writes still in flight"));
        }
        let end = sim.now();
        let (mut cylinders, mut operations) = (0.0, 0u64);
        for g in 0..sim.device_count() {
            for d in sim.with_device(g, |a| a.report(end)).disks {
                let m = d.seek_distance;
                if m.count > 0 {
                    cylinders += m.mean * m.count as f64;
                    operations += m.count;
                }
            }
        }
        let mut overall = self.read;
        overall.merge(&self.write);
        let mut replication = ReplicationSummary::default();
        for l in &self.layers {
            let s = l.summary();
            replication.objects += s.objects;
            replication.cut_backs += s.cut_backs;
            replication.copies_made += s.copies_made;
            replication.copies_discarded += s.copies_discarded;
            replication.copy_jobs += s.copy_jobs;
        }
        Ok(IvyMeasures {
            seek_distance: if operations > 0 {
                cylinders / operations as f64
            } else {
                0.0
            },
            queue: self.seen.mean(),
            read_queue: self.seen_read.mean(),
            write_queue: self.seen_write.mean(),
            read: self.read,
            write: self.write,
            overall,
            copy_operations: self.copy_operations,
            copy_wait: self.copy_wait,
            replication,
        })
    }
}

/// Replays `trace` once under `config`, drawing every random choice from
/// `unit`'s streams: disk `d` of traced device `v` its rotational latencies
/// from [`Purpose::traced_disk`]`(v, d)` (with [`Units::Overlay`], `v` the
/// first traced device), the arrays' random routing from
/// `Purpose::Routing`, each traced device's replication layer from
/// `Purpose::Placement` and `Purpose::CutBack`. With [`Units::Overlay`] and
/// the traced drive, the disks are the first traced disk's drive.
///
/// # Errors
/// [`IvyError`]: an unusable disk, extent or policy, `ivy-exact` under a
/// discipline other than FCFS, a request the disks cannot hold (naming
/// it), or a run that did not finish.
pub fn run_ivy(trace: &IvyTrace, config: &IvyConfig, unit: Unit) -> Result<IvyMeasures, IvyError> {
    let n = config.copies;
    let block = trace.block_bytes;
    if config.extent_bytes == 0 || !config.extent_bytes.is_multiple_of(u64::from(block)) {
        return Err(IvyError::Extent {
            bytes: config.extent_bytes,
            block,
        });
    }
    if !config.selection.defined_under(config.discipline) {
        return Err(IvyError::ExactNeedsFcfs(config.discipline));
    }
    let extent_blocks = config.extent_bytes / u64::from(block);
    let mut sim: Simulation<Array, IvyEvent> = Simulation::new();
    let mut layers = Vec::with_capacity(trace.disks.len());
    let mut scales = Vec::with_capacity(trace.disks.len());
    let mut array_of = Vec::with_capacity(trace.disks.len());
    let mut shadows = Vec::new();
    let mut routing_seeds = unit.stream(Purpose::Routing);
    for (k, traced) in trace.disks.iter().enumerate() {
        let spec = match &config.disk {
            IvyDisk::Traced => {
                let source = match config.units {
                    Units::Separate => traced,
                    Units::Overlay => &trace.disks[0],
                };
                source
                    .drive
                    .clone()
                    .ok_or_else(|| IvyError::NoTracedDrive {
                        file: trace.file.clone(),
                        device: source.device,
                    })?
            }
            IvyDisk::Model(spec) => (**spec).clone(),
        };
        let model = DiskModel::from_spec(&spec)?;
        if model.block_bytes() != block {
            return Err(IvyError::BlockSize {
                disk: model.block_bytes(),
                trace: block,
            });
        }
        scales.push(Scale {
            traced: traced.blocks,
            disk: model.capacity_blocks(),
        });
        layers.push(
            Replication::new(
                ReplicationConfig {
                    policy: config.policy,
                    disks: n,
                    extent_blocks,
                    capacity: traced.blocks,
                    delay: config.delay,
                },
                unit.stream(Purpose::Placement {
                    device: traced.device,
                }),
                unit.stream(Purpose::CutBack {
                    device: traced.device,
                }),
            )?
            .with_copy_cost(config.copy_cost)
            .with_split(config.split),
        );
        if config.units == Units::Overlay && k > 0 {
            array_of.push(0);
            continue;
        }
        array_of.push(sim.device_count());
        let policy = config
            .selection
            .array_spec(n, config.discipline)
            .build(
                Boxed::<{ disk_emu::ARRAY_CAPACITY }>::new(),
                n,
                model.cylinders(),
                routing_seeds.next_u64(),
            )?
            .with_ack(config.policy.ack())?;
        let service: Vec<Stream> = (0..n as u32)
            .map(|d| unit.stream(Purpose::traced_disk(traced.device, d)))
            .collect();
        if config.selection == CopySelection::IvyExact {
            shadows.push(
                service
                    .iter()
                    .map(|s| Shadow {
                        model: model.clone(),
                        service: s.clone(),
                        free_at: 0,
                    })
                    .collect(),
            );
        }
        sim.add_device(ArrayDevice::with_policy(vec![model; n], policy, service)?);
    }
    let mut run = IvyRun {
        trace,
        layers,
        scales,
        copy_cost: config.copy_cost,
        background: (0..sim.device_count()).map(|_| VecDeque::new()).collect(),
        copy_writes_left: HashMap::new(),
        shadows: (config.selection == CopySelection::IvyExact).then_some(shadows),
        array_of,
        next: 0,
        pending: PendingSlots::default(),
        remaining: vec![0; trace.requests.len()],
        pieces: Vec::new(),
        read: Moments::new(),
        write: Moments::new(),
        seen: Seen::default(),
        seen_read: Seen::default(),
        seen_write: Seen::default(),
        copy_operations: 0,
        copy_wait: Moments::new(),
    };
    if let Some(first) = trace.requests.first() {
        sim.schedule(first.arrival, IvyEvent::Arrival);
    }
    sim.run(&mut run)
}

/// The metrics recorded per replication, in milliseconds where they are
/// times: Lo's columns, then the copy traffic.
pub const IVY_METRICS: [&str; 13] = [
    "seek_distance",
    "queue",
    "read_queue",
    "write_queue",
    "read_mean_ms",
    "read_sd_ms",
    "write_mean_ms",
    "write_sd_ms",
    "overall_mean_ms",
    "overall_sd_ms",
    "copy_operations",
    "cut_backs",
    "copy_wait_ms",
];

impl IvyMeasures {
    /// The values of [`IVY_METRICS`], in order.
    pub fn values(&self) -> [f64; 13] {
        let ms = |m: &Moments| m.mean().unwrap_or(0.0) / 1e6;
        let sd = |m: &Moments| m.std_dev().unwrap_or(0.0) / 1e6;
        [
            self.seek_distance,
            self.queue,
            self.read_queue,
            self.write_queue,
            ms(&self.read),
            sd(&self.read),
            ms(&self.write),
            sd(&self.write),
            ms(&self.overall),
            sd(&self.overall),
            self.copy_operations as f64,
            self.replication.cut_backs as f64,
            ms(&self.copy_wait),
        ]
    }
}

/// One configuration of a sweep, measured over its replications.
#[derive(Clone, Debug)]
pub struct IvyPoint {
    /// The configuration.
    pub config: IvyConfig,
    /// [`IVY_METRICS`] per replication.
    pub metrics: MetricTable,
    /// What replication 0 measured in full.
    pub first: IvyMeasures,
}

/// A sweep's results and what it cost.
#[derive(Clone, Debug)]
pub struct IvySweep {
    /// One point per configuration asked for, in order.
    pub points: Vec<IvyPoint>,
    /// Configurations actually run: those that cannot differ are run once
    /// (see [`IvyConfig::canonical`]).
    pub distinct: usize,
    /// Processor time the runs took, summed over threads: the cost on one
    /// core (wall time where the system does not report a thread's).
    pub cpu: Duration,
}

/// The processor time of the calling thread, from Linux's
/// `/proc/thread-self/schedstat` (nanoseconds on the CPU): what a run costs
/// on one core whatever else the machine is doing. Elsewhere, wall time.
struct CpuClock {
    cpu: Option<u64>,
    wall: Instant,
}

impl CpuClock {
    fn read() -> Option<u64> {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        text.split_whitespace().next()?.parse().ok()
    }

    fn start() -> Self {
        CpuClock {
            cpu: Self::read(),
            wall: Instant::now(),
        }
    }

    fn elapsed(&self) -> Duration {
        match (self.cpu, Self::read()) {
            (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
            _ => self.wall.elapsed(),
        }
    }
}

impl IvyConfig {
    /// The configuration that gives the same results and that a sweep runs
    /// in this one's place: with one copy there is one disk per traced disk,
    /// so every policy and routing is RNWN under the expected-turnaround
    /// routing; scatter's reads find a single copy, so every routing is
    /// that one; RNWN and scatter never make a copy, so every copy cost is
    /// free; RNWN's objects are all held alike, so a request is one piece
    /// split or not. (The routing's random draws use a stream of their
    /// own, so skipping them shifts no other draw; `ivy-exact`'s shadows
    /// draw from clones.)
    pub fn canonical(&self) -> IvyConfig {
        let mut c = self.clone();
        if c.copies == 1 {
            c.policy = ReplicationPolicy::Rnwn;
        }
        if c.copies == 1 || c.policy == ReplicationPolicy::Scatter {
            c.selection = CopySelection::LeastTurnaround;
        }
        if !c.policy.is_dynamic() {
            c.copy_cost = CopyCost::Free;
        }
        if c.policy == ReplicationPolicy::Rnwn {
            c.split = true;
        }
        c
    }
}

/// How many configurations of `configs` [`ivy_sweep`] runs: those with
/// distinct [`canonical`](IvyConfig::canonical) forms.
pub fn distinct_configs(configs: &[IvyConfig]) -> usize {
    let mut distinct: Vec<IvyConfig> = Vec::new();
    for c in configs {
        let c = c.canonical();
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    distinct.len()
}

/// Replays `trace` under every configuration, `replications` times each
/// (replication `r` of every configuration draws the same streams: common
/// random numbers), on up to `jobs` threads; the results do not depend on
/// `jobs`. Configurations with the same [`canonical`](IvyConfig::canonical)
/// form are run once ([`distinct_configs`] counts them). `replayed` is
/// called after each replay (a driver's progress bar; `&|| ()` for none).
///
/// # Errors
/// The first failing run's [`IvyError`].
pub fn ivy_sweep(
    trace: &IvyTrace,
    configs: &[IvyConfig],
    replications: u64,
    seed: u64,
    jobs: usize,
    replayed: &(dyn Fn() + Sync),
) -> Result<IvySweep, IvyError> {
    if let Some(c) = configs
        .iter()
        .find(|c| !c.selection.defined_under(c.discipline))
    {
        return Err(IvyError::ExactNeedsFcfs(c.discipline));
    }
    let replications = replications.max(1);
    let mut distinct: Vec<IvyConfig> = Vec::new();
    let slot: Vec<usize> = configs
        .iter()
        .map(|c| {
            let c = c.canonical();
            distinct.iter().position(|d| *d == c).unwrap_or_else(|| {
                distinct.push(c);
                distinct.len() - 1
            })
        })
        .collect();
    let runs = replicate_points(&distinct, replications, jobs, |config, r| {
        let clock = CpuClock::start();
        let m = run_ivy(trace, config, Unit::new(seed, 0, r))?;
        replayed();
        Ok::<_, IvyError>((m, clock.elapsed()))
    })?;
    let cpu = runs.iter().flatten().map(|(_, took)| *took).sum();
    let mut measured = Vec::with_capacity(distinct.len());
    for point in &runs {
        let mut metrics = MetricTable::new();
        for (r, (m, _)) in (0..).zip(point) {
            for (name, value) in IVY_METRICS.iter().zip(m.values()) {
                metrics.record(r, name, value)?;
            }
        }
        measured.push((metrics, point[0].0));
    }
    let points = configs
        .iter()
        .zip(slot)
        .map(|(config, k)| IvyPoint {
            config: config.clone(),
            metrics: measured[k].0.clone(),
            first: measured[k].1,
        })
        .collect();
    Ok(IvySweep {
        points,
        distinct: distinct.len(),
        cpu,
    })
}
