//! The I/O subsystem as the transaction system sees it: a disk-emu device
//! (one [`DiskDevice`] or a mirrored [`ArrayDevice`]) driven from outside,
//! and a ledger of every request issued, so that each one is seen to
//! complete or be cancelled exactly once.

use std::collections::HashMap;

use disk_emu::disk::{DiskError, DiskModel};
use disk_emu::{ArrayDevice, DeviceError, DiskDevice, Outcome, Purpose, Stream};
use sched_core::array::{Copies, Location};
use sched_core::{CancelError, Kind, Nanos, Request, RequestId};

use crate::params::{IoSpec, TxnParams};

/// Who issued an I/O request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoTag {
    /// The user slot.
    pub txn: usize,
    /// The transaction's sequence number (a slot runs many in turn).
    pub seq: u64,
}

/// The device under either policy family.
enum Device {
    Single(Box<DiskDevice>),
    Mirror(Box<ArrayDevice>),
}

/// Counts of the ledger.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
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

/// A device plus the ledger of outstanding requests.
pub struct IoSystem {
    device: Device,
    outstanding: HashMap<u64, IoTag>,
    counts: IoCounts,
    next_id: u64,
}

impl IoSystem {
    /// The subsystem of `params` for replication `replication`.
    ///
    /// # Errors
    /// A disk or policy the devices cannot be built from.
    pub fn new(params: &TxnParams, replication: u64) -> Result<Self, IoError> {
        let model = || DiskModel::from_spec(&params.disk);
        let stream = |d: u32| Stream::new(params.seed, replication, Purpose::Other(100 + d));
        let device = match &params.io {
            IoSpec::Single(policy) => {
                Device::Single(Box::new(DiskDevice::new(model()?, policy, stream(0))?))
            }
            IoSpec::Mirror(policy) => {
                let routing_seed = params.seed ^ replication.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                Device::Mirror(Box::new(ArrayDevice::new(
                    vec![model()?, model()?],
                    policy,
                    vec![stream(0), stream(1)],
                    routing_seed,
                )?))
            }
        };
        Ok(IoSystem {
            device,
            outstanding: HashMap::new(),
            counts: IoCounts::default(),
            next_id: 1,
        })
    }

    /// Submits a one-page request for `tag` at `now`; returns its id.
    ///
    /// # Errors
    /// The device's refusal.
    pub fn submit(
        &mut self,
        tag: IoTag,
        kind: Kind,
        page: u64,
        deadline: Option<Nanos>,
        now: Nanos,
    ) -> Result<u64, IoError> {
        let id = self.next_id;
        let mut req = Request::new(RequestId(id), kind, page, 1, 0, now);
        req.deadline = deadline;
        req.class = u16::try_from(tag.txn).unwrap_or(u16::MAX);
        self.send(req, now)?;
        self.next_id += 1;
        self.outstanding.insert(id, tag);
        self.counts.issued += 1;
        Ok(id)
    }

    fn send(&mut self, req: Request, now: Nanos) -> Result<(), IoError> {
        match &mut self.device {
            Device::Single(d) => d.submit(req, now)?,
            Device::Mirror(a) => {
                let copies = Copies::everywhere(
                    2,
                    Location {
                        block: req.block,
                        cylinder: 0,
                    },
                );
                a.submit(req, &copies, now)?;
            }
        }
        Ok(())
    }

    /// Withdraws request `id` if it is still queued; one in service runs to
    /// its end and is reported as orphaned. Returns whether it was withdrawn.
    ///
    /// # Errors
    /// A device error other than "in service".
    pub fn cancel(&mut self, id: u64) -> Result<bool, IoError> {
        let result = match &mut self.device {
            Device::Single(d) => d.cancel(RequestId(id)),
            Device::Mirror(a) => a.cancel(RequestId(id)),
        };
        match result {
            Ok(_) => {
                self.outstanding.remove(&id);
                self.counts.cancelled += 1;
                Ok(true)
            }
            Err(DeviceError::Cancel(CancelError::InService(_))) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// When the device next acts on its own.
    pub fn next_event_time(&self) -> Option<Nanos> {
        match &self.device {
            Device::Single(d) => d.next_event_time(),
            Device::Mirror(a) => a.next_event_time(),
        }
    }

    /// Advances the device to `to`.
    ///
    /// # Errors
    /// The device's.
    pub fn advance(&mut self, to: Nanos) -> Result<(), IoError> {
        match &mut self.device {
            Device::Single(d) => d.advance(to)?,
            Device::Mirror(a) => a.advance(to)?,
        }
        Ok(())
    }

    /// The next finished request: its id and issuer, or `None` when no
    /// outcome is pending. A request a deadline-dropping policy expired is
    /// resubmitted at `now` without a deadline (a page must still be read or
    /// written; the transaction's own deadline decides its fate).
    ///
    /// # Errors
    /// An outcome for a request not outstanding, a failed request, or a
    /// refused resubmission.
    pub fn poll(&mut self, now: Nanos) -> Result<Option<(u64, IoTag)>, IoError> {
        loop {
            let outcome = match &mut self.device {
                Device::Single(d) => d.poll(),
                Device::Mirror(a) => a.poll(),
            };
            match outcome {
                None => return Ok(None),
                Some(Outcome::Completed(done)) => {
                    let id = done.request.id;
                    let tag = self.outstanding.remove(&id.0).ok_or(IoError::Unknown(id))?;
                    self.counts.completed += 1;
                    return Ok(Some((id.0, tag)));
                }
                Some(Outcome::Expired(mut req)) => {
                    if !self.outstanding.contains_key(&req.id.0) {
                        return Err(IoError::Unknown(req.id));
                    }
                    req.deadline = None;
                    req.arrival = now;
                    self.send(req, now)?;
                    self.counts.resubmitted += 1;
                }
                Some(Outcome::Failed(req)) => return Err(IoError::Failed(req.id)),
                Some(Outcome::Resynced { .. }) => {}
            }
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

    /// Restarts the device's statistics (the end of the warm-up).
    pub fn reset_stats(&mut self) {
        match &mut self.device {
            Device::Single(d) => d.reset_stats(),
            Device::Mirror(a) => a.reset_stats(),
        }
    }

    /// Queue lengths and disk service over the window ending at `end`.
    pub fn report(&mut self, end: Nanos) -> IoReport {
        match &mut self.device {
            Device::Single(d) => {
                let r = d.report(end);
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
            Device::Mirror(a) => {
                let r = a.report(end);
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
    }
}

/// What the I/O subsystem measured over a window.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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
