//! Reproductions of the source papers' results: `spindle repro PAPER`.

pub mod chen_towsley91;
pub mod ivy;
pub mod towsley91;
pub mod towsley91_analysis;
pub mod tsai04;
pub mod zhang02;

use std::time::Instant;

use anyhow::Result;

use crate::output::{Format, Table};
use crate::plot::{Panel, PlotArgs, draw_panels, figure_path};

/// How much simulation each point gets.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ReproOptions {
    /// Independent replications per point (95 % intervals across them).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10, value_parser = crate::bounds::replications()))]
    pub replications: u64,
    /// Requests measured per replication.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20_000, value_parser = crate::bounds::requests()))]
    pub requests: u64,
    /// Requests discarded at the start of each replication.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 2_000, value_parser = crate::bounds::warmup()))]
    pub warmup: u64,
    /// Seed of the whole reproduction.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// Threads; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::bounds::default_jobs(), value_parser = crate::bounds::jobs()))]
    pub jobs: usize,
}

impl Default for ReproOptions {
    fn default() -> Self {
        ReproOptions {
            replications: 10,
            requests: 20_000,
            warmup: 2_000,
            seed: 1,
            jobs: crate::bounds::default_jobs(),
        }
    }
}

/// A reproduced figure: its tables and the panels of its plot.
#[derive(Clone, Debug)]
pub struct Figure {
    /// The paper's figure number.
    pub number: u8,
    /// Plot title.
    pub title: String,
    /// The numbers.
    pub tables: Vec<Table>,
    /// The plot.
    pub panels: Vec<Panel>,
}

/// Which paper.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Subcommand))]
pub enum Paper {
    /// Towsley, Chen & Yu 1991: mirrored-disk policies (Figures 1–6).
    Towsley91 {
        /// Figure to reproduce (1–6); all six when omitted.
        #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<u8>::new("the figure", 1, 6)))]
        figure: Option<u8>,
        #[cfg_attr(feature = "cli", command(flatten))]
        plot: PlotArgs,
        /// Whose seek the IBM 3330 disk of Figures 4–6 draws: each disk its
        /// own (per-disk), or one per request, shared by the disks serving
        /// it (per-request: Figure 6's finding holds under it).
        #[cfg_attr(feature = "cli", arg(long, default_value = "per-disk", value_parser = ["per-disk", "per-request"]))]
        seek: String,
        #[cfg_attr(feature = "cli", command(flatten))]
        options: ReproOptions,
    },
    /// Chen & Towsley 1991: a mirrored disk in a real-time transaction system (Figures 2–13).
    #[cfg_attr(feature = "cli", command(name = "chen-towsley91"))]
    ChenTowsley91 {
        /// Figure to reproduce (2–13); all twelve when omitted.
        #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<u8>::new("the figure", 2, 13)))]
        figure: Option<u8>,
        #[cfg_attr(feature = "cli", command(flatten))]
        plot: PlotArgs,
        /// Instead of the figures, the study of how the headline figures
        /// (68 %, 81 %, 17 %) depend on each reading of the text.
        #[cfg_attr(feature = "cli", arg(long, conflicts_with_all = ["figure", "plot"]))]
        sensitivity: bool,
        /// Replications per point of the sensitivity study.
        #[cfg_attr(
            feature = "cli",
            arg(long, default_value_t = 4, requires = "sensitivity", value_parser = crate::bounds::Whole::<u64>::new("replications per point", 2, 1_000))
        )]
        study_replications: u64,
        #[cfg_attr(feature = "cli", command(flatten))]
        options: Box<chen_towsley91::TxnReproOptions>,
    },
    /// Tsai, Chu & Huang 2004: WRR-SCAN against SCAN-EDF (admission
    /// capacity, Figures 5–12).
    Tsai04 {
        /// Figure to reproduce (5–12); all eight when omitted.
        #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<u8>::new("the figure", 5, 12)))]
        figure: Option<u8>,
        #[cfg_attr(feature = "cli", command(flatten))]
        plot: PlotArgs,
        #[cfg_attr(feature = "cli", command(flatten))]
        options: tsai04::Tsai04Options,
    },
    /// Zhang, Yu, Krishnamurthy & Wang 2002: stripe, RAID-10 and EW-Arrays on
    /// 36 disks under an accelerated OLTP workload (Figure 11).
    Zhang02 {
        /// Instead of Figure 11, the paper's four arrays across read and
        /// write skew and read fraction: where the paper's order holds.
        #[cfg_attr(feature = "cli", arg(long))]
        sensitivity: bool,
        #[cfg_attr(feature = "cli", command(flatten))]
        plot: PlotArgs,
        #[cfg_attr(feature = "cli", command(flatten))]
        options: zhang02::Zhang02Options,
    },
    /// Lo 1990 (Ivy): dynamic N-copy replication on a week of HP-UX disk
    /// traffic, copy selection against Linux md's (Tables 5–15, Figures 21–26).
    ///
    /// --plot draws read and write turnaround against copies, one line per
    /// policy (the first routing).
    Ivy {
        #[cfg_attr(feature = "cli", command(flatten))]
        options: ivy::IvyOptions,
    },
}

