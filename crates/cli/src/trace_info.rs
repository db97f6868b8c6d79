//! `spindle trace-info`: what a block trace holds, from one streaming pass:
//! for SRT the header's disks and sections, then the requests by kind, by
//! device and (SRT) by section, the time span, and the distribution of
//! request sizes.

use std::path::PathBuf;

use anyhow::Result;
use disk_emu::trace::{self, TraceFormat, TraceOptions, TraceProfile, TraceSummary};

use crate::output::{Cell, Format, Table};

/// Options of `spindle trace-info`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TraceInfoArgs {
    /// The trace file.
    pub trace: PathBuf,
    /// Trace format (default: detected): disksim-ascii, disksim-validate, msr, spc, srt.
    #[cfg_attr(feature = "cli", arg(long))]
    pub trace_format: Option<TraceFormat>,
    /// Bytes per block of the block numbers and request sizes shown.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 512, value_parser = crate::bounds::block_size()))]
    pub block_size: u32,
}

/// `spindle trace-info`.
pub fn run(args: &TraceInfoArgs, format: Format) -> Result<()> {
    let options = TraceOptions {
        block_size: args.block_size,
        devices: None,
    };
    let reader = trace::open(&args.trace, args.trace_format, options)?;
    let file = reader.file().to_string();
    let profile = reader.profile()?;
    crate::report::emit_tables(&tables(&file, &profile), format)?;
    Ok(())
}

/// Quantiles of the request-size table.
const QUANTILES: [(&str, f64); 8] = [
    ("min", 0.0),
    ("10%", 0.1),
    ("25%", 0.25),
    ("median", 0.5),
    ("75%", 0.75),
    ("90%", 0.9),
    ("99%", 0.99),
    ("max", 1.0),
];

const NS_PER_S: f64 = 1e9;

fn seconds(ns: Option<u64>) -> Cell {
    ns.map_or(Cell::Missing, |ns| Cell::num(ns as f64 / NS_PER_S, 6))
}

fn block(b: Option<u64>) -> Cell {
    b.map_or(Cell::Missing, Cell::Int)
}

/// `1 d 02:03:04.5` for a span in nanoseconds.
fn days(ns: u64) -> String {
    let s = ns / 1_000_000_000;
    let fraction = ns % 1_000_000_000;
    let (d, h, m, s) = (s / 86_400, s / 3_600 % 24, s / 60 % 60, s % 60);
    format!("{d} d {h:02}:{m:02}:{s:02}.{fraction:09}")
}

/// The tables `spindle trace-info` prints for `profile` of `file`.
pub fn tables(file: &str, profile: &TraceProfile) -> Vec<Table> {
    let mut out = vec![overview(file, profile)];
    if let Some(header) = &profile.srt_header {
        out.extend(srt_tables(header, profile));
    }
    out.push(devices(profile));
    out.push(sizes(profile));
    out
}

fn overview(file: &str, p: &TraceProfile) -> Table {
    let s = &p.summary;
    let mut t = Table::new(
        format!("{file}: {} trace, {} requests", p.format, s.records),
        &["figure", "value"],
    );
    let mut row = |name: &str, value: Cell| t.row(vec![Cell::text(name), value]);
    row("requests", Cell::Int(s.records));
    row("reads", Cell::Int(s.reads));
    row("writes", Cell::Int(s.writes));
    if p.format == TraceFormat::Srt {
        row("suspect records set aside", Cell::Int(s.suspect));
    }
    row("devices", Cell::Int(p.devices.len() as u64));
    let timed = s.earliest_arrival.is_some();
    if timed {
        row("first arrival s", seconds(s.earliest_arrival));
        row("last arrival s", seconds(s.latest_arrival));
        row("span s", seconds(Some(s.duration())));
    } else if s.records > 0 {
        row("measured run s", seconds(Some(s.measured_time)));
    }
    row("lowest block", block(s.lowest_block));
    row("end block", block(s.end_block));
    row("block bytes", Cell::Int(u64::from(p.block_size)));
    if timed {
        t.note(format!("Span: {}.", days(s.duration())));
    }
    t.note("Blocks count block-bytes units, rounded outward; end block is one past the last.");
    t
}

