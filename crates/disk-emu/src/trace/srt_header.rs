//! The text header of an HP SRT trace, parsed into an [`SrtHeader`].
//!
//! The header is ASCII text ended by a form feed (0x0C). Its first line is the
//! magic `$$TR_IOREC-<version>` and an optional note (ended, in the bundled
//! trace, by a NUL byte, which is dropped); then come entries
//! `key = value;`, where a value is a word (`hp335h`, `1449`, `1.2`), a quoted
//! string, a tuple `(171760 291362816)`, a block `{ item, item, … }` whose
//! items are `key = value` or a value, or a mapping `word -> value`. See
//! [`TraceFormat::Srt`](super::TraceFormat::Srt) and the [`srt`](super::srt) module for
//! what the fields mean and how records are checked against them.
//!
//! The parser is a small recursive descent over a tokenizer that counts lines,
//! so that every error names the header line and the field (as a dotted path,
//! `disks.0.sections.8.size`). Nesting is bounded so that a corrupt header
//! cannot exhaust the stack, and the header's length is bounded by
//! [`MAX_SRT_HEADER`] so that a file with no form feed cannot exhaust memory.

use std::fmt;
use std::io::{BufRead, Read};
use std::sync::Arc;

use super::TraceError;

/// How every SRT trace starts.
pub const SRT_MAGIC: &str = "$$TR_IOREC-";

/// The byte that ends the header; the first record follows it directly.
const FORM_FEED: u8 = 0x0C;

/// The longest header the reader accepts, in bytes (form feed included). The
/// bundled trace's header, which describes two disks, is 2,204 bytes; a
/// header describing a hundred disks would still fit many times over.
pub const MAX_SRT_HEADER: usize = 1 << 20;

/// How deeply blocks, tuples and mappings may nest. The deepest real nesting
/// is five (`disks` → disk → `sections` → section → `size` tuple).
const MAX_DEPTH: usize = 16;

/// What an SRT trace's header says about the traced system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrtHeader {
    /// The format version from the magic line (`1.3` in `$$TR_IOREC-1.3`).
    pub format_version: String,
    /// The rest of the magic line (`(IOAdaptor Upgrade Version)`), trimmed.
    pub format_note: String,
    /// When tracing started (`tracedate`); record times count from here.
    pub trace_date: SrtDate,
    /// The traced host (`system`).
    pub system: Option<String>,
    /// Its hardware (`machinetype`).
    pub machine_type: Option<String>,
    /// Its operating system (`osversion`).
    pub os_version: Option<String>,
    /// Free text about the trace (`description`).
    pub description: Option<String>,
    /// The traced disks (`disks`), in header order.
    pub disks: Vec<SrtDisk>,
    /// Top-level entries the reader does not interpret (`version`,
    /// `physmem`, …), each with its value as written (spacing normalised).
    pub other: Vec<(String, String)>,
    /// The header's length in bytes, form feed included: the byte offset of
    /// the first record.
    pub length: u64,
}

impl SrtHeader {
    /// The disk with header number `number`.
    pub fn disk(&self, number: u32) -> Option<&SrtDisk> {
        self.disks.iter().find(|d| d.number == number)
    }
}

/// One disk of the header's `disks` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrtDisk {
    /// The disk's number in the header (`0 -> { … }`), which is bits 8 and up
    /// of the minor device number of its requests.
    pub number: u32,
    /// The drive model (`disktype`, e.g. `hp335h`).
    pub disk_type: Option<String>,
    /// Bytes per sector (`sectorsize`): the unit of a record's `sectno` and of
    /// a section's first sector.
    pub sector_size: u32,
    /// Sectors per track (`nspt`).
    pub sectors_per_track: u32,
    /// Tracks per cylinder (`ntpc`).
    pub tracks_per_cylinder: u32,
    /// Cylinders (`ncyl`).
    pub cylinders: u32,
    /// Spindle speed (`rpm`).
    pub rpm: Option<u32>,
    /// The major number of the disk's block device (`blockmajor`).
    pub block_major: u32,
    /// The major number of the disk's character (raw) device
    /// (`charactermajor`).
    pub character_major: u32,
    /// Free text (`description`).
    pub description: Option<String>,
    /// The traced sections (partitions) of the disk, in header order.
    pub sections: Vec<SrtSection>,
    /// Fields the reader does not interpret (`overhead`, `seekparms`,
    /// `queue`, …), each with its value as written (spacing normalised).
    pub other: Vec<(String, String)>,
}

