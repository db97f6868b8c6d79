//! Sharded runs merged back: for a `run` grid, `repro towsley91 --figure 2`
//! and `repro chen-towsley91 --figure 2`, the merge of 1, 3 and 7 shards,
//! parts given in a shuffled order, prints byte for byte what the unsharded
//! command prints with `--jobs 2` and with `--jobs 1` (tables as CSV and
//! JSON, and the plot); tampered parts are refused with the file named.

use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::spindle_in as spindle;

fn ok(o: Output) -> Vec<u8> {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn refused(o: &Output) -> String {
    assert!(!o.status.success(), "expected a refusal");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.starts_with("error: "), "{err}");
    err
}

fn with(args: &[&str], more: &[&str]) -> Vec<String> {
    args.iter().chain(more).map(|s| s.to_string()).collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Runs `command` in `count` shards in `dir`; returns the parts' paths in a
/// shuffled order (odd indices first, then even ones, reversed).
fn shards(dir: &Path, command: &[&str], count: u32) -> Vec<PathBuf> {
    let mut parts = Vec::new();
    for i in 0..count {
        let part = dir.join(format!("p{i}-of-{count}.part"));
        let shard = format!("{i}/{count}");
        let mut args = with(
            &["--shard", &shard, "--part", part.to_str().unwrap()],
            command,
        );
        args.extend(["--jobs".to_string(), "1".to_string()]);
        let out = spindle(dir, &strs(&args));
        assert!(
            out.status.success(),
            "shard {shard}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "a shard prints no results");
        parts.push(part);
    }
    let (odd, even): (Vec<_>, Vec<_>) =
        parts.into_iter().enumerate().partition(|(i, _)| i % 2 == 1);
    odd.into_iter()
        .chain(even.into_iter().rev())
        .map(|(_, p)| p)
        .collect()
}

fn merge(dir: &Path, parts: &[PathBuf], format: &str) -> Output {
    let mut args = vec!["merge".to_string(), "--format".into(), format.into()];
    args.extend(parts.iter().map(|p| p.to_string_lossy().into_owned()));
    spindle(dir, &strs(&args))
}

/// The merge of 1, 3 and 7 shards equals the unsharded run, with 2 threads
/// and with 1, as CSV and as JSON.
fn merges_identically(command: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let whole_csv = ok(spindle(
        d,
        &strs(&with(command, &["--jobs", "2", "--format", "csv"])),
    ));
    let serial_csv = ok(spindle(
        d,
        &strs(&with(command, &["--jobs", "1", "--format", "csv"])),
    ));
    assert_eq!(whole_csv, serial_csv, "--jobs changes the results");
    assert!(
        whole_csv.len() > 200,
        "{}",
        String::from_utf8_lossy(&whole_csv)
    );
    let whole_json = ok(spindle(d, &strs(&with(command, &["--format", "json"]))));
    for count in [1, 3, 7] {
        let parts = shards(d, command, count);
        assert_eq!(
            ok(merge(d, &parts, "csv")),
            whole_csv,
            "{count} shards, CSV"
        );
        assert_eq!(
            ok(merge(d, &parts, "json")),
            whole_json,
            "{count} shards, JSON"
        );
    }
}

const RUN_GRID: [&str; 15] = [
    "run",
    "--policy",
    "fcfs",
    "--policy",
    "sstf",
    "--load",
    "0.5",
    "--load",
    "0.9",
    "--replications",
    "4",
    "--requests",
    "1500",
    "--warmup",
    "100",
];

#[test]
fn a_run_grid_merges_identically() {
    merges_identically(&RUN_GRID);
}

/// A rate-based run (`run --tasks`, two tables): each policy's
/// replications are units like any other.
#[test]
fn a_task_run_merges_identically() {
    let tasks = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tasks.toml");
    merges_identically(&[
        "run",
        "--tasks",
        tasks,
        "--seconds",
        "10",
        "--replications",
        "4",
    ]);
}

#[test]
fn towsley91_figure_2_merges_identically_with_its_plot() {
    let command = [
        "repro",
        "towsley91",
        "--figure",
        "2",
        "--replications",
        "3",
        "--requests",
        "1500",
        "--warmup",
        "100",
    ];
    merges_identically(&command);
    // The plot: the merge draws it where the command said, byte for byte.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("whole")).unwrap();
    std::fs::create_dir(d.join("merged")).unwrap();
    ok(spindle(
        &d.join("whole"),
        &strs(&with(&command, &["--plot", "fig.svg"])),
    ));
    let sharded = with(&command, &["--plot", "fig.svg"]);
    let parts = shards(&d.join("merged"), &strs(&sharded), 3);
    assert!(!d.join("merged/fig.svg").exists(), "a shard draws nothing");
    ok(merge(&d.join("merged"), &parts, "table"));
    let whole = std::fs::read(d.join("whole/fig.svg")).unwrap();
    assert!(whole.len() > 1000);
    assert_eq!(std::fs::read(d.join("merged/fig.svg")).unwrap(), whole);
}

#[test]
fn chen_towsley91_figure_2_merges_identically() {
    merges_identically(&[
        "repro",
        "chen-towsley91",
        "--figure",
        "2",
        "--replications",
        "3",
        "--transactions",
        "120",
        "--warmup",
        "10",
    ]);
}

#[test]
fn tampered_parts_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let parts = shards(d, &RUN_GRID, 3);
    let mut sorted = parts.clone();
    sorted.sort();
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();

    // One dropped.
    let err = refused(&merge(d, &sorted[..2], "csv"));
    assert!(err.contains("shard(s) 2 of 3 missing"), "{err}");

    // One given twice.
    let twice = [
        sorted[0].clone(),
        sorted[1].clone(),
        sorted[1].clone(),
        sorted[2].clone(),
    ];
    let err = refused(&merge(d, &twice, "csv"));
    assert!(err.contains("are both shard 1/3"), "{err}");

    // One from another seed.
    let other = d.join("other");
    std::fs::create_dir(&other).unwrap();
    let seeded = shards(&other, &strs(&with(&RUN_GRID, &["--seed", "7"])), 3);
    let mixed = [
        sorted[0].clone(),
        sorted[1].clone(),
        other.join("p2-of-3.part"),
    ];
    assert!(seeded.contains(&mixed[2]));
    let err = refused(&merge(d, &mixed, "csv"));
    assert!(err.contains("p2-of-3.part"), "{err}");
    assert!(err.contains("different runs"), "{err}");

    // One truncated.
    let bytes = std::fs::read(&sorted[2]).unwrap();
    let cut = d.join("cut.part");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let err = refused(&merge(
        d,
        &[sorted[0].clone(), sorted[1].clone(), cut.clone()],
        "csv",
    ));
    assert!(
        err.contains(&name(&cut)) && err.contains("truncated"),
        "{err}"
    );

    // One corrupted (same length, a byte of the results flipped).
    let mut flipped = bytes.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x20;
    let bad = d.join("flipped.part");
    std::fs::write(&bad, &flipped).unwrap();
    let err = refused(&merge(
        d,
        &[sorted[0].clone(), sorted[1].clone(), bad.clone()],
        "csv",
    ));
    assert!(
        err.contains(&name(&bad)) && err.contains("checksum"),
        "{err}"
    );

    // Not a part at all.
    let junk = d.join("junk.part");
    std::fs::write(&junk, "policy,load\nfcfs,0.5\n").unwrap();
    let err = refused(&merge(d, &[junk], "csv"));
    assert!(err.contains("junk.part: line 1"), "{err}");

    // A shard of a command with nothing to shard, and a bad shard.
    let err = refused(&spindle(d, &["--shard", "0/2", "presets"]));
    assert!(err.contains("no replications to split"), "{err}");
    let out = spindle(d, &["--shard", "3/3", "run"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("shard index 3 is not below"));
}

#[test]
fn sweep_prints_shard_and_merge_commands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("grid.toml"),
        "command = [\"run\", \"--replications\", \"2\", \"--requests\", \"500\", \"--warmup\", \"50\"]\n\
         [[axis]]\noption = \"--policy\"\nvalues = [\"fcfs\", \"sstf\"]\n\
         [[axis]]\noption = \"--load\"\nvalues = [0.5, 0.8]\n",
    )
    .unwrap();
    let shards = String::from_utf8(ok(spindle(
        d,
        &["sweep", "grid.toml", "--shards", "2", "--print", "shards"],
    )))
    .unwrap();
    let lines: Vec<&str> = shards.lines().collect();
    assert_eq!(lines.len(), 8, "{shards}");
    assert_eq!(
        lines[3],
        "spindle --shard 1/2 --part sweep-out/parts/policy=fcfs,load=0.8.1-of-2.part run --replications 2 --requests 500 --warmup 50 --policy fcfs --load 0.8"
    );
    let merges = String::from_utf8(ok(spindle(
        d,
        &[
            "sweep",
            "grid.toml",
            "--shards",
            "2",
            "--print",
            "merges",
            "--format",
            "csv",
        ],
    )))
    .unwrap();
    assert_eq!(merges.lines().count(), 4);
    assert!(merges.starts_with("spindle merge --format csv sweep-out/parts/policy=fcfs,load=0.5.0-of-2.part sweep-out/parts/policy=fcfs,load=0.5.1-of-2.part > sweep-out/policy=fcfs,load=0.5.csv"), "{merges}");

    // Run here: one file per point, each what the command alone prints.
    ok(spindle(
        d,
        &["sweep", "grid.toml", "--format", "csv", "--jobs", "1"],
    ));
    let alone = ok(spindle(
        d,
        &[
            "run",
            "--replications",
            "2",
            "--requests",
            "500",
            "--warmup",
            "50",
            "--policy",
            "sstf",
            "--load",
            "0.8",
            "--format",
            "csv",
        ],
    ));
    assert_eq!(
        std::fs::read(d.join("sweep-out/policy=sstf,load=0.8.csv")).unwrap(),
        alone
    );
}

#[test]
fn ivy_on_the_traced_week_merges_identically() {
    let trace = shared_data::disksim_file("ajw.1week.srt");
    let trace = trace.to_string_lossy().into_owned();
    merges_identically(&[
        "repro",
        "ivy",
        "--trace",
        &trace,
        "--policy",
        "rnw1cr",
        "--routing",
        "random",
        "--copies",
        "1,2",
        "--compare-discipline",
        "none",
        "--replications",
        "3",
    ]);
}
