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
    /// The grid file (TOML: a `command` and `[[axis]]` tables, as above).
    pub file: PathBuf,
    /// Directory for each grid point's results (and, with --shards, the parts).
    #[cfg_attr(feature = "cli", arg(long, default_value = "sweep-out"))]
    pub out_dir: PathBuf,
    /// Threads for each command run here; results do not depend on it.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = crate::bounds::default_jobs(), value_parser = crate::bounds::jobs()))]
    pub jobs: usize,
    /// Split each grid point's command into this many shards (with --print).
    #[cfg_attr(feature = "cli", arg(long, value_name = "COUNT", value_parser = crate::bounds::Whole::<u32>::new("shards", 1, 100_000)))]
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

/// The grid file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    command: Vec<String>,
    #[serde(default, rename = "axis")]
    axes: Vec<AxisFile>,
}

/// One option to vary, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisFile {
    option: String,
    values: Vec<toml::Value>,
}

/// Most commands a grid holds (its points): more is several sweeps.
pub const MAX_POINTS: u64 = 100_000;

/// Most shard commands `--print` writes (points × shards).
pub const MAX_LINES: u64 = 10_000_000;

/// The options a sweep sets itself (or that would send a point's results
/// elsewhere than its file): neither the command nor an axis may name them.
const SWEEP_OPTIONS: [&str; 6] = [
    "--shard",
    "--part",
    "--jobs",
    "--format",
    "--out-dir",
    "--html",
];

/// A checked grid: the base command and the axes, whose points are
/// enumerated on demand ([`Grid::point`], [`Grid::points`]) rather than
/// built in memory.
#[derive(Clone, Debug)]
pub struct Grid {
    command: Vec<String>,
    axes: Vec<Axis>,
    points: u64,
}

/// One checked axis: its option, the name's key, its values and their
/// file-safe forms (distinct, so that no two points share a file).
#[derive(Clone, Debug)]
struct Axis {
    option: String,
    values: Vec<String>,
    names: Vec<String>,
}

/// One command of the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridPoint {
    /// Its name: the axes' values.
    pub name: String,
    /// Its arguments (without `spindle`).
    pub args: Vec<String>,
}

/// Reads and checks a grid file.
///
/// # Errors
/// When the file cannot be read or is not a valid grid (the message names
/// the file and the field or line).
pub fn read_grid(path: &Path) -> Result<Grid> {
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
    Grid::parse(&text, &path.display().to_string())
}

/// Whether `arg` is one of [`SWEEP_OPTIONS`] (alone or as `--opt=value`).
fn sweep_option(arg: &str) -> bool {
    let name = arg.split_once('=').map_or(arg, |(name, _)| name);
    SWEEP_OPTIONS.contains(&name)
}

