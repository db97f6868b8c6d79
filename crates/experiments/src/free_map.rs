//! Free-block maps of an eager-writing array's disks, and the search for the
//! free block the heads reach soonest.
//!
//! A disk's region of `region` array blocks (slot k = disk blocks
//! `k·s .. (k+1)·s` for blocks of s sectors) has a bitmap of free slots,
//! a free count per cylinder and a two-level bitmap of the cylinders that
//! have any free slot. The positions of the slots come from a [`TrackTable`]
//! built once per disk model and region: each slot's cylinder and angle
//! (the model's own: physical sector over sectors per track of a
//! revolution), and the slots of each track in block order.
//!
//! **The search** ([`FreeMap::nearest_free`]) walks the cylinders that have
//! a free slot outward from the arm in the sweep direction (the bitmap finds
//! each in a few word operations), and on each cylinder takes every track:
//! the time the heads would be ready there (controller overhead, seek,
//! head switch), the angle under them then, and — from a 64-bit mask of the
//! track's free slots rotated into angular order — the first free slot at
//! or after that angle, by a trailing-zero count. It stops at the first
//! cylinder whose seek alone takes longer than the best place found. Its
//! cost is per cylinder visited (one mask per track), not per block of the
//! disk: with a free slot on the arm's own cylinder it visits one or two.
//! Tracks of more than 64 slots are not covered by one mask; a table for
//! such a disk is refused ([`TrackTable::new`]).
//!
//! **Rotational replicas.** An SR-Array keeps each block several times on
//! its track ([`RotationalCopies`]); a stripe group's [`GroupSpace`] is told
//! which of them a request may be served at ([`GroupSpace::offer`]) and
//! names the one the heads reach first — the whole of SATF's choice on an
//! SR-Array, made by the disk's own estimate of each copy.

use std::collections::HashMap;
use std::sync::Arc;

use disk_emu::Places;
use disk_emu::disk::DiskModel;
use sched_core::array::Location;
use sched_core::{
    Cylinder, Direction, FreeBlock, Head, Nanos, Request, RequestId, ServiceEstimator,
};

/// One track of a region: its slots in block order.
#[derive(Clone, Copy, Debug)]
struct Track {
    surface: u32,
    first: u32,
    len: u8,
    /// Index (from `first`) of the slot with the smallest angle: slots
    /// `wrap..len` come first past the index mark, then `0..wrap`.
    wrap: u8,
}

/// Where the slots of a region lie on disks of one model.
#[derive(Debug)]
pub struct TrackTable {
    /// Sectors per slot.
    sectors: u32,
    /// Each slot's cylinder and angle from the index mark, ps.
    cylinder: Vec<Cylinder>,
    angle_ps: Vec<u64>,
    tracks: Vec<Track>,
    /// Tracks of each cylinder: `tracks[by_cylinder[c] .. by_cylinder[c + 1]]`.
    by_cylinder: Vec<u32>,
    period_ps: u64,
}

/// Why a track table cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TrackTableError {
    /// The model has no tracked rotation, or no geometry for the region.
    #[error("disk: eager writing needs a disk with tracked rotation and a geometric layout")]
    Untracked,
    /// A track with more slots than one mask covers.
    #[error("disk: a track holds {0} slots, eager writing handles at most 64")]
    TrackTooLong(u32),
}

