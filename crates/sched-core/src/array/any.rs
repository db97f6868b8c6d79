//! Choosing an array policy and its queue disciplines at run time (feature `alloc`).

use alloc::vec::Vec;

use super::{
    Ack, ArrayPolicy, ArrayView, BothCopies, BothCopiesAbort, CPssqRule, Cmq, Completion, Copies,
    CrEsqRule, CruEsqRule, DiskSet, DiskState, Dmq, LeastBacklog, Md, MrEsqRule, RandomRead,
    ReadRouting, RouteView, SPssqRule, ShortestQueue, SingleQueue, SqView, Start, StartRule,
    check_disks,
};
use crate::any::AnyScheduler;
use crate::error::{BuildError, CancelError, CompleteError, EnqueueError, PollError};
use crate::request::{Nanos, Request, RequestId};
use crate::spec::{ArraySpec, PolicySpec, Routing};
use crate::storage::Storage;

use super::dmq::Abort;

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
        let single = |storage: S, rule| -> Result<AnyArray<S>, BuildError> {
            Ok(AnyArray::SingleQueue(SingleQueue::with_rule(
                storage, disks, rule,
            )?))
        };
        match *self {
            ArraySpec::SPssq => single(storage, AnyStartRule::SPssq(SPssqRule)),
            ArraySpec::CPssq => single(storage, AnyStartRule::CPssq(CPssqRule)),
            ArraySpec::CrEsq => single(storage, AnyStartRule::CrEsq(CrEsqRule)),
            ArraySpec::CruEsq => single(storage, AnyStartRule::CruEsq(CruEsqRule)),
            ArraySpec::MrEsq => single(storage, AnyStartRule::MrEsq(MrEsqRule)),
            ArraySpec::Dmq {
                routing,
                queue,
                modified,
            } => {
                let qs = queues(&queue, &storage)?;
                let routing = match routing {
                    Routing::Random { alpha } => {
                        AnyRouting::Random(RandomRead::with_alpha(disks, alpha, seed)?)
                    }
                    Routing::ShortestQueue => AnyRouting::ShortestQueue(ShortestQueue),
                    Routing::Both => AnyRouting::Both(BothCopies),
                    Routing::BothAbort(when) => AnyRouting::BothAbort(BothCopiesAbort::new(when)?),
                    Routing::Md => AnyRouting::Md(Md),
                    Routing::LeastBacklog => AnyRouting::LeastBacklog(LeastBacklog),
                };
                let dmq = Dmq::new(storage, qs, routing)?;
                let dmq = if modified { dmq.prefer_idle() } else { dmq };
                Ok(AnyArray::Dmq(dmq))
            }
            ArraySpec::Cmq { common, aux } => {
                let common = common.build(storage.clone(), cylinders)?;
                let aux = queues(&aux, &storage)?;
                Ok(AnyArray::Cmq(Cmq::new(storage, common, aux)?))
            }
        }
    }
}

/// Any start rule of the single-queue family, chosen at run time.
#[derive(Clone, Copy, Debug)]
pub enum AnyStartRule {
    /// [`SPssqRule`].
    SPssq(SPssqRule),
    /// [`CPssqRule`].
    CPssq(CPssqRule),
    /// [`CrEsqRule`].
    CrEsq(CrEsqRule),
    /// [`CruEsqRule`].
    CruEsq(CruEsqRule),
    /// [`MrEsqRule`].
    MrEsq(MrEsqRule),
}

macro_rules! each_rule {
    ($self:expr, $r:ident => $body:expr) => {
        match $self {
            AnyStartRule::SPssq($r) => $body,
            AnyStartRule::CPssq($r) => $body,
            AnyStartRule::CrEsq($r) => $body,
            AnyStartRule::CruEsq($r) => $body,
            AnyStartRule::MrEsq($r) => $body,
        }
    };
}

impl StartRule for AnyStartRule {
    fn read_disks(&self, view: &SqView<'_>) -> DiskSet {
        each_rule!(self, r => r.read_disks(view))
    }
    fn update_may_start(&self, view: &SqView<'_>) -> bool {
        each_rule!(self, r => r.update_may_start(view))
    }
}

/// Any DMQ read routing, chosen at run time.
// R-DMQ's 64 thresholds make it the large variant; boxing them would put an
// indirection on every routing decision.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum AnyRouting {
    /// R-DMQ.
    Random(RandomRead),
    /// SQ-DMQ.
    ShortestQueue(ShortestQueue),
    /// MR-DMQ.
    Both(BothCopies),
    /// MR-DMQA.
    BothAbort(BothCopiesAbort),
    /// Linux md RAID-1 balancing.
    Md(Md),
    /// Ivy's least expected turnaround.
    LeastBacklog(LeastBacklog),
}

macro_rules! each_routing {
    ($self:expr, $r:ident => $body:expr) => {
        match $self {
            AnyRouting::Random($r) => $body,
            AnyRouting::ShortestQueue($r) => $body,
            AnyRouting::Both($r) => $body,
            AnyRouting::BothAbort($r) => $body,
            AnyRouting::Md($r) => $body,
            AnyRouting::LeastBacklog($r) => $body,
        }
    };
}

impl ReadRouting for AnyRouting {
    fn route(&mut self, view: &RouteView<'_>) -> DiskSet {
        each_routing!(self, r => r.route(view))
    }
    fn abort(&self) -> Abort {
        each_routing!(self, r => r.abort())
    }
}

/// Any array policy, chosen at run time; its queues live in `Vec`s.
// A DMQ carries per-disk queues and routing state the single-queue family
// does not; boxing it would put an indirection on every decision.
#[allow(clippy::large_enum_variant)]
pub enum AnyArray<S: Storage> {
    /// A policy of the single-queue family.
    SingleQueue(SingleQueue<AnyStartRule, S>),
    /// A DMQ policy.
    Dmq(Dmq<Vec<AnyScheduler<S>>, AnyRouting, S>),
    /// CMQ.
    Cmq(Cmq<AnyScheduler<S>, Vec<AnyScheduler<S>>, S>),
}

macro_rules! each_array {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            AnyArray::SingleQueue($p) => $body,
            AnyArray::Dmq($p) => $body,
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
            AnyArray::SingleQueue(p) => AnyArray::SingleQueue(p.with_ack(ack)?),
            AnyArray::Dmq(p) => AnyArray::Dmq(p.with_ack(ack)?),
            AnyArray::Cmq(p) => AnyArray::Cmq(p.with_ack(ack)?),
        })
    }
}

impl<S: Storage> ArrayPolicy for AnyArray<S> {
    #[inline]
    fn submit(
        &mut self,
        req: Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        each_array!(self, p => p.submit(req, copies, view))
    }
    #[inline]
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
    #[inline]
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
