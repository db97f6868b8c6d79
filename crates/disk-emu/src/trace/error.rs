//! The one error type of the trace readers.
//!
//! Every error about the content of a file names the file and the 1-based line
//! (for SRT records, which are binary, the byte offset and the record's
//! number), and, where one field is at fault, the field by the name the
//! format's documentation gives it, so that a user can go straight to the bad
//! byte.

use std::sync::Arc;

use sched_core::Nanos;

use super::TraceFormat;

/// Why a trace could not be opened or a line of it could not be read.
///
/// `file` is the name the reader was given (for [`open`](super::open), the path
/// as the caller wrote it); `line` counts from 1; `field` is one of the field
/// names listed in the documentation of each format in [`TraceFormat`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// Opening or reading the file failed. The reader stops after this error.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: Arc<str>,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The line is not valid UTF-8. The reader goes on with the next line.
    #[error("{file}:{line}: the line is not UTF-8 text")]
    NotText {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
    },
    /// The line has no newline within [`MAX_LINE`](super::MAX_LINE) bytes.
    /// The reader stops after this error: it cannot know where the next
    /// record starts without reading an unbounded amount of memory.
    #[error("{file}:{line}: the line is longer than {limit} bytes")]
    LineTooLong {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The line is empty or holds only white space, which none of the formats allow.
    #[error("{file}:{line}: the line is blank; the {format} format has no blank lines")]
    BlankLine {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
        /// The format being read.
        format: TraceFormat,
    },
    /// The line ends before a required field.
    #[error("{file}:{line}: field \"{field}\" is missing")]
    MissingField {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
        /// The first field that is missing.
        field: &'static str,
    },
    /// A field holds text that is not a value of the field's kind.
    #[error("{file}:{line}: field \"{field}\": expected {expected}, found \"{found}\"")]
    InvalidField {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
        /// The field.
        field: &'static str,
        /// What the field may hold.
        expected: &'static str,
        /// The field's text (cut short if very long).
        found: String,
    },
    /// A field holds a well-formed number too large for the record: more than
    /// 64 bits of blocks or nanoseconds, or a request of more than 2³² − 1 blocks.
    #[error("{file}:{line}: field \"{field}\": \"{found}\" is too large to represent")]
    Overflow {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
        /// The field.
        field: &'static str,
        /// The field's text (cut short if very long).
        found: String,
    },
    /// The line has more fields than a format with a fixed field count allows.
    #[error(
        "{file}:{line}: unexpected extra field \"{found}\"; a {format} line has exactly {fields} fields"
    )]
    ExtraField {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
        /// The format being read.
        format: TraceFormat,
        /// How many fields the format has.
        fields: usize,
        /// The first extra field (cut short if very long).
        found: String,
    },
    /// A request is timed before the one on an earlier line. Both times are in
    /// nanoseconds on the format's own clock: since the start of the trace for
    /// DiskSim and SPC, since 1601-01-01 (Windows FILETIME) for MSR.
    #[error(
        "{file}:{line}: field \"{field}\": time {time} ns is earlier than {previous} ns on line \
         {previous_line}; the {format} format needs non-decreasing times"
    )]
    TimeBackwards {
        /// The file.
        file: Arc<str>,
        /// The line.
        line: u64,
        /// The time field.
        field: &'static str,
        /// The format being read.
        format: TraceFormat,
        /// The time on this line.
        time: Nanos,
        /// The latest time on an earlier line.
        previous: Nanos,
        /// The line that holds `previous`.
        previous_line: u64,
    },
    /// No format was named and neither the file's first line nor its extension
    /// matches one.
    #[error(
        "{file}: cannot tell the trace format from the first line or the extension; name it with --trace-format (disksim-ascii, disksim-validate, msr, spc or srt)"
    )]
    UnknownFormat {
        /// The file.
        file: Arc<str>,
    },
    /// An SRT trace's text header is malformed, or lacks what the reader
    /// needs. `field` is the dotted path of the field at fault
    /// (`disks.0.sections.8.size`), or `magic` or `header` for the header as
    /// a whole.
    #[error("{file}:{line}: SRT header, field \"{field}\": {problem}")]
    BadSrtHeader {
        /// The file.
        file: Arc<str>,
        /// The header line.
        line: u64,
        /// The field.
        field: String,
        /// What is wrong.
        problem: String,
    },
    /// An SRT record is malformed or disagrees with the header. `field` is one
    /// of the record's field names (see the [`srt`](super::srt) module). The reader stops
    /// after a bad `length` or `id`, which leaves the next record's start
    /// unknown, and goes on with the next record otherwise.
    #[error("{file}: record {record} at byte {offset}, field \"{field}\": {problem}")]
    BadSrtRecord {
        /// The file.
        file: Arc<str>,
        /// The record's byte offset in the file.
        offset: u64,
        /// The record's number, counting from 1.
        record: u64,
        /// The field.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// An SRT record is timed before the one before it. The reader goes on.
    #[error(
        "{file}: record {record} at byte {offset}, field \"sec\": time {time} ns is earlier than \
         {previous} ns of record {previous_record} at byte {previous_offset}; SRT records are in \
         time order"
    )]
    SrtTimeBackwards {
        /// The file.
        file: Arc<str>,
        /// The record's byte offset in the file.
        offset: u64,
        /// The record's number, counting from 1.
        record: u64,
        /// Its time, in nanoseconds since the trace start.
        time: Nanos,
        /// The latest earlier time.
        previous: Nanos,
        /// The number of the record that holds `previous`.
        previous_record: u64,
        /// That record's byte offset.
        previous_offset: u64,
    },
    /// An SRT file ends inside a record. The reader stops.
    #[error(
        "{file}: record {record} at byte {offset}: the file ends {found} bytes into the record"
    )]
    TruncatedSrtRecord {
        /// The file.
        file: Arc<str>,
        /// The record's byte offset in the file.
        offset: u64,
        /// The record's number, counting from 1.
        record: u64,
        /// How many of its bytes the file holds.
        found: u64,
    },
    /// A [`TraceOptions`](super::TraceOptions) value cannot be used.
    #[error("trace option \"{option}\": {problem}")]
    BadOption {
        /// The option's field name.
        option: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
}
