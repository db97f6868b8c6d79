//! One-pass totals over a trace, for reports that must match the file.

use std::collections::BTreeMap;

use sched_core::{Kind, Nanos};

use super::{SrtHeader, TraceFormat, TraceRecord};

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
    /// SRT records of the SUSPECTIO kind, checked and set aside (see
    /// [`TraceFormat::Srt`](super::TraceFormat::Srt)); 0 for other formats.
    pub suspect: u64,
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

/// A trace described for `spindle trace-info`: the totals, the same per
/// device and (SRT) per traced device number, and the distribution of
/// request sizes. Gathered in one streaming pass by
/// [`TraceReader::profile`](super::TraceReader::profile); memory grows with
/// the number of devices and of distinct request sizes, not with the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceProfile {
    /// The format read.
    pub format: TraceFormat,
    /// Bytes per block of the block numbers and sizes.
    pub block_size: u32,
    /// Totals over the trace.
    pub summary: TraceSummary,
    /// Totals per [`TraceRecord::device`].
    pub devices: BTreeMap<u32, TraceSummary>,
    /// Requests per length in blocks.
    pub sizes: BTreeMap<u32, u64>,
    /// SRT: the header.
    pub srt_header: Option<SrtHeader>,
    /// SRT: totals per traced device number (`devno`: major and minor, so
    /// per disk section and per block or raw device).
    pub srt_devices: BTreeMap<u32, TraceSummary>,
}

impl TraceProfile {
    /// An empty profile.
    pub fn new(format: TraceFormat, block_size: u32, srt_header: Option<SrtHeader>) -> Self {
        TraceProfile {
            format,
            block_size,
            summary: TraceSummary::default(),
            devices: BTreeMap::new(),
            sizes: BTreeMap::new(),
            srt_header,
            srt_devices: BTreeMap::new(),
        }
    }

    /// Counts one record in.
    pub fn add(&mut self, record: &TraceRecord) {
        self.summary.add(record);
        self.devices.entry(record.device).or_default().add(record);
        *self.sizes.entry(record.blocks).or_default() += 1;
        if let Some(detail) = &record.srt {
            self.srt_devices
                .entry(detail.devno)
                .or_default()
                .add(record);
        }
    }

    /// The request length, in blocks, at quantile `q` (0 ≤ q ≤ 1): the
    /// least length at least a fraction `q` of the requests do not exceed
    /// (the nearest-rank definition, so every quantile is a length some
    /// request has). `None` for an empty trace or a `q` outside [0, 1].
    pub fn size_quantile(&self, q: f64) -> Option<u32> {
        if !(0.0..=1.0).contains(&q) {
            return None;
        }
        let total: u64 = self.sizes.values().sum();
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        self.sizes.iter().find_map(|(&blocks, &count)| {
            seen += count;
            (seen >= rank).then_some(blocks)
        })
    }

    /// The mean request length in blocks; `None` for an empty trace.
    pub fn mean_size(&self) -> Option<f64> {
        let total: u64 = self.sizes.values().sum();
        let blocks: u128 = self
            .sizes
            .iter()
            .map(|(&b, &n)| u128::from(b) * u128::from(n))
            .sum();
        (total > 0).then(|| blocks as f64 / total as f64)
    }
}
