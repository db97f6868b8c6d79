//! Where every random stream of an experiment comes from: one derivation,
//! from the coordinates of a unit of work and a named purpose to a stream.
//!
//! A **unit** is one replication of one configuration point of an
//! experiment: [`Unit`] `{ seed, point, replication }`. Every random number a
//! unit draws comes from [`Unit::stream`] (or [`Unit::value`] for a component
//! with a generator of its own, such as an array policy's random routing),
//! and nothing else: so a unit's result depends on nothing but its own
//! coordinates, whether it runs first, last, alone, on another thread or in
//! another shard of a sweep on another machine.
//!
//! - `seed` is the experiment's (the `--seed` of every command).
//! - `point` tells configuration points apart when they must draw
//!   independently. The experiments of this crate give every point of a
//!   sweep the same streams (point 0): the policies, loads and populations
//!   compared in one table see the same random inputs (common random
//!   numbers), which makes their differences, paired replication by
//!   replication, precise. A sweep that wants independent points gives each
//!   its index.
//! - `replication` is the replication's number.
//! - The [`Purpose`] separates the draws of one unit: adding a draw for one
//!   purpose never shifts another's.
//!
//! **Stability.** The derivation is part of the tool's interface: the same
//! coordinates and purpose give the same stream in every version (SplitMix64
//! finalisers chained over the coordinates into a PCG-64 state and stream,
//! `rand_pcg::Pcg64`, whose output is fixed by its published algorithm). A
//! test pins the first draws; changing them changes every number the tool
//! prints.

use disk_emu::Stream;
use serde::Serialize;

/// What a stream is used for. Each purpose has a fixed tag (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Inter-arrival and think times.
    Arrivals,
    /// Request addresses, sizes and kinds; a transaction's length and pages.
    Addresses,
    /// The random parts of disk `disk`'s service times (rotational latency
    /// drawn at random, stochastic service models).
    Service {
        /// The disk (a trace's device number on a replay).
        disk: u32,
    },
    /// An array policy's own choices (random read routing).
    Routing,
    /// Relative deadlines.
    Deadlines,
    /// The periods and buffers of a rate-based task set.
    Tasks,
    /// The first releases of a rate-based task set.
    Releases,
    /// Where a replication layer places new objects drawn at random
    /// (scatter), on traced device `device`.
    Placement {
        /// The trace's device number.
        device: u32,
    },
    /// Which copy a replication layer keeps at a random cut-back (RNW1CR),
    /// on traced device `device`.
    CutBack {
        /// The trace's device number.
        device: u32,
    },
    /// The own choices (random read routing) of the array policy of the
    /// mirrored pair standing for traced device `device` in a replay.
    DeviceRouting {
        /// The trace's device number.
        device: u32,
    },
}

impl Purpose {
    const fn tag(self) -> u64 {
        match self {
            Purpose::Arrivals => 1,
            Purpose::Addresses => 2,
            Purpose::Routing => 3,
            Purpose::Deadlines => 4,
            Purpose::Tasks => 5,
            Purpose::Releases => 6,
            Purpose::Service { disk } => 1 << 32 | disk as u64,
            Purpose::Placement { device } => 7 << 32 | device as u64,
            Purpose::CutBack { device } => 8 << 32 | device as u64,
            Purpose::DeviceRouting { device } => 9 << 32 | device as u64,
        }
    }

    /// The service stream of disk `disk` of the array that stands for
    /// traced device `device` in a replay (Ivy's replication, a mirrored
    /// replay): `Service { disk: 64 · device + disk }`, so that the arrays
    /// of a trace's devices draw apart (device numbers from 2²⁶ up wrap
    /// around and may share a stream with a lower one).
    pub const fn traced_disk(device: u32, disk: u32) -> Purpose {
        Purpose::Service {
            disk: device.wrapping_mul(64).wrapping_add(disk),
        }
    }
}

/// The coordinates of one unit of work (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Unit {
    /// The experiment's seed.
    pub seed: u64,
    /// The configuration point (0: shared by every point of a sweep).
    pub point: u64,
    /// The replication.
    pub replication: u64,
}

/// SplitMix64 finaliser: spreads structured inputs over all 64 bits.
const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Unit {
    /// Replication `replication` of point `point` of an experiment seeded `seed`.
    pub const fn new(seed: u64, point: u64, replication: u64) -> Self {
        Unit {
            seed,
            point,
            replication,
        }
    }

    /// The stream of this unit for `purpose`.
    pub fn stream(&self, purpose: Purpose) -> Stream {
        let a = mix(self.seed);
        let b = mix(a ^ mix(self.point));
        let c = mix(b ^ mix(self.replication));
        let d = mix(c ^ mix(purpose.tag()));
        let state = u128::from(c) << 64 | u128::from(d);
        let increment = u128::from(mix(d ^ a)) << 64 | u128::from(mix(d ^ b));
        Stream::from_parts(state, increment)
    }

    /// A 64-bit seed of this unit for `purpose`, for a component that keeps
    /// a generator of its own.
    pub fn value(&self, purpose: Purpose) -> u64 {
        self.stream(purpose).next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(unit: Unit, purpose: Purpose) -> [u64; 3] {
        let mut s = unit.stream(purpose);
        [s.next_u64(), s.next_u64(), s.next_u64()]
    }

    /// The derivation is stable: these draws must never change.
    #[test]
    fn the_derivation_is_pinned() {
        assert_eq!(
            first(Unit::new(1, 0, 0), Purpose::Arrivals),
            [
                0xf672_d08c_e454_f682,
                0x476c_8d21_066c_533e,
                0x0450_5289_ac76_07dc
            ]
        );
        assert_eq!(
            Unit::new(7, 3, 11).value(Purpose::Service { disk: 2 }),
            0x6b34_b9d8_5fce_60ff
        );
    }

    #[test]
    fn every_coordinate_and_purpose_gives_its_own_stream() {
        let base = Unit::new(42, 0, 3);
        let purposes = [
            Purpose::Arrivals,
            Purpose::Addresses,
            Purpose::Service { disk: 0 },
            Purpose::Service { disk: 1 },
            Purpose::Routing,
            Purpose::Deadlines,
            Purpose::Tasks,
            Purpose::Releases,
            Purpose::Placement { device: 0 },
            Purpose::Placement { device: 1 },
            Purpose::CutBack { device: 0 },
            Purpose::DeviceRouting { device: 0 },
            Purpose::DeviceRouting { device: 1 },
        ];
        let mut seen = std::collections::BTreeSet::new();
        for unit in [
            base,
            Unit { seed: 43, ..base },
            Unit { point: 1, ..base },
            Unit {
                replication: 4,
                ..base
            },
        ] {
            for p in purposes {
                assert!(seen.insert(first(unit, p)), "{unit:?} {p:?}");
            }
        }
        assert_eq!(first(base, Purpose::Routing), first(base, Purpose::Routing));
    }
}
