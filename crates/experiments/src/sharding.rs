//! Sharded runs: the units of work of one command split across processes or
//! machines, and put back together into exactly what one unsharded run
//! prints.
//!
//! A **unit** is one replication of one configuration point
//! ([`seeds::Unit`](crate::seeds::Unit)); its result depends on nothing but
//! its own coordinates. Every experiment runs its replications through
//! [`replicate`], which in an ordinary run is [`parallel`].
//! A command run under a [`Runner`] ([`Runner::install`]) may instead be one
//! shard of a sweep, or the merge of one:
//!
//! - **Shard `i/n`** ([`Runner::shard`]): the command's code runs as usual,
//!   but each [`replicate`] call computes only the units this shard owns and
//!   records their raw results (the per-replication reports, not rounded
//!   output). Units are numbered in the order the command asks for them
//!   (point after point, replication after replication) and shard `i` owns
//!   the units whose number is `i` modulo `n`: every shard gets a share of
//!   every point, so shards take about equally long whatever the points
//!   cost. So that the command can go on to its next point, the units a
//!   shard does not own are stood in for by a copy of one it does; a shard
//!   that owns no unit of a point computes the point's first unit as its
//!   stand-in, unrecorded (choose `n` no larger than the replications per
//!   point to avoid that extra work). A shard's output is thrown away; what
//!   it leaves is a [`Part`].
//! - **Merge** ([`Runner::merge`] over [`Merged::from_parts`]): the command's
//!   code runs again, and each [`replicate`] call returns the recorded
//!   results instead of computing them. The tables, CSV, JSON and plots come
//!   from the same code on the same numbers as in the unsharded run, so they
//!   are byte-identical to it, for any `n` and any order of the parts.
//!
//! A command whose choice of points depends on earlier results (a search)
//! cannot be sharded this way; its points are labelled by a digest of their
//! configuration, so a merge that would mix results of different points is
//! refused ([`ShardFailure::Diverged`]) rather than printed.
//!
//! **Failures.** A unit that fails is part of the experiment's result: it is
//! recorded with its error (message and causes), and the merge reproduces
//! the error at the point where the unsharded run met it. A shard that met a
//! unit's failure returns that failure to the command exactly as the
//! unsharded run would (the command may go on to other points or stop); the
//! points it never reached are not needed by the merge, which stops there
//! too.
//!
//! **The part file.** One line of JSON, the [`PartHeader`] (format, tool
//! version, the command and its parameters, the seed, the shard, the points
//! in the order asked, the number of units and a checksum of the body),
//! followed by the body: the unit records in CBOR, which keeps every `f64`
//! (NaN and infinities included) bit for bit. `head -1 FILE` shows what a
//! part is; truncation and corruption are caught by the checksum.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt::{self, Debug, Display};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::parallel;

/// The longest header line a part may have (a sweep of a million points
/// fits).
const MAX_HEADER_BYTES: u64 = 64 << 20;

/// The missing shards a merge's refusal lists (it counts the rest).
pub const MISSING_SHOWN: usize = 10;

/// The format tag of a part file's header.
pub const PART_FORMAT: &str = "spindle-part/1";

/// Shard `index` of `count` (`index` counts from 0, as Slurm's array task
/// ids do), written `index/count`. A part's header is read through
/// [`Shard::new`]'s check, as the command line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ShardFields")]
pub struct Shard {
    /// Which shard, `0..count`.
    pub index: u32,
    /// How many shards the units are split into.
    pub count: u32,
}

impl Shard {
    /// Shard `index` of `count`.
    ///
    /// # Errors
    /// When `count` is 0 or `index` is not below it.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardSpecError> {
        if count == 0 {
            return Err(ShardSpecError::NoShards);
        }
        if index >= count {
            return Err(ShardSpecError::IndexOutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// Whether unit number `unit` (in the order the command asks for units)
    /// belongs to this shard.
    pub fn owns(self, unit: u64) -> bool {
        unit % u64::from(self.count) == u64::from(self.index)
    }
}

/// A shard as a part's header writes it, before [`Shard::new`]'s check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShardFields {
    index: u32,
    count: u32,
}

impl TryFrom<ShardFields> for Shard {
    type Error = ShardSpecError;

    fn try_from(f: ShardFields) -> Result<Shard, ShardSpecError> {
        Shard::new(f.index, f.count)
    }
}

impl Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardSpecError;

    fn from_str(s: &str) -> Result<Shard, ShardSpecError> {
        let (i, n) = s.split_once('/').ok_or(ShardSpecError::Form)?;
        let number = |t: &str| t.trim().parse::<u32>().map_err(|_| ShardSpecError::Form);
        Shard::new(number(i)?, number(n)?)
    }
}

/// Why a shard specification was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardSpecError {
    /// Not `i/n` with two whole numbers.
    #[error("expected INDEX/COUNT with whole numbers, INDEX from 0 (e.g. 0/4 … 3/4)")]
    Form,
    /// `n` is 0.
    #[error("the number of shards must be at least 1")]
    NoShards,
    /// `i` is not below `n`.
    #[error("shard index {index} is not below the number of shards {count} (indices run from 0)")]
    IndexOutOfRange {
        /// The index given.
        index: u32,
        /// The number of shards given.
        count: u32,
    },
}

