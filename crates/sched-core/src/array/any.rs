//! Choosing an array policy and its queue disciplines at run time (feature `alloc`).

use alloc::vec::Vec;

use super::{
    Ack, ArrayPolicy, ArrayView, BothCopies, BothCopiesAbort, CPssq, Cmq, Completion, Copies,
    CrEsq, CruEsq, DiskState, Dmq, LeastBacklog, Md, MrEsq, RandomRead, SPssq, ShortestQueue,
    Start, check_disks,
};
use crate::any::AnyScheduler;
use crate::error::{BuildError, CancelError, CompleteError, EnqueueError, PollError};
use crate::request::{Nanos, Request, RequestId};
use crate::spec::{ArraySpec, PolicySpec, Routing};
use crate::storage::Storage;

impl ArraySpec {
    /// Builds the policy for `disks` disks of `cylinders` cylinders; the
    /// register and every queue get storage of `storage`'s capacity; `seed`
    /// drives random routing.
    ///
    /// # Errors
    /// A constructor's [`BuildError`].
    pub fn build<S: Storage + Clone>(
        &self,
        storage: S,
        disks: usize,
        cylinders: u32,
        seed: u64,
    ) -> Result<AnyArray<S>, BuildError> {
        check_disks(disks)?;
        self.validate()?;
        let queues = |spec: &PolicySpec, storage: &S| -> Result<Vec<AnyScheduler<S>>, BuildError> {
            (0..disks)
                .map(|_| spec.build(storage.clone(), cylinders))
                .collect()
        };
        Ok(match *self {
            ArraySpec::SPssq => AnyArray::SPssq(SPssq::new(storage, disks)?),
            ArraySpec::CPssq => AnyArray::CPssq(CPssq::new(storage, disks)?),
            ArraySpec::CrEsq => AnyArray::CrEsq(CrEsq::new(storage, disks)?),
            ArraySpec::CruEsq => AnyArray::CruEsq(CruEsq::new(storage, disks)?),
            ArraySpec::MrEsq => AnyArray::MrEsq(MrEsq::new(storage, disks)?),
            ArraySpec::Dmq {
                routing,
                queue,
                modified,
            } => {
                let qs = queues(&queue, &storage)?;
                let dmq = match routing {
                    Routing::Random { alpha } => AnyDmq::Random(Dmq::new(
                        storage,
                        qs,
                        RandomRead::with_alpha(disks, alpha, seed)?,
                    )?),
                    Routing::ShortestQueue => {
                        AnyDmq::Shortest(Dmq::new(storage, qs, ShortestQueue)?)
                    }
                    Routing::Both => AnyDmq::Both(Dmq::new(storage, qs, BothCopies)?),
                    Routing::BothAbort(when) => {
                        AnyDmq::BothAbort(Dmq::new(storage, qs, BothCopiesAbort::new(when)?)?)
                    }
                    Routing::Md => AnyDmq::Md(Dmq::new(storage, qs, Md)?),
                    Routing::LeastBacklog => {
                        AnyDmq::LeastBacklog(Dmq::new(storage, qs, LeastBacklog)?)
                    }
                };
                AnyArray::Dmq(if modified { dmq.prefer_idle() } else { dmq })
            }
            ArraySpec::Cmq { common, aux } => {
                let common = common.build(storage.clone(), cylinders)?;
                let aux = queues(&aux, &storage)?;
                AnyArray::Cmq(Cmq::new(storage, common, aux)?)
            }
        })
    }
}

/// DMQ over run-time disciplines, one variant per read routing.
// The variants differ by their routing's state (R-DMQ's 64 thresholds);
// boxing it would put an indirection on every decision.
#[allow(clippy::large_enum_variant)]
pub enum AnyDmq<S: Storage> {
    /// R-DMQ.
    Random(Dmq<Vec<AnyScheduler<S>>, RandomRead, S>),
    /// SQ-DMQ.
    Shortest(Dmq<Vec<AnyScheduler<S>>, ShortestQueue, S>),
    /// MR-DMQ.
    Both(Dmq<Vec<AnyScheduler<S>>, BothCopies, S>),
    /// MR-DMQA.
    BothAbort(Dmq<Vec<AnyScheduler<S>>, BothCopiesAbort, S>),
    /// Linux md RAID-1 balancing.
    Md(Dmq<Vec<AnyScheduler<S>>, Md, S>),
    /// Ivy's least expected turnaround.
    LeastBacklog(Dmq<Vec<AnyScheduler<S>>, LeastBacklog, S>),
}

macro_rules! each_dmq {
    ($self:expr, $d:ident => $body:expr) => {
        match $self {
            AnyDmq::Random($d) => $body,
            AnyDmq::Shortest($d) => $body,
            AnyDmq::Both($d) => $body,
            AnyDmq::BothAbort($d) => $body,
            AnyDmq::Md($d) => $body,
            AnyDmq::LeastBacklog($d) => $body,
        }
    };
}

