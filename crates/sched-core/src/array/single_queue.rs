//! The single-queue (SQ) family of Towsley, Chen & Yu (1991, §2.1): every
//! request joins one FCFS queue, and the request at its head starts when the
//! policy's [`StartRule`] allows, on the disks the rule names. S-PSSQ, C-PSSQ,
//! CR-ESQ, CRU-ESQ and MR-ESQ differ only in that rule.
//!
//! The paper's mirrors have every disk online and holding every block; here a
//! read may only start on a disk with an up-to-date copy (the rule sees them
//! as `eligible`), and a write is sent to every live holder once all live
//! disks are idle.

use super::book::{Book, Loss};
use super::copies::{Copies, DiskSet, MAX_DISKS};
use super::delegate_to_book;
use super::{Ack, ArrayPolicy, ArrayView, Completion, DiskState, Start};
use crate::error::{BuildError, CancelError, CompleteError, EnqueueError, PollError};
use crate::request::{Dispatch, Head, Nanos, Request, RequestId};
use crate::storage::Storage;
use crate::queue::{Fifo, NIL, Slot};

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
    pub fn all_idle(&self) -> bool {
        self.idle == self.live
    }

    /// The primary copy: the lowest eligible disk.
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
pub struct SingleQueue<R, S: Storage> {
    book: Book<S>,
    waiting: Fifo<S>,
    waiting_len: usize,
    /// Operations committed to an idle disk and not yet handed to the driver.
    ready: [Slot; MAX_DISKS],
    rule: R,
}

impl<R: StartRule + Default, S: Storage> SingleQueue<R, S> {
    /// An empty array of `disks` disks holding up to `storage.capacity()`
    /// logical requests.
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for no disk or more than [`MAX_DISKS`].
    pub fn new(storage: S, disks: usize) -> Result<Self, BuildError> {
        Ok(SingleQueue {
            book: Book::new(&storage, disks)?,
            waiting: Fifo::new(&storage),
            waiting_len: 0,
            ready: [NIL; MAX_DISKS],
            rule: R::default(),
        })
    }
}

impl<R: StartRule, S: Storage> SingleQueue<R, S> {
    /// When writes count as done (default [`Ack::All`]).
    ///
    /// # Errors
    /// [`BuildError::InvalidParameter`] for a quorum of 0.
    pub fn with_ack(mut self, ack: Ack) -> Result<Self, BuildError> {
        self.book.set_ack(ack)?;
        Ok(self)
    }

    fn emit_ready(&mut self, now: Nanos) -> Option<Start> {
        let d = (0..self.book.disks()).find(|&d| self.ready[d] != NIL)?;
        let s = self.ready[d];
        self.ready[d] = NIL;
        self.book.start(s, d, now);
        Some(Start {
            disk: d,
            dispatch: Dispatch::direct(self.book.op(s, d)),
        })
    }

    /// Puts a request back in the queue in its arrival place.
    fn requeue(&mut self, s: Slot) {
        self.waiting.insert_by_arrival(self.book.slab(), s);
        self.waiting_len += 1;
    }
}

impl<R: StartRule, S: Storage> ArrayPolicy for SingleQueue<R, S> {
    delegate_to_book!();

    fn submit(
        &mut self,
        req: Request,
        copies: &Copies,
        view: &ArrayView<'_>,
    ) -> Result<(), EnqueueError> {
        let s = self.book.admit_to_common_queue(&req, copies, view)?;
        self.waiting.push_back(s);
        self.waiting_len += 1;
        Ok(())
    }

    /// A read completes with its first copy (MR-ESQ aborts the others); an
    /// update as the array's [`Ack`] rule says.
    fn complete(&mut self, disk: usize, _now: Nanos) -> Result<Completion, CompleteError> {
        let (s, done) = self.book.complete_op(disk, true)?;
        self.book.retire_if_idle(s);
        Ok(done)
    }

    fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
        let s = self.book.find_open(id)?;
        let started = !self.book.serving(s).is_empty();
        if started && self.book.is_write(s) {
            return Err(CancelError::InService(id));
        }
        if !started {
            self.waiting.remove(s);
            self.waiting_len -= 1;
        }
        Ok(self.book.withdraw_open(s))
    }

    fn set_disk_state(
        &mut self,
        disk: usize,
        state: DiskState,
        _view: &ArrayView<'_>,
    ) -> Result<(), CompleteError> {
        if !self.book.change_state(disk, state)? {
            return Ok(());
        }
        let ready = core::mem::replace(&mut self.ready[disk], NIL);
        if ready != NIL {
            self.book.dequeued(ready, disk);
        }
        let serving = self.book.fail_disk(disk);
        for s in [ready, serving.unwrap_or(NIL)] {
            if s != NIL && self.book.lose(s, disk) == Loss::Reroute {
                self.requeue(s);
            }
        }
        Ok(())
    }

    fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError> {
        if let Some(start) = self.emit_ready(view.now) {
            return Ok(Some(start));
        }
        // The head request, once requests whose every up-to-date copy failed
        // while they waited have been reported failed.
        let (s, servers) = loop {
            let Some(s) = self.waiting.front() else {
                return Ok(None);
            };
            self.book.skip_failed_targets(s);
            let servers = self.book.servers(s);
            if !servers.is_empty() {
                break (s, servers);
            }
            self.waiting.remove(s);
            self.waiting_len -= 1;
            if self.book.is_open(s) {
                self.book.fail(s);
            }
        };
        let copies = self.book.copies(s);
        let sq = SqView {
            idle: self.book.idle(),
            live: self.book.live(),
            eligible: servers,
            writing: (0..self.book.disks()).any(|d| self.book.writing_on(d)),
            copies: &copies,
            heads: view.heads,
        };
        let disks = if self.book.is_write(s) {
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
            self.book.enqueued(s, d);
            self.ready[d] = s;
        }
        Ok(self.emit_ready(view.now))
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
}