/// One configuration point as a command asked for it: a digest of its
/// configuration and how many units (replications) it has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// FNV-1a digest of the point's configuration (its `Debug` form), in hex.
    pub key: String,
    /// Its replications.
    pub units: u64,
}

impl Point {
    fn of(config: &dyn Debug, units: u64) -> Point {
        let text = format!("{config:?}");
        Point {
            key: format!("{:016x}", fnv1a(text.as_bytes())),
            units,
        }
    }
}

/// What a unit came to: its result, or its failure.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Outcome {
    Done(ciborium::Value),
    Failed(RecordedError),
}

/// One unit's record in a part.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct UnitRecord {
    point: u32,
    replication: u64,
    outcome: Outcome,
}

/// A unit's failure as it was met: its message and the chain of its causes,
/// so the merge shows it exactly as the unsharded run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct RecordedError {
    message: String,
    #[source]
    cause: Option<Box<RecordedError>>,
}

impl RecordedError {
    fn of(e: &(dyn std::error::Error + 'static)) -> RecordedError {
        RecordedError {
            message: e.to_string(),
            cause: e.source().map(|s| Box::new(RecordedError::of(s))),
        }
    }
}

/// Why [`replicate`] could not give a sharded or merged point its results.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardFailure {
    /// A unit failed when it ran (in another process): its error as met.
    #[error(transparent)]
    Unit(#[from] RecordedError),
    /// The merge was asked for a point the shards did not run at that place:
    /// the command chose its points from results, or the parts come from
    /// another version of it.
    #[error(
        "point {index} of the merged command is {asked} (key {asked_key}), but the parts ran {recorded}; this command cannot be sharded, or the parts come from another version of it"
    )]
    Diverged {
        /// The point's position in the order asked.
        index: usize,
        /// What the merge asked for.
        asked: String,
        /// Its digest.
        asked_key: String,
        /// What the parts recorded there.
        recorded: String,
    },
    /// A recorded result does not decode as the command's report type.
    #[error("point {index}, replication {replication}: the recorded result does not decode: {why}")]
    Decode {
        /// The point.
        index: usize,
        /// The replication.
        replication: u64,
        /// The decoder's complaint.
        why: String,
    },
}

/// The shard a command runs as, or the merge it reproduces; installed for
/// the command's duration with [`Runner::install`].
#[derive(Debug)]
pub struct Runner {
    mode: Mode,
    book: RefCell<Book>,
}

#[derive(Debug)]
enum Mode {
    Shard(Shard),
    Merge(Merged),
}

/// What a running shard or merge has seen: the points asked for so far and
/// the units recorded.
#[derive(Debug, Default)]
struct Book {
    points: Vec<Point>,
    next_unit: u64,
    records: Vec<UnitRecord>,
    returned_unit_failure: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<Runner>>> = const { RefCell::new(None) };
}

impl Runner {
    /// A runner computing and recording the units of `shard`.
    pub fn shard(shard: Shard) -> Runner {
        Runner {
            mode: Mode::Shard(shard),
            book: RefCell::default(),
        }
    }

    /// A runner answering every point from the merged parts.
    pub fn merge(merged: Merged) -> Runner {
        Runner {
            mode: Mode::Merge(merged),
            book: RefCell::default(),
        }
    }

    /// Runs `command` with this runner answering its [`replicate`] calls (on
    /// this thread; a command calls [`replicate`] from the thread it runs on
    /// and spreads each point's units over threads through it). Returns the
    /// runner, with what it recorded, and the command's result.
    pub fn install<R>(self, command: impl FnOnce() -> R) -> (Runner, R) {
        let runner = Rc::new(self);
        let previous = CURRENT.with(|c| c.replace(Some(Rc::clone(&runner))));
        let result = command();
        CURRENT.with(|c| c.replace(previous));
        let runner = Rc::try_unwrap(runner).expect("the runner is released when its command ends");
        (runner, result)
    }

    /// Whether a unit's failure was handed to the command (so a command that
    /// then stopped with an error stopped because of its experiment, not its
    /// setup).
    pub fn returned_unit_failure(&self) -> bool {
        self.book.borrow().returned_unit_failure
    }

    /// Points asked for so far.
    pub fn points(&self) -> usize {
        self.book.borrow().points.len()
    }

    /// The part a shard leaves: its header (`context`, and `stopped`, the
    /// error that ended the command early, if one did) and its records.
    ///
    /// # Panics
    /// When this runner merges rather than shards (a programming error).
    pub fn into_part(self, context: PartContext, stopped: Option<String>) -> Part {
        let Mode::Shard(shard) = self.mode else {
            panic!("only a shard leaves a part");
        };
        let book = self.book.into_inner();
        Part {
            header: PartHeader {
                format: PART_FORMAT.to_string(),
                version: context.version,
                command: context.command,
                seed: context.seed,
                shard,
                points: book.points,
                units: book.records.len() as u64,
                body_bytes: 0,
                body_fnv1a: String::new(),
                stopped,
            },
            records: book.records,
        }
    }

