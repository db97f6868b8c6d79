//! [`DiskModel`]: one disk's mechanics and state, serving dispatched requests
//! in virtual time and estimating service times for the schedulers.
//!
//! A service runs in this order: controller overhead, the arm's seek (every
//! leg the policy asked for), a head switch if the request starts on another
//! surface of the same cylinder, the rotational latency, the transfer. A disk
//! whose spec has a `cache` section serves through it instead (see
//! [`super::cache`]), with the same mechanics.
//!
//! The spindle's angle is kept in integer picoseconds: one revolution is
//! `round(60·10¹² / rpm)` ps and the angle at time t is `t mod revolution`,
//! so latencies are exact integer arithmetic however long a run lasts.

use sched_core::{Cylinder, Head, Nanos, Request, ServiceEstimator, Travel};

use super::cache::Cache;
use super::geometry::{Geometry, Location};
use super::seek::{Seek, duration};
use super::{DiskError, DiskSpec, RotationSpec, ServiceBreakdown, TransferSpec};
use crate::random::Stream;

/// Rotational latency, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rotation {
    Tracked { period_ps: u64 },
    Random { max: Nanos },
    None,
}

/// Transfer time, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Transfer {
    Geometry { period_ps: u64 },
    Constant(Nanos),
    Rate { bytes_per_s: f64 },
    Exponential { mean: Nanos },
}

/// A disk: its mechanics and where its arm is.
///
/// Built from a [`DiskSpec`]; serves requests with [`DiskModel::serve`] and
/// answers the schedulers' questions as a [`ServiceEstimator`]. Deterministic
/// parts never touch the random stream; random parts draw from the stream the
/// caller passes, in a fixed order (seek, rotation, transfer).
#[derive(Clone, Debug, PartialEq)]
pub struct DiskModel {
    name: String,
    geometry: Geometry,
    seek: Seek,
    rotation: Rotation,
    transfer: Transfer,
    period_ps: Option<u64>,
    head_switch: Nanos,
    overhead: Nanos,
    cylinder: Cylinder,
    surface: u32,
    /// The on-board cache and its state, if the spec has one; boxed so that
    /// a disk without one stays small.
    cache: Option<Box<Cache>>,
    /// Mean random seek plus mean rotational latency, for expected service times.
    mean_positioning: Nanos,
}

/// Where the heads are: the arm's cylinder and the surface whose head is
/// selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Arm {
    pub(super) cylinder: Cylinder,
    pub(super) surface: u32,
}

impl Arm {
    /// The heads on the track of `place`.
    pub(super) fn on(place: &Location) -> Arm {
        Arm {
            cylinder: place.cylinder,
            surface: place.surface,
        }
    }
}

/// Picoseconds to nanoseconds, rounded to nearest.
fn ps_to_ns(ps: u128) -> Nanos {
    ((ps + 500) / 1000) as Nanos
}

/// Picoseconds from the index mark to the start of physical slot `slot` of a
/// track of `spt` sectors (slots past `spt` continue into the next turn).
fn angle(slot: u128, spt: u32, period_ps: u128) -> u128 {
    slot * period_ps / u128::from(spt)
}

/// Time from `ready` until the block at `target` starts under the head.
fn latency(ready: Nanos, target: &Location, period_ps: u64) -> Nanos {
    let p = u128::from(period_ps);
    let now = u128::from(ready) * 1000 % p;
    let at = angle(
        u128::from(target.physical_sector()),
        target.sectors_per_track,
        p,
    );
    ps_to_ns((at + p - now) % p)
}

fn positive(field: &str, x: f64, expected: &'static str) -> Result<f64, DiskError> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(DiskError::invalid(field, x, expected))
    }
}

