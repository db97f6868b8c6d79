//! When faults happen: a [`Schedule`] written by hand, read from a TOML or
//! JSON file, or drawn from a seed.

use std::path::{Path, PathBuf};

use sched_core::Nanos;
use serde::Deserialize;

use super::Fault;
use crate::disk::SpecFormat;
use crate::random::Stream;

/// Faults at virtual times, applied in time order (faults at the same time
/// in the order given).
///
/// A schedule file lists `[[fault]]` entries (TOML; a JSON file is an
/// object with a `fault` array of the same entries):
///
/// ```toml
/// [[fault]]
/// at_ms = 1000
/// kind = "fail-disk"          # fail-disk, replace-disk, media-error, slow, power-cut
/// disk = 1
///
/// [[fault]]
/// at_ms = 1500
/// kind = "media-error"
/// disk = 0
/// first_block = 4096          # blocks of that disk
/// blocks = 64
///
/// [[fault]]
/// at_ms = 2000
/// kind = "slow"
/// disk = 0
/// factor = 4.0                # every service 4 times as long ...
/// for_ms = 500                # ... for half a second
///
/// [[fault]]
/// at_ms = 3000
/// kind = "power-cut"
/// model = "torn"              # optional: all, subset, prefix, torn (see CrashModel)
///
/// [[fault]]
/// at_ms = 3500
/// kind = "misdirect"          # silent: the next `count` writes land elsewhere
/// count = 1                   # also corrupt-reads (a flipped bit), flush-error
///
/// [[fault]]
/// at_ms = 4000
/// kind = "corrupt-stored"     # silent: a bit of a stored block flips
/// disk = 0
/// first_block = 4096
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schedule {
    faults: Vec<(Nanos, Fault)>,
}

/// Why a schedule could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Neither `.toml` nor `.json`.
    #[error("{path}: a fault schedule is a .toml or .json file")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// Malformed text, an unknown field or kind, a mistyped value (the
    /// message names the line and the field).
    #[error("{path}: {message}")]
    Syntax {
        /// The file (`<text>` for parsed text).
        path: String,
        /// What is wrong, and where.
        message: String,
    },
    /// A field missing for its kind of fault, or outside its domain.
    #[error("{path}: fault {index} ({kind}): `{field}`: expected {expected}")]
    Field {
        /// The file (`<text>` for parsed text).
        path: String,
        /// The entry, counted from 0.
        index: usize,
        /// Its kind.
        kind: &'static str,
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

/// One `[[fault]]` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    at_ms: f64,
    kind: Kind,
    disk: Option<usize>,
    first_block: Option<u64>,
    blocks: Option<u64>,
    factor: Option<f64>,
    for_ms: Option<f64>,
    model: Option<super::CrashModel>,
    count: Option<u32>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    FailDisk,
    ReplaceDisk,
    MediaError,
    Slow,
    PowerCut,
    Misdirect,
    CorruptReads,
    CorruptStored,
    FlushError,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::FailDisk => "fail-disk",
            Kind::ReplaceDisk => "replace-disk",
            Kind::MediaError => "media-error",
            Kind::Slow => "slow",
            Kind::PowerCut => "power-cut",
            Kind::Misdirect => "misdirect",
            Kind::CorruptReads => "corrupt-reads",
            Kind::CorruptStored => "corrupt-stored",
            Kind::FlushError => "flush-error",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    fault: Vec<Entry>,
}

/// The latest time and the longest duration a schedule may name, ms:
/// 10¹² ms (31 years), well inside the virtual clock's 584 years, so that
/// no sum of a time and a duration can overflow it.
const MAX_MS: f64 = 1e12;

/// Milliseconds to nanoseconds, if from 0 to [`MAX_MS`].
fn ms(x: f64) -> Option<Nanos> {
    (0.0..=MAX_MS)
        .contains(&x)
        .then(|| (x * 1e6).round() as Nanos)
}

impl Schedule {
    /// No faults.
    pub fn new() -> Self {
        Schedule::default()
    }

    /// The same schedule with `fault` at `at`.
    #[must_use]
    pub fn at(mut self, at: Nanos, fault: Fault) -> Self {
        self.faults.push((at, fault));
        self
    }

    /// The faults in time order (the order given among simultaneous ones).
    pub fn faults(&self) -> &[(Nanos, Fault)] {
        &self.faults
    }

    pub(super) fn into_faults(mut self) -> Vec<(Nanos, Fault)> {
        self.faults.sort_by_key(|&(at, _)| at);
        self.faults
    }

