//! Ivy's findings on the bundled week of HP-UX disk traffic
//! (`ajw.1week.srt`), replayed on the traced drive (from the trace's
//! header) under every replication policy, FCFS per-disk queues as in the
//! paper, 16 KB objects and the paper's 60 s copy delay: the numbers are
//! what `spindle repro ivy --copies 1,2,3,7 --replications 3` measures,
//! asserted inside two-sided bands around those measurements.
//!
//! The whole week (44,519 requests) replays in about 85 ms per
//! configuration in release; the sweeps here are ~130 replays, so those
//! tests are `#[ignore]`d and `.ci/run` runs them in release. The tests on
//! short traces (the disks kept busy; `ivy-exact`'s shadows) run always.
//!
//! The first test is the project's own model (copies cost foreground disk
//! work, 16 KB objects, the traced drive); the second is Lo's (free copies,
//! the HP 7937, 64 KB objects), where the paper's findings are asserted,
//! and what costed copies change.

use std::io::Write as _;
use std::path::PathBuf;

use disk_emu::trace::TraceOptions;
use experiments::{
    CopyCost, CopySelection, IvyConfig, IvyDisk, IvyPoint, IvyTrace, ReplicationPolicy, Units,
    ivy_sweep,
};
use sched_core::PolicySpec;

fn trace_path() -> PathBuf {
    shared_data::disksim_file("ajw.1week.srt")
}

/// The trace in `block_size`-byte blocks.
fn load_in(block_size: u32) -> IvyTrace {
    IvyTrace::load(
        trace_path(),
        None,
        TraceOptions {
            block_size,
            devices: None,
        },
    )
    .unwrap()
}

/// The trace in the traced drive's sectors.
fn load() -> IvyTrace {
    let at = load_in;
    let trace = at(256);
    let sector = trace.disks()[0]
        .drive
        .as_ref()
        .unwrap()
        .geometry
        .sector_bytes;
    if sector == trace.block_bytes() {
        trace
    } else {
        at(sector)
    }
}

fn config(policy: ReplicationPolicy, copies: usize, selection: CopySelection) -> IvyConfig {
    IvyConfig {
        disk: IvyDisk::Traced,
        policy,
        copies,
        selection,
        discipline: PolicySpec::Fcfs,
        extent_bytes: 16 * 1024,
        delay: 60_000_000_000,
        copy_cost: CopyCost::Foreground,
        units: Units::Separate,
        split: true,
    }
}

struct Sweep(Vec<IvyPoint>);

impl Sweep {
    /// Mean of `metric` (ms) over the replications.
    fn ms(
        &self,
        policy: ReplicationPolicy,
        copies: usize,
        selection: CopySelection,
        metric: &str,
    ) -> f64 {
        let p = self
            .0
            .iter()
            .find(|p| {
                p.config.policy == policy
                    && p.config.copies == copies
                    && p.config.selection == selection
            })
            .unwrap();
        p.metrics.interval(metric, 0.95).unwrap().mean
    }
}

fn within(what: &str, x: f64, lo: f64, hi: f64) {
    println!("{what}: {x:.3} (band {lo} ..= {hi})");
    assert!((lo..=hi).contains(&x), "{what}: {x} outside {lo} ..= {hi}");
}

