//! The conformance suite of the [`Device`] trait: one function any
//! implementation can be run through.
//!
//! [`check`] drives a device built by the caller's factory with an open
//! stream of reads and writes (two copies on chained disks of an array, the
//! one copy of a single disk), cancels some queued requests and tries to
//! cancel some in service, fails a disk and replaces it, and drains the
//! device. It asserts, and reports the first breach as a [`Violation`]:
//!
//! - **exactly once**: every accepted request has exactly one outcome
//!   (completed, expired, failed or a media error) unless it was withdrawn, and a withdrawn
//!   one has none; no outcome names a request never submitted;
//! - **cancel semantics**: withdrawing a request a disk is serving is
//!   refused with `InService`, withdrawing one never submitted with
//!   `UnknownId`, and a withdrawn request is gone;
//! - **timing**: wait, seek, rotation, transfer, overhead and held time sum
//!   to the response, the arrival is the request's, the completion is
//!   reported when the device reaches it, and the disk that served it holds
//!   a copy;
//! - **monotone time**: the clock never goes back, outcomes come out in time
//!   order, a time before the clock and an input behind a due event are
//!   refused, and a drained device has nothing left to do;
//! - **determinism**: a second device from the same factory, driven the same
//!   way, reports the same outcomes bit for bit.
//!
//! The suite owns no clock of its own: it steps the device through its open
//! API, as every driver does.

use std::collections::{BTreeMap, BTreeSet};

use sched_core::array::{Copies, DiskState, Location};
use sched_core::{Block, Blocks, CancelError, Cyl, Kind, Nanos, Request, RequestId};

use crate::device::{Device, DeviceError, Outcome};
use crate::random::Stream;

/// How hard [`check`] drives a device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Requests submitted.
    pub requests: u64,
    /// Mean arrivals per second (Poisson).
    pub rate: f64,
    /// Fraction of writes.
    pub write_fraction: f64,
    /// Blocks per request.
    pub blocks: u32,
    /// Fail disk 0 right after this submission (counted from 0) and replace
    /// it before the submission twice as far (`None`: no failure).
    pub fail_after: Option<u64>,
    /// The random stream of the workload.
    pub seed: u64,
}

impl Default for Options {
    /// 2,000 requests at 20 per second, a quarter writes of 8 blocks, disk 0
    /// failing after 600 and replaced after 1,200.
    fn default() -> Self {
        Options {
            requests: 2_000,
            rate: 20.0,
            write_fraction: 0.25,
            blocks: 8,
            fail_after: Some(600),
            seed: 1,
        }
    }
}

/// The first breach of the device contract [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// An input or getter the contract says must work returned an error.
    #[error("t = {at} ns: {what}: unexpected error {error}")]
    Refused {
        /// When.
        at: Nanos,
        /// What the suite did.
        what: &'static str,
        /// The error, as text.
        error: String,
    },
    /// An outcome for a request that was never accepted, or that already had one.
    #[error("t = {at} ns: request {id}: {what}")]
    Outcome {
        /// When it was polled.
        at: Nanos,
        /// The request.
        id: u64,
        /// What is wrong.
        what: String,
    },
    /// An accepted request never had an outcome (found when the device is
    /// drained, or when it no longer knows the request).
    #[error("request {id} was accepted, never withdrawn, and has no outcome")]
    Lost {
        /// The request.
        id: u64,
    },
    /// A completion's timing is inconsistent.
    #[error("t = {at} ns: request {id}: {what}")]
    Timing {
        /// When it was polled.
        at: Nanos,
        /// The request.
        id: u64,
        /// What is wrong.
        what: String,
    },
    /// Time went the wrong way, or a wrong input was accepted.
    #[error("t = {at} ns: {what}")]
    Clock {
        /// When.
        at: Nanos,
        /// What is wrong.
        what: String,
    },
    /// A withdrawal was answered against the contract.
    #[error("t = {at} ns: cancel of request {id}: {what}")]
    Cancel {
        /// When.
        at: Nanos,
        /// The request.
        id: u64,
        /// What is wrong.
        what: String,
    },
    /// Two devices from the same factory, driven the same way, differed.
    #[error("not deterministic: {what}")]
    Nondeterministic {
        /// Where the runs first differ.
        what: String,
    },
}

/// What a conforming run did, for the caller's own assertions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Requests the device accepted.
    pub accepted: u64,
    /// Submissions refused (a failed single disk, a full queue).
    pub refused: u64,
    /// Requests completed.
    pub completed: u64,
    /// Requests a deadline policy dropped.
    pub expired: u64,
    /// Requests a failure left without a copy.
    pub failed: u64,
    /// Reads a media error failed.
    pub media_errors: u64,
    /// Requests withdrawn.
    pub cancelled: u64,
    /// Withdrawals refused because a disk was serving the request.
    pub refused_in_service: u64,
    /// Replacements reported back online.
    pub resynced: u64,
    /// A digest of every outcome in order (id, kind, disk, timing).
    pub digest: u64,
}

