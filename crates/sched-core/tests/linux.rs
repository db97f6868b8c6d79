//! Linux's schedulers, checked against what their documentation says
//! (`Documentation/block/deadline-iosched.rst`,
//! `Documentation/block/bfq-iosched.rst`).

use sched_core::policy::{Bfq, BfqParams, MqDeadline};
use sched_core::{
    Block, Blocks, Cyl, Head, Inline, Kind, Nanos, NullEstimator, Request, RequestId, Scheduler,
};

const MS: Nanos = 1_000_000;

/// mq-deadline with the kernel's defaults on a 1000-cylinder disk.
fn deadline() -> MqDeadline<Inline<64>> {
    MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 16, 2).unwrap()
}

fn read(id: u64, cylinder: u32, arrival: Nanos) -> Request {
    Request::new(
        RequestId(id),
        Kind::Read,
        Block(0),
        Blocks(8),
        Cyl(cylinder),
        arrival,
    )
}

fn write(id: u64, cylinder: u32, arrival: Nanos) -> Request {
    Request::new(
        RequestId(id),
        Kind::Write,
        Block(0),
        Blocks(8),
        Cyl(cylinder),
        arrival,
    )
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
    early.enqueue(read(2, 900, 0)).unwrap();
    early.enqueue(read(4, 500, 0)).unwrap();
    assert_eq!(order(&mut early, 0), [4, 2]);

    // Past read_expire, a new batch starts at the oldest read, although a
    // read waits at a nearer sector beyond the position.
    let mut q = MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 1, 2).unwrap();
    q.enqueue(read(1, 400, 0)).unwrap();
    q.enqueue(read(2, 900, 0)).unwrap();
    q.enqueue(read(3, 450, 600 * MS)).unwrap();
    // The first batch (fifo_batch 1) takes 1 at 400: nothing expired yet at 0.
    let d = q.next(Head::at(400), 0, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(1));
    // At 600 ms read 2 (arrived at 0) has expired: it is served before 3,
    // which lies nearer, just beyond the position.
    let d = q.next(Head::at(400), 600 * MS, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(2));
    // The same queue 100 ms earlier, nothing expired, takes 3 in sector order.
    let mut q = MqDeadline::new(Inline::<64>::new(), 1000, 500 * MS, 5_000 * MS, 1, 2).unwrap();
    q.enqueue(read(1, 400, 0)).unwrap();
    q.enqueue(read(2, 900, 0)).unwrap();
    q.enqueue(read(3, 450, 400 * MS)).unwrap();
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
            q.enqueue(read(i, 10 + i as u32, 0)).unwrap();
        }
        for i in 0..4 {
            q.enqueue(write(100 + i, 500 + i as u32, 0)).unwrap();
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
        q.enqueue(read(i, 10 + i as u32, 0)).unwrap();
        q.enqueue(write(100 + i, 500 + i as u32, 0)).unwrap();
    }
    assert_eq!(
        order(&mut q, 0),
        [100, 101, 102, 103, 104, 105, 0, 1, 2, 3, 4, 5]
    );
    // Writes alone are served at once: nothing starves them.
    let mut q = deadline();
    q.enqueue(write(1, 5, 0)).unwrap();
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
        q.enqueue(read(i as u64, c, i as Nanos)).unwrap();
    }
    q.enqueue(write(100, 999, 0)).unwrap();
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

/// BFQ with the kernel's defaults on a 1000-cylinder disk.
fn bfq() -> Bfq<Inline<256>> {
    Bfq::new(Inline::<256>::new(), 1000, BfqParams::LINUX).unwrap()
}

/// A deterministic cylinder sequence (an LCG), for backlogged classes.
struct Cylinders(u64);

impl Cylinders {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % 1000) as u32
    }
}

