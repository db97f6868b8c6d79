//! Pieces every command shares: resolving disks, listing presets and
//! policies, progress bars, and turning replication results into table cells.

use anyhow::{Context, Result};
use disk_emu::disk::{self, DiskSpec};
use disk_emu::stats::MetricTable;
use indicatif::{ProgressBar, ProgressStyle};
use sched_core::PolicySpec;

use crate::output::{Cell, Format, Table};

/// A disk named on the command line: a preset, a TOML/JSON spec file (which
/// may override a preset field by field), or `disksim:<file>` for a DiskSim
/// model description.
pub fn resolve_disk(name: &str) -> Result<DiskSpec> {
    if let Some(path) = name.strip_prefix("disksim:") {
        return disk::from_disksim(path).with_context(|| format!("loading DiskSim model {path}"));
    }
    let looks_like_file = name.ends_with(".toml") || name.ends_with(".json") || name.contains('/');
    if looks_like_file {
        return DiskSpec::from_file(name).map_err(Into::into);
    }
    disk::preset(name).map_err(Into::into)
}

/// `spindle presets`.
pub fn print_presets(format: Format) {
    let mut t = Table::new(
        "Disk presets (use with --disk; any field can be overridden from a TOML/JSON file)",
        &["name", "description"],
    );
    for (name, description) in disk::PRESETS {
        t.row(vec![Cell::text(name), Cell::text(description)]);
    }
    t.note("Also: --disk FILE.toml|FILE.json (a whole spec, or `preset = \"name\"` plus overrides), --disk disksim:FILE.parv");
    print!("{}", t.render(format));
}

/// `spindle policies`.
pub fn print_policies(format: Format) {
    let described = [
        "first come, first served",
        "shortest seek (cylinder distance) first",
        "elevator to the disk edge (Denning 1967)",
        "elevator reversing at the last request",
        "circular SCAN: upward sweeps, return seek to cylinder 0",
        "circular LOOK: upward sweeps, jump to the lowest request",
        "V(R): SSTF with reversal penalty R x cylinders (Geist & Daniel 1987)",
        "earliest deadline first",
        "shortest seek and earliest deadline by ordering, window m, weights beta^(i-1) (Chen & Towsley 1991)",
        "shortest seek and earliest deadline by value, alpha*d + (1-alpha)*slack/unit (Chen et al. 1991)",
        "EDF; deadlines within a granularity served in elevator order (Reddy & Wyllie 1993)",
        "sweep toward the earliest feasible deadline (Abbott & Garcia-Molina 1990)",
        "shortest positioning time first (seek + rotation from the disk model)",
        "SPTF minus weight x waiting time (DiskSim's aged SPTF)",
    ];
    let mut t = Table::new(
        "Single-disk policies (use with --policy NAME[:key=value,...])",
        &["policy", "defaults", "what it does"],
    );
    for (spec, what) in PolicySpec::DEFAULTS.iter().zip(described) {
        t.row(vec![
            Cell::text(spec.name()),
            Cell::text(spec.to_string()),
            Cell::text(what),
        ]);
    }
    print!("{}", t.render(format));
}

/// A progress bar on stderr for `total` units of work; hidden when stderr is
/// not a terminal.
pub fn progress(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// The confidence-interval cell of `metric` in `table`, scaled by `scale`.
pub fn estimate(table: &MetricTable, metric: &str, scale: f64, digits: usize) -> Cell {
    match table.interval(metric, 0.95) {
        Ok(i) => Cell::estimate(
            i.mean * scale,
            i.half_width.unwrap_or(f64::NAN) * scale,
            digits,
        ),
        Err(_) => Cell::Missing,
    }
}

/// A human form of a policy spec: its name, with parameters only when they
/// differ from the defaults.
pub fn policy_label(spec: &PolicySpec) -> String {
    if PolicySpec::DEFAULTS.contains(spec) {
        spec.name().to_string()
    } else {
        spec.to_string()
    }
}
