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
use disk_emu::disk::{RotationSpec, SeekSpec, TransferSpec};
use experiments::MetricTable;
use sched_core::AnySpec;
use txn_sim::{
    BufferRule, Deadlines, DlLowRule, LockWake, LossRule, PageLayout, RestartDeadline, SsedoWindow,
    TxnParams, metric_table, run_replications,
};

use super::Figure;
use crate::common::estimate;
use crate::output::{Cell, Table};
use crate::plot::{Panel, Series, Source};

/// The readings of the paper's text where it is open (defaults: this
/// project's best reading, documented in `txn_sim::params`), and the
/// paper's own values that a reader may doubt (T_D, think time, database
/// size, the disk's seek, latency and transfer, SSEDO's m and β).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ReadingArgs {
    /// DL_LOW = max(1, k·N_u) (the footnote) or min(1, k·N_u) (as printed).
    #[cfg_attr(feature = "cli", arg(long, default_value = "max", value_parser = ["max", "min"]))]
    pub dl_low_rule: String,
    /// A transaction restarted after a deadlock keeps its deadline or gets a new one.
    #[cfg_attr(feature = "cli", arg(long, default_value = "keep", value_parser = ["keep", "renew"]))]
    pub restart_deadline: String,
    /// What the loss ratio counts: lost before the write phase and missed
    /// during it (`lost-or-missed`), or only the lost (`lost`).
    #[cfg_attr(feature = "cli", arg(long, default_value = "lost-or-missed", value_parser = ["lost-or-missed", "lost"]))]
    pub loss: String,
    /// A page already in the private buffer is not read again (`cached`) or is (`reread`).
    #[cfg_attr(feature = "cli", arg(long, default_value = "cached", value_parser = ["cached", "reread"]))]
    pub buffer: String,
    /// Page p at block p (`packed`) or spread evenly over the disk (`spread`).
    #[cfg_attr(feature = "cli", arg(long, default_value = "packed", value_parser = ["packed", "spread"]))]
    pub layout: String,
    /// Lock waiters woken earliest deadline first (`deadline`) or in arrival order (`arrival`).
    #[cfg_attr(feature = "cli", arg(long, default_value = "deadline", value_parser = ["deadline", "arrival"]))]
    pub lock_wake: String,
    /// T_D in T_min = (T_C + T_D)·N_s, ms.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 25.0, value_parser = crate::bounds::millis("T_D", 0.0, 1e6)))]
    pub disk_ms: f64,
    /// Mean think time, ms.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1000.0, value_parser = crate::bounds::millis("the think time", 0.0, 1e6)))]
    pub think_ms: f64,
    /// Database pages.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 6000, value_parser = crate::bounds::Whole::<u64>::new("database pages", 1, 100_000_000)))]
    pub pages: u64,
    /// Seek a in a + b·√i ms (the `chen-towsley-91` disk: 8).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::millis("the seek's a", 0.0, 1e4)))]
    pub seek_a_ms: Option<f64>,
    /// Seek b in a + b·√i ms (the `chen-towsley-91` disk: 0.5).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::millis("the seek's b", 0.0, 1e4)))]
    pub seek_b_ms: Option<f64>,
    /// Latency uniform on [0, this] ms (the `chen-towsley-91` disk: 16.7).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::millis("the latency", 0.0, 1e4)))]
    pub latency_max_ms: Option<f64>,
    /// Transfer time per page, ms (the `chen-towsley-91` disk: 0.8).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::millis("the transfer time", 0.0, 1e4)))]
    pub transfer_ms: Option<f64>,
    /// SSEDO's window m in every SSEDO queue (the specs' own, 3, by default).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<usize>::new("SSEDO's window", 1, 1_000)))]
    pub ssedo_m: Option<usize>,
    /// SSEDO's β in every SSEDO queue (the specs' own, 2, by default).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Real::new("SSEDO's β", 0.0, 1e6)))]
    pub ssedo_beta: Option<f64>,
}

impl Default for ReadingArgs {
    fn default() -> Self {
        ReadingArgs {
            dl_low_rule: "max".into(),
            restart_deadline: "keep".into(),
            loss: "lost-or-missed".into(),
            buffer: "cached".into(),
            layout: "packed".into(),
            lock_wake: "deadline".into(),
            disk_ms: 25.0,
            think_ms: 1000.0,
            pages: 6000,
            seek_a_ms: None,
            seek_b_ms: None,
            latency_max_ms: None,
            transfer_ms: None,
            ssedo_m: None,
            ssedo_beta: None,
        }
    }
}

