//! Loading: DiskSim's disk, layout, mechanics, buffer, controller and bus
//! blocks mapped onto a [`DiskSpec`] (see the [module
//! documentation](super) for what maps to what).

use super::layout::{Shape, Sparing, ZoneSpares, lay_out};
use super::lex::{Files, Pos};
use super::parse::{Block, Tree, Value};
use super::read::Reader;
use super::seek_file::{SeekFileError, read_seek_curve};
use super::{DisksimDisk, DisksimOptions, DisksimOverheads};
use crate::disk::{
    AfterPrevious, BusSpec, CacheOverheads, CacheSpec, DiskError, DiskSpec, ExtraWriteDisconnect,
    GeometrySpec, LongSeek, ReadAheadScheme, ReadAheadSpec, RotationSpec, SeekSpec, SurfaceOrder,
    TransferSpec, WriteBack, WriteStart, Zone, ZoneLayout,
};

/// Bytes in one DiskSim block.
const SECTOR_BYTES: u32 = 512;

/// The most cylinders the square-root part of an `hpl` seek curve may span
/// (it becomes a table with a point per cylinder).
const MAX_TABLE_POINTS: u32 = 1_000_000;

pub(super) struct Loader<'a> {
    files: &'a Files,
    tree: &'a Tree,
}

// The parameters of each block the loader reads: those it uses, and those
// it ignores on purpose (why: in the module documentation's approximations,
// or as noted here). Any other key is refused, naming its file and line.

const DM_DISK_KEYS: [&str; 5] = [
    "Number of data surfaces",
    "Number of cylinders",
    "Block count",
    "Layout Model",
    "Mechanical Model",
];

const LAYOUT_KEYS: [&str; 5] = [
    "LBN-to-PBN mapping scheme",
    "Sparing scheme used",
    "Rangesize for sparing",
    "Skew units",
    "Zones",
];

const ZONE_KEYS: [&str; 11] = [
    "Skew units",
    "First cylinder number",
    "Last cylinder number",
    "Blocks per track",
    "Offset of first block",
    "Empty space at zone front",
    "Skew for track switch",
    "Skew for cylinder switch",
    "Number of spares",
    "slips",
    "defects",
];

const MECH_KEYS: [&str; 9] = [
    "Access time type",
    "Seek type",
    "Full seek curve",
    "HPL seek equation values",
    "First ten seek times",
    "Constant seek time",
    "Head switch time",
    "Rotation speed (in rpms)",
    "Add. write settling delay",
];

/// Only DiskSim's `linear` and `curve` seek types (refused) use the first
/// three; the rpm error draws a per-disk speed DiskSim's validated models
/// all set to 0.
const MECH_IGNORED: [&str; 4] = [
    "Average seek time",
    "Single cylinder seek time",
    "Full strobe seek time",
    "Percent error in rpms",
];

const DISK_KEYS: [&str; 37] = [
    "Model",
    "Per-request overhead time",
    "Time scale for overheads",
    "Bulk sector transfer time",
    "Number of buffer segments",
    "Segment size (in blks)",
    "Enable caching in buffer",
    "Use separate write segment",
    "Allow read hits on write data",
    "Read any free blocks",
    "Fast write level",
    "Buffer continuous read",
    "Minimum read-ahead (blks)",
    "Maximum read-ahead (blks)",
    "Read-ahead over requested",
    "Read-ahead on idle hit",
    "High (read) water mark",
    "Set watermark by reqsize",
    "Read hit over. after read",
    "Read hit over. after write",
    "Read miss over. after read",
    "Read miss over. after write",
    "Write hit over. after read",
    "Write hit over. after write",
    "Write miss over. after read",
    "Write miss over. after write",
    "Read completion overhead",
    "Write completion overhead",
    "Data preparation overhead",
    "First reselect overhead",
    "Other reselect overhead",
    "Extra write disconnect",
    "Extradisc command overhead",
    "Extradisc disconnect overhead",
    "Extradisc inter-disconnect delay",
    "Extradisc seek delta",
    "Minimum seek delay",
];

