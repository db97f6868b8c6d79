//! `spindle bench`: how fast the emulator and the transaction simulator run
//! (and how much memory they need), and what a scheduling decision costs.

use std::time::Instant;

use anyhow::{Context, Result};
use disk_emu::disk::DiskModel;
use experiments::{Arrivals, DiskExperiment, Load, RequestMix};
use sched_core::{AnySpec, Heap, PolicySpec, Scheduler};

use crate::common::{array_label, policy_label, resolve_disk};
use crate::decision_cost::{ArrayRun, CYLINDERS, median, ns_per_request, prefill};
use crate::output::{Cell, Format, Table};

/// What to measure.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Subcommand))]
pub enum BenchWhat {
    /// Simulated requests per second of wall time, on one core, and peak memory.
    Emu {
        /// Disk to emulate.
        #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
        disk: String,
        /// Policies to measure (repeat).
        #[cfg_attr(feature = "cli", arg(long = "policy", default_values = ["fcfs", "sstf", "look"]))]
        policies: Vec<PolicySpec>,
        /// Open Poisson load, as a fraction of the disk's capacity.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.8, value_parser = crate::bounds::positive()))]
        load: f64,
        /// Simulated requests per policy.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 2_000_000, value_parser = crate::bounds::requests()))]
        requests: u64,
        /// Runs per policy; the median is reported.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 3, value_parser = crate::bounds::runs()))]
        runs: usize,
    },
    /// Transactions of Chen & Towsley's real-time system simulated per second, on one core.
    Txn {
        /// I/O subsystems to measure (repeat).
        #[cfg_attr(feature = "cli", arg(long = "io", default_values = ["ssedo", "fcfs", "rt-dmq", "rt-cmq"]))]
        io: Vec<String>,
        /// Users.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 20, value_parser = crate::bounds::population()))]
        users: u32,
        /// Transactions per run.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 50_000, value_parser = crate::bounds::transactions()))]
        transactions: u64,
        /// Runs per subsystem; the median is reported.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 3, value_parser = crate::bounds::runs()))]
        runs: usize,
    },
    /// The schedulers' decision cost: time per request (one enqueue and one
    /// dispatch) at a constant queue depth, one thread, each policy against
    /// FCFS timed in the same rounds (the workload of `cargo bench --bench
    /// decision`).
    Sched {
        /// Policies to measure, single-disk or array (repeat) [default:
        /// every single-disk policy].
        #[cfg_attr(feature = "cli", arg(long = "policy"))]
        policies: Vec<AnySpec>,
        /// Requests queued at every decision (for an array policy, logical
        /// requests held by the pair).
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 4096, value_parser = crate::bounds::depth()))]
        depth: usize,
        /// Rounds; the medians are reported.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 11, value_parser = crate::bounds::runs()))]
        rounds: usize,
        /// Requests each policy (and FCFS) serves a round, at most: a slow
        /// policy serves fewer, about 20 ms' worth (at least 100; the table
        /// says how many).
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 10_000, value_parser = crate::bounds::decisions()))]
        requests: u64,
    },
}

