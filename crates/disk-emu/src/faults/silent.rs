//! Silent faults: the device reports success and the data is wrong, or a
//! flush fails. The injector decides them as requests complete (armed by a
//! [`Fault`](super::Fault), or drawn at [`SilentRates`] from a seeded
//! stream, so that the same seed and the same request sequence decide the
//! same faults) and keeps them for the driver that moves the bytes
//! ([`FaultInjector::take_silent`](super::FaultInjector::take_silent)); in
//! virtual time they are only counted and logged.

use std::ops::Range;

use sched_core::Nanos;

/// What a silent fault did to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silent {
    /// The write's data landed at block `to` of the disk instead (same
    /// length, same offset within the block).
    Misdirected {
        /// The block it landed at.
        to: u64,
    },
    /// The read returns its data with bit `bit` (counted from the first
    /// byte's least significant bit, modulo the request's bits) flipped.
    ReadCorrupted {
        /// The bit.
        bit: u64,
    },
}

/// Per-request chances of silent faults, drawn from `seed`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SilentRates {
    /// The stream the draws come from.
    pub seed: u64,
    /// A write lands elsewhere.
    pub misdirect: f64,
    /// A read returns a flipped bit.
    pub corrupt_read: f64,
    /// A flush fails (`EIO`).
    pub flush_error: f64,
    /// A write leaves its blocks with a latent error: reads of them fail
    /// until they are written again (and, beside a file-backed export,
    /// across restarts).
    pub latent: f64,
}

/// Why a random specification could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--faults random:{spec}: {what}")]
pub struct RandomSpecError {
    /// The specification after `random:`.
    pub spec: String,
    /// What is wrong.
    pub what: String,
}

impl SilentRates {
    /// Parses `seed=S,misdirect=R,corrupt-read=R,flush-error=R,latent=R` (any of
    /// the rates, each a probability per request; the seed is required).
    ///
    /// # Errors
    /// [`RandomSpecError`] naming the key or value.
    pub fn parse(spec: &str) -> Result<SilentRates, RandomSpecError> {
        let err = |what: String| RandomSpecError {
            spec: spec.to_string(),
            what,
        };
        let mut rates = SilentRates::default();
        let mut seed = None;
        for pair in spec.split(',').filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| err(format!("`{pair}`: expected KEY=VALUE")))?;
            if key == "seed" {
                seed = Some(
                    value
                        .parse()
                        .map_err(|_| err(format!("seed `{value}`: expected a whole number")))?,
                );
                continue;
            }
            let rate: f64 = value
                .parse()
                .ok()
                .filter(|r: &f64| (0.0..=1.0).contains(r))
                .ok_or_else(|| err(format!("{key} `{value}`: expected a probability in [0, 1]")))?;
            match key {
                "misdirect" => rates.misdirect = rate,
                "corrupt-read" => rates.corrupt_read = rate,
                "flush-error" => rates.flush_error = rate,
                "latent" => rates.latent = rate,
                _ => {
                    return Err(err(format!(
                        "unknown key `{key}`: expected seed, misdirect, corrupt-read, flush-error or latent"
                    )));
                }
            }
        }
        rates.seed = seed.ok_or_else(|| err("seed=S is required".into()))?;
        Ok(rates)
    }
}

/// One silent fault decided, for the run's fault log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SilentRecord {
    /// When (the device's clock).
    pub at: Nanos,
    /// The disk.
    pub disk: usize,
    /// The request (none for a flush).
    pub request: Option<u64>,
    /// The blocks it was for (empty for a flush).
    pub blocks: Range<u64>,
    /// What happened.
    pub what: SilentKind,
}

/// The kind of a logged silent fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SilentKind {
    /// See [`Silent::Misdirected`].
    Misdirected {
        /// Where the data landed.
        to: u64,
    },
    /// See [`Silent::ReadCorrupted`].
    ReadCorrupted {
        /// The bit flipped.
        bit: u64,
    },
    /// A flush failed.
    FlushFailed,
    /// A write left a latent error on its blocks.
    Latent,
}

impl std::fmt::Display for SilentRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No time: in the real-time device it follows the wall clock, and
        // a run's log must be the same whenever the same requests come.
        write!(f, "disk {}", self.disk)?;
        if let Some(id) = self.request {
            write!(
                f,
                " request {id} blocks {}+{}",
                self.blocks.start,
                self.blocks.end - self.blocks.start
            )?;
        }
        match self.what {
            SilentKind::Misdirected { to } => write!(f, ": write misdirected to block {to}"),
            SilentKind::ReadCorrupted { bit } => write!(f, ": read returned bit {bit} flipped"),
            SilentKind::FlushFailed => write!(f, ": flush failed"),
            SilentKind::Latent => write!(f, ": write left a latent sector error"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_spec_parses_and_bad_ones_are_named() {
        assert_eq!(
            SilentRates::parse("seed=7,misdirect=0.01,flush-error=0.5"),
            Ok(SilentRates {
                seed: 7,
                misdirect: 0.01,
                corrupt_read: 0.0,
                flush_error: 0.5,
                latent: 0.0,
            })
        );
        for (spec, says) in [
            ("misdirect=0.1", "seed=S is required"),
            (
                "seed=1,misdirect=2",
                "misdirect `2`: expected a probability",
            ),
            ("seed=x", "seed `x`"),
            ("seed=1,melt=0.1", "unknown key `melt`"),
            ("seed=1,oops", "`oops`: expected KEY=VALUE"),
        ] {
            let e = SilentRates::parse(spec).unwrap_err().to_string();
            assert!(e.contains(says), "{spec}: {e}");
        }
    }
}
