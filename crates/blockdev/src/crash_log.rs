//! Recording a client's writes and flushes, and building from the record
//! the crash states the flush semantics allow (the CrashMonkey and ALICE
//! method: record the block I/O of a workload once, then run the engine's
//! recovery on every state a crash could have left).
//!
//! # The log (`spindle serve --record LOG`)
//!
//! Little-endian throughout. A 32-byte header:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `SPNDLOG1` |
//! | 8..16 | export size, bytes |
//! | 16..20 | sector (the drive's block) size, bytes |
//! | 20..32 | zero |
//!
//! then one 24-byte record a request, in the order the client saw them
//! answered, followed by the data of a write: at most the data plus 24
//! bytes a request.
//!
//! | bytes | field |
//! |---|---|
//! | 0 | kind: 1 write, 2 write of zeroes, 3 flush |
//! | 1 | flags: bit 0 `FUA` |
//! | 2..4 | zero |
//! | 4..8 | length, bytes (of the data that follows, for a write) |
//! | 8..16 | offset, bytes (0 for a flush) |
//! | 16..24 | a write: its number, from 0; a flush: how many writes had been answered when it arrived (the writes it covers) |
//!
//! A write is recorded when it is answered; a flush when it is answered,
//! covering the writes answered before it arrived (NBD: a flush makes
//! durable every write completed before it was sent); a `FUA` write is
//! durable once answered. Trims are not recorded (the emulated disk
//! ignores them).
//!
//! # Crash states
//!
//! A crash state cuts the log after some record: every write up to there
//! that a flush answered before the cut covers, and every `FUA` write, is
//! durable and kept whole; the others were volatile, and a
//! [`CrashModel`] picks which of them are lost or torn at a sector
//! boundary. The image is the base image with the kept parts of the writes
//! applied in the order they were answered.

use std::io::{BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use disk_emu::Stream;
use disk_emu::faults::{CrashModel, Fate, fates, kept_blocks};
use serde::Serialize;

/// The log's magic.
pub const MAGIC: &[u8; 8] = b"SPNDLOG1";
/// Bytes of the header.
pub const HEADER_BYTES: usize = 32;
/// Bytes of a record's header.
pub const RECORD_BYTES: usize = 24;

const WRITE: u8 = 1;
const ZEROES: u8 = 2;
const FLUSH: u8 = 3;

/// What power cuts lose, and where requests are recorded: the crash-testing
/// options of a server.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrashOptions {
    /// What a power cut (the control socket's `power-cut`, a scheduled
    /// one) takes of the writes the caches hold.
    pub model: CrashModel,
    /// Seed of the crash model's draws.
    pub seed: u64,
    /// Record every answered write and flush here.
    pub record: Option<PathBuf>,
    /// Silent faults drawn per request (`--faults random:...`).
    pub silent: disk_emu::faults::SilentRates,
    /// A reproducible run: virtual time is not the wall clock's
    /// ([`crate::Engine::run_logically`]).
    pub reproducible: bool,
}

/// Why a log could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a log, or a damaged one.
    #[error("{path}: byte {at}: {what}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Where.
        at: u64,
        /// What is wrong.
        what: String,
    },
}

/// Appends a client's answered writes and flushes to a log.
pub struct LogWriter {
    out: BufWriter<std::fs::File>,
    path: PathBuf,
    writes: u64,
    bytes: u64,
}

impl LogWriter {
    /// Creates (or truncates) the log at `path` for an export of `size`
    /// bytes on sectors of `sector` bytes.
    ///
    /// # Errors
    /// [`LogError::Io`].
    pub fn create(path: &Path, size: u64, sector: u32) -> Result<LogWriter, LogError> {
        let io = |source| LogError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::create(path).map_err(io)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let mut header = [0u8; HEADER_BYTES];
        header[..8].copy_from_slice(MAGIC);
        header[8..16].copy_from_slice(&size.to_le_bytes());
        header[16..20].copy_from_slice(&sector.to_le_bytes());
        out.write_all(&header).map_err(io)?;
        Ok(LogWriter {
            out,
            path: path.to_path_buf(),
            writes: 0,
            bytes: HEADER_BYTES as u64,
        })
    }

