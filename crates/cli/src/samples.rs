//! `--samples FILE` of `run` and `replay`: one CSV row per measured request,
//! streamed to the file as requests leave (constant memory, whatever the
//! run's length). The rows of `run`'s replications, which run on several
//! threads, go each to a temporary file beside FILE and are appended in
//! the order of the runs and replications, so the file is the same bytes
//! whatever `--jobs` says.
//!
//! Columns: what the run varies (`policy`, the load point, `replication`;
//! `device` for a replay), then `id` (order of arrival), `arrival_ns`,
//! `kind` (R or W), `block`, `cylinder` (single disks) or `disk` (the disk
//! of a mirrored pair that served it), `blocks`, `wait_ns`, `response_ns`
//! (empty for a dropped request) and, when requests carry deadlines,
//! `deadline_ns` and `outcome` (met, missed or dropped).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use std::sync::{Mutex, PoisonError};

use anyhow::{Context, Result, bail};
use experiments::{Ending, RequestSample, SampleSink};
use sched_core::Kind;

/// The most rows one `--samples` file takes (about 8 GB of CSV): a run
/// measuring more is refused before it starts.
pub const MAX_ROWS: u64 = 100_000_000;

/// Which columns describe each request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One disk: the request's cylinder.
    SingleDisk,
    /// A mirrored pair: the disk that served it.
    Mirror,
}

/// The per-request columns of `layout`, after the context columns.
fn request_columns(layout: Layout, deadlines: bool) -> Vec<&'static str> {
    let mut columns = vec!["id", "arrival_ns", "kind", "block"];
    columns.push(match layout {
        Layout::SingleDisk => "cylinder",
        Layout::Mirror => "disk",
    });
    columns.extend(["blocks", "wait_ns", "response_ns"]);
    if deadlines {
        columns.extend(["deadline_ns", "outcome"]);
    }
    columns
}

/// The row of `s` after `context`.
fn row(context: &[String], s: &RequestSample, layout: Layout, deadlines: bool) -> Vec<String> {
    let opt = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
    let mut fields = context.to_vec();
    fields.extend([
        s.id.to_string(),
        s.arrival.to_string(),
        if s.kind == Kind::Read { "R" } else { "W" }.to_string(),
        s.block.to_string(),
    ]);
    fields.push(match layout {
        Layout::SingleDisk => opt(s.cylinder.map(u64::from)),
        Layout::Mirror => match s.ending {
            Ending::Served { disk, .. } => disk.to_string(),
            Ending::Dropped(_) => String::new(),
        },
    });
    fields.extend([s.blocks.to_string(), opt(s.wait()), opt(s.response())]);
    if deadlines {
        fields.push(opt(s.deadline));
        fields.push(s.deadline_outcome().map_or("", |o| o.as_str()).to_string());
    }
    fields
}

/// Writes one CSV record (RFC 4180: a field holding a comma, a quote or a
/// line break is quoted, its quotes doubled).
fn write_record(out: &mut impl Write, fields: &[impl AsRef<str>]) -> io::Result<()> {
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        let field = field.as_ref();
        if field.contains([',', '"', '\n', '\r']) {
            write!(out, "\"{}\"", field.replace('"', "\"\""))?;
        } else {
            out.write_all(field.as_bytes())?;
        }
    }
    out.write_all(b"\n")
}

/// The samples file being written.
pub struct SamplesFile {
    path: PathBuf,
    out: BufWriter<File>,
    layout: Layout,
    deadlines: bool,
    rows: u64,
}

impl SamplesFile {
    /// Creates `path` with its header: the `context` columns, then the
    /// request's.
    ///
    /// # Errors
    /// The file cannot be created.
    pub fn create(
        path: &Path,
        context: &[&str],
        layout: Layout,
        deadlines: bool,
    ) -> Result<SamplesFile> {
        let file = File::create(path).with_context(|| format!("--samples {}", path.display()))?;
        let mut out = BufWriter::new(file);
        let mut header: Vec<&str> = context.to_vec();
        header.extend(request_columns(layout, deadlines));
        write_record(&mut out, &header).with_context(|| format!("--samples {}", path.display()))?;
        Ok(SamplesFile {
            path: path.to_path_buf(),
            out,
            layout,
            deadlines,
            rows: 0,
        })
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes one request's row after `context`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&mut self, context: &[String], s: &RequestSample) -> Result<()> {
        write_record(&mut self.out, &row(context, s, self.layout, self.deadlines))
            .with_context(|| format!("--samples {}", self.path.display()))?;
        self.rows += 1;
        Ok(())
    }

