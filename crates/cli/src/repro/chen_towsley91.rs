//! Chen & Towsley, *Performance of a Mirrored Disk in a Real-Time
//! Transaction System* (UMass COINS TR 91-07): Figures 2–13, simulated with
//! `txn-sim` on the `chen-towsley-91` disk.
//!
//! Each figure is a sweep — users 4..20 (Figures 2–9 and 13), the deadline
//! lower bound DL_LOW at 20 users (10–11) or the read probability p_r at
//! 20 users (12) — of a few I/O subsystems, each point the mean of
//! independent replications (the paper's 20 runs of 1050 transactions, the
//! first 50 discarded) with its 95 % interval.
//!
//! The paper's labels map to policy specs as follows: SSEDO and FCFS are
//! single disks (`ssedo`, `fcfs`); RT-DMQ is RT-DMQ-SQ (`rt-dmq`), RT-CMQ
//! is RT-CMQ-S (`rt-cmq`), DMQ is the modified DMQ-SQ over SSTF (`dmq`),
//! DMQ(FCFS) the modified DMQ over FCFS queues (`dmq:queue=fcfs`),
//! RT-DMQ(FD-SCAN) is `fd-dmq`, CMQ(SSTF) the modified CMQ (`cmq-sstf`);
//! Figure 13's original DMQ(FCFS) of Towsley, Chen & Yu is `sq-dmq`.

use anyhow::Result;
use experiments::MetricTable;
use sched_core::AnySpec;
use txn_sim::{Deadlines, TxnParams, metric_table, run_replications};

use super::Figure;
use crate::common::estimate;
use crate::output::{Cell, Table};
use crate::plot::{Panel, Series, Source};

/// How much simulation each point gets (defaults: the paper's method).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TxnReproOptions {
    /// Independent replications per point (95 % intervals across them).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20))]
    pub replications: u64,
    /// Transactions finished per replication, warm-up included.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1050))]
    pub transactions: u64,
    /// Transactions discarded at the start of each replication.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 50))]
    pub warmup: u64,
    /// Seed of the whole reproduction.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Threads; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::run::default_jobs()))]
    pub jobs: usize,
}

impl Default for TxnReproOptions {
    fn default() -> Self {
        TxnReproOptions {
            replications: 20,
            transactions: 1050,
            warmup: 50,
            seed: 1,
            jobs: crate::run::default_jobs(),
        }
    }
}

/// The x axis of a figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Axis {
    /// N_u = 4, 6, ..., 20.
    Users,
    /// DL_LOW = 1, 2, ..., 10 at 20 users (α = 3).
    DeadlineLow,
    /// p_r = 0, 0.1, ..., 1 at 20 users.
    ReadProbability,
}

impl Axis {
    /// The points of the sweep.
    pub fn points(self) -> Vec<f64> {
        match self {
            Axis::Users => (4..=20).step_by(2).map(f64::from).collect(),
            Axis::DeadlineLow => (1..=10).map(f64::from).collect(),
            Axis::ReadProbability => (0..=10).map(|i| f64::from(i) / 10.0).collect(),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Axis::Users => "users",
            Axis::DeadlineLow => "DL_LOW",
            Axis::ReadProbability => "p_r",
        }
    }
}

/// One figure: what it sweeps, which subsystems, which metrics.
#[derive(Clone, Debug)]
pub struct FigureSpec {
    /// The paper's number.
    pub number: u8,
    /// Caption.
    pub title: &'static str,
    /// The x axis.
    pub axis: Axis,
    /// Whether transactions have deadlines (all but Figure 13).
    pub deadlines: bool,
    /// (legend label, I/O subsystem spec).
    pub curves: Vec<(&'static str, &'static str)>,
    /// (metric, column header); the first two are plotted.
    pub metrics: Vec<(&'static str, &'static str)>,
}

const SINGLE_VS_MIRROR: [(&str, &str); 4] = [
    ("SSEDO (1 disk)", "ssedo"),
    ("FCFS (1 disk)", "fcfs"),
    ("RT-DMQ", "rt-dmq"),
    ("RT-CMQ", "rt-cmq"),
];

const WITH_DMQ: [(&str, &str); 5] = [
    ("SSEDO (1 disk)", "ssedo"),
    ("FCFS (1 disk)", "fcfs"),
    ("RT-DMQ", "rt-dmq"),
    ("RT-CMQ", "rt-cmq"),
    ("DMQ", "dmq"),
];

const LOSS: (&str, &str) = ("loss_ratio", "loss ratio");
const RESPONSE: (&str, &str) = ("response_ms", "response of committed (ms)");

