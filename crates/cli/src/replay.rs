//! `spindle replay`: a block trace on emulated disks — one disk per traced
//! device under a single-disk policy, or a mirrored pair of the disk per
//! traced device under an array policy (`--disks 2`, `--placement`).
//!
//! A replay is one pass over the trace, whatever it is asked for: the
//! table, the sheet `--plot` draws and the rows `--samples` writes all come
//! from the same call of the replay ([`experiments::replay_observed`],
//! [`experiments::replay_mirrored`]).

use std::path::PathBuf;

use anyhow::{Result, bail};
#[cfg(feature = "cli")]
use clap::builder::TypedValueParser as _;
use disk_emu::disk::DiskSpec;
use disk_emu::trace::{TraceFormat, TraceOptions};
use experiments::{
    Fit, MirrorPolicy, MirrorReport, Placement, ReplayError, ReplayOptions, ReplayReport,
    RequestSample, replay_mirrored, replay_observed,
};
use sched_core::AnySpec;

use crate::common::{
    RunGives, array_label, check_disks, describe_placement, policy_label, policy_warnings,
    resolve_disk,
};
use crate::output::{Cell, Format, Table};
use crate::samples::{Layout, SamplesFile};
use crate::sheet::{RunSheet, replay_array_sheet, replay_sheet};

/// Options of `spindle replay`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ReplayArgs {
    /// The trace file.
    pub trace: PathBuf,
    /// Disk every device is emulated with (each disk of a mirrored pair):
    /// a preset, a spec file, or disksim:FILE.
    #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
    pub disk: String,
    /// Scheduling policy of every device (see `spindle policies`): a
    /// single-disk policy on one disk per traced device, or an array policy
    /// on a mirrored pair per traced device.
    #[cfg_attr(feature = "cli", arg(long, default_value = "fcfs", value_parser = replay_policy))]
    pub policy: AnySpec,
    /// Disks per traced device: 1 for single-disk policies, 2 (a mirrored
    /// pair) for array policies [default: what the policy needs].
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::Whole::<u32>::new("disks per device", 1, 2)))]
    pub disks: Option<u32>,
    /// How a mirrored pair's second disk lays out its copies: identical,
    /// reversed, or shifted:F (by F of the capacity, F in [0, 1)) [default:
    /// identical]; array policies only.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::placement))]
    pub placement: Option<Placement>,
    /// Trace format (default: detected): disksim-ascii, disksim-validate, msr, spc, srt.
    #[cfg_attr(feature = "cli", arg(long))]
    pub trace_format: Option<TraceFormat>,
    /// Replay only these devices (repeat).
    #[cfg_attr(feature = "cli", arg(long = "device", value_parser = crate::bounds::Whole::<u32>::new("the device", 0, u32::MAX as u64)))]
    pub devices: Vec<u32>,
    /// Bytes per trace block.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 512, value_parser = crate::bounds::block_size()))]
    pub block_size: u32,
    /// Divide arrival times by this factor (2 = twice as fast); open-loop
    /// traces only.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0, value_parser = crate::bounds::speed()))]
    pub speed: f64,
    /// Seed for random service components (if the disk model has any) and
    /// an array policy's random routing.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// Draw the replay's sheet into FILE (.svg, .png, or .html for a page
    /// of it): each device's arm (each disk's of a mirrored pair) over its
    /// first --plot-requests requests, its queue over that span, its
    /// response-time distribution, and reads against writes where the
    /// trace has both.
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::svg_path))]
    pub plot: Option<PathBuf>,
    /// Requests of the trace the sheet follows: its lanes show each
    /// device's arm until they have all left.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 40, value_parser = crate::bounds::Whole::<u64>::new("requests followed", 1, 10_000)))]
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
    /// device, id, arrival, kind, block (as placed by --fit), cylinder (or
    /// on a mirrored pair the disk that served it, 0 or 1), size, wait and
    /// response (ns).
    #[cfg_attr(feature = "cli", arg(long, value_parser = crate::bounds::output_file))]
    pub samples: Option<PathBuf>,
}

