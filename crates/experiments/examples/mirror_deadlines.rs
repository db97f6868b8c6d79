//! Driving a mirrored device through the event loop, without any async
//! runtime.
//!
//! A closed population of clients, each issuing one request at a time with a
//! deadline, thinking between requests. The driver's own events (a client
//! done thinking, a deadline passing) and the device's completions come out
//! of one `Simulation` in time order; a completion due at the same instant
//! as a timer is seen first. When a request's deadline passes before it
//! completes, the client gives up on it and its queued I/O is cancelled, so
//! the disks do not waste time on an answer nobody waits for; an I/O already
//! in service cannot be withdrawn and completes late.
//!
//! Run with `cargo run --release -p experiments --example mirror_deadlines
//! [POLICY [CLIENTS [DEADLINE_MS]]]`, e.g. `... mirror_deadlines cmq 12 60`.

use std::collections::BTreeMap;

use disk_emu::disk::{DiskModel, presets};
use disk_emu::{ArrayDevice, Device, DeviceError, Outcome, Rank, Stream};
use experiments::Placement;
use experiments::simulation::{Driver, Flow, Simulation};
use sched_core::array::ArraySpec;
use sched_core::{Block, Blocks, CancelError, Cyl, Kind, Nanos, Request, RequestId};

const MS: Nanos = 1_000_000;

/// The driver's own timers, taken after the device's completions of the
/// same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    /// Client `u16` has finished thinking: it issues a request.
    Issue(u16),
    /// Request `u64`'s deadline has passed.
    Deadline(u64),
    /// The end of the run.
    Stop,
}

const TIMERS: Rank = Rank::after_devices(0);

#[derive(Default, Debug)]
struct Tally {
    on_time: u64,
    late: u64,
    abandoned: u64,
    cancel_refused: u64,
    response_sum: Nanos,
}

/// Closed clients with deadlines over a mirror.
struct Clients {
    rng: Stream,
    think: Nanos,
    deadline: Nanos,
    capacity: u64,
    /// Open requests: id -> (client, given up on).
    open: BTreeMap<u64, (u16, bool)>,
    next_id: u64,
    tally: Tally,
}

impl Clients {
    fn think(&mut self, sim: &mut Simulation<ArrayDevice, Timer>, now: Nanos, client: u16) {
        let at = now + self.rng.exponential(self.think);
        sim.schedule_ranked(at, TIMERS, Timer::Issue(client));
    }
}

impl Driver<ArrayDevice> for Clients {
    type Event = Timer;
    type Output = ();
    type Error = DeviceError;

    fn on_event(
        &mut self,
        sim: &mut Simulation<ArrayDevice, Timer>,
        now: Nanos,
        timer: Timer,
    ) -> Result<Flow, DeviceError> {
        match timer {
            Timer::Stop => return Ok(Flow::Stop),
            Timer::Issue(client) => {
                let kind = if self.rng.chance(0.7) {
                    Kind::Read
                } else {
                    Kind::Write
                };
                let block = self.rng.below(self.capacity / 8) * 8;
                let req = Request::new(
                    RequestId(self.next_id),
                    kind,
                    Block(block),
                    Blocks(8),
                    Cyl(0),
                    now,
                )
                .with_deadline(now + self.deadline);
                let copies = Placement::MIRROR.copies(block, 8, self.capacity);
                sim.with_device(0, |array| array.submit(req, &copies, now))?;
                self.open.insert(self.next_id, (client, false));
                sim.schedule_ranked(now + self.deadline, TIMERS, Timer::Deadline(self.next_id));
                self.next_id += 1;
            }
            Timer::Deadline(id) => {
                let Some(&(client, _)) = self.open.get(&id) else {
                    return Ok(Flow::Continue); // completed in time
                };
                match sim.with_device(0, |array| array.cancel(RequestId(id))) {
                    Ok(_) => {
                        self.open.remove(&id);
                        self.tally.abandoned += 1;
                    }
                    // Being served: it will complete, late; the client
                    // stops waiting for it all the same.
                    Err(DeviceError::Cancel(CancelError::InService(_))) => {
                        self.open.insert(id, (client, true));
                        self.tally.cancel_refused += 1;
                    }
                    Err(e) => return Err(e),
                }
                self.think(sim, now, client);
            }
        }
        Ok(Flow::Continue)
    }

    fn on_outcome(
        &mut self,
        sim: &mut Simulation<ArrayDevice, Timer>,
        now: Nanos,
        _device: usize,
        outcome: Outcome,
    ) -> Result<Flow, DeviceError> {
        let Outcome::Completed(done) = outcome else {
            return Ok(Flow::Continue);
        };
        let Some((client, gave_up)) = self.open.remove(&done.request.id.0) else {
            return Ok(Flow::Continue);
        };
        let t = done.timing;
        assert_eq!(
            t.wait + t.seek + t.rotation + t.transfer + t.overhead + t.held,
            t.response()
        );
        if done.request.deadline.is_some_and(|d| t.finish <= d) {
            self.tally.on_time += 1;
            self.tally.response_sum += t.response();
        } else {
            self.tally.late += 1;
        }
        if !gave_up {
            self.think(sim, now, client);
        }
        Ok(Flow::Continue)
    }

    fn finish(
        &mut self,
        _sim: &mut Simulation<ArrayDevice, Timer>,
        _stopped: bool,
    ) -> Result<(), DeviceError> {
        Ok(())
    }
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
    let streams = vec![Stream::numbered(71), Stream::numbered(72)];
    let array = ArrayDevice::new(vec![model.clone(), model], &spec, streams, 7)?;
    let mut driver = Clients {
        rng: Stream::numbered(70),
        think,
        deadline,
        capacity,
        open: BTreeMap::new(),
        next_id: 0,
        tally: Tally::default(),
    };
    let mut sim = Simulation::new();
    sim.add_device(array);
    for c in 0..clients {
        driver.think(&mut sim, 0, c);
    }
    sim.schedule_ranked(run_for, Rank::LAST, Timer::Stop);
    sim.run(&mut driver)?;
    let mut array = sim.into_devices().pop().expect("one device");

    let report = array.report(array.now());
    let tally = &driver.tally;
    println!(
        "{spec}, {clients} clients, deadline {} ms, think {} ms, {} s of virtual time",
        deadline / MS,
        think / MS,
        run_for / 1_000 / MS
    );
    println!(
        "requests {}: on time {}, late {}, abandoned in queue {}, abandoned in service {}",
        driver.next_id, tally.on_time, tally.late, tally.abandoned, tally.cancel_refused
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
