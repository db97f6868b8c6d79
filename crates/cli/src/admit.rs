//! `spindle admit FILE`: WRR-SCAN's admission decision for each task of a
//! task set, under each version (Tsai, Chu & Huang 2004, Eqs. 7, 8, 10),
//! with the paper's HP 97560 constants.
//!
//! The file is TOML or JSON (by extension):
//!
//! ```toml
//! aperiodic_share = 0.005   # of each round's transmission time (default), or
//! # aperiodic_blocks = 3    # a fixed x_a
//!
//! [[task]]
//! name = "video-1"          # optional
//! rate_kb_s = 11.2          # L_i, KB/s (1 KB = 1024 B)
//! buffer_kb = 56            # B_i, KB
//! release_ms = 120          # S_i, optional (for `spindle run --tasks`)
//! ```
//!
//! Tasks are admitted in file order; each version decides on its own.
//!
//! `spindle run --tasks FILE` runs the same file on an emulated disk. Two
//! optional keys matter only there: a top-level `aperiodic_gap_ms` (mean gap
//! between aperiodic one-block reads, exponential; default 35 ms, the
//! paper's; 0 for none) and a task's `release_ms` (its first job's release;
//! when left out, drawn uniform over the first period for each replication,
//! as `spindle repro tsai04` draws its task sets').

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use disk_emu::disk::DiskModel;
use sched_core::policy::{
    AdmitError, AperiodicReserve, RateTask, TaskError, WrrMode, WrrParams, WrrScan,
};
use sched_core::{Heap, Nanos};
use serde::Deserialize;

use crate::output::{Cell, Format, Table};
use crate::run::WrrConstants;

/// One task of the file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// A label for the output.
    #[serde(default)]
    pub name: Option<String>,
    /// L_i, KB per second.
    pub rate_kb_s: f64,
    /// B_i, KB.
    pub buffer_kb: f64,
    /// S_i, ms: the first job's release (`spindle run --tasks` only).
    #[serde(default)]
    pub release_ms: Option<f64>,
}

/// The file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TaskSetFile {
    /// The aperiodic server's share of each round (fraction, default 0.005).
    #[serde(default)]
    pub aperiodic_share: Option<f64>,
    /// A fixed x_a instead.
    #[serde(default)]
    pub aperiodic_blocks: Option<u32>,
    /// Mean gap between aperiodic reads, ms (`spindle run --tasks` only;
    /// default [`DEFAULT_APERIODIC_GAP_MS`], 0 for none).
    #[serde(default)]
    pub aperiodic_gap_ms: Option<f64>,
    /// The tasks.
    #[serde(alias = "tasks")]
    pub task: Vec<TaskSpec>,
}

/// Why a task-set file is unusable.
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskSetError {
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The extension is neither `.toml` nor `.json`.
    Format {
        /// The file.
        path: PathBuf,
    },
    /// The text does not parse (the message names the line and field).
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A field has a value outside its domain.
    Field {
        /// The file.
        path: PathBuf,
        /// `task[i]` (1-based) or the top-level key.
        at: String,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
}

impl fmt::Display for TaskSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskSetError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TaskSetError::Format { path } => write!(
                f,
                "{}: unknown format (expected a .toml or .json file)",
                path.display()
            ),
            TaskSetError::Parse { path, message } => write!(f, "{}: {message}", path.display()),
            TaskSetError::Field {
                path,
                at,
                field,
                problem,
            } => write!(f, "{}: {at}.{field}: {problem}", path.display()),
        }
    }
}

impl std::error::Error for TaskSetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TaskSetError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Bytes in a KB of the file.
const KB: f64 = 1024.0;
/// The longest release or aperiodic gap a file may give: an hour, the
/// longest run (`--seconds`).
const MAX_MS: f64 = 3_600_000.0;
/// C: the paper's block.
pub const BLOCK_BYTES: u32 = 4096;

/// The paper's mean gap between aperiodic reads (Tsai et al. 2004, §4).
pub const DEFAULT_APERIODIC_GAP_MS: f64 = 35.0;