impl TrackTable {
    /// The table of the first `region` slots of `sectors` sectors each on
    /// disks of `model`.
    ///
    /// # Errors
    /// [`TrackTableError`] for a model without tracked rotation or a
    /// region past the disk, or a track of more than 64 slots.
    pub fn new(model: &DiskModel, region: u64, sectors: u32) -> Result<Self, TrackTableError> {
        let period_ps = model.revolution_ps().ok_or(TrackTableError::Untracked)?;
        let geometry = model.geometry();
        let mut cylinder = Vec::with_capacity(region as usize);
        let mut angle_ps = Vec::with_capacity(region as usize);
        let mut tracks: Vec<Track> = Vec::new();
        let mut by_cylinder = vec![0u32];
        let mut last: Option<(Cylinder, u32)> = None;
        for slot in 0..region {
            let at = geometry
                .locate(slot * u64::from(sectors))
                .map_err(|_| TrackTableError::Untracked)?;
            let angle = u128::from(at.physical_sector()) * u128::from(period_ps)
                / u128::from(at.sectors_per_track);
            let angle = angle as u64;
            if last != Some((at.cylinder, at.surface)) {
                while by_cylinder.len() <= at.cylinder as usize {
                    by_cylinder.push(tracks.len() as u32);
                }
                tracks.push(Track {
                    surface: at.surface,
                    first: slot as u32,
                    len: 0,
                    wrap: 0,
                });
                last = Some((at.cylinder, at.surface));
            }
            let t = tracks.last_mut().expect("a track was just pushed");
            if t.len == 64 {
                return Err(TrackTableError::TrackTooLong(65));
            }
            if t.len > 0 && angle < angle_ps[(t.first + u32::from(t.wrap)) as usize] {
                t.wrap = t.len;
            }
            t.len += 1;
            cylinder.push(at.cylinder);
            angle_ps.push(angle);
        }
        by_cylinder.push(tracks.len() as u32);
        Ok(TrackTable {
            sectors,
            cylinder,
            angle_ps,
            tracks,
            by_cylinder,
            period_ps,
        })
    }

    /// Slots in the table.
    pub fn slots(&self) -> u64 {
        self.cylinder.len() as u64
    }

    /// Cylinders the region touches.
    pub fn cylinders(&self) -> u32 {
        (self.by_cylinder.len() - 1) as u32
    }

    /// Where slot `slot` starts.
    pub fn location(&self, slot: u64) -> Location {
        Location {
            block: slot * u64::from(self.sectors),
            cylinder: self.cylinder[slot as usize],
        }
    }

    /// Sectors per slot.
    pub fn sectors(&self) -> u32 {
        self.sectors
    }

    /// The tracks' first slots and lengths, in slot order.
    fn track_spans(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.tracks
            .iter()
            .map(|t| (u64::from(t.first), u64::from(t.len)))
    }
}

/// Where the rotational replicas of an SR-Array disk's blocks lie: block
/// `local` of the disk has `replicas` copies on one track, copy k at slot
/// `first + j + round(k · n / replicas)` of a track of n slots starting at
/// `first` holding the track's j-th block — copies a 1/`replicas` of a
/// revolution apart (to the slot). Tracks are filled from the outside in,
/// ⌊n / replicas⌋ blocks each; the slots left over at the end of a track
/// stay unused.
#[derive(Clone, Debug)]
pub struct RotationalCopies {
    replicas: u32,
    /// `[local · replicas + k]`: the slot of copy k of block `local`.
    slots: Vec<u32>,
}

/// Why the rotational replicas do not fit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "database: {blocks} blocks with {replicas} copies each on their track do not fit the {slots} slots of the disk's region"
)]
pub struct RotationalFitError {
    /// Blocks of the disk.
    pub blocks: u64,
    /// Copies of each.
    pub replicas: u32,
    /// Slots of the region tried.
    pub slots: u64,
}

impl RotationalCopies {
    /// Places `blocks` blocks with `replicas` copies each on the tracks of
    /// `table`.
    ///
    /// # Errors
    /// [`RotationalFitError`] when the table's tracks are too few.
    pub fn new(table: &TrackTable, blocks: u64, replicas: u32) -> Result<Self, RotationalFitError> {
        let r = u64::from(replicas.max(1));
        let mut slots = Vec::with_capacity((blocks * r) as usize);
        let mut placed = 0;
        for (first, n) in table.track_spans() {
            for j in 0..n / r {
                if placed == blocks {
                    break;
                }
                for k in 0..r {
                    let offset = (2 * k * n + r) / (2 * r);
                    slots.push((first + j + offset) as u32);
                }
                placed += 1;
            }
        }
        if placed < blocks {
            return Err(RotationalFitError {
                blocks,
                replicas,
                slots: table.slots(),
            });
        }
        Ok(RotationalCopies {
            replicas: replicas.max(1),
            slots,
        })
    }

    /// The slot of copy `copy` of block `local`.
    #[inline]
    pub fn slot(&self, local: u64, copy: u32) -> u64 {
        u64::from(self.slots[(local * u64::from(self.replicas) + u64::from(copy)) as usize])
    }