/// A replay's `--policy`: any registered policy parses; a rate-based one,
/// which serves periodic tasks rather than a trace's requests, is refused
/// saying where it runs.
#[cfg(feature = "cli")]
fn replay_policy(s: &str) -> Result<AnySpec, String> {
    let spec = s.parse::<AnySpec>().map_err(|e| e.to_string())?;
    match spec {
        AnySpec::RateBased(_) => Err(RATE_BASED.to_string()),
        spec => Ok(spec),
    }
}

/// Why a rate-based policy does not replay a trace, and where it runs.
const RATE_BASED: &str = "a rate-based policy serves admitted periodic tasks, not a trace's requests: run it on a task set with `spindle run --policy NAME --tasks FILE` or check the set with `spindle admit FILE` (see also `spindle repro tsai04`)";

/// What a replay measured: each traced device on one disk, or on a
/// mirrored pair.
#[derive(Debug)]
pub enum Replayed {
    /// One disk per traced device.
    OneDisk(ReplayReport),
    /// A mirrored pair per traced device.
    Mirrored(ReplayReport<MirrorReport>),
}

impl Replayed {
    /// The trace's device numbers replayed, in order.
    pub fn devices(&self) -> Vec<u32> {
        match self {
            Replayed::OneDisk(r) => r.devices.iter().map(|d| d.device).collect(),
            Replayed::Mirrored(r) => r.devices.iter().map(|d| d.device).collect(),
        }
    }
}

/// One replay of `spindle replay`: its table, its report, the sheet when
/// it was drawn and the rows `--samples` wrote, all from one pass over the
/// trace.
#[derive(Debug)]
pub struct Replay {
    /// The table `spindle replay` prints.
    pub table: Table,
    /// What the replay measured.
    pub replayed: Replayed,
    /// The sheet `--plot` draws, when asked for.
    pub sheet: Option<RunSheet>,
    /// Rows written to the `--samples` file, when one was given.
    pub samples: Option<u64>,
}

/// The sheet `--plot` draws of a replay (the data behind the picture):
/// its lanes, queues and distributions, one per device replayed (per disk
/// of each device's pair), and its per-class bars; with the replay's
/// report.
///
/// # Errors
/// Those of the replay.
pub fn sheet(args: &ReplayArgs) -> Result<(Replayed, RunSheet)> {
    let replay = replay(args, true)?;
    let sheet = replay.sheet.expect("a drawn replay has a sheet");
    Ok((replay.replayed, sheet))
}

/// `spindle replay`.
///
/// # Errors
/// Refused options, an unreadable trace, a failed replay, an unwritable
/// plot or samples file.
pub fn run(args: &ReplayArgs, format: Format) -> Result<()> {
    let replay = replay(args, args.plot.is_some() || crate::report::collecting())?;
    if let Some(sheet) = &replay.sheet {
        crate::report::picture(args.plot.as_deref(), &sheet.title, || {
            Ok(crate::sheet::render_run_sheet(sheet))
        })?;
    }
    crate::report::emit_table(&replay.table, format)?;
    Ok(())
}

/// Replays `args`' trace once: the table, the sheet when `draw` is set,
/// and the `--samples` rows when a file is given (the sheet and the rows
/// from the same pass).
///
/// # Errors
/// Refused options (`--disks`, `--placement` that the policy does not
/// take), an unreadable trace, a failed replay, an unwritable samples
/// file.
pub fn replay(args: &ReplayArgs, draw: bool) -> Result<Replay> {
    let disk = resolve_disk(&args.disk)?;
    let (label, uses, needed) = match &args.policy {
        AnySpec::Disk(p) => (policy_label(p), p.uses(), 1),
        AnySpec::Array(a) => (array_label(a), a.uses(), 2),
        AnySpec::RateBased(r) => bail!("--policy {r}: {RATE_BASED}"),
    };
    check_disks(&label, needed, args.disks, args.placement)?;
    let gives = RunGives {
        disk: &disk,
        deadlines: Err("a trace's requests have none"),
    };
    for warning in policy_warnings(&label, uses, &gives) {
        eprintln!("warning: {warning}");
    }
    let followed = draw.then_some(args.plot_requests);
    match args.policy {
        AnySpec::Array(array) => {
            let placement = args.placement.unwrap_or(Placement::MIRROR);
            let options = replay_options(args, &disk, MirrorPolicy { array, placement });
            on_pairs(args, &options, &label, followed)
        }
        AnySpec::Disk(policy) => {
            on_disks(args, &replay_options(args, &disk, policy), &label, followed)
        }
        AnySpec::RateBased(r) => bail!("--policy {r}: {RATE_BASED}"),
    }
}

