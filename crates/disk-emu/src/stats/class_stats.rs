//! Statistics per request class: any `u16` class, with deadlines.
//!
//! A class is whatever number the driver put in `Request::class`: a client,
//! a transaction type, a real-time task. Every class seen gets its own
//! accumulator (a few hundred bytes), so memory grows with the number of
//! distinct classes, never with the number of requests.
//!
//! For requests that carry a deadline the accumulator counts misses and
//! measures *lateness* (finish − deadline, negative when early) and
//! *tardiness* (lateness clipped at zero), the two figures the real-time
//! scheduling papers report. A request the policy dropped because its
//! deadline passed (FD-SCAN in drop mode) counts as a miss without a
//! lateness, since it never finished.

use std::collections::BTreeMap;

use sched_core::Nanos;
use serde::{Deserialize, Serialize};

use super::histogram::Distribution;
use super::moments::MomentsReport;
use super::tally::Tally;

/// What one class measured so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct ClassAccumulator {
    response: Tally,
    waiting: Tally,
    /// Completions that had a deadline.
    with_deadline: u64,
    /// Of those, completions after their deadline.
    missed: u64,
    /// Requests dropped unserved because their deadline passed.
    dropped: u64,
    lateness: Tally,
    tardiness: Tally,
}

/// Classes below this are kept in a table indexed by class (the common
/// case: read/write, a few clients or tasks); the others in a map.
const DENSE: usize = 64;

/// Which classes have completed requests, for [`ClassStats::complete_sharing`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Completed {
    /// None yet.
    #[default]
    Nothing,
    /// Only this class: its response and waiting times are the whole stream's.
    Only(u16),
    /// Several classes: each keeps its own.
    Several,
}

/// Response, waiting and deadline statistics for every class seen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassStats {
    /// Classes `0..DENSE`, grown on first use; `None` for classes not seen.
    dense: Vec<Option<ClassAccumulator>>,
    sparse: BTreeMap<u16, ClassAccumulator>,
    labels: BTreeMap<u16, &'static str>,
    completed: Completed,
}

impl ClassStats {
    /// No class seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names `class` in reports ("read", "update"); a labelled class is
    /// reported even when nothing of it completed.
    pub fn set_label(&mut self, class: u16, label: &'static str) {
        self.labels.insert(class, label);
    }

    /// A request of `class` that arrived at `arrival`, started service at
    /// `start` and finished at `finish`, with an optional absolute deadline
    /// (`Nanos::MAX` is the same as none).
    #[inline]
    pub fn complete(
        &mut self,
        class: u16,
        arrival: Nanos,
        start: Nanos,
        finish: Nanos,
        deadline: Option<Nanos>,
    ) {
        let c = self.entry(class);
        c.response.add_unsigned(finish.saturating_sub(arrival));
        c.waiting.add_unsigned(start.saturating_sub(arrival));
        Self::judge(c, finish, deadline);
    }

    /// As [`complete`](Self::complete), for an owner that also keeps the
    /// response and waiting times of the whole stream (`response` and
    /// `waiting`, before this completion): while a single class completes,
    /// its times are exactly the stream's and are not kept twice; they are
    /// copied from the stream's when a second class first completes, and
    /// [`report_sharing`](Self::report_sharing) fills them in. Use one form
    /// or the other for the life of the statistics.
    #[inline]
    pub fn complete_sharing(
        &mut self,
        class: u16,
        arrival: Nanos,
        start: Nanos,
        finish: Nanos,
        deadline: Option<Nanos>,
        (response, waiting): (&Distribution, &Distribution),
    ) {
        match self.completed {
            Completed::Nothing => self.completed = Completed::Only(class),
            Completed::Only(only) if only == class => {
                // Its accumulator exists since its first completion: only a
                // deadline has anything to add to it.
                if deadline.is_some_and(|d| d != Nanos::MAX) {
                    Self::judge(self.entry(class), finish, deadline);
                }
                return;
            }
            Completed::Only(only) => {
                let first = self.entry(only);
                first.response = response.moments();
                first.waiting = waiting.moments();
                self.completed = Completed::Several;
            }
            Completed::Several => {
                return self.complete(class, arrival, start, finish, deadline);
            }
        }
        let timing = (self.completed == Completed::Several).then_some((arrival, start));
        let c = self.entry(class);
        if let Some((arrival, start)) = timing {
            c.response.add_unsigned(finish.saturating_sub(arrival));
            c.waiting.add_unsigned(start.saturating_sub(arrival));
        }
        Self::judge(c, finish, deadline);
    }

    /// Counts a deadline met or missed.
    #[inline]
    fn judge(c: &mut ClassAccumulator, finish: Nanos, deadline: Option<Nanos>) {
        if let Some(d) = deadline.filter(|&d| d != Nanos::MAX) {
            c.with_deadline += 1;
            let late =
                (i128::from(finish) - i128::from(d)).clamp(i64::MIN.into(), i64::MAX.into()) as i64;
            if late > 0 {
                c.missed += 1;
            }
            c.lateness.add(late);
            c.tardiness.add(late.max(0));
        }
    }

    /// The accumulator of `class`, created on first use. Every completion
    /// comes here, so a class already seen costs one bounds check.
    #[inline]
    fn entry(&mut self, class: u16) -> &mut ClassAccumulator {
        let i = usize::from(class);
        if i < DENSE {
            if i >= self.dense.len() {
                self.dense.resize(i + 1, None);
            }
            return self.dense[i].get_or_insert_with(ClassAccumulator::default);
        }
        self.sparse.entry(class).or_default()
    }

    fn get(&self, class: u16) -> Option<&ClassAccumulator> {
        let i = usize::from(class);
        if i >= DENSE {
            self.sparse.get(&class)
        } else {
            self.dense.get(i)?.as_ref()
        }
    }

