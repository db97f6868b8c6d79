//! Unit tests of the DiskSim loader.

use super::load::names;
use super::*;
use crate::disk::{
    BusSpec, DiskModel, ExtraWriteDisconnect, ReadAheadScheme, ReadAheadSpec, RotationSpec,
    SeekSpec, SpecFormat, TransferSpec, WriteBack, WriteStart, Zone, ZoneLayout,
};
use tempfile::TempDir;

/// A file of DiskSim's validation suite, outside the repository.
fn data(file: &str) -> PathBuf {
    shared_data::disksim_file(file)
}

fn load(file: &str) -> DisksimDisk {
    load_disksim(data(file), &DisksimOptions::default()).unwrap()
}

/// A scratch directory for hand-made descriptions, removed when dropped.
fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("disk-emu-disksim-{name}-"))
        .tempdir()
        .unwrap()
}

/// The DiskSim zones of a loaded spec: the zones that may hold blocks.
fn disksim_zones(spec: &DiskSpec) -> Vec<(&Zone, &ZoneLayout)> {
    let g = &spec.geometry;
    g.zones
        .iter()
        .zip(&g.zone_layout)
        .filter(|(_, l)| l.blocks != Some(0) || l.first_skew.is_some())
        .collect()
}

#[test]
fn every_bundled_model_loads_with_the_files_figures() {
    // (file, cylinders, surfaces, DiskSim zones, rpm, Block count, head switch ms)
    let expected = [
        ("hp_c2247a.parv", 2051, 13, 8, 5400.0, 2_054_864, 0.89),
        ("hp_c3323a.parv", 2982, 7, 8, 5396.0, 2_056_008, 0.65),
        ("cheetah9LP.parv", 6962, 12, 11, 10045.0, 17_783_240, 0.03),
        ("ibm18es.parv", 11474, 5, 55, 7200.0, 17_916_240, 0.062),
        ("hp_c2249a.diskspecs", 2051, 17, 8, 5400.0, 2_687_632, 0.89),
        // The other entry points: a .diskspecs and a .model alone.
        ("hp_c3323a.diskspecs", 2982, 7, 8, 5400.0, 2_056_008, 0.65),
        (
            "hp_c2247a_validate.model",
            2051,
            13,
            8,
            5400.0,
            2_054_864,
            0.89,
        ),
    ];
    for (file, cylinders, surfaces, zones, rpm, blocks, switch) in expected {
        let disk = load(file);
        let model = DiskModel::from_spec(&disk.spec).unwrap();
        assert_eq!(disk.block_count, blocks, "{file}");
        assert_eq!(model.capacity_blocks(), blocks, "{file}");
        assert_eq!(model.cylinders(), cylinders, "{file}");
        assert_eq!(disk.spec.geometry.surfaces, surfaces, "{file}");
        assert_eq!(disksim_zones(&disk.spec).len(), zones, "{file}");
        assert_eq!(disk.spec.rpm, Some(rpm), "{file}");
        assert_eq!(disk.spec.head_switch_ms, switch, "{file}");
        assert_eq!(disk.spec.rotation, RotationSpec::Tracked, "{file}");
        assert_eq!(disk.spec.transfer, TransferSpec::Geometry, "{file}");
        assert_eq!(model.block_bytes(), 512);
    }
}

