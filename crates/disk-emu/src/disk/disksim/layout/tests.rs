//! Property and unit tests of the sparing arithmetic, through the geometry
//! that runs the resulting layouts.

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::*;
use crate::disk::{Geometry, GeometrySpec, SurfaceOrder, Zone, ZoneLayout};

/// A one-zone disk of `shape` laid out by `map`, with the given skews.
fn geometry(shape: Shape, map: &ZoneMap, order: SurfaceOrder, skews: (u32, u32, u32)) -> Geometry {
    let spt = shape.sectors_per_track;
    let spec = GeometrySpec {
        zones: vec![Zone {
            first_cylinder: 0,
            last_cylinder: shape.cylinders - 1,
            sectors_per_track: spt,
        }],
        zone_layout: vec![ZoneLayout {
            track_skew: Some(skews.0 % spt),
            cylinder_skew: Some(skews.1 % spt),
            first_skew: Some(skews.2 % spt),
            unused: map.unused.clone(),
            blocks: Some(map.blocks),
            skew_slips: map.skew_slips.clone(),
            remapped: map.remapped.clone(),
        }],
        surface_order: order,
        ..GeometrySpec::uniform(shape.cylinders, shape.surfaces, spt)
    };
    Geometry::new(&spec).unwrap()
}

/// The zone position of a block's place, in block order.
fn position(g: &Geometry, shape: Shape, order: SurfaceOrder, block: u64) -> u64 {
    let l = g.locate(block).unwrap();
    let backwards = match order {
        SurfaceOrder::Ascending => false,
        SurfaceOrder::SerpentinePerZone | SurfaceOrder::Serpentine => l.cylinder % 2 == 1,
    };
    let logical = if backwards {
        shape.surfaces - 1 - l.surface
    } else {
        l.surface
    };
    (u64::from(l.cylinder) * u64::from(shape.surfaces) + u64::from(logical))
        * u64::from(shape.sectors_per_track)
        + u64::from(l.sector)
}

fn layout(scheme: u64, shape: Shape, zone: ZoneSpares) -> (ZoneMap, Geometry) {
    let sparing = Sparing::from_disksim(scheme, 2).unwrap();
    let map = lay_out(sparing, shape, &zone).unwrap();
    let g = geometry(shape, &map, SurfaceOrder::Ascending, (0, 0, 0));
    (map, g)
}

const SHAPE: Shape = Shape {
    cylinders: 4,
    surfaces: 2,
    sectors_per_track: 10,
};

fn places(g: &Geometry) -> Vec<u64> {
    (0..g.capacity())
        .map(|b| position(g, SHAPE, SurfaceOrder::Ascending, b))
        .collect()
}

#[test]
fn zone_sparing_slips_move_later_blocks_on_into_the_spares() {
    // Scheme 9: 5 spares at the zone's end, sector 3 slipped.
    let zone = ZoneSpares {
        spares: 5,
        slips: vec![3],
        ..ZoneSpares::default()
    };
    let (map, g) = layout(9, SHAPE, zone.clone());
    assert_eq!(map.blocks, 80 - 5);
    let p = places(&g);
    assert_eq!(&p[..5], [0, 1, 2, 4, 5]);
    assert_eq!(*p.last().unwrap(), 75); // one spare used by the slip
    // Scheme 10: the slip costs a block instead (spares at the disk's end).
    let (map, g) = layout(10, SHAPE, zone);
    assert_eq!(map.blocks, 80 - 5 - 1);
    assert_eq!(*places(&g).last().unwrap(), 74);
}

#[test]
fn track_sparing_slips_whole_tracks() {
    // Scheme 1: one spare track, track 1 slipped, 3 blocks of management area.
    let zone = ZoneSpares {
        dead: 3,
        spares: 1,
        slips: vec![1],
        ..ZoneSpares::default()
    };
    let (map, g) = layout(1, SHAPE, zone);
    assert_eq!(map.blocks, 80 - 3 - 10);
    let p = places(&g);
    assert_eq!(&p[..8], [3, 4, 5, 6, 7, 8, 9, 20]);
    assert_eq!(*p.last().unwrap(), 79);
}

