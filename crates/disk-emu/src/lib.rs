//! A deterministic, virtual-time block-device emulator.
//!
//! Disk mechanics with real geometry drive any `sched-core` policy: requests
//! arrive from a workload or a trace, wait in the policy's queue, are served
//! with times from the disk model, and leave statistics behind. Time is an
//! integer count of nanoseconds; the same configuration and seed give the same
//! bits on every run, whatever the number of threads.

pub mod disk;
pub mod engine;
pub mod mirror;
pub mod random;
pub mod replay;
pub mod sim;
pub mod stats;
pub mod trace;
pub mod workload;
