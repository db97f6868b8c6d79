//! `spindle run` and the default experiment: synthetic workloads on one
//! disk under single-disk policies, or on a mirrored pair under array
//! policies, with deadline misses, drops and tardiness whenever requests
//! carry deadlines.

use anyhow::{Result, bail};
use disk_emu::DiskReport;
use disk_emu::disk::DiskSpec;
use experiments::{Addressing, Arrivals, DeadlineRange, Load, MirrorReport, Placement, RequestMix};
use sched_core::array::ArraySpec;
use sched_core::{AnySpec, PolicySpec};

use experiments::{ArrayTrace, HeadTrace};

use crate::common::{
    RunGives, array_label, check_disks, describe_placement, policy_label, policy_warnings,
    resolve_disk,
};
use crate::output::{Cell, Format, Table};
use crate::sheet::{RunSheet, array_sheet, disk_sheet};

mod device_runs;
mod task_runs;
use device_runs::{MirroredPair, OneDisk, RunReports};

/// Options of `spindle run`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct RunArgs {
    /// Disk: a preset (see `spindle presets`), a TOML/JSON spec file, or disksim:FILE.
    #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
    pub disk: String,
    /// Policy to run, NAME[:key=value,...]; repeat to compare (see `spindle
    /// policies`): single-disk policies on one disk, array policies on a
    /// mirrored pair, rate-based ones (wrr-scan) with --tasks [default:
    /// fcfs; with --tasks, wrr-scan in its three versions and scan-edf].
    #[cfg_attr(feature = "cli", arg(long = "policy"))]
    pub policies: Vec<AnySpec>,
    /// Disks: 1 for single-disk policies, 2 (a mirrored pair) for array
    /// policies [default: what the policies need].
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<u32>::new("disks", 1, 2)))]
    pub disks: Option<u32>,
    /// How a mirrored pair's second disk lays out its copies: identical,
    /// reversed, or shifted:F (by F of the capacity, F in [0, 1)); for
    /// array policies only [default: identical].
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::placement))]
    pub placement: Option<Placement>,
    /// Open Poisson load as a fraction of the disk's capacity for the request
    /// mix served one at a time; repeat to sweep.
    #[cfg_attr(feature = "cli", arg(long = "load", conflicts_with_all = ["rates", "clients"], allow_negative_numbers = true, value_parser = crate::bounds::positive()))]
    pub loads: Vec<f64>,
    /// Open Poisson arrival rate, requests per second; repeat to sweep.
    #[cfg_attr(feature = "cli", arg(long = "rate", conflicts_with = "clients", allow_negative_numbers = true, value_parser = crate::bounds::positive()))]
    pub rates: Vec<f64>,
    /// Closed workload: this many clients, each waiting for its request then thinking.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::population()))]
    pub clients: Option<u32>,
    /// Mean think time of closed clients, ms (exponential).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = 0.0, requires = "clients", value_parser = crate::bounds::millis("the think time", 0.0, 1e7))
    )]
    pub think_ms: f64,
    /// Fraction of reads.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = crate::bounds::fraction()))]
    pub read_fraction: f64,
    /// Blocks per request.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::Whole::<u32>::new("blocks per request", 1, 65_536)))]
    pub blocks: u32,
    /// Probability that a request continues where the previous one ended.
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true, value_parser = crate::bounds::fraction()))]
    pub sequential: Option<f64>,
    /// Relative deadlines uniform in MIN..MAX ms (for the real-time policies).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Span::new(crate::bounds::millis("a deadline", 0.0, 1e9))))]
    pub deadline_ms: Option<(f64, f64)>,
    /// Completions measured per replication.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20_000, value_parser = crate::bounds::requests()))]
    pub requests: u64,
    /// Completions discarded at the start of each replication (default: a tenth of --requests).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::warmup()))]
    pub warmup: Option<u64>,
    /// Seed; replication r uses streams derived from (seed, r).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// Independent replications (for the 95 % confidence intervals).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10, value_parser = crate::bounds::replications()))]
    pub replications: u64,
    /// Threads running replications; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::bounds::default_jobs(), value_parser = crate::bounds::jobs()))]
    pub jobs: usize,
    /// Run open loads at or above saturation anyway (with a warning): the
    /// queue grows without bound and the figures depend on the run length.
    #[cfg_attr(feature = "cli", arg(long))]
    pub allow_overload: bool,
    /// Draw the run's sheet into FILE (.svg, .png, or .html for a page of
    /// it): the arm's cylinder over time for the first --plot-requests
    /// requests, one lane per policy over the same arrivals (per disk of a
    /// mirrored pair), the queue over that span and each policy's
    /// response-time distribution (replication 0), and per-class bars with
    /// 95 % intervals over the replications where the run has classes
    /// (reads and writes, deadlines). One load point.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::svg_path))]
    pub plot: Option<std::path::PathBuf>,
    /// Write every measured request to this CSV file, one row each:
    /// policy, load point, replication, id, arrival, kind, block, cylinder
    /// (or the serving disk of a mirrored pair), size, wait and response
    /// (ns), and the deadline's outcome when requests carry deadlines.
    /// Streamed as the run goes; the same bytes whatever --jobs says.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::output_file))]
    pub samples: Option<std::path::PathBuf>,
    /// Rate-based tasks instead of the request workload: the TOML/JSON
    /// file `spindle admit` reads (optionally with `aperiodic_gap_ms` and
    /// each task's `release_ms`), run for --seconds on one disk under each
    /// policy. WRR-SCAN admits what its test accepts; a single-disk policy
    /// (scan-edf) runs every task.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            conflicts_with_all = [
                "loads", "rates", "clients", "read_fraction", "blocks", "sequential",
                "deadline_ms", "requests", "warmup", "disks", "placement", "plot", "samples",
            ]
        )
    )]
    pub tasks: Option<std::path::PathBuf>,
    /// The constants WRR-SCAN's admission test charges in a --tasks run:
    /// `paper` (Table 2's HP 97560 figures, what `spindle admit` decides
    /// with) or `drive` (measured on --disk, so that what is admitted holds
    /// on the emulated drive).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_enum, default_value = "paper", requires = "tasks")
    )]
    pub wrr_constants: WrrConstants,
    /// Add Linux's proportional-share answer to a --tasks run: BFQ, each
    /// task a class weighted in proportion to its rate, the aperiodic reads
    /// a class of their own; no admission, every task runs. BFQ keeps 16
    /// class queues, so a file of more than 15 tasks is refused.
    #[cfg_attr(feature = "cli", arg(long, requires = "tasks"))]
    pub with_linux: bool,
    /// Simulated seconds per replication of a --tasks run [default: 60].
    #[cfg_attr(feature = "cli", arg(long, requires = "tasks", value_parser = crate::bounds::seconds()))]
    pub seconds: Option<u64>,
    /// Requests the sheet's lanes follow.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 40, requires = "plot", value_parser = crate::bounds::Whole::<u64>::new("requests followed", 1, 10_000)))]
    pub plot_requests: u64,
}

