//! `spindle txn`: one configuration of Chen & Towsley's real-time
//! transaction system, every parameter settable, measured over independent
//! replications with 95 % intervals.

use anyhow::{Context, Result};
use sched_core::AnySpec;
use txn_sim::{Deadlines, METRICS, TxnParams, metric_table};

use crate::common::{estimate, resolve_disk};
use crate::output::{Cell, Format, Table};
use crate::repro::chen_towsley91::TxnReproOptions;

/// The options of `spindle txn` (defaults: the paper's §4.1).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TxnArgs {
    /// I/O subsystem: a single-disk policy (`ssedo`, `fcfs`, ...) or a
    /// mirrored pair's array policy (`rt-dmq`, `rt-cmq`, `dmq-sq:queue=edf`, ...).
    #[cfg_attr(feature = "cli", arg(long, default_value = "rt-dmq"))]
    pub io: String,
    /// Disk model of every disk: a preset, a TOML/JSON file or `disksim:FILE`.
    #[cfg_attr(feature = "cli", arg(long, default_value = "chen-towsley-91"))]
    pub disk: String,
    /// N_u: users.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20, value_parser = crate::bounds::population()))]
    pub users: u32,
    /// Fewest steps per transaction.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::Whole::<u32>::new("steps per transaction", 1, 1_000)))]
    pub steps_min: u32,
    /// Most steps per transaction.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20, value_parser = crate::bounds::Whole::<u32>::new("steps per transaction", 1, 1_000)))]
    pub steps_max: u32,
    /// T_C: CPU per step, ms.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 15.0, value_parser = crate::bounds::millis("T_C", 0.0, 1e6)))]
    pub step_cpu_ms: f64,
    /// T_A: CPU per abort, ms.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 5.0, value_parser = crate::bounds::millis("T_A", 0.0, 1e6)))]
    pub abort_cpu_ms: f64,
    /// p_r: probability a step reads rather than updates.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.6, value_parser = crate::bounds::fraction()))]
    pub read_probability: f64,
    /// k in DL_LOW = max(1, k·N_u).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.25, value_parser = crate::bounds::Real::new("k", 0.0, 1e6)))]
    pub k: f64,
    /// α in DL_UP = α·DL_LOW.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 3.0, value_parser = crate::bounds::Real::new("α", 1.0, 1e6)))]
    pub alpha: f64,
    /// DL_LOW given directly (instead of max(1, k·N_u)).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Real::new("DL_LOW", 0.0, 1e6)))]
    pub dl_low: Option<f64>,
    /// No deadlines (the non-real-time setting).
    #[cfg_attr(feature = "cli", arg(long, conflicts_with_all = ["dl_low", "k", "alpha"]))]
    pub no_deadlines: bool,
    /// Replications, their length, seed and threads (the paper's method by
    /// default), and the readings of the text, as `spindle repro
    /// chen-towsley91` takes them.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub method: TxnReproOptions,
}

impl TxnArgs {
    /// The parameters these options describe.
    ///
    /// # Errors
    /// An unknown policy or disk, or an invalid parameter (named).
    pub fn params(&self) -> Result<TxnParams> {
        let io: AnySpec = self.io.parse().context("--io")?;
        let mut p = TxnParams::chen_towsley_91(self.users, io);
        p.disk = resolve_disk(&self.disk).context("--disk")?;
        p.steps_min = self.steps_min;
        p.steps_max = self.steps_max;
        p.step_cpu_ms = self.step_cpu_ms;
        p.abort_cpu_ms = self.abort_cpu_ms;
        p.read_probability = self.read_probability;
        p.deadlines = match (self.no_deadlines, self.dl_low) {
            (true, _) => Deadlines::None,
            (false, Some(low)) => Deadlines::Fixed {
                low,
                alpha: self.alpha,
            },
            (false, None) => Deadlines::Scaled {
                k: self.k,
                alpha: self.alpha,
            },
        };
        p.transactions = self.method.transactions;
        p.warmup = self.method.warmup;
        p.seed = self.method.seed;
        self.method.readings.apply(&mut p)?;
        p.validate()?;
        Ok(p)
    }
}

/// `spindle txn`.
///
/// # Errors
/// Invalid options or a failed run.
pub fn run(args: &TxnArgs, format: Format) -> Result<()> {
    let p = args.params()?;
    // run_replications with a progress bar (with its ETA) on stderr.
    p.validate()?;
    let bar = crate::common::progress(args.method.replications, "replications");
    let reports = experiments::replicate(&p, args.method.replications, args.method.jobs, |r| {
        let report = txn_sim::run(&p, r);
        bar.inc(1);
        report
    })?;
    bar.finish_and_clear();
    let m = metric_table(&reports)?;
    let mut t = Table::new(
        format!(
            "Real-time transaction system (Chen & Towsley 1991): {} on {}, {} users",
            p.io, p.disk.name, p.users
        ),
        &["metric", "mean", "meaning"],
    );
    for &(name, meaning) in METRICS {
        if m.values(name).is_some() {
            t.row(vec![
                Cell::text(name),
                estimate(&m, name, 1.0, 4),
                Cell::text(meaning),
            ]);
        }
    }
    let total = |f: fn(&txn_sim::RunReport) -> u64| reports.iter().map(f).sum::<u64>();
    t.note(format!(
        "{} replications × {} transactions ({} warm-up); measured: {} committed, {} lost, {} missed in write-back; {} deadlocks; I/O issued {}, cancelled {}.",
        args.method.replications,
        p.transactions,
        p.warmup,
        total(|r| r.committed),
        total(|r| r.lost),
        total(|r| r.missed),
        total(|r| r.deadlocks),
        total(|r| r.ledger.issued),
        total(|r| r.ledger.cancelled),
    ));
    crate::report::emit_table(&t, format)?;
    Ok(())
}

/// `spindle bench txn`: transactions simulated per second of wall time on
/// one thread, median of `runs` runs per subsystem (the paper's parameters
/// otherwise).
///
/// # Errors
/// An unknown policy or a failed run.
pub fn bench(
    io: &[String],
    users: u32,
    transactions: u64,
    runs: usize,
    format: Format,
) -> Result<()> {
    let mut t = Table::new(
        format!("txn-sim throughput: Chen & Towsley 1991 system, {users} users, one thread"),
        &[
            "I/O subsystem",
            "transactions",
            "median wall s",
            "transactions/s",
            "I/O requests/s",
            "loss ratio",
        ],
    );
    for spec in io {
        let mut p = TxnParams::chen_towsley_91(users, spec.parse().context("--io")?);
        p.transactions = transactions;
        p.warmup = 0;
        let mut times = Vec::new();
        let mut last = None;
        for run in 0..runs.max(1) {
            let start = std::time::Instant::now();
            let r = txn_sim::run(&p, run as u64)?;
            times.push(start.elapsed().as_secs_f64());
            last = Some(r);
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let r = last.expect("at least one run");
        t.row(vec![
            Cell::text(spec),
            Cell::Int(transactions),
            Cell::num(median, 3),
            Cell::num(transactions as f64 / median, 0),
            Cell::num(r.ledger.issued as f64 / median, 0),
            Cell::num(r.loss_ratio, 3),
        ]);
    }
    crate::report::emit_table(&t, format)?;
    Ok(())
}
