//! The `spindle` command as a user meets it: determinism across thread
//! counts, clear errors for bad arguments and bad files, and end-to-end trace
//! replay of the bundled DiskSim traces.

use std::path::PathBuf;
use std::process::{Command, Output};

fn spindle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(args)
        .output()
        .expect("spindle runs")
}

fn data(name: &str) -> String {
    let p: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "..",
        "shared",
        "data",
        "disksim-valid",
        name,
    ]
    .iter()
    .collect();
    p.to_string_lossy().into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn same_seed_same_bytes_with_one_or_two_threads() {
    let run = |jobs: &str, format: &str| {
        let o = spindle(&[
            "run",
            "--policy",
            "sstf",
            "--policy",
            "fd-scan",
            "--load",
            "0.7",
            "--deadline-ms",
            "50..200",
            "--requests",
            "3000",
            "--replications",
            "4",
            "--seed",
            "42",
            "--jobs",
            jobs,
            "--format",
            format,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        o.stdout
    };
    for format in ["table", "json", "csv"] {
        assert_eq!(run("1", format), run("2", format), "--format {format}");
    }
    let mirrored = |jobs: &str| {
        let o = spindle(&[
            "repro",
            "towsley91",
            "--figure",
            "3",
            "--replications",
            "3",
            "--requests",
            "2000",
            "--jobs",
            jobs,
            "--format",
            "csv",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        o.stdout
    };
    assert_eq!(mirrored("1"), mirrored("2"));
}

#[test]
fn json_output_is_valid_and_carries_intervals() {
    let o = spindle(&[
        "run",
        "--policy",
        "look",
        "--requests",
        "2000",
        "--replications",
        "3",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["policy"], "look");
    assert!(row["response ms"]["mean"].as_f64().unwrap() > 10.0);
    assert!(row["response ms"]["ci95"].as_f64().unwrap() > 0.0);
}

#[test]
fn bad_arguments_get_clap_messages() {
    let o = spindle(&["run", "--policy", "elevator"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown policy"), "{}", stderr(&o));
    let o = spindle(&["run", "--policy", "ssedo:m=0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid parameter m"), "{}", stderr(&o));
    let o = spindle(&["run", "--load", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    let o = spindle(&["repro", "towsley91", "--figure", "9"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_files_get_typed_errors_not_panics() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let spec = dir.join("disk.toml");
    std::fs::write(&spec, "preset = \"hp97560\"\nrmp = 5400\n").unwrap();
    let o = spindle(&[
        "run",
        "--disk",
        spec.to_str().unwrap(),
        "--requests",
        "100",
        "--replications",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("disk.toml") && err.contains("rmp"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let trace = dir.join("bad.trace");
    std::fs::write(&trace, "0.5 0 100 8 1\n1.0 0 x12 8 1\n").unwrap();
    let o = spindle(&[
        "replay",
        trace.to_str().unwrap(),
        "--trace-format",
        "disksim-ascii",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("bad.trace:2") && err.contains("block"),
        "{err}"
    );

    let o = spindle(&["replay", dir.join("missing.trace").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("missing.trace"));
}

/// Requests replayed, read back from the JSON table (one row per device).
fn replayed(args: &[&str]) -> u64 {
    let mut all = vec!["replay"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let o = spindle(&all);
    assert!(o.status.success(), "{:?}: {}", args, stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["requests"].as_u64().unwrap())
        .sum()
}

fn lines(name: &str) -> u64 {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count() as u64
}

#[test]
fn bundled_disksim_traces_replay_end_to_end() {
    // The DiskSim ASCII sample spans many devices, each an emulated HP 97560.
    assert_eq!(replayed(&[&data("ascii.trace")]), lines("ascii.trace"));
    // Validation traces of the two HP drives fit an HP 97560.
    for name in ["hp_c2247a.trace", "hp_c3323a.trace"] {
        assert_eq!(replayed(&[&data(name)]), lines(name), "{name}");
    }
    // The 9 GB drives need their own DiskSim models.
    for (trace, model) in [
        ("cheetah9LP.trace", "cheetah9LP.parv"),
        ("ibm18es.trace", "ibm18es.parv"),
    ] {
        let disk = format!("disksim:{}", data(model));
        assert_eq!(
            replayed(&[&data(trace), "--disk", &disk]),
            lines(trace),
            "{trace}"
        );
    }
}

#[test]
fn validation_replay_on_the_drives_own_model_reports_the_demerit() {
    let disk = format!("disksim:{}", data("hp_c2247a.parv"));
    let o = spindle(&["replay", &data("hp_c2247a.trace"), "--disk", &disk]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let note = text
        .lines()
        .find(|l| l.starts_with("Closed-loop validation replay"))
        .expect("a validation note");
    // "... real drive X ms mean access, emulated Y ms; demerit Z ms (P % of the mean)."
    let numbers: Vec<f64> = note
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|t| t.parse().ok())
        .collect();
    let (real, emulated, demerit) = (numbers[0], numbers[1], numbers[2]);
    assert!((real - 15.30).abs() < 0.01, "{note}");
    // Without the drive's cache the emulation is slower on re-reads; it must still be close.
    assert!(emulated > 0.8 * real && emulated < 1.5 * real, "{note}");
    assert!(demerit > 0.0 && demerit < real, "{note}");
}

#[test]
fn validate_prints_the_demerit_per_class_and_plots_the_distributions() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let plot = dir.join("cdf.svg");
    let samples = dir.join("samples.csv");
    let o = spindle(&[
        "--format",
        "csv",
        "validate",
        "--parv",
        &data("hp_c2247a.parv"),
        "--trace",
        &data("hp_c2247a.trace"),
        "--plot",
        plot.to_str().unwrap(),
        "--samples",
        samples.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0][0], "class");
    assert_eq!(rows[1][0], "all");
    assert_eq!(rows[1][1], "9999");
    let demerit: f64 = rows[1][5].parse().unwrap();
    assert!(demerit > 0.0 && demerit <= 0.098, "{text}");
    let classes: Vec<&str> = rows[2..].iter().map(|r| r[0]).collect();
    assert_eq!(
        classes,
        ["read Miss", "read Hit", "write Doub", "write Trip"]
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("<svg") && svg.contains("real drive"));
    assert_eq!(
        std::fs::read_to_string(&samples).unwrap().lines().count(),
        10_000
    );

    // The same drive as a preset gives the same figures.
    let o = spindle(&[
        "--format",
        "csv",
        "validate",
        "--disk",
        "hp-c2247a",
        "--trace",
        &data("hp_c2247a.trace"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let preset = String::from_utf8(o.stdout).unwrap();
    assert_eq!(preset.lines().nth(1), text.lines().nth(1));

    // A timed trace is not a validation trace: a typed error naming it.
    let o = spindle(&[
        "validate",
        "--disk",
        "hp-c2247a",
        "--trace",
        &data("ascii.trace"),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("ascii.trace"), "{}", stderr(&o));
}

#[test]
fn admit_decides_the_example_task_set_under_each_version() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tasks.toml");
    let o = spindle(&["--format", "json", "admit", example]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    // The 4 MB/s bulk copy fits no version; the 400 KB/s stream fits only
    // the versions that read each task's data contiguously.
    assert!(text.contains("refused: Eq. (7)"), "{text}");
    assert!(text.contains("refused: Eq. (10)"), "{text}");
    let table = String::from_utf8_lossy(&spindle(&["admit", example]).stdout).into_owned();
    assert!(table.contains("admitted: R 5, C 6, CA 6"), "{table}");
}
