//! Chen & Towsley (1991): the findings of §4.2 the transaction simulator
//! must reproduce, each from real runs with the paper's method (20
//! replications of 1050 transactions, the first 50 discarded) through the
//! same code as `spindle repro chen-towsley91`.
//!
//! Every effect is asserted inside a two-sided band: around the paper's
//! figure where we reproduce it, around our own measured figure where we do
//! not (the reason is given beside the band; `spindle repro chen-towsley91
//! --sensitivity` measures what each reading of the text does to it). An
//! ordering of two means whose gap is within their intervals is asserted on
//! the paired difference: replication r of every policy sees the same
//! users, transactions and deadlines, so the difference per replication
//! has a far narrower interval than either mean.

use experiments::{Interval, MetricTable};
use spindle::repro::chen_towsley91::{Axis, TxnReproOptions, point};

fn options() -> TxnReproOptions {
    TxnReproOptions {
        jobs: 2,
        ..TxnReproOptions::default()
    }
}

fn users(io: &str, n: u32) -> MetricTable {
    point(io, Axis::Users, f64::from(n), true, &options()).unwrap()
}

fn interval(m: &MetricTable, metric: &str) -> Interval {
    m.interval(metric, 0.95).unwrap()
}

fn mean(m: &MetricTable, metric: &str) -> f64 {
    interval(m, metric).mean
}

/// The 95 % interval of `metric` in `a` minus `metric` in `b`, replication
/// by replication (the same replications ran in both).
fn paired(a: &MetricTable, b: &MetricTable, metric: &str) -> Interval {
    let (a, b) = (a.values(metric).unwrap(), b.values(metric).unwrap());
    let diffs: Vec<f64> = a
        .iter()
        .map(|&(r, x)| {
            let &(_, y) = b.iter().find(|&&(q, _)| q == r).unwrap();
            x - y
        })
        .collect();
    assert_eq!(diffs.len(), b.len(), "the same replications on both sides");
    Interval::from_values(&diffs, 0.95).unwrap()
}

/// Asserts that `a` is below `b` on `metric` by the paired difference.
fn below(a: &MetricTable, b: &MetricTable, metric: &str, what: &str) {
    let d = paired(a, b, metric);
    assert!(
        d.upper().unwrap() < 0.0,
        "{what}: paired difference {d:?} is not below 0"
    );
}

fn within(value: f64, band: (f64, f64), what: &str) {
    assert!(
        (band.0..=band.1).contains(&value),
        "{what}: {value:.4} outside [{}, {}]",
        band.0,
        band.1
    );
}

/// 1 − mirrored / single, in percent.
fn reduction(mirrored: f64, single: f64) -> f64 {
    100.0 * (1.0 - mirrored / single)
}

#[test]
fn figure2_mirrored_rt_policies_lose_far_fewer_than_one_disk() {
    // Paper: up to 68 % below SSEDO and up to 81 % below FCFS. Measured
    // here at 20 users: 86 % and 92 % (RT-DMQ), 84 % and 91 % (RT-CMQ),
    // the largest over the sweep 89 % and 94 % at 10-12 users. Not the
    // paper's: with the text's T_D = 25 ms (the chen-towsley-91 disk's own
    // mean service) the mirror's deadlines are loose enough that it loses
    // little. The sensitivity study finds the paper's figures only where
    // deadlines are about a quarter tighter against the disk (T_D = 15 ms:
    // 61 % and 74 %), which the text does not support.
    let ssedo = mean(&users("ssedo", 20), "loss_ratio");
    let fcfs = mean(&users("fcfs", 20), "loss_ratio");
    let mut mirrored = Vec::new();
    for io in ["rt-dmq", "rt-cmq"] {
        let loss = mean(&users(io, 20), "loss_ratio");
        within(
            reduction(loss, ssedo),
            (78.0, 92.0),
            &format!("{io} vs SSEDO at 20 users, % (paper: up to 68)"),
        );
        within(
            reduction(loss, fcfs),
            (86.0, 96.0),
            &format!("{io} vs FCFS at 20 users, % (paper: up to 81)"),
        );
        mirrored.push(loss);
    }
    // "RT-DMQ and RT-CMQ perform basically the same": within 0.02.
    within(
        (mirrored[0] - mirrored[1]).abs(),
        (0.0, 0.02),
        "RT-DMQ vs RT-CMQ loss at 20 users",
    );
    // The single disks' own levels (paper: not printed).
    within(ssedo, (0.40, 0.50), "SSEDO loss at 20 users");
    within(fcfs, (0.70, 0.80), "FCFS loss at 20 users");
}

