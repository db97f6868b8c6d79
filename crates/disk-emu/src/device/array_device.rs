//! An array of emulated disks holding copies of the same data, driven by
//! any `sched-core` [`ArrayPolicy`].

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use sched_core::array::{
    AnyArray, ArrayPolicy, ArraySpec, ArrayView, Completion, Copies, DiskState, Location,
    MAX_DISKS, Rebuild,
};
use sched_core::{
    Block, Blocks, Boxed, Cyl, Direction, FreeBlock, Head, Kind, Nanos, Request, RequestId,
    ServiceEstimator,
};

use super::places::{FixedPlaces, Places};
use super::{DEVICE_IDS, Device, DeviceError, Done, Outcome, Timing, check_input_time};
use crate::disk::{DiskModel, ServiceBreakdown};
use crate::events::EventQueue;
use crate::random::Stream;
use crate::stats::{ArrayReport, ArrayStats, ClassStats};

/// Logical requests an [`ArrayDevice`] built from an [`ArraySpec`] holds at
/// most (queued or in service).
pub const ARRAY_CAPACITY: usize = 2048;

/// How fast a replaced disk is resynchronised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResyncRate {
    /// Blocks written to the replacement per second of virtual time.
    pub blocks_per_s: f64,
    /// Blocks per resync write.
    pub chunk_blocks: u32,
}

impl Default for ResyncRate {
    /// 10 MB/s of 512-byte blocks, in 64 KB writes.
    fn default() -> Self {
        ResyncRate {
            blocks_per_s: 20_480.0,
            chunk_blocks: 128,
        }
    }
}

/// Parameters of an [`ArrayDevice`] beyond its disks and policy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ArrayOptions {
    /// Resync speed of replaced disks.
    pub resync: ResyncRate,
    /// How many blocks, from block 0, a resync rebuilds (`None`: the whole
    /// disk). A driver that uses less than the disks hold (`spindle
    /// serve --size`) rebuilds what it uses, as Linux md rebuilds its
    /// component devices rather than the drives beneath them.
    pub resync_blocks: Option<u64>,
}

/// Request ids are dense integers: a multiplicative hash spreads them well
/// and costs a fraction of the default SipHash on this hot path.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, id: u64) {
        self.0 = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// An operation in service on one disk.
#[derive(Clone, Copy, Debug)]
struct Op {
    req: Request,
    start: Nanos,
    breakdown: ServiceBreakdown,
}

/// What the device remembers of an open logical request.
#[derive(Clone, Copy, Debug)]
struct Open {
    first_start: Nanos,
    /// The last of its operations to complete: (disk, start, breakdown).
    last_op: Option<(usize, Nanos, ServiceBreakdown)>,
}

/// One disk of the array.
#[derive(Clone, Debug)]
struct Member {
    model: DiskModel,
    service: Stream,
    op: Option<Op>,
    /// Operations started so far: tells a current completion from an aborted one's.
    started: u64,
}

/// The resync of a replaced disk: one chunk in flight at a time, chunk k
/// issued no earlier than `began + k · interval`.
#[derive(Clone, Copy, Debug)]
struct Resync {
    began: Nanos,
    /// Chunks issued so far.
    issued: u64,
    /// Blocks `0..rebuilt_to` are current.
    rebuilt_to: u64,
    /// The id of the chunk in flight, if any.
    in_flight: Option<RequestId>,
}

/// The device's own timed events.
#[derive(Clone, Copy, Debug)]
enum Internal {
    /// Disk `disk` finishes the operation it started as number `number`.
    Done { disk: usize, number: u64 },
    /// A queue discipline releases held work.
    Wake,
    /// The next resync chunk of `disk` is due.
    Resync { disk: usize },
}