/// Parameters of a `disksim_disk` block the model has no use for: the
/// drive's own request queue and statistics (it serves one request at a
/// time: validation traces and emulated units issue one at a time), the
/// features that only matter with a queue in the drive (sneaky and almost
/// hits, prebuffering, preseeking), DiskSim's own bookkeeping choices
/// (sector-by-sector calculation, direct reads, immediate buffering, which
/// the model always does the way DiskSim's validated drives set them), and
/// overheads DiskSim runs in parallel with media work; and the buffer
/// policies whose value the cache model fixes (see the approximations in
/// the module documentation).
const DISK_IGNORED: [&str; 28] = [
    "Scheduler",
    "Max queue length",
    "Print stats",
    "Avg sectors per cylinder",
    "Allow almost read hits",
    "Allow sneaky full read hits",
    "Allow sneaky partial read hits",
    "Allow sneaky intermediate read hits",
    "Allow write prebuffering",
    "Preseeking level",
    "Never disconnect",
    "Calc sector by sector",
    "Read directly to buffer",
    "Immediate buffer read",
    "Immediate buffer write",
    "Disconnect write if seek",
    "Hold bus entire read xfer",
    "Hold bus entire write xfer",
    "Immed transfer partial hit",
    "Combine seq writes",
    "Write hit stop prefetch",
    "Stop prefetch in sector",
    "Maximum number of write segments",
    "Low (write) water mark",
    "Extradisc 2nd disconnect overhead",
    "Read disconnect afterread",
    "Read disconnect afterwrite",
    "Write disconnect overhead",
];

/// A DiskSim zone as read.
struct DsZone {
    first: u32,
    last: u32,
    spt: u32,
    /// Sector positions that are not unused.
    usable: u64,
    layout: ZoneLayout,
    blocks: u64,
}

impl<'a> Loader<'a> {
    /// A loader of the disks `tree` defines, read from `files`.
    pub(super) fn new(files: &'a Files, tree: &'a Tree) -> Self {
        Loader { files, tree }
    }

    fn top_block(&self, kind: &str, name: Option<&str>) -> Option<&Block> {
        self.tree
            .blocks
            .iter()
            .find(|b| b.kind == kind && name.is_none_or(|n| b.name == n))
    }

    pub(super) fn disk(&self, options: &DisksimOptions) -> Result<DisksimDisk, DiskError> {
        let wanted = options.disk.as_deref();
        let (disk, model) = match self.top_block("disksim_disk", wanted) {
            Some(disk) => {
                let disk = Reader {
                    block: disk,
                    files: self.files,
                };
                disk.known_keys(&DISK_KEYS, &DISK_IGNORED)?;
                let p = disk.required("Model")?;
                let model = match &p.value.value {
                    Value::Block(b) if b.kind == "dm_disk" => b,
                    Value::Text(name) => {
                        self.top_block("dm_disk", Some(name)).ok_or_else(|| {
                            disk.error(
                                p.at,
                                "Model",
                                format!("no `dm_disk {name}` block is defined"),
                            )
                        })?
                    }
                    _ => {
                        return Err(disk.error(
                            p.at,
                            "Model",
                            "expected a `dm_disk` block (`source FILE.model`)",
                        ));
                    }
                };
                (Some(disk), model)
            }
            None => match self.top_block("dm_disk", wanted) {
                Some(model) => (None, model),
                None => {
                    let at = Pos { file: 0, line: 0 };
                    return Err(self.files.error(
                        at,
                        None,
                        match wanted {
                            Some(n) => {
                                format!("no `disksim_disk {n}` or `dm_disk {n}` block is defined")
                            }
                            None => "no `disksim_disk` or `dm_disk` block is defined".into(),
                        },
                    ));
                }
            },
        };
        let model = Reader {
            block: model,
            files: self.files,
        };
        let name = disk.map_or(&model.block.name, |d| &d.block.name).clone();

        let cylinders = model.count("Number of cylinders")?;
        let surfaces = model.count("Number of data surfaces")?;
        let block_count = model.integer("Block count")?;
        for (value, field) in [
            (cylinders, "Number of cylinders"),
            (surfaces, "Number of data surfaces"),
        ] {
            if value == 0 {
                let at = model.required(field)?.at;
                return Err(model.error(at, field, "is 0: a disk needs at least one"));
            }
        }
        model.known_keys(&DM_DISK_KEYS, &[])?;
        let layout = model.block("Layout Model", &["dm_layout_g1"])?;
        layout.known_keys(&LAYOUT_KEYS, &[])?;
        let (mut zones, surface_order) = self.zones(layout, surfaces)?;
        // The disk reaches as far as its zones do.
        let cylinders = zones
            .last()
            .map_or(cylinders, |z| cylinders.max(z.last + 1));
        if block_count == 0 {
            let at = model.required("Block count")?.at;
            return Err(model.error(at, "Block count", "is 0: a disk needs at least one block"));
        }
        let layout_blocks = zones
            .iter()
            .fold(0u64, |sum, z| sum.saturating_add(z.blocks));
        if layout_blocks == 0 {
            let at = layout.required("Zones")?.at;
            return Err(layout.error(at, "Zones", "the zones hold no blocks"));
        }
        if !options.keep_layout_capacity && layout_blocks > block_count {
            // Cut the surplus from the end of the disk.
            let mut excess = layout_blocks - block_count;
            for zone in zones.iter_mut().rev() {
                let cut = excess.min(zone.blocks);
                zone.blocks -= cut;
                excess -= cut;
            }
        }

        let mech = model.block("Mechanical Model", &["dm_mech_g1"])?;
        mech.known_keys(&MECH_KEYS, &MECH_IGNORED)?;
        let rpm = mech.count("Rotation speed (in rpms)")?;
        if rpm == 0 {
            let at = mech.required("Rotation speed (in rpms)")?.at;
            return Err(mech.error(at, "Rotation speed (in rpms)", "is 0"));
        }
        let rotation = match mech.word("Access time type")? {
            "trackSwitchPlusRotation" => RotationSpec::Tracked,
            "averageRotation" => RotationSpec::Random { max_ms: None },
            other => {
                let at = mech.required("Access time type")?.at;
                return Err(mech.error(
                    at,
                    "Access time type",
                    format!(
                        "`{other}` is not supported (trackSwitchPlusRotation or averageRotation)"
                    ),
                ));
            }
        };
        let seek = self.seek(mech, cylinders)?;
        let head_switch_ms = mech.ms("Head switch time", 1.0, None)?;
        // Signed: DiskSim adds it to any write's movement, negative or not.
        let write_settle_ms = match mech.param("Add. write settling delay") {
            Some(_) => mech.signed("Add. write settling delay")?,
            None => 0.0,
        };

        let overheads = disk.map(|d| self.overheads(d)).transpose()?;
        // A cache is timed on the spinning media: not with averageRotation.
        let cache = match (disk, &overheads, &rotation) {
            (Some(d), Some(o), RotationSpec::Tracked) => self.cache(d, o, write_settle_ms)?,
            _ => None,
        };
        // With a cache its overheads replace the single read-miss figure;
        // only the per-request overhead applies to every request.
        let controller_overhead_ms = match (&overheads, &cache) {
            (Some(o), Some(_)) => o.per_request_ms,
            (Some(o), None) => o.read_miss_total_ms(),
            (None, _) => 0.0,
        };

        let geometry = GeometrySpec {
            surface_order,
            ..geometry(cylinders, surfaces, &zones)
        };
        let spec = DiskSpec {
            name,
            geometry,
            rpm: Some(f64::from(rpm)),
            seek,
            rotation,
            transfer: TransferSpec::Geometry,
            head_switch_ms,
            controller_overhead_ms,
            cache,
        };
        Ok(DisksimDisk {
            spec,
            block_count,
            layout_blocks,
            overheads,
            write_settle_ms,
            files: self.files.paths.clone(),
        })
    }

