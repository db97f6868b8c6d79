//! Disk geometry: cylinders, surfaces, zoned sectors per track, track and
//! cylinder skew, and the mapping between logical blocks and physical places.
//!
//! Blocks are laid out cylinder-major, as SCSI drives number them: every track
//! of a cylinder (surface 0, 1, …) is filled before the next cylinder starts.
//! Skew rotates the start of each track so that a transfer running off the end
//! of one track finds the next track's first block just arriving after the
//! head switch (track skew) or the one-cylinder seek (cylinder skew).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::DiskError;

/// Bytes per sector when a spec does not say.
pub const DEFAULT_SECTOR_BYTES: u32 = 512;

fn default_sector_bytes() -> u32 {
    DEFAULT_SECTOR_BYTES
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// In which order the tracks of a cylinder take blocks (DiskSim's
/// `LBN-to-PBN mapping scheme`): blocks always fill a cylinder before the
/// next one; the order only says which surface comes first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SurfaceOrder {
    /// Every cylinder from surface 0 up (DiskSim's scheme 0).
    #[default]
    Ascending,
    /// Cylinders an odd number of cylinders from their zone's first run
    /// from the last surface down, so that the switch to them stays on the
    /// surface the previous cylinder ended on (scheme 1).
    SerpentinePerZone,
    /// Odd-numbered cylinders run from the last surface down, whatever
    /// zone they are in (scheme 2).
    Serpentine,
}

impl SurfaceOrder {
    fn is_ascending(&self) -> bool {
        *self == SurfaceOrder::Ascending
    }
}

/// A range of cylinders recorded with its own number of sectors per track
/// (zoned bit recording: outer zones hold more sectors than inner ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    /// First cylinder of the zone.
    pub first_cylinder: u32,
    /// Last cylinder of the zone (inclusive).
    pub last_cylinder: u32,
    /// Sectors on each track of the zone.
    pub sectors_per_track: u32,
}

/// Most cylinders a geometry may have (real drives have a few hundred
/// thousand).
pub(crate) const MAX_CYLINDERS: u32 = 1_000_000;
/// Most recording surfaces.
pub(crate) const MAX_SURFACES: u32 = 256;
/// Largest sector, bytes.
pub(crate) const MAX_SECTOR_BYTES: u32 = 65_536;
/// Most zones.
pub(crate) const MAX_ZONES: usize = 1_000;

/// The physical layout of a disk, as a [`DiskSpec`](super::DiskSpec) writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometrySpec {
    /// Number of cylinders (arm positions), at least 1.
    pub cylinders: u32,
    /// Tracks per cylinder: recording surfaces, one head each; at least 1.
    pub surfaces: u32,
    /// Sectors per track on every cylinder no zone covers; at least 1.
    pub sectors_per_track: u32,
    /// Zones with their own sectors per track: disjoint, in increasing
    /// cylinder order. Cylinders outside every zone use `sectors_per_track`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<Zone>,
    /// Bytes per sector (one sector is one logical block); 512 if omitted.
    #[serde(default = "default_sector_bytes")]
    pub sector_bytes: u32,
    /// Track skew in sectors: how far the first block of a track is rotated
    /// from the end of the previous track of the same cylinder.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub track_skew: u32,
    /// Cylinder skew in sectors: the same across a cylinder boundary.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cylinder_skew: u32,
    /// Layout details of the zones, for disks whose zones do not simply
    /// fill every sector with blocks (DiskSim models): none, or one entry
    /// per entry of `zones`, in the same order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zone_layout: Vec<ZoneLayout>,
    /// Which surface of a cylinder takes blocks first.
    #[serde(default, skip_serializing_if = "SurfaceOrder::is_ascending")]
    pub surface_order: SurfaceOrder,
}

/// How the blocks of one zone lie on it, where that differs from the plain
/// layout (every sector a block, disk-wide skews, the zone's first track
/// skewed on from the end of the previous zone): a management area at the
/// zone's front, slipped defects, spare space at its end, skews of its own.
///
/// Sector positions in a zone are counted from 0 in the zone's block
/// order: cylinder by cylinder, track by track within a cylinder (in the
/// [`SurfaceOrder`] of the geometry), and from each track's first slot (the
/// one its skew places) along the track. Blocks fill the positions that are
/// not `unused`, in that order, until the zone has `blocks` of them; the
/// positions left after the last block are spare. A block whose position
/// is a remapped defect lies at the defect's spare instead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneLayout {
    /// Track skew of this zone, sectors; `geometry.track_skew` if omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_skew: Option<u32>,
    /// Cylinder skew of this zone, sectors; `geometry.cylinder_skew` if omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cylinder_skew: Option<u32>,
    /// Physical slot, from the index mark, of the first slot of the zone's
    /// first track; if omitted, a cylinder skew after the end of the previous
    /// zone's last track (0 for the first zone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_skew: Option<u32>,
    /// Runs `[first position, count]` of sector positions that hold no block
    /// (a management area, slipped defects); they may come in any order and
    /// overlap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unused: Vec<(u64, u64)>,
    /// Blocks in the zone, at most its positions less the unused ones (which
    /// is the default): the positions after the last block are spare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u64>,
    /// Tracks of the zone, counted from 0 in block order, from which each
    /// entry turns the track's first slot one sector further: DiskSim moves
    /// the skew of every later track (per-track sparing) or cylinder
    /// (per-cylinder sparing) on by one sector for each slipped sector.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skew_slips: Vec<u64>,
    /// Remapped defects `[defect, spare]` (zone positions): the block whose
    /// position is the defect lies at the spare, which must hold no block.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remapped: Vec<(u64, u64)>,
}

impl GeometrySpec {
    /// A geometry with the same number of sectors on every track, 512-byte
    /// sectors and no skew.
    pub fn uniform(cylinders: u32, surfaces: u32, sectors_per_track: u32) -> Self {
        GeometrySpec {
            cylinders,
            surfaces,
            sectors_per_track,
            zones: Vec::new(),
            sector_bytes: DEFAULT_SECTOR_BYTES,
            track_skew: 0,
            cylinder_skew: 0,
            zone_layout: Vec::new(),
            surface_order: SurfaceOrder::Ascending,
        }
    }
}

/// Where a logical block lies on the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// Cylinder holding the block.
    pub cylinder: u32,
    /// Surface (head) within the cylinder: the physical one, whatever the
    /// [`SurfaceOrder`].
    pub surface: u32,
    /// Logical position on the track, counted from the track's first slot
    /// (the one its skew places): 0 is the track's first block when every
    /// sector holds one.
    pub sector: u32,
    /// Sectors on this track.
    pub sectors_per_track: u32,
    /// Physical slot, counted from the spindle's index mark, of the track's
    /// first slot: the accumulated track and cylinder skew.
    pub skew: u32,
    /// Blocks from this one to the end of its track, itself included.
    left: u32,
    /// Of those, the ones in consecutive slots from this one.
    contiguous: u32,
}

