//! Synthetic workloads: where requests go, how big they are, whether they read
//! or write, and when they arrive (open Poisson streams or closed clients).

use std::collections::HashMap;

use disk_emu::{Exponential, Stream};
use sched_core::{Block, Blocks, Cyl, Kind, Nanos, Request, RequestId};
use serde::{Deserialize, Serialize};

/// How request addresses are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Addressing {
    /// Uniformly over the whole disk (aligned to the request size).
    Uniform,
    /// With probability `probability` a request starts right after the
    /// previous one ends; otherwise uniformly over the disk.
    Sequential {
        /// Probability of continuing the previous request.
        probability: f64,
    },
}

/// Relative deadlines: each request must complete within a time drawn
/// uniformly from `[min_ms, max_ms]` after it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadlineRange {
    /// Shortest relative deadline, ms.
    pub min_ms: f64,
    /// Longest relative deadline, ms.
    pub max_ms: f64,
}

/// What each request looks like.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestMix {
    /// Fraction of reads, in [0, 1].
    pub read_fraction: f64,
    /// Blocks per request.
    pub blocks: u32,
    /// Address distribution.
    pub addressing: Addressing,
    /// Relative deadlines, if requests have them.
    pub deadline: Option<DeadlineRange>,
}

impl Default for RequestMix {
    /// Random single-block reads without deadlines.
    fn default() -> Self {
        RequestMix {
            read_fraction: 1.0,
            blocks: 1,
            addressing: Addressing::Uniform,
            deadline: None,
        }
    }
}

/// When requests arrive.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Arrivals {
    /// An open Poisson stream of `rate` requests per second.
    Poisson {
        /// Mean arrival rate, requests per second.
        rate: f64,
    },
    /// `clients` clients, each issuing its next request an exponential think
    /// time (mean `think_ms`) after its previous one completes.
    Closed {
        /// Number of clients (requests outstanding at most).
        clients: u32,
        /// Mean think time, ms.
        think_ms: f64,
    },
}

/// Why a workload description is unusable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkloadError {
    /// A parameter is outside its domain.
    #[error("workload parameter {field}: expected {expected}, got {value}")]
    Invalid {
        /// The parameter.
        field: &'static str,
        /// What it must satisfy.
        expected: &'static str,
        /// The value given.
        value: String,
    },
}

fn invalid(field: &'static str, expected: &'static str, value: impl ToString) -> WorkloadError {
    WorkloadError::Invalid {
        field,
        expected,
        value: value.to_string(),
    }
}

impl RequestMix {
    /// Checks every field.
    ///
    /// # Errors
    /// [`WorkloadError::Invalid`] naming the first bad field.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if !(0.0..=1.0).contains(&self.read_fraction) {
            return Err(invalid(
                "read_fraction",
                "a fraction in [0, 1]",
                self.read_fraction,
            ));
        }
        if self.blocks == 0 {
            return Err(invalid(
                "blocks",
                "at least one block per request",
                self.blocks,
            ));
        }
        if let Addressing::Sequential { probability } = self.addressing
            && !(0.0..=1.0).contains(&probability)
        {
            return Err(invalid(
                "addressing.probability",
                "a probability in [0, 1]",
                probability,
            ));
        }
        if let Some(d) = self.deadline
            && !(d.min_ms >= 0.0 && d.max_ms >= d.min_ms && d.max_ms.is_finite())
        {
            return Err(invalid(
                "deadline",
                "0 <= min_ms <= max_ms, finite",
                format!("[{}, {}]", d.min_ms, d.max_ms),
            ));
        }
        Ok(())
    }
}

impl Arrivals {
    /// Checks every field.
    ///
    /// # Errors
    /// [`WorkloadError::Invalid`] naming the bad field.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        match *self {
            Arrivals::Poisson { rate } if !(rate > 0.0 && rate.is_finite()) => Err(invalid(
                "rate",
                "a positive, finite number of requests per second",
                rate,
            )),
            Arrivals::Closed { clients: 0, .. } => {
                Err(invalid("clients", "at least one client", 0))
            }
            Arrivals::Closed { think_ms, .. } if !(think_ms >= 0.0 && think_ms.is_finite()) => Err(
                invalid("think_ms", "a finite mean of at least 0 ms", think_ms),
            ),
            _ => Ok(()),
        }
    }

    /// Mean time between arrivals of an open stream, ns.
    pub fn mean_gap(rate: f64) -> Nanos {
        (1e9 / rate).round() as Nanos
    }
}