    /// The zones of a `dm_layout_g1` block, each with its layout and its
    /// block count as DiskSim's `layout_g1` computes them.
    fn zones(
        &self,
        layout: Reader<'_>,
        surfaces: u32,
    ) -> Result<(Vec<DsZone>, SurfaceOrder), DiskError> {
        let mapping_param = layout.required("LBN-to-PBN mapping scheme")?;
        let surface_order = match layout.integer("LBN-to-PBN mapping scheme")? {
            0 => SurfaceOrder::Ascending,
            1 => SurfaceOrder::SerpentinePerZone,
            2 => SurfaceOrder::Serpentine,
            other => {
                return Err(layout.error(
                    mapping_param.at,
                    "LBN-to-PBN mapping scheme",
                    format!("{other} is not one of DiskSim's schemes 0 (conventional), 1 and 2 (surfaces alternate per cylinder)"),
                ));
            }
        };
        let range = match layout.param("Rangesize for sparing") {
            None => 1,
            Some(p) => match layout.count("Rangesize for sparing")? {
                0 => {
                    return Err(layout.error(
                        p.at,
                        "Rangesize for sparing",
                        "is 0: a range holds at least one cylinder",
                    ));
                }
                n => n,
            },
        };
        let scheme_param = layout.required("Sparing scheme used")?;
        let scheme = layout.integer("Sparing scheme used")?;
        let Some(sparing) = Sparing::from_disksim(scheme, range) else {
            return Err(layout.error(
                scheme_param.at,
                "Sparing scheme used",
                format!("{scheme} is not one of DiskSim's sparing schemes 0 … 10"),
            ));
        };
        let units = skew_units(layout, None)?;
        let zones_param = layout.required("Zones")?;
        let Value::List(items) = &zones_param.value.value else {
            return Err(layout.error(
                zones_param.at,
                "Zones",
                "expected a list of `dm_layout_g1_zone` blocks",
            ));
        };
        if items.is_empty() {
            return Err(layout.error(zones_param.at, "Zones", "the list is empty"));
        }
        let mut zones: Vec<DsZone> = Vec::with_capacity(items.len());
        for item in items {
            let Value::Block(b) = &item.value else {
                return Err(layout.error(item.at, "Zones", "expected a `dm_layout_g1_zone` block"));
            };
            if b.kind != "dm_layout_g1_zone" {
                return Err(layout.error(
                    item.at,
                    "Zones",
                    format!("a `{}` block is not a `dm_layout_g1_zone`", b.kind),
                ));
            }
            let z = Reader {
                block: b,
                files: self.files,
            };
            z.known_keys(&ZONE_KEYS, &[])?;
            let first = z.count("First cylinder number")?;
            let last = z.count("Last cylinder number")?;
            let spt = z.count("Blocks per track")?;
            let bad = |name: &str, message: String| {
                z.error(z.param(name).map_or(b.at, |p| p.at), name, message)
            };
            if spt == 0 {
                return Err(bad("Blocks per track", "is 0".into()));
            }
            if last < first {
                return Err(bad(
                    "Last cylinder number",
                    format!("{last} is before the first cylinder {first}"),
                ));
            }
            // DiskSim accepts a zone that ends past `Number of cylinders`
            // (its HP C2490A does) and maps blocks there: so does this.
            if last == u32::MAX {
                return Err(bad(
                    "Last cylinder number",
                    format!("{last} is not a cylinder number"),
                ));
            }
            if let Some(prev) = zones.last()
                && first <= prev.last
            {
                return Err(bad(
                    "First cylinder number",
                    format!(
                        "{first} is not after the previous zone's last cylinder {}: zones must be listed in cylinder order without overlap",
                        prev.last
                    ),
                ));
            }
            let units = skew_units(z, Some(units))?;
            let skew = |name: &str| -> Result<u32, DiskError> {
                let x = z.number_or(name, 0.0)?;
                let sectors = match units {
                    Units::Sectors => x.trunc(),
                    Units::Revolutions => (x * f64::from(spt)).round(),
                };
                Ok((sectors % f64::from(spt)) as u32)
            };
            let track_skew = skew("Skew for track switch")?;
            let cylinder_skew = skew("Skew for cylinder switch")?;
            let first_skew = skew("Offset of first block")?;
            let dead = z.integer("Empty space at zone front")?;
            let spares = z.integer("Number of spares")?;
            let slips = z.integers("slips")?;
            let defects = z.integers("defects")?;
            if defects.len() % 2 != 0 {
                return Err(bad(
                    "defects",
                    "expected (defective, replacement) pairs: the list has an odd length".into(),
                ));
            }
            let positions = u64::from(last - first + 1)
                .checked_mul(u64::from(surfaces) * u64::from(spt))
                .filter(|&p| p < 1 << 53)
                .ok_or_else(|| bad("Blocks per track", "the zone has too many sectors".into()))?;
            if dead > positions {
                return Err(bad(
                    "Empty space at zone front",
                    format!("{dead} is more than the zone's {positions} sectors"),
                ));
            }
            let spares = ZoneSpares {
                dead,
                spares,
                slips: slips.iter().map(|s| s.0).collect(),
                defects: defects.chunks(2).map(|d| (d[0].0, d[1].0)).collect(),
            };
            let shape = Shape {
                cylinders: last - first + 1,
                surfaces,
                sectors_per_track: spt,
            };
            let map = lay_out(sparing, shape, &spares).map_err(|(name, message)| {
                // Point at the offending entry where there is one.
                let at = match name {
                    "slips" => slips
                        .iter()
                        .find(|s| message.starts_with(&s.0.to_string()))
                        .map(|s| s.1),
                    _ => None,
                };
                z.error(
                    at.unwrap_or_else(|| z.param(name).map_or(b.at, |p| p.at)),
                    name,
                    message,
                )
            })?;
            zones.push(DsZone {
                first,
                last,
                spt,
                usable: map.usable,
                layout: ZoneLayout {
                    track_skew: Some(track_skew),
                    cylinder_skew: Some(cylinder_skew),
                    first_skew: Some(first_skew),
                    unused: map.unused,
                    blocks: None,
                    skew_slips: map.skew_slips,
                    remapped: map.remapped,
                },
                blocks: map.blocks,
            });
        }
        Ok((zones, surface_order))
    }

