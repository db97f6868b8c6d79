//! Pieces every command shares: resolving disks, listing presets and
//! policies, progress bars, and turning replication results into table cells.

use anyhow::{Context, Result};
use disk_emu::disk::{self, DiskSpec};
use experiments::{MetricTable, Placement};
use indicatif::{ProgressBar, ProgressStyle};
use sched_core::PolicySpec;
use sched_core::array::ArraySpec;
use sched_core::registry::{self, PolicyKind, Uses};

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
pub fn print_presets(format: Format) -> Result<()> {
    let mut t = Table::new(
        "Disk presets (use with --disk; any field can be overridden from a TOML/JSON file)",
        &["name", "description"],
    );
    for (name, description) in disk::PRESETS {
        t.row(vec![Cell::text(name), Cell::text(description)]);
    }
    t.note("Also: --disk FILE.toml|FILE.json (a whole spec, or `preset = \"name\"` plus overrides), --disk disksim:FILE.parv");
    crate::report::emit_table(&t, format)
}

/// `spindle policies`: every single-disk and array policy of sched-core's registry.
pub fn print_policies(format: Format) -> Result<()> {
    let mut t = Table::new(
        "Policies: NAME[:key=value,...] (single-disk ones with --policy)",
        &[
            "policy",
            "kind",
            "parameters (defaults)",
            "what it does",
            "paper",
        ],
    );
    for info in registry::POLICIES {
        let parameters = info
            .parameters
            .iter()
            .map(|p| format!("{}={}", p.name, p.default))
            .collect::<Vec<_>>()
            .join(",");
        let kind = match info.kind {
            PolicyKind::Disk => "disk",
            PolicyKind::Array => "array",
            PolicyKind::RateBased => "rate-based",
        };
        t.row(vec![
            Cell::text(info.name),
            Cell::text(kind),
            Cell::text(parameters),
            Cell::text(info.summary),
            Cell::text(info.paper),
        ]);
    }
    t.note("A nested discipline is written in parentheses: dmq-sq:queue=ssedo(m=5,beta=1.5)");
    crate::report::emit_table(&t, format)
}

/// What a run gives a policy to order requests by, for
/// [`policy_warnings`].
pub struct RunGives<'a> {
    /// The disk every request goes to.
    pub disk: &'a DiskSpec,
    /// Whether requests carry deadlines, and if not, what gives them some.
    pub deadlines: Result<(), &'a str>,
}

/// Warnings (printed on stderr, the run going on) for a policy the run
/// gives nothing to work with: a deadline policy whose requests carry no
/// deadlines, a policy ordering by cylinder on a disk whose seek time does
/// not depend on the distance, one ordering by positioning time on a disk
/// where nothing depends on position. What each policy uses is its row of
/// sched-core's policy table ([`Uses`]); what the disk's timing depends on
/// is disk-emu's ([`DiskSpec::seek_depends_on_distance`]).
pub fn policy_warnings(label: &str, uses: Uses, run: &RunGives<'_>) -> Vec<String> {
    let mut warnings = Vec::new();
    if uses.deadlines
        && let Err(fix) = run.deadlines
    {
        warnings.push(format!(
            "{label} orders requests by deadline, but these carry none ({fix}): they all tie, and it serves them in its tie-break's order"
        ));
    }
    let disk = &run.disk.name;
    if uses.cylinders && !run.disk.seek_depends_on_distance() {
        warnings.push(format!(
            "{label} orders requests by cylinder, but on the `{disk}` disk a seek takes no longer for a longer distance (one cylinder, no seek, or seeks drawn at random): its order saves no time"
        ));
    } else if uses.positioning && !run.disk.positioning_depends_on_position() {
        warnings.push(format!(
            "{label} orders requests by positioning time, but on the `{disk}` disk that time does not depend on where the arm or the platter is: its order saves no time"
        ));
    }
    warnings
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

/// A human form of an array policy spec: the name a user gives it (a base
/// policy with its defaults, or a named composition such as `rt-dmq`), or
/// its canonical description when no name stands for it.
pub fn array_label(spec: &ArraySpec) -> String {
    ArraySpec::named()
        .find(|(_, named)| named == spec)
        .map_or_else(|| spec.to_string(), |(name, _)| name.to_string())
}

/// Refuses a `--disks` or `--placement` that does not fit the policy
/// `label`, which runs on `needed` disks (1, or 2 for a mirrored pair),
/// saying which fits.
///
/// # Errors
/// A disk count other than `needed`; a placement for a single disk.
pub fn check_disks(
    label: &str,
    needed: u32,
    disks: Option<u32>,
    placement: Option<Placement>,
) -> anyhow::Result<()> {
    if let Some(disks) = disks
        && disks != needed
    {
        anyhow::bail!(
            "--disks {disks}: {label} needs {needed} (single-disk policies run on one disk, array policies on a mirrored pair)"
        );
    }
    if needed == 1
        && let Some(placement) = placement
    {
        anyhow::bail!(
            "--placement ({}): lays out a mirrored pair's second disk, but {label} runs on one disk; give an array policy (such as --policy dmq), or leave --placement out",
            describe_placement(placement)
        );
    }
    Ok(())
}

/// A human form of a mirrored pair's placement, for titles.
pub fn describe_placement(placement: Placement) -> String {
    match placement {
        Placement::Identical { .. } => "identical copies".to_string(),
        Placement::Shifted { fraction } => format!("second copy shifted by {fraction} of the disk"),
        Placement::Reversed => "second copy reversed".to_string(),
    }
}