/// Where WRR-SCAN's admission constants come from in `run --tasks`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum WrrConstants {
    /// The paper's Table 2 (HP 97560).
    #[default]
    Paper,
    /// Measured on the emulated drive ([`experiments::wrr_params_on`]).
    Drive,
}

/// One point of a sweep: how its load is labelled and what it offers.
#[derive(Clone, Copy, Debug)]
enum Point {
    Open(Load),
    Closed { clients: u32, think_ms: f64 },
}

impl Point {
    /// The two columns after the policy: `load` and `rate/s` for open
    /// arrivals, `clients` and `think ms` for a closed population (a run's
    /// points are all of one kind).
    fn columns(points: &[Point]) -> [&'static str; 2] {
        match points.first() {
            Some(Point::Closed { .. }) => ["clients", "think ms"],
            _ => ["load", "rate/s"],
        }
    }

    /// Decimals that show every load of `points` as given (0.5 and 0.95:
    /// two), so that the column lines up.
    fn load_digits(points: &[Point]) -> usize {
        let decimals = |x: f64| {
            let text = format!("{x}");
            text.split_once('.').map_or(0, |(_, d)| d.len()).min(6)
        };
        points
            .iter()
            .map(|p| match p {
                Point::Open(Load::Utilisation(u)) => decimals(*u),
                Point::Open(Load::Rate(_)) => 3,
                Point::Closed { think_ms, .. } => decimals(*think_ms),
            })
            .max()
            .unwrap_or(0)
    }