    /// The seek curve of a `dm_mech_g1` block, for a disk of `cylinders`.
    fn seek(&self, mech: Reader<'_>, cylinders: u32) -> Result<SeekSpec, DiskError> {
        let max_distance = cylinders - 1;
        let kind_param = mech.required("Seek type")?;
        let kind = mech.word("Seek type")?;
        match kind {
            "extracted" => {
                let p = mech.required("Full seek curve")?;
                let name = mech.text_of(p)?;
                let path = self.files.resolve(p.value.at, name);
                let points = read_seek_curve(&path).map_err(|e| match e {
                    SeekFileError::Io(source) => mech.error(
                        p.at,
                        "Full seek curve",
                        format!("cannot read {}: {source}", path.display()),
                    ),
                    SeekFileError::Line(line, message) => DiskError::Disksim {
                        path: path.clone(),
                        line,
                        parameter: None,
                        message,
                    },
                })?;
                Ok(SeekSpec::Table { points })
            }
            "hpl" | "hplplus10" => {
                let values = mech.numbers("HPL seek equation values")?;
                let p = mech.required("HPL seek equation values")?;
                if values.len() != 6 {
                    return Err(mech.error(
                        p.at,
                        "HPL seek equation values",
                        format!("expected 6 values (V1 … V6), found {}", values.len()),
                    ));
                }
                let v: Vec<f64> = values.iter().map(|&(x, _)| x).collect();
                if v[0] < 0.0 || v[0].fract() != 0.0 || v[0] > f64::from(u32::MAX) {
                    return Err(mech.error(
                        values[0].1,
                        "HPL seek equation values",
                        format!("V1 = {} is not a whole number of cylinders", v[0]),
                    ));
                }
                for (i, &(x, at)) in values.iter().enumerate().skip(1) {
                    if x < 0.0 && !(i == 5 && x == -1.0) {
                        return Err(mech.error(
                            at,
                            "HPL seek equation values",
                            format!("V{} = {x} is negative", i + 1),
                        ));
                    }
                }
                let hpl = Hpl {
                    boundary: v[0] as u32,
                    a: v[1],
                    b: v[2],
                    long_a: v[3],
                    long_b: v[4],
                    single: (v[5] != -1.0).then_some(v[5]),
                };
                // The table holds a point per cylinder of the square-root part.
                if hpl.boundary.min(max_distance) > MAX_TABLE_POINTS {
                    return Err(mech.error(
                        values[0].1,
                        "HPL seek equation values",
                        format!(
                            "V1 = {}: a square-root part over more than {MAX_TABLE_POINTS} cylinders is not supported",
                            hpl.boundary
                        ),
                    ));
                }
                if kind == "hpl" {
                    if hpl.single.is_none() {
                        return Ok(SeekSpec::SqrtLinear {
                            a_ms: hpl.a,
                            b_ms: hpl.b,
                            c_ms: 0.0,
                            long: Some(LongSeek {
                                from: hpl.boundary.max(1),
                                a_ms: hpl.long_a,
                                b_ms: hpl.long_b,
                            }),
                        });
                    }
                    return Ok(SeekSpec::Table {
                        points: hpl.table(&[], max_distance),
                    });
                }
                let first = mech.numbers("First ten seek times")?;
                if first.len() != 10 {
                    let at = mech.required("First ten seek times")?.at;
                    return Err(mech.error(
                        at,
                        "First ten seek times",
                        format!("expected 10 times, found {}", first.len()),
                    ));
                }
                if let Some(&(x, at)) = first.iter().find(|(x, _)| *x < 0.0) {
                    return Err(mech.error(at, "First ten seek times", format!("{x} is negative")));
                }
                let first: Vec<f64> = first.iter().map(|&(x, _)| x).collect();
                Ok(SeekSpec::Table {
                    points: hpl.table(&first, max_distance),
                })
            }
            "constant" => Ok(SeekSpec::Table {
                points: vec![(1, mech.ms("Constant seek time", 1.0, None)?)],
            }),
            other => Err(mech.error(
                kind_param.at,
                "Seek type",
                format!("`{other}` is not supported (extracted, hpl, hplplus10 or constant)"),
            )),
        }
    }

