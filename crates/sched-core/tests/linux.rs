//! Linux's schedulers, checked against what their documentation says
//! (`Documentation/block/deadline-iosched.rst`).

use sched_core::policy::MqDeadline;
use sched_core::{Head, Inline, Kind, Nanos, NullEstimator, Request, RequestId, Scheduler};

const MS: Nanos = 1_000_000;

/// mq-deadline with the kernel's defaults on a 1000-cylinder disk.
fn deadline() -> MqDeadline<Inline<64>> {
    MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 16, 2).unwrap()
}

fn read(id: u64, cylinder: u32, arrival: Nanos) -> Request {
    Request::new(RequestId(id), Kind::Read, 0, 8, cylinder, arrival)
}

fn write(id: u64, cylinder: u32, arrival: Nanos) -> Request {
    Request::new(RequestId(id), Kind::Write, 0, 8, cylinder, arrival)
}

/// Ids in the order `q` serves them at `now`, the arm following each request.
fn order(q: &mut impl Scheduler, now: Nanos) -> Vec<u64> {
    let mut head = Head::at(0);
    std::iter::from_fn(|| {
        let d = q.next(head, now, &NullEstimator)?;
        head = Head::at(d.request.cylinder);
        Some(d.request.id.0)
    })
    .collect()
}

/// "read_expire: the goal is to guarantee a start service time for a
/// request" — between batches, a read whose FIFO deadline passed is served
/// before a read at a nearer sector.
#[test]
fn an_expired_read_goes_before_a_nearer_sector() {
    // Before expiry the batch continues upward in sector order: 2 at 900
    // rather than 3 at 10, which is behind the position.
    let mut early = deadline();
    early.enqueue(read(2, 900, 0), 0).unwrap();
    early.enqueue(read(4, 500, 0), 0).unwrap();
    assert_eq!(order(&mut early, 0), [4, 2]);

    // Past read_expire, a new batch starts at the oldest read, although a
    // read waits at a nearer sector beyond the position.
    let mut q = MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 1, 2).unwrap();
    q.enqueue(read(1, 400, 0), 0).unwrap();
    q.enqueue(read(2, 900, 0), 0).unwrap();
    q.enqueue(read(3, 450, 600 * MS), 600 * MS).unwrap();
    // The first batch (fifo_batch 1) takes 1 at 400: nothing expired yet at 0.
    let d = q.next(Head::at(400), 0, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(1));
    // At 600 ms read 2 (arrived at 0) has expired: it is served before 3,
    // which lies nearer, just beyond the position.
    let d = q.next(Head::at(400), 600 * MS, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(2));
    // The same queue 100 ms earlier, nothing expired, takes 3 in sector order.
    let mut q = MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 1, 2).unwrap();
    q.enqueue(read(1, 400, 0), 0).unwrap();
    q.enqueue(read(2, 900, 0), 0).unwrap();
    q.enqueue(read(3, 450, 400 * MS), 400 * MS).unwrap();
    let _ = q.next(Head::at(400), 0, &NullEstimator).unwrap();
    let d = q.next(Head::at(400), 400 * MS, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(3));
}

/// "writes_starved: When we have to move requests from the io scheduler
/// queue to the block device dispatch queue, we always give a preference to
/// reads. However, we don't want to starve writes indefinitely either. So
/// writes_starved controls how many times we give preference to reads over
/// writes."
#[test]
fn writes_get_a_batch_after_writes_starved_read_batches() {
    for writes_starved in [1usize, 2, 5] {
        // Batches of 2 reads; 40 reads and 4 writes all waiting.
        let mut q = MqDeadline::new(
            Inline::<64>::new(),
            1000,
            500 * MS,
            5_000 * MS,
            2,
            writes_starved,
        )
        .unwrap();
        for i in 0..40 {
            q.enqueue(read(i, 10 + i as u32, 0), 0).unwrap();
        }
        for i in 0..4 {
            q.enqueue(write(100 + i, 500 + i as u32, 0), 0).unwrap();
        }
        let served = order(&mut q, 0);
        let first_write = served.iter().position(|&id| id >= 100).unwrap();
        // writes_starved read batches of 2, then a write batch of 2.
        assert_eq!(
            first_write,
            2 * writes_starved,
            "writes_starved {writes_starved}"
        );
        assert_eq!(
            &served[first_write..first_write + 2],
            [100, 101],
            "writes_starved {writes_starved}"
        );
        // Then reads again: the count of starved batches starts afresh.
        assert!(served[first_write + 2] < 100);
        let second_write = first_write
            + 2
            + served[first_write + 2..]
                .iter()
                .position(|&id| id >= 100)
                .unwrap();
        assert_eq!(second_write - (first_write + 2), 2 * writes_starved);
    }
    // writes_starved 0 gives waiting writes every batch.
    let mut q = MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 2, 0).unwrap();
    for i in 0..6 {
        q.enqueue(read(i, 10 + i as u32, 0), 0).unwrap();
        q.enqueue(write(100 + i, 500 + i as u32, 0), 0).unwrap();
    }
    assert_eq!(
        order(&mut q, 0),
        [100, 101, 102, 103, 104, 105, 0, 1, 2, 3, 4, 5]
    );
    // Writes alone are served at once: nothing starves them.
    let mut q = deadline();
    q.enqueue(write(1, 5, 0), 0).unwrap();
    assert_eq!(order(&mut q, 0), [1]);
}

/// "fifo_batch: Requests are grouped into batches of a particular data
/// direction (read or write) which are serviced in increasing sector order.
/// To limit extra seeking, deadline expiries are only checked between
/// batches."
#[test]
fn a_batch_holds_up_to_fifo_batch_requests_in_sector_order() {
    // 40 reads in scattered arrival order, all long expired; writes wait so
    // that the batch boundary shows as a switch of direction.
    let mut q = MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 16, 0).unwrap();
    let cylinders: Vec<u32> = (0..40).map(|i| (i * 37 % 40) * 20 + 5).collect();
    for (i, &c) in cylinders.iter().enumerate() {
        q.enqueue(read(i as u64, c, i as Nanos), i as Nanos)
            .unwrap();
    }
    q.enqueue(write(100, 999, 0), 0).unwrap();
    let now = 10_000 * MS;
    let mut head = Head::at(0);
    let mut served = Vec::new();
    for _ in 0..17 {
        let d = q.next(head, now, &NullEstimator).unwrap();
        head = Head::at(d.request.cylinder);
        served.push(d.request);
    }
    // writes_starved 0: the first batch is the writes' (1 request), the next
    // begins at the oldest read (expired) and then goes up in sector order.
    assert_eq!(served[0].id, RequestId(100));
    let batch = &served[1..17];
    assert_eq!(batch[0].id, RequestId(0));
    assert!(
        batch.windows(2).all(|w| w[0].cylinder < w[1].cylinder),
        "a batch goes up in sector order: {:?}",
        batch.iter().map(|r| r.cylinder).collect::<Vec<_>>()
    );
    // 16 requests and no more: the 17th starts a new batch at the oldest
    // remaining read (1, at cylinder 745), expired, not at the next sector
    // up from the batch's last (325).
    let d = q.next(head, now, &NullEstimator).unwrap();
    let oldest = (1..40)
        .find(|i| !batch.iter().any(|r| r.id.0 == *i as u64))
        .unwrap();
    assert_eq!(d.request.id, RequestId(oldest as u64));
    assert_eq!((oldest, d.request.cylinder), (1, 745));
    assert_eq!(batch[15].cylinder, 305);
}
