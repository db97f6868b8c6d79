//! `spindle replay`: a block trace on emulated disks.

use std::path::PathBuf;

use anyhow::Result;
#[cfg(feature = "cli")]
use clap::builder::TypedValueParser as _;
use disk_emu::trace::{TraceFormat, TraceOptions};
use experiments::{
    Ending, Fit, ReplayError, ReplayOptions, ReplayReport, RequestSample, replay, replay_sampled,
    replay_traced,
};
use sched_core::PolicySpec;

use crate::common::{RunGives, policy_label, policy_warnings, resolve_disk};
use crate::output::{Cell, Format, Table};
use crate::samples::{Layout, SamplesFile};
use crate::sheet::{RunSheet, replay_sheet};

/// Options of `spindle replay`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ReplayArgs {
    /// The trace file.
    pub trace: PathBuf,
    /// Disk every device is emulated with: a preset, a spec file, or disksim:FILE.
    #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
    pub disk: String,
    /// Scheduling policy of every device: a single-disk policy (see
    /// `spindle policies`).
    #[cfg_attr(feature = "cli", arg(long, default_value = "fcfs", value_parser = single_disk_policy))]
    pub policy: PolicySpec,
    /// Trace format (default: detected): disksim-ascii, disksim-validate, msr, spc, srt.
    #[cfg_attr(feature = "cli", arg(long))]
    pub trace_format: Option<TraceFormat>,
    /// Replay only these devices (repeat).
    #[cfg_attr(feature = "cli", arg(long = "device"))]
    pub devices: Vec<u32>,
    /// Bytes per trace block.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 512))]
    pub block_size: u32,
    /// Divide arrival times by this factor (2 = twice as fast); open-loop
    /// traces only.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0, value_parser = crate::bounds::speed))]
    pub speed: f64,
    /// Seed for random service components (if the disk model has any).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Draw the replay's sheet into FILE (.svg, .png, or .html for a page
    /// of it): each device's arm over its first --plot-requests requests,
    /// its queue over that span, its response-time distribution, and reads
    /// against writes where the trace has both.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::svg_path))]
    pub plot: Option<PathBuf>,
    /// Requests of the trace the sheet follows: its lanes show each
    /// device's arm until they have all left.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 40, value_parser = clap::value_parser!(u64).range(1..=10_000)))]
    pub plot_requests: u64,
    /// Requests past the end of the emulated disk (a real volume's trace
    /// on a smaller drive): refuse (stop at the first, naming it), wrap
    /// (its block modulo the disk's size) or scale (every address of a
    /// device that does not fit shrunk in proportion, keeping its place on
    /// the stroke).
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            default_value = "refuse",
            value_parser = clap::builder::PossibleValuesParser::new(["refuse", "wrap", "scale"])
                .map(|s| match s.as_str() {
                    "wrap" => Fit::Wrap,
                    "scale" => Fit::Scale,
                    _ => Fit::Refuse,
                })
        )
    )]
    pub fit: Fit,
    /// Write every request to this CSV file, one row each as it completes:
    /// device, id, arrival, kind, block (as placed by --fit), cylinder,
    /// size, wait and response (ns).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::output_file))]
    pub samples: Option<PathBuf>,
}

/// A replay's `--policy`: any registered policy parses, and one that is
/// not for a single disk is refused saying why (clap's own message listed
/// the single-disk names only, as if `rt-dmq` did not exist).
#[cfg(feature = "cli")]
fn single_disk_policy(s: &str) -> Result<PolicySpec, String> {
    match s.parse::<sched_core::AnySpec>().map_err(|e| e.to_string())? {
        sched_core::AnySpec::Disk(policy) => Ok(policy),
        sched_core::AnySpec::Array(_) => Err(
            "an array policy; a replay emulates one disk per traced device, under a single-disk policy (an array policy runs on a mirrored pair with `spindle run --policy NAME --disks 2`)".to_string(),
        ),
        sched_core::AnySpec::RateBased(_) => Err(
            "a rate-based policy serves admitted periodic tasks, not a trace's requests (see `spindle admit` and `spindle repro tsai04`)".to_string(),
        ),
    }
}

/// The sheet `--plot` draws of a replay (the data behind the picture):
/// its lanes, queues and distributions, one per device replayed, and its
/// per-class bars; with the replay's report.
///
/// # Errors
/// Those of the replay.
pub fn sheet(args: &ReplayArgs) -> Result<(ReplayReport, RunSheet)> {
    sheet_of(args, &replay_options(args)?)
}

fn sheet_of(args: &ReplayArgs, options: &ReplayOptions) -> Result<(ReplayReport, RunSheet)> {
    let (report, traces) = replay_traced(&args.trace, options, args.plot_requests)?;
    let sheet = sheet_from(args, options, &report, &traces);
    Ok((report, sheet))
}

fn sheet_from(
    args: &ReplayArgs,
    options: &ReplayOptions,
    report: &ReplayReport,
    traces: &[(u32, experiments::HeadTrace)],
) -> RunSheet {
    let file = std::path::Path::new(&report.file)
        .file_name()
        .map_or_else(|| report.file.clone(), |f| f.to_string_lossy().into_owned());
    let title = format!(
        "{file} on {} under {}",
        crate::sheet::drive_name(&options.disk.name),
        policy_label(&options.policy)
    );
    replay_sheet(
        title,
        args.plot_requests,
        &policy_label(&options.policy),
        traces,
    )
}