    /// The arrivals of this point and its label in messages; `rate_for`
    /// turns an open load into requests per second for the device run (one
    /// disk or a mirrored pair).
    fn arrivals(self, rate_for: impl FnOnce(Load) -> Result<f64>) -> Result<(Arrivals, String)> {
        Ok(match self {
            Point::Open(load) => {
                let rate = rate_for(load)?;
                let label = match load {
                    Load::Utilisation(u) => format!("load {}", crate::bounds::show(u)),
                    Load::Rate(r) => format!("rate {}/s", crate::bounds::show(r)),
                };
                (Arrivals::Poisson { rate }, label)
            }
            Point::Closed { clients, think_ms } => (
                Arrivals::Closed { clients, think_ms },
                format!(
                    "{clients} clients thinking {} ms",
                    crate::bounds::show(think_ms)
                ),
            ),
        })
    }

    /// The point's two cells (see [`Point::columns`]): an open point's load
    /// (as given, or `offered` by the rate given) and rate, a closed one's
    /// population and think time.
    fn cells(self, arrivals: Arrivals, offered: f64, digits: usize) -> [Cell; 2] {
        match (self, arrivals) {
            (Point::Open(Load::Utilisation(u)), Arrivals::Poisson { rate }) => {
                [Cell::num(u, digits), Cell::num(rate, 1)]
            }
            (Point::Open(_), Arrivals::Poisson { rate }) => {
                [Cell::num(offered, digits), Cell::num(rate, 1)]
            }
            (Point::Closed { clients, think_ms }, _) => {
                [Cell::Int(u64::from(clients)), Cell::num(think_ms, digits)]
            }
            (Point::Open(_), Arrivals::Closed { .. }) => [Cell::Missing, Cell::Missing],
        }
    }
}

struct Plan {
    disk: DiskSpec,
    mix: RequestMix,
    policies: Vec<PolicySpec>,
    /// Array policies on a mirrored pair (instead of `policies`).
    arrays: Vec<ArraySpec>,
    placement: Placement,
    points: Vec<Point>,
    requests: u64,
    warmup: u64,
    seed: u64,
    replications: u64,
    jobs: usize,
    allow_overload: bool,
    /// Where `--samples` writes each measured request.
    samples: Option<std::path::PathBuf>,
}

/// `spindle run`.
pub fn run(args: &RunArgs, format: Format) -> Result<()> {
    if let Some(file) = &args.tasks {
        let tables = task_runs::execute(args, file)?;
        return crate::report::emit_tables(&tables, format);
    }
    let plan = plan(args)?;
    let mut draw = args.plot.is_some() || crate::report::collecting();
    if plan.samples.is_some() && crate::output::results_discarded() {
        bail!(
            "--samples: a shard's results go to its part, not to files; give --samples to an unsharded run"
        );
    }
    let gives = RunGives {
        disk: &plan.disk,
        deadlines: if plan.mix.deadline.is_some() {
            Ok(())
        } else {
            Err("give them some with --deadline-ms MIN..MAX")
        },
    };
    let uses = plan
        .policies
        .iter()
        .map(|p| (policy_label(p), p.uses()))
        .chain(plan.arrays.iter().map(|a| (array_label(a), a.uses())));
    for (label, uses) in uses {
        for warning in policy_warnings(&label, uses, &gives) {
            eprintln!("warning: {warning}");
        }
    }
    if draw && plan.points.len() > 1 {
        if args.plot.is_some() {
            bail!("--plot draws one load point; give one --load or --rate");
        }
        crate::report::note(format!(
            "No run sheet: it is drawn for one load point, and this run swept {}.",
            plan.points.len()
        ));
        draw = false;
    }
    // A shard throws its results away: it traces nothing either.
    draw &= !crate::output::results_discarded();
    let (table, reports) = measure(&plan)?;
    if draw {
        let sheet = sheet_of(&plan, args.plot_requests, &reports)?;
        crate::report::picture(args.plot.as_deref(), &sheet.title, || {
            Ok(crate::sheet::render_run_sheet(&sheet))
        })?;
    }
    crate::report::emit_table(&table, format)?;
    Ok(())
}

