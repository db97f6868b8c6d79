//! The disks of the seed papers, as [`DiskSpec`]s, each with its sources.
//!
//! Where a paper leaves a figure out, the preset documents the value chosen
//! and why; any field can be changed with an override file (see
//! [`DiskSpec::from_file`]).

use super::{
    DiskError, DiskSpec, GeometrySpec, LongSeek, RotationSpec, SeekSpec, SpecFormat, TransferSpec,
};

/// Every preset: (name, one-line description), for `spindle presets`.
pub const PRESETS: [(&str, &str); 13] = [
    (
        "hp97560",
        "HP 97560: 1962x19x72 x 512 B, 4002 RPM, tracked rotation (Ruemmler & Wilkes 1994)",
    ),
    (
        "hp7935",
        "HP 7935: 1321x13x92 x 256 B, 3600 RPM, 1 MB/s, 3.5 ms overhead, long seeks 0.021 ms/cyl (Lo, Ivy 1990)",
    ),
    (
        "hp7935-printed",
        "HP 7935 with the long-seek slope as printed, 0.21 ms/cyl (a 65 ms jump at 342 cylinders)",
    ),
    (
        "hp7937",
        "HP 7937: 1396x13x123 x 256 B, 3600 RPM, 1 MB/s, 1 ms overhead, long seeks 0.018 ms/cyl (Lo, Ivy 1990)",
    ),
    (
        "hp7937-printed",
        "HP 7937 with the long-seek slope as printed, 0.18 ms/cyl (a 62 ms jump at 384 cylinders)",
    ),
    (
        "chen-towsley-91",
        "1000 tracks x 6 pages, seek 8 + 0.5 sqrt(i) ms, latency U[0, 16.7] ms (Chen & Towsley 1991)",
    ),
    (
        "ibm3330",
        "IBM 3330-11 style: p_s = 0.6, seek U[0, 60] ms, latency U[0, 16] ms (Towsley, Chen & Yu 1991)",
    ),
    (
        "exponential",
        "exponential service, mu = 45/s, no mechanics (Towsley, Chen & Yu 1991, analysis)",
    ),
    (
        "hp-c2247a",
        "HP C2247A, 1 GB, 5400 RPM, 8 zones, cached (DiskSim 4.0 valid/hp_c2247a.parv)",
    ),
    (
        "hp-c3323a",
        "HP C3323A, 1 GB, 5400 RPM, 8 zones, cached (DiskSim 4.0 valid/hp_c3323a.parv)",
    ),
    (
        "cheetah9lp",
        "Seagate Cheetah 9LP (ST39102LW), 9 GB, 10025 RPM, cached (DiskSim 4.0 valid/cheetah9LP.parv)",
    ),
    (
        "ibm18es",
        "IBM Ultrastar 18ES (DNES-309170W), 9 GB, 7200 RPM, cached (DiskSim 4.0 valid/ibm18es.parv)",
    ),
    (
        "cheetah9lp-sync",
        "Cheetah 9LP mechanics without the drive cache: writes reach the media (EW-Array experiments)",
    ),
];

/// The presets built from DiskSim's validated drives: (preset, the file of
/// DiskSim's `valid/` directory it is loaded from, the spec as loaded).
///
/// Each spec is what [`from_disksim`](super::from_disksim) makes of the
/// file, renamed to the preset, stored as TOML so that the presets need no
/// DiskSim files at run time; a test checks them against the files.
pub const DISKSIM_PRESETS: [(&str, &str, &str); 4] = [
    (
        "hp-c2247a",
        "hp_c2247a.parv",
        include_str!("presets/hp-c2247a.toml"),
    ),
    (
        "hp-c3323a",
        "hp_c3323a.parv",
        include_str!("presets/hp-c3323a.toml"),
    ),
    (
        "cheetah9lp",
        "cheetah9LP.parv",
        include_str!("presets/cheetah9lp.toml"),
    ),
    (
        "ibm18es",
        "ibm18es.parv",
        include_str!("presets/ibm18es.toml"),
    ),
];

