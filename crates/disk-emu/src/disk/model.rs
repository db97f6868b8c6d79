//! [`DiskModel`]: one disk's mechanics and state, serving dispatched requests
//! in virtual time and estimating service times for the schedulers.
//!
//! A service runs in this order: controller overhead, the arm's seek (every
//! leg the policy asked for), a head switch if the request starts on another
//! surface of the same cylinder, the rotational latency, the transfer. A disk
//! whose spec has a `cache` section serves through it instead (see
//! [`super::cache`]), with the same mechanics.
//!
//! The mechanics themselves are [`Mechanics`]'s.

use sched_core::{Cylinder, Head, Nanos, Request, ServiceEstimator, Travel};

use super::cache::{Cache, Unflushed};
use super::geometry::{Geometry, Location};
use super::mechanics::{Arm, Mechanics, MediaStart, Rotation, Transfer, latency};
use super::seek::duration;
use super::{DiskError, DiskSpec, ServiceBreakdown};
use crate::random::Stream;

/// A disk: its mechanics and where its arm is.
///
/// Built from a [`DiskSpec`]; serves requests with [`DiskModel::serve`] and
/// answers the schedulers' questions as a [`ServiceEstimator`]. Deterministic
/// parts never touch the random stream; random parts draw from the stream the
/// caller passes, in a fixed order (seek, rotation, transfer).
#[derive(Clone, Debug, PartialEq)]
pub struct DiskModel {
    name: String,
    mech: Mechanics,
    overhead: Nanos,
    cylinder: Cylinder,
    surface: u32,
    /// The on-board cache and its state, if the spec has one; boxed so that
    /// a disk without one stays small.
    cache: Option<Box<Cache>>,
    /// The mean random seek, worked out once: it sums over every pair of
    /// cylinder runs, and experiments ask for it as they check and pace a run.
    mean_seek: Nanos,
    /// Mean random seek plus mean rotational latency, for expected service times.
    mean_positioning: Nanos,
    /// Where the blocks of the requests admitted lie.
    admitted: Admitted,
    /// Services take this many times as long as the mechanics say: 1 but
    /// while a fault injector has slowed the disk.
    slowdown: f64,
}

