//! Ivy's replication layer (Lo 1990, *Ivy*, §4.4 and §6): which disks hold
//! a current copy of each object, how writes change that, and when copies
//! are made. A sans-IO state machine beside [`Placement`](crate::Placement):
//! it says where reads may go and where writes must go, asks for copies to
//! be made, and is told when the disk work it asked for is done; the driver
//! (the Ivy trace replay, or a test) does the I/O.
//!
//! **Objects.** The traces are block-level, so an object is a fixed-size
//! extent of a traced disk's blocks: object `k` holds blocks `k·E ..
//! (k+1)·E` ([`ReplicationConfig::extent_blocks`]). Every copy of an object
//! lies at the same blocks on its disk (Lo's simulator laid every replica out
//! like the original, §2.5). A request spanning several objects is cut into
//! runs of consecutive objects held alike, each served as one operation
//! (unless splitting is turned off: below).
//!
//! **Policies** ([`ReplicationPolicy`]), over N disks:
//! - RNWN: every object on all N disks; a write goes to every copy and is
//!   acknowledged when the first is written ([`Ack::First`]), the others
//!   finishing in the background, tracked by the array so that no read goes
//!   to a copy still behind.
//! - RNW1: before an update the object is cut back to its master copy,
//!   which alone is written; once no write has been pending for the delay
//!   (60 s in the paper), the other N − 1 copies are made.
//! - RNW1CR: as RNW1, but the copy kept at a cut-back is drawn at random from
//!   the current copies and becomes the master.
//! - Scatter: each object on one disk drawn at random; no replication.
//! - Scatter + RNW1CR: RNW1CR whose new objects are placed on a random disk.
//!
//! **History.** The traces show no file creation, so an object's history
//! starts when the trace first names it. An object first *read* is taken to
//! be long-lived data, quiet since before the trace: under the replicating
//! policies it starts with its N copies. An object first *written* is taken
//! to be created there: one copy, on disk 0 (the disk the traced data lived
//! on: RNW1, RNW1CR) or on a random disk (scatter, scatter + RNW1CR), copied
//! after the delay like any modified object. Under RNWN every object always
//! has N copies. Each object keeps its copy map (current holders, master,
//! copies being made), a generation counting its writes, its writes in
//! flight, and its history: reads, writes, cut-backs, copies made, last write.
//!
//! **What a copy costs** ([`CopyCost`]). Lo let new copies "appear
//! magically" once their delay ended (§4.1, item 3; §6.3: "We did not
//! simulate the background replication and assumed that the disks have
//! ample spare bandwidth"): [`CopyCost::Free`], under which the layer itself
//! adds the missing copies when the timer is due and asks for no disk work.
//! Otherwise a copy is a read of the whole extent from a current holder
//! followed by a write of it to every disk missing it, which the driver
//! performs: queued with the foreground work ([`CopyCost::Foreground`]), or
//! apart from it at lower priority, each operation started only on a disk
//! with no foreground work ([`CopyCost::Background`], the realistic version
//! Lo foresaw). The copies join the holders when the last of them is
//! written. The delay counts from the completion of the object's last
//! write: copies made while a write is in flight could be taken from the
//! disk before the write reaches it.
//!
//! **Requests across objects.** By default ([`Replication::with_split`]
//! `true`) a request spanning several objects is cut into runs of
//! consecutive objects held alike. Lo's objects were whole files, which a
//! request never crosses; with splitting off, a request belongs wholly to
//! the object of its first block (its holders serve it, its history and
//! cut-back are that object's alone), as if that object stretched to cover
//! it. That is a model of whole files, not a consistent layout: the blocks
//! past the boundary are not tracked as the next object's.
//!
//! **Never stale, nothing lost.** A read is sent only to holders of the
//! current generation: a copy joins the holders when its write completes
//! and its generation is still the object's. A write bumps the generation,
//! so a copy in flight when its object is cut back (or written again) is
//! discarded on arrival; the kept copy is always a complete one, so the
//! data survives. A new round of copies waits until every copy operation of
//! the last round has completed, so a stale copy can never land after a
//! fresh one on the same disk.

use std::fmt;
use std::str::FromStr;