/// A checked task set: the admission tasks (classes 1..) and the reservation.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskSet {
    /// Labels, one per task.
    pub names: Vec<String>,
    /// The tasks, classes 1, 2, ...
    pub tasks: Vec<RateTask>,
    /// The aperiodic reservation.
    pub aperiodic: AperiodicReserve,
    /// Whether the file gave the reservation (rather than the default).
    pub aperiodic_given: bool,
    /// Each task's first release, where the file gives it.
    pub releases: Vec<Option<Nanos>>,
    /// Mean gap between aperiodic reads (0: none).
    pub aperiodic_gap: Nanos,
}

/// Reads and checks a task-set file.
///
/// # Errors
/// [`TaskSetError`] naming the file and, for a bad value, the task and field:
/// a rate or buffer that is not positive and finite, a period (buffer /
/// rate) shorter than one revolution of the disk, too many tasks.
pub fn load(path: &Path) -> Result<TaskSet, TaskSetError> {
    let text = disk_emu::text_input::read_text(path).map_err(|source| TaskSetError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let parse_error = |message: String| TaskSetError::Parse {
        path: path.to_path_buf(),
        message,
    };
    let file: TaskSetFile = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => toml::from_str(&text).map_err(|e| parse_error(e.to_string()))?,
        Some("json") => serde_json::from_str(&text).map_err(|e| parse_error(e.to_string()))?,
        _ => {
            return Err(TaskSetError::Format {
                path: path.to_path_buf(),
            });
        }
    };
    check(path, &file)
}

/// Checks a parsed file (see [`load`]).
///
/// # Errors
/// As [`load`].
pub fn check(path: &Path, file: &TaskSetFile) -> Result<TaskSet, TaskSetError> {
    let field = |at: String, field: &'static str, problem: String| TaskSetError::Field {
        path: path.to_path_buf(),
        at,
        field,
        problem,
    };
    let aperiodic = match (file.aperiodic_share, file.aperiodic_blocks) {
        (Some(_), Some(_)) => {
            return Err(field(
                "top level".into(),
                "aperiodic_share",
                "give aperiodic_share or aperiodic_blocks, not both".into(),
            ));
        }
        (Some(s), None) => {
            if !(s.is_finite() && (0.0..1.0).contains(&s)) {
                return Err(field(
                    "top level".into(),
                    "aperiodic_share",
                    format!("must be a fraction in [0, 1), got {s}"),
                ));
            }
            AperiodicReserve::Share {
                ppm: (s * 1e6).round() as u32,
            }
        }
        (None, Some(b)) => AperiodicReserve::Blocks(b),
        (None, None) => AperiodicReserve::Share {
            ppm: crate::repro::tsai04::DEFAULT_SHARE_PPM,
        },
    };
    let aperiodic_gap_ms = file.aperiodic_gap_ms.unwrap_or(DEFAULT_APERIODIC_GAP_MS);
    // A gap under a microsecond would flood the disk's aperiodic backlog.
    if !(aperiodic_gap_ms == 0.0 || (aperiodic_gap_ms.is_finite() && aperiodic_gap_ms >= 1e-3))
        || aperiodic_gap_ms > MAX_MS
    {
        return Err(field(
            "top level".into(),
            "aperiodic_gap_ms",
            format!(
                "must be 0 (no aperiodic reads) or from 0.001 to {MAX_MS} ms, got {aperiodic_gap_ms}"
            ),
        ));
    }
    if file.task.len() >= usize::from(u16::MAX) {
        return Err(field(
            "top level".into(),
            "task",
            format!("at most {} tasks, got {}", u16::MAX - 1, file.task.len()),
        ));
    }
    let params = WrrParams::tsai04(WrrMode::Aligned, aperiodic);
    let mut names = Vec::with_capacity(file.task.len());
    let mut tasks = Vec::with_capacity(file.task.len());
    let mut releases = Vec::with_capacity(file.task.len());
    for (i, t) in file.task.iter().enumerate() {
        let at = format!("task[{}]", i + 1);
        if !(t.rate_kb_s.is_finite() && t.rate_kb_s > 0.0) {
            return Err(field(
                at,
                "rate_kb_s",
                format!("must be positive, got {}", t.rate_kb_s),
            ));
        }
        if !(t.buffer_kb.is_finite() && t.buffer_kb > 0.0) {
            return Err(field(
                at,
                "buffer_kb",
                format!("must be positive, got {}", t.buffer_kb),
            ));
        }
        let rate = (t.rate_kb_s * KB).round() as u64;
        let buffer = (t.buffer_kb * KB).ceil() as u64;
        let class = (i + 1) as u16;
        let task = RateTask::from_rate(class, rate.max(1), buffer, BLOCK_BYTES)
            .and_then(|task| params.check_task(&task).map(|()| task))
            .map_err(|e| match e {
                TaskError::PeriodBelowRevolution { period, revolution } => field(
                    at.clone(),
                    "rate_kb_s",
                    format!(
                        "the period buffer_kb / rate_kb_s = {:.3} ms is shorter than one disk revolution ({:.3} ms)",
                        period as f64 / 1e6,
                        revolution as f64 / 1e6
                    ),
                ),
                e => field(at.clone(), "buffer_kb", e.to_string()),
            })?;
        let release = match t.release_ms {
            None => None,
            Some(ms) if ms.is_finite() && (0.0..=MAX_MS).contains(&ms) => {
                Some((ms * 1e6).round() as Nanos)
            }
            Some(ms) => {
                return Err(field(
                    at,
                    "release_ms",
                    format!("must be from 0 to {MAX_MS} ms, got {ms}"),
                ));
            }
        };
        releases.push(release);
        names.push(t.name.clone().unwrap_or_else(|| at.clone()));
        tasks.push(task);
    }
    Ok(TaskSet {
        names,
        tasks,
        aperiodic,
        aperiodic_given: file.aperiodic_share.is_some() || file.aperiodic_blocks.is_some(),
        releases,
        aperiodic_gap: (aperiodic_gap_ms * 1e6).round() as Nanos,
    })
}

