//! The drive an HP SRT trace was recorded on, as its header describes it.
//!
//! An SRT header (see [`crate::trace::srt`]) gives each traced disk's
//! geometry (`nspt`, `ntpc`, `ncyl`, `sectorsize`), its `rpm`, and, for HP's
//! own simulator, its mechanics:
//!
//! - `seekparms = {V1, V2, V3, V4, V5, V6}`: the HP Labs seek curve (Ruemmler
//!   & Wilkes; DiskSim's `hpl` seek type takes the same six values in ms):
//!   V2 + V3·√d below V1 cylinders, V4 + V5·d from V1 on, V6 for one
//!   cylinder. The header writes them in µs: the bundled trace's `hp335h`
//!   has {616, 3450, 597, 10840, 12, 2500}, that is 3.45 + 0.597·√d ms up
//!   to 615 cylinders and 10.84 + 0.012·d ms from 616 (the two pieces meet,
//!   18.27 against 18.23 ms, and a full stroke takes 28.2 ms, as µs make
//!   them and no other unit would), 2.5 ms for a single cylinder;
//! - `overhead`, µs a request (1100); `headswitch`, µs (1000);
//!   `sectorskew`, sectors (12).
//!
//! [`from_srt`] turns that into a [`DiskSpec`]. What the header leaves open
//! is decided here:
//!
//! - the seek curve becomes a table, one point per distance of the
//!   square-root part (the single-cylinder time at d = 1), then the linear
//!   part, as DiskSim's loader tabulates an `hpl` curve;
//! - rotational latency is drawn at random over one revolution, as Lo's Ivy
//!   simulator and the HP 7935/7937 presets take it, so that replications
//!   vary it and no phase between the spindles of a replicated array is
//!   assumed;
//! - the transfer follows the geometry at the header's speed (113 sectors of
//!   256 bytes a 15 ms revolution: 1.93 MB/s for the `hp335h`), the skew
//!   applies to tracks and cylinders alike, and there is no cache.
//!
//! DiskSim's configuration for the same trace (`hplajw.parv`) models an HP
//! C2249A instead, a different drive; it loads as any DiskSim file does
//! (`disksim:…/hplajw.parv`).

use super::{DiskError, DiskSpec, GeometrySpec, RotationSpec, SeekSpec, TransferSpec};
use crate::trace::SrtDisk;

/// The six values of an HPL seek curve, in µs (V1 in cylinders).
struct HplCurve {
    boundary: u32,
    short_us: f64,
    sqrt_us: f64,
    long_us: f64,
    per_cylinder_us: f64,
    single_us: f64,
}

impl HplCurve {
    /// The time of a seek over `d` > 0 cylinders, ms.
    fn ms(&self, d: u32) -> f64 {
        let x = f64::from(d);
        let us = if d == 1 {
            self.single_us
        } else if d < self.boundary {
            self.short_us + self.sqrt_us * x.sqrt()
        } else {
            self.long_us + self.per_cylinder_us * x
        };
        us / 1e3
    }
}

/// The value of header key `key` of `disk`, if present.
fn key<'a>(disk: &'a SrtDisk, key: &str) -> Option<&'a str> {
    disk.other
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The header's name for `field` of `disk`.
fn field(disk: &SrtDisk, field: &str) -> String {
    format!("disks.{}.{field}", disk.number)
}

/// An optional whole number of µs or sectors.
fn count(disk: &SrtDisk, name: &str) -> Result<u32, DiskError> {
    match key(disk, name) {
        None => Ok(0),
        Some(text) => text
            .trim()
            .parse()
            .map_err(|_| DiskError::invalid(&field(disk, name), text, "a whole number")),
    }
}

fn seek_curve(disk: &SrtDisk) -> Result<HplCurve, DiskError> {
    const EXPECTED: &str = "six whole numbers {V1, …, V6}: cylinders, then µs (HP Labs seek curve)";
    let name = field(disk, "seekparms");
    let text = key(disk, "seekparms").ok_or_else(|| DiskError::Field {
        field: name.clone(),
        message: "missing: the header gives no seek curve".into(),
    })?;
    let values = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .map(|t| {
            t.split(',')
                .map(|v| v.trim().parse::<u32>())
                .collect::<Result<Vec<_>, _>>()
        });
    let Some(Ok(v)) = values else {
        return Err(DiskError::invalid(&name, text, EXPECTED));
    };
    let [boundary, short, sqrt, long, per_cylinder, single] = v[..] else {
        return Err(DiskError::invalid(&name, text, EXPECTED));
    };
    Ok(HplCurve {
        boundary,
        short_us: f64::from(short),
        sqrt_us: f64::from(sqrt),
        long_us: f64::from(long),
        per_cylinder_us: f64::from(per_cylinder),
        single_us: f64::from(single),
    })
}

