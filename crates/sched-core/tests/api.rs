//! What an embedder writes against the crate: policies behind references
//! and boxes in generic code, cloned, and printed.
#![cfg(feature = "alloc")]

use sched_core::array::{ArrayPolicy, ArraySpec, ArrayView, Copies, Location};
use std::sync::Mutex;

use sched_core::policy::{CLook, CScan, Edf, Fcfs, Look, Scan, Sstf};
use sched_core::{
    AnyScheduler, Block, Blocks, Cyl, Head, Heap, Inline, Kind, NullEstimator, PolicySpec, Request,
    RequestId, Scheduler, ServiceEstimator,
};

fn read(id: u64, cylinder: u32) -> Request {
    Request::new(
        RequestId(id),
        Kind::Read,
        Block(0),
        Blocks(8),
        Cyl(cylinder),
        0,
    )
}

/// Generic code written once for any scheduler.
fn enqueue_and_serve(queue: &mut impl Scheduler, est: &impl ServiceEstimator) -> Vec<u64> {
    for (id, cylinder) in [(1, 900), (2, 1010), (3, 20)] {
        queue.enqueue(read(id, cylinder)).expect("room");
    }
    let mut served = Vec::new();
    let mut head = Head::at(1000);
    while let Some(d) = queue.next(head, 0, est) {
        served.push(d.request.id.0);
        head = Head::at(d.request.cylinder);
    }
    served
}

#[test]
fn a_mutable_reference_a_box_and_a_dyn_are_schedulers_too() {
    let mut sstf = Sstf::new(Inline::<8>::new(), 1962).unwrap();
    assert_eq!(enqueue_and_serve(&mut &mut sstf, &NullEstimator), [2, 1, 3]);
    let mut boxed: Box<dyn Scheduler> = Box::new(Sstf::new(Inline::<8>::new(), 1962).unwrap());
    assert_eq!(enqueue_and_serve(&mut boxed, &&NullEstimator), [2, 1, 3]);
    let dynamic: &mut dyn Scheduler = &mut sstf;
    assert_eq!(
        enqueue_and_serve(&mut &mut *dynamic, &Box::new(NullEstimator)),
        [2, 1, 3]
    );
}

/// The wrapped arguments land in the fields they name (a swap does not
/// compile: see the `compile_fail` examples on `Request::new`).
#[test]
fn each_wrapped_argument_lands_in_its_own_field() {
    let req = Request::new(
        RequestId(7),
        Kind::Write,
        Block(4096),
        Blocks(8),
        Cyl(1500),
        2_000_000,
    );
    assert_eq!(
        (
            req.id,
            req.kind,
            req.block,
            req.blocks,
            req.cylinder,
            req.arrival
        ),
        (RequestId(7), Kind::Write, 4096, 8, 1500, 2_000_000)
    );
    assert_eq!((req.deadline, req.class), (None, 0));
}

// Policies on inline storage built in const context, as an embedded program
// without a heap keeps its queue.
static SSTF: Mutex<Sstf<Inline<64>>> = Mutex::new(Sstf::new_inline(1962));
static SCAN: Mutex<Scan<Inline<8>>> = Mutex::new(Scan::new_inline(1962));
static LOOK: Mutex<Look<Inline<8>>> = Mutex::new(Look::new_inline(1962));
static CSCAN: Mutex<CScan<Inline<8>>> = Mutex::new(CScan::new_inline(1962));
static CLOOK: Mutex<CLook<Inline<8>>> = Mutex::new(CLook::new_inline(1962));
static FCFS: Mutex<Fcfs<Inline<8>>> = Mutex::new(Fcfs::new_inline());
static EDF: Mutex<Edf<Inline<8>>> = Mutex::new(Edf::new_inline());

/// A policy in a `static` serves as the same policy built at run time does.
#[test]
fn policies_in_statics_serve_as_built_at_run_time() {
    let mut sstf = SSTF.lock().unwrap();
    assert_eq!(sstf.capacity(), 64);
    assert_eq!(enqueue_and_serve(&mut *sstf, &NullEstimator), [2, 1, 3]);
    let served = |queue: &mut dyn Scheduler| enqueue_and_serve(&mut &mut *queue, &NullEstimator);
    let inline = Inline::<8>::new;
    assert_eq!(
        served(&mut *SCAN.lock().unwrap()),
        served(&mut Scan::new(inline(), 1962).unwrap())
    );
    assert_eq!(
        served(&mut *LOOK.lock().unwrap()),
        served(&mut Look::new(inline(), 1962).unwrap())
    );
    assert_eq!(
        served(&mut *CSCAN.lock().unwrap()),
        served(&mut CScan::new(inline(), 1962).unwrap())
    );
    assert_eq!(served(&mut *CLOOK.lock().unwrap()), [2, 3, 1]);
    assert_eq!(
        served(&mut *CLOOK.lock().unwrap()),
        served(&mut CLook::new(inline(), 1962).unwrap())
    );
    assert_eq!(served(&mut *FCFS.lock().unwrap()), [1, 2, 3]);
    assert_eq!(served(&mut *EDF.lock().unwrap()), [1, 2, 3]);
    assert_eq!(EDF.lock().unwrap().capacity(), 8);
}