/// The library's options of `args`' replay on `disk` under `policy`.
fn replay_options<P>(args: &ReplayArgs, disk: &DiskSpec, policy: P) -> ReplayOptions<P> {
    ReplayOptions {
        disk: disk.clone(),
        policy,
        format: args.trace_format,
        trace: TraceOptions {
            block_size: args.block_size,
            devices: (!args.devices.is_empty()).then(|| args.devices.clone()),
        },
        speed: args.speed,
        seed: args.seed,
        fit: args.fit,
    }
}

/// [`replay`] on one disk per traced device.
fn on_disks(
    args: &ReplayArgs,
    options: &ReplayOptions,
    label: &str,
    followed: Option<u64>,
) -> Result<Replay> {
    let disk = &options.disk.name;
    let mut samples = samples_file(args, Layout::SingleDisk)?;
    let (report, traces) = with_samples(args, disk, samples.as_mut(), |sink| {
        replay_observed(&args.trace, options, followed, sink)
    })?;
    let sheet = followed.map(|n| {
        let title = sheet_title(&report, &crate::sheet::drive_name(disk), label);
        replay_sheet(title, n, label, &traces)
    });
    let mut table = disk_table(&report, disk, label);
    let rows = finish(args, &report, &mut table, samples)?;
    Ok(Replay {
        table,
        replayed: Replayed::OneDisk(report),
        sheet,
        samples: rows,
    })
}

/// [`replay`] on a mirrored pair per traced device.
fn on_pairs(
    args: &ReplayArgs,
    options: &ReplayOptions<MirrorPolicy>,
    label: &str,
    followed: Option<u64>,
) -> Result<Replay> {
    let disk = &options.disk.name;
    let placement = options.policy.placement;
    let mut samples = samples_file(args, Layout::Mirror)?;
    let (report, traces) = with_samples(args, disk, samples.as_mut(), |sink| {
        replay_mirrored(&args.trace, options, followed, sink)
    })?;
    let sheet = followed.map(|n| {
        let drive = format!(
            "{} ×2 ({})",
            crate::sheet::drive_name(disk),
            describe_placement(placement)
        );
        replay_array_sheet(sheet_title(&report, &drive, label), n, label, &traces)
    });
    let mut table = mirror_table(&report, disk, placement, label);
    let rows = finish(args, &report, &mut table, samples)?;
    Ok(Replay {
        table,
        replayed: Replayed::Mirrored(report),
        sheet,
        samples: rows,
    })
}

/// The `--samples` file, created with its header, when one is given.
fn samples_file(args: &ReplayArgs, layout: Layout) -> Result<Option<SamplesFile>> {
    args.samples
        .as_deref()
        .map(|path| SamplesFile::create(path, &["device"], layout, false))
        .transpose()
}

