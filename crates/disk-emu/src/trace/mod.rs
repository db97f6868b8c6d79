//! Trace readers: DiskSim ASCII and validation traces, MSR Cambridge CSV, SPC
//! (UMass) traces and HP's binary SRT traces, each read as a stream of
//! [`TraceRecord`]s.
//!
//! [`open`] a file (naming the format or letting [`TraceFormat::detect`] pick
//! it) or wrap any [`BufRead`](std::io::BufRead) in a [`TraceReader`]; either
//! way the reader holds one line (for SRT, the parsed header and one record)
//! at a time and yields `Result<TraceRecord, TraceError>` in file order.
//! [`TraceReader::summarize`] counts a trace in one pass;
//! [`TraceReader::profile`] also counts per device and per request size.
//!
//! # Rules common to every format
//! - **Nothing is skipped silently.** Every line (SRT: every record) is a
//!   request or an error. None of the text formats defines comments or blank
//!   lines, so a blank line is [`TraceError::BlankLine`]. The only lines that
//!   yield nothing are an MSR column-name header on line 1 (see
//!   [`TraceFormat::Msr`]) and requests on devices left out by
//!   [`TraceOptions::devices`], which are parsed and checked like any other
//!   and counted in [`TraceReader::filtered`]; the only SRT records that
//!   yield nothing are those the tracer marked suspect, checked and counted
//!   in [`TraceReader::suspect`]. Lines may end in `\n` or `\r\n`; the last
//!   line needs no terminator.
//! - **Times are integer nanoseconds**, converted from the decimal text
//!   digit by digit, never through a float: `0.001` ms is exactly 1000 ns.
//!   Digits finer than a nanosecond are rounded to the nearest nanosecond,
//!   halves up. Numbers are plain digits with an optional `.` and fraction:
//!   no sign, no exponent.
//! - **Times never go backwards.** In every timed format a request timed
//!   before an earlier line's request is [`TraceError::TimeBackwards`]
//!   ([`TraceError::SrtTimeBackwards`] for SRT); equal times are allowed.
//!   DiskSim, SPC and SRT keep this order; MSR does not promise it, but a
//!   replay needs it, so an unsorted MSR file must be sorted first.
//! - **Blocks** are counted in [`TraceOptions::block_size`] bytes (512 by
//!   default). Each request is converted to the byte extent it covers and back
//!   to whole blocks, **rounding outward**: the first block is the one holding
//!   the first byte, the last the one holding the last byte. So a 1000-byte
//!   request at byte offset 700 becomes blocks 1 and 2 (bytes 512..1536) with
//!   512-byte blocks. With the default block size, DiskSim and SPC block
//!   numbers pass through unchanged, as their sources count 512-byte sectors.
//!   SRT counts the header's sector size (256 bytes in the bundled trace),
//!   converted through bytes like the others.
//! - **Sizes are positive**; a request of more than 2³² − 1 blocks, or
//!   reaching past block 2⁶⁴ − 1, is [`TraceError::Overflow`].

mod disksim_trace;
mod error;
mod msr;
mod reader;
mod spc;
pub mod srt;
mod srt_header;
mod summary;
mod text;

#[cfg(test)]
mod srt_tests;
#[cfg(test)]
mod tests;

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Seek};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use sched_core::{Kind, Nanos};

pub use disksim_trace::{
    DISKSIM_ASYNCHRONOUS, DISKSIM_READ, DISKSIM_SYNCHRONOUS, DISKSIM_TIME_CRITICAL,
    DISKSIM_TIME_LIMITED,
};
pub use error::TraceError;
pub use reader::TraceReader;
pub use srt::{SRT_ASYNC, SRT_FSYSIO, SRT_PHYS, SRT_READ, SRT_SYNC, SrtDetail};
pub use srt_header::{MAX_SRT_HEADER, SRT_MAGIC, SrtDate, SrtDisk, SrtHeader, SrtSection};
pub use summary::{TraceProfile, TraceSummary};

/// The longest line a reader accepts, in bytes. Real trace lines are under
/// 200 bytes (DiskSim itself reads lines into a 200-byte buffer); the bound
/// keeps memory constant even on a file with no newlines.
pub const MAX_LINE: usize = 64 * 1024;

