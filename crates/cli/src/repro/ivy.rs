//! Lo, *Ivy: a study on replicating data for performance improvement* (HP
//! Labs HPL-CSP-90-48, 1990): dynamic N-copy replication replayed on a real
//! week of HP-UX disk traffic (`ajw.1week.srt`), every replication policy
//! (RNWN, RNW1, RNW1CR, scatter, scatter + RNW1CR) against the number of
//! copies, and Ivy's least-expected-turnaround copy selection side by side
//! with Linux md's read balancing, the shortest queue and random routing.
//!
//! The tables have the paper's columns (§6.1, Tables 5–15) with 95 %
//! intervals over replications, which differ in their random choices:
//! rotational latencies, random routing, random placement and cut-backs.
//! What the paper leaves open and what the block-level trace forces is
//! decided in `experiments::replication` and `experiments::run_ivy` (objects
//! are fixed-size extents; copying is real disk work; first reads and first
//! writes start an object's history).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use disk_emu::trace::{TraceFormat, TraceOptions};
use experiments::{
    CopySelection, IvyConfig, IvyDisk, IvyPoint, IvyTrace, MetricTable, ReplicationPolicy,
    distinct_configs, ivy_sweep,
};
use sched_core::PolicySpec;

use crate::common::resolve_disk;
use crate::output::{Cell, Format, Table};
use crate::plot::{Panel, PlotArgs, Series, Source, draw_panels};

/// The bundled week of `hplajw`'s disk traffic, beside the checkout.
pub const BUNDLED_TRACE: &str = "../shared/data/disksim-valid/ajw.1week.srt";

/// Options of the Ivy reproduction.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct IvyOptions {
    /// The trace (any timed format; HP SRT by default).
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE", default_value = BUNDLED_TRACE))]
    pub trace: PathBuf,
    /// The trace's format, if it cannot be detected.
    #[cfg_attr(feature = "cli", arg(long, value_parser = clap::value_parser!(TraceFormat)))]
    pub trace_format: Option<TraceFormat>,
    /// The disks: `traced` (the drive the trace's header describes), a
    /// preset (`hp7935`, `hp7937`, `hp7935-printed`, …), a spec file or
    /// `disksim:FILE.parv`.
    #[cfg_attr(feature = "cli", arg(long, default_value = "traced"))]
    pub disk: String,
    /// Replication policies (rnwn, rnw1, rnw1cr, scatter, scatter-rnw1cr);
    /// all five when omitted.
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ','))]
    pub policy: Vec<ReplicationPolicy>,
    /// Copy selection rules (least-turnaround, md, shortest-queue, random;
    /// also least-backlog); the first four when omitted.
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ',', value_parser = parse_selection))]
    pub routing: Vec<CopySelection>,
    /// Numbers of copies (and disks per traced disk), 1 ..= 8.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_delimiter = ',', default_value = "1,2,3,5,7", value_parser = crate::bounds::Whole::<usize>::new("copies", 1, 8))
    )]
    pub copies: Vec<usize>,
    /// Object (extent) sizes in KB; the first is used throughout, and with
    /// several a table compares them.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_delimiter = ',', default_value = "16", value_parser = crate::bounds::Whole::<u64>::new("the extent, KB", 1, 1 << 20))
    )]
    pub extent: Vec<u64>,
    /// Every disk's queue discipline: fcfs as in the paper, c-look as HP-UX
    /// swept (any single-disk policy).
    #[cfg_attr(feature = "cli", arg(long, default_value = "fcfs"))]
    pub discipline: PolicySpec,
    /// A second per-disk discipline, run under the first routing and
    /// compared with `--discipline` in a table of its own (the paper's
    /// FIFO against the C-LOOK HP-UX used); `none` for no comparison.
    #[cfg_attr(feature = "cli", arg(long, default_value = "c-look", value_parser = parse_compared))]
    pub compare_discipline: ComparedDiscipline,
    /// RNW1 family: seconds after an object's last write before its copies
    /// are made.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 60.0, value_parser = crate::bounds::Real::new("the delay", 0.0, 1e7).unit_ns(1e9)))]
    pub delay_s: f64,
    /// Replications per configuration (95 % intervals across them).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 5, value_parser = crate::bounds::Whole::<u64>::new("replications", 1, 1_000)))]
    pub replications: u64,
    /// Seed of the whole reproduction.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// Threads; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::run::default_jobs(), value_parser = crate::bounds::jobs()))]
    pub jobs: usize,
    /// `--plot FILE` draws read and write turnaround against copies, one
    /// line per policy (the first routing); `--log-y` as every figure.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub plot: PlotArgs,
}