impl Grid {
    /// Parses and checks a grid's TOML text; `file` names it in messages.
    ///
    /// # Errors
    /// Not a valid grid: a command that does not run replications, an
    /// option the sweep sets, an axis that is not a long option, repeats
    /// another or has no values, two values with one file name, or more
    /// than [`MAX_POINTS`] points.
    pub fn parse(text: &str, file: &str) -> Result<Grid> {
        let grid: GridFile = toml::from_str(text).with_context(|| file.to_string())?;
        match grid.command.first().map(String::as_str) {
            Some("run" | "repro" | "txn") => {}
            Some(other) => bail!(
                "{file}: command: `{}` does not run replications; a sweep runs `run`, `repro` or `txn`",
                shorten(other)
            ),
            None => bail!(
                "{file}: command: empty; name the command, e.g. [\"run\", \"--disk\", \"hp97560\"]"
            ),
        }
        if let Some(arg) = grid.command.iter().find(|a| sweep_option(a)) {
            bail!(
                "{file}: command: `{}` is set by the sweep itself; leave it out",
                shorten(arg)
            );
        }
        let mut axes: Vec<Axis> = Vec::with_capacity(grid.axes.len());
        let mut points: u64 = 1;
        for (k, axis) in grid.axes.iter().enumerate() {
            let at = format!("{file}: axis {}", k + 1);
            let option = &axis.option;
            let plain = option.len() > 2
                && option.starts_with("--")
                && option[2..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-');
            if !plain {
                bail!(
                    "{at}: option `{}` must be a long option such as --load",
                    shorten(option)
                );
            }
            if sweep_option(option) {
                bail!("{at}: option `{option}` is set by the sweep itself; vary another option");
            }
            if axes.iter().any(|a| &a.option == option) {
                bail!("{at}: option `{option}` is varied by an earlier axis too; give it one axis");
            }
            if axis.values.is_empty() {
                bail!("{at} ({option}): values: empty");
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
                        "{at} ({option}): value {} is not a string, number or boolean",
                        shorten(&other.to_string())
                    ),
                })
                .collect::<Result<Vec<_>>>()?;
            let names: Vec<String> = values.iter().map(|v| file_safe(v)).collect();
            let mut seen = std::collections::HashMap::new();
            for (value, name) in values.iter().zip(&names) {
                if let Some(first) = seen.insert(name.as_str(), value.as_str()) {
                    bail!(
                        "{at} ({option}): values `{}` and `{}` would share the file name `{}`; make them differ in letters or digits",
                        shorten(first),
                        shorten(value),
                        shorten(name)
                    );
                }
            }
            points = points
                .checked_mul(values.len() as u64)
                .filter(|&n| n <= MAX_POINTS)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{at} ({option}): the grid grows past {MAX_POINTS} commands; split it into several sweeps"
                    )
                })?;
            axes.push(Axis {
                option: option.clone(),
                values,
                names,
            });
        }
        Ok(Grid {
            command: grid.command,
            axes,
            points,
        })
    }

    /// The number of points (commands).
    pub fn len(&self) -> u64 {
        self.points
    }

    /// Whether the grid has no point (never: a grid without axes is one
    /// point).
    pub fn is_empty(&self) -> bool {
        self.points == 0
    }

    /// Point `index` (in grid order: every combination, the first axis
    /// slowest), or `None` past the last.
    pub fn point(&self, index: u64) -> Option<GridPoint> {
        if index >= self.points {
            return None;
        }
        // Mixed radix: the last axis varies fastest.
        let mut picks = vec![0usize; self.axes.len()];
        let mut rest = index;
        for (pick, axis) in picks.iter_mut().zip(&self.axes).rev() {
            let n = axis.values.len() as u64;
            *pick = (rest % n) as usize;
            rest /= n;
        }
        let mut args = self.command.clone();
        let mut name = String::new();
        for (axis, &pick) in self.axes.iter().zip(&picks) {
            args.push(axis.option.clone());
            args.push(axis.values[pick].clone());
            if !name.is_empty() {
                name.push(',');
            }
            let _ = write!(
                name,
                "{}={}",
                axis.option.trim_start_matches('-'),
                axis.names[pick]
            );
        }
        if name.is_empty() {
            name = "all".to_string();
        }
        Some(GridPoint { name, args })
    }

    /// Every point, in grid order, each built when it is reached.
    pub fn points(&self) -> impl Iterator<Item = GridPoint> + '_ {
        (0..self.points).filter_map(|i| self.point(i))
    }
}

