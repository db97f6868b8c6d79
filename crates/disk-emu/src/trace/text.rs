//! Text handling shared by the four formats: bounded line reading, field
//! splitting with error context, and exact decimal-to-integer conversion.
//!
//! Numbers are parsed by hand rather than with `str::parse` because the
//! standard parsers accept forms the trace formats do not (`+5`, `1e3`, `inf`)
//! and because times must reach integer nanoseconds without passing through a
//! binary float, which cannot hold `0.001` exactly.

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use sched_core::Nanos;

use super::{MAX_LINE, TraceError, TraceFormat};

/// What [`read_line`] found.
pub(super) enum LineRead {
    /// A line is in the buffer, without its terminator.
    Line,
    /// The input is exhausted.
    Eof,
    /// No newline within [`MAX_LINE`] bytes.
    TooLong,
}

/// Reads one line into `buf`, dropping the `\n` or `\r\n` terminator; the last
/// line of a file needs no terminator. Reads at most `MAX_LINE + 1` bytes, so a
/// file without newlines cannot make the reader hold more than that.
pub(super) fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> io::Result<LineRead> {
    buf.clear();
    let n = input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(LineRead::Eof);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if n > MAX_LINE {
        return Ok(LineRead::TooLong);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(LineRead::Line)
}

/// Why a number did not parse; the caller adds the file, line and field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NumError {
    /// Not a number of the expected form.
    Invalid,
    /// Well formed but too large for the target type.
    Overflow,
}

/// Parses a run of ASCII decimal digits (no sign, no separators).
pub(super) fn parse_u64(text: &str) -> Result<u64, NumError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumError::Invalid);
    }
    text.bytes()
        .try_fold(0u64, |acc, b| {
            acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        })
        .ok_or(NumError::Overflow)
}

/// Parses hexadecimal digits with an optional `0x`/`0X` prefix, as C's `%x`
/// conversion (which DiskSim uses for flags) accepts.
pub(super) fn parse_hex_u32(text: &str) -> Result<u32, NumError> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(NumError::Invalid);
    }
    u32::from_str_radix(digits, 16).map_err(|_| NumError::Overflow)
}

/// Parses a non-negative decimal `I`, `I.F`, `I.` or `.F` and returns it
/// multiplied by 10^`shift`, that is, converted to a unit `shift` decimal
/// places finer (3 for µs → ns, 6 for ms → ns, 9 for s → ns).
///
/// The conversion is exact as long as the text has at most `shift` fraction
/// digits. Further digits are rounded to the nearest unit, halves upwards
/// (only the first dropped digit decides), because real traces carry them: the
/// HP C3323A validation trace gives idle times such as `19914.709322` µs.
pub(super) fn parse_decimal(text: &str, shift: u32) -> Result<u64, NumError> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
        return Err(NumError::Invalid);
    }
    let overflow = NumError::Overflow;
    let whole = if int.is_empty() { 0 } else { parse_u64(int)? };
    let mut value = whole.checked_mul(10u64.pow(shift)).ok_or(overflow)?;
    let frac = frac.as_bytes();
    let mut part = 0u64;
    for i in 0..shift as usize {
        part = part * 10 + frac.get(i).map_or(0, |d| u64::from(d - b'0'));
    }
    value = value.checked_add(part).ok_or(overflow)?;
    if frac.get(shift as usize).is_some_and(|&d| d >= b'5') {
        value = value.checked_add(1).ok_or(overflow)?;
    }
    Ok(value)
}

/// The longest piece of offending text an error message quotes.
const QUOTE_LIMIT: usize = 60;

/// The text to quote in an error: the field itself, cut at a character
/// boundary if it is very long (a garbage line may be 64 KiB).
fn quote(text: &str) -> String {
    if text.len() <= QUOTE_LIMIT {
        return text.to_owned();
    }
    let mut end = QUOTE_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Where a line comes from, to build errors that name it.
pub(super) struct LineCtx<'a> {
    /// The file name.
    pub file: &'a Arc<str>,
    /// The 1-based line number.
    pub line: u64,
    /// The format being read.
    pub format: TraceFormat,
}

