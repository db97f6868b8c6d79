//! One-pass totals over a trace, for reports that must match the file.

use sched_core::{Kind, Nanos};

use super::TraceRecord;

/// Counts and extents of a trace, gathered in one streaming pass by
/// [`TraceReader::summarize`](super::TraceReader::summarize) or, alongside a
/// replay, by calling [`add`](Self::add) on each record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceSummary {
    /// Requests handed out (after the device filter).
    pub records: u64,
    /// Of which reads.
    pub reads: u64,
    /// Of which writes.
    pub writes: u64,
    /// Valid requests dropped by [`TraceOptions::devices`](super::TraceOptions::devices).
    pub filtered: u64,
    /// The lowest block any request touches, if there is a request.
    pub lowest_block: Option<u64>,
    /// One past the highest block any request touches.
    pub end_block: Option<u64>,
    /// The earliest arrival, for formats that time their requests.
    pub earliest_arrival: Option<Nanos>,
    /// The latest arrival.
    pub latest_arrival: Option<Nanos>,
    /// Validation traces: the sum of the measured access and idle-after times,
    /// the length of the run on the real drive. 0 for other formats.
    pub measured_time: Nanos,
}

impl TraceSummary {
    /// Counts one record in.
    pub fn add(&mut self, record: &TraceRecord) {
        self.records += 1;
        match record.kind {
            Kind::Read => self.reads += 1,
            Kind::Write => self.writes += 1,
        }
        let end = record.block.saturating_add(u64::from(record.blocks));
        self.lowest_block = Some(
            self.lowest_block
                .map_or(record.block, |b| b.min(record.block)),
        );
        self.end_block = Some(self.end_block.map_or(end, |e| e.max(end)));
        if let Some(t) = record.arrival {
            self.earliest_arrival = Some(self.earliest_arrival.map_or(t, |e| e.min(t)));
            self.latest_arrival = Some(self.latest_arrival.map_or(t, |l| l.max(t)));
        }
        if let Some(m) = record.measured {
            self.measured_time = self
                .measured_time
                .saturating_add(m.access)
                .saturating_add(m.idle_after);
        }
    }

    /// How long the trace lasts: from the first arrival to the last for timed
    /// traces, the measured run time ([`measured_time`](Self::measured_time))
    /// for closed-loop validation traces.
    pub fn duration(&self) -> Nanos {
        match (self.earliest_arrival, self.latest_arrival) {
            (Some(first), Some(last)) => last - first,
            _ => self.measured_time,
        }
    }
}