/// An array of 1 to 64 emulated disks holding copies of the same data,
/// scheduled by an [`ArrayPolicy`]; a [`Device`] of `models.len()` disks.
///
/// - **Inputs** ([`Device`]): `submit` a logical request with its
///   [`Copies`] (which disks hold it, at which block; the device fills in
///   the cylinders), `cancel` (a read's operation already in service runs to
///   its end, unreported), `advance`, `fail_disk`, `replace_disk`,
///   `reset_stats`.
/// - **Outputs** ([`Device`]): `poll` — [`Outcome::Completed`] when a read's
///   first copy or a write's acknowledged copies finish, with the [`Timing`]
///   of the critical operation and the disk that served it;
///   [`Outcome::Failed`] for requests a disk failure left without a copy;
///   [`Outcome::Resynced`] when a replacement is back online;
///   `next_event_time`.
/// - **Getters**: the [`Device`] getters (`now`, `disks`, `disk_state`,
///   `serving`, `queued`, `in_system`, `model`, `report`, whose
///   [`ArrayReport`] has each disk's usage, the queues and the per-class
///   figures of logical requests), and [`policy`](Self::policy).
///
/// Every operation the policy starts is served by its disk's model at once;
/// an operation the policy aborts (the losing copy of a read) frees its disk
/// immediately, the arm left where that operation's seek was taking it.
///
/// **Failure and resync.** [`fail_disk`](Self::fail_disk) takes a disk out:
/// its operation in service is lost, its queued operations move to other
/// copies or fail. [`replace_disk`](Self::replace_disk) puts in a fresh disk
/// of the same model in state `Rebuilding`: it receives every write, and the
/// device asks the policy to copy it from block 0 up in chunks at the
/// configured [`ResyncRate`] ([`ArrayPolicy::resync`]). The policy starts
/// each chunk as a real write on that disk once no write overlapping it is
/// in flight, holding later overlapping writes until it is written; when it
/// completes the policy raises the disk's `rebuilt_to` mark (and may route
/// reads of copies below it there); after the last, the disk is `Online`
/// and [`Outcome::Resynced`] is reported. The source reads of a resync are
/// not modelled: which block of which other disk holds a given block's copy
/// is the driver's layout, not the device's.
///
/// **Places decided at dispatch.** A device built
/// [`with_places`](Self::with_places) answers its policy's
/// [`nearest_free`](ServiceEstimator::nearest_free) questions from those
/// [`Places`] and each disk's mechanics, and charges an operation the
/// positioning time of its [nearest copy](Places::nearest_copy) when the
/// places keep several on one disk. An operation whose
/// [`Dispatch::chosen`](sched_core::Dispatch::chosen) names a place, or
/// whose nearest copy is named, is served there, and the place is claimed as
/// the operation starts. With [`FixedPlaces`], the default, every operation
/// is served where it was submitted.
pub struct ArrayDevice<P: ArrayPolicy = AnyArray<Boxed<ARRAY_CAPACITY>>, F: Places = FixedPlaces> {
    policy: P,
    space: F,
    members: Vec<Member>,
    /// Each disk's model as built, for replacements.
    originals: Vec<DiskModel>,
    events: EventQueue<Internal>,
    clock: Nanos,
    wake_at: Option<Nanos>,
    open: IdMap<Open>,
    outbox: VecDeque<Outcome>,
    stats: ArrayStats,
    classes: ClassStats,
    resync: Vec<Option<Resync>>,
    options: ArrayOptions,
    next_device_id: u64,
}

impl ArrayDevice {
    /// An array of `models.len()` disks under the policy `spec` describes
    /// (room for [`ARRAY_CAPACITY`] logical requests, on the heap), disk `d`
    /// drawing random service components from `service[d]`. `seed` seeds the
    /// policy's own choices (random read routing).
    ///
    /// # Errors
    /// [`DeviceError::Invalid`] for no disks, more than 64, or a stream count
    /// other than the disk count; [`DeviceError::Build`] for invalid policy
    /// parameters.
    pub fn new(
        models: Vec<DiskModel>,
        spec: &ArraySpec,
        service: Vec<Stream>,
        seed: u64,
    ) -> Result<Self, DeviceError> {
        let cylinders = models.iter().map(DiskModel::cylinders).max().unwrap_or(0);
        let policy = spec.build(Boxed::new(), models.len(), cylinders, seed)?;
        Self::with_policy(models, policy, service)
    }
}

