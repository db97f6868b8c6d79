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
    depth_sum: u64,
    depth_samples: u64,
}

impl Window {
    fn new(from: Instant) -> Self {
        Window {
            from,
            completions: 0,
            errors: 0,
            latency: Box::default(),
            lateness: Box::default(),
            depth_sum: 0,
            depth_samples: 0,
        }
    }

    fn report(&self, start: Instant, to: Instant) -> Report {
        let secs = to.saturating_duration_since(self.from).as_secs_f64();
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
            mean_queue_depth: (self.depth_samples > 0)
                .then(|| self.depth_sum as f64 / self.depth_samples as f64),
            mean_lateness_ms: ms(self.lateness.moments().mean()),
            p99_lateness_ms: ms(self.lateness.quantile(0.99)),
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
    /// Mean requests in the device (queued or in service), sampled at each
    /// arrival and completion.
    pub mean_queue_depth: Option<f64>,
    /// Mean lateness of completions against the model's time, ms.
    pub mean_lateness_ms: Option<f64>,
    /// Its 99th percentile, ms.
    pub p99_lateness_ms: Option<f64>,
}

/// Per-second and whole-run statistics.
#[derive(Clone, Debug)]
pub struct Stats {
    start: Instant,
    second: Window,
    total: Window,
    seconds: Vec<Report>,
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

    /// The device holds `depth` requests.
    pub fn depth(&mut self, depth: usize) {
        for w in [&mut self.second, &mut self.total] {
            w.depth_sum += depth as u64;
            w.depth_samples += 1;
        }
    }

    /// Closes the current second if it is over; returns its report.
    pub fn tick(&mut self, now: Instant) -> Option<Report> {
        if now.saturating_duration_since(self.second.from) < Duration::from_secs(1) {
            return None;
        }
        let report = self.second.report(self.start, now);
        self.seconds.push(report);
        self.second = Window::new(now);
        Some(report)
    }

    /// The whole run so far.
    pub fn total(&self) -> Report {
        self.total.report(self.start, Instant::now())
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
