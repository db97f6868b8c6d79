//! `spindle txn`, `spindle repro chen-towsley91` and `spindle bench txn`:
//! outputs in every format, plots, results independent of `--jobs`, and
//! clear errors for bad parameters.

mod support;
use support::{spindle, stdout};

fn fails_naming(args: &[&str], field: &str) {
    let o = spindle(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(field), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

const SMALL: [&str; 6] = [
    "--replications",
    "3",
    "--transactions",
    "120",
    "--warmup",
    "20",
];

#[test]
fn bad_parameters_are_errors_naming_the_field() {
    fails_naming(&["txn", "--users", "0"], "users");
    fails_naming(&["txn", "--alpha", "0.5"], "alpha");
    fails_naming(&["txn", "--k", "0"], "deadline k");
    fails_naming(&["txn", "--k=-1"], "--k");
    fails_naming(&["txn", "--steps-min", "5", "--steps-max", "2"], "steps");
    fails_naming(&["txn", "--think-ms=-3"], "--think-ms");
    fails_naming(&["txn", "--read-probability", "1.5"], "--read-probability");
    fails_naming(&["txn", "--io", "no-such-policy"], "--io");
    fails_naming(&["txn", "--warmup", "2000"], "transactions");
    fails_naming(&["repro", "chen-towsley91", "--figure", "14"], "--figure");
}

#[test]
fn one_configuration_as_json() {
    let mut args = vec!["--format", "json", "txn", "--io", "rt-cmq", "--users", "6"];
    args.extend(SMALL);
    let out = stdout(&spindle(&args));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let text = json.to_string();
    for metric in ["loss_ratio", "response_ms", "queue_aux", "aux_over_one"] {
        assert!(text.contains(metric), "{metric} missing from {text}");
    }
}

#[test]
fn a_figure_as_csv_with_its_plot_and_the_same_numbers_on_any_jobs() {
    let dir = std::env::temp_dir().join(format!("spindle-ct91-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("fig7.svg");
    let run = |jobs: &str, plot: bool| {
        let mut args = vec![
            "--format",
            "csv",
            "repro",
            "chen-towsley91",
            "--figure",
            "7",
            "--jobs",
            jobs,
        ];
        args.extend(SMALL);
        if plot {
            args.extend(["--plot", svg.to_str().unwrap()]);
        }
        stdout(&spindle(&args))
    };
    let serial = run("1", true);
    assert_eq!(serial, run("2", false));
    let rows: Vec<&str> = serial
        .lines()
        .skip(2)
        .filter(|l| l.starts_with("RT-CMQ"))
        .collect();
    assert_eq!(rows.len(), 3 * 9, "three variants × nine user counts");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.contains("<svg") && plot.contains("RT-CMQ-W"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_reports_transactions_per_second() {
    let out = stdout(&spindle(&[
        "--format",
        "csv",
        "bench",
        "txn",
        "--io",
        "ssedo",
        "--transactions",
        "500",
        "--runs",
        "1",
    ]));
    let line = out.lines().find(|l| l.starts_with("ssedo")).unwrap();
    let per_s: f64 = line.split(',').nth(3).unwrap().parse().unwrap();
    assert!(per_s > 0.0, "{line}");
}
