//! What a trace replay emulates each traced device with: one disk under a
//! single-disk policy ([`PolicySpec`]), or a mirrored pair of the disk
//! under an array policy ([`MirrorPolicy`]). The replay's event loop
//! ([`crate::trace_replay`]) is the same for both; a [`Target`] is what
//! differs: the device it builds, where a request's copies lie, what its
//! recording keeps and what its report holds.

use disk_emu::disk::DiskModel;
use disk_emu::{ArrayDevice, Device, DiskDevice, DiskReport, DiskStats, Outcome};
use sched_core::array::{ArraySpec, Copies, Location};
use sched_core::{Cylinder, Kind, Nanos, PolicySpec, Request};

use crate::head_trace::{ArrayRecorder, ArrayTrace, Fate, HeadTrace, Recorder};
use crate::mirror_experiment::{MirrorReport, MirrorTally, check_mirror_placement};
use crate::placement::Placement;
use crate::run_error::RunError;
use crate::seeds::{Purpose, Unit};
use crate::workload::label_kinds;

/// The policy of a mirrored replay: each traced device is a pair of the
/// replay's disk, the second disk's copies laid out by `placement`, under
/// the array policy `array` (a read goes to the copy it routes it to, an
/// update is written to both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MirrorPolicy {
    /// The array policy and its queue disciplines.
    pub array: ArraySpec,
    /// Where the second disk keeps its copies (a two-disk placement:
    /// identical, shifted or reversed).
    pub placement: Placement,
}

/// What a replay emulates a traced device with (see the module
/// documentation).
pub(crate) trait Target {
    /// The device standing for one traced device.
    type Device: Device;
    /// What a replay counts per device beyond the device's own statistics.
    type Tally;
    /// A device's report.
    type Report: Clone;
    /// A device's recording, when the replay is traced.
    type Recorder;
    /// What a recording becomes, with the device's report.
    type Trace;

    /// Whether a closed-loop validation trace (one real drive, each
    /// request issued as the previous completed) can be replayed on it.
    const CLOSED_LOOP: bool;

    /// The device (and its empty tally) for traced device `device`, its
    /// disks of `model`, its random draws from `unit`.
    ///
    /// # Errors
    /// A policy or disk that cannot be built, or a placement that is not
    /// of the device's disks.
    fn build(
        &self,
        model: &DiskModel,
        device: u32,
        unit: Unit,
    ) -> Result<(Self::Device, Self::Tally), RunError>;

    /// The copies of a request of `blocks` blocks placed at `block` on
    /// disks of `capacity` blocks.
    fn copies(&self, block: u64, blocks: u32, capacity: u64) -> Copies;

    /// A recorder of `device`, before its first request.
    fn recorder(device: &Self::Device) -> Self::Recorder;

    /// Request `id` of `kind` arrived at `now` with `copies` (before it is
    /// submitted to `device`).
    fn arrived(
        recorder: &mut Self::Recorder,
        device: &Self::Device,
        id: u64,
        now: Nanos,
        kind: Kind,
        copies: &Copies,
    );

    /// `device` changed at `now` (a request submitted, an event processed).
    fn observe(recorder: &mut Self::Recorder, device: &Self::Device, now: Nanos);

    /// Records `outcome`; the id of the request that left, if one did.
    fn left(recorder: &mut Self::Recorder, outcome: &Outcome, now: Nanos) -> Option<u64>;

    /// Stops the recording: its followed requests are those with ids below
    /// `first`.
    fn stop(recorder: &mut Self::Recorder, first: u64);

    /// Whether the recorder saw no request.
    fn is_empty(recorder: &Self::Recorder) -> bool;

    /// Counts `outcome`, which came at `now`.
    fn count(tally: &mut Self::Tally, outcome: &Outcome, now: Nanos);

    /// The device's report of the replay, which ended at `end`.
    fn report(tally: &Self::Tally, device: &mut Self::Device, end: Nanos) -> Self::Report;

    /// The recording of a device of disks of `model`, with its report.
    fn trace(recorder: Self::Recorder, model: &DiskModel, report: Self::Report) -> Self::Trace;

    /// The cylinder a per-request sample names: the request's on a single
    /// disk, none on a pair (whose copies may lie apart).
    fn cylinder(request: &Request) -> Option<Cylinder>;
}

/// One disk per traced device, under a single-disk policy; its reads and
/// writes measured apart by the disk's own statistics.
impl Target for PolicySpec {
    type Device = DiskDevice;
    type Tally = ();
    type Report = DiskReport;
    type Recorder = Recorder;
    type Trace = HeadTrace;
    const CLOSED_LOOP: bool = true;

    fn build(
        &self,
        model: &DiskModel,
        device: u32,
        unit: Unit,
    ) -> Result<(DiskDevice, ()), RunError> {
        let stream = unit.stream(Purpose::Service { disk: device });
        // Reads and writes are measured apart (both named: the trace's mix
        // is not known in advance).
        let disk = DiskDevice::new(model.clone(), self, stream)?
            .with_stats(label_kinds(DiskStats::new(0), 0.5));
        Ok((disk, ()))
    }

    fn copies(&self, block: u64, _blocks: u32, _capacity: u64) -> Copies {
        Copies::everywhere(1, Location { block, cylinder: 0 })
    }

    fn recorder(device: &DiskDevice) -> Recorder {
        let initial = device.model(0).map_or(0, |m| m.head().cylinder);
        Recorder::new(u64::MAX, initial)
    }

