//! Tsai, Chu & Huang, *WRR-SCAN* (EMSOFT '04): admission capacity and
//! Figures 5–12, WRR-SCAN-R, -C, -CA against SCAN-EDF on the HP 97560.
//!
//! Workload (§4, SPEC §6): periods Normal(5000 ms, variance 1000 ms²),
//! buffers Normal(56 KB, variance 28 KB²) read as b_i = ⌈B_i / 4 KB⌉ blocks,
//! aperiodic one-block reads with exponential gaps of mean 35 ms. A point
//! x is the first x tasks of a task set (so load grows by adding tasks);
//! each task set is one replication, and the 95 % intervals are across
//! task sets. WRR-SCAN runs the tasks its test admits (in order, refusing
//! the rest); SCAN-EDF runs them all on contiguous data.
//!
//! The aperiodic server's reservation is not given in the paper ("a fixed
//! percentage of disk bandwidth"); it is `--share-ppm` parts per million of
//! each round's transmission time, 0.5 % by default, the same for the three
//! versions. The paper's t_r, t_s and V (Table 2) are admission bounds
//! only; the emulated drive tracks its rotation from the clock and adds
//! its controller overhead (counted as non-transmission time).

use anyhow::Result;
use disk_emu::disk::{DiskModel, presets};
use experiments::{MetricTable, RateReport, RunError, Tsai04Distribution, rate_label, run_rate};
use sched_core::policy::{AperiodicReserve, RateTask, WrrMode, WrrParams, WrrScan};
use sched_core::{AnySpec, Heap, Nanos, PolicySpec};

use super::Figure;
use crate::common::estimate;
use crate::output::{Cell, Table};
use crate::plot::{Panel, Series, Source};

/// Options of the WRR-SCAN reproduction.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Tsai04Options {
    /// Task sets (replications) per point.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10, value_parser = crate::bounds::sets()))]
    pub sets: u64,
    /// Simulated seconds per run.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 60, value_parser = crate::bounds::seconds()))]
    pub seconds: u64,
    /// Step between task counts (x = 1, 1 + step, ..., up to 91).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 5, value_parser = crate::bounds::step()))]
    pub step: usize,
    /// Aperiodic reservation, parts per million of each round.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = DEFAULT_SHARE_PPM, value_parser = crate::bounds::Whole::<u32>::new("the aperiodic share, ppm", 0, 999_999)))]
    pub share_ppm: u32,
    /// Seed of the whole reproduction.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// Threads; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::bounds::default_jobs(), value_parser = crate::bounds::jobs()))]
    pub jobs: usize,
}

impl Default for Tsai04Options {
    fn default() -> Self {
        Tsai04Options {
            sets: 10,
            seconds: 60,
            step: 5,
            share_ppm: DEFAULT_SHARE_PPM,
            seed: 1,
            jobs: crate::bounds::default_jobs(),
        }
    }
}

/// The aperiodic share used unless told otherwise: 0.5 % of each round.
pub const DEFAULT_SHARE_PPM: u32 = 5_000;

/// The most tasks of the paper's x axis.
pub const MAX_TASKS: usize = 91;

/// Tasks offered when measuring admission capacity (more than any version admits).
pub const CAPACITY_OFFER: usize = 200;

/// The three versions with the paper's constants and `share_ppm`, then SCAN-EDF.
pub fn contenders(share_ppm: u32) -> [AnySpec; 4] {
    let p = |mode| {
        AnySpec::RateBased(WrrParams::tsai04(
            mode,
            AperiodicReserve::Share { ppm: share_ppm },
        ))
    };
    [
        p(WrrMode::Random),
        p(WrrMode::Contiguous),
        p(WrrMode::Aligned),
        // SCAN-EDF with exact deadline ties, the paper's baseline.
        AnySpec::Disk(PolicySpec::ScanEdf { granularity: 1 }),
    ]
}

/// The task counts of the x axis.
pub fn task_counts(step: usize) -> Vec<usize> {
    let step = step.max(1);
    let mut xs: Vec<usize> = (1..=MAX_TASKS).step_by(step).collect();
    if xs.last() != Some(&MAX_TASKS) {
        xs.push(MAX_TASKS);
    }
    xs
}

/// Tasks of `set` admitted by `mode` when `offer` are offered in order.
///
/// # Errors
/// When the distribution is invalid.
pub fn admitted(mode: WrrMode, share_ppm: u32, offer: usize, seed: u64, set: u64) -> Result<usize> {
    let w = Tsai04Distribution::default().task_set(offer, seed, set)?;
    let params = WrrParams::tsai04(mode, AperiodicReserve::Share { ppm: share_ppm });
    let mut wrr = WrrScan::new(Heap::new(1)?, Heap::new(offer.max(1))?, 1962, params)?;
    Ok(w.tasks
        .iter()
        .filter(|t| {
            wrr.admit(RateTask {
                class: t.class,
                period: t.period,
                blocks: t.blocks,
            })
            .is_ok()
        })
        .count())
}