/// Every replication's reports of each run, in the order the runs were
/// planned (point by point, policy by policy); `None` for a run that
/// failed.
enum Reports {
    Disk(RunReports<DiskReport>),
    Mirror(RunReports<MirrorReport>),
}

/// Runs the plan: its table and its reports.
fn measure(plan: &Plan) -> Result<(Table, Reports)> {
    Ok(if plan.arrays.is_empty() {
        let (table, reports) = device_runs::execute::<OneDisk>(plan)?;
        (table, Reports::Disk(reports))
    } else {
        let (table, reports) = device_runs::execute::<MirroredPair>(plan)?;
        (table, Reports::Mirror(reports))
    })
}

/// The sheet `--plot` draws for a run of one load point: what its first
/// `followed` requests did in replication 0 under each policy, and the
/// per-class figures of every replication. Runs the whole experiment (as
/// `spindle run` does, without printing): the data behind the picture.
///
/// # Errors
/// The run's refusals and failures; a sweep of several load points.
pub fn sheet(args: &RunArgs) -> Result<RunSheet> {
    let plan = plan(args)?;
    if plan.points.len() > 1 {
        bail!("a run sheet is drawn for one load point; give one --load or --rate");
    }
    let (_, reports) = measure(&plan)?;
    sheet_of(&plan, args.plot_requests, &reports)
}

fn sheet_of(plan: &Plan, followed: u64, reports: &Reports) -> Result<RunSheet> {
    let title = |disk: String| {
        format!(
            "{disk}: {}, replication 0 of seed {}",
            describe_mix(&plan.mix),
            plan.seed
        )
    };
    Ok(match reports {
        Reports::Disk(reports) => {
            let reports: Vec<Option<&[DiskReport]>> =
                reports.iter().map(Option::as_deref).collect();
            disk_sheet(
                title(crate::sheet::drive_name(&plan.disk.name)),
                followed,
                &device_runs::traces::<OneDisk>(plan, followed)?,
                &reports,
            )
        }
        Reports::Mirror(reports) => {
            let reports: Vec<Option<&[MirrorReport]>> =
                reports.iter().map(Option::as_deref).collect();
            array_sheet(
                title(format!(
                    "{} ×2 ({})",
                    crate::sheet::drive_name(&plan.disk.name),
                    describe_placement(plan.placement)
                )),
                followed,
                &device_runs::traces::<MirroredPair>(plan, followed)?,
                &reports,
            )
        }
    })
}

/// The traced replication 0 of each policy of a single-disk `spindle run`
/// at its first load point, following the first `followed` requests: the
/// data behind the lanes, queues and distributions of the sheet `--plot`
/// draws, in the order of the policies.
///
/// # Errors
/// The run's refusals and failures.
pub fn traces(args: &RunArgs, followed: u64) -> Result<Vec<(String, HeadTrace)>> {
    device_runs::traces::<OneDisk>(&plan(args)?, followed)
}

/// The traced replication 0 of each array policy of a mirrored `spindle
/// run` at its first load point, following the first `followed` requests:
/// the data behind the sheet's lanes (one per disk), queues and
/// distributions, in the order of the policies.
///
/// # Errors
/// The run's refusals and failures.
pub fn array_traces(args: &RunArgs, followed: u64) -> Result<Vec<(String, ArrayTrace)>> {
    device_runs::traces::<MirroredPair>(&plan(args)?, followed)
}