impl SrtDisk {
    /// Sectors per cylinder: the divisor that turns a sector number into the
    /// cylinder number records carry.
    pub fn sectors_per_cylinder(&self) -> u64 {
        u64::from(self.sectors_per_track) * u64::from(self.tracks_per_cylinder)
    }

    /// The disk's capacity in sectors, from its geometry (saturating at
    /// 2⁶⁴ − 1, far beyond any disk, for a header with absurd numbers).
    pub fn sectors(&self) -> u64 {
        self.sectors_per_cylinder()
            .saturating_mul(u64::from(self.cylinders))
    }

    /// The section with number `number`.
    pub fn section(&self, number: u32) -> Option<&SrtSection> {
        self.sections.iter().find(|s| s.number == number)
    }
}

/// One section (partition) of a disk: a run of sectors holding a file system
/// or swap space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrtSection {
    /// The section's number (`8 -> { … }`), which is the low 8 bits of the
    /// minor device number of its requests.
    pub number: u32,
    /// Its name, the block's first item (`"/"`, `"<swap>"`).
    pub name: String,
    /// Its first sector on the disk: `size`'s first number.
    pub first_sector: u64,
    /// Its length in bytes: `size`'s second number.
    pub bytes: u64,
    /// File-system block size (`blocksize`).
    pub block_size: Option<u32>,
    /// File-system fragment size (`fragsize`).
    pub fragment_size: Option<u32>,
    /// Fields the reader does not interpret (`swap`), each with its value as
    /// written.
    pub other: Vec<(String, String)>,
}

impl SrtSection {
    /// Its length in sectors of `sector_size` bytes (the header is checked to
    /// give a whole number of the disk's sectors, all on the disk).
    pub fn sectors(&self, sector_size: u32) -> u64 {
        self.bytes / u64::from(sector_size)
    }
}

/// A calendar time as `tracedate` gives it (`Sat May 30 00:03:06 1992`, the
/// form of C's `ctime`, in the traced system's local time zone, which the
/// header does not name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SrtDate {
    /// Year.
    pub year: u16,
    /// Month, 1 to 12.
    pub month: u8,
    /// Day of the month, from 1.
    pub day: u8,
    /// Hour, 0 to 23.
    pub hour: u8,
    /// Minute, 0 to 59.
    pub minute: u8,
    /// Second, 0 to 60 (a leap second).
    pub second: u8,
}

impl fmt::Display for SrtDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

impl SrtDate {
    /// Parses `ctime`'s `Www Mmm dd hh:mm:ss yyyy`, checking every range and
    /// that the weekday is the date's, which confirms the fields were read in
    /// the right order.
    fn parse(text: &str) -> Result<SrtDate, String> {
        let shape =
            || format!("expected a date like \"Sat May 30 00:03:06 1992\", found \"{text}\"");
        let words: Vec<&str> = text.split_ascii_whitespace().collect();
        let [weekday, month, day, time, year] = words[..] else {
            return Err(shape());
        };
        let weekday = WEEKDAYS
            .iter()
            .position(|w| *w == weekday)
            .ok_or_else(shape)?;
        let month = MONTHS.iter().position(|m| *m == month).ok_or_else(shape)?;
        let number = |s: &str| -> Result<u16, String> {
            if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(shape());
            }
            s.parse().map_err(|_| shape())
        };
        let small = |s: &str| u8::try_from(number(s)?).map_err(|_| shape());
        let [hour, minute, second] = time.split(':').collect::<Vec<_>>()[..] else {
            return Err(shape());
        };
        let date = SrtDate {
            year: number(year)?,
            month: month as u8 + 1,
            day: small(day)?,
            hour: small(hour)?,
            minute: small(minute)?,
            second: small(second)?,
        };
        if date.year == 0
            || date.day == 0
            || date.day > days_in_month(date.year, date.month)
            || date.hour > 23
            || date.minute > 59
            || date.second > 60
        {
            return Err(format!("\"{text}\" is not a valid date and time"));
        }
        let actual = day_of_week(date.year, date.month, date.day);
        if actual != weekday {
            return Err(format!(
                "\"{text}\": {:04}-{:02}-{:02} is a {}, not a {}",
                date.year, date.month, date.day, WEEKDAYS[actual], WEEKDAYS[weekday]
            ));
        }
        Ok(date)
    }
}

