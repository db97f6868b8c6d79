//! [`Mechanics`]: what a disk's parts take (seek, head switch, rotation,
//! media transfer) over its block layout, wherever its arm is.
//!
//! Both the uncached service of [`DiskModel`](super::DiskModel) and the
//! drive cache of [`super::cache`] time their media work with it; the arm's
//! position is theirs to keep ([`Arm`]).
//!
//! The spindle's angle is kept in integer picoseconds: one revolution is
//! `round(60·10¹² / rpm)` ps and the angle at time t is `t mod revolution`,
//! so latencies are exact integer arithmetic however long a run lasts.

use std::sync::Arc;

use sched_core::{Cylinder, Nanos, Travel};

use super::geometry::{Geometry, Location};
use super::seek::{Seek, duration};
use super::{DiskError, DiskSpec, RotationSpec, TransferSpec};
use crate::random::Stream;

/// Rotational latency, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Rotation {
    Tracked { period_ps: u64 },
    Random { max: Nanos },
    None,
}

/// Transfer time, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Transfer {
    Geometry { period_ps: u64 },
    Constant(Nanos),
    Rate { bytes_per_s: f64 },
    Exponential { mean: Nanos },
}
/// How a write's data reaches the buffer: block k (from 0) is in from
/// `from + (k + 1)·per_block`; the media write needs `start_blocks` of them
/// in before it writes any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct WriteData {
    pub(super) from: Nanos,
    pub(super) per_block: Nanos,
    pub(super) start_blocks: u64,
}

/// A disk's mechanics and layout, checked: everything about serving a
/// request except where the arm is and what the cache holds.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Mechanics {
    pub(super) geometry: Geometry,
    pub(super) seek: Seek,
    /// `seek`'s time for every distance the disk has, worked out once: the
    /// curve costs a square root or a table search per seek otherwise.
    seek_curve: Arc<[Nanos]>,
    pub(super) rotation: Rotation,
    pub(super) transfer: Transfer,
    /// One revolution, ps, if the spec gives the spindle speed.
    pub(super) period_ps: Option<u64>,
    pub(super) head_switch: Nanos,
}

/// The first block of a sequential media transfer and where it lies,
/// located once: a read-ahead is timed from its start many times over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MediaStart {
    pub(super) block: u64,
    pub(super) at: Location,
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
pub(super) fn ps_to_ns(ps: u128) -> Nanos {
    // 128-bit division is a library call; every realistic time fits 64 bits.
    match u64::try_from(ps + 500) {
        Ok(ps) => ps / 1000,
        Err(_) => ((ps + 500) / 1000) as Nanos,
    }
}

/// Picoseconds from the index mark to the start of physical slot `slot` of a
/// track of `spt` sectors (slots past `spt` continue into the next turn).
fn angle(slot: u128, spt: u32, period_ps: u128) -> u128 {
    // As in ps_to_ns: 64-bit arithmetic whenever the product fits.
    match (u64::try_from(slot), u64::try_from(period_ps)) {
        (Ok(slot64), Ok(period64)) => match slot64.checked_mul(period64) {
            Some(x) => u128::from(x / u64::from(spt)),
            None => slot * period_ps / u128::from(spt),
        },
        _ => slot * period_ps / u128::from(spt),
    }
}

/// [`angle`] of a slot within the first two turns (`slot` ≤ 2·`spt`), which
/// is below two revolutions and so fits 64 bits (a revolution is at most
/// 10¹² ps).
fn angle_in_two_turns(slot: u64, spt: u32, period_ps: u64) -> u64 {
    match slot.checked_mul(period_ps) {
        Some(x) => x / u64::from(spt),
        None => (u128::from(slot) * u128::from(period_ps) / u128::from(spt)) as u64,
    }
}

/// [`ps_to_ns`] of a time below 2⁶⁴ − 500 ps.
fn short_ps_to_ns(ps: u64) -> Nanos {
    (ps + 500) / 1000
}