fn plan(args: &RunArgs) -> Result<Plan> {
    let mix = RequestMix {
        read_fraction: args.read_fraction,
        blocks: args.blocks,
        addressing: match args.sequential {
            Some(probability) => Addressing::Sequential { probability },
            None => Addressing::Uniform,
        },
        deadline: args
            .deadline_ms
            .map(|(min_ms, max_ms)| DeadlineRange { min_ms, max_ms }),
    };
    mix.validate()?;
    let points = if let Some(clients) = args.clients {
        vec![Point::Closed {
            clients,
            think_ms: args.think_ms,
        }]
    } else if !args.rates.is_empty() {
        args.rates
            .iter()
            .map(|&r| Point::Open(Load::Rate(r)))
            .collect()
    } else if !args.loads.is_empty() {
        args.loads
            .iter()
            .map(|&u| Point::Open(Load::Utilisation(u)))
            .collect()
    } else {
        vec![Point::Open(Load::Utilisation(0.8))]
    };
    let (mut policies, mut arrays) = (Vec::new(), Vec::new());
    let fcfs = [AnySpec::Disk(PolicySpec::Fcfs)];
    let specs = if args.policies.is_empty() {
        &fcfs[..]
    } else {
        &args.policies[..]
    };
    for spec in specs {
        match spec {
            AnySpec::Disk(p) => policies.push(*p),
            AnySpec::Array(a) => arrays.push(*a),
            AnySpec::RateBased(_) => bail!(
                "--policy {spec}: a rate-based policy serves periodic tasks, not this workload; give it a task file with --tasks FILE (the format `spindle admit` reads)"
            ),
        }
    }
    if !policies.is_empty() && !arrays.is_empty() {
        bail!(
            "--policy: {} is an array policy and {} a single-disk one; run them in separate commands (an array runs on --disks 2)",
            arrays[0],
            policy_label(&policies[0])
        );
    }
    let needed = if arrays.is_empty() { 1 } else { 2 };
    let label = match &specs[0] {
        AnySpec::Disk(p) => policy_label(p),
        AnySpec::Array(a) => array_label(a),
        other => other.to_string(),
    };
    check_disks(&label, needed, args.disks, args.placement)?;
    let plan = Plan {
        disk: resolve_disk(&args.disk)?,
        mix,
        policies,
        arrays,
        placement: args.placement.unwrap_or(Placement::MIRROR),
        points,
        requests: args.requests,
        warmup: args.warmup.unwrap_or(args.requests / 10),
        seed: args.seed,
        replications: args.replications,
        jobs: args.jobs,
        allow_overload: args.allow_overload,
        samples: args.samples.clone(),
    };
    Ok(plan)
}

/// The seed of the default experiment.
pub const DEFAULT_SEED: u64 = 1;

/// The default experiment (`spindle` with no arguments, so `cargo run --release`).
pub fn default_experiment(format: Format) -> Result<()> {
    let plan = Plan {
        disk: disk_emu::disk::preset("hp97560")?,
        mix: RequestMix::default(),
        policies: ["fcfs", "sstf", "look", "c-look", "vscan", "sptf"]
            .iter()
            .map(|p| p.parse().expect("built-in policy names parse"))
            .collect(),
        arrays: Vec::new(),
        placement: Placement::SINGLE,
        points: [0.5, 0.8, 0.95]
            .map(|u| Point::Open(Load::Utilisation(u)))
            .to_vec(),
        requests: 20_000,
        warmup: 2_000,
        seed: DEFAULT_SEED,
        replications: 10,
        jobs: crate::bounds::default_jobs(),
        allow_overload: false,
        samples: None,
    };
    let (mut table, _) = device_runs::execute::<OneDisk>(&plan)?;
    table.note(
        "Try `spindle run --help`, `spindle policies`, `spindle presets`, `spindle replay FILE`.",
    );
    crate::report::emit_table(&table, format)?;
    Ok(())
}

fn describe_mix(mix: &RequestMix) -> String {
    let kind = if mix.read_fraction >= 1.0 {
        "reads".to_string()
    } else {
        format!("{:.0} % reads", mix.read_fraction * 100.0)
    };
    let place = match mix.addressing {
        Addressing::Uniform => "random".to_string(),
        Addressing::Sequential { probability } => {
            format!("{:.0} % sequential", probability * 100.0)
        }
    };
    let deadline = mix
        .deadline
        .map(|d| format!(", deadlines {}–{} ms", d.min_ms, d.max_ms))
        .unwrap_or_default();
    format!("{place} {}-block {kind}{deadline}", mix.blocks)
}
