//! `spindle run --tasks FILE`: rate-based tasks, the task file `spindle
//! admit` reads, on one emulated disk for `--seconds` under each policy
//! given (Tsai, Chu & Huang 2004, §4). WRR-SCAN admits in file order what
//! its test accepts and never runs a refused task; a single-disk policy
//! (SCAN-EDF in the paper) has no admission test and runs every task.
//! Replications differ in the aperiodic arrivals, WRR-SCAN-R's scattered
//! blocks and the releases the file leaves open.
//!
//! **The aperiodic reservation** is the policy's parameter
//! (`wrr-scan:share=F`) and the file's (`aperiodic_share`,
//! `aperiodic_blocks`), which `spindle admit` decides with. Where the file
//! gives one, it is what runs, so that `run` and `admit` agree on the file;
//! a policy that names a different, non-default share is refused as a
//! contradiction.
//!
//! **Linux beside them** (`--with-linux`): BFQ with the kernel's defaults
//! (`BfqParams::LINUX`), each task a class whose weight is proportional to
//! its rate (`experiments::bfq_rate_weights`: the fastest task or the
//! aperiodic stream 1000, the rest `round(1000 · rate / fastest)`, at least
//! 1), the aperiodic reads a class of their own; like SCAN-EDF it admits
//! everything and reads each job in one request. BFQ keeps 16 class queues,
//! so a file of more than 15 tasks is refused with that flag rather than
//! merging tasks into shared queues (which would share their weights).
//!
//! **Other disks.** WRR-SCAN's test uses the HP 97560 constants of the
//! paper's Table 2 (`WrrParams::tsai04`). On another disk the run goes on
//! with a warning: its guarantee is computed for a disk it is not running
//! on.

use std::path::Path;

use anyhow::{Context, Result, bail};
use disk_emu::disk::DiskModel;
use experiments::seeds::{Purpose, Unit};
use experiments::{
    BFQ_RATE_LABEL, MAX_BFQ_RATE_TASKS, MetricTable, RateReport, RateTaskSpec, RateWorkload,
    bfq_rate_weights, rate_label, run_rate, run_rate_bfq,
};
use sched_core::policy::{AperiodicReserve, BFQ_QUEUES, BfqParams, WrrMode, WrrParams};
use sched_core::{AnySpec, Nanos};

use super::{RunArgs, WrrConstants};
use crate::admit::{self, BLOCK_BYTES, TaskSet};
use crate::common::{estimate, progress, resolve_disk};
use crate::output::{Cell, Table};

/// Simulated seconds of a replication unless `--seconds` says otherwise.
pub(super) const DEFAULT_SECONDS: u64 = 60;

