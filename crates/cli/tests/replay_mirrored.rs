//! `spindle replay` under an array policy: each traced device of DiskSim's
//! open-loop `ascii.trace` (100,000 requests on 14 devices, a fifth of
//! them writes) replayed on its own mirrored pair of the HP 97560, against
//! the same trace on one disk per device; the placements of the second
//! copy; per-request samples and the sheet from one pass; the refusals.

mod support;
use support::{data, spindle, stderr, stdout};

use std::collections::BTreeMap;

use experiments::{Fit, MirrorPolicy, Placement, ReplayOptions, RequestSample, replay_mirrored};
use serde_json::Value;

/// Requests and writes per device of a DiskSim ASCII trace (time, device,
/// block, blocks, flags; flag bit 0 set for a read).
fn trace_counts(name: &str) -> BTreeMap<u64, (u64, u64)> {
    let mut counts = BTreeMap::new();
    for line in std::fs::read_to_string(data(name)).unwrap().lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 5 {
            continue;
        }
        let device: u64 = fields[1].parse().unwrap();
        let flags: u64 = fields[4].parse().unwrap();
        let entry = counts.entry(device).or_insert((0, 0));
        entry.0 += 1;
        entry.1 += u64::from(flags & 1 == 0);
    }
    counts
}

/// The JSON table's rows of `spindle replay ARGS`.
fn rows(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["replay"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&spindle(&all))).unwrap();
    v["rows"].as_array().unwrap().clone()
}

/// Mean response (ms) of the reads and of the writes in a `--samples` file.
fn kind_means(csv: &str) -> (f64, f64) {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name| header.iter().position(|h| *h == name).unwrap();
    let (kind, response) = (column("kind"), column("response_ns"));
    let (mut sums, mut counts) = ([0.0; 2], [0u64; 2]);
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let k = usize::from(fields[kind] == "W");
        sums[k] += fields[response].parse::<f64>().unwrap() / 1e6;
        counts[k] += 1;
    }
    (sums[0] / counts[0] as f64, sums[1] / counts[1] as f64)
}

/// The trace on mirrored pairs under DMQ (SQ-DMQ over SSTF) against one
/// disk per device under FCFS: every request replayed, every write counted
/// as an update and landing on both disks, and the reads faster on the
/// pair, which serves them from two arms and the shorter queue.
#[test]
fn a_mirrored_pair_per_device_serves_the_reads_faster_than_one_disk() {
    let dir = tempfile::tempdir().unwrap();
    let pair_csv = dir.path().join("pair.csv");
    let one_csv = dir.path().join("one.csv");
    let trace = data("ascii.trace");
    let pair = rows(&[
        &trace,
        "--policy",
        "dmq",
        "--disks",
        "2",
        "--samples",
        pair_csv.to_str().unwrap(),
    ]);
    let one = rows(&[
        &trace,
        "--policy",
        "fcfs",
        "--samples",
        one_csv.to_str().unwrap(),
    ]);
    let counts = trace_counts("ascii.trace");
    assert_eq!(counts.values().map(|c| c.0).sum::<u64>(), 100_000);
    let devices: Vec<u64> = pair.iter().map(|r| r["device"].as_u64().unwrap()).collect();
    assert_eq!(devices, counts.keys().copied().collect::<Vec<_>>());
    for row in &pair {
        let device = row["device"].as_u64().unwrap();
        let (requests, writes) = counts[&device];
        assert_eq!(row["requests"].as_u64(), Some(requests), "device {device}");
        assert_eq!(row["updates"].as_u64(), Some(writes), "device {device}");
        // An update writes both copies: both disks of the pair work.
        if writes > 0 {
            let busy = |disk| row[disk].as_f64().unwrap();
            assert!(
                busy("util disk 1") > 0.0 && busy("util disk 2") > 0.0,
                "device {device}: {row}"
            );
        }
    }
    for (row, single) in pair.iter().zip(&one) {
        assert_eq!(row["requests"], single["requests"]);
    }
    let (pair_read, pair_write) = kind_means(&std::fs::read_to_string(&pair_csv).unwrap());
    let (one_read, one_write) = kind_means(&std::fs::read_to_string(&one_csv).unwrap());
    // Measured: reads 17.93 ms on the pairs against 21.65 ms on one disk
    // (0.828); updates 22.28 ms against the single disk's writes at
    // 21.32 ms (1.045): every write queues on both disks of the pair.
    let read_ratio = pair_read / one_read;
    assert!(
        (0.81..0.85).contains(&read_ratio),
        "reads {pair_read:.3} ms on the pairs, {one_read:.3} ms on one disk: {read_ratio:.4}"
    );
    let write_ratio = pair_write / one_write;
    assert!(
        (1.02..1.07).contains(&write_ratio),
        "writes {pair_write:.3} ms on the pairs, {one_write:.3} ms on one disk: {write_ratio:.4}"
    );
}