impl Summary {
    /// Whether the run exercised what the suite is for: every submission
    /// accepted or refused, every accepted request accounted for by exactly
    /// one outcome, at least one withdrawal honoured and one refused in
    /// service, and the replacement back online once. A device can conform
    /// (no [`Violation`]) and still never reach these paths, for instance
    /// when its queue never holds a request long enough to withdraw it.
    ///
    /// # Errors
    /// What the run did not exercise, with the counts.
    pub fn exercised(&self, options: &Options) -> Result<(), String> {
        let outcomes = self.completed + self.expired + self.failed + self.cancelled;
        if self.accepted + self.refused != options.requests {
            Err(format!(
                "{} accepted and {} refused of {} submitted: {self:?}",
                self.accepted, self.refused, options.requests
            ))
        } else if outcomes != self.accepted {
            Err(format!(
                "{outcomes} outcomes for {} accepted: {self:?}",
                self.accepted
            ))
        } else if self.cancelled == 0 || self.refused_in_service == 0 {
            Err(format!(
                "withdrawals not exercised (honoured and refused in service): {self:?}"
            ))
        } else if self.resynced != 1 {
            Err(format!(
                "{} replacements back online, not 1: {self:?}",
                self.resynced
            ))
        } else {
            Ok(())
        }
    }
}

/// Runs the suite on two devices made by `make`; returns the first run's
/// summary.
///
/// # Errors
/// The first [`Violation`] found.
pub fn check<D: Device>(make: impl Fn() -> D, options: &Options) -> Result<Summary, Violation> {
    let first = drive(&mut make(), options)?;
    let second = drive(&mut make(), options)?;
    if first != second {
        return Err(Violation::Nondeterministic {
            what: format!("{first:?} against {second:?}"),
        });
    }
    Ok(first)
}

/// The copies the suite gives request block `block` on `disks` disks: two,
/// on disks k and k + 1 (mod D) for block group k, at the same block.
fn copies(disks: usize, block: u64, blocks: u32) -> Copies {
    let at = Location { block, cylinder: 0 };
    if disks <= 1 {
        return Copies::everywhere(1, at);
    }
    let k = (block / u64::from(blocks.max(1))) as usize % disks;
    Copies::new().with(k, at).with((k + 1) % disks, at)
}

/// One run: what the suite saw.
struct Run<'a, D> {
    dev: &'a mut D,
    submitted: BTreeMap<u64, Request>,
    holders: BTreeMap<u64, Copies>,
    ended: BTreeSet<u64>,
    cancelled: BTreeSet<u64>,
    last_outcome: Nanos,
    summary: Summary,
}