fn is_leap(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The weekday of a Gregorian date, 0 for Sunday (Sakamoto's method).
fn day_of_week(year: u16, month: u8, day: u8) -> usize {
    const OFFSETS: [u32; 12] = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
    let y = u32::from(year) - u32::from(month < 3);
    ((y + y / 4 - y / 100 + y / 400 + OFFSETS[usize::from(month - 1)] + u32::from(day)) % 7)
        as usize
}

/// Reads the header from the start of `input`, consuming it up to and
/// including the form feed, so that `input` is left at the first record.
pub(super) fn read_header<R: BufRead>(
    input: &mut R,
    file: &Arc<str>,
) -> Result<SrtHeader, TraceError> {
    let mut bytes = Vec::new();
    input
        .by_ref()
        .take(MAX_SRT_HEADER as u64)
        .read_until(FORM_FEED, &mut bytes)
        .map_err(|source| TraceError::Io {
            file: file.clone(),
            source,
        })?;
    let error = |line: u64, problem: String| TraceError::BadSrtHeader {
        file: file.clone(),
        line,
        field: "header".into(),
        problem,
    };
    let line_of_end = |b: &[u8]| 1 + b.iter().filter(|&&c| c == b'\n').count() as u64;
    if bytes.last() != Some(&FORM_FEED) {
        let problem = if bytes.len() >= MAX_SRT_HEADER {
            format!("no form feed (0x0C) ends the header within {MAX_SRT_HEADER} bytes")
        } else {
            "the file ends before the form feed (0x0C) that ends the header".to_owned()
        };
        return Err(error(line_of_end(&bytes), problem));
    }
    let length = bytes.len() as u64;
    bytes.pop();
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        error(
            line_of_end(&bytes[..e.valid_up_to()]),
            "the header is not text".to_owned(),
        )
    })?;
    parse(text, length).map_err(|e| TraceError::BadSrtHeader {
        file: file.clone(),
        line: e.line,
        field: e.field,
        problem: e.problem,
    })
}

/// Parses the header's text (without its form feed); `length` is its length
/// in the file, form feed included.
fn parse(text: &str, length: u64) -> Result<SrtHeader, Failure> {
    let (magic, body) = text.split_once('\n').unwrap_or((text, ""));
    // The bundled trace's magic line ends in a NUL, the terminator of the C
    // string it was written from.
    let magic = magic.trim_end_matches(['\0', '\r']);
    let Some(rest) = magic.strip_prefix(SRT_MAGIC) else {
        return Err(Failure::new(
            1,
            "magic",
            format!("an SRT trace starts with \"{SRT_MAGIC}\""),
        ));
    };
    let (version, note) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if version.is_empty() {
        return Err(Failure::new(
            1,
            "magic",
            format!("no version after \"{SRT_MAGIC}\""),
        ));
    }
    let entries = Parser::new(body, 2).entries()?;
    build(entries, version, note.trim(), length)
}

/// A header error, before the file name is added.
#[derive(Debug)]
struct Failure {
    line: u64,
    field: String,
    problem: String,
}

impl Failure {
    fn new(line: u64, field: impl Into<String>, problem: impl Into<String>) -> Failure {
        Failure {
            line,
            field: field.into(),
            problem: problem.into(),
        }
    }
}

// ------------------------------------------------------------------ syntax

/// A value as written in the header.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    /// A bare word: a number or a name.
    Word(String),
    /// A quoted string, without its quotes.
    Text(String),
    /// `(a b …)`.
    Tuple(Vec<Value>),
    /// `{ item, item, … }`.
    Block(Vec<Item>),
    /// `word -> value`.
    Map(String, Box<Value>),
}