    /// Writes answered so far.
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// Bytes in the log so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn record(&mut self, kind: u8, fua: bool, len: u32, offset: u64, seq: u64, data: &[u8]) {
        let mut h = [0u8; RECORD_BYTES];
        h[0] = kind;
        h[1] = u8::from(fua);
        h[4..8].copy_from_slice(&len.to_le_bytes());
        h[8..16].copy_from_slice(&offset.to_le_bytes());
        h[16..24].copy_from_slice(&seq.to_le_bytes());
        let done = self
            .out
            .write_all(&h)
            .and_then(|()| self.out.write_all(data));
        if let Err(e) = done {
            eprintln!("spindle serve: --record {}: {e}", self.path.display());
        }
        self.bytes += (RECORD_BYTES + data.len()) as u64;
    }

    /// A write of `data` (zeroes of `len` bytes if `None`) at `offset` was
    /// answered.
    pub fn write(&mut self, offset: u64, len: u32, data: Option<&[u8]>, fua: bool) {
        let seq = self.writes;
        self.writes += 1;
        match data {
            Some(d) => self.record(WRITE, fua, len, offset, seq, d),
            None => self.record(ZEROES, fua, len, offset, seq, &[]),
        }
    }

    /// A flush that arrived when `covers` writes had been answered was
    /// answered. The log reaches the file system then, so that a process
    /// killed later keeps it up to there.
    pub fn flush(&mut self, covers: u64) {
        self.record(FLUSH, false, 0, 0, covers, &[]);
        if let Err(e) = self.out.flush() {
            eprintln!("spindle serve: --record {}: {e}", self.path.display());
        }
    }

    /// Writes out what is buffered.
    ///
    /// # Errors
    /// [`LogError::Io`].
    pub fn finish(&mut self) -> Result<(), LogError> {
        self.out.flush().map_err(|source| LogError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// One recorded request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A write (`data: None`: of zeroes).
    Write {
        /// Its number.
        seq: u64,
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u32,
        /// With `FUA`.
        fua: bool,
        /// Where its data starts in the log (none for zeroes).
        data: Option<u64>,
    },
    /// A flush covering the writes numbered below `covers`.
    Flush {
        /// Writes it covers.
        covers: u64,
    },
}

/// A log read back.
#[derive(Debug)]
pub struct Log {
    /// Export size, bytes.
    pub size: u64,
    /// Sector size, bytes.
    pub sector: u32,
    /// The requests, in the order they were answered.
    pub entries: Vec<Entry>,
    /// Where each entry ends in the file (for matching with what a client
    /// saw: the log's size when it was answered).
    pub ends: Vec<u64>,
    bytes: Vec<u8>,
}

impl Log {
    /// Reads the log at `path`. A record cut short at the end (a server
    /// killed while writing it) is dropped.
    ///
    /// # Errors
    /// [`LogError`]: unreadable, not a log, a record of no known kind.
    pub fn read(path: &Path) -> Result<Log, LogError> {
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|source| LogError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        let bad = |at: usize, what: &str| LogError::Format {
            path: path.to_path_buf(),
            at: at as u64,
            what: what.to_string(),
        };
        if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
            return Err(bad(0, "not a spindle record log (no SPNDLOG1 header)"));
        }
        let word =
            |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
        let size = word(&bytes, 8);
        let sector = u32::from_le_bytes(bytes[16..20].try_into().unwrap_or([0; 4]));
        if sector == 0 || size == 0 {
            return Err(bad(8, "an export of no bytes or sectors of none"));
        }
        let (mut entries, mut ends) = (Vec::new(), Vec::new());
        let mut at = HEADER_BYTES;
        let mut writes = 0u64;
        while at + RECORD_BYTES <= bytes.len() {
            let h = &bytes[at..at + RECORD_BYTES];
            let len = u32::from_le_bytes(h[4..8].try_into().unwrap_or([0; 4]));
            let (offset, seq) = (word(h, 8), word(h, 16));
            let fua = h[1] & 1 == 1;
            let mut end = at + RECORD_BYTES;
            let entry = match h[0] {
                WRITE | ZEROES => {
                    if offset.saturating_add(u64::from(len)) > size {
                        return Err(bad(at, "a write past the end of the export"));
                    }
                    if seq != writes {
                        return Err(bad(at, &format!("write number {seq}, expected {writes}")));
                    }
                    writes += 1;
                    let data = (h[0] == WRITE).then_some(end as u64);
                    if h[0] == WRITE {
                        end += len as usize;
                    }
                    Entry::Write {
                        seq,
                        offset,
                        len,
                        fua,
                        data,
                    }
                }
                FLUSH => Entry::Flush {
                    covers: seq.min(writes),
                },
                k => return Err(bad(at, &format!("record kind {k}, expected 1, 2 or 3"))),
            };
            if end > bytes.len() {
                break;
            }
            entries.push(entry);
            ends.push(end as u64);
            at = end;
        }
        Ok(Log {
            size,
            sector,
            entries,
            ends,
            bytes,
        })
    }

    /// The data of a write recorded at `data`, `len` bytes.
    fn data(&self, data: u64, len: u32) -> &[u8] {
        &self.bytes[data as usize..data as usize + len as usize]
    }
}