impl Paper {
    /// The seed of the reproduction.
    pub fn seed(&self) -> u64 {
        match self {
            Paper::Towsley91 { options, .. } => options.seed,
            Paper::ChenTowsley91 { options, .. } => options.seed,
            Paper::Tsai04 { options, .. } => options.seed,
            Paper::Zhang02 { options, .. } => options.seed,
            Paper::Ivy { options } => options.seed,
        }
    }
}

/// `spindle repro ...`.
pub fn run(paper: &Paper, format: Format) -> Result<()> {
    let chosen = |figure: &Option<u8>, all: std::ops::RangeInclusive<u8>| {
        figure.map_or_else(|| all.collect(), |n| vec![n])
    };
    match paper {
        Paper::Towsley91 {
            figure,
            plot,
            seek,
            options,
        } => {
            let numbers = chosen(figure, 1..=6);
            let seek: towsley91::SeekDraw = seek.parse()?;
            run_figures(Instant::now(), Vec::new(), &numbers, plot, format, |n| {
                towsley91::figure(n, options, seek)
            })?;
        }
        Paper::ChenTowsley91 {
            sensitivity: true,
            study_replications,
            options,
            ..
        } => {
            let started = Instant::now();
            let table = chen_towsley91::sensitivity(options, *study_replications)?;
            crate::report::emit_tables(std::slice::from_ref(&table), format)?;
            eprintln!("wall time: {:.1} s", started.elapsed().as_secs_f64());
        }
        Paper::ChenTowsley91 {
            figure,
            plot,
            options,
            ..
        } => {
            let numbers = chosen(figure, 2..=13);
            let wall = run_figures(Instant::now(), Vec::new(), &numbers, plot, format, |n| {
                chen_towsley91::figure(n, options)
            })?;
            let simulated = numbers
                .iter()
                .map(|&n| chen_towsley91::transactions(n, options))
                .sum::<Result<u64>>()?;
            eprintln!(
                "simulated {simulated} transactions: {:.0} per second of wall time",
                simulated as f64 / wall
            );
        }
        Paper::Tsai04 {
            figure,
            plot,
            options,
        } => {
            // One sweep feeds every figure asked for.
            let started = Instant::now();
            let sweep = tsai04::sweep(options)?;
            let summary = tsai04::summary(options, &sweep)?;
            let numbers = chosen(figure, 5..=12);
            run_figures(started, vec![summary], &numbers, plot, format, |n| {
                tsai04::figure(n, &sweep)
            })?;
        }
        Paper::Zhang02 {
            sensitivity: true,
            options,
            ..
        } => {
            let started = Instant::now();
            let table = zhang02::sensitivity(options)?;
            crate::report::emit_tables(std::slice::from_ref(&table), format)?;
            eprintln!("wall time: {:.1} s", started.elapsed().as_secs_f64());
        }
        Paper::Zhang02 { plot, options, .. } => {
            run_figures(Instant::now(), Vec::new(), &[11], plot, format, |_| {
                zhang02::figure(options)
            })?;
        }
        Paper::Ivy { options } => ivy::run(options, format)?,
    }
    Ok(())
}

/// Computes and draws the figures `numbers`, one after another, and prints
/// `tables` followed by theirs; returns the wall time since `started`, in
/// seconds.
fn run_figures(
    started: Instant,
    mut tables: Vec<Table>,
    numbers: &[u8],
    plot: &PlotArgs,
    format: Format,
    figure: impl Fn(u8) -> Result<Figure>,
) -> Result<f64> {
    for &n in numbers {
        let f = figure(n)?;
        let path = plot
            .plot
            .as_deref()
            .map(|base| figure_path(base, n, numbers.len()));
        crate::report::picture(path.as_deref(), &f.title, || {
            Ok(draw_panels(&f.title, &f.panels, plot.scales()).svg)
        })?;
        tables.extend(f.tables);
    }
    crate::report::emit_tables(&tables, format)?;
    let wall = started.elapsed().as_secs_f64();
    eprintln!("wall time: {wall:.1} s");
    Ok(wall)
}