    /// Copies of every block.
    pub fn replicas(&self) -> u32 {
        self.replicas
    }

    /// Slots spanned from the first: the extent of the region used.
    pub fn extent(&self) -> u64 {
        self.slots.iter().max().map_or(0, |&s| u64::from(s) + 1)
    }
}

/// A bitmap of cylinders with a summary word per 64 words.
#[derive(Clone, Debug)]
struct CylinderSet {
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl CylinderSet {
    fn new(cylinders: u32) -> Self {
        let words = (cylinders as usize).div_ceil(64);
        CylinderSet {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
        }
    }

    fn insert(&mut self, c: Cylinder) {
        let w = c as usize / 64;
        self.words[w] |= 1 << (c % 64);
        self.summary[w / 64] |= 1 << (w % 64);
    }

    fn remove(&mut self, c: Cylinder) {
        let w = c as usize / 64;
        self.words[w] &= !(1 << (c % 64));
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
    }

    /// The first word index at or after `w` with a bit set.
    fn next_word(&self, w: usize) -> Option<usize> {
        let mut s = w / 64;
        let mut mask = self.summary.get(s)? & (u64::MAX << (w % 64));
        loop {
            if mask != 0 {
                return Some(s * 64 + mask.trailing_zeros() as usize);
            }
            s += 1;
            mask = *self.summary.get(s)?;
        }
    }

    /// The last word index at or before `w` with a bit set.
    fn prev_word(&self, w: usize) -> Option<usize> {
        let mut s = w / 64;
        let mut mask = self.summary[s] & (u64::MAX >> (63 - w % 64));
        loop {
            if mask != 0 {
                return Some(s * 64 + 63 - mask.leading_zeros() as usize);
            }
            s = s.checked_sub(1)?;
            mask = self.summary[s];
        }
    }

    /// The first cylinder at or after `c`.
    fn at_or_after(&self, c: Cylinder) -> Option<Cylinder> {
        let w = c as usize / 64;
        let here = self.words.get(w)? & (u64::MAX << (c % 64));
        if here != 0 {
            return Some((w * 64) as u32 + here.trailing_zeros());
        }
        let w = self.next_word(w + 1)?;
        Some((w * 64) as u32 + self.words[w].trailing_zeros())
    }

    /// The last cylinder at or before `c`.
    fn at_or_before(&self, c: Cylinder) -> Option<Cylinder> {
        let c = c.min((self.words.len() * 64 - 1) as u32);
        let w = c as usize / 64;
        let here = self.words[w] & (u64::MAX >> (63 - c % 64));
        if here != 0 {
            return Some((w * 64) as u32 + 63 - here.leading_zeros());
        }
        let w = self.prev_word(w.checked_sub(1)?)?;
        Some((w * 64) as u32 + 63 - self.words[w].leading_zeros())
    }
}

/// The free slots of one disk's region.
#[derive(Clone, Debug)]
pub struct FreeMap {
    free: Vec<u64>,
    per_cylinder: Vec<u32>,
    cylinders: CylinderSet,
    count: u64,
}

impl FreeMap {
    /// A region of the table's slots, none free.
    pub fn new(table: &TrackTable) -> Self {
        FreeMap {
            free: vec![0; (table.slots() as usize).div_ceil(64)],
            per_cylinder: vec![0; table.cylinders() as usize],
            cylinders: CylinderSet::new(table.cylinders()),
            count: 0,
        }
    }

    /// Free slots.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether `slot` is free.
    pub fn is_free(&self, slot: u64) -> bool {
        self.free
            .get(slot as usize / 64)
            .is_some_and(|w| w & (1 << (slot % 64)) != 0)
    }

    /// Marks `slot` free; false (and nothing changes) if it was already.
    pub fn release(&mut self, table: &TrackTable, slot: u64) -> bool {
        if self.is_free(slot) || slot >= table.slots() {
            return false;
        }
        self.free[slot as usize / 64] |= 1 << (slot % 64);
        let c = table.cylinder[slot as usize];
        self.per_cylinder[c as usize] += 1;
        if self.per_cylinder[c as usize] == 1 {
            self.cylinders.insert(c);
        }
        self.count += 1;
        true
    }