/// What one crash state did to the volatile writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CrashState {
    /// Entries of the log before the cut.
    pub cut_after: usize,
    /// Where the cut falls in the log file: a client that saw the log this
    /// long when its write or flush was answered saw it answered before the
    /// crash.
    pub cut_at_byte: u64,
    /// Writes before the cut.
    pub writes: u64,
    /// Of those, the ones not yet durable.
    pub volatile: Vec<u64>,
    /// The volatile writes lost, by number.
    pub lost: Vec<u64>,
    /// The volatile writes torn: (number, sectors kept, sectors).
    pub torn: Vec<(u64, u64, u64)>,
}

/// Draws `count` crash states of `log` under `model` from `seed`: the same
/// seed gives the same states.
pub fn crash_states(log: &Log, model: CrashModel, count: usize, seed: u64) -> Vec<CrashState> {
    let mut rng = Stream::numbered(seed);
    (0..count)
        .map(|_| {
            let cut = rng.below(log.entries.len() as u64 + 1) as usize;
            state_at(log, cut, model, &mut rng)
        })
        .collect()
}

/// The crash state after the first `cut` entries, `model` drawing from
/// `rng`.
pub fn state_at(log: &Log, cut: usize, model: CrashModel, rng: &mut Stream) -> CrashState {
    let before = &log.entries[..cut];
    let covered = before
        .iter()
        .filter_map(|e| match e {
            Entry::Flush { covers } => Some(*covers),
            Entry::Write { .. } => None,
        })
        .max()
        .unwrap_or(0);
    let sector = u64::from(log.sector);
    let mut volatile = Vec::new();
    let mut blocks: Vec<Range<u64>> = Vec::new();
    let mut writes = 0;
    for e in before {
        if let Entry::Write {
            seq,
            offset,
            len,
            fua,
            ..
        } = *e
        {
            writes += 1;
            if seq >= covered && !fua {
                volatile.push(seq);
                blocks.push(offset / sector..(offset + u64::from(len)).div_ceil(sector));
            }
        }
    }
    let fate = fates(model, &blocks, rng);
    let mut state = CrashState {
        cut_after: cut,
        cut_at_byte: if cut == 0 {
            HEADER_BYTES as u64
        } else {
            log.ends[cut - 1]
        },
        writes,
        volatile: volatile.clone(),
        lost: Vec::new(),
        torn: Vec::new(),
    };
    for ((seq, b), f) in volatile.iter().zip(&blocks).zip(&fate) {
        match *f {
            Fate::Kept => {}
            Fate::Lost => state.lost.push(*seq),
            Fate::Torn { kept_blocks } => state.torn.push((*seq, kept_blocks, b.end - b.start)),
        }
    }
    state
}