#[test]
fn a_cloned_policy_is_a_queue_of_its_own() {
    let mut original = Edf::new(Heap::new(16).unwrap());
    original.enqueue(read(1, 5).with_deadline(50)).unwrap();
    original.enqueue(read(2, 6).with_deadline(10)).unwrap();
    let mut copy = original.clone();
    let first = copy.next(Head::at(0), 0, &NullEstimator).unwrap();
    assert_eq!(first.request.id, RequestId(2));
    assert_eq!((copy.len(), original.len()), (1, 2));
    assert!(original.contains(RequestId(2)));
}

#[test]
fn policies_print_what_they_hold() {
    let mut sstf = Sstf::new(Inline::<4>::new(), 100).unwrap();
    sstf.enqueue(read(1, 5)).unwrap();
    assert_eq!(format!("{sstf:?}"), "Sstf { queued: 1, capacity: 4, .. }");
    let any: AnyScheduler<Heap> = "ssedo:m=3,beta=2"
        .parse::<PolicySpec>()
        .unwrap()
        .build(Heap::new(32).unwrap(), 100)
        .unwrap();
    assert_eq!(format!("{any:?}"), "Ssedo { queued: 0, capacity: 32, .. }");
    let mut drain_from = sstf.clone();
    let drain = sched_core::drain(&mut drain_from);
    assert_eq!(format!("{drain:?}"), "Drain { remaining: 1 }");
}

#[test]
fn array_policies_forward_and_print_too() {
    fn open(array: &impl ArrayPolicy) -> (usize, usize) {
        (array.disks(), array.in_system())
    }
    let mut any = "rt-dmq"
        .parse::<ArraySpec>()
        .unwrap()
        .build(Heap::new(64).unwrap(), 2, 1962, 7)
        .unwrap();
    assert_eq!(open(&&mut any), (2, 0));
    assert_eq!(
        format!("{any:?}"),
        "AnyArray { disks: 2, in_system: 0, .. }"
    );
    let boxed: Box<dyn ArrayPolicy> = Box::new(any);
    assert_eq!(open(&boxed), (2, 0));
}

fn send_and_sync<T: Send + Sync>(_: &T) {}

/// Estimators are `Sync`, so the view that holds them and the policies that
/// read them may cross threads: an array polled from a worker thread starts
/// what it would start on the caller's.
#[test]
fn an_array_view_and_its_estimators_cross_threads() {
    let heads = [Head::at(0), Head::at(1900)];
    let estimators: [&dyn ServiceEstimator; 2] = [&NullEstimator, &NullEstimator];
    let view = ArrayView {
        now: 0,
        heads: &heads,
        estimators: &estimators,
    };
    send_and_sync(&view);
    send_and_sync(&estimators[0]);
    let build = || {
        "sq-dmq"
            .parse::<ArraySpec>()
            .unwrap()
            .build(Heap::new(8).unwrap(), 2, 1962, 7)
            .unwrap()
    };
    let (mut here, mut there) = (build(), build());
    send_and_sync(&here);
    let copies = Copies::everywhere(
        2,
        Location {
            block: 4096,
            cylinder: 1800,
        },
    );
    let read = Request::new(
        RequestId(1),
        Kind::Read,
        Block(4096),
        Blocks(8),
        Cyl(1800),
        0,
    );
    let start_here = {
        here.submit(read, &copies, &view).unwrap();
        here.poll_start(&view).unwrap()
    };
    let start_there = std::thread::scope(|s| {
        s.spawn(|| {
            there.submit(read, &copies, &view).unwrap();
            there.poll_start(&view).unwrap()
        })
        .join()
        .unwrap()
    });
    // Both queues are empty: the tie goes to the nearer arm, disk 1 (100
    // cylinders away, not 1800).
    assert_eq!(start_here.map(|s| s.disk), Some(1));
    assert_eq!(start_there, start_here);
}

#[test]
fn every_error_goes_into_one_with_its_words_kept() {
    fn build_and_fill() -> Result<usize, sched_core::Error> {
        let spec: PolicySpec = "sstf".parse()?;
        let mut queue = spec.build(Heap::new(1)?, 100)?;
        queue.enqueue(read(1, 5))?;
        queue.enqueue(read(2, 6))?;
        Ok(queue.len())
    }
    let e = build_and_fill().unwrap_err();
    assert!(matches!(e, sched_core::Error::Enqueue(_)), "{e:?}");
    let words = e.to_string();
    let source = core::error::Error::source(&e).expect("the operation's own error");
    assert_eq!(words, source.to_string());
    let unknown: Result<PolicySpec, sched_core::Error> =
        "no-such-policy".parse().map_err(Into::into);
    assert!(matches!(unknown, Err(sched_core::Error::Spec(_))));
}