#[test]
#[ignore = "the whole traced week under ~55 configurations: release only (.ci/run)"]
fn ivy_findings_on_the_traced_week() {
    use CopySelection::{LeastTurnaround as Lt, Md, Random, ShortestQueue as Sq};
    use ReplicationPolicy::*;
    let trace = load();
    let mut configs = Vec::new();
    for policy in ReplicationPolicy::ALL {
        for n in [1, 2, 3, 7] {
            configs.push(config(policy, n, Lt));
        }
        if policy.replicates() {
            for n in [2, 3] {
                for s in [Md, Sq, Random] {
                    configs.push(config(policy, n, s));
                }
            }
        }
    }
    let sweep = Sweep(ivy_sweep(&trace, &configs, 3, 1, 2, &|| ()).unwrap().points);
    let read = |p, n, s| sweep.ms(p, n, s, "read_mean_ms");
    let write = |p, n, s| sweep.ms(p, n, s, "write_mean_ms");

    // One disk: the baseline every policy shares (measured 102.7 ms read,
    // 161.2 ms write: the traced week's bursts queue deeply on one drive).
    within("read, one copy", read(Rnwn, 1, Lt), 95.0, 110.0);
    within("write, one copy", write(Rnwn, 1, Lt), 150.0, 172.0);

    // Read turnaround falls as copies rise and levels off: the gain from
    // 3 to 7 copies is under half the gain from 1 to 2 under every policy
    // that replicates. Measured (ms, 1 / 2 / 3 / 7 copies): RNWN 102.7 /
    // 22.9 / 20.0 / 18.8; RNW1 102.7 / 65.6 / 65.1 / 64.2 (RNW1 keeps the
    // master on disk 0, so every write and first-written object stays
    // there and its reads queue behind them); RNW1CR 102.7 / 25.5 / 21.9 /
    // 19.5 (about); scatter + RNW1CR alike.
    for policy in [Rnwn, Rnw1, Rnw1Cr, ScatterRnw1Cr] {
        let r: Vec<f64> = [1, 2, 3, 7].iter().map(|&n| read(policy, n, Lt)).collect();
        println!("{policy}: read {r:?}");
        assert!(
            r[0] > r[1] && r[1] >= r[2] && r[2] >= r[3] - 0.5,
            "{policy}: read turnaround should fall with copies: {r:?}"
        );
        let ratio = (r[2] - r[3]) / (r[0] - r[1]);
        within(&format!("{policy}: gain 3→7 / gain 1→2"), ratio, -0.02, 0.2);
    }
    // The size of the first step, policy by policy: the paper's two-copy
    // headlines are 8–32 % (RNWN) and 24 % (RNW1, busiest file system);
    // this week's single drive is far busier (one-disk read turnaround
    // ~100 ms against Ivy's 20–40 ms), so a second disk removes most of the
    // queueing and the gain is larger.
    within(
        "RNWN read, 2 vs 1",
        read(Rnwn, 2, Lt) / read(Rnwn, 1, Lt),
        0.18,
        0.27,
    );
    within(
        "RNW1 read, 2 vs 1",
        read(Rnw1, 2, Lt) / read(Rnw1, 1, Lt),
        0.55,
        0.72,
    );
    within(
        "RNW1CR read, 2 vs 1",
        read(Rnw1Cr, 2, Lt) / read(Rnw1Cr, 1, Lt),
        0.2,
        0.3,
    );

    // RNW1CR writes no slower than RNW1's at every N ≥ 2: the kept copy
    // lands on a random disk, spreading the writes RNW1 piles on the
    // master's. Measured 103.9 vs 162.8 ms at N = 2, 87.5 vs 162.9 at 3.
    for n in [2, 3, 7] {
        let (cr, one) = (write(Rnw1Cr, n, Lt), write(Rnw1, n, Lt));
        within(
            &format!("RNW1CR / RNW1 write at N = {n}"),
            cr / one,
            0.3,
            0.75,
        );
    }
    // Scatter lowers write turnaround against one disk: 87.4 ms at two
    // disks, 68.3 at three, against 161.2.
    let one = write(Scatter, 1, Lt);
    within(
        "scatter write, 2 vs 1",
        write(Scatter, 2, Lt) / one,
        0.45,
        0.62,
    );
    within(
        "scatter write, 3 vs 1",
        write(Scatter, 3, Lt) / one,
        0.33,
        0.5,
    );

    // Copy selection at N = 2, 3: the expected-turnaround estimate beats
    // Linux md's read balancing and random routing under every
    // replicating policy (RNWN N = 2: 22.9 against 30.5 and 26.5 ms). It
    // does NOT beat the shortest queue: on this trace a read mostly finds
    // its copies' disks idle or one deep (reads see 0.1–0.3 operations),
    // where the fewest operations and the least expected work pick the
    // same disk; the two agree within 3 %, either side.
    for policy in [Rnwn, Rnw1, Rnw1Cr, ScatterRnw1Cr] {
        for n in [2, 3] {
            let lt = read(policy, n, Lt);
            let md = read(policy, n, Md);
            let sq = read(policy, n, Sq);
            let random = read(policy, n, Random);
            println!("{policy} N = {n}: lt {lt:.2} md {md:.2} sq {sq:.2} random {random:.2}");
            within(&format!("{policy} N = {n}: lt / md"), lt / md, 0.7, 0.99);
            within(
                &format!("{policy} N = {n}: lt / random"),
                lt / random,
                0.7,
                0.97,
            );
            within(&format!("{policy} N = {n}: lt / sq"), lt / sq, 0.97, 1.03);
        }
    }
}

