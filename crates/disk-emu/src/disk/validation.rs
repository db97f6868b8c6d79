//! A drive model against a DiskSim validation trace ([`validate`]).
//!
//! A validation trace records, for each request the real drive served one
//! at a time, its kind, block, length, what the drive's buffer did (`Miss`,
//! `Hit`, `Doub`, `Trip`), the time the drive took and the host's idle time
//! before the next request. The model serves the same requests closed-loop,
//! each issued the recorded idle time after the previous one completed (as
//! DiskSim's `validate` mode does), and the two distributions of access
//! times are compared by DiskSim's *demerit figure*: the root mean square of
//! their difference at the quantiles 0.0001, 0.0002, …, 1 ([`demerit`]).
//!
//! Quantiles are taken exactly from the samples (interpolating linearly
//! between order statistics, as DiskSim's `rms` tool interpolates between
//! the points of its distributions), not from a histogram.

use std::path::Path;

use sched_core::{Block, Blocks, Cyl, Kind, Nanos, Request, RequestId, Travel};
use serde::Serialize;

use super::{DiskError, DiskModel, DiskSpec, ServiceBreakdown};
use crate::random::Stream;
use crate::trace::{self, BufferOutcome, TraceError, TraceFormat, TraceOptions};

/// One request of the trace, measured and simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// The line of the trace.
    pub line: u64,
    /// Read or write.
    #[serde(skip)]
    pub kind: Kind,
    /// What the real drive's buffer did.
    #[serde(skip)]
    pub class: BufferOutcome,
    /// Blocks.
    pub blocks: u32,
    /// The real drive's access time, ns.
    pub measured: Nanos,
    /// The model's, ns.
    pub simulated: Nanos,
    /// Where the model's time went.
    #[serde(skip)]
    pub breakdown: ServiceBreakdown,
}

/// Figures of a set of samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    /// Samples.
    pub requests: usize,
    /// Mean measured access time, ms.
    pub measured_mean_ms: f64,
    /// Mean simulated access time, ms.
    pub simulated_mean_ms: f64,
    /// The demerit of the two distributions, ms.
    pub demerit_ms: f64,
}

/// A validation run: every request of the trace, in trace order.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidationRun {
    /// The trace file.
    pub trace: String,
    /// The drive model's name.
    pub disk: String,
    /// The requests.
    pub samples: Vec<Sample>,
}

/// What can go wrong validating.
#[derive(Debug, thiserror::Error)]
pub enum ValidationError {
    /// The disk spec is not a valid model.
    #[error(transparent)]
    Disk(#[from] DiskError),
    /// The trace cannot be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The trace is not a validation trace (it has no measured times).
    #[error("{file}: not a DiskSim validation trace (no measured access times)")]
    NotValidation {
        /// The trace file.
        file: String,
    },
    /// A request lies (partly) past the end of the disk.
    #[error("{file}, line {line}: {source}")]
    Extent {
        /// The trace file.
        file: String,
        /// Its line.
        line: u64,
        /// What is wrong with the request.
        source: DiskError,
    },
}

/// Serves the validation trace at `path` on the drive `spec`, closed-loop,
/// random parts of the model (if any) drawn from `rng`.
///
/// # Errors
/// [`ValidationError`]: a bad model, an unreadable or non-validation trace,
/// or a request past the end of the disk (naming its line).
pub fn validate(
    spec: &DiskSpec,
    path: impl AsRef<Path>,
    mut rng: Stream,
) -> Result<ValidationRun, ValidationError> {
    let mut disk = DiskModel::from_spec(spec)?;
    let mut reader = trace::open(
        path,
        Some(TraceFormat::DiskSimValidate),
        TraceOptions::default(),
    )?;
    let file = reader.file().to_string();
    let mut samples = Vec::new();
    let mut now: Nanos = 0;
    for (i, record) in reader.by_ref().enumerate() {
        let record = record?;
        let Some(measured) = record.measured else {
            return Err(ValidationError::NotValidation { file });
        };
        let extent = |source| ValidationError::Extent {
            file: file.clone(),
            line: record.line,
            source,
        };
        let cylinder = disk
            .check_extent(record.block, record.blocks)
            .map_err(extent)?;
        let req = Request::new(
            RequestId(i as u64),
            record.kind,
            Block(record.block),
            Blocks(record.blocks),
            Cyl(cylinder),
            now,
        );
        let breakdown = disk.serve(&req, Travel::Direct, now, &mut rng);
        let simulated = breakdown.total();
        samples.push(Sample {
            line: record.line,
            kind: record.kind,
            class: measured.buffer,
            blocks: record.blocks,
            measured: measured.access,
            simulated,
            breakdown,
        });
        now += simulated + measured.idle_after;
    }
    Ok(ValidationRun {
        trace: file,
        disk: spec.name.clone(),
        samples,
    })
}

impl ValidationRun {
    /// The figures of every request.
    pub fn overall(&self) -> Figures {
        figures(self.samples.iter())
    }

