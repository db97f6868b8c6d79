//! One emulated disk driven by a single-disk policy.

use std::collections::VecDeque;

use sched_core::array::{Copies, DiskState};
use sched_core::{
    AnyScheduler, Boxed, EnqueueError, Nanos, PolicySpec, Request, RequestId, Scheduler,
};

use super::{DEVICE_IDS, Device, DeviceError, Done, Outcome, Timing, check_input_time};
use crate::disk::{DiskModel, ServiceBreakdown};
use crate::random::Stream;
use crate::stats::{Completion, DiskReport, DiskStats};

/// Depth of the queue a [`DiskDevice`] builds from a [`PolicySpec`]. A
/// workload that piles up more requests than this overloads the disk: the
/// submit is refused with `QueueFull` rather than anything being dropped.
pub const QUEUE_CAPACITY: usize = 4096;

/// The request being served.
#[derive(Clone, Copy, Debug)]
struct InService {
    req: Request,
    start: Nanos,
    finish: Nanos,
    breakdown: ServiceBreakdown,
}

/// The outcome of a service that ended.
#[inline]
fn completed(done: &InService) -> Outcome {
    Outcome::Completed(Done {
        request: done.req,
        timing: Timing::new(
            done.req.arrival,
            done.start,
            &done.breakdown,
            done.finish,
            0,
        ),
        first_start: done.start,
    })
}

/// One emulated disk: its mechanics ([`DiskModel`]), a single-disk policy's
/// queue, and its statistics ([`DiskStats`]); a [`Device`] of one disk.
///
/// - **Inputs** ([`Device`]): `submit` (its copies name disk 0 at the
///   request's own block), `cancel`, `advance`, `fail_disk(0)`,
///   `replace_disk(0)`, `reset_stats`.
/// - **Outputs** ([`Device`]): `poll` ([`Outcome::Completed`] with the
///   request's [`Timing`], [`Outcome::Expired`] for a request a deadline
///   policy dropped, [`Outcome::Failed`] for what a failure took,
///   [`Outcome::Resynced`] when a replacement is in); `next_event_time`,
///   when the service under way ends or a policy holding work back releases
///   it.
/// - **Getters**: the [`Device`] getters (`now`, `serving(0)`, `queued`,
///   `in_system`, `model(0)`, `report`), and [`policy`](Self::policy),
///   [`stats`](Self::stats).
///
/// A request is served as soon as the disk is free: on submission to an
/// idle disk, or when the previous service ends. The service time comes from
/// the model, drawn (for models with random parts) from the device's own
/// random stream, so the same inputs give the same outputs.
///
/// A failed disk takes its requests with it: the one in service and every
/// queued one come out as [`Outcome::Failed`], and submissions are refused
/// until [`replace_disk`](Device::replace_disk) puts in a blank disk of the
/// same model (a single disk has no copy to resynchronise from, so it is back
/// online at once).
///
/// ```
/// use disk_emu::{Device, DiskDevice, Outcome, Stream};
/// use disk_emu::disk::{DiskModel, presets};
/// use sched_core::array::{Copies, Location};
/// use sched_core::{Block, Blocks, Cyl, Kind, PolicySpec, Request, RequestId};
///
/// let model = DiskModel::from_spec(&presets::hp97560())?;
/// let mut disk = DiskDevice::new(model, &PolicySpec::Sstf, Stream::numbered(1))?;
/// let at = |block| Copies::everywhere(1, Location { block, cylinder: 0 });
/// disk.submit(Request::new(RequestId(1), Kind::Read, Block(1_000), Blocks(8), Cyl(0), 0), &at(1_000), 0)?;
/// disk.submit(Request::new(RequestId(2), Kind::Read, Block(900_000), Blocks(8), Cyl(0), 0), &at(900_000), 0)?;
/// disk.cancel(RequestId(2))?; // still queued: withdrawn
/// let mut done = Vec::new();
/// while let Some(t) = disk.next_event_time() {
///     disk.advance(t)?;
///     while let Some(Outcome::Completed(d)) = disk.poll() {
///         assert_eq!(d.timing.wait + d.timing.service(), d.timing.response());
///         done.push(d.request.id);
///     }
/// }
/// assert_eq!(done, [RequestId(1)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct DiskDevice<S = AnyScheduler<Boxed<QUEUE_CAPACITY>>> {
    model: DiskModel,
    /// The model as built, for a replacement.
    original: DiskModel,
    queue: S,
    service: Stream,
    clock: Nanos,
    in_service: Option<InService>,
    /// The service that ended last, until [`poll`](Device::poll) hands it
    /// out: a completion found the outbox empty, so it goes first, and it
    /// waits here, as it was served, rather than going through the outbox
    /// as an [`Outcome`] (one copy of a request's record, not three).
    ended: Option<InService>,
    /// When the device next acts on its own: the end of the service under
    /// way, or, on an idle disk, when a policy holding work back releases
    /// it. Kept as it changes, since the event loop asks for it several
    /// times a request.
    next_event: Option<Nanos>,
    failed: bool,
    stats: Box<DiskStats>,
    outbox: VecDeque<Outcome>,
}