/// One item of a block, or one top-level entry.
#[derive(Clone, Debug, PartialEq)]
struct Item {
    /// `key = value` has a key; a bare value (a mapping included) has none.
    key: Option<String>,
    value: Value,
    /// The line the item starts on.
    line: u64,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Word(w) => f.write_str(w),
            Value::Text(t) => write!(f, "\"{t}\""),
            Value::Tuple(values) => {
                f.write_str("(")?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Value::Block(items) => {
                f.write_str("{")?;
                for (i, item) in items.iter().enumerate() {
                    f.write_str(if i > 0 { ", " } else { " " })?;
                    if let Some(key) = &item.key {
                        write!(f, "{key} = ")?;
                    }
                    write!(f, "{}", item.value)?;
                }
                f.write_str(if items.is_empty() { "}" } else { " }" })
            }
            Value::Map(key, value) => write!(f, "{key} -> {value}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    Word(&'a str),
    Text(&'a str),
    Punct(u8),
    Arrow,
    End,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Word(w) => write!(f, "\"{w}\""),
            Token::Text(t) => write!(f, "the string \"{t}\""),
            Token::Punct(c) => write!(f, "'{}'", char::from(*c)),
            Token::Arrow => f.write_str("'->'"),
            Token::End => f.write_str("the end of the header"),
        }
    }
}

/// Bytes of a bare word. `-` also starts the arrow `->`, which ends a word.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+' | b'/' | b':')
}

/// The tokenizer and the recursive-descent parser in one. The grammar needs
/// two tokens of look-ahead at most, which the peeks get by copying the
/// (small) position.
#[derive(Clone, Copy)]
struct Parser<'a> {
    text: &'a str,
    pos: usize,
    line: u64,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, first_line: u64) -> Parser<'a> {
        Parser {
            text,
            pos: 0,
            line: first_line,
            depth: 0,
        }
    }

    /// Skips white space, counting lines.
    fn skip_space(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' | 0x0B => {}
                _ => break,
            }
            self.pos += 1;
        }
    }

    /// The next token and the line it starts on; `field` names the field
    /// being read, for errors.
    fn next(&mut self, field: &str) -> Result<(Token<'a>, u64), Failure> {
        self.skip_space();
        let line = self.line;
        let bytes = self.text.as_bytes();
        let Some(&b) = bytes.get(self.pos) else {
            return Ok((Token::End, line));
        };
        let start = self.pos;
        let token = match b {
            b'-' if bytes.get(start + 1) == Some(&b'>') => {
                self.pos += 2;
                Token::Arrow
            }
            b'"' => {
                let close = self.text[start + 1..]
                    .find(['"', '\n'])
                    .map(|i| start + 1 + i)
                    .filter(|&i| bytes[i] == b'"')
                    .ok_or_else(|| {
                        Failure::new(line, field, "a string is not closed on its line")
                    })?;
                self.pos = close + 1;
                Token::Text(&self.text[start + 1..close])
            }
            b'=' | b';' | b',' | b'{' | b'}' | b'(' | b')' => {
                self.pos += 1;
                Token::Punct(b)
            }
            _ if is_word_byte(b) => {
                let mut end = start;
                while end < bytes.len()
                    && is_word_byte(bytes[end])
                    && !(bytes[end] == b'-' && bytes.get(end + 1) == Some(&b'>'))
                {
                    end += 1;
                }
                self.pos = end;
                Token::Word(&self.text[start..end])
            }
            _ => {
                let c = self.text[start..].chars().next().unwrap_or('?');
                return Err(Failure::new(
                    line,
                    field,
                    format!("unexpected character {c:?}"),
                ));
            }
        };
        Ok((token, line))
    }

    fn peek(&self, field: &str) -> Result<Token<'a>, Failure> {
        let mut ahead = *self;
        Ok(ahead.next(field)?.0)
    }

    /// The token after the next one.
    fn peek2(&self, field: &str) -> Result<Token<'a>, Failure> {
        let mut ahead = *self;
        ahead.next(field)?;
        Ok(ahead.next(field)?.0)
    }

    fn expect(&mut self, want: u8, field: &str) -> Result<(), Failure> {
        match self.next(field)? {
            (Token::Punct(c), _) if c == want => Ok(()),
            (found, line) => Err(Failure::new(
                line,
                field,
                format!("expected '{}', found {found}", char::from(want)),
            )),
        }
    }

    /// The top level: `key = value;` until the end.
    fn entries(&mut self) -> Result<Vec<Item>, Failure> {
        let mut entries = Vec::new();
        loop {
            match self.next("header")? {
                (Token::End, _) => return Ok(entries),
                (Token::Word(key), line) => {
                    self.expect(b'=', key)?;
                    let value = self.value(key)?;
                    self.expect(b';', key)?;
                    entries.push(Item {
                        key: Some(key.to_owned()),
                        value,
                        line,
                    });
                }
                (found, line) => {
                    return Err(Failure::new(
                        line,
                        "header",
                        format!("expected a field name, found {found}"),
                    ));
                }
            }
        }
    }

    fn value(&mut self, field: &str) -> Result<Value, Failure> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Failure::new(
                self.line,
                field,
                format!("values nest more than {MAX_DEPTH} deep"),
            ));
        }
        let value = match self.next(field)? {
            (Token::Word(word), _) if self.peek(field)? == Token::Arrow => {
                self.next(field)?;
                let path = format!("{field}.{word}");
                Value::Map(word.to_owned(), Box::new(self.value(&path)?))
            }
            (Token::Word(word), _) => Value::Word(word.to_owned()),
            (Token::Text(text), _) => Value::Text(text.to_owned()),
            (Token::Punct(b'('), _) => {
                let mut values = Vec::new();
                loop {
                    match self.peek(field)? {
                        Token::Punct(b')') => {
                            self.next(field)?;
                            break;
                        }
                        Token::Punct(b',') => {
                            self.next(field)?;
                        }
                        _ => values.push(self.value(field)?),
                    }
                }
                Value::Tuple(values)
            }
            (Token::Punct(b'{'), _) => Value::Block(self.block(field)?),
            (found, line) => {
                return Err(Failure::new(
                    line,
                    field,
                    format!("expected a value, found {found}"),
                ));
            }
        };
        self.depth -= 1;
        Ok(value)
    }

    /// A block's items after its `{`, up to and including its `}`. Items are
    /// separated by commas; a comma before the `}` is allowed.
    fn block(&mut self, field: &str) -> Result<Vec<Item>, Failure> {
        let mut items = Vec::new();
        loop {
            if self.peek(field)? == Token::Punct(b'}') {
                self.next(field)?;
                return Ok(items);
            }
            self.skip_space();
            let line = self.line;
            let item = match (self.peek(field)?, self.peek2(field)?) {
                (Token::Word(key), Token::Punct(b'=')) => {
                    self.next(field)?;
                    self.next(field)?;
                    let path = format!("{field}.{key}");
                    Item {
                        key: Some(key.to_owned()),
                        value: self.value(&path)?,
                        line,
                    }
                }
                _ => Item {
                    key: None,
                    value: self.value(field)?,
                    line,
                },
            };
            items.push(item);
            match self.next(field)? {
                (Token::Punct(b','), _) => {}
                (Token::Punct(b'}'), _) => return Ok(items),
                (found, line) => {
                    return Err(Failure::new(
                        line,
                        field,
                        format!("expected ',' or '}}', found {found}"),
                    ));
                }
            }
        }
    }
}