/// Lo's setting: the HP 7937 (§4.2), FIFO queues, 64 KB objects, the 60 s
/// delay, each traced disk on disks of its own, requests split at objects.
fn lo(
    policy: ReplicationPolicy,
    copies: usize,
    selection: CopySelection,
    copy_cost: CopyCost,
) -> IvyConfig {
    IvyConfig {
        disk: IvyDisk::Model(Box::new(disk_emu::disk::preset("hp7937").unwrap())),
        extent_bytes: 64 * 1024,
        copy_cost,
        ..config(policy, copies, selection)
    }
}

/// Mean `metric` of the point of `points` with this configuration.
fn mean_of(points: &[IvyPoint], config: &IvyConfig, metric: &str) -> f64 {
    let p = points
        .iter()
        .find(|p| p.config == *config)
        .unwrap_or_else(|| panic!("no point {config:?}"));
    p.metrics.interval(metric, 0.95).unwrap().mean
}

#[test]
#[ignore = "the whole traced week under ~75 configurations: release only (.ci/run)"]
fn lo_findings_with_free_copies_on_the_hp7937() {
    use CopyCost::{Background, Foreground, Free};
    use CopySelection::{IvyExact as Exact, LeastTurnaround as Lt};
    use ReplicationPolicy::*;
    let trace = load_in(256);
    let mut configs = Vec::new();
    for policy in ReplicationPolicy::ALL {
        for n in [1, 2, 3, 7] {
            for cost in [Free, Background, Foreground] {
                configs.push(lo(policy, n, Exact, cost));
            }
        }
    }
    for n in [2, 3] {
        configs.push(lo(Rnwn, n, Lt, Free));
    }
    let points = ivy_sweep(&trace, &configs, 2, 1, 2, &|| ()).unwrap().points;
    let read = |p, n, c| mean_of(&points, &lo(p, n, Exact, c), "read_mean_ms");
    let write = |p, n, c| mean_of(&points, &lo(p, n, Exact, c), "write_mean_ms");
    for policy in ReplicationPolicy::ALL {
        for cost in [Free, Background, Foreground] {
            let r: Vec<String> = [1, 2, 3, 7]
                .iter()
                .map(|&n| format!("{:.1}/{:.1}", read(policy, n, cost), write(policy, n, cost)))
                .collect();
            println!("{policy} {cost}: read/write at 1, 2, 3, 7 copies: {r:?}");
        }
    }
    let wait = mean_of(&points, &lo(Rnw1, 3, Exact, Background), "copy_wait_ms");
    println!("RNW1 background copy wait at 3 copies: {wait:.1} ms");

    // Measured (ms, read/write at 1, 2, 3, 7 copies, 2 replications):
    // one disk 202.4/248.5; free copies: RNWN 47.0/163.2, 27.9/152.3,
    // 24.3/145.9; RNW1 99.8/206.7, 99.8/207.6, 98.0/207.1; RNW1CR
    // 25.7/99.4, 23.4/76.6, 20.5/49.3; scatter 32.5/102.4, 28.0/75.1,
    // 25.5/48.6; scatter + RNW1CR 25.1/98.8, 22.5/76.2, 20.5/49.0.

    // §6.3: RNW1's "mean write turnaround time also drops as the number of
    // copies increases" (Triangle / −4 % at three copies): its reads move
    // off the master's disk, so its writes queue behind fewer of them.
    // Measured 0.835.
    within(
        "free: RNW1 write, 3 vs 1 copies",
        write(Rnw1, 3, Free) / write(Rnw1, 1, Free),
        0.78,
        0.9,
    );
    // §7: "dynamic replication worked better than mirror disks": RNW1CR
    // reads faster than RNWN at three copies (RNWN's disks all take every
    // write). Measured 0.837.
    within(
        "free: RNW1CR read / RNWN read at 3 copies",
        read(Rnw1Cr, 3, Free) / read(Rnwn, 3, Free),
        0.76,
        0.93,
    );
    // §6.6: scatter + RNW1CR writes "as good as random scattering".
    // Measured 0.965, 1.015, 1.008.
    for n in [2, 3, 7] {
        within(
            &format!("free: scatter + RNW1CR write / scatter write at {n} copies"),
            write(ScatterRnw1Cr, n, Free) / write(Scatter, n, Free),
            0.95,
            1.05,
        );
    }
    // §6.2: RNWN reads fall with copies, then "level off" (the gain from
    // 3 to 7 under 15 % of that from 1 to 2). Measured 0.023.
    let r: Vec<f64> = [1, 2, 3, 7].iter().map(|&n| read(Rnwn, n, Free)).collect();
    assert!(
        r[0] > r[1] && r[1] > r[2],
        "RNWN reads fall 1 → 2 → 3: {r:?}"
    );
    within(
        "free: RNWN read gain 3 → 7 / gain 1 → 2",
        (r[2] - r[3]) / (r[0] - r[1]),
        0.0,
        0.1,
    );

    // Foreground copies (a read and N − 1 writes of 64 KB per copy round,
    // queued FIFO with the trace's I/O) reverse each finding: RNW1's copy
    // reads all queue on the master's disk, ahead of its writes, so its
    // writes slow as copies rise (measured 1.085); RNW1CR's reads queue
    // behind copy traffic RNWN never has (1.37); scatter + RNW1CR's copy
    // writes land on the disks scatter keeps for its own writes (1.58).
    within(
        "foreground: RNW1 write, 3 vs 1 copies",
        write(Rnw1, 3, Foreground) / write(Rnw1, 1, Foreground),
        1.03,
        1.15,
    );
    within(
        "foreground: RNW1CR read / RNWN read at 3 copies",
        read(Rnw1Cr, 3, Foreground) / read(Rnwn, 3, Foreground),
        1.2,
        1.55,
    );
    within(
        "foreground: scatter + RNW1CR write / scatter write at 3 copies",
        write(ScatterRnw1Cr, 3, Foreground) / write(Scatter, 3, Foreground),
        1.4,
        1.75,
    );
    let ops = |p, n, c| mean_of(&points, &lo(p, n, Exact, c), "copy_operations");
    println!(
        "copy operations at 3 copies: RNW1 {} / {}, RNW1CR {} / {} (background / foreground)",
        ops(Rnw1, 3, Background),
        ops(Rnw1, 3, Foreground),
        ops(Rnw1Cr, 3, Background),
        ops(Rnw1Cr, 3, Foreground)
    );

    // Background copies cost the writes something, foreground copies more:
    // background lies between the two at every N.
    for policy in [Rnw1, Rnw1Cr, ScatterRnw1Cr] {
        for n in [2, 3, 7] {
            let (free, bg, fg) = (
                write(policy, n, Free),
                write(policy, n, Background),
                write(policy, n, Foreground),
            );
            assert!(
                free <= bg * 1.005 && bg <= fg * 1.005,
                "{policy} at {n}: write free {free:.2} ≤ background {bg:.2} ≤ foreground {fg:.2}"
            );
        }
    }

    // §4.3: Lo's exact choice and the estimate agree within 2 % on RNWN
    // reads (the queues are short: both mostly pick an idle disk).
    for n in [2, 3] {
        let lt = mean_of(&points, &lo(Rnwn, n, Lt, Free), "read_mean_ms");
        within(
            &format!("RNWN read at {n}: ivy-exact / expected-turnaround"),
            read(Rnwn, n, Free) / lt,
            0.98,
            1.02,
        );
    }
}

