//! A real block device timed by disk-emu's models, served over NBD.
//!
//! The third driver of the devices (after the experiments' event loop and
//! the transaction simulator): real requests carrying real bytes are
//! ordered by the very `sched-core` policy objects the simulations use and
//! complete when disk-emu's models say they would, on a clock mapped from
//! the wall clock (optionally scaled). One disk or a mirror; bytes in RAM or
//! in backing files; faults (failures, replacements and resync, media
//! errors, slow disks, power cuts) from a schedule or a control socket.
//!
//! - [`engine`]: the real-time device (submission, completion at the
//!   model's time, bytes moved to and from the stores, durability, resync
//!   by copying, power-cut losses).
//! - [`nbd`]: the NBD protocol, sans-IO, and its tokio connection.
//! - [`server`]: the shared engine, the clock thread, the listeners.
//! - [`control`]: the control socket's line protocol.
//! - [`persist`]: a mirror's state across restarts; [`latent`]: latent
//!   sector errors across restarts.
//! - [`crash_log`]: `--record`'s log of writes and flushes, and the crash
//!   states built from it.
//! - [`backing`], [`clock`], [`io_stats`].
//!
//! Why a crate of its own rather than a feature of disk-emu: it brings in
//! tokio and real I/O, which the emulator, a deterministic library, must
//! not depend on; layers point one way (this crate → disk-emu →
//! sched-core).

/// A line on standard error that cannot fail: a server whose standard
/// error has gone (its terminal closed) goes on serving, where `eprintln!`
/// would panic.
#[cfg(feature = "server")]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

#[cfg(feature = "server")]
pub mod backing;
#[cfg(feature = "server")]
pub mod clock;
#[cfg(feature = "server")]
pub mod control;
#[cfg(feature = "server")]
pub mod crash_log;
#[cfg(feature = "server")]
pub mod engine;
#[cfg(feature = "server")]
pub mod io_stats;
#[cfg(feature = "server")]
pub mod latent;
#[cfg(feature = "server")]
mod launch;
pub mod nbd;
#[cfg(feature = "server")]
pub mod persist;
#[cfg(feature = "server")]
pub mod server;

#[cfg(feature = "server")]
pub use clock::Clock;
#[cfg(feature = "server")]
pub use crash_log::CrashOptions;
#[cfg(feature = "server")]
pub use engine::{Emulated, Engine, EngineError};
#[cfg(feature = "server")]
pub use io_stats::{Report, Summary};
#[cfg(feature = "server")]
pub use launch::{
    Layout, MAX_PAYLOAD, Options, Server, StartError, start, start_with, zero_latency,
};
#[cfg(feature = "server")]
pub use server::{DEFAULT_REQUEST_MEMORY, Listen, Resources, Running, ServeError, ServerConfig};