    /// Takes `slot` out of the free space; false (and nothing changes) if
    /// it was not free.
    pub fn take(&mut self, table: &TrackTable, slot: u64) -> bool {
        if !self.is_free(slot) {
            return false;
        }
        self.free[slot as usize / 64] &= !(1 << (slot % 64));
        let c = table.cylinder[slot as usize];
        self.per_cylinder[c as usize] -= 1;
        if self.per_cylinder[c as usize] == 0 {
            self.cylinders.remove(c);
        }
        self.count -= 1;
        true
    }

    /// The free slots of `track` as a mask in block order (bit i = slot
    /// `first + i`).
    fn track_mask(&self, track: &Track) -> u64 {
        let (first, len) = (track.first as usize, usize::from(track.len));
        let (w, b) = (first / 64, first % 64);
        let mut mask = self.free[w] >> b;
        if b + len > 64 {
            mask |= self.free[w + 1] << (64 - b);
        }
        if len < 64 {
            mask & ((1 << len) - 1)
        } else {
            mask
        }
    }

    /// The free slot the heads reach soonest on the arm's cylinder or
    /// beyond it in `sweep`, from `head` at `now` on `model` (see the module
    /// documentation), with its positioning time.
    pub fn nearest_free(
        &self,
        table: &TrackTable,
        model: &DiskModel,
        head: Head,
        now: Nanos,
        sweep: Direction,
    ) -> Option<(u64, Nanos)> {
        let mut best: Option<(u64, Nanos)> = None;
        let mut c = head.cylinder;
        loop {
            // No cylinder with a free slot beyond: the best found stands.
            let next = match sweep {
                Direction::Up => self.cylinders.at_or_after(c),
                Direction::Down => self.cylinders.at_or_before(c),
            };
            let Some(next) = next else {
                return best;
            };
            c = next;
            let seek = model.seek_time(c.abs_diff(head.cylinder));
            if best.is_some_and(|(_, b)| seek >= b) {
                return best;
            }
            if let Some(found) = self.best_on_cylinder(table, model, head, now, c, seek)
                && best.is_none_or(|(_, b)| found.1 < b)
            {
                best = Some(found);
            }
            c = match sweep {
                Direction::Up => c + 1,
                Direction::Down => match c.checked_sub(1) {
                    Some(below) => below,
                    None => return best,
                },
            };
        }
    }