/// Figure `n`'s definition.
///
/// # Errors
/// For `n` outside 2–13.
pub fn spec(n: u8) -> Result<FigureSpec> {
    let f = |number,
             title,
             axis,
             curves: &[(&'static str, &'static str)],
             metrics: &[(&'static str, &'static str)]| FigureSpec {
        number,
        title,
        axis,
        deadlines: true,
        curves: curves.to_vec(),
        metrics: metrics.to_vec(),
    };
    Ok(match n {
        2 => f(
            2,
            "single disk vs mirrored disk: loss ratio (p_r = 0.6)",
            Axis::Users,
            &SINGLE_VS_MIRROR,
            &[LOSS, RESPONSE],
        ),
        3 => f(
            3,
            "real-time vs non-real-time DMQ disciplines: loss ratio (p_r = 0.6)",
            Axis::Users,
            &[
                ("RT-DMQ(SSEDO)", "rt-dmq"),
                ("RT-DMQ(FD-SCAN)", "fd-dmq"),
                ("DMQ(SSTF)", "dmq"),
                ("DMQ(FCFS)", "dmq:queue=fcfs"),
            ],
            &[LOSS, ("service_ms", "disk service (ms)")],
        ),
        4 => f(
            4,
            "mean I/O queue length (p_r = 0.6)",
            Axis::Users,
            &[
                ("SSEDO (1 disk)", "ssedo"),
                ("RT-DMQ-MR", "rt-dmq-mr"),
                ("RT-DMQ", "rt-dmq"),
                ("RT-CMQ", "rt-cmq"),
            ],
            &[
                ("queue", "waiting, all queues"),
                ("queue_disk", "per-disk queue"),
                ("queue_common", "common queue"),
                ("queue_aux", "aux queue, per disk"),
                ("queue_aux_total", "aux queues together"),
                ("aux_over_one", "P(aux > 1)"),
            ],
        ),
        5 => f(
            5,
            "mean disk service time (p_r = 0.6)",
            Axis::Users,
            &[
                ("SSEDO (1 disk)", "ssedo"),
                ("FCFS (1 disk)", "fcfs"),
                ("RT-DMQ", "rt-dmq"),
                ("RT-CMQ", "rt-cmq"),
                ("DMQ(SSTF)", "dmq"),
                ("DMQ(FCFS)", "dmq:queue=fcfs"),
            ],
            &[("service_ms", "disk service (ms)"), LOSS],
        ),
        6 => f(
            6,
            "RT-DMQ variants and RT-CMQ: loss ratio (p_r = 0.6)",
            Axis::Users,
            &[
                ("RT-DMQ-RD", "rt-dmq-rd"),
                ("RT-DMQ-SQ", "rt-dmq-sq"),
                ("RT-DMQ-MR", "rt-dmq-mr"),
                ("RT-CMQ", "rt-cmq"),
            ],
            &[LOSS, RESPONSE],
        ),
        7 => f(
            7,
            "RT-CMQ variants: loss ratio (p_r = 0.6)",
            Axis::Users,
            &[
                ("RT-CMQ-F", "rt-cmq-f"),
                ("RT-CMQ-S", "rt-cmq-s"),
                ("RT-CMQ-W", "rt-cmq-w"),
            ],
            &[LOSS, ("queue_aux", "aux queue, per disk")],
        ),
        8 => f(
            8,
            "mean response time of committed transactions (p_r = 0.6)",
            Axis::Users,
            &WITH_DMQ,
            &[RESPONSE, LOSS],
        ),
        9 => f(
            9,
            "mean size of committed transactions (p_r = 0.6)",
            Axis::Users,
            &WITH_DMQ,
            &[("committed_size", "steps of committed"), LOSS],
        ),
        10 => f(
            10,
            "loss ratio vs deadline lower bound (p_r = 0.6, 20 users)",
            Axis::DeadlineLow,
            &WITH_DMQ,
            &[LOSS, RESPONSE],
        ),
        11 => f(
            11,
            "response of committed vs deadline lower bound (p_r = 0.6, 20 users)",
            Axis::DeadlineLow,
            &WITH_DMQ,
            &[RESPONSE, LOSS],
        ),
        12 => f(
            12,
            "loss ratio vs read probability (20 users)",
            Axis::ReadProbability,
            &WITH_DMQ,
            &[LOSS, ("deadlocks", "deadlocks per transaction")],
        ),
        13 => FigureSpec {
            deadlines: false,
            ..f(
                13,
                "mean transaction response time without deadlines (p_r = 0.6)",
                Axis::Users,
                &[
                    ("DMQ-RD", "dmq-rd"),
                    ("DMQ-SQ", "dmq-sq"),
                    ("DMQ-MR", "dmq-mr"),
                    ("CMQ(SSTF)", "cmq-sstf"),
                    ("DMQ(FCFS), original", "sq-dmq"),
                ],
                &[
                    ("response_ms", "response (ms)"),
                    ("service_ms", "disk service (ms)"),
                ],
            )
        },
        _ => anyhow::bail!("Chen & Towsley 1991 has figures 2 to 13, not {n}"),
    })
}

