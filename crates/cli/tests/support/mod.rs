//! What every CLI test needs: the binary run with arguments (here or in a
//! directory), its output read back, the measured drives and traces in
//! `../shared/data`, and `spindle run`'s options built in code for the
//! tests that call the library rather than the binary.

// Each test binary includes this module and uses only part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use spindle::run::RunArgs;

/// `spindle ARGS`, run in the test's working directory.
pub(crate) fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .output()
        .expect("spindle runs")
}

/// `spindle ARGS`, run in `dir` (for commands that write files beside them).
pub(crate) fn spindle_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("spindle runs")
}

/// Standard output of a run that must have succeeded.
pub(crate) fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).expect("standard output is UTF-8")
}

/// Standard error, whatever the exit.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file of DiskSim's validation set (drive models and measured traces).
pub(crate) fn data(name: &str) -> String {
    shared_data::disksim_file(name).display().to_string()
}

/// `spindle run --disk hp97560 --load 0.8 --policy P…` with `requests`
/// measured per replication after a tenth as many warm-up completions,
/// seed 1, on one thread: the library's view of a short run.
pub(crate) fn run_args(policies: &[&str], requests: u64, replications: u64) -> RunArgs {
    RunArgs {
        disk: "hp97560".to_string(),
        policies: policies
            .iter()
            .map(|p| p.parse().expect("a registered policy"))
            .collect(),
        disks: None,
        placement: None,
        loads: vec![0.8],
        rates: Vec::new(),
        clients: None,
        think_ms: 0.0,
        read_fraction: 1.0,
        blocks: 1,
        sequential: None,
        deadline_ms: None,
        requests,
        warmup: Some(requests / 10),
        seed: 1,
        replications,
        jobs: 1,
        allow_overload: false,
        plot: None,
        plot_requests: 40,
        samples: None,
        tasks: None,
        seconds: None,
        with_linux: false,
        wrr_constants: Default::default(),
    }
}
