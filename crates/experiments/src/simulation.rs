//! The one event loop: devices and a driver's events on one virtual clock.
//!
//! A [`Simulation`] holds the devices of a run and the driver's own timed
//! events (arrivals, trace records, a transaction system's CPU and timers);
//! [`Simulation::run`] takes them in time order and hands each to the
//! [`Driver`]: its own events to [`Driver::on_event`], each device's
//! outcomes to [`Driver::on_outcome`]. Every experiment in the tree runs on
//! it: single disks, mirrors and arrays, the rate-based WRR-SCAN runs, trace
//! replay, the transaction system, the examples and the device tests.
//!
//! **The tie rule.** Events at one instant are taken in [`Rank`] order, and
//! events of one rank in the order they were scheduled. A device's next
//! event has rank [`Rank::DEVICES`] and counts as scheduled when it last
//! changed (its time is entered in the device's slot at that moment, with
//! a stamp from the same counter as the driver's events). A driver event
//! scheduled with [`Simulation::schedule`] has the devices' rank, so the
//! driver's events and the devices' interleave in the order they arose; one
//! scheduled with [`Rank::BEFORE_DEVICES`] goes in before a device acts at
//! the same instant (a job released as a WRR-SCAN round opens is in the
//! queue when the round starts); [`Rank::after_devices`] places it after
//! (the transaction system takes the disks' completions, then its CPU, then
//! its timers).
//!
//! Each device's next event lives in a slot of its own, not in the heap, so
//! that a request costs the heap only the driver's own events.

use disk_emu::{Device, DeviceError, EventKey, EventQueue, Outcome, Rank};
use sched_core::Nanos;

/// Whether a run goes on. (The output is built by [`Driver::finish`], so
/// that this stays a flag and the hot loop moves no reports around.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Take the next event.
    Continue,
    /// End the run now.
    Stop,
}

/// The workload side of a run: it reacts to its own timed events and to
/// what the devices report, changing the devices through
/// [`Simulation::with_device`] and scheduling its next events.
pub trait Driver<D: Device> {
    /// The driver's own events.
    type Event;
    /// What a run produces.
    type Output;
    /// Why a run fails.
    type Error: From<DeviceError>;

    /// One of the driver's events is due at `now`.
    ///
    /// # Errors
    /// The driver's, which end the run.
    fn on_event(
        &mut self,
        sim: &mut Simulation<D, Self::Event>,
        now: Nanos,
        event: Self::Event,
    ) -> Result<Flow, Self::Error>;

    /// Device `device` has just processed its events due at `now`, before
    /// its outcomes are handed over: a chance to look at its state after
    /// every step (a rebuild's progress, the arm's position). Does nothing
    /// by default.
    ///
    /// # Errors
    /// The driver's, which end the run.
    fn on_advance(
        &mut self,
        sim: &mut Simulation<D, Self::Event>,
        now: Nanos,
        device: usize,
    ) -> Result<(), Self::Error> {
        let _ = (sim, now, device);
        Ok(())
    }

    /// Device `device` reports `outcome` at `now`.
    ///
    /// # Errors
    /// The driver's, which end the run.
    fn on_outcome(
        &mut self,
        sim: &mut Simulation<D, Self::Event>,
        now: Nanos,
        device: usize,
        outcome: Outcome,
    ) -> Result<Flow, Self::Error>;

    /// The run is over: the driver stopped it (`stopped`), or nothing is
    /// left to happen.
    ///
    /// # Errors
    /// The driver's (a run that stalled before its target, an invariant).
    fn finish(
        &mut self,
        sim: &mut Simulation<D, Self::Event>,
        stopped: bool,
    ) -> Result<Self::Output, Self::Error>;
}

/// A device and the key of its next event, if it has one.
struct Slot<D> {
    device: D,
    next: Option<EventKey>,
}

/// Devices and a driver's events on one clock (see the module
/// documentation for the order of simultaneous events).
pub struct Simulation<D, E> {
    slots: Vec<Slot<D>>,
    /// A tournament tree over the slots' next events, so that finding the
    /// first takes no scan of every device (arrays of 36 disks run many):
    /// the leaves, from index `winners.len() / 2`, are the slots' keys with
    /// their indices; each inner node holds the earlier of its two
    /// children (`None` is never). Ties cannot happen (every key has its
    /// own stamp), and the index breaks them as the order of the slots
    /// would.
    winners: Vec<Option<(EventKey, usize)>>,
    events: EventQueue<E>,
    now: Nanos,
}