    /// The free slot of cylinder `c` reached soonest after a seek of `seek`.
    fn best_on_cylinder(
        &self,
        table: &TrackTable,
        model: &DiskModel,
        head: Head,
        now: Nanos,
        c: Cylinder,
        seek: Nanos,
    ) -> Option<(u64, Nanos)> {
        let p = table.period_ps;
        let tracks = &table.tracks
            [table.by_cylinder[c as usize] as usize..table.by_cylinder[c as usize + 1] as usize];
        // The angle under the heads when they are ready to transfer, with
        // and without a head switch: two divisions per cylinder, not one per
        // track (this search runs at every dispatch of an eager write).
        let angle_under = |switch: Nanos| angle_at(now + model.overhead() + seek + switch, p);
        let switch_time = if c == head.cylinder {
            model.head_switch()
        } else {
            0
        };
        let (under_here, under_switched) = (angle_under(0), angle_under(switch_time));
        let mut best: Option<(u64, Nanos)> = None;
        for t in tracks {
            let mask = self.track_mask(t);
            if mask == 0 {
                continue;
            }
            let (switch, under) = if c == head.cylinder && t.surface != model.surface() {
                (switch_time, under_switched)
            } else {
                (0, under_here)
            };
            let len = u32::from(t.len);
            let wrap = u32::from(t.wrap);
            // The track's slots in angular order: wrap..len, then 0..wrap.
            let angular = if wrap == 0 {
                mask
            } else {
                (mask >> wrap) | ((mask << (len - wrap)) & ((1u128 << len) - 1) as u64)
            };
            let angle = |i: u32| table.angle_ps[(t.first + (wrap + i) % len) as usize];
            // The first slot in angular order at or after the angle under
            // the heads: angles rise in angular order, so a binary search.
            let (mut from, mut to) = (0, len);
            while from < to {
                let mid = (from + to) / 2;
                if angle(mid) < under {
                    from = mid + 1;
                } else {
                    to = mid;
                }
            }
            let ahead = if from < 64 { angular >> from } else { 0 };
            let i = if ahead != 0 {
                from + ahead.trailing_zeros()
            } else {
                angular.trailing_zeros()
            };
            let wait = (angle(i) + p - under) % p;
            let positioning = seek + switch + (wait + 500) / 1000;
            let slot = u64::from(t.first + (wrap + i) % len);
            if best.is_none_or(|(_, b)| positioning < b) {
                best = Some((slot, positioning));
            }
        }
        best
    }
}

/// The angle from the index mark, ps, under the heads at `at` (ns) on a
/// disk turning once every `period_ps` ps: in 64-bit arithmetic while the
/// time in picoseconds fits (about five hours), in 128-bit beyond.
fn angle_at(at: Nanos, period_ps: u64) -> u64 {
    match at.checked_mul(1000) {
        Some(ps) => ps % period_ps,
        None => (u128::from(at) * 1000 % u128::from(period_ps)) as u64,
    }
}

/// The places of one stripe group's disks, as its
/// [`ArrayDevice`](disk_emu::ArrayDevice) consults them: a [`FreeMap`] per
/// member disk over a shared [`TrackTable`] (eager writes), the rotational
/// copies of an SR-Array's blocks with the copies each request may be
/// served at, and where the operations started and not yet reported to the
/// driver were placed.
#[derive(Debug)]
pub struct GroupSpace {
    table: Arc<TrackTable>,
    maps: Vec<FreeMap>,
    rotational: Option<Arc<RotationalCopies>>,
    /// Requests that may be served at any of several rotational copies:
    /// the block's local index and the copies (a mask).
    offers: HashMap<RequestId, (u64, u8)>,
    /// Operations started at a place decided at dispatch: (request, member
    /// disk, slot).
    placed: Vec<(RequestId, usize, u64)>,
    /// Claims of places that were not free (an invariant broken; zero).
    conflicts: u64,
}

impl GroupSpace {
    /// `members` disks of `table`'s region, nothing free yet.
    pub fn new(table: Arc<TrackTable>, members: usize) -> Self {
        let maps = (0..members).map(|_| FreeMap::new(&table)).collect();
        GroupSpace {
            table,
            maps,
            rotational: None,
            offers: HashMap::new(),
            placed: Vec::new(),
            conflicts: 0,
        }
    }

    /// The same space, its blocks kept as `copies` on their tracks.
    pub fn with_rotational(mut self, copies: Arc<RotationalCopies>) -> Self {
        self.rotational = Some(copies);
        self
    }

    /// Request `id`, of the block at local index `local`, may be served at
    /// any of the rotational copies of `copies` (a mask); the nearest is
    /// taken when it starts.
    pub fn offer(&mut self, id: RequestId, local: u64, copies: u8) {
        self.offers.insert(id, (local, copies));
    }

    /// The table of the region.
    pub fn table(&self) -> &TrackTable {
        &self.table
    }

    /// Member `disk`'s map.
    pub fn map(&self, disk: usize) -> &FreeMap {
        &self.maps[disk]
    }

    /// Returns `slot` of member `disk` to the free space; false if it was
    /// free already.
    pub fn release(&mut self, disk: usize, slot: u64) -> bool {
        self.maps[disk].release(&self.table, slot)
    }

    /// Where operation `id` was placed at dispatch (member disk, slot),
    /// once: the driver asks when it completes.
    pub fn take_placement(&mut self, id: RequestId) -> Option<(usize, u64)> {
        let i = self.placed.iter().position(|p| p.0 == id)?;
        let (_, disk, slot) = self.placed.swap_remove(i);
        Some((disk, slot))
    }