    /// The buffer of a `disksim_disk` block as a [`CacheSpec`], given its
    /// overheads `o` (already scaled) and the mechanics' write settling
    /// time; `None` when the buffer does not cache (`Enable caching in
    /// buffer` other than 1, or no segments).
    fn cache(
        &self,
        disk: Reader<'_>,
        o: &DisksimOverheads,
        write_settle_ms: f64,
    ) -> Result<Option<CacheSpec>, DiskError> {
        let segments = disk.count("Number of buffer segments")?;
        if segments == 0 || disk.integer("Enable caching in buffer")? == 0 {
            return Ok(None);
        }
        let segment_blocks = disk.count("Segment size (in blks)")?;
        if segment_blocks == 0 {
            let at = disk.required("Segment size (in blks)")?.at;
            return Err(disk.error(at, "Segment size (in blks)", "is 0"));
        }
        let choice = |name: &str, options: &[&str]| -> Result<usize, DiskError> {
            let value = disk.integer(name)?;
            usize::try_from(value)
                .ok()
                .filter(|&i| i < options.len())
                .ok_or_else(|| {
                    let at = disk.param(name).map_or(disk.block.at, |p| p.at);
                    disk.error(
                        at,
                        name,
                        format!(
                            "{value} is not one of 0 … {} ({})",
                            options.len() - 1,
                            options.join(", ")
                        ),
                    )
                })
        };
        let scheme = [
            ReadAheadScheme::None,
            ReadAheadScheme::Track,
            ReadAheadScheme::Cylinder,
            ReadAheadScheme::Segment,
            ReadAheadScheme::NextTrack,
        ][choice(
            "Buffer continuous read",
            &["none", "track", "cylinder", "segment", "next track"],
        )?];
        let write_back = [WriteBack::Off, WriteBack::All, WriteBack::All]
            [choice("Fast write level", &["off", "appends", "all"])?];
        let flag = |name: &str| -> Result<bool, DiskError> { Ok(disk.signed(name)? > 0.0) };
        // DiskSim takes a maximum read-ahead of 0 as "as far as the segment
        // goes".
        let max_blocks = match disk.count("Maximum read-ahead (blks)")? {
            0 => segment_blocks,
            n => n,
        };
        let scale = disk.number_or("Time scale for overheads", 1.0)?;
        let ms = |name: &str| disk.ms(name, scale, None);
        // Sums are kept to the nanosecond the model counts in, so that they
        // survive a trip through a text spec file.
        let ns = |ms: f64| (ms * 1e6).round() / 1e6;
        let plus = |[after_read_ms, after_write_ms]: [f64; 2], extra: f64| AfterPrevious {
            after_read_ms: ns(after_read_ms + extra),
            after_write_ms: ns(after_write_ms + extra),
        };
        let prep = ms("Data preparation overhead")?;
        let first_reselect = ms("First reselect overhead")?;
        // A drive that disconnects after a write command and before taking
        // its data: its command overhead and seek delay come before the
        // mechanics; the disconnection, the wait before reconnecting and the
        // reselection before the data.
        let extra_disconnects = flag("Extra write disconnect")?;
        let extra_write_disconnect = if extra_disconnects {
            let seek_delta = ms("Extradisc seek delta")?;
            let command = ms("Extradisc command overhead")?;
            let to_data = command
                + ms("Extradisc disconnect overhead")?
                + ms("Extradisc inter-disconnect delay")?
                + first_reselect
                + prep;
            Some(ExtraWriteDisconnect {
                command_ms: ns(command + seek_delta),
                data_delay_ms: ns((to_data - command - seek_delta).max(0.0)),
                completion_reconnect_ms: ms("Other reselect overhead")?,
            })
        } else {
            None
        };
        let (read_block_ms, write_block_ms) = match self.disk_bus(&disk.block.name) {
            Some(bus) => {
                let bus = Reader {
                    block: bus,
                    files: self.files,
                };
                (
                    bus.ms("Read block transfer time", 1.0, Some(0.0))?,
                    bus.ms("Write block transfer time", 1.0, Some(0.0))?,
                )
            }
            None => (0.0, 0.0),
        };
        let watermark = disk.number("High (read) water mark")?;
        Ok(Some(CacheSpec {
            segments,
            segment_blocks,
            write_segment: flag("Use separate write segment")? && segments > 1,
            read_hits_on_write_data: flag("Allow read hits on write data")?,
            read_free_blocks: flag("Read any free blocks")?,
            write_back,
            read_ahead: ReadAheadSpec {
                scheme,
                min_blocks: disk.count("Minimum read-ahead (blks)")?.min(max_blocks),
                max_blocks,
                replace_requested: flag("Read-ahead over requested")?,
                on_hit: flag("Read-ahead on idle hit")?,
            },
            overheads: CacheOverheads {
                read_hit: plus(o.read_hit_ms, prep),
                read_miss: plus(o.read_miss_ms, 0.0),
                write_hit: plus(o.write_hit_ms, prep),
                write_miss: plus(o.write_miss_ms, 0.0),
                read_completion_ms: o.read_completion_ms,
                write_completion_ms: o.write_completion_ms,
                reconnect_ms: ns(first_reselect + prep),
                completion_reconnect_ms: first_reselect,
                write_data_delay_ms: prep,
                write_settle_ms,
                extra_write_disconnect,
                // A delay of the mechanics, not an overhead: not scaled.
                write_min_positioning_ms: disk.ms("Minimum seek delay", 1.0, None)?,
            },
            bus: BusSpec {
                read_block_ms: read_block_ms.max(o.bulk_sector_transfer_ms),
                write_block_ms: write_block_ms.max(o.bulk_sector_transfer_ms),
                // Watermarks as a fraction of the segment mostly cover the
                // whole request: taken as the whole request.
                // DiskSim's fixed rule for drives with extra write
                // disconnects (`disk_buffer_block_available`).
                write_start: if extra_disconnects {
                    WriteStart {
                        blocks: 10,
                        large_from: 45,
                        large_blocks: 15,
                    }
                } else {
                    WriteStart::default()
                },
                read_watermark: if flag("Set watermark by reqsize")? || watermark == 0.0 {
                    watermark.min(1.0)
                } else {
                    1.0
                },
            },
        }))
    }

