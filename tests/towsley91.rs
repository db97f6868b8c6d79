//! Towsley, Chen & Yu (1991): the mirrored-disk results the emulator must
//! reproduce — stability limits, the models of §3 (M/G/1, quasi-birth-death
//! chains, fork-join bounds) against simulation, and the orderings of
//! Figures 2, 3 and 6.
//!
//! Several comparisons are checked at once, so each one uses the Bonferroni
//! share of a 95 % level (level 1 − 0.05/k for k comparisons): the whole set
//! of intervals then covers the true values with probability at least 95 %.

use disk_emu::disk::presets;
use experiments::MetricTable;
use queueing::chains;
use queueing::closed_form::{Policy, serial_response, serial_response_with, serial_service};
use queueing::forkjoin;
use queueing::service::ServiceTime;
use spindle::repro::ReproOptions;
use spindle::repro::towsley91::{Curve, SeekDraw, ibm3330, seven, simulate};
use spindle::repro::towsley91_analysis::MU;

fn options(replications: u64, requests: u64) -> ReproOptions {
    ReproOptions {
        replications,
        requests,
        warmup: requests / 10,
        seed: 11,
        jobs: 2,
    }
}

fn curve(label: &str) -> Curve {
    seven()
        .into_iter()
        .find(|c| c.label == label)
        .expect("one of the seven")
}

fn mean(m: &MetricTable, name: &str) -> f64 {
    m.interval(name, 0.95).expect("metric recorded").mean
}

#[test]
fn saturation_throughput_matches_every_stability_limit() {
    let opts = options(4, 8_000);
    for curve in seven() {
        let policy = curve.analysis.expect("closed form");
        for p_r in [0.25, 0.5, 0.75] {
            let limit = policy.max_throughput(p_r, MU);
            let m = simulate(&curve, p_r, None, &opts)
                .unwrap()
                .expect("a closed population never overflows");
            let measured = mean(&m, "throughput_per_s");
            let error = (measured / limit - 1.0).abs();
            assert!(
                error < 0.03,
                "{} at p_r = {p_r}: simulated {measured:.2}/s, limit {limit:.2}/s",
                curve.label
            );
        }
    }
}

/// Five loads across a policy's stable range.
fn five_loads(policy: Policy) -> [f64; 5] {
    let limit = policy.max_throughput(0.75, MU);
    [0.15, 0.3, 0.45, 0.6, 0.75].map(|f| (f * limit).round())
}

#[test]
fn serial_policies_match_the_mg1_formulas() {
    // 2 policies × 5 loads × 2 classes = 20 simultaneous comparisons.
    let level = 1.0 - 0.05 / 20.0;
    let opts = options(12, 20_000);
    for (label, policy) in [("S-PSSQ", Policy::SPssq), ("MR-ESQ", Policy::MrEsq)] {
        for rate in five_loads(policy) {
            let expected = serial_response(policy, rate, 0.75, MU).expect("stable");
            let m = simulate(&curve(label), 0.75, Some(rate), &opts)
                .unwrap()
                .expect("stable");
            for (metric, want) in [
                ("read_ms", expected.read * 1e3),
                ("update_ms", expected.update * 1e3),
            ] {
                let i = m.interval(metric, level).unwrap();
                assert!(
                    i.contains(want),
                    "{label} at λ = {rate}: {metric} simulated {:.3} ± {:.3}, M/G/1 gives {want:.3}",
                    i.mean,
                    i.half_width.unwrap_or(f64::NAN)
                );
            }
        }
    }
}

