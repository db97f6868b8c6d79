//! What the arms did in one run, for drawing it: when each request arrived,
//! which cylinder it addressed, when each seek started and ended and when
//! each request left, for the first requests of a run; how many requests
//! waited at each instant of that span; and the distribution of the
//! response times of every measured completion. Recorded by
//! [`DiskExperiment::trace_on`](crate::DiskExperiment::trace_on) (one disk),
//! [`MirrorExperiment::trace_on`](crate::MirrorExperiment::trace_on) (each
//! disk of a mirrored pair), [`replay_observed`](crate::replay_observed)
//! and [`replay_mirrored`](crate::replay_mirrored) (each device of a
//! trace, on one disk or a mirrored pair) alongside the run's own report, which the
//! recording does not change.
//!
//! The recording is bounded: it follows the first `followed` requests to
//! their end and keeps every request competing with them, then stops; the
//! response times go into a constant-memory [`Histogram`], so a traced run
//! of a billion requests costs no more memory than one of a thousand.

use std::collections::HashMap;

use disk_emu::{ArrayDevice, Device, DiskReport, Histogram};
use sched_core::{Cylinder, Kind, Nanos};

use crate::mirror_experiment::MirrorReport;

/// How a traced request left the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Served: the arm left `from` at `start`, reached the request's
    /// cylinder at `seek_end` and the request completed at `finish`.
    Served {
        /// The cylinder the arm left (the previous request's, or where it
        /// started the run).
        from: Cylinder,
        /// When the seek began.
        start: Nanos,
        /// When the arm arrived (`start` + the seek time).
        seek_end: Nanos,
        /// When the request completed.
        finish: Nanos,
    },
    /// The policy dropped it unserved at this instant (a missed deadline).
    Dropped(Nanos),
    /// Still queued or in service when the recording stopped.
    Pending,
}

/// One recorded request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracedRequest {
    /// Its id as the driver numbered it: the order of arrival, from 0, in a
    /// synthetic run; the order in the trace file in a replay.
    pub id: u64,
    /// When it arrived.
    pub arrival: Nanos,
    /// The cylinder it addressed.
    pub cylinder: Cylinder,
    /// How it left.
    pub fate: Fate,
}

/// The number of requests waiting over time, as a step function: each
/// entry is an instant and the count from that instant on, one entry per
/// change, from (0, 0).
pub type QueueSteps = Vec<(Nanos, u32)>;

/// The arm of one disk over the first requests of a run, and the response
/// times of its measured window.
#[derive(Clone, Debug)]
pub struct HeadTrace {
    /// Cylinders of the disk (the lanes' height).
    pub cylinders: Cylinder,
    /// Where the arm started.
    pub initial: Cylinder,
    /// How many requests, from the first, the trace follows to their end.
    pub followed: u64,
    /// Every request that arrived before the first `followed` had all left
    /// the disk, in arrival order: the requests competing with the
    /// followed ones, so that a policy's every choice can be checked.
    pub requests: Vec<TracedRequest>,
    /// Response times (ns) of the measured completions.
    pub responses: Histogram,
    /// Requests waiting for service (not in service) until the followed
    /// requests had all left, read off the device after every change.
    pub queue: QueueSteps,
    /// The run's report, identical to an untraced run's.
    pub report: DiskReport,
}

impl HeadTrace {
    /// When the last followed request left: the end of the span worth drawing.
    pub fn span_end(&self) -> Nanos {
        self.requests
            .iter()
            .take(self.followed as usize)
            .map(|r| match r.fate {
                Fate::Served { finish, .. } => finish,
                Fate::Dropped(at) => at,
                Fate::Pending => r.arrival,
            })
            .max()
            .unwrap_or(0)
    }

    /// The served requests in the order the arm visited them.
    pub fn visits(&self) -> Vec<TracedRequest> {
        let mut served: Vec<TracedRequest> = self
            .requests
            .iter()
            .filter(|r| matches!(r.fate, Fate::Served { .. }))
            .copied()
            .collect();
        served.sort_by_key(|r| match r.fate {
            Fate::Served { start, .. } => (start, r.id),
            _ => (Nanos::MAX, r.id),
        });
        served
    }
}