impl ReadingArgs {
    /// Sets these readings in `p` (its disk and I/O spec already chosen).
    ///
    /// # Errors
    /// An unknown reading, or a disk option its disk model does not have
    /// (naming the option).
    pub fn apply(&self, p: &mut TxnParams) -> Result<()> {
        let unknown =
            |flag: &str, value: &str| anyhow::anyhow!("--{flag}: unknown reading `{value}`");
        let r = &mut p.readings;
        r.dl_low = match self.dl_low_rule.as_str() {
            "max" => DlLowRule::AtLeastOne,
            "min" => DlLowRule::AtMostOne,
            v => return Err(unknown("dl-low-rule", v)),
        };
        r.restart = match self.restart_deadline.as_str() {
            "keep" => RestartDeadline::Keep,
            "renew" => RestartDeadline::Renew,
            v => return Err(unknown("restart-deadline", v)),
        };
        r.loss = match self.loss.as_str() {
            "lost-or-missed" => LossRule::LostOrMissed,
            "lost" => LossRule::LostOnly,
            v => return Err(unknown("loss", v)),
        };
        r.buffer = match self.buffer.as_str() {
            "cached" => BufferRule::Cached,
            "reread" => BufferRule::Reread,
            v => return Err(unknown("buffer", v)),
        };
        r.layout = match self.layout.as_str() {
            "packed" => PageLayout::Packed,
            "spread" => PageLayout::Spread,
            v => return Err(unknown("layout", v)),
        };
        r.lock_wake = match self.lock_wake.as_str() {
            "deadline" => LockWake::EarliestDeadline,
            "arrival" => LockWake::ArrivalOrder,
            v => return Err(unknown("lock-wake", v)),
        };
        r.ssedo = match (self.ssedo_m, self.ssedo_beta) {
            (None, None) => None,
            (m, beta) => Some(SsedoWindow {
                m: m.unwrap_or(3),
                beta: beta.unwrap_or(2.0),
            }),
        };
        p.disk_ms = self.disk_ms;
        p.think_ms = self.think_ms;
        p.pages = self.pages;
        let disk = &mut p.disk;
        if self.seek_a_ms.is_some() || self.seek_b_ms.is_some() {
            let SeekSpec::SqrtLinear { a_ms, b_ms, .. } = &mut disk.seek else {
                anyhow::bail!(
                    "--seek-a-ms/--seek-b-ms: disk `{}` has no a + b·√i seek curve",
                    disk.name
                );
            };
            *a_ms = self.seek_a_ms.unwrap_or(*a_ms);
            *b_ms = self.seek_b_ms.unwrap_or(*b_ms);
        }
        if let Some(max) = self.latency_max_ms {
            let RotationSpec::Random { max_ms } = &mut disk.rotation else {
                anyhow::bail!(
                    "--latency-max-ms: disk `{}` does not draw its latency at random",
                    disk.name
                );
            };
            *max_ms = Some(max);
        }
        if let Some(ms) = self.transfer_ms {
            let TransferSpec::Constant { ms: t } = &mut disk.transfer else {
                anyhow::bail!(
                    "--transfer-ms: disk `{}` has no constant transfer time",
                    disk.name
                );
            };
            *t = ms;
        }
        Ok(())
    }
}

impl ReadingArgs {
    /// The settings that differ from the defaults, as `--flag value` pairs
    /// ("defaults" when none does).
    pub fn label(&self) -> String {
        let d = ReadingArgs::default();
        let mut parts = Vec::new();
        let mut text = |flag: &str, value: &str, default: &str| {
            if value != default {
                parts.push(format!("--{flag} {value}"));
            }
        };
        text("dl-low-rule", &self.dl_low_rule, &d.dl_low_rule);
        text(
            "restart-deadline",
            &self.restart_deadline,
            &d.restart_deadline,
        );
        text("loss", &self.loss, &d.loss);
        text("buffer", &self.buffer, &d.buffer);
        text("layout", &self.layout, &d.layout);
        text("lock-wake", &self.lock_wake, &d.lock_wake);
        let mut number = |flag: &str, value: Option<f64>, default: Option<f64>| {
            if value != default
                && let Some(v) = value
            {
                parts.push(format!("--{flag} {v}"));
            }
        };
        number("disk-ms", Some(self.disk_ms), Some(d.disk_ms));
        number("think-ms", Some(self.think_ms), Some(d.think_ms));
        number("pages", Some(self.pages as f64), Some(d.pages as f64));
        number("seek-a-ms", self.seek_a_ms, None);
        number("seek-b-ms", self.seek_b_ms, None);
        number("latency-max-ms", self.latency_max_ms, None);
        number("transfer-ms", self.transfer_ms, None);
        number("ssedo-m", self.ssedo_m.map(|m| m as f64), None);
        number("ssedo-beta", self.ssedo_beta, None);
        if parts.is_empty() {
            "defaults".into()
        } else {
            parts.join(" ")
        }
    }
}

