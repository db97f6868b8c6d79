//! `spindle array`: one disk-array configuration (stripe, RAID-10, SR-Array
//! or EW-Array on D disks) under the OLTP workload or a replayed trace, at
//! given speed-ups or searched for its maximum sustainable speed-up.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use disk_emu::disk::DiskModel;
use experiments::oltp::BASE_RATE_PER_DISK;
use experiments::sustainable::{self, Criterion, CurvePoint, SearchOptions};
use experiments::{ArrayError, ArrayExperiment, ArrayWorkload, LayoutError, Organisation, SECTORS};

use crate::common::resolve_disk;
use crate::output::{Cell, Format, Table};

/// Options of `spindle array`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ArrayArgs {
    /// Organisation: stripe, raid10, sr:DSxDR (e.g. sr:6x6) or ew:DMxDSxDD (e.g. ew:2x9x2, ew:1x22x1.6).
    #[cfg_attr(feature = "cli", arg(long))]
    pub layout: Organisation,
    /// Disks of the array.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 36, value_parser = crate::bounds::Whole::<u32>::new("disks of the array", 1, 64)))]
    pub disks: u32,
    /// Disk model: a preset, a spec file or disksim:FILE.
    #[cfg_attr(feature = "cli", arg(long, default_value = "cheetah9lp-sync"))]
    pub disk: String,
    /// Speed-ups to run (repeat); with --search, the stride of the search.
    #[cfg_attr(feature = "cli", arg(long = "speedup", default_values_t = [1.0], value_parser = crate::bounds::array_speedup()))]
    pub speedups: Vec<f64>,
    /// Search the maximum sustainable speed-up instead.
    #[cfg_attr(feature = "cli", arg(long))]
    pub search: bool,
    /// Replay this trace (DiskSim ASCII, MSR, SPC) instead of the OLTP workload.
    #[cfg_attr(feature = "cli", arg(long))]
    pub trace: Option<PathBuf>,
    /// The trace's format (default: detected): disksim-ascii, msr, spc.
    #[cfg_attr(feature = "cli", arg(long, requires = "trace"))]
    pub trace_format: Option<disk_emu::trace::TraceFormat>,
    /// Requests per second at speed-up 1 (default: the reproduction's rate per disk).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Real::new("the rate", 1e-3, 1e7)))]
    pub rate: Option<f64>,
    /// The OLTP workload's shape.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub workload: crate::oltp_args::OltpArgs,
    /// Database size in 4 KB blocks (default: one disk's capacity).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<u64>::new("database blocks", 1, 1 << 40)))]
    pub database: Option<u64>,
    /// Delayed-write buffer, blocks.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = experiments::DELAYED_WRITE_BUFFER, value_parser = crate::bounds::Whole::<usize>::new("the delayed-write buffer", 1, 1_000_000)))]
    pub buffer: usize,
    /// Requests measured per run.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 40_000, value_parser = crate::bounds::array_requests()))]
    pub requests: u64,
    /// Requests discarded at the start of each run.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10_000, value_parser = crate::bounds::array_warmup()))]
    pub warmup: u64,
    /// Replications per speed-up (one prints its figures without an
    /// interval).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::runs_of_a_point()))]
    pub replications: u64,
    /// Seed.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// Threads; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::bounds::default_jobs(), value_parser = crate::bounds::jobs()))]
    pub jobs: usize,
}

/// The experiment `args` describe.
///
/// # Errors
/// An unusable disk.
pub fn experiment(args: &ArrayArgs) -> Result<ArrayExperiment> {
    let disk = resolve_disk(&args.disk)?;
    let model = DiskModel::from_spec(&disk)?;
    let database = args
        .database
        .unwrap_or(model.capacity_blocks() / u64::from(SECTORS));
    let workload = match &args.trace {
        Some(path) => ArrayWorkload::Trace {
            path: path.clone(),
            format: args.trace_format,
            database_blocks: database,
        },
        None => ArrayWorkload::Oltp(
            args.workload.workload(
                args.rate
                    .unwrap_or(BASE_RATE_PER_DISK * f64::from(args.disks)),
                database,
            ),
        ),
    };
    Ok(ArrayExperiment {
        disk,
        disks: args.disks,
        organisation: args.layout,
        workload,
        buffer: args.buffer,
        warmup: args.warmup,
        requests: args.requests,
        seed: args.seed,
    })
}

