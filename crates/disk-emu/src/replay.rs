//! Replaying block traces on emulated disks.
//!
//! Every device number in the trace gets its own emulated disk (same model,
//! same policy); requests are streamed from the file, so memory stays
//! constant whatever its length. Timed traces (DiskSim ASCII, MSR, SPC) are
//! replayed open-loop at their own arrival times, optionally accelerated.
//! DiskSim validation traces carry no arrival times: they are replayed
//! closed-loop with one request outstanding, each issued the recorded idle
//! time after the previous one completed, and the simulated access times are
//! compared with the real drive's by DiskSim's *demerit figure*: the root
//! mean square of the difference between the two access-time distributions
//! at 10,000 quantiles.

use std::collections::BTreeMap;
use std::path::Path;

use sched_core::{Nanos, PolicySpec, Request, RequestId};
use serde::Serialize;

use crate::disk::{DiskError, DiskModel, DiskSpec};
use crate::engine::EventQueue;
use crate::random::{Purpose, Stream};
use crate::sim::{Next, RunError, Unit};
use crate::stats::{DiskReport, DiskStats, Histogram};
use crate::trace::{self, TraceError, TraceFormat, TraceOptions, TraceRecord};

/// How to replay a trace.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// The disk every device is emulated with.
    pub disk: DiskSpec,
    /// The scheduling policy of every device.
    pub policy: PolicySpec,
    /// The trace format, or `None` to detect it.
    pub format: Option<TraceFormat>,
    /// Block size and device filter.
    pub trace: TraceOptions,
    /// Arrival times are divided by this (2 replays twice as fast).
    pub speed: f64,
    /// Seed of the random parts of service times, if the model has any.
    pub seed: u64,
}

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The trace could not be read, or a line is malformed.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A request does not fit the emulated disk.
    #[error("{file}:{line}: {source}")]
    Extent {
        /// The trace file.
        file: String,
        /// The line of the request.
        line: u64,
        /// What does not fit.
        source: DiskError,
    },
    /// The emulation failed (bad disk or policy, or queue overflow).
    #[error("{file}:{line}: {source}")]
    Run {
        /// The trace file.
        file: String,
        /// The line of the request being handled.
        line: u64,
        /// The failure.
        source: RunError,
    },
    /// The disk or policy cannot be built.
    #[error(transparent)]
    Setup(#[from] RunError),
    /// A replay option is out of range.
    #[error("speed: expected a positive, finite factor, got {0}")]
    Speed(f64),
}

/// One device's results.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceReport {
    /// The trace's device number.
    pub device: u32,
    /// Its statistics.
    pub report: DiskReport,
}

/// How the emulated drive compares with the real one (validation traces).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Validation {
    /// Mean access time the real drive took, ms.
    pub measured_mean_ms: f64,
    /// Mean access time of the emulated drive, ms.
    pub simulated_mean_ms: f64,
    /// RMS difference of the two access-time distributions over 10,000
    /// quantiles, ms (DiskSim's demerit figure).
    pub demerit_ms: f64,
    /// The demerit as a fraction of the measured mean.
    pub relative_demerit: f64,
}

/// What a replay measured.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    /// The trace file.
    pub file: String,
    /// Its format.
    pub format: String,
    /// Requests replayed (every record of the file, after the device filter).
    pub requests: u64,
    /// Records the device filter dropped.
    pub filtered: u64,
    /// Virtual time from the first arrival to the last completion, ms.
    pub span_ms: f64,
    /// Per device, in device order.
    pub devices: Vec<DeviceReport>,
    /// For closed-loop validation traces: emulated versus real drive.
    pub validation: Option<Validation>,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// The next trace record is due.
    Next,
    /// Unit `usize` finishes its request.
    Done(usize),
    /// Unit `usize`'s policy releases work it held back.
    Wake(usize),
}