#[test]
fn per_cylinder_sparing_keeps_a_slip_in_its_cylinder_and_turns_later_skews() {
    // Scheme 2: 2 spares at the end of each 20-sector cylinder, sector 5
    // slipped: cylinder 0 still holds 18 blocks (one in its spares), and
    // cylinder 1 starts at its first sector, turned one sector on.
    let zone = ZoneSpares {
        spares: 2,
        slips: vec![5],
        ..ZoneSpares::default()
    };
    let (map, g) = layout(2, SHAPE, zone.clone());
    assert_eq!(map.blocks, 80 - 4 * 2);
    let p = places(&g);
    assert_eq!(&p[4..7], [4, 6, 7]);
    assert_eq!(p[17], 18);
    assert_eq!(p[18], 20);
    assert_eq!(map.skew_slips, [2]); // from track 2 (cylinder 1) on
    assert_eq!(g.locate(18).unwrap().skew, 1);
    assert_eq!(g.locate(0).unwrap().skew, 0);
    // Scheme 4: the slip pushes every later block on; cylinder 0 holds 17.
    let (map, g) = layout(4, SHAPE, zone.clone());
    assert_eq!(map.blocks, 80 - 4 * 2 - 1);
    let p = places(&g);
    assert_eq!(p[16], 17);
    assert_eq!(p[17], 20);
    // Scheme 5: the spares are at each cylinder's front; the slip moves the
    // cylinder's earlier blocks back into them.
    let (_, g) = layout(5, SHAPE, zone);
    let p = places(&g);
    assert_eq!(&p[..5], [1, 2, 3, 4, 6]);
    assert_eq!(p[18], 22);
}