/// Request-weighted mean of a per-device column over the devices, weighed
/// by the reads or the updates.
fn weighted(rows: &[Value], column: &str, weight: impl Fn(&Value) -> u64) -> f64 {
    let (mut sum, mut n) = (0.0, 0);
    for r in rows {
        let w = weight(r);
        if w > 0 {
            sum += r[column].as_f64().unwrap() * w as f64;
            n += w;
        }
    }
    sum / n as f64
}

/// Identical copies against a reversed second copy, under DMQ. The reads
/// take the same time (SQ-DMQ sends a read to the shorter queue, and on
/// these lightly loaded pairs the nearer idle arm then wins under either
/// layout). The updates are slower reversed, and only because the two
/// emulated spindles turn in phase (a tracked rotation starts at angle 0
/// at time 0 on both disks, as spindle-synchronised drives do): an update
/// completes when both copies are written, identical copies then pass
/// under their heads at the same instant, so the two writes end together,
/// while a reversed copy sits at another angle and the later of two
/// rotational latencies sets the response. Each disk's own service is the
/// same under both layouts (17.93 against 17.97 ms per operation on disk
/// 2). With rotational latencies drawn at random, independently per disk
/// (unsynchronised spindles), the two layouts' updates are within 0.3 %.
#[test]
fn a_reversed_second_copy_slows_the_updates_only_on_synchronised_spindles() {
    let dir = tempfile::tempdir().unwrap();
    let unsynchronised = dir.path().join("hp97560-random-rotation.toml");
    std::fs::write(
        &unsynchronised,
        "preset = \"hp97560\"\n\n[rotation]\nmode = \"random\"\n",
    )
    .unwrap();
    let trace = data("ascii.trace");
    let run = |disk: &str, placement| {
        rows(&[
            &trace,
            "--disk",
            disk,
            "--policy",
            "dmq",
            "--placement",
            placement,
        ])
    };
    let reads = |r: &Value| r["requests"].as_u64().unwrap() - r["updates"].as_u64().unwrap();
    let updates = |r: &Value| r["updates"].as_u64().unwrap();
    let read = |rows: &[Value]| weighted(rows, "read ms", reads);
    let update = |rows: &[Value]| weighted(rows, "update ms", updates);
    let ratios = |disk: &str| {
        let (identical, reversed) = (run(disk, "identical"), run(disk, "reversed"));
        (
            read(&reversed) / read(&identical),
            update(&reversed) / update(&identical),
        )
    };
    // Measured: reads 17.933 ms identical, 17.948 ms reversed; updates
    // 22.283 ms and 23.876 ms (1.0715).
    let (read_ratio, update_ratio) = ratios("hp97560");
    assert!((0.997..1.003).contains(&read_ratio), "{read_ratio}");
    assert!((1.05..1.09).contains(&update_ratio), "{update_ratio}");
    // Measured with random rotation: reads 17.859 and 17.873 ms, updates
    // 23.694 and 23.758 ms (1.0027).
    let (read_ratio, update_ratio) = ratios(unsynchronised.to_str().unwrap());
    assert!((0.997..1.003).contains(&read_ratio), "{read_ratio}");
    assert!((0.995..1.01).contains(&update_ratio), "{update_ratio}");
}

/// `--samples` of a mirrored replay: one row per request, the disk of the
/// pair that served it (both disks serve some), the same bytes twice.
#[test]
fn mirrored_samples_are_one_row_a_request_and_the_same_bytes_twice() {
    let dir = tempfile::tempdir().unwrap();
    let trace = data("ascii.trace");
    let sampled = |name: &str| {
        let path = dir.path().join(name);
        let table = rows(&[
            &trace,
            "--policy",
            "dmq",
            "--placement",
            "shifted:0.5",
            "--device",
            "16",
            "--device",
            "30",
            "--samples",
            path.to_str().unwrap(),
        ]);
        (table, std::fs::read(&path).unwrap())
    };
    let (table, first) = sampled("a.csv");
    let (_, second) = sampled("b.csv");
    assert!(first == second, "two replays wrote different samples");
    let text = String::from_utf8(first).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("device,id,arrival_ns,kind,block,disk,blocks,wait_ns,response_ns")
    );
    let body: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let counts = trace_counts("ascii.trace");
    assert_eq!(body.len() as u64, counts[&16].0 + counts[&30].0);
    let requests: u64 = table.iter().map(|r| r["requests"].as_u64().unwrap()).sum();
    assert_eq!(body.len() as u64, requests);
    let served_by = |disk: &str| body.iter().filter(|r| r[5] == disk).count();
    assert_eq!(served_by("0") + served_by("1"), body.len());
    assert!(served_by("0") > 0 && served_by("1") > 0);
}