/// The run's two tables: one row per policy (means over the replications,
/// with 95 % intervals), then one per task and policy (its admission and
/// the jobs it missed, summed over the replications).
///
/// # Errors
/// An unusable task file (named with the task and field), a policy that
/// cannot serve tasks, a disk the tasks' blocks do not fit, a failed run.
pub(super) fn execute(args: &RunArgs, file: &Path) -> Result<Vec<Table>> {
    let set = admit::load(file)?;
    let disk = resolve_disk(&args.disk)?;
    let model = DiskModel::from_spec(&disk)?;
    let block_sectors = admit::params_on(
        WrrParams::tsai04(WrrMode::Aligned, set.aperiodic),
        &model,
        WrrConstants::Paper,
    )?
    .block_sectors;
    let contenders = crate::repro::tsai04::contenders(crate::repro::tsai04::DEFAULT_SHARE_PPM);
    let given = if args.policies.is_empty() {
        &contenders[..]
    } else {
        &args.policies[..]
    };
    let policies = given
        .iter()
        .map(|p| policy_for(p, &set, args.wrr_constants, &model))
        .collect::<Result<Vec<_>>>()?;
    let wrr = policies.iter().find_map(|p| match p {
        AnySpec::RateBased(params) => Some(*params),
        _ => None,
    });
    if wrr.is_some() {
        admit::warn_of_paper_constants(&disk.name, args.wrr_constants);
    }
    if args.with_linux && set.tasks.len() > MAX_BFQ_RATE_TASKS {
        bail!(
            "--with-linux: {} has {} tasks, and BFQ keeps at most {BFQ_QUEUES} class queues, one a task and one for the aperiodic reads: give at most {MAX_BFQ_RATE_TASKS} tasks",
            file.display(),
            set.tasks.len()
        );
    }
    let seconds = args.seconds.unwrap_or(DEFAULT_SECONDS);
    let duration: Nanos = seconds * 1_000_000_000;
    let runs_due = policies.len() as u64 + u64::from(args.with_linux);
    let bar = progress(runs_due * args.replications, "replications");
    let mut runs = Vec::with_capacity(policies.len());
    for policy in &policies {
        // What decides the results, for the sharded runs' bookkeeping.
        let point = (policy, &set, &disk.name, seconds, args.seed);
        let reports = experiments::replicate(&point, args.replications, args.jobs, |r| {
            let workload = workload(&set, block_sectors, args.seed, r);
            let out = run_rate(&model, &workload, policy, duration, args.seed, r);
            bar.inc(1);
            out
        })
        .with_context(|| rate_label(policy))?;
        runs.push((rate_label(policy), reports));
    }
    if args.with_linux {
        let point = ("bfq-rate-weights", &set, &disk.name, seconds, args.seed);
        let reports = experiments::replicate(&point, args.replications, args.jobs, |r| {
            let workload = workload(&set, block_sectors, args.seed, r);
            let out = run_rate_bfq(&model, &workload, BfqParams::LINUX, duration, args.seed, r);
            bar.inc(1);
            out
        })
        .context(BFQ_RATE_LABEL)?;
        runs.push((BFQ_RATE_LABEL.to_string(), reports));
    }
    bar.finish_and_clear();
    let mut summary = Table::new(
        format!(
            "{} tasks of {} on {} — {} replications × {seconds} s",
            set.tasks.len(),
            file.display(),
            disk.name,
            args.replications
        ),
        &[
            "policy",
            "admitted",
            "round ms",
            "jobs",
            "missed %",
            "min slack ms",
            "util",
            "seek",
            "rotation",
            "idle",
            "aperiodic KB/s",
            "aperiodic ms",
            "aperiodic dropped",
        ],
    );
    for (label, reports) in &runs {
        let m = metrics(reports)?;
        summary.row(vec![
            Cell::text(label),
            // The same in every replication: admission depends on the
            // tasks alone, not on their releases.
            Cell::Int(reports[0].admitted as u64),
            reports[0]
                .round_ns
                .map_or(Cell::Absent("no round"), |ns| Cell::num(ns as f64 / 1e6, 1)),
            estimate(&m, "jobs", 1.0, 1),
            estimate(&m, "missed_pct", 1.0, 2),
            estimate(&m, "min_slack_ms", 1.0, 0),
            estimate(&m, "utilisation", 1.0, 3),
            estimate(&m, "seek", 1.0, 3),
            estimate(&m, "rotation", 1.0, 3),
            estimate(&m, "idle", 1.0, 3),
            estimate(&m, "aperiodic_kb_s", 1.0, 1),
            estimate(&m, "aperiodic_response_ms", 1.0, 1),
            estimate(&m, "aperiodic_dropped", 1.0, 0),
        ]);
    }
    summary.note(format!(
        "Means over replications ± half-width of the 95 % Student-t interval; seed {}. WRR-SCAN admits in file order and never runs a refused task; a single-disk policy runs every task. Missed: jobs of running tasks that completed after their deadline or not at all, of the jobs due in the run. Min slack: the least margin by which a completed job beat its deadline (negative: a miss). Utilisation is transmission over service time (Tsai et al.); seek, rotation and idle are shares of the run.",
        args.seed
    ));
    if let Some(p) = wrr {
        let source = match args.wrr_constants {
            WrrConstants::Paper => "the paper's Table 2 (HP 97560)",
            WrrConstants::Drive => "measured on the emulated drive (--wrr-constants drive)",
        };
        let ms = |ns: Nanos| ns as f64 / 1e6;
        summary.note(format!(
            "WRR-SCAN's admission constants, {source}: t_s {:.1} ms, t_r {:.2} ms, C/V {:.3} ms a {BLOCK_BYTES}-byte block, revolution {:.2} ms.",
            ms(p.seek_sweep),
            ms(p.rotation),
            ms(p.block_time),
            ms(p.revolution)
        ));
    }
    if args.with_linux {
        // The weights depend on the periods and blocks alone, the same in
        // every replication.
        let weights = bfq_rate_weights(&workload(&set, block_sectors, args.seed, 0))?;
        // The tasks' weights in file order, then the aperiodic stream's.
        let named: Vec<String> = weights
            .iter()
            .enumerate()
            .map(|(i, &(_, weight))| match set.names.get(i) {
                Some(name) => format!("{name} {weight}"),
                None => format!("aperiodic {weight}"),
            })
            .collect();
        summary.note(format!(
            "{BFQ_RATE_LABEL}: Linux's BFQ with the kernel's defaults, no admission; each task a class weighted in proportion to its rate, the fastest 1000 (1 ..= 1000): {}.",
            named.join(", ")
        ));
    }
    let mut per_task = Table::new(
        format!(
            "Each task of {} ({} replications)",
            file.display(),
            args.replications
        ),
        &[
            "task",
            "period ms",
            "blocks",
            "policy",
            "admitted",
            "jobs",
            "missed",
        ],
    );
    for (i, task) in set.tasks.iter().enumerate() {
        for (label, reports) in &runs {
            let outcomes = reports.iter().map(|r| r.tasks[i]);
            let (jobs, missed) = outcomes
                .clone()
                .fold((0, 0), |(j, m), o| (j + o.jobs, m + o.misses));
            per_task.row(vec![
                Cell::text(&set.names[i]),
                Cell::num(task.period as f64 / 1e6, 1),
                Cell::Int(u64::from(task.blocks)),
                Cell::text(label),
                Cell::Flag(reports[0].tasks[i].admitted),
                Cell::Int(jobs),
                Cell::Int(missed),
            ]);
        }
    }
    per_task.note("Jobs and missed jobs summed over the replications; a refused task has none.");
    for (policy, (label, reports)) in policies.iter().zip(&runs) {
        let missed: u64 = reports.iter().map(|r| r.deadline_misses).sum();
        if matches!(policy, AnySpec::RateBased(_)) && missed > 0 {
            summary.note(format!(
                "{label}: {missed} jobs of admitted tasks missed their deadline. The admission test charges the paper's HP 97560 constants (Table 2: 2.8 MB/s, t_r = 23 ms), which underestimate the emulated drive (2.46 MB/s, track switches inside a long piece, 2.2 ms controller overhead a request); a round loaded to its bound then runs past its end, the job at the far end of its sweep slips into the next round, and a task served one job a round never catches up; --wrr-constants drive admits by the drive's own figures."
            ));
        }
    }
    Ok(vec![summary, per_task])
}