// ----------------------------------------------------------------- meaning

/// The fields of one block, or of the top level, taken by name; what is not
/// taken is kept as written.
struct Fields {
    items: Vec<Item>,
    /// The block's dotted path, empty at the top level.
    path: String,
    /// The line the block starts on, for missing fields.
    line: u64,
}

impl Fields {
    /// The fields of `items`, refusing a key given twice.
    fn new(items: Vec<Item>, path: String, line: u64) -> Result<Fields, Failure> {
        let fields = Fields { items, path, line };
        for (i, item) in fields.items.iter().enumerate() {
            if let Some(key) = &item.key
                && fields.items[..i]
                    .iter()
                    .any(|x| x.key.as_ref() == Some(key))
            {
                return Err(Failure::new(
                    item.line,
                    fields.path(key),
                    "the field is given twice",
                ));
            }
        }
        Ok(fields)
    }

    fn path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// Removes and returns the field `key` with its line.
    fn take(&mut self, key: &str) -> Option<(Value, u64)> {
        let i = self
            .items
            .iter()
            .position(|item| item.key.as_deref() == Some(key))?;
        let item = self.items.remove(i);
        Some((item.value, item.line))
    }

    fn required(&mut self, key: &str) -> Result<(Value, u64), Failure> {
        self.take(key)
            .ok_or_else(|| Failure::new(self.line, self.path(key), "the field is missing"))
    }

