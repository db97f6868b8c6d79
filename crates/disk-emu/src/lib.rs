//! A deterministic, virtual-time block-device emulator.
//!
//! Disk mechanics with real geometry drive any `sched-core` policy: requests
//! arrive from a workload or a trace, wait in the policy's queue, are served
//! with times from the disk model, and leave statistics behind. Time is an
//! integer count of nanoseconds; the same configuration and seed give the same
//! bits on every run, whatever the number of threads.
//!
//! ## Layout
//!
//! Two namespaces of their own: [`disk`] (drive specifications, presets,
//! DiskSim files, the mechanical model) and [`trace`] (trace formats and
//! readers). Everything else has one path, at the root:
//!
//! - **Devices**: the [`Device`] trait, with an open, event-by-event API,
//!   and its implementations [`DiskDevice`] (one disk, any single-disk
//!   policy) and [`ArrayDevice`] (1 to 64 disks holding copies of the same
//!   data, any array policy, with failure and resync); their [`Outcome`]s
//!   with per-request [`Timing`]; the [`conformance`] suite every
//!   implementation passes.
//! - **Faults** ([`faults`]): [`FaultInjector`], a wrapper around any
//!   device that fails, replaces and slows disks, injects media errors and
//!   cuts power, on a schedule (by hand, from a file or from a seed).
//! - **The clock**: [`EventQueue`] of timed events and their [`Rank`] among
//!   simultaneous ones; seeded random [`Stream`]s a device draws the random
//!   parts of its service times from.
//! - **Measurements**: [`DiskStats`], [`ArrayStats`], [`ClassStats`] and
//!   their reports, built on [`Moments`], [`Distribution`] and
//!   [`TimeWeighted`].
//!
//! What is *run* on the emulator — workloads, placement of copies, the event
//! loop that drives devices, replications, seeds, trace replay and the
//! papers' experiments — is the experiments crate's.
//!
//! ## Driving a device
//!
//! A device is a deterministic state machine in virtual time, like the
//! `sched-core` policies it drives: it owns no thread and no clock. See the
//! [`Device`] trait for its inputs, outputs and getters and the order in
//! which a driver calls them.
//!
//! ```
//! use disk_emu::disk::{DiskModel, presets};
//! use disk_emu::{ArrayDevice, Device, Outcome, Stream};
//! use sched_core::array::{Copies, Location};
//! use sched_core::{Block, Blocks, Cyl, Kind, Request, RequestId};
//!
//! let model = DiskModel::from_spec(&presets::hp97560())?;
//! let streams = vec![Stream::numbered(1), Stream::numbered(2)];
//! let mut mirror = ArrayDevice::new(vec![model.clone(), model], &"rt-dmq".parse()?, streams, 7)?;
//! let at = Location { block: 4_000, cylinder: 0 };
//! let write = Request::new(RequestId(1), Kind::Write, Block(4_000), Blocks(8), Cyl(0), 0);
//! mirror.submit(write, &Copies::everywhere(2, at), 0)?;
//! let mut done = Vec::new();
//! while let Some(t) = mirror.next_event_time() {
//!     mirror.advance(t)?;
//!     while let Some(outcome) = mirror.poll() {
//!         if let Outcome::Completed(d) = outcome {
//!             done.push((d.request.id, d.timing.finish));
//!         }
//!     }
//! }
//! assert_eq!(done.len(), 1, "a write completes once, when both copies are written");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

pub mod conformance;
mod device;
pub mod disk;
mod events;
pub mod faults;
mod random;
mod stats;
pub mod text_input;
pub mod trace;

pub use device::{
    ARRAY_CAPACITY, ArrayDevice, ArrayOptions, DEVICE_IDS, Device, DeviceError, DiskDevice, Done,
    FixedPlaces, Outcome, Places, QUEUE_CAPACITY, ResyncRate, Timing,
};
pub use events::{EventKey, EventQueue, Rank};
pub use faults::{FaultInjector, FaultTarget};
pub use random::{Exponential, Stream};
pub use stats::{
    ArrayQueueReport, ArrayReport, ArrayStats, BreakdownReport, ClassReport, ClassStats,
    Completion, DiskReport, DiskStats, DiskUsageReport, Distribution, DistributionReport,
    FOUND_BINS, Histogram, Moments, MomentsReport, QueueAccumulator, QueueReport, Tally,
    TimeWeighted, WarmUp,
};
