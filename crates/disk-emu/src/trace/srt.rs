//! HP's SRT disk traces (Ruemmler & Wilkes, "UNIX disk access patterns",
//! USENIX Winter 1993; the traces of HP-UX systems at HP Labs, 1992), as
//! DiskSim's `hpl` trace format reads them: a text header, then binary
//! records, read here one record at a time.
//!
//! # The layout, and the evidence for each unit
//! What is established here was checked against the bundled trace,
//! `ajw.1week.srt` (one week of `hplajw`, an HP 9000/845 running HP-UX
//! A.08.00, from 30 May 1992): a 2,204-byte header and 44,519 records.
//! DiskSim's reader (`disksim_iotrace.c`, record structure from HP's SRTlite
//! in `disksim_hptrace.h`) gave the field order; it was not trusted on units,
//! and it is wrong on one (below).
//!
//! **Header.** ASCII text from the magic `$$TR_IOREC-<version>` to a form
//! feed (0x0C); the first record starts at the byte after it. It names the
//! trace date and, for each traced disk, its geometry (`nspt` sectors per
//! track, `ntpc` tracks per cylinder, `ncyl` cylinders), `sectorsize`, the
//! major numbers of its block and character devices, and its sections
//! (partitions) with `size = (first-sector bytes)`. The bundled header's disk
//! is an `hp335h`: 113 × 8 × 1449 = 1,309,896 sectors of 256 bytes =
//! 335.3 MB, which is the model's name; in 512-byte sectors it would be
//! twice that. Its sections lie on the disk in 256-byte sectors: swap2 at
//! 8136 for 65,536 sectors, swap at 74,128 for 97,120, "/" at 171,760 for
//! 1,138,136, ending exactly at sector 1,309,896, the geometry's end; so the
//! reader requires every section to lie within its disk.
//! [`SrtHeader`] holds it typed.
//!
//! **Records.** A sequence of big-endian 32-bit words (byte order: the
//! length word of the first record reads 0x38 = 56 big-endian, and every
//! record of the file is 56 bytes, 2,204 + 44,519 × 56 = 2,495,268, the file's
//! size). The words, by the names of SRTlite's structure:
//!
//! | word | name | meaning |
//! |---|---|---|
//! | 0 | `length` | record length in bytes, this word included |
//! | 1 | `id` | record version (high 16 bits) and type (low 16) |
//! | 2, 3 | `sec`, `usec` | enqueue time: seconds and microseconds since the trace start |
//! | 4 | `start` | µs from enqueue until the driver started the request |
//! | 5 | `stop` | µs from enqueue until the request completed |
//! | 6 | `size` | bytes transferred |
//! | 7 | `sectno` | first sector, in the disk's `sectorsize`, from the disk's start |
//! | 8 | `devno` | HP-UX device number: major in bits 24–31, minor below |
//! | 9 | `drivertype` | the driver (4 throughout the bundled trace) |
//! | 10 | `cylno` | the cylinder of `sectno` |
//! | 11 | `ioflags` | the buffer flags of HP-UX 8.0 (the `SRT_*` constants) |
//! | 12 | `info` | where the request came from (not interpreted) |
//! | 13 | `queuelen` | (version 4 only) the driver's queue length at enqueue |
//! | last | `susflags` | (type SUSPECTIO only) why the record is suspect |
//!
//! So a record is 52 bytes, plus 4 in version 4, plus 4 for SUSPECTIO; the
//! bundled trace is all version 4, type 1 (SHORTIO): 56 bytes.
//!
//! - **Time base and resolution.** `sec`/`usec` count from `tracedate`: the
//!   first record is at 0 s 0 µs, the last at 603,064.588892 s = 6.98 days
//!   (the trace is "one week"), `usec` never reaches 10⁶ (the largest is
//!   999,911), times never decrease, and `sec` shows a 30-minute period in
//!   whole seconds (bursts at 0, 1799, 3599, 5399 s, …). Times are
//!   therefore microseconds, converted exactly to nanoseconds.
//! - **`start` and `stop`** are µs after enqueue (the header's description
//!   says the records were made from "enqueue and queuedone events"):
//!   `start ≤ stop` in every record; with nothing else queued the median
//!   `start` is 74 µs (driver overhead) and the median `stop` 24 ms, a
//!   plausible access time for a 4002-rpm disk (15 ms per revolution).
//! - **Sectors.** `sectno` counts the disk's `sectorsize` (256-byte)
//!   sectors from the start of the disk, not of the section: `cylno` equals
//!   `sectno / (nspt × ntpc)` = `sectno / 904` in all 44,519 records; every
//!   request lies inside its section's declared sectors; and every address
//!   is a multiple of 1 KB (the file systems' `fragsize`) from its section's
//!   start. DiskSim takes `sectno` for a 512-byte block number while
//!   converting `size` to 512-byte blocks, so it places this trace's
//!   requests at twice their true byte offsets; this reader converts both
//!   through bytes.
//! - **Sizes** are bytes: all are multiples of 1 KB, from 1 KB to 256 KB,
//!   with 8 KB (the root file system's `blocksize`) the most common.
//! - **Devices.** Majors 8 and 7 are the header's `blockmajor` and
//!   `charactermajor`. The minor's bits 8 and up are the header's disk
//!   number and its low 8 bits the section: the minors seen are 0x000008,
//!   0x00000e, 0x00000f (disk 0, sections 8, 14, 15) and 0x000107 (disk 1,
//!   section 7), exactly the sections the header declares, each request
//!   inside its section's bounds (DiskSim too takes the disk as bits 8–15).
//!   [`TraceRecord::device`](super::TraceRecord::device) is the disk
//!   number, since `sectno` addresses the whole disk.
//! - **Read or write** is bit 0 of `ioflags` (HP-UX's `B_READ`); DiskSim
//!   agrees. The other bits are HP-UX 8.0's buffer flags (SRTlite's table):
//!   `B_ASYNC` 0x100, `B_SYNC` 0x01000000 (set on writes only in the bundled
//!   trace), `B_PHYS` 0x10, `B_FSYSIO` 0x80000 (file-system buffer).
//!
//! # Record kinds
//! SRTlite numbers ten record types; DiskSim reads two, and so does this
//! reader. SHORTIO (1) is a completed disk request, handed out as a
//! [`TraceRecord`]. SUSPECTIO (4) has the same words plus `susflags`, marking
//! a request the tracer doubted; it is parsed and checked like a SHORTIO,
//! then set aside (as DiskSim does) and counted in
//! [`TraceReader::suspect`](super::TraceReader::suspect). Versions 1 to 3
//! lack `queuelen`. Any other version or type is an error, since its layout,
//! and so where the next record starts, is unknown.
//!
//! # Checks, and where errors point
//! Every record must: have the length its version and type imply; have
//! `usec` < 10⁶; not be earlier than the record before; have
//! `start ≤ stop`; name, in `devno`, a disk of the header through its block
//! or character major and a section the header declares for that disk; have
//! a positive `size` that is a whole number of the disk's sectors; lie inside
//! its section (and so its disk); and carry the `cylno` its `sectno` and the
//! disk's geometry imply. A failed check is
//! [`TraceError::BadSrtRecord`] (or
//! [`SrtTimeBackwards`](super::TraceError::SrtTimeBackwards)) naming the
//! record's byte offset, its number (from 1) and the field; reading goes on
//! with the next record, except after a bad `length` or `id`, where the
//! framing is lost. A file that ends inside a record is
//! [`TruncatedSrtRecord`](super::TraceError::TruncatedSrtRecord). Header
//! errors name the header line and field.
//!
//! The reader holds the parsed header and one record (at most 60 bytes) at a
//! time, and reads nothing beyond the record it hands out.