/// The library's one entry point: one replay records the sheet's data and
/// hands every request to the sink, its report the same as a replay that
/// does neither; the recording and the samples tell the same story (each
/// followed request left when its sample says it finished).
#[test]
fn one_mirrored_replay_gives_the_sheet_and_the_samples() {
    let options = ReplayOptions {
        disk: disk_emu::disk::preset("hp97560").unwrap(),
        policy: MirrorPolicy {
            array: "dmq".parse().unwrap(),
            placement: Placement::Reversed,
        },
        format: None,
        trace: disk_emu::trace::TraceOptions {
            block_size: 512,
            devices: Some(vec![10, 11, 14]),
        },
        speed: 1.0,
        seed: 1,
        fit: Fit::Refuse,
    };
    let path = data("ascii.trace");
    let (plain, none) = replay_mirrored(&path, &options, None, None).unwrap();
    assert!(none.is_empty());
    let mut samples: Vec<(u32, RequestSample)> = Vec::new();
    let (observed, traces) = replay_mirrored(
        &path,
        &options,
        Some(40),
        Some(&mut |device, s: &RequestSample| samples.push((device, *s))),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&plain).unwrap(),
        serde_json::to_string(&observed).unwrap()
    );
    assert_eq!(samples.len() as u64, observed.requests);
    // The trace's first 40 requests, over the three devices, each its own
    // pair's: a lane per disk of each.
    let devices: Vec<u32> = traces.iter().map(|(d, _)| *d).collect();
    assert_eq!(devices, [10, 11, 14]);
    assert_eq!(traces.iter().map(|(_, t)| t.followed).sum::<u64>(), 40);
    assert!(traces.iter().all(|(_, t)| t.disks.len() == 2));
    let finish: BTreeMap<u64, (u32, u64)> = samples
        .iter()
        .map(|(device, s)| {
            let experiments::Ending::Served { finish, .. } = s.ending else {
                panic!("request {} was dropped", s.id);
            };
            (s.id, (*device, finish))
        })
        .collect();
    for (device, trace) in &traces {
        for r in &trace.requests[..trace.followed as usize] {
            assert_eq!(
                finish[&r.id],
                (*device, r.left.unwrap()),
                "request {}",
                r.id
            );
        }
        let report = &observed
            .devices
            .iter()
            .find(|d| d.device == *device)
            .unwrap()
            .report;
        assert_eq!(trace.responses.count(), report.all.count);
    }
}

/// The command with both --plot and --samples: the sheet (a lane per disk
/// of each device's pair) and the rows come from one replay.
#[test]
fn plot_and_samples_of_a_mirrored_replay_come_from_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let args = spindle::replay::ReplayArgs {
        trace: data("ascii.trace").into(),
        disk: "hp97560".to_string(),
        policy: "dmq".parse().unwrap(),
        disks: Some(2),
        placement: Some(Placement::Reversed),
        trace_format: None,
        devices: vec![10, 11],
        block_size: 512,
        speed: 1.0,
        seed: 1,
        plot: Some(dir.path().join("pair.svg")),
        plot_requests: 40,
        fit: Fit::Refuse,
        samples: Some(dir.path().join("pair.csv")),
    };
    let replay = spindle::replay::replay(&args, true).unwrap();
    let spindle::replay::Replayed::Mirrored(report) = &replay.replayed else {
        panic!("a one-disk replay under dmq");
    };
    assert_eq!(replay.samples, Some(report.requests));
    let sheet = replay.sheet.unwrap();
    let labels: Vec<&str> = sheet.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["device 10", "device 11"]);
    assert_eq!(sheet.lanes.len(), 4);
    assert!(
        sheet.lanes[1]
            .caption
            .starts_with("device 10 (dmq), disk 2")
    );
    assert!(sheet.title.contains("×2 (second copy reversed) under dmq"));
    assert_eq!(sheet.bars[0].groups, ["read", "update"]);
    let rows = std::fs::read_to_string(dir.path().join("pair.csv"))
        .unwrap()
        .lines()
        .count() as u64;
    assert_eq!(rows, report.requests + 1);
}

