//! The clock's queue: timed events in integer nanoseconds, earliest first.
//!
//! Events at one instant are taken in [`Rank`] order, and events of one rank
//! in the order they were scheduled, so a run never depends on how a heap
//! happens to break ties. An array device keeps its own timed work here, and
//! the experiments' event loop keeps a driver's events here, stamping each
//! device's next event from the same counter ([`EventQueue::stamp`]) so that
//! the two order against each other by the same rule.

use sched_core::Nanos;

/// Where an event stands among the events of the same instant: lower ranks
/// first. The experiments' event loop gives every device event the rank
/// [`Rank::DEVICES`]; a driver places its own events before, among or after
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl Rank {
    /// Before any device event of the same instant: inputs that must be in
    /// a device's queue when it next decides (a job released as a round
    /// opens).
    pub const BEFORE_DEVICES: Rank = Rank(0);
    /// The devices' own events; a driver event of this rank is taken among
    /// them in the order it was scheduled (the default).
    pub const DEVICES: Rank = Rank(1);
    /// After everything else at the instant (the end of a run).
    pub const LAST: Rank = Rank(u8::MAX);

    /// The `k`-th rank after the devices' events (`k` < 254): the
    /// transaction system's CPU (0) and then its timers (1).
    pub const fn after_devices(k: u8) -> Rank {
        Rank(2 + k)
    }
}

/// The ordering key of an event: time, rank, then the order of scheduling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventKey {
    /// When it is due.
    pub at: Nanos,
    /// Its rank among events due at the same time.
    pub rank: Rank,
    /// Its stamp: the queue's count of events scheduled before it.
    pub seq: u64,
}

/// A pending event: its key, then the payload (which takes no part in the
/// order).
#[derive(Debug)]
struct Entry<E> {
    key: EventKey,
    event: E,
}

/// Timed events, earliest first; simultaneous events by rank, then in the
/// order they were scheduled.
///
/// A binary min-heap on the keys, kept here rather than borrowed from
/// `std::collections::BinaryHeap` so that the common case of a driver with
/// one event pending (the next arrival of an open stream) costs a push and
/// a pop of a vector and nothing more. Keys are unique (each has its own
/// stamp), so the order events come out in does not depend on the heap's
/// shape.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: Vec::new(),
            seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the next stamp, for an event kept outside the queue that must
    /// order against the queue's own (a device's next event in the event
    /// loop).
    #[inline]
    pub fn stamp(&mut self) -> u64 {
        let seq = self.seq;
        self.seq += 1;
        seq
    }

    /// Schedules `event` at `at` among the devices' events
    /// ([`Rank::DEVICES`]); returns its key.
    #[inline]
    pub fn schedule(&mut self, at: Nanos, event: E) -> EventKey {
        self.schedule_ranked(at, Rank::DEVICES, event)
    }

    /// Schedules `event` at `at` with rank `rank`; returns its key.
    #[inline(always)]
    pub fn schedule_ranked(&mut self, at: Nanos, rank: Rank, event: E) -> EventKey {
        let key = EventKey {
            at,
            rank,
            seq: self.stamp(),
        };
        self.heap.push(Entry { key, event });
        self.sift_up(self.heap.len() - 1);
        key
    }

    /// Moves the entry at `i` up to its place.
    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].key <= self.heap[i].key {
                break;
            }
            self.heap.swap(parent, i);
            i = parent;
        }
    }

    /// Moves the entry at the root down to its place (out of line: a
    /// queue of one event never calls it).
    #[inline(never)]
    fn sift_down(&mut self) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= n {
                return;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right].key < self.heap[left].key {
                right
            } else {
                left
            };
            if self.heap[i].key <= self.heap[child].key {
                return;
            }
            self.heap.swap(i, child);
            i = child;
        }
    }

    /// The key of the earliest event.
    #[inline]
    pub fn peek_key(&self) -> Option<EventKey> {
        self.heap.first().map(|e| e.key)
    }

    /// The earliest event, without taking it.
    pub fn peek(&self) -> Option<(Nanos, &E)> {
        self.heap.first().map(|e| (e.key.at, &e.event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<Nanos> {
        self.heap.first().map(|e| e.key.at)
    }

    /// Drops the earliest event (one that has become meaningless).
    pub fn discard_first(&mut self) {
        self.pop();
    }

    /// Takes the earliest event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        let last = self.heap.pop()?;
        let first = if self.heap.is_empty() {
            last
        } else {
            let first = std::mem::replace(&mut self.heap[0], last);
            self.sift_down();
            first
        };
        Some((first.key.at, first.event))
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_rank_then_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(30, 'c');
        q.schedule(10, 'a');
        q.schedule_ranked(30, Rank::after_devices(0), 'e');
        q.schedule(30, 'd');
        q.schedule(10, 'b');
        q.schedule_ranked(30, Rank::BEFORE_DEVICES, 'x');
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            [
                (10, 'a'),
                (10, 'b'),
                (30, 'x'),
                (30, 'c'),
                (30, 'd'),
                (30, 'e')
            ]
        );
    }

    #[test]
    fn stamps_order_outside_entries_with_the_queue() {
        let mut q = EventQueue::new();
        let first = q.schedule(5, ());
        let outside = q.stamp();
        let later = q.schedule(5, ());
        assert!(first.seq < outside && outside < later.seq);
    }

    /// Scheduling and taking interleaved at random, the queue hands events
    /// out in key order: the order a sorted list of the pending keys gives.
    #[test]
    fn interleaved_schedules_and_pops_come_out_in_key_order() {
        let mut rng = crate::random::Stream::numbered(11);
        let mut q = EventQueue::new();
        let mut pending: Vec<(EventKey, u32)> = Vec::new();
        let mut taken = 0;
        for n in 0..20_000u32 {
            if pending.is_empty() || rng.below(5) < 3 {
                let rank = Rank(rng.below(3) as u8);
                let key = q.schedule_ranked(rng.below(50), rank, n);
                pending.push((key, n));
            } else {
                pending.sort_unstable();
                let (key, n) = pending.remove(0);
                assert_eq!(q.peek_key(), Some(key));
                assert_eq!(q.pop(), Some((key.at, n)));
                taken += 1;
            }
            assert_eq!(q.len(), pending.len());
        }
        assert!(taken > 5_000 && q.len() > 100, "{taken} {}", q.len());
    }
}