/// One request from a trace, in the units the emulator uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TraceRecord {
    /// When the request arrives: from the start of the trace for DiskSim
    /// ASCII, SPC and SRT (as the file gives it; SRT's is the enqueue time),
    /// from the file's first request for MSR. `None` for validation traces,
    /// which are replayed closed-loop.
    pub arrival: Option<Nanos>,
    /// The device: DiskSim's device number, MSR's disk number, SPC's ASU,
    /// the SRT header's disk number; always 0 for a validation trace.
    pub device: u32,
    /// First block, in blocks of [`TraceOptions::block_size`] bytes.
    pub block: u64,
    /// Length in blocks (at least 1).
    pub blocks: u32,
    /// Read or write.
    pub kind: Kind,
    /// Request flags as written in the trace: DiskSim ASCII's (the
    /// `DISKSIM_*` constants), SRT's `ioflags` (the `SRT_*` constants); 0 for
    /// the other formats.
    pub flags: u32,
    /// What the real drive did, for validation traces.
    pub measured: Option<Measured>,
    /// MSR and SRT: the response time the traced system observed (SRT: from
    /// enqueue to completion).
    pub response: Option<Nanos>,
    /// The 1-based line of the file this record comes from; for SRT, whose
    /// records are binary, the 1-based number of the record (its byte offset
    /// is in [`srt`](Self::srt)). [`position`](Self::position) gives either.
    pub line: u64,
    /// What an SRT record says beyond the common fields; `None` for the text
    /// formats.
    pub srt: Option<SrtDetail>,
}

impl TraceRecord {
    /// Where the record is in its file.
    pub fn position(&self) -> Position {
        match &self.srt {
            Some(detail) => Position::Record {
                number: self.line,
                offset: detail.offset,
            },
            None => Position::Line(self.line),
        }
    }
}

/// Where a record is in its file, for messages that must lead a user to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// A 1-based line of a text trace.
    Line(u64),
    /// A record of a binary (SRT) trace: its 1-based number and byte offset.
    Record {
        /// The record's number, counting from 1.
        number: u64,
        /// Its byte offset in the file.
        offset: u64,
    },
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(line) => write!(f, "line {line}"),
            Position::Record { number, offset } => write!(f, "record {number} at byte {offset}"),
        }
    }
}

/// What a real drive did with one request of a validation trace; the replayer
/// issues each request `idle_after` after the previous one completed and
/// compares its simulated service time with `access`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Measured {
    /// The time the real drive took to serve the request.
    pub access: Nanos,
    /// The time the host waited after this request completed before it
    /// issued the next one.
    pub idle_after: Nanos,
    /// What the drive's buffer did (informational).
    pub buffer: BufferOutcome,
}

/// The drive-buffer outcome a validation trace records for each request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferOutcome {
    /// The data was not in the buffer.
    Miss,
    /// The data was in the buffer.
    Hit,
    /// The request took two bus disconnects.
    Doub,
    /// The request took three bus disconnects.
    Trip,
}

/// The trace formats the readers understand, with the name of each field as
/// errors give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// DiskSim's default ASCII trace: `time device block size flags`,
    /// separated by white space; time in ms (float), block and size in
    /// 512-byte sectors, flags in hex (bit 0 set for a read; see the
    /// `DISKSIM_*` constants), as DiskSim reads it with `"%lf %d %d %d %x"`.
    /// Fields: `time`, `device`, `block`, `size`, `flags`; exactly five.
    DiskSimAscii,
    /// DiskSim's disk validation trace: `kind buffer block size access idle`,
    /// separated by white space: `R`/`W`, `Miss`/`Hit`/`Doub`/`Trip`, block
    /// and size in 512-byte sectors, access time and idle-after time in µs.
    /// No arrival times: see [`Measured`]. Fields: `kind`, `buffer`, `block`,
    /// `size`, `access`, `idle`; exactly six.
    DiskSimValidate,
    /// MSR Cambridge CSV (SNIA IOTTA):
    /// `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, with
    /// FILETIME ticks (100 ns) for the times, `Read`/`Write` (any case),
    /// bytes for offset and size. A line 1 that names the columns is
    /// skipped. Fields: `timestamp`, `hostname`, `disk`, `type`, `offset`,
    /// `size`, `response`; exactly seven.
    Msr,
    /// SPC (UMass Trace Repository): `ASU,LBA,Size,Opcode,Timestamp` and any
    /// number of optional fields, which are ignored; LBA in 512-byte blocks,
    /// size in bytes, opcode `r`/`R`/`w`/`W`, timestamp in seconds. Fields:
    /// `asu`, `lba`, `size`, `opcode`, `timestamp`.
    Spc,
    /// HP's SRT trace (HP Labs' HP-UX traces of 1992, DiskSim's `hpl`): a
    /// text header starting with [`SRT_MAGIC`] and ended by a form feed,
    /// which describes the disks and their sections ([`SrtHeader`]), then
    /// binary records of big-endian 32-bit words. Times are µs from the
    /// trace start; addresses are sectors of the header's `sectorsize` from
    /// the start of the disk; sizes are bytes; the device is the header's
    /// disk number, from the minor device number. Record fields: `length`,
    /// `id`, `sec`, `usec`, `start`, `stop`, `size`, `sectno`, `devno`,
    /// `drivertype`, `cylno`, `ioflags`, `info`, `queuelen`, `susflags`.
    /// Errors name the byte offset of the record (or the header line). The
    /// [`srt`] module documents the layout and the evidence for each unit.
    Srt,
}