use disk_emu::Stream;
use sched_core::Nanos;
use sched_core::array::{Ack, DiskSet, MAX_COPIES};
use serde::{Deserialize, Serialize};

/// How objects are placed and replicated over the disks (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplicationPolicy {
    /// Read one of N, write all N (mirroring), acknowledged at the first.
    Rnwn,
    /// Read one of N; cut back to the master before a write; N copies again
    /// after the delay.
    Rnw1,
    /// RNW1, keeping a copy drawn at random at each cut-back.
    Rnw1Cr,
    /// Each object on one random disk; no replication.
    Scatter,
    /// RNW1CR with new objects placed on a random disk.
    ScatterRnw1Cr,
}

impl ReplicationPolicy {
    /// Every policy, in the paper's order.
    pub const ALL: [ReplicationPolicy; 5] = [
        ReplicationPolicy::Rnwn,
        ReplicationPolicy::Rnw1,
        ReplicationPolicy::Rnw1Cr,
        ReplicationPolicy::Scatter,
        ReplicationPolicy::ScatterRnw1Cr,
    ];

    /// The name the command line uses.
    pub const fn name(self) -> &'static str {
        match self {
            ReplicationPolicy::Rnwn => "rnwn",
            ReplicationPolicy::Rnw1 => "rnw1",
            ReplicationPolicy::Rnw1Cr => "rnw1cr",
            ReplicationPolicy::Scatter => "scatter",
            ReplicationPolicy::ScatterRnw1Cr => "scatter-rnw1cr",
        }
    }

    /// The paper's name.
    pub const fn label(self) -> &'static str {
        match self {
            ReplicationPolicy::Rnwn => "RNWN",
            ReplicationPolicy::Rnw1 => "RNW1",
            ReplicationPolicy::Rnw1Cr => "RNW1CR",
            ReplicationPolicy::Scatter => "scatter",
            ReplicationPolicy::ScatterRnw1Cr => "scatter + RNW1CR",
        }
    }

    /// Whether objects get more than one copy.
    pub const fn replicates(self) -> bool {
        !matches!(self, ReplicationPolicy::Scatter)
    }

    /// Whether the number of copies changes with the writes.
    pub const fn is_dynamic(self) -> bool {
        !matches!(self, ReplicationPolicy::Rnwn | ReplicationPolicy::Scatter)
    }

    /// Whether new objects go to a random disk.
    const fn random_home(self) -> bool {
        matches!(
            self,
            ReplicationPolicy::Scatter | ReplicationPolicy::ScatterRnw1Cr
        )
    }

    /// Whether the copy kept at a cut-back is drawn at random.
    const fn random_cut_back(self) -> bool {
        matches!(
            self,
            ReplicationPolicy::Rnw1Cr | ReplicationPolicy::ScatterRnw1Cr
        )
    }

    /// When a write counts as done: RNWN at its first copy, the others (one
    /// copy a write) when written.
    pub const fn ack(self) -> Ack {
        match self {
            ReplicationPolicy::Rnwn => Ack::First,
            _ => Ack::All,
        }
    }
}

impl fmt::Display for ReplicationPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown replication policy name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown replication policy `{0}` (known: rnwn, rnw1, rnw1cr, scatter, scatter-rnw1cr)")]
pub struct UnknownPolicy(pub String);

impl FromStr for ReplicationPolicy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Self, UnknownPolicy> {
        ReplicationPolicy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPolicy(s.to_string()))
    }
}

/// What making a copy costs the disks (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CopyCost {
    /// Lo's model: the copies appear when their delay ends, no disk work.
    Free,
    /// A read and writes queued apart from the foreground I/O, each started
    /// only on a disk with nothing else queued or in service.
    Background,
    /// A read and writes queued with the foreground I/O, in its order.
    Foreground,
}

impl CopyCost {
    /// Every cost, cheapest first.
    pub const ALL: [CopyCost; 3] = [CopyCost::Free, CopyCost::Background, CopyCost::Foreground];

    /// The name the command line uses.
    pub const fn name(self) -> &'static str {
        match self {
            CopyCost::Free => "free",
            CopyCost::Background => "background",
            CopyCost::Foreground => "foreground",
        }
    }
}