impl DiskModel {
    /// Checks a spec and builds the disk, arm at cylinder 0, surface 0.
    ///
    /// # Errors
    /// [`DiskError::Zero`], [`DiskError::InvalidZone`] for impossible
    /// geometry; [`DiskError::InvalidParameter`] naming the field for a
    /// negative or non-finite time, a non-positive rate or speed, a probability
    /// outside [0, 1], a missing `rpm` where the spec needs one, or a cache
    /// on a disk without tracked rotation and geometric transfer (its
    /// read-ahead and write-back are timed on the spinning media).
    pub fn from_spec(spec: &DiskSpec) -> Result<Self, DiskError> {
        let geometry = Geometry::new(&spec.geometry)?;
        let period_ps = spec
            .rpm
            .map(|rpm| {
                let rpm = positive(
                    "rpm",
                    rpm,
                    "a positive, finite number of revolutions per minute",
                )?;
                match (60e12 / rpm).round() as u64 {
                    0 => Err(DiskError::invalid(
                        "rpm",
                        rpm,
                        "slow enough for a revolution of at least 1 ps",
                    )),
                    ps => Ok(ps),
                }
            })
            .transpose()?;
        let spindle = |expected: &'static str| {
            period_ps.ok_or_else(|| DiskError::invalid("rpm", "none", expected))
        };
        let rotation = match spec.rotation {
            RotationSpec::Tracked => Rotation::Tracked {
                period_ps: spindle("a spindle speed, which tracked rotation needs")?,
            },
            RotationSpec::Random { max_ms: Some(ms) } => Rotation::Random {
                max: duration("rotation.max_ms", ms)?,
            },
            RotationSpec::Random { max_ms: None } => Rotation::Random {
                max: ps_to_ns(u128::from(spindle(
                    "a spindle speed, which random rotation without max_ms needs",
                )?)),
            },
            RotationSpec::None => Rotation::None,
        };
        let transfer = match spec.transfer {
            TransferSpec::Geometry => Transfer::Geometry {
                period_ps: spindle("a spindle speed, which geometric transfer needs")?,
            },
            TransferSpec::Constant { ms } => Transfer::Constant(duration("transfer.ms", ms)?),
            TransferSpec::Rate { bytes_per_s } => Transfer::Rate {
                bytes_per_s: positive(
                    "transfer.bytes_per_s",
                    bytes_per_s,
                    "a positive, finite rate",
                )?,
            },
            TransferSpec::Exponential { rate_per_s } => {
                let rate = positive("transfer.rate_per_s", rate_per_s, "a positive, finite rate")?;
                Transfer::Exponential {
                    mean: (1e9 / rate).round() as Nanos,
                }
            }
        };
        let overhead = duration("controller_overhead_ms", spec.controller_overhead_ms)?;
        let cache = match (&spec.cache, rotation, transfer) {
            (None, ..) => None,
            (Some(cache), Rotation::Tracked { period_ps }, Transfer::Geometry { .. }) => {
                Some(Box::new(Cache::new(cache, overhead, period_ps)?))
            }
            (Some(_), ..) => {
                return Err(DiskError::invalid(
                    "cache",
                    "a cache section",
                    "a disk with tracked rotation and geometric transfer, on which read-ahead and write-back are timed",
                ));
            }
        };
        let mut model = DiskModel {
            name: spec.name.clone(),
            geometry,
            seek: Seek::new(&spec.seek)?,
            rotation,
            transfer,
            period_ps,
            head_switch: duration("head_switch_ms", spec.head_switch_ms)?,
            overhead,
            cylinder: 0,
            surface: 0,
            cache,
            mean_positioning: 0,
        };
        model.mean_positioning = model.mean_random_seek() + model.mean_rotational_latency();
        Ok(model)
    }

    /// The spec's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The block layout.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Number of cylinders.
    pub fn cylinders(&self) -> u32 {
        self.geometry.cylinders()
    }

    /// Capacity in blocks.
    pub fn capacity_blocks(&self) -> u64 {
        self.geometry.capacity()
    }

    /// Bytes per block.
    pub fn block_bytes(&self) -> u32 {
        self.geometry.sector_bytes()
    }

    /// The cylinder holding `block`.
    ///
    /// # Errors
    /// [`DiskError::BlockOutOfRange`] for a block at or past the capacity.
    pub fn locate(&self, block: u64) -> Result<Cylinder, DiskError> {
        Ok(self.geometry.locate(block)?.cylinder)
    }

    /// The cylinder holding `block`, after checking that all `blocks` blocks
    /// from it exist.
    ///
    /// # Errors
    /// [`DiskError::BlockOutOfRange`] when the first block does not exist,
    /// [`DiskError::ExtentOutOfRange`] when a later one does not.
    pub fn check_extent(&self, block: u64, blocks: u32) -> Result<Cylinder, DiskError> {
        let cylinder = self.locate(block)?;
        let capacity = self.capacity_blocks();
        if u64::from(blocks) > capacity - block {
            return Err(DiskError::ExtentOutOfRange {
                block,
                blocks,
                capacity,
            });
        }
        Ok(cylinder)
    }

    /// Where the arm is.
    pub fn head(&self) -> Head {
        Head::at(self.cylinder)
    }

    /// Puts the arm at `cylinder`, surface 0 (initial placement).
    pub fn set_head(&mut self, cylinder: Cylinder) {
        self.cylinder = cylinder;
        self.surface = 0;
    }

    /// Serves a dispatched request starting at `start`, and leaves the arm on
    /// the track of its last block.
    ///
    /// The arm follows `travel` (to the edge, and for a wrap back to the
    /// restart cylinder, before the request's cylinder); the seek time sums
    /// every leg and `seek_distance` every cylinder crossed (a random seek
    /// model draws one seek for the whole request). Rotation is read off the
    /// clock or drawn from `rng`; so is an exponential transfer. Blocks past
    /// the end of the disk are served as if they were its last block: check
    /// requests with [`DiskModel::check_extent`] when they are submitted.
    ///
    /// A disk with a cache serves the request through it: a read it holds
    /// costs no media access, read-ahead goes on in virtual time until this
    /// call's `start`, and a written-back write completes before its media
    /// write, which the next request may have to wait for (see
    /// [`super::cache`]). The arm is then where the media work left it.
    pub fn serve(
        &mut self,
        req: &Request,
        travel: Travel,
        start: Nanos,
        rng: &mut Stream,
    ) -> ServiceBreakdown {
        // Checked first, so that a disk without a cache pays one comparison.
        if self.cache.is_some()
            && let Some(cache) = self.cache.take()
        {
            return self.serve_through(cache, req, travel, start, rng);
        }
        let target = self.geometry.locate_clamped(req.block);
        let (seek_distance, curve) = self.legs(self.cylinder, travel, target.cylinder);
        let seek = if self.seek.is_random() {
            self.seek.draw(seek_distance, rng)
        } else {
            curve
        };
        let switch = self.switch_time(self.surface, seek_distance, &target);
        let latency = match self.rotation {
            Rotation::Tracked { period_ps } => {
                let ready = start.saturating_add(self.overhead + seek + switch);
                latency(ready, &target, period_ps)
            }
            Rotation::Random { max } => rng.uniform_between(0, max),
            Rotation::None => 0,
        };
        let transfer = match self.transfer {
            Transfer::Exponential { mean } => rng.exponential(mean),
            _ => self.transfer_time(req.block, req.blocks),
        };
        let end = self
            .geometry
            .locate_clamped(req.block.saturating_add(u64::from(req.blocks.max(1)) - 1));
        self.cylinder = end.cylinder;
        self.surface = end.surface;
        ServiceBreakdown {
            seek,
            rotation: switch + latency,
            transfer,
            overhead: self.overhead,
            seek_distance,
        }
    }

    /// [`DiskModel::serve`] through `cache`, which is put back afterwards
    /// (it is taken out so that it can read the mechanics while it changes).
    #[inline(never)]
    fn serve_through(
        &mut self,
        mut cache: Box<Cache>,
        req: &Request,
        travel: Travel,
        start: Nanos,
        rng: &mut Stream,
    ) -> ServiceBreakdown {
        let mut arm = Arm {
            cylinder: self.cylinder,
            surface: self.surface,
        };
        let breakdown = cache.serve(self, &mut arm, req, travel, start, rng);
        (self.cylinder, self.surface) = (arm.cylinder, arm.surface);
        self.cache = Some(cache);
        breakdown
    }

    /// Cylinders crossed and seek time on the curve from cylinder `from` to
    /// `to` by way of `travel` (to the edge, and for a wrap back to the
    /// restart cylinder, first).
    #[inline]
    fn legs(&self, from: Cylinder, travel: Travel, to: Cylinder) -> (u32, Nanos) {
        let via = match travel {
            Travel::Direct => [None, None],
            Travel::ViaEdge { edge } => [Some(edge), None],
            Travel::Wrap { edge, restart } => [Some(edge), Some(restart)],
        };
        // On a curve every leg is a seek of its own (it starts and stops).
        let mut at = from;
        let (mut distance, mut curve): (u32, Nanos) = (0, 0);
        for stop in via.into_iter().flatten().chain([to]) {
            let d = at.abs_diff(stop);
            distance = distance.saturating_add(d);
            curve += self.seek.time(d);
            at = stop;
        }
        (distance, curve)
    }

    /// A head switch is needed when the arm stays on its cylinder but the
    /// request starts on another surface than `surface`, the selected one; a
    /// seek hides it in its settling.
    fn switch_time(&self, surface: u32, seek_distance: u32, target: &Location) -> Nanos {
        if seek_distance == 0 && target.surface != surface {
            self.head_switch
        } else {
            0
        }
    }

    /// Where `block` lies; a block past the end of the disk lies where its
    /// last block does.
    pub(super) fn place(&self, block: u64) -> Location {
        self.geometry.locate_clamped(block)
    }

    /// Moving the heads from `arm` to the track of `target` by way of
    /// `travel`: the cylinders crossed, the seek time (drawn from `rng` for
    /// a random seek model; its mean without a stream) and the head switch.
    pub(super) fn reach(
        &self,
        arm: Arm,
        travel: Travel,
        target: &Location,
        rng: Option<&mut Stream>,
    ) -> (u32, Nanos, Nanos) {
        let (distance, curve) = self.legs(arm.cylinder, travel, target.cylinder);
        let seek = match rng {
            Some(rng) if self.seek.is_random() => self.seek.draw(distance, rng),
            None if self.seek.is_random() => self.seek.time(distance),
            _ => curve,
        };
        (
            distance,
            seek,
            self.switch_time(arm.surface, distance, target),
        )
    }

    /// Time from `ready` until `target` starts under the heads, the spindle
    /// turning once every `period_ps`.
    pub(super) fn rotational_wait(&self, ready: Nanos, target: &Location, period_ps: u64) -> Nanos {
        latency(ready, target, period_ps)
    }

    /// How many of the `blocks` blocks from `block` a sequential media
    /// transfer that reached the start of the first one `elapsed` ns ago
    /// has read: the largest k with `media_time(block, k, period_ps)` ≤
    /// `elapsed` (the same rounding, so the two always agree).
    pub(super) fn media_read_within(
        &self,
        block: u64,
        blocks: u64,
        period_ps: u64,
        elapsed: Nanos,
    ) -> u64 {
        // media_time rounds picoseconds to the nearest nanosecond: k blocks
        // taking ps_k are done by `elapsed` iff ps_k + 500 < (elapsed + 1) ns.
        self.media_walk::<true>(block, blocks, period_ps, u128::from(elapsed) * 1000 + 499)
            .0
    }

    /// Time to move the heads from the end of one track to the next track
    /// of a sequential transfer in another cylinder.
    fn track_to_track(&self) -> Nanos {
        match self.seek {
            Seek::SqrtLinear { .. } | Seek::Table(_) => self.seek.time(1),
            Seek::None | Seek::Random { .. } => self.head_switch,
        }
    }

    /// Transfer time of `blocks` blocks from `block`; for an exponential
    /// transfer, its mean.
    ///
    /// With a geometric transfer each block takes a revolution divided by
    /// the sectors on its track, and each track boundary crossed costs a head
    /// switch (or a one-cylinder seek) and the rotation to the next track's
    /// first block. Once the first block is under the head the rest is
    /// locked to the spindle, so this does not depend on the time.
    pub fn transfer_time(&self, block: u64, blocks: u32) -> Nanos {
        match self.transfer {
            Transfer::Geometry { period_ps } => {
                self.media_time(block, u64::from(blocks), period_ps)
            }
            Transfer::Constant(t) => t,
            Transfer::Rate { bytes_per_s } => {
                let bytes = f64::from(blocks) * f64::from(self.block_bytes());
                (bytes * 1e9 / bytes_per_s).round() as Nanos
            }
            Transfer::Exponential { mean } => mean,
        }
    }

    /// Geometric transfer time of `blocks` blocks from `block`, walking the
    /// request track by track, the spindle turning once every `period_ps`.
    pub(super) fn media_time(&self, block: u64, blocks: u64, period_ps: u64) -> Nanos {
        ps_to_ns(self.media_walk::<false>(block, blocks, period_ps, 0).1)
    }

    /// Walks a sequential media transfer of `blocks` blocks from `block`
    /// track by track: how many of them are read within `budget_ps`
    /// picoseconds of the start of the first, and the picoseconds those
    /// take. Unless `BOUNDED`, the budget is ignored (all of them, and the
    /// whole time), and the walk compiles to the plain sum the cache-free
    /// transfer time has always been.
    fn media_walk<const BOUNDED: bool>(
        &self,
        block: u64,
        blocks: u64,
        period_ps: u64,
        budget_ps: u128,
    ) -> (u64, u128) {
        let p = u128::from(period_ps);
        let capacity = self.capacity_blocks();
        let mut block = block.min(capacity - 1);
        let mut here = self.geometry.locate_clamped(block);
        let mut left = blocks;
        let (mut done, mut ps) = (0u64, 0u128);
        while left > 0 {
            let next_track = block + u64::from(here.left_on_track());
            // Blocks past the end of the disk stay on its last track.
            let run = if next_track >= capacity {
                left
            } else {
                left.min(u64::from(here.left_on_track()))
            };
            let first = u128::from(here.physical_sector());
            let spt = here.sectors_per_track;
            let run_ps = angle(first + u128::from(run), spt, p) - angle(first, spt, p);
            if BOUNDED && ps + run_ps > budget_ps {
                // The budget ends on this track, at angle x from the index
                // mark: k blocks from slot `first` end by then iff
                // ⌊(first + k)·p / spt⌋ ≤ x, i.e. first + k ≤ ⌈(x + 1)·spt / p⌉ − 1.
                let x = budget_ps.saturating_sub(ps) + angle(first, spt, p);
                let slots = ((x + 1) * u128::from(spt)).div_ceil(p) - 1;
                let k = (slots - first).min(u128::from(run));
                let ps = ps + angle(first + k, spt, p) - angle(first, spt, p);
                return (done + k as u64, ps);
            }
            ps += run_ps;
            done += run;
            left -= run;
            if left == 0 {
                break;
            }
            let next = self.geometry.locate_clamped(next_track);
            let switch = if next.cylinder == here.cylinder {
                self.head_switch
            } else {
                self.track_to_track()
            };
            let switch_ps = u128::from(switch) * 1000;
            // This track's last block ends where its first one starts (its
            // skew); the next track's first block starts at that track's skew.
            let end = angle(u128::from(here.skew), spt, p);
            let start = angle(u128::from(next.skew), next.sectors_per_track, p);
            ps += switch_ps + (start + p - (end + switch_ps) % p) % p;
            block = next_track;
            here = next;
        }
        (done, ps)
    }

    /// Controller overhead per request. With a cache, what a read that
    /// misses it pays after another read: the per-request, command and
    /// completion overheads (not the bus transfer).
    pub fn overhead(&self) -> Nanos {
        match &self.cache {
            Some(cache) => cache.read_miss_overhead(),
            None => self.overhead,
        }
    }

    /// Head-switch time.
    pub fn head_switch(&self) -> Nanos {
        self.head_switch
    }

    /// The heads on cylinder `head`, on the surface the model last used.
    fn arm_at(&self, head: Head) -> Arm {
        Arm {
            cylinder: head.cylinder,
            surface: self.surface,
        }
    }

    /// One revolution of the spindle, if the spec gives its speed.
    pub fn revolution(&self) -> Option<Nanos> {
        self.period_ps.map(|ps| ps_to_ns(u128::from(ps)))
    }

    /// Mean rotational latency: half a revolution when tracked (for requests
    /// at random angles), the middle of the range when drawn, 0 without.
    pub fn mean_rotational_latency(&self) -> Nanos {
        match self.rotation {
            Rotation::Tracked { period_ps } => ps_to_ns(u128::from(period_ps) / 2),
            Rotation::Random { max } => max.div_ceil(2),
            Rotation::None => 0,
        }
    }

    /// Expected seek time between two blocks drawn independently and
    /// uniformly over the capacity (so cylinders weigh by their capacity on a
    /// zoned disk), computed exactly over the distribution of distances and
    /// rounded to the nanosecond. For the random seek model, its mean.
    pub fn mean_random_seek(&self) -> Nanos {
        if self.seek.is_random() {
            return self.seek.time(0);
        }
        let runs: Vec<(u32, u32, u64)> = self.geometry.cylinder_runs().collect();
        let mut weighted = 0u128;
        for &(first_a, count_a, weight_a) in &runs {
            let (a0, a1) = (i64::from(first_a), i64::from(first_a) + i64::from(count_a));
            for &(first_b, count_b, weight_b) in &runs {
                let (b0, b1) = (i64::from(first_b), i64::from(first_b) + i64::from(count_b));
                // Σ over cylinder pairs (i in A, j in B) of seek(|j − i|),
                // grouped by k = j − i: the pairs with a given k number
                // |[a0, a1) ∩ [b0 − k, b1 − k)|.
                let mut sum = 0u128;
                for k in (b0 - a1 + 1)..b1 - a0 {
                    let pairs = (a1.min(b1 - k) - a0.max(b0 - k)).max(0) as u128;
                    sum += pairs * u128::from(self.seek.time(k.unsigned_abs() as u32));
                }
                weighted += u128::from(weight_a) * u128::from(weight_b) * sum;
            }
        }
        let pairs = u128::from(self.capacity_blocks()).pow(2);
        ((weighted + pairs / 2) / pairs) as Nanos
    }
}

