//! What the arm did in one run, for drawing it: when each request arrived,
//! which cylinder it addressed, when its seek started and ended and when it
//! completed, for the first requests of a run, and the response time of every
//! measured completion. Recorded by
//! [`DiskExperiment::trace_on`](crate::DiskExperiment::trace_on) alongside
//! the run's own report, which the recording does not change.

use disk_emu::DiskReport;
use sched_core::{Cylinder, Nanos};

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
    /// Its id: the order of arrival, from 0.
    pub id: u64,
    /// When it arrived.
    pub arrival: Nanos,
    /// The cylinder it addressed.
    pub cylinder: Cylinder,
    /// How it left.
    pub fate: Fate,
}

/// The arm's movements over the first requests of a run and the response
/// times of its measured window.
#[derive(Clone, Debug)]
pub struct HeadTrace {
    /// Cylinders of the disk (the lanes' height).
    pub cylinders: Cylinder,
    /// Where the arm started.
    pub initial: Cylinder,
    /// How many requests, from id 0, the trace follows to their end.
    pub followed: u64,
    /// Every request that arrived before the first `followed` had all left
    /// the disk, indexed by id: the requests competing with the followed
    /// ones, so that a policy's every choice can be checked.
    pub requests: Vec<TracedRequest>,
    /// Response times (ns) of the measured completions, in completion order.
    pub responses: Vec<Nanos>,
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

/// The recorder a traced run carries (see [`HeadTrace`]).
#[derive(Debug)]
pub(crate) struct Recorder {
    pub(crate) followed: u64,
    /// Followed requests that have left.
    left: u64,
    /// The arm's cylinder after the last service recorded.
    arm: Cylinder,
    pub(crate) requests: Vec<TracedRequest>,
    pub(crate) responses: Vec<Nanos>,
}

impl Recorder {
    pub(crate) fn new(followed: u64, initial: Cylinder) -> Self {
        Recorder {
            followed,
            left: 0,
            arm: initial,
            requests: Vec::new(),
            responses: Vec::new(),
        }
    }

    fn recording(&self) -> bool {
        self.left < self.followed
    }

    /// Request `id` arrived at `at`, addressing `cylinder`.
    pub(crate) fn arrived(&mut self, id: u64, at: Nanos, cylinder: Cylinder) {
        if self.recording() && id == self.requests.len() as u64 {
            self.requests.push(TracedRequest {
                id,
                arrival: at,
                cylinder,
                fate: Fate::Pending,
            });
        }
    }

    /// Request `id` left the disk as `fate`.
    pub(crate) fn left(&mut self, id: u64, fate: Fate) {
        if !self.recording() {
            return;
        }
        if let Some(r) = self.requests.get_mut(id as usize) {
            r.fate = fate;
            if id < self.followed {
                self.left += 1;
            }
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
}