/// How much simulation each point gets (defaults: the paper's method), and
/// the readings of the text it is run under.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TxnReproOptions {
    /// Independent replications per point (95 % intervals across them).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20, value_parser = crate::bounds::replications()))]
    pub replications: u64,
    /// Transactions finished per replication, warm-up included.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1050, value_parser = crate::bounds::transactions()))]
    pub transactions: u64,
    /// Transactions discarded at the start of each replication.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 50, value_parser = crate::bounds::warmup()))]
    pub warmup: u64,
    /// Seed of the whole reproduction.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// Threads; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::bounds::default_jobs(), value_parser = crate::bounds::jobs()))]
    pub jobs: usize,
    /// The readings of the text.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub readings: ReadingArgs,
}

impl Default for TxnReproOptions {
    fn default() -> Self {
        TxnReproOptions {
            replications: 20,
            transactions: 1050,
            warmup: 50,
            seed: 1,
            jobs: crate::bounds::default_jobs(),
            readings: ReadingArgs::default(),
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

    /// The axis's label in a figure.
    fn description(self) -> &'static str {
        match self {
            Axis::Users => "users N_u",
            Axis::DeadlineLow => {
                "deadline factor DL_LOW (deadline T_min·η, η ~ U[DL_LOW, 3·DL_LOW])"
            }
            Axis::ReadProbability => "read probability p_r",
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
                ("queue_aux", "lagging disk's aux queue"),
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
            &[LOSS, ("queue_aux", "lagging disk's aux queue")],
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
    opts.readings.apply(&mut p)?;
    p.validate()?;
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

/// The y axis label of a plotted metric (its column header, spelt out,
/// with its unit).
fn axis_label<'a>(metric: &str, header: &'a str) -> &'a str {
    match metric {
        "loss_ratio" => "loss ratio (transactions lost / finished)",
        "response_ms" if header == RESPONSE.1 => "mean response of committed transactions (ms)",
        "response_ms" => "mean transaction response time (ms)",
        "service_ms" => "mean disk service time (ms)",
        "queue" => "mean requests waiting, all queues",
        "queue_disk" => "mean requests in a disk's queue",
        "queue_aux" => "mean requests in the lagging disk's aux queue",
        "committed_size" => "mean steps of a committed transaction",
        "deadlocks" => "deadlocks per transaction",
        _ => header,
    }
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
        .map(|&(metric, header)| {
            Panel::new("", spec.axis.description(), axis_label(metric, header))
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
                curve: label.to_string(),
                source: Source::Simulation,
                points,
            });
        }
    }
    bar.finish_and_clear();
    table.note(format!(
        "{} replications × {} transactions ({} warm-up discarded) per point; ± 95 % CI. Disk: chen-towsley-91; {}; readings: {}.",
        opts.replications,
        opts.transactions,
        opts.warmup,
        if spec.deadlines {
            "deadlines T_min·η, η ~ U[DL_LOW, 3·DL_LOW]"
        } else {
            "no deadlines"
        },
        opts.readings.label()
    ));
    Ok(Figure {
        number: n,
        title: format!("Chen & Towsley 1991, Figure {n}: {}", spec.title),
        tables: vec![table],
        panels,
    })
}

/// The paper's headline figures (abstract and §4.2.1), in percent: the
/// mirrored RT policies' largest reduction of the loss ratio against one
/// disk under SSEDO (68) and under FCFS (81), and the real-time DMQ
/// disciplines' largest reduction against the non-real-time ones (17).
pub const PAPER_HEADLINES: [f64; 3] = [68.0, 81.0, 17.0];

/// The subsystems the headlines compare, as curve specs: the single disks,
/// the mirrored RT policies, and the DMQ disciplines of Figure 3.
const STUDY_CURVES: [&str; 7] = [
    "ssedo",
    "fcfs",
    "rt-dmq",
    "rt-cmq",
    "fd-dmq",
    "dmq",
    "dmq:queue=fcfs",
];