    /// A part for one replication's rows, in a temporary file beside the
    /// samples file (see [`Part`]); `context` starts each of its rows.
    fn part(&self, context: Vec<String>) -> Part {
        let dir = match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let writer = tempfile::NamedTempFile::new_in(dir)
            .map(|f| {
                let (file, path) = f.into_parts();
                (BufWriter::new(file), path)
            })
            .map_err(anyhow::Error::from);
        Part {
            writer,
            context,
            layout: self.layout,
            deadlines: self.deadlines,
            rows: 0,
        }
    }

    /// Appends a closed part's rows (in the order parts are appended).
    ///
    /// # Errors
    /// The part could not be written, or the file cannot be.
    fn append(&mut self, part: Written) -> Result<()> {
        let what = || format!("--samples {}: a replication's rows", self.path.display());
        let temp = part.temp.with_context(what)?;
        let mut file = File::open(&temp).with_context(what)?;
        io::copy(&mut file, &mut self.out).with_context(what)?;
        self.rows += part.rows;
        Ok(())
    }

    /// Flushes the file; returns the rows written.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn finish(mut self) -> Result<u64> {
        self.out
            .flush()
            .with_context(|| format!("--samples {}", self.path.display()))?;
        crate::output::announce_written(&self.path);
        Ok(self.rows)
    }
}

/// One replication's rows, written to a temporary file as its requests
/// leave. An error writing is kept (a run's sink cannot fail) and reported
/// when the part is appended.
struct Part {
    writer: Result<(BufWriter<File>, tempfile::TempPath)>,
    context: Vec<String>,
    layout: Layout,
    deadlines: bool,
    rows: u64,
}

/// A part whose replication has ended: its file closed (so that no more
/// files are open than replications are running), waiting to be appended.
struct Written {
    temp: Result<tempfile::TempPath>,
    rows: u64,
}

impl Part {
    /// Writes one request's row.
    fn add(&mut self, s: &RequestSample) {
        let written = match &mut self.writer {
            Ok((writer, _)) => {
                write_record(writer, &row(&self.context, s, self.layout, self.deadlines))
            }
            Err(_) => return,
        };
        match written {
            Ok(()) => self.rows += 1,
            Err(e) => self.writer = Err(e.into()),
        }
    }

    /// Flushes and closes the part's file.
    fn close(self) -> Written {
        let temp = self.writer.and_then(|(writer, temp)| {
            writer.into_inner().map_err(|e| e.into_error())?;
            Ok(temp)
        });
        Written {
            temp,
            rows: self.rows,
        }
    }
}

/// Runs replications `0..n` of `config` as [`experiments::replicate`] does
/// (`run(r, None)`), or, with a samples file, handing each replication's
/// requests to a sink (`run(r, Some(sink))`) whose rows start with
/// `context` and the replication's number, and appending them to the file
/// in replication order. The outer error is the samples file's; the inner,
/// the run's.
///
/// # Errors
/// Writing the samples.
pub fn replicate<T, E>(
    config: &dyn std::fmt::Debug,
    n: u64,
    jobs: usize,
    samples: Option<(&mut SamplesFile, &[String])>,
    run: impl Fn(u64, Option<SampleSink<'_>>) -> Result<T, E> + Sync,
) -> Result<Result<Vec<T>, E>>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Send,
    E: From<experiments::sharding::ShardFailure> + std::error::Error + Send + 'static,
{
    let Some((file, context)) = samples else {
        return Ok(experiments::replicate(config, n, jobs, |r| run(r, None)));
    };
    let slots: Vec<Mutex<Option<Written>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let shared: &SamplesFile = file;
    let result = experiments::replicate(config, n, jobs, |r| {
        let mut context = context.to_vec();
        context.push(r.to_string());
        let mut part = shared.part(context);
        let out = run(r, Some(&mut |s: &RequestSample| part.add(s)));
        *slots[r as usize]
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(part.close());
        out
    });
    if result.is_ok() {
        for slot in slots {
            if let Some(written) = slot.into_inner().unwrap_or_else(PoisonError::into_inner) {
                file.append(written)?;
            }
        }
    }
    Ok(result)
}

/// Refuses a run that would write more than [`MAX_ROWS`] rows.
///
/// # Errors
/// Over the bound, with what to lower.
pub fn check_rows(rows: u128) -> Result<()> {
    if rows > u128::from(MAX_ROWS) {
        bail!(
            "--samples: the run measures {rows} requests, more rows than one file takes ({MAX_ROWS}); lower --requests or --replications, or run fewer policies and points"
        );
    }
    Ok(())
}