    fn replicate_points<T, E>(
        &self,
        configs: &[&dyn Debug],
        n: u64,
        jobs: usize,
        f: &(dyn Fn(usize, u64) -> Result<T, E> + Sync),
    ) -> Result<Vec<Vec<T>>, E>
    where
        T: Serialize + DeserializeOwned + Send,
        E: From<ShardFailure> + std::error::Error + Send + 'static,
    {
        match &self.mode {
            Mode::Shard(shard) => self.compute_share(*shard, configs, n, jobs, f),
            Mode::Merge(merged) => {
                let mut answers = Vec::with_capacity(configs.len());
                for config in configs {
                    let point = Point::of(*config, n);
                    let index = self.book.borrow().points.len();
                    let answer = merged.answer(index, &point);
                    self.book.borrow_mut().points.push(point);
                    answers.push(answer.inspect_err(|_| {
                        self.book.borrow_mut().returned_unit_failure = true;
                    })?);
                }
                Ok(answers)
            }
        }
    }

    fn compute_share<T, E>(
        &self,
        shard: Shard,
        configs: &[&dyn Debug],
        n: u64,
        jobs: usize,
        f: &(dyn Fn(usize, u64) -> Result<T, E> + Sync),
    ) -> Result<Vec<Vec<T>>, E>
    where
        T: Serialize + DeserializeOwned + Send,
        E: From<ShardFailure> + std::error::Error + Send + 'static,
    {
        let (first_index, first_unit) = {
            let mut book = self.book.borrow_mut();
            let first = (book.points.len(), book.next_unit);
            book.points
                .extend(configs.iter().map(|config| Point::of(*config, n)));
            book.next_unit += n * configs.len() as u64;
            first
        };
        let owned: Vec<(usize, u64)> = (0..configs.len())
            .flat_map(|p| (0..n).map(move |r| (p, r)))
            .filter(|&(p, r)| shard.owns(first_unit + p as u64 * n + r))
            .collect();
        let results = parallel(owned.len() as u64, jobs, |k| {
            let (p, r) = owned[k as usize];
            Ok::<_, Infallible>(f(p, r))
        })
        .unwrap_or_else(|never| match never {});
        let mut book = self.book.borrow_mut();
        let mut first_failure: Option<E> = None;
        let mut done: Vec<Vec<(u64, T)>> = configs.iter().map(|_| Vec::new()).collect();
        let mut stand_ins: Vec<Option<ciborium::Value>> = vec![None; configs.len()];
        for (&(p, replication), result) in owned.iter().zip(results) {
            let index = first_index + p;
            let outcome = match result {
                Ok(report) => {
                    let value = encode(&report, index, replication)?;
                    stand_ins[p].get_or_insert_with(|| value.clone());
                    done[p].push((replication, report));
                    Outcome::Done(value)
                }
                Err(e) => {
                    let recorded = RecordedError::of(&e);
                    // Units run in (point, replication) order: the first
                    // failure is the lowest-numbered, as the unsharded run
                    // returns.
                    first_failure.get_or_insert(e);
                    Outcome::Failed(recorded)
                }
            };
            book.records.push(UnitRecord {
                point: index as u32,
                replication,
                outcome,
            });
        }
        if let Some(e) = first_failure {
            book.returned_unit_failure = true;
            return Err(e);
        }
        drop(book);
        // The units other shards own are stood in for by copies of one this
        // shard computed (or of the point's first unit, computed unrecorded).
        let mut all = Vec::with_capacity(configs.len());
        for (p, own) in done.into_iter().enumerate() {
            let index = first_index + p;
            let stand_in = match stand_ins[p].take() {
                Some(value) => value,
                None if n == 0 => {
                    all.push(Vec::new());
                    continue;
                }
                None => {
                    let report = f(p, 0).inspect_err(|_| {
                        self.book.borrow_mut().returned_unit_failure = true;
                    })?;
                    encode(&report, index, 0)?
                }
            };
            let mut own = own.into_iter().peekable();
            let values = (0..n)
                .map(
                    |replication| match own.next_if(|(r, _)| *r == replication) {
                        Some((_, report)) => Ok(report),
                        None => decode(&stand_in, index, replication),
                    },
                )
                .collect::<Result<Vec<T>, E>>()?;
            all.push(values);
        }
        Ok(all)
    }
}

fn encode<T: Serialize, E: From<ShardFailure>>(
    report: &T,
    index: usize,
    replication: u64,
) -> Result<ciborium::Value, E> {
    ciborium::Value::serialized(report).map_err(|e| {
        E::from(ShardFailure::Decode {
            index,
            replication,
            why: e.to_string(),
        })
    })
}

