//! A driver loop for one disk, with no allocation in the policy: an SSTF
//! queue on inline storage, a toy disk model, and a stream of arrivals.
//!
//! The driver owns the clock and the device; the policy only decides. Each
//! turn: admit every arrival up to now (a full queue is a typed refusal the
//! driver handles, here by retrying later), then, if the disk is free, ask
//! the policy what to serve.
//!
//! Run with `cargo run -p sched-core --example single_disk`.

use std::collections::VecDeque;

use sched_core::policy::Sstf;
use sched_core::{
    Block, Blocks, Cyl, EnqueueError, Head, Inline, Kind, Nanos, Request, RequestId, Scheduler,
    ServiceEstimator,
};

const CYLINDERS: u32 = 1962;
const REVOLUTION: Nanos = 16_667_000; // 3600 rpm

/// A toy disk: seek grows with the square root of the distance, half a
/// revolution of latency, and a transfer per block.
struct ToyDisk;

impl ServiceEstimator for ToyDisk {
    fn positioning_time(&self, head: Head, req: &Request, _now: Nanos) -> Nanos {
        let d = head.cylinder.abs_diff(req.cylinder);
        let seek = if d == 0 {
            0
        } else {
            2_000_000 + (f64::from(d).sqrt() * 400_000.0) as Nanos
        };
        seek + REVOLUTION / 2
    }
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        self.positioning_time(head, req, now) + u64::from(req.blocks) * 20_000
    }
    fn expected_service_time(&self, req: &Request) -> Nanos {
        12_000_000 + REVOLUTION / 2 + u64::from(req.blocks) * 20_000
    }
}

/// A deterministic stream of arrivals: (time, cylinder, kind).
fn arrivals(n: u64) -> impl Iterator<Item = (Nanos, u32, Kind)> {
    let mut state = 0x853c_49e6_748f_ea9b_u64;
    let mut t = 0;
    (0..n).map(move |_| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        t += (state >> 32) % 50_000_000; // mean gap 25 ms
        let cylinder = ((state >> 16) % u64::from(CYLINDERS)) as u32;
        let kind = if state.is_multiple_of(4) {
            Kind::Write
        } else {
            Kind::Read
        };
        (t, cylinder, kind)
    })
}

fn main() {
    // 32 slots, inline: the whole policy is one value, no heap anywhere.
    let mut queue = Sstf::new(Inline::<32>::new(), CYLINDERS).expect("a disk has cylinders");
    let disk = ToyDisk;
    let mut head = Head::at(0);
    let mut now: Nanos = 0;
    let mut busy_until: Option<(Nanos, Request)> = None;
    let mut pending = arrivals(2_000).enumerate().peekable();
    let mut refused: VecDeque<Request> = VecDeque::new();
    let (mut served, mut response_sum, mut seek_sum, mut refusals) = (0u64, 0u128, 0u64, 0u64);

    loop {
        // A completion frees the disk.
        if let Some((t, req)) = busy_until
            && t <= now
        {
            served += 1;
            response_sum += u128::from(t - req.arrival);
            busy_until = None;
        }
        // Requests refused for lack of room go first once there is room.
        while queue.len() < queue.capacity()
            && let Some(r) = refused.pop_front()
        {
            queue.enqueue(r).expect("there is room");
        }
        // Arrivals up to now join the queue.
        while let Some(&(i, (t, cylinder, kind))) = pending.peek() {
            if t > now {
                break;
            }
            let req = Request::new(
                RequestId(i as u64),
                kind,
                Block(u64::from(cylinder) * 64),
                Blocks(8),
                Cyl(cylinder),
                t,
            );
            match queue.enqueue(req) {
                Ok(()) => {}
                Err(EnqueueError::QueueFull { .. }) => {
                    refusals += 1;
                    refused.push_back(req);
                }
                Err(e) => panic!("unexpected refusal: {e}"),
            }
            pending.next();
        }
        // The disk is free: ask the policy.
        if busy_until.is_none()
            && let Some(d) = queue.next(head, now, &disk)
        {
            seek_sum += u64::from(head.cylinder.abs_diff(d.request.cylinder));
            busy_until = Some((now + disk.service_time(head, &d.request, now), d.request));
            head = Head::at(d.request.cylinder);
        }
        // Advance the clock to the next event.
        let next_arrival = pending.peek().map(|&(_, (t, _, _))| t);
        let next_done = busy_until.map(|(t, _)| t);
        match [next_arrival, next_done].into_iter().flatten().min() {
            Some(t) => now = now.max(t),
            None if queue.is_empty() && refused.is_empty() => break,
            None => {}
        }
    }

    println!(
        "SSTF on inline storage ({} slots, {} bytes)",
        queue.capacity(),
        size_of_val(&queue)
    );
    println!("served {served} requests in {:.1} s", now as f64 / 1e9);
    println!(
        "mean response time {:.2} ms",
        response_sum as f64 / served as f64 / 1e6
    );
    println!(
        "mean seek distance {:.1} cylinders",
        seek_sum as f64 / served as f64
    );
    println!("arrivals refused by a full queue and retried: {refusals}");
    assert_eq!(served, 2_000);
}
