//! The statistics recorder of one emulated disk.

use sched_core::Nanos;
use serde::{Deserialize, Serialize};

use super::accumulators::{QueueAccumulator, QueueReport};
use super::class_stats::{ClassReport, ClassStats};
use super::histogram::{Distribution, DistributionReport};
use super::moments::MomentsReport;
use super::tally::{Sums, Tally};
use crate::disk::ServiceBreakdown;

/// When the start-up transient ends and measurement begins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarmUp {
    /// Measure from the start.
    #[default]
    None,
    /// Discard everything before this instant: statistics restart exactly
    /// then, with the requests present at that moment.
    Until(Nanos),
    /// Discard the first n completions: statistics restart at the instant of
    /// the n-th, which is itself discarded.
    Completions(u64),
}

/// One finished service, as the device reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// When the request reached this disk's queue.
    pub arrival: Nanos,
    /// When its service (the seek) began.
    pub start: Nanos,
    /// When its service ended: now.
    pub finish: Nanos,
    /// Where the service time went. Its parts are recorded as given; the
    /// service time itself is taken as `finish − start`.
    pub breakdown: ServiceBreakdown,
    /// Request class (`Request::class`): any number of the caller's
    /// choosing (a client, a transaction type, a real-time task).
    pub class: u16,
    /// The request's absolute deadline, if it had one.
    pub deadline: Option<Nanos>,
}

/// Everything measured on one disk, in constant memory: about 32 KB whatever
/// the number of requests, plus a few hundred bytes per request class seen.
///
/// The device tells it what happens, in time order: [`DiskStats::arrive`]
/// when a request joins the disk's queue, [`DiskStats::start`] when the disk
/// begins serving one, [`DiskStats::complete`] when it finishes, and
/// [`DiskStats::withdraw`] / [`DiskStats::abort`] for requests cancelled
/// while queued / while in service (a mirrored read answered by the other
/// disk), [`DiskStats::expire`] for one a deadline policy dropped.
/// [`DiskStats::finish`] then summarises the measured window.
#[derive(Clone, Debug, PartialEq)]
pub struct DiskStats {
    warm_up: WarmUp,
    warm_up_done: bool,
    window_start: Nanos,
    /// Latest event time, so that a report never ends before it.
    last_event: Nanos,
    /// Completions since the disk was created, warm-up included.
    completed_ever: u64,
    arrivals: u64,
    response: Distribution,
    waiting: Distribution,
    service: Distribution,
    /// The parts of the service times, counted by `response`: each
    /// completion adds one of each.
    seek: Sums,
    rotation: Sums,
    transfer: Sums,
    overhead: Sums,
    seek_distance: Sums,
    /// Requests waiting for service.
    queue: QueueAccumulator,
    /// Requests waiting or in service.
    system: QueueAccumulator,
    /// Time served in the busy periods that ended in the window.
    busy_ns: Nanos,
    /// Start of the busy period under way (the window's start for one
    /// under way when it opened), if busy.
    busy_since: Nanos,
    /// Start of the idle period under way, if idle (busy otherwise).
    idle_since: Option<Nanos>,
    idle_periods: Tally,
    classes: ClassStats,
}

impl DiskStats {
    /// An idle, empty disk observed from `start`, measuring from the start.
    pub fn new(start: Nanos) -> Self {
        DiskStats {
            warm_up: WarmUp::None,
            warm_up_done: true,
            window_start: start,
            last_event: start,
            completed_ever: 0,
            arrivals: 0,
            response: Distribution::new(),
            waiting: Distribution::new(),
            service: Distribution::new(),
            seek: Sums::new(),
            rotation: Sums::new(),
            transfer: Sums::new(),
            overhead: Sums::new(),
            seek_distance: Sums::new(),
            queue: QueueAccumulator::new(start),
            system: QueueAccumulator::new(start),
            busy_ns: 0,
            busy_since: start,
            idle_since: Some(start),
            idle_periods: Tally::new(),
            classes: ClassStats::new(),
        }
    }