#[test]
fn quasi_birth_death_chains_match_simulation_overall() {
    // 3 policies × 5 loads = 15 simultaneous comparisons of the overall mean,
    // which the chains give exactly; the paper's per-class split is
    // asserted as measured, in a band.
    let level = 1.0 - 0.05 / 15.0;
    let opts = options(12, 20_000);
    for (label, policy) in [
        ("C-PSSQ", Policy::CPssq),
        ("CR-ESQ", Policy::CrEsq),
        ("CRU-ESQ", Policy::CruEsq),
    ] {
        for rate in five_loads(policy) {
            let model = chains::analyse(policy, rate, 0.75, MU).expect("stable");
            let m = simulate(&curve(label), 0.75, Some(rate), &opts)
                .unwrap()
                .expect("stable");
            let want = model.response.overall * 1e3;
            let i = m.interval("all_ms", level).unwrap();
            assert!(
                i.contains(want),
                "{label} at λ = {rate}: simulated {:.3} ± {:.3} ms, chain gives {want:.3} ms",
                i.mean,
                i.half_width.unwrap_or(f64::NAN)
            );
            let read_gap = model.response.read * 1e3 - mean(&m, "read_ms");
            let update_gap = model.response.update * 1e3 - mean(&m, "update_ms");
            eprintln!(
                "{label} λ = {rate}: per-class gap of the paper's split (model − simulation): reads {read_gap:+.2} ms, updates {update_gap:+.2} ms; overall {:+.3} ms",
                want - i.mean
            );
            // The chains give the overall mean exactly but the paper's
            // per-class split only approximately; asserted as measured: it
            // over-states reads (by 0.2–4.0 ms at these loads) and
            // under-states updates (by 0.4–14.9 ms), both gaps growing with
            // the load, so a change that moved either class (or the split)
            // fails here.
            assert!(
                (0.05..5.0).contains(&read_gap) && (-17.0..-0.2).contains(&update_gap),
                "{label} at λ = {rate}: per-class gaps reads {read_gap:+.2}, updates {update_gap:+.2} ms"
            );
        }
    }
}

#[test]
fn simulated_mq_updates_lie_between_the_fork_join_bounds() {
    // 2 policies × 5 loads = 10 simultaneous intervals; each must reach the
    // band [lower, upper] of its bounds (2 % wide at most).
    let level = 1.0 - 0.05 / 10.0;
    let opts = options(16, 30_000);
    for (label, policy) in [("R-DMQ", Policy::Dmq), ("CMQ", Policy::Cmq)] {
        for rate in five_loads(policy) {
            let b = forkjoin::analyse(policy, rate, 0.75, MU).expect("stable");
            assert!(b.update.gap() <= forkjoin::TARGET_GAP + 1e-12);
            let m = simulate(&curve(label), 0.75, Some(rate), &opts)
                .unwrap()
                .expect("stable");
            let i = m.interval("update_ms", level).unwrap();
            let hw = i.half_width.unwrap_or(0.0);
            let (lo, hi) = (b.update.lower * 1e3, b.update.upper * 1e3);
            assert!(
                i.mean + hw >= lo && i.mean - hw <= hi,
                "{label} at λ = {rate}: simulated updates {:.3} ± {hw:.3} ms outside the bounds [{lo:.3}, {hi:.3}] (B = {})",
                i.mean,
                b.truncation
            );
            eprintln!(
                "{label} λ = {rate}: updates simulated {:.3} ± {hw:.3} ms, bounds [{lo:.3}, {hi:.3}] (B = {})",
                i.mean, b.truncation
            );
            // CMQ's reads are bounded too; R-DMQ's are exact M/M/1.
            let r = m.interval("read_ms", level).unwrap();
            let rhw = r.half_width.unwrap_or(0.0);
            let (rlo, rhi) = (b.read.lower * 1e3, b.read.upper * 1e3);
            assert!(
                r.mean + rhw >= rlo && r.mean - rhw <= rhi,
                "{label} at λ = {rate}: simulated reads {:.3} ± {rhw:.3} ms outside [{rlo:.3}, {rhi:.3}]",
                r.mean
            );
        }
    }
}

