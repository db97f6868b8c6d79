//! One measured request of a run as it ended: what per-request output
//! (`spindle run --samples`, `spindle replay --samples`) is made of. A run
//! hands each to a [`SampleSink`] the moment the request leaves, so a
//! caller may stream them to a file in constant memory; the run itself is
//! the same with or without a sink.
//!
//! Which requests are measured is what the run's report measures: a
//! synthetic run's completions after the warm-up (and the requests dropped
//! once the warm-up is over), every request of a trace replay.

use sched_core::{Cylinder, Kind, Nanos};

/// How a measured request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Served: its critical operation began at `start` (on `disk`) and it
    /// completed at `finish`.
    Served {
        /// When the (critical) operation's seek began.
        start: Nanos,
        /// When the request completed.
        finish: Nanos,
        /// The disk that served it (an update's: the last copy written); 0
        /// on a single disk.
        disk: usize,
    },
    /// The policy dropped it unserved at this instant, its deadline passed.
    Dropped(Nanos),
}

/// How a request with a deadline fared (see [`RequestSample::deadline_outcome`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadlineOutcome {
    /// Completed by its deadline.
    Met,
    /// Completed after it.
    Missed,
    /// Dropped unserved (also a miss).
    Dropped,
}

impl DeadlineOutcome {
    /// The word per-request output writes.
    pub fn as_str(self) -> &'static str {
        match self {
            DeadlineOutcome::Met => "met",
            DeadlineOutcome::Missed => "missed",
            DeadlineOutcome::Dropped => "dropped",
        }
    }
}

/// One measured request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestSample {
    /// Its id in the run: the order of arrival, from 0.
    pub id: u64,
    /// When it arrived.
    pub arrival: Nanos,
    /// Read or write.
    pub kind: Kind,
    /// Its first block, as the disk addresses it.
    pub block: u64,
    /// Its length in blocks.
    pub blocks: u32,
    /// The cylinder holding `block` on a single disk (`None` on an array,
    /// whose copies may lie at different cylinders).
    pub cylinder: Option<Cylinder>,
    /// Its absolute deadline, if it had one.
    pub deadline: Option<Nanos>,
    /// How it ended.
    pub ending: Ending,
}

impl RequestSample {
    /// Arrival to completion; `None` for a dropped request.
    pub fn response(&self) -> Option<Nanos> {
        match self.ending {
            Ending::Served { finish, .. } => Some(finish.saturating_sub(self.arrival)),
            Ending::Dropped(_) => None,
        }
    }

    /// Arrival to the start of service; `None` for a dropped request.
    pub fn wait(&self) -> Option<Nanos> {
        match self.ending {
            Ending::Served { start, .. } => Some(start.saturating_sub(self.arrival)),
            Ending::Dropped(_) => None,
        }
    }

    /// How it fared against its deadline, as the statistics judge it (late
    /// by any nanosecond is missed); `None` without a deadline.
    pub fn deadline_outcome(&self) -> Option<DeadlineOutcome> {
        let deadline = self.deadline.filter(|&d| d != Nanos::MAX)?;
        Some(match self.ending {
            Ending::Served { finish, .. } if finish > deadline => DeadlineOutcome::Missed,
            Ending::Served { .. } => DeadlineOutcome::Met,
            Ending::Dropped(_) => DeadlineOutcome::Dropped,
        })
    }
}

/// Where a run hands its measured requests, one by one as they leave.
pub type SampleSink<'a> = &'a mut dyn FnMut(&RequestSample);

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(deadline: Option<Nanos>, ending: Ending) -> RequestSample {
        RequestSample {
            id: 0,
            arrival: 100,
            kind: Kind::Read,
            block: 7,
            blocks: 1,
            cylinder: Some(0),
            deadline,
            ending,
        }
    }

    #[test]
    fn outcomes_are_judged_as_the_statistics_judge_them() {
        let served = |finish| Ending::Served {
            start: 150,
            finish,
            disk: 0,
        };
        assert_eq!(sample(None, served(300)).deadline_outcome(), None);
        assert_eq!(
            sample(Some(300), served(300)).deadline_outcome(),
            Some(DeadlineOutcome::Met)
        );
        assert_eq!(
            sample(Some(299), served(300)).deadline_outcome(),
            Some(DeadlineOutcome::Missed)
        );
        let dropped = sample(Some(200), Ending::Dropped(250));
        assert_eq!(dropped.deadline_outcome(), Some(DeadlineOutcome::Dropped));
        assert_eq!((dropped.response(), dropped.wait()), (None, None));
        assert_eq!(sample(None, served(300)).response(), Some(200));
        assert_eq!(sample(None, served(300)).wait(), Some(50));
    }
}
