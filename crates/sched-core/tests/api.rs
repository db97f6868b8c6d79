//! What an embedder writes against the crate: policies behind references
//! and boxes in generic code, cloned, and printed.
#![cfg(feature = "alloc")]

use sched_core::array::{ArrayPolicy, ArraySpec, ArrayView, Copies, Location};
use std::sync::Mutex;

use sched_core::policy::{
    AgedSptf, AperiodicReserve, Bfq, BfqParams, CLook, CScan, Edf, ExpiredRule, Fcfs, FdScan, Look,
    MqDeadline, RateTask, SatfEw, Scan, ScanEdf, Sptf, Ssedo, Ssedv, Sstf, VScan, WrrMode,
    WrrParams, WrrScan,
};
use sched_core::{
    AnyScheduler, Block, Blocks, Cyl, Head, Heap, Inline, Kind, Nanos, NullEstimator, PolicySpec,
    Request, RequestId, Scheduler, ServiceEstimator,
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

const MS: Nanos = 1_000_000;

static SSEDO: Mutex<Ssedo<Inline<8>>> = Mutex::new(Ssedo::new_inline(3, 2.0));
static SSEDV: Mutex<Ssedv<Inline<8>>> = Mutex::new(Ssedv::new_inline(1962, 0.5, MS));
static SCAN_EDF: Mutex<ScanEdf<Inline<8>>> = Mutex::new(ScanEdf::new_inline(1962, 50 * MS));
static FD_SCAN: Mutex<FdScan<Inline<8>>> = Mutex::new(FdScan::new_inline(1962, ExpiredRule::Keep));
static VSCAN: Mutex<VScan<Inline<8>>> = Mutex::new(VScan::new_inline(1962, 0.2));
static SPTF: Mutex<Sptf<Inline<8>>> = Mutex::new(Sptf::new_inline(1962, Some(3)));
static AGED_SPTF: Mutex<AgedSptf<Inline<8>>> = Mutex::new(AgedSptf::new_inline(1962, 0.5, None));
static SATF_EW: Mutex<SatfEw<Inline<8>>> = Mutex::new(SatfEw::new_inline(1962));
static MQ_DEADLINE: Mutex<MqDeadline<Inline<8>>> =
    Mutex::new(MqDeadline::new_inline(1962, 500 * MS, 5000 * MS, 16, 2));
static BFQ: Mutex<Bfq<Inline<8>>> = Mutex::new(Bfq::new_inline(1962, BfqParams::LINUX));
static WRR_SCAN: Mutex<WrrScan<Inline<8>, Inline<4>>> = Mutex::new(WrrScan::new_inline(
    1962,
    WrrParams::tsai04(WrrMode::Contiguous, AperiodicReserve::Blocks(2)),
));

/// 10 µs a cylinder of seek, 1 ms of transfer: enough for the policies that
/// ask about time (SPTF, FD-SCAN, WRR-SCAN's reclaimed bandwidth) to tell
/// the requests apart.
struct Seek;

impl ServiceEstimator for Seek {
    fn positioning_time(&self, head: Head, req: &Request, _now: Nanos) -> Nanos {
        u64::from(head.cylinder.abs_diff(req.cylinder)) * 10_000
    }
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        self.positioning_time(head, req, now) + MS
    }
    fn expected_service_time(&self, _req: &Request) -> Nanos {
        10 * MS
    }
}

/// Reads and writes, with and without deadlines, served one after the other
/// from cylinder 1000 as the clock advances by each service time (and to
/// the time `next_eligible_at` names when the policy holds back).
fn serve_with_deadlines(queue: &mut dyn Scheduler) -> Vec<u64> {
    let requests = [
        (1, Kind::Read, 900, Some(40 * MS)),
        (2, Kind::Read, 1010, Some(90 * MS)),
        (3, Kind::Write, 20, Some(30 * MS)),
        (4, Kind::Read, 1500, None),
        (5, Kind::Write, 1200, Some(60 * MS)),
        (6, Kind::Read, 400, Some(35 * MS)),
    ];
    for (id, kind, cylinder, deadline) in requests {
        let req = Request::new(RequestId(id), kind, Block(0), Blocks(8), Cyl(cylinder), 0);
        let req = match deadline {
            Some(d) => req.with_deadline(d),
            None => req,
        };
        queue.enqueue(req).expect("room");
    }
    let (mut served, mut head, mut now) = (Vec::new(), Head::at(1000), 0);
    while !queue.is_empty() {
        match queue.next(head, now, &Seek) {
            Some(d) => {
                now += Seek.service_time(head, &d.request, now);
                head = Head::at(d.request.cylinder);
                served.push(d.request.id.0);
            }
            None => now = queue.next_eligible_at(now).expect("a wake-up time"),
        }
    }
    served
}