fn decode<T: DeserializeOwned, E: From<ShardFailure>>(
    value: &ciborium::Value,
    index: usize,
    replication: u64,
) -> Result<T, E> {
    value.deserialized().map_err(|e| {
        E::from(ShardFailure::Decode {
            index,
            replication,
            why: e.to_string(),
        })
    })
}

fn current() -> Option<Rc<Runner>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs replications `0..n` of the configuration point `config` (its `Debug`
/// form identifies it) on up to `jobs` threads, as the installed [`Runner`]
/// says: all of them ([`parallel`]) when none is installed, this shard's
/// share when a shard runs, the recorded results when a merge runs. Results
/// in replication order, identical in every case.
///
/// # Errors
/// The lowest-numbered failing replication's error (in a merge, as
/// recorded); in a merge, a point the parts did not run at this place.
pub fn replicate<T, E>(
    config: &dyn Debug,
    n: u64,
    jobs: usize,
    f: impl Fn(u64) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E>
where
    T: Serialize + DeserializeOwned + Send,
    E: From<ShardFailure> + std::error::Error + Send + 'static,
{
    match current() {
        None => parallel(n, jobs, f),
        Some(runner) => runner
            .replicate_points(&[config], n, jobs, &|_, r| f(r))
            .map(|mut points| points.pop().unwrap_or_default()),
    }
}

/// [`replicate`] for several points at once, their units spread over the
/// threads together (for points too few, or replications too few, to keep
/// every thread busy one point at a time): `f(point, replication)`; the
/// results point by point, each in replication order.
///
/// # Errors
/// The failing unit's error with the lowest (point, replication), as
/// [`replicate`] would meet it point after point.
pub fn replicate_points<P, T, E>(
    points: &[P],
    n: u64,
    jobs: usize,
    f: impl Fn(&P, u64) -> Result<T, E> + Sync,
) -> Result<Vec<Vec<T>>, E>
where
    P: Debug + Sync,
    T: Serialize + DeserializeOwned + Send,
    E: From<ShardFailure> + std::error::Error + Send + 'static,
{
    match current() {
        None => {
            let mut flat = parallel(points.len() as u64 * n, jobs, |k| {
                f(&points[(k / n) as usize], k % n)
            })?
            .into_iter();
            Ok(points
                .iter()
                .map(|_| flat.by_ref().take(n as usize).collect())
                .collect())
        }
        Some(runner) => {
            let configs: Vec<&dyn Debug> = points.iter().map(|p| p as &dyn Debug).collect();
            runner.replicate_points(&configs, n, jobs, &|p, r| f(&points[p], r))
        }
    }
}

/// What a part's header says of the command besides its units: filled in by
/// the front end that ran it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartContext {
    /// The tool's version.
    pub version: String,
    /// The command and its parameters, as the front end re-reads them to
    /// merge (without the options that do not change results: the shard
    /// itself, the threads, where the part goes).
    pub command: Vec<String>,
    /// The seed of the run.
    pub seed: Option<u64>,
}

/// A part file's first line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartHeader {
    /// [`PART_FORMAT`].
    pub format: String,
    /// The tool's version.
    pub version: String,
    /// The command and its parameters.
    pub command: Vec<String>,
    /// The seed.
    pub seed: Option<u64>,
    /// Which shard of how many.
    pub shard: Shard,
    /// The points the command asked for, in order (all of them, or up to the
    /// one whose failure stopped it).
    pub points: Vec<Point>,
    /// Unit records in the body.
    pub units: u64,
    /// Length of the body in bytes.
    pub body_bytes: u64,
    /// FNV-1a digest of the body, hex.
    pub body_fnv1a: String,
    /// The error that stopped the command in this shard, if one did.
    pub stopped: Option<String>,
}

/// A shard's results: header and unit records.
#[derive(Clone, Debug)]
pub struct Part {
    header: PartHeader,
    records: Vec<UnitRecord>,
}

impl Part {
    /// The header (its body size and digest are filled in when written).
    pub fn header(&self) -> &PartHeader {
        &self.header
    }