/// The preset called `name` (see [`PRESETS`]), with its default parameters.
///
/// # Errors
/// [`DiskError::UnknownPreset`], listing the known names.
pub fn preset(name: &str) -> Result<DiskSpec, DiskError> {
    Ok(match name {
        "hp97560" => hp97560(),
        "hp7935" => hp7935(),
        "hp7935-printed" => hp7935_printed(),
        "hp7937" => hp7937(),
        "hp7937-printed" => hp7937_printed(),
        "chen-towsley-91" => chen_towsley_91(),
        "ibm3330" => ibm3330(0.6),
        "exponential" => exponential(45.0),
        "cheetah9lp-sync" => cheetah9lp_sync(),
        name => match DISKSIM_PRESETS.iter().find(|p| p.0 == name) {
            // The stored specs are checked by the tests: never malformed.
            Some((_, _, toml)) => {
                DiskSpec::parse(toml, SpecFormat::Toml).expect("a stored DiskSim preset parses")
            }
            None => {
                return Err(DiskError::UnknownPreset {
                    name: name.to_string(),
                    known: PRESETS.map(|(n, _)| n).join(", "),
                });
            }
        },
    })
}

/// The disk of the eager-writing array experiments (Zhang, Yu,
/// Krishnamurthy & Wang, FAST 2002, whose 36 disks were 10,000 RPM Seagate
/// ST39133LWV drives with a 5.2 ms average read seek): the Cheetah 9LP's
/// mechanics exactly as DiskSim validated them (`cheetah9lp`: 6962
/// cylinders, 12 surfaces, 11 zones of 254 down to 189 sectors, skews and
/// defects, the measured seek table, 10,045 RPM, 0.03 ms head switch)
/// without its drive cache.
///
/// The cached `cheetah9lp` does not suit: its write-back cache completes a
/// write before the write reaches the media, which the synchronous writes of
/// a transaction-processing workload forbid and which would hide exactly the
/// cost eager writing removes; and its read-ahead, useless for small random
/// I/O, moves the arm behind the scheduler's back. Without a cache the model
/// charges one controller overhead per request: 0.284 ms, DiskSim's
/// read-miss overhead for this drive (its write-miss overhead, 0.9 ms,
/// includes the bus handshake of the write-back path and is not taken).
pub fn cheetah9lp_sync() -> DiskSpec {
    let mut spec = preset("cheetah9lp").expect("a stored DiskSim preset");
    spec.name = "cheetah9lp-sync".into();
    spec.cache = None;
    spec.controller_overhead_ms = 0.284;
    spec
}

/// The HP 97560, the disk of the WRR-SCAN experiments.
///
/// - Geometry, speed and seek: Tsai, Chu & Huang, *WRR-SCAN* (EMSOFT '04),
///   Table 2, after Ruemmler & Wilkes, "An introduction to disk drive
///   modeling", IEEE Computer 27(3), 1994: 512-byte sectors, 1962 cylinders,
///   19 tracks per cylinder, 72 sectors per track, 4002 RPM; seek
///   3.24 + 0.400·√d ms for d < 383, 8.00 + 0.008·d ms otherwise.
/// - Head switch 1.6 ms, controller overhead 2.2 ms (reads and writes), track
///   skew 8 sectors, cylinder skew 18 sectors: Ruemmler & Wilkes' table of the
///   drive's characteristics, as transcribed in the FSS OMNeT++ disk model
///   (`hard_disk.h`, HP97560Disk). Both skews cover their switch: 8 sectors
///   are 1.67 ms > 1.6 ms, 18 sectors 3.75 ms > the 3.64 ms one-cylinder seek.
/// - Rotation is tracked from the clock (SPEC §3: SPTF and WRR-SCAN's
///   rotation accounting need it); transfer follows the geometry.
pub fn hp97560() -> DiskSpec {
    DiskSpec {
        name: "hp97560".into(),
        geometry: GeometrySpec {
            track_skew: 8,
            cylinder_skew: 18,
            ..GeometrySpec::uniform(1962, 19, 72)
        },
        rpm: Some(4002.0),
        seek: SeekSpec::SqrtLinear {
            a_ms: 3.24,
            b_ms: 0.400,
            c_ms: 0.0,
            long: Some(LongSeek {
                from: 383,
                a_ms: 8.00,
                b_ms: 0.008,
            }),
        },
        rotation: RotationSpec::Tracked,
        transfer: TransferSpec::Geometry,
        head_switch_ms: 1.6,
        controller_overhead_ms: 2.2,
        cache: None,
    }
}