    /// Reads a schedule file (`.toml` or `.json`; see [`Schedule`]).
    ///
    /// # Errors
    /// [`ScheduleError`], naming the file, and the line or entry and field.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Schedule, ScheduleError> {
        let path = path.as_ref();
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("toml") => SpecFormat::Toml,
            Some(e) if e.eq_ignore_ascii_case("json") => SpecFormat::Json,
            _ => {
                return Err(ScheduleError::UnknownFormat {
                    path: path.to_path_buf(),
                });
            }
        };
        let text = std::fs::read_to_string(path).map_err(|source| ScheduleError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Schedule::parse_named(&text, format, &path.display().to_string())
    }

    /// Parses schedule text.
    ///
    /// # Errors
    /// As [`Schedule::from_file`], the file named `<text>`.
    pub fn parse(text: &str, format: SpecFormat) -> Result<Schedule, ScheduleError> {
        Schedule::parse_named(text, format, "<text>")
    }

    fn parse_named(text: &str, format: SpecFormat, path: &str) -> Result<Schedule, ScheduleError> {
        let syntax = |message: String| ScheduleError::Syntax {
            path: path.to_string(),
            message,
        };
        let file: File = match format {
            SpecFormat::Toml => {
                let de = toml::Deserializer::parse(text).map_err(|e| syntax(e.to_string()))?;
                serde_path_to_error::deserialize(de).map_err(|e| {
                    syntax(format!(
                        "at `{}`: {}",
                        e.path(),
                        e.inner().to_string().trim()
                    ))
                })?
            }
            SpecFormat::Json => {
                let mut de = serde_json::Deserializer::from_str(text);
                serde_path_to_error::deserialize(&mut de)
                    .map_err(|e| syntax(format!("at `{}`: {}", e.path(), e.inner())))?
            }
        };
        let mut schedule = Schedule::new();
        for (index, e) in file.fault.into_iter().enumerate() {
            let kind = e.kind.name();
            let field = |field: &'static str, expected: &'static str| ScheduleError::Field {
                path: path.to_string(),
                index,
                kind,
                field,
                expected,
            };
            let at = ms(e.at_ms).ok_or_else(|| field("at_ms", "a time, ms, from 0 to 1e12"))?;
            let disk = || {
                e.disk
                    .ok_or_else(|| field("disk", "the disk, counted from 0"))
            };
            let fault = match e.kind {
                Kind::FailDisk => Fault::FailDisk { disk: disk()? },
                Kind::ReplaceDisk => Fault::ReplaceDisk { disk: disk()? },
                Kind::MediaError => {
                    let first = e
                        .first_block
                        .ok_or_else(|| field("first_block", "the first unreadable block"))?;
                    let blocks = e
                        .blocks
                        .filter(|&b| b > 0)
                        .ok_or_else(|| field("blocks", "a positive count of blocks"))?;
                    Fault::MediaError {
                        disk: disk()?,
                        blocks: first..first.saturating_add(blocks),
                    }
                }
                Kind::Slow => Fault::Slow {
                    disk: disk()?,
                    factor: e
                        .factor
                        .filter(|f| (1.0..=crate::disk::MAX_SLOWDOWN).contains(f))
                        .ok_or_else(|| field("factor", "a factor from 1 to 10000"))?,
                    duration: e
                        .for_ms
                        .and_then(ms)
                        .ok_or_else(|| field("for_ms", "a duration, ms, from 0 to 1e12"))?,
                },
                Kind::PowerCut => e.model.map_or(Fault::PowerCut, Fault::Crash),
                Kind::Misdirect => Fault::MisdirectWrites {
                    count: e.count.unwrap_or(1),
                },
                Kind::CorruptReads => Fault::CorruptReads {
                    count: e.count.unwrap_or(1),
                },
                Kind::FlushError => Fault::FailFlushes {
                    count: e.count.unwrap_or(1),
                },
                Kind::CorruptStored => Fault::CorruptStored {
                    disk: disk()?,
                    block: e
                        .first_block
                        .ok_or_else(|| field("first_block", "the block whose bit flips"))?,
                },
            };
            schedule = schedule.at(at, fault);
        }
        Ok(schedule)
    }

    /// Faults drawn from `seed`: the same seed and parameters give the same
    /// schedule.
    pub fn random(seed: u64, p: &RandomFaults) -> Schedule {
        let mut rng = Stream::numbered(seed);
        let mut schedule = Schedule::new();
        let disks = p.disks.max(1) as u64;
        let horizon = p.horizon.max(1);
        for _ in 0..p.failures {
            let at = rng.below(horizon);
            let disk = rng.below(disks) as usize;
            schedule = schedule
                .at(at, Fault::FailDisk { disk })
                .at(at.saturating_add(p.repair), Fault::ReplaceDisk { disk });
        }
        for _ in 0..p.media_errors {
            let at = rng.below(horizon);
            let disk = rng.below(disks) as usize;
            let len = p.media_blocks.clamp(1, p.capacity_blocks.max(1));
            let first = rng.below(p.capacity_blocks.saturating_sub(len) + 1);
            schedule = schedule.at(
                at,
                Fault::MediaError {
                    disk,
                    blocks: first..first + len,
                },
            );
        }
        for _ in 0..p.slowdowns {
            let at = rng.below(horizon);
            let disk = rng.below(disks) as usize;
            schedule = schedule.at(
                at,
                Fault::Slow {
                    disk,
                    // `max` first: a NaN factor becomes 1.
                    factor: p.slow_factor.max(1.0).clamp(1.0, crate::disk::MAX_SLOWDOWN),
                    duration: p.slow_for,
                },
            );
        }
        for _ in 0..p.power_cuts {
            schedule = schedule.at(rng.below(horizon), Fault::PowerCut);
        }
        schedule
    }
}

