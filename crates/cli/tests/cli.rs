//! The `spindle` command as a user meets it: determinism across thread
//! counts, clear errors for bad arguments and bad files, end-to-end trace
//! replay of the bundled DiskSim and SRT traces, and `spindle trace-info` on
//! every trace format.

mod support;
use support::{data, spindle, stderr};

use serde_json::Value;

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
    // The note, however it wraps.
    let note = text
        .split_once("Closed-loop validation replay")
        .expect("a validation note")
        .1
        .replace('\n', " ");
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
    assert!(svg.contains("<svg") && svg.contains("HP C2247A, measured"));
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
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rows = json["rows"].as_array().expect("rows");
    // One row per task and version, each figure typed.
    assert_eq!(rows.len(), 7 * 3);
    let refused: Vec<&str> = rows
        .iter()
        .filter(|r| r["admitted"] == false)
        .map(|r| r["refused by"].as_str().unwrap())
        .collect();
    assert!(refused.iter().any(|w| w.contains("Eq. (7)")), "{text}");
    assert!(refused.iter().any(|w| w.contains("Eq. (10)")), "{text}");
    assert!(rows[0]["rounds/period"].is_number(), "{text}");
    let table = String::from_utf8_lossy(&spindle(&["admit", example]).stdout).into_owned();
    assert!(table.contains("admitted: R 5, C 6, CA 6"), "{table}");
}

// ------------------------------------------------------------- trace-info
//
// The SRT figures are those disk-emu's `srt_tests` establish and cross-check
// against the raw bytes: 44,519 records, 13,040 reads, 31,479 writes, 2 disks
// (42,252 and 2,267 requests), a span of 603,064.588892 s, 256-byte sectors.

/// The JSON tables `spindle trace-info` prints for `args`.
fn info(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--format", "json", "trace-info"];
    all.extend_from_slice(args);
    let o = spindle(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_array().unwrap().clone()
}

/// The tables by title, with the first (titled after the file) as "overview".
fn table<'a>(tables: &'a [Value], title: &str) -> &'a Value {
    if title == "overview" {
        return &tables[0];
    }
    tables
        .iter()
        .find(|t| t["title"] == title)
        .unwrap_or_else(|| panic!("no table {title}"))
}

/// One figure of the overview table.
fn figure(tables: &[Value], name: &str) -> Value {
    table(tables, "overview")["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["figure"] == name)
        .unwrap_or_else(|| panic!("no figure {name}"))["value"]
        .clone()
}

fn column(t: &Value, name: &str) -> Vec<Value> {
    t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[name].clone())
        .collect()
}

#[test]
fn trace_info_describes_the_bundled_srt_trace() {
    let tables = info(&[&data("ajw.1week.srt")]);
    assert!(
        tables[0]["title"]
            .as_str()
            .unwrap()
            .ends_with("ajw.1week.srt: srt trace, 44519 requests")
    );
    assert_eq!(figure(&tables, "requests"), 44_519);
    assert_eq!(figure(&tables, "reads"), 13_040);
    assert_eq!(figure(&tables, "writes"), 31_479);
    assert_eq!(figure(&tables, "suspect records set aside"), 0);
    assert_eq!(figure(&tables, "devices"), 2);
    assert_eq!(figure(&tables, "first arrival s"), 0.0);
    assert_eq!(figure(&tables, "span s"), 603_064.588_892);
    assert_eq!(figure(&tables, "end block"), 654_056);

    let header = table(&tables, "SRT header");
    assert_eq!(
        column(header, "value")[..4],
        [
            "1.3",
            "(IOAdaptor Upgrade Version)",
            "1992-05-30 00:03:06",
            "hplajw.hpl.hp.com"
        ]
    );
    let disks = table(&tables, "SRT disks (geometry from the header)");
    assert_eq!(column(disks, "sector B"), [256, 256]);
    assert_eq!(column(disks, "sectors"), [1_309_896, 1_309_896]);
    assert_eq!(column(disks, "requests"), [42_252, 2_267]);
    let sections = table(&tables, "SRT sections");
    assert_eq!(
        column(sections, "name"),
        ["/", "<swap>", "<swap2>", "<swap>"]
    );
    assert_eq!(column(sections, "requests"), [40_295, 1_055, 902, 2_267]);
    assert_eq!(column(sections, "raw"), [2, 0, 0, 0]);
    let devices = table(&tables, "Requests by device");
    assert_eq!(column(devices, "device"), [0, 1]);
    assert_eq!(column(devices, "reads"), [10_887, 2_153]);
    assert_eq!(column(devices, "writes"), [31_365, 114]);
    let sizes = table(&tables, "Request sizes");
    assert_eq!(column(sizes, "blocks"), [2, 2, 4, 16, 16, 16, 16, 512]);

    // In 8 KB blocks, rounded outward: "/" starts 4 KB off an 8 KB boundary
    // (sector 171,760 × 256 bytes = 5,367.5 × 8 KB), so each of its 8 KB
    // file-system blocks touches two 8 KB blocks.
    let coarse = info(&[&data("ajw.1week.srt"), "--block-size", "8192"]);
    assert_eq!(figure(&coarse, "block bytes"), 8192);
    assert_eq!(column(table(&coarse, "Request sizes"), "blocks")[3], 2);
}

