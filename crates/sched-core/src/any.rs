//! Choosing a policy at run time, without allocation.

use crate::error::{BuildError, CancelError, EnqueueError};
use crate::policy::{
    AgedSptf, CLook, CScan, Edf, Fcfs, FdScan, Look, Scan, ScanEdf, Sptf, Ssedo, Ssedv, Sstf, VScan,
};
use crate::request::{Dispatch, Head, Nanos, Request, RequestId};
use crate::scheduler::{Scheduler, ServiceEstimator};
use crate::spec::PolicySpec;
use crate::storage::{Inline, Storage};

impl PolicySpec {
    /// Builds the policy for a disk of `cylinders` cylinders on `storage`.
    ///
    /// # Errors
    /// The policy constructor's [`BuildError`] for invalid parameters.
    pub fn build<S: Storage>(
        &self,
        storage: S,
        cylinders: u32,
    ) -> Result<AnyScheduler<S>, BuildError> {
        Ok(match *self {
            PolicySpec::Fcfs => AnyScheduler::Fcfs(Fcfs::new(storage)),
            PolicySpec::Sstf => AnyScheduler::Sstf(Sstf::new(storage, cylinders)?),
            PolicySpec::Scan => AnyScheduler::Scan(Scan::new(storage, cylinders)?),
            PolicySpec::Look => AnyScheduler::Look(Look::new(storage, cylinders)?),
            PolicySpec::CScan => AnyScheduler::CScan(CScan::new(storage, cylinders)?),
            PolicySpec::CLook => AnyScheduler::CLook(CLook::new(storage, cylinders)?),
            PolicySpec::VScan { r } => AnyScheduler::VScan(VScan::new(storage, cylinders, r)?),
            PolicySpec::Edf => AnyScheduler::Edf(Edf::new(storage)),
            PolicySpec::Ssedo { m, beta } => AnyScheduler::Ssedo(Ssedo::new(storage, m, beta)?),
            PolicySpec::Ssedv { alpha, unit } => {
                AnyScheduler::Ssedv(Ssedv::new(storage, cylinders, alpha, unit)?)
            }
            PolicySpec::ScanEdf { granularity } => {
                AnyScheduler::ScanEdf(ScanEdf::new(storage, cylinders, granularity)?)
            }
            PolicySpec::FdScan { expired } => {
                AnyScheduler::FdScan(FdScan::new(storage, cylinders, expired)?)
            }
            PolicySpec::Sptf { window } => {
                AnyScheduler::Sptf(Sptf::new(storage, cylinders, window)?)
            }
            PolicySpec::AgedSptf { weight, window } => {
                AnyScheduler::AgedSptf(AgedSptf::new(storage, cylinders, weight, window)?)
            }
        })
    }

    /// Checks the parameters without keeping a queue.
    ///
    /// # Errors
    /// The constructor's [`BuildError`], as [`PolicySpec::build`] would return it.
    pub fn validate(&self) -> Result<(), BuildError> {
        self.build(Inline::<1>::new(), 1).map(|_| ())
    }
}

/// Any single-disk policy, chosen at run time. Dispatch is a `match`, not a
/// virtual call, and nothing is boxed: array policies use it as the queue
/// discipline of each disk.
#[allow(clippy::large_enum_variant)] // every variant is a fixed-size queue; none is small
pub enum AnyScheduler<S: Storage> {
    /// [`Fcfs`].
    Fcfs(Fcfs<S>),
    /// [`Sstf`].
    Sstf(Sstf<S>),
    /// [`Scan`].
    Scan(Scan<S>),
    /// [`Look`].
    Look(Look<S>),
    /// [`CScan`].
    CScan(CScan<S>),
    /// [`CLook`].
    CLook(CLook<S>),
    /// [`VScan`].
    VScan(VScan<S>),
    /// [`Edf`].
    Edf(Edf<S>),
    /// [`Ssedo`].
    Ssedo(Ssedo<S>),
    /// [`Ssedv`].
    Ssedv(Ssedv<S>),
    /// [`ScanEdf`].
    ScanEdf(ScanEdf<S>),
    /// [`FdScan`].
    FdScan(FdScan<S>),
    /// [`Sptf`].
    Sptf(Sptf<S>),
    /// [`AgedSptf`].
    AgedSptf(AgedSptf<S>),
}

macro_rules! each {
    ($self:expr, $q:ident => $body:expr) => {
        match $self {
            AnyScheduler::Fcfs($q) => $body,
            AnyScheduler::Sstf($q) => $body,
            AnyScheduler::Scan($q) => $body,
            AnyScheduler::Look($q) => $body,
            AnyScheduler::CScan($q) => $body,
            AnyScheduler::CLook($q) => $body,
            AnyScheduler::VScan($q) => $body,
            AnyScheduler::Edf($q) => $body,
            AnyScheduler::Ssedo($q) => $body,
            AnyScheduler::Ssedv($q) => $body,
            AnyScheduler::ScanEdf($q) => $body,
            AnyScheduler::FdScan($q) => $body,
            AnyScheduler::Sptf($q) => $body,
            AnyScheduler::AgedSptf($q) => $body,
        }
    };
}

impl<S: Storage> Scheduler for AnyScheduler<S> {
    #[inline]
    fn enqueue(&mut self, req: Request, now: Nanos) -> Result<(), EnqueueError> {
        each!(self, q => q.enqueue(req, now))
    }
    #[inline]
    fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
        each!(self, q => q.next(head, now, est))
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        each!(self, q => q.cancel(id))
    }
    #[inline]
    fn len(&self) -> usize {
        each!(self, q => q.len())
    }
    fn capacity(&self) -> usize {
        each!(self, q => q.capacity())
    }
    fn contains(&self, id: RequestId) -> bool {
        each!(self, q => q.contains(id))
    }
    fn pop_any(&mut self) -> Option<Request> {
        each!(self, q => q.pop_any())
    }
    fn take_expired(&mut self, now: Nanos) -> Option<Request> {
        each!(self, q => q.take_expired(now))
    }
    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        each!(self, q => q.next_eligible_at(now))
    }
}
