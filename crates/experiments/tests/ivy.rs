//! Ivy's findings on the bundled week of HP-UX disk traffic
//! (`ajw.1week.srt`), replayed on the traced drive (from the trace's
//! header) under every replication policy, FCFS per-disk queues as in the
//! paper, 16 KB objects and the paper's 60 s copy delay: the numbers are
//! what `spindle repro ivy --copies 1,2,3,7 --replications 3` measures,
//! asserted inside two-sided bands around those measurements.
//!
//! The whole week (44,519 requests) replays in about 85 ms per
//! configuration in release; the sweep here is ~55 replays, so the test is
//! `#[ignore]`d and `.ci/run` runs it in release.

use std::path::{Path, PathBuf};

use disk_emu::trace::TraceOptions;
use experiments::{
    CopySelection, IvyConfig, IvyDisk, IvyPoint, IvyTrace, ReplicationPolicy, ivy_sweep,
};
use sched_core::PolicySpec;

fn trace_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/disksim-valid/ajw.1week.srt")
}

/// The trace in the traced drive's sectors.
fn load() -> IvyTrace {
    let at = |block_size| {
        IvyTrace::load(
            trace_path(),
            None,
            TraceOptions {
                block_size,
                devices: None,
            },
        )
        .unwrap()
    };
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

    // Copy selection at N = 2, 3: Ivy's least expected turnaround beats
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
