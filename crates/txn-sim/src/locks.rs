//! Page locks under two-phase locking, and deadlock detection on the
//! wait-for graph (Chen & Towsley 1991, §2).
//!
//! - A request conflicts only with the *holders* of a page (the paper: "a
//!   requested lock has been granted to other transactions, and either the
//!   requesting or the holding transaction is to perform an update"); a
//!   request compatible with every holder is granted at once, whoever waits.
//! - A holder of a shared lock asking for the exclusive lock upgrades in
//!   place when it is the only holder, and otherwise waits like anyone else.
//! - On a release the waiters are considered in deadline order (earliest
//!   first, then arrival order) and each one compatible with the holders at
//!   that moment is granted: the earliest-deadline waiter is woken first, and
//!   readers queued behind it share the lock when it is shared
//!   ([`LockWake::EarliestDeadline`]; [`LockWake::ArrivalOrder`] considers
//!   them in the order they began to wait).
//! - Transactions are identified by their user's slot (each user runs at
//!   most one transaction at a time), so every table is a dense vector.

use std::collections::HashMap;

use sched_core::Nanos;

pub use crate::params::LockWake;

/// A database page.
pub type Page = u64;

/// Lock mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Read: compatible with other shared locks.
    Shared,
    /// Update: compatible with nothing.
    Exclusive,
}

/// Who goes first among waiters: earlier deadline, then earlier transaction.
pub type Priority = (Nanos, u64);

#[derive(Clone, Copy, Debug)]
struct Waiter {
    txn: usize,
    mode: Mode,
    priority: Priority,
}

#[derive(Clone, Debug, Default)]
struct Entry {
    holders: Vec<(usize, Mode)>,
    waiters: Vec<Waiter>,
}

impl Entry {
    /// Whether `txn` may hold the page in `mode` next to the other holders.
    fn compatible(&self, txn: usize, mode: Mode) -> bool {
        self.holders
            .iter()
            .all(|&(h, m)| h == txn || (mode == Mode::Shared && m == Mode::Shared))
    }

    /// Grants `mode` to `txn` (a new holder, or an upgrade in place).
    fn grant(&mut self, txn: usize, mode: Mode) {
        match self.holders.iter_mut().find(|(h, _)| *h == txn) {
            Some(held) => held.1 = held.1.max(mode),
            None => self.holders.push((txn, mode)),
        }
    }
}

/// What a lock request led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquire {
    /// The lock is held (granted now, or held already in a sufficient mode).
    Granted,
    /// The transaction waits for the lock.
    Waiting,
    /// Waiting would close a cycle in the wait-for graph: nothing was
    /// changed, the requester is to be aborted.
    Deadlock,
}

/// The lock table of the whole database.
#[derive(Clone, Debug)]
pub struct LockTable {
    entries: HashMap<Page, Entry>,
    /// Pages each transaction holds, in the order it locked them.
    held: Vec<Vec<Page>>,
    /// The page each transaction waits for.
    waiting: Vec<Option<Page>>,
    /// Visit marks of the cycle search (stamp per search).
    marks: Vec<u64>,
    stamp: u64,
    stack: Vec<usize>,
    wake: LockWake,
}

impl LockTable {
    /// An empty table for transactions `0..slots`, granting released locks
    /// by `wake`.
    pub fn new(slots: usize, wake: LockWake) -> Self {
        LockTable {
            entries: HashMap::new(),
            held: vec![Vec::new(); slots],
            waiting: vec![None; slots],
            marks: vec![0; slots],
            stamp: 0,
            stack: Vec::new(),
            wake,
        }
    }

    /// `txn` asks for `page` in `mode`, with waiting priority `priority`.
    ///
    /// # Panics
    /// If `txn` is already waiting (a transaction runs one step at a time).
    pub fn acquire(&mut self, txn: usize, page: Page, mode: Mode, priority: Priority) -> Acquire {
        assert!(
            self.waiting[txn].is_none(),
            "a waiting transaction asked again"
        );
        let entry = self.entries.entry(page).or_default();
        if entry.holders.iter().any(|&(h, m)| h == txn && m >= mode) {
            return Acquire::Granted;
        }
        if entry.compatible(txn, mode) {
            if !entry.holders.iter().any(|&(h, _)| h == txn) {
                self.held[txn].push(page);
            }
            entry.grant(txn, mode);
            return Acquire::Granted;
        }
        entry.waiters.push(Waiter {
            txn,
            mode,
            priority,
        });
        self.waiting[txn] = Some(page);
        if self.closes_cycle(txn) {
            self.withdraw(txn);
            return Acquire::Deadlock;
        }
        Acquire::Waiting
    }