impl<P: ArrayPolicy> ArrayDevice<P> {
    /// An array around a policy the caller built for `models.len()` disks.
    ///
    /// # Errors
    /// [`DeviceError::Invalid`] for no disks, more than 64, a stream count
    /// other than the disk count, or a policy built for another disk count.
    pub fn with_policy(
        models: Vec<DiskModel>,
        policy: P,
        service: Vec<Stream>,
    ) -> Result<Self, DeviceError> {
        let d = models.len();
        if d == 0 || d > MAX_DISKS {
            return Err(DeviceError::Invalid {
                field: "disks",
                expected: "1 ..= 64 disks",
            });
        }
        if service.len() != d || policy.disks() != d {
            return Err(DeviceError::Invalid {
                field: "disks",
                expected: "one service stream per disk and a policy built for as many disks",
            });
        }
        Ok(ArrayDevice {
            policy,
            space: FixedPlaces,
            originals: models.clone(),
            members: models
                .into_iter()
                .zip(service)
                .map(|(model, service)| Member {
                    model,
                    service,
                    op: None,
                    started: 0,
                })
                .collect(),
            events: EventQueue::new(),
            clock: 0,
            wake_at: None,
            open: IdMap::default(),
            outbox: VecDeque::with_capacity(8),
            stats: ArrayStats::new(d, 0),
            classes: ClassStats::new(),
            resync: vec![None; d],
            options: ArrayOptions::default(),
            next_device_id: DEVICE_IDS,
        })
    }

    /// The same device, the places of its operations decided at dispatch
    /// by `space` (see the type's documentation).
    pub fn with_places<F: Places>(self, space: F) -> ArrayDevice<P, F> {
        ArrayDevice {
            policy: self.policy,
            space,
            members: self.members,
            originals: self.originals,
            events: self.events,
            clock: self.clock,
            wake_at: self.wake_at,
            open: self.open,
            outbox: self.outbox,
            stats: self.stats,
            classes: self.classes,
            resync: self.resync,
            options: self.options,
            next_device_id: self.next_device_id,
        }
    }
}

impl<P: ArrayPolicy, F: Places> ArrayDevice<P, F> {
    /// The places operations are served at.
    pub fn places(&self) -> &F {
        &self.space
    }

    /// The places, for the driver to return the blocks of overwritten data
    /// or to say which copies a request may be served at.
    pub fn places_mut(&mut self) -> &mut F {
        &mut self.space
    }

    /// The same device with `options`.
    #[must_use]
    pub fn with_options(mut self, options: ArrayOptions) -> Self {
        self.options = options;
        self
    }

    fn submit_placed(&mut self, req: Request, copies: &Copies) -> Result<(), DeviceError> {
        let (policy, members, space) = (&mut self.policy, &self.members, &self.space);
        with_view(members, space, self.clock, |view| {
            policy.submit(req, copies, view)
        })?;
        Ok(())
    }

    fn fail_in_policy(&mut self, disk: usize) -> Result<(), DeviceError> {
        let (policy, members, space) = (&mut self.policy, &self.members, &self.space);
        with_view(members, space, self.clock, |view| {
            policy.fail_disk(disk, view)
        })?;
        Ok(())
    }

    /// Where a resync of `disk` ends: its capacity, or less if the options
    /// say so.
    pub fn resync_end(&self, disk: usize) -> u64 {
        let capacity = self
            .members
            .get(disk)
            .map_or(0, |m| m.model.capacity_blocks());
        self.options
            .resync_blocks
            .map_or(capacity, |b| b.min(capacity))
    }

    /// Issues the next resync chunk of `disk` if none is in flight.
    fn issue_resync(&mut self, disk: usize, now: Nanos) -> Result<(), DeviceError> {
        let Some(r) = self.resync[disk] else {
            return Ok(());
        };
        if r.in_flight.is_some() {
            return Ok(());
        }
        let block = r.rebuilt_to;
        let blocks = u64::from(self.options.resync.chunk_blocks)
            .min(self.resync_end(disk).saturating_sub(block)) as u32;
        let cylinder = self.members[disk]
            .model
            .check_extent(block, blocks)
            .map_err(|source| DeviceError::Extent {
                id: RequestId(self.next_device_id),
                source,
            })?;
        let id = RequestId(self.next_device_id);
        self.next_device_id += 1;
        let req = Request::new(
            id,
            Kind::Write,
            Block(block),
            Blocks(blocks),
            Cyl(cylinder),
            now,
        );
        // The array copies the range once no write overlapping it is in
        // flight, and holds later overlapping writes until it is written.
        self.policy.resync(disk, req)?;
        self.resync[disk] = Some(Resync {
            issued: r.issued + 1,
            in_flight: Some(id),
            ..r
        });
        Ok(())
    }

