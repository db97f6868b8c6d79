//! The discrete-event core: a queue of timed events in integer nanoseconds.
//!
//! Events at the same instant come out in the order they were scheduled, so a
//! run never depends on how a heap happens to break ties.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sched_core::Nanos;

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
pub struct EventQueue<E> {
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
    pub fn new() -> Self {
        Self::default()
    }

    /// The time of the last event taken.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Schedules `event` at `at` (never before the current time).
    pub fn schedule(&mut self, at: Nanos, event: E) {
        debug_assert!(at >= self.now, "events cannot be scheduled in the past");
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Reverse(Entry { at, seq, event }));
    }

    /// Takes the earliest event and advances the clock to it.
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        let Reverse(e) = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.event))
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
        assert_eq!(q.now(), 30);
    }
}