/// The HP 7935 of Lo's Ivy study (HP Labs HPL-CSP-90-48, §4.2).
///
/// - Seek (§4.2.1): 3.993 + 1.676·√d − 0.025·d ms for 0 < d ≤ 342, else
///   19.502 + 0.021·d ms. The paper prints 0.21 for the long slope; with it
///   the two pieces do not meet (26.4 ms at d = 342, 91.5 ms at d = 343, a
///   296.7 ms full stroke), while 0.021 joins them (26.7 ms at d = 343), so
///   0.021 is taken as the intended figure and the printed one is kept as
///   [`hp7935_printed`].
/// - 3600 RPM, rotational latency drawn at random (§4.2.2: "we assumed a
///   random distribution", mean 8.3 ms): uniform over one revolution.
/// - Transfer 1 MB/s, taken as 10⁶ bytes/s (§4.2.3); controller overhead
///   3.5 ms (§4.2.4). The paper has no head switch: 0.
/// - Geometry, which the paper does not give: the drive's own, 1321 cylinders
///   × 13 surfaces × 92 sectors of 256 bytes (404 MB), from the 4.4BSD hp300
///   `rd` driver (`rdreg.h`, `rd_compat.c`: the 7935 is the removable-pack
///   7933H, 46 512-byte blocks × 13 tracks × 1321 cylinders = 789 958 blocks)
///   and HP's data for the 7935 (404.46 MB, 1321 cylinders, 13 data surfaces,
///   92 × 256-byte sectors per track).
pub fn hp7935() -> DiskSpec {
    hp7935_with("hp7935", 0.021)
}

/// The [`hp7935`] with the long-seek slope as the paper prints it, 0.21 ms
/// per cylinder: seeks of 343 cylinders or more cost 65 ms more than the
/// short-seek curve reaches.
pub fn hp7935_printed() -> DiskSpec {
    hp7935_with("hp7935-printed", 0.21)
}

fn hp7935_with(name: &str, long_slope_ms: f64) -> DiskSpec {
    DiskSpec {
        name: name.into(),
        geometry: GeometrySpec {
            sector_bytes: 256,
            ..GeometrySpec::uniform(1321, 13, 92)
        },
        rpm: Some(3600.0),
        seek: SeekSpec::SqrtLinear {
            a_ms: 3.993,
            b_ms: 1.676,
            c_ms: -0.025,
            long: Some(LongSeek {
                from: 343,
                a_ms: 19.502,
                b_ms: long_slope_ms,
            }),
        },
        rotation: RotationSpec::Random { max_ms: None },
        transfer: TransferSpec::Rate { bytes_per_s: 1e6 },
        head_switch_ms: 0.0,
        controller_overhead_ms: 3.5,
        cache: None,
    }
}

/// The HP 7937 of Lo's Ivy study (HP Labs HPL-CSP-90-48, §4.2).
///
/// - Seek (§4.2.1): 4.119 + 0.890·√d − 0.004·d ms for 0 < d ≤ 384, else
///   12.909 + 0.018·d ms. The paper prints 0.18, which leaves the curve
///   discontinuous (20.0 ms at d = 384, 82.2 ms at d = 385, a 264 ms full
///   stroke); 0.018 joins the pieces (19.8 ms at d = 385) and is taken as
///   intended, the printed figure kept as [`hp7937_printed`].
/// - 3600 RPM, random latency over one revolution, 1 MB/s (10⁶ bytes/s),
///   controller overhead 1 ms, no head switch, as for the [`hp7935`].
/// - Geometry, which the paper does not give: the drive's own, 1396 cylinders
///   × 13 surfaces × 123 sectors of 256 bytes (571 MB; the paper calls it
///   "approx. 500 Mbytes"), from the 4.4BSD hp300 `rd` driver (`rdreg.h`:
///   "7937: 123 x 13 x 1396" 256-byte sectors, 1 116 102 512-byte blocks).
pub fn hp7937() -> DiskSpec {
    hp7937_with("hp7937", 0.018)
}

/// The [`hp7937`] with the long-seek slope as the paper prints it, 0.18 ms
/// per cylinder: seeks of 385 cylinders or more cost 62 ms more than the
/// short-seek curve reaches.
pub fn hp7937_printed() -> DiskSpec {
    hp7937_with("hp7937-printed", 0.18)
}