impl TraceFormat {
    /// Every format, in the order detection tries them.
    pub const ALL: [TraceFormat; 5] = [
        TraceFormat::DiskSimAscii,
        TraceFormat::DiskSimValidate,
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Srt,
    ];

    /// The format's name, as [`FromStr`] accepts it and errors print it.
    pub const fn name(self) -> &'static str {
        match self {
            TraceFormat::DiskSimAscii => "disksim-ascii",
            TraceFormat::DiskSimValidate => "disksim-validate",
            TraceFormat::Msr => "msr",
            TraceFormat::Spc => "spc",
            TraceFormat::Srt => "srt",
        }
    }

    /// The name of the field that holds the arrival time.
    const fn time_field(self) -> &'static str {
        match self {
            TraceFormat::DiskSimAscii => "time",
            TraceFormat::DiskSimValidate | TraceFormat::Msr | TraceFormat::Spc => "timestamp",
            TraceFormat::Srt => "sec",
        }
    }

    /// Guesses the format of the file at `path` from its first lines.
    ///
    /// The first non-blank line decides when it has the shape of exactly one
    /// format (SRT's magic `$$TR_IOREC-` starts an SRT trace, `R Miss 564347
    /// 2 …` is a validation trace, five fields starting with a number a
    /// DiskSim ASCII trace, seven comma-separated fields with `Read`/`Write`
    /// fourth MSR, five or more with a one-letter opcode fourth SPC).
    /// Otherwise the extension decides: `.csv` is MSR, `.spc` is SPC, `.srt`
    /// is SRT; `.trace` is left undecided because both DiskSim formats use
    /// it. Content wins over the extension because files
    /// are often renamed; the extension is a fallback so that a file whose
    /// first line is malformed still reaches the reader, which then names the
    /// bad field.
    pub fn detect(path: &Path, first_lines: &[&str]) -> Option<TraceFormat> {
        first_lines
            .iter()
            .find(|line| !line.trim().is_empty())
            .and_then(|line| Self::sniff(line))
            .or_else(|| {
                let ext = path.extension()?.to_str()?;
                if ext.eq_ignore_ascii_case("csv") {
                    Some(TraceFormat::Msr)
                } else if ext.eq_ignore_ascii_case("spc") {
                    Some(TraceFormat::Spc)
                } else if ext.eq_ignore_ascii_case("srt") {
                    Some(TraceFormat::Srt)
                } else {
                    None
                }
            })
    }

    /// The format whose shape one line has, if exactly one fits.
    fn sniff(line: &str) -> Option<TraceFormat> {
        let line = line.trim();
        if line.starts_with(SRT_MAGIC) {
            Some(TraceFormat::Srt)
        } else if line.contains(',') {
            if msr::is_header(line) {
                return Some(TraceFormat::Msr);
            }
            let fields = line.split(',').count();
            let fourth = line.split(',').nth(3)?.trim();
            let msr_type =
                fourth.eq_ignore_ascii_case("read") || fourth.eq_ignore_ascii_case("write");
            if fields == 7 && msr_type {
                Some(TraceFormat::Msr)
            } else if fields >= 5 && matches!(fourth, "r" | "R" | "w" | "W") {
                Some(TraceFormat::Spc)
            } else {
                None
            }
        } else {
            let mut words = line.split_ascii_whitespace();
            let first = words.next()?;
            let second = words.next();
            let fields = 2 + words.count();
            if matches!(first, "R" | "W")
                && matches!(second, Some("Miss" | "Hit" | "Doub" | "Trip"))
            {
                Some(TraceFormat::DiskSimValidate)
            } else if fields == 5 && text::parse_decimal(first, 0).is_ok() {
                Some(TraceFormat::DiskSimAscii)
            } else {
                None
            }
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that [`TraceFormat::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown trace format \"{0}\"; known formats: disksim-ascii, disksim-validate, msr, spc, srt"
)]
pub struct UnknownFormatName(pub String);

impl FromStr for TraceFormat {
    type Err = UnknownFormatName;

    /// Accepts [`TraceFormat::name`] and the short forms `ascii`, `disksim`,
    /// `validate`, `umass` and `hpl` (DiskSim's name for SRT), in any case.
    fn from_str(s: &str) -> Result<Self, UnknownFormatName> {
        match s.trim().to_ascii_lowercase().as_str() {
            "disksim-ascii" | "disksim" | "ascii" => Ok(TraceFormat::DiskSimAscii),
            "disksim-validate" | "validate" => Ok(TraceFormat::DiskSimValidate),
            "msr" => Ok(TraceFormat::Msr),
            "spc" | "umass" => Ok(TraceFormat::Spc),
            "srt" | "hpl" => Ok(TraceFormat::Srt),
            _ => Err(UnknownFormatName(s.to_owned())),
        }
    }
}

/// How to read a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceOptions {
    /// Bytes per block of [`TraceRecord::block`] and [`TraceRecord::blocks`]
    /// (default 512). Must not be 0.
    pub block_size: u32,
    /// Devices whose requests to keep (default `None`: all). Requests on
    /// other devices are parsed and checked, then dropped and counted in
    /// [`TraceReader::filtered`]. Applies to every format; a validation
    /// trace's requests are all on device 0.
    pub devices: Option<Vec<u32>>,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            block_size: 512,
            devices: None,
        }
    }
}

impl TraceOptions {
    /// Whether requests on `device` are handed out.
    fn keeps(&self, device: u32) -> bool {
        self.devices
            .as_ref()
            .is_none_or(|keep| keep.contains(&device))
    }
}

/// How many lines [`open`] reads to detect a format.
const SNIFF_LINES: usize = 4;

/// Opens the trace at `path` for streaming, in `format` or, if `None`, in the
/// format [`TraceFormat::detect`] finds from the first lines and the
/// extension. Errors name the file as `path` is written.
pub fn open(
    path: impl AsRef<Path>,
    format: Option<TraceFormat>,
    options: TraceOptions,
) -> Result<TraceReader<BufReader<File>>, TraceError> {
    let path = path.as_ref();
    let file: Arc<str> = path.display().to_string().into();
    let io = |source| TraceError::Io {
        file: file.clone(),
        source,
    };
    let mut input = BufReader::new(File::open(path).map_err(io)?);
    let format = match format {
        Some(format) => format,
        None => {
            let lines = first_lines(&mut input).map_err(io)?;
            // Seeking a BufReader drops its buffer, so the reader starts at byte 0.
            input.rewind().map_err(io)?;
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            TraceFormat::detect(path, &lines)
                .ok_or_else(|| TraceError::UnknownFormat { file: file.clone() })?
        }
    };
    TraceReader::new(input, file, format, options)
}

/// Up to [`SNIFF_LINES`] lines from the start of `input`, for detection;
/// undecodable bytes become U+FFFD, as detection only looks for shapes.
fn first_lines(input: &mut BufReader<File>) -> io::Result<Vec<String>> {
    let mut lines = Vec::with_capacity(SNIFF_LINES);
    let mut buf = Vec::new();
    while lines.len() < SNIFF_LINES {
        match text::read_line(input, &mut buf)? {
            text::LineRead::Line => lines.push(String::from_utf8_lossy(&buf).into_owned()),
            text::LineRead::Eof | text::LineRead::TooLong => break,
        }
    }
    Ok(lines)
}
