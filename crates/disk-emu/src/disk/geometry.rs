//! Disk geometry: cylinders, surfaces, zoned sectors per track, track and
//! cylinder skew, and the mapping between logical blocks and physical places.
//!
//! Blocks are laid out cylinder-major, as SCSI drives number them: every track
//! of a cylinder (surface 0, 1, …) is filled before the next cylinder starts.
//! Skew rotates the start of each track so that a transfer running off the end
//! of one track finds the next track's first block just arriving after the
//! head switch (track skew) or the one-cylinder seek (cylinder skew).

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
        }
    }
}

/// Where a logical block lies on the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// Cylinder holding the block.
    pub cylinder: u32,
    /// Surface (head) within the cylinder.
    pub surface: u32,
    /// Logical position on the track: 0 is the track's first block.
    pub sector: u32,
    /// Sectors on this track.
    pub sectors_per_track: u32,
    /// Physical slot, counted from the spindle's index mark, of the track's
    /// first block: the accumulated track and cylinder skew.
    pub skew: u32,
}

impl Location {
    /// Physical slot of the block, counted from the index mark: the angle at
    /// which it starts is `physical_sector / sectors_per_track` of a turn.
    pub fn physical_sector(&self) -> u32 {
        ((u64::from(self.sector) + u64::from(self.skew)) % u64::from(self.sectors_per_track)) as u32
    }

    /// Blocks from this one to the end of its track, itself included.
    pub fn left_on_track(&self) -> u32 {
        self.sectors_per_track - self.sector
    }
}

/// A run of cylinders with the same sectors per track, with where its blocks
/// start and how its first track is skewed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Band {
    first_cylinder: u32,
    cylinders: u32,
    sectors_per_track: u32,
    first_block: u64,
    first_skew: u32,
}

impl Band {
    fn blocks_per_cylinder(&self, surfaces: u32) -> u64 {
        u64::from(surfaces) * u64::from(self.sectors_per_track)
    }
}

/// A validated geometry: the block ↔ (cylinder, surface, sector) mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    cylinders: u32,
    surfaces: u32,
    sector_bytes: u32,
    track_skew: u32,
    cylinder_skew: u32,
    bands: Vec<Band>,
    capacity: u64,
}

impl Geometry {
    /// Checks a geometry and precomputes its layout.
    ///
    /// # Errors
    /// [`DiskError::Zero`] for zero cylinders, surfaces, sectors per track or
    /// sector bytes; [`DiskError::InvalidZone`] for zones that are empty,
    /// overlap, are out of order or lie past the last cylinder;
    /// [`DiskError::InvalidParameter`] for a skew not smaller than the sectors
    /// per track of every zone.
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

        // Runs of (first cylinder, cylinders, sectors per track) covering the
        // disk: the zones, with the default filling the gaps between them.
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
                runs.push((next, zone.first_cylinder - next, default_spt));
            }
            runs.push((
                zone.first_cylinder,
                zone.last_cylinder - zone.first_cylinder + 1,
                zone.sectors_per_track,
            ));
            next = zone.last_cylinder + 1;
        }
        if next < cylinders {
            runs.push((next, cylinders - next, default_spt));
        }

        let min_spt = runs.iter().map(|r| r.2).min().unwrap_or(default_spt);
        for (skew, field) in [
            (spec.track_skew, "geometry.track_skew"),
            (spec.cylinder_skew, "geometry.cylinder_skew"),
        ] {
            if skew >= min_spt {
                return Err(DiskError::invalid(
                    field,
                    skew,
                    "must be smaller than the sectors per track of every zone",
                ));
            }
        }

        let mut geometry = Geometry {
            cylinders,
            surfaces,
            sector_bytes,
            track_skew: spec.track_skew,
            cylinder_skew: spec.cylinder_skew,
            bands: Vec::with_capacity(runs.len()),
            capacity: 0,
        };
        for (first_cylinder, count, spt) in runs {
            let first_skew = match geometry.bands.last() {
                None => 0,
                Some(prev) => {
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
                    ((angle + u64::from(spec.cylinder_skew)) % u64::from(spt)) as u32
                }
            };
            let band = Band {
                first_cylinder,
                cylinders: count,
                sectors_per_track: spt,
                first_block: geometry.capacity,
                first_skew,
            };
            geometry.capacity = u64::from(count)
                .checked_mul(band.blocks_per_cylinder(surfaces))
                .and_then(|blocks| blocks.checked_add(geometry.capacity))
                .ok_or_else(|| {
                    DiskError::invalid("geometry", "too large", "a capacity below 2^64 blocks")
                })?;
            geometry.bands.push(band);
        }
        Ok(geometry)
    }

    /// Skew of track (`cylinder`, `surface`) of `band`, in its sectors.
    fn skew_in(&self, band: &Band, cylinder: u32, surface: u32) -> u32 {
        let spt = u128::from(band.sectors_per_track);
        let per_cylinder = u128::from(self.surfaces - 1) * u128::from(self.track_skew)
            + u128::from(self.cylinder_skew);
        let skew = u128::from(band.first_skew)
            + u128::from(cylinder - band.first_cylinder) * per_cylinder
            + u128::from(surface) * u128::from(self.track_skew);
        (skew % spt) as u32
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

    /// Where `block` lies, for a block past the end the last block's place:
    /// for serving requests that were not checked against the capacity.
    pub(crate) fn locate_clamped(&self, block: u64) -> Location {
        self.place(block.min(self.capacity - 1))
    }

    /// Where `block` (below the capacity) lies.
    fn place(&self, block: u64) -> Location {
        let band = &self.bands[self.bands.partition_point(|b| b.first_block <= block) - 1];
        let spt = u64::from(band.sectors_per_track);
        let track = (block - band.first_block) / spt;
        let cylinder = band.first_cylinder + (track / u64::from(self.surfaces)) as u32;
        let surface = (track % u64::from(self.surfaces)) as u32;
        Location {
            cylinder,
            surface,
            sector: ((block - band.first_block) % spt) as u32,
            sectors_per_track: band.sectors_per_track,
            skew: self.skew_in(band, cylinder, surface),
        }
    }

    /// The logical block at (`cylinder`, `surface`, logical `sector` of the
    /// track): the inverse of [`Geometry::locate`].
    ///
    /// # Errors
    /// [`DiskError::AddressOutOfRange`] naming the coordinate that does not exist.
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
        let track = u64::from(cylinder - band.first_cylinder) * u64::from(self.surfaces)
            + u64::from(surface);
        Ok(band.first_block + track * u64::from(band.sectors_per_track) + u64::from(sector))
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

    /// Capacity in blocks.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Sectors per track on `cylinder`, or `None` past the last cylinder.
    pub fn sectors_per_track(&self, cylinder: u32) -> Option<u32> {
        (cylinder < self.cylinders).then(|| self.band_of_cylinder(cylinder).sectors_per_track)
    }

    /// Runs of cylinders of equal capacity, as (first cylinder, number of
    /// cylinders, blocks per cylinder), in cylinder order.
    pub(crate) fn cylinder_runs(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        self.bands.iter().map(|b| {
            (
                b.first_cylinder,
                b.cylinders,
                b.blocks_per_cylinder(self.surfaces),
            )
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