#[test]
fn trace_info_prints_tables_and_csv() {
    let o = spindle(&["trace-info", &data("ajw.1week.srt")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("Span: 6 d 23:31:04.588892000."), "{text}");
    assert!(
        text.contains("   0        8  /              171760  1138136"),
        "{text}"
    );
    let o = spindle(&["trace-info", &data("ajw.1week.srt"), "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = String::from_utf8(o.stdout).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with("srt trace, 44519 requests"));
    assert_eq!(lines.next(), Some("figure,value"));
    assert_eq!(lines.next(), Some("requests,44519"));
    assert!(
        csv.contains("\n# Request sizes\nquantile,blocks,KiB\nmin,2,1\n"),
        "{csv}"
    );
}

#[test]
fn trace_info_reads_every_format() {
    // DiskSim ASCII: 100,000 requests, 79,634 reads (awk over the flags).
    let tables = info(&[&data("ascii.trace")]);
    assert_eq!(figure(&tables, "requests"), 100_000);
    assert_eq!(figure(&tables, "reads"), 79_634);
    assert_eq!(figure(&tables, "devices"), 14);
    // A validation trace has no arrival times: its run time is measured.
    let tables = info(&[
        &data("hp_c2247a.trace"),
        "--trace-format",
        "disksim-validate",
    ]);
    assert_eq!(figure(&tables, "requests"), 9_999);
    assert!(figure(&tables, "measured run s").as_f64().unwrap() > 290.0);

    let scratch = tempfile::tempdir().unwrap();
    let msr = scratch.path().join("small.csv");
    std::fs::write(
        &msr,
        "128166372003061629,hm,1,Read,383496192,32768,1599\n\
         128166372016382155,hm,1,Write,3909255168,4096,1263\n\
         128166372026382245,hm,0,Read,0,512,100\n",
    )
    .unwrap();
    let tables = info(&[msr.to_str().unwrap()]);
    assert!(
        tables[0]["title"]
            .as_str()
            .unwrap()
            .contains("msr trace, 3 requests")
    );
    assert_eq!(
        column(table(&tables, "Requests by device"), "requests"),
        [1, 2]
    );
    assert_eq!(figure(&tables, "span s"), 2.3320616);

    let spc = scratch.path().join("small.spc");
    std::fs::write(
        &spc,
        "0,20941264,8192,W,0.551706\n1,20939840,512,r,0.554041,x\n",
    )
    .unwrap();
    let tables = info(&[spc.to_str().unwrap()]);
    assert!(
        tables[0]["title"]
            .as_str()
            .unwrap()
            .contains("spc trace, 2 requests")
    );
    assert_eq!(
        column(table(&tables, "Request sizes"), "blocks"),
        [1, 1, 1, 1, 16, 16, 16, 16]
    );
}

#[test]
fn trace_info_errors_name_the_file_and_position() {
    let scratch = tempfile::tempdir().unwrap();
    let whole = std::fs::read(data("ajw.1week.srt")).unwrap();

    let cut = scratch.path().join("cut.srt");
    std::fs::write(&cut, &whole[..2_204 + 14 * 56 + 12]).unwrap();
    let o = spindle(&["trace-info", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("cut.srt: record 15 at byte 2988: the file ends 12 bytes into the record"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let mut flipped = whole[..2_204 + 10 * 56].to_vec();
    flipped[2_204 + 4 * 56 + 35] ^= 0x40;
    let bad = scratch.path().join("flipped.srt");
    std::fs::write(&bad, &flipped).unwrap();
    let o = spindle(&["trace-info", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("flipped.srt: record 5 at byte 2428, field \"devno\""),
        "{err}"
    );

    let mut header = whole[..2_204].to_vec();
    header[59] = b'!';
    let bad_header = scratch.path().join("header.srt");
    std::fs::write(&bad_header, &header).unwrap();
    let o = spindle(&["trace-info", bad_header.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("header.srt:2: SRT header"), "{err}");

    let text = scratch.path().join("bad.trace");
    std::fs::write(&text, "0.5 0 100 8 1\n1.0 0 x12 8 1\n").unwrap();
    let o = spindle(&["trace-info", text.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad.trace:2: field \"block\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_bundled_srt_trace_replays_at_its_times() {
    let o = spindle(&[
        "--format",
        "json",
        "replay",
        &data("ajw.1week.srt"),
        "--speed",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["title"].as_str().unwrap().contains("(srt)"), "{v}");
    assert_eq!(column(&v, "requests"), [42_252, 2_267]);

    // A disk of 6,000 blocks cannot hold disk 0's first request.
    let o = spindle(&[
        "replay",
        &data("ajw.1week.srt"),
        "--disk",
        "chen-towsley-91",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("ajw.1week.srt, record 3 at byte 2316: "),
        "{}",
        stderr(&o)
    );
}

/// The numeric options are checked before any work starts, in one layer:
/// each refusal names the flag and what is allowed (cases a user hit).
#[test]
fn numeric_options_are_bounded_and_name_their_flag() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["run", "--jobs", "4294967296"], "--jobs", "four per core"),
        (&["run", "--jobs", "0"], "--jobs", "must be in 1..="),
        (
            &["repro", "tsai04", "--sets", "4294967296"],
            "--sets",
            "must be in 2..=10000",
        ),
        (
            &["repro", "tsai04", "--seconds", "0"],
            "--seconds",
            "must be in 1..=3600",
        ),
        (
            &["repro", "tsai04", "--seconds", "100000"],
            "--seconds",
            "must be in 1..=3600",
        ),
        (
            &["repro", "tsai04", "--step", "0"],
            "--step",
            "must be in 1..=1000",
        ),
        (
            &["run", "--warmup", "99999999999"],
            "--warmup",
            "must be in 0..=",
        ),
        (
            &["run", "--requests", "4294967296"],
            "--requests",
            "must be in 1..=",
        ),
        (
            &["run", "--replications", "1"],
            "--replications",
            "needs two",
        ),
        (
            &["repro", "towsley91", "--replications", "1"],
            "--replications",
            "needs two",
        ),
        (
            &["repro", "chen-towsley91", "--replications", "0"],
            "--replications",
            "needs two",
        ),
        (
            &["txn", "--replications", "0"],
            "--replications",
            "needs two",
        ),
        (
            &["bench", "emu", "--runs", "0"],
            "--runs",
            "must be in 1..=",
        ),
        (&["run", "--load", "-0.5"], "--load", "must be above 0"),
        (&["run", "--load", "NaN"], "--load", "not a finite number"),
        (
            &["run", "--read-fraction", "1.5"],
            "--read-fraction",
            "fraction in [0, 1]",
        ),
        (&["run", "--clients", "0"], "--clients", "must be in 1..="),
        (
            &["run", "--clients", "100000"],
            "--clients",
            "must be in 1..=65535",
        ),
        (
            &["run", "--load", "1.2"],
            "--allow-overload",
            "lower --load",
        ),
        (
            &["txn", "--no-deadlines", "--dl-low", "3"],
            "--no-deadlines",
            "cannot be used with",
        ),
        (
            &["repro", "towsley91", "--plot", "x.gif"],
            "--plot",
            "`.gif` is not drawn",
        ),
        (
            &["bench", "emu", "--load", "1e-300", "--requests", "10"],
            "--load",
            "past what the clock counts",
        ),
    ];
    for (args, flag, words) in cases {
        let out = spindle(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(err.starts_with("error:"), "{args:?}: {err}");
        assert!(err.contains(flag) && err.contains(words), "{args:?}: {err}");
    }
    // A bad token of 100 kB (about the most one argument may be) is not
    // echoed whole.
    let token = "9".repeat(100_000);
    let out = spindle(&["run", "--replications", &token]);
    assert!(!out.status.success());
    assert!(
        out.stderr.len() < 2_000,
        "{} bytes of stderr",
        out.stderr.len()
    );
}

/// An error is said once, even when its cause is part of its own message.
#[test]
fn errors_say_their_cause_once() {
    let out = spindle(&["replay", "/nonexistent/trace.srt"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}

/// An empty validation trace is refused by name, with or without a plot
/// (it used to panic drawing the plot, and print NaN without one).
#[test]
fn an_empty_validation_trace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.trace");
    std::fs::write(&empty, "").unwrap();
    let plot = dir.path().join("out.svg");
    for with_plot in [false, true] {
        let mut args = vec![
            "validate".to_string(),
            "--parv".into(),
            data("hp_c2247a.parv"),
            "--trace".into(),
            empty.to_string_lossy().into_owned(),
        ];
        if with_plot {
            args.extend(["--plot".to_string(), plot.to_string_lossy().into_owned()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = spindle(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "accepted");
        assert!(
            err.starts_with("error: --trace") && err.contains("no requests"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// An endless input is refused after a bound, not read until memory runs out.
#[test]
fn endless_inputs_are_refused() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    for args in [
        &["admit", "/dev/zero"][..],
        &["validate", "--parv", "/dev/zero", "--trace", "x"],
        &["run", "--disk", "disksim:/dev/zero"],
    ] {
        let out = spindle(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            err.contains("/dev/zero") && err.contains("larger than 64 MiB"),
            "{args:?}: {err}"
        );
    }
}

/// `run` takes array policies (on a mirrored pair) and, whenever requests
/// carry deadlines, shows misses, drops and tardiness.
#[test]
fn run_shows_deadline_outcomes_for_disk_and_array_policies() {
    let csv = |args: &[&str]| {
        let out = spindle(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let mirrored = csv(&[
        "run",
        "--policy",
        "rt-dmq",
        "--disks",
        "2",
        "--deadline-ms",
        "50..150",
        "--replications",
        "3",
        "--requests",
        "2000",
        "--format",
        "csv",
    ]);
    let header = mirrored.lines().find(|l| l.starts_with("policy,")).unwrap();
    for column in [
        "read ms",
        "util disk 2",
        "missed %",
        "dropped",
        "tardiness ms",
    ] {
        assert!(header.contains(column), "{header}");
    }
    // FD-SCAN dropping expired requests at 0.9 drops a visible share; EDF
    // drops nothing and misses more.
    let dropping = csv(&[
        "run",
        "--policy",
        "fd-scan:expired=drop",
        "--policy",
        "edf",
        "--deadline-ms",
        "20..40",
        "--load",
        "0.9",
        "--replications",
        "3",
        "--requests",
        "2000",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&dropping).unwrap();
    let rows = json["tables"][0]["rows"]
        .as_array()
        .or(json["rows"].as_array())
        .expect("rows");
    let mean = |i: usize, column: &str| rows[i][column]["mean"].as_f64().unwrap();
    // Measured (seed 1, 3 × 2000 requests): FD-SCAN drops 552 and misses
    // 57.6 %; EDF drops none and misses 90.1 %. Bands either side.
    assert!(
        (350.0..800.0).contains(&mean(0, "dropped")),
        "FD-SCAN dropped {}",
        mean(0, "dropped")
    );
    assert!(
        (45.0..70.0).contains(&mean(0, "missed %")),
        "FD-SCAN missed {}",
        mean(0, "missed %")
    );
    assert_eq!(mean(1, "dropped"), 0.0);
    assert!(
        (80.0..97.0).contains(&mean(1, "missed %")),
        "EDF missed {}",
        mean(1, "missed %")
    );
    // Refusals that say what to do.
    for (args, words) in [
        (
            &["run", "--policy", "rt-dmq", "--policy", "fcfs"][..],
            "separate commands",
        ),
        (&["run", "--policy", "rt-dmq", "--disks", "1"], "needs 2"),
        // The default policy (fcfs) is named too.
        (&["run", "--disks", "2"], "fcfs needs 1"),
        // A placement lays out a pair: with a single-disk policy it is refused.
        (&["run", "--placement", "reversed"], "fcfs runs on one disk"),
        (&["run", "--policy", "wrr-scan"], "spindle admit"),
    ] {
        let out = spindle(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(words),
            "{args:?}: {err}"
        );
    }
}

/// A replay with nothing to replay, or a speed-up it cannot apply, is
/// refused rather than printing an empty table.
#[test]
fn replays_of_nothing_are_refused() {
    let trace = data("ascii.trace");
    let out = spindle(&["replay", &trace, "--device", "99"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("no requests to replay for --device 99"),
        "{err}"
    );
    let validation = data("hp_c2247a.trace");
    let out = spindle(&["replay", &validation, "--speed", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("closed-loop validation trace"),
        "{err}"
    );
}

/// `--out-dir` writes each table of a several-table command to its own
/// parseable CSV; the CSV header of an estimate is `x` and `x_ci95`.
#[test]
fn several_tables_go_to_their_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tables");
    let out = spindle(&[
        "repro",
        "towsley91",
        "--figure",
        "2",
        "--replications",
        "2",
        "--requests",
        "300",
        "--warmup",
        "30",
        "--format",
        "csv",
        "--out-dir",
        out_dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stderr).unwrap();
    let files: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_prefix("wrote "))
        .collect();
    assert!(files.len() >= 2, "{listed}");
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(!text.contains("\n#") && !text.starts_with('#'), "{file}");
        let width = text.lines().next().unwrap().split(',').count();
        assert!(width > 2);
    }
    let txn = spindle(&[
        "txn",
        "--replications",
        "2",
        "--transactions",
        "60",
        "--warmup",
        "5",
        "--format",
        "csv",
    ]);
    let header = String::from_utf8(txn.stdout).unwrap();
    assert!(
        header.starts_with("metric,mean,mean_ci95,meaning"),
        "{header}"
    );
}

/// The analytic models at a configuration the user chooses, every model or
/// some; past a model's limit it says so in its row.
#[test]
fn analyze_answers_at_a_chosen_configuration() {
    let out = spindle(&[
        "analyze",
        "towsley91",
        "--lambda",
        "30",
        "--p-read",
        "0.7",
        "--mu",
        "45",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7);
    // MR-ESQ: each disk an M/M/1 fed half the requests, 1 / (μ − λ/2).
    let mr = rows.iter().find(|r| r["model"] == "MR-ESQ").unwrap();
    let read = mr["read ms"].as_f64().unwrap();
    assert!((read - 1e3 / (45.0 - 15.0)).abs() < 0.01, "{read}");
    let out = spindle(&["analyze", "towsley91", "--lambda", "80", "--model", "cmq"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("unstable at λ = 80/s"),
        "{text}"
    );
    let out = spindle(&["analyze", "towsley91", "--lambda", "30", "--model", "nope"]);
    assert!(!out.status.success());
}

// ------------------------------------------------------- issue 20, part 3

/// Whether a JSON string reads as a number or numbers packed into text
/// ("0.9", "68 @12", "1.2..3.4", "+5 %"): what a typed output must not hold.
fn looks_numeric(s: &str) -> bool {
    let s = s.trim();
    let starts_numeric = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '+' || c == '-');
    s.parse::<f64>().is_ok()
        || (starts_numeric && (s.contains(" @") || s.contains("..") || s.ends_with(" %")))
}

/// Every string value in the rows of `json` (one table or an array of
/// them), but those of `except` tables (free text that may look numeric).
fn untyped_values(json: &Value, except: &[&str]) -> Vec<String> {
    let tables: Vec<&Value> = match json {
        Value::Array(tables) => tables.iter().collect(),
        table => vec![table],
    };
    let mut found = Vec::new();
    for t in tables {
        if except.iter().any(|e| t["title"] == *e) {
            continue;
        }
        for row in t["rows"].as_array().expect("rows") {
            for (column, value) in row.as_object().expect("a row is an object") {
                if let Some(s) = value.as_str()
                    && looks_numeric(s)
                {
                    found.push(format!("{}: {column} = {s:?}", t["title"]));
                }
            }
        }
    }
    found
}

/// A small DiskSim ASCII trace (ms, device, block, blocks, flags) in `dir`.
fn small_trace(dir: &std::path::Path, name: &str, lines: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, lines).unwrap();
    path.to_string_lossy().into_owned()
}

/// Every command's JSON carries numbers as numbers (`run` printed
/// `"load": "0.9"`), booleans as booleans, and nothing packed into text.
#[test]
fn every_json_output_is_typed() {
    let dir = tempfile::tempdir().unwrap();
    let trace = small_trace(
        dir.path(),
        "t.trace",
        "0 0 100 8 1\n3 0 90000 8 0\n7 1 5000 1 1\n9 0 400000 16 1\n",
    );
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tasks.toml");
    let small = ["--requests", "300", "--replications", "2"];
    let mut commands: Vec<Vec<&str>> = vec![
        vec![
            "run",
            "--load",
            "0.9",
            "--deadline-ms",
            "20..40",
            "--policy",
            "edf",
        ],
        vec!["run", "--rate", "30", "--policy", "sstf"],
        vec![
            "run",
            "--policy",
            "rt-dmq",
            "--clients",
            "3",
            "--deadline-ms",
            "50..150",
        ],
        vec![
            "run",
            "--policy",
            "cmq",
            "--load",
            "1.5",
            "--allow-overload",
        ],
    ];
    for c in &mut commands {
        c.extend(small);
    }
    commands.extend([
        vec!["replay", &trace],
        vec![
            "repro",
            "towsley91",
            "--figure",
            "2",
            "--replications",
            "2",
            "--requests",
            "300",
            "--warmup",
            "30",
        ],
        vec![
            "repro",
            "tsai04",
            "--figure",
            "5",
            "--sets",
            "2",
            "--seconds",
            "1",
            "--step",
            "45",
        ],
        vec![
            "txn",
            "--replications",
            "2",
            "--transactions",
            "60",
            "--warmup",
            "5",
        ],
        vec!["admit", example],
        vec!["trace-info", &trace],
        vec!["bench", "emu", "--requests", "2000", "--runs", "1"],
        vec![
            "bench",
            "txn",
            "--transactions",
            "200",
            "--runs",
            "1",
            "--io",
            "fcfs",
        ],
        vec![
            "bench",
            "sched",
            "--depth",
            "16",
            "--rounds",
            "2",
            "--requests",
            "200",
            "--policy",
            "sstf",
            "--policy",
            "rt-dmq",
        ],
        vec!["analyze", "towsley91", "--lambda", "30"],
        vec!["presets"],
        vec!["policies"],
    ]);
    for args in commands {
        let mut all = args.clone();
        all.extend(["--format", "json"]);
        let out = spindle(&all);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let json: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"));
        let untyped = untyped_values(&json, &["SRT header"]);
        assert!(untyped.is_empty(), "{args:?}: {untyped:#?}");
    }
    // The load the issue found as a string, and an overloaded run's cells.
    let out = spindle(&[
        "run",
        "--load",
        "0.9",
        "--requests",
        "300",
        "--replications",
        "2",
        "--format",
        "json",
    ]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["rows"][0]["load"], 0.9);
    assert!(json["rows"][0]["rate/s"].is_f64());
}

/// `--samples FILE`: one row per measured request, the same bytes whatever
/// `--jobs` says, as many rows as the run measured (drops included), the
/// file checked before any work.
#[test]
fn run_and_replay_write_per_request_samples() {
    let dir = tempfile::tempdir().unwrap();
    let samples = |jobs: &str| {
        let path = dir.path().join(format!("samples-{jobs}.csv"));
        let out = spindle(&[
            "run",
            "--policy",
            "fd-scan:expired=drop",
            "--policy",
            "sstf",
            "--deadline-ms",
            "20..40",
            "--load",
            "0.9",
            "--requests",
            "400",
            "--replications",
            "3",
            "--jobs",
            jobs,
            "--samples",
            path.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        (std::fs::read_to_string(&path).unwrap(), json)
    };
    let (one, json) = samples("1");
    let (two, _) = samples("2");
    assert_eq!(one, two, "--samples depends on --jobs");
    let mut lines = one.lines();
    assert_eq!(
        lines.next(),
        Some(
            "policy,load,rate_per_s,replication,id,arrival_ns,kind,block,cylinder,blocks,wait_ns,response_ns,deadline_ns,outcome"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let outcome = |policy: &str, what: &str| {
        rows.iter()
            .filter(|r| r[0].starts_with(policy) && r[13] == what)
            .count() as f64
    };
    // FD-SCAN's drops and both policies' misses are the table's, summed
    // over the 3 replications (its figures are means per replication).
    let table = &json["rows"];
    let dropped = table[0]["dropped"]["mean"].as_f64().unwrap() * 3.0;
    assert!(dropped > 0.0);
    assert!((outcome("fd-scan", "dropped") - dropped).abs() < 0.5);
    assert_eq!(outcome("sstf", "dropped"), 0.0);
    let served = |policy: &str| outcome(policy, "met") + outcome(policy, "missed");
    assert_eq!(served("fd-scan"), 1200.0);
    assert_eq!(served("sstf"), 1200.0);
    // A dropped request has no response; a served one's is wait + service.
    for r in &rows {
        let response = r[11].parse::<u64>().ok();
        assert_eq!(response.is_none(), r[13] == "dropped", "{r:?}");
        if let Some(response) = response {
            assert!(r[10].parse::<u64>().unwrap() <= response, "{r:?}");
        }
    }

    // A replay: one row per request, blocks as placed.
    let trace = small_trace(
        dir.path(),
        "t.trace",
        "0 0 100 8 1\n3 0 90000 8 0\n7 1 5000 1 1\n9 0 400000 16 1\n",
    );
    let path = dir.path().join("replay.csv");
    let out = spindle(&["replay", &trace, "--samples", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(
        text.starts_with("device,id,arrival_ns,kind,block,cylinder,blocks,wait_ns,response_ns\n"),
        "{text}"
    );
    assert!(text.contains("\n1,2,7000000,R,5000,"), "{text}");

    // Checked before the run: a directory that does not exist.
    let out = spindle(&["run", "--samples", "/nonexistent-dir/s.csv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("--samples") && err.contains("does not exist"),
        "{err}"
    );
    // More rows than a file takes.
    let out = spindle(&[
        "run",
        "--requests",
        "1000000000",
        "--replications",
        "200",
        "--samples",
        dir.path().join("huge.csv").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("lower --requests"),
        "{}",
        stderr(&out)
    );
}

/// A trace larger than the emulated disk: refused with the option that
/// fits it, wrapped or scaled on request.
#[test]
fn a_trace_larger_than_the_disk_is_refused_or_fitted() {
    let dir = tempfile::tempdir().unwrap();
    // The chen-towsley-91 disk holds 6,000 blocks.
    let trace = small_trace(
        dir.path(),
        "big.trace",
        "0 0 0 8 1\n10 0 5000 8 1\n20 0 10000 8 1\n30 0 20000 8 1\n40 1 7 1 1\n",
    );
    let out = spindle(&["replay", &trace, "--disk", "chen-towsley-91"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("big.trace, line 3: block 10000 is beyond the end of the disk")
            && err.contains("--fit wrap")
            && err.contains("--fit scale"),
        "{err}"
    );
    assert_eq!(err.matches("beyond the end").count(), 1, "{err}");
    for (fit, moved, blocks) in [
        ("wrap", 2, ["0", "5000", "4000", "2000", "7"]),
        ("scale", 3, ["0", "1499", "2998", "5992", "7"]),
    ] {
        let samples = dir.path().join(format!("{fit}.csv"));
        let out = spindle(&[
            "replay",
            &trace,
            "--disk",
            "chen-towsley-91",
            "--fit",
            fit,
            "--samples",
            samples.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{fit}: {}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!("{moved} of 5 requests reached past the end")),
            "{text}"
        );
        let mut placed: Vec<(u64, String)> = std::fs::read_to_string(&samples)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[1].parse().unwrap(), f[4].to_string())
            })
            .collect();
        placed.sort();
        let placed: Vec<&str> = placed.iter().map(|(_, b)| b.as_str()).collect();
        assert_eq!(placed, blocks, "{fit}");
    }
    let out = spindle(&["replay", &trace, "--fit", "squeeze"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `spindle bench sched`: each policy's time per request and its ratio to
/// FCFS timed in the same rounds; a rate-based policy is refused with the
/// bench that measures it.
#[test]
fn bench_sched_times_each_policy_against_fcfs() {
    let out = spindle(&[
        "bench",
        "sched",
        "--depth",
        "32",
        "--rounds",
        "3",
        "--requests",
        "300",
        "--policy",
        "fcfs",
        "--policy",
        "sptf",
        "--policy",
        "dmq",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(column(&json, "policy"), ["fcfs", "sptf", "dmq"]);
    assert_eq!(column(&json, "kind"), ["disk", "disk", "array"]);
    for r in rows {
        let ns = r["ns per request"].as_f64().unwrap();
        let ratio = r["× FCFS"].as_f64().unwrap();
        assert!(ns > 0.0 && ns.is_finite() && ratio > 0.0, "{r}");
        assert!(r["fastest round ns"].as_f64().unwrap() <= ns, "{r}");
    }
    let out = spindle(&["bench", "sched", "--policy", "wrr-scan"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--wrr"), "{}", stderr(&out));
    let out = spindle(&["bench", "--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(
        help.contains("sched") && help.contains("decision"),
        "{help}"
    );
}

/// A policy the run gives nothing to order by is warned about on stderr,
/// and the run goes on: deadline policies without deadlines, seek-aware
/// policies on a disk whose seek time ignores the distance.
#[test]
fn runs_warn_when_a_policy_has_nothing_to_order_by() {
    let run = |args: &[&str]| {
        let mut all = vec!["run", "--requests", "200", "--replications", "2"];
        all.extend_from_slice(args);
        let out = spindle(&all);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stderr(&out)
    };
    for policy in ["edf", "ssedo", "ssedv", "fd-scan", "scan-edf"] {
        let err = run(&["--policy", policy]);
        assert!(
            err.starts_with("warning: ")
                && err.contains("by deadline")
                && err.contains("--deadline-ms"),
            "{policy}: {err}"
        );
    }
    let err = run(&["--policy", "rt-dmq"]);
    assert!(
        err.contains("warning: rt-dmq orders requests by deadline"),
        "{err}"
    );
    let err = run(&["--policy", "sstf", "--disk", "exponential"]);
    assert!(
        err.contains("warning: sstf orders requests by cylinder") && err.contains("`exponential`"),
        "{err}"
    );
    let err = run(&["--policy", "sptf", "--disk", "ibm3330"]);
    assert!(err.contains("by positioning time"), "{err}");
    // Nothing to say.
    for args in [
        &["--policy", "sstf"][..],
        &["--policy", "edf", "--deadline-ms", "20..40"],
        &["--policy", "fcfs", "--disk", "exponential"],
    ] {
        let err = run(args);
        assert!(!err.contains("warning"), "{args:?}: {err}");
    }
    let out = spindle(&["replay", &data("hp_c2247a.trace"), "--policy", "edf"]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("a trace's requests have none"),
        "{}",
        stderr(&out)
    );
}

/// Copies of the HP C2247A's DiskSim files in a scratch directory, the
/// model changed by `edit`; the `.parv` to load.
fn broken_drive(dir: &std::path::Path, edit: impl Fn(&mut Vec<u8>)) -> String {
    for name in [
        "hp_c2247a.parv",
        "hp_c2247a.diskspecs",
        "hp_c2247a_validate.model",
    ] {
        let mut bytes = std::fs::read(data(name)).unwrap();
        if name.ends_with(".model") {
            edit(&mut bytes);
        }
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    format!("disksim:{}", dir.join("hp_c2247a.parv").display())
}

/// A change made to a file's bytes.
type Edit = dyn Fn(&mut Vec<u8>);

/// A broken `.model` sourced through the `.parv` is blamed on its own
/// line and field, not on the line that sources it.
#[test]
fn a_broken_model_is_blamed_on_its_own_line() {
    let replace = |from: &str, to: &str| {
        let (from, to) = (from.to_string(), to.to_string());
        move |bytes: &mut Vec<u8>| {
            let text = String::from_utf8(bytes.clone())
                .unwrap()
                .replacen(&from, &to, 1);
            *bytes = text.into_bytes();
        }
    };
    let cases: Vec<(Box<Edit>, &str)> = vec![
        (
            Box::new(replace(
                "Number of cylinders = 2051",
                "Number of cylinders = 2051x",
            )),
            "hp_c2247a_validate.model:3: `Number of cylinders`: `2051x` is not a number",
        ),
        (
            Box::new(|bytes: &mut Vec<u8>| {
                let at = bytes.windows(5).position(|w| w == b"Block").unwrap();
                bytes[at] = 0xff;
            }),
            "hp_c2247a_validate.model:4: not UTF-8 text",
        ),
        (
            Box::new(|bytes: &mut Vec<u8>| {
                let at = bytes.windows(10).position(|w| w == b"Mechanical").unwrap();
                bytes.truncate(at);
            }),
            "the file ends inside the `{` opened at line 1",
        ),
    ];
    for (k, (edit, blame)) in cases.into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let disk = broken_drive(dir.path(), edit);
        let out = spindle(&[
            "run",
            "--disk",
            &disk,
            "--requests",
            "10",
            "--replications",
            "2",
        ]);
        assert_eq!(out.status.code(), Some(1), "case {k}");
        let err = stderr(&out);
        assert!(
            err.starts_with("error:") && err.contains(blame),
            "case {k}: {err}"
        );
        assert!(!err.contains("diskspecs:"), "case {k}: {err}");
    }
}

/// Tables fit a terminal: cells and the notes under them wrap, so no line
/// of these commands is wider than 120 columns.
#[test]
fn tables_fit_a_terminal() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tasks.toml");
    for args in [
        &["presets"][..],
        &["policies"],
        &["admit", example],
        &["analyze", "towsley91", "--lambda", "30"],
        &["trace-info", &data("ajw.1week.srt")],
    ] {
        let out = spindle(args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= 120, "{args:?}: {widest} columns\n{text}");
    }
    // A run's notes wrap too (its table of figures is as wide as its columns).
    let out = spindle(&["run", "--requests", "200", "--replications", "2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let notes = text.lines().skip_while(|l| !l.starts_with("fcfs")).skip(1);
    for line in notes {
        assert!(line.chars().count() <= 100, "{line}");
    }
}

/// The rest of the cases the issue lists, each refused with its flag (or
/// file and field) and what to do.
#[test]
fn the_issues_other_cases_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let spec =
        |name: &str, toml: &str| file(name, format!("preset = \"hp97560\"\n{toml}\n").as_bytes());
    let rpm_tiny = spec("tiny.toml", "rpm = 1e-10");
    let overhead = spec("overhead.toml", "controller_overhead_ms = 1e308");
    let rpm_inf = spec("inf.toml", "rpm = inf");
    let not_utf8 = file("bytes.toml", b"preset = \"hp97560\"\nname = \"\xff\"\n");
    let parv = {
        let d = dir.path().join("overhead");
        std::fs::create_dir(&d).unwrap();
        let mut specs = std::fs::read_to_string(data("hp_c2247a.diskspecs")).unwrap();
        let line = specs
            .lines()
            .find(|l| l.contains("Per-request overhead time"))
            .unwrap()
            .to_string();
        specs = specs.replace(&line, "   Per-request overhead time = 1e308,");
        std::fs::write(d.join("hp_c2247a.diskspecs"), specs).unwrap();
        for name in ["hp_c2247a.parv", "hp_c2247a_validate.model"] {
            std::fs::copy(data(name), d.join(name)).unwrap();
        }
        format!("disksim:{}", d.join("hp_c2247a.parv").display())
    };
    let empty = file("empty.trace", b"");
    let unknown = file("unknown.txt", b"hello world\n");
    let run = |disk: &str| vec!["run".to_string(), "--disk".into(), disk.to_string()];
    let cases: Vec<(Vec<String>, i32, &[&str])> = vec![
        (run(&rpm_tiny), 1, &["rpm"]),
        (run(&overhead), 1, &["controller_overhead_ms"]),
        (run(&rpm_inf), 1, &["rpm"]),
        (run(&not_utf8), 1, &["bytes.toml", "line 2", "not UTF-8"]),
        (
            run(&parv),
            1,
            &["hp_c2247a.diskspecs", "Per-request overhead time"],
        ),
        (
            vec!["run".into(), "--policy".into(), "ssedo:beta=inf".into()],
            2,
            &["--policy", "beta"],
        ),
        (
            vec!["run".into(), "--policy".into(), "ssedo:m=3,m=4".into()],
            2,
            &["--policy", "once"],
        ),
        (
            vec!["run".into(), "--policy".into(), "ssedv:unit=1".into()],
            2,
            &["--policy", "unit"],
        ),
        (
            vec!["bench".into(), "emu".into(), "--load".into(), "1.5".into()],
            1,
            &["--load", "below 1"],
        ),
        (vec!["replay".into(), empty], 1, &["empty.trace"]),
        (
            vec!["replay".into(), unknown.clone()],
            1,
            &["unknown.txt", "--trace-format"],
        ),
        (vec!["trace-info".into(), unknown], 1, &["--trace-format"]),
        (
            vec![
                "replay".into(),
                data("ascii.trace"),
                "--speed".into(),
                "1e-9".into(),
            ],
            2,
            &["--speed", "0.001"],
        ),
        (
            vec![
                "repro".into(),
                "towsley91".into(),
                "--replications".into(),
                "0".into(),
            ],
            2,
            &["--replications", "needs two"],
        ),
        (
            vec!["txn".into(), "--replications".into(), "1".into()],
            2,
            &["--replications", "needs two"],
        ),
        (
            vec!["txn".into(), "--transactions".into(), "4294967296".into()],
            2,
            &["--transactions", "must be in 1..="],
        ),
        (
            vec!["txn".into(), "--jobs".into(), "4294967296".into()],
            2,
            &["--jobs", "four per core"],
        ),
        (
            vec!["repro".into(), "tsai04".into(), "--jobs".into(), "0".into()],
            2,
            &["--jobs", "must be in 1..="],
        ),
        (
            vec![
                "array".into(),
                "--layout".into(),
                "stripe".into(),
                "--jobs".into(),
                "4294967296".into(),
            ],
            2,
            &["--jobs", "four per core"],
        ),
        (
            vec![
                "array".into(),
                "--layout".into(),
                "stripe".into(),
                "--requests".into(),
                "0".into(),
            ],
            2,
            &["--requests", "must be in 1000..="],
        ),
        (
            vec!["serve".into(), "--threads".into(), "4294967296".into()],
            2,
            &["--threads", "four per core"],
        ),
        (
            vec![
                "serve".into(),
                "--mirror".into(),
                "dmq".into(),
                "--copies".into(),
                "4294967296".into(),
            ],
            2,
            &["--copies", "2..=8"],
        ),
        (
            vec![
                "serve".into(),
                "--disk".into(),
                "zero-latency".into(),
                "--size".into(),
                "1T".into(),
                "--socket".into(),
                "/nonexistent-dir/s.sock".into(),
            ],
            1,
            &["--size", "--file"],
        ),
        (
            vec![
                "run".into(),
                "--plot".into(),
                "/nonexistent-dir/x.svg".into(),
            ],
            2,
            &["--plot", "does not exist"],
        ),
        (
            vec![
                "replay".into(),
                data("ascii.trace"),
                "--policy".into(),
                "rt-dmq".into(),
                "--disks".into(),
                "1".into(),
            ],
            1,
            &[
                "--disks 1",
                "rt-dmq needs 2",
                "array policies on a mirrored pair",
            ],
        ),
        (
            vec![
                "replay".into(),
                data("ascii.trace"),
                "--policy".into(),
                "wrr-scan".into(),
            ],
            2,
            &["--policy", "rate-based"],
        ),
    ];
    for (args, code, words) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = spindle(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.starts_with("error:"), "{args:?}: {err}");
        for w in words {
            assert!(err.contains(w), "{args:?} should say {w:?}: {err}");
        }
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // A queue overflow in txn is said once (it was said three times).
    let out = spindle(&[
        "txn",
        "--users",
        "5000",
        "--io",
        "rt-dmq",
        "--replications",
        "2",
        "--transactions",
        "300",
        "--warmup",
        "0",
        "--transfer-ms",
        "50",
    ]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert_eq!(err.matches("queue full").count(), 1, "{err}");
    // --format's help says what it formats, in every subcommand.
    for sub in ["run", "replay", "txn", "bench"] {
        let out = spindle(&[sub, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(!help.contains("default experiment"), "{sub}: {help}");
    }
    // Completions and the manual page.
    let out = spindle(&["completions", "bash"]);
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().contains("spindle"));
    let out = spindle(&["man"]);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains(".TH spindle")
    );
}

/// `repro --plot fig.svg` of one figure writes fig.svg itself (it wrote
/// fig-fig1.svg).
#[test]
fn a_single_figure_is_plotted_where_asked() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("fig.svg");
    let out = spindle(&[
        "analyze",
        "towsley91",
        "--figure",
        "2",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(plot.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// `spindle ARGS` (run in `dir` when given) must exit with `code` and
/// standard error must hold each of `words`; returns standard error.
fn refused_with(dir: Option<&std::path::Path>, args: &[&str], code: i32, words: &[&str]) -> String {
    let out = match dir {
        Some(dir) => support::spindle_in(dir, args),
        None => spindle(args),
    };
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.starts_with("error:"), "{args:?}: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?}: `{w}` not in: {err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

/// Issue 31, the numeric options of the newer commands: each bounded
/// before any work, refused by the flag's name with what is allowed
/// (clap's refusals exit 2).
#[test]
fn the_newer_commands_numeric_options_are_bounded_by_name() {
    let cases: &[(&[&str], &[&str])] = &[
        // repro ivy / zhang02: replications, warm-up, requests, threads.
        (
            &["repro", "ivy", "--replications", "0"],
            &["--replications", "1..=1000"],
        ),
        (
            &["repro", "ivy", "--replications", "100001"],
            &["--replications", "1..=1000"],
        ),
        (
            &["repro", "zhang02", "--replications", "0"],
            &["--replications", "1..=1000"],
        ),
        (
            &["repro", "zhang02", "--warmup", "1000000000"],
            &["--warmup", "0..=10000000"],
        ),
        (
            &["repro", "zhang02", "--requests", "1"],
            &["--requests", "halves"],
        ),
        (
            &["repro", "zhang02", "--requests", "18446744073709551615"],
            &["--requests", "1000..=10000000"],
        ),
        (
            &["repro", "zhang02", "--jobs", "0"],
            &["--jobs", "four per core"],
        ),
        (
            &["repro", "zhang02", "--jobs", "4294967296"],
            &["--jobs", "four per core"],
        ),
        // Times: the deadline would overflow the clock in nanoseconds.
        (
            &["run", "--deadline-ms", "2e13..2e13"],
            &["--deadline-ms", "the minimum", "0..=1000000000"],
        ),
        (
            &["run", "--deadline-ms", "40..20"],
            &["--deadline-ms", "above the maximum"],
        ),
        (
            &["repro", "ivy", "--delay-s", "1e308"],
            &["--delay-s", "0..=10000000"],
        ),
        // Speed-ups, rates and requests of an array.
        (
            &["array", "--layout", "stripe", "--speedup", "1e308"],
            &["--speedup", "0.01..=1000"],
        ),
        (
            &["array", "--layout", "stripe", "--speedup", "1e-300"],
            &["--speedup", "got 1e-300"],
        ),
        (
            &[
                "array",
                "--layout",
                "stripe",
                "--search",
                "--speedup",
                "1e-9",
            ],
            &["--speedup"],
        ),
        (
            &["array", "--layout", "stripe", "--requests", "1"],
            &["--requests", "halves"],
        ),
        (
            &["array", "--layout", "stripe", "--disks", "0"],
            &["--disks", "1..=64"],
        ),
        // The analytic models' rates.
        (
            &["analyze", "towsley91", "--lambda", "5e-324"],
            &["--lambda", "got 5e-324"],
        ),
        (
            &["analyze", "towsley91", "--lambda", "20", "--mu", "1e308"],
            &["--mu", "0.001..=1000000"],
        ),
        // A block size below a sector blames --block-size, not --fit.
        (
            &["replay", "x.trace", "--block-size", "1"],
            &["--block-size", "512..="],
        ),
        (
            &["trace-info", "x.trace", "--block-size", "0"],
            &["--block-size", "512..="],
        ),
        // The layout's factors are checked as it is read.
        (
            &["array", "--layout", "ew:36x1x1"],
            &["--layout", "mirrors", "1 to 8"],
        ),
        (&["array", "--layout", "sr:6x9"], &["--layout", "replicas"]),
        // A sweep's shards.
        (
            &[
                "sweep",
                "g.toml",
                "--shards",
                "4294967295",
                "--print",
                "shards",
            ],
            &["--shards", "1..=100000"],
        ),
        (
            &["sweep", "g.toml", "--shards", "0", "--print", "shards"],
            &["--shards", "1..=100000"],
        ),
    ];
    for (args, words) in cases {
        refused_with(None, args, 2, words);
    }
}

/// A negative number reaches the option's check, which names the flag:
/// never clap's "unexpected argument '-1' found".
#[test]
fn negative_numbers_are_refused_by_the_flags_name() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--jobs", "-1"], "--jobs"),
        (&["run", "--seed", "-1"], "--seed"),
        (&["run", "--think-ms", "-5", "--clients", "2"], "--think-ms"),
        (
            &["array", "--layout", "stripe", "--speedup", "-2"],
            "--speedup",
        ),
        (
            &["array", "--layout", "stripe", "--disks", "-36"],
            "--disks",
        ),
        (&["repro", "ivy", "--copies", "-1"], "--copies"),
        (
            &["repro", "zhang02", "--replications", "-inf"],
            "--replications",
        ),
        (&["txn", "--step-cpu-ms", "-1e308"], "--step-cpu-ms"),
        (&["analyze", "towsley91", "--lambda", "-nan"], "--lambda"),
        (
            &["sweep", "g.toml", "--shards", "-1", "--print", "shards"],
            "--shards",
        ),
        (&["bench", "sched", "--depth", "-3"], "--depth"),
    ];
    for (args, flag) in cases {
        let err = refused_with(None, args, 2, &[flag]);
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

/// Every bounded option shows its range in `--help`.
#[test]
fn help_shows_each_options_range() {
    for (args, range) in [
        (&["run", "--help"][..], "[range: 2..=10000]"),
        (&["array", "--help"][..], "[range: 0.01..=1000]"),
        (
            &["repro", "zhang02", "--help"][..],
            "[range: 1000..=10000000]",
        ),
        (&["sweep", "--help"][..], "[range: 1..=100000]"),
    ] {
        let out = spindle(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains(range),
            "{args:?}: {text}"
        );
    }
}

/// A decimal of 300 digits is shown short, not echoed whole.
#[test]
fn a_long_decimal_is_not_echoed_whole() {
    let tiny = format!("0.{}1", "0".repeat(300));
    let out = spindle(&["replay", "x.trace", "--speed", &tiny]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--speed") && err.contains("1e-301"), "{err}");
    assert!(!err.contains(&"0".repeat(100)), "{err}");
}

/// `--layout sr:2147483648x2`: the product of the factors wrapped to 0 in
/// u32 and divided by zero; it is too many disks, named before any run.
#[test]
fn an_sr_layout_whose_product_wraps_is_too_many_disks() {
    refused_with(
        None,
        &["array", "--layout", "sr:2147483648x2"],
        1,
        &["--layout sr:2147483648x2 on --disks 36", "needs 4294967296"],
    );
}

/// `array --search --speedup 0.1`: a stride below the search's
/// resolution is refused (it ran 6.4·10¹⁰ simulations at 1e-9).
#[test]
fn an_array_search_has_a_floor_on_its_stride() {
    refused_with(
        None,
        &[
            "array",
            "--layout",
            "stripe",
            "--search",
            "--speedup",
            "0.1",
        ],
        1,
        &["--speedup 0.1", "at least 0.25"],
    );
}

/// An untimed (validation) trace is not replayed by `array --trace` as if
/// every request arrived at once.
#[test]
fn an_array_refuses_an_untimed_trace() {
    refused_with(
        None,
        &[
            "array",
            "--layout",
            "stripe",
            "--disks",
            "2",
            "--trace",
            &data("hp_c2247a.trace"),
            "--requests",
            "1000",
            "--warmup",
            "0",
        ],
        1,
        &["hp_c2247a.trace", "no arrival times"],
    );
}

/// Disk specs: NaN and ∞ refused by field before any default applies, and
/// a geometry far past real drives refused before it allocates.
#[test]
fn disk_specs_refuse_non_finite_numbers_and_huge_geometry() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "skew.toml",
            "preset = \"hp97560\"\n[geometry]\ntrack_skew = nan\n",
            "`geometry.track_skew`",
        ),
        (
            "rpm.toml",
            "preset = \"hp97560\"\nrpm = inf\n",
            "`rpm`: inf is not a finite number",
        ),
        (
            "switch.toml",
            "preset = \"hp97560\"\nhead_switch_ms = nan\n",
            "`head_switch_ms`: NaN is not a finite number",
        ),
        (
            "null.json",
            "{\"preset\": \"hp97560\", \"rpm\": null}",
            "`rpm`: null",
        ),
        (
            "big.toml",
            "preset = \"hp97560\"\n[geometry]\ncylinders = 400000000\n",
            "`geometry.cylinders` = 400000000: at most 1000000",
        ),
    ];
    for (name, text, words) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        refused_with(
            None,
            &["run", "--disk", path.to_str().unwrap(), "--requests", "100"],
            1,
            &[name, words],
        );
    }
}

/// Sweep grids: built lazily with a cap on points; axes may not name the
/// options the sweep sets; two values with one file name are refused.
#[test]
fn sweep_grids_are_bounded_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut huge = String::from("command = [\"run\"]\n");
    for k in 0..30 {
        huge.push_str(&format!(
            "[[axis]]\noption = \"--o{k}\"\nvalues = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
        ));
    }
    let cases = [
        (huge.as_str(), "grows past 100000 commands"),
        (
            "command = [\"run\"]\n[[axis]]\noption = \"--shard\"\nvalues = [\"0/2\"]\n",
            "`--shard` is set by the sweep itself",
        ),
        (
            "command = [\"run\"]\n[[axis]]\noption = \"--out-dir\"\nvalues = [\"x\"]\n",
            "`--out-dir` is set by the sweep itself",
        ),
        (
            "command = [\"run\"]\n[[axis]]\noption = \"--policy\"\nvalues = [\"ssedo:m=3\", \"ssedo_m=3\"]\n",
            "would share the file name",
        ),
    ];
    for (text, words) in cases {
        std::fs::write(d.join("g.toml"), text).unwrap();
        refused_with(Some(d), &["sweep", "g.toml"], 1, &["g.toml: ", words]);
    }
    // Shard commands are streamed as they are made: a reader that stops
    // early ends the command cleanly.
    std::fs::write(
        d.join("g.toml"),
        "command = [\"run\"]\n[[axis]]\noption = \"--load\"\nvalues = [0.5, 0.8]\n",
    )
    .unwrap();
    let out = support::spindle_in(
        d,
        &["sweep", "g.toml", "--shards", "100000", "--print", "shards"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        200_000
    );
}

/// Parts: a header's shard is read through the shard's own check (count 0
/// divided by zero; 5 of 2 was not named), and a part that says it
/// stopped must hold the failure that stopped it.
#[test]
fn tampered_part_headers_are_refused_naming_the_part() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = support::spindle_in(
        d,
        &[
            "--shard",
            "0/1",
            "--part",
            "p.part",
            "run",
            "--requests",
            "200",
            "--replications",
            "2",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(d.join("p.part")).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header: Value = serde_json::from_slice(&bytes[..end]).unwrap();
    let tamper = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut h = header.clone();
        edit(&mut h);
        let mut out = serde_json::to_vec(&h).unwrap();
        out.extend_from_slice(&bytes[end..]);
        std::fs::write(d.join(name), out).unwrap();
    };
    tamper("zero.part", &|h| {
        h["shard"] = serde_json::json!({"index": 0, "count": 0})
    });
    tamper("five.part", &|h| {
        h["shard"] = serde_json::json!({"index": 5, "count": 2})
    });
    tamper("boom.part", &|h| h["stopped"] = serde_json::json!("boom"));
    refused_with(
        Some(d),
        &["merge", "zero.part"],
        1,
        &["zero.part: line 1", "at least 1"],
    );
    refused_with(
        Some(d),
        &["merge", "p.part", "five.part"],
        1,
        &[
            "five.part: line 1",
            "shard index 5 is not below the number of shards 2",
        ],
    );
    refused_with(
        Some(d),
        &["merge", "boom.part"],
        1,
        &["boom.part: corrupt", "`boom`"],
    );
}
