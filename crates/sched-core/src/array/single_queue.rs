//! The single-queue (SQ) family of Towsley, Chen & Yu (1991, §2.1): every
//! request joins one FCFS queue, and the request at its head starts when the
//! policy's [`StartRule`] allows, on the disks the rule names. S-PSSQ, C-PSSQ,
//! CR-ESQ, CRU-ESQ and MR-ESQ differ only in that rule.
//!
//! The paper's mirrors have every disk online and holding every block; here a
//! read may only start on a disk with an up-to-date copy (the rule sees them
//! as `eligible`), and a write is sent to every live holder once all live
//! disks are idle.

use super::bookkeeping::{Array, Queues};
use super::copies::{Copies, DiskSet, MAX_DISKS};
use super::ledger::Ledger;
use super::{ArrayView, Start};
use crate::error::{BuildError, CancelError, EnqueueError, PollError};
use crate::queue::{Fifo, NIL, Slot};
use crate::request::{Dispatch, Head, Nanos, Request};
use crate::storage::Storage;

/// What a start rule sees of the array when a request is at the head of the queue.
#[derive(Clone, Copy, Debug)]
pub struct SqView<'a> {
    /// Live disks serving nothing.
    pub idle: DiskSet,
    /// Disks that are not failed.
    pub live: DiskSet,
    /// The disks that may serve the head request: a read's holders with an
    /// up-to-date copy.
    pub eligible: DiskSet,
    /// Whether some disk is writing an update.
    pub writing: bool,
    /// The head request's copies.
    pub copies: &'a Copies,
    /// The arms.
    pub heads: &'a [Head],
}

impl SqView<'_> {
    /// Whether every live disk is idle.
    #[inline]
    pub fn all_idle(&self) -> bool {
        self.idle == self.live
    }

    /// The primary copy: the lowest eligible disk.
    #[inline]
    pub fn primary(&self) -> Option<usize> {
        self.eligible.first()
    }
}

/// When the request at the head of the single queue may start, and where.
pub trait StartRule {
    /// The disks a read at the head starts on now (empty: it waits). Only
    /// idle eligible disks may be named.
    fn read_disks(&self, view: &SqView<'_>) -> DiskSet;

    /// Whether an update at the head may start now, writing every live copy.
    /// In every SQ policy an update waits until all live disks are idle.
    fn update_may_start(&self, view: &SqView<'_>) -> bool {
        view.all_idle()
    }
}

/// One FCFS queue of logical requests whose head starts as rule `R` allows.
pub type SingleQueue<R, S> = Array<SqQueues<R, S>, S>;

/// The queue of a [`SingleQueue`]: the logical requests waiting in arrival
/// order, and the operations committed to idle disks.
pub struct SqQueues<R, S: Storage> {
    waiting: Fifo<S>,
    waiting_len: usize,
    /// Operations committed to an idle disk and not yet handed to the driver.
    ready: [Slot; MAX_DISKS],
    rule: R,
}

/// Only the name: the queue is seen through the array ([`Array`](super::Array)'s
/// `Debug` and the `ArrayPolicy` getters).
impl<R, S: Storage> core::fmt::Debug for SqQueues<R, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SqQueues").finish_non_exhaustive()
    }
}

impl<R: StartRule + Default, S: Storage> SingleQueue<R, S> {
    /// An empty array of `disks` disks holding up to `storage.capacity()`
    /// logical requests.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for no disk or more than [`MAX_DISKS`].
    pub fn new(storage: S, disks: usize) -> Result<Self, BuildError> {
        Self::with_rule(storage, disks, R::default())
    }
}

impl<R: StartRule, S: Storage> SingleQueue<R, S> {
    /// As [`SingleQueue::new`], with the start rule given.
    ///
    /// # Errors
    /// As [`SingleQueue::new`].
    pub fn with_rule(storage: S, disks: usize, rule: R) -> Result<Self, BuildError> {
        let queues = SqQueues {
            waiting: Fifo::new(&storage),
            waiting_len: 0,
            ready: [NIL; MAX_DISKS],
            rule,
        };
        Array::with_queues(&storage, disks, queues)
    }
}