/// A step function recorded one reading at a time (see [`QueueSteps`]).
#[derive(Debug)]
struct Steps(QueueSteps);

impl Steps {
    fn new() -> Self {
        Steps(vec![(0, 0)])
    }

    /// The count is `count` from `at` on (readings come in time order).
    fn read(&mut self, at: Nanos, count: usize) {
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        let steps = &mut self.0;
        if steps.last().is_some_and(|&(t, _)| t == at) {
            steps.pop();
        }
        if steps.last().is_none_or(|&(_, c)| c != count) {
            steps.push((at, count));
        }
    }
}

/// Which requests a recorder follows: the first `followed` to arrive,
/// until they have all left or the driver stops the recording. Shared by
/// [`Recorder`] and [`ArrayRecorder`].
#[derive(Debug)]
struct Following {
    followed: u64,
    /// Followed requests that have left.
    left: u64,
    /// Stopped from outside (`stop`).
    stopped: bool,
}

impl Following {
    fn new(followed: u64) -> Self {
        Following {
            followed,
            left: 0,
            stopped: false,
        }
    }

    fn recording(&self) -> bool {
        !self.stopped && self.left < self.followed
    }

    /// The request recorded `position`-th (in arrival order) left.
    fn left(&mut self, position: usize) {
        if (position as u64) < self.followed {
            self.left += 1;
        }
    }

    /// Stops the recording: the first `arrived` requests recorded are the
    /// followed ones.
    fn stop(&mut self, arrived: usize) {
        self.stopped = true;
        self.followed = arrived as u64;
    }

    /// How many of `recorded` requests are followed.
    fn of(&self, recorded: usize) -> u64 {
        self.followed.min(recorded as u64)
    }
}

/// The recorder a traced single-disk run carries (see [`HeadTrace`]).
#[derive(Debug)]
pub(crate) struct Recorder {
    following: Following,
    /// The arm's cylinder after the last service recorded.
    arm: Cylinder,
    requests: Vec<TracedRequest>,
    /// Where each recorded request is in `requests`, by id.
    index: HashMap<u64, usize>,
    responses: Histogram,
    queue: Steps,
}

impl Recorder {
    pub(crate) fn new(followed: u64, initial: Cylinder) -> Self {
        Recorder {
            following: Following::new(followed),
            arm: initial,
            requests: Vec::new(),
            index: HashMap::new(),
            responses: Histogram::new(),
            queue: Steps::new(),
        }
    }

    fn recording(&self) -> bool {
        self.following.recording()
    }

    /// Stops the recording: the requests that arrived so far with ids
    /// below `first` are the followed ones (a replay follows the trace's
    /// first requests over all its devices, each recorder one device's).
    pub(crate) fn stop(&mut self, first: u64) {
        self.following
            .stop(self.requests.iter().filter(|r| r.id < first).count());
    }

    /// Whether anything was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Request `id` arrived at `at`, addressing `cylinder`.
    pub(crate) fn arrived(&mut self, id: u64, at: Nanos, cylinder: Cylinder) {
        if self.recording() {
            self.index.insert(id, self.requests.len());
            self.requests.push(TracedRequest {
                id,
                arrival: at,
                cylinder,
                fate: Fate::Pending,
            });
        }
    }

    /// `done` completed; its response is counted in the distribution when
    /// `measured` (past the warm-up).
    pub(crate) fn completed(&mut self, done: &disk_emu::Done, measured: bool) {
        let t = done.timing;
        self.served(
            done.request.id.0,
            done.request.cylinder,
            t.start,
            t.start + t.seek,
            t.finish,
        );
        if measured {
            self.measured(t.finish - t.arrival);
        }
    }

    /// Request `id` left the disk as `fate`.
    pub(crate) fn left(&mut self, id: u64, fate: Fate) {
        if !self.recording() {
            return;
        }
        if let Some(&i) = self.index.get(&id) {
            self.requests[i].fate = fate;
            self.following.left(i);
        }
    }

