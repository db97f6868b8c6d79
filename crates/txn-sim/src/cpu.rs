//! One CPU scheduled preemptive earliest-deadline-first (Chen & Towsley
//! 1991, §2): the ready job with the earliest deadline runs; a newly ready
//! job with an earlier one preempts it, and the preempted job keeps the work
//! it has done.

use sched_core::Nanos;

use crate::locks::Priority;

#[derive(Clone, Copy, Debug)]
struct Job {
    txn: usize,
    remaining: Nanos,
    priority: Priority,
}

/// The CPU: ready jobs, at most one per transaction.
#[derive(Clone, Debug, Default)]
pub struct EdfCpu {
    jobs: Vec<Job>,
    /// Index in `jobs` of the running job.
    running: Option<usize>,
    /// When the running job (re)started.
    since: Nanos,
    busy: Nanos,
}

impl EdfCpu {
    /// An idle CPU.
    pub fn new() -> Self {
        EdfCpu::default()
    }

    /// Charges the running job for the time since it (re)started.
    fn account(&mut self, now: Nanos) {
        if let Some(i) = self.running {
            let done = now - self.since;
            self.jobs[i].remaining -= done.min(self.jobs[i].remaining);
            self.busy += done;
        }
        self.since = now;
    }

    /// Runs the ready job with the earliest deadline.
    fn pick(&mut self) {
        self.running = self
            .jobs
            .iter()
            .enumerate()
            .min_by_key(|(_, j)| j.priority)
            .map(|(i, _)| i);
    }

    /// `txn` needs `work` ns of CPU at `now`.
    pub fn add(&mut self, txn: usize, work: Nanos, priority: Priority, now: Nanos) {
        debug_assert!(self.jobs.iter().all(|j| j.txn != txn));
        self.account(now);
        self.jobs.push(Job {
            txn,
            remaining: work,
            priority,
        });
        self.pick();
    }

    /// Removes `txn`'s job, if any (its transaction was lost).
    pub fn remove(&mut self, txn: usize, now: Nanos) {
        if let Some(i) = self.jobs.iter().position(|j| j.txn == txn) {
            self.account(now);
            self.jobs.swap_remove(i);
            self.pick();
        }
    }

    /// When the running job finishes, if nothing changes.
    pub fn next_finish(&self) -> Option<Nanos> {
        self.running.map(|i| self.since + self.jobs[i].remaining)
    }

    /// Ends the running job at `now` (its finish time) and returns its transaction.
    pub fn finish(&mut self, now: Nanos) -> Option<usize> {
        let i = self.running?;
        debug_assert_eq!(self.next_finish(), Some(now));
        self.account(now);
        let job = self.jobs.swap_remove(i);
        self.pick();
        Some(job.txn)
    }

    /// Whether no job is ready.
    pub fn is_idle(&self) -> bool {
        self.jobs.is_empty()
    }

    /// CPU time spent up to the last change, ns.
    pub fn busy(&self) -> Nanos {
        self.busy
    }

    /// When the running job last (re)started (meaningful while one runs).
    pub fn running_since(&self) -> Nanos {
        self.since
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_deadline_preempts_and_the_preempted_job_resumes() {
        let mut cpu = EdfCpu::new();
        cpu.add(0, 15, (100, 0), 0);
        assert_eq!(cpu.next_finish(), Some(15));
        cpu.add(1, 5, (50, 1), 10);
        assert_eq!(cpu.next_finish(), Some(15), "the new job runs 10..15");
        assert_eq!(cpu.finish(15), Some(1));
        assert_eq!(cpu.next_finish(), Some(20), "5 ns of job 0 remain");
        assert_eq!(cpu.finish(20), Some(0));
        assert!(cpu.is_idle());
        assert_eq!(cpu.busy(), 20);
    }

    #[test]
    fn a_later_deadline_waits_and_removal_reschedules() {
        let mut cpu = EdfCpu::new();
        cpu.add(0, 10, (100, 0), 0);
        cpu.add(1, 10, (200, 1), 0);
        cpu.remove(0, 4);
        assert_eq!(cpu.next_finish(), Some(14));
        assert_eq!(cpu.finish(14), Some(1));
        assert_eq!(cpu.next_finish(), None);
    }
}