#[test]
fn figure3_real_time_disciplines_beat_the_others_on_dmq() {
    let (ssedo, fd_scan, sstf, fcfs) = (
        users("rt-dmq", 20),
        users("fd-dmq", 20),
        users("dmq", 20),
        users("dmq:queue=fcfs", 20),
    );
    // The order of the paper: SSEDO ≤ FD-SCAN < SSTF < FCFS, each step on
    // the paired difference.
    below(
        &ssedo,
        &fd_scan,
        "loss_ratio",
        "RT-DMQ(SSEDO) vs RT-DMQ(FD-SCAN)",
    );
    below(
        &fd_scan,
        &sstf,
        "loss_ratio",
        "RT-DMQ(FD-SCAN) vs DMQ(SSTF)",
    );
    below(&sstf, &fcfs, "loss_ratio", "DMQ(SSTF) vs DMQ(FCFS)");
    // Paper: the RT policies up to 17 % better. Measured: 55 % at 20 users
    // (the largest over the sweep, 60 %). Not the paper's, for the reason
    // of Figure 2: SSTF ignores deadlines, and with deadlines this loose
    // against the disk the RT disciplines save most of what SSTF loses;
    // only deadlines a quarter tighter (T_D = 15 ms) bring it to 25 %.
    let best = mean(&ssedo, "loss_ratio").min(mean(&fd_scan, "loss_ratio"));
    within(
        reduction(best, mean(&sstf, "loss_ratio")),
        (45.0, 65.0),
        "best RT vs DMQ(SSTF) at 20 users, % (paper: up to 17)",
    );
}

#[test]
fn figure4_the_lagging_disks_auxiliary_queue_stays_short() {
    // `queue_aux` is the lagging disk's own auxiliary queue (only the disk
    // behind holds writes in its queue). Paper: mean below 0.2 and
    // P(length > 1) below 0.03 at every load. Measured: P(length > 1)
    // 0.02 at 20 users, as the paper says; the mean rises to 0.26 there,
    // above the paper's 0.2 (a write the lagging disk has not begun waits
    // out the whole SSEDO choice of the common queue's other disk, and at
    // 20 users one disk or the other is behind more than a third of the
    // time), so its band is around our figure.
    let m = users("rt-cmq", 20);
    within(
        mean(&m, "queue_aux"),
        (0.18, 0.34),
        "aux queue at 20 users (paper: < 0.2)",
    );
    within(
        mean(&m, "aux_over_one"),
        (0.005, 0.03),
        "P(aux > 1) at 20 users (paper: < 0.03)",
    );
    let light = users("rt-cmq", 4);
    within(
        mean(&light, "queue_aux"),
        (0.02, 0.2),
        "aux queue at 4 users (paper: < 0.2)",
    );
    within(
        mean(&light, "aux_over_one"),
        (0.0, 0.03),
        "P(aux > 1) at 4 users (paper: < 0.03)",
    );
    // "SSEDO much longer than the mirrored policies; RT-DMQ-MR longer than
    // RT-CMQ": per-disk queues at 20 users (measured 14.9, 6.9; 12.1
    // against the common queue's 11.9).
    let single = mean(&users("ssedo", 20), "queue");
    let per_disk = mean(&users("rt-dmq", 20), "queue_disk");
    within(
        single / per_disk,
        (1.6, 2.8),
        "SSEDO queue / RT-DMQ per-disk queue",
    );
    below(
        &m,
        &users("rt-dmq-mr", 20),
        "queue",
        "RT-CMQ vs RT-DMQ-MR queue (paper: MR longer, its reads queued twice)",
    );
}

#[test]
fn figure6_minimum_read_is_the_best_rt_dmq_variant() {
    // Paper: RT-DMQ-MR the best variant, RT-DMQ-SQ close, RT-DMQ-RD worst.
    for n in [8, 14, 20] {
        let (mr, sq, rd) = (
            users("rt-dmq-mr", n),
            users("rt-dmq-sq", n),
            users("rt-dmq-rd", n),
        );
        below(&sq, &rd, "loss_ratio", &format!("{n} users: SQ vs RD"));
        below(&mr, &rd, "loss_ratio", &format!("{n} users: MR vs RD"));
        // MR and SQ are close: MR at most 0.01 above SQ (measured: below
        // up to 14 users, a tie at 20).
        let d = paired(&mr, &sq, "loss_ratio");
        assert!(
            d.upper().unwrap() < 0.01 && d.mean > -0.05,
            "{n} users: MR - SQ {d:?}"
        );
    }
}

