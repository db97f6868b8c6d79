//! Disk mechanics: geometry, seek curves, rotation, transfer, overheads, presets.

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
        self.seek + self.rotation + self.transfer + self.overhead
    }
}