impl LineCtx<'_> {
    /// A field with text of the wrong form.
    pub(crate) fn invalid(
        &self,
        field: &'static str,
        expected: &'static str,
        found: &str,
    ) -> TraceError {
        TraceError::InvalidField {
            file: self.file.clone(),
            line: self.line,
            field,
            expected,
            found: quote(found),
        }
    }

    /// A field too large to represent.
    pub(crate) fn overflow(&self, field: &'static str, found: &str) -> TraceError {
        TraceError::Overflow {
            file: self.file.clone(),
            line: self.line,
            field,
            found: quote(found),
        }
    }

    /// Turns a [`NumError`] about `field` into a [`TraceError`].
    fn number(
        &self,
        e: NumError,
        field: &'static str,
        expected: &'static str,
        found: &str,
    ) -> TraceError {
        match e {
            NumError::Invalid => self.invalid(field, expected, found),
            NumError::Overflow => self.overflow(field, found),
        }
    }

    /// Converts a byte extent to whole blocks of `block_size` bytes, rounding
    /// outward (start down, end up) so that the blocks cover every byte the
    /// request touched. `start` and `len` carry the field name and text that
    /// an overflow error should point at: a start block beyond 64 bits blames
    /// the start field; a length beyond 2³² − 1 blocks, or an end beyond
    /// 64 bits, blames the length field.
    pub(crate) fn extent(
        &self,
        start_bytes: u128,
        len_bytes: u128,
        block_size: u32,
        start: (&'static str, &str),
        len: (&'static str, &str),
    ) -> Result<(u64, u32), TraceError> {
        let size = u128::from(block_size);
        let first =
            u64::try_from(start_bytes / size).map_err(|_| self.overflow(start.0, start.1))?;
        let end = u64::try_from((start_bytes + len_bytes).div_ceil(size))
            .map_err(|_| self.overflow(len.0, len.1))?;
        let blocks = u32::try_from(end - first).map_err(|_| self.overflow(len.0, len.1))?;
        Ok((first, blocks))
    }
}

/// The fields of one line, taken in order, each with its name for errors.
pub(super) struct Fields<'c, 'a, I> {
    parts: I,
    ctx: &'c LineCtx<'a>,
}

impl<'c, 'a, 't, I: Iterator<Item = &'t str>> Fields<'c, 'a, I> {
    /// Fields from already-split parts of a line.
    pub(crate) fn new(parts: I, ctx: &'c LineCtx<'a>) -> Self {
        Fields { parts, ctx }
    }

    /// The next field's text.
    pub(crate) fn text(&mut self, field: &'static str) -> Result<&'t str, TraceError> {
        self.parts.next().ok_or_else(|| TraceError::MissingField {
            file: self.ctx.file.clone(),
            line: self.ctx.line,
            field,
        })
    }

    /// The next field as a non-negative integer; returns the text too, for
    /// errors raised later about the value.
    pub(crate) fn u64(&mut self, field: &'static str) -> Result<(u64, &'t str), TraceError> {
        const EXPECTED: &str = "a non-negative integer";
        let text = self.text(field)?;
        let value = parse_u64(text).map_err(|e| self.ctx.number(e, field, EXPECTED, text))?;
        Ok((value, text))
    }

    /// The next field as a non-negative integer of at most 32 bits.
    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32, TraceError> {
        let (value, text) = self.u64(field)?;
        u32::try_from(value).map_err(|_| self.ctx.overflow(field, text))
    }

    /// The next field as a positive integer (a size: zero is an error).
    pub(crate) fn positive(&mut self, field: &'static str) -> Result<(u64, &'t str), TraceError> {
        const EXPECTED: &str = "a positive integer";
        let text = self.text(field)?;
        match parse_u64(text) {
            Ok(0) => Err(self.ctx.invalid(field, EXPECTED, text)),
            Ok(value) => Ok((value, text)),
            Err(e) => Err(self.ctx.number(e, field, EXPECTED, text)),
        }
    }

    /// The next field as hexadecimal flags.
    pub(crate) fn hex_u32(&mut self, field: &'static str) -> Result<u32, TraceError> {
        let text = self.text(field)?;
        parse_hex_u32(text).map_err(|e| self.ctx.number(e, field, "hexadecimal flags", text))
    }

    /// The next field as a non-negative decimal converted `shift` decimal
    /// places finer (see [`parse_decimal`]); `expected` names the unit.
    pub(crate) fn decimal(
        &mut self,
        field: &'static str,
        shift: u32,
        expected: &'static str,
    ) -> Result<Nanos, TraceError> {
        let text = self.text(field)?;
        parse_decimal(text, shift).map_err(|e| self.ctx.number(e, field, expected, text))
    }

    /// Checks that no field is left, for formats with a fixed field count.
    pub(crate) fn finish(mut self, fields: usize) -> Result<(), TraceError> {
        match self.parts.next() {
            None => Ok(()),
            Some(extra) => Err(TraceError::ExtraField {
                file: self.ctx.file.clone(),
                line: self.ctx.line,
                format: self.ctx.format,
                fields,
                found: quote(extra),
            }),
        }
    }
}