/// What one reading gives: each headline's largest reduction over the
/// users sweep with the number of users where it is reached, and levels
/// the paper's other figures describe.
#[derive(Clone, Debug, PartialEq)]
pub struct Headlines {
    /// RT-DMQ against one disk under SSEDO: (reduction %, users).
    pub vs_ssedo: (f64, u32),
    /// RT-DMQ against one disk under FCFS.
    pub vs_fcfs: (f64, u32),
    /// The better RT discipline on DMQ (SSEDO, FD-SCAN) against DMQ(SSTF).
    pub rt_vs_non_rt: (f64, u32),
    /// Loss ratios at 20 users: SSEDO, FCFS, RT-DMQ.
    pub loss_at_20: [f64; 3],
    /// SSEDO's mean queue at 8 users (the paper: it exceeds the window, 3).
    pub ssedo_queue_at_8: f64,
}

impl Headlines {
    /// The three headline reductions.
    pub fn reductions(&self) -> [f64; 3] {
        [self.vs_ssedo.0, self.vs_fcfs.0, self.rt_vs_non_rt.0]
    }

    /// Distance from the paper's three figures: the sum of the absolute
    /// differences, in percentage points.
    pub fn distance(&self) -> f64 {
        self.reductions()
            .iter()
            .zip(PAPER_HEADLINES)
            .map(|(ours, paper)| (ours - paper).abs())
            .sum()
    }
}

/// The headlines under `opts` (its readings and replications): the users
/// sweep of the seven subsystems they compare.
///
/// # Errors
/// Invalid readings or a failed run.
pub fn headlines(opts: &TxnReproOptions) -> Result<Headlines> {
    let users = Axis::Users.points();
    let mut loss = vec![vec![0.0; users.len()]; STUDY_CURVES.len()];
    let mut ssedo_queue_at_8 = f64::NAN;
    for (c, io) in STUDY_CURVES.iter().enumerate() {
        for (i, &x) in users.iter().enumerate() {
            let m = point(io, Axis::Users, x, true, opts)?;
            loss[c][i] = m.interval("loss_ratio", 0.95)?.mean;
            if c == 0 && x == 8.0 {
                ssedo_queue_at_8 = m.interval("queue", 0.95)?.mean;
            }
        }
    }
    let largest = |reduction: &dyn Fn(usize) -> f64| {
        (0..users.len())
            .map(|i| (reduction(i), users[i] as u32))
            .fold((f64::NEG_INFINITY, 0), |a, b| if b.0 > a.0 { b } else { a })
    };
    let cut = |ours: f64, theirs: f64| {
        if theirs > 0.0 {
            100.0 * (1.0 - ours / theirs)
        } else {
            0.0
        }
    };
    let [ssedo, fcfs, rt_dmq, _rt_cmq, fd_dmq, dmq_sstf, _dmq_fcfs] = [0, 1, 2, 3, 4, 5, 6];
    let last = users.len() - 1;
    Ok(Headlines {
        vs_ssedo: largest(&|i| cut(loss[rt_dmq][i], loss[ssedo][i])),
        vs_fcfs: largest(&|i| cut(loss[rt_dmq][i], loss[fcfs][i])),
        rt_vs_non_rt: largest(&|i| cut(loss[rt_dmq][i].min(loss[fd_dmq][i]), loss[dmq_sstf][i])),
        loss_at_20: [loss[ssedo][last], loss[fcfs][last], loss[rt_dmq][last]],
        ssedo_queue_at_8,
    })
}

