//! Statistics of the requests served: per second and over the whole run.

use std::time::{Duration, Instant};

use disk_emu::Distribution;
use serde::Serialize;

/// One window of completions.
#[derive(Clone, Debug)]
struct Window {
    from: Instant,
    completions: u64,
    errors: u64,
    /// Server-side latency: from the request's arrival to its completion
    /// being handed to its connection, ns.
    latency: Box<Distribution>,
    /// How long after the model's completion time (mapped to the wall
    /// clock) the completion was handed over, ns.
    lateness: Box<Distribution>,
    /// Requests held × ns, since `from`.
    depth_area: u128,
    /// Completions the device timed, and the sums of their response and
    /// service times in the model's time, ns.
    modelled: u64,
    model_response: u128,
    model_service: u128,
}

impl Window {
    fn new(from: Instant) -> Self {
        Window {
            from,
            completions: 0,
            errors: 0,
            latency: Box::default(),
            lateness: Box::default(),
            depth_area: 0,
            modelled: 0,
            model_response: 0,
            model_service: 0,
        }
    }

    /// The window from its start to `to`, the requests held since the
    /// last change of depth adding `unsettled` to its area.
    fn report(&self, start: Instant, to: Instant, unsettled: u128, held: usize) -> Report {
        let span = to.saturating_duration_since(self.from);
        let secs = span.as_secs_f64();
        let ms = |ns: Option<f64>| ns.map(|v| v / 1e6);
        Report {
            at_s: self.from.saturating_duration_since(start).as_secs_f64(),
            seconds: secs,
            completions: self.completions,
            errors: self.errors,
            iops: if secs > 0.0 {
                self.completions as f64 / secs
            } else {
                0.0
            },
            mean_latency_ms: ms(self.latency.moments().mean()),
            p99_latency_ms: ms(self.latency.quantile(0.99)),
            mean_queue_depth: (span > Duration::ZERO)
                .then(|| (self.depth_area + unsettled) as f64 / span.as_nanos() as f64),
            mean_lateness_ms: ms(self.lateness.moments().mean()),
            p99_lateness_ms: ms(self.lateness.quantile(0.99)),
            held,
            modelled: self.modelled,
            mean_model_response_ms: (self.modelled > 0)
                .then(|| self.model_response as f64 / self.modelled as f64 / 1e6),
            mean_model_service_ms: (self.modelled > 0)
                .then(|| self.model_service as f64 / self.modelled as f64 / 1e6),
        }
    }
}

/// What a window showed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Start of the window, seconds since the server started.
    pub at_s: f64,
    /// Its length, s.
    pub seconds: f64,
    /// Requests completed (successfully or not).
    pub completions: u64,
    /// Of which with an error reply.
    pub errors: u64,
    /// Completions per second.
    pub iops: f64,
    /// Mean server-side latency, ms.
    pub mean_latency_ms: Option<f64>,
    /// Its 99th percentile, ms.
    pub p99_latency_ms: Option<f64>,
    /// Mean requests held (queued, in service, or waiting for the device's
    /// queue to take them), weighted by time: as iostat's `aqu-sz`.
    pub mean_queue_depth: Option<f64>,
    /// Mean lateness of completions against the model's time, ms.
    pub mean_lateness_ms: Option<f64>,
    /// Its 99th percentile, ms.
    pub p99_lateness_ms: Option<f64>,
    /// Requests held (queued, in service, waiting for the device's queue)
    /// when the window closed: for the whole run, now.
    pub held: usize,
    /// Completions the emulated device timed (reads and writes served).
    pub modelled: u64,
    /// Their mean response time in the model's time (queueing and
    /// service, from submission to completion), ms: what the emulated
    /// disk says, whatever the machine's load.
    pub mean_model_response_ms: Option<f64>,
    /// Their mean service time in the model's time, ms.
    pub mean_model_service_ms: Option<f64>,
}