/// The policies with parameters serve from a `static` as when built at run
/// time with the same parameters.
#[test]
fn parameterised_policies_in_statics_serve_as_built_at_run_time() {
    let served = serve_with_deadlines;
    let inline = Inline::<8>::new;
    let ssedo = served(&mut *SSEDO.lock().unwrap());
    assert_eq!(ssedo, served(&mut Ssedo::new(inline(), 3, 2.0).unwrap()));
    let ssedv = served(&mut *SSEDV.lock().unwrap());
    assert_eq!(
        ssedv,
        served(&mut Ssedv::new(inline(), 1962, 0.5, MS).unwrap())
    );
    let scan_edf = served(&mut *SCAN_EDF.lock().unwrap());
    assert_eq!(
        scan_edf,
        served(&mut ScanEdf::new(inline(), 1962, 50 * MS).unwrap())
    );
    // Deadlines of 30, 35 and 40 ms form the first 50 ms group, all below
    // the arm: served downward; then 60 and 90 ms upward from cylinder 20;
    // no deadline last.
    assert_eq!(scan_edf, [1, 6, 3, 2, 5, 4]);
    let fd_scan = served(&mut *FD_SCAN.lock().unwrap());
    assert_eq!(
        fd_scan,
        served(&mut FdScan::new(inline(), 1962, ExpiredRule::Keep).unwrap())
    );
    let vscan = served(&mut *VSCAN.lock().unwrap());
    assert_eq!(vscan, served(&mut VScan::new(inline(), 1962, 0.2).unwrap()));
    let sptf = served(&mut *SPTF.lock().unwrap());
    assert_eq!(
        sptf,
        served(&mut Sptf::new(inline(), 1962, Some(3)).unwrap())
    );
    let aged = served(&mut *AGED_SPTF.lock().unwrap());
    assert_eq!(
        aged,
        served(&mut AgedSptf::new(inline(), 1962, 0.5, None).unwrap())
    );
    let satf_ew = served(&mut *SATF_EW.lock().unwrap());
    assert_eq!(satf_ew, served(&mut SatfEw::new(inline(), 1962).unwrap()));
    let mq = served(&mut *MQ_DEADLINE.lock().unwrap());
    assert_eq!(
        mq,
        served(&mut MqDeadline::new(inline(), 1962, 500 * MS, 5000 * MS, 16, 2).unwrap())
    );
    // A read batch first, in sorted order from the reads' start position
    // (cylinder 0; none has expired), then the writes the same way.
    assert_eq!(mq, [6, 1, 2, 4, 3, 5]);
    let mut bfq = BFQ.lock().unwrap();
    assert_eq!(bfq.weight(7), 100);
    bfq.set_weight(7, 300).unwrap();
    assert_eq!(bfq.weight(7), 300);
    let bfq = served(&mut *bfq);
    assert_eq!(
        bfq,
        served(&mut Bfq::new(inline(), 1962, BfqParams::LINUX).unwrap())
    );
    let params = WrrParams::tsai04(WrrMode::Contiguous, AperiodicReserve::Blocks(2));
    let video = RateTask {
        class: 1,
        period: 5000 * MS,
        blocks: 14,
    };
    let mut wrr = WRR_SCAN.lock().unwrap();
    let mut built: WrrScan<Inline<8>, Inline<4>> =
        WrrScan::new(inline(), Inline::new(), 1962, params).unwrap();
    assert_eq!(wrr.admit(video), built.admit(video));
    assert_eq!(served(&mut *wrr), served(&mut built));
    assert_eq!(wrr.tasks(), 1);
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
