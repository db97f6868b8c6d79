//! Disk mechanics: geometry, seek curves, rotation, transfer, overheads, presets.
//!
//! A [`DiskSpec`] describes a disk in human units (ms, RPM, bytes); presets
//! give the disks of the seed papers ([`preset`], [`PRESETS`]) and spec files
//! override them field by field ([`DiskSpec::from_file`]). [`DiskModel`] is
//! the checked, running disk: it maps blocks to cylinders, serves dispatched
//! requests in virtual time ([`DiskModel::serve`]) and estimates service
//! times for the schedulers (`sched_core::ServiceEstimator`). A spec may give
//! the drive an on-board cache ([`CacheSpec`], see [`cache`]). The drive an
//! HP SRT trace was recorded on comes from the trace's header ([`from_srt`]).

pub mod cache;
pub mod disksim;
mod drive_spec;
mod error;
mod geometry;
mod mechanics;
mod model;
pub mod presets;
mod seek;
mod srt_drive;
pub mod validation;

pub use cache::{
    AfterPrevious, BusSpec, CacheOverheads, CacheSpec, ExtraWriteDisconnect, ReadAheadScheme,
    ReadAheadSpec, Unflushed, WriteBack, WriteStart,
};
pub use disksim::{
    DISKSIM_VALIDATED, DisksimDisk, DisksimOptions, DisksimOverheads, from_disksim, load_disksim,
};
pub use drive_spec::{DiskSpec, RotationSpec, SpecFormat, TransferSpec};
pub use error::DiskError;
pub use geometry::{
    DEFAULT_SECTOR_BYTES, Geometry, GeometrySpec, Location, SurfaceOrder, Zone, ZoneLayout,
};
pub use model::{DiskModel, MAX_SLOWDOWN};
pub use presets::{PRESETS, preset};
pub use seek::{LongSeek, SeekSpec};
pub use srt_drive::from_srt;

use sched_core::Nanos;

/// Where the time of one service went. The parts add up to the service time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServiceBreakdown {
    /// Arm movement, including any sweep to the disk edge the policy asked for.
    pub seek: Nanos,
    /// Waiting for the first sector to come under the head (after the seek),
    /// including head-switch settling.
    pub rotation: Nanos,
    /// Media transfer of the requested blocks.
    pub transfer: Nanos,
    /// Controller and bus overhead.
    pub overhead: Nanos,
    /// Cylinders travelled by the arm.
    pub seek_distance: u32,
}

impl ServiceBreakdown {
    /// The whole service time.
    pub fn total(&self) -> Nanos {
        // Saturating: a slowed service must never wrap round to a time
        // before its start.
        self.seek
            .saturating_add(self.rotation)
            .saturating_add(self.transfer)
            .saturating_add(self.overhead)
    }
}