    /// Whether `txn`, just blocked, now waits (transitively) for itself:
    /// a depth-first search along wait-for edges, each blocked transaction
    /// pointing at the holders of its page whose locks conflict with its request.
    fn closes_cycle(&mut self, txn: usize) -> bool {
        self.stamp += 1;
        self.stack.clear();
        self.stack.push(txn);
        self.marks[txn] = self.stamp;
        while let Some(u) = self.stack.pop() {
            let Some(page) = self.waiting[u] else {
                continue;
            };
            let entry = &self.entries[&page];
            let mode = entry
                .waiters
                .iter()
                .find(|w| w.txn == u)
                .map_or(Mode::Exclusive, |w| w.mode);
            for &(h, m) in &entry.holders {
                if h == u || (mode == Mode::Shared && m == Mode::Shared) {
                    continue;
                }
                if h == txn {
                    return true;
                }
                if self.marks[h] != self.stamp {
                    self.marks[h] = self.stamp;
                    self.stack.push(h);
                }
            }
        }
        false
    }

    /// Takes `txn` off the waiting list of its page, if it waits.
    fn withdraw(&mut self, txn: usize) {
        if let Some(page) = self.waiting[txn].take() {
            let entry = self
                .entries
                .get_mut(&page)
                .expect("a waited page has an entry");
            entry.waiters.retain(|w| w.txn != txn);
            if entry.holders.is_empty() && entry.waiters.is_empty() {
                self.entries.remove(&page);
            }
        }
    }

    /// `txn` commits or aborts: it stops waiting and releases every lock.
    /// Returns the transactions granted a lock as a result, in grant order.
    pub fn release_all(&mut self, txn: usize, woken: &mut Vec<usize>) {
        self.withdraw(txn);
        let pages = std::mem::take(&mut self.held[txn]);
        for &page in &pages {
            let entry = self
                .entries
                .get_mut(&page)
                .expect("a held page has an entry");
            entry.holders.retain(|&(h, _)| h != txn);
            if !entry.waiters.is_empty() {
                // Waiters are pushed in arrival order; the stable sort keeps
                // it among equal deadlines.
                if self.wake == LockWake::EarliestDeadline {
                    entry.waiters.sort_by_key(|w| w.priority);
                }
                let mut i = 0;
                while i < entry.waiters.len() {
                    let w = entry.waiters[i];
                    if entry.compatible(w.txn, w.mode) {
                        entry.waiters.remove(i);
                        let new_holder = !entry.holders.iter().any(|&(h, _)| h == w.txn);
                        entry.grant(w.txn, w.mode);
                        if new_holder {
                            self.held[w.txn].push(page);
                        }
                        self.waiting[w.txn] = None;
                        woken.push(w.txn);
                    } else {
                        i += 1;
                    }
                }
            }
            if entry.holders.is_empty() && entry.waiters.is_empty() {
                self.entries.remove(&page);
            }
        }
        // Keep the allocation for the slot's next transaction.
        let mut pages = pages;
        pages.clear();
        self.held[txn] = pages;
    }

