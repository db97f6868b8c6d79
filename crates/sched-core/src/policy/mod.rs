//! Single-disk scheduling policies, one per file, each named as its paper names it,
//! each a row of the policy table (see [`registry`](crate::registry)).
//!
//! | policy | orders by | needs an estimator | cost of a decision (queue of n, capacity N) |
//! |---|---|---|---|
//! | [`Fcfs`] | arrival | no | O(1) |
//! | [`Sstf`] | cylinder distance | no | O(1)¹ |
//! | [`Scan`], [`Look`], [`CScan`], [`CLook`] | sweep position | no | O(1)¹ |
//! | [`VScan`] | distance plus reversal penalty | no | O(1)¹ |
//! | [`Edf`] | deadline | no | O(log N) |
//! | [`Ssedo`] | weighted distance in a deadline window | no | O(log N + m²) for m ≤ 8, O(log N + m log m) above |
//! | [`Ssedv`] | distance and slack, weighted | no | O(log N) |
//! | [`ScanEdf`] | deadline, then sweep position | no | O(log N) per request of a group |
//! | [`FdScan`] | sweep toward the earliest feasible deadline | service time | O(log N) plus one estimate per unexpired but unreachable deadline passed over |
//! | [`WrrScan`] | budget per class and round, then sweep position | reclaimed time only | O(log T) per request (T tasks), plus amortised parking |
//! | [`MqDeadline`] | direction batches in cylinder order, FIFO expiry between batches | no | O(1)¹ |
//! | [`Bfq`] | B-WF2Q+ over per-class queues with budgets, then cylinder order in a queue; idles for a sync queue | no | O(Q) for Q ≤ 16 class queues, plus one bucket lookup¹ |
//! | [`Sptf`], [`AgedSptf`] | positioning time (minus age) | positioning time | one estimate per candidate: n, or the window |
//! | [`SatfEw`] | positioning time, a write's at the nearest free block, within the sweep | positioning time, free blocks | one estimate per request ahead, one free-block search |
//!
//! ¹ Bucket lookups in a three-level bitmap; constant when the capacity is at
//! least the cylinder count (one cylinder a bucket), otherwise proportional to
//! the requests sharing a bucket. Enqueueing is O(1) on the same terms for the
//! cylinder lists and FCFS (requests enqueued in arrival order), O(log N) for
//! the heaps and SSEDV's trees.
//!
//! The numbers behind these bounds are in the `decision` benchmark of the
//! workspace root (`cargo bench --bench decision`).

mod aged_sptf;
mod bfq;
mod clook;
mod cscan;
mod edf;
mod fcfs;
mod fd_scan;
mod look;
mod mq_deadline;
mod satf_ew;
mod scan;
mod scan_edf;
mod sptf;
mod ssedo;
mod ssedv;
mod sstf;
mod sweep;
mod vscan;
mod wrr_admission;
mod wrr_scan;

pub use aged_sptf::*;
pub use bfq::*;
pub use clook::*;
pub use cscan::*;
pub use edf::*;
pub use fcfs::*;
pub use fd_scan::*;
pub use look::*;
pub use mq_deadline::*;
pub use satf_ew::*;
pub use scan::*;
pub use scan_edf::*;
pub use sptf::*;
pub use ssedo::*;
pub use ssedv::*;
pub use sstf::*;
pub use vscan::*;
pub use wrr_admission::*;
pub use wrr_scan::*;