/// Picoseconds from the index mark to where the block at `target` starts
/// (below a turn).
pub(super) fn start_angle(target: &Location, period_ps: u64) -> u64 {
    angle_in_two_turns(
        u64::from(target.physical_sector()),
        target.sectors_per_track,
        period_ps,
    )
}

/// Time from `ready` until the block at `target` starts under the head.
pub(super) fn latency(ready: Nanos, target: &Location, period_ps: u64) -> Nanos {
    latency_to(ready, start_angle(target, period_ps), period_ps)
}

/// [`latency`] to a block whose [`start_angle`] is `at`.
pub(super) fn latency_to(ready: Nanos, at: u64, period_ps: u64) -> Nanos {
    let p = period_ps;
    // (ready·1000) mod p, in 64 bits: ready mod p is below p.
    let now = ready % p * 1000 % p;
    // Both angles are below a turn, so the wait is below two: one
    // subtraction reduces it.
    let wait = at + p - now;
    short_ps_to_ns(if wait >= p { wait - p } else { wait })
}

fn positive(field: &str, x: f64, expected: &'static str) -> Result<f64, DiskError> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(DiskError::invalid(field, x, expected))
    }
}

impl Mechanics {
    /// Checks the mechanical part of `spec` (geometry, spindle, rotation,
    /// transfer, seek curve, head switch).
    ///
    /// # Errors
    /// As [`DiskModel::from_spec`](super::DiskModel::from_spec) for those
    /// fields.
    pub(super) fn from_spec(spec: &DiskSpec) -> Result<Self, DiskError> {
        let geometry = Geometry::new(&spec.geometry)?;
        let period_ps = spec
            .rpm
            .map(|rpm| {
                // Spindles have turned from about 1,000 (drums) to 15,000 RPM;
                // outside 60 ..= 10⁶ a value is a typo, whose revolution would
                // be days long or shorter than a nanosecond.
                let rpm = positive(
                    "rpm",
                    rpm,
                    "a positive, finite number of revolutions per minute",
                )?;
                if !(60.0..=1e6).contains(&rpm) {
                    return Err(DiskError::invalid(
                        "rpm",
                        rpm,
                        "revolutions per minute in 60 ..= 1000000",
                    ));
                }
                Ok((60e12 / rpm).round() as u64)
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
        let seek = Seek::new(&spec.seek)?;
        let seek_curve = (0..geometry.cylinders()).map(|d| seek.time(d)).collect();
        Ok(Mechanics {
            geometry,
            seek,
            seek_curve,
            rotation,
            transfer,
            period_ps,
            head_switch: duration("head_switch_ms", spec.head_switch_ms)?,
        })
    }

    /// The seek curve's time for `d` cylinders (for the random model, its
    /// mean).
    #[inline]
    pub(super) fn seek_time(&self, d: u32) -> Nanos {
        match self.seek_curve.get(d as usize) {
            Some(&t) => t,
            None => self.seek.time(d),
        }
    }

    /// Capacity in blocks.
    pub(super) fn capacity_blocks(&self) -> u64 {
        self.geometry.capacity()
    }

    /// Cylinders crossed and seek time on the curve from cylinder `from` to
    /// `to` by way of `travel` (to the edge, and for a wrap back to the
    /// restart cylinder, first).
    #[inline]
    pub(super) fn legs(&self, from: Cylinder, travel: Travel, to: Cylinder) -> (u32, Nanos) {
        let via = match travel {
            // One leg, as most policies ask: no walk over the stops.
            Travel::Direct => {
                let d = from.abs_diff(to);
                return (d, self.seek_time(d));
            }
            Travel::ViaEdge { edge } => [Some(edge), None],
            Travel::Wrap { edge, restart } => [Some(edge), Some(restart)],
        };
        // On a curve every leg is a seek of its own (it starts and stops).
        let mut at = from;
        let (mut distance, mut curve): (u32, Nanos) = (0, 0);
        for stop in via.into_iter().flatten().chain([to]) {
            let d = at.abs_diff(stop);
            distance = distance.saturating_add(d);
            curve += self.seek_time(d);
            at = stop;
        }
        (distance, curve)
    }

    /// A head switch is needed when the arm stays on its cylinder but the
    /// request starts on another surface than `surface`, the selected one; a
    /// seek hides it in its settling.
    pub(super) fn switch_time(&self, surface: u32, seek_distance: u32, target: &Location) -> Nanos {
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
    // Forced: left to itself the compiler calls it out of line from each
    // of the cache's media accesses, every miss paying the call.
    #[inline(always)]
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
            None if self.seek.is_random() => self.seek_time(distance),
            _ => curve,
        };
        (
            distance,
            seek,
            self.switch_time(arm.surface, distance, target),
        )
    }

    /// How many of the `blocks` blocks from `from` a sequential media
    /// transfer that reached the start of the first one `elapsed` ns ago
    /// has read: the largest k with `media_time_from(from, k, period_ps)` ≤
    /// `elapsed` (the same rounding, so the two always agree).
    pub(super) fn media_read_within(
        &self,
        from: &MediaStart,
        blocks: u64,
        period_ps: u64,
        elapsed: Nanos,
    ) -> u64 {
        // media_time rounds picoseconds to the nearest nanosecond: k blocks
        // taking ps_k are done by `elapsed` iff ps_k + 500 < (elapsed + 1) ns.
        let budget_ps = u128::from(elapsed) * 1000 + 499;
        // Mostly the budget ends within the first run of consecutive slots
        // (a read-ahead stopped on the track it started on): the walk's
        // first step, in 64 bits, with no walk to set up.
        let here = &from.at;
        let step = u64::from(here.contiguous());
        if from.block + step < self.capacity_blocks()
            && let Ok(budget) = u64::try_from(budget_ps)
        {
            let run = blocks.min(step);
            let first = u64::from(here.physical_sector());
            let spt = here.sectors_per_track;
            let start = angle_in_two_turns(first, spt, period_ps);
            let run_ps = angle_in_two_turns(first + run, spt, period_ps) - start;
            if budget >= run_ps {
                if run == blocks {
                    return blocks;
                }
                // The walk goes on from the next run, this one handed over
                // rather than worked out again.
                let next_block = from.block + step;
                let (next, gap_ps) =
                    self.next_run(here, next_block, u128::from(start + run_ps), period_ps);
                let next = MediaStart {
                    block: next_block,
                    at: next,
                };
                let walked = (run, u128::from(run_ps) + gap_ps);
                return self
                    .media_walk::<true>(&next, blocks - run, period_ps, budget_ps, walked)
                    .0;
            }
            // As the walk ends on its first track (see there).
            if let Some(product) = (budget + start + 1).checked_mul(u64::from(spt)) {
                return (product.div_ceil(period_ps) - 1 - first).min(run);
            }
        }
        self.media_walk::<true>(from, blocks, period_ps, budget_ps, (0, 0))
            .0
    }

    /// Time to go on from the run at `here` to the run at `next` in the
    /// middle of a sequential transfer: none on the same track, a head
    /// switch to another track of the cylinder; to another cylinder, a
    /// seek on a seek curve (one cylinder to the next track, further to a
    /// remapped block's spare), a head switch without one.
    #[inline(always)]
    fn switch_between(&self, here: &Location, next: &Location) -> Nanos {
        if (next.cylinder, next.surface) == (here.cylinder, here.surface) {
            0
        } else if next.cylinder == here.cylinder {
            self.head_switch
        } else {
            match self.seek {
                Seek::SqrtLinear { .. } | Seek::Table(_) => {
                    self.seek_time(here.cylinder.abs_diff(next.cylinder))
                }
                Seek::None | Seek::Random { .. } => self.head_switch,
            }
        }
    }

    /// Transfer time of `blocks` blocks from `block`; for an exponential
    /// transfer, its mean (see [`DiskModel::transfer_time`](super::DiskModel::transfer_time)).
    pub(super) fn transfer_time(&self, block: u64, blocks: u32) -> Nanos {
        match self.transfer {
            Transfer::Geometry { period_ps } => {
                self.media_time(block, u64::from(blocks), period_ps)
            }
            Transfer::Constant(t) => t,
            Transfer::Rate { bytes_per_s } => {
                let bytes = f64::from(blocks) * f64::from(self.geometry.sector_bytes());
                (bytes * 1e9 / bytes_per_s).round() as Nanos
            }
            Transfer::Exponential { mean } => mean,
        }
    }

    /// Geometric transfer time of `blocks` blocks from `block`, walking the
    /// request track by track, the spindle turning once every `period_ps`.
    pub(super) fn media_time(&self, block: u64, blocks: u64, period_ps: u64) -> Nanos {
        self.media_time_from(&self.media_start(block), blocks, period_ps)
    }

    /// [`Mechanics::media_time`] from a start already located.
    #[inline]
    pub(super) fn media_time_from(&self, from: &MediaStart, blocks: u64, period_ps: u64) -> Nanos {
        let here = &from.at;
        if blocks <= u64::from(here.contiguous()) {
            return Self::first_run_time(here, start_angle(here, period_ps), blocks, period_ps);
        }
        ps_to_ns(
            self.media_walk::<false>(from, blocks, period_ps, 0, (0, 0))
                .1,
        )
    }

    /// [`Mechanics::media_time_from`] for a start whose [`start_angle`],
    /// `at`, is already worked out (for the rotational wait).
    #[inline]
    pub(super) fn media_time_at(
        &self,
        from: &MediaStart,
        at: u64,
        blocks: u64,
        period_ps: u64,
    ) -> Nanos {
        let here = &from.at;
        if blocks <= u64::from(here.contiguous()) {
            return Self::first_run_time(here, at, blocks, period_ps);
        }
        ps_to_ns(
            self.media_walk::<false>(from, blocks, period_ps, 0, (0, 0))
                .1,
        )
    }

    /// Media time of `blocks` blocks from `here`, whose [`start_angle`] is
    /// `at`, within its first run of consecutive slots, as most requests
    /// are: the walk's first step, within two turns.
    #[inline]
    fn first_run_time(here: &Location, at: u64, blocks: u64, period_ps: u64) -> Nanos {
        let first = u64::from(here.physical_sector());
        short_ps_to_ns(angle_in_two_turns(first + blocks, here.sectors_per_track, period_ps) - at)
    }

    /// Where a media transfer from `block` starts; a block past the end of
    /// the disk starts where its last block does.
    pub(super) fn media_start(&self, block: u64) -> MediaStart {
        let block = block.min(self.capacity_blocks() - 1);
        MediaStart {
            block,
            at: self.geometry.locate_clamped(block),
        }
    }

    /// Walks a sequential media transfer of `blocks` blocks from `from`
    /// track by track: how many of them are read within `budget_ps`
    /// picoseconds of the start of the first, and the picoseconds those
    /// take. Unless `BOUNDED`, the budget is ignored (all of them, and the
    /// whole time), and the walk compiles to the plain sum the cache-free
    /// transfer time has always been. `walked`: the blocks and picoseconds
    /// of a walk that reached `from` already (counted in the result).
    #[inline(never)]
    fn media_walk<const BOUNDED: bool>(
        &self,
        from: &MediaStart,
        blocks: u64,
        period_ps: u64,
        budget_ps: u128,
        walked: (u64, u128),
    ) -> (u64, u128) {
        let p = u128::from(period_ps);
        let capacity = self.capacity_blocks();
        let (mut block, mut here) = (from.block, from.at);
        let mut left = blocks;
        let (mut done, mut ps) = walked;
        while left > 0 {
            let step = u64::from(here.contiguous());
            let next_block = block + step;
            // Blocks past the end of the disk stay on its last track.
            let run = if next_block >= capacity {
                left
            } else {
                left.min(step)
            };
            let first = u128::from(here.physical_sector());
            let spt = here.sectors_per_track;
            // Where the run starts and ends: within two turns but on the
            // disk's last track, which takes any number of blocks past the
            // end.
            let (run_start, run_end) = if run <= step {
                let first = first as u64;
                (
                    u128::from(angle_in_two_turns(first, spt, period_ps)),
                    u128::from(angle_in_two_turns(first + run, spt, period_ps)),
                )
            } else {
                (angle(first, spt, p), angle(first + u128::from(run), spt, p))
            };
            let run_ps = run_end - run_start;
            if BOUNDED && ps + run_ps > budget_ps {
                // The budget ends on this track, at angle x from the index
                // mark: k blocks from slot `first` end by then iff
                // ⌊(first + k)·p / spt⌋ ≤ x, i.e. first + k ≤ ⌈(x + 1)·spt / p⌉ − 1.
                let x = budget_ps.saturating_sub(ps) + run_start;
                // x is below the angle where the run ends: 64-bit division
                // whenever the product fits (a 128-bit one is a library call).
                let product = (x + 1) * u128::from(spt);
                let slots = match u64::try_from(product) {
                    Ok(product) => u128::from(product.div_ceil(period_ps)),
                    Err(_) => product.div_ceil(p),
                } - 1;
                let k = (slots - first).min(u128::from(run));
                let ps = ps + angle(first + k, spt, p) - run_start;
                return (done + k as u64, ps);
            }
            ps += run_ps;
            done += run;
            left -= run;
            if left == 0 {
                break;
            }
            let (next, gap_ps) = self.next_run(&here, next_block, run_end, period_ps);
            ps += gap_ps;
            block = next_block;
            here = next;
        }
        (done, ps)
    }

    /// The run of a sequential transfer after one on `here` that ends at
    /// angle `end` (picoseconds from the index mark, within two turns):
    /// where `next_block`, its first, lies, and the picoseconds from the end
    /// of the one to the start of the other.
    #[inline(always)]
    fn next_run(
        &self,
        here: &Location,
        next_block: u64,
        end: u128,
        period_ps: u64,
    ) -> (Location, u128) {
        let p = u128::from(period_ps);
        let next = self.geometry.locate_clamped(next_block);
        // The next block: further along this track past unused slots,
        // on the next track after a head switch or a one-cylinder seek,
        // or at a remapped defect's spare.
        let switch = self.switch_between(here, &next);
        let switch_ps = u128::from(switch) * 1000;
        // The next run starts at its own slot (within the first turn).
        let start = angle_in_two_turns(
            u64::from(next.physical_sector()),
            next.sectors_per_track,
            period_ps,
        );
        // The wait for the next run's slot, in 64 bits: both angles are
        // within two turns and a switch is at most an hour.
        let lag = match u64::try_from(end + switch_ps) {
            Ok(reached) => u128::from((start + period_ps - reached % period_ps) % period_ps),
            Err(_) => (u128::from(start) + p - (end + switch_ps) % p) % p,
        };
        (next, switch_ps + lag)
    }

    /// A media write of `blocks` blocks from `block`, sector by sector as
    /// DiskSim's controller writes: the heads are on the first block's
    /// track at `positioned`; the data of block k is in the buffer from
    /// `data.0 + (k + 1)·data.1` (the bus brings one block per `data.1`);
    /// each block is written at the first pass of its slot after the one
    /// before it is written and after its data has arrived, so a write that
    /// outruns the bus waits for its next block to come round again. A
    /// track switch in the middle costs a head switch or a one-cylinder
    /// seek, plus `settle` (signed). Returns when the first block starts
    /// and when the last one ends.
    pub(super) fn write_sectors(
        &self,
        block: u64,
        blocks: u64,
        positioned: Nanos,
        data: WriteData,
        settle: i64,
        period_ps: u64,
    ) -> (Nanos, Nanos) {
        let p = u128::from(period_ps);
        let capacity = self.capacity_blocks();
        let WriteData {
            from,
            per_block,
            start_blocks,
        } = data;
        let mut t = u128::from(positioned) * 1000;
        let mut first = None;
        let mut done = 0u64;
        let mut block = block.min(capacity - 1);
        let mut here = self.geometry.locate_clamped(block);
        while done < blocks {
            let step = u64::from(here.contiguous()).max(1);
            // Blocks past the end of the disk stay on its last track.
            let run = if block + step >= capacity {
                blocks - done
            } else {
                step.min(blocks - done)
            };
            let spt = here.sectors_per_track;
            let slot0 = u128::from(here.physical_sector());
            for j in 0..u128::from(run) {
                let needed = (done + j as u64 + 1).max(start_blocks);
                let arrival = u128::from(from + needed * per_block) * 1000;
                let ready = t.max(arrival);
                let slot = (slot0 + j) % u128::from(spt);
                let at = angle(slot, spt, p);
                let start = ready + (at + p - ready % p) % p;
                first.get_or_insert(start);
                t = start + angle(slot + 1, spt, p) - at;
            }
            done += run;
            if done == blocks {
                break;
            }
            block += run;
            let next = self.geometry.locate_clamped(block);
            let switch = self.switch_between(&here, &next);
            if switch > 0 {
                let moved = i128::from(switch) * 1000 + i128::from(settle) * 1000;
                t += moved.max(0) as u128;
            }
            here = next;
        }
        let first = first.unwrap_or(t);
        (ps_to_ns(first), ps_to_ns(t))
    }

    /// One revolution of the spindle, if the spec gives its speed.
    pub(super) fn revolution(&self) -> Option<Nanos> {
        self.period_ps.map(|ps| ps_to_ns(u128::from(ps)))
    }

    /// Mean rotational latency: half a revolution when tracked (for requests
    /// at random angles), the middle of the range when drawn, 0 without.
    pub(super) fn mean_rotational_latency(&self) -> Nanos {
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
    pub(super) fn mean_random_seek(&self) -> Nanos {
        if self.seek.is_random() {
            return self.seek_time(0);
        }
        let runs: Vec<(u32, u32, u64)> = self.geometry.cylinder_runs().collect();
        // Block pairs by the distance between their cylinders, then one
        // curve lookup per distance.
        let mut by_distance = vec![0u128; self.seek_curve.len().max(1)];
        for &(first_a, count_a, weight_a) in &runs {
            let (a0, a1) = (i64::from(first_a), i64::from(first_a) + i64::from(count_a));
            for &(first_b, count_b, weight_b) in &runs {
                let (b0, b1) = (i64::from(first_b), i64::from(first_b) + i64::from(count_b));
                // The cylinder pairs (i in A, j in B) with j − i = k number
                // |[a0, a1) ∩ [b0 − k, b1 − k)|.
                let weight = u128::from(weight_a) * u128::from(weight_b);
                for k in (b0 - a1 + 1)..b1 - a0 {
                    let pairs = (a1.min(b1 - k) - a0.max(b0 - k)).max(0) as u128;
                    by_distance[k.unsigned_abs() as usize] += weight * pairs;
                }
            }
        }
        let weighted: u128 = by_distance
            .iter()
            .enumerate()
            .map(|(d, &w)| w * u128::from(self.seek_time(d as u32)))
            .sum();
        let pairs = u128::from(self.capacity_blocks()).pow(2);
        ((weighted + pairs / 2) / pairs) as Nanos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_within_two_turns_agree_with_the_wide_arithmetic() {
        // Revolutions from 10⁶ RPM to 60 RPM; tracks up to the 2³¹ sectors
        // of the analytic models' one track, whose products overflow 64 bits.
        for period_ps in [60_000_000u64, 11_111_111_111, 1_000_000_000_000] {
            for spt in [1u32, 56, 96, 1 << 20, 1 << 31] {
                let turn = u64::from(spt);
                for slot in [
                    0,
                    1,
                    turn / 2,
                    turn - 1,
                    turn,
                    turn + 1,
                    2 * turn - 1,
                    2 * turn,
                ] {
                    let wide = angle(u128::from(slot), spt, u128::from(period_ps));
                    assert_eq!(
                        u128::from(angle_in_two_turns(slot, spt, period_ps)),
                        wide,
                        "{period_ps} {spt} {slot}"
                    );
                    assert!(wide <= 2 * u128::from(period_ps));
                }
            }
        }
        for ps in [0u64, 499, 500, 1_499, 1_500, 2_000_000_000_000] {
            assert_eq!(short_ps_to_ns(ps), ps_to_ns(u128::from(ps)), "{ps}");
        }
    }
}