    fn text(&mut self, key: &str) -> Result<Option<String>, Failure> {
        match self.take(key) {
            None => Ok(None),
            Some((Value::Text(t), _)) => Ok(Some(t)),
            Some((other, line)) => Err(Failure::new(
                line,
                self.path(key),
                format!("expected a quoted string, found {other}"),
            )),
        }
    }

    fn word(&mut self, key: &str) -> Result<Option<String>, Failure> {
        match self.take(key) {
            None => Ok(None),
            Some((Value::Word(w), _)) => Ok(Some(w)),
            Some((other, line)) => Err(Failure::new(
                line,
                self.path(key),
                format!("expected a name, found {other}"),
            )),
        }
    }

    fn number(&mut self, key: &str) -> Result<Option<u32>, Failure> {
        let path = self.path(key);
        self.take(key)
            .map(|(value, line)| positive(&value, line, &path))
            .transpose()
    }

    fn required_number(&mut self, key: &str) -> Result<u32, Failure> {
        let (value, line) = self.required(key)?;
        positive(&value, line, &self.path(key))
    }

    /// The fields not taken, as written; a bare value has an empty name.
    fn rest(self) -> Vec<(String, String)> {
        self.items
            .into_iter()
            .map(|item| (item.key.unwrap_or_default(), item.value.to_string()))
            .collect()
    }
}

/// A non-negative decimal integer word.
fn integer(value: &Value, line: u64, path: &str) -> Result<u64, Failure> {
    match value {
        Value::Word(w) if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => w
            .parse()
            .map_err(|_| Failure::new(line, path, format!("{w} is too large"))),
        other => Err(Failure::new(
            line,
            path,
            format!("expected a non-negative integer, found {other}"),
        )),
    }
}

/// A positive integer of at most 32 bits.
fn positive(value: &Value, line: u64, path: &str) -> Result<u32, Failure> {
    match integer(value, line, path)? {
        0 => Err(Failure::new(
            line,
            path,
            "expected a positive integer, found 0",
        )),
        n => u32::try_from(n).map_err(|_| Failure::new(line, path, format!("{n} is too large"))),
    }
}

/// One `n -> { … }` entry of `disks` or `sections`.
struct Numbered {
    number: u32,
    items: Vec<Item>,
    line: u64,
}

/// The entries of a block of `n -> { … }` mappings, refusing a number given
/// twice.
fn numbered_blocks(value: Value, line: u64, path: &str) -> Result<Vec<Numbered>, Failure> {
    let Value::Block(items) = value else {
        return Err(Failure::new(
            line,
            path,
            format!("expected a block {{ n -> {{ … }}, … }}, found {value}"),
        ));
    };
    let mut out: Vec<Numbered> = Vec::with_capacity(items.len());
    for item in items {
        let (None, Value::Map(number, inner)) = (&item.key, item.value) else {
            return Err(Failure::new(
                item.line,
                path,
                "expected an entry \"n -> { … }\"",
            ));
        };
        let entry_path = format!("{path}.{number}");
        let n = u32::try_from(integer(&Value::Word(number), item.line, &entry_path)?)
            .map_err(|_| Failure::new(item.line, entry_path.as_str(), "the number is too large"))?;
        let Value::Block(fields) = *inner else {
            return Err(Failure::new(
                item.line,
                entry_path,
                format!("expected a block {{ … }}, found {inner}"),
            ));
        };
        if out.iter().any(|x| x.number == n) {
            return Err(Failure::new(
                item.line,
                entry_path,
                "the number is given twice",
            ));
        }
        out.push(Numbered {
            number: n,
            items: fields,
            line: item.line,
        });
    }
    Ok(out)
}