impl<D: Device, E> Default for Simulation<D, E> {
    fn default() -> Self {
        Simulation {
            slots: Vec::new(),
            winners: vec![None; 2],
            events: EventQueue::new(),
            now: 0,
        }
    }
}

/// The earlier of two entries of the tournament tree.
#[inline]
fn earlier(
    a: Option<(EventKey, usize)>,
    b: Option<(EventKey, usize)>,
) -> Option<(EventKey, usize)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

impl<D: Device, E> Simulation<D, E> {
    /// No device, no event, the clock at 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a device; returns its index.
    pub fn add_device(&mut self, device: D) -> usize {
        self.slots.push(Slot { device, next: None });
        let i = self.slots.len() - 1;
        let leaves = self.slots.len().next_power_of_two();
        if leaves > self.winners.len() / 2 {
            // Room for the new slot: a tree twice as wide, refilled.
            self.winners = vec![None; 2 * leaves];
            for j in 0..i {
                self.update_winners(j);
            }
        }
        self.enter(i);
        i
    }

    /// Device `i`.
    ///
    /// # Panics
    /// For an index [`add_device`](Self::add_device) never returned.
    pub fn device(&self, i: usize) -> &D {
        &self.slots[i].device
    }

    /// The devices, in the order they were added.
    pub fn devices(&self) -> impl Iterator<Item = &D> {
        self.slots.iter().map(|s| &s.device)
    }

    /// Number of devices.
    pub fn device_count(&self) -> usize {
        self.slots.len()
    }

    /// The devices, in the order they were added, once the run is over.
    pub fn into_devices(self) -> Vec<D> {
        self.slots.into_iter().map(|s| s.device).collect()
    }

    /// Runs `f` on device `i` (an input: submit, cancel, a disk operation,
    /// a statistics reset), then enters its next event.
    ///
    /// # Panics
    /// For an index [`add_device`](Self::add_device) never returned.
    #[inline]
    pub fn with_device<R>(&mut self, i: usize, f: impl FnOnce(&mut D) -> R) -> R {
        let r = f(&mut self.slots[i].device);
        self.enter(i);
        r
    }

    /// Schedules one of the driver's events among the devices' events of
    /// the same instant ([`Rank::DEVICES`]).
    #[inline]
    pub fn schedule(&mut self, at: Nanos, event: E) {
        self.events.schedule(at, event);
    }

    /// Schedules one of the driver's events with rank `rank`.
    pub fn schedule_ranked(&mut self, at: Nanos, rank: Rank, event: E) {
        self.events.schedule_ranked(at, rank, event);
    }

    /// The clock: the time of the event being handled (0 before the run).
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Enters device `i`'s next event time if it changed.
    #[inline(always)]
    fn enter(&mut self, i: usize) {
        let at = self.slots[i].device.next_event_time();
        if at != self.slots[i].next.map(|k| k.at) {
            self.slots[i].next = at.map(|at| EventKey {
                at,
                rank: Rank::DEVICES,
                seq: self.events.stamp(),
            });
            self.update_winners(i);
        }
    }

    /// Enters slot `i`'s key in the tournament tree: its leaf, then every
    /// node above it. (Always inlined: a call costs a single disk's
    /// one-leaf tree more than the update.)
    #[inline(always)]
    fn update_winners(&mut self, i: usize) {
        let mut node = self.winners.len() / 2 + i;
        self.winners[node] = self.slots[i].next.map(|k| (k, i));
        while node > 1 {
            node /= 2;
            self.winners[node] = earlier(self.winners[2 * node], self.winners[2 * node + 1]);
        }
    }

    /// The device whose next event comes first, with its key.
    #[inline]
    fn first_device(&self) -> Option<(usize, EventKey)> {
        self.winners[1].map(|(k, i)| (i, k))
    }

