//! Replaying block traces on emulated disks.
//!
//! Every device number in the trace gets its own emulated disk (same model,
//! same policy); requests are streamed from the file, so memory stays
//! constant whatever its length (a validation trace keeps its two access
//! times per request, 16 bytes, for the exact demerit). Timed traces (DiskSim
//! ASCII, MSR, SPC, HP SRT) are replayed open-loop at their own arrival
//! times, optionally accelerated.
//! DiskSim validation traces carry no arrival times: they are replayed
//! closed-loop with one request outstanding, each issued the recorded idle
//! time after the previous one completed, and the simulated access times are
//! compared with the real drive's by DiskSim's *demerit figure*: the root
//! mean square of the difference between the two access-time distributions
//! at 10,000 quantiles, taken from the exact samples as `spindle validate`
//! takes them ([`validation::demerit`]), so both commands print one figure.
//!
//! A trace recorded on a disk larger than the emulated one (a real MSR or
//! SPC volume of hundreds of GB on a 1990s drive) reaches past its end; by
//! default that stops the replay at the first such request, naming it.
//! [`Fit::Wrap`] and [`Fit::Scale`] map the trace onto the disk instead, and
//! the report counts the requests moved.
//!
//! A traced device is one disk under a single-disk policy ([`replay`],
//! [`replay_observed`]) or a mirrored pair of the disk under an array
//! policy ([`replay_mirrored`]): the second disk's copy of each block where
//! a [`Placement`](crate::Placement) puts it, a read served by the copy the
//! policy routes it to, a write (an update) by both, its response the
//! array's acknowledgement. The pair's report is a synthetic mirrored
//! run's ([`MirrorReport`]), over the whole replay. A mirrored replay needs
//! a timed trace: a closed-loop validation trace checks one emulated drive
//! against the one real drive it was measured on, and is refused
//! ([`ReplayError::ClosedLoopMirror`]).
//!
//! A replay can be recorded (each device's arm over the trace's first
//! requests, its queue, its response times: the data behind `--plot`) and
//! hand every request to a sink as it completes (`--samples`) in one pass.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use disk_emu::disk::{DiskError, DiskModel, DiskSpec, validation};
use disk_emu::trace::{
    self, Position, TraceError, TraceFormat, TraceOptions, TraceReader, TraceRecord,
};
use disk_emu::{Device, DeviceError, DiskReport, Outcome};
use sched_core::{Block, Blocks, Cyl, Nanos, PolicySpec, Request, RequestId};
use serde::Serialize;

use crate::head_trace::{ArrayTrace, HeadTrace};
use crate::mirror_experiment::MirrorReport;
use crate::replay_target::{MirrorPolicy, Target};
use crate::request_sample::{Ending, RequestSample};
use crate::run_error::RunError;
use crate::seeds::Unit;
use crate::simulation::{Driver, Flow, Simulation};
use crate::workload::kind_class;

/// How a replay places a request that reaches past the end of the
/// emulated disk (of C blocks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fit {
    /// Stop the replay with an error naming the request (the default):
    /// nothing lands where the trace does not say.
    #[default]
    Refuse,
    /// A request past the end goes to its block modulo C (moved down to
    /// end at the disk's end when it would run past it); requests that fit
    /// stay where they are. Keeps small distances between neighbouring
    /// requests; folds far ones together.
    Wrap,
    /// Every request of a device whose requests reach past the end is moved
    /// in proportion: block b of a device whose requests end at block E
    /// goes to ⌊b · C / E⌋ (moved down when the request would run past the
    /// end), so each keeps its relative place on the stroke and its length;
    /// a device that fits is replayed as it is. E comes from a first pass
    /// over the trace.
    Scale,
}

