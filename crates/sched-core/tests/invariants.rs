//! Queue-keeping invariants every policy must hold, whatever its order:
//! nothing is lost or duplicated, refusals are typed and change nothing, and
//! the same inputs give the same outputs. Each property runs every policy
//! (defaults and parameter variants) both as `AnyScheduler<Inline<N>>` and as
//! its concrete type, at a capacity small enough to fill up often, and (with
//! feature `alloc`) on `Heap` storage, which must decide exactly as inline
//! storage does.

mod common;

use common::{all_specs, run_any, run_concrete, scenario};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// (a) Every accepted request comes back exactly once — dispatched,
    /// handed over as expired, cancelled or drained — and intact; `len` and
    /// `contains` track the queue throughout. (b) is checked on the way: the
    /// harness asserts `QueueFull` at capacity (and later re-enqueues the
    /// refused request), `DuplicateId`, `UnknownId` and `CylinderOutOfRange`,
    /// each leaving the queue unchanged.
    #[test]
    fn every_request_returned_exactly_once(sc in scenario(200)) {
        for spec in all_specs() {
            run_any::<8>(spec, &sc, &mut |_, _| {});
            run_concrete::<8>(spec, &sc, &mut |_, _| {});
            run_any::<60>(spec, &sc, &mut |_, _| {});
            #[cfg(feature = "alloc")]
            common::run_heap(8, spec, &sc, &mut |_, _| {});
        }
    }

    /// (c) Running the same scenario twice gives the same log, and the
    /// run-time-chosen policy behaves exactly like its concrete type.
    #[test]
    fn same_inputs_same_order(sc in scenario(200)) {
        for spec in all_specs() {
            let a = run_any::<8>(spec, &sc, &mut |_, _| {});
            let b = run_any::<8>(spec, &sc, &mut |_, _| {});
            let c = run_concrete::<8>(spec, &sc, &mut |_, _| {});
            prop_assert_eq!(&a, &b, "{}: two runs differ", spec);
            prop_assert_eq!(&a, &c, "{}: AnyScheduler and the concrete type differ", spec);
            #[cfg(feature = "alloc")]
            {
                let h = common::run_heap(8, spec, &sc, &mut |_, _| {});
                let ch = common::run_concrete_heap(8, spec, &sc, &mut |_, _| {});
                prop_assert_eq!(&a, &h, "{}: Heap and Inline storage differ", spec);
                prop_assert_eq!(&a, &ch, "{}: concrete type on Heap and Inline differ", spec);
            }
        }
    }
}

/// (b) spelled out on one queue: a full queue refuses with `QueueFull`, keeps
/// its length, and takes the refused request once a slot frees up.
#[test]
fn full_queue_refuses_and_loses_nothing() {
    use sched_core::{
        Block, Blocks, CancelError, Cyl, EnqueueError, Head, Inline, Kind, NullEstimator, Request,
        RequestId, Scheduler,
    };
    for spec in all_specs() {
        let mut q = spec.build(Inline::<4>::new(), 100).unwrap();
        for i in 0..4 {
            let r = Request::new(
                RequestId(i),
                Kind::Read,
                Block(0),
                Blocks(1),
                Cyl((i * 10) as u32),
                i,
            )
            .with_deadline(1_000 + i);
            q.enqueue(r).unwrap();
        }
        let refused = Request::new(RequestId(99), Kind::Write, Block(5), Blocks(1), Cyl(50), 10)
            .with_deadline(2_000);
        assert_eq!(
            q.enqueue(refused),
            Err(EnqueueError::QueueFull { capacity: 4 }),
            "{spec}"
        );
        assert_eq!(q.len(), 4);
        assert!(!q.contains(RequestId(99)));
        // Other refusals at capacity report the full queue first, except a
        // cylinder the disk does not have, which is checked before anything is stored.
        assert_eq!(
            q.enqueue(Request::new(
                RequestId(2),
                Kind::Read,
                Block(0),
                Blocks(1),
                Cyl(1),
                10
            )),
            Err(EnqueueError::QueueFull { capacity: 4 })
        );
        assert_eq!(
            q.cancel(RequestId(7)),
            Err(CancelError::UnknownId(RequestId(7)))
        );
        let served = q
            .next(Head::at(0), 20, &NullEstimator)
            .expect("a request is queued");
        assert_eq!(q.len(), 3);
        assert_eq!(q.enqueue(refused), Ok(()), "{spec}");
        // Full again: a duplicate is reported as the full queue it meets first...
        assert_eq!(
            q.enqueue(refused),
            Err(EnqueueError::QueueFull { capacity: 4 })
        );
        let second = q
            .next(Head::at(0), 30, &NullEstimator)
            .expect("a request is queued");
        // ...and as a duplicate once there is room.
        if second.request.id != RequestId(99) {
            assert_eq!(
                q.enqueue(refused),
                Err(EnqueueError::DuplicateId(RequestId(99)))
            );
        }
        assert_eq!(q.enqueue(second.request), Ok(()), "{spec}");
        // The served request's id may be reused.
        assert_eq!(
            q.cancel(served.request.id),
            Err(CancelError::UnknownId(served.request.id))
        );
        let mut ids: Vec<u64> = sched_core::drain(&mut q).map(|r| r.id.0).collect();
        ids.push(served.request.id.0);
        ids.sort();
        assert_eq!(ids, [0, 1, 2, 3, 99], "{spec}");
        assert!(q.is_empty());
    }
}

/// Cylinders beyond the disk are refused by every policy that orders by cylinder.
#[test]
fn out_of_range_cylinders_are_refused() {
    use sched_core::{
        Block, Blocks, Cyl, EnqueueError, Inline, Kind, Request, RequestId, Scheduler,
    };
    for spec in all_specs() {
        let mut q = spec.build(Inline::<4>::new(), 100).unwrap();
        let r = Request::new(RequestId(1), Kind::Read, Block(0), Blocks(1), Cyl(100), 0);
        let res = q.enqueue(r);
        if common::checks_cylinders(&spec) {
            assert_eq!(
                res,
                Err(EnqueueError::CylinderOutOfRange {
                    id: RequestId(1),
                    cylinder: 100,
                    cylinders: 100
                }),
                "{spec}"
            );
            assert!(q.is_empty());
        } else {
            // FCFS, EDF and SSEDO never look at the disk's size.
            assert_eq!(res, Ok(()), "{spec}");
        }
    }
}
