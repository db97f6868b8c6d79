//! `spindle bench`: how fast the emulator runs, and how much memory it needs.

use std::time::Instant;

use anyhow::{Context, Result};
use disk_emu::disk::DiskModel;
use experiments::{Arrivals, DiskExperiment, Load, RequestMix};
use sched_core::PolicySpec;

use crate::common::{policy_label, resolve_disk};
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
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.8, value_parser = crate::bounds::positive))]
        load: f64,
        /// Simulated requests per policy.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 2_000_000, value_parser = crate::bounds::requests))]
        requests: u64,
        /// Runs per policy; the median is reported.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 3, value_parser = crate::bounds::runs))]
        runs: usize,
    },
    /// Transactions of Chen & Towsley's real-time system simulated per second, on one core.
    Txn {
        /// I/O subsystems to measure (repeat).
        #[cfg_attr(feature = "cli", arg(long = "io", default_values = ["ssedo", "fcfs", "rt-dmq", "rt-cmq"]))]
        io: Vec<String>,
        /// Users.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 20))]
        users: u32,
        /// Transactions per run.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 50_000))]
        transactions: u64,
        /// Runs per subsystem; the median is reported.
        #[cfg_attr(feature = "cli", arg(long, default_value_t = 3))]
        runs: usize,
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
    };
    let disk = resolve_disk(disk)?;
    let mix = RequestMix::default();
    let model = DiskModel::from_spec(&disk)?;
    let rate = DiskExperiment::rate_on(&model, &mix, Load::Utilisation(*load))?;
    let mut t = Table::new(
        format!(
            "Emulator throughput: {} , random 1-block reads, open Poisson at load {load} ({rate:.1}/s), one thread",
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
            .check()
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
    crate::output::emit_table(&t, format)?;
    Ok(())
}