    /// The figures of each request class the trace records (`Miss`, `Hit`,
    /// `Doub`, `Trip`; reads and writes apart), in that order, classes
    /// without requests left out.
    pub fn by_class(&self) -> Vec<(String, Figures)> {
        let classes = [
            BufferOutcome::Miss,
            BufferOutcome::Hit,
            BufferOutcome::Doub,
            BufferOutcome::Trip,
        ];
        let mut out = Vec::new();
        for kind in [Kind::Read, Kind::Write] {
            for class in classes {
                let of = || {
                    self.samples
                        .iter()
                        .filter(move |s| s.kind == kind && s.class == class)
                };
                if of().next().is_some() {
                    out.push((
                        format!("{} {}", kind_name(kind), class_name(class)),
                        figures(of()),
                    ));
                }
            }
        }
        out
    }

    /// Measured and simulated access times, each sorted, ms.
    pub fn sorted_ms(&self) -> (Vec<f64>, Vec<f64>) {
        let mut a: Vec<Nanos> = self.samples.iter().map(|s| s.measured).collect();
        let mut b: Vec<Nanos> = self.samples.iter().map(|s| s.simulated).collect();
        a.sort_unstable();
        b.sort_unstable();
        let ms = |v: Vec<Nanos>| v.into_iter().map(|x| x as f64 / 1e6).collect();
        (ms(a), ms(b))
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Read => "read",
        Kind::Write => "write",
    }
}

/// The trace's name of a buffer outcome.
pub fn class_name(class: BufferOutcome) -> &'static str {
    match class {
        BufferOutcome::Miss => "Miss",
        BufferOutcome::Hit => "Hit",
        BufferOutcome::Doub => "Doub",
        BufferOutcome::Trip => "Trip",
    }
}

fn figures<'a>(samples: impl Iterator<Item = &'a Sample>) -> Figures {
    let (mut a, mut b): (Vec<Nanos>, Vec<Nanos>) =
        samples.map(|s| (s.measured, s.simulated)).unzip();
    let n = a.len().max(1) as f64;
    let mean = |v: &[Nanos]| v.iter().map(|&x| x as f64).sum::<f64>() / n / 1e6;
    let (measured_mean_ms, simulated_mean_ms) = (mean(&a), mean(&b));
    a.sort_unstable();
    b.sort_unstable();
    Figures {
        requests: a.len(),
        measured_mean_ms,
        simulated_mean_ms,
        demerit_ms: demerit(&a, &b) / 1e6,
    }
}

/// DiskSim's demerit figure of two samples, each sorted ascending, in their
/// unit: the RMS difference of their quantiles at 0.0001, 0.0002, …, 1.
/// The quantile at q of n values is the order statistic q·n (from 1),
/// interpolated linearly between neighbours (the smallest value below 1/n).
/// 0 when either sample is empty.
pub fn demerit(a: &[Nanos], b: &[Nanos]) -> f64 {
    const POINTS: u32 = 10_000;
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let sum: f64 = (1..=POINTS)
        .map(|i| {
            let q = f64::from(i) / f64::from(POINTS);
            let d = quantile(a, q) - quantile(b, q);
            d * d
        })
        .sum();
    (sum / f64::from(POINTS)).sqrt()
}

/// The quantile at `q` of the sorted, non-empty `v` (see [`demerit`]).
fn quantile(v: &[Nanos], q: f64) -> f64 {
    let rank = q * v.len() as f64; // 1-based order statistic
    if rank <= 1.0 {
        return v[0] as f64;
    }
    let lo = (rank.floor() as usize).min(v.len());
    let frac = rank - lo as f64;
    let below = v[lo - 1] as f64;
    match v.get(lo) {
        Some(&above) if frac > 0.0 => below + frac * (above as f64 - below),
        _ => below,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demerit_is_zero_for_equal_samples_and_the_shift_for_shifted_ones() {
        let a: Vec<Nanos> = (1..=1000).map(|x| x * 1000).collect();
        assert_eq!(demerit(&a, &a), 0.0);
        let b: Vec<Nanos> = a.iter().map(|x| x + 250_000).collect();
        assert!((demerit(&a, &b) - 250_000.0).abs() < 1e-6);
        assert_eq!(quantile(&[5, 7], 0.75), 6.0);
        assert_eq!(quantile(&[5, 7], 1.0), 7.0);
        assert_eq!(quantile(&[5, 7], 0.1), 5.0);
    }
}