#[test]
fn general_service_mg1_matches_simulation_with_the_same_distribution() {
    // S-PSSQ and MR-ESQ on the IBM 3330 (p_s = 0.6): 2 policies × 3 loads ×
    // 2 classes = 12 comparisons. An update costs E[max] of two services and
    // an MR-ESQ read E[min], from the distribution, not its two moments.
    let level = 1.0 - 0.05 / 12.0;
    let opts = options(20, 40_000);
    let service = ServiceTime::ibm3330(0.6);
    for (label, name, policy) in [
        ("S-PSSQ", "s-pssq", Policy::SPssq),
        ("MR-ESQ", "mr-esq", Policy::MrEsq),
    ] {
        let c = Curve {
            label: label.into(),
            legend: label.into(),
            spec: name.parse().unwrap(),
            disk: presets::ibm3330(0.6),
            analysis: None,
            max_rate: 100.0,
        };
        let limit = 1.0 / serial_service(policy, 0.75, &service).unwrap().request.mean;
        for frac in [0.3, 0.55, 0.8] {
            let rate = (frac * limit).round();
            let want = serial_response_with(policy, rate, 0.75, &service).unwrap();
            let m = simulate(&c, 0.75, Some(rate), &opts)
                .unwrap()
                .expect("stable");
            for (metric, want) in [
                ("read_ms", want.read * 1e3),
                ("update_ms", want.update * 1e3),
            ] {
                let i = m.interval(metric, level).unwrap();
                assert!(
                    i.contains(want),
                    "{label} IBM 3330 at λ = {rate}: {metric} simulated {:.3} ± {:.3}, M/G/1 gives {want:.3}",
                    i.mean,
                    i.half_width.unwrap_or(f64::NAN)
                );
            }
        }
    }
}

#[test]
fn cmq_beats_r_dmq_most_for_updates() {
    let opts = options(8, 15_000);
    for rate in [10.0, 30.0, 50.0, 60.0] {
        let cmq = simulate(&curve("CMQ"), 0.75, Some(rate), &opts)
            .unwrap()
            .unwrap();
        let dmq = simulate(&curve("R-DMQ"), 0.75, Some(rate), &opts)
            .unwrap()
            .unwrap();
        let read_gain = mean(&dmq, "read_ms") - mean(&cmq, "read_ms");
        let update_gain = mean(&dmq, "update_ms") - mean(&cmq, "update_ms");
        assert!(
            read_gain > 0.0 && update_gain > 0.0,
            "λ = {rate}: CMQ gains {read_gain:.2} ms (reads), {update_gain:.2} ms (updates)"
        );
        // Under load, where Figure 3's curves part, the update gap is the wider.
        if rate >= 50.0 {
            assert!(
                update_gain > read_gain,
                "λ = {rate}: updates gain {update_gain:.2} ms, reads {read_gain:.2} ms"
            );
        }
    }
}

#[test]
fn mr_esq_has_the_fastest_reads_at_very_low_load_and_pssq_is_worst_under_load() {
    let opts = options(6, 10_000);
    let low: Vec<(String, f64)> = seven()
        .iter()
        .map(|c| {
            (
                c.label.clone(),
                mean(
                    &simulate(c, 0.75, Some(2.0), &opts).unwrap().unwrap(),
                    "read_ms",
                ),
            )
        })
        .collect();
    let mr = low.iter().find(|(l, _)| l == "MR-ESQ").unwrap().1;
    for (label, read) in &low {
        if label != "MR-ESQ" {
            assert!(
                mr < 0.6 * read,
                "MR-ESQ reads {mr:.2} ms vs {label} {read:.2} ms at λ = 2"
            );
        }
    }
    // At λ = 35 (S-PSSQ's limit is 40/s) the primary/secondary policies are the slowest.
    let busy: Vec<(String, f64)> = seven()
        .iter()
        .map(|c| {
            (
                c.label.clone(),
                mean(
                    &simulate(c, 0.75, Some(35.0), &opts).unwrap().unwrap(),
                    "all_ms",
                ),
            )
        })
        .collect();
    let worst_other = busy
        .iter()
        .filter(|(l, _)| !l.ends_with("PSSQ"))
        .map(|x| x.1)
        .fold(0.0, f64::max);
    for (label, all) in busy.iter().filter(|(l, _)| l.ends_with("PSSQ")) {
        assert!(
            *all > worst_other,
            "{label} {all:.1} ms is not worse than the others (worst {worst_other:.1} ms)"
        );
    }
}