    /// Request `id`, at `cylinder`, was served: seek from `start` to
    /// `seek_end`, completion at `finish`.
    pub(crate) fn served(
        &mut self,
        id: u64,
        cylinder: Cylinder,
        start: Nanos,
        seek_end: Nanos,
        finish: Nanos,
    ) {
        let from = self.arm;
        self.arm = cylinder;
        self.left(
            id,
            Fate::Served {
                from,
                start,
                seek_end,
                finish,
            },
        );
    }

    /// A measured completion took `response`.
    pub(crate) fn measured(&mut self, response: Nanos) {
        self.responses.record(response);
    }

    /// `waiting` requests wait for service from `at` on.
    pub(crate) fn waiting(&mut self, at: Nanos, waiting: usize) {
        if self.recording() {
            self.queue.read(at, waiting);
        }
    }

    /// The trace of a disk of `cylinders` cylinders whose arm started at
    /// `initial`, with the run's `report`.
    pub(crate) fn into_trace(
        self,
        cylinders: Cylinder,
        initial: Cylinder,
        report: DiskReport,
    ) -> HeadTrace {
        HeadTrace {
            cylinders,
            initial,
            followed: self.following.of(self.requests.len()),
            requests: self.requests,
            responses: self.responses,
            queue: self.queue.0,
            report,
        }
    }
}

/// One operation a disk of an array served (a copy of a logical request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The logical request's id.
    pub id: u64,
    /// The cylinder the arm left.
    pub from: Cylinder,
    /// The copy's cylinder on this disk.
    pub cylinder: Cylinder,
    /// When the seek began.
    pub start: Nanos,
    /// When the arm arrived.
    pub seek_end: Nanos,
    /// When the disk finished the operation or gave it up (the other copy
    /// of a read served on both disks answered first); the end of the
    /// recording for one still under way then.
    pub end: Nanos,
}

/// One disk of a traced array run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskArm {
    /// Cylinders of the disk.
    pub cylinders: Cylinder,
    /// Where the arm started.
    pub initial: Cylinder,
    /// The operations the disk started while the run was recorded, in
    /// order: the arm's path.
    pub operations: Vec<Operation>,
}

/// One logical request of a traced array run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayRequest {
    /// Its id: the order of arrival, from 0, in a synthetic run; the order
    /// in the trace file in a replay.
    pub id: u64,
    /// When it arrived.
    pub arrival: Nanos,
    /// A read (one copy serves it) or an update (every copy is written).
    pub kind: Kind,
    /// Each copy: (disk, the cylinder it lies on there).
    pub copies: Vec<(usize, Cylinder)>,
    /// When it left (completed or dropped); `None` if it was still in the
    /// array when the recording stopped.
    pub left: Option<Nanos>,
}

/// What each arm of a mirrored pair did over the first requests of a run.
#[derive(Clone, Debug)]
pub struct ArrayTrace {
    /// How many requests, from the first, the trace follows to their end.
    pub followed: u64,
    /// Every logical request that arrived before the followed ones had all
    /// left, in arrival order.
    pub requests: Vec<ArrayRequest>,
    /// Each disk's arm.
    pub disks: Vec<DiskArm>,
    /// Response times (ns) of the measured logical completions.
    pub responses: Histogram,
    /// Operations waiting in the array's queues (not in service on a
    /// disk) until the followed requests had all left.
    pub queue: QueueSteps,
    /// The run's report, identical to an untraced run's.
    pub report: MirrorReport,
}

impl ArrayTrace {
    /// When the last followed request left: the end of the span worth drawing.
    pub fn span_end(&self) -> Nanos {
        self.requests
            .iter()
            .take(self.followed as usize)
            .map(|r| r.left.unwrap_or(r.arrival))
            .max()
            .unwrap_or(0)
    }
}

/// The recorder a traced mirrored run carries (see [`ArrayTrace`]).
#[derive(Debug)]
pub(crate) struct ArrayRecorder {
    following: Following,
    /// In arrival order, so in increasing order of id.
    requests: Vec<ArrayRequest>,
    disks: Vec<DiskArm>,
    /// Each disk's operation under way: (request id, start), and where the
    /// arm is.
    current: Vec<Option<(u64, Nanos)>>,
    arm: Vec<Cylinder>,
    responses: Histogram,
    queue: Steps,
}