/// The event of unit `unit` that `next` asks for.
fn unit_event(unit: usize, next: Next) -> (Nanos, Event) {
    match next {
        Next::Finish(t) => (t, Event::Done(unit)),
        Next::Wake(t) => (t, Event::Wake(unit)),
    }
}

/// The emulated devices, created as the trace first names them.
struct Devices<'a> {
    options: &'a ReplayOptions,
    model: DiskModel,
    index: BTreeMap<u32, usize>,
    units: Vec<(u32, Unit)>,
}

impl Devices<'_> {
    fn unit(&mut self, device: u32) -> Result<usize, RunError> {
        if let Some(&i) = self.index.get(&device) {
            return Ok(i);
        }
        let stream = Stream::new(self.options.seed, u64::from(device), Purpose::Service);
        let unit = Unit::new(
            self.model.clone(),
            &self.options.policy,
            DiskStats::new(0),
            stream,
        )?;
        self.units.push((device, unit));
        self.index.insert(device, self.units.len() - 1);
        Ok(self.units.len() - 1)
    }
}

/// Replays the trace at `path`.
///
/// # Errors
/// [`ReplayError`] naming the file and line of the first request that cannot
/// be read or emulated; nothing is skipped.
pub fn replay(
    path: impl AsRef<Path>,
    options: &ReplayOptions,
) -> Result<ReplayReport, ReplayError> {
    if !(options.speed > 0.0 && options.speed.is_finite()) {
        return Err(ReplayError::Speed(options.speed));
    }
    let mut reader = trace::open(path, options.format, options.trace.clone())?;
    let file = reader.file().to_string();
    let format = reader.format();
    let mut devices = Devices {
        options,
        model: DiskModel::from_spec(&options.disk).map_err(RunError::from)?,
        index: BTreeMap::new(),
        units: Vec::new(),
    };
    let mut events = EventQueue::new();
    let mut pending: Option<TraceRecord> = reader.next().transpose()?;
    let closed_loop = pending.is_some_and(|r| r.arrival.is_none());
    let arrival_of = |r: &TraceRecord| -> Nanos {
        (r.arrival.unwrap_or(0) as f64 / options.speed).round() as Nanos
    };
    let first = pending
        .as_ref()
        .map(|r| if closed_loop { 0 } else { arrival_of(r) });
    if let Some(t) = first {
        events.schedule(t, Event::Next);
    }
    let mut measured = Histogram::new();
    let mut simulated = Histogram::new();
    let (mut measured_sum, mut simulated_sum) = (0u128, 0u128);
    // Closed loop: the record in service and when it started.
    let mut outstanding: Option<(TraceRecord, Nanos)> = None;
    let mut requests = 0u64;
    let mut last = 0;
    while let Some((now, event)) = events.pop() {
        last = now;
        match event {
            Event::Next => {
                let Some(record) = pending.take() else {
                    continue;
                };
                let fail = |source| ReplayError::Run {
                    file: file.clone(),
                    line: record.line,
                    source,
                };
                let unit = devices.unit(record.device).map_err(fail)?;
                let req = Request::new(
                    RequestId(requests),
                    record.kind,
                    record.block,
                    record.blocks,
                    0,
                    now,
                );
                requests += 1;
                let started = devices.units[unit]
                    .1
                    .arrive(req, now)
                    .map_err(|e| match e {
                        RunError::Disk(source) => ReplayError::Extent {
                            file: file.clone(),
                            line: record.line,
                            source,
                        },
                        e => fail(e),
                    })?;
                if let Some((t, e)) = started.map(|n| unit_event(unit, n)) {
                    events.schedule(t, e);
                }
                pending = reader.next().transpose()?;
                if closed_loop {
                    outstanding = Some((record, now));
                } else if let Some(next) = &pending {
                    events.schedule(arrival_of(next).max(now), Event::Next);
                }
            }
            Event::Wake(unit) => {
                if let Some((t, e)) = devices.units[unit].1.wake(now).map(|n| unit_event(unit, n)) {
                    events.schedule(t, e);
                }
            }
            Event::Done(unit) => {
                let (_, next) = devices.units[unit].1.complete(now);
                if let Some((t, e)) = next.map(|n| unit_event(unit, n)) {
                    events.schedule(t, e);
                }
                if let Some((record, start)) = outstanding.take() {
                    let real = record.measured.map_or(0, |m| m.access);
                    let ours = now - start;
                    measured.record(real);
                    simulated.record(ours);
                    measured_sum += u128::from(real);
                    simulated_sum += u128::from(ours);
                    if pending.is_some() {
                        let idle = record.measured.map_or(0, |m| m.idle_after);
                        events.schedule(now + idle, Event::Next);
                    }
                }
            }
        }
    }
    let validation = (closed_loop && requests > 0).then(|| {
        let n = requests as f64;
        let measured_mean_ms = measured_sum as f64 / n / 1e6;
        let demerit_ms = demerit(&measured, &simulated) / 1e6;
        Validation {
            measured_mean_ms,
            simulated_mean_ms: simulated_sum as f64 / n / 1e6,
            demerit_ms,
            relative_demerit: demerit_ms / measured_mean_ms,
        }
    });
    let mut out: Vec<DeviceReport> = devices
        .units
        .iter_mut()
        .map(|(device, unit)| DeviceReport {
            device: *device,
            report: unit.report(last),
        })
        .collect();
    out.sort_by_key(|d| d.device);
    let span_ms = (last - first.unwrap_or(0)) as f64 / 1e6;
    Ok(ReplayReport {
        file,
        format: format.name().to_string(),
        requests,
        filtered: reader.filtered(),
        span_ms,
        devices: out,
        validation,
    })
}

