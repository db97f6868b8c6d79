//! The discrete-event core: a queue of timed events in integer nanoseconds,
//! and the event loop the open-workload experiments (one disk, arrays) and
//! trace replay share. Drivers with a clock of their own step the devices
//! directly instead, as the open API allows: the rate-based runs of
//! [`rate`](crate::rate), whose job releases must enter before a device's
//! own events at the same instant, and the transaction simulator.
//!
//! Events at the same instant come out in the order they were scheduled, so a
//! run never depends on how a heap happens to break ties.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sched_core::Nanos;

use crate::device::{ArrayDevice, DeviceError, DiskDevice, Outcome};

/// A pending event: time, then scheduling order, then the payload.
#[derive(Debug)]
struct Entry<E> {
    at: Nanos,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// Timed events, earliest first; simultaneous events in scheduling order.
#[derive(Debug)]
pub(crate) struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
    now: Nanos,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            seq: 0,
            now: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time 0.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `at` (never before the current time).
    pub(crate) fn schedule(&mut self, at: Nanos, event: E) {
        debug_assert!(at >= self.now, "events cannot be scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Reverse(Entry { at, seq, event }));
    }

    /// The earliest event, without taking it.
    pub(crate) fn peek(&self) -> Option<(Nanos, &E)> {
        self.heap.peek().map(|Reverse(e)| (e.at, &e.event))
    }

    /// The time of the earliest event.
    pub(crate) fn peek_time(&self) -> Option<Nanos> {
        self.heap.peek().map(|Reverse(e)| e.at)
    }

    /// Drops the earliest event (one that has become meaningless) without
    /// advancing the clock to it.
    pub(crate) fn discard_first(&mut self) {
        self.heap.pop();
    }

    /// Takes the earliest event and advances the clock to it.
    pub(crate) fn pop(&mut self) -> Option<(Nanos, E)> {
        let Reverse(e) = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.event))
    }
}

/// What the event loop needs of a device: its open API's time-keeping half.
pub(crate) trait Device {
    fn next_event_time(&self) -> Option<Nanos>;
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError>;
    fn poll(&mut self) -> Option<Outcome>;
}

impl<S: sched_core::Scheduler> Device for DiskDevice<S> {
    #[inline]
    fn next_event_time(&self) -> Option<Nanos> {
        DiskDevice::next_event_time(self)
    }
    #[inline]
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        DiskDevice::advance(self, to)
    }
    #[inline]
    fn poll(&mut self) -> Option<Outcome> {
        DiskDevice::poll(self)
    }
}

impl<P: sched_core::array::ArrayPolicy> Device for ArrayDevice<P> {
    fn next_event_time(&self) -> Option<Nanos> {
        ArrayDevice::next_event_time(self)
    }
    fn advance(&mut self, to: Nanos) -> Result<(), DeviceError> {
        ArrayDevice::advance(self, to)
    }
    fn poll(&mut self) -> Option<Outcome> {
        ArrayDevice::poll(self)
    }
}

/// Whether a run goes on. (The output is built by [`Driver::finish`], so
/// that this stays a flag and the hot loop moves no reports around.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// The workload side of a run: it reacts to its own timed events and to
/// what the devices report, submitting requests through the [`Simulation`].
pub(crate) trait Driver<D: Device> {
    /// The driver's own events (arrivals, trace records).
    type Event;
    /// What a run produces.
    type Output;
    /// Why a run fails.
    type Error: From<DeviceError>;

    /// One of the driver's events is due.
    fn on_event(
        &mut self,
        sim: &mut Simulation<D, Self::Event>,
        now: Nanos,
        event: Self::Event,
    ) -> Result<Flow, Self::Error>;

    /// Device `device` reports `outcome` at `now`.
    fn on_outcome(
        &mut self,
        sim: &mut Simulation<D, Self::Event>,
        now: Nanos,
        device: usize,
        outcome: Outcome,
    ) -> Result<Flow, Self::Error>;

    /// The run is over: the driver stopped it (`stopped`), or nothing is
    /// left to happen.
    fn finish(
        &mut self,
        sim: &mut Simulation<D, Self::Event>,
        stopped: bool,
    ) -> Result<Self::Output, Self::Error>;
}

/// A time slot of the loop: a device's next event, or one of the driver's.
enum Slot<E> {
    /// A device, by index (`u32` keeps queue entries small).
    Device(u32),
    Driver(E),
}

/// Devices and a driver's events in one queue: the event loop shared by the
/// single-disk and mirrored experiments and by trace replay.
///
/// Each device's next event time is kept in the queue, entered at the
/// moment it changes; so simultaneous events, whether the devices' or the
/// driver's, are taken in the order they were scheduled.
pub(crate) struct Simulation<D, E> {
    devices: Vec<D>,
    /// The time each device was last entered in the queue for.
    entered: Vec<Option<Nanos>>,
    events: EventQueue<Slot<E>>,
}

impl<D: Device, E> Simulation<D, E> {
    pub(crate) fn new() -> Self {
        Simulation {
            devices: Vec::new(),
            entered: Vec::new(),
            events: EventQueue::new(),
        }
    }

    /// Adds a device; returns its index.
    pub(crate) fn add_device(&mut self, device: D) -> usize {
        self.devices.push(device);
        self.entered.push(None);
        let i = self.devices.len() - 1;
        self.enter(i);
        i
    }

    pub(crate) fn device(&self, i: usize) -> &D {
        &self.devices[i]
    }

    pub(crate) fn devices_mut(&mut self) -> &mut [D] {
        &mut self.devices
    }

    /// Runs `f` on device `i` (an input), then enters its next event.
    pub(crate) fn with_device<R>(&mut self, i: usize, f: impl FnOnce(&mut D) -> R) -> R {
        let r = f(&mut self.devices[i]);
        self.enter(i);
        r
    }

    /// Schedules one of the driver's events.
    pub(crate) fn schedule(&mut self, at: Nanos, event: E) {
        self.events.schedule(at, Slot::Driver(event));
    }

    /// Enters device `i`'s next event time if it changed.
    #[inline]
    fn enter(&mut self, i: usize) {
        let t = self.devices[i].next_event_time();
        if t != self.entered[i] {
            if let Some(t) = t {
                self.events.schedule(t, Slot::Device(i as u32));
            }
            self.entered[i] = t;
        }
    }

    /// Runs until the driver stops or nothing is left to happen.
    pub(crate) fn run<Dr: Driver<D, Event = E>>(
        &mut self,
        driver: &mut Dr,
    ) -> Result<Dr::Output, Dr::Error> {
        while let Some((now, slot)) = self.events.pop() {
            let flow = match slot {
                Slot::Driver(e) => driver.on_event(self, now, e)?,
                Slot::Device(i) => {
                    let i = i as usize;
                    // A stale entry: the device's next event moved.
                    if self.devices[i].next_event_time() != Some(now) {
                        continue;
                    }
                    self.devices[i].advance(now)?;
                    self.enter(i);
                    let mut flow = Flow::Continue;
                    while let Some(o) = self.devices[i].poll() {
                        flow = driver.on_outcome(self, now, i, o)?;
                        if flow == Flow::Stop {
                            break;
                        }
                    }
                    flow
                }
            };
            if flow == Flow::Stop {
                return driver.finish(self, true);
            }
        }
        driver.finish(self, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(30, 'c');
        q.schedule(10, 'a');
        q.schedule(30, 'd');
        q.schedule(10, 'b');
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, [(10, 'a'), (10, 'b'), (30, 'c'), (30, 'd')]);
    }
}