    /// The `disksim_bus` block of the bus that the topology hangs an
    /// instance of disk `name` from, if the file tree has one.
    fn disk_bus(&self, name: &str) -> Option<&Block> {
        let instances = &self.tree.instances;
        let is_disk = |instance: &str| {
            instances
                .iter()
                .any(|(items, of)| of == name && items.iter().any(|i| names(i, instance)))
        };
        let bus = self
            .tree
            .topology
            .iter()
            .find_map(|root| bus_above(root, &is_disk, None))?;
        let (_, of) = instances
            .iter()
            .find(|(items, _)| items.iter().any(|i| names(i, bus)))?;
        self.top_block("disksim_bus", Some(of))
    }

    /// The overheads of a `disksim_disk` block.
    fn overheads(&self, disk: Reader<'_>) -> Result<DisksimOverheads, DiskError> {
        let scale = disk.number_or("Time scale for overheads", 1.0)?;
        let ms = |name: &str| disk.ms(name, scale, None);
        let pair = |name: &str| -> Result<[f64; 2], DiskError> {
            Ok([
                ms(&format!("{name} after read"))?,
                ms(&format!("{name} after write"))?,
            ])
        };
        Ok(DisksimOverheads {
            per_request_ms: disk.ms("Per-request overhead time", scale, Some(0.0))?,
            read_hit_ms: pair("Read hit over.")?,
            read_miss_ms: pair("Read miss over.")?,
            write_hit_ms: pair("Write hit over.")?,
            write_miss_ms: pair("Write miss over.")?,
            read_completion_ms: ms("Read completion overhead")?,
            write_completion_ms: ms("Write completion overhead")?,
            bulk_sector_transfer_ms: disk.ms("Bulk sector transfer time", 1.0, Some(0.0))?,
        })
    }
}