/// The SPC trace of `requests` (`(seconds, 512-byte block, bytes, write)`),
/// read back in 256-byte blocks (the HP 7937's) from a file of its own.
fn spc_trace(name: &str, requests: &[(f64, u64, u32, bool)]) -> IvyTrace {
    let path = std::env::temp_dir().join(format!("spindle-{name}-{}.spc", std::process::id()));
    let mut file = std::fs::File::create(&path).unwrap();
    for &(at, block, bytes, write) in requests {
        let op = if write { 'w' } else { 'r' };
        writeln!(file, "0,{block},{bytes},{op},{at}").unwrap();
    }
    drop(file);
    let trace = IvyTrace::load(
        &path,
        Some(disk_emu::trace::TraceFormat::Spc),
        TraceOptions {
            block_size: 256,
            devices: None,
        },
    );
    std::fs::remove_file(&path).unwrap();
    trace.unwrap()
}

/// What the docs say of background copies when the disks never idle: the
/// copy work waits, however long, and is done when a disk next idles (here
/// when the backlog of the trace's reads drains). An object is written at
/// 0 s (one copy, its copy due 1 s after the write), then 8 KB reads of
/// other objects arrive every 10 ms for 10 s, twice what two HP 7937s
/// serve: no disk idles until the backlog drains, well after the last
/// arrival.
#[test]
fn background_copies_wait_while_the_disks_never_idle() {
    let mut requests = vec![(0.0, 0, 8192, true)];
    let mut block = 1_000_003u64;
    for k in 0..1000 {
        block = (block * 48_271) % 2_147_483_647;
        requests.push((0.1 + k as f64 * 0.01, 1024 + block % 1_000_000, 8192, false));
    }
    let trace = spc_trace("never-idle", &requests);
    let measure = |cost| {
        let config = IvyConfig {
            delay: 1_000_000_000,
            ..lo(ReplicationPolicy::Rnw1, 2, CopySelection::IvyExact, cost)
        };
        experiments::run_ivy(&trace, &config, experiments::seeds::Unit::new(1, 0, 0)).unwrap()
    };
    let background = measure(CopyCost::Background);
    let waits = &background.copy_wait;
    let total = waits.mean().unwrap() * waits.count() as f64 / 1e9;
    println!(
        "background: {} copy operations, waits {total:.2} s in all, last read at 10.09 s",
        background.copy_operations
    );
    assert_eq!(background.copy_operations, 2, "one read and one write");
    assert_eq!(waits.count(), 2);
    assert_eq!(background.replication.copies_made, 1);
    // The read was queued at ~1 s and could not start before the last
    // arrival (10.09 s), the disks never idling until then: it alone
    // waited over 9 s. Measured: 17.6 s in all (the backlog drains at
    // ~18.6 s; the write then found its disk idle).
    within("background copy waits in all, s", total, 16.0, 19.5);
    // Foreground copies wait their turn in the queue instead; free ones
    // appear at once.
    let foreground = measure(CopyCost::Foreground);
    assert_eq!(foreground.copy_operations, 2);
    assert!(foreground.copy_wait.count() == 0);
    let free = measure(CopyCost::Free);
    assert_eq!(free.copy_operations, 0);
    assert_eq!(free.replication.copies_made, 1);
}