impl<S: Storage> AnyDmq<S> {
    fn prefer_idle(self) -> Self {
        match self {
            AnyDmq::Random(d) => AnyDmq::Random(d.prefer_idle()),
            AnyDmq::Shortest(d) => AnyDmq::Shortest(d.prefer_idle()),
            AnyDmq::Both(d) => AnyDmq::Both(d.prefer_idle()),
            AnyDmq::BothAbort(d) => AnyDmq::BothAbort(d.prefer_idle()),
            AnyDmq::Md(d) => AnyDmq::Md(d.prefer_idle()),
            AnyDmq::LeastBacklog(d) => AnyDmq::LeastBacklog(d.prefer_idle()),
        }
    }
}

/// Any array policy, chosen at run time; its queues live in a `Vec`.
// A DMQ carries per-disk queues and routing state the single-queue family
// does not; boxing it would put an indirection on every decision.
#[allow(clippy::large_enum_variant)]
pub enum AnyArray<S: Storage> {
    /// [`SPssq`].
    SPssq(SPssq<S>),
    /// [`CPssq`].
    CPssq(CPssq<S>),
    /// [`CrEsq`].
    CrEsq(CrEsq<S>),
    /// [`CruEsq`].
    CruEsq(CruEsq<S>),
    /// [`MrEsq`].
    MrEsq(MrEsq<S>),
    /// Any [`Dmq`].
    Dmq(AnyDmq<S>),
    /// [`Cmq`].
    Cmq(Cmq<AnyScheduler<S>, Vec<AnyScheduler<S>>, S>),
}

macro_rules! each_array {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            AnyArray::SPssq($p) => $body,
            AnyArray::CPssq($p) => $body,
            AnyArray::CrEsq($p) => $body,
            AnyArray::CruEsq($p) => $body,
            AnyArray::MrEsq($p) => $body,
            AnyArray::Dmq(dmq) => each_dmq!(dmq, $p => $body),
            AnyArray::Cmq($p) => $body,
        }
    };
}

impl<S: Storage> AnyArray<S> {
    /// When writes count as done (default [`Ack::All`]).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a quorum of 0.
    pub fn with_ack(self, ack: Ack) -> Result<Self, BuildError> {
        Ok(match self {
            AnyArray::SPssq(p) => AnyArray::SPssq(p.with_ack(ack)?),
            AnyArray::CPssq(p) => AnyArray::CPssq(p.with_ack(ack)?),
            AnyArray::CrEsq(p) => AnyArray::CrEsq(p.with_ack(ack)?),
            AnyArray::CruEsq(p) => AnyArray::CruEsq(p.with_ack(ack)?),
            AnyArray::MrEsq(p) => AnyArray::MrEsq(p.with_ack(ack)?),
            AnyArray::Dmq(d) => AnyArray::Dmq(match d {
                AnyDmq::Random(p) => AnyDmq::Random(p.with_ack(ack)?),
                AnyDmq::Shortest(p) => AnyDmq::Shortest(p.with_ack(ack)?),
                AnyDmq::Both(p) => AnyDmq::Both(p.with_ack(ack)?),
                AnyDmq::BothAbort(p) => AnyDmq::BothAbort(p.with_ack(ack)?),
                AnyDmq::Md(p) => AnyDmq::Md(p.with_ack(ack)?),
                AnyDmq::LeastBacklog(p) => AnyDmq::LeastBacklog(p.with_ack(ack)?),
            }),
            AnyArray::Cmq(p) => AnyArray::Cmq(p.with_ack(ack)?),
        })
    }
}

impl<S: Storage> ArrayPolicy for AnyArray<S> {
    fn submit(
        &mut self,
        req: Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        each_array!(self, p => p.submit(req, copies, view))
    }
    fn complete(&mut self, disk: usize, now: Nanos) -> Result<Completion, CompleteError> {
        each_array!(self, p => p.complete(disk, now))
    }
    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        each_array!(self, p => p.cancel(id))
    }
    fn set_disk_state(
        &mut self,
        disk: usize,
        state: DiskState,
        view: &ArrayView<'_>,
    ) -> Result<(), CompleteError> {
        each_array!(self, p => p.set_disk_state(disk, state, view))
    }
    fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError> {
        each_array!(self, p => p.poll_start(view))
    }
    fn poll_event(&mut self) -> Option<Completion> {
        each_array!(self, p => p.poll_event())
    }
    fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
        each_array!(self, p => p.next_eligible_at(now))
    }
    fn disks(&self) -> usize {
        each_array!(self, p => p.disks())
    }
    fn disk_state(&self, disk: usize) -> DiskState {
        each_array!(self, p => p.disk_state(disk))
    }
    fn in_system(&self) -> usize {
        each_array!(self, p => p.in_system())
    }
    fn is_busy(&self, disk: usize) -> bool {
        each_array!(self, p => p.is_busy(disk))
    }
    fn common_len(&self) -> usize {
        each_array!(self, p => p.common_len())
    }
    fn disk_queue_len(&self, disk: usize) -> usize {
        each_array!(self, p => p.disk_queue_len(disk))
    }
    fn aux_len(&self, disk: usize) -> usize {
        each_array!(self, p => p.aux_len(disk))
    }
}
