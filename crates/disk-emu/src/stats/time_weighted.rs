//! Time averages of piecewise-constant signals (queue lengths, busy flags).

use sched_core::Nanos;

/// The time average and maximum of an integer signal that changes only at
/// events: queue length, number in system, a 0/1 busy flag.
///
/// The integral is kept exactly as a `u128` of value × nanoseconds (a queue of
/// 10⁶ for 10⁶ s is 10²¹, far below 2¹²⁸), so the average is one rounding
/// away from the true value and does not depend on how many events occurred.
/// Times must not go backwards; a time earlier than the last change is taken
/// as the time of the last change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeWeighted {
    start: Nanos,
    last: Nanos,
    value: u64,
    area: u128,
    max: u64,
}

impl TimeWeighted {
    /// A signal observed from `start`, holding `value` then.
    pub const fn new(start: Nanos, value: u64) -> Self {
        TimeWeighted {
            start,
            last: start,
            value,
            area: 0,
            max: value,
        }
    }

    /// Accrues the current value up to `now`.
    #[inline]
    fn advance(&mut self, now: Nanos) {
        if now > self.last {
            self.area += self.value as u128 * (now - self.last) as u128;
            self.last = now;
        }
    }

    /// The signal changes to `value` at `now`.
    #[inline]
    pub fn set(&mut self, now: Nanos, value: u64) {
        // An unchanged value accrues the same area later: nothing to do.
        if value == self.value {
            return;
        }
        self.advance(now);
        self.value = value;
        self.max = self.max.max(value);
    }

    /// The current value.
    pub fn value(&self) -> u64 {
        self.value
    }

    /// The largest value held since the start (or the last reset).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Start of the observation window.
    pub fn start(&self) -> Nanos {
        self.start
    }

    /// ∫ value dt from the start to `until`, in value × nanoseconds.
    pub fn integral(&self, until: Nanos) -> u128 {
        self.area + self.value as u128 * until.saturating_sub(self.last) as u128
    }

    /// Time average from the start to `until`. Over an empty window it is the
    /// current value, the limit of the average as the window shrinks.
    pub fn mean(&self, until: Nanos) -> f64 {
        let until = until.max(self.last);
        if until == self.start {
            return self.value as f64;
        }
        self.integral(until) as f64 / (until - self.start) as f64
    }

    /// Forgets the past: observation restarts at `now` with the current value.
    pub fn reset(&mut self, now: Nanos) {
        *self = TimeWeighted::new(now.max(self.last), self.value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_signal() {
        // 0 on [0, 10), 3 on [10, 14), 1 on [14, 20), 5 on [20, 21), 0 after.
        // Integral to 30: 3·4 + 1·6 + 5·1 = 23.
        let mut s = TimeWeighted::new(0, 0);
        s.set(10, 3);
        s.set(14, 1);
        s.set(20, 5);
        s.set(21, 0);
        assert_eq!(s.integral(30), 23);
        assert_eq!(s.mean(30), 23.0 / 30.0);
        assert_eq!(s.mean(21), 23.0 / 21.0);
        assert_eq!(s.max(), 5);
        // Before the last change the average is taken at the last change.
        assert_eq!(s.mean(5), 23.0 / 21.0);
    }

    #[test]
    fn reset_keeps_the_level_and_restarts_the_window() {
        let mut s = TimeWeighted::new(100, 2);
        s.set(110, 4);
        s.reset(120);
        assert_eq!((s.start(), s.value(), s.max()), (120, 4, 4));
        s.set(130, 1);
        // 4 on [120, 130), 1 on [130, 140): 50 over 20.
        assert_eq!(s.mean(140), 2.5);
        assert_eq!(TimeWeighted::new(7, 3).mean(7), 3.0);
    }

    #[test]
    fn simultaneous_changes_take_no_time_and_time_never_runs_back() {
        let mut s = TimeWeighted::new(0, 0);
        s.set(5, 9);
        s.set(5, 1);
        s.set(3, 2); // late report: counted from 5
        assert_eq!(s.integral(10), 10);
        assert_eq!(s.max(), 9);
    }
}