impl DiskDevice {
    /// A disk with `model` mechanics under the policy `spec` describes (a
    /// queue of [`QUEUE_CAPACITY`] on the heap, sized at compile time), drawing random service
    /// components from `service`.
    ///
    /// # Errors
    /// [`DeviceError::Build`] for invalid policy parameters.
    pub fn new(model: DiskModel, spec: &PolicySpec, service: Stream) -> Result<Self, DeviceError> {
        let queue = spec.build(Boxed::new(), model.cylinders())?;
        Ok(Self::with_policy(model, queue, service))
    }
}

impl<S: Scheduler> DiskDevice<S> {
    /// A disk with `model` mechanics around a policy the caller built (so
    /// that admission control and inspection stay possible through
    /// [`policy`](Self::policy) and [`policy_mut`](Self::policy_mut)).
    pub fn with_policy(model: DiskModel, queue: S, service: Stream) -> Self {
        DiskDevice {
            original: model.clone(),
            model,
            queue,
            service,
            clock: 0,
            in_service: None,
            ended: None,
            next_event: None,
            failed: false,
            stats: Box::new(DiskStats::new(0)),
            outbox: VecDeque::with_capacity(8),
        }
    }

    /// The same device recording into `stats` (a warm-up, class labels);
    /// set it before the first input.
    #[must_use]
    pub fn with_stats(mut self, stats: DiskStats) -> Self {
        self.stats = Box::new(stats);
        self
    }

    /// Ends the service under way: the statistics take its record, then
    /// it waits for `poll` in `ended` (or, behind outcomes not yet polled,
    /// goes to the outbox).
    fn complete(&mut self) {
        let Some(done) = &self.in_service else {
            return;
        };
        let now = done.finish;
        self.stats.complete(Completion {
            arrival: done.req.arrival,
            start: done.start,
            finish: now,
            breakdown: done.breakdown,
            class: done.req.class,
            deadline: done.req.deadline,
        });
        if self.ended.is_none() && self.outbox.is_empty() {
            self.ended = self.in_service.take();
        } else {
            self.outbox.push_back(completed(done));
            self.in_service = None;
        }
        self.next_event = None;
    }

    /// Starts the policy's next request, if any; otherwise notes when a
    /// policy holding work back wants to be asked again.
    fn dispatch(&mut self, now: Nanos) {
        while let Some(r) = self.queue.take_expired(now) {
            self.stats.expire(now, r.class);
            self.outbox.push_back(Outcome::Expired(r));
        }
        let Some(d) = self.queue.next(self.model.head(), now, &self.model) else {
            self.next_event = self.queue.next_eligible_at(now);
            return;
        };
        let breakdown = self
            .model
            .serve(&d.request, d.travel, now, &mut self.service);
        self.stats.start(now);
        let finish = now.saturating_add(breakdown.total());
        self.next_event = Some(finish);
        self.in_service = Some(InService {
            req: d.request,
            start: now,
            finish,
            breakdown,
        });
    }

    /// [`Device::submit`] of `req` with the copies a single disk takes,
    /// disk 0 at the request's own block: what a driver of one disk submits,
    /// without building them for the device to check.
    ///
    /// # Errors
    /// Those of [`Device::submit`].
    #[inline]
    pub fn submit_at_block(&mut self, req: Request, now: Nanos) -> Result<(), DeviceError> {
        check_input_time(now, self.clock, self.next_event_time())?;
        if req.id.0 >= DEVICE_IDS {
            return Err(DeviceError::ReservedId(req.id));
        }
        self.accept(req, now)
    }

    /// [`Device::submit`] of a request whose copies were checked: disk 0
    /// at the request's own block.
    #[inline]
    fn accept(&mut self, mut req: Request, now: Nanos) -> Result<(), DeviceError> {
        if self.failed {
            return Err(DeviceError::DiskState {
                disk: 0,
                state: DiskState::Failed,
                expected: "a working disk",
            });
        }
        req.cylinder = self
            .model
            .admit(req.block, req.blocks)
            .map_err(|source| DeviceError::Extent { id: req.id, source })?;
        self.queue.enqueue(req)?;
        self.clock = now;
        self.stats.arrive(now);
        if self.in_service.is_none() {
            self.dispatch(now);
        }
        Ok(())
    }

    /// The policy, for inspection.
    pub fn policy(&self) -> &S {
        &self.queue
    }

