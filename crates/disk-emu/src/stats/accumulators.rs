//! The statistics of one queue: its time-averaged length and what arrivals find.

use sched_core::Nanos;
use serde::{Deserialize, Serialize};

use super::moments::MomentsReport;
use super::tally::{Sums, Tally};

/// Arrivals that found this many or more present share the last entry of the
/// found-by-arrivals distribution.
pub const FOUND_BINS: usize = 32;

/// The first number found that the last bin pools.
const POOLED_FROM: usize = FOUND_BINS - 1;

/// One queue (or any population: the requests in a system, a common queue of
/// a mirrored pair): its length over time and as arriving requests find it.
///
/// The two views differ in general (they agree for Poisson arrivals, by
/// PASTA), and queueing papers use both: the time average enters Little's
/// law, the arrival view determines what an arriving request waits behind.
///
/// The time integral of the length is not accrued at every change: each
/// member present counts from its entry (its arrival, or the window's
/// start for one already there) to its departure or the end of the window,
/// so the integral is Σ departures + n·end − Σ entries, with n the number
/// present at the end. Two exact sums of times replace a multiplication
/// and an addition of the area at every change, and the integral is the
/// same integer (times must not go backwards: [`DiskStats`] hands its own
/// clock, never earlier than an event already seen).
///
/// [`DiskStats`]: super::DiskStats
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueAccumulator {
    /// Number present now.
    len: u64,
    /// Largest number present since the window opened.
    max: u64,
    /// When the window opened.
    start: Nanos,
    /// Σ of the members' entry times (the window's start for those present
    /// when it opened).
    entered: u128,
    /// Σ of the departure times in the window.
    left: u128,
    /// Arrivals by the number they found, the last bin pooling every
    /// number from `POOLED_FROM` up. With the pooled numbers' sums beside
    /// it, this is the exact tally of what arrivals found, at one increment
    /// an arrival while queues stay shorter than the last bin.
    found_bins: [u64; FOUND_BINS],
    /// The numbers the last bin pooled.
    found_pooled: Sums,
}

impl QueueAccumulator {
    /// An empty queue observed from `start`.
    pub const fn new(start: Nanos) -> Self {
        QueueAccumulator {
            len: 0,
            max: 0,
            start,
            entered: 0,
            left: 0,
            found_bins: [0; FOUND_BINS],
            found_pooled: Sums::new(),
        }
    }

    /// A request joins at `now`; what it found (not counting itself) is
    /// recorded first. Times must not go backwards.
    #[inline]
    pub fn arrive(&mut self, now: Nanos) {
        let found = self.len;
        match usize::try_from(found) {
            Ok(bin) if bin < POOLED_FROM => self.found_bins[bin] += 1,
            _ => {
                self.found_bins[POOLED_FROM] += 1;
                self.found_pooled.add(found);
            }
        }
        self.len = found + 1;
        self.max = self.max.max(self.len);
        self.entered += u128::from(now);
    }

    /// A request leaves at `now`. Leaving an empty queue is a driver bug; it
    /// is caught in debug builds and ignored otherwise.
    #[inline]
    pub fn depart(&mut self, now: Nanos) {
        debug_assert!(self.len > 0, "departure from an empty queue at {now}");
        if self.len > 0 {
            self.len -= 1;
            self.left += u128::from(now);
        }
    }

    /// Number present now.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nobody is present.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest number present at any instant of the window (including
    /// the number present when it opened).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// ∫ length dt from the window's start to `until` (no earlier than the
    /// last change), in requests × nanoseconds.
    pub fn integral(&self, until: Nanos) -> u128 {
        (self.left + u128::from(self.len) * u128::from(until)).saturating_sub(self.entered)
    }

    /// Time-average length from the window's start to `until` (no earlier
    /// than the last change). Over an empty window it is the current
    /// length, the limit of the average as the window shrinks.
    pub fn time_mean(&self, until: Nanos) -> f64 {
        if until <= self.start {
            return self.len as f64;
        }
        self.integral(until) as f64 / (until - self.start) as f64
    }

    /// Numbers found by arrivals: the tally [`Tally::add_unsigned`] builds
    /// from them one by one.
    pub fn found(&self) -> Tally {
        let (exact, pooled) = self.found_bins.split_at(POOLED_FROM);
        let count: u64 = exact.iter().sum();
        let mut found = match (
            exact.iter().position(|&c| c > 0),
            exact.iter().rposition(|&c| c > 0),
        ) {
            (Some(min), Some(max)) => {
                let (mut sum, mut sum_sq) = (0u128, 0u128);
                for (n, &c) in (0u128..).zip(exact) {
                    sum += n * u128::from(c);
                    sum_sq += n * n * u128::from(c);
                }
                Tally::from_parts(count, sum as i128, sum_sq, min as i64, max as i64)
            }
            _ => Tally::new(),
        };
        found.merge(&self.found_pooled.tally(pooled[0]));
        found
    }