use std::io::{self, BufRead};
use std::sync::Arc;

use sched_core::{Kind, Nanos};

use super::srt_header::{SrtDisk, SrtHeader, SrtSection, read_header};
use super::{TraceError, TraceRecord};

/// SRT `ioflags` bit (HP-UX 8.0 `B_READ`): set for a read, clear for a write.
pub const SRT_READ: u32 = 0x0000_0001;
/// SRT `ioflags` bit (`B_PHYS`): a physical (raw or paging) transfer.
pub const SRT_PHYS: u32 = 0x0000_0010;
/// SRT `ioflags` bit (`B_ASYNC`): the issuer did not wait for completion.
pub const SRT_ASYNC: u32 = 0x0000_0100;
/// SRT `ioflags` bit (`B_FSYSIO`): a file-system buffer (`bread`/`bwrite`).
pub const SRT_FSYSIO: u32 = 0x0008_0000;
/// SRT `ioflags` bit (`B_SYNC`): a synchronous write.
pub const SRT_SYNC: u32 = 0x0100_0000;

/// Record type of a completed request.
const SHORT_IO: u32 = 1;
/// Record type of a request the tracer doubted.
const SUSPECT_IO: u32 = 4;
/// Bytes in a version 1–3 SHORTIO record: 13 words.
const BASE_LENGTH: usize = 52;
/// The longest record: version 4 SUSPECTIO, 15 words.
const MAX_RECORD: usize = BASE_LENGTH + 8;
/// Bytes that frame a record: `length` and `id`.
const FRAME: usize = 8;

