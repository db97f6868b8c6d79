//! Golden outputs: the default experiment, `repro towsley91 --figure 1..6
//! --format csv`, `repro chen-towsley91 --figure 2` and `repro tsai04
//! --figure 5` (as CSV) and every bundled replay must stay byte-identical to
//! the files in `tests/golden/` (the first captured before the emulator
//! became an open engine, commit c1631db; the two reproductions before the
//! experiments moved onto one event loop).
//!
//! The towsley91 figures take minutes in a debug build, so the test is
//! ignored by default; CI runs it in release mode after building the
//! binary: `cargo build --release -p spindle-cli && cargo test --release
//! --test golden -- --ignored`. It runs the `spindle` binary found next to
//! this test's own executable (same profile).
//!
//! The replays of DiskSim drive models (`replay-<drive>.csv`) change
//! legitimately when the drive models are made more faithful; regenerate
//! every file with `SPINDLE_BLESS=1` and review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>/spindle`, next to `target/<profile>/deps/golden-*`.
fn spindle() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .join(format!("spindle{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} not found: build it first with `cargo build -p spindle-cli` in the same profile",
        bin.display()
    );
    bin
}

/// Runs `spindle args` and compares its standard output (and, for the
/// DiskSim replays, standard error, as the capture did) with `golden`.
fn check(golden: &str, args: &[&str], with_stderr: bool) -> Option<String> {
    let out = Command::new(spindle())
        .args(args)
        .current_dir(root())
        .output()
        .expect("spindle runs");
    assert!(out.status.success(), "spindle {args:?} failed: {out:?}");
    let mut got = out.stdout;
    if with_stderr {
        got.extend_from_slice(&out.stderr);
    }
    let path = root().join("tests/golden").join(golden);
    if std::env::var_os("SPINDLE_BLESS").is_some() {
        std::fs::write(&path, &got).expect("golden file written");
        return None;
    }
    let want = std::fs::read(&path).expect("golden file");
    (got != want).then(|| {
        format!(
            "{golden}: `spindle {}` differs from the golden file\n--- want\n{}\n--- got\n{}",
            args.join(" "),
            String::from_utf8_lossy(&want),
            String::from_utf8_lossy(&got)
        )
    })
}

#[test]
#[ignore = "minutes in a debug build: run in release (see the module documentation)"]
fn outputs_match_the_golden_files() {
    // Checked here, so that a missing directory says where it belongs; the
    // commands below name it as a reader types it.
    shared_data::disksim_valid();
    let data = "../shared/data/disksim-valid";
    let mut diffs = Vec::new();
    diffs.extend(check("default.txt", &[], false));
    for f in 1..=6 {
        let figure = f.to_string();
        diffs.extend(check(
            &format!("towsley91-fig{f}.csv"),
            &["repro", "towsley91", "--figure", &figure, "--format", "csv"],
            false,
        ));
    }
    diffs.extend(check(
        "chen-towsley91-fig2.csv",
        &[
            "repro",
            "chen-towsley91",
            "--figure",
            "2",
            "--format",
            "csv",
        ],
        false,
    ));
    diffs.extend(check(
        "tsai04-fig5.csv",
        &["repro", "tsai04", "--figure", "5", "--format", "csv"],
        false,
    ));
    let ascii = format!("{data}/ascii.trace");
    diffs.extend(check(
        "replay-ascii.csv",
        &["replay", &ascii, "--format", "csv"],
        false,
    ));
    for drive in ["hp_c2247a", "hp_c3323a", "cheetah9LP", "ibm18es"] {
        let trace = format!("{data}/{drive}.trace");
        let disk = format!("disksim:{data}/{drive}.parv");
        diffs.extend(check(
            &format!("replay-{drive}.csv"),
            &["replay", &trace, "--disk", &disk, "--format", "csv"],
            true,
        ));
    }
    for drive in ["hp_c2247a", "hp_c3323a"] {
        let trace = format!("{data}/{drive}.trace");
        diffs.extend(check(
            &format!("replay-{drive}-hp97560.csv"),
            &["replay", &trace, "--format", "csv"],
            false,
        ));
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n\n"));
}
