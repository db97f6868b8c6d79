//! `spindle sweep FILE.toml`: a grid of commands a user describes (a base
//! command and the options to vary), run here one command after another, or
//! printed as shard and merge commands for a cluster's engine (Slurm, GNU
//! parallel, anything that runs a list of command lines).
//!
//! The grid file:
//!
//! ```toml
//! # The command every grid point runs (without `spindle`): run, repro or txn.
//! command = ["run", "--disk", "hp97560", "--replications", "20"]
//!
//! # The options to vary; the grid is every combination, the first axis
//! # slowest. Values may be strings or numbers.
//! [[axis]]
//! option = "--policy"
//! values = ["fcfs", "sstf", "look"]
//!
//! [[axis]]
//! option = "--load"
//! values = [0.5, 0.8, 0.95]
//! ```
//!
//! Each grid point's results go to `OUT_DIR/NAME.EXT`, `NAME` built from the
//! axes' values (`policy=sstf,load=0.8`) and `EXT` from `--format`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::output::{Cell, Format, Table};

/// `spindle sweep`'s options.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SweepArgs {
    /// The grid (TOML: `command` and `[[axis]]` tables; see `spindle sweep --help`).
    pub file: PathBuf,
    /// Directory for each grid point's results (and, with --shards, the parts).
    #[cfg_attr(feature = "cli", arg(long, default_value = "sweep-out"))]
    pub out_dir: PathBuf,
    /// Threads for each command run here; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::run::default_jobs(), value_parser = crate::bounds::jobs))]
    pub jobs: usize,
    /// Split each grid point's command into this many shards (with --print).
    #[cfg_attr(feature = "cli", arg(long, value_name = "COUNT"))]
    pub shards: Option<u32>,
    /// Instead of running here, print one command per line: the shard
    /// commands (`shards`) or, once they have run, the merges (`merges`).
    #[cfg_attr(feature = "cli", arg(long, value_enum, requires = "shards"))]
    pub print: Option<Print>,
}

/// What `--print` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Print {
    /// `spindle --shard i/n --part … COMMAND`, one per shard of each point.
    Shards,
    /// `spindle merge … > OUT_DIR/NAME.EXT`, one per point.
    Merges,
}

/// The grid file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Grid {
    command: Vec<String>,
    #[serde(default, rename = "axis")]
    axes: Vec<Axis>,
}

/// One option to vary.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Axis {
    option: String,
    values: Vec<toml::Value>,
}

/// One command of the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridPoint {
    /// Its name: the axes' values.
    pub name: String,
    /// Its arguments (without `spindle`).
    pub args: Vec<String>,
}

/// Reads and checks a grid file; returns its commands in grid order.
///
/// # Errors
/// When the file cannot be read or is not a valid grid (the message names
/// the file and the field or line).
pub fn read_grid(path: &Path) -> Result<Vec<GridPoint>> {
    const MAX_BYTES: u64 = 1 << 20;
    let size = std::fs::metadata(path)
        .with_context(|| format!("{}", path.display()))?
        .len();
    if size > MAX_BYTES {
        bail!(
            "{}: {size} bytes; a grid file is at most {MAX_BYTES}",
            path.display()
        );
    }
    let text =
        disk_emu::text_input::read_text(path).with_context(|| format!("{}", path.display()))?;
    let grid: Grid = toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
    let file = path.display();
    match grid.command.first().map(String::as_str) {
        Some("run" | "repro" | "txn") => {}
        Some(other) => bail!(
            "{file}: command: `{other}` does not run replications; a sweep runs `run`, `repro` or `txn`"
        ),
        None => bail!(
            "{file}: command: empty; name the command, e.g. [\"run\", \"--disk\", \"hp97560\"]"
        ),
    }
    for arg in &grid.command {
        if ["--shard", "--part", "--jobs", "--format"]
            .iter()
            .any(|o| arg == o || arg.starts_with(&format!("{o}=")))
        {
            bail!("{file}: command: `{arg}` is set by the sweep itself; leave it out");
        }
    }
    let mut points = vec![GridPoint {
        name: String::new(),
        args: grid.command.clone(),
    }];
    for (k, axis) in grid.axes.iter().enumerate() {
        if !axis.option.starts_with("--") {
            bail!(
                "{file}: axis {}: option `{}` must be a long option such as --load",
                k + 1,
                axis.option
            );
        }
        if axis.values.is_empty() {
            bail!("{file}: axis {} ({}): values: empty", k + 1, axis.option);
        }
        let values = axis
            .values
            .iter()
            .map(|v| match v {
                toml::Value::String(s) => Ok(s.clone()),
                toml::Value::Integer(i) => Ok(i.to_string()),
                toml::Value::Float(x) => Ok(x.to_string()),
                toml::Value::Boolean(b) => Ok(b.to_string()),
                other => bail!(
                    "{file}: axis {} ({}): value {other} is not a string, number or boolean",
                    k + 1,
                    axis.option
                ),
            })
            .collect::<Result<Vec<_>>>()?;
        let key = axis.option.trim_start_matches('-');
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut args = p.args.clone();
                    args.push(axis.option.clone());
                    args.push(v.clone());
                    let part = format!("{key}={}", file_safe(v));
                    let name = if p.name.is_empty() {
                        part
                    } else {
                        format!("{},{part}", p.name)
                    };
                    GridPoint { name, args }
                })
            })
            .collect();
    }
    if let [only] = points.as_mut_slice()
        && only.name.is_empty()
    {
        only.name = "all".to_string();
    }
    Ok(points)
}

