//! `spindle run` and the default experiment: synthetic workloads on one disk.

use anyhow::{Context, Result, bail};
use disk_emu::disk::DiskSpec;
use experiments::{
    Addressing, Arrivals, DeadlineRange, DiskExperiment, Load, RequestMix, metric_table,
};
use sched_core::PolicySpec;

use crate::common::{estimate, policy_label, progress, resolve_disk};
use crate::output::{Cell, Format, Table};

/// Options of `spindle run`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct RunArgs {
    /// Disk: a preset (see `spindle presets`), a TOML/JSON spec file, or disksim:FILE.
    #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
    pub disk: String,
    /// Policy to run, NAME[:key=value,...]; repeat to compare (see `spindle policies`).
    #[cfg_attr(feature = "cli", arg(long = "policy", default_value = "fcfs"))]
    pub policies: Vec<PolicySpec>,
    /// Open Poisson load as a fraction of the disk's capacity for the request
    /// mix served one at a time; repeat to sweep.
    #[cfg_attr(feature = "cli", arg(long = "load", conflicts_with_all = ["rates", "clients"]))]
    pub loads: Vec<f64>,
    /// Open Poisson arrival rate, requests per second; repeat to sweep.
    #[cfg_attr(feature = "cli", arg(long = "rate", conflicts_with = "clients"))]
    pub rates: Vec<f64>,
    /// Closed workload: this many clients, each waiting for its request then thinking.
    #[cfg_attr(feature = "cli", arg(long))]
    pub clients: Option<u32>,
    /// Mean think time of closed clients, ms (exponential).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = 0.0, requires = "clients")
    )]
    pub think_ms: f64,
    /// Fraction of reads.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0))]
    pub read_fraction: f64,
    /// Blocks per request.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub blocks: u32,
    /// Probability that a request continues where the previous one ended.
    #[cfg_attr(feature = "cli", arg(long))]
    pub sequential: Option<f64>,
    /// Relative deadlines uniform in MIN..MAX ms (for the real-time policies).
    #[cfg_attr(feature = "cli", arg(long, value_parser = parse_range))]
    pub deadline_ms: Option<(f64, f64)>,
    /// Completions measured per replication.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20_000))]
    pub requests: u64,
    /// Completions discarded at the start of each replication (default: a tenth of --requests).
    #[cfg_attr(feature = "cli", arg(long))]
    pub warmup: Option<u64>,
    /// Seed; replication r uses streams derived from (seed, r).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Independent replications (for the 95 % confidence intervals).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10))]
    pub replications: u64,
    /// Threads running replications; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = default_jobs()))]
    pub jobs: usize,
    /// Run open loads at or above saturation anyway (with a warning): the
    /// queue grows without bound and the figures depend on the run length.
    #[cfg_attr(feature = "cli", arg(long))]
    pub allow_overload: bool,
}

/// All cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

#[cfg(feature = "cli")]
fn parse_range(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("expected MIN..MAX, got {s}"))?;
    let a: f64 = a
        .trim()
        .parse()
        .map_err(|_| format!("bad minimum in {s}"))?;
    let b: f64 = b
        .trim()
        .parse()
        .map_err(|_| format!("bad maximum in {s}"))?;
    Ok((a, b))
}

/// One point of a sweep: how its load is labelled and what it offers.
#[derive(Clone, Copy, Debug)]
enum Point {
    Open(Load),
    Closed { clients: u32, think_ms: f64 },
}

struct Plan {
    disk: DiskSpec,
    mix: RequestMix,
    policies: Vec<PolicySpec>,
    points: Vec<Point>,
    requests: u64,
    warmup: u64,
    seed: u64,
    replications: u64,
    jobs: usize,
    allow_overload: bool,
}

/// `spindle run`.
pub fn run(args: &RunArgs, format: Format) -> Result<()> {
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
    if args.replications < 2 {
        bail!("--replications: at least 2 are needed for a confidence interval");
    }
    let plan = Plan {
        disk: resolve_disk(&args.disk)?,
        mix,
        policies: args.policies.clone(),
        points,
        requests: args.requests,
        warmup: args.warmup.unwrap_or(args.requests / 10),
        seed: args.seed,
        replications: args.replications,
        jobs: args.jobs,
        allow_overload: args.allow_overload,
    };
    crate::output::emit(&execute(&plan)?.render(format));
    Ok(())
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
        points: [0.5, 0.8, 0.95]
            .map(|u| Point::Open(Load::Utilisation(u)))
            .to_vec(),
        requests: 20_000,
        warmup: 2_000,
        seed: DEFAULT_SEED,
        replications: 10,
        jobs: default_jobs(),
        allow_overload: false,
    };
    let mut table = execute(&plan)?;
    table.note(
        "Try `spindle run --help`, `spindle policies`, `spindle presets`, `spindle replay FILE`.",
    );
    crate::output::emit(&table.render(format));
    Ok(())
}