#[test]
fn sq_dmq_mr_dmqa_and_cmq_beat_r_dmq_with_real_service() {
    let disk = presets::ibm3330(0.6);
    let opts = options(8, 15_000);
    let make = |label: &str, name: &str| Curve {
        label: label.into(),
        legend: label.into(),
        spec: name.parse().unwrap(),
        disk: disk.clone(),
        analysis: None,
        max_rate: 70.0,
    };
    for rate in [40.0, 55.0] {
        let base = mean(
            &simulate(&make("R-DMQ", "r-dmq"), 0.75, Some(rate), &opts)
                .unwrap()
                .unwrap(),
            "all_ms",
        );
        for (label, name) in [
            ("SQ-DMQ", "sq-dmq"),
            ("MR-DMQA", "mr-dmqa:abort=complete"),
            ("CMQ", "cmq"),
        ] {
            let m = simulate(&make(label, name), 0.75, Some(rate), &opts)
                .unwrap()
                .unwrap();
            let all = mean(&m, "all_ms");
            assert!(
                all < base,
                "λ = {rate}: {label} {all:.2} ms vs R-DMQ {base:.2} ms"
            );
        }
    }
    // At low load duplicated reads that abort on completion beat CMQ's reads.
    let cmq = simulate(&make("CMQ", "cmq"), 0.75, Some(5.0), &opts)
        .unwrap()
        .unwrap();
    let mra = simulate(
        &make("MR-DMQA", "mr-dmqa:abort=complete"),
        0.75,
        Some(5.0),
        &opts,
    )
    .unwrap()
    .unwrap();
    assert!(mean(&mra, "read_ms") < mean(&cmq, "read_ms"));
}

#[test]
fn mr_dmqa_aborting_at_start_behaves_exactly_like_cmq_under_fcfs() {
    // With FCFS queues, withdrawing a read's second copy when the first starts
    // makes each disk's queue the CMQ auxiliary queue followed by the common
    // queue: the paper remarks that the same analysis applies to both.
    let disk = presets::exponential(MU);
    let opts = options(3, 5_000);
    let make = |name: &str| Curve {
        label: name.into(),
        legend: name.into(),
        spec: name.parse().unwrap(),
        disk: disk.clone(),
        analysis: None,
        max_rate: 70.0,
    };
    let a = simulate(&make("cmq"), 0.75, Some(40.0), &opts)
        .unwrap()
        .unwrap();
    let b = simulate(&make("mr-dmqa:abort=start"), 0.75, Some(40.0), &opts)
        .unwrap()
        .unwrap();
    for metric in ["read_ms", "update_ms", "util_disk1", "util_disk2"] {
        assert_eq!(mean(&a, metric), mean(&b, metric), "{metric}");
    }
}

/// The paired difference `b − a` of `metric` over replications run on the
/// same seeds (common random numbers): its mean and 95 % half-width.
fn paired(a: &MetricTable, b: &MetricTable, metric: &str) -> (f64, f64) {
    let (x, y) = (a.values(metric).unwrap(), b.values(metric).unwrap());
    assert_eq!(x.len(), y.len());
    let d: Vec<f64> = x
        .iter()
        .zip(y)
        .map(|(&(r, u), &(s, v))| {
            assert_eq!(r, s, "paired by replication");
            v - u
        })
        .collect();
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    // Student's t, 95 %, for the 8 replications below (7 degrees of freedom).
    assert_eq!(d.len(), 8);
    (mean, 2.365 * (var / n).sqrt())
}

