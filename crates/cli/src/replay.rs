//! `spindle replay`: a block trace on emulated disks.

use std::path::PathBuf;

use anyhow::Result;
use disk_emu::trace::{TraceFormat, TraceOptions};
use experiments::{ReplayOptions, replay};
use sched_core::PolicySpec;

use crate::common::{RunGives, policy_label, policy_warnings, resolve_disk};
use crate::output::{Cell, Format, Table};

/// Options of `spindle replay`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ReplayArgs {
    /// The trace file.
    pub trace: PathBuf,
    /// Disk every device is emulated with: a preset, a spec file, or disksim:FILE.
    #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
    pub disk: String,
    /// Scheduling policy of every device.
    #[cfg_attr(feature = "cli", arg(long, default_value = "fcfs"))]
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
}

/// `spindle replay`.
pub fn run(args: &ReplayArgs, format: Format) -> Result<()> {
    let options = ReplayOptions {
        disk: resolve_disk(&args.disk)?,
        policy: args.policy,
        format: args.trace_format,
        trace: TraceOptions {
            block_size: args.block_size,
            devices: (!args.devices.is_empty()).then(|| args.devices.clone()),
        },
        speed: args.speed,
        seed: args.seed,
    };
    let gives = RunGives {
        disk: &options.disk,
        deadlines: Err("a trace's requests have none"),
    };
    for warning in policy_warnings(&policy_label(&args.policy), args.policy.uses(), &gives) {
        eprintln!("warning: {warning}");
    }
    let r = replay(&args.trace, &options)?;
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
    crate::output::emit_table(&t, format)?;
    Ok(())
}