/// `ivy-exact` is exact: every read completes when the shadow of its disk
/// said it would (the replay fails otherwise), under each copy cost, on
/// the whole week.
#[test]
fn ivy_exact_predicts_every_read_to_the_nanosecond() {
    let trace = load_in(256);
    for (policy, cost) in [
        (ReplicationPolicy::Rnwn, CopyCost::Free),
        (ReplicationPolicy::Rnw1Cr, CopyCost::Background),
        (ReplicationPolicy::Rnw1, CopyCost::Foreground),
    ] {
        let config = lo(policy, 3, CopySelection::IvyExact, cost);
        experiments::run_ivy(&trace, &config, experiments::seeds::Unit::new(1, 0, 0))
            .unwrap_or_else(|e| panic!("{policy} {cost}: {e}"));
    }
    // Lo's rule is FIFO's: under C-LOOK it is refused, naming the flag.
    let clook = IvyConfig {
        discipline: PolicySpec::CLook,
        ..lo(
            ReplicationPolicy::Rnwn,
            2,
            CopySelection::IvyExact,
            CopyCost::Free,
        )
    };
    let e = experiments::run_ivy(&trace, &clook, experiments::seeds::Unit::new(1, 0, 0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("ivy-exact") && e.contains("fcfs"), "{e}");
}

/// `--units overlay`: the traced machine's two units on one drive, each
/// scaled over the whole of it, so one arm serves both. With one copy the
/// arm travels further and reads wait longer than with a drive per unit
/// (measured on the traced `hp335h`: 210.9 against 200.0 cylinders,
/// 104.8 against 102.6 ms).
#[test]
fn overlaid_units_share_one_arm() {
    let trace = load();
    let measure = |units| {
        let config = IvyConfig {
            units,
            ..config(ReplicationPolicy::Rnwn, 1, CopySelection::LeastTurnaround)
        };
        experiments::run_ivy(&trace, &config, experiments::seeds::Unit::new(1, 0, 0)).unwrap()
    };
    let (separate, overlay) = (measure(Units::Separate), measure(Units::Overlay));
    within(
        "overlay − separate: seek distance, cylinders",
        overlay.seek_distance - separate.seek_distance,
        8.0,
        14.0,
    );
    let ms = |m: &experiments::IvyMeasures| m.read.mean().unwrap() / 1e6;
    within(
        "overlay − separate: read turnaround, ms",
        ms(&overlay) - ms(&separate),
        1.0,
        3.5,
    );
}