    /// The holders of `page` whose locks conflict with `txn` asking for it in `mode`.
    pub fn conflicting_holders(
        &self,
        txn: usize,
        page: Page,
        mode: Mode,
    ) -> impl Iterator<Item = usize> + '_ {
        self.entries
            .get(&page)
            .into_iter()
            .flat_map(|e| e.holders.iter())
            .filter(move |&&(h, m)| h != txn && (mode == Mode::Exclusive || m == Mode::Exclusive))
            .map(|&(h, _)| h)
    }

    /// Whether no page is locked or waited for.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
            && self.held.iter().all(Vec::is_empty)
            && self.waiting.iter().all(Option::is_none)
    }

    /// Whether `txn` waits for a lock.
    pub fn is_waiting(&self, txn: usize) -> bool {
        self.waiting[txn].is_some()
    }

    /// Pages `txn` holds.
    pub fn held(&self, txn: usize) -> &[Page] {
        &self.held[txn]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_locks_share_and_exclusive_ones_wait() {
        let mut t = LockTable::new(3, LockWake::EarliestDeadline);
        assert_eq!(t.acquire(0, 7, Mode::Shared, (10, 0)), Acquire::Granted);
        assert_eq!(t.acquire(1, 7, Mode::Shared, (20, 1)), Acquire::Granted);
        assert_eq!(t.acquire(2, 7, Mode::Exclusive, (5, 2)), Acquire::Waiting);
        let mut woken = Vec::new();
        t.release_all(0, &mut woken);
        assert!(woken.is_empty(), "transaction 1 still shares the page");
        t.release_all(1, &mut woken);
        assert_eq!(woken, [2]);
        assert_eq!(t.held(2), [7]);
        woken.clear();
        t.release_all(2, &mut woken);
        assert!(t.is_empty());
    }

    #[test]
    fn a_release_wakes_the_earliest_deadline_first() {
        let mut t = LockTable::new(4, LockWake::EarliestDeadline);
        assert_eq!(t.acquire(0, 1, Mode::Exclusive, (0, 0)), Acquire::Granted);
        assert_eq!(t.acquire(1, 1, Mode::Exclusive, (300, 1)), Acquire::Waiting);
        assert_eq!(t.acquire(2, 1, Mode::Exclusive, (100, 2)), Acquire::Waiting);
        assert_eq!(t.acquire(3, 1, Mode::Exclusive, (200, 3)), Acquire::Waiting);
        let mut woken = Vec::new();
        t.release_all(0, &mut woken);
        assert_eq!(woken, [2]);
        woken.clear();
        t.release_all(2, &mut woken);
        assert_eq!(woken, [3]);
    }

    #[test]
    fn arrival_order_wakes_the_first_waiter_rather_than_the_earliest_deadline() {
        for (wake, want) in [
            (LockWake::EarliestDeadline, [2]),
            (LockWake::ArrivalOrder, [1]),
        ] {
            let mut t = LockTable::new(3, wake);
            assert_eq!(t.acquire(0, 1, Mode::Exclusive, (0, 0)), Acquire::Granted);
            assert_eq!(t.acquire(1, 1, Mode::Exclusive, (300, 1)), Acquire::Waiting);
            assert_eq!(t.acquire(2, 1, Mode::Exclusive, (100, 2)), Acquire::Waiting);
            let mut woken = Vec::new();
            t.release_all(0, &mut woken);
            assert_eq!(woken, want, "{wake:?}");
        }
    }

    #[test]
    fn the_constructed_two_transaction_cycle_is_detected() {
        // T0 holds page 1, T1 holds page 2; T0 waits for 2, then T1 asks for 1.
        let mut t = LockTable::new(2, LockWake::EarliestDeadline);
        assert_eq!(t.acquire(0, 1, Mode::Exclusive, (10, 0)), Acquire::Granted);
        assert_eq!(t.acquire(1, 2, Mode::Exclusive, (20, 1)), Acquire::Granted);
        assert_eq!(t.acquire(0, 2, Mode::Exclusive, (10, 0)), Acquire::Waiting);
        assert_eq!(t.acquire(1, 1, Mode::Shared, (20, 1)), Acquire::Deadlock);
        assert!(!t.is_waiting(1), "the requester does not wait");
        // Aborting the requester resolves it: T0 gets page 2.
        let mut woken = Vec::new();
        t.release_all(1, &mut woken);
        assert_eq!(woken, [0]);
        assert_eq!(t.held(0), [1, 2]);
        woken.clear();
        t.release_all(0, &mut woken);
        assert!(t.is_empty());
    }

    #[test]
    fn two_upgrades_of_one_page_deadlock() {
        let mut t = LockTable::new(2, LockWake::EarliestDeadline);
        assert_eq!(t.acquire(0, 5, Mode::Shared, (1, 0)), Acquire::Granted);
        assert_eq!(t.acquire(1, 5, Mode::Shared, (2, 1)), Acquire::Granted);
        assert_eq!(t.acquire(0, 5, Mode::Exclusive, (1, 0)), Acquire::Waiting);
        assert_eq!(t.acquire(1, 5, Mode::Exclusive, (2, 1)), Acquire::Deadlock);
        let mut woken = Vec::new();
        t.release_all(1, &mut woken);
        assert_eq!(woken, [0], "the sole remaining holder upgrades");
        assert_eq!(t.held(0), [5]);
    }

    #[test]
    fn a_longer_cycle_through_shared_holders_is_found() {
        // T0 waits on T1 (page 2), T1 waits on T2 (page 3), T2 asks for page 1 held shared by T0.
        let mut t = LockTable::new(3, LockWake::EarliestDeadline);
        assert_eq!(t.acquire(0, 1, Mode::Shared, (1, 0)), Acquire::Granted);
        assert_eq!(t.acquire(1, 2, Mode::Exclusive, (2, 1)), Acquire::Granted);
        assert_eq!(t.acquire(2, 3, Mode::Exclusive, (3, 2)), Acquire::Granted);
        assert_eq!(t.acquire(0, 2, Mode::Shared, (1, 0)), Acquire::Waiting);
        assert_eq!(t.acquire(1, 3, Mode::Shared, (2, 1)), Acquire::Waiting);
        assert_eq!(t.acquire(2, 1, Mode::Shared, (3, 2)), Acquire::Granted);
        assert_eq!(t.acquire(2, 4, Mode::Shared, (3, 2)), Acquire::Granted);
        let mut t2 = t.clone();
        // An exclusive request on page 1 closes the cycle; T0's shared one did not.
        assert_eq!(t2.acquire(2, 1, Mode::Exclusive, (3, 2)), Acquire::Deadlock);
        let mut woken = Vec::new();
        t.release_all(2, &mut woken);
        assert_eq!(woken, [1]);
    }
}
