//! Reusable building blocks for per-class and per-queue statistics, and a
//! labelled fixed set of them.

use sched_core::Nanos;
use serde::Serialize;

use super::moments::{Moments, MomentsReport};
use super::time_weighted::TimeWeighted;

/// Response and waiting times of one class of requests (reads, updates,
/// a priority level), mean and deviation only: 80 bytes, so a device can keep
/// one per class without thinking about memory.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResponseAccumulator {
    response: Moments,
    waiting: Moments,
}

impl ResponseAccumulator {
    /// Nothing recorded yet.
    pub const fn new() -> Self {
        ResponseAccumulator {
            response: Moments::new(),
            waiting: Moments::new(),
        }
    }

    /// One request finished after `response` ns in the system, `waiting` of
    /// them before its service began. Taking durations rather than instants
    /// lets a logical request spanning several disks report its own notion of
    /// both (a mirrored update completes with its slower copy).
    pub fn record(&mut self, response: Nanos, waiting: Nanos) {
        self.response.add(response as f64);
        self.waiting.add(waiting as f64);
    }

    /// Folds in another accumulator.
    pub fn merge(&mut self, other: &ResponseAccumulator) {
        self.response.merge(&other.response);
        self.waiting.merge(&other.waiting);
    }

    /// Number of requests recorded.
    pub fn count(&self) -> u64 {
        self.response.count()
    }

    /// Response times.
    pub fn response(&self) -> &Moments {
        &self.response
    }

    /// Waiting times.
    pub fn waiting(&self) -> &Moments {
        &self.waiting
    }

    /// Plain numbers for a report.
    pub fn report(&self) -> ResponseReport {
        ResponseReport {
            response: self.response.report(),
            waiting: self.waiting.report(),
        }
    }
}

/// Response and waiting times of one class, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ResponseReport {
    /// Time from arrival to completion.
    pub response: MomentsReport,
    /// Time from arrival to the start of service.
    pub waiting: MomentsReport,
}

/// Arrivals that found this many or more present share the last entry of the
/// found-by-arrivals distribution.
pub const FOUND_BINS: usize = 32;

/// One queue (or any population: the requests in a system, a common queue of
/// a mirrored pair): its length over time and as arriving requests find it.
///
/// The two views differ in general (they agree for Poisson arrivals, by
/// PASTA), and queueing papers use both: the time average enters Little's
/// law, the arrival view determines what an arriving request waits behind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueAccumulator {
    length: TimeWeighted,
    found: Moments,
    found_bins: [u64; FOUND_BINS],
}

impl QueueAccumulator {
    /// An empty queue observed from `start`.
    pub const fn new(start: Nanos) -> Self {
        QueueAccumulator {
            length: TimeWeighted::new(start, 0),
            found: Moments::new(),
            found_bins: [0; FOUND_BINS],
        }
    }

    /// A request joins at `now`; what it found (not counting itself) is
    /// recorded first.
    pub fn arrive(&mut self, now: Nanos) {
        let found = self.length.value();
        self.found.add(found as f64);
        self.found_bins[(found as usize).min(FOUND_BINS - 1)] += 1;
        self.length.set(now, found + 1);
    }

    /// A request leaves at `now`. Leaving an empty queue is a driver bug; it
    /// is caught in debug builds and ignored otherwise.
    pub fn depart(&mut self, now: Nanos) {
        let len = self.length.value();
        debug_assert!(len > 0, "departure from an empty queue at {now}");
        self.length.set(now, len.saturating_sub(1));
    }

    /// Number present now.
    pub fn len(&self) -> u64 {
        self.length.value()
    }

    /// Whether nobody is present.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The length over time.
    pub fn length(&self) -> &TimeWeighted {
        &self.length
    }

    /// Numbers found by arrivals.
    pub fn found(&self) -> &Moments {
        &self.found
    }

    /// Forgets the past; observation restarts at `now` with those present.
    pub fn reset(&mut self, now: Nanos) {
        self.length.reset(now);
        self.found = Moments::new();
        self.found_bins = [0; FOUND_BINS];
    }

    /// Plain numbers for a report, over the window ending at `until`.
    pub fn report(&self, until: Nanos) -> QueueReport {
        let arrivals = self.found.count();
        let used = self
            .found_bins
            .iter()
            .rposition(|&c| c > 0)
            .map_or(0, |i| i + 1);
        QueueReport {
            time_mean: self.length.mean(until),
            max: self.length.max(),
            found: self.found.report(),
            found_distribution: self.found_bins[..used]
                .iter()
                .map(|&c| c as f64 / arrivals as f64)
                .collect(),
        }
    }
}

