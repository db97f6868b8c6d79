//! Zhang, Yu, Krishnamurthy & Wang (FAST 2002), Figure 11, on 36 emulated
//! Cheetah 9LPs under the synthetic OLTP workload of `spindle repro
//! zhang02`, in short runs (one replication of 10,000 measured requests
//! after 4,000 of warm-up) at the speed-ups that bracket each array's
//! maximum sustainable speed-up, so that the test stays fast. Each
//! maximum is asserted within a two-sided band (sustained at the lower
//! speed-up, not at the upper); findings of the paper we do not reproduce
//! are asserted as measured, with the reason beside them.
//!
//! Measured by `spindle repro zhang02` (2 replications × 30,000 requests,
//! bisection to 0.25): stripe 9.25×, RAID-10 6.75×, 6×6 SR-Array 4.75×,
//! 2×9×2 EW-Array 9.75×, 1×22×1.6 EW-Array 10.5×; the paper: about 5×,
//! 8×, —, 10×, 14×.

use experiments::sustainable::{self, CurvePoint};
use experiments::{Organisation, parallel};
use spindle::repro::zhang02::{self, Zhang02Options};

fn options() -> Zhang02Options {
    Zhang02Options {
        replications: 1,
        requests: 10_000,
        warmup: 4_000,
        seed: 1,
        jobs: 1,
    }
}

/// The organisation of the reproduction's configuration `index`.
fn organisation(index: usize) -> Organisation {
    zhang02::configurations()[index].1
}

const STRIPE: usize = 0;
const RAID10: usize = 1;
const SR: usize = 2;
const EW_2X9X2: usize = 3;
const EW_1X22: usize = 4;

/// Every (configuration, speed-up) the test looks at, run two at a time.
fn points(wanted: &[(usize, f64)]) -> Vec<CurvePoint> {
    let opts = options();
    let search = zhang02::search_options(&opts);
    parallel(wanted.len() as u64, 2, |i| {
        let (config, speedup) = wanted[i as usize];
        let experiment = zhang02::experiment(organisation(config), &opts).unwrap();
        sustainable::point(&experiment, speedup, &search)
    })
    .unwrap()
}

/// The mean response of a point, ms (`inf` when a group overflowed).
fn mean(p: &CurvePoint) -> f64 {
    p.response_ms.map_or(f64::INFINITY, |r| r.mean)
}

#[test]
fn figure_11_maximum_sustainable_speedups_and_responses() {
    // (configuration, speed-up sustained, speed-up not sustained).
    let brackets = [
        (STRIPE, 7.5, 11.0),
        (RAID10, 5.5, 7.5),
        (SR, 3.0, 5.5),
        (EW_2X9X2, 8.5, 13.0),
        (EW_1X22, 8.5, 13.0),
    ];
    // Below every saturation: the responses compared at 1×, 3× and 5.5×.
    let common = [1.0, 3.0, 5.5];
    let mut wanted: Vec<(usize, f64)> = Vec::new();
    for &(c, lo, hi) in &brackets {
        wanted.push((c, lo));
        wanted.push((c, hi));
    }
    for c in [STRIPE, RAID10, SR, EW_2X9X2, EW_1X22] {
        for s in common {
            wanted.push((c, s));
        }
    }
    wanted.push((EW_2X9X2, 4.5));
    // Each point once (a bracket may be a common speed-up too).
    let mut seen = Vec::new();
    wanted.retain(|w| {
        let new = !seen.contains(w);
        seen.push(*w);
        new
    });
    let found = points(&wanted);
    let at = |c: usize, s: f64| {
        let i = wanted.iter().position(|&w| w == (c, s)).unwrap();
        &found[i]
    };
    for w in &wanted {
        let p = at(w.0, w.1);
        eprintln!(
            "{:>18} at {:>5.2}x: sustained {}, mean {:.2} ms",
            zhang02::configurations()[w.0].0,
            w.1,
            p.sustained,
            mean(p)
        );
    }

    // Each maximum within its band: stripe in [7.5, 11), RAID-10 in
    // [5.5, 7.5), SR-Array in [3, 5.5), both EW-Arrays in [8.5, 13).
    for (c, lo, hi) in brackets {
        let name = zhang02::configurations()[c].0;
        assert!(at(c, lo).sustained, "{name} at {lo}x");
        assert!(!at(c, hi).sustained, "{name} at {hi}x");
    }
    // Reproduced: the EW-Arrays sustain more than RAID-10 (paper: 10× and
    // 14× against 8×): sustained where RAID-10 is not.
    assert!(at(EW_2X9X2, 8.5).sustained && at(EW_1X22, 8.5).sustained);
    assert!(!at(RAID10, 7.5).sustained);
    // Not reproduced: RAID-10 above the stripe (paper 8× against 5×).
    // Under uniform, Poisson 4 KB requests, 35 % of them writes, RAID-10
    // writes every write twice in place on the same 36 disks (1.35 disk
    // operations a request against the stripe's 1) while the stripe's load
    // is spread evenly; what a mirror's choice of copy buys against a
    // skewed, bursty trace (the paper's TPC-C) it cannot buy here: even
    // with 95 % reads RAID-10 measures 9.0× against the stripe's 9.25×,
    // its choice of copy worth no more than the stripe's shorter seeks.
    // The stripe is sustained at 7.5× where RAID-10 is not.
    assert!(at(STRIPE, 7.5).sustained && !at(RAID10, 7.5).sustained);
    // Not resolved by runs this short: the order of the two EW-Arrays and
    // of the 2×9×2 EW-Array against the stripe (the long runs measure
    // 10.5×, 9.75× and 9.25×: the paper's order, by small margins).

    // Below saturation an EW-Array answers fastest at every speed-up
    // (reproduced): both EW-Arrays under the stripe, RAID-10 and the
    // SR-Array at 1×, 3× and 5.5×.
    for s in common {
        let best_other = [STRIPE, RAID10, SR]
            .iter()
            .map(|&c| mean(at(c, s)))
            .fold(f64::INFINITY, f64::min);
        for ew in [EW_2X9X2, EW_1X22] {
            assert!(
                mean(at(ew, s)) < best_other,
                "{} at {s}x: {} ms against {best_other} ms",
                zhang02::configurations()[ew].0,
                mean(at(ew, s))
            );
        }
    }

    // The 5 ms point, not reproduced: the paper has the 2×9×2 EW-Array
    // under 5 ms up to 9×, 90 % of its maximum. Here it crosses 5 ms
    // between 3× and 4.5×, about 35–45 % of its maximum: reads (65 % of
    // the requests) take 5.8 ms even at 1× — a seek over a ninth of the
    // disk and the nearer of two copies' rotations — and queue behind
    // each other as the load rises, while the eager writes stay at
    // 0.7–3 ms. Poisson arrivals give no idle gaps to absorb the queues.
    let ew = |s| mean(at(EW_2X9X2, s));
    assert!((3.5..5.0).contains(&ew(1.0)), "{}", ew(1.0));
    assert!((4.0..5.0).contains(&ew(3.0)), "{}", ew(3.0));
    assert!((5.0..7.5).contains(&ew(4.5)), "{}", ew(4.5));
}