/// How to replay a trace: on one disk per traced device under a
/// single-disk policy (`P` = [`PolicySpec`]), or on a mirrored pair under
/// an array policy (`P` = [`MirrorPolicy`]).
#[derive(Clone, Debug)]
pub struct ReplayOptions<P = PolicySpec> {
    /// The disk every device is emulated with (each disk of a pair).
    pub disk: DiskSpec,
    /// The scheduling policy of every device.
    pub policy: P,
    /// The trace format, or `None` to detect it.
    pub format: Option<TraceFormat>,
    /// Block size and device filter.
    pub trace: TraceOptions,
    /// Arrival times are divided by this (2 replays twice as fast).
    pub speed: f64,
    /// Seed of the random parts of service times, if the model has any.
    pub seed: u64,
    /// What to do with requests past the end of the disk.
    pub fit: Fit,
}

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The trace could not be read, or a line is malformed.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A request does not fit the emulated disk.
    #[error("{file}, {at}: {source}")]
    Extent {
        /// The trace file.
        file: String,
        /// Where the request is in the file: its line, or (SRT) its record
        /// number and byte offset.
        at: Position,
        /// What does not fit (boxed, as the error travels up every call of
        /// the event loop).
        source: Box<DiskError>,
    },
    /// The emulation failed (bad disk or policy, or queue overflow).
    #[error("{file}, {at}: {source}")]
    Run {
        /// The trace file.
        file: String,
        /// Where the request being handled is in the file.
        at: Position,
        /// The failure (boxed, like `Extent`'s, to keep the error small).
        source: Box<RunError>,
    },
    /// The disk or policy cannot be built.
    #[error(transparent)]
    Setup(#[from] RunError),
    /// A device failed while the trace was replayed (a bug, reported).
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// A replay option is out of range.
    #[error("speed: expected a positive, finite factor, got {0}")]
    Speed(f64),
    /// A mirrored replay of a closed-loop validation trace.
    #[error(
        "{0} is a closed-loop validation trace (no arrival times: each request was issued when the previous one completed on one real drive); its replay checks one emulated drive against that drive, so it runs under a single-disk policy; an array policy needs a timed trace (DiskSim ASCII, MSR, SPC or SRT)"
    )]
    ClosedLoopMirror(String),
}

/// Where a replay hands each request as it completes: the trace's device
/// number and the request (`Ending::Served::disk` is the disk of the
/// device that served it: 0 on a single disk, 0 or 1 on a pair).
pub type DeviceSampleSink<'a> = &'a mut dyn FnMut(u32, &RequestSample);

/// One device's results: a [`DiskReport`] on one disk, a
/// [`MirrorReport`] on a mirrored pair.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceReport<R = DiskReport> {
    /// The trace's device number.
    pub device: u32,
    /// Its statistics.
    pub report: R,
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

/// What a replay measured (`R`: each device's report).
#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport<R = DiskReport> {
    /// The trace file.
    pub file: String,
    /// Its format.
    pub format: String,
    /// Requests replayed (every record of the file, after the device filter).
    pub requests: u64,
    /// Records the device filter dropped.
    pub filtered: u64,
    /// Requests moved onto the disk by [`ReplayOptions::fit`].
    pub moved: u64,
    /// Virtual time from the first arrival to the last completion, ms.
    pub span_ms: f64,
    /// Per device, in device order.
    pub devices: Vec<DeviceReport<R>>,
    /// For closed-loop validation traces: emulated versus real drive.
    pub validation: Option<Validation>,
}

/// A replay's report, and the recording of each device that had a request
/// among the followed ones, by device number in device order (none when
/// the replay was not recorded).
pub type ObservedReplay<R = DiskReport, T = HeadTrace> = (ReplayReport<R>, Vec<(u32, T)>);