/// The parameters of one point: subsystem `io` at `x` on `axis`.
///
/// # Errors
/// An unknown policy spec.
pub fn params(
    io: &str,
    axis: Axis,
    x: f64,
    deadlines: bool,
    opts: &TxnReproOptions,
) -> Result<TxnParams> {
    let io: AnySpec = io.parse()?;
    let users = match axis {
        Axis::Users => x as u32,
        Axis::DeadlineLow | Axis::ReadProbability => 20,
    };
    let mut p = TxnParams::chen_towsley_91(users, io);
    match axis {
        Axis::Users => {}
        Axis::DeadlineLow => p.deadlines = Deadlines::Fixed { low: x, alpha: 3.0 },
        Axis::ReadProbability => p.read_probability = x,
    }
    if !deadlines {
        p.deadlines = Deadlines::None;
    }
    p.transactions = opts.transactions;
    p.warmup = opts.warmup;
    p.seed = opts.seed;
    Ok(p)
}

/// Simulates one point: the replications' metrics.
///
/// # Errors
/// Invalid options or a failed run.
pub fn point(
    io: &str,
    axis: Axis,
    x: f64,
    deadlines: bool,
    opts: &TxnReproOptions,
) -> Result<MetricTable> {
    let p = params(io, axis, x, deadlines, opts)?;
    let reports = run_replications(&p, opts.replications, opts.jobs)?;
    Ok(metric_table(&reports)?)
}

/// Transactions figure `n` simulates with `opts` (warm-ups included).
///
/// # Errors
/// For `n` outside 2–13.
pub fn transactions(n: u8, opts: &TxnReproOptions) -> Result<u64> {
    let spec = spec(n)?;
    let points = (spec.curves.len() * spec.axis.points().len()) as u64;
    Ok(points * opts.replications * opts.transactions)
}

/// Figure `n` (2–13): its table and plot.
///
/// # Errors
/// For `n` outside 2–13, or a failed run.
pub fn figure(n: u8, opts: &TxnReproOptions) -> Result<Figure> {
    let spec = spec(n)?;
    let xs = spec.axis.points();
    let mut columns = vec!["policy", spec.axis.label()];
    columns.extend(spec.metrics.iter().map(|m| m.1));
    let mut table = Table::new(format!("Figure {n} — {}", spec.title), &columns);
    let bar = crate::common::progress(
        (spec.curves.len() * xs.len()) as u64,
        &format!("figure {n}"),
    );
    let mut panels: Vec<Panel> = spec
        .metrics
        .iter()
        .take(2)
        .map(|&(_, header)| Panel {
            title: header.to_string(),
            x_label: spec.axis.label().to_string(),
            y_label: header.to_string(),
            series: Vec::new(),
        })
        .collect();
    for &(label, io) in &spec.curves {
        let mut points = vec![Vec::new(); panels.len()];
        for &x in &xs {
            let m = point(io, spec.axis, x, spec.deadlines, opts)?;
            bar.inc(1);
            let digits = if spec.axis == Axis::Users { 0 } else { 1 };
            let mut row = vec![Cell::text(label), Cell::num(x, digits)];
            row.extend(
                spec.metrics
                    .iter()
                    .map(|&(metric, _)| estimate(&m, metric, 1.0, 3)),
            );
            table.row(row);
            for (k, &(metric, _)) in spec.metrics.iter().take(2).enumerate() {
                if let Ok(i) = m.interval(metric, 0.95) {
                    points[k].push((x, i.mean, i.half_width.unwrap_or(0.0)));
                }
            }
        }
        for (panel, points) in panels.iter_mut().zip(points) {
            panel.series.push(Series {
                label: label.to_string(),
                source: Source::Simulation,
                points,
            });
        }
    }
    bar.finish_and_clear();
    table.note(format!(
        "{} replications × {} transactions ({} warm-up discarded) per point; ± 95 % CI. Disk: chen-towsley-91; {}.",
        opts.replications,
        opts.transactions,
        opts.warmup,
        if spec.deadlines {
            "deadlines T_min·η, η ~ U[DL_LOW, 3·DL_LOW]"
        } else {
            "no deadlines"
        }
    ));
    Ok(Figure {
        number: n,
        title: format!("Chen & Towsley 1991, Figure {n}: {}", spec.title),
        tables: vec![table],
        panels,
    })
}