impl Location {
    /// Physical slot of the block, counted from the index mark: the angle at
    /// which it starts is `physical_sector / sectors_per_track` of a turn.
    pub fn physical_sector(&self) -> u32 {
        // The geometry places every block at a sector and a skew below the
        // sectors per track, so one subtraction reduces their sum (asked
        // for by every latency and transfer, it was a division each time).
        let slot = u64::from(self.sector) + u64::from(self.skew);
        let spt = u64::from(self.sectors_per_track);
        (if slot >= spt { slot - spt } else { slot }) as u32
    }

    /// Blocks from this one to the end of its track, itself included (fewer
    /// than the slots left when some of them are unused or spare; see
    /// [`ZoneLayout`]).
    pub fn left_on_track(&self) -> u32 {
        self.left
    }

    /// Blocks from this one that lie in consecutive slots of its track,
    /// itself included: up to the next unused slot or remapped defect.
    pub fn contiguous(&self) -> u32 {
        self.contiguous
    }
}

/// A run of sector positions of a band that holds no block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hole {
    /// First position of the run.
    start: u64,
    /// Position just past the run.
    end: u64,
    /// Usable positions before `start`.
    usable_before: u64,
}

/// What [`Geometry::place`] needs of one track, precomputed so that
/// locating a block needs no skew arithmetic and, on a plain track, no
/// further search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Track {
    /// Physical slot of the track's first slot (see [`Location::skew`]).
    skew: u32,
    /// Holes (of the band's) whose usable positions before them are at
    /// most the track's first position: where the search for the hole
    /// before a block numbered within the track's first position and the
    /// next track's starts.
    holes_before: u32,
    /// No unused position and no remapped defect on the track: every slot
    /// holds its block in order (up to the band's last block).
    plain: bool,
}

/// Where the band's blocks `j·spt .. (j+1)·spt` (its block track `j`)
/// lie when they fill a plain track from its first slot, as every track of
/// a band without holes, or with whole tracks unused, does: the whole place
/// of a block on it, but for its sector, is one table entry away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WholeTrack {
    /// The track's cylinder, or [`NOT_WHOLE`] for a block track whose
    /// blocks do not fill one plain track from its first slot (a hole or a
    /// remapped defect before them or among them): those are placed
    /// through the [`Track`] table.
    cylinder: u32,
    /// The track's physical surface.
    surface: u32,
    /// Physical slot of the track's first slot (see [`Location::skew`]).
    skew: u32,
}

/// [`WholeTrack::cylinder`] of a block track that fills no track whole
/// (no disk has this many cylinders: [`MAX_CYLINDERS`]).
const NOT_WHOLE: u32 = u32::MAX;

/// Bands with more tracks than this get no [`Track`] or [`WholeTrack`]
/// table (it would take more than 8 MiB) and locate blocks through their
/// holes alone.
const MAX_TABLE_TRACKS: u64 = 1 << 20;

/// A run of cylinders with the same sectors per track, with where its blocks
/// start, how its tracks are skewed and which of its positions hold none.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Band {
    first_cylinder: u32,
    cylinders: u32,
    sectors_per_track: u32,
    first_block: u64,
    first_skew: u32,
    track_skew: u32,
    cylinder_skew: u32,
    /// Blocks in the band.
    blocks: u64,
    /// Unused positions: sorted, disjoint, never adjacent.
    holes: Vec<Hole>,
    /// Tracks from which the skew turns one more sector, sorted.
    skew_slips: Vec<u64>,
    /// Remapped defects (defect position, spare position), sorted by defect.
    remapped: Vec<(u64, u64)>,
    /// The same, (spare, defect), sorted by spare.
    spares_used: Vec<(u64, u64)>,
    /// One entry per track in block order, or none for a band of more than
    /// [`MAX_TABLE_TRACKS`] tracks. Shared: the tables never change once
    /// built, and every replication's model is a clone (a copy of both
    /// tables was 0.9 MB for the HP 97560).
    tracks: Arc<[Track]>,
    /// One entry per block track (`spt` blocks from a multiple of `spt`),
    /// or none for a band of more than [`MAX_TABLE_TRACKS`] tracks.
    whole_tracks: Arc<[WholeTrack]>,
}

impl Band {
    /// Usable (not unused) positions before position `x`.
    fn usable_before(&self, x: u64) -> u64 {
        let i = self.holes.partition_point(|h| h.start < x);
        match i.checked_sub(1).map(|i| &self.holes[i]) {
            None => x,
            Some(h) if x <= h.end => h.usable_before,
            Some(h) => h.usable_before + (x - h.end),
        }
    }

    /// Position of the band's block number `k` (below `blocks`).
    fn position(&self, k: u64) -> u64 {
        self.position_from(0, self.holes.len(), k)
    }

    /// Position of the band's block number `k`, knowing that the holes
    /// before `from` have at most `k` usable positions before them and
    /// those from `to` more.
    fn position_from(&self, from: usize, to: usize, k: u64) -> u64 {
        let i = from + self.holes[from..to].partition_point(|h| h.usable_before <= k);
        match i.checked_sub(1).map(|i| &self.holes[i]) {
            None => k,
            Some(h) => h.end + (k - h.usable_before),
        }
    }

    /// Position of the band's block number `k` (below `blocks`), through
    /// the track table where there is one: the holes searched are those of
    /// the block's track.
    fn nominal(&self, k: u64) -> u64 {
        let t = (k / u64::from(self.sectors_per_track)) as usize;
        match self.tracks.get(t) {
            Some(track) => {
                let next = self.tracks.get(t + 1);
                let to = next.map_or(self.holes.len(), |n| n.holes_before as usize);
                self.position_from(track.holes_before as usize, to, k)
            }
            None => self.position(k),
        }
    }

    /// The spare holding the block whose position is `nominal`, if that is
    /// a remapped defect.
    fn spare_of(&self, nominal: u64) -> Option<u64> {
        if self.remapped.is_empty() {
            return None;
        }
        self.remapped
            .binary_search_by_key(&nominal, |r| r.0)
            .ok()
            .map(|i| self.remapped[i].1)
    }

    /// The band's block number that physically lies at position `p`: the
    /// block numbered there unless `p` is a remapped defect, or the block
    /// remapped to `p`.
    fn block_holding(&self, p: u64) -> Option<u64> {
        if let Ok(i) = self.spares_used.binary_search_by_key(&p, |r| r.0) {
            return self.block_at(self.spares_used[i].1);
        }
        if self.spare_of(p).is_some() {
            return None;
        }
        self.block_at(p)
    }

