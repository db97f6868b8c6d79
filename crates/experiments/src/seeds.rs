//! Where every random stream of an experiment comes from.
//!
//! Every replication of an experiment draws from its own independent PCG
//! stream, derived from the experiment seed, the replication number and a
//! purpose tag; so replication 7 gives the same bits whether it runs first,
//! last, alone or on another thread.

use disk_emu::Stream;

/// What a stream is used for: separate purposes never share random numbers,
/// so adding a draw for one never shifts another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Inter-arrival and think times.
    Arrivals,
    /// Request addresses, sizes and kinds.
    Addresses,
    /// Random parts of service times (rotational latency drawn at random,
    /// stochastic service models).
    Service,
    /// Anything else an experiment needs (routing choices, deadlines), by number.
    Other(u32),
}

impl Purpose {
    fn tag(self) -> u64 {
        match self {
            Purpose::Arrivals => 1,
            Purpose::Addresses => 2,
            Purpose::Service => 3,
            Purpose::Other(n) => 1_000 + n as u64,
        }
    }
}

/// SplitMix64 finaliser: spreads structured inputs over all 64 bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for `purpose` in replication `replication` of an experiment seeded `seed`.
pub fn stream(seed: u64, replication: u64, purpose: Purpose) -> Stream {
    let state = (mix(seed) as u128) << 64 | mix(seed ^ 0x5DEE_CE66_D1CE_5EED) as u128;
    // PCG streams are selected by the increment: distinct (replication,
    // purpose) pairs give distinct, statistically independent sequences.
    let increment = (mix(replication) as u128) << 64
        | mix(replication.wrapping_mul(31) ^ purpose.tag()) as u128;
    Stream::from_parts(state, increment)
}