    /// The policy, for admission control and other inherent operations.
    /// Enqueueing or cancelling through it bypasses the device's statistics:
    /// use [`submit`](Self::submit) and [`cancel`](Self::cancel).
    pub fn policy_mut(&mut self) -> &mut S {
        &mut self.queue
    }

    /// The statistics recorder.
    pub fn stats(&self) -> &DiskStats {
        &self.stats
    }

    /// The disk's mechanics, for the fault injector to slow the disk or cut
    /// its power (the only changes it makes; a replacement starts from the
    /// model as built).
    pub(crate) fn model_mut(&mut self) -> &mut DiskModel {
        &mut self.model
    }
}

impl<S: Scheduler> Device for DiskDevice<S> {
    type Report = DiskReport;

    /// `copies` must name disk 0 alone, at the request's own block (a single
    /// disk has no placement of its own).
    fn submit(&mut self, req: Request, copies: &Copies, now: Nanos) -> Result<(), DeviceError> {
        check_input_time(now, self.clock, self.next_event_time())?;
        if req.id.0 >= DEVICE_IDS {
            return Err(DeviceError::ReservedId(req.id));
        }
        let invalid =
            |reason| -> DeviceError { EnqueueError::InvalidCopies { id: req.id, reason }.into() };
        if let Some(reason) = copies.invalid() {
            return Err(invalid(reason));
        }
        match copies.location(0) {
            Some(at) if copies.holders().len() == 1 && at.block == req.block => {}
            _ => {
                return Err(invalid(
                    "a single disk holds one copy, on disk 0 at the request's block",
                ));
            }
        }
        self.accept(req, now)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, DeviceError> {
        if self.in_service.is_some_and(|s| s.req.id == id) {
            return Err(sched_core::CancelError::InService(id).into());
        }
        let req = self.queue.cancel(id)?;
        self.stats.withdraw(self.clock);
        Ok(req)
    }

    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        if to < self.clock {
            return Err(DeviceError::TimeWentBack {
                now: to,
                clock: self.clock,
            });
        }
        while let Some(t) = self.next_event_time().filter(|&t| t <= to) {
            self.clock = t;
            if self.in_service.is_some() {
                self.complete();
            } else {
                self.next_event = None;
            }
            self.dispatch(t);
        }
        self.clock = to;
        Ok(())
    }

    fn fail_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        let state = self.disk_state(disk)?;
        if self.failed {
            return Err(DeviceError::DiskState {
                disk,
                state,
                expected: "a working disk",
            });
        }
        self.failed = true;
        self.next_event = None;
        let now = self.clock;
        if let Some(s) = self.in_service.take() {
            self.stats.abort(now);
            self.outbox.push_back(Outcome::Failed(s.req));
        }
        while let Some(r) = self.queue.pop_any() {
            self.stats.withdraw(now);
            self.outbox.push_back(Outcome::Failed(r));
        }
        Ok(())
    }

    fn replace_disk(&mut self, disk: usize) -> Result<(), DeviceError> {
        let state = self.disk_state(disk)?;
        if !self.failed {
            return Err(DeviceError::DiskState {
                disk,
                state,
                expected: "a failed disk to replace",
            });
        }
        self.failed = false;
        self.model = self.original.clone();
        self.outbox.push_back(Outcome::Resynced {
            disk,
            at: self.clock,
        });
        Ok(())
    }

    fn reset_stats(&mut self) {
        self.stats.reset(self.clock);
    }

    #[inline]
    fn poll(&mut self) -> Option<Outcome> {
        match &self.ended {
            Some(done) => {
                let outcome = completed(done);
                self.ended = None;
                Some(outcome)
            }
            None => self.outbox.pop_front(),
        }
    }

    #[inline]
    fn next_event_time(&self) -> Option<Nanos> {
        self.next_event
    }

    fn now(&self) -> Nanos {
        self.clock
    }

    fn disks(&self) -> usize {
        1
    }

    fn disk_state(&self, disk: usize) -> Result<DiskState, DeviceError> {
        match disk {
            0 if self.failed => Ok(DiskState::Failed),
            0 => Ok(DiskState::Online),
            _ => Err(DeviceError::NoSuchDisk { disk, disks: 1 }),
        }
    }

    fn serving(&self, disk: usize) -> Option<&Request> {
        self.in_service
            .as_ref()
            .filter(|_| disk == 0)
            .map(|s| &s.req)
    }

    fn queued(&self) -> usize {
        self.queue.len()
    }

    fn in_system(&self) -> usize {
        self.queue.len() + usize::from(self.in_service.is_some())
    }

    fn model(&self, disk: usize) -> Option<&DiskModel> {
        (disk == 0).then_some(&self.model)
    }

    fn report(&mut self, end: Nanos) -> DiskReport {
        self.stats.finish(end)
    }
}
