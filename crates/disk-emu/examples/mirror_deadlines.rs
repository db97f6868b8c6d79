//! Driving a mirrored device from outside, without any async runtime.
//!
//! A closed population of clients, each issuing one request at a time with a
//! deadline, thinking between requests. The driver owns the clock: it keeps
//! its own timers (think times, deadlines) and at every step advances the
//! device to whichever comes first, its own next timer or the device's next
//! event. When a request's deadline passes before it completes, the client
//! gives up on it and its queued I/O is cancelled, so the disks do not waste
//! time on an answer nobody waits for; an I/O already in service cannot be
//! withdrawn and completes late.
//!
//! Run with `cargo run --release -p disk-emu --example mirror_deadlines
//! [POLICY [CLIENTS [DEADLINE_MS]]]`, e.g. `... mirror_deadlines cmq 12 60`.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use disk_emu::disk::{DiskModel, presets};
use disk_emu::{ArrayDevice, DeviceError, Outcome, Purpose, Stream};
use sched_core::array::{ArraySpec, Copies, Location};
use sched_core::{CancelError, Kind, Nanos, Request, RequestId};

const MS: Nanos = 1_000_000;

/// The driver's own timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    /// Client `u16` has finished thinking: it issues a request.
    Issue(u16),
    /// Request `u64`'s deadline has passed.
    Deadline(u64),
}

#[derive(Default, Debug)]
struct Tally {
    on_time: u64,
    late: u64,
    abandoned: u64,
    cancel_refused: u64,
    response_sum: Nanos,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let spec: ArraySpec = args.next().as_deref().unwrap_or("dmq").parse()?;
    let clients: u16 = args.next().map_or(Ok(8), |a| a.parse())?;
    let deadline: Nanos = args.next().map_or(Ok(80), |a| a.parse::<Nanos>())? * MS;
    let run_for: Nanos = 600_000 * MS; // ten minutes of virtual time
    let think: Nanos = 100 * MS;

    let model = DiskModel::from_spec(&presets::hp97560())?;
    let capacity = model.capacity_blocks();
    let streams = vec![
        Stream::new(7, 0, Purpose::Service),
        Stream::new(7, 0, Purpose::Other(1)),
    ];
    let mut array = ArrayDevice::new(vec![model.clone(), model], &spec, streams, 7)?;
    let mut rng = Stream::new(7, 0, Purpose::Arrivals);

    // Timers, earliest first; ties in the order they were set.
    let mut timers: BinaryHeap<Reverse<(Nanos, u64, Timer)>> = BinaryHeap::new();
    let mut seq = 0;
    let mut set = |timers: &mut BinaryHeap<_>, at: Nanos, t: Timer| {
        timers.push(Reverse((at, seq, t)));
        seq += 1;
    };
    for c in 0..clients {
        let at = rng.exponential(think);
        set(&mut timers, at, Timer::Issue(c));
    }
    // Open requests: id -> (client, given up on).
    let mut open: BTreeMap<u64, (u16, bool)> = BTreeMap::new();
    let mut tally = Tally::default();
    let mut next_id = 0;

    loop {
        let own = timers.peek().map(|Reverse((t, _, _))| *t);
        let device = array.next_event_time();
        let now = match (own, device) {
            (Some(a), Some(b)) => a.min(b),
            (Some(t), None) | (None, Some(t)) => t,
            (None, None) => break,
        };
        if now > run_for {
            break;
        }
        // The device first: completions due now are seen before timers.
        array.advance(now)?;
        while let Some(outcome) = array.poll() {
            let Outcome::Completed(done) = outcome else {
                continue;
            };
            let Some((client, gave_up)) = open.remove(&done.request.id.0) else {
                continue;
            };
            let t = done.timing;
            assert_eq!(
                t.wait + t.seek + t.rotation + t.transfer + t.overhead + t.held,
                t.response()
            );
            if done.request.deadline.is_some_and(|d| t.finish <= d) {
                tally.on_time += 1;
                tally.response_sum += t.response();
            } else {
                tally.late += 1;
            }
            if !gave_up {
                set(
                    &mut timers,
                    now + rng.exponential(think),
                    Timer::Issue(client),
                );
            }
        }
        while let Some(&Reverse((t, _, timer))) = timers.peek() {
            if t > now {
                break;
            }
            timers.pop();
            match timer {
                Timer::Issue(client) => {
                    let kind = if rng.chance(0.7) {
                        Kind::Read
                    } else {
                        Kind::Write
                    };
                    let block = rng.below(capacity / 8) * 8;
                    let req = Request::new(RequestId(next_id), kind, block, 8, 0, now)
                        .with_deadline(now + deadline)
                        .with_class(client);
                    let at = Location { block, cylinder: 0 };
                    array.submit(req, &Copies::new().with(0, at).with(1, at), now)?;
                    open.insert(next_id, (client, false));
                    set(&mut timers, now + deadline, Timer::Deadline(next_id));
                    next_id += 1;
                }
                Timer::Deadline(id) => {
                    let Some(&(client, _)) = open.get(&id) else {
                        continue; // completed in time
                    };
                    match array.cancel(RequestId(id)) {
                        Ok(_) => {
                            open.remove(&id);
                            tally.abandoned += 1;
                        }
                        // Being served: it will complete, late; the client
                        // stops waiting for it all the same.
                        Err(DeviceError::Cancel(CancelError::InService(_))) => {
                            open.insert(id, (client, true));
                            tally.cancel_refused += 1;
                        }
                        Err(e) => return Err(e.into()),
                    }
                    set(
                        &mut timers,
                        now + rng.exponential(think),
                        Timer::Issue(client),
                    );
                }
            }
        }
    }

    let report = array.report(array.now());
    println!(
        "{spec}, {clients} clients, deadline {} ms, think {} ms, {} s of virtual time",
        deadline / MS,
        think / MS,
        run_for / 1_000 / MS
    );
    println!(
        "requests {next_id}: on time {}, late {}, abandoned in queue {}, abandoned in service {}",
        tally.on_time, tally.late, tally.abandoned, tally.cancel_refused
    );
    if tally.on_time > 0 {
        println!(
            "mean response of requests on time: {:.2} ms",
            tally.response_sum as f64 / tally.on_time as f64 / 1e6
        );
    }
    for (d, usage) in report.disks.iter().enumerate() {
        println!(
            "disk {d}: utilisation {:.3}, {} operations, mean service {:.2} ms",
            usage.utilisation,
            usage.completions,
            usage.service.mean / 1e6
        );
    }
    println!(
        "mean logical requests in the array {:.2}, per-disk queues {:?}",
        report.queues.in_system, report.queues.disk
    );
    Ok(())
}
