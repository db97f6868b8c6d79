//! Zhang, Yu, Krishnamurthy & Wang (FAST 2002), Figure 11, on 36 emulated
//! Cheetah 9LPs under the TPC-C-like workload of `spindle repro zhang02`
//! (uniform reads, Zipf-skewed writes; speed-up 1 = 1,008 requests/s, the
//! calibration that puts the stripe at the paper's 5×), in short runs (one
//! replication of 10,000 measured requests after 4,000 of warm-up) at the
//! speed-ups that bracket each array's maximum sustainable speed-up, so
//! that the test stays fast. Each maximum is asserted within a two-sided
//! band (sustained at the lower speed-up, not at the upper); findings of
//! the paper we do not reproduce are asserted as measured, with the reason
//! beside them. The full reproduction's intervals and ratios are asserted
//! by `figure_11_in_full` (release, run by `.ci/run`).
//!
//! Measured by `spindle repro zhang02` (3 replications × 30,000 requests,
//! each replication searched alone, bisection to 0.25; 2026-11-27): stripe
//! 4.92 ± 0.36, RAID-10 4.83 ± 0.36, RAID-10 with foreground copies
//! 5.08 ± 0.36, 6×6 SR-Array 2.92 ± 0.72, 2×9×2 EW-Array 8.50 ± 0.62,
//! 1×22×1.6 EW-Array 14.75 ± 0.00; ratios to the stripe 0.98 ± 0.07,
//! 1.73 ± 0.06 and 3.00 ± 0.22 against the paper's 1.6, 2.0 and 2.8.

use experiments::sustainable::{self, CurvePoint};
use experiments::{Organisation, parallel};
use spindle::oltp_args::OltpArgs;
use spindle::repro::zhang02::{self, EW_1X22, EW_2X9X2, RAID10, RAID10_FOREGROUND, STRIPE};
use spindle::repro::zhang02::{Zhang02Options, interval, maxima, ratios};

fn options() -> Zhang02Options {
    Zhang02Options {
        replications: 1,
        requests: 10_000,
        warmup: 4_000,
        jobs: 1,
        ..Zhang02Options::default()
    }
}

/// The organisation of the reproduction's configuration `index`.
fn organisation(index: usize) -> Organisation {
    zhang02::configurations()[index].organisation
}

/// Every (configuration, speed-up) wanted under `workload`, run two at a
/// time.
fn points(workload: &OltpArgs, wanted: &[(usize, f64)]) -> Vec<CurvePoint> {
    points_with(&options(), workload, wanted)
}

/// [`points`] with the run lengths of `opts`.
fn points_with(
    opts: &Zhang02Options,
    workload: &OltpArgs,
    wanted: &[(usize, f64)],
) -> Vec<CurvePoint> {
    let opts = opts.clone();
    let search = zhang02::search_options(&opts);
    let found = parallel(wanted.len() as u64, 2, |i| {
        let (config, speedup) = wanted[i as usize];
        let experiment = zhang02::experiment_with(organisation(config), workload, &opts).unwrap();
        sustainable::point(&experiment, speedup, &search)
    })
    .unwrap();
    for (w, p) in wanted.iter().zip(&found) {
        eprintln!(
            "{:>28} at {:>5.2}x: sustained {}, mean {:.2} ms",
            zhang02::configurations()[w.0].label,
            w.1,
            p.sustained,
            mean(p)
        );
    }
    found
}

/// The mean response of a point, ms (`inf` when a group overflowed).
fn mean(p: &CurvePoint) -> f64 {
    p.response_ms.as_ref().map_or(f64::INFINITY, |r| r.mean)
}

/// Looks a point up in what [`points`] returned.
fn at<'a>(wanted: &[(usize, f64)], found: &'a [CurvePoint], c: usize, s: f64) -> &'a CurvePoint {
    let i = wanted.iter().position(|&w| w == (c, s)).unwrap();
    &found[i]
}