#[test]
fn capacity_is_the_block_count_and_the_layout_surplus_is_cut_from_the_end() {
    // The HP drives' zones add up to their Block count exactly.
    for file in ["hp_c2247a.parv", "hp_c3323a.parv", "hp_c2249a.diskspecs"] {
        let disk = load(file);
        assert_eq!(disk.layout_blocks, disk.block_count, "{file}");
    }
    // DiskSim's zone arithmetic gives the Cheetah 9LP and the IBM 18ES
    // more blocks than the drives have.
    let cheetah = load("cheetah9LP.parv");
    assert_eq!(cheetah.layout_blocks, 17_918_387);
    assert_eq!(cheetah.layout_blocks - cheetah.block_count, 135_147);
    let ibm = load("ibm18es.parv");
    assert_eq!(ibm.layout_blocks, 18_033_753);
    assert_eq!(ibm.layout_blocks - ibm.block_count, 117_513);
    // Cut from the innermost zone: 889 776 sectors less 218 spares hold
    // 889 558 blocks in DiskSim, 754 411 here.
    let last = cheetah.spec.geometry.zone_layout.last().unwrap();
    assert_eq!(last.blocks, Some(889_558 - 135_147));
    for disk in [&cheetah, &ibm] {
        let model = DiskModel::from_spec(&disk.spec).unwrap();
        let end = model.geometry().locate(disk.block_count - 1).unwrap();
        println!(
            "{}: last block on cylinder {} of {}",
            disk.spec.name,
            end.cylinder,
            model.cylinders()
        );
    }
    let model = DiskModel::from_spec(&cheetah.spec).unwrap();
    let end = model.geometry().locate(17_783_239).unwrap();
    assert!((6890..6900).contains(&end.cylinder), "{end:?}");
    assert!(matches!(
        model.geometry().block(6961, 0, 0),
        Err(DiskError::NoBlock { cylinder: 6961, .. })
    ));
    // Kept whole on request.
    let whole = load_disksim(
        data("cheetah9LP.parv"),
        &DisksimOptions {
            keep_layout_capacity: true,
            ..DisksimOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        DiskModel::from_spec(&whole.spec).unwrap().capacity_blocks(),
        17_918_387
    );
}

#[test]
fn blocks_lie_where_disksim_puts_them() {
    // HP C2247A, zone 0: 96 sectors per track, 13 surfaces, the first
    // 1632 sectors (17 tracks) a management area, track 468 slipped.
    let disk = load("hp_c2247a.parv");
    let g = DiskModel::from_spec(&disk.spec).unwrap().geometry().clone();
    let at = |b| {
        let l = g.locate(b).unwrap();
        (l.cylinder, l.surface, l.sector, l.skew)
    };
    // Block 0 is on track 17 = cylinder 1, surface 4; skew 1·(12·14 + 32)
    // + 4·14 = 256 ≡ 64 (mod 96).
    assert_eq!(at(0), (1, 4, 0, 64));
    // The last block before the slipped track 468 ends track 467, the
    // next one starts track 469: (469 − 17 − 1) · 96 = 43 296.
    let (c, s, sector, _) = at(43_295);
    assert_eq!((c, s, sector), (35, 12, 95));
    let (c, s, sector, _) = at(43_296);
    assert_eq!((c, s, sector), (36, 1, 0));
    assert!(matches!(g.block(36, 0, 5), Err(DiskError::NoBlock { .. })));
    assert_eq!(g.block(36, 1, 0).unwrap(), 43_296);
    // Zone 1 starts at cylinder 559 with its own first-block offset 14.
    let zone1 = disk.spec.geometry.zone_layout[1].clone();
    assert_eq!(
        (zone1.first_skew, zone1.track_skew, zone1.cylinder_skew),
        (Some(14), Some(13), Some(30))
    );
    let first = g.block(559, 0, 0).unwrap();
    assert_eq!(g.locate(first).unwrap().skew, 14);

    // Cheetah 9LP, zone 0: sector 168 317 (track 662, slot 169) slipped.
    let cheetah = load("cheetah9LP.parv");
    let g = DiskModel::from_spec(&cheetah.spec)
        .unwrap()
        .geometry()
        .clone();
    let a = g.locate(168_316).unwrap();
    let b = g.locate(168_317).unwrap();
    assert_eq!((a.cylinder, a.surface, a.sector), (55, 2, 168));
    assert_eq!((b.cylinder, b.surface, b.sector), (55, 2, 170));
    assert_eq!(a.left_on_track(), 254 - 168 - 1);
    // Cylinder 847 lies between zones 0 and 1 and holds no block.
    assert!(g.block(847, 0, 0).is_err());
    // Zone 0's last block is on cylinder 846, before its 1270 spare
    // sectors; zone 1's first block starts cylinder 848.
    let next = g.block(848, 0, 0).unwrap();
    assert_eq!(g.locate(next - 1).unwrap().cylinder, 846);
    assert!(g.block(846, 11, 253).is_err());

    // IBM 18ES: its 1950-sector management area is cylinder 0.
    let ibm = load("ibm18es.parv");
    let g = DiskModel::from_spec(&ibm.spec).unwrap().geometry().clone();
    let l = g.locate(0).unwrap();
    assert_eq!((l.cylinder, l.surface, l.sector), (1, 0, 0));
}

#[test]
fn seek_curves_come_from_the_seek_files_and_the_hpl_equation() {
    // (file, points, first, last) of the .seek files.
    let tables = [
        ("hp_c3323a.parv", 67, (1, 1.178043), (2976, 18.1161353)),
        ("cheetah9LP.parv", 106, (1, 0.831), (6894, 10.627)),
        ("ibm18es.parv", 151, (1, 1.062), (11377, 12.853)),
    ];
    for (file, n, first, last) in tables {
        let SeekSpec::Table { points } = load(file).spec.seek else {
            panic!("{file}")
        };
        assert_eq!(points.len(), n, "{file}");
        assert_eq!(points[0], first, "{file}");
        assert_eq!(*points.last().unwrap(), last, "{file}");
    }
    // HP C2247A and C2249A: hplplus10 with V = [300, 3.81, 0.33, 7.75,
    // 0.0059, −1] and the ten times 2.89 … 4.99.
    for file in ["hp_c2247a.parv", "hp_c2249a.diskspecs"] {
        let spec = load(file).spec;
        let SeekSpec::Table { points } = &spec.seek else {
            panic!("{file}")
        };
        assert_eq!(points[0], (1, 2.89));
        assert_eq!(points[9], (10, 4.99));
        // The square-root part to the nanosecond.
        let ns = |ms: f64| (ms * 1e6).round() / 1e6;
        assert_eq!(points[10], (11, ns(3.81 + 0.33 * 11f64.sqrt())));
        assert_eq!(points[298], (299, ns(3.81 + 0.33 * 299f64.sqrt())));
        assert_eq!(points[299], (300, 7.75 + 0.0059 * 300.0));
        assert_eq!(*points.last().unwrap(), (2050, 7.75 + 0.0059 * 2050.0));
        assert_eq!(points.len(), 301);
        // Between the linear part's ends the table is the line itself.
        let line = |d: f64| ((7.75 + 0.0059 * d) * 1e6).round() as u64;
        for d in [300u32, 1000, 2050] {
            let seek = crate::disk::seek::Seek::new(&spec.seek).unwrap().time(d);
            assert!(seek.abs_diff(line(f64::from(d))) <= 1, "{d}: {seek}");
        }
    }
}

#[test]
fn the_buffer_and_controller_become_the_cache() {
    // HP C2247A: two segments of 256 blocks, one kept for writes,
    // read-ahead of up to 128 blocks, write-through.
    let disk = load("hp_c2247a.parv");
    let c = disk.spec.cache.clone().unwrap();
    assert_eq!(
        (c.segments, c.segment_blocks, c.write_segment),
        (2, 256, true)
    );
    assert_eq!(
        (c.read_hits_on_write_data, c.write_back),
        (true, WriteBack::Off)
    );
    assert_eq!(
        c.read_ahead,
        ReadAheadSpec {
            scheme: ReadAheadScheme::Segment,
            min_blocks: 0,
            max_blocks: 128,
            replace_requested: true,
            on_hit: true,
        }
    );
    let o = &c.overheads;
    // Read hit 0.95343 + data preparation 0.02519.
    assert_eq!(o.read_hit.after_read_ms, 0.97862);
    assert_eq!(o.read_miss.after_write_ms, 0.55821);
    // A write that continues the previous one: the write-miss command
    // overhead, data preparation, reconnection by the first reselection.
    assert_eq!(o.write_miss.after_read_ms, 0.82391);
    assert_eq!(o.write_data_delay_ms, 0.02519);
    assert_eq!(
        (o.reconnect_ms, o.completion_reconnect_ms),
        (0.18768, 0.16249)
    );
    // Any other write after a write disconnects after its command: the
    // command overhead and the seek delay (0.64244 + 0.25) come before the
    // mechanics, then the disconnection, the wait and the reselection
    // (0.04551 + 0.42885 + 0.16249 + 0.02519) before the data; it reconnects
    // by the other reselection.
    assert_eq!(
        o.extra_write_disconnect,
        Some(ExtraWriteDisconnect {
            command_ms: 0.89244,
            data_delay_ms: 0.41204,
            completion_reconnect_ms: 0.12883,
        })
    );
    assert_eq!(
        (o.read_completion_ms, o.write_completion_ms),
        (0.05665, 0.05045)
    );
    assert_eq!((o.write_settle_ms, o.write_min_positioning_ms), (0.65, 0.6));
    // The disk hangs from BUS1 (its own bulk time is 0).
    assert_eq!(
        c.bus,
        BusSpec {
            read_block_ms: 0.1701,
            write_block_ms: 0.18686,
            read_watermark: 0.75,
            // Writes start on the media once 10 blocks (15 of a 45-block
            // write) are in.
            write_start: WriteStart {
                blocks: 10,
                large_from: 45,
                large_blocks: 15,
            },
        }
    );
    // Only the per-request overhead applies to every request; the
    // figures a cache-free spec would charge are kept.
    assert_eq!(disk.spec.controller_overhead_ms, 0.0);
    let figures = disk.overheads.unwrap();
    assert!((figures.read_miss_total_ms() - 0.61486).abs() < 1e-12);
    assert!((figures.write_miss_total_ms() - (0.82391 + 0.05045)).abs() < 1e-12);

    // HP C3323A: read-ahead stops when the segment is full; the
    // read-hit overhead is four times larger after a write.
    let c = load("hp_c3323a.parv").spec.cache.unwrap();
    assert_eq!((c.segment_blocks, c.read_ahead.max_blocks), (512, 256));
    assert!(!c.read_ahead.replace_requested && c.read_ahead.on_hit);
    assert_eq!(
        (
            c.overheads.read_hit.after_read_ms,
            c.overheads.read_hit.after_write_ms
        ),
        (0.348, 1.387)
    );
    assert_eq!((c.bus.read_block_ms, c.bus.read_watermark), (0.1455, 1.0));

    // Cheetah 9LP: three segments for reads and writes alike, write-back,
    // the next-track read-ahead scheme, the disk's own 0.105 ms a block
    // on buses of 0.
    let c = load("cheetah9LP.parv").spec.cache.unwrap();
    assert_eq!(
        (c.segments, c.segment_blocks, c.write_segment),
        (3, 561, false)
    );
    assert_eq!(c.write_back, WriteBack::All);
    assert_eq!(c.read_ahead.scheme, ReadAheadScheme::NextTrack);
    assert_eq!((c.bus.read_block_ms, c.bus.write_block_ms), (0.105, 0.105));
    assert_eq!(c.overheads.write_hit.after_write_ms, 0.5);

    // IBM 18ES: seven segments, one for writes, whose data reads may not
    // use.
    let c = load("ibm18es.parv").spec.cache.unwrap();
    assert_eq!(
        (c.segments, c.write_segment, c.read_hits_on_write_data),
        (7, true, false)
    );
    assert_eq!(
        (c.bus.read_block_ms, c.overheads.write_settle_ms),
        (0.101, 0.126)
    );

    // HP C2249A's .diskspecs alone has no topology: no bus but its own.
    let c = load("hp_c2249a.diskspecs").spec.cache.unwrap();
    assert_eq!(c.bus.read_block_ms, 0.0);
    // In ascii.parv eighteen of them, `disk0 .. disk17`, hang from buses
    // `bus3 .. bus20`, instances of BUS1 (0.05 ms a block).
    let c = load("ascii.parv").spec.cache.unwrap();
    assert_eq!((c.bus.read_block_ms, c.bus.write_block_ms), (0.05, 0.05));
    assert!(names("disk0 .. disk17", "disk9") && !names("disk0 .. disk17", "disk18"));
    assert!(names("bus1", "bus1") && !names("bus3 .. bus20", "disk5"));
    // A .model alone has no controller.
    let model = load("hp_c2247a_validate.model");
    assert_eq!(
        (
            model.spec.controller_overhead_ms,
            model.overheads,
            model.spec.cache
        ),
        (0.0, None, None)
    );
}

#[test]
fn a_drive_whose_buffer_does_not_cache_keeps_the_read_miss_overhead() {
    let dir = scratch("nocache");
    let specs = std::fs::read_to_string(data("hp_c3323a_validate.diskspecs"))
        .unwrap()
        .replace(
            "Enable caching in buffer = 1",
            "Enable caching in buffer = 0",
        );
    std::fs::write(dir.path().join("x.diskspecs"), specs).unwrap();
    for file in ["hp_c3323a_validate.model", "hp_c3323a_validate.seek"] {
        std::fs::write(
            dir.path().join(file),
            std::fs::read_to_string(data(file)).unwrap(),
        )
        .unwrap();
    }
    let spec = from_disksim(dir.path().join("x.diskspecs")).unwrap();
    assert_eq!(spec.cache, None);
    assert!((spec.controller_overhead_ms - (2.502 + 0.241)).abs() < 1e-12);
    // A read-ahead scheme DiskSim does not have is an error naming it.
    let specs = std::fs::read_to_string(data("hp_c3323a_validate.diskspecs"))
        .unwrap()
        .replace("Buffer continuous read = 3", "Buffer continuous read = 7");
    let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
    let (err, _) = broken(
        "scheme",
        &[
            ("x.diskspecs", &specs),
            ("hp_c3323a_validate.model", &model_text()),
            ("hp_c3323a_validate.seek", &seek),
        ],
    );
    let (_, _, parameter, message) = place(&err);
    assert_eq!(parameter.as_deref(), Some("Buffer continuous read"));
    assert!(message.starts_with("7 is not one of 0 … 4"), "{message}");
}

#[test]
fn a_disk_can_be_chosen_by_name() {
    let named = load_disksim(
        data("hp_c2247a.parv"),
        &DisksimOptions {
            disk: Some("HP_C2247A_validate".into()),
            ..DisksimOptions::default()
        },
    )
    .unwrap();
    assert_eq!(named.spec.name, "HP_C2247A_validate");
    let err = load_disksim(
        data("hp_c2247a.parv"),
        &DisksimOptions {
            disk: Some("HP_C9999".into()),
            ..DisksimOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("no `disksim_disk HP_C9999`"),
        "{err}"
    );
}

#[test]
fn a_loaded_spec_round_trips_through_toml_and_json() {
    for file in ["hp_c2247a.parv", "cheetah9LP.parv"] {
        let spec = from_disksim(data(file)).unwrap();
        let toml = toml::to_string(&spec).unwrap();
        assert_eq!(
            DiskSpec::parse(&toml, SpecFormat::Toml).unwrap(),
            spec,
            "{file}"
        );
        let json = serde_json::to_string(&spec).unwrap();
        assert_eq!(
            DiskSpec::parse(&json, SpecFormat::Json).unwrap(),
            spec,
            "{file}"
        );
    }
}

#[test]
fn a_spec_file_may_override_a_disksim_disk() {
    let dir = scratch("spec");
    for file in ["hp_c3323a_validate.model", "hp_c3323a_validate.seek"] {
        std::fs::write(
            dir.path().join(file),
            std::fs::read_to_string(data(file)).unwrap(),
        )
        .unwrap();
    }
    let path = dir.path().join("faster.toml");
    std::fs::write(
        &path,
        "preset = \"disksim:hp_c3323a_validate.model\"\nrpm = 7200\ncontroller_overhead_ms = 0.5\n",
    )
    .unwrap();
    let spec = DiskSpec::from_file(&path).unwrap();
    let mut expected = from_disksim(dir.path().join("hp_c3323a_validate.model")).unwrap();
    (expected.rpm, expected.controller_overhead_ms) = (Some(7200.0), 0.5);
    assert_eq!(spec, expected);
    let missing = dir.path().join("missing.toml");
    std::fs::write(&missing, "preset = \"disksim:nosuch.parv\"\n").unwrap();
    let err = DiskSpec::from_file(&missing).unwrap_err();
    assert!(err.to_string().contains("nosuch.parv"), "{err}");
}

/// Writes `files` (name, text) into a scratch directory and loads the
/// first, returning the error and the directory.
fn broken(case: &str, files: &[(&str, &str)]) -> (DiskError, TempDir) {
    let dir = scratch(case);
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let err = from_disksim(dir.path().join(files[0].0)).unwrap_err();
    (err, dir)
}

/// The file, line and parameter of a [`DiskError::Disksim`].
fn place(err: &DiskError) -> (PathBuf, u32, Option<String>, String) {
    match err {
        DiskError::Disksim {
            path,
            line,
            parameter,
            message,
        } => (path.clone(), *line, parameter.clone(), message.clone()),
        other => panic!("{other:?}"),
    }
}

fn model_text() -> String {
    std::fs::read_to_string(data("hp_c3323a_validate.model")).unwrap()
}

#[test]
fn a_missing_parameter_names_the_file_the_block_and_the_parameter() {
    let text = model_text().replace("   Block count = 2056008,\n", "");
    let (err, dir) = broken("missing", &[("x.model", &text)]);
    let (path, line, parameter, message) = place(&err);
    assert_eq!(path, dir.path().join("x.model"));
    assert_eq!(line, 1);
    assert_eq!(parameter.as_deref(), Some("Block count"));
    assert!(
        message.contains("missing from the `dm_disk HP_C3323A_validate_model` block"),
        "{message}"
    );
    assert!(
        err.to_string()
            .starts_with(&format!("{}:1: `Block count`: missing", path.display())),
        "{err}"
    );
}

#[test]
fn a_bad_number_names_its_line_and_parameter() {
    let text = model_text().replace("Number of cylinders = 2982", "Number of cylinders = 29x82");
    let (err, _) = broken("number", &[("x.model", &text)]);
    let (_, line, parameter, message) = place(&err);
    assert_eq!(
        (line, parameter.as_deref()),
        (3, Some("Number of cylinders"))
    );
    assert_eq!(message, "`29x82` is not a number");

    let text = model_text().replace("Blocks per track = 116,", "Blocks per track = 116.5,");
    let (err, _) = broken("fraction", &[("x.model", &text)]);
    let (_, line, parameter, _) = place(&err);
    assert_eq!((line, parameter.as_deref()), (25, Some("Blocks per track")));

    let text = model_text().replace("Head switch time = 0.650000", "Head switch time = -0.65");
    let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
    let (err, _) = broken(
        "negative",
        &[("x.model", &text), ("hp_c3323a_validate.seek", &seek)],
    );
    assert_eq!(place(&err).2.as_deref(), Some("Head switch time"));
}

#[test]
fn an_unknown_source_file_names_the_file_and_line_that_source_it() {
    let specs = std::fs::read_to_string(data("hp_c3323a_validate.diskspecs"))
        .unwrap()
        .replace("source hp_c3323a_validate.model", "source nosuch.model");
    let (err, dir) = broken("source", &[("x.diskspecs", &specs)]);
    let (path, line, _, message) = place(&err);
    assert_eq!((path, line), (dir.path().join("x.diskspecs"), 5));
    assert!(
        message.contains("`source ") && message.contains("nosuch.model"),
        "{message}"
    );
    // A seek curve that is not there.
    let text = model_text().replace("hp_c3323a_validate.seek", "nosuch.seek");
    let (err, dir) = broken("seekfile", &[("x.model", &text)]);
    let (path, line, parameter, _) = place(&err);
    assert_eq!(
        (path, line, parameter.as_deref()),
        (dir.path().join("x.model"), 112, Some("Full seek curve"))
    );
}

#[test]
fn unbalanced_braces_and_brackets_are_refused() {
    let text = model_text();
    let open = text
        .trim_end()
        .strip_suffix("} # end of HP_C3323A_validate_model spec")
        .unwrap()
        .to_string();
    let (err, _) = broken("open", &[("x.model", &open)]);
    let (_, line, _, message) = place(&err);
    assert_eq!(line, 1);
    assert!(message.starts_with("unbalanced braces"), "{message}");

    let extra = format!("{text}\n}}\n");
    let (err, _) = broken("extra", &[("x.model", &extra)]);
    let (_, line, _, message) = place(&err);
    assert_eq!(line, 142);
    assert!(message.contains("`}` closes nothing"), "{message}");

    let list = text.replace("slips = [],\n            defects = []\n         },\n         dm_layout_g1_zone {\n            First cylinder number = 994", "slips = [,\n            defects = []\n         },\n         dm_layout_g1_zone {\n            First cylinder number = 994");
    assert_ne!(list, text);
    let (err, _) = broken("bracket", &[("x.model", &list)]);
    assert!(place(&err).3.contains("expected"), "{err}");
}

#[test]
fn bad_seek_files_and_unsupported_features_are_typed_errors() {
    let model = model_text();
    let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
    let bad = seek.replace("100,    4.392624200", "100,    four");
    let (err, dir) = broken(
        "seekline",
        &[("x.model", &model), ("hp_c3323a_validate.seek", &bad)],
    );
    let (path, line, _, message) = place(&err);
    assert_eq!(
        (path, line),
        (dir.path().join("hp_c3323a_validate.seek"), 27)
    );
    assert!(message.contains("`four` is not a seek time"), "{message}");
    let short = seek.replace("2976,   18.116135300\n", "");
    let (err, _) = broken(
        "seekcount",
        &[("x.model", &model), ("hp_c3323a_validate.seek", &short)],
    );
    assert!(
        place(&err)
            .3
            .contains("declares 67 distances but the file has 66"),
        "{err}"
    );

    let scheme = model.replace("Sparing scheme used = 1", "Sparing scheme used = 11");
    let (err, _) = broken("scheme", &[("x.model", &scheme)]);
    let (_, line, parameter, message) = place(&err);
    assert_eq!(
        (line, parameter.as_deref()),
        (7, Some("Sparing scheme used"))
    );
    assert!(
        message.contains("11 is not one of DiskSim's sparing schemes"),
        "{message}"
    );
    let mapping = model.replace(
        "LBN-to-PBN mapping scheme = 0",
        "LBN-to-PBN mapping scheme = 3",
    );
    let (err, _) = broken("mapping", &[("x.model", &mapping)]);
    let (_, line, parameter, message) = place(&err);
    assert_eq!(
        (line, parameter.as_deref()),
        (6, Some("LBN-to-PBN mapping scheme"))
    );
    assert!(
        message.contains("3 is not one of DiskSim's schemes"),
        "{message}"
    );
    // Every other scheme loads (the slips of this model are tracks, which
    // are also valid sector numbers).
    for n in 0..=10 {
        let scheme = model.replace(
            "Sparing scheme used = 1",
            &format!("Sparing scheme used = {n}"),
        );
        let dir = scratch(&format!("scheme{n}"));
        std::fs::write(dir.path().join("x.model"), &scheme).unwrap();
        std::fs::copy(
            data("hp_c3323a_validate.seek"),
            dir.path().join("hp_c3323a_validate.seek"),
        )
        .unwrap();
        let spec = from_disksim(dir.path().join("x.model")).unwrap();
        DiskModel::from_spec(&spec).unwrap();
    }

    let slip = model.replacen("slips = []", "slips = [ 6958 ]", 1);
    let (err, _) = broken("slip", &[("x.model", &slip)]);
    let (_, line, parameter, message) = place(&err);
    assert_eq!((line, parameter.as_deref()), (19, Some("slips")));
    assert!(
        message.contains("past the zone's last track (6957)"),
        "{message}"
    );

    let order = model.replace("First cylinder number = 994", "First cylinder number = 990");
    let (err, _) = broken("order", &[("x.model", &order)]);
    assert_eq!(place(&err).2.as_deref(), Some("First cylinder number"));
}

#[test]
fn truncated_or_garbled_descriptions_never_panic() {
    let dir = scratch("garbled");
    let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
    std::fs::write(dir.path().join("hp_c3323a_validate.seek"), &seek).unwrap();
    let model = std::fs::read_to_string(data("hp_c2247a_validate.model")).unwrap() + &model_text();
    let path = dir.path().join("x.model");
    let mut loaded = 0;
    for cut in (0..model.len()).step_by(23) {
        let Some(text) = model.get(..cut) else {
            continue;
        };
        std::fs::write(&path, text).unwrap();
        loaded += usize::from(from_disksim(&path).is_ok());
        // The same text with one character replaced by a brace, a digit,
        // a comma or a bracket.
        let c = ["}", "9", ",", "[", "=", "-"][cut % 6];
        let garbled = format!("{}{c}{}", &model[..cut], model.get(cut + 1..).unwrap_or(""));
        std::fs::write(&path, garbled).unwrap();
        let _ = from_disksim(&path);
    }
    // Cut after the first model, the text is that whole model.
    assert!(loaded >= 1, "{loaded}");
    // Nesting beyond reason is an error, not a stack overflow.
    std::fs::write(
        &path,
        format!("dm_disk x {{ a = {} }}", "[".repeat(100_000)),
    )
    .unwrap();
    assert!(
        from_disksim(&path)
            .unwrap_err()
            .to_string()
            .contains("nest more than")
    );
}

/// The DiskSim presets are their files as loaded, renamed. With
/// `SPINDLE_BLESS_PRESETS=1` the stored specs are rewritten from the files
/// (after a change to the loader) instead of checked.
#[test]
fn disksim_presets_are_their_files_as_loaded() {
    use crate::disk::presets::{DISKSIM_PRESETS, preset};
    let bless = std::env::var_os("SPINDLE_BLESS_PRESETS").is_some();
    for (name, file, stored) in DISKSIM_PRESETS {
        let mut spec = from_disksim(data(file)).unwrap();
        spec.name = name.to_string();
        let toml = toml::to_string(&spec).unwrap();
        if bless {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/disk/presets")
                .join(format!("{name}.toml"));
            let header = format!(
                "# Loaded from DiskSim 4.0's valid/{file} by spindle's DiskSim loader\n# (regenerate: SPINDLE_BLESS_PRESETS=1 cargo test -p disk-emu disksim_presets).\n"
            );
            std::fs::write(path, header + &toml).unwrap();
            continue;
        }
        assert_eq!(
            DiskSpec::parse(stored, SpecFormat::Toml).unwrap(),
            spec,
            "{name}: the stored preset is out of date (SPINDLE_BLESS_PRESETS=1 rewrites it)"
        );
        assert_eq!(preset(name).unwrap(), spec);
    }
}

#[test]
fn an_unknown_key_names_its_file_and_line() {
    let text = model_text().replace("Head switch time = 0.650000", "Head swich time = 0.650000");
    let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
    let (err, path) = broken(
        "unknown",
        &[("x.model", &text), ("hp_c3323a_validate.seek", &seek)],
    );
    let (file, line, parameter, message) = place(&err);
    assert_eq!(file, path.path().join("x.model"));
    assert_eq!(parameter.as_deref(), Some("Head swich time"));
    assert!(line > 0);
    assert!(
        message.contains("not a parameter of a `dm_mech_g1` block"),
        "{message}"
    );
}

#[test]
fn zones_load_as_disksim_takes_them() {
    let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
    let load_text = |case: &str, text: &str| {
        let dir = scratch(case);
        std::fs::write(dir.path().join("x.model"), text).unwrap();
        std::fs::write(dir.path().join("hp_c3323a_validate.seek"), &seek).unwrap();
        from_disksim(dir.path().join("x.model"))
    };
    // A last zone that runs past `Number of cylinders` (DiskSim's HP C2490A
    // has one) makes the disk that long.
    let past = model_text().replace("Number of cylinders = 2982", "Number of cylinders = 2900");
    let spec = load_text("past", &past).unwrap();
    assert_eq!(spec.geometry.cylinders, 2982);
    DiskModel::from_spec(&spec).unwrap();
    // A signed write settle is taken as it is.
    let negative = model_text().replace(
        "Add. write settling delay = 0.070000",
        "Add. write settling delay = -0.070000",
    );
    assert!(negative.contains("-0.07"));
    load_text("settle", &negative).unwrap();
    // Overlapping zones are refused.
    let overlap = model_text().replacen(
        "First cylinder number = 994",
        "First cylinder number = 990",
        1,
    );
    assert!(overlap.contains("= 990"));
    let err = load_text("overlap", &overlap).unwrap_err();
    assert_eq!(place(&err).2.as_deref(), Some("First cylinder number"));
}

/// A broken `.model` sourced by a `.diskspecs` is blamed on its own line
/// and field, never on the line that sources it: a bad value, text that is
/// not UTF-8, a file cut short inside a block, and a seek file that is not
/// UTF-8.
#[test]
fn a_sourced_file_is_blamed_for_its_own_faults() {
    let specs = std::fs::read_to_string(data("hp_c3323a_validate.diskspecs"))
        .unwrap()
        .replace("source hp_c3323a_validate.model", "source x.model");
    let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
    let load = |case: &str, model: &[u8], seek: &[u8]| {
        let dir = scratch(case);
        std::fs::write(dir.path().join("x.diskspecs"), &specs).unwrap();
        std::fs::write(dir.path().join("x.model"), model).unwrap();
        std::fs::write(dir.path().join("hp_c3323a_validate.seek"), seek).unwrap();
        let err = from_disksim(dir.path().join("x.diskspecs")).unwrap_err();
        let (path, line, parameter, message) = place(&err);
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        (file, line, parameter, message, err.to_string())
    };

    let bad = model_text().replace("Number of cylinders = 2982", "Number of cylinders = 1e999");
    let (file, line, parameter, message, text) = load("value", bad.as_bytes(), seek.as_bytes());
    assert_eq!(
        (file.as_str(), line, parameter.as_deref()),
        ("x.model", 3, Some("Number of cylinders")),
        "{text}"
    );
    assert!(message.contains("`1e999` is not a number"), "{text}");
    assert!(text.contains("x.model:3: `Number of cylinders`"), "{text}");

    let mut bytes = model_text().into_bytes();
    let at = model_text().find("Block count").unwrap();
    bytes[at] = 0xff;
    let (file, line, _, message, text) = load("utf8", &bytes, seek.as_bytes());
    assert_eq!((file.as_str(), line), ("x.model", 4), "{text}");
    assert!(message.contains("not UTF-8"), "{text}");

    let cut = &model_text()[..model_text().find("Mechanical Model").unwrap()];
    let (file, line, _, message, text) = load("cut", cut.as_bytes(), seek.as_bytes());
    assert_eq!(file, "x.model", "{text}");
    assert_eq!(line as usize, cut.lines().count(), "{text}");
    assert!(
        message.contains("the file ends inside the `{` opened at line 1"),
        "{text}"
    );

    let extra = format!("{}\n}}\n", model_text());
    let (file, _, _, message, text) = load("extra", extra.as_bytes(), seek.as_bytes());
    assert_eq!(file, "x.model", "{text}");
    assert!(message.contains("did not open"), "{text}");

    let mut bad_seek = seek.clone().into_bytes();
    let at = seek.find("\n2,").unwrap() + 1;
    bad_seek[at] = 0xff;
    let (file, line, _, message, text) = load("seek", model_text().as_bytes(), &bad_seek);
    assert_eq!(
        (file.as_str(), line),
        ("hp_c3323a_validate.seek", 3),
        "{text}"
    );
    assert!(message.contains("not UTF-8"), "{text}");
}
