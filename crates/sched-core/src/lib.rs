//! Disk I/O scheduling policies as sans-IO state machines.
//!
//! `sched-core` is `#![no_std]` and, in its default build, never allocates. A
//! policy owns no clock, no thread and no device: a driver (the disk
//! emulator, the transaction simulator, a tokio block device) hands it
//! requests and, whenever a disk is free, asks which request to serve.
//!
//! Where a policy's memory lives is the caller's choice (see [`Storage`]):
//! [`Inline<N>`] keeps fixed arrays inside the policy value, for embedded
//! users who allocate nothing (every single-disk policy builds on it in
//! const context, as in [`policy::Sstf::new_inline`], so it can live in a
//! `static`); `Boxed<N>` and `Heap` (feature `alloc`)
//! allocate them in place on the heap, at a capacity fixed at compile time
//! or chosen at run time, so a 65,535-deep queue never crosses a stack frame. A
//! full queue is a typed error, never a panic or a silent drop; each
//! operation has its own error type ([`BuildError`], [`EnqueueError`],
//! [`CancelError`], [`CompleteError`], [`PollError`]).
//!
//! The driver loop is the same everywhere:
//!
//! ```
//! use sched_core::{Block, Blocks, Cyl, Head, Inline, Kind, NullEstimator, Request, RequestId, Scheduler, policy::Sstf};
//!
//! // A 64-deep SSTF queue for a 1962-cylinder disk, stored inline.
//! let mut queue = Sstf::new(Inline::<64>::new(), 1962).unwrap();
//! let mut head = Head::at(1000);
//! let mut now = 0;
//! let arrivals = [(0, 1500), (0, 1010), (0, 980), (7_000_000, 1020)]; // (ns, cylinder)
//! let mut pending = arrivals.iter().enumerate().peekable();
//! let mut served = Vec::new();
//! loop {
//!     // Arrivals up to the current time join the queue.
//!     while let Some(&(i, &(t, cyl))) = pending.peek() {
//!         if t > now { break; }
//!         let req = Request::new(RequestId(i as u64), Kind::Read, Block(0), Blocks(8), Cyl(cyl), t);
//!         queue.enqueue(req).expect("the queue has room");
//!         pending.next();
//!     }
//!     // The disk is free: ask the policy, "serve" for 5 ms, move the arm.
//!     match queue.next(head, now, &NullEstimator) {
//!         Some(d) => {
//!             served.push(d.request.cylinder);
//!             head = Head::at(d.request.cylinder);
//!             now += 5_000_000;
//!         }
//!         None => match pending.peek() {
//!             Some(&(_, &(t, _))) => now = t, // idle until the next arrival
//!             None => break,
//!         },
//!     }
//! }
//! assert_eq!(served, [1010, 980, 1020, 1500]);
//! ```
//!
//! Single-disk policies implement [`Scheduler`] (see [`policy`]); the
//! [`ServiceEstimator`] trait lets policies that need times (SPTF, FD-SCAN)
//! ask the driver's disk model. [`AnyScheduler`] and [`PolicySpec`] choose a
//! policy at run time without allocation, [`AnySpec`] reads a description of
//! a policy of any kind, and [`registry`] lists every policy, single-disk and
//! array, with its parameters and paper. All of them are made from one table
//! with a row per policy, so adding a policy is its own file and one row.
//!
//! ## Extending
//!
//! Every policy is plain data (`Send`, no interior pointers), so a driver on
//! any thread or runtime owns it outright; a tokio block device keeps one
//! behind a mutex and calls the same methods as the emulator. Array
//! policies for up to 64 disks implement [`array::ArrayPolicy`], composing
//! single-disk [`Scheduler`]s as their per-queue disciplines. A rate-based
//! policy such as WRR-SCAN fits the same trait: its tasks are told apart by
//! [`Request::class`], its rounds advance with the `now` that
//! [`Scheduler::next`] receives,
//! [`Scheduler::next_eligible_at`] tells the driver when a held job becomes
//! eligible, and admission control is an inherent method of the policy returning a
//! reservation or a typed refusal, since it is asked of one policy, not of
//! every scheduler.

#![no_std]
// docs.rs (and `RUSTDOCFLAGS="--cfg docsrs" cargo +nightly doc`) labels each
// feature-gated item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod array;
mod error;
pub mod policy;
#[macro_use]
mod policy_table;
mod queue;
pub mod registry;
mod request;
mod scheduler;
mod storage;

pub use error::{
    BuildError, CancelError, CompleteError, DiskStateError, EnqueueError, Error, PollError,
    SpecError,
};
pub use policy::ExpiredRule;
pub use policy_table::{AnyScheduler, AnySpec, AnySpecError, PolicySpec, WithPolicy};
pub use request::{
    Block, Blocks, Cyl, Cylinder, Direction, Dispatch, FreeBlock, Head, Kind, Nanos, Request,
    RequestId, Travel,
};
pub use scheduler::{Drain, NullEstimator, Scheduler, ServiceEstimator, drain};
#[cfg(feature = "alloc")]
pub use storage::{Boxed, BoxedArray, Heap};
pub use storage::{CapacityError, Inline, Storage};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

/// The largest capacity a queue can have: slots are linked by 16-bit indices.
pub const MAX_CAPACITY: usize = 65_535;