    fn arrived(
        recorder: &mut Recorder,
        device: &DiskDevice,
        id: u64,
        now: Nanos,
        _kind: Kind,
        copies: &Copies,
    ) {
        let cylinder = copies
            .location(0)
            .zip(device.model(0))
            .and_then(|(at, model)| model.locate(at.block).ok());
        // A request beyond the disk has no cylinder; the device refuses it
        // and the replay stops, naming it.
        if let Some(cylinder) = cylinder {
            recorder.arrived(id, now, cylinder);
        }
    }

    fn observe(recorder: &mut Recorder, device: &DiskDevice, now: Nanos) {
        recorder.waiting(now, device.queued());
    }

    fn left(recorder: &mut Recorder, outcome: &Outcome, now: Nanos) -> Option<u64> {
        match outcome {
            Outcome::Completed(done) => {
                recorder.completed(done, true);
                Some(done.request.id.0)
            }
            Outcome::Expired(req) | Outcome::Failed(req) => {
                recorder.left(req.id.0, Fate::Dropped(now));
                Some(req.id.0)
            }
            Outcome::MediaError { .. } | Outcome::Resynced { .. } => None,
        }
    }

    fn stop(recorder: &mut Recorder, first: u64) {
        recorder.stop(first);
    }

    fn is_empty(recorder: &Recorder) -> bool {
        recorder.is_empty()
    }

    fn count((): &mut (), _outcome: &Outcome, _now: Nanos) {}

    fn report((): &(), device: &mut DiskDevice, end: Nanos) -> DiskReport {
        device.report(end)
    }

    fn trace(recorder: Recorder, model: &DiskModel, report: DiskReport) -> HeadTrace {
        recorder.into_trace(model.cylinders(), model.head().cylinder, report)
    }

    fn cylinder(request: &Request) -> Option<Cylinder> {
        Some(request.cylinder)
    }
}

/// A mirrored pair per traced device, under an array policy; reads and
/// updates measured apart as a synthetic mirrored run measures them
/// ([`MirrorTally`]).
impl Target for MirrorPolicy {
    type Device = ArrayDevice;
    type Tally = MirrorTally;
    type Report = MirrorReport;
    type Recorder = ArrayRecorder;
    type Trace = ArrayTrace;
    /// A validation trace's replay checks one emulated drive against the
    /// real one it was measured on; a pair has nothing to be checked
    /// against there.
    const CLOSED_LOOP: bool = false;

    fn build(
        &self,
        model: &DiskModel,
        device: u32,
        unit: Unit,
    ) -> Result<(ArrayDevice, MirrorTally), RunError> {
        check_mirror_placement(self.placement)?;
        let service = (0..2)
            .map(|d| unit.stream(Purpose::traced_disk(device, d)))
            .collect();
        let array = ArrayDevice::new(
            vec![model.clone(), model.clone()],
            &self.array,
            service,
            unit.value(Purpose::DeviceRouting { device }),
        )?;
        Ok((array, MirrorTally::new(0)))
    }

    fn copies(&self, block: u64, blocks: u32, capacity: u64) -> Copies {
        self.placement.copies(block, blocks, capacity)
    }

    fn recorder(device: &ArrayDevice) -> ArrayRecorder {
        ArrayRecorder::new(u64::MAX, device)
    }

    fn arrived(
        recorder: &mut ArrayRecorder,
        device: &ArrayDevice,
        id: u64,
        now: Nanos,
        kind: Kind,
        copies: &Copies,
    ) {
        let cylinders = copies
            .holders()
            .iter()
            .filter_map(|disk| {
                let at = copies.location(disk)?;
                Some((disk, device.model(disk)?.locate(at.block).ok()?))
            })
            .collect();
        recorder.arrived(id, now, kind, cylinders);
    }

    fn observe(recorder: &mut ArrayRecorder, device: &ArrayDevice, now: Nanos) {
        recorder.observe(now, device);
    }

    fn left(recorder: &mut ArrayRecorder, outcome: &Outcome, now: Nanos) -> Option<u64> {
        let id = match outcome {
            Outcome::Completed(done) => {
                recorder.measured(now - done.request.arrival);
                done.request.id.0
            }
            Outcome::Expired(req) | Outcome::Failed(req) => req.id.0,
            Outcome::MediaError { done, .. } => done.request.id.0,
            Outcome::Resynced { .. } => return None,
        };
        recorder.left(id, now);
        Some(id)
    }

    fn stop(recorder: &mut ArrayRecorder, first: u64) {
        recorder.stop(first);
    }

    fn is_empty(recorder: &ArrayRecorder) -> bool {
        recorder.is_empty()
    }

    fn count(tally: &mut MirrorTally, outcome: &Outcome, now: Nanos) {
        match outcome {
            Outcome::Completed(done) => tally.complete(done, now),
            Outcome::Expired(_) => tally.drop_expired(),
            _ => {}
        }
    }

    fn report(tally: &MirrorTally, device: &mut ArrayDevice, end: Nanos) -> MirrorReport {
        tally.report(device, end)
    }

    fn trace(recorder: ArrayRecorder, _model: &DiskModel, report: MirrorReport) -> ArrayTrace {
        recorder.into_trace(report)
    }

    fn cylinder(_request: &Request) -> Option<Cylinder> {
        None
    }
}