/// Trace replay as a driver of the event loop: its one event is "the next
/// record is due"; each device number of the trace is a device of the
/// [`Target`] (a disk, or a mirrored pair), created when the trace first
/// names it.
struct ReplayRun<'a, 's, T: Target> {
    options: &'a ReplayOptions<T>,
    /// For [`Fit::Scale`]: the block each device's requests end at, for the
    /// devices that reach past the disk's end.
    extents: BTreeMap<u32, u64>,
    /// Requests moved onto the disk.
    moved: u64,
    /// Where each request goes as it completes, when asked for.
    sink: Option<DeviceSampleSink<'s>>,
    reader: TraceReader<BufReader<File>>,
    file: String,
    model: DiskModel,
    index: BTreeMap<u32, usize>,
    /// The trace's device number of each device, in the order of creation.
    devices: Vec<u32>,
    /// What each device's report counts beyond its own statistics.
    tallies: Vec<T::Tally>,
    pending: Option<TraceRecord>,
    closed_loop: bool,
    /// Closed loop: the record in service and when it started.
    outstanding: Option<(TraceRecord, Nanos)>,
    /// Closed loop: the real and the emulated access time of each request.
    measured: Vec<Nanos>,
    simulated: Vec<Nanos>,
    requests: u64,
    last: Nanos,
    first: Option<Nanos>,
    /// When the replay is traced: how many requests of the trace to follow
    /// (over all its devices), how many of them have left, and a recorder
    /// per device (in `devices` order), stopped once they all have.
    followed: Option<u64>,
    followed_left: u64,
    recorders: Vec<T::Recorder>,
}

/// A request of `blocks` at `block` on a traced volume of `extent` blocks,
/// mapped in proportion onto a disk of `capacity` blocks (its place on the
/// stroke kept) and moved down where it would run past the end. Shared by
/// [`Fit::Scale`] and Ivy's replay of a traced disk onto another drive.
pub(crate) fn scale_onto(block: u64, blocks: u64, extent: u64, capacity: u64) -> u64 {
    if extent == capacity {
        return block;
    }
    let scaled = (u128::from(block) * u128::from(capacity) / u128::from(extent)) as u64;
    scaled.min(capacity.saturating_sub(blocks))
}

impl<T: Target> ReplayRun<'_, '_, T> {
    /// Where `record`'s request goes on the disk under the replay's
    /// [`Fit`]: its own block when it fits (or when nothing fits it, for the
    /// disk to refuse by name), else wrapped or scaled.
    fn place(&mut self, record: &TraceRecord) -> u64 {
        let capacity = self.model.capacity_blocks();
        let (block, blocks) = (record.block, u64::from(record.blocks));
        if blocks > capacity {
            return block;
        }
        let fits = block.checked_add(blocks).is_some_and(|end| end <= capacity);
        let placed = match self.options.fit {
            Fit::Refuse => return block,
            Fit::Wrap if fits => return block,
            Fit::Wrap => (block % capacity).min(capacity - blocks),
            Fit::Scale => match self.extents.get(&record.device) {
                None => return block,
                Some(&end) => scale_onto(block, blocks, end, capacity),
            },
        };
        self.moved += u64::from(placed != block);
        placed
    }

    fn arrival_of(&self, r: &TraceRecord) -> Nanos {
        (r.arrival.unwrap_or(0) as f64 / self.options.speed).round() as Nanos
    }

    fn device(
        &mut self,
        sim: &mut Simulation<T::Device, ()>,
        device: u32,
    ) -> Result<usize, RunError> {
        if let Some(&i) = self.index.get(&device) {
            return Ok(i);
        }
        let unit = Unit::new(self.options.seed, 0, 0);
        let (emulated, tally) = self.options.policy.build(&self.model, device, unit)?;
        let i = sim.add_device(emulated);
        if let Some(followed) = self.followed {
            let mut recorder = T::recorder(sim.device(i));
            if self.followed_left >= followed {
                T::stop(&mut recorder, followed);
            }
            self.recorders.push(recorder);
        }
        self.tallies.push(tally);
        self.devices.push(device);
        self.index.insert(device, i);
        Ok(i)
    }
}