    /// Claims of places that were not free: zero unless an invariant broke.
    pub fn conflicts(&self) -> u64 {
        self.conflicts
    }
}

impl Places for GroupSpace {
    fn nearest_free(
        &self,
        disk: usize,
        model: &DiskModel,
        head: Head,
        now: Nanos,
        sweep: Direction,
        blocks: u32,
    ) -> Option<FreeBlock> {
        if blocks != self.table.sectors {
            return None;
        }
        let (slot, positioning) =
            self.maps
                .get(disk)?
                .nearest_free(&self.table, model, head, now, sweep)?;
        Some(FreeBlock {
            at: self.table.location(slot),
            positioning,
        })
    }

    fn nearest_copy(
        &self,
        _disk: usize,
        model: &DiskModel,
        head: Head,
        now: Nanos,
        op: &Request,
    ) -> Option<FreeBlock> {
        let copies = self.rotational.as_ref()?;
        let &(local, mask) = self.offers.get(&op.id)?;
        (0..copies.replicas())
            .filter(|k| mask & 1 << k != 0)
            .map(|k| {
                let at = self.table.location(copies.slot(local, k));
                let moved = op.relocated(at);
                FreeBlock {
                    at,
                    positioning: model.positioning_time(head, &moved, now),
                }
            })
            .min_by_key(|c| (c.positioning, c.at.block))
    }

    fn claim(&mut self, disk: usize, op: &Request, at: Location) {
        let slot = at.block / u64::from(self.table.sectors);
        if self.offers.remove(&op.id).is_none() && !self.maps[disk].take(&self.table, slot) {
            self.conflicts += 1;
        }
        self.placed.push((op.id, disk, slot));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disk_emu::disk::presets;
    use sched_core::Kind;
    use sched_core::{Block, Blocks, Cyl};

    fn cheetah() -> DiskModel {
        DiskModel::from_spec(&presets::cheetah9lp_sync()).unwrap()
    }

    /// The search finds the place a brute-force scan of every free slot
    /// with the model's own estimate finds, within the few nanoseconds of
    /// rounding, from many arms and times.
    #[test]
    fn nearest_free_matches_brute_force_over_the_model() {
        let mut model = cheetah();
        let table = TrackTable::new(&model, 20_000, 8).unwrap();
        let mut map = FreeMap::new(&table);
        let mut rng = disk_emu::Stream::numbered(3);
        for slot in 0..table.slots() {
            if rng.below(3) == 0 {
                map.release(&table, slot);
            }
        }
        for k in 0..200u64 {
            let c = rng.below(u64::from(table.cylinders())) as u32;
            model.set_head(c);
            let now = 1_000_000 + k * 7_777_777;
            let head = Head::at(c);
            for sweep in [Direction::Up, Direction::Down] {
                let found = map.nearest_free(&table, &model, head, now, sweep);
                let brute = (0..table.slots())
                    .filter(|&s| map.is_free(s))
                    .filter(|&s| match sweep {
                        Direction::Up => table.cylinder[s as usize] >= c,
                        Direction::Down => table.cylinder[s as usize] <= c,
                    })
                    .map(|s| {
                        let at = table.location(s);
                        let req = Request::new(
                            RequestId(0),
                            Kind::Write,
                            Block(at.block),
                            Blocks(8),
                            Cyl(at.cylinder),
                            0,
                        );
                        (model.positioning_time(head, &req, now), s)
                    })
                    .min();
                match (found, brute) {
                    (Some((_, t)), Some((b, _))) => assert!(
                        t.abs_diff(b) <= 2,
                        "arm {c}, {sweep:?}: found {t} ns, brute force {b} ns"
                    ),
                    (None, None) => {}
                    other => panic!("arm {c}, {sweep:?}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn taking_and_releasing_keeps_the_counts() {
        let model = cheetah();
        let table = TrackTable::new(&model, 5_000, 8).unwrap();
        let mut map = FreeMap::new(&table);
        assert!(map.release(&table, 10));
        assert!(!map.release(&table, 10));
        assert!(map.take(&table, 10));
        assert!(!map.take(&table, 10));
        assert_eq!(map.count(), 0);
        for s in (0..5_000).step_by(2) {
            map.release(&table, s);
        }
        assert_eq!(map.count(), 2_500);
        let total: u32 = map.per_cylinder.iter().sum();
        assert_eq!(u64::from(total), map.count());
    }
}
