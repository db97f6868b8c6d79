//! The data behind the run sheets' other parts, asserted against the runs
//! they come from: the queue panel against the traced arrivals and
//! services, each mirrored disk's lane against the copies it holds, a
//! traced replay against an untraced one, and the per-class bars against
//! the table the same run prints.

mod support;

use std::process::Command;

use experiments::{Fate, HeadTrace};
use sched_core::Kind;
use spindle::run::{RunArgs, array_traces, traces};

fn args(policies: &[&str]) -> RunArgs {
    support::run_args(policies, 400, 3)
}

/// Requests waiting at `t` (after everything that happened at `t`), from
/// the traced requests alone: arrived, not yet started, not dropped.
fn waiting_at(trace: &HeadTrace, t: u64) -> u32 {
    trace
        .requests
        .iter()
        .filter(|r| r.arrival <= t)
        .filter(|r| match r.fate {
            Fate::Served { start, .. } => start > t,
            Fate::Dropped(at) => at > t,
            Fate::Pending => true,
        })
        .count() as u32
}

#[test]
fn the_queue_panel_is_what_the_traced_requests_imply() {
    for (policy, trace) in traces(&args(&["fcfs", "sstf"]), 40).unwrap() {
        let queue = &trace.queue;
        assert_eq!(queue[0], (0, 0), "{policy}");
        assert!(
            queue
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1)
        );
        // The device's own count (read off it after every change) and the
        // count the recorded arrivals and starts imply agree at every step
        // before the last followed request left (a request that started
        // at that instant is recorded as pending: its service ends later).
        let end = trace.span_end();
        assert!(queue.last().unwrap().0 <= end);
        let steps = queue.iter().filter(|s| s.0 < end).count();
        assert!(steps + 1 >= queue.len() && steps > 40, "{policy}: {steps}");
        for &(t, count) in queue.iter().filter(|s| s.0 < end) {
            assert_eq!(waiting_at(&trace, t), count, "{policy} at {t} ns");
        }
        // The queue formed: at load 0.8 it peaked at 9 (FCFS) and 5 (SSTF)
        // requests here.
        let peak = queue.iter().map(|s| s.1).max().unwrap();
        assert!((3..=20).contains(&peak), "{policy}: peak {peak}");
    }
}

#[test]
fn each_mirrored_disk_serves_its_copies_and_its_lane_is_continuous() {
    let mut a = args(&["dmq", "cmq"]);
    a.disks = Some(2);
    a.placement = Some(experiments::Placement::MIRROR);
    a.read_fraction = 0.7;
    for (policy, trace) in array_traces(&a, 40).unwrap() {
        assert_eq!(trace.disks.len(), 2, "{policy}");
        assert_eq!(trace.followed, 40);
        for (d, disk) in trace.disks.iter().enumerate() {
            let mut arm = disk.initial;
            let mut free = 0;
            for op in &disk.operations {
                // One operation at a time, the arm leaving where it was.
                assert!(
                    op.start >= free,
                    "{policy} disk {d}: overlap at {}",
                    op.start
                );
                assert!(op.start <= op.seek_end && op.seek_end <= op.end);
                assert_eq!(op.from, arm, "{policy} disk {d}");
                assert!(op.cylinder < disk.cylinders);
                arm = op.cylinder;
                free = op.end;
            }
        }
        // Every followed update was written on both disks at its copies'
        // cylinders; every followed read was served once, by one disk
        // holding it (neither policy sends a read to both disks).
        let (mut reads, mut updates) = (0, 0);
        for r in trace.requests.iter().take(40) {
            assert!(r.left.is_some(), "{policy}: request {} never left", r.id);
            let ops: Vec<(usize, u32)> = (0..2)
                .flat_map(|d| {
                    trace.disks[d]
                        .operations
                        .iter()
                        .filter(|op| op.id == r.id)
                        .map(move |op| (d, op.cylinder))
                })
                .collect();
            match r.kind {
                Kind::Write => {
                    updates += 1;
                    assert_eq!(ops, r.copies, "{policy}: update {}", r.id);
                }
                Kind::Read => {
                    reads += 1;
                    assert_eq!(ops.len(), 1, "{policy}: read {}", r.id);
                    assert!(r.copies.contains(&ops[0]), "{policy}: read {}", r.id);
                }
            }
        }
        // 70 % reads: 25 reads and 15 updates among the first 40 (seed 1).
        assert!(
            (20..=34).contains(&reads) && reads + updates == 40,
            "{reads}"
        );
        // The queue counts operations (an update waits on both disks): it
        // peaked at 8 (DMQ) and 11 (CMQ) here.
        let peak = trace.queue.iter().map(|s| s.1).max().unwrap();
        assert!((2..=30).contains(&peak), "{policy}: peak {peak}");
    }
}