#[test]
fn per_track_sparing_keeps_a_slip_on_its_track() {
    // Scheme 3: one spare at the end of each track, sector 2 slipped.
    let zone = ZoneSpares {
        spares: 1,
        slips: vec![2],
        ..ZoneSpares::default()
    };
    let (map, g) = layout(3, SHAPE, zone);
    assert_eq!(map.blocks, 80 - 8);
    let p = places(&g);
    assert_eq!(&p[..10], [0, 1, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert_eq!(map.skew_slips, [1]);
    assert_eq!(g.locate(9).unwrap().skew, 1);
}

#[test]
fn range_sparing_reserves_spares_per_full_range() {
    // Scheme 8, ranges of 2 cylinders (40 sectors): 3 spares each.
    let zone = ZoneSpares {
        spares: 3,
        ..ZoneSpares::default()
    };
    let (map, g) = layout(8, SHAPE, zone);
    assert_eq!(map.blocks, 80 - 2 * 3);
    let p = places(&g);
    assert_eq!(p[36], 36);
    assert_eq!(p[37], 40);
}

#[test]
fn a_defect_moves_its_block_to_the_spare() {
    let zone = ZoneSpares {
        spares: 4,
        defects: vec![(6, 79)],
        ..ZoneSpares::default()
    };
    let (map, g) = layout(9, SHAPE, zone);
    assert_eq!(map.remapped, [(6, 79)]);
    let p = places(&g);
    assert_eq!(&p[5..8], [5, 79, 7]);
    // The run before the defect stops at it.
    assert_eq!(g.locate(0).unwrap().left_on_track(), 6);
    let l = g.locate(6).unwrap();
    assert_eq!((l.cylinder, l.surface, l.sector), (3, 1, 9));
    assert_eq!(g.block(3, 1, 9).unwrap(), 6);
    assert!(g.block(0, 0, 6).is_err());
    // A spare that already holds a block is refused.
    let clash = ZoneSpares {
        spares: 4,
        defects: vec![(6, 7)],
        ..ZoneSpares::default()
    };
    let err = lay_out(Sparing::PerZone { slip_to_end: false }, SHAPE, &clash).unwrap_err();
    assert_eq!(err.0, "defects");
}

#[test]
fn a_slip_outside_the_zone_is_refused() {
    let zone = ZoneSpares {
        slips: vec![8],
        ..ZoneSpares::default()
    };
    let err = lay_out(Sparing::Tracks, SHAPE, &zone).unwrap_err();
    assert_eq!(err, ("slips", "8 is past the zone's last track (7)".into()));
}

fn scheme_and_zone() -> impl Strategy<Value = (u64, Shape, ZoneSpares, u32)> {
    (0u64..=10, 1u32..6, 1u32..4, 4u32..16, 1u32..4).prop_flat_map(
        |(scheme, cylinders, surfaces, spt, range)| {
            let shape = Shape {
                cylinders,
                surfaces,
                sectors_per_track: spt,
            };
            let positions = shape.positions();
            let slip_limit = if scheme == 1 {
                positions / u64::from(spt)
            } else {
                positions
            };
            let spares_max = match scheme {
                1 => u64::from(cylinders * surfaces) / 2 + 1,
                3 => u64::from(spt) / 2 + 1,
                _ => u64::from(spt) + 1,
            };
            (
                Just(scheme),
                Just(shape),
                0..spares_max,
                0..u64::from(spt) * 2,
                proptest::collection::btree_set(0..slip_limit, 0..3),
                proptest::collection::vec((0..positions, 0..positions), 0..3),
                Just(range),
            )
                .prop_map(|(scheme, shape, spares, dead, slips, defects, range)| {
                    let zone = ZoneSpares {
                        dead,
                        spares,
                        slips: slips.into_iter().collect(),
                        defects,
                    };
                    (scheme, shape, zone, range)
                })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Under every scheme and surface order, the block map is one to one
    /// onto positions that are neither slipped nor remapped defects, and
    /// agrees with the inverse map.
    #[test]
    fn every_scheme_maps_blocks_one_to_one(
        (scheme, shape, zone, range) in scheme_and_zone(),
        order in prop_oneof![
            Just(SurfaceOrder::Ascending),
            Just(SurfaceOrder::SerpentinePerZone),
            Just(SurfaceOrder::Serpentine)
        ],
        skews in (0u32..16, 0u32..16, 0u32..16),
    ) {
        let sparing = Sparing::from_disksim(scheme, range).unwrap();
        // Defects that clash are refused; those layouts are not laid out.
        let Ok(map) = lay_out(sparing, shape, &zone) else { return Ok(()); };
        if map.blocks == 0 {
            return Ok(());
        }
        let g = geometry(shape, &map, order, skews);
        let unit = if scheme == 1 { u64::from(shape.sectors_per_track) } else { 1 };
        let slipped: BTreeSet<u64> = if scheme == 0 {
            BTreeSet::new()
        } else {
            zone.slips.iter().flat_map(|&s| s * unit..(s + 1) * unit).collect()
        };
        let defects: BTreeSet<u64> = map.remapped.iter().map(|r| r.0).collect();
        let mut seen = BTreeSet::new();
        for block in 0..g.capacity() {
            let l = g.locate(block).unwrap();
            prop_assert_eq!(g.block(l.cylinder, l.surface, l.sector).unwrap(), block);
            let p = position(&g, shape, order, block);
            prop_assert!(seen.insert(p), "two blocks at position {}", p);
            prop_assert!(!slipped.contains(&p), "block {} on slipped position {}", block, p);
            prop_assert!(!defects.contains(&p), "block {} on defect {}", block, p);
        }
        // Every other place holds no block.
        let mut holding = 0;
        for c in 0..shape.cylinders {
            for s in 0..shape.surfaces {
                for sector in 0..shape.sectors_per_track {
                    holding += u64::from(g.block(c, s, sector).is_ok());
                }
            }
        }
        prop_assert_eq!(holding, g.capacity());
    }

    /// The first slot of every track is where the zone's skews (and the
    /// slips before it, under the per-track and per-cylinder schemes) put it.
    #[test]
    fn skews_place_each_tracks_first_slot(
        (scheme, shape, zone, range) in scheme_and_zone(),
        skews in (0u32..16, 0u32..16, 0u32..16),
    ) {
        let sparing = Sparing::from_disksim(scheme, range).unwrap();
        let Ok(map) = lay_out(sparing, shape, &zone) else { return Ok(()); };
        if map.blocks == 0 {
            return Ok(());
        }
        let g = geometry(shape, &map, SurfaceOrder::Ascending, skews);
        let spt = u64::from(shape.sectors_per_track);
        let (t, c, f) = (
            u64::from(skews.0) % spt,
            u64::from(skews.1) % spt,
            u64::from(skews.2) % spt,
        );
        let surfaces = u64::from(shape.surfaces);
        for block in 0..g.capacity() {
            let l = g.locate(block).unwrap();
            let (cyl, head) = (u64::from(l.cylinder), u64::from(l.surface));
            let track = cyl * surfaces + head;
            let slips = match sparing {
                Sparing::PerCylinder { .. } => {
                    zone.slips.iter().filter(|&&s| s / (spt * surfaces) < cyl).count()
                }
                Sparing::PerTrack => zone.slips.iter().filter(|&&s| s / spt < track).count(),
                _ => 0,
            } as u64;
            let expected = (f + cyl * ((surfaces - 1) * t + c) + head * t + slips) % spt;
            prop_assert_eq!(u64::from(l.skew), expected, "block {}", block);
        }
    }
}
