//! Zhang, Yu, Krishnamurthy & Wang (FAST 2002), Figure 11, on 36 emulated
//! disks under the synthetic OLTP workload (shortened runs: one
//! replication of 10,000 measured requests per speed-up). The paper's
//! maximum sustainable speed-ups are about 5×, 8×, 10× and 14× for the
//! 36-way stripe, RAID-10, the 2×9×2 and the 1×22×1.6 EW-Array; what is
//! measured is asserted within bands, and a finding not reproduced is
//! asserted as measured with the reason beside it.

use spindle::repro::zhang02::{self, Zhang02Options};

fn options() -> Zhang02Options {
    Zhang02Options {
        replications: 1,
        requests: 10_000,
        warmup: 4_000,
        seed: 1,
        jobs: 2,
    }
}

#[test]
fn the_eager_writing_arrays_sustain_the_most_and_answer_fastest() {
    let found = zhang02::searches(&options()).unwrap();
    let max: Vec<f64> = found.iter().map(|(_, s)| s.max_sustainable).collect();
    eprintln!("maximum sustainable speed-ups: {max:?}");
    let [stripe, raid10, ew2, ew1] = max[..] else {
        panic!("four configurations")
    };
    // The EW-Arrays sustain the most, as in the paper (10x and 14x there).
    // Runs this short let queues grow for too little time to be caught
    // near saturation: both EW-Arrays measure about 15x here, and which is
    // ahead is not resolved (`spindle repro zhang02`, three times longer,
    // measures 10.75x and 13.5x, the paper's order).
    assert!((8.0..=18.0).contains(&ew2), "2x9x2 EW-Array {ew2}");
    assert!((11.0..=18.0).contains(&ew1), "1x22x1.6 EW-Array {ew1}");
    assert!(ew2.min(ew1) > stripe.max(raid10));
    // Not reproduced: RAID-10 above the stripe (8x against 5x in the
    // paper). With half the requests writes, RAID-10 writes every write
    // twice in place on the same 36 disks and saturates first; measured
    // about 7x to 9x against about 9x for the stripe.
    assert!((5.0..=10.0).contains(&raid10), "RAID-10 {raid10}");
    assert!((7.0..=11.0).contains(&stripe), "stripe {stripe}");
    // Below saturation an EW-Array answers fastest at every speed-up.
    for s in 1..=6 {
        let at = |i: usize| {
            found[i]
                .1
                .curve
                .iter()
                .find(|p| p.speedup == f64::from(s))
                .and_then(|p| p.response_ms)
                .map(|r| r.mean)
                .unwrap()
        };
        let best_ew = at(2).min(at(3));
        assert!(best_ew < at(0) && best_ew < at(1), "at {s}x");
    }
    // Sub-5 ms: the paper has the 2x9x2 EW-Array under 5 ms up to 9x,
    // 90 % of its maximum; here it stays under 5 ms up to about half of
    // its maximum (5x) and answers in about 10 ms at 9x, because reads,
    // half the requests, wait behind the queues SATF-EW builds near
    // saturation (the paper's trace has more reads and bursts of idle time).
    let ew = &found[2].1.curve;
    let mean_at = |s: f64| {
        ew.iter()
            .find(|p| p.speedup == s)
            .unwrap()
            .response_ms
            .unwrap()
            .mean
    };
    assert!(mean_at(5.0) < 5.0, "{}", mean_at(5.0));
    assert!((6.0..=25.0).contains(&mean_at(9.0)), "{}", mean_at(9.0));
}
