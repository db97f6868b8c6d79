//! The statistics recorder of an array of disks: how each disk spent its
//! time, and the lengths of the array's queues.

use sched_core::Nanos;
use sched_core::array::ArrayPolicy;
use serde::{Deserialize, Serialize};

use super::class_stats::ClassReport;
use super::moments::{Moments, MomentsReport};
use super::time_weighted::TimeWeighted;
use crate::disk::ServiceBreakdown;

/// How one disk spends the window: busy time, operations completed and
/// aborted, and the service-time breakdown of the completed ones. A handful
/// of moments, no histograms: an array's statistics of interest are per
/// class of logical request.
#[derive(Clone, Copy, Debug)]
struct DiskUsage {
    busy_since: Option<Nanos>,
    busy: Nanos,
    aborted: u64,
    service: Moments,
    seek: Moments,
    seek_distance: Moments,
    rotation: Moments,
    transfer: Moments,
}

impl DiskUsage {
    fn new() -> Self {
        DiskUsage {
            busy_since: None,
            busy: 0,
            aborted: 0,
            service: Moments::new(),
            seek: Moments::new(),
            seek_distance: Moments::new(),
            rotation: Moments::new(),
            transfer: Moments::new(),
        }
    }

    fn stop(&mut self, now: Nanos) {
        if let Some(t) = self.busy_since.take() {
            self.busy += now - t;
        }
    }

    fn report(&self, window_start: Nanos, now: Nanos) -> DiskUsageReport {
        let busy = self.busy + self.busy_since.map_or(0, |t| now - t);
        let window = now - window_start;
        DiskUsageReport {
            utilisation: if window > 0 {
                busy as f64 / window as f64
            } else {
                f64::NAN
            },
            completions: self.service.count(),
            aborted: self.aborted,
            service: self.service.report(),
            seek: self.seek.report(),
            seek_distance: self.seek_distance.report(),
            rotation: self.rotation.report(),
            transfer: self.transfer.report(),
        }
    }
}

/// How one disk of an array spent the window.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DiskUsageReport {
    /// Busy time / window.
    pub utilisation: f64,
    /// Operations completed (resync writes included).
    pub completions: u64,
    /// Operations aborted in service (the losing copy of a read, the
    /// operation of a disk that failed).
    pub aborted: u64,
    /// Service time of completed operations, ns.
    pub service: MomentsReport,
    /// Seek part, ns.
    pub seek: MomentsReport,
    /// Cylinders the arm travelled, per completed operation.
    pub seek_distance: MomentsReport,
    /// Rotational part, ns.
    pub rotation: MomentsReport,
    /// Transfer part, ns.
    pub transfer: MomentsReport,
}

/// Time-averaged queue lengths of an array of D disks.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ArrayQueueReport {
    /// Logical requests in the array (queued or in service).
    pub in_system: f64,
    /// The common queue (single-queue family, CMQ).
    pub common: f64,
    /// Each disk's own queue (DMQ).
    pub disk: Vec<f64>,
    /// Each disk's auxiliary queue (CMQ).
    pub aux: Vec<f64>,
    /// Fraction of time some auxiliary queue held more than one write.
    pub aux_over_one: f64,
}

/// What an array measured over its window.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ArrayReport {
    /// Each disk's usage.
    pub disks: Vec<DiskUsageReport>,
    /// Queue lengths.
    pub queues: ArrayQueueReport,
    /// Length of the window, ns.
    pub window_ns: Nanos,
    /// Response, waiting and deadline figures of logical requests per class.
    pub classes: Vec<ClassReport>,
}

/// Records, for an array of D disks, each disk's usage and every queue's
/// time-averaged length. The device tells it about operations
/// ([`start`](Self::start), [`complete`](Self::complete),
/// [`abort`](Self::abort)) and samples the policy's queues after every
/// change ([`queues`](Self::queues)).
#[derive(Clone, Debug)]
pub struct ArrayStats {
    disks: Vec<DiskUsage>,
    in_system: TimeWeighted,
    common: TimeWeighted,
    disk_queues: Vec<TimeWeighted>,
    aux: Vec<TimeWeighted>,
    aux_over_one: TimeWeighted,
    window_start: Nanos,
}

impl ArrayStats {
    /// An idle array of `disks` disks observed from `start`.
    pub fn new(disks: usize, start: Nanos) -> Self {
        ArrayStats {
            disks: vec![DiskUsage::new(); disks],
            in_system: TimeWeighted::new(start, 0),
            common: TimeWeighted::new(start, 0),
            disk_queues: vec![TimeWeighted::new(start, 0); disks],
            aux: vec![TimeWeighted::new(start, 0); disks],
            aux_over_one: TimeWeighted::new(start, 0),
            window_start: start,
        }
    }

    /// Disk `disk` starts an operation at `now`.
    pub fn start(&mut self, disk: usize, now: Nanos) {
        self.disks[disk].busy_since = Some(now);
    }

    /// Disk `disk` completes, at `now`, the operation it started at `start`.
    pub fn complete(&mut self, disk: usize, now: Nanos, start: Nanos, b: &ServiceBreakdown) {
        let d = &mut self.disks[disk];
        d.stop(now);
        d.service.add((now - start) as f64);
        d.seek.add(b.seek as f64);
        d.seek_distance.add(f64::from(b.seek_distance));
        d.rotation.add(b.rotation as f64);
        d.transfer.add(b.transfer as f64);
    }

    /// Disk `disk`'s operation is aborted at `now`.
    pub fn abort(&mut self, disk: usize, now: Nanos) {
        let d = &mut self.disks[disk];
        d.stop(now);
        d.aborted += 1;
    }

    /// Samples the queue lengths of `policy` at `now`.
    pub fn queues(&mut self, now: Nanos, policy: &(impl ArrayPolicy + ?Sized)) {
        self.in_system.set(now, policy.in_system() as u64);
        self.common.set(now, policy.common_len() as u64);
        let mut over_one = false;
        for d in 0..self.disks.len() {
            self.disk_queues[d].set(now, policy.disk_queue_len(d) as u64);
            let aux = policy.aux_len(d);
            over_one |= aux > 1;
            self.aux[d].set(now, aux as u64);
        }
        self.aux_over_one.set(now, u64::from(over_one));
    }

    /// Starts the window at `now`, keeping the state of disks and queues; a
    /// service under way counts from `now`.
    pub fn reset(&mut self, now: Nanos) {
        for d in &mut self.disks {
            let busy_since = d.busy_since.map(|_| now);
            *d = DiskUsage::new();
            d.busy_since = busy_since;
        }
        for q in [
            &mut self.in_system,
            &mut self.common,
            &mut self.aux_over_one,
        ]
        .into_iter()
        .chain(&mut self.disk_queues)
        .chain(&mut self.aux)
        {
            q.reset(now);
        }
        self.window_start = now;
    }

    /// The window from the last reset to `now` (its `classes` left empty:
    /// the device keeps those apart).
    pub fn report(&self, now: Nanos) -> ArrayReport {
        ArrayReport {
            disks: self
                .disks
                .iter()
                .map(|d| d.report(self.window_start, now))
                .collect(),
            queues: ArrayQueueReport {
                in_system: self.in_system.mean(now),
                common: self.common.mean(now),
                disk: self.disk_queues.iter().map(|q| q.mean(now)).collect(),
                aux: self.aux.iter().map(|q| q.mean(now)).collect(),
                aux_over_one: self.aux_over_one.mean(now),
            },
            window_ns: now - self.window_start,
            classes: Vec::new(),
        }
    }
}