/// Per-second and whole-run statistics.
#[derive(Clone, Debug)]
pub struct Stats {
    start: Instant,
    second: Window,
    total: Window,
    seconds: Vec<Report>,
    /// Requests held now, and since when.
    depth: usize,
    depth_since: Instant,
}

/// Everything measured, for the file written on exit.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Every whole second.
    pub seconds: Vec<Report>,
    /// The whole run.
    pub total: Report,
}

impl Stats {
    /// Empty, starting now.
    pub fn new() -> Self {
        let now = Instant::now();
        Stats {
            start: now,
            second: Window::new(now),
            total: Window::new(now),
            seconds: Vec::new(),
            depth: 0,
            depth_since: now,
        }
    }

    /// A request finished at `now`: its latency and lateness, and whether it failed.
    pub fn complete(&mut self, latency: Duration, lateness: Duration, error: bool) {
        for w in [&mut self.second, &mut self.total] {
            w.completions += 1;
            w.errors += u64::from(error);
            w.latency.record(latency.as_nanos() as u64);
            w.lateness.record(lateness.as_nanos() as u64);
        }
    }

    /// The device completed a request `response` ns after its submission,
    /// `service` ns of it in service, in the model's time.
    pub fn modelled(&mut self, response: u64, service: u64) {
        for w in [&mut self.second, &mut self.total] {
            w.modelled += 1;
            w.model_response += u128::from(response);
            w.model_service += u128::from(service);
        }
    }

    /// The server holds `depth` requests from now on (call on every
    /// change).
    pub fn depth(&mut self, depth: usize) {
        self.depth_at(Instant::now(), depth);
    }

    fn depth_at(&mut self, now: Instant, depth: usize) {
        self.settle(now);
        self.depth = depth;
    }

    /// Requests × time since the last change of depth, up to `now`.
    fn unsettled(&self, now: Instant) -> u128 {
        self.depth as u128 * now.saturating_duration_since(self.depth_since).as_nanos()
    }

    /// Adds the requests held since the last change to both windows.
    fn settle(&mut self, now: Instant) {
        let area = self.unsettled(now);
        for w in [&mut self.second, &mut self.total] {
            w.depth_area += area;
        }
        self.depth_since = self.depth_since.max(now);
    }

    /// Closes the current second if it is over; returns its report.
    pub fn tick(&mut self, now: Instant) -> Option<Report> {
        if now.saturating_duration_since(self.second.from) < Duration::from_secs(1) {
            return None;
        }
        self.settle(now);
        let report = self.second.report(self.start, now, 0, self.depth);
        self.seconds.push(report);
        self.second = Window::new(now);
        Some(report)
    }

    /// The whole run so far.
    pub fn total(&self) -> Report {
        self.total_at(Instant::now())
    }

    fn total_at(&self, now: Instant) -> Report {
        self.total
            .report(self.start, now, self.unsettled(now), self.depth)
    }

    /// Every second so far and the total.
    pub fn summary(&self) -> Summary {
        Summary {
            seconds: self.seconds.clone(),
            total: self.total(),
        }
    }
}

impl Default for Stats {
    fn default() -> Self {
        Stats::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_depth_is_weighted_by_time() {
        let mut stats = Stats::new();
        let s = |secs: u64| stats.start + Duration::from_secs(secs);
        let (one, two, four) = (s(1), s(2), s(4));
        // None for a second, 3 for a second, 1 for two seconds: 5 / 4.
        stats.depth_at(one, 3);
        stats.depth_at(two, 1);
        let depth = stats.total_at(four).mean_queue_depth.unwrap();
        assert!((depth - 1.25).abs() < 1e-9, "{depth}");
        // The second closed at 2 s held 3 requests over its last half.
        let second = stats.tick(two).unwrap();
        assert!((second.mean_queue_depth.unwrap() - 1.5).abs() < 1e-3);
    }
}