    /// A resync chunk of `disk` ending at `end` completed at `now`.
    fn resync_done(&mut self, disk: usize, end: u64, now: Nanos) -> Result<(), DeviceError> {
        let Some(mut r) = self.resync[disk] else {
            return Ok(());
        };
        r.in_flight = None;
        r.rebuilt_to = end;
        // The array raised the disk's mark when the copy completed.
        if self.policy.disk_state(disk) == DiskState::Online {
            self.resync[disk] = None;
            self.outbox.push_back(Outcome::Resynced { disk, at: now });
            return Ok(());
        }
        self.resync[disk] = Some(r);
        let rate = self.options.resync;
        let interval = 1e9 * f64::from(rate.chunk_blocks) / rate.blocks_per_s;
        let due = r.began + (r.issued as f64 * interval).round() as Nanos;
        self.events
            .schedule(due.max(now), Internal::Resync { disk });
        Ok(())
    }

    /// Disk `disk` finishes its operation at `now`.
    fn complete(&mut self, disk: usize, now: Nanos) -> Result<(), DeviceError> {
        let op = self.members[disk].op.take().expect("checked by the caller");
        self.stats.complete(disk, now, op.start, &op.breakdown);
        let c = self.policy.complete(disk, now)?;
        for e in c.abort.iter() {
            if self.members[e].op.take().is_some() {
                self.stats.abort(e, now);
            }
        }
        if op.req.id.0 >= DEVICE_IDS {
            return self.resync_done(disk, op.req.block + u64::from(op.req.blocks), now);
        }
        if c.finished.is_none() {
            match op.req.kind {
                // A read copy that finished nothing: its read had already
                // completed with another copy (MR-DMQ).
                Kind::Read => {
                    self.open.remove(&op.req.id.0);
                }
                Kind::Write => {
                    if let Some(o) = self.open.get_mut(&op.req.id.0) {
                        o.last_op = Some((disk, op.start, op.breakdown));
                    }
                }
            }
        }
        self.outcome(c, Some((disk, op.start, op.breakdown)), now);
        Ok(())
    }

    /// Turns a policy's completion into outcomes; `critical` is the
    /// operation that caused it, if one did. The device's own resync writes
    /// are not reported.
    fn outcome(
        &mut self,
        c: Completion,
        critical: Option<(usize, Nanos, ServiceBreakdown)>,
        now: Nanos,
    ) {
        if let Some(r) = c.failed.filter(|r| r.id.0 < DEVICE_IDS) {
            self.open.remove(&r.id.0);
            self.outbox.push_back(Outcome::Failed(r));
        }
        let Some(r) = c.finished.filter(|r| r.id.0 < DEVICE_IDS) else {
            return;
        };
        let open = self.open.remove(&r.id.0);
        let first_start = open.map_or(now, |o| o.first_start);
        let (disk, start, breakdown) = critical.or(open.and_then(|o| o.last_op)).unwrap_or((
            0,
            now,
            ServiceBreakdown::default(),
        ));
        self.classes
            .complete(r.class, r.arrival, first_start, now, r.deadline);
        self.outbox.push_back(Outcome::Completed(Done {
            request: r,
            timing: Timing::new(r.arrival, start, &breakdown, now, disk),
            first_start,
        }));
    }