/// What an SRT record says beyond the fields common to every format; in
/// [`TraceRecord::srt`](super::TraceRecord::srt).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SrtDetail {
    /// The record's byte offset in the file.
    pub offset: u64,
    /// The device number as traced: major in bits 24–31, minor below.
    pub devno: u32,
    /// Whether the request went through the disk's character (raw) device
    /// rather than its block device.
    pub raw: bool,
    /// First sector on the disk, in the disk's `sectorsize` bytes.
    pub sector: u64,
    /// Bytes transferred.
    pub bytes: u32,
    /// The cylinder of `sector`, as traced (checked against the geometry).
    pub cylinder: u32,
    /// Time from enqueue until the driver started the request.
    pub queue_wait: Nanos,
    /// `drivertype`, not interpreted.
    pub driver_type: u32,
    /// `info`, not interpreted.
    pub info: u32,
    /// The driver's queue length at enqueue (record version 4 only).
    pub queue_length: Option<u32>,
}

impl SrtDetail {
    /// The major device number.
    pub fn major(&self) -> u32 {
        self.devno >> 24
    }

    /// The section (partition) number: the minor's low 8 bits.
    pub fn section(&self) -> u32 {
        self.devno & 0xFF
    }
}

/// The record kinds the reader knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RecordKind {
    /// SHORTIO: a completed request.
    ShortIo,
    /// SUSPECTIO: a request the tracer doubted, set aside.
    SuspectIo,
}

/// The latest record time so far, and where it was, for time-order errors.
#[derive(Clone, Copy, Debug)]
struct Latest {
    time: Nanos,
    record: u64,
    offset: u64,
}

/// The state of an SRT reader between records.
#[derive(Debug)]
pub(super) struct SrtStream {
    header: SrtHeader,
    /// The byte offset of the next record.
    offset: u64,
    /// Records framed so far; the number of the last one.
    records: u64,
    latest: Option<Latest>,
    /// SUSPECTIO records set aside.
    suspect: u64,
    /// Set at the end of the input or after an error that loses the framing.
    done: bool,
}

