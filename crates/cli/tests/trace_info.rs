//! `spindle trace-info` on every format the tool reads, and `spindle replay`
//! on the bundled SRT trace, as a user meets them.
//!
//! The SRT figures are those disk-emu's `srt_tests` establish and cross-check
//! against the raw bytes: 44,519 records, 13,040 reads, 31,479 writes, 2 disks
//! (42,252 and 2,267 requests), a span of 603,064.588892 s, 256-byte sectors.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

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
    String::from_utf8_lossy(&o.stderr).into_owned()
}

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
    assert_eq!(column(disks, "sector bytes"), [256, 256]);
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
