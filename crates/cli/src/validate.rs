//! `spindle validate`: a drive model against a DiskSim validation trace.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use disk_emu::disk::validation::{Figures, ValidationRun, class_name, validate};
use experiments::seeds::{Purpose, Unit};
use sched_core::Kind;

use crate::common::resolve_disk;
use crate::output::{Cell, Format, Table};
use crate::plot::{Panel, PlotArgs, Scales, Series, Source, draw_panels};

/// Options of `spindle validate`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ValidateArgs {
    /// The drive: a DiskSim `.parv`/`.diskspecs`/`.model` file (or, with
    /// `--disk`, any disk the other commands take).
    #[cfg_attr(
        feature = "cli",
        arg(long, required_unless_present = "disk", conflicts_with = "disk")
    )]
    pub parv: Option<PathBuf>,
    /// The drive as a preset name, spec file or `disksim:FILE`.
    #[cfg_attr(feature = "cli", arg(long))]
    pub disk: Option<String>,
    /// The validation trace (`R Miss 564347 2 14095.370 13876.270` lines).
    #[cfg_attr(feature = "cli", arg(long))]
    pub trace: PathBuf,
    /// `--plot FILE` draws the measured and simulated access-time
    /// distributions (CDFs); `--log-y` makes the fraction axis logarithmic,
    /// to see their lower tails.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub plot: PlotArgs,
    /// The access-time axis logarithmic (--log-x=false: linear, the
    /// default).
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "BOOL",
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "true"
        )
    )]
    pub log_x: Option<bool>,
    /// Write every request (trace line, kind, class, blocks, measured and
    /// simulated ms, the model's seek, rotation, transfer and overhead ms,
    /// and the cylinders the arm travelled) to this CSV file.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::output_file))]
    pub samples: Option<PathBuf>,
    /// Seed for random service components (if the model has any).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
}

/// `spindle validate`.
pub fn run(args: &ValidateArgs, format: Format) -> Result<()> {
    let spec = match (&args.parv, &args.disk) {
        (Some(path), _) => disk_emu::disk::from_disksim(path)
            .with_context(|| format!("loading DiskSim model {}", path.display()))?,
        (None, Some(name)) => resolve_disk(name)?,
        (None, None) => unreachable!("clap requires --parv or --disk"),
    };
    let started = Instant::now();
    let rng = Unit::new(args.seed, 0, 0).stream(Purpose::Service { disk: 0 });
    let run = validate(&spec, &args.trace, rng)?;
    let elapsed = started.elapsed().as_secs_f64();
    let overall = run.overall();
    // A demerit over no requests is not a number; say so rather than print NaN.
    anyhow::ensure!(
        overall.requests > 0,
        "--trace {}: no requests to validate against (an empty trace, or none the model can serve)",
        args.trace.display()
    );
    let mut t = Table::new(
        format!(
            "{} against {}: {} requests replayed closed-loop",
            run.disk, run.trace, overall.requests
        ),
        &[
            "class",
            "requests",
            "measured ms",
            "simulated ms",
            "difference ms",
            "demerit ms",
            "demerit %",
        ],
    );
    let row = |name: &str, f: &Figures| {
        vec![
            Cell::text(name),
            Cell::Int(f.requests as u64),
            Cell::num(f.measured_mean_ms, 3),
            Cell::num(f.simulated_mean_ms, 3),
            Cell::num(f.simulated_mean_ms - f.measured_mean_ms, 3),
            Cell::num(f.demerit_ms, 3),
            Cell::num(100.0 * f.demerit_ms / f.measured_mean_ms, 1),
        ]
    };
    t.row(row("all", &overall));
    for (class, f) in run.by_class() {
        t.row(row(&class, &f));
    }
    t.note(
        "Demerit: RMS difference of the measured and simulated access-time distributions at 10,000 quantiles (DiskSim's figure). Classes are the trace's buffer column.",
    );
    // The wall time goes to standard error: the table, and a page holding
    // it, stay the same bytes from run to run (`spindle bench emu` is where
    // speed is measured).
    eprintln!(
        "note: simulated in {elapsed:.3} s ({:.2} M requests/s)",
        overall.requests as f64 / elapsed.max(1e-9) / 1e6
    );
    if let Some(path) = &args.samples {
        write_samples(path, &run).with_context(|| format!("writing {}", path.display()))?;
        crate::output::announce_written(path);
    }
    if args.plot.plot.is_some() || crate::report::collecting() {
        let (title, panels) = figure(&run);
        let scales = Scales {
            log_x: args.log_x,
            ..args.plot.scales()
        };
        crate::report::picture(args.plot.plot.as_deref(), &title, || {
            Ok(draw_panels(&title, &panels, scales).svg)
        })?;
    }
    crate::report::emit_table(&t, format)?;
    Ok(())
}