/// What [`Schedule::random`] draws: each fault at a time uniform over
/// `0..horizon`, on a disk drawn uniformly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomFaults {
    /// Faults fall before this, ns.
    pub horizon: Nanos,
    /// Disks of the device.
    pub disks: usize,
    /// Blocks of each disk (media errors fall within).
    pub capacity_blocks: u64,
    /// Disk failures, each followed by a replacement `repair` later.
    pub failures: u32,
    /// Time from a failure to its replacement, ns.
    pub repair: Nanos,
    /// Media errors.
    pub media_errors: u32,
    /// Blocks each media error covers.
    pub media_blocks: u64,
    /// Slowdowns.
    pub slowdowns: u32,
    /// Their factor.
    pub slow_factor: f64,
    /// Their duration, ns.
    pub slow_for: Nanos,
    /// Power cuts.
    pub power_cuts: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toml_schedule_reads_in_time_order() {
        let text = r#"
            [[fault]]
            at_ms = 2
            kind = "power-cut"
            [[fault]]
            at_ms = 1
            kind = "slow"
            disk = 1
            factor = 3
            for_ms = 0.5
            [[fault]]
            at_ms = 1.5
            kind = "media-error"
            disk = 0
            first_block = 10
            blocks = 4
        "#;
        let s = Schedule::parse(text, SpecFormat::Toml)
            .unwrap()
            .into_faults();
        assert_eq!(
            s,
            [
                (
                    1_000_000,
                    Fault::Slow {
                        disk: 1,
                        factor: 3.0,
                        duration: 500_000
                    }
                ),
                (
                    1_500_000,
                    Fault::MediaError {
                        disk: 0,
                        blocks: 10..14
                    }
                ),
                (2_000_000, Fault::PowerCut),
            ]
        );
    }

    #[test]
    fn bad_schedules_name_the_line_entry_and_field() {
        let err = Schedule::parse("[[fault]]\nat_ms = 1\nkind = \"melt\"\n", SpecFormat::Toml)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 3") && err.contains("fault[0].kind"),
            "{err}"
        );
        let err = Schedule::parse(
            "[[fault]]\nat_ms = 1\nkind = \"slow\"\ndisk = 0\nfactor = 0.5\nfor_ms = 1\n",
            SpecFormat::Toml,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "<text>: fault 0 (slow): `factor`: expected a factor from 1 to 10000"
        );
        let err = Schedule::parse(
            r#"{"fault": [{"at_ms": 1, "kind": "fail-disk", "disc": 0}]}"#,
            SpecFormat::Json,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("disc") && err.contains("column"), "{err}");
        let err = Schedule::parse(
            "[[fault]]\nat_ms = -1\nkind = \"power-cut\"\n",
            SpecFormat::Toml,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("`at_ms`"), "{err}");
    }

    #[test]
    fn random_schedules_repeat_with_their_seed() {
        let p = RandomFaults {
            horizon: 10_000_000_000,
            disks: 2,
            capacity_blocks: 1_000_000,
            failures: 2,
            repair: 1_000_000_000,
            media_errors: 3,
            media_blocks: 16,
            slowdowns: 1,
            slow_factor: 4.0,
            slow_for: 100_000_000,
            power_cuts: 1,
        };
        let a = Schedule::random(7, &p);
        assert_eq!(a, Schedule::random(7, &p));
        assert_ne!(a, Schedule::random(8, &p));
        assert_eq!(a.faults().len(), 2 * 2 + 3 + 1 + 1);
    }
}