/// `--compare-discipline`: a per-disk discipline, or none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComparedDiscipline(pub Option<PolicySpec>);

#[cfg(feature = "cli")]
fn parse_compared(s: &str) -> Result<ComparedDiscipline, String> {
    if s == "none" {
        return Ok(ComparedDiscipline(None));
    }
    s.parse::<PolicySpec>()
        .map(|d| ComparedDiscipline(Some(d)))
        .map_err(|e| e.to_string())
}

#[cfg(feature = "cli")]
fn parse_selection(s: &str) -> Result<CopySelection, String> {
    CopySelection::parse(s).ok_or_else(|| {
        format!("unknown routing `{s}` (known: least-turnaround, least-backlog, md, shortest-queue, random)")
    })
}

impl Default for IvyOptions {
    fn default() -> Self {
        IvyOptions {
            trace: PathBuf::from(BUNDLED_TRACE),
            trace_format: None,
            disk: "traced".into(),
            policy: Vec::new(),
            routing: Vec::new(),
            copies: vec![1, 2, 3, 5, 7],
            extent: vec![16],
            discipline: PolicySpec::Fcfs,
            compare_discipline: ComparedDiscipline(Some(PolicySpec::CLook)),
            delay_s: 60.0,
            replications: 5,
            seed: 1,
            jobs: crate::run::default_jobs(),
            plot: PlotArgs::default(),
        }
    }
}

impl IvyOptions {
    fn policies(&self) -> Vec<ReplicationPolicy> {
        if self.policy.is_empty() {
            ReplicationPolicy::ALL.to_vec()
        } else {
            self.policy.clone()
        }
    }

    fn routings(&self) -> Vec<CopySelection> {
        if self.routing.is_empty() {
            CopySelection::COMPARED.to_vec()
        } else {
            self.routing.clone()
        }
    }
}

/// The paper's column headers, in order, with the metric each shows.
const COLUMNS: [(&str, &str, usize); 10] = [
    ("seek distance", "seek_distance", 1),
    ("disk queue", "queue", 2),
    ("read queue", "read_queue", 2),
    ("write queue", "write_queue", 2),
    ("read ms", "read_mean_ms", 2),
    ("read sd", "read_sd_ms", 1),
    ("write ms", "write_mean_ms", 2),
    ("write sd", "write_sd_ms", 1),
    ("overall ms", "overall_mean_ms", 2),
    ("overall sd", "overall_sd_ms", 1),
];

/// The mean of `metric` over the replications, with its 95 % half-width
/// when there are several.
fn cell(metrics: &MetricTable, metric: &str, digits: usize) -> Cell {
    match metrics.interval(metric, 0.95) {
        Ok(i) => match i.half_width {
            Some(h) => Cell::estimate(i.mean, h, digits),
            None => Cell::num(i.mean, digits),
        },
        Err(_) => Cell::Missing,
    }
}

fn mean(metrics: &MetricTable, metric: &str) -> Option<f64> {
    metrics.interval(metric, 0.95).ok().map(|i| i.mean)
}

/// The sweep's results, looked up by configuration.
struct Results {
    points: Vec<IvyPoint>,
    /// The discipline of every table but the discipline comparison.
    discipline: PolicySpec,
}