/// The instance name of the nearest `disksim_bus` above a `disksim_disk`
/// node whose instance `is_disk` in the topology `node`, `bus` being the one
/// above `node`.
fn bus_above<'a>(
    node: &'a Value,
    is_disk: &dyn Fn(&str) -> bool,
    bus: Option<&'a str>,
) -> Option<&'a str> {
    let Value::Named(head, items) = node else {
        return None;
    };
    let (kind, instance) = head.split_once(' ')?;
    match kind {
        "disksim_disk" if is_disk(instance) => bus,
        _ => {
            let bus = if kind == "disksim_bus" {
                Some(instance)
            } else {
                bus
            };
            items.iter().find_map(|n| bus_above(&n.value, is_disk, bus))
        }
    }
}

/// Whether an item of an `instantiate` list, one name or a range `disk0 ..
/// disk7`, names `instance`.
pub(super) fn names(item: &str, instance: &str) -> bool {
    let Some((first, last)) = item.split_once("..") else {
        return item == instance;
    };
    // A name's stem and its number: `disk7` is (`disk`, 7).
    let split = |name: &str| {
        let name = name.trim();
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        (stem.to_string(), name[stem.len()..].parse::<u64>().ok())
    };
    match (split(first), split(last), split(instance)) {
        ((a, Some(from)), (b, Some(to)), (c, Some(k))) => {
            a == b && b == c && (from..=to).contains(&k)
        }
        _ => false,
    }
}