#[test]
fn figure_11_under_the_tpcc_like_workload() {
    // (configuration, speed-up sustained, speed-up not sustained).
    let brackets = [
        (STRIPE, 4.0, 7.0),
        (RAID10, 4.0, 8.0),
        (EW_2X9X2, 7.0, 12.0),
        (EW_1X22, 12.0, 19.0),
    ];
    let common = [1.0, 3.0];
    let mut wanted: Vec<(usize, f64)> = Vec::new();
    for &(c, lo, hi) in &brackets {
        wanted.push((c, lo));
        wanted.push((c, hi));
        for s in common {
            wanted.push((c, s));
        }
    }
    let found = points(&OltpArgs::default(), &wanted);
    let at = |c, s| at(&wanted, &found, c, s);
    // Each maximum within its band: stripe in [4, 7) (the calibration's
    // 5x), RAID-10 in [4, 8), the 2x9x2 EW-Array in [7, 12), the
    // 1x22x1.6 in [12, 19).
    for (c, lo, hi) in brackets {
        let name = zhang02::configurations()[c].label;
        assert!(at(c, lo).sustained, "{name} at {lo}x");
        assert!(!at(c, hi).sustained, "{name} at {hi}x");
    }
    // Reproduced: the EW-Arrays sustain more than the stripe and RAID-10
    // (the paper: 10x and 14x against 5x and 8x): the 2x9x2 at 7x where
    // the stripe is not, the 1x22x1.6 at 12x where the 2x9x2 is not (the
    // paper's order of the two; measured ratios to the stripe 1.73 and
    // 3.00 against the paper's 2.0 and 2.8).
    assert!(at(EW_2X9X2, 7.0).sustained && !at(STRIPE, 7.0).sustained);
    assert!(at(EW_1X22, 12.0).sustained && !at(EW_2X9X2, 12.0).sustained);
    // Below saturation an EW-Array answers fastest at every speed-up
    // (reproduced): both under the stripe and RAID-10 at 1x and 3x.
    // Measured: 3.92 and 4.43 ms (2x9x2), 4.09 and 4.85 ms (1x22x1.6) at
    // 1x and 3x.
    for (ew, s, lo, hi) in [
        (EW_2X9X2, 1.0, 3.6, 4.3),
        (EW_2X9X2, 3.0, 4.0, 4.9),
        (EW_1X22, 1.0, 3.8, 4.4),
        (EW_1X22, 3.0, 4.4, 5.3),
    ] {
        let m = mean(at(ew, s));
        assert!((lo..hi).contains(&m), "{ew} at {s}x: {m} ms");
    }
    for s in common {
        let best_other = mean(at(STRIPE, s)).min(mean(at(RAID10, s)));
        for ew in [EW_2X9X2, EW_1X22] {
            assert!(
                mean(at(ew, s)) < best_other,
                "{} at {s}x: {} ms against {best_other} ms",
                zhang02::configurations()[ew].label,
                mean(at(ew, s))
            );
        }
    }
}

/// Under uniform addresses the stripe sustains more than RAID-10, the
/// reverse of the paper's order: with no hot disk to relieve, RAID-10's
/// second write of every update (1.35 disk operations a request against
/// the stripe's 1) costs more than its choice of copy for reads buys, and
/// the stripe's disks each hold 1/36 of the database (shorter seeks). The
/// default workload's write skew makes the stripe's hot disk the bound and
/// restores the order (`figure_11_under_the_tpcc_like_workload`).
#[test]
fn uniform_addresses_put_the_stripe_ahead_of_raid10() {
    // Measured by `spindle repro zhang02 --write-skew uniform`: stripe
    // 10.00 ± 0.00, RAID-10 8.08 ± 0.36 (ratio 0.81 ± 0.04; the paper 1.6).
    let wanted = [(STRIPE, 9.0), (STRIPE, 12.0), (RAID10, 7.0), (RAID10, 9.0)];
    // Runs of 10,000 requests do not resolve RAID-10's growing queue near
    // its maximum: the reproduction's length.
    let full = Zhang02Options {
        requests: 30_000,
        warmup: 10_000,
        ..options()
    };
    let found = points_with(&full, &OltpArgs::uniform(), &wanted);
    let at = |c, s| at(&wanted, &found, c, s);
    assert!(at(STRIPE, 9.0).sustained && !at(STRIPE, 12.0).sustained);
    assert!(at(RAID10, 7.0).sustained && !at(RAID10, 9.0).sustained);
}