#[test]
fn figure13_without_deadlines_dmq_beats_cmq_and_minimum_read_leads() {
    // Paper: DMQ-MR < DMQ-SQ < CMQ(SSTF) in mean response (and DMQ-RD
    // behind). Measured at 20 users: 2.87, 2.93, 2.96 and 2.98 s: gaps of a
    // few percent, asserted on paired differences.
    for n in [8, 20] {
        let response = |io| point(io, Axis::Users, f64::from(n), false, &options()).unwrap();
        let (mr, sq, rd, cmq) = (
            response("dmq-mr"),
            response("dmq-sq"),
            response("dmq-rd"),
            response("cmq-sstf"),
        );
        below(
            &sq,
            &cmq,
            "response_ms",
            &format!("{n} users: DMQ-SQ vs CMQ(SSTF)"),
        );
        below(
            &mr,
            &sq,
            "response_ms",
            &format!("{n} users: DMQ-MR vs DMQ-SQ"),
        );
        below(
            &sq,
            &rd,
            "response_ms",
            &format!("{n} users: DMQ-SQ vs DMQ-RD"),
        );
        // Small gaps: CMQ within 10 % of DMQ-SQ.
        within(
            mean(&cmq, "response_ms") / mean(&sq, "response_ms"),
            (1.0, 1.1),
            "CMQ(SSTF) / DMQ-SQ response",
        );
    }
}

#[test]
fn figure5_service_times_and_figures8_9_short_commits_on_one_disk() {
    let at20 = |io| users(io, 20);
    let (ssedo, fcfs, rt_dmq, rt_cmq, dmq) = (
        at20("ssedo"),
        at20("fcfs"),
        at20("rt-dmq"),
        at20("rt-cmq"),
        at20("dmq"),
    );
    // Figure 5: RT-CMQ above RT-DMQ (one SSEDO choice for both disks),
    // DMQ(SSTF) lowest, FCFS highest (measured 23.7, 23.3, 20.9, 25.6 ms).
    below(&rt_dmq, &rt_cmq, "service_ms", "RT-DMQ vs RT-CMQ service");
    below(&dmq, &rt_dmq, "service_ms", "DMQ(SSTF) vs RT-DMQ service");
    for m in [&ssedo, &rt_dmq, &rt_cmq, &dmq] {
        below(m, &fcfs, "service_ms", "service vs FCFS");
    }
    within(
        mean(&fcfs, "service_ms"),
        (24.0, 26.5),
        "FCFS service, ms (the disk's mean, 24.9)",
    );
    within(
        mean(&dmq, "service_ms"),
        (19.0, 22.5),
        "DMQ(SSTF) service, ms",
    );
    // Figures 8-9: under SSEDO only short transactions commit at high load,
    // so its committed ones are the fastest and the smallest (measured
    // 7.4 steps against 10.2 under RT-DMQ; 2.5 s against 3.1 s).
    for m in [&fcfs, &rt_dmq, &rt_cmq, &dmq] {
        below(&ssedo, m, "response_ms", "SSEDO committed response");
        below(&ssedo, m, "committed_size", "SSEDO committed size");
    }
    within(
        mean(&ssedo, "committed_size") / mean(&rt_dmq, "committed_size"),
        (0.6, 0.85),
        "SSEDO / RT-DMQ committed size",
    );
}

#[test]
fn figure12_loss_falls_with_the_read_probability_and_mirrors_keep_their_lead() {
    let at = |io, p_r| point(io, Axis::ReadProbability, p_r, true, &options()).unwrap();
    for io in ["ssedo", "rt-dmq"] {
        let (low, mid, high) = (at(io, 0.0), at(io, 0.5), at(io, 1.0));
        below(&mid, &low, "loss_ratio", &format!("{io}: p_r 0.5 vs 0"));
        below(&high, &mid, "loss_ratio", &format!("{io}: p_r 1 vs 0.5"));
    }
    // At p_r = 1 the mirror loses almost nothing and one disk still loses
    // (measured 0 and 0.157): the lead is widest when every step reads.
    within(
        mean(&at("rt-dmq", 1.0), "loss_ratio"),
        (0.0, 0.01),
        "RT-DMQ at p_r = 1",
    );
    within(
        mean(&at("ssedo", 1.0), "loss_ratio"),
        (0.10, 0.22),
        "SSEDO at p_r = 1",
    );
}

#[test]
fn figure7_the_rt_cmq_variants_lose_alike() {
    // Paper: no significant difference between RT-CMQ-F, -S and -W, the
    // auxiliary queue being too short for its discipline to matter: every
    // paired difference within ±0.01 (measured 0.067-0.068 at 20 users).
    for n in [8, 20] {
        let variants = ["rt-cmq-f", "rt-cmq-s", "rt-cmq-w"].map(|io| users(io, n));
        for a in &variants {
            for b in &variants {
                let d = paired(a, b, "loss_ratio");
                assert!(
                    d.lower().unwrap() > -0.01 && d.upper().unwrap() < 0.01,
                    "{n} users: {d:?}"
                );
            }
        }
    }
}