    /// The same recorder with a warm-up cut (set it before the first event).
    pub fn with_warm_up(mut self, warm_up: WarmUp) -> Self {
        self.warm_up = warm_up;
        self.warm_up_done = matches!(warm_up, WarmUp::None | WarmUp::Completions(0));
        self
    }

    /// The same recorder with a name for a class in reports ("read",
    /// "update").
    pub fn with_class_label(mut self, class: u16, label: &'static str) -> Self {
        self.classes.set_label(class, label);
        self
    }

    /// Applies a time-based warm-up cut that `now` has reached, then notes
    /// the event time. Events before the cut all happened earlier (time order),
    /// so cutting at the exact instant is exact: nothing changes between the
    /// previous event and the cut. Returns the time the queue lengths and
    /// the busy state change at: `now`, or the latest event already seen if
    /// that is later (so that their integrals never see time run back).
    #[inline]
    fn observe(&mut self, now: Nanos) -> Nanos {
        if !self.warm_up_done {
            self.cut_if_due(now);
        }
        self.last_event = self.last_event.max(now);
        self.last_event
    }

    /// The time-based warm-up cut, if `now` has reached it (out of line:
    /// it happens once a run).
    #[cold]
    fn cut_if_due(&mut self, now: Nanos) {
        if let WarmUp::Until(t) = self.warm_up
            && now >= t
        {
            self.reset(t);
            self.warm_up_done = true;
        }
    }

    /// Discards everything measured so far: the window restarts at `now` with
    /// the requests then present (queue lengths and the busy state carry over,
    /// an idle period under way is measured from `now`). Requests in the
    /// system at `now` are counted when they complete.
    pub fn reset(&mut self, now: Nanos) {
        let now = now.max(self.last_event);
        self.window_start = now;
        self.last_event = now;
        self.arrivals = 0;
        self.response = Distribution::new();
        self.waiting = Distribution::new();
        self.service = Distribution::new();
        self.seek = Sums::new();
        self.rotation = Sums::new();
        self.transfer = Sums::new();
        self.overhead = Sums::new();
        self.seek_distance = Sums::new();
        self.queue.reset(now);
        self.system.reset(now);
        self.busy_ns = 0;
        if self.idle_since.is_some() {
            self.idle_since = Some(now);
        } else {
            self.busy_since = now;
        }
        self.idle_periods = Tally::new();
        self.classes.reset();
    }

    /// A request joins the disk's queue at `now`.
    #[inline]
    pub fn arrive(&mut self, now: Nanos) {
        let at = self.observe(now);
        self.arrivals += 1;
        self.queue.arrive(at);
        self.system.arrive(at);
    }

    /// The disk starts serving a queued request at `now`.
    #[inline]
    pub fn start(&mut self, now: Nanos) {
        let at = self.observe(now);
        self.queue.depart(at);
        if let Some(since) = self.idle_since.take() {
            self.busy_since = at;
            // A completion followed by a start at the same instant leaves
            // the disk idle for no time at all: that is not an idle period.
            if now > since {
                self.idle_periods.add_unsigned(now - since);
            }
        }
    }

    /// A service ends (at `done.finish`) and the request leaves.
    #[inline]
    pub fn complete(&mut self, done: Completion) {
        let now = done.finish;
        let at = self.observe(now);
        self.system.depart(at);
        self.end_service(at);
        let response = now.saturating_sub(done.arrival);
        let waiting = done.start.saturating_sub(done.arrival);
        self.classes.complete_sharing(
            done.class,
            done.arrival,
            done.start,
            now,
            done.deadline,
            (&self.response, &self.waiting),
        );
        self.response.record(response);
        self.waiting.record(waiting);
        self.service.record(now.saturating_sub(done.start));
        let b = &done.breakdown;
        self.seek.add(b.seek);
        self.rotation.add(b.rotation);
        self.transfer.add(b.transfer);
        self.overhead.add(b.overhead);
        self.seek_distance.add(u64::from(b.seek_distance));
        self.completed_ever += 1;
        if let (false, WarmUp::Completions(n)) = (self.warm_up_done, self.warm_up)
            && self.completed_ever >= n
        {
            self.reset(now);
            self.warm_up_done = true;
        }
    }

