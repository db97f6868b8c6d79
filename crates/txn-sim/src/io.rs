//! The I/O subsystem as the transaction system sees it: a disk-emu device
//! in the event loop (one [`DiskDevice`] or a mirrored [`ArrayDevice`]), and
//! a ledger of every request issued, so that each one is seen to complete or
//! be cancelled exactly once.

use std::collections::HashMap;

use disk_emu::disk::{DiskError, DiskModel};
use disk_emu::{ArrayDevice, ArrayReport, Device, DeviceError, DiskDevice, DiskReport, Outcome};
use experiments::Placement;
use experiments::seeds::{Purpose, Unit};
use experiments::simulation::Simulation;
use sched_core::array::ArraySpec;
use sched_core::{Block, Blocks, CancelError, Cyl, Kind, Nanos, PolicySpec, Request, RequestId};

use crate::params::TxnParams;

/// Who issued an I/O request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoTag {
    /// The user slot.
    pub txn: usize,
    /// The transaction's sequence number (a slot runs many in turn).
    pub seq: u64,
}

/// Counts of the ledger.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IoCounts {
    /// Requests submitted.
    pub issued: u64,
    /// Requests that completed.
    pub completed: u64,
    /// Queued requests withdrawn (their transaction was lost).
    pub cancelled: u64,
    /// Completions whose transaction was gone (in service when it was lost).
    pub orphaned: u64,
    /// Requests a deadline-dropping policy expired and that were resubmitted.
    pub resubmitted: u64,
}

/// Why the I/O subsystem failed: a device error, or a broken ledger (a bug).
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The device refused an input.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The disk specification is invalid.
    #[error("disk: {0}")]
    Disk(#[from] DiskError),
    /// An outcome for a request not outstanding (twice, or never issued).
    #[error("the device reported request {0} that is not outstanding")]
    Unknown(RequestId),
    /// The device reported a failed disk; the system has no failures.
    #[error("request {0} failed: no disk can serve it")]
    Failed(RequestId),
}

/// The single disk of `params` under `policy`, for replication `replication`.
///
/// # Errors
/// A disk or policy the device cannot be built from.
pub fn single_disk(
    params: &TxnParams,
    policy: &PolicySpec,
    replication: u64,
) -> Result<DiskDevice, IoError> {
    let model = DiskModel::from_spec(&params.disk)?;
    let service = Unit::new(params.seed, 0, replication).stream(Purpose::Service { disk: 0 });
    Ok(DiskDevice::new(model, policy, service)?)
}

/// The mirrored pair of `params` under `policy`, for replication `replication`.
///
/// # Errors
/// A disk or policy the device cannot be built from.
pub fn mirror(
    params: &TxnParams,
    policy: &ArraySpec,
    replication: u64,
) -> Result<ArrayDevice, IoError> {
    let model = DiskModel::from_spec(&params.disk)?;
    let unit = Unit::new(params.seed, 0, replication);
    let service = (0..2)
        .map(|disk| unit.stream(Purpose::Service { disk }))
        .collect();
    let routing_seed = unit.value(Purpose::Routing);
    Ok(ArrayDevice::new(
        vec![model.clone(), model],
        policy,
        service,
        routing_seed,
    )?)
}

/// The ledger of the requests issued to the device, and where their copies
/// are (every disk of the device holds every page, at the page's block).
pub struct IoLedger {
    placement: Placement,
    /// Blocks each disk holds.
    capacity: u64,
    outstanding: HashMap<u64, IoTag>,
    counts: IoCounts,
    next_id: u64,
}

impl IoLedger {
    /// An empty ledger for a device of `disks` disks of `capacity` blocks,
    /// each holding every page.
    pub fn new(disks: usize, capacity: u64) -> Self {
        IoLedger {
            placement: Placement::Identical { copies: disks },
            capacity,
            outstanding: HashMap::new(),
            counts: IoCounts::default(),
            next_id: 1,
        }
    }

    fn send<D: Device, E>(
        &self,
        sim: &mut Simulation<D, E>,
        req: Request,
        now: Nanos,
    ) -> Result<(), IoError> {
        let copies = self.placement.copies(req.block, req.blocks, self.capacity);
        sim.with_device(0, |d| d.submit(req, &copies, now))?;
        Ok(())
    }

    /// Submits a one-page request for `tag` at `now`; returns its id.
    ///
    /// # Errors
    /// The device's refusal.
    pub fn submit<D: Device, E>(
        &mut self,
        sim: &mut Simulation<D, E>,
        tag: IoTag,
        kind: Kind,
        page: u64,
        deadline: Option<Nanos>,
        now: Nanos,
    ) -> Result<u64, IoError> {
        let id = self.next_id;
        let mut req = Request::new(RequestId(id), kind, Block(page), Blocks(1), Cyl(0), now);
        req.deadline = deadline;
        self.send(sim, req, now)?;
        self.next_id += 1;
        self.outstanding.insert(id, tag);
        self.counts.issued += 1;
        Ok(id)
    }

