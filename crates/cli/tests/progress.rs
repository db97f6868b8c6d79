//! Progress on a terminal: a bar with the work done, the work in all and
//! an estimate of the time left, drawn on standard error while a command
//! runs and cleared when it ends; nothing at all where standard error is
//! not a terminal (a pipe, a file, CI). The terminal is a pseudo-terminal
//! from util-linux's `script` (Debian's `bsdutils`, essential); the tests
//! say so and skip where it is absent.

use std::path::Path;
use std::process::Command;

mod support;
use support::{spindle, stderr};

/// What `spindle ARGS` writes to a terminal (its standard output is
/// discarded), or `None` where `script` is absent.
fn on_a_terminal(args: &str) -> Option<String> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux's `script` (a pseudo-terminal) is not installed");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let typescript = dir.path().join("typescript");
    let command = format!("{} {args} >/dev/null", env!("CARGO_BIN_EXE_spindle"));
    let status = Command::new("script")
        .args(["-qec", &command])
        .arg(&typescript)
        .output()
        .expect("script runs");
    assert!(status.status.success(), "{status:?}");
    Some(String::from_utf8_lossy(&std::fs::read(Path::new(&typescript)).unwrap()).into_owned())
}

/// The bar's states as drawn: `what [====>   ] done/total (eta)`.
fn states(screen: &str, what: &str) -> Vec<(u64, u64, String)> {
    screen
        .split(['\r', '\n'])
        .filter_map(|line| {
            let at = line.find(&format!("{what} ["))?;
            let rest = &line[at..];
            let (_, counts) = rest.split_once("] ")?;
            let (counts, eta) = counts.split_once(" (")?;
            let (done, total) = counts.split_once('/')?;
            let eta = eta.split_once(')')?.0.to_string();
            Some((done.parse().ok()?, total.parse().ok()?, eta))
        })
        .collect()
}

/// Every state counts up to the total and carries an estimate in seconds.
fn assert_counts_up(states: &[(u64, u64, String)], total: u64) {
    assert!(states.len() >= 2, "{states:?}");
    assert!(states.iter().all(|(_, t, _)| *t == total), "{states:?}");
    assert!(states.windows(2).all(|w| w[0].0 <= w[1].0), "{states:?}");
    assert!(
        states.iter().all(|(_, _, eta)| eta.ends_with('s')
            && eta[..eta.len() - 1].chars().all(|c| c.is_ascii_digit())),
        "{states:?}"
    );
}

#[test]
fn run_shows_its_replications_with_an_eta() {
    let Some(screen) =
        on_a_terminal("run --requests 20000 --replications 6 --jobs 1 --policy sstf")
    else {
        return;
    };
    assert_counts_up(&states(&screen, "replications"), 6);
}

#[test]
fn a_task_run_and_txn_show_theirs() {
    let Some(screen) =
        on_a_terminal("run --tasks examples/tasks.toml --seconds 600 --replications 4 --jobs 1")
    else {
        return;
    };
    // Four policies (the three versions and SCAN-EDF), four replications each.
    assert_counts_up(&states(&screen, "replications"), 16);
    let Some(screen) = on_a_terminal(
        "txn --io rt-cmq --users 6 --transactions 4000 --warmup 200 --replications 4 --jobs 1",
    ) else {
        return;
    };
    assert_counts_up(&states(&screen, "replications"), 4);
}

#[test]
fn nothing_is_drawn_where_standard_error_is_not_a_terminal() {
    let out = spindle(&[
        "run",
        "--requests",
        "20000",
        "--replications",
        "4",
        "--jobs",
        "1",
    ]);
    assert!(out.status.success());
    assert_eq!(stderr(&out), "");
}
