//! The real-time transaction system of Chen & Towsley, *Performance of a
//! Mirrored Disk in a Real-Time Transaction System* (UMass COINS TR 91-07),
//! §2 and §4.1: a closed population of users, transactions of random length
//! under two-phase locking with deadlock detection, one CPU scheduled
//! earliest-deadline-first, and deadlines — driving a `disk-emu` device (one
//! disk, or a mirrored pair under any array policy) from outside, on a
//! virtual clock in integer nanoseconds.
//!
//! This is the second driver of the devices the design promises: the same
//! `sched-core` policy objects the emulator runs, fed by transactions.
//!
//! - [`params`]: the configuration ([`TxnParams`], its I/O subsystem a
//!   [`sched_core::AnySpec`],
//!   [`Deadlines`]) and its validation ([`ParamError`]).
//! - [`locks`]: the lock table and the wait-for graph.
//! - [`cpu`]: the preemptive EDF CPU.
//! - [`io`]: the device and the ledger of its requests.
//! - [`system`]: the transactions' state machine, a driver of the
//!   experiments crate's event loop (its CPU and timers are events of that
//!   loop).
//! - [`mod@metrics`] and [`replications`]: what is measured, over independent
//!   replications with 95 % confidence intervals.
//!
//! ```
//! use txn_sim::{TxnParams, run};
//!
//! let mut params = TxnParams::chen_towsley_91(8, "rt-dmq".parse()?);
//! params.transactions = 120;
//! params.warmup = 20;
//! let report = run(&params, 0)?;
//! assert_eq!(report.measured, 100);
//! assert!((0.0..=1.0).contains(&report.loss_ratio));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cpu;
pub mod io;
pub mod locks;
pub mod metrics;
pub mod params;
pub mod replications;
pub mod system;

pub use io::{IoCounts, IoReport};
pub use metrics::{METRICS, metric_table, metrics};
pub use params::{
    BufferRule, Deadlines, DlLowRule, LockWake, LossRule, PageLayout, ParamError, Readings,
    RestartDeadline, SsedoWindow, TxnParams,
};
pub use replications::{run, run_replications};
pub use system::{RunReport, SimError, System, TxnEvent};