    /// Writes the part to `path` (through a temporary file beside it, so a
    /// killed shard never leaves a part that looks whole).
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn write(mut self, path: &Path) -> Result<(), PartError> {
        let io = |e: std::io::Error| PartError::Io {
            file: path.to_path_buf(),
            why: e.to_string(),
        };
        let mut body = Vec::new();
        ciborium::into_writer(&self.records, &mut body).map_err(|e| PartError::Io {
            file: path.to_path_buf(),
            why: e.to_string(),
        })?;
        self.header.body_bytes = body.len() as u64;
        self.header.body_fnv1a = format!("{:016x}", fnv1a(&body));
        let mut bytes = serde_json::to_vec(&self.header).expect("a header serialises");
        bytes.push(b'\n');
        bytes.extend_from_slice(&body);
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".partial");
        let temporary = PathBuf::from(temporary);
        std::fs::write(&temporary, &bytes).map_err(io)?;
        std::fs::rename(&temporary, path).map_err(io)
    }

    /// Reads a part file, checking its format, length and checksum.
    ///
    /// # Errors
    /// A typed [`PartError`] naming the file.
    pub fn read(path: &Path) -> Result<Part, PartError> {
        let file = std::fs::File::open(path).map_err(|e| PartError::Io {
            file: path.to_path_buf(),
            why: e.to_string(),
        })?;
        Part::from_reader(file, path)
    }

    /// Reads a part from `input`, named `path` in messages, checking its
    /// format, length and checksum, and that a part that says it stopped
    /// holds the failure that stopped it.
    ///
    /// # Errors
    /// A typed [`PartError`] naming the file.
    pub fn from_reader(input: impl std::io::Read, path: &Path) -> Result<Part, PartError> {
        use std::io::{BufRead, BufReader, Read};
        let file = || path.to_path_buf();
        let io = |e: std::io::Error| PartError::Io {
            file: file(),
            why: e.to_string(),
        };
        // The header line is read with a bound, and then exactly the body it
        // announces (and one byte more, to find a longer file): naming the
        // wrong file (`/dev/zero`, a disk image) reads little.
        let mut reader = BufReader::new(input);
        let mut line = Vec::new();
        (&mut reader)
            .take(MAX_HEADER_BYTES)
            .read_until(b'\n', &mut line)
            .map_err(io)?;
        if line.pop() != Some(b'\n') {
            return Err(PartError::NotAPart { file: file() });
        }
        let header: PartHeader = serde_json::from_slice(&line).map_err(|e| PartError::Header {
            file: file(),
            why: e.to_string(),
        })?;
        if header.format != PART_FORMAT {
            return Err(PartError::Format {
                file: file(),
                found: header.format,
            });
        }
        let mut body = Vec::new();
        reader
            .take(header.body_bytes.saturating_add(1))
            .read_to_end(&mut body)
            .map_err(io)?;
        if body.len() as u64 != header.body_bytes {
            return Err(PartError::Truncated {
                file: file(),
                expected: header.body_bytes,
                found: body.len() as u64,
            });
        }
        let body = body.as_slice();
        if format!("{:016x}", fnv1a(body)) != header.body_fnv1a {
            return Err(PartError::Corrupt {
                file: file(),
                why: "the body's checksum differs from the header's".to_string(),
            });
        }
        let records: Vec<UnitRecord> =
            ciborium::from_reader(body).map_err(|e| PartError::Corrupt {
                file: file(),
                why: e.to_string(),
            })?;
        if records.len() as u64 != header.units {
            return Err(PartError::Corrupt {
                file: file(),
                why: format!(
                    "{} unit records, the header says {}",
                    records.len(),
                    header.units
                ),
            });
        }
        if let Some(stopped) = &header.stopped
            && !records
                .iter()
                .any(|r| matches!(r.outcome, Outcome::Failed(_)))
        {
            let shown: String = stopped.chars().take(60).collect();
            return Err(PartError::Corrupt {
                file: file(),
                why: format!(
                    "the header says the shard stopped (`{shown}`) but no unit of it failed: a stopped part holds the failure that stopped it"
                ),
            });
        }
        Ok(Part { header, records })
    }
}

/// Why a part could not be read, or parts could not be merged. Every case
/// names the file at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PartError {
    /// The file could not be read or written.
    #[error("{}: {why}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The system's complaint.
        why: String,
    },
    /// No header line.
    #[error("{}: not a part file (no header line)", file.display())]
    NotAPart {
        /// The file.
        file: PathBuf,
    },
    /// The header line is not a part header.
    #[error("{}: line 1: not a part header: {why}", file.display())]
    Header {
        /// The file.
        file: PathBuf,
        /// The parser's complaint.
        why: String,
    },
    /// Another format.
    #[error("{}: format `{found}`, this tool reads `{PART_FORMAT}`", file.display())]
    Format {
        /// The file.
        file: PathBuf,
        /// The format named.
        found: String,
    },
    /// Fewer (or more) bytes than the header announces.
    #[error("{}: truncated: the header announces {expected} bytes of results, the file holds {found}", file.display())]
    Truncated {
        /// The file.
        file: PathBuf,
        /// Bytes announced.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// The body does not check or decode.
    #[error("{}: corrupt: {why}", file.display())]
    Corrupt {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// No parts given.
    #[error("no parts to merge")]
    NoParts,
    /// A part from another run.
    #[error(
        "{}: {field} is {found}, but {} has {expected}: the parts come from different runs",
        file.display(), reference.display()
    )]
    Mismatch {
        /// The part at odds.
        file: PathBuf,
        /// The part it is compared with (the first given).
        reference: PathBuf,
        /// What differs.
        field: &'static str,
        /// The reference's value.
        expected: String,
        /// This part's value.
        found: String,
    },
    /// Two parts of the same shard.
    #[error("{} and {} are both shard {shard}", file.display(), other.display())]
    Duplicate {
        /// The later part.
        file: PathBuf,
        /// The earlier part of the same shard.
        other: PathBuf,
        /// The shard.
        shard: Shard,
    },
    /// Shards missing.
    #[error("shard(s) {}{} of {count} missing (given: {given})", missing.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "), if *total > missing.len() as u64 { format!(", … ({total} in all)") } else { String::new() })]
    Missing {
        /// The first missing indices (at most [`MISSING_SHOWN`]).
        missing: Vec<u32>,
        /// How many are missing.
        total: u64,
        /// The number of shards.
        count: u32,
        /// How many parts were given.
        given: usize,
    },
    /// A part's points differ from the others' at the same place.
    #[error("{}: point {index} differs from {}'s: the parts come from different commands or versions", file.display(), reference.display())]
    Diverged {
        /// The part at odds.
        file: PathBuf,
        /// The part it is compared with.
        reference: PathBuf,
        /// The point.
        index: usize,
    },
    /// A unit that should be in a part is not, or is twice.
    #[error("{}: {what} unit: point {point}, replication {replication}", file.display())]
    Unit {
        /// The part that should hold it.
        file: PathBuf,
        /// "missing", "repeated" or "foreign" (not this shard's).
        what: &'static str,
        /// The point.
        point: usize,
        /// The replication.
        replication: u64,
    },
}

