//! Where every copy of an array's blocks is, which copies are current, and
//! the bounded buffer of copies still to propagate: the array-wide state of
//! an eager-writing array (Zhang, Yu, Krishnamurthy & Wang, FAST 2002), and
//! of the arrays that update in place, whose copies do not move.
//!
//! **Versions.** Every user write gets a version when it arrives (a
//! counter over the whole array). A copy holds the version last written to
//! it; the block's *current* version is the newest one any copy holds. A
//! read is sent only to copies holding the current version, so it returns
//! the newest version written before it arrived (or a newer one written
//! meanwhile). A propagation write carries the current version when it is
//! sent.
//!
//! **One write per copy at a time.** A write is sent to copies that have
//! no write of that block in flight (the driver holds a user write whose
//! every copy is busy until one frees): two writes of one copy never race,
//! so an older write cannot land after a newer one on the same copy.
//!
//! **Places.** With eager writing each write of a copy takes a new slot and
//! frees the copy's old one when it completes — or, if a read of the block
//! is in flight (it may be about to read the old slot), when the last such
//! read completes. A write that completes with an older version than its
//! copy already holds frees its own new slot instead. So every (block,
//! copy) owns exactly one slot at all times, no slot is owned twice, and
//! the free space is the region less one slot per copy held.

use std::collections::{HashMap, VecDeque};

use crate::array_layout::Layout;

/// Copies of a block as a bit mask: bit r = replica r (at most 8 copies:
/// [`crate::array_layout::MAX_ROTATIONAL`] rotational replicas, or up to 8
/// mirrors).
pub type ReplicaSet = u8;

/// The array-wide map of copies (see the module documentation).
#[derive(Clone, Debug)]
pub struct ReplicaMap {
    mirrors: usize,
    /// `[block · mirrors + replica]`: the copy's slot on its disk.
    slot: Vec<u32>,
    /// `[block · mirrors + replica]`: the version the copy holds.
    version: Vec<u32>,
    /// Each block's current version.
    current: Vec<u32>,
    /// Copies with a write in flight.
    writing: Vec<ReplicaSet>,
    /// Copies with a propagation buffered or in flight.
    pending: Vec<ReplicaSet>,
    /// Blocks with reads in flight: how many, and the slots (replica, slot)
    /// whose freeing waits for them.
    reads: HashMap<u64, (u32, Vec<(u32, u32)>)>,
    /// Versions given out so far.
    versions: u32,
}

impl ReplicaMap {
    /// Every block of `layout` at its initial slot on each replica, version 0.
    pub fn new(layout: &Layout) -> Self {
        Self::with_slots(layout, |local, _| layout.initial_slot(local))
    }

    /// Every block of `layout`, copy r of the block at local index `local`
    /// of its group at slot `place(local, r)`, version 0.
    pub fn with_slots(layout: &Layout, place: impl Fn(u64, u32) -> u64) -> Self {
        let mirrors = layout.copies() as usize;
        let blocks = layout.database as usize;
        let mut slot = Vec::with_capacity(blocks * mirrors);
        for b in 0..layout.database {
            let (_, local) = layout.locate(b);
            slot.extend((0..mirrors as u32).map(|r| place(local, r) as u32));
        }
        ReplicaMap {
            mirrors,
            slot,
            version: vec![0; blocks * mirrors],
            current: vec![0; blocks],
            writing: vec![0; blocks],
            pending: vec![0; blocks],
            reads: HashMap::new(),
            versions: 0,
        }
    }

    #[inline]
    fn at(&self, block: u64, replica: u32) -> usize {
        block as usize * self.mirrors + replica as usize
    }

    /// The slot replica `replica` of `block` occupies.
    #[inline]
    pub fn slot(&self, block: u64, replica: u32) -> u64 {
        u64::from(self.slot[self.at(block, replica)])
    }

    /// The version replica `replica` of `block` holds.
    #[inline]
    pub fn version(&self, block: u64, replica: u32) -> u32 {
        self.version[self.at(block, replica)]
    }

    /// The block's current version.
    #[inline]
    pub fn current(&self, block: u64) -> u32 {
        self.current[block as usize]
    }

    /// The copies holding the current version.
    pub fn fresh(&self, block: u64) -> ReplicaSet {
        let v = self.current(block);
        (0..self.mirrors as u32)
            .filter(|&r| self.version(block, r) == v)
            .fold(0, |m, r| m | 1 << r)
    }

    /// The copies with no write of `block` in flight.
    pub fn writable(&self, block: u64) -> ReplicaSet {
        let all = ((1u16 << self.mirrors) - 1) as ReplicaSet;
        all & !self.writing[block as usize]
    }

    /// A read of `block` is sent to the fresh copies: their slots stay
    /// owned until it completes.
    pub fn read_started(&mut self, block: u64) {
        self.reads.entry(block).or_insert((0, Vec::new())).0 += 1;
    }