    /// Drains the policy's failure events, then starts every operation it
    /// allows; samples the queues.
    fn pump(&mut self) -> Result<(), DeviceError> {
        let now = self.clock;
        while let Some(c) = self.policy.poll_event() {
            self.outcome(c, None, now);
        }
        loop {
            let (policy, members, space) = (&mut self.policy, &self.members, &self.space);
            let Some(s) = with_view(members, space, now, |view| policy.poll_start(view))? else {
                break;
            };
            let op = s.dispatch.request;
            let model = &self.members[s.disk].model;
            let at = s.dispatch.chosen.or_else(|| {
                self.space
                    .nearest_copy(s.disk, model, model.head(), now, &op)
                    .map(|copy| copy.at)
            });
            let served = match at {
                Some(at) => {
                    self.space.claim(s.disk, &op, at);
                    at_place(&op, at)
                }
                None => op,
            };
            let m = &mut self.members[s.disk];
            let breakdown = m
                .model
                .serve(&served, s.dispatch.travel, now, &mut m.service);
            m.started += 1;
            m.op = Some(Op {
                req: served,
                start: now,
                breakdown,
            });
            let number = m.started;
            self.stats.start(s.disk, now);
            if s.dispatch.request.id.0 < DEVICE_IDS {
                self.open.entry(s.dispatch.request.id.0).or_insert(Open {
                    first_start: now,
                    last_op: None,
                });
            }
            self.events.schedule(
                now.saturating_add(breakdown.total()),
                Internal::Done {
                    disk: s.disk,
                    number,
                },
            );
        }
        if self.policy.in_system() > 0 && self.members.iter().all(|m| m.op.is_none()) {
            let wake = self.policy.next_eligible_at(now);
            if wake.is_some() && wake != self.wake_at {
                self.wake_at = wake;
                if let Some(t) = wake {
                    self.events.schedule(t, Internal::Wake);
                }
            }
        }
        self.stats.queues(now, &self.policy);
        self.purge();
        Ok(())
    }

    /// Drops stale entries (aborted operations' completions, superseded
    /// wake-ups) from the top of the event queue, so that
    /// [`next_event_time`](Self::next_event_time) is exact.
    fn purge(&mut self) {
        while let Some(stale) = self.events.peek().map(|(_, e)| match *e {
            Internal::Done { disk, number } => {
                self.members[disk].started != number || self.members[disk].op.is_none()
            }
            Internal::Wake => false,
            Internal::Resync { .. } => false,
        }) {
            if !stale {
                break;
            }
            self.events.discard_first();
        }
    }

    /// Disk `disk`'s mechanics, for the fault injector to slow the disk or
    /// cut its power (the only changes it makes; a replacement starts from
    /// the model as built).
    /// When the operation disk `disk` is serving (see [`Device::serving`])
    /// started, and where its time goes: what its arm is doing, for a
    /// picture of the run (the seek's end is `start + breakdown.seek`).
    pub fn service(&self, disk: usize) -> Option<(Nanos, ServiceBreakdown)> {
        let op = self.members.get(disk)?.op.as_ref()?;
        Some((op.start, op.breakdown))
    }

    pub(crate) fn model_mut(&mut self, disk: usize) -> Option<&mut DiskModel> {
        self.members.get_mut(disk).map(|m| &mut m.model)
    }

    /// Changes the resync speed of later replacements.
    ///
    /// # Errors
    /// [`DeviceError::Invalid`] while a replacement is being resynchronised
    /// (its chunks are paced by the rate it started with), or for an unusable
    /// rate.
    pub fn set_resync_rate(&mut self, rate: ResyncRate) -> Result<(), DeviceError> {
        check_rate(rate)?;
        if self.resync.iter().any(Option::is_some) {
            return Err(DeviceError::Invalid {
                field: "resync",
                expected: "no resync under way when the rate changes",
            });
        }
        self.options.resync = rate;
        Ok(())
    }

    /// [`replace_disk`](Device::replace_disk) for a replacement whose blocks
    /// below `rebuilt_to` are already current: a resync interrupted by a
    /// restart of the driver (a server on the same backing files) goes on
    /// from where it was rather than from block 0. `rebuilt_to` at or past
    /// the [resync's end](Self::resync_end) puts the disk back online at once,
    /// as does any replacement in a one-disk array, which has nothing to
    /// resync from.
    ///
    /// # Errors
    /// As [`replace_disk`](Device::replace_disk).
    pub fn replace_disk_rebuilt_to(
        &mut self,
        disk: usize,
        rebuilt_to: u64,
    ) -> Result<(), DeviceError> {
        let state = self.disk_state(disk)?;
        if state != DiskState::Failed {
            return Err(DeviceError::DiskState {
                disk,
                state,
                expected: "a failed disk to replace",
            });
        }
        check_rate(self.options.resync)?;
        self.members[disk].model = self.originals[disk].clone();
        let now = self.clock;
        let end = self.resync_end(disk);
        self.policy.replace_disk(
            disk,
            Rebuild {
                current_to: rebuilt_to,
                end,
            },
        )?;
        if self.policy.disk_state(disk) == DiskState::Online {
            self.outbox.push_back(Outcome::Resynced { disk, at: now });
            return Ok(());
        }
        self.resync[disk] = Some(Resync {
            began: now,
            issued: 0,
            rebuilt_to,
            in_flight: None,
        });
        self.events.schedule(now, Internal::Resync { disk });
        Ok(())
    }