impl fmt::Display for CopyCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown copy cost name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown copy cost `{0}` (known: free, background, foreground)")]
pub struct UnknownCopyCost(pub String);

impl FromStr for CopyCost {
    type Err = UnknownCopyCost;

    fn from_str(s: &str) -> Result<Self, UnknownCopyCost> {
        CopyCost::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| UnknownCopyCost(s.to_string()))
    }
}

/// A replication layer's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplicationConfig {
    /// The policy.
    pub policy: ReplicationPolicy,
    /// N: the disks, and the copies a replicated object has (1 ..= 8).
    pub disks: usize,
    /// Blocks an object (extent) spans.
    pub extent_blocks: u64,
    /// Blocks of the traced disk: objects cover `0..capacity`.
    pub capacity: u64,
    /// RNW1 family: how long after an object's last write completes its
    /// copies are made (Lo: 60 s).
    pub delay: Nanos,
}

/// Why a replication layer cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplicationError {
    /// N outside 1 ..= 8.
    #[error("copies: expected 1 ..= {MAX_COPIES} disks, got {0}")]
    Disks(usize),
    /// An extent of no blocks, or a disk without blocks.
    #[error("extent: expected a positive number of blocks on a disk of some blocks")]
    Extent,
    /// A request beyond the traced disk.
    #[error("blocks {block}..{end} lie beyond the traced disk ({capacity} blocks)")]
    Beyond {
        /// First block.
        block: u64,
        /// One past the last.
        end: u64,
        /// Blocks of the traced disk.
        capacity: u64,
    },
}

/// Copies of an object to make, once the driver has read it from one of
/// `sources`: the driver reads `blocks` blocks at `block` from a source,
/// then calls [`Replication::copy_read_done`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyJob {
    /// The object.
    pub object: u64,
    /// Its generation when the copies were asked for.
    pub generation: u32,
    /// Its current holders: read from one of them.
    pub sources: DiskSet,
    /// Its first block.
    pub block: u64,
    /// Its length in blocks (the last object may be short).
    pub blocks: u32,
}

/// A request to be told, at `at`, that `object` may be copied (if nothing
/// changed it since; see [`Replication::copy_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyTimer {
    /// When.
    pub at: Nanos,
    /// The object.
    pub object: u64,
    /// Its generation when the timer was set.
    pub generation: u32,
}

/// What the layer did, over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicationSummary {
    /// Objects the trace named.
    pub objects: u64,
    /// Cut-backs: writes that found an object with more than one copy.
    pub cut_backs: u64,
    /// Copies made (written, the object unchanged meanwhile).
    pub copies_made: u64,
    /// Copies written but discarded, their object written meanwhile.
    pub copies_discarded: u64,
    /// Copy jobs started (each one read of an extent).
    pub copy_jobs: u64,
}

/// One object's copy map and history.
#[derive(Clone, Copy, Debug, Default)]
struct Object {
    /// Named by the trace yet.
    known: bool,
    /// Disks holding a copy of the current generation.
    holders: DiskSet,
    /// The disk whose copy a cut-back keeps (RNW1); where the object was
    /// placed (scatter).
    master: u8,
    /// Counts the writes submitted.
    generation: u32,
    /// Writes submitted and not yet acknowledged.
    writes_in_flight: u32,
    /// Copy operations (reads and writes) in flight.
    copy_ops_in_flight: u32,
    /// Disks a copy is being made for, in the current generation.
    creating: DiskSet,
    /// A copy timer fired while copies of an older round were in flight:
    /// copy when they drain.
    copy_wanted: bool,
    /// History.
    reads: u32,
    writes: u32,
    last_write: Nanos,
}

/// The copy maps and histories of every object of one traced disk, under one
/// policy over N disks (see the module documentation).
pub struct Replication {
    config: ReplicationConfig,
    objects: Vec<Object>,
    /// Draws the disks of objects placed at random.
    placement: Stream,
    /// Draws the copy kept at a random cut-back.
    cut_back: Stream,
    summary: ReplicationSummary,
    /// What a copy costs: under [`CopyCost::Free`] the layer makes it.
    copy_cost: CopyCost,
    /// Whether a request crossing objects is cut into pieces.
    split: bool,
}