    /// A queued request leaves at `now` without being served (cancelled).
    pub fn withdraw(&mut self, now: Nanos) {
        let at = self.observe(now);
        self.queue.depart(at);
        self.system.depart(at);
    }

    /// A queued request of `class` leaves at `now` unserved because its
    /// deadline passed (a deadline miss).
    pub fn expire(&mut self, now: Nanos, class: u16) {
        self.withdraw(now);
        self.classes.drop_expired(class);
    }

    /// The request in service is cancelled at `now`: the disk was busy until
    /// then, but nothing completed.
    pub fn abort(&mut self, now: Nanos) {
        let at = self.observe(now);
        self.system.depart(at);
        self.end_service(at);
    }

    /// Marks the disk idle if nothing is left in service, ending the busy
    /// period under way.
    #[inline]
    fn end_service(&mut self, at: Nanos) {
        if self.in_service() == 0 {
            if self.idle_since.is_none() {
                self.busy_ns += at - self.busy_since;
            }
            self.idle_since = Some(at);
        }
    }

    /// Time served in the window up to `end` (no earlier than the last
    /// event).
    fn busy_until(&self, end: Nanos) -> Nanos {
        match self.idle_since {
            Some(_) => self.busy_ns,
            None => self.busy_ns + (end - self.busy_since),
        }
    }

    /// Requests waiting for service now.
    pub fn queued(&self) -> u64 {
        self.queue.len()
    }

    /// Requests in service now (0 or 1 for a disk).
    pub fn in_service(&self) -> u64 {
        self.system.len().saturating_sub(self.queue.len())
    }

    /// Completions counted in the current window.
    pub fn completions(&self) -> u64 {
        self.response.count()
    }

    /// Response times (arrival → completion) in the window, to merge across
    /// disks.
    pub fn response(&self) -> &Distribution {
        &self.response
    }

    /// Waiting times (arrival → start of service) in the window.
    pub fn waiting(&self) -> &Distribution {
        &self.waiting
    }

    /// Service times (start → completion) in the window.
    pub fn service(&self) -> &Distribution {
        &self.service
    }

    /// Summarises the window from the last reset (or the warm-up cut) to
    /// `end` (or the last event, if later). Applies a time-based warm-up cut
    /// that `end` has reached; otherwise leaves the recorder as it was, so it
    /// may be called for progress reports.
    pub fn finish(&mut self, end: Nanos) -> DiskReport {
        self.observe(end);
        let end = self.last_event;
        let elapsed = end - self.window_start;
        let busy_ns = self.busy_until(end);
        let per_elapsed = |x: f64| {
            if elapsed == 0 {
                f64::NAN
            } else {
                x / elapsed as f64
            }
        };
        let completions = self.completions();
        DiskReport {
            window_start_ns: self.window_start,
            window_end_ns: end,
            warm_up_done: self.warm_up_done,
            arrivals: self.arrivals,
            completions,
            throughput_per_s: per_elapsed(completions as f64 * 1e9),
            response: self.response.report(),
            waiting: self.waiting.report(),
            service: self.service.report(),
            breakdown: BreakdownReport {
                seek: self.seek.tally(completions).report(),
                rotation: self.rotation.tally(completions).report(),
                transfer: self.transfer.tally(completions).report(),
                overhead: self.overhead.tally(completions).report(),
                seek_distance: self.seek_distance.tally(completions).report(),
            },
            utilisation: per_elapsed(busy_ns as f64),
            busy_ns,
            idle_ns: elapsed - busy_ns,
            idle_periods: self.idle_periods.report(),
            queue: self.queue.report(end),
            system: self.system.report(end),
            classes: self.classes.report_sharing(&self.response, &self.waiting),
        }
    }
}