/// A value echoed in a message: at most 40 characters of it.
fn shorten(s: &str) -> String {
    if s.chars().count() <= 40 {
        s.to_string()
    } else {
        format!(
            "{}… ({} bytes)",
            s.chars().take(40).collect::<String>(),
            s.len()
        )
    }
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
    let grid = read_grid(&args.file)?;
    let out = &args.out_dir;
    let ext = extension(format);
    if let (Some(print), Some(count)) = (args.print, args.shards) {
        // Merges print as many part names as shards print lines.
        let lines = grid.len() * u64::from(count);
        if lines > MAX_LINES {
            bail!(
                "--shards {count}: {} points × {count} shards is {lines} commands, more than {MAX_LINES}; use fewer shards or split the grid",
                grid.len()
            );
        }
        let parts = out.join("parts");
        std::fs::create_dir_all(&parts)
            .with_context(|| format!("--out-dir: creating {}", parts.display()))?;
        return print_commands(&grid, print, count, &parts, out, format);
    }
    if args.print.is_none() && args.shards.is_some() {
        bail!("--shards: only with --print shards|merges (here, --jobs splits the work)");
    }
    std::fs::create_dir_all(out)
        .with_context(|| format!("--out-dir: creating {}", out.display()))?;
    let exe = std::env::current_exe().context("finding the spindle executable")?;
    let mut table = Table::new(
        format!("Sweep {}: {} commands", args.file.display(), grid.len()),
        &["point", "status", "results"],
    );
    let mut failed = Vec::new();
    for p in grid.points() {
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
            grid.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// `--print`: one command line per shard of each point, or one merge per
/// point, written as each is made (a reader that stops, `| head`, ends it).
fn print_commands(
    grid: &Grid,
    print: Print,
    count: u32,
    parts: &Path,
    out: &Path,
    format: Format,
) -> Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut write = |line: &str| -> std::io::Result<()> {
        stdout.write_all(line.as_bytes())?;
        stdout.write_all(b"\n")
    };
    let written = grid.points().try_for_each(|p| {
        let quoted: Vec<String> = p.args.iter().map(|a| shell_quote(a)).collect();
        let quoted = quoted.join(" ");
        let part = |i: u32| {
            shell_quote(
                &parts
                    .join(format!("{}.{i}-of-{count}.part", p.name))
                    .to_string_lossy(),
            )
        };
        match print {
            Print::Shards => (0..count).try_for_each(|i| {
                write(&format!(
                    "spindle --shard {i}/{count} --part {} {quoted}",
                    part(i)
                ))
            }),
            Print::Merges => {
                let mut line = format!("spindle merge --format {}", format_name(format));
                for i in 0..count {
                    line.push(' ');
                    line.push_str(&part(i));
                }
                let _ = write!(
                    line,
                    " > {}",
                    shell_quote(
                        &out.join(format!("{}.{}", p.name, extension(format)))
                            .to_string_lossy()
                    )
                );
                write(&line)
            }
        }
    });
    match written.and_then(|()| stdout.flush()) {
        // A closed pipe (`spindle sweep ... | head`) is not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing the commands")
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid_of(text: &str) -> Result<Vec<GridPoint>> {
        Ok(Grid::parse(text, "grid.toml")?.points().collect())
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
        for option in ["--shard", "--out-dir", "--part", "--html"] {
            let e = err(&format!(
                "command = [\"run\"]\n[[axis]]\noption = \"{option}\"\nvalues = [\"1/2\"]"
            ));
            assert!(e.contains("set by the sweep itself"), "{e}");
        }
        assert!(
            err(
                "command = [\"run\"]\n[[axis]]\noption = \"--policy\"\nvalues = [\"a b\", \"a_b\"]"
            )
            .contains("would share the file name `a_b`")
        );
        assert!(
            err("command = [\"run\"]\n[[axis]]\noption = \"--load\"\nvalues = [1]\n[[axis]]\noption = \"--load\"\nvalues = [2]")
                .contains("earlier axis")
        );
    }

    /// 30 axes of 10 values (10³⁰ points) are refused at the axis that
    /// passes the cap, before anything is built.
    #[test]
    fn a_huge_grid_is_refused_not_built() {
        let mut text = String::from("command = [\"run\"]\n");
        for k in 0..30 {
            let _ = write!(
                text,
                "[[axis]]\noption = \"--o{k}\"\nvalues = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
            );
        }
        let e = format!("{:#}", Grid::parse(&text, "g.toml").unwrap_err());
        assert!(e.contains("axis 6") && e.contains("100000"), "{e}");
        // Five axes (10⁵ points) are fine, and any point is made on demand.
        let five: String = text
            .split("[[axis]]")
            .take(6)
            .collect::<Vec<_>>()
            .join("[[axis]]");
        let grid = Grid::parse(&five, "g.toml").unwrap();
        assert_eq!(grid.len(), 100_000);
        let last = grid.point(99_999).unwrap();
        assert_eq!(last.name, "o0=9,o1=9,o2=9,o3=9,o4=9");
        assert!(grid.point(100_000).is_none());
    }

    #[test]
    fn quoting_keeps_plain_words_plain() {
        assert_eq!(shell_quote("ssedo:m=3,beta=2"), "ssedo:m=3,beta=2");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