impl<D: Device> Run<'_, D> {
    fn refused(&self, what: &'static str, e: &DeviceError) -> Violation {
        Violation::Refused {
            at: self.dev.now(),
            what,
            error: e.to_string(),
        }
    }

    fn digest(&mut self, words: &[u64]) {
        for &w in words {
            self.summary.digest = (self.summary.digest ^ w).wrapping_mul(0x100_0000_01B3);
        }
    }

    fn end(&mut self, id: u64, what: &str) -> Result<(), Violation> {
        let at = self.dev.now();
        if !self.submitted.contains_key(&id) {
            return Err(Violation::Outcome {
                at,
                id,
                what: format!("{what}, but it was never accepted"),
            });
        }
        if self.cancelled.contains(&id) {
            return Err(Violation::Outcome {
                at,
                id,
                what: format!("{what} after it was withdrawn"),
            });
        }
        if !self.ended.insert(id) {
            return Err(Violation::Outcome {
                at,
                id,
                what: format!("{what} a second time"),
            });
        }
        Ok(())
    }

    /// Takes in every outcome the device has.
    fn collect(&mut self) -> Result<(), Violation> {
        while let Some(o) = self.dev.poll() {
            let now = self.dev.now();
            match o {
                Outcome::Completed(done) => {
                    let id = done.request.id.0;
                    self.end(id, "completed")?;
                    let t = done.timing;
                    let timing = |what: String| Violation::Timing { at: now, id, what };
                    let parts = t.wait + t.seek + t.rotation + t.transfer + t.overhead + t.held;
                    if parts != t.response() {
                        return Err(timing(format!(
                            "parts sum to {parts} ns, the response is {} ns ({t:?})",
                            t.response()
                        )));
                    }
                    if t.arrival != self.submitted[&id].arrival || t.arrival > t.start {
                        return Err(timing(format!(
                            "arrival {} (submitted {}) after start {}",
                            t.arrival, self.submitted[&id].arrival, t.start
                        )));
                    }
                    if t.finish != now {
                        return Err(timing(format!(
                            "finished at {} but reported at {now}",
                            t.finish
                        )));
                    }
                    if done.first_start > t.start {
                        return Err(timing(format!(
                            "first start {} after the critical start {}",
                            done.first_start, t.start
                        )));
                    }
                    if !self.holders[&id].holders().contains(t.disk) {
                        return Err(timing(format!(
                            "served by disk {}, which holds no copy",
                            t.disk
                        )));
                    }
                    if t.finish < self.last_outcome {
                        return Err(Violation::Clock {
                            at: now,
                            what: format!(
                                "request {id} completed at {} after an outcome at {}",
                                t.finish, self.last_outcome
                            ),
                        });
                    }
                    self.last_outcome = t.finish;
                    self.summary.completed += 1;
                    let kind = u64::from(done.request.kind == Kind::Write);
                    self.digest(&[
                        id,
                        kind,
                        t.disk as u64,
                        t.start,
                        t.finish,
                        t.seek,
                        t.rotation,
                        t.transfer,
                        t.overhead,
                    ]);
                }
                Outcome::Expired(r) => {
                    self.end(r.id.0, "expired")?;
                    self.summary.expired += 1;
                    self.digest(&[r.id.0, 2, now]);
                }
                Outcome::Failed(r) => {
                    self.end(r.id.0, "failed")?;
                    self.summary.failed += 1;
                    self.digest(&[r.id.0, 3, now]);
                }
                Outcome::MediaError { done, block } => {
                    self.end(done.request.id.0, "failed with a media error")?;
                    self.summary.media_errors += 1;
                    self.digest(&[done.request.id.0, 5, done.timing.disk as u64, block, now]);
                }
                Outcome::Resynced { disk, at } => {
                    self.summary.resynced += 1;
                    self.digest(&[disk as u64, 4, at]);
                }
            }
        }
        Ok(())
    }

    /// Advances one event at a time up to `to`, checking the clock.
    fn run_until(&mut self, to: Nanos) -> Result<(), Violation> {
        while let Some(t) = self.dev.next_event_time().filter(|&t| t <= to) {
            let before = self.dev.now();
            if t < before {
                return Err(Violation::Clock {
                    at: before,
                    what: format!("next event at {t}, before the clock"),
                });
            }
            self.dev
                .advance(t)
                .map_err(|e| self.refused("advance", &e))?;
            if self.dev.now() != t {
                return Err(Violation::Clock {
                    at: t,
                    what: format!("advanced to {t}, the clock says {}", self.dev.now()),
                });
            }
            self.collect()?;
        }
        self.dev
            .advance(to)
            .map_err(|e| self.refused("advance", &e))?;
        self.collect()
    }

    /// Withdraws some open request, or tries to withdraw one in service.
    fn cancel_some(&mut self, rng: &mut Stream, in_service: bool) -> Result<(), Violation> {
        let at = self.dev.now();
        if in_service {
            let serving = (0..self.dev.disks())
                .filter_map(|d| self.dev.serving(d).map(|r| r.id))
                .find(|id| self.submitted.contains_key(&id.0));
            let Some(id) = serving else {
                return Ok(());
            };
            return match self.dev.cancel(id) {
                Err(DeviceError::Cancel(CancelError::InService(x))) if x == id => {
                    self.summary.refused_in_service += 1;
                    Ok(())
                }
                other => Err(Violation::Cancel {
                    at,
                    id: id.0,
                    what: format!("in service, yet answered {other:?}"),
                }),
            };
        }
        let open: Vec<u64> = self
            .submitted
            .keys()
            .filter(|id| !self.ended.contains(id) && !self.cancelled.contains(id))
            .copied()
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        let victim = open[rng.below(open.len() as u64) as usize];
        match self.dev.cancel(RequestId(victim)) {
            Ok(r) if r.id.0 == victim => {
                self.cancelled.insert(victim);
                self.summary.cancelled += 1;
                Ok(())
            }
            // A disk is serving it (or, on an array, has written a copy).
            Err(DeviceError::Cancel(CancelError::InService(x))) if x.0 == victim => {
                self.summary.refused_in_service += 1;
                Ok(())
            }
            // Accepted, never reported, and no longer in the device.
            Err(DeviceError::Cancel(CancelError::UnknownId(x))) if x.0 == victim => {
                Err(Violation::Lost { id: victim })
            }
            other => Err(Violation::Cancel {
                at,
                id: victim,
                what: format!("open, yet answered {other:?}"),
            }),
        }
    }
}