impl<T: Target> Driver<T::Device> for ReplayRun<'_, '_, T> {
    type Event = ();
    type Output = ReplayReport<T::Report>;
    type Error = ReplayError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<T::Device, ()>,
        now: Nanos,
        (): (),
    ) -> Result<Flow, ReplayError> {
        self.last = now;
        let Some(record) = self.pending.take() else {
            return Ok(Flow::Continue);
        };
        let fail = |file: &str, source| ReplayError::Run {
            file: file.to_string(),
            at: record.position(),
            source: Box::new(source),
        };
        let unit = self
            .device(sim, record.device)
            .map_err(|e| fail(&self.file, e))?;
        let block = self.place(&record);
        let copies = self
            .options
            .policy
            .copies(block, record.blocks, self.model.capacity_blocks());
        let req = Request::new(
            RequestId(self.requests),
            record.kind,
            Block(block),
            Blocks(record.blocks),
            Cyl(0),
            now,
        )
        .with_class(kind_class(record.kind));
        if let Some(recorder) = self.recorders.get_mut(unit) {
            T::arrived(
                recorder,
                sim.device(unit),
                self.requests,
                now,
                record.kind,
                &copies,
            );
        }
        self.requests += 1;
        sim.with_device(unit, |d| d.submit(req, &copies, now))
            .map_err(|e| match RunError::device(e, now) {
                RunError::Disk(source) => ReplayError::Extent {
                    file: self.file.clone(),
                    at: record.position(),
                    source: Box::new(source),
                },
                e => fail(&self.file, e),
            })?;
        if let Some(recorder) = self.recorders.get_mut(unit) {
            T::observe(recorder, sim.device(unit), now);
        }
        self.pending = self.reader.next().transpose()?;
        if self.closed_loop {
            self.outstanding = Some((record, now));
        } else if let Some(next) = &self.pending {
            sim.schedule(self.arrival_of(next).max(now), ());
        }
        Ok(Flow::Continue)
    }

    fn on_advance(
        &mut self,
        sim: &mut Simulation<T::Device, ()>,
        now: Nanos,
        device: usize,
    ) -> Result<(), ReplayError> {
        if let Some(recorder) = self.recorders.get_mut(device) {
            T::observe(recorder, sim.device(device), now);
        }
        Ok(())
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<T::Device, ()>,
        now: Nanos,
        device: usize,
        outcome: Outcome,
    ) -> Result<Flow, ReplayError> {
        self.last = now;
        if let Some(recorder) = self.recorders.get_mut(device)
            && let (Some(id), Some(followed)) = (T::left(recorder, &outcome, now), self.followed)
            && id < followed
        {
            self.followed_left += 1;
            if self.followed_left == followed {
                self.recorders.iter_mut().for_each(|r| T::stop(r, followed));
            }
        }
        T::count(&mut self.tallies[device], &outcome, now);
        let (request, ending) = match outcome {
            Outcome::Completed(done) => (
                done.request,
                Ending::Served {
                    start: done.first_start,
                    finish: done.timing.finish,
                    disk: done.timing.disk,
                },
            ),
            Outcome::Expired(request) => (request, Ending::Dropped(now)),
            _ => return Ok(Flow::Continue),
        };
        if let Some(sink) = self.sink.as_mut() {
            sink(
                self.devices[device],
                &RequestSample {
                    id: request.id.0,
                    arrival: request.arrival,
                    kind: request.kind,
                    block: request.block,
                    blocks: request.blocks,
                    cylinder: T::cylinder(&request),
                    deadline: request.deadline,
                    ending,
                },
            );
        }
        if let Some((record, start)) = self.outstanding.take() {
            let real = record.measured.map_or(0, |m| m.access);
            let ours = now - start;
            self.measured.push(real);
            self.simulated.push(ours);
            if self.pending.is_some() {
                let idle = record.measured.map_or(0, |m| m.idle_after);
                sim.schedule(now + idle, ());
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        sim: &mut Simulation<T::Device, ()>,
        _stopped: bool,
    ) -> Result<ReplayReport<T::Report>, ReplayError> {
        let validation = (self.closed_loop && !self.measured.is_empty()).then(|| {
            let mean_ms = |v: &[Nanos]| {
                v.iter().map(|&t| u128::from(t)).sum::<u128>() as f64 / v.len() as f64 / 1e6
            };
            let measured_mean_ms = mean_ms(&self.measured);
            let simulated_mean_ms = mean_ms(&self.simulated);
            self.measured.sort_unstable();
            self.simulated.sort_unstable();
            let demerit_ms = validation::demerit(&self.measured, &self.simulated) / 1e6;
            Validation {
                measured_mean_ms,
                simulated_mean_ms,
                demerit_ms,
                relative_demerit: demerit_ms / measured_mean_ms,
            }
        });
        let last = self.last;
        let mut out: Vec<DeviceReport<T::Report>> = self
            .devices
            .iter()
            .zip(&self.tallies)
            .enumerate()
            .map(|(unit, (&device, tally))| DeviceReport {
                device,
                report: sim.with_device(unit, |d| T::report(tally, d, last)),
            })
            .collect();
        out.sort_by_key(|d| d.device);
        Ok(ReplayReport {
            file: self.file.clone(),
            format: self.reader.format().name().to_string(),
            requests: self.requests,
            filtered: self.reader.filtered(),
            moved: self.moved,
            span_ms: (last - self.first.unwrap_or(0)) as f64 / 1e6,
            devices: out,
            validation,
        })
    }
}

/// Replays the trace at `path`, one disk per traced device.
///
/// # Errors
/// [`ReplayError`] naming the file and the line (SRT: the record and its
/// byte offset) of the first request that cannot be read or emulated;
/// nothing is skipped.
pub fn replay(
    path: impl AsRef<Path>,
    options: &ReplayOptions,
) -> Result<ReplayReport, ReplayError> {
    drive(path.as_ref(), options, None, None).map(|(report, _)| report)
}

/// [`replay`], in one pass also recording, when `followed` is given, what
/// each device's arm did until the trace's first `followed` requests had
/// all left (its own among them are the ones its trace follows; every
/// request competing with them is kept), its queue over that span and the
/// response times of all its completions — the data behind a picture of
/// the replay, one [`HeadTrace`] per device that had a request in that
/// span, in device order, each with the device's report —, and handing
/// every request to `sink`, when given, as it completes (see
/// [`crate::request_sample`]). The report is the one [`replay`] returns:
/// neither changes anything in it.
///
/// # Errors
/// Those of [`replay`].
pub fn replay_observed(
    path: impl AsRef<Path>,
    options: &ReplayOptions,
    followed: Option<u64>,
    sink: Option<DeviceSampleSink<'_>>,
) -> Result<ObservedReplay, ReplayError> {
    drive(path.as_ref(), options, followed, sink)
}

/// [`replay_observed`] with each traced device on a mirrored pair of the
/// disk under an array policy (see the module documentation): each
/// device's report is a [`MirrorReport`] over the replay, its recording an
/// [`ArrayTrace`] (a lane per disk of the pair), and a sample's
/// `Ending::Served::disk` is the disk of the pair that served the request
/// (an update: the one its acknowledgement waited for).
///
/// # Errors
/// Those of [`replay`]; [`ReplayError::ClosedLoopMirror`] for a validation
/// trace; [`ReplayError::Setup`] for a placement that is not a mirror's or
/// an array policy that cannot be built for two disks.
pub fn replay_mirrored(
    path: impl AsRef<Path>,
    options: &ReplayOptions<MirrorPolicy>,
    followed: Option<u64>,
    sink: Option<DeviceSampleSink<'_>>,
) -> Result<ObservedReplay<MirrorReport, ArrayTrace>, ReplayError> {
    drive(path.as_ref(), options, followed, sink)
}

/// Replays the trace on the devices of `T`, tracing each device when
/// `followed` is given (the recordings come back by device number, in
/// device order, each with its device's report) and handing each request
/// to `sink` when given.
fn drive<T: Target>(
    path: &Path,
    options: &ReplayOptions<T>,
    followed: Option<u64>,
    sink: Option<DeviceSampleSink<'_>>,
) -> Result<ObservedReplay<T::Report, T::Trace>, ReplayError> {
    if !(options.speed > 0.0 && options.speed.is_finite()) {
        return Err(ReplayError::Speed(options.speed));
    }
    let model = DiskModel::from_spec(&options.disk).map_err(RunError::from)?;
    let extents = match options.fit {
        Fit::Scale => trace::open(path, options.format, options.trace.clone())?
            .profile()?
            .devices
            .into_iter()
            .filter_map(|(device, s)| Some((device, s.end_block?)))
            .filter(|&(_, end)| end > model.capacity_blocks())
            .collect(),
        Fit::Refuse | Fit::Wrap => BTreeMap::new(),
    };
    let mut reader = trace::open(path, options.format, options.trace.clone())?;
    let file = reader.file().to_string();
    let pending: Option<TraceRecord> = reader.next().transpose()?;
    let closed_loop = pending.is_some_and(|r| r.arrival.is_none());
    if closed_loop && !T::CLOSED_LOOP {
        return Err(ReplayError::ClosedLoopMirror(file));
    }
    let mut run = ReplayRun {
        options,
        extents,
        moved: 0,
        sink,
        reader,
        file,
        model,
        index: BTreeMap::new(),
        devices: Vec::new(),
        tallies: Vec::new(),
        pending,
        closed_loop,
        outstanding: None,
        measured: Vec::new(),
        simulated: Vec::new(),
        requests: 0,
        last: 0,
        first: None,
        followed,
        followed_left: 0,
        recorders: Vec::new(),
    };
    let mut sim = Simulation::new();
    run.first = run
        .pending
        .as_ref()
        .map(|r| if closed_loop { 0 } else { run.arrival_of(r) });
    if let Some(t) = run.first {
        sim.schedule(t, ());
    }
    let report = sim.run(&mut run)?;
    let mut recorders: Vec<(u32, T::Recorder)> = run
        .devices
        .iter()
        .copied()
        .zip(std::mem::take(&mut run.recorders))
        .collect();
    recorders.sort_by_key(|(device, _)| *device);
    let traces = recorders
        .into_iter()
        .filter(|(_, recorder)| !T::is_empty(recorder))
        .filter_map(|(device, recorder)| {
            let device_report = report.devices.iter().find(|d| d.device == device)?;
            let trace = T::trace(recorder, &run.model, device_report.report.clone());
            Some((device, trace))
        })
        .collect();
    Ok((report, traces))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeds::Purpose;
    use disk_emu::disk::presets;

    fn data(name: &str) -> String {
        shared_data::disksim_file(name).display().to_string()
    }

    fn options() -> ReplayOptions {
        ReplayOptions {
            disk: presets::hp97560(),
            policy: PolicySpec::Fcfs,
            format: None,
            trace: TraceOptions::default(),
            speed: 1.0,
            seed: 1,
            fit: Fit::Refuse,
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
            Err(ReplayError::Extent {
                at: Position::Line(1),
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
    }

    /// The bundled SRT trace replays open-loop at its own times on one
    /// emulated disk per traced disk, every request completing.
    #[test]
    fn srt_trace_replays_open_loop_per_disk() {
        let r = replay(data("ajw.1week.srt"), &options()).unwrap();
        assert_eq!(r.format, "srt");
        assert_eq!(r.requests, 44_519);
        let per_disk: Vec<(u32, u64)> = r
            .devices
            .iter()
            .map(|d| (d.device, d.report.completions))
            .collect();
        assert_eq!(per_disk, [(0, 42_252), (1, 2_267)]);
        // The last arrival is 603,064.588892 s into the trace; the span adds
        // the last request's service.
        assert!(
            r.span_ms > 603_064_588.892 && r.span_ms < 603_065_588.892,
            "{}",
            r.span_ms
        );
        // Twice as fast: the last arrival at half the time.
        let mut o = options();
        o.speed = 2.0;
        let r = replay(data("ajw.1week.srt"), &o).unwrap();
        assert_eq!(r.requests, 44_519);
        assert!(
            r.span_ms > 301_532_294.446 && r.span_ms < 301_533_294.446,
            "{}",
            r.span_ms
        );
        assert!(r.validation.is_none());
    }

    /// Disk 0's first request (the file's third record, sector 12,256 of
    /// 256 bytes = block 6,128) does not fit a 6,000-block disk.
    #[test]
    fn an_srt_block_beyond_the_disk_names_the_record() {
        let mut o = options();
        o.disk = presets::chen_towsley_91();
        match replay(data("ajw.1week.srt"), &o) {
            Err(
                e @ ReplayError::Extent {
                    at:
                        Position::Record {
                            number: 3,
                            offset: 2_316,
                        },
                    ..
                },
            ) => assert!(
                e.to_string()
                    .contains("ajw.1week.srt, record 3 at byte 2316: "),
                "{e}"
            ),
            other => panic!("{other:?}"),
        }
    }

    /// A trace larger than the disk: refused by default, naming the first
    /// request past the end; wrapped or scaled onto the disk on request,
    /// every request replayed and the moved ones counted. Device 1 fits and
    /// is never moved.
    #[test]
    fn a_trace_larger_than_the_disk_is_refused_wrapped_or_scaled() {
        let dir = std::env::temp_dir().join(format!("spindle-fit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("big.trace");
        // DiskSim ASCII: ms, device, block, blocks, flags (1 = read). The
        // chen-towsley-91 disk has 6,000 blocks.
        std::fs::write(
            &trace,
            "0 0 0 8 1\n10 0 5000 8 1\n20 0 10000 8 1\n30 0 20000 8 1\n40 1 5990 10 1\n50 1 7 1 1\n",
        )
        .unwrap();
        let mut o = options();
        o.disk = presets::chen_towsley_91();
        match replay(&trace, &o) {
            Err(e @ ReplayError::Extent { .. }) => {
                assert!(
                    e.to_string().contains("big.trace, line 3: block 10000"),
                    "{e}"
                );
            }
            other => panic!("{other:?}"),
        }
        let placed = |fit: Fit| {
            let mut o = o.clone();
            o.fit = fit;
            let mut blocks = Vec::new();
            let (report, _) = replay_observed(
                &trace,
                &o,
                None,
                Some(&mut |device, s: &RequestSample| blocks.push((s.id, device, s.block))),
            )
            .unwrap();
            blocks.sort_unstable();
            (report.requests, report.moved, blocks)
        };
        let (requests, moved, blocks) = placed(Fit::Wrap);
        assert_eq!((requests, moved), (6, 2));
        assert_eq!(
            blocks,
            [
                (0, 0, 0),
                (1, 0, 5000),
                (2, 0, 4000),
                (3, 0, 2000),
                (4, 1, 5990),
                (5, 1, 7)
            ]
        );
        // Device 0 ends at block 20,008: b -> b * 6000 / 20008.
        let (requests, moved, blocks) = placed(Fit::Scale);
        assert_eq!((requests, moved), (6, 3));
        assert_eq!(
            blocks,
            [
                (0, 0, 0),
                (1, 0, 1499),
                (2, 0, 2998),
                (3, 0, 5992),
                (4, 1, 5990),
                (5, 1, 7)
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_validation_replay_gives_the_demerit_validate_gives() {
        let disk = presets::preset("hp-c2247a").unwrap();
        let trace = data("hp_c2247a.trace");
        let mut o = options();
        o.disk = disk.clone();
        let replayed = replay(&trace, &o).unwrap().validation.unwrap();
        let validated = validation::validate(
            &disk,
            &trace,
            Unit::new(1, 0, 0).stream(Purpose::Service { disk: 0 }),
        )
        .unwrap()
        .overall();
        assert_eq!(replayed.demerit_ms, validated.demerit_ms);
        assert_eq!(replayed.measured_mean_ms, validated.measured_mean_ms);
        assert!((replayed.simulated_mean_ms - validated.simulated_mean_ms).abs() < 1e-9);
    }
}