    /// Runs until the driver stops or nothing is left to happen.
    ///
    /// # Errors
    /// The first error of the driver or of a device.
    pub fn run<Dr: Driver<D, Event = E>>(
        &mut self,
        driver: &mut Dr,
    ) -> Result<Dr::Output, Dr::Error> {
        loop {
            let device = self.first_device();
            let own = self.events.peek_key();
            let flow = match (device, own) {
                (None, None) => return driver.finish(self, false),
                (Some((i, key)), own) if own.is_none_or(|k| key < k) => {
                    self.now = key.at;
                    self.slots[i].device.advance(key.at)?;
                    self.enter(i);
                    driver.on_advance(self, key.at, i)?;
                    let mut flow = Flow::Continue;
                    while let Some(o) = self.slots[i].device.poll() {
                        flow = driver.on_outcome(self, key.at, i, o)?;
                        if flow == Flow::Stop {
                            break;
                        }
                    }
                    flow
                }
                _ => {
                    let Some((at, event)) = self.events.pop() else {
                        return driver.finish(self, false);
                    };
                    self.now = at;
                    driver.on_event(self, at, event)?
                }
            };
            if flow == Flow::Stop {
                return driver.finish(self, true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use disk_emu::disk::{DiskModel, presets};
    use disk_emu::{DiskDevice, Stream};
    use sched_core::array::{Copies, Location};
    use sched_core::{Block, Blocks, Cyl, Kind, PolicySpec, Request, RequestId};

    use super::*;

    /// Records the order in which events reach it.
    struct Recorder {
        seen: Vec<(Nanos, &'static str)>,
    }

    impl Driver<DiskDevice> for Recorder {
        type Event = &'static str;
        type Output = Vec<(Nanos, &'static str)>;
        type Error = DeviceError;

        fn on_event(
            &mut self,
            sim: &mut Simulation<DiskDevice, &'static str>,
            now: Nanos,
            event: &'static str,
        ) -> Result<Flow, DeviceError> {
            self.seen.push((now, event));
            if event == "submit" {
                let req = Request::new(RequestId(1), Kind::Read, Block(0), Blocks(1), Cyl(0), now);
                let at = Location {
                    block: 0,
                    cylinder: 0,
                };
                sim.with_device(0, |d| d.submit(req, &Copies::everywhere(1, at), now))?;
            }
            Ok(Flow::Continue)
        }

        fn on_outcome(
            &mut self,
            _sim: &mut Simulation<DiskDevice, &'static str>,
            now: Nanos,
            _device: usize,
            _outcome: Outcome,
        ) -> Result<Flow, DeviceError> {
            self.seen.push((now, "completion"));
            Ok(Flow::Continue)
        }

        fn finish(
            &mut self,
            _sim: &mut Simulation<DiskDevice, &'static str>,
            _stopped: bool,
        ) -> Result<Self::Output, DeviceError> {
            Ok(std::mem::take(&mut self.seen))
        }
    }

    #[test]
    fn simultaneous_events_by_rank_then_in_the_order_they_arose() {
        let model = DiskModel::from_spec(&presets::exponential(45.0)).unwrap();
        let mut sim = Simulation::new();
        sim.add_device(DiskDevice::new(model, &PolicySpec::Fcfs, Stream::numbered(1)).unwrap());
        sim.schedule(0, "submit");
        let mut probe = Recorder { seen: Vec::new() };
        // Find when the request completes, then replay with events at that instant.
        let done = sim.run(&mut probe).unwrap()[1].0;
        let model = DiskModel::from_spec(&presets::exponential(45.0)).unwrap();
        let mut sim = Simulation::new();
        sim.add_device(DiskDevice::new(model, &PolicySpec::Fcfs, Stream::numbered(1)).unwrap());
        sim.schedule_ranked(done, Rank::after_devices(0), "after");
        sim.schedule(done, "with, scheduled before the device's event");
        sim.schedule(0, "submit");
        sim.schedule_ranked(done, Rank::BEFORE_DEVICES, "before");
        sim.schedule_ranked(done, Rank::LAST, "last");
        let seen = sim.run(&mut Recorder { seen: Vec::new() }).unwrap();
        let at_done: Vec<&str> = seen
            .iter()
            .filter(|(t, _)| *t == done)
            .map(|(_, e)| *e)
            .collect();
        assert_eq!(
            at_done,
            [
                "before",
                "with, scheduled before the device's event",
                "completion",
                "after",
                "last"
            ]
        );
    }
}
