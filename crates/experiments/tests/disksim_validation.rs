//! DiskSim's validation drives replayed against their traces: the loaded
//! models come close to the real drives.

use std::path::PathBuf;

use disk_emu::Stream;
use disk_emu::disk::{DiskModel, DisksimDisk, DisksimOptions, from_disksim, load_disksim};
use disk_emu::trace::TraceOptions;
use experiments::{ReplayOptions, replay};
use sched_core::{Block, Blocks, Cyl, Kind, Request, RequestId, Travel};

/// A file of DiskSim's validation suite, outside the repository.
fn data(file: &str) -> PathBuf {
    shared_data::disksim_file(file)
}

fn load(file: &str) -> DisksimDisk {
    load_disksim(data(file), &DisksimOptions::default()).unwrap()
}

#[test]
fn the_validation_traces_replay_close_to_the_real_drives() {
    // (model, trace, DiskSim 2.01's demerit on this machine, the
    // demerit of the model without a cache, ms; exact quantiles)
    let drives = [
        ("hp_c2247a.parv", "hp_c2247a.trace", 0.089, 1.7065),
        ("hp_c3323a.parv", "hp_c3323a.trace", 0.305, 2.4877),
        ("cheetah9LP.parv", "cheetah9LP.trace", 0.107, 2.2921),
        ("ibm18es.parv", "ibm18es.trace", 0.136, 3.5782),
    ];
    for (parv, trace, disksim, bare) in drives {
        let loaded = load(parv);
        let options = ReplayOptions {
            disk: loaded.spec.clone(),
            policy: sched_core::PolicySpec::Fcfs,
            format: None,
            trace: TraceOptions::default(),
            speed: 1.0,
            seed: 1,
            fit: experiments::Fit::Refuse,
        };
        let v = replay(data(trace), &options).unwrap().validation.unwrap();
        // The same drive as before it had a cache: one read-miss
        // overhead for every request.
        let mut without = options.clone();
        without.disk.cache = None;
        without.disk.controller_overhead_ms = loaded.overheads.unwrap().read_miss_total_ms();
        let w = replay(data(trace), &without).unwrap().validation.unwrap();
        println!(
            "{parv}: measured {:.3} ms; with the cache {:.3} ms, demerit {:.3}; without {:.3} ms, demerit {:.3}; DiskSim {disksim}",
            v.measured_mean_ms,
            v.simulated_mean_ms,
            v.demerit_ms,
            w.simulated_mean_ms,
            w.demerit_ms
        );
        assert!((w.demerit_ms - bare).abs() < 5e-4, "{parv}: {w:?}");
        // Within twice DiskSim's own figure (it models more of the
        // controller), under 15 % of the cache-free model's, and the
        // mean within 2 % of the real drive's.
        assert!(v.demerit_ms < 2.0 * disksim, "{parv}: {v:?}");
        assert!(v.demerit_ms < 0.15 * w.demerit_ms, "{parv}: {v:?}");
        assert!(
            (v.simulated_mean_ms / v.measured_mean_ms - 1.0).abs() < 0.02,
            "{parv}: {v:?}"
        );
    }
}

