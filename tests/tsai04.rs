//! Tsai, Chu & Huang (EMSOFT '04): what WRR-SCAN must show on the emulated
//! HP 97560 — admission capacity of the three versions, the guarantee
//! (admitted tasks never miss, the aperiodic server gets its blocks), the
//! heavy-load comparison with SCAN-EDF, and typed errors for bad task sets.

use std::path::PathBuf;

use disk_emu::disk::{DiskModel, presets};
use experiments::{RateTaskSpec, RateWorkload, run_rate, wrr_params_on};
use proptest::prelude::*;
use sched_core::policy::{
    AdmitError, AperiodicReserve, Bound, RateTask, ScanEdf, TaskError, WrrMode, WrrParams, WrrScan,
};
use sched_core::{
    AnySpec, Block, Blocks, Cyl, Head, Heap, Inline, Kind, NullEstimator, Request, RequestId,
    Scheduler,
};
use spindle::admit::{TaskSetError, load};
use spindle::repro::tsai04::{
    CAPACITY_OFFER, DEFAULT_SHARE_PPM, Tsai04Options, admitted, contenders, run_point,
};

const MS: u64 = 1_000_000;

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn admission_capacity_matches_the_paper() {
    // Paper: R < 20, C up to 55, CA > 90; measured over 20 sets: R 9.6,
    // C 50.0, CA 101. Two-sided: R in [5, 20), C in [45, 55], CA in [90,
    // 110] (above 90 as the paper says, and not so far above that the
    // admission test would have stopped charging what the paper charges).
    let sets = 20;
    let capacity = |mode| {
        mean(
            (0..sets)
                .map(|s| admitted(mode, DEFAULT_SHARE_PPM, CAPACITY_OFFER, 7, s).unwrap() as f64),
        )
    };
    let (r, c, ca) = (
        capacity(WrrMode::Random),
        capacity(WrrMode::Contiguous),
        capacity(WrrMode::Aligned),
    );
    println!("admitted on average over {sets} task sets: R {r:.1}, C {c:.1}, CA {ca:.1}");
    assert!((5.0..20.0).contains(&r), "WRR-SCAN-R admits {r}");
    assert!((45.0..=55.0).contains(&c), "WRR-SCAN-C admits {c}");
    assert!((90.0..=110.0).contains(&ca), "WRR-SCAN-CA admits {ca}");
}

#[test]
fn at_heavy_load_scan_edf_seeks_further_and_ca_uses_the_disk_best() {
    let opts = Tsai04Options {
        sets: 4,
        seconds: 60,
        ..Tsai04Options::default()
    };
    let cs = contenders(DEFAULT_SHARE_PPM);
    for x in [61, 76, 91] {
        let runs: Vec<Vec<_>> = cs
            .iter()
            .map(|c| {
                (0..opts.sets)
                    .map(|s| run_point(c, x, s, &opts).unwrap())
                    .collect()
            })
            .collect();
        let avg =
            |c: usize, f: &dyn Fn(&experiments::RateReport) -> f64| mean(runs[c].iter().map(f));
        let distance: Vec<f64> = (0..4)
            .map(|c| avg(c, &|r| r.total_seek_distance as f64))
            .collect();
        let utilisation: Vec<f64> = (0..4).map(|c| avg(c, &|r| r.utilisation)).collect();
        let ca_admitted = avg(2, &|r| r.admitted as f64);
        println!(
            "x = {x}: CA admits {ca_admitted:.1}; seek distance R {:.0} C {:.0} CA {:.0} SCAN-EDF {:.0}; utilisation R {:.3} C {:.3} CA {:.3} SCAN-EDF {:.3}",
            distance[0],
            distance[1],
            distance[2],
            distance[3],
            utilisation[0],
            utilisation[1],
            utilisation[2],
            utilisation[3]
        );
        assert!(ca_admitted >= 60.0, "CA runs the heavy load itself");
        assert!(
            distance[3] > distance[2],
            "SCAN-EDF {} vs CA {}",
            distance[3],
            distance[2]
        );
        for other in [0, 1, 3] {
            assert!(
                utilisation[2] > utilisation[other],
                "CA {} vs {} {}",
                utilisation[2],
                experiments::rate_label(&cs[other]),
                utilisation[other]
            );
        }
    }
}