/// The parts of one sharded run, checked and put together: what a merge's
/// [`Runner`] answers from.
#[derive(Debug)]
pub struct Merged {
    context: PartContext,
    points: Vec<Point>,
    outcomes: BTreeMap<(u32, u64), Outcome>,
}

impl Merged {
    /// Reads and checks `paths` (in any order): one part of each shard of one
    /// run (same format, version, command, seed and number of shards), every
    /// unit present once.
    ///
    /// # Errors
    /// A typed [`PartError`] naming the file at fault.
    pub fn from_parts(paths: &[PathBuf]) -> Result<Merged, PartError> {
        let parts = paths
            .iter()
            .map(|p| Part::read(p).map(|part| (p.clone(), part)))
            .collect::<Result<Vec<_>, _>>()?;
        Merged::from_read(parts)
    }

    /// [`from_parts`](Self::from_parts) on parts already read.
    ///
    /// # Errors
    /// As [`from_parts`](Self::from_parts).
    pub fn from_read(parts: Vec<(PathBuf, Part)>) -> Result<Merged, PartError> {
        let Some((reference_file, reference)) = parts.first() else {
            return Err(PartError::NoParts);
        };
        let (reference_file, r) = (reference_file.clone(), reference.header.clone());
        let count = r.shard.count;
        let mut by_shard: BTreeMap<u32, PathBuf> = BTreeMap::new();
        for (file, part) in &parts {
            let h = &part.header;
            let mismatch = |field: &'static str, expected: String, found: String| {
                Err(PartError::Mismatch {
                    file: file.clone(),
                    reference: reference_file.clone(),
                    field,
                    expected,
                    found,
                })
            };
            if h.version != r.version {
                return mismatch("the tool version", r.version.clone(), h.version.clone());
            }
            if h.command != r.command {
                return mismatch("the command", r.command.join(" "), h.command.join(" "));
            }
            if h.seed != r.seed {
                let show = |s: Option<u64>| s.map_or("none".to_string(), |s| s.to_string());
                return mismatch("the seed", show(r.seed), show(h.seed));
            }
            if h.shard.count != count {
                return mismatch(
                    "the number of shards",
                    count.to_string(),
                    h.shard.count.to_string(),
                );
            }
            if let Some(other) = by_shard.insert(h.shard.index, file.clone()) {
                return Err(PartError::Duplicate {
                    file: file.clone(),
                    other: other.clone(),
                    shard: h.shard,
                });
            }
        }
        // by_shard holds distinct indices below count (Shard::new checked
        // each), so as many are missing as count exceeds the parts given.
        let total = u64::from(count) - by_shard.len() as u64;
        if total > 0 {
            let missing: Vec<u32> = (0..count)
                .filter(|i| !by_shard.contains_key(i))
                .take(MISSING_SHOWN)
                .collect();
            return Err(PartError::Missing {
                missing,
                total,
                count,
                given: parts.len(),
            });
        }
        // The longest list of points; every other must agree with it as far
        // as it goes. A part that stopped early ends its list at the point
        // that stopped it, and the merged command stops there too.
        let (longest_file, longest) = parts
            .iter()
            .max_by_key(|(_, p)| p.header.points.len())
            .map(|(f, p)| (f.clone(), p.header.points.clone()))
            .expect("at least one part");
        let mut needed = longest.len();
        for (file, part) in &parts {
            let h = &part.header;
            if let Some(index) = h.points.iter().zip(&longest).position(|(a, b)| a != b) {
                return Err(PartError::Diverged {
                    file: file.clone(),
                    reference: longest_file.clone(),
                    index,
                });
            }
            if h.points.len() < longest.len() && h.stopped.is_none() {
                return Err(PartError::Diverged {
                    file: file.clone(),
                    reference: longest_file.clone(),
                    index: h.points.len(),
                });
            }
            needed = needed.min(h.points.len());
        }
        let points: Vec<Point> = longest[..needed].to_vec();
        let mut first_unit = Vec::with_capacity(points.len());
        let mut total = 0u64;
        for (k, p) in points.iter().enumerate() {
            first_unit.push(total);
            total = total
                .checked_add(p.units)
                .ok_or_else(|| PartError::Corrupt {
                    file: longest_file.clone(),
                    why: format!("point {k}: {} units overflow the count of units", p.units),
                })?;
        }
        let mut outcomes = BTreeMap::new();
        for (file, part) in parts {
            let shard = part.header.shard;
            for record in part.records {
                let k = record.point as usize;
                if k >= needed {
                    continue;
                }
                let unit = |what| PartError::Unit {
                    file: file.clone(),
                    what,
                    point: k,
                    replication: record.replication,
                };
                if record.replication >= points[k].units
                    || !shard.owns(first_unit[k] + record.replication)
                {
                    return Err(unit("foreign"));
                }
                if outcomes
                    .insert((record.point, record.replication), record.outcome)
                    .is_some()
                {
                    return Err(unit("repeated"));
                }
            }
        }
        for (k, p) in points.iter().enumerate() {
            for replication in 0..p.units {
                if !outcomes.contains_key(&(k as u32, replication)) {
                    let owner = (first_unit[k] + replication) % u64::from(count);
                    return Err(PartError::Unit {
                        file: by_shard[&(owner as u32)].clone(),
                        what: "missing",
                        point: k,
                        replication,
                    });
                }
            }
        }
        let context = PartContext {
            version: r.version.clone(),
            command: r.command.clone(),
            seed: r.seed,
        };
        Ok(Merged {
            context,
            points,
            outcomes,
        })
    }

    /// How many points the parts answer for.
    pub fn points(&self) -> usize {
        self.points.len()
    }

    /// The command, version and seed the parts share.
    pub fn context(&self) -> &PartContext {
        &self.context
    }

    fn answer<T, E>(&self, index: usize, asked: &Point) -> Result<Vec<T>, E>
    where
        T: DeserializeOwned,
        E: From<ShardFailure>,
    {
        let recorded = self.points.get(index);
        if recorded != Some(asked) {
            return Err(E::from(ShardFailure::Diverged {
                index,
                asked: format!("{} replications", asked.units),
                asked_key: asked.key.clone(),
                recorded: recorded.map_or("no point there".to_string(), |p| {
                    format!("{} replications of key {}", p.units, p.key)
                }),
            }));
        }
        let mut values = Vec::new();
        for replication in 0..asked.units {
            match &self.outcomes[&(index as u32, replication)] {
                // The lowest-numbered failure, as the unsharded run returns.
                Outcome::Failed(e) => return Err(E::from(ShardFailure::Unit(e.clone()))),
                Outcome::Done(value) => values.push(value),
            }
        }
        values
            .into_iter()
            .enumerate()
            .map(|(replication, value)| {
                value.deserialized().map_err(|e| {
                    E::from(ShardFailure::Decode {
                        index,
                        replication: replication as u64,
                        why: e.to_string(),
                    })
                })
            })
            .collect()
    }
}