/// The arrival process of a run: an open Poisson stream, or closed clients
/// that each come back a think time after their request completes. Arrivals
/// carry the number of the client they belong to (0 for an open stream); a
/// closed population remembers which client issued each request
/// outstanding, by request id.
#[derive(Clone, Debug)]
pub struct ArrivalProcess {
    stream: Stream,
    kind: ArrivalKind,
    outstanding: HashMap<RequestId, u16>,
}

#[derive(Clone, Copy, Debug)]
enum ArrivalKind {
    Open { gap: Exponential },
    Closed { clients: u16, think: Exponential },
}

impl ArrivalProcess {
    /// The process `arrivals` describes, drawing its times from `stream`.
    ///
    /// # Errors
    /// [`WorkloadError::Invalid`] for a bad rate or think time, no clients,
    /// or more than 65,535 clients (client numbers are request classes).
    pub fn new(arrivals: Arrivals, stream: Stream) -> Result<Self, WorkloadError> {
        arrivals.validate()?;
        let kind = match arrivals {
            Arrivals::Poisson { rate } => ArrivalKind::Open {
                gap: Exponential::new(Arrivals::mean_gap(rate)),
            },
            Arrivals::Closed { clients, think_ms } => ArrivalKind::Closed {
                clients: u16::try_from(clients)
                    .map_err(|_| invalid("clients", "at most 65535 clients", clients))?,
                think: Exponential::new((think_ms * 1e6).round() as Nanos),
            },
        };
        Ok(ArrivalProcess {
            stream,
            kind,
            outstanding: HashMap::new(),
        })
    }

    /// The first arrivals, as (time, client): one for an open stream, one per
    /// client for a closed population.
    pub fn first(&mut self) -> Vec<(Nanos, u16)> {
        match self.kind {
            ArrivalKind::Open { gap } => vec![(self.stream.draw(&gap), 0)],
            ArrivalKind::Closed { clients, think } => (0..clients)
                .map(|c| (self.stream.draw(&think), c))
                .collect(),
        }
    }

    /// After client `client` issued request `id` at `now`: the open
    /// stream's next arrival (a closed client waits for its request).
    #[inline(always)]
    pub fn after_arrival(&mut self, id: RequestId, client: u16, now: Nanos) -> Option<Nanos> {
        match self.kind {
            ArrivalKind::Open { gap } => Some(now + self.stream.draw(&gap)),
            ArrivalKind::Closed { .. } => {
                self.outstanding.insert(id, client);
                None
            }
        }
    }

    /// After request `id` left the device at `now` (completed, or dropped):
    /// its closed client's next arrival, and the client.
    #[inline(always)]
    pub fn after_completion(&mut self, id: RequestId, now: Nanos) -> Option<(Nanos, u16)> {
        match self.kind {
            ArrivalKind::Open { .. } => None,
            ArrivalKind::Closed { think, .. } => {
                let client = self.outstanding.remove(&id)?;
                Some((now + self.stream.draw(&think), client))
            }
        }
    }
}

/// A request's content before the device places it: everything but the cylinder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// Read or write.
    pub kind: Kind,
    /// First block.
    pub block: u64,
    /// Length in blocks.
    pub blocks: u32,
    /// Absolute deadline, if the mix has deadlines.
    pub deadline: Option<Nanos>,
}

impl Draw {
    /// The request `id` arriving at `now` (cylinder 0: the device fills it in).
    #[inline]
    pub fn request(&self, id: RequestId, now: Nanos) -> Request {
        let mut req = Request::new(
            id,
            self.kind,
            Block(self.block),
            Blocks(self.blocks),
            Cyl(0),
            now,
        );
        req.deadline = self.deadline;
        req
    }
}

/// The statistics class of a request of kind `kind` in the single-disk
/// runs and replays: reads are class 0, writes class 1, so that a report's
/// classes ([`DiskReport::classes`](disk_emu::DiskReport)) measure them
/// apart. (No single-disk policy looks at a request's class; the
/// rate-based runs, whose policy does, number their tasks themselves.)
pub fn kind_class(kind: Kind) -> u16 {
    match kind {
        Kind::Read => READ_CLASS,
        Kind::Write => WRITE_CLASS,
    }
}

/// The class of reads ([`kind_class`]).
pub const READ_CLASS: u16 = 0;
/// The class of writes ([`kind_class`]).
pub const WRITE_CLASS: u16 = 1;