impl Replication {
    /// A layer with no object known yet; `placement` and `cut_back` are the
    /// streams of its random choices.
    ///
    /// # Errors
    /// [`ReplicationError::Disks`] for N outside 1 ..= 8;
    /// [`ReplicationError::Extent`] for an empty extent or disk.
    pub fn new(
        config: ReplicationConfig,
        placement: Stream,
        cut_back: Stream,
    ) -> Result<Self, ReplicationError> {
        if config.disks == 0 || config.disks > MAX_COPIES {
            return Err(ReplicationError::Disks(config.disks));
        }
        if config.extent_blocks == 0 || config.capacity == 0 {
            return Err(ReplicationError::Extent);
        }
        let objects = config.capacity.div_ceil(config.extent_blocks);
        Ok(Replication {
            config,
            objects: vec![Object::default(); objects as usize],
            placement,
            cut_back,
            summary: ReplicationSummary::default(),
            copy_cost: CopyCost::Foreground,
            split: true,
        })
    }

    /// The same layer with copies costing `cost` (by default
    /// [`CopyCost::Foreground`]: the driver does the work).
    pub fn with_copy_cost(mut self, cost: CopyCost) -> Self {
        self.copy_cost = cost;
        self
    }

    /// The same layer cutting requests across objects into pieces (`true`,
    /// the default) or giving each request to its first block's object.
    pub fn with_split(mut self, split: bool) -> Self {
        self.split = split;
        self
    }

    /// What a copy costs.
    pub fn copy_cost(&self) -> CopyCost {
        self.copy_cost
    }

    /// The parameters.
    pub fn config(&self) -> &ReplicationConfig {
        &self.config
    }

    /// What the layer did so far.
    pub fn summary(&self) -> ReplicationSummary {
        self.summary
    }

    /// The disks holding a current copy of `object`, as far as the trace has
    /// named it (an object never named has none).
    pub fn holders(&self, object: u64) -> DiskSet {
        self.objects
            .get(object as usize)
            .map_or(DiskSet::EMPTY, |o| o.holders)
    }

    /// The object holding `block`.
    pub fn object_of(&self, block: u64) -> u64 {
        block / self.config.extent_blocks
    }

    /// The objects a request of `blocks` blocks at `block` belongs to: all
    /// it covers, or only its first block's when not splitting.
    fn objects_of(&self, block: u64, blocks: u32) -> std::ops::RangeInclusive<u64> {
        let first = self.object_of(block);
        if self.split {
            first..=self.object_of(block + u64::from(blocks) - 1)
        } else {
            first..=first
        }
    }

    /// The blocks of `object`: its first block and length.
    fn extent(&self, object: u64) -> (u64, u32) {
        let e = self.config.extent_blocks;
        let first = object * e;
        (first, (self.config.capacity.min(first + e) - first) as u32)
    }

    fn all(&self) -> DiskSet {
        DiskSet::all(self.config.disks)
    }

    /// A disk drawn uniformly from `set` (non-empty).
    fn draw(stream: &mut Stream, set: DiskSet) -> usize {
        let k = stream.below(set.len() as u64) as usize;
        set.iter().nth(k).unwrap_or(0)
    }

    /// Makes `object` known on its first naming by a read or a write.
    fn first_touch(&mut self, object: u64, by_write: bool) {
        let policy = self.config.policy;
        let all = self.all();
        let o = &mut self.objects[object as usize];
        if o.known {
            return;
        }
        o.known = true;
        self.summary.objects += 1;
        let home = if policy.random_home() {
            Self::draw(&mut self.placement, all)
        } else {
            0
        };
        o.master = home as u8;
        o.holders = match policy {
            ReplicationPolicy::Rnwn => all,
            ReplicationPolicy::Scatter => DiskSet::only(home),
            _ if by_write => DiskSet::only(home),
            _ => all,
        };
    }

    /// Checks that `block..block + blocks` lies on the traced disk.
    fn check(&self, block: u64, blocks: u32) -> Result<(), ReplicationError> {
        let end = block.saturating_add(u64::from(blocks));
        if end > self.config.capacity || blocks == 0 {
            return Err(ReplicationError::Beyond {
                block,
                end,
                capacity: self.config.capacity,
            });
        }
        Ok(())
    }