/// Admission capacity of each version over `opts.sets` task sets of
/// [`CAPACITY_OFFER`] tasks: `admitted_<suffix>` per set.
///
/// # Errors
/// When the distribution is invalid.
pub fn capacity(opts: &Tsai04Options) -> Result<MetricTable> {
    let mut m = MetricTable::new();
    for set in 0..opts.sets {
        for mode in WrrMode::ALL {
            let n = admitted(mode, opts.share_ppm, CAPACITY_OFFER, opts.seed, set)?;
            m.record(set, &format!("admitted_{}", mode.suffix()), n as f64)?;
        }
    }
    Ok(m)
}

/// One run: the first `x` tasks of task set `set` under `contender`.
///
/// # Errors
/// When the emulator refuses the workload.
pub fn run_point(
    contender: &AnySpec,
    x: usize,
    set: u64,
    opts: &Tsai04Options,
) -> Result<RateReport, RunError> {
    let model = DiskModel::from_spec(&presets::hp97560())?;
    let mut w = Tsai04Distribution::default().task_set(MAX_TASKS, opts.seed, set)?;
    w.tasks.truncate(x);
    let duration: Nanos = opts.seconds.max(1) * 1_000_000_000;
    run_rate(&model, &w, contender, duration, opts.seed, set)
}

/// The metrics of Figures 5–12 (and the misses) per contender and task count.
pub struct Sweep {
    /// Task counts.
    pub xs: Vec<usize>,
    /// Contender labels, in [`contenders`] order.
    pub labels: Vec<String>,
    /// `tables[c][i]`: contender c at `xs[i]`, one replication per task set.
    pub tables: Vec<Vec<MetricTable>>,
}

/// Runs every point of the figures.
///
/// # Errors
/// When a run fails.
pub fn sweep(opts: &Tsai04Options) -> Result<Sweep> {
    anyhow::ensure!(opts.sets >= 1, "--sets: at least one task set is needed");
    let xs = task_counts(opts.step);
    let cs = contenders(opts.share_ppm);
    let bar = crate::common::progress((cs.len() * xs.len()) as u64 * opts.sets, "tsai04");
    let mut tables: Vec<Vec<MetricTable>> = Vec::with_capacity(cs.len());
    for contender in &cs {
        let mut row = Vec::with_capacity(xs.len());
        for &x in &xs {
            // One point: this contender at x tasks, a replication per task set.
            let point = (contender, x, opts.seconds, opts.seed);
            let reports = experiments::replicate(&point, opts.sets, opts.jobs, |set| {
                let r = run_point(contender, x, set, opts);
                bar.inc(1);
                r
            })?;
            let mut t = MetricTable::new();
            for (set, r) in (0..).zip(&reports) {
                // A metric undefined in a run (no job completed, so no slack;
                // no aperiodic read completed, so no response) is left out of
                // that replication: its interval is over the runs that define
                // it, and a point no run defines shows as missing.
                for (name, value) in metrics(r).into_iter().filter(|(_, v)| v.is_finite()) {
                    t.record(set, name, value)?;
                }
            }
            row.push(t);
        }
        tables.push(row);
    }
    bar.finish_and_clear();
    Ok(Sweep {
        xs,
        labels: cs.iter().map(rate_label).collect(),
        tables,
    })
}