fn replay_options(args: &ReplayArgs) -> Result<ReplayOptions> {
    Ok(ReplayOptions {
        disk: resolve_disk(&args.disk)?,
        policy: args.policy,
        format: args.trace_format,
        trace: TraceOptions {
            block_size: args.block_size,
            devices: (!args.devices.is_empty()).then(|| args.devices.clone()),
        },
        speed: args.speed,
        seed: args.seed,
        fit: args.fit,
    })
}

/// `spindle replay`.
pub fn run(args: &ReplayArgs, format: Format) -> Result<()> {
    let options = replay_options(args)?;
    let gives = RunGives {
        disk: &options.disk,
        deadlines: Err("a trace's requests have none"),
    };
    for warning in policy_warnings(&policy_label(&args.policy), args.policy.uses(), &gives) {
        eprintln!("warning: {warning}");
    }
    let mut samples = match &args.samples {
        Some(path) => Some(SamplesFile::create(
            path,
            &["device"],
            Layout::SingleDisk,
            false,
        )?),
        None => None,
    };
    let mut sheet = None;
    let replayed = match samples.as_mut() {
        None if args.plot.is_some() || crate::report::collecting() => {
            replay_traced(&args.trace, &options, args.plot_requests).map(|(r, traces)| {
                sheet = Some(sheet_from(args, &options, &r, &traces));
                r
            })
        }
        None => replay(&args.trace, &options),
        Some(file) => {
            let mut failed = None;
            let r = replay_sampled(&args.trace, &options, &mut |s: &RequestSample| {
                let device = match s.ending {
                    Ending::Served { disk, .. } => disk.to_string(),
                    Ending::Dropped(_) => String::new(),
                };
                if failed.is_none()
                    && let Err(e) = file.write(&[device], s)
                {
                    failed = Some(e);
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
            r
        }
    };
    let r = replayed.map_err(|e| match e {
        e @ ReplayError::Extent { .. } if args.fit == Fit::Refuse => anyhow::anyhow!(
            "{e}: the trace reaches past the end of the {} disk; replay it with --fit wrap (addresses modulo the disk's size) or --fit scale (each device's addresses shrunk in proportion)",
            options.disk.name
        ),
        e => e.into(),
    })?;
    // With --samples too, the sheet comes from a second, traced replay:
    // the same bits, as the replay is deterministic.
    if sheet.is_none() && (args.plot.is_some() || crate::report::collecting()) {
        sheet = Some(sheet_of(args, &options)?.1);
    }
    if r.requests == 0 {
        let filter = if args.devices.is_empty() {
            String::new()
        } else {
            format!(
                " for --device {} ({} requests on other devices)",
                args.devices
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                r.filtered
            )
        };
        anyhow::bail!("{}: no requests to replay{filter}", args.trace.display());
    }
    if r.validation.is_some() && args.speed != 1.0 {
        anyhow::bail!(
            "--speed {}: {} is a closed-loop validation trace (each request issued when the previous completes), which has no arrival times to speed up",
            args.speed,
            args.trace.display()
        );
    }
    let mut t = Table::new(
        format!(
            "{} ({}) on {} under {}: {} requests over {:.1} s of virtual time",
            r.file,
            r.format,
            options.disk.name,
            policy_label(&options.policy),
            r.requests,
            r.span_ms / 1e3
        ),
        &[
            "device",
            "requests",
            "response ms",
            "p95 ms",
            "wait ms",
            "service ms",
            "seek ms",
            "rotation ms",
            "util",
            "queue",
        ],
    );
    let ms = |ns: f64, d: usize| Cell::num(ns / 1e6, d);
    for d in &r.devices {
        let x = &d.report;
        t.row(vec![
            Cell::Int(u64::from(d.device)),
            Cell::Int(x.completions),
            ms(x.response.mean, 2),
            ms(x.response.p95, 1),
            ms(x.waiting.mean, 2),
            ms(x.service.mean, 2),
            ms(x.breakdown.seek.mean, 2),
            ms(x.breakdown.rotation.mean, 2),
            Cell::num(x.utilisation, 3),
            Cell::num(x.queue.time_mean, 2),
        ]);
    }
    if r.moved > 0 {
        let how = match args.fit {
            Fit::Wrap => "wrapped onto it (--fit wrap: block modulo the disk's size)",
            _ => "scaled onto it (--fit scale: each device's addresses in proportion)",
        };
        t.note(format!(
            "{} of {} requests reached past the end of the disk and were {how}.",
            r.moved, r.requests
        ));
    }
    if let Some(file) = samples {
        let path = file.path().display().to_string();
        let rows = file.finish()?;
        t.note(format!(
            "Per-request samples: {rows} rows written to {path}."
        ));
    }
    if r.filtered > 0 {
        t.note(format!(
            "{} requests on other devices were left out (--device).",
            r.filtered
        ));
    }
    if let Some(v) = r.validation {
        t.note(format!(
            "Closed-loop validation replay: real drive {:.3} ms mean access, emulated {:.3} ms; demerit {:.3} ms ({:.1} % of the mean).",
            v.measured_mean_ms,
            v.simulated_mean_ms,
            v.demerit_ms,
            v.relative_demerit * 100.0
        ));
    }
    if let Some(sheet) = sheet {
        crate::report::picture(args.plot.as_deref(), &sheet.title, || {
            crate::sheet::render_run_sheet(&sheet)
        })?;
    }
    crate::output::emit_table(&t, format)?;
    Ok(())
}
