//! An array driver: a two-disk mirror under DMQ with SSTF queues, on heap
//! storage, whose second copy is laid out shifted (each block lives at
//! another block and cylinder on disk 1). Writes are acknowledged when the
//! first copy is written; the other finishes in the background.
//!
//! Midway, disk 1 fails: its operations come back through `poll_event`
//! (writes settle without it and say so in `skipped`, reads move to disk 0).
//! A replacement then takes its place (`replace_disk`) and the array
//! rebuilds it: the driver asks for the next range to copy (`resync`), the
//! array starts the copy when no write overlapping it is in flight (writes
//! arriving for that range wait for it), and raises the rebuilt mark when
//! the copy is on the disk; reads below the mark may use the new disk, and
//! after the last range it is online. The driver cannot declare a blank
//! disk current: it never sets a disk's state.
//!
//! Run with `cargo run -p sched-core --features alloc --example array_failure_and_rebuild`.

use sched_core::array::{
    Ack, ArrayPolicy, ArrayView, Completion, Copies, DiskState, Dmq, Location, Rebuild,
    ShortestQueue,
};
use sched_core::policy::Sstf;
use sched_core::{
    Block, Blocks, Cyl, Head, Heap, Kind, Nanos, Request, RequestId, ServiceEstimator,
};

const CYLINDERS: u32 = 1000;
const BLOCKS_PER_CYLINDER: u64 = 64;
const DISK_BLOCKS: u64 = CYLINDERS as u64 * BLOCKS_PER_CYLINDER;
const REQUESTS: u64 = 4_000;
/// Blocks per resync copy: the replacement is rebuilt in eight ranges.
const RESYNC_BLOCKS: u32 = (DISK_BLOCKS / 8) as u32;

/// Seek grows with the square root of the distance, plus a fixed latency
/// and transfer.
struct Disk;

impl ServiceEstimator for Disk {
    fn positioning_time(&self, head: Head, req: &Request, _now: Nanos) -> Nanos {
        let d = head.cylinder.abs_diff(req.cylinder);
        (f64::from(d).sqrt() * 300_000.0) as Nanos + 4_000_000
    }
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        self.positioning_time(head, req, now) + u64::from(req.blocks) * 25_000
    }
    fn expected_service_time(&self, req: &Request) -> Nanos {
        9_000_000 + u64::from(req.blocks) * 25_000
    }
}

/// Where logical block `b` lives: at `b` on disk 0, shifted by half the
/// disk on disk 1.
fn copies(b: u64) -> Copies {
    let at = |block: u64| Location {
        block,
        cylinder: (block / BLOCKS_PER_CYLINDER) as u32,
    };
    Copies::new()
        .with(0, at(b))
        .with(1, at((b + DISK_BLOCKS / 2) % DISK_BLOCKS))
}

#[derive(Default)]
struct Tally {
    reads: u64,
    writes_acked: u64,
    writes_settled: u64,
    writes_missing_disk_1: u64,
    failed: u64,
    resync_copies: u64,
    response: u128,
}