fn hp7937_with(name: &str, long_slope_ms: f64) -> DiskSpec {
    DiskSpec {
        name: name.into(),
        geometry: GeometrySpec {
            sector_bytes: 256,
            ..GeometrySpec::uniform(1396, 13, 123)
        },
        rpm: Some(3600.0),
        seek: SeekSpec::SqrtLinear {
            a_ms: 4.119,
            b_ms: 0.890,
            c_ms: -0.004,
            long: Some(LongSeek {
                from: 385,
                a_ms: 12.909,
                b_ms: long_slope_ms,
            }),
        },
        rotation: RotationSpec::Random { max_ms: None },
        transfer: TransferSpec::Rate { bytes_per_s: 1e6 },
        head_switch_ms: 0.0,
        controller_overhead_ms: 1.0,
        cache: None,
    }
}

/// The disk of Chen & Towsley, *Performance of a Mirrored Disk in a
/// Real-Time Transaction System* (UMass TR 91-07), §4.1.1 and Table I.
///
/// - 1000 tracks, seek 8 + 0.5·√i ms for i > 0 tracks (eq. 1), latency
///   uniform on [0, 16.7] ms drawn at random, transfer 0.8 ms per request.
/// - The database of 6000 pages, one page per block, is spread uniformly:
///   one surface, 6 blocks per track, so the capacity is 6000 blocks.
/// - The page size is not given: 4 KiB is chosen (it only matters to
///   workloads counting bytes). No rotation speed, head switch or overhead.
pub fn chen_towsley_91() -> DiskSpec {
    DiskSpec {
        name: "chen-towsley-91".into(),
        geometry: GeometrySpec {
            sector_bytes: 4096,
            ..GeometrySpec::uniform(1000, 1, 6)
        },
        rpm: None,
        seek: SeekSpec::SqrtLinear {
            a_ms: 8.0,
            b_ms: 0.5,
            c_ms: 0.0,
            long: None,
        },
        rotation: RotationSpec::Random { max_ms: Some(16.7) },
        transfer: TransferSpec::Constant { ms: 0.8 },
        head_switch_ms: 0.0,
        controller_overhead_ms: 0.0,
        cache: None,
    }
}

/// The IBM 3330-11 style disk of Towsley, Chen & Yu, *Performance Analysis
/// of a Fault Tolerant Mirrored Disk System* (UMass TR 91-14), §4, with
/// probability of sequential access `p_s` (the paper's default is 0.6).
///
/// - Service X = U·X_S + X_L + X_T: U = 0 with probability p_s; seek X_S and
///   latency X_L uniform with means 30 ms and 8 ms, read as U[0, 60] ms and
///   U[0, 16] ms (the paper gives only the means); X_T = 2 ms. The mean service
///   is 22 ms at p_s = 0.6: the paper's μ = 45/s.
/// - Geometry, which only places blocks here (the seek ignores distance):
///   the 3330 Model 11's 808 cylinders (twice the Model 1's 404) of 19 data
///   tracks, formatted as 3 blocks of 4 KiB per track: the *IBM 3330 Series
///   Reference Manual* gives ⌊13 165 / (135 + DL)⌋ = 3 keyless records of
///   DL = 4096 bytes per track. The paper does not give its block size.
pub fn ibm3330(p_s: f64) -> DiskSpec {
    DiskSpec {
        name: "ibm3330".into(),
        geometry: GeometrySpec {
            sector_bytes: 4096,
            ..GeometrySpec::uniform(808, 19, 3)
        },
        rpm: None,
        seek: SeekSpec::Random {
            min_ms: 0.0,
            max_ms: 60.0,
            sequential_probability: p_s,
            per_request: false,
        },
        rotation: RotationSpec::Random { max_ms: Some(16.0) },
        transfer: TransferSpec::Constant { ms: 2.0 },
        head_switch_ms: 0.0,
        controller_overhead_ms: 0.0,
        cache: None,
    }
}