    /// Takes zone `index`'s remapped defects `[defect, spare]`: each defect
    /// a position that holds a block, each spare one that holds none, no
    /// position twice.
    fn remap(
        &mut self,
        index: usize,
        remapped: &[(u64, u64)],
        positions: u64,
    ) -> Result<(), DiskError> {
        let bad = |reason: String| DiskError::InvalidZone { index, reason };
        let mut seen = std::collections::BTreeSet::new();
        for &(defect, spare) in remapped {
            if defect >= positions || spare >= positions {
                return Err(bad(format!(
                    "remapped defect [{defect}, {spare}] lies past the zone's {positions} sector positions"
                )));
            }
            if self.block_at(defect).is_none() {
                return Err(bad(format!(
                    "remapped defect [{defect}, {spare}]: position {defect} holds no block to remap"
                )));
            }
            if self.block_at(spare).is_some() {
                return Err(bad(format!(
                    "remapped defect [{defect}, {spare}]: the spare position {spare} already holds a block"
                )));
            }
            if !seen.insert(defect) || !seen.insert(spare) {
                return Err(bad(format!(
                    "remapped defect [{defect}, {spare}] uses a position another remap uses"
                )));
            }
        }
        self.remapped = remapped.to_vec();
        self.remapped.sort_unstable();
        self.spares_used = remapped.iter().map(|&(d, s)| (s, d)).collect();
        self.spares_used.sort_unstable();
        Ok(())
    }

    /// The band's block number at position `p`, if one lies there.
    fn block_at(&self, p: u64) -> Option<u64> {
        let i = self.holes.partition_point(|h| h.start <= p);
        let k = match i.checked_sub(1).map(|i| &self.holes[i]) {
            None => p,
            Some(h) if p < h.end => return None,
            Some(h) => h.usable_before + (p - h.end),
        };
        (k < self.blocks).then_some(k)
    }
}

/// A validated geometry: the block ↔ (cylinder, surface, sector) mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    cylinders: u32,
    surfaces: u32,
    surface_order: SurfaceOrder,
    sector_bytes: u32,
    bands: Vec<Band>,
    capacity: u64,
    /// The bands' first blocks, in order: what finding a block's band reads.
    band_starts: Vec<u64>,
    /// For every run of 2^`bucket_shift` blocks from a multiple of it, the
    /// band holding its first block: a block's band is that one or one of
    /// the few after it, found without a search.
    bucket_bands: Vec<u32>,
    bucket_shift: u32,
}

/// Most entries of [`Geometry`]'s `bucket_bands` (16 KiB).
const MAX_BUCKETS: u64 = 4096;

/// Sorts and merges unused runs `[first, count]` of a zone with `positions`
/// sector positions into holes.
fn holes(
    index: usize,
    unused: &[(u64, u64)],
    positions: u64,
) -> Result<(Vec<Hole>, u64), DiskError> {
    let mut runs: Vec<(u64, u64)> = Vec::with_capacity(unused.len());
    for &(first, count) in unused {
        let end = first.checked_add(count).filter(|&end| end <= positions);
        let Some(end) = end else {
            return Err(DiskError::InvalidZone {
                index,
                reason: format!(
                    "unused run [{first}, {count}] runs past the zone's {positions} sector positions"
                ),
            });
        };
        if count > 0 {
            runs.push((first, end));
        }
    }
    runs.sort_unstable();
    let mut holes: Vec<Hole> = Vec::with_capacity(runs.len());
    let mut unused_total = 0;
    for (start, end) in runs {
        match holes.last_mut() {
            Some(last) if start <= last.end => {
                if end > last.end {
                    unused_total += end - last.end;
                    last.end = end;
                }
            }
            _ => {
                holes.push(Hole {
                    start,
                    end,
                    usable_before: start - unused_total,
                });
                unused_total += end - start;
            }
        }
    }
    Ok((holes, positions - unused_total))
}