fn srt_tables(header: &trace::SrtHeader, p: &TraceProfile) -> Vec<Table> {
    let mut about = Table::new("SRT header", &["field", "value"]);
    let text = |v: &Option<String>| Cell::text(v.as_deref().unwrap_or(""));
    about.row(vec![
        Cell::text("format version"),
        Cell::text(&header.format_version),
    ]);
    about.row(vec![
        Cell::text("format note"),
        Cell::text(&header.format_note),
    ]);
    about.row(vec![
        Cell::text("trace date"),
        Cell::text(header.trace_date.to_string()),
    ]);
    about.row(vec![Cell::text("system"), text(&header.system)]);
    about.row(vec![Cell::text("machine type"), text(&header.machine_type)]);
    about.row(vec![Cell::text("OS version"), text(&header.os_version)]);
    about.row(vec![Cell::text("description"), text(&header.description)]);
    for (key, value) in &header.other {
        about.row(vec![Cell::text(key), Cell::text(value)]);
    }
    about.note(format!(
        "The header is {} bytes; record times count from the trace date.",
        header.length
    ));

    // Per (disk, section): the totals over the block and the raw device.
    let per_section = |disk: u32, section: u32| {
        let mut all = TraceSummary::default();
        let mut raw = 0;
        for (&devno, s) in &p.srt_devices {
            if (devno & 0x00FF_FFFF) >> 8 == disk && devno & 0xFF == section {
                all.records += s.records;
                all.reads += s.reads;
                all.writes += s.writes;
                if header
                    .disk(disk)
                    .is_some_and(|d| devno >> 24 == d.character_major)
                {
                    raw += s.records;
                }
            }
        }
        (all, raw)
    };

    let mut disks = Table::new(
        "SRT disks (geometry from the header)",
        &[
            "disk",
            "type",
            "sector B",
            "sectors/trk",
            "tracks/cyl",
            "cylinders",
            "sectors",
            "MB",
            "rpm",
            "blk major",
            "chr major",
            "requests",
        ],
    );
    let mut sections = Table::new(
        "SRT sections",
        &[
            "disk",
            "section",
            "name",
            "first sector",
            "sectors",
            "MB",
            "requests",
            "reads",
            "writes",
            "raw",
        ],
    );
    let megabytes = |sectors: u64, size: u32| Cell::num(sectors as f64 * f64::from(size) / 1e6, 1);
    for d in &header.disks {
        disks.row(vec![
            Cell::Int(u64::from(d.number)),
            Cell::text(d.disk_type.as_deref().unwrap_or("")),
            Cell::Int(u64::from(d.sector_size)),
            Cell::Int(u64::from(d.sectors_per_track)),
            Cell::Int(u64::from(d.tracks_per_cylinder)),
            Cell::Int(u64::from(d.cylinders)),
            Cell::Int(d.sectors()),
            megabytes(d.sectors(), d.sector_size),
            d.rpm.map_or(Cell::Missing, |r| Cell::Int(u64::from(r))),
            Cell::Int(u64::from(d.block_major)),
            Cell::Int(u64::from(d.character_major)),
            Cell::Int(p.devices.get(&d.number).map_or(0, |s| s.records)),
        ]);
        for s in &d.sections {
            let (totals, raw) = per_section(d.number, s.number);
            sections.row(vec![
                Cell::Int(u64::from(d.number)),
                Cell::Int(u64::from(s.number)),
                Cell::text(&s.name),
                Cell::Int(s.first_sector),
                Cell::Int(s.sectors(d.sector_size)),
                megabytes(s.sectors(d.sector_size), d.sector_size),
                Cell::Int(totals.records),
                Cell::Int(totals.reads),
                Cell::Int(totals.writes),
                Cell::Int(raw),
            ]);
        }
    }
    sections.note(
        "First sector in the disk's sectors; raw counts requests through the character device.",
    );
    vec![about, disks, sections]
}

fn devices(p: &TraceProfile) -> Table {
    let mut t = Table::new(
        "Requests by device",
        &[
            "device",
            "requests",
            "reads",
            "writes",
            "first arrival s",
            "last arrival s",
            "lowest block",
            "end block",
        ],
    );
    for (&device, s) in &p.devices {
        t.row(vec![
            Cell::Int(u64::from(device)),
            Cell::Int(s.records),
            Cell::Int(s.reads),
            Cell::Int(s.writes),
            seconds(s.earliest_arrival),
            seconds(s.latest_arrival),
            block(s.lowest_block),
            block(s.end_block),
        ]);
    }
    if p.format == TraceFormat::Srt {
        t.note("SRT devices are the header's disk numbers.");
    }
    t
}

fn sizes(p: &TraceProfile) -> Table {
    let mut t = Table::new("Request sizes", &["quantile", "blocks", "KiB"]);
    let kib = |blocks: u32| Cell::num(f64::from(blocks) * f64::from(p.block_size) / 1024.0, 1);
    for (name, q) in QUANTILES {
        if let Some(blocks) = p.size_quantile(q) {
            t.row(vec![
                Cell::text(name),
                Cell::Int(u64::from(blocks)),
                kib(blocks),
            ]);
        }
    }
    if let Some(mean) = p.mean_size() {
        t.note(format!(
            "Mean {mean:.2} blocks ({:.2} KiB) over {} distinct sizes; quantiles are \
             nearest-rank, each a size some request has.",
            mean * f64::from(p.block_size) / 1024.0,
            p.sizes.len()
        ));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_print_as_days() {
        assert_eq!(days(603_064_588_892_000), "6 d 23:31:04.588892000");
        assert_eq!(days(0), "0 d 00:00:00.000000000");
    }
}