/// Reads into `buf` until it is full or the input ends; returns the bytes read.
fn read_full<R: BufRead>(input: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn word(bytes: &[u8], index: usize) -> u32 {
    let at = index * 4;
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

impl SrtStream {
    /// Reads the header from the start of `input`.
    pub(super) fn open<R: BufRead>(input: &mut R, file: &Arc<str>) -> Result<Self, TraceError> {
        let header = read_header(input, file)?;
        Ok(SrtStream {
            offset: header.length,
            header,
            records: 0,
            latest: None,
            suspect: 0,
            done: false,
        })
    }

    pub(super) fn header(&self) -> &SrtHeader {
        &self.header
    }

    pub(super) fn suspect(&self) -> u64 {
        self.suspect
    }

    /// The next record and its kind, `None` at the end of the input.
    /// SUSPECTIO records that pass the checks are counted here; the caller
    /// drops them.
    pub(super) fn next_record<R: BufRead>(
        &mut self,
        input: &mut R,
        file: &Arc<str>,
        block_size: u32,
    ) -> Option<Result<(TraceRecord, RecordKind), TraceError>> {
        if self.done {
            return None;
        }
        let mut bytes = [0u8; MAX_RECORD];
        let frame = match self.frame(input, file, &mut bytes) {
            Ok(Some(frame)) => frame,
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        let result = self.decode(&bytes[..frame.length], frame, file, block_size);
        if result.is_ok() && frame.kind == RecordKind::SuspectIo {
            self.suspect += 1;
        }
        Some(result.map(|record| (record, frame.kind)))
    }

    /// Reads the next record into `bytes`, checking its `length` against the
    /// layout its `id` implies; `Ok(None)` at a clean end of the input.
    fn frame<R: BufRead>(
        &mut self,
        input: &mut R,
        file: &Arc<str>,
        bytes: &mut [u8; MAX_RECORD],
    ) -> Result<Option<Frame>, TraceError> {
        let (offset, record) = (self.offset, self.records + 1);
        let io = |source| TraceError::Io {
            file: file.clone(),
            source,
        };
        let truncated = |found: usize| TraceError::TruncatedSrtRecord {
            file: file.clone(),
            offset,
            record,
            found: found as u64,
        };
        let bad = bad_record(file, offset, record);
        let got = read_full(input, &mut bytes[..FRAME]).map_err(io)?;
        if got == 0 {
            return Ok(None);
        }
        if got < FRAME {
            return Err(truncated(got));
        }
        let (length, id) = (word(&bytes[..], 0), word(&bytes[..], 1));
        let (version, kind) = (id >> 16, id & 0xFFFF);
        if !(1..=4).contains(&version) {
            return Err(bad(
                "id",
                format!("0x{id:08x} is record version {version}; the reader knows versions 1 to 4"),
            ));
        }
        let (kind, name) = match kind {
            SHORT_IO => (RecordKind::ShortIo, "SHORTIO"),
            SUSPECT_IO => (RecordKind::SuspectIo, "SUSPECTIO"),
            other => {
                return Err(bad(
                    "id",
                    format!(
                        "0x{id:08x} is record type {other}; the reader knows types \
                         {SHORT_IO} (SHORTIO) and {SUSPECT_IO} (SUSPECTIO)"
                    ),
                ));
            }
        };
        let expected = BASE_LENGTH
            + if version == 4 { 4 } else { 0 }
            + if kind == RecordKind::SuspectIo { 4 } else { 0 };
        if u64::from(length) != expected as u64 {
            return Err(bad(
                "length",
                format!("{length} bytes, but a version {version} {name} record is {expected}"),
            ));
        }
        let more = read_full(input, &mut bytes[FRAME..expected]).map_err(io)?;
        if FRAME + more < expected {
            return Err(truncated(FRAME + more));
        }
        self.offset += expected as u64;
        self.records = record;
        Ok(Some(Frame {
            length: expected,
            version,
            kind,
        }))
    }

    /// Checks a framed record's fields against each other and the header and
    /// maps it to a [`TraceRecord`] in blocks of `block_size` bytes.
    fn decode(
        &mut self,
        bytes: &[u8],
        frame: Frame,
        file: &Arc<str>,
        block_size: u32,
    ) -> Result<TraceRecord, TraceError> {
        let record = self.records;
        let offset = self.offset - frame.length as u64;
        let bad = bad_record(file, offset, record);
        let w = |index| word(bytes, index);
        let (sec, usec) = (w(2), w(3));
        if usec >= 1_000_000 {
            return Err(bad("usec", format!("{usec} µs is a second or more")));
        }
        let time = u64::from(sec) * 1_000_000_000 + u64::from(usec) * 1_000;
        if let Some(latest) = self.latest
            && time < latest.time
        {
            return Err(TraceError::SrtTimeBackwards {
                file: file.clone(),
                offset,
                record,
                time,
                previous: latest.time,
                previous_record: latest.record,
                previous_offset: latest.offset,
            });
        }
        let (start, stop) = (w(4), w(5));
        if start > stop {
            return Err(bad(
                "stop",
                format!(
                    "the request ended {stop} µs after enqueue, before it started ({start} µs)"
                ),
            ));
        }
        let devno = w(8);
        let (disk, section, raw) = locate(&self.header, devno).map_err(|p| bad("devno", p))?;
        let size = w(6);
        let sector_size = disk.sector_size;
        if size == 0 || !size.is_multiple_of(sector_size) {
            return Err(bad(
                "size",
                format!(
                    "{size} bytes is not a positive whole number of disk {}'s \
                     {sector_size}-byte sectors",
                    disk.number
                ),
            ));
        }
        let sector = u64::from(w(7));
        let end = sector + u64::from(size / sector_size);
        // The header was checked to place every section within its disk, so
        // this cannot overflow.
        let section_end = section.first_sector + section.sectors(sector_size);
        if sector < section.first_sector || end > section_end {
            return Err(bad(
                "sectno",
                format!(
                    "sectors {sector}..{end} are not inside section {} (\"{}\", sectors {}..{}) \
                     of disk {}",
                    section.number, section.name, section.first_sector, section_end, disk.number
                ),
            ));
        }
        let cylinder = w(10);
        let on_cylinder = sector / disk.sectors_per_cylinder();
        if u64::from(cylinder) != on_cylinder {
            return Err(bad(
                "cylno",
                format!(
                    "cylinder {cylinder}, but sector {sector} is on cylinder {on_cylinder} of \
                     disk {} ({} sectors per cylinder)",
                    disk.number,
                    disk.sectors_per_cylinder()
                ),
            ));
        }
        let first_byte = sector * u64::from(sector_size);
        let block = first_byte / u64::from(block_size);
        let end_block = (first_byte + u64::from(size)).div_ceil(u64::from(block_size));
        let blocks = u32::try_from(end_block - block)
            .map_err(|_| bad("size", format!("{size} bytes is more than 2³² − 1 blocks")))?;
        let ioflags = w(11);
        let trace_record = TraceRecord {
            arrival: Some(time),
            device: disk.number,
            block,
            blocks,
            kind: if ioflags & SRT_READ != 0 {
                Kind::Read
            } else {
                Kind::Write
            },
            flags: ioflags,
            measured: None,
            response: Some(u64::from(stop) * 1_000),
            line: record,
            srt: Some(SrtDetail {
                offset,
                devno,
                raw,
                sector,
                bytes: size,
                cylinder,
                queue_wait: u64::from(start) * 1_000,
                driver_type: w(9),
                info: w(12),
                queue_length: (frame.version == 4).then(|| w(13)),
            }),
        };
        self.latest = Some(Latest {
            time,
            record,
            offset,
        });
        Ok(trace_record)
    }
}

/// The error for a bad `field` of the record at `offset`, number `record`.
fn bad_record(
    file: &Arc<str>,
    offset: u64,
    record: u64,
) -> impl Fn(&'static str, String) -> TraceError + '_ {
    move |field, problem| TraceError::BadSrtRecord {
        file: file.clone(),
        offset,
        record,
        field,
        problem,
    }
}

/// A framed record: its length, version and kind.
#[derive(Clone, Copy, Debug)]
struct Frame {
    length: usize,
    version: u32,
    kind: RecordKind,
}

/// The disk and section `devno` names, and whether through the raw device;
/// the error says why it names none.
fn locate(header: &SrtHeader, devno: u32) -> Result<(&SrtDisk, &SrtSection, bool), String> {
    let (major, minor) = (devno >> 24, devno & 0x00FF_FFFF);
    let (number, section) = (minor >> 8, minor & 0xFF);
    let disk = header.disk(number).ok_or_else(|| {
        format!(
            "0x{devno:08x} (minor 0x{minor:06x}) names disk {number}, which the header does not \
             describe"
        )
    })?;
    let raw = if major == disk.block_major {
        false
    } else if major == disk.character_major {
        true
    } else {
        return Err(format!(
            "0x{devno:08x}: major {major} is neither disk {number}'s block major {} nor its \
             character major {}",
            disk.block_major, disk.character_major
        ));
    };
    let section = disk.section(section).ok_or_else(|| {
        format!("0x{devno:08x}: the header declares no section {section} on disk {number}")
    })?;
    Ok((disk, section, raw))
}