/// `stats` with the classes of [`kind_class`] named "read" and "write",
/// each only where a mix with `read_fraction` reads issues it (a named
/// class is reported even when empty).
pub fn label_kinds(stats: disk_emu::DiskStats, read_fraction: f64) -> disk_emu::DiskStats {
    let stats = if read_fraction > 0.0 {
        stats.with_class_label(READ_CLASS, "read")
    } else {
        stats
    };
    if read_fraction < 1.0 {
        stats.with_class_label(WRITE_CLASS, "write")
    } else {
        stats
    }
}

/// Draws requests from a [`RequestMix`] over a disk of `capacity` blocks.
#[derive(Clone, Debug)]
pub struct Generator {
    mix: RequestMix,
    /// Request-aligned start positions available: capacity / blocks.
    positions: u64,
    next_sequential: u64,
    capacity: u64,
    addresses: Stream,
}

impl Generator {
    /// A generator for a disk of `capacity` blocks, drawing from `addresses`.
    ///
    /// # Errors
    /// [`WorkloadError::Invalid`] for a bad mix or requests larger than the disk.
    pub fn new(mix: RequestMix, capacity: u64, addresses: Stream) -> Result<Self, WorkloadError> {
        mix.validate()?;
        let positions = capacity / mix.blocks as u64;
        if positions == 0 {
            return Err(invalid(
                "blocks",
                "requests no larger than the disk",
                mix.blocks,
            ));
        }
        Ok(Generator {
            mix,
            positions,
            next_sequential: 0,
            capacity,
            addresses,
        })
    }

    /// The next request's content, arriving at `now`.
    #[inline(always)]
    pub fn draw(&mut self, now: Nanos) -> Draw {
        let blocks = self.mix.blocks as u64;
        let sequential = match self.mix.addressing {
            Addressing::Uniform => false,
            Addressing::Sequential { probability } => self.addresses.chance(probability),
        };
        let block = if sequential && self.next_sequential + blocks <= self.capacity {
            self.next_sequential
        } else {
            self.addresses.below(self.positions) * blocks
        };
        self.next_sequential = block + blocks;
        let kind = if self.mix.read_fraction >= 1.0 || self.addresses.chance(self.mix.read_fraction)
        {
            Kind::Read
        } else {
            Kind::Write
        };
        let deadline = self.mix.deadline.map(|d| {
            let lo = (d.min_ms * 1e6).round() as Nanos;
            let hi = (d.max_ms * 1e6).round() as Nanos;
            now + self.addresses.uniform_between(lo, hi)
        });
        Draw {
            kind,
            block,
            blocks: self.mix.blocks,
            deadline,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_mix() {
        let mix = RequestMix {
            read_fraction: 0.75,
            blocks: 8,
            addressing: Addressing::Sequential { probability: 0.5 },
            deadline: Some(DeadlineRange {
                min_ms: 10.0,
                max_ms: 20.0,
            }),
        };
        let mut g = Generator::new(mix, 80_000, Stream::numbered(32)).unwrap();
        let n = 100_000;
        let (mut reads, mut seq, mut prev_end) = (0, 0, u64::MAX);
        for i in 0..n {
            let d = g.draw(i * 1000);
            assert!(d.block.is_multiple_of(8) && d.block + 8 <= 80_000);
            let dl = d.deadline.unwrap() - i * 1000;
            assert!((10_000_000..=20_000_000).contains(&dl));
            reads += usize::from(d.kind == Kind::Read);
            seq += usize::from(d.block == prev_end);
            prev_end = d.block + 8;
        }
        assert!((reads as f64 / n as f64 - 0.75).abs() < 0.01);
        // Half continue, plus the 1-in-10,000 chance a random start lands there.
        assert!((seq as f64 / n as f64 - 0.5).abs() < 0.01);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let bad = RequestMix {
            read_fraction: 1.5,
            ..RequestMix::default()
        };
        assert!(matches!(
            bad.validate(),
            Err(WorkloadError::Invalid {
                field: "read_fraction",
                ..
            })
        ));
        assert!(matches!(
            Arrivals::Poisson { rate: -1.0 }.validate(),
            Err(WorkloadError::Invalid { field: "rate", .. })
        ));
        let huge = RequestMix {
            blocks: 100,
            ..RequestMix::default()
        };
        assert!(Generator::new(huge, 50, Stream::numbered(12)).is_err());
    }
}
