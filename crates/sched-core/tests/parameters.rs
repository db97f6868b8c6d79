//! Construction-time checks: invalid parameters are refused with
//! `SchedError::InvalidParameter`, and every policy fits in 64 bytes per slot.

use core::mem::size_of;

use sched_core::policy::{
    AgedSptf, CLook, CScan, Edf, Fcfs, FdScan, Look, Scan, ScanEdf, Sptf, Ssedo, Ssedv, Sstf, VScan,
};
use sched_core::{AnyScheduler, ExpiredRule, PolicySpec, SchedError};

fn invalid<T>(r: Result<T, SchedError>, param: &str) {
    match r {
        Err(SchedError::InvalidParameter { name, .. }) => assert_eq!(name, param),
        Err(e) => panic!("expected InvalidParameter({param}), got {e:?}"),
        Ok(_) => panic!("expected InvalidParameter({param}), got a queue"),
    }
}

#[test]
fn invalid_parameters_are_refused_at_construction() {
    // SSEDO: window 1..=64, β ≥ 1 and not NaN.
    invalid(Ssedo::<8>::new(0, 2.0), "m");
    invalid(Ssedo::<8>::new(65, 2.0), "m");
    invalid(Ssedo::<8>::new(3, 0.999), "beta");
    invalid(Ssedo::<8>::new(3, -1.0), "beta");
    invalid(Ssedo::<8>::new(3, f64::NAN), "beta");
    invalid(Ssedo::<8>::new(3, f64::NEG_INFINITY), "beta");
    assert!(Ssedo::<8>::new(64, 1.0).is_ok());
    assert!(Ssedo::<8>::new(1, f64::INFINITY).is_ok());
    // SSEDV: α in [0, 1], a time unit.
    invalid(Ssedv::<8>::new(100, -0.1, 1), "alpha");
    invalid(Ssedv::<8>::new(100, 1.1, 1), "alpha");
    invalid(Ssedv::<8>::new(100, f64::NAN, 1), "alpha");
    invalid(Ssedv::<8>::new(100, 0.5, 0), "time_unit");
    invalid(Ssedv::<8>::new(0, 0.5, 1), "cylinders");
    assert!(Ssedv::<8>::new(100, 0.0, 1).is_ok());
    assert!(Ssedv::<8>::new(100, 1.0, 1).is_ok());
    // VSCAN: R in [0, 1].
    invalid(VScan::<8>::new(100, -0.5), "R");
    invalid(VScan::<8>::new(100, 1.5), "R");
    invalid(VScan::<8>::new(100, f64::NAN), "R");
    // SCAN-EDF: granularity ≥ 1 ns.
    invalid(ScanEdf::<8>::new(100, 0), "granularity");
    // SPTF and aged SPTF: window ≥ 1, weight ≥ 0 and finite.
    invalid(Sptf::<8>::new(100, Some(0)), "window");
    invalid(AgedSptf::<8>::new(100, 0.01, Some(0)), "window");
    invalid(AgedSptf::<8>::new(100, -0.01, None), "weight");
    invalid(AgedSptf::<8>::new(100, f64::NAN, None), "weight");
    invalid(AgedSptf::<8>::new(100, f64::INFINITY, None), "weight");
    // A disk without cylinders, for every policy that orders by cylinder.
    invalid(Sstf::<8>::new(0), "cylinders");
    invalid(Scan::<8>::new(0), "cylinders");
    invalid(Look::<8>::new(0), "cylinders");
    invalid(CScan::<8>::new(0), "cylinders");
    invalid(CLook::<8>::new(0), "cylinders");
    invalid(VScan::<8>::new(0, 0.2), "cylinders");
    invalid(ScanEdf::<8>::new(0, 1), "cylinders");
    invalid(FdScan::<8>::new(0, ExpiredRule::Keep), "cylinders");
    invalid(Sptf::<8>::new(0, None), "cylinders");
    invalid(AgedSptf::<8>::new(0, 0.0, None), "cylinders");
    // Capacity 0 (and above the 16-bit link limit), for every policy.
    invalid(Fcfs::<0>::new(), "capacity");
    invalid(Edf::<0>::new(), "capacity");
    invalid(Sstf::<0>::new(100), "capacity");
    invalid(Ssedo::<0>::new(3, 2.0), "capacity");
    invalid(FdScan::<0>::new(100, ExpiredRule::Drop), "capacity");
    invalid(Sstf::<65_536>::new(100), "capacity");
    for spec in PolicySpec::DEFAULTS {
        invalid(spec.build::<0>(100), "capacity");
        if spec.build::<8>(0).is_ok() {
            // FCFS, EDF and SSEDO never look at the disk's size.
            assert!(matches!(
                spec,
                PolicySpec::Fcfs | PolicySpec::Edf | PolicySpec::Ssedo { .. }
            ));
        }
    }
    // The same refusals through the run-time spec.
    invalid(PolicySpec::Ssedo { m: 0, beta: 2.0 }.build::<8>(100), "m");
    invalid(PolicySpec::Ssedo { m: 65, beta: 2.0 }.build::<8>(100), "m");
    invalid(
        PolicySpec::Ssedo { m: 3, beta: 0.5 }.build::<8>(100),
        "beta",
    );
    invalid(
        PolicySpec::Ssedo {
            m: 3,
            beta: f64::NAN,
        }
        .validate(),
        "beta",
    );
    invalid(
        PolicySpec::Ssedv {
            alpha: 2.0,
            unit: 1,
        }
        .validate(),
        "alpha",
    );
    invalid(
        PolicySpec::ScanEdf { granularity: 0 }.validate(),
        "granularity",
    );
    invalid(PolicySpec::Sptf { window: Some(0) }.validate(), "window");
    invalid(PolicySpec::Sstf.build::<8>(0), "cylinders");
}