/// Peak resident memory of this process, from /proc (Linux), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// `spindle bench ...`.
pub fn run(what: &BenchWhat, format: Format) -> Result<()> {
    let (disk, policies, load, requests, runs) = match what {
        BenchWhat::Emu {
            disk,
            policies,
            load,
            requests,
            runs,
        } => (disk, policies, load, requests, runs),
        BenchWhat::Txn {
            io,
            users,
            transactions,
            runs,
        } => return crate::txn::bench(io, *users, *transactions, *runs, format),
        BenchWhat::Sched {
            policies,
            depth,
            rounds,
            requests,
        } => return sched(policies, *depth, *rounds, *requests, format),
    };
    let disk = resolve_disk(disk)?;
    let mix = RequestMix::default();
    let model = DiskModel::from_spec(&disk)?;
    let rate = DiskExperiment::rate_on(&model, &mix, Load::Utilisation(*load))?;
    let mut t = Table::new(
        format!(
            "Emulator throughput: {}, random 1-block reads, open Poisson at load {load} ({rate:.1}/s), one thread",
            disk.name
        ),
        &[
            "policy",
            "requests",
            "median wall s",
            "simulated requests/s",
            "mean response ms",
        ],
    );
    for policy in policies {
        let experiment = DiskExperiment {
            disk: disk.clone(),
            policy: *policy,
            arrivals: Arrivals::Poisson { rate },
            mix,
            requests: *requests,
            warmup: 0,
            seed: 1,
            allow_overload: false,
        };
        experiment
            .check_on(&model)
            .map_err(|e| match e {
                experiments::RunError::Overload { load } => anyhow::anyhow!(
                    "the offered load is {load:.3} of the disk's capacity, at or above saturation: the queue would grow until it overflowed; measure the emulator below 1"
                ),
                other => other.into(),
            })
            .with_context(|| format!("--load {load:?}, --policy {policy}"))?;
        let mut times = Vec::new();
        let mut response = f64::NAN;
        for run in 0..(*runs).max(1) {
            let start = Instant::now();
            let report = experiment.run_on(model.clone(), run as u64)?;
            times.push(start.elapsed().as_secs_f64());
            response = report.response.mean / 1e6;
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        t.row(vec![
            Cell::text(policy_label(policy)),
            Cell::Int(*requests),
            Cell::num(median, 3),
            Cell::num(*requests as f64 / median, 0),
            Cell::num(response, 2),
        ]);
    }
    if let Some(mb) = peak_rss_mb() {
        t.note(format!(
            "Peak resident memory of the whole process: {mb:.1} MB."
        ));
    }
    crate::report::emit_table(&t, format)?;
    Ok(())
}

/// A queue being timed: a single-disk policy, or an array policy on a
/// mirrored pair.
enum Timed {
    Disk(Box<dyn Scheduler>, crate::decision_cost::Workload),
    Array(Box<ArrayRun<Heap>>),
}

impl Timed {
    fn new(spec: &AnySpec, depth: usize) -> Result<Timed> {
        let storage = Heap::new(depth).map_err(|e| anyhow::anyhow!("--depth {depth}: {e}"))?;
        Ok(match spec {
            AnySpec::Disk(p) => {
                let mut queue: Box<dyn Scheduler> = Box::new(p.build(storage, CYLINDERS)?);
                let w = prefill(queue.as_mut(), depth);
                Timed::Disk(queue, w)
            }
            AnySpec::Array(a) => Timed::Array(Box::new(ArrayRun::new(a, storage, depth)?)),
            AnySpec::RateBased(_) => anyhow::bail!(
                "--policy {spec}: a rate-based policy's cost depends on its admitted tasks; `cargo bench --bench decision -- --wrr` measures WRR-SCAN-CA with 100 of them"
            ),
        })
    }

    /// Nanoseconds per request over `requests` more requests.
    fn ns(&mut self, requests: u64) -> f64 {
        match self {
            Timed::Disk(queue, w) => ns_per_request(queue.as_mut(), w, requests),
            Timed::Array(run) => run.per_request(requests).as_nanos() as f64 / requests as f64,
        }
    }
}

/// About how long a round of one policy runs, ns: rounds of a slow policy
/// serve fewer requests.
const ROUND_BUDGET_NS: f64 = 20e6;

/// `spindle bench sched`: each policy's time per request, and its ratio to
/// FCFS, over `rounds` rounds in which FCFS and the policy each serve
/// `requests` requests back to back (so a busy machine slows both alike);
/// the medians of the rounds.
fn sched(
    policies: &[AnySpec],
    depth: usize,
    rounds: usize,
    requests: u64,
    format: Format,
) -> Result<()> {
    let policies: Vec<AnySpec> = if policies.is_empty() {
        PolicySpec::DEFAULTS.map(AnySpec::Disk).to_vec()
    } else {
        policies.to_vec()
    };
    // Every queue is built (and every refusal made) before anything is timed.
    let mut timed = Vec::new();
    for spec in &policies {
        let label = match spec {
            AnySpec::Disk(p) => policy_label(p),
            AnySpec::Array(a) => array_label(a),
            AnySpec::RateBased(_) => spec.to_string(),
        };
        let kind = if matches!(spec, AnySpec::Array(_)) {
            "array"
        } else {
            "disk"
        };
        let reference = Timed::new(&AnySpec::Disk(PolicySpec::Fcfs), depth)?;
        timed.push((label, kind, Timed::new(spec, depth)?, reference));
    }
    let mut t = Table::new(
        format!(
            "Decision cost at depth {depth}: one enqueue and one dispatch per request (heap storage, one thread), median of {rounds} rounds"
        ),
        &[
            "policy",
            "kind",
            "requests/round",
            "ns per request",
            "fastest round ns",
            "slowest round ns",
            "FCFS ns",
            "× FCFS",
        ],
    );
    let bar = crate::common::progress((timed.len() * rounds) as u64, "rounds");
    for (label, kind, queue, reference) in &mut timed {
        // A first short round sizes the rounds of a slow policy (SPTF scans
        // its whole queue: about 0.1 ms a request at depth 4096).
        let probe = requests.min(100);
        let first = queue.ns(probe);
        let per_round =
            ((ROUND_BUDGET_NS / first.max(1.0)) as u64).clamp(probe, requests.max(probe));
        let (mut ours, mut fcfs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let f = reference.ns(requests);
            let p = queue.ns(per_round);
            fcfs.push(f);
            ours.push(p);
            ratios.push(p / f);
            bar.inc(1);
        }
        let fastest = ours.iter().copied().fold(f64::INFINITY, f64::min);
        let slowest = ours.iter().copied().fold(0.0, f64::max);
        t.row(vec![
            Cell::text(label.clone()),
            Cell::text(*kind),
            Cell::Int(per_round),
            Cell::num(median(ours), 1),
            Cell::num(fastest, 1),
            Cell::num(slowest, 1),
            Cell::num(median(fcfs), 1),
            Cell::num(median(ratios), 2),
        ]);
    }
    bar.finish_and_clear();
    t.note(
        "The workload of `cargo bench --bench decision`: random cylinders of an HP 97560, deadlines up to twice the expected wait, a closed-form positioning estimator; an array policy's time is per logical request on a mirrored pair (three reads to one update). Each round times FCFS and the policy back to back at the same depth (a slow policy over fewer requests, about 20 ms' worth); × FCFS is the median of the rounds' ratios.",
    );
    crate::report::emit_table(&t, format)
}