/// The drive of `disk`, an SRT header's description of a traced disk (see
/// the module documentation for what is read and what is decided).
///
/// # Errors
/// [`DiskError::Field`] when the header gives no `seekparms` or no `rpm`;
/// [`DiskError::InvalidParameter`] naming the header key (`disks.N.seekparms`,
/// `disks.N.overhead`, …) whose value is malformed; and whatever
/// [`DiskModel::from_spec`](super::DiskModel::from_spec) finds wrong with the
/// geometry.
pub fn from_srt(disk: &SrtDisk) -> Result<DiskSpec, DiskError> {
    let rpm = disk.rpm.ok_or_else(|| DiskError::Field {
        field: field(disk, "rpm"),
        message: "missing: rotation and transfer need the spindle speed".into(),
    })?;
    let curve = seek_curve(disk)?;
    let longest = disk.cylinders.saturating_sub(1).max(1);
    let last_sqrt = curve.boundary.saturating_sub(1).min(longest);
    let mut points: Vec<(u32, f64)> = (1..=last_sqrt.max(1)).map(|d| (d, curve.ms(d))).collect();
    for d in [curve.boundary.max(2), longest] {
        if d > points.last().map_or(0, |p| p.0) {
            points.push((d, curve.ms(d)));
        }
    }
    let skew = count(disk, "sectorskew")?;
    let spec = DiskSpec {
        name: disk
            .disk_type
            .clone()
            .unwrap_or_else(|| format!("srt-disk-{}", disk.number)),
        geometry: GeometrySpec {
            sector_bytes: disk.sector_size,
            track_skew: skew,
            cylinder_skew: skew,
            ..GeometrySpec::uniform(
                disk.cylinders,
                disk.tracks_per_cylinder,
                disk.sectors_per_track,
            )
        },
        rpm: Some(f64::from(rpm)),
        seek: SeekSpec::Table { points },
        rotation: RotationSpec::Random { max_ms: None },
        transfer: TransferSpec::Geometry,
        head_switch_ms: f64::from(count(disk, "headswitch")?) / 1e3,
        controller_overhead_ms: f64::from(count(disk, "overhead")?) / 1e3,
        cache: None,
    };
    super::DiskModel::from_spec(&spec)?;
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::DiskModel;
    use crate::trace::{self, TraceOptions};
    use sched_core::{Block, Blocks, Cyl, Head, Kind, Request, RequestId, ServiceEstimator};

    fn bundled_disk() -> SrtDisk {
        let path = shared_data::disksim_file("ajw.1week.srt");
        let reader = trace::open(path, None, TraceOptions::default()).unwrap();
        reader.srt_header().unwrap().disks[0].clone()
    }

    /// Seek time over `d` cylinders from cylinder 0, ms.
    fn seek_ms(disk: &DiskModel, d: u32) -> f64 {
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
    }

    #[test]
    fn the_bundled_trace_was_recorded_on_an_hp335h() {
        let spec = from_srt(&bundled_disk()).unwrap();
        assert_eq!(spec.name, "hp335h");
        let disk = DiskModel::from_spec(&spec).unwrap();
        assert_eq!((disk.cylinders(), disk.block_bytes()), (1449, 256));
        assert_eq!(disk.capacity_blocks(), 113 * 8 * 1449);
        assert_eq!(disk.overhead(), 1_100_000);
        assert_eq!(disk.head_switch(), 1_000_000);
        // 4002 rpm: a revolution of 14.99 ms, half of it on average.
        assert_eq!(disk.mean_rotational_latency(), 7_496_252);
        assert!((seek_ms(&disk, 1) - 2.5).abs() < 1e-6);
        for d in [2u32, 100, 615] {
            let want = 3.45 + 0.597 * f64::from(d).sqrt();
            assert!((seek_ms(&disk, d) - want).abs() < 1e-5, "d = {d}");
        }
        for d in [616u32, 1000, 1448] {
            let want = 10.84 + 0.012 * f64::from(d);
            assert!((seek_ms(&disk, d) - want).abs() < 1e-5, "d = {d}");
        }
    }

    #[test]
    fn a_malformed_or_missing_key_names_it() {
        let mut disk = bundled_disk();
        for (k, v) in &mut disk.other {
            if k == "seekparms" {
                *v = "{ 616, 3450, 597 }".into();
            }
        }
        let err = from_srt(&disk).unwrap_err().to_string();
        assert!(
            err.starts_with("`disks.0.seekparms` = { 616, 3450, 597 }: six"),
            "{err}"
        );
        disk.other.retain(|(k, _)| k != "seekparms");
        let err = from_srt(&disk).unwrap_err().to_string();
        assert_eq!(
            err,
            "field `disks.0.seekparms`: missing: the header gives no seek curve"
        );
        let mut disk = bundled_disk();
        disk.rpm = None;
        assert!(
            from_srt(&disk)
                .unwrap_err()
                .to_string()
                .contains("disks.0.rpm")
        );
    }
}