/// The policy as it runs the file: WRR-SCAN with the file's reservation
/// (see the module's doc) and blocks of the disk's size; a single-disk
/// policy as given.
fn policy_for(
    policy: &AnySpec,
    set: &TaskSet,
    constants: WrrConstants,
    model: &DiskModel,
) -> Result<AnySpec> {
    match *policy {
        AnySpec::RateBased(mut params) => {
            if set.aperiodic_given && params.aperiodic != set.aperiodic {
                if params.aperiodic != default_reserve() {
                    bail!(
                        "--policy {policy}: its aperiodic reservation contradicts the task file's ({}); give it in one place",
                        describe_reserve(set.aperiodic)
                    );
                }
                params.aperiodic = set.aperiodic;
            }
            Ok(AnySpec::RateBased(admit::params_on(
                params, model, constants,
            )?))
        }
        AnySpec::Disk(_) => Ok(*policy),
        AnySpec::Array(_) => bail!(
            "--policy {policy}: an array policy runs on a mirrored pair, and --tasks runs one disk; give a rate-based policy (wrr-scan) or a single-disk one (scan-edf)"
        ),
    }
}

/// The reservation `wrr-scan` has unless its `share` is named.
fn default_reserve() -> AperiodicReserve {
    AperiodicReserve::Share {
        ppm: crate::repro::tsai04::DEFAULT_SHARE_PPM,
    }
}

fn describe_reserve(reserve: AperiodicReserve) -> String {
    match reserve {
        AperiodicReserve::Share { ppm } => format!("aperiodic_share = {}", f64::from(ppm) / 1e6),
        AperiodicReserve::Blocks(blocks) => format!("aperiodic_blocks = {blocks}"),
    }
}

/// Replication `r`'s workload: the file's tasks, each first released where
/// the file says or, where it does not, uniformly over its first period
/// (the stream `spindle repro tsai04` draws its releases from).
fn workload(set: &TaskSet, block_sectors: u32, seed: u64, r: u64) -> RateWorkload {
    let mut releases = Unit::new(seed, 0, r).stream(Purpose::Releases);
    let tasks = set
        .tasks
        .iter()
        .zip(&set.releases)
        .map(|(task, release)| RateTaskSpec {
            class: task.class,
            release: release.unwrap_or_else(|| releases.below(task.period)),
            period: task.period,
            blocks: task.blocks,
        })
        .collect();
    RateWorkload {
        tasks,
        aperiodic_gap: set.aperiodic_gap,
        block_sectors,
    }
}

/// The figures of each replication. A figure a run leaves undefined (no
/// job completed, so no slack; no aperiodic read, so no response) is left
/// out of that replication, as `repro tsai04` does: its interval is over
/// the runs that define it.
fn metrics(reports: &[RateReport]) -> Result<MetricTable> {
    let mut m = MetricTable::new();
    for (r, report) in (0..).zip(reports) {
        let missed_pct = if report.jobs > 0 {
            100.0 * report.deadline_misses as f64 / report.jobs as f64
        } else {
            f64::NAN
        };
        let figures = crate::repro::tsai04::metrics(report)
            .into_iter()
            .chain([("jobs", report.jobs as f64), ("missed_pct", missed_pct)]);
        for (name, value) in figures.filter(|(_, v)| v.is_finite()) {
            m.record(r, name, value)?;
        }
    }
    Ok(m)
}