/// FNV-1a, 64 bits: a digest stable across versions and platforms.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    enum TestError {
        #[error("unit {0} broke")]
        Broke(u64),
        #[error(transparent)]
        Sharded(#[from] ShardFailure),
    }

    /// A "command": points of 5 replications each; a unit's result is a
    /// function of its coordinates; `fail` names a (point, replication) that
    /// fails; the command stops at a failing point. Returns what it would
    /// print.
    fn command(points: u64, fail: Option<(u64, u64)>) -> Result<Vec<f64>, TestError> {
        let mut printed = Vec::new();
        for p in 0..points {
            let values = replicate(&("point", p), 5, 2, |r| {
                if fail == Some((p, r)) {
                    return Err(TestError::Broke(r));
                }
                Ok(p as f64 * 10.0 + r as f64 + if r == 3 { f64::NAN } else { 0.5 })
            })?;
            printed.push(values.iter().filter(|v| !v.is_nan()).sum());
        }
        Ok(printed)
    }

    fn parts(count: u32, points: u64, fail: Option<(u64, u64)>) -> Vec<(PathBuf, Part)> {
        (0..count)
            .map(|i| {
                let (runner, result) =
                    Runner::shard(Shard::new(i, count).unwrap()).install(|| command(points, fail));
                let stopped = result.err().map(|e| e.to_string());
                assert!(stopped.is_none() || runner.returned_unit_failure());
                let context = PartContext {
                    version: "test".into(),
                    command: vec!["test".into()],
                    seed: Some(1),
                };
                let path = PathBuf::from(format!("p{i}"));
                (path, runner.into_part(context, stopped))
            })
            .collect()
    }

    fn merged(parts: Vec<(PathBuf, Part)>, points: u64) -> Result<Vec<f64>, TestError> {
        let merged = Merged::from_read(parts).unwrap();
        let (_, result) = Runner::merge(merged).install(|| command(points, None));
        result
    }

    #[test]
    fn shards_own_every_unit_once_in_turn() {
        let s = Shard::new(1, 3).unwrap();
        let owned: Vec<u64> = (0..9).filter(|&u| s.owns(u)).collect();
        assert_eq!(owned, [1, 4, 7]);
        assert_eq!("2/5".parse::<Shard>(), Shard::new(2, 5));
        assert_eq!(
            "5/5".parse::<Shard>(),
            Err(ShardSpecError::IndexOutOfRange { index: 5, count: 5 })
        );
        assert_eq!("1/0".parse::<Shard>(), Err(ShardSpecError::NoShards));
        assert_eq!("x".parse::<Shard>(), Err(ShardSpecError::Form));
    }

    #[test]
    fn a_merge_equals_the_unsharded_run_for_any_count() {
        let whole = command(4, None).unwrap();
        for count in [1, 2, 3, 7, 20, 25] {
            let mut p = parts(count, 4, None);
            p.reverse();
            assert_eq!(merged(p, 4).unwrap(), whole, "{count} shards");
        }
    }

    #[test]
    fn a_unit_failure_is_met_where_the_unsharded_run_meets_it() {
        let whole = command(4, Some((2, 3))).unwrap_err().to_string();
        assert_eq!(whole, "unit 3 broke");
        for count in [2, 3, 7] {
            let p = parts(count, 4, Some((2, 3)));
            // The shard owning the failing unit stopped at point 2.
            assert!(p.iter().any(|(_, part)| part.header.stopped.is_some()));
            let err = merged(p, 4).unwrap_err();
            assert!(matches!(err, TestError::Sharded(ShardFailure::Unit(_))));
            assert_eq!(err.to_string(), whole, "{count} shards");
        }
    }

    #[test]
    fn a_merge_refuses_points_the_parts_did_not_run() {
        let p = parts(2, 3, None);
        let merged = Merged::from_read(p).unwrap();
        let (_, result) = Runner::merge(merged).install(|| {
            replicate(&("another point", 0u64), 5, 1, |r| {
                Ok::<_, TestError>(r as f64)
            })
        });
        assert!(matches!(
            result,
            Err(TestError::Sharded(ShardFailure::Diverged { index: 0, .. }))
        ));
    }

    /// The header of `part` rewritten by `edit`, with the body unchanged.
    fn tampered(part: Part, edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
        let dir = tempfile_dir();
        let path = dir.join("p");
        part.write(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let end = bytes.iter().position(|&b| b == b'\n').unwrap();
        let mut header: serde_json::Value = serde_json::from_slice(&bytes[..end]).unwrap();
        edit(&mut header);
        let mut out = serde_json::to_vec(&header).unwrap();
        out.extend_from_slice(&bytes[end..]);
        out
    }

    fn tempfile_dir() -> PathBuf {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "spindle-sharding-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_header_is_read_through_the_shards_check() {
        let read = |bytes: Vec<u8>| Part::from_reader(bytes.as_slice(), Path::new("x.part"));
        let part = || parts(2, 2, None).remove(0).1;
        for (index, count, words) in [
            (0, 0, "at least 1"),
            (5, 2, "shard index 5 is not below the number of shards 2"),
        ] {
            let bytes = tampered(part(), |h| {
                h["shard"] = serde_json::json!({"index": index, "count": count});
            });
            let e = read(bytes).unwrap_err().to_string();
            assert!(e.starts_with("x.part: line 1") && e.contains(words), "{e}");
        }
        let bytes = tampered(part(), |h| h["stopped"] = serde_json::json!("boom"));
        let e = read(bytes).unwrap_err().to_string();
        assert!(e.contains("x.part: corrupt") && e.contains("`boom`"), "{e}");
    }

    #[test]
    fn a_merge_of_one_part_of_many_shards_lists_few() {
        let part = parts(1, 1, None).remove(0).1;
        let bytes = tampered(part, |h| {
            h["shard"] = serde_json::json!({"index": 0, "count": u32::MAX});
        });
        let part = Part::from_reader(bytes.as_slice(), Path::new("p")).unwrap();
        let e = Merged::from_read(vec![(PathBuf::from("p"), part)])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("shard(s) 1, 2, 3"), "{e}");
        assert!(
            e.contains("10, … (4294967294 in all) of 4294967295 missing"),
            "{e}"
        );
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn parts_round_trip_through_files_bit_for_bit() {
        let dir = std::env::temp_dir().join(format!("spindle-sharding-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files: Vec<PathBuf> = parts(3, 2, None)
            .into_iter()
            .enumerate()
            .map(|(i, (_, part))| {
                let f = dir.join(format!("{i}.part"));
                part.write(&f).unwrap();
                f
            })
            .collect();
        let merged = Merged::from_parts(&files).unwrap();
        let (_, result) = Runner::merge(merged)
            .install(|| replicate(&("point", 0u64), 5, 1, |_| Ok::<f64, TestError>(0.0)));
        let values = result.unwrap();
        assert!(values[3].is_nan(), "NaN survives the file");
        assert_eq!(values[0], 0.5);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