impl Results {
    fn get(
        &self,
        policy: ReplicationPolicy,
        copies: usize,
        selection: CopySelection,
        extent_bytes: u64,
    ) -> Option<&IvyPoint> {
        self.under(policy, copies, selection, extent_bytes, self.discipline)
    }

    /// [`get`](Self::get) under a given per-disk discipline.
    fn under(
        &self,
        policy: ReplicationPolicy,
        copies: usize,
        selection: CopySelection,
        extent_bytes: u64,
        discipline: PolicySpec,
    ) -> Option<&IvyPoint> {
        self.points.iter().find(|p| {
            p.config.policy == policy
                && p.config.copies == copies
                && p.config.selection == selection
                && p.config.extent_bytes == extent_bytes
                && p.config.discipline == discipline
        })
    }
}

/// The drive the tables are about, for titles.
fn disk_label(options: &IvyOptions, trace: &IvyTrace) -> String {
    match options.disk.as_str() {
        "traced" => {
            let names: Vec<&str> = trace
                .disks()
                .iter()
                .filter_map(|d| d.drive.as_ref().map(|s| s.name.as_str()))
                .collect();
            format!(
                "the traced drive ({})",
                names.first().copied().unwrap_or("?")
            )
        }
        other => other.to_string(),
    }
}

/// What `spindle repro ivy` computes: its tables and its figure.
pub struct Reproduction {
    /// The tables, in the order printed.
    pub tables: Vec<Table>,
    /// The figure's title.
    pub title: String,
    /// The figure's panels: read and write turnaround against copies.
    pub panels: Vec<Panel>,
    /// What the simulation cost, for standard error.
    cost: String,
    started: Instant,
}

/// `spindle repro ivy`.
///
/// # Errors
/// Bad options, an unreadable trace, a failed replay, an unwritable plot.
pub fn run(options: &IvyOptions, format: Format) -> Result<()> {
    let r = reproduce(options)?;
    let scales = options.plot.scales();
    crate::report::picture(options.plot.plot.as_deref(), &r.title, || {
        Ok(draw_panels(&r.title, &r.panels, scales).svg)
    })?;
    if let Some(path) = &options.plot.plot
        && !crate::output::results_discarded()
    {
        eprintln!("wrote {}", path.display());
    }
    crate::output::emit_tables(&r.tables, format)?;
    eprintln!(
        "{}, {:.1} s wall with {} jobs",
        r.cost,
        r.started.elapsed().as_secs_f64(),
        options.jobs
    );
    Ok(())
}