/// `--fit` and `--device` work for mirrored replays as for single disks:
/// the SRT trace's volumes on the small chen-towsley-91 disk are refused
/// (naming --fit), and scaled onto it when asked, every request replayed
/// and the same requests moved as on one disk.
#[test]
fn a_trace_larger_than_the_disk_is_refused_or_fitted_on_pairs() {
    let trace = data("ajw.1week.srt");
    let out = spindle(&[
        "replay",
        &trace,
        "--policy",
        "dmq",
        "--disk",
        "chen-towsley-91",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("error: ")
            && err.contains("record 3 at byte 2316: block 6128 is beyond the end of the disk")
            && err.contains("--fit wrap")
            && err.contains("--fit scale"),
        "{err}"
    );
    let moved = |policy: &str| {
        let o = spindle(&[
            "replay",
            &trace,
            "--policy",
            policy,
            "--disk",
            "chen-towsley-91",
            "--fit",
            "scale",
            "--device",
            "0",
            "--format",
            "json",
        ]);
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let notes = v["notes"].to_string();
        let requests = v["rows"][0]["requests"].as_u64().unwrap();
        (
            requests,
            notes.contains(
                "42252 of 42252 requests reached past the end of the disk and were scaled onto it",
            ),
            notes.contains("2267 requests on other devices were left out (--device)"),
        )
    };
    // Disk 0 spans far more than the disk's 6,000 blocks: every one of its
    // requests moves; disk 1 is left out.
    assert_eq!(moved("dmq"), (42_252, true, true));
    assert_eq!(moved("fcfs"), (42_252, true, true));
}

/// What a mirrored replay refuses, each saying why and what to do.
#[test]
fn mirrored_replays_refuse_what_they_cannot_do() {
    let ascii = data("ascii.trace");
    let refused = |args: &[&str], code: i32, words: &[&str]| {
        let mut all = vec!["replay"];
        all.extend_from_slice(args);
        let out = spindle(&all);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        for w in words {
            assert!(err.contains(w), "{args:?}: no `{w}` in {err}");
        }
    };
    refused(
        &[&ascii, "--policy", "fcfs", "--disks", "2"],
        1,
        &[
            "--disks 2",
            "fcfs needs 1",
            "array policies on a mirrored pair",
        ],
    );
    refused(
        &[&ascii, "--policy", "dmq", "--disks", "1"],
        1,
        &["--disks 1", "dmq needs 2"],
    );
    refused(
        &[&ascii, "--policy", "wrr-scan"],
        2,
        &["rate-based", "--tasks FILE", "spindle admit FILE"],
    );
    refused(
        &[&ascii, "--policy", "sstf", "--placement", "reversed"],
        1,
        &["--placement", "sstf runs on one disk", "array policy"],
    );
    refused(
        &[&ascii, "--policy", "dmq", "--placement", "shifted:1"],
        2,
        &["--placement", "[0, 1)"],
    );
    refused(
        &[&data("hp_c2247a.trace"), "--policy", "dmq"],
        1,
        &[
            "closed-loop validation trace",
            "single-disk policy",
            "timed trace",
        ],
    );
}

/// A single-disk replay with both --plot and --samples: one pass too (it
/// used to replay the trace a second time for the sheet).
#[test]
fn plot_and_samples_of_a_single_disk_replay_come_from_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let args = spindle::replay::ReplayArgs {
        trace: data("ascii.trace").into(),
        disk: "hp97560".to_string(),
        policy: "sstf".parse().unwrap(),
        disks: None,
        placement: None,
        trace_format: None,
        devices: vec![10, 11],
        block_size: 512,
        speed: 1.0,
        seed: 1,
        plot: Some(dir.path().join("one.svg")),
        plot_requests: 40,
        fit: Fit::Refuse,
        samples: Some(dir.path().join("one.csv")),
    };
    let replay = spindle::replay::replay(&args, true).unwrap();
    let spindle::replay::Replayed::OneDisk(report) = &replay.replayed else {
        panic!("a mirrored replay under sstf");
    };
    assert_eq!(replay.samples, Some(report.requests));
    let sheet = replay.sheet.unwrap();
    assert_eq!(sheet.lanes.len(), 2);
    let rows = std::fs::read_to_string(dir.path().join("one.csv"))
        .unwrap()
        .lines()
        .count() as u64;
    assert_eq!(rows, report.requests + 1);
}