/// The readings the study varies, one at a time from the defaults, then
/// the combinations that come closest (chosen from the one-at-a-time rows).
pub fn study_readings() -> Vec<ReadingArgs> {
    let d = ReadingArgs::default;
    let text = |f: fn(&mut ReadingArgs)| {
        let mut r = d();
        f(&mut r);
        r
    };
    vec![
        d(),
        text(|r| r.dl_low_rule = "min".into()),
        text(|r| r.restart_deadline = "renew".into()),
        text(|r| r.loss = "lost".into()),
        text(|r| r.buffer = "reread".into()),
        text(|r| r.lock_wake = "arrival".into()),
        text(|r| r.disk_ms = 15.0),
        text(|r| r.disk_ms = 35.0),
        text(|r| {
            r.pages = 3000;
            r.layout = "spread".into();
        }),
        text(|r| {
            r.pages = 1000;
            r.layout = "spread".into();
        }),
        text(|r| r.think_ms = 500.0),
        text(|r| r.think_ms = 2000.0),
        text(|r| r.seek_a_ms = Some(4.0)),
        text(|r| r.seek_b_ms = Some(1.0)),
        text(|r| r.seek_b_ms = Some(0.25)),
        text(|r| r.latency_max_ms = Some(8.35)),
        text(|r| r.latency_max_ms = Some(33.4)),
        text(|r| r.ssedo_m = Some(2)),
        text(|r| r.ssedo_m = Some(5)),
        text(|r| r.ssedo_beta = Some(1.5)),
        text(|r| r.ssedo_beta = Some(4.0)),
        // Combinations: the one-at-a-time rows show that only what makes
        // the deadlines tighter against the disk (a smaller T_D, a slower
        // disk with T_D left at 25 ms, shorter think times) brings the
        // reductions down towards the paper's; these pair such readings,
        // and give a slower disk the T_D its own mean service implies.
        text(|r| r.disk_ms = 20.0),
        text(|r| {
            r.disk_ms = 15.0;
            r.loss = "lost".into();
        }),
        text(|r| {
            r.disk_ms = 20.0;
            r.think_ms = 500.0;
        }),
        text(|r| {
            r.seek_b_ms = Some(1.0);
            r.disk_ms = 33.0;
        }),
        text(|r| {
            r.latency_max_ms = Some(33.4);
            r.disk_ms = 33.0;
        }),
        text(|r| {
            r.dl_low_rule = "min".into();
            r.think_ms = 2000.0;
        }),
    ]
}

/// `spindle repro chen-towsley91 --sensitivity`: the headlines under every
/// reading of [`study_readings`], `replications` replications a point, and
/// the reading closest to each headline.
///
/// # Errors
/// A failed run.
pub fn sensitivity(opts: &TxnReproOptions, replications: u64) -> Result<Table> {
    let readings = study_readings();
    let bar = crate::common::progress(readings.len() as u64, "sensitivity");
    let mut rows = Vec::new();
    for r in &readings {
        let o = TxnReproOptions {
            replications,
            readings: r.clone(),
            ..opts.clone()
        };
        rows.push((r.label(), headlines(&o)?));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mut t = Table::new(
        "Chen & Towsley 1991: sensitivity of the headlines to the readings of the text",
        &[
            "reading",
            "mirror vs SSEDO % (68)",
            "vs SSEDO at users",
            "mirror vs FCFS % (81)",
            "vs FCFS at users",
            "RT vs non-RT % (17)",
            "vs non-RT at users",
            "distance pp",
            "loss at 20 SSEDO",
            "loss at 20 FCFS",
            "loss at 20 RT-DMQ",
            "SSEDO queue at 8 (> 3)",
        ],
    );
    let at = |(pct, users): (f64, u32)| [Cell::num(pct, 0), Cell::Int(u64::from(users))];
    for (label, h) in &rows {
        let mut row = vec![Cell::text(label.as_str())];
        row.extend(at(h.vs_ssedo));
        row.extend(at(h.vs_fcfs));
        row.extend(at(h.rt_vs_non_rt));
        row.push(Cell::num(h.distance(), 0));
        row.extend(h.loss_at_20.map(|loss| Cell::num(loss, 3)));
        row.push(Cell::num(h.ssedo_queue_at_8, 1));
        t.row(row);
    }
    let closest = |k: usize| {
        rows.iter()
            .min_by(|a, b| {
                let d = |h: &Headlines| (h.reductions()[k] - PAPER_HEADLINES[k]).abs();
                d(&a.1).total_cmp(&d(&b.1))
            })
            .map(|(label, h)| format!("{} ({:.0} %)", label, h.reductions()[k]))
            .unwrap_or_default()
    };
    let overall = rows
        .iter()
        .min_by(|a, b| a.1.distance().total_cmp(&b.1.distance()))
        .map(|(label, h)| format!("{label} ({:.0} pp)", h.distance()))
        .unwrap_or_default();
    t.note(format!(
        "{replications} replications × {} transactions per point, users 4..20; a reduction is the largest over the users sweep of 1 − mirrored/single (RT-DMQ against SSEDO or FCFS on one disk) or 1 − best RT/DMQ(SSTF) (RT-DMQ over SSEDO or FD-SCAN), with the users where it is reached; distance = sum of |ours − paper| in percentage points.",
        opts.transactions
    ));
    t.note(format!(
        "closest to 68 %: {}; to 81 %: {}; to 17 %: {}; to all three: {overall}.",
        closest(0),
        closest(1),
        closest(2)
    ));
    Ok(t)
}