    /// The classes seen, in order.
    fn seen(&self) -> impl Iterator<Item = u16> + '_ {
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_some())
            .map(|(i, _)| i as u16);
        dense.chain(self.sparse.keys().copied())
    }

    /// A request of `class` left unserved because its deadline passed.
    pub fn drop_expired(&mut self, class: u16) {
        self.entry(class).dropped += 1;
    }

    /// Forgets everything measured; labels stay.
    pub fn reset(&mut self) {
        self.dense.clear();
        self.sparse.clear();
        self.completed = Completed::Nothing;
    }

    /// [`report`](Self::report) of statistics kept with
    /// [`complete_sharing`](Self::complete_sharing): the whole stream's
    /// `response` and `waiting` are the sole class's, if one class completed.
    pub fn report_sharing(
        &self,
        response: &Distribution,
        waiting: &Distribution,
    ) -> Vec<ClassReport> {
        let mut reports = self.report();
        if let Completed::Only(class) = self.completed
            && let Some(r) = reports.iter_mut().find(|r| r.class == class)
        {
            r.response = response.moments().report();
            r.waiting = waiting.moments().report();
        }
        reports
    }

    /// One report per class seen or labelled, in class order.
    pub fn report(&self) -> Vec<ClassReport> {
        let mut classes: Vec<u16> = self.seen().collect();
        classes.extend(self.labels.keys().filter(|&&c| self.get(c).is_none()));
        classes.sort_unstable();
        classes
            .into_iter()
            .map(|class| {
                let c = self.get(class).copied().unwrap_or_default();
                let missed = c.missed + c.dropped;
                let judged = c.with_deadline + c.dropped;
                ClassReport {
                    class,
                    name: self
                        .labels
                        .get(&class)
                        .map_or_else(|| class.to_string(), |l| (*l).to_string()),
                    response: c.response.report(),
                    waiting: c.waiting.report(),
                    with_deadline: c.with_deadline,
                    missed,
                    dropped: c.dropped,
                    miss_ratio: if judged == 0 {
                        f64::NAN
                    } else {
                        missed as f64 / judged as f64
                    },
                    lateness: c.lateness.report(),
                    tardiness: c.tardiness.report(),
                }
            })
            .collect()
    }
}

/// The statistics of one request class over a measured window, times in ns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassReport {
    /// The class number.
    pub class: u16,
    /// Its label, or the number written out.
    pub name: String,
    /// Arrival → completion.
    pub response: MomentsReport,
    /// Arrival → start of service.
    pub waiting: MomentsReport,
    /// Completions that had a deadline.
    pub with_deadline: u64,
    /// Deadlines missed: completions after their deadline plus requests dropped.
    pub missed: u64,
    /// Requests dropped unserved because their deadline passed.
    pub dropped: u64,
    /// `missed / (with_deadline + dropped)`; NaN without deadlines.
    pub miss_ratio: f64,
    /// Finish − deadline of completions with a deadline (negative when early).
    pub lateness: MomentsReport,
    /// max(0, lateness).
    pub tardiness: MomentsReport,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_class_keeps_its_own_figures_and_deadlines_are_judged() {
        let mut s = ClassStats::new();
        s.set_label(7, "update");
        // Class 300: one early (by 5), one late (by 15) completion.
        s.complete(300, 0, 10, 20, Some(25));
        s.complete(300, 0, 30, 40, Some(25));
        // Class u16::MAX: no deadline; then a drop.
        s.complete(u16::MAX, 100, 100, 130, None);
        s.drop_expired(u16::MAX);
        let r = s.report();
        let names: Vec<&str> = r.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["update", "300", "65535"]);
        assert_eq!(r[0].response.count, 0);
        let c = &r[1];
        assert_eq!((c.with_deadline, c.missed, c.miss_ratio), (2, 1, 0.5));
        assert_eq!(
            (c.lateness.mean, c.lateness.min, c.lateness.max),
            (5.0, -5.0, 15.0)
        );
        assert_eq!(c.tardiness.mean, 7.5);
        assert_eq!((c.response.mean, c.waiting.mean), (30.0, 20.0));
        let c = &r[2];
        assert_eq!(
            (c.with_deadline, c.missed, c.dropped, c.miss_ratio),
            (0, 1, 1, 1.0)
        );
        assert!(c.lateness.mean.is_nan());
        assert_eq!(r[1].response.count, 2);
        s.reset();
        assert_eq!(s.report().len(), 1);
    }

    /// Sharing the stream's times gives the very bits of keeping them per
    /// class, whether one class completes or a second joins later.
    #[test]
    fn shared_times_are_the_bits_of_kept_ones() {
        for second_joins_at in [None, Some(0), Some(37)] {
            let (mut kept, mut shared) = (ClassStats::new(), ClassStats::new());
            let (mut response, mut waiting) = (Distribution::new(), Distribution::new());
            for i in 0..100u64 {
                let class = match second_joins_at {
                    Some(k) if i >= k && i % 3 == 0 => 9,
                    _ => 4,
                };
                let (arrival, start, finish) =
                    (i * 1_000, i * 1_000 + i * 7, i * 1_000 + i * 13 + 5);
                let deadline = (i % 2 == 0).then_some(i * 1_000 + 600);
                kept.complete(class, arrival, start, finish, deadline);
                shared.complete_sharing(
                    class,
                    arrival,
                    start,
                    finish,
                    deadline,
                    (&response, &waiting),
                );
                response.record(finish - arrival);
                waiting.record(start - arrival);
            }
            assert_eq!(kept.report(), shared.report_sharing(&response, &waiting));
        }
    }
}