/// DiskSim's demerit figure: the RMS difference of two distributions at the
/// quantiles 0.0001, 0.0002, …, 1.0, in the histograms' unit.
fn demerit(a: &Histogram, b: &Histogram) -> f64 {
    const POINTS: u32 = 10_000;
    let sum: f64 = (1..=POINTS)
        .map(|i| {
            let q = f64::from(i) / f64::from(POINTS);
            let d = a.quantile(q).unwrap_or(0.0) - b.quantile(q).unwrap_or(0.0);
            d * d
        })
        .sum();
    (sum / f64::from(POINTS)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets;

    fn data(name: &str) -> String {
        format!(
            "{}/../../../shared/data/disksim-valid/{name}",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    fn options() -> ReplayOptions {
        ReplayOptions {
            disk: presets::hp97560(),
            policy: PolicySpec::Fcfs,
            format: None,
            trace: TraceOptions::default(),
            speed: 1.0,
            seed: 1,
        }
    }

    #[test]
    fn validation_trace_replays_closed_loop_and_is_compared() {
        let r = replay(data("hp_c2247a.trace"), &options()).unwrap();
        assert_eq!(r.requests, 9_999);
        assert_eq!(r.devices.len(), 1);
        assert_eq!(r.devices[0].report.completions, 9_999);
        // One outstanding request: nobody ever waits.
        assert_eq!(r.devices[0].report.waiting.max, 0.0);
        let v = r.validation.unwrap();
        assert!(
            v.measured_mean_ms > 5.0 && v.measured_mean_ms < 30.0,
            "{v:?}"
        );
        assert!(v.demerit_ms > 0.0);
    }

    #[test]
    fn a_block_beyond_the_disk_names_the_line() {
        let mut o = options();
        o.disk = presets::chen_towsley_91();
        match replay(data("hp_c2247a.trace"), &o) {
            Err(ReplayError::Extent { line: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn demerit_of_identical_distributions_is_zero() {
        let mut a = Histogram::new();
        for v in 1..1000u64 {
            a.record(v * 1000);
        }
        assert_eq!(demerit(&a, &a), 0.0);
        let mut b = Histogram::new();
        for v in 1..1000u64 {
            b.record(v * 1000 + 1_000_000);
        }
        assert!((demerit(&a, &b) - 1_000_000.0).abs() < 20_000.0);
    }
}