#[test]
fn figures10_11_mirrored_rt_policies_lead_at_every_deadline_setting() {
    let policies = ["rt-dmq", "rt-cmq", "ssedo", "fcfs", "dmq"];
    let settings = [1.0, 5.0, 10.0];
    let runs: Vec<(&str, f64, MetricTable)> = settings
        .iter()
        .flat_map(|&dl_low| policies.map(|io| (io, dl_low)))
        .map(|(io, dl_low)| {
            let m = point(io, Axis::DeadlineLow, dl_low, true, &options()).unwrap();
            (io, dl_low, m)
        })
        .collect();
    let table =
        |io: &str, dl_low: f64| &runs.iter().find(|r| (r.0, r.1) == (io, dl_low)).unwrap().2;
    for dl_low in settings {
        let best_rt = if mean(table("rt-dmq", dl_low), "loss_ratio")
            <= mean(table("rt-cmq", dl_low), "loss_ratio")
        {
            table("rt-dmq", dl_low)
        } else {
            table("rt-cmq", dl_low)
        };
        for other in ["ssedo", "fcfs", "dmq"] {
            below(
                best_rt,
                table(other, dl_low),
                "loss_ratio",
                &format!("DL_LOW {dl_low}: best RT vs {other}"),
            );
        }
    }
    let response = |io, dl_low| mean(table(io, dl_low), "response_ms");
    // Loose deadlines: "the mean transaction response time for a mirrored
    // disk is almost half of that for single disk" (measured 0.58).
    within(
        response("rt-dmq", 10.0) / response("ssedo", 10.0),
        (0.45, 0.65),
        "RT-DMQ / SSEDO response at DL_LOW 10 (paper: almost half)",
    );
    // DMQ(SSTF), with the shortest service, beats the real-time policies
    // once nearly nothing is lost (measured 2.93 s against 3.35 s).
    below(
        table("dmq", 10.0),
        table("rt-dmq", 10.0),
        "response_ms",
        "DL_LOW 10: DMQ(SSTF) vs RT-DMQ response",
    );
    // Tight deadlines: only short transactions commit on one disk.
    below(
        table("ssedo", 1.0),
        table("rt-dmq", 1.0),
        "response_ms",
        "DL_LOW 1: SSEDO vs RT-DMQ response",
    );
}

/// Linux beside the paper (`repro chen-towsley91 --with-linux`), at 20
/// users, the paper's heaviest load. Neither of Linux's schedulers looks at
/// a deadline, so one disk under mq-deadline or BFQ loses more
/// transactions than one under SSEDO, and Linux's mirror (md RAID-1 over
/// mq-deadline) loses more than RT-DMQ, while still losing far fewer than
/// any single disk. Measured (20 replications): SSEDO 0.449 ± 0.008,
/// mq-deadline 0.646 ± 0.008, BFQ 0.609 ± 0.006, RT-DMQ 0.064 ± 0.005,
/// linux-raid1 0.243 ± 0.007; the bands are our own measurement, the paper
/// has no Linux.
#[test]
fn linux_beside_the_paper() {
    let ssedo = users("ssedo", 20);
    let mq_deadline = users("mq-deadline", 20);
    let bfq = users("bfq", 20);
    let rt_dmq = users("rt-dmq", 20);
    let linux_raid1 = users("linux-raid1", 20);
    for (m, name, lo, hi) in [
        (&mq_deadline, "mq-deadline", 0.61, 0.68),
        (&bfq, "bfq", 0.58, 0.64),
        (&linux_raid1, "linux-raid1", 0.22, 0.27),
    ] {
        let loss = mean(m, "loss_ratio");
        assert!((lo..=hi).contains(&loss), "{name}: loss ratio {loss:.3}");
    }
    below(
        &ssedo,
        &mq_deadline,
        "loss_ratio",
        "SSEDO below mq-deadline",
    );
    below(&ssedo, &bfq, "loss_ratio", "SSEDO below BFQ");
    below(&bfq, &mq_deadline, "loss_ratio", "BFQ below mq-deadline");
    below(
        &rt_dmq,
        &linux_raid1,
        "loss_ratio",
        "RT-DMQ below Linux's mirror",
    );
    below(
        &linux_raid1,
        &ssedo,
        "loss_ratio",
        "Linux's mirror below one SSEDO disk",
    );
}