impl ArrayRecorder {
    /// A recorder of the first `followed` requests on `device`, before it
    /// has run.
    pub(crate) fn new(followed: u64, device: &ArrayDevice) -> Self {
        let disks: Vec<DiskArm> = (0..device.disks())
            .filter_map(|d| device.model(d))
            .map(|m| DiskArm {
                cylinders: m.cylinders(),
                initial: m.head().cylinder,
                operations: Vec::new(),
            })
            .collect();
        ArrayRecorder {
            following: Following::new(followed),
            requests: Vec::new(),
            current: vec![None; disks.len()],
            arm: disks.iter().map(|d| d.initial).collect(),
            disks,
            responses: Histogram::new(),
            queue: Steps::new(),
        }
    }

    fn recording(&self) -> bool {
        self.following.recording()
    }

    /// Stops the recording: the requests that arrived so far with ids
    /// below `first` are the followed ones (a replay follows the trace's
    /// first requests over all its devices, each recorder one device's
    /// pair).
    pub(crate) fn stop(&mut self, first: u64) {
        self.following
            .stop(self.requests.iter().filter(|r| r.id < first).count());
    }

    /// Whether anything was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Logical request `id` arrived; ids increase with arrival (a run
    /// counts its arrivals from 0, a replay the trace's requests over all
    /// its devices).
    pub(crate) fn arrived(
        &mut self,
        id: u64,
        arrival: Nanos,
        kind: Kind,
        copies: Vec<(usize, Cylinder)>,
    ) {
        let in_order = self.requests.last().is_none_or(|last| last.id < id);
        if self.recording() && in_order {
            self.requests.push(ArrayRequest {
                id,
                arrival,
                kind,
                copies,
                left: None,
            });
        }
    }

    /// Logical request `id` left the array at `at`.
    pub(crate) fn left(&mut self, id: u64, at: Nanos) {
        if !self.recording() {
            return;
        }
        if let Ok(i) = self.requests.binary_search_by_key(&id, |r| r.id) {
            self.requests[i].left = Some(at);
            self.following.left(i);
        }
    }

    /// A measured logical completion took `response`.
    pub(crate) fn measured(&mut self, response: Nanos) {
        self.responses.record(response);
    }

    /// Reads what each disk is serving at `now`: an operation that is no
    /// longer there ended at `now`, a new one started (at the instant the
    /// device says). Called after every change of the device.
    pub(crate) fn observe(&mut self, now: Nanos, device: &ArrayDevice) {
        let recording = self.recording();
        if !recording && self.current.iter().all(Option::is_none) {
            return;
        }
        for d in 0..self.disks.len() {
            let serving = device.serving(d).zip(device.service(d));
            let key = serving.map(|(req, (start, _))| (req.id.0, start));
            if key == self.current[d] {
                continue;
            }
            if self.current[d].take().is_some()
                && let Some(op) = self.disks[d].operations.last_mut()
            {
                op.end = now;
            }
            if let (true, Some((req, (start, breakdown)))) = (recording, serving) {
                self.disks[d].operations.push(Operation {
                    id: req.id.0,
                    from: self.arm[d],
                    cylinder: req.cylinder,
                    start,
                    seek_end: start + breakdown.seek,
                    end: Nanos::MAX,
                });
                self.arm[d] = req.cylinder;
                self.current[d] = key;
            }
        }
        if recording {
            self.queue.read(now, device.queued());
        }
    }

    /// The trace, with the run's `report`; an operation still under way
    /// ends where the recording did.
    pub(crate) fn into_trace(mut self, report: MirrorReport) -> ArrayTrace {
        let followed = self.following.of(self.requests.len());
        let stop = self
            .requests
            .iter()
            .take(followed as usize)
            .map(|r| r.left.unwrap_or(r.arrival))
            .max()
            .unwrap_or(0);
        for disk in &mut self.disks {
            for op in &mut disk.operations {
                if op.end == Nanos::MAX {
                    op.end = stop.max(op.seek_end);
                }
            }
        }
        ArrayTrace {
            followed,
            requests: self.requests,
            disks: self.disks,
            responses: self.responses,
            queue: self.queue.0,
            report,
        }
    }
}