    /// The policy, for inspection.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The policy, for admission control and other inherent operations.
    /// Submitting, completing or cancelling through it bypasses the device:
    /// use the device's inputs.
    pub fn policy_mut(&mut self) -> &mut P {
        &mut self.policy
    }
}

impl<P: ArrayPolicy, F: Places> Device for ArrayDevice<P, F> {
    type Report = ArrayReport;

    fn submit(&mut self, mut req: Request, copies: &Copies, now: Nanos) -> Result<(), DeviceError> {
        check_input_time(now, self.clock, self.next_event_time())?;
        if req.id.0 >= DEVICE_IDS {
            return Err(DeviceError::ReservedId(req.id));
        }
        if let Some(reason) = copies.invalid() {
            return Err(sched_core::EnqueueError::InvalidCopies { id: req.id, reason }.into());
        }
        let mut placed = Copies::new();
        for (disk, loc) in copies.holders().iter().zip(copies.locations()) {
            let member = self.members.get(disk).ok_or(DeviceError::NoSuchDisk {
                disk,
                disks: self.members.len(),
            })?;
            let cylinder = member
                .model
                .check_extent(loc.block, req.blocks)
                .map_err(|source| DeviceError::Extent { id: req.id, source })?;
            if placed.holders().is_empty() {
                req.cylinder = cylinder;
            }
            placed = placed.with(
                disk,
                Location {
                    block: loc.block,
                    cylinder,
                },
            );
        }
        self.clock = now;
        self.submit_placed(req, &placed)?;
        self.pump()
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError> {
        if id.0 >= DEVICE_IDS {
            return Err(DeviceError::ReservedId(id));
        }
        let serving = self
            .members
            .iter()
            .any(|m| m.op.is_some_and(|op| op.req.id == id));
        if serving {
            return Err(sched_core::CancelError::InService(id).into());
        }
        let req = self.policy.cancel(id)?;
        self.open.remove(&id.0);
        self.pump()?;
        Ok(req)
    }

    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        if to < self.clock {
            return Err(DeviceError::TimeWentBack {
                now: to,
                clock: self.clock,
            });
        }
        while self.events.peek_time().is_some_and(|t| t <= to) {
            let Some((now, event)) = self.events.pop() else {
                break;
            };
            self.clock = now;
            match event {
                Internal::Done { disk, number } => {
                    if self.members[disk].started != number || self.members[disk].op.is_none() {
                        continue; // an aborted operation's completion
                    }
                    self.complete(disk, now)?;
                }
                Internal::Wake => {
                    if self.wake_at != Some(now) {
                        continue;
                    }
                    self.wake_at = None;
                }
                Internal::Resync { disk } => self.issue_resync(disk, now)?,
            }
            self.pump()?;
        }
        self.clock = to;
        Ok(())
    }

    fn poll(&mut self) -> Option<Outcome> {
        self.outbox.pop_front()
    }

    fn next_event_time(&self) -> Option<Nanos> {
        self.events.peek_time()
    }