    /// Calls `piece(first, blocks, disks)` for each run of consecutive
    /// objects of `block..block + blocks` whose `disks(object)` agree (once,
    /// with the first object's, when not splitting).
    fn pieces(
        &self,
        block: u64,
        blocks: u32,
        disks: impl Fn(&Object) -> DiskSet,
        mut piece: impl FnMut(u64, u32, DiskSet),
    ) {
        if !self.split {
            piece(
                block,
                blocks,
                disks(&self.objects[self.object_of(block) as usize]),
            );
            return;
        }
        let end = block + u64::from(blocks);
        let mut start = block;
        let mut current = disks(&self.objects[self.object_of(block) as usize]);
        let mut at = (self.object_of(block) + 1) * self.config.extent_blocks;
        while at < end {
            let next = disks(&self.objects[self.object_of(at) as usize]);
            if next != current {
                piece(start, (at - start) as u32, current);
                start = at;
                current = next;
            }
            at += self.config.extent_blocks;
        }
        piece(start, (end - start) as u32, current);
    }

    /// A read of `block..block + blocks` at `now`: calls `piece(first,
    /// blocks, holders)` for each run of objects held alike, `holders` being
    /// the disks with a current copy of all of them.
    ///
    /// # Errors
    /// [`ReplicationError::Beyond`] for blocks beyond the traced disk.
    pub fn read(
        &mut self,
        block: u64,
        blocks: u32,
        piece: impl FnMut(u64, u32, DiskSet),
    ) -> Result<(), ReplicationError> {
        self.check(block, blocks)?;
        for object in self.objects_of(block, blocks) {
            self.first_touch(object, false);
            self.objects[object as usize].reads += 1;
        }
        self.pieces(block, blocks, |o| o.holders, piece);
        Ok(())
    }

    /// A write of `block..block + blocks` at `now`: each object is cut back
    /// to one copy (RNW1 family) and its copies in the making are given up;
    /// calls `piece(first, blocks, targets)` for each run of objects written
    /// alike. The driver reports each piece's acknowledgement with
    /// [`write_done`](Self::write_done).
    ///
    /// # Errors
    /// [`ReplicationError::Beyond`] for blocks beyond the traced disk.
    pub fn write(
        &mut self,
        block: u64,
        blocks: u32,
        now: Nanos,
        piece: impl FnMut(u64, u32, DiskSet),
    ) -> Result<(), ReplicationError> {
        self.check(block, blocks)?;
        let policy = self.config.policy;
        for object in self.objects_of(block, blocks) {
            self.first_touch(object, true);
            let o = &mut self.objects[object as usize];
            o.generation = o.generation.wrapping_add(1);
            o.writes_in_flight += 1;
            o.writes += 1;
            o.last_write = now;
            o.creating = DiskSet::EMPTY;
            o.copy_wanted = false;
            if policy.is_dynamic() && o.holders.len() > 1 {
                let kept = if policy.random_cut_back() {
                    Self::draw(&mut self.cut_back, o.holders)
                } else {
                    usize::from(o.master)
                };
                o.master = kept as u8;
                o.holders = DiskSet::only(kept);
                self.summary.cut_backs += 1;
            }
        }
        self.pieces(block, blocks, |o| o.holders, piece);
        Ok(())
    }

    /// The write piece `block..block + blocks` (as [`write`](Self::write)
    /// gave it) is acknowledged at `now`: for each of its objects left with
    /// no write in flight and fewer than N copies, calls `timer` with when
    /// to make its copies.
    pub fn write_done(
        &mut self,
        block: u64,
        blocks: u32,
        now: Nanos,
        mut timer: impl FnMut(CopyTimer),
    ) {
        let policy = self.config.policy;
        let delay = self.config.delay;
        let n = self.config.disks;
        for object in self.objects_of(block, blocks) {
            let o = &mut self.objects[object as usize];
            o.writes_in_flight = o.writes_in_flight.saturating_sub(1);
            if policy.is_dynamic() && o.writes_in_flight == 0 && o.holders.len() < n {
                timer(CopyTimer {
                    at: now.saturating_add(delay),
                    object,
                    generation: o.generation,
                });
            }
        }
    }