/// A drive's name for people: a DiskSim model's block name without its
/// `_validate`/`_model` suffix, underscores as spaces ("HP_C2247A_validate"
/// is the "HP C2247A").
pub fn drive_name(name: &str) -> String {
    let mut name = name;
    for suffix in ["_validate", "_model"] {
        while let Some(stem) = name
            .len()
            .checked_sub(suffix.len())
            .filter(|&i| name.is_char_boundary(i) && name[i..].eq_ignore_ascii_case(suffix))
            .map(|i| &name[..i])
        {
            name = stem;
        }
    }
    name.replace('_', " ")
}

/// The figure of `spindle validate --plot` (title and panels): the
/// measured distribution of access times (a wide pale line) and the
/// model's (dashed, over it), at 200 evenly spaced fractions each.
pub fn figure(run: &ValidationRun) -> (String, Vec<Panel>) {
    (
        format!(
            "{}: access times, measured and modelled",
            drive_name(&run.disk)
        ),
        vec![distributions(run)],
    )
}

fn distributions(run: &ValidationRun) -> Panel {
    let (measured, simulated) = run.sorted_ms();
    let cdf = |v: &[f64]| -> Vec<(f64, f64, f64)> {
        const POINTS: usize = 200;
        (1..=POINTS)
            .map(|i| {
                let q = i as f64 / POINTS as f64;
                let k = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
                (v[k - 1], q, 0.0)
            })
            .collect()
    };
    let overall = run.overall();
    Panel {
        series: vec![
            Series {
                curve: format!(
                    "{}, measured ({})",
                    drive_name(&run.disk),
                    std::path::Path::new(&run.trace)
                        .file_name()
                        .map_or_else(|| run.trace.clone(), |n| n.to_string_lossy().into_owned())
                ),
                source: Source::Measurement,
                points: cdf(&measured),
            },
            Series {
                curve: "spindle's model".into(),
                source: Source::Model,
                points: cdf(&simulated),
            },
        ],
        ..Panel::new(
            format!(
                "{} requests; demerit {:.3} ms ({:.1} % of the measured mean)",
                overall.requests,
                overall.demerit_ms,
                100.0 * overall.demerit_ms / overall.measured_mean_ms
            ),
            "access time (ms)",
            "fraction of requests",
        )
    }
}

/// The per-request CSV of `--samples`.
fn write_samples(path: &std::path::Path, run: &ValidationRun) -> Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record([
        "line",
        "kind",
        "class",
        "blocks",
        "measured_ms",
        "simulated_ms",
        "seek_ms",
        "rotation_ms",
        "transfer_ms",
        "overhead_ms",
        "seek_cylinders",
    ])?;
    let ms = |ns: u64| format!("{:.6}", ns as f64 / 1e6);
    for s in &run.samples {
        let b = &s.breakdown;
        w.write_record([
            s.line.to_string(),
            if s.kind == Kind::Read { "R" } else { "W" }.to_string(),
            class_name(s.class).to_string(),
            s.blocks.to_string(),
            ms(s.measured),
            ms(s.simulated),
            ms(b.seek),
            ms(b.rotation),
            ms(b.transfer),
            ms(b.overhead),
            b.seek_distance.to_string(),
        ])?;
    }
    w.flush()?;
    Ok(())
}