/// Gives the parsed entries their meaning.
fn build(entries: Vec<Item>, version: &str, note: &str, length: u64) -> Result<SrtHeader, Failure> {
    let mut top = Fields::new(entries, String::new(), 2)?;
    let (date, date_line) = top.required("tracedate")?;
    let trace_date = match date {
        Value::Text(text) => SrtDate::parse(&text),
        other => Err(format!("expected a quoted date, found {other}")),
    }
    .map_err(|problem| Failure::new(date_line, "tracedate", problem))?;
    let system = top.text("system")?;
    let machine_type = top.text("machinetype")?;
    let os_version = top.text("osversion")?;
    let description = top.text("description")?;
    let (disks_value, disks_line) = top.required("disks")?;
    let disks = numbered_blocks(disks_value, disks_line, "disks")?
        .into_iter()
        .map(disk)
        .collect::<Result<Vec<_>, _>>()?;
    if disks.is_empty() {
        return Err(Failure::new(disks_line, "disks", "no disk is described"));
    }
    Ok(SrtHeader {
        format_version: version.to_owned(),
        format_note: note.to_owned(),
        trace_date,
        system,
        machine_type,
        os_version,
        description,
        disks,
        other: top.rest(),
        length,
    })
}

fn disk(entry: Numbered) -> Result<SrtDisk, Failure> {
    let Numbered {
        number,
        items,
        line,
    } = entry;
    let mut f = Fields::new(items, format!("disks.{number}"), line)?;
    let disk_type = f.word("disktype")?;
    let sector_size = f.required_number("sectorsize")?;
    let sectors_per_track = f.required_number("nspt")?;
    let tracks_per_cylinder = f.required_number("ntpc")?;
    let cylinders = f.required_number("ncyl")?;
    let rpm = f.number("rpm")?;
    let block_major = f.required_number("blockmajor")?;
    let character_major = f.required_number("charactermajor")?;
    let description = f.text("description")?;
    let sections_path = f.path("sections");
    let (sections_value, sections_line) = f.required("sections")?;
    let sections = numbered_blocks(sections_value, sections_line, &sections_path)?
        .into_iter()
        .map(|s| section(s, &sections_path, sector_size))
        .collect::<Result<Vec<_>, _>>()?;
    let disk = SrtDisk {
        number,
        disk_type,
        sector_size,
        sectors_per_track,
        tracks_per_cylinder,
        cylinders,
        rpm,
        block_major,
        character_major,
        description,
        sections,
        other: f.rest(),
    };
    // The sections and the geometry must agree: the bundled trace's sections
    // end at most at the disk's last sector ("/" ends exactly there), which
    // is the evidence that both count the same sectors.
    let end = |s: &SrtSection| s.first_sector.saturating_add(s.sectors(sector_size));
    if let Some(s) = disk.sections.iter().find(|s| end(s) > disk.sectors()) {
        return Err(Failure::new(
            line,
            format!("{sections_path}.{}.size", s.number),
            format!(
                "sectors {}..{} reach past the disk's {} sectors (nspt × ntpc × ncyl)",
                s.first_sector,
                end(s),
                disk.sectors()
            ),
        ));
    }
    Ok(disk)
}

fn section(entry: Numbered, parent: &str, sector_size: u32) -> Result<SrtSection, Failure> {
    let Numbered {
        number,
        items,
        line,
    } = entry;
    let path = format!("{parent}.{number}");
    let mut f = Fields::new(items, path.clone(), line)?;
    let name = match f.items.iter().position(|item| item.key.is_none()) {
        Some(i) => match f.items.remove(i).value {
            Value::Text(name) => name,
            other => {
                return Err(Failure::new(
                    line,
                    path,
                    format!("expected the section's quoted name, found {other}"),
                ));
            }
        },
        None => return Err(Failure::new(line, path, "the section has no name")),
    };
    let size_path = f.path("size");
    let (size, size_line) = f.required("size")?;
    let (first_sector, bytes) = match &size {
        Value::Tuple(values) if values.len() == 2 => (
            integer(&values[0], size_line, &size_path)?,
            integer(&values[1], size_line, &size_path)?,
        ),
        other => {
            return Err(Failure::new(
                size_line,
                size_path,
                format!("expected (first-sector bytes), found {other}"),
            ));
        }
    };
    if bytes == 0 || !bytes.is_multiple_of(u64::from(sector_size)) {
        return Err(Failure::new(
            size_line,
            size_path,
            format!("{bytes} bytes is not a positive whole number of {sector_size}-byte sectors"),
        ));
    }
    let block_size = f.number("blocksize")?;
    let fragment_size = f.number("fragsize")?;
    Ok(SrtSection {
        number,
        name,
        first_sector,
        bytes,
        block_size,
        fragment_size,
        other: f.rest(),
    })
}