/// Builds the image of `state`: `base` (the export's bytes before the
/// log's first write) with the kept parts of the writes before the cut
/// applied in order.
pub fn build_image(log: &Log, state: &CrashState, base: &mut [u8]) {
    let sector = u64::from(log.sector);
    for e in &log.entries[..state.cut_after] {
        let Entry::Write {
            seq,
            offset,
            len,
            data,
            ..
        } = *e
        else {
            continue;
        };
        let fate = if state.lost.contains(&seq) {
            Fate::Lost
        } else if let Some(&(_, kept, _)) = state.torn.iter().find(|t| t.0 == seq) {
            Fate::Torn { kept_blocks: kept }
        } else {
            Fate::Kept
        };
        let end = offset + u64::from(len);
        let blocks = offset / sector..end.div_ceil(sector);
        let kept = kept_blocks(&blocks, fate);
        let kept_to = (kept.end * sector).clamp(offset, end);
        if kept.is_empty() || kept_to == offset {
            continue;
        }
        let n = (kept_to - offset) as usize;
        let target = &mut base[offset as usize..offset as usize + n];
        match data {
            Some(at) => target.copy_from_slice(&log.data(at, len)[..n]),
            None => target.fill(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(dir: &Path) -> PathBuf {
        let path = dir.join("log");
        let mut w = LogWriter::create(&path, 8192, 512).unwrap();
        w.write(0, 1024, Some(&[1u8; 1024]), false); // 0
        w.flush(1);
        w.write(1024, 1536, Some(&[2u8; 1536]), false); // 1: volatile, 3 sectors
        w.write(4096, 512, None, true); // 2: FUA
        w.write(0, 512, Some(&[3u8; 512]), false); // 3: volatile
        w.finish().unwrap();
        path
    }

    #[test]
    fn a_log_reads_back_as_written_and_a_torn_tail_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = sample(dir.path());
        let log = Log::read(&path).unwrap();
        assert_eq!((log.size, log.sector, log.entries.len()), (8192, 512, 5));
        assert_eq!(log.entries[1], Entry::Flush { covers: 1 });
        // At most the data plus 24 bytes a request.
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(len, 32 + 5 * 24 + 1024 + 1536 + 512);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
        assert_eq!(Log::read(&path).unwrap().entries.len(), 4);
        std::fs::write(&path, b"not a log at all, not at all, no.").unwrap();
        assert!(
            Log::read(&path)
                .unwrap_err()
                .to_string()
                .contains("SPNDLOG1")
        );
    }

    #[test]
    fn only_volatile_writes_are_lost_or_torn_and_torn_at_a_sector() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::read(&sample(dir.path())).unwrap();
        let mut rng = Stream::numbered(5);
        let mut torn_seen = 0;
        for _ in 0..200 {
            let s = state_at(&log, 5, CrashModel::Torn, &mut rng);
            assert_eq!(s.volatile, [1, 3]);
            let mut image = vec![9u8; 8192];
            build_image(&log, &s, &mut image);
            // The flushed write and the FUA write are always there.
            assert!(image[512..1024].iter().all(|&b| b == 1));
            assert!(image[4096..4608].iter().all(|&b| b == 0));
            // Write 3 over write 0's first sector: one or the other.
            assert!(image[..512].iter().all(|&b| b == 1) || image[..512].iter().all(|&b| b == 3));
            // Write 1: whole sectors of it, from its start.
            let sectors = image[1024..2560]
                .chunks(512)
                .map(|c| {
                    assert!(c.iter().all(|&b| b == c[0]), "a sector is atomic");
                    c[0]
                })
                .collect::<Vec<_>>();
            let kept = sectors.iter().take_while(|&&b| b == 2).count();
            assert!(sectors[kept..].iter().all(|&b| b == 9), "{sectors:?}");
            if let Some(&(1, k, 3)) = s.torn.first() {
                assert_eq!(kept as u64, k);
                torn_seen += 1;
            }
        }
        assert!(torn_seen > 20, "{torn_seen}");
    }
}