/// The metrics of one run; a value is NaN where the run leaves it undefined
/// (`min_slack_ms` when no job completed, `aperiodic_response_ms` when no
/// aperiodic read did, `utilisation` when the disk never served).
pub fn metrics(r: &RateReport) -> [(&'static str, f64); 14] {
    [
        ("admitted", r.admitted as f64),
        ("seek_distance", r.total_seek_distance as f64),
        ("idle", r.idle),
        ("seek", r.seek),
        ("rotation", r.rotation),
        ("non_transmission", r.seek + r.rotation),
        ("overhead", r.overhead),
        ("utilisation", r.utilisation),
        ("aperiodic_kb_s", r.aperiodic_throughput / 1024.0),
        ("aperiodic_response_ms", r.aperiodic_response_ms),
        ("misses", r.deadline_misses as f64),
        ("aperiodic_short_rounds", r.aperiodic_short_rounds as f64),
        ("min_slack_ms", r.min_slack_ms),
        ("aperiodic_dropped", r.aperiodic_dropped as f64),
    ]
}

/// Figure number → (metric, title, y label, decimals).
fn figure_metric(n: u8) -> Option<(&'static str, &'static str, &'static str, usize)> {
    Some(match n {
        5 => (
            "seek_distance",
            "Figure 5: total disk-seek distance",
            "seek distance per run (cylinders)",
            0,
        ),
        6 => (
            "idle",
            "Figure 6: normalised disk-idle time",
            "fraction of run time",
            3,
        ),
        7 => (
            "seek",
            "Figure 7: normalised disk-seek time",
            "fraction of run time",
            3,
        ),
        8 => (
            "rotation",
            "Figure 8: normalised disk-rotation time",
            "fraction of run time",
            3,
        ),
        9 => (
            "non_transmission",
            "Figure 9: normalised non-transmission overhead (seek + rotation)",
            "fraction of run time",
            3,
        ),
        10 => (
            "utilisation",
            "Figure 10: disk utilisation (transmission / service)",
            "transmission / service time",
            3,
        ),
        11 => (
            "aperiodic_kb_s",
            "Figure 11: aperiodic throughput",
            "aperiodic throughput (KB/s)",
            1,
        ),
        12 => (
            "aperiodic_response_ms",
            "Figure 12: aperiodic mean response time",
            "mean response time (ms)",
            1,
        ),
        _ => return None,
    })
}

/// Figure `n` (5–12) from a sweep.
///
/// # Errors
/// For a figure number outside 5–12.
pub fn figure(n: u8, s: &Sweep) -> Result<Figure> {
    let (metric, title, y_label, digits) =
        figure_metric(n).ok_or_else(|| anyhow::anyhow!("tsai04 has Figures 5 to 12, not {n}"))?;
    let mut columns = vec!["tasks"];
    columns.extend(s.labels.iter().map(String::as_str));
    columns.extend(["admitted R", "admitted C", "admitted CA"]);
    let mut table = Table::new(title, &columns);
    for (i, &x) in s.xs.iter().enumerate() {
        let mut row = vec![Cell::Int(x as u64)];
        row.extend(
            s.tables
                .iter()
                .map(|per_x| estimate(&per_x[i], metric, 1.0, digits)),
        );
        row.extend(
            s.tables
                .iter()
                .take(3)
                .map(|per_x| estimate(&per_x[i], "admitted", 1.0, 1)),
        );
        table.row(row);
    }
    table.note("95 % intervals across task sets; WRR-SCAN runs only the tasks it admits.");
    if matches!(n, 11 | 12) {
        let last = s.xs.len() - 1;
        let dropped: Vec<String> = s
            .labels
            .iter()
            .zip(&s.tables)
            .map(|(label, per_x)| {
                let d = per_x[last]
                    .interval("aperiodic_dropped", 0.95)
                    .map_or(f64::NAN, |i| i.mean);
                format!("{label} {d:.0}")
            })
            .collect();
        table.note(format!(
            "aperiodic reads turned away with {} waiting, mean per run at {} tasks: {}",
            experiments::APERIODIC_BACKLOG,
            s.xs[last],
            dropped.join(", ")
        ));
    }
    let series = s
        .labels
        .iter()
        .zip(&s.tables)
        .map(|(label, per_x)| Series {
            curve: label.clone(),
            source: Source::Simulation,
            points: s
                .xs
                .iter()
                .zip(per_x)
                .filter_map(|(&x, m)| {
                    m.interval(metric, 0.95)
                        .ok()
                        .filter(|i| i.mean.is_finite())
                        .map(|i| (x as f64, i.mean, i.half_width.unwrap_or(0.0)))
                })
                .collect(),
        })
        .collect();
    Ok(Figure {
        number: n,
        title: format!("Tsai, Chu & Huang 2004, {title}"),
        tables: vec![table],
        panels: vec![Panel {
            series,
            ..Panel::new("", "real-time tasks offered", y_label)
        }],
    })
}

/// The admission-capacity table and the guarantee's check (misses of
/// admitted tasks, rounds the aperiodic server fell short) over the sweep.
///
/// # Errors
/// When the distribution is invalid.
pub fn summary(opts: &Tsai04Options, s: &Sweep) -> Result<Table> {
    let cap = capacity(opts)?;
    let mut t = Table::new(
        format!(
            "WRR-SCAN admission capacity ({CAPACITY_OFFER} tasks offered, {} task sets) and guarantee",
            opts.sets
        ),
        &[
            "version",
            "admitted",
            "paper",
            "misses of admitted tasks",
            "tightest slack ms",
            "aperiodic short rounds",
        ],
    );
    let paper = ["< 20", "up to 55", "> 90"];
    for (k, mode) in WrrMode::ALL.into_iter().enumerate() {
        let sum = |metric: &str| -> f64 {
            s.tables[k]
                .iter()
                .filter_map(|m| m.interval(metric, 0.95).ok())
                .map(|i| i.mean * i.n as f64)
                .sum()
        };
        t.row(vec![
            Cell::text(mode.to_string()),
            estimate(&cap, &format!("admitted_{}", mode.suffix()), 1.0, 1),
            Cell::text(paper[k]),
            Cell::Int(sum("misses").round() as u64),
            tightest_slack(&s.tables[k]),
            Cell::Int(sum("aperiodic_short_rounds").round() as u64),
        ]);
    }
    t.note(format!(
        "aperiodic reservation {} ppm of each round; misses and short rounds summed, and the least slack (deadline - completion) of any job, over every run of the figures (\"no job completed\" when runs are shorter than every first deadline)",
        opts.share_ppm
    ));
    Ok(t)
}

/// The least slack of any completed job over a version's runs, or a note
/// that no job completed in any of them.
fn tightest_slack(per_x: &[MetricTable]) -> Cell {
    let least = per_x
        .iter()
        .filter_map(|m| m.values("min_slack_ms"))
        .flatten()
        .map(|&(_, v)| v)
        .reduce(f64::min);
    least.map_or(Cell::Absent("no job completed"), |v| Cell::num(v, 1))
}
