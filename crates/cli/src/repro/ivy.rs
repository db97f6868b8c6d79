//! Lo, *Ivy: a study on replicating data for performance improvement* (HP
//! Labs HPL-CSP-90-48, 1990): dynamic N-copy replication replayed on a real
//! week of HP-UX disk traffic (`ajw.1week.srt`), every replication policy
//! (RNWN, RNW1, RNW1CR, scatter, scatter + RNW1CR) against the number of
//! copies, and Lo's exact copy choice (`ivy-exact`, FIFO queues) and an
//! estimate of it (`expected-turnaround`) side by side with Linux md's read
//! balancing, the shortest queue and random routing. The headline tables
//! state their one-copy baseline beside Lo's, FIFO and C-LOOK side by side.
//!
//! The tables have the paper's columns (§6.1, Tables 5–15) with 95 %
//! intervals over replications, which differ in their random choices:
//! rotational latencies, random routing, random placement and cut-backs.
//! What the paper leaves open and what the block-level trace forces is
//! decided in `experiments::replication` and `experiments::run_ivy` (objects
//! are fixed-size extents; first reads and first writes start an object's
//! history). The modelling choices a reviewer may want either way are
//! flags: `--copy-cost` (free as Lo, background, foreground), `--units`
//! (each traced disk on disks of its own, or all overlaid), `--split` /
//! `--no-split` (a request crossing objects cut into pieces, or given
//! whole to its first block's object, as Lo's whole files).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use disk_emu::trace::{TraceFormat, TraceOptions};
use experiments::{
    CopyCost, CopySelection, IvyConfig, IvyDisk, IvyPoint, IvyTrace, MetricTable,
    ReplicationPolicy, Units, distinct_configs, ivy_sweep,
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
    /// Copy selection rules: ivy-exact (Lo's rule, §4.3: the exact service
    /// times queued and the seek from where the FIFO queue leaves the arm;
    /// fcfs only), expected-turnaround (an estimate: expected service
    /// times, the arm's present position), md, shortest-queue, random;
    /// also least-backlog. All but least-backlog when omitted (ivy-exact
    /// only under fcfs).
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ',', value_parser = parse_selection))]
    pub routing: Vec<CopySelection>,
    /// What making a copy costs (RNW1 family): free (Lo §4.1 item 3,
    /// §6.3: a copy appears when its delay ends, no disk work), background
    /// (a read and writes queued apart, each started only on a disk with no
    /// foreground work queued or in service; while a disk never idles its
    /// copies wait, see the README), foreground (queued with the trace's
    /// I/O, in its order). A comma list runs each.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_delimiter = ',', default_value = "free")
    )]
    pub copy_cost: Vec<CopyCost>,
    /// separate: each traced disk on N disks of its own, as Lo simulated
    /// each file system alone (§6.1); overlay: every traced disk on the
    /// same N disks, as the traced machine held its units on one drive.
    #[cfg_attr(feature = "cli", arg(long, default_value = "separate"))]
    pub units: Units,
    /// Cut a request crossing object boundaries into one operation per run
    /// of objects held alike (the default: a block-level trace has no
    /// files, and a piece must go to a disk holding it).
    #[cfg_attr(feature = "cli", arg(long, overrides_with = "no_split"))]
    pub split: bool,
    /// Give a request crossing objects whole to its first block's object
    /// (Lo's objects were whole files, which no request crosses).
    #[cfg_attr(feature = "cli", arg(long, overrides_with = "split"))]
    pub no_split: bool,
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
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::bounds::default_jobs(), value_parser = crate::bounds::jobs()))]
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
        format!("unknown routing `{s}` (known: ivy-exact, expected-turnaround, least-backlog, md, shortest-queue, random)")
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
            copy_cost: vec![CopyCost::Free],
            units: Units::Separate,
            split: false,
            no_split: false,
            copies: vec![1, 2, 3, 5, 7],
            extent: vec![16],
            discipline: PolicySpec::Fcfs,
            compare_discipline: ComparedDiscipline(Some(PolicySpec::CLook)),
            delay_s: 60.0,
            replications: 5,
            seed: 1,
            jobs: crate::bounds::default_jobs(),
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
            CopySelection::COMPARED
                .into_iter()
                .filter(|r| r.defined_under(self.discipline))
                .collect()
        } else {
            self.routing.clone()
        }
    }

    /// The structural choices that differ from the defaults, for titles.
    fn structure(&self) -> String {
        let mut s = String::new();
        if self.units == Units::Overlay {
            s.push_str(", units overlaid");
        }
        if self.no_split {
            s.push_str(", requests unsplit");
        }
        s
    }

    fn copy_costs(&self) -> Vec<CopyCost> {
        if self.copy_cost.is_empty() {
            vec![CopyCost::Free]
        } else {
            let mut costs = self.copy_cost.clone();
            costs.dedup();
            costs
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
        cost: CopyCost,
    ) -> Option<&IvyPoint> {
        self.under(
            policy,
            copies,
            selection,
            extent_bytes,
            cost,
            self.discipline,
        )
    }

    /// [`get`](Self::get) under a given per-disk discipline.
    fn under(
        &self,
        policy: ReplicationPolicy,
        copies: usize,
        selection: CopySelection,
        extent_bytes: u64,
        cost: CopyCost,
        discipline: PolicySpec,
    ) -> Option<&IvyPoint> {
        self.points.iter().find(|p| {
            p.config.policy == policy
                && p.config.copies == copies
                && p.config.selection == selection
                && p.config.extent_bytes == extent_bytes
                && p.config.copy_cost == cost
                && p.config.discipline == discipline
        })
    }
}