/// WRR-SCAN's parameters on `model`: `params`' version and reservation,
/// requests in the disk's blocks (C = [`BLOCK_BYTES`]), and the admission
/// constants the paper's (Table 2) or, under [`WrrConstants::Drive`],
/// measured on the drive ([`experiments::wrr_params_on`]).
///
/// # Errors
/// A disk whose blocks do not divide C; one the constants cannot be
/// measured on (no spindle speed).
pub fn params_on(
    mut params: WrrParams,
    model: &DiskModel,
    constants: WrrConstants,
) -> Result<WrrParams> {
    let block_bytes = model.block_bytes();
    if block_bytes == 0 || !BLOCK_BYTES.is_multiple_of(block_bytes) {
        anyhow::bail!(
            "--disk {}: its {block_bytes}-byte blocks do not divide the tasks' {BLOCK_BYTES}-byte blocks",
            model.name()
        );
    }
    params.block_sectors = BLOCK_BYTES / block_bytes;
    if constants == WrrConstants::Drive {
        params = experiments::wrr_params_on(model, params)
            .with_context(|| format!("--wrr-constants drive on {}", model.name()))?;
    }
    Ok(params)
}

/// Warns that the paper's constants do not describe `disk`, when they do
/// not (`spindle admit` and `run --tasks`).
pub fn warn_of_paper_constants(disk: &str, constants: WrrConstants) {
    if disk != "hp97560" && constants == WrrConstants::Paper {
        eprintln!(
            "warning: --disk {disk}: WRR-SCAN's admission test uses the HP 97560's constants (Tsai et al., Table 2); on this disk its guarantee does not hold (--wrr-constants drive measures them on the disk)"
        );
    }
}

/// Each task's decision under `params` on a disk of `cylinders`, admitting
/// in order; an admitted task's reservation is the one in force once every
/// task has been tried.
///
/// # Errors
/// When the task table cannot be built.
pub fn decide(
    set: &TaskSet,
    params: WrrParams,
    cylinders: u32,
) -> Result<Vec<Result<sched_core::policy::Reservation, AdmitError>>> {
    let mut wrr = WrrScan::new(
        Heap::new(1)?,
        Heap::new(set.tasks.len().max(1))?,
        cylinders,
        params,
    )?;
    let decisions: Vec<_> = set.tasks.iter().map(|&t| wrr.admit(t)).collect();
    // Later admissions may shorten the round: report what is in force at the end.
    Ok(decisions
        .into_iter()
        .zip(&set.tasks)
        .map(|(d, t)| d.map(|r| wrr.reservation(t.class).unwrap_or(r)))
        .collect())
}