/// Serves `dispatches` requests, each taking `service` ns, with every class
/// of `classes` kept `depth` reads deep (a new read of the class arrives
/// as one is dispatched); returns the sectors each class received.
fn backlogged(
    q: &mut Bfq<Inline<256>>,
    classes: &[u16],
    depth: usize,
    dispatches: usize,
) -> Vec<u64> {
    const SERVICE: Nanos = 4 * MS;
    let mut cylinders = Cylinders(7);
    let mut id = 0;
    for &class in classes {
        for _ in 0..depth {
            id += 1;
            q.enqueue(read(id, cylinders.next(), 0).with_class(class))
                .unwrap();
        }
    }
    let mut served = vec![0u64; classes.len()];
    let mut now = 0;
    let mut head = Head::at(0);
    for _ in 0..dispatches {
        let d = q
            .next(head, now, &NullEstimator)
            .expect("backlogged classes");
        let k = classes.iter().position(|&c| c == d.request.class).unwrap();
        served[k] += u64::from(d.request.blocks);
        head = Head::at(d.request.cylinder);
        id += 1;
        q.enqueue(read(id, cylinders.next(), now).with_class(d.request.class))
            .unwrap();
        now += SERVICE;
    }
    served
}

/// "BFQ distributes the device throughput ... to each process in
/// proportion to its weight" (bfq-iosched.rst §1): three always-backlogged
/// classes of weights 100, 200 and 400 over 20,000 requests (80 s of 4 ms
/// services, about 630 service slots ended by the 125 ms budget timeout)
/// receive 1/7, 2/7 and 4/7 of the sectors, each within 5 % of its share
/// (measured: 1/7 = 0.1429 → 0.1424, 2/7 = 0.2857 → 0.2864, 4/7 = 0.5714 →
/// 0.5712; equal weights 1.003 to 1).
#[test]
fn bfq_shares_service_in_proportion_to_weights() {
    let mut q = bfq();
    for (class, weight) in [(1, 100), (2, 200), (3, 400)] {
        q.set_weight(class, weight).unwrap();
    }
    let served = backlogged(&mut q, &[1, 2, 3], 16, 20_000);
    let total: u64 = served.iter().sum();
    for (k, share) in [1.0 / 7.0, 2.0 / 7.0, 4.0 / 7.0].into_iter().enumerate() {
        let got = served[k] as f64 / total as f64;
        assert!(
            (got / share - 1.0).abs() < 0.05,
            "class {} got {got:.4} of the service, its share is {share:.4}: {served:?}",
            k + 1
        );
    }
    // Equal weights share equally.
    let served = backlogged(&mut bfq(), &[5, 6], 16, 10_000);
    let ratio = served[0] as f64 / served[1] as f64;
    assert!((0.95..1.05).contains(&ratio), "{served:?}");
}

