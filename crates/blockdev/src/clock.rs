//! The wall clock mapped onto the emulator's virtual time.

use std::time::{Duration, Instant};

use sched_core::Nanos;

/// Virtual nanoseconds = wall nanoseconds since the start × the time scale:
/// a scale of 10 runs the emulated disk ten times as fast as the model
/// says, 0.1 ten times as slow.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    start: Instant,
    scale: f64,
}

impl Clock {
    /// A clock starting now, at `scale` (positive and finite: the caller
    /// checks it).
    pub fn new(scale: f64) -> Self {
        Clock {
            start: Instant::now(),
            scale,
        }
    }

    /// The time scale.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Virtual time at `at`.
    pub fn virtual_at(&self, at: Instant) -> Nanos {
        let wall = at.saturating_duration_since(self.start).as_nanos() as f64;
        (wall * self.scale) as Nanos
    }

    /// Virtual time now.
    pub fn now(&self) -> Nanos {
        self.virtual_at(Instant::now())
    }

    /// The wall instant virtual time `v` corresponds to (a year from now
    /// for a time beyond what an `Instant` holds).
    pub fn wall(&self, v: Nanos) -> Instant {
        let after = Duration::from_nanos((v as f64 / self.scale).ceil() as u64);
        self.start
            .checked_add(after)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(365 * 86_400))
    }
}
