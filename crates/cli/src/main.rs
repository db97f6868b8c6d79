//! `spindle`: disk scheduling experiments from the command line.
//!
//! With no arguments it runs the default experiment: every classic policy on
//! an emulated HP 97560 at three loads, with 95 % confidence intervals.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use spindle::output::Format;
use spindle::{
    admit, analyze, bench, common, replay, repro, run, serve, trace_info, txn, validate,
};

/// Disk I/O scheduling experiments on emulated disks.
#[derive(Parser, Debug)]
#[command(name = "spindle", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Output format of the default experiment.
    #[arg(long, value_enum, default_value_t = Format::Table, global = true)]
    format: Format,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one workload against one disk under one or more policies.
    Run(run::RunArgs),
    /// Replay a block trace (DiskSim ASCII or validation, MSR CSV, SPC, HP SRT).
    Replay(replay::ReplayArgs),
    /// Describe a block trace: SRT header, requests by kind and device, time span, sizes.
    TraceInfo(trace_info::TraceInfoArgs),
    /// Compare a drive model with a DiskSim validation trace (demerit, per-class means, CDF plot).
    Validate(validate::ValidateArgs),
    /// WRR-SCAN admission of a task set (TOML/JSON) under each version.
    Admit(admit::AdmitArgs),
    /// List the disk presets.
    Presets,
    /// List the scheduling policies and their parameters.
    Policies,
    /// Reproduce a source paper's results (tables, CSV/JSON, SVG plots).
    Repro {
        #[command(subcommand)]
        paper: repro::Paper,
    },
    /// A source paper's analytic models alone (tables, CSV/JSON, SVG plots).
    Analyze {
        #[command(subcommand)]
        paper: analyze::AnalyzePaper,
    },
    /// Run Chen & Towsley's real-time transaction system once (every parameter settable).
    Txn(Box<txn::TxnArgs>),
    /// Serve an emulated disk or mirror over NBD, timed by its model, with faults.
    Serve(serve::ServeArgs),
    /// Send one command to the control socket of a `spindle serve`.
    Control(serve::ControlArgs),
    /// Measure the emulator or the schedulers.
    Bench {
        #[command(subcommand)]
        what: bench::BenchWhat,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => run::default_experiment(cli.format),
        Some(Command::Run(args)) => run::run(&args, cli.format),
        Some(Command::Replay(args)) => replay::run(&args, cli.format),
        Some(Command::TraceInfo(args)) => trace_info::run(&args, cli.format),
        Some(Command::Validate(args)) => validate::run(&args, cli.format),
        Some(Command::Admit(args)) => admit::run(&args, cli.format),
        Some(Command::Presets) => {
            common::print_presets(cli.format);
            Ok(())
        }
        Some(Command::Policies) => {
            common::print_policies(cli.format);
            Ok(())
        }
        Some(Command::Repro { paper }) => repro::run(&paper, cli.format),
        Some(Command::Analyze { paper }) => analyze::run(&paper, cli.format),
        Some(Command::Txn(args)) => txn::run(&args, cli.format),
        Some(Command::Serve(args)) => serve::run(&args, cli.format),
        Some(Command::Control(args)) => serve::control(&args),
        Some(Command::Bench { what }) => bench::run(&what, cli.format),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