/// RAID-10's second copy propagated in the background (the paper's runs)
/// against written at once in the foreground, at the default workload.
#[test]
fn raid10_background_against_foreground_propagation() {
    let wanted = [
        (RAID10, 3.0),
        (RAID10_FOREGROUND, 3.0),
        (RAID10, 5.0),
        (RAID10_FOREGROUND, 5.0),
    ];
    let found = points(&OltpArgs::default(), &wanted);
    let at = |c, s| at(&wanted, &found, c, s);
    let reports = |c, s| &at(c, s).reports[0];
    // At 3x both keep up, and answer alike (measured 7.16 and 7.15 ms):
    // in the background the second copies wait for idle time, which at
    // this load is plentiful.
    let (bg, fg) = (reports(RAID10, 3.0), reports(RAID10_FOREGROUND, 3.0));
    eprintln!(
        "3x: background {:.2} ms ({} propagated, {} forced), foreground {:.2} ms ({} forced)",
        bg.mean_response_ms, bg.propagated, bg.forced, fg.mean_response_ms, fg.forced
    );
    assert!(bg.propagated > 0 && bg.forced == 0 && fg.propagated == 0 && fg.forced > 0);
    assert!((6.7..7.7).contains(&bg.mean_response_ms));
    assert!((6.7..7.7).contains(&fg.mean_response_ms));
    assert!((bg.mean_response_ms / fg.mean_response_ms - 1.0).abs() < 0.03);
    // Not the paper's benefit: near saturation the background answers
    // slower (measured 26.09 against 20.05 ms at 5x, and a lower maximum
    // in the full run, 4.83 ± 0.36 against 5.08 ± 0.36). The hottest
    // block's writes go to a copy with no write in flight; its other
    // copy's propagation waits in a busy disk's delayed-write queue, so
    // they queue on one copy where the foreground alternates the two.
    let (bg, fg) = (reports(RAID10, 5.0), reports(RAID10_FOREGROUND, 5.0));
    let slower = bg.mean_response_ms / fg.mean_response_ms;
    assert!((1.1..1.6).contains(&slower), "{slower}");
    assert!(bg.write_response_ms > fg.write_response_ms);
}

/// The full reproduction (3 replications × 30,000 requests): each
/// maximum's interval, the ratios to the stripe beside the paper's, and
/// the order under both criteria. Release only (`.ci/run`): about 45 s of
/// one core.
#[test]
#[ignore = "minutes unoptimised: run in release by .ci/run"]
fn figure_11_in_full() {
    let opts = Zhang02Options {
        jobs: 2,
        ..Zhang02Options::default()
    };
    let found = zhang02::searches(&opts).unwrap();
    let max = |c: usize, k: usize| interval(&maxima(&found[c], k));
    let ratio = |c: usize, k: usize| interval(&ratios(&found[c], &found[STRIPE], k));
    for (c, config) in zhang02::configurations().iter().enumerate() {
        eprintln!(
            "{:>28}: {:.2} ± {:.2} (ratio {:.2} ± {:.2}); at 100 ms {:.2}",
            config.label,
            max(c, 0).mean,
            max(c, 0).half_width.unwrap_or(0.0),
            ratio(c, 0).mean,
            ratio(c, 0).half_width.unwrap_or(0.0),
            max(c, 1).mean,
        );
    }
    // The calibration: the stripe near 5x (measured 4.92).
    assert!((4.5..6.0).contains(&max(STRIPE, 0).mean));
    // The EW-Arrays' ratios to the stripe: measured 1.73 and 3.00 (the
    // paper: 2.0 and 2.8); their intervals clear of the stripe's and
    // RAID-10's, and of each other's, in the paper's order.
    let r = (ratio(EW_2X9X2, 0).mean, ratio(EW_1X22, 0).mean);
    assert!(
        (1.4..2.1).contains(&r.0) && (2.5..3.5).contains(&r.1),
        "{r:?}"
    );
    for ew in [EW_2X9X2, EW_1X22] {
        for other in [STRIPE, RAID10] {
            assert!(max(ew, 0).lower() > max(other, 0).upper());
            assert!(max(ew, 1).mean > max(other, 1).mean);
        }
    }
    assert!(max(EW_1X22, 0).lower() > max(EW_2X9X2, 0).upper());
    // Not reproduced: RAID-10 level with the stripe (measured 4.83 ± 0.36
    // against 4.92 ± 0.36, a ratio of 0.98; the paper: 8 against 5, 1.6).
    // The hottest block's writes queue on one copy while the other's
    // propagation waits for idle time (see
    // raid10_background_against_foreground_propagation), and overlapping
    // writes keep their order on each disk.
    let r10 = ratio(RAID10, 0).mean;
    assert!((0.8..1.2).contains(&r10), "{r10}");
}
