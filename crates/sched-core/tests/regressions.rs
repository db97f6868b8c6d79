//! One test per bug found while completing the sched-core foundation, each
//! failing on the code as it was.

use sched_core::policy::{AgedSptf, CLook, Fcfs, FdScan, Look, ScanEdf, Sptf, Sstf};
use sched_core::{
    Block, Blocks, Cyl, Direction, ExpiredRule, Head, Inline, Kind, Nanos, NullEstimator,
    PolicySpec, Request, RequestId, Scheduler,
};

fn req(id: u64, cylinder: u32, arrival: Nanos) -> Request {
    Request::new(
        RequestId(id),
        Kind::Read,
        Block(0),
        Blocks(1),
        Cyl(cylinder),
        arrival,
    )
}

fn serve(q: &mut dyn Scheduler, head: u32, now: Nanos) -> u64 {
    q.next(Head::at(head), now, &NullEstimator)
        .expect("a request is queued")
        .request
        .id
        .0
}

/// A deadline of `Some(Nanos::MAX)` came back as `None`: the slab used
/// `Nanos::MAX` as its "no deadline" marker. Requests must come back intact.
#[test]
fn a_deadline_of_nanos_max_comes_back_as_given() {
    for spec in PolicySpec::DEFAULTS {
        let mut q = spec.build(Inline::<4>::new(), 100).unwrap();
        let r = req(1, 10, 0).with_deadline(Nanos::MAX);
        q.enqueue(r).unwrap();
        q.enqueue(req(2, 20, 0)).unwrap();
        let mut back: Vec<Request> = Vec::new();
        while let Some(d) = q.next(Head::at(0), 0, &NullEstimator) {
            back.push(d.request);
        }
        assert!(back.contains(&r), "{spec}: {back:?}");
        let r2 = req(3, 30, 0).with_deadline(Nanos::MAX);
        q.enqueue(r2).unwrap();
        assert_eq!(q.cancel(RequestId(3)), Ok(r2), "{spec}");
    }
}

/// FCFS served in enqueue order, ignoring the `arrival` field: a request
/// enqueued late with an older arrival time (moved from another queue) was
/// served after younger ones.
#[test]
fn fcfs_orders_by_arrival_time_not_enqueue_order() {
    let mut q = Fcfs::new(Inline::<8>::new());
    q.enqueue(req(1, 0, 20)).unwrap();
    q.enqueue(req(2, 0, 10)).unwrap();
    q.enqueue(req(3, 0, 10)).unwrap();
    q.enqueue(req(0, 0, 10)).unwrap();
    let order: Vec<u64> = (0..4).map(|_| serve(&mut q, 0, 40)).collect();
    assert_eq!(order, [0, 2, 3, 1]);
}

/// Requests on one cylinder were kept in enqueue order, so SSTF, LOOK and
/// C-LOOK broke ties against the documented arrival-then-id order.
#[test]
fn same_cylinder_ties_go_to_the_earlier_arrival() {
    let mut sstf = Sstf::new(Inline::<8>::new(), 100).unwrap();
    let mut look = Look::new(Inline::<8>::new(), 100).unwrap();
    let mut clook = CLook::new(Inline::<8>::new(), 100).unwrap();
    for q in [&mut sstf as &mut dyn Scheduler, &mut look, &mut clook] {
        q.enqueue(req(1, 5, 20)).unwrap();
        q.enqueue(req(7, 5, 10)).unwrap();
        q.enqueue(req(3, 5, 10)).unwrap();
        let order: Vec<u64> = (0..3).map(|_| serve(q, 5, 40)).collect();
        assert_eq!(order, [3, 7, 1]);
    }
}

/// SPTF's window took, of two requests at the same distance, the one below
/// the arm rather than the earlier arrival, and walked a cylinder below the
/// arm latest arrival first.
#[test]
fn sptf_window_takes_the_nearest_by_distance_then_arrival() {
    let mut q = Sptf::new(Inline::<8>::new(), 100, Some(1)).unwrap();
    q.enqueue(req(1, 52, 0)).unwrap();
    q.enqueue(req(2, 48, 5)).unwrap();
    assert_eq!(serve(&mut q, 50, 10), 1);
    let mut q = Sptf::new(Inline::<8>::new(), 100, Some(1)).unwrap();
    q.enqueue(req(3, 40, 10)).unwrap();
    q.enqueue(req(4, 40, 0)).unwrap();
    assert_eq!(serve(&mut q, 50, 20), 4);
}

/// SCAN-EDF served a lone earlier-deadline request without turning the arm
/// round, so the rest of the group was then swept in the wrong direction.
#[test]
fn scan_edf_turns_round_for_a_lone_urgent_request_behind() {
    let mut q = ScanEdf::new(Inline::<8>::new(), 100, 1).unwrap();
    for (id, cyl) in [(1, 5), (2, 60), (3, 70)] {
        q.enqueue(req(id, cyl, 0).with_deadline(200)).unwrap();
    }
    assert_eq!(serve(&mut q, 50, 0), 2); // sweeping up
    q.enqueue(req(4, 10, 1).with_deadline(100)).unwrap();
    assert_eq!(serve(&mut q, 60, 1), 4); // the urgent request, behind the arm
    // The arm came down to cylinder 10: the sweep goes on downward.
    assert_eq!(serve(&mut q, 10, 2), 1);
    assert_eq!(serve(&mut q, 5, 3), 3);
}

/// FD-SCAN turned the sweep upward whenever its target lay on the arm's own
/// cylinder, though the arm did not move; the LOOK fallback then went the
/// wrong way.
#[test]
fn fd_scan_keeps_its_direction_for_a_target_under_the_arm() {
    let mut q = FdScan::new(Inline::<8>::new(), 100, ExpiredRule::Keep).unwrap();
    q.enqueue(req(1, 30, 0).with_deadline(1_000)).unwrap();
    assert_eq!(serve(&mut q, 50, 0), 1);
    assert_eq!(q.direction(), Direction::Down);
    q.enqueue(req(2, 30, 1).with_deadline(1_000)).unwrap();
    q.enqueue(req(3, 40, 1)).unwrap();
    q.enqueue(req(4, 20, 1)).unwrap();
    assert_eq!(serve(&mut q, 30, 2), 2);
    assert_eq!(q.direction(), Direction::Down);
    assert_eq!(serve(&mut q, 30, 3), 4);
}

/// Aged SPTF overflowed `i128` (a panic in debug builds) when a large weight
/// met a long wait.
#[test]
fn aged_sptf_with_a_huge_weight_does_not_overflow() {
    let mut q = AgedSptf::new(Inline::<8>::new(), 100, 1e30, None).unwrap();
    q.enqueue(req(1, 10, 5)).unwrap();
    q.enqueue(req(2, 50, 0)).unwrap();
    q.enqueue(req(3, 90, 9)).unwrap();
    // Every score saturates: the oldest request wins, as aging intends.
    assert_eq!(serve(&mut q, 50, 1_000_000_000_000_000), 2);
    assert_eq!(serve(&mut q, 50, 1_000_000_000_000_000), 1);
}
