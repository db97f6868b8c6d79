//! The streaming reader: one line in memory at a time, one record out.

use std::io::BufRead;
use std::sync::Arc;

use sched_core::Nanos;

use super::text::{LineCtx, LineRead, read_line};
use super::{
    MAX_LINE, TraceError, TraceFormat, TraceOptions, TraceRecord, TraceSummary, disksim_trace, msr,
    spc,
};

/// A streaming reader of one trace: an iterator of records in file order.
///
/// It holds one line of the input at a time, so memory stays constant
/// whatever the size of the file. A line that does not parse yields an error
/// and the reader goes on with the next line, so that a caller may report
/// every bad line; [`TraceError::Io`] and [`TraceError::LineTooLong`] end the
/// iteration. Records dropped by [`TraceOptions::devices`] are still parsed
/// and checked in full (a bad line is an error whatever its device).
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
    /// Set once the input is exhausted or unreadable.
    done: bool,
}

impl<R: BufRead> TraceReader<R> {
    /// A reader of `input` in `format`; `file` names the input in errors.
    ///
    /// Fails with [`TraceError::BadOption`] if `options.block_size` is 0.
    pub fn new(
        input: R,
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
        Ok(TraceReader {
            input,
            file: file.into(),
            format,
            options,
            buf: Vec::new(),
            line: 0,
            latest: None,
            origin: None,
            filtered: 0,
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

    /// Reads the rest of the trace and summarises it, stopping at the first
    /// error so that a count is never reported for a file that did not parse.
    pub fn summarize(mut self) -> Result<TraceSummary, TraceError> {
        let mut summary = TraceSummary::default();
        for record in self.by_ref() {
            summary.add(&record?);
        }
        summary.filtered = self.filtered;
        Ok(summary)
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