/// The copy costs a policy's tables show: every one asked for where the
/// policy makes copies, the first alone where it never does (RNWN and
/// scatter: the cost cannot change their figures).
fn costs_of(policy: ReplicationPolicy, costs: &[CopyCost]) -> &[CopyCost] {
    if policy.is_dynamic() {
        costs
    } else {
        &costs[..1]
    }
}

/// A policy's label, with the copy cost where it matters.
fn policy_cost(policy: ReplicationPolicy, cost: CopyCost, costs: &[CopyCost]) -> String {
    if policy.is_dynamic() && costs.len() > 1 {
        format!("{} ({cost})", policy.label())
    } else {
        policy.label().to_string()
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
    crate::report::emit_tables(&r.tables, format)?;
    eprintln!(
        "{}, {:.1} s wall with {} job{}",
        r.cost,
        r.started.elapsed().as_secs_f64(),
        options.jobs,
        if options.jobs == 1 { "" } else { "s" }
    );
    Ok(())
}

/// The routing the compared discipline runs: the first one asked for, or,
/// when that is Lo's FIFO-only rule, the expected-turnaround estimate.
fn compared_routing(first: CopySelection, discipline: PolicySpec) -> CopySelection {
    if first.defined_under(discipline) {
        first
    } else {
        CopySelection::LeastTurnaround
    }
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
    let routings = options.routings();
    if let Some(r) = routings
        .iter()
        .find(|r| !r.defined_under(options.discipline))
    {
        bail!(
            "--routing {}: Lo's exact rule assumes FIFO queues; it needs --discipline fcfs, not {}",
            r.name(),
            options.discipline
        );
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
    let costs = options.copy_costs();
    let extents: Vec<u64> = options.extent.iter().map(|kb| kb * 1024).collect();
    let delay = (options.delay_s * 1e9).round() as u64;
    let split = !options.no_split;
    let config_under = |policy, copies, selection, extent_bytes, copy_cost, discipline| IvyConfig {
        disk: disk.clone(),
        policy,
        copies,
        selection,
        discipline,
        extent_bytes,
        delay,
        copy_cost,
        units: options.units,
        split,
    };
    let config = |policy, copies, selection, extent_bytes, copy_cost| {
        config_under(
            policy,
            copies,
            selection,
            extent_bytes,
            copy_cost,
            options.discipline,
        )
    };
    let mut configs = Vec::new();
    for &policy in &policies {
        for &cost in &costs {
            for &n in &options.copies {
                for &selection in &routings {
                    configs.push(config(policy, n, selection, extents[0], cost));
                }
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
    // The other object sizes (the first copy cost), and the other
    // discipline (the first copy cost at every number of copies, the
    // others at the headline's 1, 2 and 3), under the first routing.
    let mut others = Vec::new();
    for &extent in &extents[1..] {
        for &policy in &policies {
            for &n in &options.copies {
                others.push(config(policy, n, routings[0], extent, costs[0]));
            }
        }
    }
    let compared = options
        .compare_discipline
        .0
        .filter(|&d| d != options.discipline);
    if let Some(discipline) = compared {
        let routing = compared_routing(routings[0], discipline);
        for &policy in &policies {
            for (k, &cost) in costs.iter().enumerate() {
                for &n in &options.copies {
                    if k == 0 || n <= 3 {
                        others.push(config_under(
                            policy, n, routing, extents[0], cost, discipline,
                        ));
                    }
                }
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
        for &cost in costs_of(policy, &costs) {
            tables.push(policy_table(
                options, &results, policy, cost, &routings, extents[0], &label,
            ));
        }
    }
    tables.push(selection_table(
        options, &results, &policies, &costs, &routings, extents[0],
    ));
    if [1, 2, 3].iter().all(|n| options.copies.contains(n)) {
        let headline = Headline {
            options,
            results: &results,
            policies: &policies,
            costs: &costs,
            selection: routings[0],
            extent: extents[0],
            compared,
        };
        tables.push(headline.table(Turnaround::Read));
        tables.push(headline.table(Turnaround::Write));
    }
    if extents.len() > 1 {
        tables.push(extent_table(
            options,
            &results,
            &policies,
            routings[0],
            costs[0],
            &extents,
        ));
    }
    if let Some(other) = compared {
        tables.push(discipline_table(
            options,
            &results,
            &policies,
            costs[0],
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
            "Lo 1990 (Ivy): turnaround against copies, {trace_name} on {label}; {} copy selection, {} copies, {} KB objects, {} queues{}",
            routings[0].name(),
            costs[0],
            extents[0] / 1024,
            options.discipline.name().to_ascii_uppercase(),
            options.structure()
        ),
        panels: panels(
            options,
            &results,
            &policies,
            routings[0],
            costs[0],
            extents[0],
        ),
        cost: format!(
            "{} configurations ({} distinct) of {} requests: {:.2} s of one core per replication ({:.1} s for {} replications); all tables ({} distinct configurations more) {:.1} s of one core",
            configs.len(),
            main.distinct,
            trace.requests(),
            main.cpu.as_secs_f64() / replications as f64,
            main.cpu.as_secs_f64(),
            replications,
            sensitivity.distinct,
            (main.cpu + sensitivity.cpu).as_secs_f64(),
        ),
        started,
    })
}

/// Lo's table for one policy and copy cost: every number of copies under
/// every routing.
fn policy_table(
    options: &IvyOptions,
    results: &Results,
    policy: ReplicationPolicy,
    cost: CopyCost,
    routings: &[CopySelection],
    extent: u64,
    disk: &str,
) -> Table {
    let mut columns = vec!["copies", "routing"];
    columns.extend(COLUMNS.iter().map(|c| c.0));
    let copying = policy.is_dynamic() && cost != CopyCost::Free;
    if copying {
        columns.push("copy ops");
    }
    if policy.is_dynamic() && cost == CopyCost::Background {
        columns.push("copy wait ms");
    }
    let copies = if policy.is_dynamic() {
        format!("{cost} copies")
    } else {
        "no copies made".to_string()
    };
    let mut t = Table::new(
        format!(
            "Ivy, {}: {} on {} ({} queues, {} KB objects, {copies}{})",
            policy.label(),
            options.trace.display(),
            disk,
            options.discipline,
            extent / 1024,
            options.structure()
        ),
        &columns,
    );
    for &n in &options.copies {
        for &selection in routings {
            let Some(p) = results.get(policy, n, selection, extent, cost) else {
                continue;
            };
            let mut row = vec![Cell::Int(n as u64), Cell::text(selection.name())];
            row.extend(COLUMNS.iter().map(|&(_, m, d)| cell(&p.metrics, m, d)));
            if copying {
                row.push(cell(&p.metrics, "copy_operations", 0));
            }
            if policy.is_dynamic() && cost == CopyCost::Background {
                row.push(cell(&p.metrics, "copy_wait_ms", 1));
            }
            t.row(row);
        }
    }
    t.note("seek distance: cylinders per disk operation (copy traffic included); queues: operations at the disk (queued or in service) seen by each arriving operation, each read, each write copy; turnaround: arrival to completion (a write: its acknowledgement), ms");
    if copying {
        t.note("copy ops: copy reads and writes (one per disk written) over the trace; copy wait: mean ms a background copy operation waited for its disk to idle");
    }
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
    costs: &[CopyCost],
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
        for &cost in costs_of(policy, costs) {
            for &n in options.copies.iter().filter(|&&n| n > 1) {
                let mut row = vec![
                    Cell::text(policy_cost(policy, cost, costs)),
                    Cell::Int(n as u64),
                ];
                for &r in routings {
                    row.push(
                        results
                            .get(policy, n, r, extent, cost)
                            .map_or(Cell::Missing, |p| cell(&p.metrics, "read_mean_ms", 2)),
                    );
                }
                t.row(row);
            }
        }
    }
    t.note("ivy-exact: Lo's rule (§4.3), FIFO queues only: the exact service times of what is queued (a shadow of each disk serves every operation as it is queued) plus the seek from where the queue leaves the arm; expected-turnaround: an estimate of it (expected service times of the queued work the discipline serves first, plus the read's expected service from the arm's present position); md: Linux md RAID-1 on rotating disks (sequential, else idle, else nearest head); shortest-queue: fewest operations; random: a current copy drawn uniformly");
    t
}

/// Lo's Triangle / (one HP 7937 holding root and swap; Tables 5, 8, 11, 14,
/// 15): mean read and write turnaround, ms, at 1, 2 and 3 copies.
const TRIANGLE: [(ReplicationPolicy, [f64; 3], [f64; 3]); 5] = [
    (
        ReplicationPolicy::Rnwn,
        [26.36, 24.26, 23.58],
        [74.62, 66.53, 63.53],
    ),
    (
        ReplicationPolicy::Rnw1,
        [26.36, 22.63, 21.57],
        [74.62, 71.98, 71.46],
    ),
    (
        ReplicationPolicy::Rnw1Cr,
        [26.36, 22.58, 21.56],
        [74.62, 68.48, 66.41],
    ),
    (
        ReplicationPolicy::Scatter,
        [26.36, 25.15, 24.93],
        [74.62, 64.98, 64.36],
    ),
    (
        ReplicationPolicy::ScatterRnw1Cr,
        [26.36, 22.34, 21.35],
        [74.62, 65.18, 61.79],
    ),
];

/// Which turnaround a headline table is about.
#[derive(Clone, Copy)]
enum Turnaround {
    Read,
    Write,
}

/// The headline tables: one-copy turnaround (the baseline) and the change
/// at 2 and 3 copies, under each discipline, beside Lo's.
struct Headline<'a> {
    options: &'a IvyOptions,
    results: &'a Results,
    policies: &'a [ReplicationPolicy],
    costs: &'a [CopyCost],
    selection: CopySelection,
    extent: u64,
    compared: Option<PolicySpec>,
}

impl Headline<'_> {
    fn table(&self, which: Turnaround) -> Table {
        let (what, metric) = match which {
            Turnaround::Read => ("read", "read_mean_ms"),
            Turnaround::Write => ("write", "write_mean_ms"),
        };
        let mut disciplines = vec![(self.options.discipline, self.selection)];
        if let Some(d) = self.compared {
            disciplines.push((d, compared_routing(self.selection, d)));
        }
        let mut columns = vec!["policy".to_string()];
        for (d, _) in &disciplines {
            let d = d.name().to_ascii_uppercase();
            columns.extend([
                format!("{d} 1 copy ms"),
                format!("{d} Δ2 %"),
                format!("{d} Δ3 %"),
            ]);
        }
        columns.extend([
            "Lo 1 copy ms".to_string(),
            "Lo Δ2 %".to_string(),
            "Lo Δ3 %".to_string(),
        ]);
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        let routings: Vec<String> = disciplines
            .iter()
            .map(|(d, r)| format!("{} under {d}", r.name()))
            .collect();
        let mut t = Table::new(
            format!(
                "Against one copy, {what}s ({}): the one-copy baseline, ms, and the change at 2 and 3 copies, %, beside Lo's Triangle /",
                routings.join(", ")
            ),
            &columns,
        );
        let change = |base: Option<f64>, x: Option<f64>| match (base, x) {
            (Some(b), Some(x)) if b > 0.0 => Cell::num((x / b - 1.0) * 100.0, 0),
            _ => Cell::Missing,
        };
        for &policy in self.policies {
            for &cost in costs_of(policy, self.costs) {
                let mut row = vec![Cell::text(policy_cost(policy, cost, self.costs))];
                for &(d, r) in &disciplines {
                    let m = |n: usize| {
                        self.results
                            .under(policy, n, r, self.extent, cost, d)
                            .and_then(|p| mean(&p.metrics, metric))
                    };
                    let base = m(1);
                    row.push(base.map_or(Cell::Missing, |b| Cell::num(b, 1)));
                    row.push(change(base, m(2)));
                    row.push(change(base, m(3)));
                }
                match TRIANGLE.iter().find(|(p, _, _)| *p == policy) {
                    Some((_, read, write)) => {
                        let lo = match which {
                            Turnaround::Read => read,
                            Turnaround::Write => write,
                        };
                        row.push(Cell::num(lo[0], 2));
                        row.push(change(Some(lo[0]), Some(lo[1])));
                        row.push(change(Some(lo[0]), Some(lo[2])));
                    }
                    None => row.extend([Cell::Missing, Cell::Missing, Cell::Missing]),
                }
                t.row(row);
            }
        }
        t.note("the baselines differ: Lo's Triangle / (one HP 7937, FIFO, Tables 5, 8, 11, 14, 15) read in 26.36 ms and wrote in 74.62 ms with one copy; a baseline that queues deeper leaves more for a second disk to remove, so a change is comparable only beside its own baseline");
        t.note("Lo's other headlines (§6–7): RNW1 reads 24 % faster with two copies on Cello /users; RNWN reads 8–32 % faster with two copies; RNW1CR writes faster than RNW1; scatter lowers write turnaround; scatter + RNW1CR reads as RNW1CR and writes as scatter (§6.6). Lo's copies were free (§4.1, §6.3)");
        t
    }
}

/// Object size sensitivity: read and write turnaround and copy traffic per
/// extent.
fn extent_table(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    selection: CopySelection,
    cost: CopyCost,
    extents: &[u64],
) -> Table {
    let mut t = Table::new(
        format!(
            "Object size ({}, {cost} copies): read / write turnaround, ms, and copy operations",
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
                let Some(p) = results.get(policy, n, selection, extent, cost) else {
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
#[allow(clippy::too_many_arguments)]
fn discipline_table(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    cost: CopyCost,
    selection: CopySelection,
    extent: u64,
    other: PolicySpec,
) -> Table {
    let (a, b) = (options.discipline.to_string(), other.to_string());
    let other_selection = compared_routing(selection, other);
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
            "Per-disk discipline ({} under {a}, {} under {b}; {cost} copies): read / write turnaround, ms",
            selection.name(),
            other_selection.name()
        ),
        &columns,
    );
    for &policy in policies {
        for &n in &options.copies {
            let at = |d, r, metric| {
                results
                    .under(policy, n, r, extent, cost, d)
                    .map_or(Cell::Missing, |p| cell(&p.metrics, metric, 2))
            };
            t.row(vec![
                Cell::text(policy.label()),
                Cell::Int(n as u64),
                at(options.discipline, selection, "read_mean_ms"),
                at(other, other_selection, "read_mean_ms"),
                at(options.discipline, selection, "write_mean_ms"),
                at(other, other_selection, "write_mean_ms"),
            ]);
        }
    }
    t.note("Lo's simulator served each disk's queue FIFO; HP-UX swept it (C-LOOK). The expected-turnaround estimate counts the queued work the discipline serves ahead of the read (Scheduler::work_ahead), so it applies under either; Lo's exact rule (ivy-exact) is defined for FIFO queues only");
    t
}
/// Read and write turnaround against copies, one line per policy.
fn panels(
    options: &IvyOptions,
    results: &Results,
    policies: &[ReplicationPolicy],
    selection: CopySelection,
    cost: CopyCost,
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
                        let p = results.get(policy, n, selection, extent, cost)?;
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