/// A queue's length, over time and as seen by arrivals.
#[derive(Clone, Debug, PartialEq, Serialize)]
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

/// A fixed set of `N` accumulators, each with a label: the per-queue
/// statistics of a mirrored pair ("common", "disk 1", "disk 2",
/// "auxiliary"), response times of reads and updates, numbered classes.
/// Labels are `&'static str` so that the set stays `Copy` and owns no heap
/// memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Labelled<T, const N: usize> {
    labels: [&'static str; N],
    items: [T; N],
}

impl<T, const N: usize> Labelled<T, N> {
    /// One accumulator per label, the i-th made by `make(i)`.
    pub fn new(labels: [&'static str; N], make: impl FnMut(usize) -> T) -> Self {
        Labelled {
            labels,
            items: core::array::from_fn(make),
        }
    }

    /// The i-th accumulator.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.items.get(i)
    }

    /// The i-th accumulator, to update.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.items.get_mut(i)
    }

    /// The first accumulator labelled `label`.
    pub fn find(&self, label: &str) -> Option<&T> {
        self.labels
            .iter()
            .position(|&l| l == label)
            .map(|i| &self.items[i])
    }

    /// The first accumulator labelled `label`, to update.
    pub fn find_mut(&mut self, label: &str) -> Option<&mut T> {
        self.labels
            .iter()
            .position(|&l| l == label)
            .map(move |i| &mut self.items[i])
    }

    /// The i-th label.
    pub fn label(&self, i: usize) -> Option<&'static str> {
        self.labels.get(i).copied()
    }

    /// Renames the i-th accumulator; false if there is none.
    pub fn set_label(&mut self, i: usize, label: &'static str) -> bool {
        match self.labels.get_mut(i) {
            Some(l) => {
                *l = label;
                true
            }
            None => false,
        }
    }

    /// Labels and accumulators, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &T)> {
        self.labels.iter().copied().zip(self.items.iter())
    }

    /// Labels and accumulators, in order, to update (a warm-up reset of all).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&'static str, &mut T)> {
        self.labels.iter().copied().zip(self.items.iter_mut())
    }

    /// One labelled report per accumulator, made by `report`.
    pub fn reports<R>(&self, mut report: impl FnMut(&T) -> R) -> Vec<Named<R>> {
        self.iter()
            .map(|(name, item)| Named {
                name: name.to_string(),
                report: report(item),
            })
            .collect()
    }
}

/// A report with the label of what it describes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Named<R> {
    /// The label: a class number or name, a queue name.
    pub name: String,
    /// The statistics.
    pub report: R,
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn labelled_sets_find_update_and_report() {
        let mut queues = Labelled::new(["common", "disk 1", "disk 2", "auxiliary"], |_| {
            QueueAccumulator::new(0)
        });
        queues.find_mut("common").unwrap().arrive(0);
        queues.find_mut("disk 2").unwrap().arrive(5);
        queues.get_mut(0).unwrap().depart(10);
        assert!(queues.find("nowhere").is_none());
        let reports = queues.reports(|q| q.report(20));
        let names: Vec<&str> = reports.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["common", "disk 1", "disk 2", "auxiliary"]);
        assert_eq!(reports[0].report.time_mean, 0.5);
        assert_eq!(reports[2].report.time_mean, 0.75);
        assert_eq!(reports[1].report.found.count, 0);

        let mut kinds = Labelled::new(["read", "update"], |_| ResponseAccumulator::new());
        kinds.find_mut("read").unwrap().record(10, 2);
        kinds.find_mut("read").unwrap().record(30, 6);
        kinds.find_mut("update").unwrap().record(50, 0);
        assert!(kinds.set_label(1, "write"));
        assert!(!kinds.set_label(2, "nothing"));
        let read = kinds.find("read").unwrap().report();
        assert_eq!((read.response.mean, read.waiting.mean), (20.0, 4.0));
        assert_eq!(kinds.find("write").unwrap().count(), 1);
        let mut all = ResponseAccumulator::new();
        kinds.iter().for_each(|(_, k)| all.merge(k));
        assert_eq!(all.response().mean(), Some(30.0));
        let json = serde_json::to_string(&kinds.reports(ResponseAccumulator::report)).unwrap();
        assert!(
            json.starts_with(r#"[{"name":"read","report":{"response":{"count":2,"mean":20.0"#),
            "{json}"
        );
    }
}