/// Where service time went, over the requests completed in the window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakdownReport {
    /// Seek time, ns.
    pub seek: MomentsReport,
    /// Rotational latency, ns.
    pub rotation: MomentsReport,
    /// Media transfer time, ns.
    pub transfer: MomentsReport,
    /// Controller and bus overhead, ns.
    pub overhead: MomentsReport,
    /// Seek distance, cylinders.
    pub seek_distance: MomentsReport,
}

/// The statistics of one disk over its measured window. Times are in
/// nanoseconds. Requests are counted when they complete inside the window,
/// even if they arrived before it. Undefined numbers (the mean of nothing,
/// a rate over an empty window) are NaN, written as `null` by `serde_json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskReport {
    /// Start of the window: the creation time, or the warm-up cut.
    pub window_start_ns: Nanos,
    /// End of the window.
    pub window_end_ns: Nanos,
    /// Whether the configured warm-up ended before the window did (always
    /// true without a warm-up). When false, nothing was discarded: the
    /// window covers the whole run, transient included.
    pub warm_up_done: bool,
    /// Requests that joined the queue in the window.
    pub arrivals: u64,
    /// Requests that completed in the window.
    pub completions: u64,
    /// Completions per second of the window.
    pub throughput_per_s: f64,
    /// Response time: arrival → completion.
    pub response: DistributionReport,
    /// Waiting time: arrival → start of service.
    pub waiting: DistributionReport,
    /// Service time: start → completion.
    pub service: DistributionReport,
    /// Parts of the service time and the seek distance.
    pub breakdown: BreakdownReport,
    /// Fraction of the window the disk was serving: `busy_ns / (end − start)`.
    pub utilisation: f64,
    /// Time spent serving.
    pub busy_ns: Nanos,
    /// Time spent idle: the rest of the window.
    pub idle_ns: Nanos,
    /// Lengths of the idle periods that ended in the window (one still under
    /// way at the end is in `idle_ns` but not here: its length is unknown).
    pub idle_periods: MomentsReport,
    /// Requests waiting for service: time average, maximum, and as found by
    /// arrivals.
    pub queue: QueueReport,
    /// Requests in the system (waiting or in service), likewise.
    pub system: QueueReport,
    /// Response, waiting and deadline figures per class, for classes seen
    /// in the window or labelled, in class order.
    pub classes: Vec<ClassReport>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Stream;

    /// Means are the exact sum over the count, rounded; compared with the
    /// fraction written out, they may differ in the last bit.
    fn assert_close(x: f64, want: f64) {
        assert!((x - want).abs() <= 1e-12 * want.abs(), "{x} vs {want}");
    }

    fn done(arrival: Nanos, start: Nanos, finish: Nanos, class: u16) -> Completion {
        Completion {
            arrival,
            start,
            finish,
            breakdown: ServiceBreakdown {
                seek: (finish - start) / 2,
                rotation: (finish - start) / 4,
                transfer: (finish - start) / 4,
                overhead: 0,
                seek_distance: (finish - start) as u32,
            },
            class,
            deadline: None,
        }
    }

    /// Four requests, times in ns, window [0, 60]:
    ///
    /// | request | class | arrives | starts | finishes | waits | responds |
    /// |---|---|---|---|---|---|---|
    /// | 1 | 0 | 0  | 0  | 10 | 0  | 10 |
    /// | 2 | 1 | 2  | 10 | 25 | 8  | 23 |
    /// | 3 | 0 | 4  | 25 | 30 | 21 | 26 |
    /// | 4 | 1 | 40 | 40 | 50 | 0  | 10 |
    fn small_schedule(stats: &mut DiskStats) {
        stats.arrive(0);
        stats.start(0);
        stats.arrive(2);
        stats.arrive(4);
        stats.complete(done(0, 0, 10, 0));
        stats.start(10);
        stats.complete(done(2, 10, 25, 1));
        stats.start(25);
        stats.complete(done(4, 25, 30, 0));
        stats.arrive(40);
        stats.start(40);
        stats.complete(done(40, 40, 50, 1));
    }

    #[test]
    fn hand_computed_schedule() {
        let mut s = DiskStats::new(0)
            .with_class_label(0, "read")
            .with_class_label(1, "write");
        small_schedule(&mut s);
        assert_eq!((s.queued(), s.in_service(), s.completions()), (0, 0, 4));
        let r = s.finish(60);
        assert_eq!(
            (r.window_start_ns, r.window_end_ns, r.warm_up_done),
            (0, 60, true)
        );
        assert_eq!((r.arrivals, r.completions), (4, 4));
        assert!((r.throughput_per_s - 4.0 / 60e-9).abs() < 1e-3);
        // Responses 10, 23, 26, 10; waits 0, 8, 21, 0; services 10, 15, 5, 10.
        assert_close(r.response.mean, 17.25);
        assert_eq!(
            (
                r.response.min,
                r.response.p50,
                r.response.p90,
                r.response.max
            ),
            (10.0, 10.0, 26.0, 26.0)
        );
        assert_close(r.waiting.mean, 7.25);
        assert_eq!(r.waiting.p95, 21.0);
        assert_close(r.service.mean, 10.0);
        assert_eq!((r.service.min, r.service.max), (5.0, 15.0));
        // Breakdown parts: seek = half the service, so 5, 7, 2, 5.
        assert_close(r.breakdown.seek.mean, 19.0 / 4.0);
        assert_close(r.breakdown.seek_distance.mean, 10.0);
        assert_eq!(r.breakdown.overhead.mean, 0.0);
        // Busy [0, 30) and [40, 50): 40 of 60 ns.
        assert_eq!((r.busy_ns, r.idle_ns), (40, 20));
        assert_eq!(r.utilisation, 40.0 / 60.0);
        // Idle [30, 40) ended; [50, 60) is still under way; the instant at 0
        // between creation and the first start is not an idle period.
        assert_eq!((r.idle_periods.count, r.idle_periods.mean), (1, 10.0));
        // Waiting: 1 on [2, 4), 2 on [4, 10), 1 on [10, 25): 29 / 60.
        assert_eq!(r.queue.time_mean, 29.0 / 60.0);
        assert_eq!(r.queue.max, 2);
        // In system: 1·2 + 2·2 + 3·6 + 2·15 + 1·5 + 1·10 = 69 over 60; Little:
        // 69/60 = (4/60)·17.25.
        assert_eq!(r.system.time_mean, 69.0 / 60.0);
        assert_eq!(r.system.max, 3);
        // Arrivals found 0, 0, 1, 0 waiting and 0, 1, 2, 0 in the system.
        assert_close(r.queue.found.mean, 0.25);
        assert_eq!(r.queue.found_distribution, vec![0.75, 0.25]);
        assert_close(r.system.found.mean, 0.75);
        assert_eq!(r.system.found_distribution, vec![0.5, 0.25, 0.25]);
        // Classes: read = requests 1 and 3, write = 2 and 4.
        assert_eq!(r.classes.len(), 2);
        assert_eq!(r.classes[0].name, "read");
        assert_close(r.classes[0].response.mean, 18.0);
        assert_close(r.classes[0].waiting.mean, 10.5);
        assert_eq!(r.classes[1].name, "write");
        assert_close(r.classes[1].response.mean, 16.5);
        assert_close(r.classes[1].waiting.mean, 4.0);
        // A report is a snapshot: asking again gives the same numbers (compared
        // as JSON, where NaN, the deviation of one idle period, is null).
        let json = |r: &DiskReport| serde_json::to_string(r).unwrap();
        assert_eq!(json(&s.finish(60)), json(&r));
    }

    #[test]
    fn warm_up_until_a_time_cuts_exactly_there() {
        let mut s = DiskStats::new(0).with_warm_up(WarmUp::Until(20));
        small_schedule(&mut s);
        let r = s.finish(60);
        assert_eq!(
            (r.window_start_ns, r.window_end_ns, r.warm_up_done),
            (20, 60, true)
        );
        // At 20: request 3 waiting, request 2 in service. Completed after:
        // 2, 3, 4 (responses 23, 26, 10); only request 4 arrived after.
        assert_eq!((r.arrivals, r.completions), (1, 3));
        assert_close(r.response.mean, 59.0 / 3.0);
        // Waiting 1 on [20, 25): 5 over 40. In system 2 on [20, 25), 1 on
        // [25, 30) and [40, 50): 25 over 40. Busy 20 of 40.
        assert_eq!(r.queue.time_mean, 5.0 / 40.0);
        assert_eq!(r.queue.max, 1);
        assert_eq!(r.system.time_mean, 25.0 / 40.0);
        assert_eq!((r.busy_ns, r.idle_ns, r.utilisation), (20, 20, 0.5));
        assert_eq!((r.idle_periods.count, r.idle_periods.mean), (1, 10.0));
        assert_eq!(r.queue.found_distribution, vec![1.0]);
    }

    #[test]
    fn warm_up_by_completions_discards_the_first_ones() {
        let mut s = DiskStats::new(0).with_warm_up(WarmUp::Completions(1));
        small_schedule(&mut s);
        let r = s.finish(60);
        // Cut at 10, when request 1 completes: 2 and 3 waiting, disk idle for
        // an instant (not an idle period).
        assert_eq!(
            (r.window_start_ns, r.warm_up_done, r.completions),
            (10, true, 3)
        );
        assert_close(r.response.mean, 59.0 / 3.0);
        // Waiting: 2 at 10 (max), 1 on [10, 25): 15 over 50.
        assert_eq!((r.queue.time_mean, r.queue.max), (15.0 / 50.0, 2));
        assert_eq!((r.busy_ns, r.utilisation), (30, 0.6));
        assert_eq!(r.idle_periods.count, 1);
    }

    #[test]
    fn unreached_warm_up_is_reported() {
        let mut s = DiskStats::new(0).with_warm_up(WarmUp::Until(1_000));
        small_schedule(&mut s);
        let r = s.finish(60);
        assert!(!r.warm_up_done);
        assert_eq!((r.window_start_ns, r.completions), (0, 4));
        let mut s = DiskStats::new(0).with_warm_up(WarmUp::Completions(10));
        small_schedule(&mut s);
        assert!(!s.finish(60).warm_up_done);
        // A finish past the cut applies it.
        let mut s = DiskStats::new(0).with_warm_up(WarmUp::Until(55));
        small_schedule(&mut s);
        let r = s.finish(60);
        assert_eq!(
            (r.window_start_ns, r.completions, r.utilisation),
            (55, 0, 0.0)
        );
        assert!(r.response.mean.is_nan());
    }

    #[test]
    fn cancellations_keep_the_books_straight() {
        let mut s = DiskStats::new(100);
        s.arrive(100);
        s.arrive(100);
        s.start(100);
        s.withdraw(110); // the queued copy was served elsewhere
        s.abort(120); // and so was the one in service
        assert_eq!((s.queued(), s.in_service()), (0, 0));
        let r = s.finish(200);
        assert_eq!((r.arrivals, r.completions), (2, 0));
        assert_eq!((r.busy_ns, r.idle_ns), (20, 80));
        // Waiting 1 on [100, 110); in system 2 on [100, 110), 1 on [110, 120).
        assert_eq!(r.queue.time_mean, 0.1);
        assert_eq!(r.system.time_mean, 0.3);
        assert!(r.classes.is_empty());
    }

    #[test]
    fn every_class_keeps_its_own_slot() {
        let mut s = DiskStats::new(0).with_class_label(200, "other");
        for (i, class) in [3u16, 8, 200, u16::MAX].into_iter().enumerate() {
            let t = 10 * i as Nanos;
            s.arrive(t);
            s.start(t);
            s.complete(done(t, t, t + 4, class));
        }
        s.arrive(40);
        s.expire(45, 9);
        let r = s.finish(50);
        let names: Vec<&str> = r.classes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["3", "8", "9", "other", "65535"]);
        assert_eq!(r.classes[3].response.count, 1);
        assert_eq!((r.classes[2].dropped, r.classes[2].missed), (1, 1));
        assert_eq!(r.queue.max, 1);
    }

    #[test]
    fn fcfs_queue_matches_mm1_theory_and_littles_law() {
        // M/M/1 at ρ = 0.5, mean service 1 ms: W = 2 ms, Wq = 1 ms, L = 1,
        // Lq = 0.5, P(idle) = 0.5, and by PASTA arrivals see the time averages.
        let mut arrivals = Stream::numbered(101);
        let mut services = Stream::numbered(103);
        // (time, kind, request): at equal times completions (0) come first,
        // then arrivals (1), then starts (2).
        let mut events = Vec::new();
        let mut served = Vec::new();
        let (mut clock, mut free_at) = (0, 0);
        for i in 0..200_000 {
            clock += arrivals.exponential(2_000_000);
            let start = clock.max(free_at);
            free_at = start + services.exponential(1_000_000);
            served.push(done(clock, start, free_at, 0));
            events.extend([(clock, 1, i), (start, 2, i), (free_at, 0, i)]);
        }
        events.sort_unstable();
        let mut s = DiskStats::new(0).with_warm_up(WarmUp::Until(50_000_000));
        for (t, kind, i) in events {
            match kind {
                0 => s.complete(served[i]),
                1 => s.arrive(t),
                _ => s.start(t),
            }
        }
        let r = s.finish(free_at);
        let near =
            |x: f64, want: f64, tol: f64| assert!((x / want - 1.0).abs() < tol, "{x} vs {want}");
        near(r.response.mean, 2e6, 0.05);
        near(r.waiting.mean, 1e6, 0.08);
        near(r.service.mean, 1e6, 0.02);
        near(r.utilisation, 0.5, 0.02);
        near(r.system.time_mean, 1.0, 0.05);
        near(r.queue.time_mean, 0.5, 0.08);
        near(r.system.found.mean, r.system.time_mean, 0.03);
        near(r.system.found_distribution[0], 0.5, 0.03);
        // Exponential response (rate μ − λ): p90 = 2 ms · ln 10.
        near(r.response.p90, 2e6 * 10f64.ln(), 0.05);
        // Little's law holds exactly up to the requests straddling the ends.
        let elapsed = (r.window_end_ns - r.window_start_ns) as f64;
        near(
            r.system.time_mean,
            r.completions as f64 / elapsed * r.response.mean,
            0.002,
        );
        // Idle periods are exponential with mean 1/λ = 2 ms.
        near(r.idle_periods.mean, 2e6, 0.03);
        near((r.idle_ns as f64) / elapsed, 1.0 - r.utilisation, 1e-12);
    }

    #[test]
    fn memory_is_fixed_whatever_the_number_of_requests() {
        // Apart from the per-class map (one entry per class seen), a recorder
        // is its `size_of`.
        let size = core::mem::size_of::<DiskStats>();
        assert!(size < 64 * 1024, "{size} bytes");
        let mut s = DiskStats::new(0);
        let mut rng = Stream::numbered(303);
        let mut t = 0;
        for _ in 0..10_000_000u64 {
            let service = 1 + rng.below(20_000_000);
            s.arrive(t);
            s.start(t);
            s.complete(done(t, t, t + service, 0));
            t += service;
        }
        let r = s.finish(t);
        assert_eq!(r.completions, 10_000_000);
        assert!(
            (r.response.p50 / 10e6 - 1.0).abs() < 0.01,
            "{}",
            r.response.p50
        );
        assert_eq!(r.utilisation, 1.0);
    }

    #[test]
    fn report_serialises_to_json() {
        let mut s = DiskStats::new(0);
        small_schedule(&mut s);
        let json = serde_json::to_value(s.finish(60)).unwrap();
        assert_close(json["response"]["mean"].as_f64().unwrap(), 17.25);
        assert_eq!(json["system"]["found_distribution"][0], 0.5);
        assert_eq!(json["classes"][1]["name"], "1");
        assert_eq!(json["idle_periods"]["std_dev"], serde_json::Value::Null);
        assert_eq!(json["breakdown"]["seek_distance"]["max"], 15.0);
    }
}
