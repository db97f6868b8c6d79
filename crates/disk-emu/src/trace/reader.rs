//! The streaming reader: one line (SRT: one record) in memory at a time, one
//! record out.

use std::io::BufRead;
use std::sync::Arc;

use sched_core::Nanos;

use super::srt::{RecordKind, SrtStream};
use super::text::{LineCtx, LineRead, read_line};
use super::{
    MAX_LINE, SrtHeader, TraceError, TraceFormat, TraceOptions, TraceProfile, TraceRecord,
    TraceSummary, disksim_trace, msr, spc,
};

/// A streaming reader of one trace: an iterator of records in file order.
///
/// It holds one line of the input at a time (for SRT, the parsed header and
/// one record), so memory stays constant whatever the size of the file. A
/// line or record that does not parse yields an error and the reader goes on
/// with the next, so that a caller may report every bad one;
/// [`TraceError::Io`], [`TraceError::LineTooLong`],
/// [`TraceError::TruncatedSrtRecord`] and an SRT record with a bad `length`
/// or `id` end the iteration. Records dropped by [`TraceOptions::devices`]
/// are still parsed and checked in full (a bad line is an error whatever its
/// device).
#[derive(Debug)]
pub struct TraceReader<R> {
    input: R,
    file: Arc<str>,
    format: TraceFormat,
    options: TraceOptions,
    /// The current line's bytes, reused from line to line.
    buf: Vec<u8>,
    /// Lines read so far; the number of the current line.
    line: u64,
    /// The latest arrival so far (on the format's own clock) and its line,
    /// to reject times that go backwards.
    latest: Option<(Nanos, u64)>,
    /// MSR: the absolute arrival of the file's first request, which becomes 0.
    origin: Option<Nanos>,
    /// Requests parsed but dropped by the device filter.
    filtered: u64,
    /// SRT: the header and the position in the records.
    srt: Option<SrtStream>,
    /// Set once the input is exhausted or unreadable.
    done: bool,
}

impl<R: BufRead> TraceReader<R> {
    /// A reader of `input` in `format`; `file` names the input in errors.
    /// For SRT, reads the header at once, leaving `input` at the first record.
    ///
    /// Fails with [`TraceError::BadOption`] if `options.block_size` is 0, and
    /// with [`TraceError::BadSrtHeader`] (or [`TraceError::Io`]) if an SRT
    /// header cannot be read.
    pub fn new(
        mut input: R,
        file: impl Into<Arc<str>>,
        format: TraceFormat,
        options: TraceOptions,
    ) -> Result<Self, TraceError> {
        if options.block_size == 0 {
            return Err(TraceError::BadOption {
                option: "block_size",
                problem: "a block must hold at least one byte",
            });
        }
        let file = file.into();
        let srt = match format {
            TraceFormat::Srt => Some(SrtStream::open(&mut input, &file)?),
            _ => None,
        };
        Ok(TraceReader {
            input,
            file,
            format,
            options,
            buf: Vec::new(),
            line: 0,
            latest: None,
            origin: None,
            filtered: 0,
            srt,
            done: false,
        })
    }

    /// The format being read.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// The name the reader uses for its input in errors.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// How many requests so far were valid but dropped by
    /// [`TraceOptions::devices`].
    pub fn filtered(&self) -> u64 {
        self.filtered
    }

    /// SRT: how many records so far were of the SUSPECTIO kind, checked and
    /// set aside (see [`TraceFormat::Srt`]); 0 for the other formats.
    pub fn suspect(&self) -> u64 {
        self.srt.as_ref().map_or(0, SrtStream::suspect)
    }

    /// The header of an SRT trace; `None` for the other formats.
    pub fn srt_header(&self) -> Option<&SrtHeader> {
        self.srt.as_ref().map(SrtStream::header)
    }

    /// Reads the rest of the trace and summarises it, stopping at the first
    /// error so that a count is never reported for a file that did not parse.
    pub fn summarize(mut self) -> Result<TraceSummary, TraceError> {
        let mut summary = TraceSummary::default();
        for record in self.by_ref() {
            summary.add(&record?);
        }
        summary.filtered = self.filtered;
        summary.suspect = self.suspect();
        Ok(summary)
    }