/// Replays the trace under every configuration `options` asks for.
///
/// # Errors
/// Bad options, an unreadable trace, a failed replay.
pub fn reproduce(options: &IvyOptions) -> Result<Reproduction> {
    if options.copies.is_empty() || options.copies.iter().any(|&n| n == 0 || n > 8) {
        bail!("--copies: expected numbers of copies in 1 ..= 8");
    }
    if options.extent.is_empty() || options.extent.contains(&0) {
        bail!("--extent: expected positive sizes in KB");
    }
    if !(options.delay_s.is_finite() && options.delay_s >= 0.0) {
        bail!("--delay-s: expected a non-negative number of seconds");
    }
    let disk = match options.disk.as_str() {
        "traced" => IvyDisk::Traced,
        name => IvyDisk::Model(Box::new(resolve_disk(name)?)),
    };
    let block_size = match &disk {
        IvyDisk::Traced => 256,
        IvyDisk::Model(spec) => disk_emu::disk::DiskModel::from_spec(spec)?.block_bytes(),
    };
    let started = Instant::now();
    let trace = IvyTrace::load(
        &options.trace,
        options.trace_format,
        TraceOptions {
            block_size,
            devices: None,
        },
    )
    .with_context(|| format!("reading {}", options.trace.display()))?;
    let block_size = match (&disk, trace.disks().first().and_then(|d| d.drive.as_ref())) {
        (IvyDisk::Traced, Some(drive)) => drive.geometry.sector_bytes,
        _ => block_size,
    };
    let trace = if block_size == trace.block_bytes() {
        trace
    } else {
        IvyTrace::load(
            &options.trace,
            options.trace_format,
            TraceOptions {
                block_size,
                devices: None,
            },
        )?
    };
    let policies = options.policies();
    let routings = options.routings();
    let extents: Vec<u64> = options.extent.iter().map(|kb| kb * 1024).collect();
    let delay = (options.delay_s * 1e9).round() as u64;
    let config_under = |policy, copies, selection, extent_bytes, discipline| IvyConfig {
        disk: disk.clone(),
        policy,
        copies,
        selection,
        discipline,
        extent_bytes,
        delay,
    };
    let config = |policy, copies, selection, extent_bytes| {
        config_under(policy, copies, selection, extent_bytes, options.discipline)
    };
    let mut configs = Vec::new();
    for &policy in &policies {
        for &n in &options.copies {
            for &selection in &routings {
                configs.push(config(policy, n, selection, extents[0]));
            }
        }
    }
    // The bar counts the replays of both sweeps; the second's are added
    // once its configurations are known.
    let bar = crate::common::progress(
        distinct_configs(&configs) as u64 * options.replications,
        "replays",
    );
    let replayed = || bar.inc(1);
    let main = ivy_sweep(
        &trace,
        &configs,
        options.replications,
        options.seed,
        options.jobs,
        &replayed,
    )?;
    // The other object sizes, and the other discipline, under the first
    // routing.
    let mut others = Vec::new();
    for &extent in &extents[1..] {
        for &policy in &policies {
            for &n in &options.copies {
                others.push(config(policy, n, routings[0], extent));
            }
        }
    }
    let compared = options
        .compare_discipline
        .0
        .filter(|&d| d != options.discipline);
    if let Some(discipline) = compared {
        for &policy in &policies {
            for &n in &options.copies {
                others.push(config_under(policy, n, routings[0], extents[0], discipline));
            }
        }
    }
    bar.inc_length(distinct_configs(&others) as u64 * options.replications);
    let sensitivity = ivy_sweep(
        &trace,
        &others,
        options.replications,
        options.seed,
        options.jobs,
        &replayed,
    )?;
    bar.finish_and_clear();
    let results = Results {
        points: main
            .points
            .iter()
            .chain(&sensitivity.points)
            .cloned()
            .collect(),
        discipline: options.discipline,
    };
    let label = disk_label(options, &trace);
    let mut tables = Vec::new();
    for &policy in &policies {
        tables.push(policy_table(
            options, &results, policy, &routings, extents[0], &label,
        ));
    }
    tables.push(selection_table(
        options, &results, &policies, &routings, extents[0],
    ));
    if let Some(t) = headline_table(options, &results, &policies, routings[0], extents[0]) {
        tables.push(t);
    }
    if extents.len() > 1 {
        tables.push(extent_table(
            options,
            &results,
            &policies,
            routings[0],
            &extents,
        ));
    }
    if let Some(other) = compared {
        tables.push(discipline_table(
            options,
            &results,
            &policies,
            routings[0],
            extents[0],
            other,
        ));
    }
    let trace_name = std::path::Path::new(trace.file()).file_name().map_or_else(
        || trace.file().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let replications = options.replications.max(1);
    Ok(Reproduction {
        tables,
        title: format!(
            "Lo 1990 (Ivy): turnaround against copies, {trace_name} on {label}; {} copy selection, {} KB objects, {} queues",
            routings[0].name(),
            extents[0] / 1024,
            options.discipline.name().to_ascii_uppercase()
        ),
        panels: panels(options, &results, &policies, routings[0], extents[0]),
        cost: format!(
            "{} configurations ({} distinct) of {} requests: {:.2} s of one core per replication ({:.1} s for {} replications); all tables {:.1} s of one core",
            configs.len(),
            main.distinct,
            trace.requests(),
            main.cpu.as_secs_f64() / replications as f64,
            main.cpu.as_secs_f64(),
            replications,
            (main.cpu + sensitivity.cpu).as_secs_f64(),
        ),
        started,
    })
}

/// Lo's table for one policy: every number of copies under every routing.
fn policy_table(
    options: &IvyOptions,
    results: &Results,
    policy: ReplicationPolicy,
    routings: &[CopySelection],
    extent: u64,
    disk: &str,
) -> Table {
    let mut columns = vec!["copies", "routing"];
    columns.extend(COLUMNS.iter().map(|c| c.0));
    columns.push("copy ops");
    let mut t = Table::new(
        format!(
            "Ivy, {}: {} on {} ({} queues, {} KB objects)",
            policy.label(),
            options.trace.display(),
            disk,
            options.discipline,
            extent / 1024
        ),
        &columns,
    );
    for &n in &options.copies {
        for &selection in routings {
            let Some(p) = results.get(policy, n, selection, extent) else {
                continue;
            };
            let mut row = vec![Cell::Int(n as u64), Cell::text(selection.name())];
            row.extend(COLUMNS.iter().map(|&(_, m, d)| cell(&p.metrics, m, d)));
            row.push(cell(&p.metrics, "copy_operations", 0));
            t.row(row);
        }
    }
    t.note("seek distance: cylinders per disk operation (copy traffic included); queues: operations at the disk (queued or in service) seen by each arriving operation, each read, each write copy; turnaround: arrival to completion (a write: its acknowledgement), ms");
    t.note(format!(
        "mean ± 95 % half-width over {} replications (rotational latency, random routing, placement and cut-backs drawn anew)",
        options.replications
    ));
    t
}

/// Mean read turnaround of every routing, side by side.
fn selection_table(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    routings: &[CopySelection],
    extent: u64,
) -> Table {
    let mut columns = vec!["policy", "copies"];
    columns.extend(routings.iter().map(|r| r.name()));
    let mut t = Table::new(
        "Copy selection: mean read turnaround (ms) by routing",
        &columns,
    );
    for &policy in policies.iter().filter(|p| p.replicates()) {
        for &n in options.copies.iter().filter(|&&n| n > 1) {
            let mut row = vec![Cell::text(policy.label()), Cell::Int(n as u64)];
            for &r in routings {
                row.push(
                    results
                        .get(policy, n, r, extent)
                        .map_or(Cell::Missing, |p| cell(&p.metrics, "read_mean_ms", 2)),
                );
            }
            t.row(row);
        }
    }
    t.note("least-turnaround: Ivy's rule (queued work the discipline serves first + own service from the head); md: Linux md RAID-1 on rotating disks (sequential, else idle, else nearest head); shortest-queue: fewest operations; random: a current copy drawn uniformly");
    t
}

/// Read and write turnaround at 2 and 3 copies against one copy, beside
/// the paper's headlines.
fn headline_table(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    selection: CopySelection,
    extent: u64,
) -> Option<Table> {
    if ![1, 2, 3].iter().all(|n| options.copies.contains(n)) {
        return None;
    }
    let mut t = Table::new(
        format!(
            "Against one copy ({}): read and write turnaround, ms, and change, %",
            selection.name()
        ),
        &[
            "policy",
            "read 1",
            "read 2",
            "read Δ2 %",
            "read 3",
            "read Δ3 %",
            "write 1",
            "write 2",
            "write Δ2 %",
            "write 3",
            "write Δ3 %",
        ],
    );
    let change = |base: Option<f64>, x: Option<f64>| match (base, x) {
        (Some(b), Some(x)) if b > 0.0 => Cell::num((x / b - 1.0) * 100.0, 0),
        _ => Cell::Missing,
    };
    for &policy in policies {
        let m = |n: usize, metric: &str| {
            results
                .get(policy, n, selection, extent)
                .and_then(|p| mean(&p.metrics, metric))
        };
        let mut row = vec![Cell::text(policy.label())];
        for metric in ["read_mean_ms", "write_mean_ms"] {
            let base = m(1, metric);
            row.push(base.map_or(Cell::Missing, |b| Cell::num(b, 2)));
            for n in [2, 3] {
                row.push(m(n, metric).map_or(Cell::Missing, |x| Cell::num(x, 2)));
                row.push(change(base, m(n, metric)));
            }
        }
        t.row(row);
    }
    t.note("Ivy's headlines (Lo 1990, §6–7): RNW1 reads 24 % faster with two copies on its busiest file system (Cello /users); RNWN reads 8–32 % faster with two copies (Triangle /, Cello /users, Cello /); RNW1CR writes faster than RNW1; scatter lowers write turnaround");
    Some(t)
}

/// Object size sensitivity: read and write turnaround and copy traffic per
/// extent.
fn extent_table(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    selection: CopySelection,
    extents: &[u64],
) -> Table {
    let mut t = Table::new(
        format!(
            "Object size ({}): read / write turnaround, ms, and copy operations",
            selection.name()
        ),
        &[
            "policy",
            "copies",
            "extent KB",
            "read ms",
            "write ms",
            "copy ops",
            "cut-backs",
        ],
    );
    for &policy in policies {
        for &n in options.copies.iter().filter(|&&n| n > 1) {
            for &extent in extents {
                let Some(p) = results.get(policy, n, selection, extent) else {
                    continue;
                };
                t.row(vec![
                    Cell::text(policy.label()),
                    Cell::Int(n as u64),
                    Cell::Int(extent / 1024),
                    cell(&p.metrics, "read_mean_ms", 2),
                    cell(&p.metrics, "write_mean_ms", 2),
                    cell(&p.metrics, "copy_operations", 0),
                    cell(&p.metrics, "cut_backs", 0),
                ]);
            }
        }
    }
    t
}

/// The same replays under two per-disk disciplines: read and write
/// turnaround side by side.
fn discipline_table(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    selection: CopySelection,
    extent: u64,
    other: PolicySpec,
) -> Table {
    let (a, b) = (options.discipline.to_string(), other.to_string());
    let columns = [
        "policy".to_string(),
        "copies".to_string(),
        format!("read {a}"),
        format!("read {b}"),
        format!("write {a}"),
        format!("write {b}"),
    ];
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut t = Table::new(
        format!(
            "Per-disk discipline ({}): read / write turnaround, ms",
            selection.name()
        ),
        &columns,
    );
    for &policy in policies {
        for &n in &options.copies {
            let at = |d, metric| {
                results
                    .under(policy, n, selection, extent, d)
                    .map_or(Cell::Missing, |p| cell(&p.metrics, metric, 2))
            };
            t.row(vec![
                Cell::text(policy.label()),
                Cell::Int(n as u64),
                at(options.discipline, "read_mean_ms"),
                at(other, "read_mean_ms"),
                at(options.discipline, "write_mean_ms"),
                at(other, "write_mean_ms"),
            ]);
        }
    }
    t.note("Lo's simulator served each disk's queue FIFO; HP-UX swept it (C-LOOK). Ivy's copy selection counts the queued work the discipline serves ahead of the read (Scheduler::work_ahead), so it stays correct under either");
    t
}

/// Read and write turnaround against copies, one line per policy.
fn panels(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    selection: CopySelection,
    extent: u64,
) -> Vec<Panel> {
    let panel = |what: &str, metric: &str| Panel {
        series: policies
            .iter()
            .map(|&policy| Series {
                curve: policy.label().into(),
                source: Source::Simulation,
                points: options
                    .copies
                    .iter()
                    .filter_map(|&n| {
                        let p = results.get(policy, n, selection, extent)?;
                        let i = p.metrics.interval(metric, 0.95).ok()?;
                        Some((n as f64, i.mean, i.half_width.unwrap_or(0.0)))
                    })
                    .collect(),
            })
            .collect(),
        ..Panel::new(
            "",
            "copies of each object",
            format!("mean {what} turnaround (ms)"),
        )
    };
    vec![
        panel("read", "read_mean_ms"),
        panel("write", "write_mean_ms"),
    ]
}