    /// A copy timer is due: the copies to make, unless the object was
    /// written since (or already has them); `None` too while copy
    /// operations of an earlier round are in flight, the round then
    /// starting from [`copy_read_done`](Self::copy_read_done) or
    /// [`copy_written`](Self::copy_written) once they drain. Under
    /// [`CopyCost::Free`] the missing copies appear now and there is no
    /// job.
    pub fn copy_due(&mut self, timer: CopyTimer) -> Option<CopyJob> {
        let all = self.all();
        let o = &mut self.objects[timer.object as usize];
        if o.generation != timer.generation || o.writes_in_flight > 0 {
            return None;
        }
        if self.copy_cost == CopyCost::Free {
            // No copy operation is ever in flight under free copies.
            if !o.holders.is_empty() {
                self.summary.copies_made += all.difference(o.holders).len() as u64;
                o.holders = all;
            }
            return None;
        }
        if o.copy_ops_in_flight > 0 {
            o.copy_wanted = true;
            return None;
        }
        self.start_round(timer.object)
    }

    /// Starts making the missing copies of `object`, if any.
    fn start_round(&mut self, object: u64) -> Option<CopyJob> {
        let missing = self.all().difference(self.objects[object as usize].holders);
        let (block, blocks) = self.extent(object);
        let o = &mut self.objects[object as usize];
        o.copy_wanted = false;
        if missing.is_empty() || o.holders.is_empty() {
            return None;
        }
        o.creating = missing;
        o.copy_ops_in_flight += 1;
        self.summary.copy_jobs += 1;
        Some(CopyJob {
            object,
            generation: o.generation,
            sources: o.holders,
            block,
            blocks,
        })
    }

    /// The read of `job` completed: the disks to write the copy to, in one
    /// write (none if the object was written meanwhile). The driver reports
    /// the write with [`copy_written`](Self::copy_written); when there is
    /// none, a round asked for meanwhile may start, and is returned.
    pub fn copy_read_done(&mut self, job: &CopyJob) -> (DiskSet, Option<CopyJob>) {
        let o = &mut self.objects[job.object as usize];
        o.copy_ops_in_flight -= 1;
        let targets = if o.generation == job.generation {
            o.creating
        } else {
            DiskSet::EMPTY
        };
        if !targets.is_empty() {
            o.copy_ops_in_flight += 1;
        }
        let next = if o.copy_ops_in_flight == 0 && o.copy_wanted {
            self.start_round(job.object)
        } else {
            None
        };
        (targets, next)
    }

    /// The copy of `object` read in `generation` has been written to every
    /// disk of `targets`: they join the holders if the object is unchanged
    /// since. A round asked for while this one was in flight may start, and
    /// is returned.
    pub fn copy_written(
        &mut self,
        object: u64,
        generation: u32,
        targets: DiskSet,
    ) -> Option<CopyJob> {
        let o = &mut self.objects[object as usize];
        o.copy_ops_in_flight -= 1;
        let made = if o.generation == generation {
            targets.intersection(o.creating)
        } else {
            DiskSet::EMPTY
        };
        o.holders = o.holders.union(made);
        o.creating = o.creating.difference(made);
        self.summary.copies_made += made.len() as u64;
        self.summary.copies_discarded += (targets.len() - made.len()) as u64;
        if o.copy_ops_in_flight == 0 && o.copy_wanted {
            self.start_round(object)
        } else {
            None
        }
    }

    /// Whether every object is quiet: no write and no copy in flight.
    pub fn is_quiet(&self) -> bool {
        self.objects
            .iter()
            .all(|o| o.writes_in_flight == 0 && o.copy_ops_in_flight == 0)
    }

    /// The history of `object`: (reads, writes, last write), as far as the
    /// trace has named it.
    pub fn history(&self, object: u64) -> Option<(u32, u32, Nanos)> {
        self.objects
            .get(object as usize)
            .filter(|o| o.known)
            .map(|o| (o.reads, o.writes, o.last_write))
    }
}
