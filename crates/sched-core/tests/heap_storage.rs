//! Deep queues on heap storage never touch the stack: on a thread with a
//! 256 KB stack, in a debug build, a 65,535-deep SSTF queue and a 4096-deep
//! CMQ over SSEDO are built and serve 10,000 requests each. Inline storage of
//! that depth is megabytes (about 60 bytes a slot) and would overflow the
//! stack at construction.

#![cfg(feature = "alloc")]

use std::collections::BTreeMap;

use sched_core::array::{ArrayPolicy, ArrayView, Cmq, Copies, Location};
use sched_core::policy::{Ssedo, Sstf};
use sched_core::{
    Block, Blocks, Cyl, Head, Heap, Kind, MAX_CAPACITY, NullEstimator, Request, RequestId,
    Scheduler, ServiceEstimator,
};

const STACK: usize = 256 * 1024;
const SERVED: usize = 10_000;

/// Runs `f` on a thread with a 256 KB stack and waits for it.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("the work ran within 256 KB of stack");
}

/// xorshift, for reproducible cylinders.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn a_65535_deep_sstf_on_the_heap_serves_10000_requests_on_a_256_kb_stack() {
    on_small_stack(|| {
        const CYLINDERS: u32 = 100_000;
        let mut q = Sstf::new(Heap::new(MAX_CAPACITY).unwrap(), CYLINDERS).unwrap();
        assert_eq!(q.capacity(), 65_535);
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        // The model: queued requests per cylinder, to find the nearest one.
        let mut model: BTreeMap<u32, usize> = BTreeMap::new();
        let mut next_id = 0u64;
        let mut enqueue = |q: &mut Sstf<Heap>, model: &mut BTreeMap<u32, usize>, now| {
            let cyl = rng.below(u64::from(CYLINDERS)) as u32;
            let r = Request::new(
                RequestId(next_id),
                Kind::Read,
                Block(u64::from(cyl) * 8),
                Blocks(8),
                Cyl(cyl),
                now,
            );
            next_id += 1;
            q.enqueue(r).unwrap();
            *model.entry(cyl).or_default() += 1;
        };
        for _ in 0..MAX_CAPACITY {
            enqueue(&mut q, &mut model, 0);
        }
        assert_eq!(q.len(), MAX_CAPACITY);
        let mut head = Head::at(CYLINDERS / 2);
        let mut now = 0;
        for _ in 0..SERVED {
            let d = q
                .next(head, now, &NullEstimator)
                .expect("the queue is full");
            let cyl = d.request.cylinder;
            // SSTF: no queued request is nearer the arm.
            let below = model.range(..=head.cylinder).next_back().map(|(c, _)| *c);
            let above = model.range(head.cylinder..).next().map(|(c, _)| *c);
            let nearest = [below, above]
                .into_iter()
                .flatten()
                .map(|c| c.abs_diff(head.cylinder))
                .min()
                .unwrap();
            assert_eq!(cyl.abs_diff(head.cylinder), nearest);
            let n = model.get_mut(&cyl).unwrap();
            *n -= 1;
            if *n == 0 {
                model.remove(&cyl);
            }
            head = Head::at(cyl);
            now += 1_000;
            enqueue(&mut q, &mut model, now);
        }
        assert_eq!(q.len(), MAX_CAPACITY);
        assert_eq!(next_id as usize, MAX_CAPACITY + SERVED);
    });
}

#[test]
fn a_4096_deep_cmq_over_ssedo_on_the_heap_serves_10000_requests_on_a_256_kb_stack() {
    on_small_stack(|| {
        const DEPTH: usize = 4096;
        const CYLINDERS: u32 = 2_000;
        let storage = Heap::new(DEPTH).unwrap();
        let ssedo = || Ssedo::new(storage, 3, 2.0).unwrap();
        let mut cmq = Cmq::new(storage, ssedo(), vec![ssedo(), ssedo()]).unwrap();
        let heads = [Head::at(0), Head::at(CYLINDERS - 1)];
        let est: [&dyn ServiceEstimator; 2] = [&NullEstimator, &NullEstimator];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut next_id = 0u64;
        let mut submit = |cmq: &mut Cmq<_, _, _>, now| {
            let cyl = rng.below(u64::from(CYLINDERS)) as u32;
            // A mirror whose second copy lies elsewhere; one request in four is an update.
            let other = (cyl + CYLINDERS / 2) % CYLINDERS;
            let copies = Copies::new()
                .with(
                    0,
                    Location {
                        block: u64::from(cyl) * 16,
                        cylinder: cyl,
                    },
                )
                .with(
                    1,
                    Location {
                        block: u64::from(other) * 16,
                        cylinder: other,
                    },
                );
            let kind = if next_id.is_multiple_of(4) {
                Kind::Write
            } else {
                Kind::Read
            };
            let r = Request::new(
                RequestId(next_id),
                kind,
                Block(u64::from(cyl) * 16),
                Blocks(8),
                Cyl(cyl),
                now,
            )
            .with_deadline(now + 1_000_000 + rng.below(1_000_000));
            next_id += 1;
            let view = ArrayView {
                now,
                heads: &heads,
                estimators: &est,
            };
            ArrayPolicy::submit(cmq, r, &copies, &view).unwrap();
        };
        for _ in 0..DEPTH - 2 {
            submit(&mut cmq, 0);
        }
        let mut busy: [Option<RequestId>; 2] = [None, None];
        let mut finished = 0usize;
        let mut now = 0;
        while finished < SERVED {
            let view = ArrayView {
                now,
                heads: &heads,
                estimators: &est,
            };
            while let Some(s) = cmq.poll_start(&view).unwrap() {
                assert!(busy[s.disk].is_none());
                busy[s.disk] = Some(s.dispatch.request.id);
            }
            now += 1_000;
            for (d, serving) in busy.iter_mut().enumerate() {
                if serving.take().is_some() {
                    let c = cmq.complete(d, now).unwrap();
                    if c.finished.is_some() {
                        finished += 1;
                        submit(&mut cmq, now);
                    }
                }
            }
        }
        assert!(cmq.in_system() >= DEPTH - 4, "the array stayed deep");
    });
}