/// "slice_idle: This parameter specifies how long BFQ should idle for next
/// I/O request, when certain sync BFQ queues become empty." The disk waits
/// for the in-service reader's next request although another class has
/// work, serves that request when it comes within slice_idle, and turns to
/// the other class once slice_idle passes with none.
#[test]
fn bfq_idles_for_a_sync_queue_and_stops_after_slice_idle() {
    let mut q = bfq();
    q.enqueue(read(1, 100, 0).with_class(1)).unwrap();
    q.enqueue(read(2, 900, 0).with_class(2)).unwrap();
    let d = q.next(Head::at(0), 0, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(1));
    // Read 1 completes at 5 ms: class 1 is empty, the disk idles to 13 ms.
    assert!(q.next(Head::at(100), 5 * MS, &NullEstimator).is_none());
    assert_eq!(q.next_eligible_at(5 * MS), Some(13 * MS));
    // Asked again before the end, it still waits (the period does not restart).
    assert!(q.next(Head::at(100), 9 * MS, &NullEstimator).is_none());
    assert_eq!(q.next_eligible_at(9 * MS), Some(13 * MS));
    // Class 1's next read arrives at 10 ms: served before class 2's.
    q.enqueue(read(3, 110, 10 * MS).with_class(1)).unwrap();
    let d = q.next(Head::at(100), 10 * MS, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(3));
    // It completes at 15 ms; no more reads of class 1 come: idle until
    // 23 ms, then class 2.
    assert!(q.next(Head::at(110), 15 * MS, &NullEstimator).is_none());
    assert_eq!(q.next_eligible_at(15 * MS), Some(23 * MS));
    assert!(q.next(Head::at(110), 23 * MS - 1, &NullEstimator).is_none());
    let d = q.next(Head::at(110), 23 * MS, &NullEstimator).unwrap();
    assert_eq!(d.request.id, RequestId(2));

    // A queue whose last request was a write (asynchronous) is not waited for.
    let mut q = bfq();
    q.enqueue(write(1, 100, 0).with_class(1)).unwrap();
    q.enqueue(read(2, 900, 0).with_class(2)).unwrap();
    assert_eq!(order(&mut q, 0), [1, 2]);
    // Nor is one when slice_idle is 0.
    let params = BfqParams {
        slice_idle: 0,
        ..BfqParams::LINUX
    };
    let mut q = Bfq::new(Inline::<8>::new(), 1000, params).unwrap();
    q.enqueue(read(1, 100, 0).with_class(1)).unwrap();
    q.enqueue(read(2, 900, 0).with_class(2)).unwrap();
    assert_eq!(order(&mut q, 0), [1, 2]);
}

/// No class starves: a light class beside four always-backlogged classes of
/// weight 1000 gets each of its reads (one at a time, 50 ms apart) served.
/// B-WF2Q+ serves a queue only while its virtual start is not ahead of the
/// system's virtual time, so the heavy classes cannot run ahead of the
/// light one by more than their share: at weight 1 each 8-sector read of
/// the light class waits while the others receive about 4000 × 8 sectors
/// (4000 reads of 4 ms, 16 s; measured 15.8 s); at weight 100, where that
/// share is 40 reads, while each heavy class has one service slot ended by
/// the 125 ms budget timeout (measured 472 ms).
#[test]
fn bfq_never_starves_a_class() {
    for (weight, least, most) in [(1, 15_000 * MS, 16_700 * MS), (100, 440 * MS, 520 * MS)] {
        let mut q = bfq();
        for class in 1..=4 {
            q.set_weight(class, 1000).unwrap();
        }
        q.set_weight(9, weight).unwrap();
        let mut cylinders = Cylinders(3);
        let mut id = 0;
        for class in 1..=4u16 {
            for _ in 0..16 {
                id += 1;
                q.enqueue(read(id, cylinders.next(), 0).with_class(class))
                    .unwrap();
            }
        }
        let mut now = 0;
        let mut head = Head::at(0);
        // The light class sends a read 50 ms after its last one was served
        // (beyond slice_idle: the disk stops waiting for it). While the disk
        // idles, time runs on to where the policy says.
        let mut light_at = 0;
        let mut light_since = None;
        let mut waits = Vec::new();
        while waits.len() < 3 && now < 1_000_000 * MS {
            if light_since.is_none() && now >= light_at {
                id += 1;
                q.enqueue(read(id, 500, now).with_class(9)).unwrap();
                light_since = Some(now);
            }
            let Some(d) = q.next(head, now, &NullEstimator) else {
                now = q.next_eligible_at(now).expect("idling, not starving");
                continue;
            };
            if d.request.class == 9 {
                waits.push(now - light_since.take().unwrap());
                light_at = now + 50 * MS;
            } else {
                id += 1;
                q.enqueue(read(id, cylinders.next(), now).with_class(d.request.class))
                    .unwrap();
            }
            head = Head::at(d.request.cylinder);
            now += 4 * MS;
        }
        assert_eq!(waits.len(), 3, "weight {weight}: the light class starved");
        for w in &waits[1..] {
            assert!(
                (least..=most).contains(w),
                "weight {weight}: a read of the light class waited {} ms",
                w / MS
            );
        }
    }
}