    /// Forgets the past; observation restarts at `now` (no earlier than the
    /// last change) with those present, who count from `now`.
    pub fn reset(&mut self, now: Nanos) {
        *self = QueueAccumulator {
            len: self.len,
            max: self.len,
            start: now,
            entered: u128::from(self.len) * u128::from(now),
            ..QueueAccumulator::new(now)
        };
    }

    /// Plain numbers for a report, over the window ending at `until` (no
    /// earlier than the last change).
    pub fn report(&self, until: Nanos) -> QueueReport {
        let found = self.found();
        let arrivals = found.count();
        let used = self
            .found_bins
            .iter()
            .rposition(|&c| c > 0)
            .map_or(0, |i| i + 1);
        QueueReport {
            time_mean: self.time_mean(until),
            max: self.max,
            found: found.report(),
            found_distribution: self.found_bins[..used]
                .iter()
                .map(|&c| c as f64 / arrivals as f64)
                .collect(),
        }
    }
}

/// A queue's length, over time and as seen by arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueueReport {
    /// Time-average number present over the window.
    pub time_mean: f64,
    /// Largest number present at any instant of the window (including the
    /// number present when the window opened).
    pub max: u64,
    /// Number found present by each arrival (mean, deviation, range).
    pub found: MomentsReport,
    /// Entry k: fraction of arrivals that found k present, up to the largest k
    /// seen; the entry at index [`FOUND_BINS`] − 1, if present, counts every
    /// arrival that found that many or more.
    pub found_distribution: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::TimeWeighted;

    #[test]
    fn queue_time_average_and_arrival_view() {
        // Arrivals at 0, 1, 2, 10; departures at 4, 6, 12, 13; window to 20.
        // Length: 1 [0,1) 2 [1,2) 3 [2,4) 2 [4,6) 1 [6,10) 2 [10,12) 1 [12,13).
        // Integral: 1 + 2 + 6 + 4 + 4 + 4 + 1 = 22. Found: 0, 1, 2, 1.
        let mut q = QueueAccumulator::new(0);
        q.arrive(0);
        q.arrive(1);
        q.arrive(2);
        q.depart(4);
        q.depart(6);
        q.arrive(10);
        q.depart(12);
        q.depart(13);
        assert!(q.is_empty());
        let r = q.report(20);
        assert_eq!(r.time_mean, 22.0 / 20.0);
        assert_eq!(r.max, 3);
        assert_eq!(r.found.count, 4);
        assert_eq!(r.found.mean, 1.0);
        assert_eq!(r.found.max, 2.0);
        assert_eq!(r.found_distribution, vec![0.25, 0.5, 0.25]);
    }

    /// What arrivals found, kept in bins and pooled sums, is the tally of
    /// the numbers added one by one, short and long queues alike.
    #[test]
    fn found_by_arrivals_is_the_tally_of_each_number_found() {
        let mut q = QueueAccumulator::new(0);
        let mut one_by_one = Tally::new();
        assert_eq!(q.found(), one_by_one);
        let mut rng = crate::random::Stream::numbered(3);
        for t in 0..5_000 {
            // Drifts up past the pooled bin and back down to empty.
            let arrive = if t < 2_500 { 3 } else { 2 };
            if q.is_empty() || rng.below(5) < arrive {
                one_by_one.add_unsigned(q.len());
                q.arrive(t);
            } else {
                q.depart(t);
            }
        }
        assert!(q.max() > FOUND_BINS as u64 * 2);
        assert_eq!(q.found(), one_by_one);
    }

    /// The integral from the sums of entry and departure times is the area
    /// a time-weighted signal accrues change by change, across resets.
    #[test]
    fn integral_from_entries_and_departures_is_the_accrued_area() {
        let mut rng = crate::random::Stream::numbered(5);
        let mut q = QueueAccumulator::new(100);
        let mut area = TimeWeighted::new(100, 0);
        let mut now = 100;
        for step in 0..20_000 {
            now += rng.below(3) * rng.below(1_000);
            if q.is_empty() || rng.below(2) == 0 {
                q.arrive(now);
            } else {
                q.depart(now);
            }
            area.set(now, q.len());
            if step % 5_000 == 4_999 {
                q.reset(now);
                area.reset(now);
            }
            let until = now + rng.below(100);
            assert_eq!(q.integral(until), area.integral(until));
            assert_eq!(q.time_mean(until).to_bits(), area.mean(until).to_bits());
            assert_eq!(q.max(), area.max());
        }
        assert!(q.max() > 10);
    }

    #[test]
    fn long_queues_pool_in_the_last_found_bin() {
        let mut q = QueueAccumulator::new(0);
        for t in 0..40 {
            q.arrive(t);
        }
        let r = q.report(40);
        assert_eq!(r.found_distribution.len(), FOUND_BINS);
        assert_eq!(r.found_distribution[FOUND_BINS - 1], 9.0 / 40.0);
        assert_eq!(r.found.max, 39.0);
        assert_eq!(r.max, 40);
    }
}