#[test]
fn a_traced_replay_reports_what_an_untraced_one_does() {
    let options = experiments::ReplayOptions {
        disk: disk_emu::disk::preset("hp97560").unwrap(),
        policy: "sstf".parse().unwrap(),
        format: None,
        trace: disk_emu::trace::TraceOptions::default(),
        speed: 1.0,
        seed: 1,
        fit: experiments::Fit::Refuse,
    };
    let path = support::data("ascii.trace");
    let plain = experiments::replay(&path, &options).unwrap();
    let (traced, devices) = experiments::replay_observed(&path, &options, Some(40), None).unwrap();
    assert_eq!(
        serde_json::to_string(&plain).unwrap(),
        serde_json::to_string(&traced).unwrap()
    );
    // The trace's first 40 requests fall on several devices; together the
    // devices follow exactly those 40, each its own, to their end.
    assert!(devices.len() >= 5, "{} devices", devices.len());
    assert!(devices.windows(2).all(|w| w[0].0 < w[1].0));
    let followed: u64 = devices.iter().map(|(_, t)| t.followed).sum();
    assert_eq!(followed, 40);
    let mut ids: Vec<u64> = devices
        .iter()
        .flat_map(|(_, t)| t.requests[..t.followed as usize].iter().map(|r| r.id))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..40).collect::<Vec<u64>>());
    for (device, trace) in &devices {
        let report = &plain
            .devices
            .iter()
            .find(|d| d.device == *device)
            .unwrap()
            .report;
        assert_eq!(
            trace.responses.count(),
            report.completions,
            "device {device}"
        );
        for r in &trace.requests[..trace.followed as usize] {
            assert!(
                matches!(r.fate, Fate::Served { .. }),
                "device {device}: request {} was not served",
                r.id
            );
        }
    }
}

/// `spindle run ... --format json`'s one table.
fn table(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("run")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_class_bars_add_up_to_what_the_table_says() {
    let mut a = args(&["fd-scan:expired=drop", "edf"]);
    a.read_fraction = 0.7;
    a.deadline_ms = Some((20.0, 40.0));
    a.loads = vec![0.9];
    a.requests = 2000;
    a.warmup = None;
    let sheet = spindle::run::sheet(&a).unwrap();
    let json = table(&[
        "--policy",
        "fd-scan:expired=drop",
        "--policy",
        "edf",
        "--read-fraction",
        "0.7",
        "--deadline-ms",
        "20..40",
        "--load",
        "0.9",
        "--requests",
        "2000",
        "--replications",
        "3",
    ]);
    let titles: Vec<&str> = sheet.bars.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "mean response time by class, 95 % intervals",
            "deadlines missed by class, 95 % intervals",
            "requests dropped by class, 95 % intervals"
        ]
    );
    for panel in &sheet.bars {
        assert_eq!(panel.groups, ["read", "write"], "{}", panel.title);
        assert_eq!(panel.bars.len(), 4, "{}", panel.title);
    }
    let bar = |panel: usize, series: usize, group: usize| {
        *sheet.bars[panel]
            .bars
            .iter()
            .find(|b| b.series == series && b.group == group)
            .unwrap()
    };
    for (series, row) in json["rows"].as_array().unwrap().iter().enumerate() {
        // Drops per class add up, replication by replication, to the
        // table's drops, so their means do too.
        let dropped = bar(2, series, 0).mean + bar(2, series, 1).mean;
        let table_dropped = row["dropped"]["mean"].as_f64().unwrap();
        assert!(
            (dropped - table_dropped).abs() < 1e-9 * table_dropped.max(1.0),
            "{dropped} {table_dropped}"
        );
        // The share missed overall lies between the two classes' shares.
        let (r, w) = (bar(1, series, 0).mean, bar(1, series, 1).mean);
        let missed = row["missed %"]["mean"].as_f64().unwrap();
        assert!(
            r.min(w) - 1.0 <= missed && missed <= r.max(w) + 1.0,
            "{r} {w} {missed}"
        );
    }
    // Measured (seed 1, 3 × 2000): FD-SCAN drops 360 reads and 159 writes a
    // run and misses 56.7 % and 55.4 % of them; EDF drops nothing and
    // misses 89.7 % and 89.0 %.
    let (fd_reads, fd_writes) = (bar(2, 0, 0), bar(2, 0, 1));
    assert!((250.0..500.0).contains(&fd_reads.mean), "{fd_reads:?}");
    assert!((100.0..250.0).contains(&fd_writes.mean), "{fd_writes:?}");
    assert!(fd_reads.half_width > 0.0);
    assert_eq!((bar(2, 1, 0).mean, bar(2, 1, 1).mean), (0.0, 0.0));
    for group in 0..2 {
        assert!((45.0..70.0).contains(&bar(1, 0, group).mean));
        assert!((80.0..97.0).contains(&bar(1, 1, group).mean));
    }
    // FD-SCAN and EDF do not look at a request's kind: reads and writes
    // wait alike, within their intervals.
    for series in 0..2 {
        let (r, w) = (bar(0, series, 0), bar(0, series, 1));
        assert!(
            (r.mean - w.mean).abs() <= r.half_width + w.half_width,
            "{r:?} {w:?}"
        );
    }
}

#[test]
fn a_run_of_one_class_has_no_bars_and_a_sweep_has_no_sheet() {
    let sheet = spindle::run::sheet(&args(&["sstf"])).unwrap();
    assert!(sheet.bars.is_empty());
    assert_eq!(sheet.lanes.len(), 1);
    assert_eq!(sheet.queues.len(), 1);
    let mut sweep = args(&["sstf"]);
    sweep.loads = vec![0.5, 0.8];
    assert!(
        spindle::run::sheet(&sweep)
            .unwrap_err()
            .to_string()
            .contains("one load point")
    );
}