/// Bytes per slot of a policy with capacity `N` (fixed overheads included).
fn per_slot<T, const N: usize>() -> usize {
    size_of::<T>() / N
}

macro_rules! memory_table {
    ($($name:literal => $ty:ident),* $(,)?) => {
        [$((
            $name,
            per_slot::<$ty<64>, 64>(),
            per_slot::<$ty<512>, 512>(),
            per_slot::<$ty<4096>, 4096>(),
        )),*]
    };
}

/// Every policy keeps each queued request in at most 64 bytes (at capacity
/// 4096, fixed-size parts included). Run with `--nocapture` for the table.
#[test]
fn per_slot_memory_is_at_most_64_bytes() {
    let rows = memory_table![
        "fcfs" => Fcfs, "sstf" => Sstf, "scan" => Scan, "look" => Look,
        "c-scan" => CScan, "c-look" => CLook, "vscan" => VScan, "edf" => Edf,
        "ssedo" => Ssedo, "ssedv" => Ssedv, "scan-edf" => ScanEdf, "fd-scan" => FdScan,
        "sptf" => Sptf, "aged-sptf" => AgedSptf, "any" => AnyScheduler,
    ];
    println!("bytes per slot: policy  N=64  N=512  N=4096");
    for (name, a, b, c) in &rows {
        println!("{name:>12} {a:5} {b:6} {c:7}");
    }
    for (name, _, _, c) in rows {
        assert!(c <= 64, "{name} uses {c} bytes per slot at N = 4096");
    }
}

/// Drivers on other threads (a tokio block device, the emulator's worker
/// pool) own policies outright: every policy and array policy must be `Send`.
#[test]
fn policies_can_move_to_another_thread() {
    fn send<T: Send>() {}
    send::<sched_core::AnyScheduler<64>>();
    send::<sched_core::array::AnyArray<64, 2>>();
    send::<Box<dyn sched_core::Scheduler + Send>>();
    send::<Box<dyn sched_core::array::ArrayPolicy<2> + Send>>();
}