#[test]
fn figure6_cmq_is_best_except_where_duplicated_reads_win() {
    // Paper (§4, Figure 6, IBM 3330 with p_s = 0.6): SQ-DMQ, MR-DMQA and
    // CMQ beat R-DMQ, and CMQ is the best except at low utilisation, where
    // MR-DMQA gives lower read response times.
    let disk = presets::ibm3330(0.6);
    let opts = options(8, 10_000);
    let run = |name: &str, rate: f64| {
        let c = Curve {
            label: name.into(),
            legend: name.into(),
            spec: name.parse().unwrap(),
            disk: disk.clone(),
            analysis: None,
            max_rate: 70.0,
        };
        simulate(&c, 0.75, Some(rate), &opts).unwrap().unwrap()
    };
    // Under load (λ = 40) CMQ is the best of the DMQ family: reproduced.
    let cmq = run("cmq", 40.0);
    let base = mean(&cmq, "all_ms");
    for (name, lo, hi) in [("sq-dmq", 0.02, 0.15), ("r-dmq", 0.2, 0.5)] {
        let (d, hw) = paired(&cmq, &run(name, 40.0), "all_ms");
        println!(
            "λ = 40: {name} − CMQ = {d:.2} ± {hw:.2} ms ({:.1} %)",
            100.0 * d / base
        );
        assert!(d - hw > 0.0, "{name} not slower than CMQ: {d:.2} ± {hw:.2}");
        assert!(
            (lo..=hi).contains(&(d / base)),
            "{name} exceeds CMQ by {:.3} of its response",
            d / base
        );
    }
    let (d, hw) = paired(&cmq, &run("mr-dmq", 40.0), "all_ms");
    assert!(
        d - hw > base,
        "MR-DMQ (no abort) at least doubles CMQ's response: {d:.1}"
    );

    // MR-DMQA aborting at completion against CMQ.
    let mra = "mr-dmqa:abort=complete";
    // Low load (λ = 10): its reads are far faster (paper: so). Ours: its
    // updates are faster too, where the paper has CMQ best. The reason in
    // our model: a duplicated read holds both disks only for the shorter
    // of two independent services (the IBM 3330 model draws each disk's
    // seek and latency apart), so at low load it costs the updates
    // almost nothing and shortens the queue they meet. With the seek drawn
    // per request the paper's finding holds: see
    // `figure6_holds_when_the_copies_of_a_request_share_its_seek`.
    let (c10, m10) = (run("cmq", 10.0), run(mra, 10.0));
    let ratio = mean(&m10, "read_ms") / mean(&c10, "read_ms");
    let (du, hwu) = paired(&m10, &c10, "update_ms");
    println!(
        "λ = 10: MR-DMQA reads {ratio:.3} of CMQ's; CMQ − MR-DMQA updates {du:.2} ± {hwu:.2} ms"
    );
    assert!((0.55..=0.70).contains(&ratio), "read ratio {ratio:.3}");
    assert!(
        du - hwu > 0.0 && du < 3.0,
        "updates: CMQ − MR-DMQA = {du:.2} ± {hwu:.2}"
    );
    // Near saturation (λ = 60) CMQ is the better on both (paper: so).
    let (c60, m60) = (run("cmq", 60.0), run(mra, 60.0));
    let (dr, hwr) = paired(&c60, &m60, "read_ms");
    let (du, hwu) = paired(&c60, &m60, "update_ms");
    let rel = dr / mean(&c60, "read_ms");
    println!(
        "λ = 60: MR-DMQA − CMQ reads {dr:.1} ± {hwr:.1} ms ({:.0} %), updates {du:.1} ± {hwu:.1} ms",
        100.0 * rel
    );
    assert!(dr - hwr > 0.0 && du - hwu > 0.0, "CMQ not better at λ = 60");
    assert!(
        (0.1..=0.5).contains(&rel),
        "MR-DMQA reads {rel:.3} above CMQ's"
    );
}