    /// A read of `block` completed (or was withdrawn): the slots whose
    /// freeing waited for the block's last read, as (replica, slot).
    pub fn read_finished(&mut self, block: u64) -> Vec<(u32, u64)> {
        let Some(entry) = self.reads.get_mut(&block) else {
            return Vec::new();
        };
        entry.0 -= 1;
        if entry.0 > 0 {
            return Vec::new();
        }
        let (_, waiting) = self.reads.remove(&block).unwrap_or_default();
        waiting
            .into_iter()
            .map(|(r, s)| (r, u64::from(s)))
            .collect()
    }

    /// A user write of `block` arrives, sent to `copies` (writable ones):
    /// its version.
    pub fn write_started(&mut self, block: u64, copies: ReplicaSet) -> u32 {
        self.writing[block as usize] |= copies;
        self.versions += 1;
        self.versions
    }

    /// A propagation of the current version of `block` to `replica` is
    /// sent: its version.
    pub fn propagation_started(&mut self, block: u64, replica: u32) -> u32 {
        self.writing[block as usize] |= 1 << replica;
        self.current(block)
    }

    /// A write of `block` sent to `copies` completed on `replica`, with
    /// `version`, at `slot` (eager) or in place (`None`). Returns the slot
    /// to free now, if any (replica, slot); a slot a read in flight may
    /// still use is kept until the read completes.
    pub fn write_done(
        &mut self,
        block: u64,
        copies: ReplicaSet,
        replica: u32,
        version: u32,
        slot: Option<u64>,
    ) -> Option<(u32, u64)> {
        self.writing[block as usize] &= !copies;
        let at = self.at(block, replica);
        let freed = match slot {
            None => {
                // In place: the copy holds what was written last.
                self.version[at] = version;
                None
            }
            Some(new) if version > self.version[at] => {
                let old = self.slot[at];
                self.slot[at] = new as u32;
                self.version[at] = version;
                Some(old)
            }
            // An older version than the copy holds: its new slot goes back.
            Some(new) => return Some((replica, new)),
        };
        if version > self.current[block as usize] {
            self.current[block as usize] = version;
        }
        let old = freed?;
        match self.reads.get_mut(&block) {
            Some((_, waiting)) => {
                waiting.push((replica, old));
                None
            }
            None => Some((replica, u64::from(old))),
        }
    }

    /// Whether `replica` of `block` is behind its current version with no
    /// write or propagation of it buffered or in flight.
    pub fn needs_propagation(&self, block: u64, replica: u32) -> bool {
        let bit = 1 << replica;
        self.version(block, replica) < self.current(block)
            && self.pending[block as usize] & bit == 0
            && self.writing[block as usize] & bit == 0
    }

    /// Marks a propagation of `replica` of `block` buffered (`true`) or done
    /// with (`false`).
    pub fn set_pending(&mut self, block: u64, replica: u32, pending: bool) {
        let bit = 1 << replica;
        if pending {
            self.pending[block as usize] |= bit;
        } else {
            self.pending[block as usize] &= !bit;
        }
    }

    /// Blocks of the map.
    pub fn blocks(&self) -> u64 {
        self.current.len() as u64
    }

    /// Copies of every block.
    pub fn mirrors(&self) -> u32 {
        self.mirrors as u32
    }

    /// Slots whose freeing waits for reads in flight, per replica.
    pub fn held_slots(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.reads
            .values()
            .flat_map(|(_, w)| w.iter().map(|&(r, s)| (r, u64::from(s))))
    }
}

/// The array's bounded buffer of copies to propagate: a FIFO per disk of
/// (block, copy), at most `capacity` blocks in all, counting a propagation
/// until it is written (10,000 blocks in the paper's Figure 11).
#[derive(Clone, Debug)]
pub struct DelayedWrites {
    capacity: usize,
    held: usize,
    queues: Vec<VecDeque<(u64, u32)>>,
}

impl DelayedWrites {
    /// An empty buffer of `capacity` blocks for `disks` disks.
    pub fn new(capacity: usize, disks: usize) -> Self {
        DelayedWrites {
            capacity,
            held: 0,
            queues: vec![VecDeque::new(); disks],
        }
    }

    /// Buffers a propagation of copy `replica` of `block`, on `disk`; false
    /// when the buffer is full (the copy must then be written in the
    /// foreground).
    pub fn push(&mut self, disk: usize, block: u64, replica: u32) -> bool {
        if self.held >= self.capacity {
            return false;
        }
        self.held += 1;
        self.queues[disk].push_back((block, replica));
        true
    }

    /// The oldest propagation for `disk` not yet sent, as (block, copy); it
    /// stays counted until [`written`](Self::written).
    pub fn next_for(&mut self, disk: usize) -> Option<(u64, u32)> {
        self.queues[disk].pop_front()
    }

    /// A buffered propagation was written (or dropped as no longer needed).
    pub fn written(&mut self) {
        self.held -= 1;
    }

    /// Blocks held.
    pub fn held(&self) -> usize {
        self.held
    }

    /// The bound.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Propagations waiting to be sent to `disk`.
    pub fn waiting(&self, disk: usize) -> usize {
        self.queues[disk].len()
    }
}