/// The rows of a curve: one per speed-up run.
pub fn curve_table(title: String, label: &str, curve: &[CurvePoint]) -> Table {
    let mut t = Table::new(
        title,
        &[
            "array",
            "speed-up",
            "sustained",
            "mean response ms",
            "read ms",
            "write ms",
            "in array 1st half",
            "in array 2nd half",
            "drift %",
            "utilisation",
            "propagated",
            "forced",
            "buffer peak",
            "lowest degree",
        ],
    );
    for p in curve {
        let first = p.reports.first();
        let mean = |f: fn(&experiments::ArrayReport) -> f64| {
            if p.reports.is_empty() {
                f64::NAN
            } else {
                p.reports.iter().map(f).sum::<f64>() / p.reports.len() as f64
            }
        };
        t.row(vec![
            Cell::text(label),
            Cell::num(p.speedup, 2),
            Cell::Flag(p.sustained),
            match &p.response_ms {
                Some(i) => match i.half_width {
                    Some(half_width) => Cell::estimate(i.mean, half_width, 2),
                    None => Cell::num(i.mean, 2),
                },
                None => Cell::Absent("overflow"),
            },
            Cell::num(mean(|r| r.read_response_ms), 2),
            Cell::num(mean(|r| r.write_response_ms), 2),
            first.map_or(Cell::Missing, |r| Cell::num(r.in_array[0], 1)),
            first.map_or(Cell::Missing, |r| Cell::num(r.in_array[1], 1)),
            Cell::num(100.0 * mean(|r| r.drift), 2),
            Cell::num(mean(|r| r.utilisation), 3),
            Cell::num(mean(|r| r.propagated as f64), 0),
            Cell::num(mean(|r| r.forced as f64), 0),
            Cell::num(mean(|r| r.buffer_peak as f64), 0),
            Cell::num(mean(|r| f64::from(r.lowest_degree)), 0),
        ]);
    }
    t
}

/// The speed-ups a search tells apart.
const SEARCH_RESOLUTION: f64 = 0.25;

/// No speed-up above this is searched.
const SEARCH_MAX: f64 = 64.0;

/// `spindle array ...`.
pub fn run(args: &ArrayArgs, format: Format) -> Result<()> {
    let step = args.speedups.first().copied().unwrap_or(1.0);
    if args.search && step < SEARCH_RESOLUTION {
        bail!(
            "--speedup {step}: with --search it is the search's stride, at least {SEARCH_RESOLUTION} (the search's resolution; it then runs at most {} speed-ups upward)",
            (SEARCH_MAX / SEARCH_RESOLUTION) as u32
        );
    }
    let experiment = experiment(args)?;
    let layout = experiment.layout().map_err(|e| match e {
        ArrayError::Layout(
            e @ (LayoutError::DatabaseTooLarge { .. } | LayoutError::EmptyDatabase),
        ) => anyhow!("--database: {e}"),
        ArrayError::Layout(e) => {
            anyhow!("--layout {} on --disks {}: {e}", args.layout, args.disks)
        }
        e => e.into(),
    })?;
    let options = SearchOptions {
        criterion: Criterion::default(),
        step,
        resolution: SEARCH_RESOLUTION,
        max: SEARCH_MAX,
        replications: args.replications,
        jobs: args.jobs,
    };
    let label = layout.organisation.to_string();
    let started = std::time::Instant::now();
    let (title, curve, max) = if args.search {
        let s = sustainable::search(&experiment, &options)?;
        (
            format!(
                "{label} on {} disks: maximum sustainable speed-up {:.2}x",
                args.disks, s.max_sustainable
            ),
            s.curve,
            Some(s.max_sustainable),
        )
    } else {
        let curve = args
            .speedups
            .iter()
            .map(|&s| sustainable::point(&experiment, s, &options))
            .collect::<Result<Vec<_>, _>>()?;
        (format!("{label} on {} disks", args.disks), curve, None)
    };
    let mut t = curve_table(title, &label, &curve);
    t.note(format!(
        "{} groups of {} disk(s), region {} blocks of 4 KB per disk ({:.1} % of it), effective dilution {:.2}; {}.",
        layout.groups,
        layout.mirrors,
        layout.region,
        100.0 * layout.region as f64 * f64::from(SECTORS)
            / DiskModel::from_spec(&experiment.disk)?.capacity_blocks() as f64,
        layout.dilution(),
        if layout.eager {
            "writes placed eagerly by SATF-EW".to_string()
        } else if layout.rotational > 1 {
            format!(
                "{} copies of each block on its track, served at the nearest under SATF",
                layout.rotational
            )
        } else {
            "updates in place under SATF".to_string()
        }
    ));
    if let Some(max) = max {
        t.note(format!("Maximum sustainable speed-up: {max:.2}x."));
    }
    let rates: Vec<f64> = curve
        .iter()
        .flat_map(|p| p.reports.iter().map(|r| r.requests_per_wall_s))
        .collect();
    eprintln!(
        "emulator speed: {:.0} user requests/s of wall time (event loop, mean of {} runs)",
        rates.iter().sum::<f64>() / rates.len().max(1) as f64,
        rates.len()
    );
    crate::report::emit_table(&t, format)?;
    eprintln!("wall time: {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