/// `v` with every character a file name should not hold replaced by `_`.
fn file_safe(v: &str) -> String {
    v.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `arg` quoted for a POSIX shell where it needs to be.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

fn extension(format: Format) -> &'static str {
    match format {
        Format::Table => "txt",
        Format::Csv => "csv",
        Format::Json => "json",
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Table => "table",
        Format::Csv => "csv",
        Format::Json => "json",
    }
}

/// `spindle sweep`.
///
/// # Errors
/// A bad grid file, an output directory that cannot be made, or commands
/// that failed (each named; the others still run).
pub fn run(args: &SweepArgs, format: Format) -> Result<()> {
    if args.shards == Some(0) {
        bail!("--shards: at least 1");
    }
    let points = read_grid(&args.file)?;
    let out = &args.out_dir;
    let ext = extension(format);
    if let (Some(print), Some(count)) = (args.print, args.shards) {
        let parts = out.join("parts");
        let mut text = String::new();
        for p in &points {
            let quoted: Vec<String> = p.args.iter().map(|a| shell_quote(a)).collect();
            let part = |i: u32| parts.join(format!("{}.{i}-of-{count}.part", p.name));
            match print {
                Print::Shards => {
                    for i in 0..count {
                        let _ = writeln!(
                            text,
                            "spindle --shard {i}/{count} --part {} {}",
                            shell_quote(&part(i).to_string_lossy()),
                            quoted.join(" ")
                        );
                    }
                }
                Print::Merges => {
                    let files: Vec<String> = (0..count)
                        .map(|i| shell_quote(&part(i).to_string_lossy()))
                        .collect();
                    let _ = writeln!(
                        text,
                        "spindle merge --format {} {} > {}",
                        format_name(format),
                        files.join(" "),
                        shell_quote(&out.join(format!("{}.{ext}", p.name)).to_string_lossy())
                    );
                }
            }
        }
        std::fs::create_dir_all(&parts)
            .with_context(|| format!("--out-dir: creating {}", parts.display()))?;
        crate::output::emit(&text);
        return Ok(());
    }
    if args.print.is_none() && args.shards.is_some() {
        bail!("--shards: only with --print shards|merges (here, --jobs splits the work)");
    }
    std::fs::create_dir_all(out)
        .with_context(|| format!("--out-dir: creating {}", out.display()))?;
    let exe = std::env::current_exe().context("finding the spindle executable")?;
    let mut table = Table::new(
        format!("Sweep {}: {} commands", args.file.display(), points.len()),
        &["point", "status", "results"],
    );
    let mut failed = Vec::new();
    for p in &points {
        let path = out.join(format!("{}.{ext}", p.name));
        let file = std::fs::File::create(&path)
            .with_context(|| format!("--out-dir: creating {}", path.display()))?;
        eprintln!("sweep: {} → {}", p.name, path.display());
        let status = Command::new(&exe)
            .args(&p.args)
            .args([
                "--jobs",
                &args.jobs.to_string(),
                "--format",
                format_name(format),
            ])
            .stdout(Stdio::from(file))
            .status()
            .with_context(|| format!("running {}", p.name))?;
        let ok = status.success();
        if !ok {
            failed.push(p.name.clone());
        }
        table.row(vec![
            Cell::text(&p.name),
            Cell::text(if ok { "done" } else { "failed" }),
            Cell::text(path.display().to_string()),
        ]);
    }
    eprint!("{}", table.render(Format::Table));
    if !failed.is_empty() {
        bail!(
            "{} of {} commands failed: {}",
            failed.len(),
            points.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid_of(text: &str) -> Result<Vec<GridPoint>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("grid.toml");
        std::fs::write(&path, text)?;
        read_grid(&path)
    }

    #[test]
    fn every_combination_first_axis_slowest() {
        let points = grid_of(
            "command = [\"run\", \"--disk\", \"hp97560\"]\n\
             [[axis]]\noption = \"--policy\"\nvalues = [\"fcfs\", \"sstf\"]\n\
             [[axis]]\noption = \"--load\"\nvalues = [0.5, 0.9, 1]\n",
        )
        .unwrap();
        let names: Vec<&str> = points.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "policy=fcfs,load=0.5",
                "policy=fcfs,load=0.9",
                "policy=fcfs,load=1",
                "policy=sstf,load=0.5",
                "policy=sstf,load=0.9",
                "policy=sstf,load=1"
            ]
        );
        assert_eq!(
            points[4].args,
            [
                "run", "--disk", "hp97560", "--policy", "sstf", "--load", "0.9"
            ]
        );
    }

    #[test]
    fn refusals_name_the_field() {
        let err = |t: &str| format!("{:#}", grid_of(t).unwrap_err());
        assert!(err("command = [\"validate\"]").contains("command: `validate`"));
        assert!(err("command = []").contains("command: empty"));
        assert!(
            err("command = [\"run\", \"--jobs\", \"2\"]").contains("`--jobs` is set by the sweep")
        );
        assert!(
            err("command = [\"run\"]\n[[axis]]\noption = \"load\"\nvalues = [1]")
                .contains("axis 1: option `load`")
        );
        assert!(
            err("command = [\"run\"]\n[[axis]]\noption = \"--load\"\nvalues = []")
                .contains("axis 1 (--load): values: empty")
        );
        assert!(err("command = [\"run\"]\nextra = 1").contains("unknown field `extra`"));
    }

    #[test]
    fn quoting_keeps_plain_words_plain() {
        assert_eq!(shell_quote("ssedo:m=3,beta=2"), "ssedo:m=3,beta=2");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
