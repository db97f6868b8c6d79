//! Construction-time checks: invalid parameters are refused with
//! `BuildError::InvalidParameter`, invalid capacities with `CapacityError`
//! when the storage is made, and every policy fits in 64 bytes per slot.

use core::mem::size_of;

use sched_core::policy::{
    AgedSptf, Bfq, CLook, CScan, Edf, Fcfs, FdScan, Look, MqDeadline, Scan, ScanEdf, Sptf, Ssedo,
    Ssedv, Sstf, VScan,
};
use sched_core::{AnyScheduler, BuildError, ExpiredRule, Inline, PolicySpec};

fn invalid<T>(r: Result<T, BuildError>, param: &str) {
    match r {
        Err(BuildError::InvalidParameter { name, .. }) => assert_eq!(name, param),
        Err(e) => panic!("expected InvalidParameter({param}), got {e:?}"),
        Ok(_) => panic!("expected InvalidParameter({param}), got a queue"),
    }
}

#[test]
fn invalid_parameters_are_refused_at_construction() {
    // SSEDO: window 1..=64, β ≥ 1 and not NaN.
    invalid(Ssedo::new(Inline::<8>::new(), 0, 2.0), "m");
    invalid(Ssedo::new(Inline::<8>::new(), 65, 2.0), "m");
    invalid(Ssedo::new(Inline::<8>::new(), 3, 0.999), "beta");
    invalid(Ssedo::new(Inline::<8>::new(), 3, -1.0), "beta");
    invalid(Ssedo::new(Inline::<8>::new(), 3, f64::NAN), "beta");
    invalid(Ssedo::new(Inline::<8>::new(), 3, f64::NEG_INFINITY), "beta");
    assert!(Ssedo::new(Inline::<8>::new(), 64, 1.0).is_ok());
    assert!(Ssedo::new(Inline::<8>::new(), 1, f64::INFINITY).is_ok());
    // SSEDV: α in [0, 1], a time unit.
    invalid(Ssedv::new(Inline::<8>::new(), 100, -0.1, 1), "alpha");
    invalid(Ssedv::new(Inline::<8>::new(), 100, 1.1, 1), "alpha");
    invalid(Ssedv::new(Inline::<8>::new(), 100, f64::NAN, 1), "alpha");
    invalid(Ssedv::new(Inline::<8>::new(), 100, 0.5, 0), "time_unit");
    invalid(Ssedv::new(Inline::<8>::new(), 0, 0.5, 1), "cylinders");
    assert!(Ssedv::new(Inline::<8>::new(), 100, 0.0, 1).is_ok());
    assert!(Ssedv::new(Inline::<8>::new(), 100, 1.0, 1).is_ok());
    // VSCAN: R in [0, 1].
    invalid(VScan::new(Inline::<8>::new(), 100, -0.5), "R");
    invalid(VScan::new(Inline::<8>::new(), 100, 1.5), "R");
    invalid(VScan::new(Inline::<8>::new(), 100, f64::NAN), "R");
    // SCAN-EDF: granularity ≥ 1 ns.
    invalid(ScanEdf::new(Inline::<8>::new(), 100, 0), "granularity");
    // SPTF and aged SPTF: window ≥ 1, weight ≥ 0 and finite.
    invalid(Sptf::new(Inline::<8>::new(), 100, Some(0)), "window");
    invalid(
        AgedSptf::new(Inline::<8>::new(), 100, 0.01, Some(0)),
        "window",
    );
    invalid(
        AgedSptf::new(Inline::<8>::new(), 100, -0.01, None),
        "weight",
    );
    invalid(
        AgedSptf::new(Inline::<8>::new(), 100, f64::NAN, None),
        "weight",
    );
    invalid(
        AgedSptf::new(Inline::<8>::new(), 100, f64::INFINITY, None),
        "weight",
    );
    // A disk without cylinders, for every policy that orders by cylinder.
    invalid(Sstf::new(Inline::<8>::new(), 0), "cylinders");
    invalid(Scan::new(Inline::<8>::new(), 0), "cylinders");
    invalid(Look::new(Inline::<8>::new(), 0), "cylinders");
    invalid(CScan::new(Inline::<8>::new(), 0), "cylinders");
    invalid(CLook::new(Inline::<8>::new(), 0), "cylinders");
    invalid(VScan::new(Inline::<8>::new(), 0, 0.2), "cylinders");
    invalid(ScanEdf::new(Inline::<8>::new(), 0, 1), "cylinders");
    invalid(
        FdScan::new(Inline::<8>::new(), 0, ExpiredRule::Keep),
        "cylinders",
    );
    invalid(Sptf::new(Inline::<8>::new(), 0, None), "cylinders");
    invalid(AgedSptf::new(Inline::<8>::new(), 0, 0.0, None), "cylinders");
    // A disk of no cylinders is refused by every policy that orders by cylinder.
    for spec in PolicySpec::DEFAULTS {
        if spec.build(Inline::<8>::new(), 0).is_ok() {
            // FCFS, EDF and SSEDO never look at the disk's size.
            assert!(matches!(
                spec,
                PolicySpec::Fcfs | PolicySpec::Edf | PolicySpec::Ssedo { .. }
            ));
        }
    }
    // The same refusals through the run-time spec.
    invalid(
        PolicySpec::Ssedo { m: 0, beta: 2.0 }.build(Inline::<8>::new(), 100),
        "m",
    );
    invalid(
        PolicySpec::Ssedo { m: 65, beta: 2.0 }.build(Inline::<8>::new(), 100),
        "m",
    );
    invalid(
        PolicySpec::Ssedo { m: 3, beta: 0.5 }.build(Inline::<8>::new(), 100),
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
    invalid(PolicySpec::Sstf.build(Inline::<8>::new(), 0), "cylinders");
}

/// Bytes per slot of a policy with capacity `N` (fixed overheads included).
fn per_slot<T, const N: usize>() -> usize {
    size_of::<T>() / N
}

macro_rules! memory_table {
    ($($name:literal => $ty:ident),* $(,)?) => {
        [$((
            $name,
            per_slot::<$ty<Inline<64>>, 64>(),
            per_slot::<$ty<Inline<512>>, 512>(),
            per_slot::<$ty<Inline<4096>>, 4096>(),
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
        "sptf" => Sptf, "aged-sptf" => AgedSptf, "mq-deadline" => MqDeadline,
        "bfq" => Bfq,
        "any" => AnyScheduler,
    ];
    println!("bytes per slot: policy  N=64  N=512  N=4096");
    for (name, a, b, c) in &rows {
        println!("{name:>12} {a:5} {b:6} {c:7}");
    }
    for (name, _, _, c) in rows {
        assert!(c <= 64, "{name} uses {c} bytes per slot at N = 4096");
    }
}

/// Capacity 0 and capacities above the 16-bit link limit are refused when
/// heap storage is made (inline storage refuses them at compile time, see the
/// `Inline::new` doctest), and nothing of that size is ever built.
#[cfg(feature = "alloc")]
#[test]
fn invalid_capacities_are_refused_by_the_storage() {
    use sched_core::{CapacityError, Heap, MAX_CAPACITY};
    assert_eq!(Heap::new(0), Err(CapacityError { capacity: 0 }));
    assert_eq!(
        Heap::new(MAX_CAPACITY + 1),
        Err(CapacityError {
            capacity: MAX_CAPACITY + 1
        })
    );
    assert!(Heap::new(1).is_ok() && Heap::new(MAX_CAPACITY).is_ok());
    // A policy on heap storage has the storage's capacity, and builds with
    // the same parameter checks as on inline storage.
    for spec in PolicySpec::DEFAULTS {
        let q = spec.build(Heap::new(MAX_CAPACITY).unwrap(), 100).unwrap();
        assert_eq!(sched_core::Scheduler::capacity(&q), MAX_CAPACITY, "{spec}");
    }
    invalid(
        PolicySpec::Ssedo { m: 0, beta: 2.0 }.build(Heap::new(8).unwrap(), 100),
        "m",
    );
}

/// On heap storage a policy value is a handle: its per-slot arrays live on
/// the heap, so even a 65,535-deep queue is a small value that moves cheaply
/// and never crosses a stack frame. Run with `--nocapture` for the table.
#[cfg(feature = "alloc")]
#[test]
fn heap_policies_are_small_values() {
    use sched_core::Heap;
    let rows = [
        ("fcfs", size_of::<Fcfs<Heap>>()),
        ("sstf", size_of::<Sstf<Heap>>()),
        ("scan-edf", size_of::<ScanEdf<Heap>>()),
        ("fd-scan", size_of::<FdScan<Heap>>()),
        ("any", size_of::<AnyScheduler<Heap>>()),
        ("any inline 64", size_of::<AnyScheduler<Inline<64>>>()),
    ];
    println!("bytes per value: policy  size");
    for (name, size) in rows {
        println!("{name:>14} {size:6}");
    }
    let any = size_of::<AnyScheduler<Heap>>();
    assert!(any <= 1024, "AnyScheduler<Heap> is {any} bytes");
    assert!(any < size_of::<AnyScheduler<Inline<64>>>());
}

/// Drivers on other threads (a tokio block device, the emulator's worker
/// pool) own policies outright: every policy and array policy must be `Send`.
#[test]
fn policies_can_move_to_another_thread() {
    fn send<T: Send>() {}
    send::<sched_core::AnyScheduler<Inline<64>>>();
    send::<Box<dyn sched_core::Scheduler + Send>>();
    send::<Box<dyn sched_core::array::ArrayPolicy + Send>>();
    send::<
        sched_core::array::Dmq<[Sstf<Inline<64>>; 2], sched_core::array::ShortestQueue, Inline<64>>,
    >();
    #[cfg(feature = "alloc")]
    {
        send::<sched_core::AnyScheduler<sched_core::Heap>>();
        send::<sched_core::array::AnyArray<sched_core::Heap>>();
        send::<sched_core::array::AnyArray<Inline<64>>>();
    }
}