fn drive<D: Device>(dev: &mut D, o: &Options) -> Result<Summary, Violation> {
    let disks = dev.disks();
    let capacity = (0..disks)
        .filter_map(|d| dev.model(d).map(|m| m.capacity_blocks()))
        .min()
        .unwrap_or(0);
    let positions = capacity / u64::from(o.blocks.max(1));
    if positions == 0 {
        return Err(Violation::Refused {
            at: dev.now(),
            what: "model",
            error: "no disk model, or requests larger than the disk".into(),
        });
    }
    let mut run = Run {
        dev,
        submitted: BTreeMap::new(),
        holders: BTreeMap::new(),
        ended: BTreeSet::new(),
        cancelled: BTreeSet::new(),
        last_outcome: 0,
        summary: Summary::default(),
    };
    let mut rng = Stream::numbered(o.seed);
    let gap = (1e9 / o.rate) as Nanos;
    let mut now: Nanos = 0;
    if let Err(e) = run.dev.cancel(RequestId(u64::MAX >> 2)) {
        if !matches!(e, DeviceError::Cancel(CancelError::UnknownId(_))) {
            return Err(Violation::Cancel {
                at: 0,
                id: u64::MAX >> 2,
                what: format!("never submitted, yet answered {e}"),
            });
        }
    } else {
        return Err(Violation::Cancel {
            at: 0,
            id: u64::MAX >> 2,
            what: "never submitted, yet withdrawn".into(),
        });
    }
    for i in 0..o.requests {
        now += rng.exponential(gap).max(1);
        run.run_until(now)?;
        if o.fail_after.is_some_and(|k| i == 2 * k) {
            run.dev
                .replace_disk(0)
                .map_err(|e| run.refused("replace_disk", &e))?;
        }
        let kind = if rng.chance(o.write_fraction) {
            Kind::Write
        } else {
            Kind::Read
        };
        let block = rng.below(positions) * u64::from(o.blocks);
        let req = Request::new(
            RequestId(i),
            kind,
            Block(block),
            Blocks(o.blocks),
            Cyl(0),
            now,
        );
        let placed = copies(disks, block, o.blocks);
        match run.dev.submit(req, &placed, now) {
            Ok(()) => {
                run.submitted.insert(i, req);
                run.holders.insert(i, placed);
                run.summary.accepted += 1;
            }
            // A failed single disk, or an array with no live copy: refused,
            // never lost.
            Err(DeviceError::DiskState { .. } | DeviceError::Refused(_)) => {
                run.summary.refused += 1;
            }
            Err(e) => return Err(run.refused("submit", &e)),
        }
        // Right after a submission, so that the failure takes work with it.
        if o.fail_after.is_some_and(|k| i == k) {
            run.dev
                .fail_disk(0)
                .map_err(|e| run.refused("fail_disk", &e))?;
            if !matches!(run.dev.disk_state(0), Ok(DiskState::Failed)) {
                return Err(Violation::Clock {
                    at: now,
                    what: "disk 0 failed but does not say so".into(),
                });
            }
            run.collect()?;
        }
        if i % 5 == 4 {
            run.cancel_some(&mut rng, false)?;
        }
        if i % 7 == 6 {
            run.cancel_some(&mut rng, true)?;
        }
        if i % 97 == 96 {
            // The clock may not go back, and an input may not skip a due event.
            let at = run.dev.now();
            if at > 0 && run.dev.advance(at - 1).is_ok() {
                return Err(Violation::Clock {
                    at,
                    what: "advance to a time before the clock was accepted".into(),
                });
            }
            if let Some(due) = run.dev.next_event_time() {
                let late = Request::new(
                    RequestId(u64::MAX >> 1),
                    Kind::Read,
                    Block(0),
                    Blocks(1),
                    Cyl(0),
                    due + 1,
                );
                if run.dev.submit(late, &copies(disks, 0, 1), due + 1).is_ok() {
                    return Err(Violation::Clock {
                        at,
                        what: format!(
                            "an input at {} accepted with an event due at {due}",
                            due + 1
                        ),
                    });
                }
            }
        }
    }
    run.run_until(Nanos::MAX - 1)?;
    if run.dev.next_event_time().is_some() || run.dev.in_system() != 0 {
        return Err(Violation::Clock {
            at: run.dev.now(),
            what: format!(
                "drained, yet {} requests remain and the next event is {:?}",
                run.dev.in_system(),
                run.dev.next_event_time()
            ),
        });
    }
    for &id in run.submitted.keys() {
        if !run.ended.contains(&id) && !run.cancelled.contains(&id) {
            return Err(Violation::Lost { id });
        }
    }
    Ok(run.summary)
}