fn execute(plan: &Plan) -> Result<Table> {
    let title = format!(
        "{} — {} replications × {} requests (+{} warm-up), {}",
        plan.disk.name,
        plan.replications,
        plan.requests,
        plan.warmup,
        describe_mix(&plan.mix)
    );
    let mut table = Table::new(
        title,
        &[
            "policy",
            "load",
            "rate/s",
            "response ms",
            "p95 ms",
            "wait ms",
            "service ms",
            "seek ms",
            "rotation ms",
            "seek cyl",
            "util",
            "queue",
        ],
    );
    let bar = progress(
        (plan.policies.len() * plan.points.len()) as u64 * plan.replications,
        "replications",
    );
    // Every run is built and checked before any runs.
    let mut runs = Vec::new();
    for point in &plan.points {
        let (arrivals, load_label, rate) = match *point {
            Point::Open(load) => {
                let rate = DiskExperiment::rate_for(&plan.disk, &plan.mix, load)?;
                let label = match load {
                    Load::Utilisation(u) => format!("{u}"),
                    Load::Rate(_) => "—".to_string(),
                };
                (Arrivals::Poisson { rate }, label, Cell::num(rate, 1))
            }
            Point::Closed { clients, think_ms } => (
                Arrivals::Closed { clients, think_ms },
                format!("{clients} clients, think {think_ms} ms"),
                Cell::Missing,
            ),
        };
        for policy in &plan.policies {
            let experiment = DiskExperiment {
                disk: plan.disk.clone(),
                policy: *policy,
                arrivals,
                mix: plan.mix,
                requests: plan.requests,
                warmup: plan.warmup,
                seed: plan.seed,
                allow_overload: plan.allow_overload,
            };
            let load = experiment
                .check()
                .with_context(|| format!("{}, load {load_label}", policy_label(policy)))?;
            if load >= 1.0 {
                eprintln!(
                    "warning: {}, load {load_label}: the offered load is {load:.3} of the disk's capacity; the queue grows without bound and the figures depend on the run length",
                    policy_label(policy)
                );
            }
            runs.push((experiment, load_label.clone(), rate.clone()));
        }
    }
    for (experiment, load_label, rate) in &runs {
        let policy = &experiment.policy;
        let model = experiment.model()?;
        let reports = experiments::replicate(experiment, plan.replications, plan.jobs, |r| {
            let out = experiment.run_on(model.clone(), r);
            bar.inc(1);
            out
        });
        let reports = match reports {
            Ok(r) => r,
            Err(e) => {
                bar.suspend(|| eprintln!("{}, load {load_label}: {e}", policy_label(policy)));
                table.row(row_missing(
                    policy,
                    load_label,
                    rate.clone(),
                    table.columns.len(),
                ));
                continue;
            }
        };
        let m = metric_table(&reports)?;
        table.row(vec![
            Cell::text(policy_label(policy)),
            Cell::text(load_label.clone()),
            rate.clone(),
            estimate(&m, "response_ms", 1.0, 2),
            estimate(&m, "response_p95_ms", 1.0, 1),
            estimate(&m, "waiting_ms", 1.0, 2),
            estimate(&m, "service_ms", 1.0, 2),
            estimate(&m, "seek_ms", 1.0, 2),
            estimate(&m, "rotation_ms", 1.0, 2),
            estimate(&m, "seek_cylinders", 1.0, 0),
            estimate(&m, "utilisation", 1.0, 3),
            estimate(&m, "queue_mean", 1.0, 2),
        ]);
    }
    bar.finish_and_clear();
    table.note(format!(
        "Means over replications ± half-width of the 95 % Student-t interval; seed {}. Load is relative to the mean service of one request served alone.",
        plan.seed
    ));
    Ok(table)
}

fn row_missing(policy: &PolicySpec, load: &str, rate: Cell, columns: usize) -> Vec<Cell> {
    let mut row = vec![Cell::text(policy_label(policy)), Cell::text(load), rate];
    row.resize(columns, Cell::text("overload"));
    row
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