impl<R: StartRule, S: Storage> SqQueues<R, S> {
    fn emit_ready(&mut self, ledger: &mut Ledger<S>, now: Nanos) -> Option<Start> {
        let d = (0..ledger.disks()).find(|&d| self.ready[d] != NIL)?;
        let s = self.ready[d];
        self.ready[d] = NIL;
        ledger.start(s, d, now);
        Some(Start {
            disk: d,
            dispatch: Dispatch::direct(ledger.op(s, d)),
            copy_from: None,
        })
    }
}

impl<R: StartRule, S: Storage> Queues<S> for SqQueues<R, S> {
    fn submit(
        &mut self,
        ledger: &mut Ledger<S>,
        req: &Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        let s = ledger.admit_to_common_queue(req, copies, view)?;
        self.waiting.push_back(s);
        self.waiting_len += 1;
        Ok(())
    }

    fn poll_start(
        &mut self,
        ledger: &mut Ledger<S>,
        view: &ArrayView<'_>,
    ) -> Result<Option<Start>, PollError> {
        if let Some(start) = self.emit_ready(ledger, view.now) {
            return Ok(Some(start));
        }
        // The head request, once requests whose every up-to-date copy failed
        // while they waited have been reported failed.
        let (s, servers) = loop {
            let Some(s) = self.waiting.front() else {
                return Ok(None);
            };
            ledger.skip_failed_targets(s);
            let servers = ledger.servers(s);
            if !servers.is_empty() {
                break (s, servers);
            }
            self.waiting.remove(s);
            self.waiting_len -= 1;
            if ledger.is_open(s) {
                ledger.fail(s);
            }
        };
        let copies = ledger.copies(s);
        let sq = SqView {
            idle: ledger.idle(),
            live: ledger.live(),
            eligible: servers,
            writing: (0..ledger.disks()).any(|d| ledger.writing_on(d)),
            copies: &copies,
            heads: view.heads,
        };
        let disks = if ledger.is_write(s) {
            if self.rule.update_may_start(&sq) {
                servers
            } else {
                DiskSet::EMPTY
            }
        } else {
            self.rule
                .read_disks(&sq)
                .intersection(sq.idle)
                .intersection(servers)
        };
        if disks.is_empty() {
            return Ok(None);
        }
        self.waiting.remove(s);
        self.waiting_len -= 1;
        for d in disks.iter() {
            ledger.enqueued(s, d);
            self.ready[d] = s;
        }
        Ok(self.emit_ready(ledger, view.now))
    }

    /// A read completes with its first copy; MR-ESQ's other copies, started
    /// with it, are aborted.
    fn read_completion_aborts(&self) -> bool {
        true
    }

    fn read_finished(&mut self, _register: &mut Ledger<S>, _s: Slot) {
        // Every copy of a read starts at once: none is left queued.
    }

    fn cancel(&mut self, ledger: &mut Ledger<S>, s: Slot) -> Result<(), CancelError> {
        let started = !ledger.serving(s).is_empty();
        if started && ledger.is_write(s) {
            return Err(CancelError::InService(ledger.request(s).id));
        }
        if !started {
            self.waiting.remove(s);
            self.waiting_len -= 1;
        }
        Ok(())
    }

    fn take_queued(&mut self, _register: &mut Ledger<S>, disk: usize) -> Option<Slot> {
        let s = core::mem::replace(&mut self.ready[disk], NIL);
        (s != NIL).then_some(s)
    }

    /// Puts a request back in the queue in its arrival place.
    fn reroute(&mut self, ledger: &mut Ledger<S>, s: Slot, _view: &ArrayView<'_>) {
        self.waiting
            .insert_by_arrival(s, |a, b| ledger.arrives_before(a, b));
        self.waiting_len += 1;
    }

    fn disk_failed(&mut self, _register: &mut Ledger<S>, _disk: usize) {
        // Nothing waits for a particular disk.
    }

    fn next_eligible_at(&self, _now: Nanos) -> Option<Nanos> {
        None
    }

    fn common_len(&self) -> usize {
        self.waiting_len
    }

    fn disk_queue_len(&self, _disk: usize) -> usize {
        0
    }

    fn aux_len(&self, _disk: usize) -> usize {
        0
    }

    fn committed(&self, disk: usize) -> bool {
        self.ready[disk] != NIL
    }
}