/// Exponential service with rate `rate_per_s` (μ), the assumption of the
/// analytic models of Towsley, Chen & Yu (UMass TR 91-14), who use
/// μ = 45/s; SPEC §3.
///
/// No mechanics: one cylinder holding every block (a single track of 2³¹
/// blocks of 512 bytes, more than any workload addresses), no seek, no
/// rotation; the whole service is reported as transfer time.
pub fn exponential(rate_per_s: f64) -> DiskSpec {
    DiskSpec {
        name: "exponential".into(),
        geometry: GeometrySpec::uniform(1, 1, 1 << 31),
        rpm: None,
        seek: SeekSpec::None,
        rotation: RotationSpec::None,
        transfer: TransferSpec::Exponential { rate_per_s },
        head_switch_ms: 0.0,
        controller_overhead_ms: 0.0,
        cache: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::DiskModel;

    #[test]
    fn every_listed_preset_builds() {
        for (name, description) in PRESETS {
            let spec = preset(name).unwrap();
            assert_eq!(spec.name, name);
            assert!(!description.is_empty());
            DiskModel::from_spec(&spec).unwrap();
        }
    }

    /// The whole-service and random-seek models of Towsley, Chen & Yu give
    /// a position-ordering policy nothing to gain; the mechanical disks do.
    #[test]
    fn which_presets_time_a_seek_by_its_distance() {
        let depends = |name: &str| {
            let spec = preset(name).unwrap();
            (
                spec.seek_depends_on_distance(),
                spec.positioning_depends_on_position(),
            )
        };
        assert_eq!(depends("exponential"), (false, false));
        assert_eq!(depends("ibm3330"), (false, false));
        assert_eq!(depends("hp97560"), (true, true));
        assert_eq!(depends("chen-towsley-91"), (true, true));
        assert_eq!(depends("cheetah9lp"), (true, true));
    }

    #[test]
    fn an_unknown_preset_lists_the_known_ones() {
        let err = preset("rk05").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown disk preset `rk05` (known: hp97560, hp7935, hp7935-printed, hp7937, hp7937-printed, chen-towsley-91, ibm3330, exponential, hp-c2247a, hp-c3323a, cheetah9lp, ibm18es, cheetah9lp-sync)"
        );
    }

    /// The paper's seek curves: the default reading joins the short and
    /// long pieces at their boundary, the printed one jumps by over 60 ms.
    #[test]
    fn ivy_seek_curves_continuous_by_default_and_as_printed() {
        use sched_core::{Block, Blocks, Cyl, Head, Kind, Request, RequestId, ServiceEstimator};
        // Seek time over `d` cylinders: positioning from cylinder 0 less the
        // mean rotational latency (drawn at random, so estimated by its mean).
        let seek = |spec: &DiskSpec, d: u32| {
            let disk = DiskModel::from_spec(spec).unwrap();
            let per_cylinder = disk.capacity_blocks() / u64::from(disk.cylinders());
            let req = Request::new(
                RequestId(0),
                Kind::Read,
                Block(u64::from(d) * per_cylinder),
                Blocks(1),
                Cyl(d),
                0,
            );
            let positioning = disk.positioning_time(Head::at(0), &req, 0);
            (positioning - disk.mean_rotational_latency()) as f64 / 1e6
        };
        for (spec, boundary, step_below_ms) in [
            (hp7935(), 342, 1.0),
            (hp7935_printed(), 342, 66.0),
            (hp7937(), 384, 1.0),
            (hp7937_printed(), 384, 63.0),
        ] {
            let jump = seek(&spec, boundary + 1) - seek(&spec, boundary);
            assert!(jump.abs() < step_below_ms, "{}: {jump} ms", spec.name);
        }
        assert!((seek(&hp7935_printed(), 343) - seek(&hp7935_printed(), 342) - 65.1).abs() < 0.1);
        assert!((seek(&hp7937_printed(), 385) - seek(&hp7937_printed(), 384) - 62.2).abs() < 0.1);
        assert!((seek(&hp7935(), 343) - 26.705).abs() < 0.001);
        assert!((seek(&hp7937(), 385) - 19.839).abs() < 0.001);
    }

    #[test]
    fn chen_towsley_holds_the_6000_page_database() {
        let disk = DiskModel::from_spec(&chen_towsley_91()).unwrap();
        assert_eq!((disk.cylinders(), disk.capacity_blocks()), (1000, 6000));
        assert_eq!(disk.locate(5999).unwrap(), 999);
    }
}