impl Tally {
    fn record(&mut self, c: &Completion, now: Nanos) {
        if let Some(r) = c.finished {
            self.response += u128::from(now - r.arrival);
            match r.kind {
                Kind::Read => self.reads += 1,
                Kind::Write => self.writes_acked += 1,
            }
        }
        if c.settled.is_some() {
            self.writes_settled += 1;
            // The array's resync copies these to the replacement.
            if c.skipped.contains(1) {
                self.writes_missing_disk_1 += 1;
            }
        }
        if c.failed.is_some() {
            self.failed += 1;
        }
        if c.resynced.is_some() {
            self.resync_copies += 1;
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let storage = Heap::new(1024)?;
    let queues = vec![
        Sstf::new(storage, CYLINDERS)?,
        Sstf::new(storage, CYLINDERS)?,
    ];
    let mut array = Dmq::new(storage, queues, ShortestQueue)?
        .prefer_idle()
        .with_ack(Ack::First)?;

    let mut heads = [Head::at(0); 2];
    let estimators: [&dyn ServiceEstimator; 2] = [&Disk, &Disk];
    let mut busy: [Option<(Nanos, Request)>; 2] = [None; 2];
    let mut tally = Tally::default();
    let mut state = 0x4d59_5df4_d0f3_3173_u64;
    let mut next_arrival: Nanos = 0;
    let mut submitted = 0u64;
    let mut logical: Vec<u64> = Vec::new(); // each request's logical block, by id
    let mut now: Nanos = 0;
    // Disk 1 fails after a quarter of the requests; a replacement arrives
    // 200 requests later and is rebuilt one range after another.
    let fail_at = REQUESTS / 4;
    let replace_at = fail_at + 200;
    let mut copy_asked = false;
    let mut next_copy_id = REQUESTS;

    while submitted < REQUESTS
        || busy.iter().any(Option::is_some)
        || array.in_system() > 0
        || array.disk_state(1) != DiskState::Online
    {
        // Completions.
        for d in 0..2 {
            if let Some((t, op)) = busy[d]
                && t <= now
            {
                busy[d] = None;
                heads[d] = Head::at(op.cylinder);
                let done = array.complete(d, now)?;
                for a in done.abort.iter() {
                    busy[a] = None;
                }
                if done.resynced.is_some() {
                    copy_asked = false;
                    println!(
                        "t={:>7.1} ms: disk 1 {:?}",
                        now as f64 / 1e6,
                        array.disk_state(1)
                    );
                }
                tally.record(&done, now);
            }
        }
        let view = ArrayView {
            now,
            heads: &heads,
            estimators: &estimators,
        };
        // Arrivals, and the disk events they trigger.
        if submitted < REQUESTS && next_arrival <= now {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            let block = (state >> 20) % DISK_BLOCKS / 8 * 8;
            let kind = if state.is_multiple_of(3) {
                Kind::Write
            } else {
                Kind::Read
            };
            let c = copies(block);
            let at = c.location(0).expect("disk 0 holds every block");
            let req = Request::new(
                RequestId(submitted),
                kind,
                Block(block),
                Blocks(8),
                Cyl(at.cylinder),
                now,
            );
            logical.push(block);
            if let Err(e) = array.submit(req, &c, &view) {
                println!(
                    "t={:>7.1} ms: request {submitted} refused: {e}",
                    now as f64 / 1e6
                );
            }
            submitted += 1;
            next_arrival = now + (state >> 33) % 14_000_000;
            if submitted == fail_at {
                println!("t={:>7.1} ms: disk 1 fails", now as f64 / 1e6);
                busy[1] = None; // whatever it was doing is lost
                array.fail_disk(1, &view)?;
            } else if submitted == replace_at {
                println!("t={:>7.1} ms: disk 1 replaced", now as f64 / 1e6);
                array.replace_disk(1, Rebuild::whole(DISK_BLOCKS))?;
            }
        }
        // The resync: ask for the next range once the last one is copied.
        if let DiskState::Rebuilding { rebuilt_to } = array.disk_state(1)
            && !copy_asked
        {
            let cylinder = (rebuilt_to / BLOCKS_PER_CYLINDER) as u32;
            let copy = Request::new(
                RequestId(next_copy_id),
                Kind::Write,
                Block(rebuilt_to),
                Blocks(RESYNC_BLOCKS),
                Cyl(cylinder),
                now,
            );
            array.resync(1, copy)?;
            next_copy_id += 1;
            copy_asked = true;
        }
        // Events caused by the failure, then operations to start.
        while let Some(e) = array.poll_event() {
            tally.record(&e, now);
        }
        while let Some(start) = array.poll_start(&view)? {
            let op = start.dispatch.request;
            if let Some(source) = start.copy_from {
                // A resync copy: a real driver reads these blocks' data from
                // `source` (at its own layout's place for them) and writes
                // it here; this one only charges the write.
                assert_eq!((start.disk, source), (1, 0));
            } else {
                // The operation is addressed to this disk's copy of the block.
                let at = copies(logical[op.id.0 as usize]).location(start.disk);
                assert_eq!(
                    at.map(|l| (l.block, l.cylinder)),
                    Some((op.block, op.cylinder))
                );
            }
            let service = Disk.service_time(heads[start.disk], &op, now);
            busy[start.disk] = Some((now + service, op));
        }
        // The next moment something happens.
        let next_done = busy.iter().flatten().map(|&(t, _)| t).min();
        let arrival = (submitted < REQUESTS).then_some(next_arrival);
        match [next_done, arrival].into_iter().flatten().min() {
            Some(t) => now = now.max(t),
            None => break,
        }
    }

    let finished = tally.reads + tally.writes_acked;
    println!(
        "finished {finished} of {REQUESTS} requests in {:.1} s",
        now as f64 / 1e9
    );
    println!(
        "  reads {}, writes acknowledged {}, failed {}",
        tally.reads, tally.writes_acked, tally.failed
    );
    println!(
        "  writes settled {} ({} missed disk 1 while it was down: the resync copied them)",
        tally.writes_settled, tally.writes_missing_disk_1
    );
    println!(
        "  mean response time {:.2} ms",
        tally.response as f64 / finished as f64 / 1e6
    );
    println!(
        "  resync: {} ranges copied, disk 1 {:?}",
        tally.resync_copies,
        array.disk_state(1)
    );
    assert_eq!(finished + tally.failed, REQUESTS);
    assert_eq!(tally.writes_settled, tally.writes_acked);
    assert_eq!(tally.resync_copies, 8);
    assert_eq!(array.disk_state(1), DiskState::Online);
    Ok(())
}