    /// Withdraws request `id` if it is still queued; one in service runs to
    /// its end and is reported as orphaned. Returns whether it was withdrawn.
    ///
    /// # Errors
    /// A device error other than "in service".
    pub fn cancel<D: Device, E>(
        &mut self,
        sim: &mut Simulation<D, E>,
        id: u64,
    ) -> Result<bool, IoError> {
        match sim.with_device(0, |d| d.cancel(RequestId(id))) {
            Ok(_) => {
                self.outstanding.remove(&id);
                self.counts.cancelled += 1;
                Ok(true)
            }
            Err(DeviceError::Cancel(CancelError::InService(_))) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Takes in an outcome of the device at `now`: a completion's id and
    /// issuer, or `None`. A request a deadline-dropping policy expired is
    /// resubmitted at `now` without a deadline (a page must still be read or
    /// written; the transaction's own deadline decides its fate).
    ///
    /// # Errors
    /// An outcome for a request not outstanding, a failed request, or a
    /// refused resubmission.
    pub fn outcome<D: Device, E>(
        &mut self,
        sim: &mut Simulation<D, E>,
        outcome: Outcome,
        now: Nanos,
    ) -> Result<Option<(u64, IoTag)>, IoError> {
        match outcome {
            Outcome::Completed(done) => {
                let id = done.request.id;
                let tag = self.outstanding.remove(&id.0).ok_or(IoError::Unknown(id))?;
                self.counts.completed += 1;
                Ok(Some((id.0, tag)))
            }
            Outcome::Expired(mut req) => {
                if !self.outstanding.contains_key(&req.id.0) {
                    return Err(IoError::Unknown(req.id));
                }
                req.deadline = None;
                req.arrival = now;
                self.send(sim, req, now)?;
                self.counts.resubmitted += 1;
                Ok(None)
            }
            Outcome::Failed(req) => Err(IoError::Failed(req.id)),
            Outcome::MediaError { done, .. } => Err(IoError::Failed(done.request.id)),
            Outcome::Resynced { .. } => Ok(None),
        }
    }

    /// Notes that a completion found its transaction gone.
    pub fn orphaned(&mut self) {
        self.counts.orphaned += 1;
    }

    /// Requests issued and not yet completed or cancelled.
    pub fn outstanding(&self) -> usize {
        self.outstanding.len()
    }

    /// The ledger's counts.
    pub fn counts(&self) -> IoCounts {
        self.counts
    }
}

/// What the I/O subsystem measured over a window.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IoReport {
    /// Time-average number of requests waiting (not in service) in every
    /// queue together; a read queued at both disks (MR) counts twice.
    pub queue: f64,
    /// The common queue (CMQ family).
    pub common: f64,
    /// Each disk's own queue (the single disk's queue; DMQ's per-disk queues).
    pub disk: Vec<f64>,
    /// Each disk's auxiliary queue (CMQ family).
    pub aux: Vec<f64>,
    /// Fraction of time some auxiliary queue held more than one write.
    pub aux_over_one: f64,
    /// Mean service time of a disk operation, ms.
    pub service_ms: f64,
    /// Each disk's busy fraction.
    pub utilisation: Vec<f64>,
}

impl From<DiskReport> for IoReport {
    fn from(r: DiskReport) -> Self {
        IoReport {
            queue: r.queue.time_mean,
            common: 0.0,
            disk: vec![r.queue.time_mean],
            aux: vec![0.0],
            aux_over_one: 0.0,
            service_ms: r.service.mean / 1e6,
            utilisation: vec![r.utilisation],
        }
    }
}

impl From<ArrayReport> for IoReport {
    fn from(r: ArrayReport) -> Self {
        let q = &r.queues;
        let (ops, weighted) = r.disks.iter().fold((0u64, 0.0), |(n, s), d| {
            (
                n + d.service.count,
                s + d.service.mean * d.service.count as f64,
            )
        });
        IoReport {
            queue: q.common + q.disk.iter().sum::<f64>() + q.aux.iter().sum::<f64>(),
            common: q.common,
            disk: q.disk.clone(),
            aux: q.aux.clone(),
            aux_over_one: q.aux_over_one,
            service_ms: if ops > 0 {
                weighted / ops as f64 / 1e6
            } else {
                f64::NAN
            },
            utilisation: r.disks.iter().map(|d| d.utilisation).collect(),
        }
    }
}