/// Command-line arguments of `spindle admit`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AdmitArgs {
    /// Task set, TOML or JSON.
    pub file: PathBuf,
    /// Disk the tasks are read from: a preset, a spec file, or disksim:FILE.
    #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
    pub disk: String,
    /// The constants the admission test charges: `paper` (Table 2's HP
    /// 97560 figures) or `drive` (measured on --disk).
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "paper"))]
    pub wrr_constants: WrrConstants,
}

/// `spindle admit FILE`.
///
/// # Errors
/// For an unusable file.
pub fn run(args: &AdmitArgs, format: Format) -> Result<()> {
    let set = load(&args.file)?;
    let disk = crate::common::resolve_disk(&args.disk)?;
    let model = DiskModel::from_spec(&disk)?;
    warn_of_paper_constants(&disk.name, args.wrr_constants);
    let decisions: Vec<_> = WrrMode::ALL
        .iter()
        .map(|&mode| {
            let params = params_on(
                WrrParams::tsai04(mode, set.aperiodic),
                &model,
                args.wrr_constants,
            )?;
            decide(&set, params, model.cylinders())
        })
        .collect::<Result<_>>()?;
    let constants = match args.wrr_constants {
        WrrConstants::Paper => "Table 2 constants",
        WrrConstants::Drive => "constants measured on the drive",
    };
    let mut t = Table::new(
        format!(
            "WRR-SCAN admission, {} ({} tasks, {}, {constants})",
            args.file.display(),
            set.tasks.len(),
            disk.name
        ),
        &[
            "task",
            "period ms",
            "blocks",
            "version",
            "admitted",
            "rounds/period",
            "blocks/round",
            "weight ms",
            "worst resp. ms",
            "refused by",
        ],
    );
    // One row per task and version, each figure in a column of its own, so
    // that CSV and JSON carry numbers rather than sentences.
    for (i, task) in set.tasks.iter().enumerate() {
        for (mode, d) in WrrMode::ALL.iter().zip(&decisions) {
            let mut row = vec![
                Cell::text(&set.names[i]),
                Cell::num(task.period as f64 / 1e6, 1),
                Cell::Int(u64::from(task.blocks)),
                Cell::text(mode.to_string()),
            ];
            match &d[i] {
                Ok(r) => row.extend([
                    Cell::Flag(true),
                    Cell::Int(r.rounds_per_period as u64),
                    Cell::Int(r.blocks_per_round as u64),
                    Cell::num(r.weight as f64 / 1e6, 2),
                    Cell::num(r.worst_case_response as f64 / 1e6, 0),
                    Cell::Missing,
                ]),
                Err(e) => {
                    let why = match e {
                        AdmitError::Unschedulable { bound, .. } => bound.to_string(),
                        other => other.to_string(),
                    };
                    row.extend([
                        Cell::Flag(false),
                        Cell::Missing,
                        Cell::Missing,
                        Cell::Missing,
                        Cell::Missing,
                        Cell::text(why),
                    ]);
                }
            }
            t.row(row);
        }
    }
    let admitted: Vec<usize> = decisions
        .iter()
        .map(|d| d.iter().filter(|r| r.is_ok()).count())
        .collect();
    let rounds: Vec<String> = decisions
        .iter()
        .map(|d| {
            d.iter()
                .find_map(|r| r.as_ref().ok())
                .map_or_else(|| "-".into(), |r| format!("{:.1} ms", r.round as f64 / 1e6))
        })
        .collect();
    t.note(format!(
        "admitted: R {}, C {}, CA {}; round length: R {}, C {}, CA {}",
        admitted[0], admitted[1], admitted[2], rounds[0], rounds[1], rounds[2]
    ));
    t.note("weight W = x·C/V for x blocks a round; worst response is the admission test's bound");
    crate::report::emit_table(&t, format)?;
    Ok(())
}
