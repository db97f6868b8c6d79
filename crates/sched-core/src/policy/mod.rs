//! Single-disk scheduling policies, one per file, each named as its paper names it.
//!
//! | policy | orders by | needs an estimator |
//! |---|---|---|
//! | [`Fcfs`] | arrival | no |
//! | [`Sstf`] | cylinder distance | no |
//! | [`Scan`], [`Look`], [`CScan`], [`CLook`] | sweep position | no |
//! | [`VScan`] | distance plus reversal penalty | no |
//! | [`Edf`] | deadline | no |
//! | [`Ssedo`] | weighted distance in a deadline window | no |
//! | [`Ssedv`] | distance and slack, weighted | no |
//! | [`ScanEdf`] | deadline, then sweep position | no |
//! | [`FdScan`] | sweep toward the earliest feasible deadline | service time |
//! | [`Sptf`], [`AgedSptf`] | positioning time (minus age) | positioning time |

mod aged_sptf;
mod clook;
mod cscan;
mod edf;
mod fcfs;
mod fd_scan;
mod look;
mod scan;
mod scan_edf;
mod sptf;
mod ssedo;
mod ssedv;
mod sstf;
mod sweep;
mod vscan;

pub use aged_sptf::AgedSptf;
pub use clook::CLook;
pub use cscan::CScan;
pub use edf::Edf;
pub use fcfs::Fcfs;
pub use fd_scan::{ExpiredRule, FdScan};
pub use look::Look;
pub use scan::Scan;
pub use scan_edf::ScanEdf;
pub use sptf::Sptf;
pub use ssedo::{MAX_WINDOW, Ssedo};
pub use ssedv::Ssedv;
pub use sstf::Sstf;
pub use vscan::VScan;