/// The largest slowdown factor: a drive retrying every sector is some
/// hundreds of times as slow; ten thousand times keeps the longest service
/// (seconds, stretched) far inside the virtual clock's range of 584 years.
pub const MAX_SLOWDOWN: f64 = 1e4;

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
        let mech = Mechanics::from_spec(spec)?;
        let overhead = duration("controller_overhead_ms", spec.controller_overhead_ms)?;
        let cache = match (&spec.cache, mech.rotation, mech.transfer) {
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
        if cache.is_some() && mech.seek.is_per_request() {
            return Err(DiskError::invalid(
                "seek.per_request",
                true,
                "false on a disk with a cache, whose seeks are the drive's own",
            ));
        }
        let mut model = DiskModel {
            name: spec.name.clone(),
            mech,
            overhead,
            cylinder: 0,
            surface: 0,
            cache,
            mean_seek: 0,
            mean_positioning: 0,
            admitted: Admitted::new(),
            slowdown: 1.0,
        };
        model.mean_seek = model.mech.mean_random_seek();
        model.mean_positioning = model.mean_seek + model.mean_rotational_latency();
        Ok(model)
    }

    /// The spec's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The block layout.
    pub fn geometry(&self) -> &Geometry {
        &self.mech.geometry
    }

    /// Number of cylinders.
    pub fn cylinders(&self) -> u32 {
        self.mech.geometry.cylinders()
    }

    /// Capacity in blocks.
    pub fn capacity_blocks(&self) -> u64 {
        self.mech.geometry.capacity()
    }

    /// Bytes per block.
    pub fn block_bytes(&self) -> u32 {
        self.mech.geometry.sector_bytes()
    }

    /// The cylinder holding `block`.
    ///
    /// # Errors
    /// [`DiskError::BlockOutOfRange`] for a block at or past the capacity.
    pub fn locate(&self, block: u64) -> Result<Cylinder, DiskError> {
        self.mech.geometry.cylinder_of(block)
    }

    /// The cylinder holding `block`, after checking that all `blocks` blocks
    /// from it exist.
    ///
    /// # Errors
    /// [`DiskError::BlockOutOfRange`] when the first block does not exist,
    /// [`DiskError::ExtentOutOfRange`] when a later one does not.
    pub fn check_extent(&self, block: u64, blocks: u32) -> Result<Cylinder, DiskError> {
        let cylinder = self.locate(block)?;
        self.check_end(block, blocks)?;
        Ok(cylinder)
    }

    /// [`DiskModel::check_extent`] for a request about to be queued on
    /// this disk: the place of its first block is kept, so that serving it
    /// need not locate the block again.
    ///
    /// # Errors
    /// Those of [`DiskModel::check_extent`].
    pub fn admit(&mut self, block: u64, blocks: u32) -> Result<Cylinder, DiskError> {
        let at = self.mech.geometry.locate(block)?;
        self.check_end(block, blocks)?;
        self.admitted.keep(block, at);
        Ok(at.cylinder)
    }

    /// Checks that the `blocks` blocks from `block`, which exists, all do.
    fn check_end(&self, block: u64, blocks: u32) -> Result<(), DiskError> {
        let capacity = self.capacity_blocks();
        if u64::from(blocks) > capacity - block {
            return Err(DiskError::ExtentOutOfRange {
                block,
                blocks,
                capacity,
            });
        }
        Ok(())
    }

    /// Where `block` lies (for a block past the end, the last block's
    /// place), kept from its admission if it is still there.
    fn place_of(&self, block: u64) -> Location {
        self.admitted
            .place(block)
            .unwrap_or_else(|| self.mech.geometry.locate_clamped(block))
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
    ///
    /// A disk slowed by [`DiskModel::set_slowdown`] stretches every part of
    /// the service by its factor.
    pub fn serve(
        &mut self,
        req: &Request,
        travel: Travel,
        start: Nanos,
        rng: &mut Stream,
    ) -> ServiceBreakdown {
        let b = self.serve_mechanics(req, travel, start, rng);
        if self.slowdown == 1.0 {
            return b;
        }
        let k = |t: Nanos| (t as f64 * self.slowdown).round() as Nanos;
        let slowed = ServiceBreakdown {
            seek: k(b.seek),
            rotation: k(b.rotation),
            transfer: k(b.transfer),
            overhead: k(b.overhead),
            seek_distance: b.seek_distance,
        };
        if req.kind == sched_core::Kind::Write
            && let Some(cache) = self.cache.as_mut()
        {
            cache.acknowledged(req.id, start + slowed.total());
        }
        slowed
    }

    /// Makes every later service `factor` times as long (1 restores the
    /// disk). This is the fault injector's slow disk: a drive retrying
    /// marginal sectors or throttled by heat. It stretches what the host
    /// sees; the cache's background work (read-ahead, write-back) and the
    /// service-time estimates the policies ask for keep the drive's normal
    /// pace.
    ///
    /// # Errors
    /// [`DiskError::InvalidParameter`] for a factor that is not finite, below
    /// 1 or above [`MAX_SLOWDOWN`].
    pub fn set_slowdown(&mut self, factor: f64) -> Result<(), DiskError> {
        if !(1.0..=MAX_SLOWDOWN).contains(&factor) {
            return Err(DiskError::invalid(
                "slowdown",
                factor,
                "a factor from 1 to 10000",
            ));
        }
        self.slowdown = factor;
        Ok(())
    }

    /// Back to the mechanics' own speed.
    pub fn restore_speed(&mut self) {
        self.slowdown = 1.0;
    }

    /// The current slowdown factor (1: normal speed).
    pub fn slowdown(&self) -> f64 {
        self.slowdown
    }

    /// The writes the write-back cache holds whose media write has not ended
    /// by `at`, in the order they were served (see [`super::cache`]): those
    /// acknowledged by `at` are what a power cut at `at` may lose; one
    /// acknowledged later is still in service. Empty without a write-back
    /// cache or with nothing dirty.
    pub fn unflushed(&self, at: Nanos) -> Vec<Unflushed> {
        self.cache
            .as_ref()
            .map_or_else(Vec::new, |c| c.unflushed(at))
    }

    /// The drive loses power at `at` and comes back at once: its buffer is
    /// emptied, and the written-back writes it had acknowledged but not yet
    /// put on the media (returned, in the order they were served) are lost.
    /// The arm stays where it was.
    pub fn cut_power(&mut self, at: Nanos) -> Vec<Unflushed> {
        self.cache
            .as_mut()
            .map_or_else(Vec::new, |c| c.cut_power(at))
    }

    /// [`DiskModel::serve`] at the mechanics' own speed.
    fn serve_mechanics(
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
        let target = self.place_of(req.block);
        let (seek_distance, curve) = self.mech.legs(self.cylinder, travel, target.cylinder);
        let seek = if self.mech.seek.is_per_request() {
            self.mech.seek.draw(seek_distance, &mut request_stream(req))
        } else if self.mech.seek.is_random() {
            self.mech.seek.draw(seek_distance, rng)
        } else {
            curve
        };
        let switch = self.mech.switch_time(self.surface, seek_distance, &target);
        let latency = match self.mech.rotation {
            Rotation::Tracked { period_ps } => {
                let ready = start.saturating_add(self.overhead + seek + switch);
                latency(ready, &target, period_ps)
            }
            Rotation::Random { max } => rng.uniform_between(0, max),
            Rotation::None => 0,
        };
        let transfer = match self.mech.transfer {
            Transfer::Exponential { mean } => rng.exponential(mean),
            Transfer::Geometry { period_ps } => {
                // The transfer starts where `target` is: not located again.
                let from = MediaStart {
                    block: req.block.min(self.capacity_blocks() - 1),
                    at: target,
                };
                self.mech
                    .media_time_from(&from, u64::from(req.blocks), period_ps)
            }
            _ => self.mech.transfer_time(req.block, req.blocks),
        };
        // A request within its first track ends on it; only one that crosses
        // a track boundary needs its last block located.
        let last = req.block.saturating_add(u64::from(req.blocks.max(1)) - 1);
        let end = if u64::from(req.blocks.max(1)) <= u64::from(target.left_on_track()) {
            target
        } else {
            self.mech.geometry.locate_clamped(last)
        };
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
        let first = self.admitted.place(req.block).map(|at| MediaStart {
            block: req.block,
            at,
        });
        let breakdown = cache.serve(&self.mech, &mut arm, req, first, travel, start, rng);
        (self.cylinder, self.surface) = (arm.cylinder, arm.surface);
        self.cache = Some(cache);
        breakdown
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
        self.mech.head_switch
    }

    /// The seek curve's time for a seek of `cylinders` cylinders (for a
    /// random seek model, its mean).
    pub fn seek_time(&self, cylinders: u32) -> Nanos {
        self.mech.seek_time(cylinders)
    }

    /// The surface whose head is selected: a request on the arm's cylinder
    /// but another surface pays a head switch.
    pub fn surface(&self) -> u32 {
        self.surface
    }

    /// One revolution in picoseconds, if the spec gives the spindle speed:
    /// the spindle's angle at time t is `t mod revolution`, exactly.
    pub fn revolution_ps(&self) -> Option<u64> {
        self.mech.period_ps
    }

    /// The heads on cylinder `head`, on the surface the model last used.
    fn arm_at(&self, head: Head) -> Arm {
        Arm {
            cylinder: head.cylinder,
            surface: self.surface,
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
        self.mech.transfer_time(block, blocks)
    }

    /// One revolution of the spindle, if the spec gives its speed.
    pub fn revolution(&self) -> Option<Nanos> {
        self.mech.revolution()
    }

    /// Mean rotational latency: half a revolution when tracked (for requests
    /// at random angles), the middle of the range when drawn, 0 without.
    pub fn mean_rotational_latency(&self) -> Nanos {
        self.mech.mean_rotational_latency()
    }

    /// Expected seek time between two blocks drawn independently and
    /// uniformly over the capacity (so cylinders weigh by their capacity on a
    /// zoned disk), computed exactly over the distribution of distances and
    /// rounded to the nanosecond. For the random seek model, its mean.
    pub fn mean_random_seek(&self) -> Nanos {
        self.mean_seek
    }
}

/// Entries of [`Admitted`], a power of two: more than the requests a disk
/// usually holds queued, so that few of them share an entry.
const ADMITTED_ENTRIES: usize = 256;

/// The places of the first blocks of the requests a disk admitted
/// ([`DiskModel::admit`]), an entry per block number modulo
/// [`ADMITTED_ENTRIES`], each holding the latest block admitted there.
/// Locating a block is a search of the zone table and the zone's unused
/// runs; a request's block is located when it is queued (its cylinder is
/// the scheduler's) and again when it is served, unless its place is still
/// here. Where a block lies depends on nothing else, so what is kept is
/// never stale, and two models that differ only here are the same disk.
#[derive(Clone)]
struct Admitted(Box<[Option<(u64, Location)>]>);

impl Admitted {
    fn new() -> Self {
        Admitted(vec![None; ADMITTED_ENTRIES].into_boxed_slice())
    }

    fn entry(block: u64) -> usize {
        (block % ADMITTED_ENTRIES as u64) as usize
    }

    fn keep(&mut self, block: u64, at: Location) {
        self.0[Self::entry(block)] = Some((block, at));
    }

    fn place(&self, block: u64) -> Option<Location> {
        match self.0[Self::entry(block)] {
            Some((kept, at)) if kept == block => Some(at),
            _ => None,
        }
    }
}

impl PartialEq for Admitted {
    fn eq(&self, _: &Admitted) -> bool {
        true
    }
}

impl std::fmt::Debug for Admitted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.0.iter().filter(|e| e.is_some()).count();
        write!(f, "Admitted({kept} places kept)")
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
            let b = cache.estimate(&self.mech, self.arm_at(head), req, now);
            return b.seek + b.rotation;
        }
        let target = self.mech.geometry.locate_clamped(req.block);
        let distance = head.cylinder.abs_diff(target.cylinder);
        let seek = self.mech.seek_time(distance);
        let switch = self.mech.switch_time(self.surface, distance, &target);
        let rotation = match self.mech.rotation {
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
            return cache
                .estimate(&self.mech, self.arm_at(head), req, now)
                .total();
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

/// The stream a per-request seek is drawn from: the same for every disk
/// serving `req` (its copies share identity, arrival and block), different
/// from request to request and, through the arrival times, from one
/// replication to the next.
fn request_stream(req: &Request) -> Stream {
    let key = req.id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
        ^ req.arrival.wrapping_mul(0xBF58_476D_1CE4_E5B9)
        ^ req
            .block
            .wrapping_mul(0x94D0_49BB_1331_11EB)
            .rotate_left(31);
    Stream::numbered(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::seek::ms_to_ns;
    use crate::disk::{GeometrySpec, SeekSpec, TransferSpec, presets};
    use sched_core::{Block, Blocks, Cyl};
    use sched_core::{Kind, RequestId};

    fn model(spec: &DiskSpec) -> DiskModel {
        DiskModel::from_spec(spec).unwrap()
    }

    /// The cylinder found without placing a block is the placed block's,
    /// on every preset (the DiskSim drives with their defect lists
    /// included), at every band boundary and at random blocks.
    #[test]
    fn cylinders_found_fast_agree_with_placed_blocks() {
        for (name, _) in presets::PRESETS {
            let disk = model(&presets::preset(name).unwrap());
            let g = disk.geometry();
            let capacity = g.capacity();
            let mut rng = Stream::numbered(17);
            let mut blocks: Vec<u64> = (0..2_000).map(|_| rng.below(capacity)).collect();
            blocks.extend([0, 1, capacity - 1]);
            blocks.extend(
                g.band_starts()
                    .flat_map(|b| [b.saturating_sub(1), b, b + 1]),
            );
            for b in blocks.into_iter().filter(|&b| b < capacity) {
                assert_eq!(
                    g.cylinder_of(b).unwrap(),
                    g.locate(b).unwrap().cylinder,
                    "{name}: block {b}"
                );
            }
            assert!(g.cylinder_of(capacity).is_err());
        }
    }

    /// A disk that admitted its requests (and so kept where their blocks
    /// lie) serves them exactly as one that did not, with and without a
    /// cache, whatever blocks share an entry; admitting refuses what
    /// `check_extent` refuses.
    #[test]
    fn admitted_requests_are_served_as_the_others() {
        for name in ["hp97560", "hp-c2247a"] {
            let mut admitting = model(&presets::preset(name).unwrap());
            let mut plain = admitting.clone();
            let capacity = plain.capacity_blocks();
            let mut blocks = Stream::numbered(5);
            let (mut rng_a, mut rng_p) = (Stream::numbered(9), Stream::numbered(9));
            let mut now = 0;
            let mut queued = std::collections::VecDeque::new();
            for id in 0..3_000u64 {
                // Blocks ADMITTED_ENTRIES apart share an entry: the later
                // admitted replaces the earlier before it is served.
                let block = if id % 7 == 0 {
                    let last = queued.back().map_or(0, |r: &Request| r.block);
                    (last + ADMITTED_ENTRIES as u64) % (capacity - 8)
                } else {
                    blocks.below(capacity - 8)
                };
                let blocks = 1 + (id % 8) as u32;
                let cylinder = admitting.admit(block, blocks).unwrap();
                assert_eq!(cylinder, plain.check_extent(block, blocks).unwrap());
                queued.push_back(read(id, &plain, block, blocks));
                if queued.len() > 20 {
                    let req = queued.pop_front().unwrap();
                    let a = admitting.serve(&req, Travel::Direct, now, &mut rng_a);
                    let p = plain.serve(&req, Travel::Direct, now, &mut rng_p);
                    assert_eq!(a, p, "{name}: request {}", req.id.0);
                    now += a.total();
                }
            }
            for (block, blocks) in [(capacity, 1), (capacity - 1, 2)] {
                assert_eq!(
                    admitting.admit(block, blocks).unwrap_err().to_string(),
                    plain.check_extent(block, blocks).unwrap_err().to_string()
                );
            }
        }
    }

    fn read(id: u64, disk: &DiskModel, block: u64, blocks: u32) -> Request {
        Request::new(
            RequestId(id),
            Kind::Read,
            Block(block),
            Blocks(blocks),
            Cyl(disk.locate(block).unwrap()),
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
    fn a_transfer_passes_over_slipped_sectors_and_goes_to_remapped_ones() {
        // One zone of 72-sector tracks: slot 5 of track 0 slipped, and the
        // block that would lie at slot 40 remapped to the zone's last slot.
        let mut spec = presets::hp97560();
        spec.geometry.zones = vec![crate::disk::Zone {
            first_cylinder: 0,
            last_cylinder: spec.geometry.cylinders - 1,
            sectors_per_track: 72,
        }];
        let last = u64::from(spec.geometry.cylinders) * 19 * 72 - 1;
        spec.geometry.zone_layout = vec![crate::disk::ZoneLayout {
            unused: vec![(5, 1)],
            blocks: Some(last - 1),
            remapped: vec![(40, last)],
            ..crate::disk::ZoneLayout::default()
        }];
        let disk = model(&spec);
        let sector = |n: u64| (n * 14_992_503_748 / 72) as f64 / 1000.0;
        // Blocks 0–9 cross the slipped slot: eleven slots pass under the head.
        let t = disk.transfer_time(0, 10) as f64;
        assert!((t - sector(11)).abs() < 2.0, "{t}");
        // Blocks 30–40 include the remapped block 39: the arm leaves for
        // the last cylinder and comes back, far longer than 11 slots.
        let t = disk.transfer_time(30, 11) as f64;
        assert!(
            t > 2.0 * disk.mech.seek.time(spec.geometry.cylinders - 1) as f64,
            "{t}"
        );
        let l = disk.geometry().locate(39).unwrap();
        assert_eq!(
            (l.cylinder, l.surface, l.sector),
            (spec.geometry.cylinders - 1, 18, 71)
        );
    }

    #[test]
    fn media_progress_agrees_with_the_transfer_time_to_the_nanosecond() {
        // Read-ahead progress is the inverse of the transfer time, across
        // head switches and cylinder boundaries (HP 97560: 72 blocks a
        // track, 19 tracks a cylinder).
        let disk = model(&presets::hp97560());
        let p = disk.mech.period_ps.unwrap();
        for block in [0, 70, 72 * 19 - 3, 123_456] {
            let from = disk.mech.media_start(block);
            for k in 1..=200 {
                let t = disk.mech.media_time(block, k, p);
                assert_eq!(
                    disk.mech.media_read_within(&from, 200, p, t),
                    k,
                    "{block} {k}"
                );
                assert_eq!(disk.mech.media_read_within(&from, 200, p, t - 1), k - 1);
            }
            assert_eq!(
                disk.mech.media_read_within(&from, 200, p, u64::MAX / 2000),
                200
            );
        }
    }

    #[test]
    fn a_per_request_seek_is_the_same_on_every_disk_serving_the_request() {
        let mut spec = presets::ibm3330(0.0);
        let SeekSpec::Random { per_request, .. } = &mut spec.seek else {
            unreachable!("the IBM 3330 seeks at random")
        };
        *per_request = true;
        let (mut a, mut b) = (model(&spec), model(&spec));
        let (mut rng_a, mut rng_b) = (Stream::numbered(1), Stream::numbered(2));
        let mut seeks = Vec::new();
        for id in 0..50 {
            let req = read(id, &a, 900 * id, 1);
            let on_a = a.serve(&req, Travel::Direct, 0, &mut rng_a);
            let on_b = b.serve(&req, Travel::Direct, 0, &mut rng_b);
            assert_eq!(on_a.seek, on_b.seek, "request {id}");
            assert_ne!(on_a.rotation, on_b.rotation, "latency stays the disk's own");
            seeks.push(on_a.seek);
        }
        seeks.sort_unstable();
        seeks.dedup();
        assert_eq!(seeks.len(), 50, "every request draws its own seek");
        // Drawn per disk (the default), the two disks' seeks differ.
        let plain = presets::ibm3330(0.0);
        let (mut a, mut b) = (model(&plain), model(&plain));
        let req = read(0, &a, 0, 1);
        assert_ne!(
            a.serve(&req, Travel::Direct, 0, &mut rng_a).seek,
            b.serve(&req, Travel::Direct, 0, &mut rng_b).seek
        );
        // A drive with a cache seeks by its own curve.
        let mut cached = presets::preset("hp-c2247a").unwrap();
        cached.seek = spec.seek.clone();
        assert!(cached.cache.is_some());
        let err = DiskModel::from_spec(&cached).unwrap_err();
        assert!(err.to_string().contains("seek.per_request"), "{err}");
    }

    #[test]
    fn travel_legs_add_up() {
        let mut disk = model(&presets::chen_towsley_91());
        let mut rng = Stream::numbered(103);
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
        let mut rng = Stream::numbered(302);
        let mut unused = Stream::numbered(303);
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
            Stream::numbered(303).below(u64::MAX)
        );
    }

    #[test]
    fn random_rotation_averages_half_its_range() {
        let mut disk = model(&presets::chen_towsley_91());
        let mut addresses = Stream::numbered(402);
        let mut service = Stream::numbered(403);
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
        let mut addresses = Stream::numbered(502);
        let mut arrivals = Stream::numbered(501);
        let mut service = Stream::numbered(503);
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
            let mut rng = Stream::numbered(602);
            let mut unused = Stream::numbered(603);
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
                let mut rng = Stream::numbered(813);
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
        let mut rng = Stream::numbered(903);
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
        let mut rng = Stream::numbered(1003);
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
            "`controller_overhead_ms` = -1: a non-negative number of milliseconds, at most an hour (3.6e6)"
        );
        // Values that parse but mean nothing (DiskSim's 1e308, a slip of the
        // exponent) are refused rather than taken as 0 or days.
        spec.controller_overhead_ms = 1e308;
        assert!(DiskModel::from_spec(&spec).is_err());
        let mut spec = presets::hp97560();
        for rpm in [1e-10, 59.0, 2e6, f64::INFINITY] {
            spec.rpm = Some(rpm);
            assert!(DiskModel::from_spec(&spec).is_err(), "rpm {rpm}");
        }
    }
}