/// Units of skews and first-block offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Units {
    Sectors,
    Revolutions,
}

/// The `Skew units` of a block, `inherited` (or sectors) if it has none.
fn skew_units(block: Reader<'_>, inherited: Option<Units>) -> Result<Units, DiskError> {
    match block.param("Skew units") {
        None => Ok(inherited.unwrap_or(Units::Sectors)),
        Some(p) => match block.text_of(p)? {
            "sectors" => Ok(Units::Sectors),
            "revolutions" => Ok(Units::Revolutions),
            other => Err(block.error(
                p.at,
                "Skew units",
                format!("`{other}` is neither `sectors` nor `revolutions`"),
            )),
        },
    }
}

/// The geometry of a disk with DiskSim's `zones`; cylinders no zone covers
/// become zones without blocks.
fn geometry(cylinders: u32, surfaces: u32, zones: &[DsZone]) -> GeometrySpec {
    let mut spec_zones = Vec::with_capacity(zones.len());
    let mut layouts = Vec::with_capacity(zones.len());
    let empty =
        |first: u32, last: u32, spt: u32, zones: &mut Vec<Zone>, layouts: &mut Vec<ZoneLayout>| {
            zones.push(Zone {
                first_cylinder: first,
                last_cylinder: last,
                sectors_per_track: spt,
            });
            layouts.push(ZoneLayout {
                blocks: Some(0),
                ..ZoneLayout::default()
            });
        };
    let mut next = 0;
    for zone in zones {
        if zone.first > next {
            // DiskSim gives a cylinder outside every zone the sectors per
            // track of the zone before it.
            let spt = spec_zones
                .last()
                .map_or(zone.spt, |z: &Zone| z.sectors_per_track);
            empty(next, zone.first - 1, spt, &mut spec_zones, &mut layouts);
        }
        spec_zones.push(Zone {
            first_cylinder: zone.first,
            last_cylinder: zone.last,
            sectors_per_track: zone.spt,
        });
        layouts.push(ZoneLayout {
            blocks: (zone.blocks != zone.usable).then_some(zone.blocks),
            ..zone.layout.clone()
        });
        next = zone.last + 1;
    }
    if next < cylinders {
        let spt = zones.last().map_or(1, |z| z.spt);
        empty(next, cylinders - 1, spt, &mut spec_zones, &mut layouts);
    }
    GeometrySpec {
        cylinders,
        surfaces,
        sectors_per_track: zones.first().map_or(1, |z| z.spt),
        zones: spec_zones,
        sector_bytes: SECTOR_BYTES,
        track_skew: 0,
        cylinder_skew: 0,
        zone_layout: layouts,
        surface_order: SurfaceOrder::Ascending,
    }
}

/// The six values of DiskSim's `hpl` seek equation (Ruemmler & Wilkes
/// 1994): `a + b·√d` ms below `boundary` cylinders, `long_a + long_b·d` from
/// there on, and the one-cylinder seek if V6 gives one.
struct Hpl {
    boundary: u32,
    a: f64,
    b: f64,
    long_a: f64,
    long_b: f64,
    single: Option<f64>,
}

impl Hpl {
    /// The time of a seek over `d` > 0 cylinders, the `first` times standing
    /// for distances 1, 2, ….
    fn time(&self, first: &[f64], d: u32) -> f64 {
        let x = f64::from(d);
        match (d as usize).checked_sub(1).and_then(|i| first.get(i)) {
            Some(&t) => t,
            None if d == 1 && self.single.is_some() => self.single.unwrap_or_default(),
            // Kept to the nanosecond the model counts in, so that the
            // table survives a trip through a text spec file.
            None if d < self.boundary => ((self.a + self.b * x.sqrt()) * 1e6).round() / 1e6,
            None => self.long_a + self.long_b * x,
        }
    }

    /// A table giving the curve's time at every distance 1 … `max_distance`
    /// under linear interpolation: one point per distance up to the linear
    /// part, then its two ends.
    fn table(&self, first: &[f64], max_distance: u32) -> Vec<(u32, f64)> {
        let max_distance = max_distance.max(1);
        let pointwise = (self.boundary.saturating_sub(1))
            .max(first.len() as u32)
            .max(u32::from(self.single.is_some()))
            .min(max_distance);
        let mut points: Vec<(u32, f64)> =
            (1..=pointwise).map(|d| (d, self.time(first, d))).collect();
        if pointwise < max_distance {
            let start = pointwise + 1;
            points.push((start, self.time(first, start)));
            if max_distance > start {
                points.push((max_distance, self.time(first, max_distance)));
            }
        }
        points
    }
}