#[test]
fn scan_edf_serves_aperiodic_requests_only_when_no_job_is_pending() {
    let mut q = ScanEdf::new(Inline::<16>::new(), 1962, 1).unwrap();
    let req = |id, cylinder| {
        Request::new(
            RequestId(id),
            Kind::Read,
            Block(0),
            Blocks(8),
            Cyl(cylinder),
            0,
        )
    };
    // Aperiodic (no deadline) reads right under the arm, jobs far away.
    for id in 0..4 {
        q.enqueue(req(id, 100)).unwrap();
    }
    for id in 4..8 {
        q.enqueue(req(id, 1900).with_deadline(10_000 * id).with_class(1))
            .unwrap();
    }
    let order: Vec<u64> = std::iter::from_fn(|| q.next(Head::at(100), 0, &NullEstimator))
        .map(|d| d.request.id.0)
        .collect();
    assert_eq!(order, [4, 5, 6, 7, 0, 1, 2, 3]);
}

#[test]
fn an_infeasible_task_is_refused_never_admitted_then_missed() {
    let model = DiskModel::from_spec(&presets::hp97560()).unwrap();
    let params = WrrParams::tsai04(WrrMode::Aligned, AperiodicReserve::Blocks(2));
    let task = |class, period_ms: u64, blocks| RateTaskSpec {
        class,
        release: 0,
        period: period_ms * MS,
        blocks,
    };
    // 400 blocks every 500 ms: 585 ms of transfer alone.
    let workload = RateWorkload {
        tasks: vec![task(1, 2000, 20), task(2, 500, 400), task(3, 3000, 30)],
        aperiodic_gap: 35 * MS,
        block_sectors: 8,
    };
    let mut wrr = WrrScan::new(Heap::new(4).unwrap(), Heap::new(4).unwrap(), 1962, params).unwrap();
    assert!(wrr.admit(workload.tasks[0].task()).is_ok());
    assert!(matches!(
        wrr.admit(workload.tasks[1].task()),
        Err(AdmitError::Unschedulable {
            bound: Bound::Eq10,
            ..
        })
    ));
    let report = run_rate(
        &model,
        &workload,
        &AnySpec::RateBased(params),
        30_000 * MS,
        3,
        0,
    )
    .unwrap();
    assert_eq!(report.admitted, 2);
    assert!(!report.tasks[1].admitted);
    assert_eq!(report.tasks[1].jobs, 0, "a refused task never runs");
    assert_eq!(report.deadline_misses, 0);
    assert!(report.jobs > 20);
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-tsai04-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn bad_task_specifications_are_typed_errors() {
    let field_of = |path: PathBuf| match load(&path) {
        Err(TaskSetError::Field {
            path: p, at, field, ..
        }) => {
            assert_eq!(p, path);
            (at, field)
        }
        other => panic!("{}: expected a field error, got {other:?}", path.display()),
    };
    let zero_rate = write(
        "zero-rate.toml",
        "[[task]]\nrate_kb_s = 0\nbuffer_kb = 56\n",
    );
    assert_eq!(field_of(zero_rate), ("task[1]".into(), "rate_kb_s"));
    let negative = write(
        "negative.json",
        r#"{"task": [{"rate_kb_s": 10, "buffer_kb": 56}, {"rate_kb_s": -3, "buffer_kb": 56}]}"#,
    );
    assert_eq!(field_of(negative), ("task[2]".into(), "rate_kb_s"));
    let zero_buffer = write(
        "zero-buffer.toml",
        "[[task]]\nrate_kb_s = 10\nbuffer_kb = 0\n",
    );
    assert_eq!(field_of(zero_buffer), ("task[1]".into(), "buffer_kb"));
    // 4 KB at 1 MB/s: a 3.9 ms period, shorter than a 15 ms revolution.
    let fast = write("fast.toml", "[[task]]\nrate_kb_s = 1024\nbuffer_kb = 4\n");
    assert_eq!(field_of(fast), ("task[1]".into(), "rate_kb_s"));
    let typo = write("typo.toml", "[[task]]\nrate_kb_s = 1\nbufer_kb = 4\n");
    assert!(
        matches!(load(&typo), Err(TaskSetError::Parse { message, .. }) if message.contains("bufer_kb"))
    );
    assert!(matches!(
        load(&write("set.yaml", "")),
        Err(TaskSetError::Format { .. })
    ));
    // The library refuses the same at its own level.
    assert_eq!(
        RateTask::from_rate(1, 0, 4096, 4096),
        Err(TaskError::ZeroRate)
    );
    assert_eq!(
        RateTask::from_rate(1, 1, 0, 4096),
        Err(TaskError::ZeroBuffer)
    );
    let params = WrrParams::tsai04(WrrMode::Contiguous, AperiodicReserve::Blocks(1));
    let mut wrr = WrrScan::new(Heap::new(1).unwrap(), Heap::new(1).unwrap(), 1962, params).unwrap();
    let short = RateTask {
        class: 1,
        period: 10 * MS,
        blocks: 1,
    };
    assert!(matches!(
        wrr.admit(short),
        Err(AdmitError::Invalid(TaskError::PeriodBelowRevolution { .. }))
    ));
}

/// The workload of a drawn task set: (period ms, blocks, release in
/// thousandths of the period) per task, and the mean aperiodic gap.
fn workload(tasks: &[(u64, u32, u64)], gap_ms: u64) -> RateWorkload {
    RateWorkload {
        tasks: tasks
            .iter()
            .enumerate()
            .map(|(i, &(period_ms, blocks, release_permille))| RateTaskSpec {
                class: (i + 1) as u16,
                release: period_ms * MS * release_permille / 1000,
                period: period_ms * MS,
                blocks,
            })
            .collect(),
        aperiodic_gap: gap_ms * MS,
        block_sectors: 8,
    }
}

/// A random task set: periods around a random mean, buffers of 1..=40 blocks.
fn task_sets() -> impl Strategy<Value = (Vec<(u64, u32, u64)>, u64, u32)> {
    (
        prop::collection::vec((300u64..8_000, 1u32..=40, 0u64..1_000), 1..80),
        5u64..120,
        prop_oneof![(0u32..20_000).prop_map(|ppm| ppm), Just(DEFAULT_SHARE_PPM)],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// Whatever the task set, an admitted task never misses a deadline on
    /// the emulated disk, and in nearly every round that begins with
    /// aperiodic reads waiting the server completes min(waiting, x_a) of
    /// them. Not in every round: the admission test uses the paper's Table 2
    /// constants, which underestimate the emulated drive's transfer (2.46
    /// against 2.8 MB/s, track switches inside a long piece) and leave out
    /// its 2.2 ms controller overhead, so a round at the edge of its budget
    /// can run a few ms long and finish its aperiodic read just after the
    /// boundary (measured: one such round in 91, in one task set of 512).
    /// The jobs' deadlines, a period away, absorb it.
    #[test]
    fn admitted_tasks_never_miss_and_the_server_gets_its_blocks(
        (tasks, gap_ms, ppm) in task_sets(),
        mode in prop_oneof![Just(WrrMode::Random), Just(WrrMode::Contiguous), Just(WrrMode::Aligned)],
        seed in 0u64..1_000,
    ) {
        let model = DiskModel::from_spec(&presets::hp97560()).unwrap();
        let workload = workload(&tasks, gap_ms);
        let params = WrrParams::tsai04(mode, AperiodicReserve::Share { ppm });
        let report = run_rate(&model, &workload, &AnySpec::RateBased(params), 40_000 * MS, seed, 0).unwrap();
        prop_assert_eq!(report.deadline_misses, 0, "{:?}", report.tasks.iter().filter(|t| t.misses > 0).collect::<Vec<_>>());
        prop_assert!(
            report.aperiodic_short_rounds * 50 <= report.aperiodic_rounds_with_work,
            "{} short rounds of {}",
            report.aperiodic_short_rounds,
            report.aperiodic_rounds_with_work
        );
    }
}

/// Task sets of long streams: jobs of 20 to 80 blocks every 1 to 3 s.
fn stream_sets() -> impl Strategy<Value = (Vec<(u64, u32, u64)>, u64, u32)> {
    (
        prop::collection::vec((1_000u64..3_000, 20u32..=80, 0u64..1_000), 1..40),
        5u64..120,
        prop_oneof![(0u32..20_000).prop_map(|ppm| ppm), Just(DEFAULT_SHARE_PPM)],
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Long streams fill a round with long pieces. Admitted by the paper's
    /// constants such a round can overrun on the emulated drive and a task
    /// miss (with `paper` in place of `drive` below this fails within 64
    /// cases, e.g. 5 of 13 jobs of one task; `crates/cli/tests/task_runs.rs`
    /// keeps one such set); admitted by the constants measured on the drive
    /// ([`wrr_params_on`]), no job of an admitted task misses.
    #[test]
    fn with_the_drives_constants_admitted_streams_never_miss(
        (tasks, gap_ms, ppm) in stream_sets(),
        mode in prop_oneof![Just(WrrMode::Random), Just(WrrMode::Contiguous), Just(WrrMode::Aligned)],
        seed in 0u64..1_000,
    ) {
        let model = DiskModel::from_spec(&presets::hp97560()).unwrap();
        let workload = workload(&tasks, gap_ms);
        let paper = WrrParams::tsai04(mode, AperiodicReserve::Share { ppm });
        let drive = wrr_params_on(&model, paper).unwrap();
        let report = run_rate(&model, &workload, &AnySpec::RateBased(drive), 30_000 * MS, seed, 0).unwrap();
        prop_assert_eq!(report.deadline_misses, 0, "{:?}", report.tasks.iter().filter(|t| t.misses > 0).collect::<Vec<_>>());
    }
}

#[test]
fn the_reproduction_does_not_depend_on_jobs() {
    use spindle::output::{Format, render_all};
    use spindle::repro::tsai04::{figure, sweep};
    let opts = |jobs| Tsai04Options {
        sets: 3,
        seconds: 10,
        step: 45,
        jobs,
        ..Tsai04Options::default()
    };
    let render = |jobs| {
        let s = sweep(&opts(jobs)).unwrap();
        let tables: Vec<_> = (5..=12)
            .flat_map(|n| figure(n, &s).unwrap().tables)
            .collect();
        render_all(&tables, Format::Json)
    };
    assert_eq!(render(1), render(3));
}

#[test]
fn at_full_admission_capacity_no_admitted_task_misses() {
    // The paper's workload offered beyond what any version admits: every
    // version runs at its capacity, with the paper's Table 2 bounds on the
    // emulated drive (whose own rotation, transfer and controller overhead
    // the bounds only approximate).
    let model = DiskModel::from_spec(&presets::hp97560()).unwrap();
    for set in 0..2 {
        for mode in WrrMode::ALL {
            let params = WrrParams::tsai04(
                mode,
                AperiodicReserve::Share {
                    ppm: DEFAULT_SHARE_PPM,
                },
            );
            let w = experiments::Tsai04Distribution::default()
                .task_set(CAPACITY_OFFER, 21, set)
                .unwrap();
            let r = run_rate(
                &model,
                &w,
                &AnySpec::RateBased(params),
                60_000 * MS,
                21,
                set,
            )
            .unwrap();
            println!(
                "{mode}: {} admitted, {} jobs, least slack {:.1} ms",
                r.admitted, r.jobs, r.min_slack_ms
            );
            assert_eq!(r.deadline_misses, 0, "{mode}");
            assert!(r.min_slack_ms > 0.0);
            assert_eq!(r.aperiodic_short_rounds, 0, "{mode}");
        }
    }
}

#[test]
fn a_run_too_short_for_some_jobs_to_complete_leaves_their_slack_out() {
    // One second: with few tasks, often no job has completed yet (a first
    // release is anywhere in its period, up to seconds), so such a run has
    // no slack to report; the figures and the summary still come out.
    use spindle::repro::tsai04::{figure, summary, sweep};
    let opts = Tsai04Options {
        sets: 2,
        seconds: 1,
        step: 90,
        share_ppm: 0,
        jobs: 2,
        ..Tsai04Options::default()
    };
    let s = sweep(&opts).unwrap();
    // Runs in which no job completed leave `min_slack_ms` out (before the
    // fix their NaN aborted the sweep); the ones recorded are finite.
    let recorded: Vec<usize> = s
        .tables
        .iter()
        .flatten()
        .map(|m| m.values("min_slack_ms").map_or(0, <[_]>::len))
        .collect();
    assert!(
        recorded.iter().any(|&n| n < opts.sets as usize),
        "some 1 s run completes no job: {recorded:?}"
    );
    assert!(
        s.tables
            .iter()
            .flatten()
            .filter_map(|m| m.values("min_slack_ms"))
            .flatten()
            .all(|&(_, v)| v.is_finite())
    );
    summary(&opts, &s).unwrap();
    for n in 5..=12 {
        figure(n, &s).unwrap();
    }
}

#[test]
fn figure11_flat_aperiodic_throughput_and_ca_capacity_cannot_hold_together() {
    // Paper: WRR-SCAN's aperiodic throughput is nearly constant up to 91
    // tasks (Figure 11) *and* WRR-SCAN-CA admits more than 90 tasks.
    // Measured: the reservation decides which of the two holds. Once CA
    // runs more than ~60 tasks the disk is never idle (0.2 % idle at 91)
    // and the 28.6 reads/s of the aperiodic stream (114 KB/s) get only
    // what the reservation gives them; a reservation large enough to
    // serve them all costs CA its capacity. Default 0.5 %: capacity ~100,
    // throughput at 91 tasks ~61 KB/s, 0.53 of one task's. 3 %: flat
    // (1.00), capacity ~55 — Figure 11's shape only because CA then runs
    // no more than 55 of the 91 tasks.
    let opts = Tsai04Options {
        sets: 4,
        seconds: 60,
        ..Tsai04Options::default()
    };
    for (share, flat, capacity) in [
        (DEFAULT_SHARE_PPM, 0.40..=0.70, 90.0..=110.0),
        (30_000, 0.97..=1.02, 50.0..=60.0),
    ] {
        let ca = &contenders(share)[2];
        let throughput = |x| {
            mean((0..opts.sets).map(|s| run_point(ca, x, s, &opts).unwrap().aperiodic_throughput))
        };
        let ratio = throughput(91) / throughput(1);
        let admits = mean(
            (0..8).map(|s| admitted(WrrMode::Aligned, share, CAPACITY_OFFER, 7, s).unwrap() as f64),
        );
        println!(
            "share {share} ppm: CA aperiodic throughput at 91 tasks {ratio:.3} of 1 task's; CA admits {admits:.1}"
        );
        assert!(flat.contains(&ratio), "share {share}: ratio {ratio:.3}");
        assert!(
            capacity.contains(&admits),
            "share {share}: CA admits {admits:.1}"
        );
    }
}

#[test]
fn figure5_scan_edf_seek_distance_shape_comes_from_the_aperiodic_reads() {
    // Paper (Figure 5): SCAN-EDF's total seek distance rises with the task
    // count and drops after about 60 tasks. Measured: it falls from 16 to
    // ~61 tasks, then rises. Splitting it (a run without the aperiodic
    // stream) shows two shapes added: the periodic reads' distance rises
    // all the way (0.8 k cylinders at 1 task, 117 k at 16, 716 k at 91),
    // and what the aperiodic reads add falls (958 k at 1 task to 9 k at
    // 91),
    // because SCAN-EDF serves a deadline-free aperiodic read only when no
    // job is pending: at low load each of the 28.6 reads/s is a random
    // seek of its own, at high load few are served (Figure 11: 26 KB/s at
    // 91 tasks). The paper's rising curve is the periodic part's shape,
    // as if its figure counted the periodic reads alone; its drop after 60
    // tasks is not reproduced by either part.
    let opts = Tsai04Options {
        sets: 4,
        seconds: 60,
        ..Tsai04Options::default()
    };
    let edf = &contenders(DEFAULT_SHARE_PPM)[3];
    let model = DiskModel::from_spec(&presets::hp97560()).unwrap();
    let distance = |x: usize, aperiodic: bool| {
        mean((0..opts.sets).map(|set| {
            let mut w = experiments::Tsai04Distribution::default()
                .task_set(91, opts.seed, set)
                .unwrap();
            w.tasks.truncate(x);
            if !aperiodic {
                w.aperiodic_gap = 0;
            }
            run_rate(
                &model,
                &w,
                edf,
                opts.seconds * 1_000_000_000,
                opts.seed,
                set,
            )
            .unwrap()
            .total_seek_distance as f64
        }))
    };
    let xs = [1, 16, 31, 46, 61, 76, 91];
    let all: Vec<f64> = xs.iter().map(|&x| distance(x, true)).collect();
    let periodic: Vec<f64> = xs.iter().map(|&x| distance(x, false)).collect();
    let aperiodic: Vec<f64> = all.iter().zip(&periodic).map(|(a, p)| a - p).collect();
    for (i, x) in xs.iter().enumerate() {
        println!(
            "x = {x}: SCAN-EDF seek distance {:.0} = periodic {:.0} + aperiodic {:.0}",
            all[i], periodic[i], aperiodic[i]
        );
    }
    let rising = |v: &[f64]| v.windows(2).all(|w| w[1] > w[0]);
    assert!(rising(&periodic), "periodic part not rising: {periodic:?}");
    assert!(
        aperiodic.windows(2).all(|w| w[1] < w[0]),
        "aperiodic part not falling: {aperiodic:?}"
    );
    // The sum falls from 16 to 61 tasks and rises after: the lowest point
    // is at 61 tasks (index 4), by a margin of 10 % or more either side.
    let low = all[4];
    assert!(all[1] > 1.5 * low && all[6] > 1.2 * low, "{all:?}");
    assert!(all[3] > 1.1 * low && all[5] > 1.05 * low, "{all:?}");
    assert!(
        (0.5..=2.0).contains(&(aperiodic[0] / 958_000.0)),
        "{aperiodic:?}"
    );
    assert!(periodic[0] < 0.01 * all[0] && periodic[6] > 0.95 * all[6]);
}