    fn fail_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        let state = self.disk_state(disk)?;
        if state == DiskState::Failed {
            return Err(DeviceError::DiskState {
                disk,
                state,
                expected: "a working disk",
            });
        }
        self.fail_in_policy(disk)?;
        let now = self.clock;
        if self.members[disk].op.take().is_some() {
            self.stats.abort(disk, now);
        }
        self.resync[disk] = None;
        self.pump()
    }

    fn replace_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        self.replace_disk_rebuilt_to(disk, 0)
    }

    fn reset_stats(&mut self) {
        self.stats.reset(self.clock);
        self.classes.reset();
    }

    fn now(&self) -> Nanos {
        self.clock
    }

    fn disks(&self) -> usize {
        self.members.len()
    }

    fn disk_state(&self, disk: usize) -> Result<DiskState, DeviceError> {
        if disk >= self.members.len() {
            return Err(DeviceError::NoSuchDisk {
                disk,
                disks: self.members.len(),
            });
        }
        Ok(self.policy.disk_state(disk))
    }

    fn serving(&self, disk: usize) -> Option<&Request> {
        self.members.get(disk)?.op.as_ref().map(|op| &op.req)
    }

    fn in_system(&self) -> usize {
        self.policy.in_system()
    }

    fn model(&self, disk: usize) -> Option<&DiskModel> {
        self.members.get(disk).map(|m| &m.model)
    }

    fn queued(&self) -> usize {
        let p = &self.policy;
        p.common_len()
            + (0..self.members.len())
                .map(|d| p.disk_queue_len(d) + p.aux_len(d))
                .sum::<usize>()
    }

    /// Per-disk usage, queue lengths and per-class figures of logical
    /// requests over the window ending at `end`.
    fn report(&mut self, end: Nanos) -> ArrayReport {
        let mut report = self.stats.report(end);
        report.classes = self.classes.report();
        report
    }
}

/// Refuses a resync rate the device cannot pace.
fn check_rate(rate: ResyncRate) -> Result<(), DeviceError> {
    if !(rate.blocks_per_s > 0.0 && rate.blocks_per_s.is_finite()) || rate.chunk_blocks == 0 {
        return Err(DeviceError::Invalid {
            field: "resync",
            expected: "a positive, finite rate and chunks of at least one block",
        });
    }
    Ok(())
}

/// `op` moved to `at`.
fn at_place(op: &Request, at: Location) -> Request {
    op.relocated(at)
}

/// One disk as its policy sees it: the model's estimates of each request at
/// its nearest copy, and free places, from the device's places.
struct Estimate<'a, F> {
    model: &'a DiskModel,
    space: &'a F,
    disk: usize,
}

impl<F: Places> ServiceEstimator for Estimate<'_, F> {
    #[inline]
    fn positioning_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        match self
            .space
            .nearest_copy(self.disk, self.model, head, now, req)
        {
            Some(copy) => copy.positioning,
            None => self.model.positioning_time(head, req, now),
        }
    }
    #[inline]
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        match self
            .space
            .nearest_copy(self.disk, self.model, head, now, req)
        {
            Some(copy) => self.model.service_time(head, &at_place(req, copy.at), now),
            None => self.model.service_time(head, req, now),
        }
    }
    #[inline]
    fn expected_service_time(&self, req: &Request) -> Nanos {
        self.model.expected_service_time(req)
    }
    #[inline]
    fn nearest_free(
        &self,
        head: Head,
        now: Nanos,
        sweep: Direction,
        blocks: u32,
    ) -> Option<FreeBlock> {
        self.space
            .nearest_free(self.disk, self.model, head, now, sweep, blocks)
    }
}

/// Runs `f` with a view of `members` at `now`, free places from `space`.
fn with_view<R, F: Places>(
    members: &[Member],
    space: &F,
    now: Nanos,
    f: impl FnOnce(&ArrayView<'_>) -> R,
) -> R {
    let estimate = |disk: usize| Estimate {
        model: &members[disk].model,
        space,
        disk,
    };
    // Arrays of a few disks build the view on the stack (a device has at
    // least one disk: the unused entries repeat the last).
    if members.len() <= 8 {
        let d = members.len();
        let mut heads = [Head::default(); 8];
        for (i, m) in members.iter().enumerate() {
            heads[i] = m.model.head();
        }
        let estimates: [Estimate<'_, F>; 8] = core::array::from_fn(|i| estimate(i.min(d - 1)));
        let est: [&dyn ServiceEstimator; 8] = core::array::from_fn(|i| &estimates[i] as _);
        f(&ArrayView {
            now,
            heads: &heads[..d],
            estimators: &est[..d],
        })
    } else {
        let heads: Vec<Head> = members.iter().map(|m| m.model.head()).collect();
        let estimates: Vec<Estimate<'_, F>> = (0..members.len()).map(estimate).collect();
        let est: Vec<&dyn ServiceEstimator> = estimates
            .iter()
            .map(|e| e as &dyn ServiceEstimator)
            .collect();
        f(&ArrayView {
            now,
            heads: &heads,
            estimators: &est,
        })
    }
}