/// A validation trace: (read?, block, blocks, access µs, idle µs) per line.
fn trace(file: &str) -> Vec<(bool, u64, u32, f64, f64)> {
    std::fs::read_to_string(data(file))
        .unwrap()
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            (
                f[0] == "R",
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn mean_random_reads_are_near_the_measured_access_times() {
    // Model: mean random seek + half a revolution + one block + overhead.
    // Measured (column 5): every request, every read, and the reads that
    // do not continue the previous request (the others mostly hit the
    // drive's read-ahead). Also a closed-loop replay of the trace through
    // the model, for the same reads.
    for (parv, trace_file) in [
        ("hp_c2247a.parv", "hp_c2247a.trace"),
        ("hp_c3323a.parv", "hp_c3323a.trace"),
        ("cheetah9LP.parv", "cheetah9LP.trace"),
        ("ibm18es.parv", "ibm18es.trace"),
    ] {
        let spec = from_disksim(data(parv)).unwrap();
        let mut disk = DiskModel::from_spec(&spec).unwrap();
        let model_ms = (disk.mean_random_seek()
            + disk.mean_rotational_latency()
            + disk.transfer_time(0, 1)
            + disk.overhead()) as f64
            / 1e6;
        let lines = trace(trace_file);
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64 / 1e3;
        let all: Vec<f64> = lines.iter().map(|l| l.3).collect();
        let reads: Vec<f64> = lines.iter().filter(|l| l.0).map(|l| l.3).collect();
        let mut fresh = Vec::new();
        let mut replayed = Vec::new();
        let mut rng = Stream::numbered(1);
        let mut now = 0u64;
        let mut prev_end = None;
        for (i, &(read, block, blocks, access, idle)) in lines.iter().enumerate() {
            let kind = if read { Kind::Read } else { Kind::Write };
            let cylinder = disk.locate(block).unwrap();
            let req = Request::new(
                RequestId(i as u64),
                kind,
                Block(block),
                Blocks(blocks),
                Cyl(cylinder),
                now,
            );
            let served = disk.serve(&req, Travel::Direct, now, &mut rng).total();
            if read && prev_end != Some(block) {
                fresh.push(access);
                replayed.push(served as f64 / 1e3);
            }
            prev_end = Some(block + u64::from(blocks));
            now += served + (idle * 1e3) as u64;
        }
        let (fresh_ms, replay_ms) = (mean(&fresh), mean(&replayed));
        println!(
            "{parv}: model {model_ms:.2} ms; measured: all {:.2}, reads {:.2}, fresh reads {fresh_ms:.2} ({} of {}); replayed fresh reads {replay_ms:.2}",
            mean(&all),
            mean(&reads),
            fresh.len(),
            reads.len(),
        );
        assert!(
            (model_ms / fresh_ms - 1.0).abs() < 0.3,
            "{parv}: {model_ms} vs {fresh_ms}"
        );
        assert!(
            (replay_ms / fresh_ms - 1.0).abs() < 0.3,
            "{parv}: {replay_ms} vs {fresh_ms}"
        );
    }
}

/// DiskSim 4.0's own demerit on each bundled drive's validation trace, ms:
/// its `rms` tool on its `validate` run, DiskSim built from the public
/// source (`nmsudatalab/disksim-4.0`) with `scripts/disksim-compare.sh`
/// (issue 34 records the same four figures).
const DISKSIM_DEMERIT_MS: [(&str, &str, f64); 4] = [
    ("hp_c2247a.parv", "hp_c2247a.trace", 0.0899),
    ("hp_c3323a.parv", "hp_c3323a.trace", 0.3057),
    ("cheetah9LP.parv", "cheetah9LP.trace", 0.1069),
    ("ibm18es.parv", "ibm18es.trace", 0.1359),
];

/// The demerit of each bundled drive, from `disk::validation` (exact
/// quantiles), at most 1.1 × DiskSim 4.0's on the same trace (the IBM 18ES
/// at most DiskSim's own), and not suspiciously far below it (a model that
/// suddenly beat DiskSim by half would have stopped replaying the trace as
/// it is).
///
/// The IBM 18ES was at 1.44 × DiskSim's (0.195 ms) while its reads on the
/// arm's own cylinder waited 0.062 ms of head switch where the real drive
/// settles for about a millisecond; with the settling of a one-cylinder
/// seek (see `disk_emu::disk::cache`) it is at 0.815 × (0.1108 ms).
#[test]
fn bundled_drives_come_within_disksims_demerit() {
    use disk_emu::disk::validation::validate;
    for (parv, trace, disksim) in DISKSIM_DEMERIT_MS {
        let run = validate(&load(parv).spec, data(trace), Stream::numbered(1)).unwrap();
        let all = run.overall();
        let ratio = all.demerit_ms / disksim;
        println!(
            "{parv}: demerit {:.4} ms, {ratio:.3} x DiskSim's {disksim}",
            all.demerit_ms
        );
        let most = if parv == "ibm18es.parv" { 1.0 } else { 1.1 };
        assert!((0.5..=most).contains(&ratio), "{parv}: {ratio} {all:?}");
        assert!(
            (all.simulated_mean_ms / all.measured_mean_ms - 1.0).abs() < 0.015,
            "{parv}: {all:?}"
        );
    }
}

/// HP C2247A writes that take two disconnects (`Doub`) were a revolution
/// off whenever DiskSim's controller waits for 10 buffered blocks; with its
/// write path their demerit is that of the reads.
#[test]
fn hp_c2247a_writes_follow_disksims_controller() {
    use disk_emu::disk::validation::validate;
    let run = validate(
        &load("hp_c2247a.parv").spec,
        data("hp_c2247a.trace"),
        Stream::numbered(1),
    )
    .unwrap();
    let classes = run.by_class();
    let doub = classes
        .iter()
        .find(|(name, _)| name == "write Doub")
        .map(|c| c.1.clone())
        .unwrap();
    assert_eq!(doub.requests, 3224);
    assert!(doub.demerit_ms < 0.2, "{doub:?}");
}

/// A trace that is not a validation trace is a typed error naming it.
#[test]
fn a_trace_without_measured_times_is_refused() {
    use disk_emu::disk::validation::{ValidationError, validate};
    match validate(
        &load("hp_c2247a.parv").spec,
        data("ascii.trace"),
        Stream::numbered(1),
    ) {
        Err(ValidationError::NotValidation { file }) => assert!(file.ends_with("ascii.trace")),
        Err(ValidationError::Trace(e)) => assert!(e.to_string().contains("ascii.trace"), "{e}"),
        other => panic!("{other:?}"),
    }
}