#[test]
fn figure6_holds_when_the_copies_of_a_request_share_its_seek() {
    // The reading that reproduces Figure 6 (`--seek per-request`): §4
    // defines p_s as the probability that a *request* is on the previous
    // request's cylinder, so the seek belongs to the request and both
    // copies of a duplicated read pay the same one, differing only in
    // latency. A duplicated read then costs nearly two services (E[min] of
    // two 0.4·U(0, 60) + U(0, 16) services with a shared seek ≈ 19 ms,
    // against 22 ms for one), so MR-DMQA (abort at completion) wins reads
    // only while the disks are mostly idle and loses updates throughout:
    // the paper's "CMQ is the best except at low utilizations where the
    // MR-DMQA policy yields lower response times for the reads".
    let disk = ibm3330(0.6, SeekDraw::PerRequest);
    let opts = options(8, 10_000);
    let run = |name: &str, rate: f64| {
        let c = Curve {
            label: name.into(),
            legend: name.into(),
            spec: name.parse().unwrap(),
            disk: disk.clone(),
            analysis: None,
            max_rate: 70.0,
        };
        simulate(&c, 0.75, Some(rate), &opts).unwrap().unwrap()
    };
    let mra = "mr-dmqa:abort=complete";
    // Low load (λ = 3): MR-DMQA's reads are faster, by less than a tenth.
    let (c3, m3) = (run("cmq", 3.0), run(mra, 3.0));
    let (dr, hwr) = paired(&m3, &c3, "read_ms");
    let ratio = mean(&m3, "read_ms") / mean(&c3, "read_ms");
    println!("λ = 3: CMQ − MR-DMQA reads {dr:.2} ± {hwr:.2} ms, ratio {ratio:.3}");
    assert!(dr - hwr > 0.0, "MR-DMQA reads not faster at λ = 3");
    assert!((0.85..=0.97).contains(&ratio), "read ratio {ratio:.3}");
    // Moderate load (λ = 20): CMQ is the better on reads and on updates.
    let (c20, m20) = (run("cmq", 20.0), run(mra, 20.0));
    let (dr, hwr) = paired(&c20, &m20, "read_ms");
    let (du, hwu) = paired(&c20, &m20, "update_ms");
    let ratio = mean(&m20, "read_ms") / mean(&c20, "read_ms");
    println!(
        "λ = 20: MR-DMQA − CMQ reads {dr:.2} ± {hwr:.2} ms (ratio {ratio:.3}), updates {du:.2} ± {hwu:.2} ms"
    );
    assert!(dr - hwr > 0.0 && du - hwu > 0.0, "CMQ not better at λ = 20");
    assert!((1.12..=1.45).contains(&ratio), "read ratio {ratio:.3}");
    // Under load CMQ still beats the other DMQ variations.
    let c40 = run("cmq", 40.0);
    for name in ["sq-dmq", "r-dmq"] {
        let (d, hw) = paired(&c40, &run(name, 40.0), "all_ms");
        println!("λ = 40: {name} − CMQ = {d:.2} ± {hw:.2} ms");
        assert!(d - hw > 0.0, "{name} not slower than CMQ: {d:.2} ± {hw:.2}");
    }
}

/// `repro towsley91 --figure 6 --with-linux`: Linux's mirror (md RAID-1's
/// read balancing over mq-deadline queues) beside the figure's policies,
/// under its IBM 3330 service at λ = 40. Measured (8 replications, paired
/// by replication): Linux's mirror answers in 42.5 ms (reads 34.5, updates
/// 66.8); SQ-DMQ is 2.8 ± 0.6 ms faster and CMQ 5.0 ± 0.5 ms faster, both
/// on their updates (11 and 13 ms); R-DMQ is 7.5 ± 0.7 ms slower. Against
/// md RAID-1 over FCFS queues, mq-deadline's preference for reads buys
/// 3.1 ± 0.8 ms on reads and costs 7.6 ± 1.3 ms on updates. The bands are
/// our own measurement (the paper has no Linux), on the fraction of
/// Linux's own mean.
#[test]
fn figure6_linux_mirror_beside_dmq_and_cmq() {
    let disk = presets::ibm3330(0.6);
    let opts = options(8, 10_000);
    let run = |name: &str| {
        let c = Curve {
            label: name.into(),
            legend: name.into(),
            spec: name.parse().unwrap(),
            disk: disk.clone(),
            analysis: None,
            max_rate: 70.0,
        };
        simulate(&c, 0.75, Some(40.0), &opts).unwrap().unwrap()
    };
    let linux = run("linux-raid1");
    // (policy, metric, band of (its mean − Linux's) / Linux's mean)
    for (name, metric, lo, hi) in [
        ("sq-dmq", "all_ms", -0.10, -0.03),
        ("cmq", "all_ms", -0.15, -0.08),
        ("r-dmq", "all_ms", 0.12, 0.24),
        ("md-raid1", "read_ms", 0.04, 0.15),
        ("md-raid1", "update_ms", -0.18, -0.05),
    ] {
        let (d, hw) = paired(&linux, &run(name), metric);
        let base = mean(&linux, metric);
        println!("{metric}: {name} − linux-raid1 = {d:.2} ± {hw:.2} ms (linux-raid1 {base:.2})");
        assert!(
            d.abs() > hw,
            "{name} {metric}: {d:.2} ± {hw:.2} ms, no clear difference"
        );
        assert!(
            (lo..=hi).contains(&(d / base)),
            "{name} {metric}: {:.3} of linux-raid1's mean",
            d / base
        );
    }
}