impl ServiceEstimator for DiskModel {
    /// Seek from `head.cylinder` (its mean for a random seek model), a head
    /// switch if the arm stays on its cylinder and the request starts on
    /// another surface than the one the model's heads are on, and the
    /// rotational latency read off the clock after the controller overhead
    /// and the seek (its mean when drawn at random).
    ///
    /// With a cache, the positioning [`DiskModel::serve`] would do at `now`
    /// (none for a hit), from where the drive's own background work (read-ahead,
    /// write-back) has taken the arm by then, or else from `head`.
    fn positioning_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        if let Some(cache) = &self.cache {
            let b = cache.estimate(self, self.arm_at(head), req, now);
            return b.seek + b.rotation;
        }
        let target = self.geometry.locate_clamped(req.block);
        let distance = head.cylinder.abs_diff(target.cylinder);
        let seek = self.seek.time(distance);
        let switch = self.switch_time(self.surface, distance, &target);
        let rotation = match self.rotation {
            Rotation::Tracked { period_ps } => latency(
                now.saturating_add(self.overhead + seek + switch),
                &target,
                period_ps,
            ),
            Rotation::Random { .. } | Rotation::None => self.mean_rotational_latency(),
        };
        seek + switch + rotation
    }

    /// Overhead, positioning and transfer (expected values for random parts).
    /// With a cache, the whole service [`DiskModel::serve`] would give at
    /// `now`, the arm as for [`ServiceEstimator::positioning_time`].
    fn service_time(&self, head: Head, req: &Request, now: Nanos) -> Nanos {
        if let Some(cache) = &self.cache {
            return cache.estimate(self, self.arm_at(head), req, now).total();
        }
        self.overhead
            + self.positioning_time(head, req, now)
            + self.transfer_time(req.block, req.blocks)
    }

    /// Overhead, the mean random seek and rotational latency, and the
    /// transfer: the service of a request from a random arm at a random
    /// moment, ignoring the cache.
    fn expected_service_time(&self, req: &Request) -> Nanos {
        self.overhead + self.mean_positioning + self.transfer_time(req.block, req.blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::seek::ms_to_ns;
    use crate::disk::{GeometrySpec, SeekSpec, presets};
    use crate::random::Purpose;
    use sched_core::{Kind, RequestId};

    fn model(spec: &DiskSpec) -> DiskModel {
        DiskModel::from_spec(spec).unwrap()
    }

    fn read(id: u64, disk: &DiskModel, block: u64, blocks: u32) -> Request {
        Request::new(
            RequestId(id),
            Kind::Read,
            block,
            blocks,
            disk.locate(block).unwrap(),
            0,
        )
    }

    #[test]
    fn hp97560_figures() {
        let disk = model(&presets::hp97560());
        assert_eq!(disk.cylinders(), 1962);
        assert_eq!(disk.capacity_blocks(), 2_684_016);
        assert_eq!(disk.block_bytes(), 512);
        assert_eq!(disk.revolution(), Some(14_992_504)); // 60 s / 4002
        assert_eq!(disk.mean_rotational_latency(), 7_496_252);
        assert_eq!(disk.overhead(), 2_200_000);
        assert_eq!(disk.head_switch(), 1_600_000);
        // One sector is 1/72 of a revolution.
        assert_eq!(disk.transfer_time(0, 1), 208_229);
        assert_eq!(disk.transfer_time(0, 72), 14_992_504);
        // Mean seek for uniformly random blocks, the sum done by hand in
        // f64: Σ_d P(d)·seek(d), P(0) = 1/C, P(d) = 2(C − d)/C².
        let c = 1962.0f64;
        let by_hand: f64 = (1..1962u32)
            .map(|d| {
                let x = f64::from(d);
                let ms = if d < 383 {
                    3.24 + 0.4 * x.sqrt()
                } else {
                    8.0 + 0.008 * x
                };
                2.0 * (c - x) / (c * c) * (ms * 1e6).round()
            })
            .sum();
        assert!(
            (disk.mean_random_seek() as f64 - by_hand).abs() < 1.0,
            "{} {by_hand}",
            disk.mean_random_seek()
        );
        assert_eq!(disk.mean_random_seek(), 12_831_836);
    }

    #[test]
    fn a_sequential_transfer_pays_skewed_switches_only() {
        let disk = model(&presets::hp97560());
        let sector = |n: u64| (n * 14_992_503_748 / 72) as f64 / 1000.0;
        // A whole cylinder from its first block: 19 tracks, 18 head switches
        // of 1.6 ms, each followed by the wait to the end of the 8-sector
        // track skew (8/72 of a turn = 1.666 ms).
        let t = disk.transfer_time(0, 72 * 19) as f64;
        assert!(
            (t - (19.0 * sector(72) + 18.0 * sector(8))).abs() < 2.0,
            "{t}"
        );
        // Across a cylinder boundary: a one-cylinder seek (3.64 ms) within
        // the 18-sector cylinder skew (3.748 ms).
        let t = disk.transfer_time(72 * 19 - 1, 2) as f64;
        assert!((t - (2.0 * sector(1) + sector(18))).abs() < 2.0, "{t}");
        // Without skew, each switch misses the next track's first block by
        // the switch time and waits almost a turn.
        let mut spec = presets::hp97560();
        spec.geometry.track_skew = 0;
        let t = model(&spec).transfer_time(71, 2) as f64;
        assert!((t - (2.0 * sector(1) + sector(72))).abs() < 2.0, "{t}");
    }

    #[test]
    fn media_progress_agrees_with_the_transfer_time_to_the_nanosecond() {
        // Read-ahead progress is the inverse of the transfer time, across
        // head switches and cylinder boundaries (HP 97560: 72 blocks a
        // track, 19 tracks a cylinder).
        let disk = model(&presets::hp97560());
        let p = disk.period_ps.unwrap();
        for block in [0, 70, 72 * 19 - 3, 123_456] {
            for k in 1..=200 {
                let t = disk.media_time(block, k, p);
                assert_eq!(disk.media_read_within(block, 200, p, t), k, "{block} {k}");
                assert_eq!(disk.media_read_within(block, 200, p, t - 1), k - 1);
            }
            assert_eq!(disk.media_read_within(block, 200, p, u64::MAX / 2000), 200);
        }
    }

    #[test]
    fn travel_legs_add_up() {
        let mut disk = model(&presets::chen_towsley_91());
        let mut rng = Stream::new(1, 0, Purpose::Service);
        disk.set_head(400);
        let req = read(1, &disk, 6 * 500, 1); // cylinder 500
        let via = disk.serve(&req, Travel::ViaEdge { edge: 999 }, 0, &mut rng);
        let seek = |d: f64| ms_to_ns(8.0 + 0.5 * d.sqrt());
        assert_eq!(via.seek_distance, 599 + 499);
        assert_eq!(via.seek, seek(599.0) + seek(499.0));
        assert_eq!(disk.head(), Head::at(500));
        let req = read(2, &disk, 6 * 100, 1); // cylinder 100
        let wrap = disk.serve(
            &req,
            Travel::Wrap {
                edge: 999,
                restart: 0,
            },
            0,
            &mut rng,
        );
        assert_eq!(wrap.seek_distance, 499 + 999 + 100);
        assert_eq!(wrap.seek, seek(499.0) + seek(999.0) + seek(100.0));
        assert_eq!(disk.head(), Head::at(100));
    }

    #[test]
    fn tracked_rotation_averages_half_a_revolution() {
        let mut disk = model(&presets::hp97560());
        let mut rng = Stream::new(3, 0, Purpose::Addresses);
        let mut unused = Stream::new(3, 0, Purpose::Service);
        let (mut sum, mut n) = (0u64, 0u64);
        for i in 0..40_000 {
            let block = rng.below(disk.capacity_blocks());
            let start = rng.below(1_000_000_000_000);
            let b = disk.serve(
                &read(i, &disk, block, 1),
                Travel::Direct,
                start,
                &mut unused,
            );
            if b.seek_distance > 0 {
                // no head switch: the rotation is all latency
                assert!(b.rotation < disk.revolution().unwrap());
                sum += b.rotation;
                n += 1;
            }
        }
        let mean = sum as f64 / n as f64;
        let half = disk.revolution().unwrap() as f64 / 2.0;
        assert!((mean / half - 1.0).abs() < 0.01, "{mean} vs {half}");
        // The deterministic model never drew from the stream it was handed.
        assert_eq!(
            unused.below(u64::MAX),
            Stream::new(3, 0, Purpose::Service).below(u64::MAX)
        );
    }

    #[test]
    fn random_rotation_averages_half_its_range() {
        let mut disk = model(&presets::chen_towsley_91());
        let mut addresses = Stream::new(4, 0, Purpose::Addresses);
        let mut service = Stream::new(4, 0, Purpose::Service);
        let n = 40_000;
        let mut sum = 0u64;
        for i in 0..n {
            let block = addresses.below(disk.capacity_blocks());
            let b = disk.serve(&read(i, &disk, block, 1), Travel::Direct, 0, &mut service);
            assert!(b.rotation <= 16_700_000);
            assert_eq!((b.transfer, b.overhead), (800_000, 0));
            sum += b.rotation;
        }
        let mean = sum as f64 / n as f64;
        assert!((mean / 8.35e6 - 1.0).abs() < 0.01, "{mean}");
        assert_eq!(disk.mean_rotational_latency(), 8_350_000);
    }

    #[test]
    fn hp97560_random_reads_at_queue_depth_one() {
        // Mean service ≈ mean seek + half a revolution + one sector + overhead.
        let mut disk = model(&presets::hp97560());
        let mut addresses = Stream::new(5, 0, Purpose::Addresses);
        let mut arrivals = Stream::new(5, 0, Purpose::Arrivals);
        let mut service = Stream::new(5, 0, Purpose::Service);
        let n = 20_000;
        let (mut now, mut total) = (0u64, 0u64);
        for i in 0..n {
            now += arrivals.exponential(30_000_000); // idle until the next arrival
            let block = addresses.below(disk.capacity_blocks());
            let b = disk.serve(&read(i, &disk, block, 1), Travel::Direct, now, &mut service);
            now += b.total();
            total += b.total();
        }
        let mean = total as f64 / n as f64;
        let expected = (disk.mean_random_seek()
            + disk.mean_rotational_latency()
            + disk.transfer_time(0, 1)
            + disk.overhead()) as f64;
        assert!((mean / expected - 1.0).abs() < 0.02, "{mean} vs {expected}");
    }

    #[test]
    fn the_estimator_agrees_with_serve_for_deterministic_models() {
        // The HP 97560, and a zoned, skewed disk with a table seek curve.
        let mut zoned = presets::hp97560();
        zoned.geometry = GeometrySpec {
            zones: vec![crate::disk::Zone {
                first_cylinder: 0,
                last_cylinder: 99,
                sectors_per_track: 90,
            }],
            track_skew: 10,
            cylinder_skew: 20,
            ..GeometrySpec::uniform(300, 4, 60)
        };
        zoned.seek = SeekSpec::Table {
            points: vec![(1, 2.5), (50, 6.0), (299, 14.0)],
        };
        for spec in [presets::hp97560(), zoned] {
            let mut disk = model(&spec);
            let mut rng = Stream::new(6, 0, Purpose::Addresses);
            let mut unused = Stream::new(6, 0, Purpose::Service);
            let mut now = 0;
            for i in 0..5_000 {
                let blocks = 1 + rng.below(300) as u32;
                let block = rng.below(disk.capacity_blocks() - u64::from(blocks));
                // Sometimes the same cylinder, to exercise head switches.
                let block = if i % 5 == 0 {
                    let here = disk.head().cylinder;
                    disk.geometry().block(here, (i % 4) as u32, 0).unwrap()
                } else {
                    block
                };
                let req = read(i, &disk, block, blocks);
                now += rng.below(50_000_000);
                let (head, estimate) = (disk.head(), disk.service_time(disk.head(), &req, now));
                let positioning = disk.positioning_time(head, &req, now);
                let served = disk.serve(&req, Travel::Direct, now, &mut unused);
                assert_eq!(estimate, served.total(), "{} request {i}", spec.name);
                assert_eq!(positioning, served.seek + served.rotation);
                now += served.total();
            }
        }
    }

    #[test]
    fn random_parts_draw_from_the_stream_and_repeat_with_it() {
        for name in ["ibm3330", "exponential", "chen-towsley-91", "hp7935"] {
            let spec = presets::preset(name).unwrap();
            let run = || {
                let mut disk = model(&spec);
                let mut rng = Stream::new(8, 1, Purpose::Service);
                (0..50u64)
                    .map(|i| {
                        let req = read(i, &disk, (i * 7919) % disk.capacity_blocks(), 1);
                        disk.serve(&req, Travel::Direct, i * 1_000_000, &mut rng)
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(run(), run(), "{name}");
        }
    }

    #[test]
    fn ibm3330_mean_service_is_22_ms() {
        // Towsley, Chen & Yu §4: E[X] = (1 − p_s)·30 + 8 + 2 ms = 22 ms with p_s = 0.6.
        let mut disk = model(&presets::ibm3330(0.6));
        let mut rng = Stream::new(9, 0, Purpose::Service);
        let n = 100_000;
        let total: u64 = (0..n)
            .map(|i| {
                let req = read(i, &disk, i % disk.capacity_blocks(), 1);
                disk.serve(&req, Travel::Direct, 0, &mut rng).total()
            })
            .sum();
        assert!((total as f64 / n as f64 / 22e6 - 1.0).abs() < 0.01);
        let expected =
            disk.mean_random_seek() + disk.mean_rotational_latency() + disk.transfer_time(0, 1);
        assert_eq!(expected, 22_000_000);
    }

    #[test]
    fn exponential_service_has_mean_one_over_mu_and_one_cylinder() {
        let mut disk = model(&presets::exponential(45.0));
        assert_eq!(disk.cylinders(), 1);
        assert_eq!(disk.locate(disk.capacity_blocks() - 1).unwrap(), 0);
        let mut rng = Stream::new(10, 0, Purpose::Service);
        let n = 100_000;
        let mut total = 0u64;
        for i in 0..n {
            let req = read(i, &disk, i * 1_000_003 % disk.capacity_blocks(), 8);
            let b = disk.serve(&req, Travel::Direct, 0, &mut rng);
            assert_eq!(
                (b.seek, b.rotation, b.overhead, b.seek_distance),
                (0, 0, 0, 0)
            );
            total += b.total();
        }
        assert!((total as f64 / n as f64 / (1e9 / 45.0) - 1.0).abs() < 0.01);
        assert_eq!(
            disk.service_time(Head::at(0), &read(0, &disk, 5, 1), 0),
            22_222_222
        );
    }

    #[test]
    fn hp7935_and_hp7937_rate_and_overhead() {
        let disk = model(&presets::hp7935());
        assert_eq!((disk.cylinders(), disk.block_bytes()), (1321, 256));
        assert_eq!(disk.capacity_blocks(), 1321 * 13 * 92);
        assert_eq!(disk.overhead(), 3_500_000);
        assert_eq!(disk.transfer_time(0, 32), 8_192_000); // 8 KiB at 10⁶ B/s
        assert_eq!(disk.mean_rotational_latency(), 8_333_334); // half of U[0, 16 666 667 ns], 3600 RPM
        let disk = model(&presets::hp7937());
        assert_eq!(disk.capacity_blocks(), 1396 * 13 * 123);
        assert_eq!(disk.overhead(), 1_000_000);
    }

    #[test]
    fn addresses_past_the_end_are_typed_errors() {
        let disk = model(&presets::hp97560());
        let err = disk.locate(2_684_016).unwrap_err();
        assert_eq!(
            err.to_string(),
            "block 2684016 is beyond the end of the disk (2684016 blocks)"
        );
        assert!(matches!(
            disk.check_extent(2_684_000, 17),
            Err(DiskError::ExtentOutOfRange {
                block: 2_684_000,
                blocks: 17,
                capacity: 2_684_016
            })
        ));
        assert_eq!(disk.check_extent(2_684_000, 16).unwrap(), 1961);
    }

    #[test]
    fn specs_missing_a_spindle_speed_are_refused() {
        let mut spec = presets::hp97560();
        spec.rpm = None;
        let err = DiskModel::from_spec(&spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`rpm` = none: a spindle speed, which tracked rotation needs"
        );
        spec.rpm = Some(0.0);
        assert!(matches!(
            DiskModel::from_spec(&spec),
            Err(DiskError::InvalidParameter { field, .. }) if field == "rpm"
        ));
        let mut spec = presets::chen_towsley_91();
        spec.transfer = TransferSpec::Geometry;
        let err = DiskModel::from_spec(&spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`rpm` = none: a spindle speed, which geometric transfer needs"
        );
        let mut spec = presets::chen_towsley_91();
        spec.controller_overhead_ms = -1.0;
        let err = DiskModel::from_spec(&spec).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`controller_overhead_ms` = -1: a finite, non-negative number of milliseconds"
        );
    }
}