    /// Reads the rest of the trace and describes it per device, per request
    /// size and (SRT) per device number, stopping at the first error like
    /// [`summarize`](Self::summarize).
    pub fn profile(mut self) -> Result<TraceProfile, TraceError> {
        let mut profile = TraceProfile::new(
            self.format,
            self.options.block_size,
            self.srt_header().cloned(),
        );
        for record in self.by_ref() {
            profile.add(&record?);
        }
        profile.summary.filtered = self.filtered;
        profile.summary.suspect = self.suspect();
        Ok(profile)
    }

    /// The next SRT record to hand out, past suspect records and requests on
    /// filtered-out devices.
    fn next_srt(&mut self) -> Option<Result<TraceRecord, TraceError>> {
        let srt = self.srt.as_mut()?;
        loop {
            match srt.next_record(&mut self.input, &self.file, self.options.block_size)? {
                Err(e) => return Some(Err(e)),
                Ok((_, RecordKind::SuspectIo)) => {}
                Ok((record, RecordKind::ShortIo)) => {
                    if self.options.keeps(record.device) {
                        return Some(Ok(record));
                    }
                    self.filtered += 1;
                }
            }
        }
    }

    /// Parses the line in `buf`: `Ok(None)` for a line that holds no request
    /// to hand out (the MSR header, a request on a filtered-out device).
    fn accept(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        let ctx = LineCtx {
            file: &self.file,
            line: self.line,
            format: self.format,
        };
        let text = std::str::from_utf8(&self.buf).map_err(|_| TraceError::NotText {
            file: self.file.clone(),
            line: self.line,
        })?;
        if text.trim().is_empty() {
            return Err(TraceError::BlankLine {
                file: self.file.clone(),
                line: self.line,
                format: self.format,
            });
        }
        let block_size = self.options.block_size;
        let mut record = match self.format {
            TraceFormat::DiskSimAscii => disksim_trace::parse_ascii(text, &ctx, block_size)?,
            TraceFormat::DiskSimValidate => disksim_trace::parse_validate(text, &ctx, block_size)?,
            TraceFormat::Msr if self.line == 1 && msr::is_header(text) => return Ok(None),
            TraceFormat::Msr => msr::parse(text, &ctx, block_size)?,
            TraceFormat::Spc => spc::parse(text, &ctx, block_size)?,
            // An SRT reader reads records, not lines: `next` never gets here.
            TraceFormat::Srt => return Ok(None),
        };
        if let Some(time) = record.arrival {
            if let Some((previous, previous_line)) = self.latest
                && time < previous
            {
                return Err(TraceError::TimeBackwards {
                    file: self.file.clone(),
                    line: self.line,
                    field: self.format.time_field(),
                    format: self.format,
                    time,
                    previous,
                    previous_line,
                });
            }
            self.latest = Some((time, self.line));
            if self.format == TraceFormat::Msr {
                // Times never go backwards, so the first request's time is the least.
                let origin = *self.origin.get_or_insert(time);
                record.arrival = Some(time - origin);
            }
        }
        if !self.options.keeps(record.device) {
            self.filtered += 1;
            return Ok(None);
        }
        Ok(Some(record))
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.srt.is_some() {
            return self.next_srt();
        }
        while !self.done {
            match read_line(&mut self.input, &mut self.buf) {
                Err(source) => {
                    self.done = true;
                    return Some(Err(TraceError::Io {
                        file: self.file.clone(),
                        source,
                    }));
                }
                Ok(LineRead::Eof) => self.done = true,
                Ok(LineRead::TooLong) => {
                    self.done = true;
                    self.line += 1;
                    return Some(Err(TraceError::LineTooLong {
                        file: self.file.clone(),
                        line: self.line,
                        limit: MAX_LINE,
                    }));
                }
                Ok(LineRead::Line) => {
                    self.line += 1;
                    match self.accept() {
                        Ok(Some(record)) => return Some(Ok(record)),
                        Ok(None) => {}
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
        }
        None
    }
}