/// Runs `replay` with a sink writing each request to `samples` (when
/// given) after its device number; the first write error ends the
/// writing and is returned after the replay. A request past the end of
/// the disk under `--fit refuse` is refused naming the other --fit values.
fn with_samples<R>(
    args: &ReplayArgs,
    disk: &str,
    samples: Option<&mut SamplesFile>,
    replay: impl FnOnce(Option<experiments::DeviceSampleSink<'_>>) -> Result<R, ReplayError>,
) -> Result<R> {
    let mut failed = None;
    let replayed = match samples {
        None => replay(None),
        Some(file) => replay(Some(&mut |device: u32, s: &RequestSample| {
            if failed.is_none()
                && let Err(e) = file.write(&[device.to_string()], s)
            {
                failed = Some(e);
            }
        })),
    };
    if let Some(e) = failed {
        return Err(e);
    }
    replayed.map_err(|e| match e {
        e @ ReplayError::Extent { .. } if args.fit == Fit::Refuse => anyhow::anyhow!(
            "{e}: the trace reaches past the end of the {disk} disk; replay it with --fit wrap (addresses modulo the disk's size) or --fit scale (each device's addresses shrunk in proportion)"
        ),
        e => e.into(),
    })
}

/// The sheet's title: the trace's file on `drive` under `policy`.
fn sheet_title<R>(report: &ReplayReport<R>, drive: &str, policy: &str) -> String {
    let file = std::path::Path::new(&report.file)
        .file_name()
        .map_or_else(|| report.file.clone(), |f| f.to_string_lossy().into_owned());
    format!("{file} on {drive} under {policy}")
}

/// The table of a replay on one disk per traced device.
fn disk_table(r: &ReplayReport, disk: &str, policy: &str) -> Table {
    let mut t = Table::new(
        format!(
            "{} ({}) on {disk} under {policy}: {} requests over {:.1} s of virtual time",
            r.file,
            r.format,
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
    t
}

/// The table of a replay on a mirrored pair per traced device: the
/// columns of `spindle run --disks 2` where they mean the same (read,
/// update and all response, read wait, each disk's utilisation), with the
/// requests and updates counted, the p95 of all responses and the mean
/// number of requests in the pair.
fn mirror_table(
    r: &ReplayReport<MirrorReport>,
    disk: &str,
    placement: Placement,
    policy: &str,
) -> Table {
    let mut t = Table::new(
        format!(
            "{} ({}) on {disk} ×2 ({}) under {policy}: {} requests over {:.1} s of virtual time",
            r.file,
            r.format,
            describe_placement(placement),
            r.requests,
            r.span_ms / 1e3
        ),
        &[
            "device",
            "requests",
            "updates",
            "read ms",
            "update ms",
            "all ms",
            "p95 ms",
            "read wait ms",
            "util disk 1",
            "util disk 2",
            "in system",
        ],
    );
    for d in &r.devices {
        let x = &d.report;
        let kind = |k: &experiments::KindReport, d| {
            if k.response.count > 0 {
                ms(k.response.mean, d)
            } else {
                Cell::Absent("none")
            }
        };
        let read_wait = if x.read.waiting.count > 0 {
            ms(x.read.waiting.mean, 2)
        } else {
            Cell::Absent("none")
        };
        t.row(vec![
            Cell::Int(u64::from(d.device)),
            Cell::Int(x.all.count),
            Cell::Int(x.update.response.count),
            kind(&x.read, 2),
            kind(&x.update, 2),
            ms(x.all.mean, 2),
            ms(x.all.p95, 1),
            read_wait,
            Cell::num(x.disks[0].utilisation, 3),
            Cell::num(x.disks[1].utilisation, 3),
            Cell::num(x.queues.in_system, 2),
        ]);
    }
    t.note(
        "Each traced device replayed on its own mirrored pair: a read served by the copy the policy routes it to, an update written to both disks and complete when the policy acknowledges it; in system is the time-mean number of requests in the pair, queued or in service.",
    );
    t
}

fn ms(ns: f64, digits: usize) -> Cell {
    Cell::num(ns / 1e6, digits)
}

/// What every replay checks and notes after it ran: nothing replayed
/// (refused), a speed-up of a closed-loop trace (refused), requests moved
/// by --fit, the samples written, devices left out, the validation figure.
/// Returns the samples' rows.
fn finish<R>(
    args: &ReplayArgs,
    r: &ReplayReport<R>,
    t: &mut Table,
    samples: Option<SamplesFile>,
) -> Result<Option<u64>> {
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
        bail!("{}: no requests to replay{filter}", args.trace.display());
    }
    if r.validation.is_some() && args.speed != 1.0 {
        bail!(
            "--speed {}: {} is a closed-loop validation trace (each request issued when the previous completes), which has no arrival times to speed up",
            args.speed,
            args.trace.display()
        );
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
    let rows = match samples {
        Some(file) => {
            let rows = file.finish()?;
            t.note(format!("Per-request samples: {rows} rows."));
            Some(rows)
        }
        None => None,
    };
    if r.filtered > 0 {
        t.note(format!(
            "{} requests on other devices were left out (--device).",
            r.filtered
        ));
    }
    if let Some(v) = &r.validation {
        t.note(format!(
            "Closed-loop validation replay: real drive {:.3} ms mean access, emulated {:.3} ms; demerit {:.3} ms ({:.1} % of the mean).",
            v.measured_mean_ms,
            v.simulated_mean_ms,
            v.demerit_ms,
            v.relative_demerit * 100.0
        ));
    }
    Ok(rows)
}