impl Geometry {
    /// Checks a geometry and precomputes its layout.
    ///
    /// # Errors
    /// [`DiskError::Zero`] for zero cylinders, surfaces, sectors per track or
    /// sector bytes; [`DiskError::InvalidZone`] for zones that are empty,
    /// overlap, are out of order or lie past the last cylinder, and for zone
    /// layouts with unused runs past the zone or more blocks than it holds;
    /// [`DiskError::InvalidParameter`] for a skew not smaller than the sectors
    /// per track of every zone it applies to, a zone layout list that does not
    /// match the zones, or a disk without a single block.
    pub fn new(spec: &GeometrySpec) -> Result<Self, DiskError> {
        let nonzero = |value: u32, field: &'static str| {
            if value == 0 {
                Err(DiskError::Zero { field })
            } else {
                Ok(value)
            }
        };
        let cylinders = nonzero(spec.cylinders, "geometry.cylinders")?;
        let surfaces = nonzero(spec.surfaces, "geometry.surfaces")?;
        let default_spt = nonzero(spec.sectors_per_track, "geometry.sectors_per_track")?;
        let sector_bytes = nonzero(spec.sector_bytes, "geometry.sector_bytes")?;
        // Bounds well past real drives, so that what the model precomputes
        // per cylinder (its seek curve, the mean random seek) stays small.
        // Sectors per track are not bounded: nothing is kept per sector,
        // and the abstract disks of the analytic models are one track of
        // 2³¹ sectors.
        let at_most = |value: u32, max: u32, field: &str, expected: &'static str| {
            if value > max {
                Err(DiskError::invalid(field, value.to_string(), expected))
            } else {
                Ok(())
            }
        };
        at_most(
            cylinders,
            MAX_CYLINDERS,
            "geometry.cylinders",
            "at most 1000000",
        )?;
        at_most(surfaces, MAX_SURFACES, "geometry.surfaces", "at most 256")?;
        at_most(
            sector_bytes,
            MAX_SECTOR_BYTES,
            "geometry.sector_bytes",
            "at most 65536",
        )?;
        if spec.zones.len() > MAX_ZONES {
            return Err(DiskError::invalid(
                "geometry.zones",
                format!("{} zones", spec.zones.len()),
                "at most 1000 zones",
            ));
        }

        if !spec.zone_layout.is_empty() && spec.zone_layout.len() != spec.zones.len() {
            return Err(DiskError::invalid(
                "geometry.zone_layout",
                format!(
                    "{} entries for {} zones",
                    spec.zone_layout.len(),
                    spec.zones.len()
                ),
                "none, or one entry per zone",
            ));
        }

        // Runs of (first cylinder, cylinders, sectors per track, zone index)
        // covering the disk: the zones, with the default filling the gaps
        // between them.
        let mut runs = Vec::with_capacity(2 * spec.zones.len() + 1);
        let mut next = 0u32;
        for (index, zone) in spec.zones.iter().enumerate() {
            let bad = |reason: String| DiskError::InvalidZone { index, reason };
            if zone.sectors_per_track == 0 {
                return Err(bad("sectors_per_track is 0".into()));
            }
            if zone.first_cylinder > zone.last_cylinder {
                return Err(bad(format!(
                    "first_cylinder {} is after last_cylinder {}",
                    zone.first_cylinder, zone.last_cylinder
                )));
            }
            if zone.last_cylinder >= cylinders {
                return Err(bad(format!(
                    "last_cylinder {} is past the last cylinder of the disk ({})",
                    zone.last_cylinder,
                    cylinders - 1
                )));
            }
            if zone.first_cylinder < next {
                return Err(bad(format!(
                    "starts at cylinder {}, inside or before the previous zone",
                    zone.first_cylinder
                )));
            }
            if zone.first_cylinder > next {
                runs.push((next, zone.first_cylinder - next, default_spt, None));
            }
            runs.push((
                zone.first_cylinder,
                zone.last_cylinder - zone.first_cylinder + 1,
                zone.sectors_per_track,
                Some(index),
            ));
            next = zone.last_cylinder + 1;
        }
        if next < cylinders {
            runs.push((next, cylinders - next, default_spt, None));
        }
        let layout = |zone: Option<usize>| zone.and_then(|i| spec.zone_layout.get(i));

        // Each skew must be smaller than the sectors per track of every run it
        // applies to: the disk-wide skews where a zone has none of its own.
        for (global, name) in [
            (spec.track_skew, "track_skew"),
            (spec.cylinder_skew, "cylinder_skew"),
        ] {
            for &(_, _, spt, zone) in &runs {
                let own = layout(zone).and_then(|l| match name {
                    "track_skew" => l.track_skew,
                    _ => l.cylinder_skew,
                });
                let (skew, field) = match (own, zone) {
                    (Some(skew), Some(i)) => (skew, format!("geometry.zone_layout[{i}].{name}")),
                    _ => (global, format!("geometry.{name}")),
                };
                if skew >= spt {
                    return Err(DiskError::invalid(
                        &field,
                        skew,
                        "must be smaller than the sectors per track of every zone",
                    ));
                }
            }
        }

        let mut geometry = Geometry {
            cylinders,
            surfaces,
            surface_order: spec.surface_order,
            sector_bytes,
            bands: Vec::with_capacity(runs.len()),
            capacity: 0,
            band_starts: Vec::new(),
            bucket_bands: Vec::new(),
            bucket_shift: 0,
        };
        for (first_cylinder, count, spt, zone) in runs {
            let layout = layout(zone);
            let track_skew = layout.and_then(|l| l.track_skew).unwrap_or(spec.track_skew);
            let cylinder_skew = layout
                .and_then(|l| l.cylinder_skew)
                .unwrap_or(spec.cylinder_skew);
            let first_skew = match (layout.and_then(|l| l.first_skew), geometry.bands.last()) {
                (Some(skew), _) => {
                    if skew >= spt {
                        return Err(DiskError::invalid(
                            &format!("geometry.zone_layout[{}].first_skew", zone.unwrap_or(0)),
                            skew,
                            "must be smaller than the sectors per track of its zone",
                        ));
                    }
                    skew
                }
                (None, None) => 0,
                (None, Some(prev)) => {
                    // The new zone's first track starts a cylinder skew after
                    // the angle where the previous zone's last track ended,
                    // rounded up to a whole sector of the new zone.
                    let last = geometry.skew_in(
                        prev,
                        prev.first_cylinder + prev.cylinders - 1,
                        surfaces - 1,
                    );
                    let angle = (u64::from(last) * u64::from(spt))
                        .div_ceil(u64::from(prev.sectors_per_track));
                    ((angle + u64::from(cylinder_skew)) % u64::from(spt)) as u32
                }
            };
            let too_large =
                || DiskError::invalid("geometry", "too large", "a capacity below 2^64 blocks");
            let positions = u64::from(count)
                .checked_mul(u64::from(surfaces) * u64::from(spt))
                .ok_or_else(too_large)?;
            let (holes, usable) = match layout {
                Some(l) => holes(zone.unwrap_or(0), &l.unused, positions)?,
                None => (Vec::new(), positions),
            };
            let blocks = match layout.and_then(|l| l.blocks) {
                Some(blocks) if blocks > usable => {
                    return Err(DiskError::InvalidZone {
                        index: zone.unwrap_or(0),
                        reason: format!(
                            "{blocks} blocks do not fit in its {usable} usable sectors"
                        ),
                    });
                }
                Some(blocks) => blocks,
                None => usable,
            };
            let mut band = Band {
                first_cylinder,
                cylinders: count,
                sectors_per_track: spt,
                first_block: geometry.capacity,
                first_skew,
                track_skew,
                cylinder_skew,
                blocks,
                holes,
                skew_slips: Vec::new(),
                remapped: Vec::new(),
                spares_used: Vec::new(),
                tracks: Arc::from([]),
                whole_tracks: Arc::from([]),
            };
            if let Some(l) = layout {
                band.skew_slips = l.skew_slips.clone();
                band.skew_slips.sort_unstable();
                band.remap(zone.unwrap_or(0), &l.remapped, positions)?;
            }
            (band.tracks, band.whole_tracks) = geometry.track_tables(&band);
            geometry.capacity = geometry
                .capacity
                .checked_add(blocks)
                .ok_or_else(too_large)?;
            geometry.bands.push(band);
        }
        if geometry.capacity == 0 {
            return Err(DiskError::invalid(
                "geometry.zone_layout",
                "no blocks",
                "at least one block on the disk",
            ));
        }
        geometry.band_starts = geometry.bands.iter().map(|b| b.first_block).collect();
        let buckets_needed = geometry.capacity.div_ceil(MAX_BUCKETS);
        geometry.bucket_shift = u64::BITS - (buckets_needed - 1).leading_zeros();
        geometry.bucket_bands = (0..=(geometry.capacity - 1) >> geometry.bucket_shift)
            .map(|bucket| {
                let first = bucket << geometry.bucket_shift;
                (geometry.band_starts.partition_point(|&s| s <= first) - 1) as u32
            })
            .collect();
        Ok(geometry)
    }

    /// The band holding `block` (below the capacity). Bands without blocks
    /// share their first block with the next band, so it is the last band
    /// starting at or before `block`.
    fn band_holding(&self, block: u64) -> &Band {
        if let [only] = self.bands.as_slice() {
            return only;
        }
        let mut i = self.bucket_bands[(block >> self.bucket_shift) as usize] as usize;
        while self.band_starts.get(i + 1).is_some_and(|&s| s <= block) {
            i += 1;
        }
        &self.bands[i]
    }

    /// The [`Track`] and [`WholeTrack`] tables of `band`: empty for a band
    /// too large for them.
    fn track_tables(&self, band: &Band) -> (Arc<[Track]>, Arc<[WholeTrack]>) {
        let spt = u64::from(band.sectors_per_track);
        let tracks = u64::from(band.cylinders) * u64::from(self.surfaces);
        if tracks > MAX_TABLE_TRACKS {
            return (Arc::from([]), Arc::from([]));
        }
        let not_whole = WholeTrack {
            cylinder: NOT_WHOLE,
            surface: 0,
            skew: 0,
        };
        let mut whole = vec![not_whole; band.blocks.div_ceil(spt) as usize];
        let table = (0..tracks)
            .map(|t| {
                let (start, end) = (t * spt, (t + 1) * spt);
                let hole = band.holes.partition_point(|h| h.end <= start);
                let defect = band.remapped.partition_point(|r| r.0 < start);
                let plain = band.holes.get(hole).is_none_or(|h| h.start >= end)
                    && band.remapped.get(defect).is_none_or(|r| r.0 >= end);
                let cylinder = band.first_cylinder + (t / u64::from(self.surfaces)) as u32;
                let order = (t % u64::from(self.surfaces)) as u32;
                let skew = self.skew_in(band, cylinder, order);
                // A plain track whose first slot holds a block numbered a
                // multiple of `spt` holds that whole block track.
                let first = band.usable_before(start);
                if plain && first.is_multiple_of(spt) && first < band.blocks {
                    whole[(first / spt) as usize] = WholeTrack {
                        cylinder,
                        surface: self.surface_in(band, cylinder, order),
                        skew,
                    };
                }
                Track {
                    skew,
                    holes_before: band.holes.partition_point(|h| h.usable_before <= start) as u32,
                    plain,
                }
            })
            .collect();
        (table, whole.into())
    }

    /// Skew of track (`cylinder`, `surface`) of `band`, in its sectors,
    /// `surface` counted in the cylinder's block order.
    fn skew_in(&self, band: &Band, cylinder: u32, surface: u32) -> u32 {
        // Everything modulo the track first, so that it stays in 64 bits.
        let spt = u64::from(band.sectors_per_track);
        let per_cylinder = (u64::from(self.surfaces - 1) * u64::from(band.track_skew)
            + u64::from(band.cylinder_skew))
            % spt;
        let relative = u64::from(cylinder - band.first_cylinder);
        let track = relative * u64::from(self.surfaces) + u64::from(surface);
        let slips = band.skew_slips.partition_point(|&t| t <= track) as u64;
        let skew = u64::from(band.first_skew)
            + (relative % spt) * per_cylinder
            + u64::from(surface) * u64::from(band.track_skew)
            + slips % spt;
        (skew % spt) as u32
    }

    /// The physical surface of the track that comes `order`-th in
    /// `cylinder`'s block order (the map is its own inverse).
    fn surface_in(&self, band: &Band, cylinder: u32, order: u32) -> u32 {
        let backwards = match self.surface_order {
            SurfaceOrder::Ascending => false,
            SurfaceOrder::SerpentinePerZone => (cylinder - band.first_cylinder) % 2 == 1,
            SurfaceOrder::Serpentine => cylinder % 2 == 1,
        };
        if backwards {
            self.surfaces - 1 - order
        } else {
            order
        }
    }

    /// The band holding `cylinder` (which must exist).
    fn band_of_cylinder(&self, cylinder: u32) -> &Band {
        let i = self.bands.partition_point(|b| b.first_cylinder <= cylinder);
        &self.bands[i - 1]
    }

    /// Where `block` lies.
    ///
    /// # Errors
    /// [`DiskError::BlockOutOfRange`] for a block at or past the capacity.
    pub fn locate(&self, block: u64) -> Result<Location, DiskError> {
        if block >= self.capacity {
            return Err(DiskError::BlockOutOfRange {
                block,
                capacity: self.capacity,
            });
        }
        Ok(self.place(block))
    }

    /// The cylinder holding `block`: the cylinder of [`Geometry::locate`],
    /// found without placing the block on its track when its band has
    /// neither holes nor remapped defects (every position holds the block
    /// of its number), which is every band of the presets without a defect
    /// list.
    ///
    /// # Errors
    /// [`DiskError::BlockOutOfRange`] for a block past the end.
    pub fn cylinder_of(&self, block: u64) -> Result<u32, DiskError> {
        if block >= self.capacity {
            return Err(DiskError::BlockOutOfRange {
                block,
                capacity: self.capacity,
            });
        }
        let band = self.band_holding(block);
        if band.holes.is_empty() && band.remapped.is_empty() {
            let track = (block - band.first_block) / u64::from(band.sectors_per_track);
            return Ok(band.first_cylinder + (track / u64::from(self.surfaces)) as u32);
        }
        if band.remapped.is_empty() {
            // Without remapped defects a block lies at its nominal position
            // (as `place` finds it): only the track is wanted of it.
            let track = band.nominal(block - band.first_block) / u64::from(band.sectors_per_track);
            return Ok(band.first_cylinder + (track / u64::from(self.surfaces)) as u32);
        }
        Ok(self.place(block).cylinder)
    }

    /// Where `block` lies, for a block past the end the last block's place:
    /// for serving requests that were not checked against the capacity.
    pub(crate) fn locate_clamped(&self, block: u64) -> Location {
        self.place(block.min(self.capacity - 1))
    }

    /// Where the band's block `k`, at position `nominal`, lies if the band
    /// has a [`Track`] table and the block is on a plain track of it (the
    /// place the general case in [`Geometry::place`] gives, found faster).
    fn place_on_plain_track(&self, band: &Band, k: u64, nominal: u64) -> Option<Location> {
        let spt = u64::from(band.sectors_per_track);
        let t = nominal / spt;
        let track = band.tracks.get(t as usize).filter(|tr| tr.plain)?;
        let sector = nominal - t * spt;
        // Every later slot of a plain track is usable, so the blocks left
        // on it are its slots left, unless the band's blocks end first.
        let left = (spt - sector).min(band.blocks - k) as u32;
        let surfaces = u64::from(self.surfaces);
        let cylinder = band.first_cylinder + (t / surfaces) as u32;
        let order = (t % surfaces) as u32;
        Some(Location {
            cylinder,
            surface: self.surface_in(band, cylinder, order),
            sector: sector as u32,
            sectors_per_track: band.sectors_per_track,
            skew: track.skew,
            left,
            contiguous: left,
        })
    }

    /// Where `block` (below the capacity) lies. Inline for a block track
    /// that fills a plain track (every block of most disks), out of line
    /// for the rest.
    #[inline]
    fn place(&self, block: u64) -> Location {
        let band = self.band_holding(block);
        let spt = u64::from(band.sectors_per_track);
        let k = block - band.first_block;
        let j = k / spt;
        if let Some(whole) = band.whole_tracks.get(j as usize)
            && whole.cylinder != NOT_WHOLE
        {
            // The block track fills a plain track: the place
            // `place_on_plain_track` gives, without finding the track.
            let sector = k - j * spt;
            let left = (spt - sector).min(band.blocks - k) as u32;
            return Location {
                cylinder: whole.cylinder,
                surface: whole.surface,
                sector: sector as u32,
                sectors_per_track: band.sectors_per_track,
                skew: whole.skew,
                left,
                contiguous: left,
            };
        }
        self.place_in(band, k)
    }

    /// Where the band's block number `k` lies, through its [`Track`] table
    /// or its holes.
    #[inline(never)]
    fn place_in(&self, band: &Band, k: u64) -> Location {
        let spt = u64::from(band.sectors_per_track);
        let nominal = band.nominal(k);
        if let Some(location) = self.place_on_plain_track(band, k, nominal) {
            return location;
        }
        let (position, left, contiguous) = match band.spare_of(nominal) {
            // A remapped block is a run of its own.
            Some(spare) => (spare, 1, 1),
            None => {
                let track_end = (nominal / spt + 1) * spt;
                let left = (band.usable_before(track_end) - k).min(band.blocks - k);
                if band.holes.is_empty() && band.remapped.is_empty() {
                    // Every slot holds a block: the common, plain case.
                    (nominal, left, left)
                } else {
                    // A run stops before the next remapped defect on its track.
                    let next = band.remapped.partition_point(|r| r.0 < nominal);
                    let left = match band.remapped.get(next) {
                        Some(&(defect, _)) if defect < track_end => {
                            left.min(band.usable_before(defect) - k)
                        }
                        _ => left,
                    };
                    // Consecutive slots end at the next hole on the track.
                    let hole = band.holes.partition_point(|h| h.start <= nominal);
                    let contiguous = match band.holes.get(hole) {
                        Some(h) if h.start < track_end => left.min(h.start - nominal),
                        _ => left,
                    };
                    (nominal, left, contiguous)
                }
            }
        };
        let track = position / spt;
        let cylinder = band.first_cylinder + (track / u64::from(self.surfaces)) as u32;
        let order = (track % u64::from(self.surfaces)) as u32;
        Location {
            cylinder,
            surface: self.surface_in(band, cylinder, order),
            sector: (position % spt) as u32,
            sectors_per_track: band.sectors_per_track,
            skew: self.skew_in(band, cylinder, order),
            left: left as u32,
            contiguous: contiguous as u32,
        }
    }

    /// The logical block at (`cylinder`, `surface`, logical `sector` of the
    /// track): the inverse of [`Geometry::locate`].
    ///
    /// # Errors
    /// [`DiskError::AddressOutOfRange`] naming the coordinate that does not
    /// exist; [`DiskError::NoBlock`] for a place in a zone's unused or spare
    /// space.
    pub fn block(&self, cylinder: u32, surface: u32, sector: u32) -> Result<u64, DiskError> {
        let out = |field, value: u32, limit: u64| DiskError::AddressOutOfRange {
            field,
            value: u64::from(value),
            limit,
        };
        if cylinder >= self.cylinders {
            return Err(out("cylinder", cylinder, u64::from(self.cylinders)));
        }
        if surface >= self.surfaces {
            return Err(out("surface", surface, u64::from(self.surfaces)));
        }
        let band = self.band_of_cylinder(cylinder);
        if sector >= band.sectors_per_track {
            return Err(out("sector", sector, u64::from(band.sectors_per_track)));
        }
        let order = self.surface_in(band, cylinder, surface);
        let track =
            u64::from(cylinder - band.first_cylinder) * u64::from(self.surfaces) + u64::from(order);
        let position = track * u64::from(band.sectors_per_track) + u64::from(sector);
        band.block_holding(position)
            .map(|k| band.first_block + k)
            .ok_or(DiskError::NoBlock {
                cylinder,
                surface,
                sector,
            })
    }

    /// Number of cylinders.
    pub fn cylinders(&self) -> u32 {
        self.cylinders
    }

    /// Tracks per cylinder.
    pub fn surfaces(&self) -> u32 {
        self.surfaces
    }

    /// Bytes per sector (= per logical block).
    pub fn sector_bytes(&self) -> u32 {
        self.sector_bytes
    }

    /// The first block of every band (zone), in order.
    pub fn band_starts(&self) -> impl Iterator<Item = u64> + '_ {
        self.bands.iter().map(|b| b.first_block)
    }

    /// Capacity in blocks.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Sectors per track on `cylinder`, or `None` past the last cylinder.
    pub fn sectors_per_track(&self, cylinder: u32) -> Option<u32> {
        (cylinder < self.cylinders).then(|| self.band_of_cylinder(cylinder).sectors_per_track)
    }

    /// Runs of cylinders of equal capacity, as (first cylinder, number of
    /// cylinders, blocks per cylinder), in cylinder order; the blocks per
    /// cylinder add up to the capacity.
    ///
    /// A zone whose every sector holds a block is one run. A zone with a
    /// layout of unused or spare sectors has its blocks spread as evenly as
    /// whole numbers allow over its cylinders (at most two runs): exact in
    /// total, approximate on the cylinders that hold the unused or spare
    /// sectors.
    pub(crate) fn cylinder_runs(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        self.bands.iter().flat_map(|b| {
            let count = u64::from(b.cylinders);
            let (each, extra) = (b.blocks / count, (b.blocks % count) as u32);
            [
                (b.first_cylinder, extra, each + 1),
                (b.first_cylinder + extra, b.cylinders - extra, each),
            ]
            .into_iter()
            .filter(|run| run.1 > 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn zoned() -> GeometrySpec {
        // Cylinders 0–3 hold 20 sectors per track, 4–5 the default 10, 6–9 hold 8.
        GeometrySpec {
            zones: vec![
                Zone {
                    first_cylinder: 0,
                    last_cylinder: 3,
                    sectors_per_track: 20,
                },
                Zone {
                    first_cylinder: 6,
                    last_cylinder: 9,
                    sectors_per_track: 8,
                },
            ],
            track_skew: 2,
            cylinder_skew: 5,
            ..GeometrySpec::uniform(10, 2, 10)
        }
    }

    #[test]
    fn hp97560_layout_is_cylinder_major() {
        let g = Geometry::new(&GeometrySpec::uniform(1962, 19, 72)).unwrap();
        assert_eq!(g.capacity(), 2_684_016);
        let at = |b| {
            let l = g.locate(b).unwrap();
            (l.cylinder, l.surface, l.sector)
        };
        assert_eq!(at(0), (0, 0, 0));
        assert_eq!(at(71), (0, 0, 71));
        assert_eq!(at(72), (0, 1, 0));
        assert_eq!(at(72 * 19), (1, 0, 0));
        assert_eq!(at(72 * 19 * 1000 + 72 * 5 + 7), (1000, 5, 7));
        assert_eq!(at(2_684_015), (1961, 18, 71));
    }

    #[test]
    fn zones_change_sectors_per_track_and_capacity() {
        let g = Geometry::new(&zoned()).unwrap();
        // 4 cylinders × 2 tracks × 20 + 2 × 2 × 10 + 4 × 2 × 8.
        assert_eq!(g.capacity(), 160 + 40 + 64);
        assert_eq!(g.sectors_per_track(3), Some(20));
        assert_eq!(g.sectors_per_track(4), Some(10));
        assert_eq!(g.sectors_per_track(9), Some(8));
        assert_eq!(g.sectors_per_track(10), None);
        let l = g.locate(160).unwrap();
        assert_eq!(
            (l.cylinder, l.surface, l.sector, l.sectors_per_track),
            (4, 0, 0, 10)
        );
        let l = g.locate(199).unwrap();
        assert_eq!((l.cylinder, l.surface, l.sector), (5, 1, 9));
        let l = g.locate(200).unwrap();
        assert_eq!(
            (l.cylinder, l.surface, l.sector, l.sectors_per_track),
            (6, 0, 0, 8)
        );
        assert_eq!(
            g.cylinder_runs().collect::<Vec<_>>(),
            [(0, 4, 40), (4, 2, 20), (6, 4, 16)]
        );
    }

    #[test]
    fn skews_rotate_each_track_start() {
        let g = Geometry::new(&zoned()).unwrap();
        let skew = |c, s| g.locate(g.block(c, s, 0).unwrap()).unwrap().skew;
        // Zone 0 (20 sectors): +2 per track, +5 per cylinder boundary.
        assert_eq!(skew(0, 0), 0);
        assert_eq!(skew(0, 1), 2);
        assert_eq!(skew(1, 0), 7);
        assert_eq!(skew(1, 1), 9);
        assert_eq!(skew(3, 1), (3 * 7 + 2) % 20);
        // Zone boundary: the last track of zone 0 starts at slot 3 of 20, i.e.
        // 0.15 turn = slot 1.5 of 10, rounded up to 2, plus the cylinder skew 5.
        assert_eq!(skew(4, 0), 7);
        assert_eq!(skew(4, 1), 9);
        assert_eq!(skew(5, 0), (9 + 5) % 10);
        // A block's physical slot is its logical one shifted by the skew.
        let l = g.locate(g.block(1, 1, 15).unwrap()).unwrap();
        assert_eq!(l.physical_sector(), (15 + 9) % 20);
    }

    #[test]
    fn impossible_geometries_are_typed_errors() {
        let zero = |spec: GeometrySpec| match Geometry::new(&spec) {
            Err(DiskError::Zero { field }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(zero(GeometrySpec::uniform(0, 19, 72)), "geometry.cylinders");
        assert_eq!(zero(GeometrySpec::uniform(10, 0, 72)), "geometry.surfaces");
        assert_eq!(
            zero(GeometrySpec::uniform(10, 1, 0)),
            "geometry.sectors_per_track"
        );
        let mut spec = GeometrySpec::uniform(10, 1, 8);
        spec.sector_bytes = 0;
        assert_eq!(zero(spec), "geometry.sector_bytes");

        let mut spec = zoned();
        spec.zones[1].first_cylinder = 3;
        let err = Geometry::new(&spec).unwrap_err();
        assert!(
            matches!(err, DiskError::InvalidZone { index: 1, .. }),
            "{err}"
        );
        spec.zones[1] = Zone {
            first_cylinder: 8,
            last_cylinder: 10,
            sectors_per_track: 8,
        };
        let err = Geometry::new(&spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`geometry.zones[1]`: last_cylinder 10 is past the last cylinder of the disk (9)"
        );
        let mut spec = zoned();
        spec.track_skew = 8;
        let err = Geometry::new(&spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`geometry.track_skew` = 8: must be smaller than the sectors per track of every zone"
        );
    }

    #[test]
    fn addresses_past_the_end_name_the_value_and_the_limit() {
        let g = Geometry::new(&zoned()).unwrap();
        let err = g.locate(264).unwrap_err();
        assert!(matches!(
            err,
            DiskError::BlockOutOfRange {
                block: 264,
                capacity: 264
            }
        ));
        assert_eq!(
            err.to_string(),
            "block 264 is beyond the end of the disk (264 blocks)"
        );
        let err = g.block(5, 0, 10).unwrap_err();
        assert_eq!(err.to_string(), "sector 10 does not exist: the disk has 10");
        assert!(matches!(
            g.block(10, 0, 0),
            Err(DiskError::AddressOutOfRange {
                field: "cylinder",
                value: 10,
                limit: 10
            })
        ));
        assert!(matches!(
            g.block(0, 2, 0),
            Err(DiskError::AddressOutOfRange {
                field: "surface",
                ..
            })
        ));
    }

    /// Cylinders 0–2: 10 sectors × 2 surfaces with a layout (positions 0–4
    /// a management area, 23 slipped, 40–49 a slipped track, 40 blocks so
    /// positions 56–59 spare, own skews); cylinder 3: a zone without blocks;
    /// cylinder 4: the default 6 sectors.
    fn laid_out() -> GeometrySpec {
        GeometrySpec {
            zones: vec![
                Zone {
                    first_cylinder: 0,
                    last_cylinder: 2,
                    sectors_per_track: 10,
                },
                Zone {
                    first_cylinder: 3,
                    last_cylinder: 3,
                    sectors_per_track: 8,
                },
            ],
            zone_layout: vec![
                ZoneLayout {
                    track_skew: Some(3),
                    cylinder_skew: Some(4),
                    first_skew: Some(7),
                    unused: vec![(40, 10), (0, 5), (23, 1), (2, 2)],
                    blocks: Some(40),
                    ..ZoneLayout::default()
                },
                ZoneLayout {
                    blocks: Some(0),
                    ..ZoneLayout::default()
                },
            ],
            ..GeometrySpec::uniform(5, 2, 6)
        }
    }

    #[test]
    fn zone_layouts_skip_unused_and_spare_sectors() {
        let g = Geometry::new(&laid_out()).unwrap();
        assert_eq!(g.capacity(), 40 + 12);
        let at = |b| {
            let l = g.locate(b).unwrap();
            (l.cylinder, l.surface, l.sector, l.left_on_track())
        };
        assert_eq!(at(0), (0, 0, 5, 5));
        assert_eq!(at(17), (1, 0, 2, 7)); // position 22; 23 is slipped
        assert_eq!(at(18), (1, 0, 4, 6));
        assert_eq!(at(33), (1, 1, 9, 1));
        assert_eq!(at(34), (2, 1, 0, 6)); // after the slipped track 40–49
        assert_eq!(at(39), (2, 1, 5, 1)); // the zone's last block: spares follow
        assert_eq!(at(40), (4, 0, 0, 6)); // cylinder 3 holds none
        for (c, s, sector) in [(0, 0, 2), (1, 0, 3), (2, 0, 5), (2, 1, 6), (3, 0, 0)] {
            assert!(
                matches!(g.block(c, s, sector), Err(DiskError::NoBlock { .. })),
                "{c} {s} {sector}"
            );
        }
        let err = g.block(1, 0, 3).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cylinder 1, surface 0, sector 3 holds no block (unused or spare space)"
        );
        for block in 0..g.capacity() {
            let l = g.locate(block).unwrap();
            assert_eq!(g.block(l.cylinder, l.surface, l.sector).unwrap(), block);
        }
        // Skews: 7 + 7 per cylinder + 3 per surface, modulo 10.
        let skew = |c, s| g.locate(g.block(c, s, 5).unwrap()).unwrap().skew;
        assert_eq!(
            [skew(0, 0), skew(0, 1), skew(1, 0), skew(1, 1), skew(2, 1)],
            [7, 0, 4, 7, 4]
        );
        // Blocks per cylinder add up to the capacity.
        assert_eq!(
            g.cylinder_runs().collect::<Vec<_>>(),
            [(0, 1, 14), (1, 2, 13), (3, 1, 0), (4, 1, 12)]
        );
    }

    #[test]
    fn zone_layouts_are_checked_and_round_trip() {
        let toml = toml::to_string(&laid_out()).unwrap();
        assert_eq!(toml::from_str::<GeometrySpec>(&toml).unwrap(), laid_out());
        let broken = |change: fn(&mut GeometrySpec)| {
            let mut spec = laid_out();
            change(&mut spec);
            Geometry::new(&spec).unwrap_err().to_string()
        };
        assert_eq!(
            broken(|s| s.zone_layout[0].unused.push((55, 6))),
            "`geometry.zones[0]`: unused run [55, 6] runs past the zone's 60 sector positions"
        );
        assert_eq!(
            broken(|s| s.zone_layout[0].blocks = Some(45)),
            "`geometry.zones[0]`: 45 blocks do not fit in its 44 usable sectors"
        );
        assert_eq!(
            broken(|s| s.zone_layout[0].first_skew = Some(10)),
            "`geometry.zone_layout[0].first_skew` = 10: must be smaller than the sectors per track of its zone"
        );
        assert_eq!(
            broken(|s| s.zone_layout[1].track_skew = Some(8)),
            "`geometry.zone_layout[1].track_skew` = 8: must be smaller than the sectors per track of every zone"
        );
        assert_eq!(
            broken(|s| {
                s.zone_layout.pop();
            }),
            "`geometry.zone_layout` = 1 entries for 2 zones: none, or one entry per zone"
        );
        assert_eq!(
            broken(|s| {
                s.cylinders = 4;
                s.zone_layout[0].blocks = Some(0);
            }),
            "`geometry.zone_layout` = no blocks: at least one block on the disk"
        );
    }

    /// About `samples` blocks of `spec`, evenly spread, lie where they lie
    /// without the [`WholeTrack`] table (through the [`Track`] table), and
    /// without either, located through the holes alone.
    fn tables_agree_with_holes(spec: &GeometrySpec, samples: u64) {
        let g = Geometry::new(spec).unwrap();
        // Odd, so that the samples fall on every slot of a track.
        let step = (g.capacity() / samples).max(1) | 1;
        assert!(g.bands.iter().any(|b| !b.tracks.is_empty()));
        assert!(
            g.bands
                .iter()
                .any(|b| b.whole_tracks.iter().any(|w| w.cylinder != NOT_WHOLE))
        );
        let mut tracks_only = g.clone();
        for band in &mut tracks_only.bands {
            band.whole_tracks = Arc::from([]);
        }
        let mut plain = tracks_only.clone();
        for band in &mut plain.bands {
            band.tracks = Arc::from([]);
        }
        for block in (0..g.capacity()).step_by(step as usize) {
            let at = g.place(block);
            assert!(at.sector < at.sectors_per_track && at.skew < at.sectors_per_track);
            assert_eq!(at, tracks_only.place(block), "block {block}");
            assert_eq!(at, plain.place(block), "block {block}");
        }
    }

    #[test]
    fn a_blocks_band_is_the_last_starting_at_or_before_it() {
        // Zones of very different sizes, a zone without blocks (laid out),
        // a disk of fewer blocks than buckets and one of many more.
        let mut specs = vec![laid_out(), zoned(), GeometrySpec::uniform(1962, 19, 72)];
        specs.push(crate::disk::presets::preset("hp-c2247a").unwrap().geometry);
        for spec in specs {
            let g = Geometry::new(&spec).unwrap();
            assert!(g.bucket_bands.len() as u64 <= MAX_BUCKETS);
            let mut blocks: Vec<u64> = g
                .band_starts
                .iter()
                .flat_map(|&s| [s.saturating_sub(1), s, s + 1])
                .collect();
            blocks.extend((0..g.capacity()).step_by((g.capacity() / 5000).max(1) as usize));
            for block in blocks.into_iter().filter(|&b| b < g.capacity()) {
                let searched = g.bands.partition_point(|b| b.first_block <= block) - 1;
                assert!(
                    std::ptr::eq(g.band_holding(block), &g.bands[searched]),
                    "block {block}"
                );
            }
        }
    }

    #[test]
    fn track_tables_place_blocks_as_the_holes_do() {
        tables_agree_with_holes(&laid_out(), u64::MAX);
        for name in ["hp-c2247a", "hp-c3323a", "cheetah9lp", "ibm18es"] {
            let spec = crate::disk::presets::preset(name).unwrap();
            tables_agree_with_holes(&spec.geometry, 100_000);
        }
    }

    proptest! {
        #[test]
        fn locate_and_block_round_trip(block in 0u64..264) {
            let g = Geometry::new(&zoned()).unwrap();
            let l = g.locate(block).unwrap();
            prop_assert_eq!(g.block(l.cylinder, l.surface, l.sector).unwrap(), block);
            prop_assert!(l.sector < l.sectors_per_track);
            prop_assert_eq!(Some(l.sectors_per_track), g.sectors_per_track(l.cylinder));
        }

        #[test]
        fn consecutive_blocks_are_consecutive_slots(block in 0u64..263) {
            let g = Geometry::new(&zoned()).unwrap();
            let (a, b) = (g.locate(block).unwrap(), g.locate(block + 1).unwrap());
            if (a.cylinder, a.surface) == (b.cylinder, b.surface) {
                prop_assert_eq!(b.physical_sector(), (a.physical_sector() + 1) % a.sectors_per_track);
            } else {
                prop_assert_eq!(b.sector, 0);
                prop_assert_eq!(a.sector + 1, a.sectors_per_track);
            }
        }
    }
}
