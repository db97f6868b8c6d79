//! Tests of the SRT reader: the bundled `ajw.1week.srt` end to end (figures
//! cross-checked against a tally of the raw bytes), synthetic files, every
//! truncation, hand-made corruptions with their exact errors, seeded fuzzing
//! of headers and records, and streaming in constant memory.

use std::cell::Cell;
use std::io::{BufRead, Cursor, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use sched_core::Kind;

use super::*;
use crate::Stream;

/// The bundled trace, from the shared data directory.
fn bundled() -> PathBuf {
    shared_data::disksim_file("ajw.1week.srt")
}

fn bundled_bytes() -> Vec<u8> {
    std::fs::read(bundled()).expect("the bundled SRT trace")
}

/// The bundled trace's header length, form feed included.
const HEADER: usize = 2_204;
/// Bytes in each of its records (version 4 SHORTIO).
const RECORD: usize = 56;

/// Every item a reader yields for `bytes`, or the header error.
fn read_all(
    bytes: &[u8],
    options: TraceOptions,
) -> Result<Vec<Result<TraceRecord, TraceError>>, TraceError> {
    Ok(TraceReader::new(Cursor::new(bytes), "fixture.srt", TraceFormat::Srt, options)?.collect())
}

fn big_endian(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn word_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap())
}

// ---------------------------------------------------------- the bundled file

/// Figures of `ajw.1week.srt` tallied straight from the bytes, without the
/// reader or the header: records start after the first form feed and are 56
/// bytes each; words are big-endian; bit 0 of word 11 is a read; the disk is
/// bits 8–15 of word 8; the time is word 2 s + word 3 µs.
#[derive(Debug, Default, PartialEq, Eq)]
struct RawTally {
    records: u64,
    reads: u64,
    per_disk: std::collections::BTreeMap<u32, (u64, u64)>,
    per_devno: std::collections::BTreeMap<u32, u64>,
    last_time_ns: u64,
    total_bytes: u64,
}

fn raw_tally(bytes: &[u8]) -> RawTally {
    let start = bytes.iter().position(|&b| b == 0x0C).unwrap() + 1;
    let mut tally = RawTally::default();
    for record in bytes[start..].chunks(RECORD) {
        let w = |i: usize| word_at(record, 4 * i);
        tally.records += 1;
        let read = w(11) & 1 == 1;
        tally.reads += u64::from(read);
        let disk = tally.per_disk.entry((w(8) >> 8) & 0xFF).or_default();
        disk.0 += u64::from(read);
        disk.1 += u64::from(!read);
        *tally.per_devno.entry(w(8)).or_default() += 1;
        tally.last_time_ns = u64::from(w(2)) * 1_000_000_000 + u64::from(w(3)) * 1_000;
        tally.total_bytes += u64::from(w(6));
    }
    tally
}

/// The figures `spindle trace-info` prints for the bundled trace.
///
/// The constants were computed independently with a short Python script over
/// the raw bytes (`struct.unpack('>14I', …)` on each 56-byte record after the
/// form feed at byte 2,203: 44,519 records, bit 0 of `ioflags` set in 13,040,
/// disk `(devno >> 8) & 0xFF`, last time 603,064 s + 588,892 µs, smallest
/// `sectno` × 256 / 512 = 180, largest (`sectno` × 256 + `size`) / 512 =
/// 654,056), and are checked again here against [`raw_tally`].
#[test]
fn bundled_trace_figures() {
    let profile = open(bundled(), None, TraceOptions::default())
        .unwrap()
        .profile()
        .unwrap();
    assert_eq!(profile.format, TraceFormat::Srt);
    assert_eq!(
        profile.summary,
        TraceSummary {
            records: 44_519,
            reads: 13_040,
            writes: 31_479,
            filtered: 0,
            suspect: 0,
            lowest_block: Some(180),
            end_block: Some(654_056),
            earliest_arrival: Some(0),
            latest_arrival: Some(603_064_588_892_000),
            measured_time: 0,
        }
    );
    assert_eq!(profile.summary.duration(), 603_064_588_892_000);
    let per_device: Vec<(u32, u64, u64, u64)> = profile
        .devices
        .iter()
        .map(|(&d, s)| (d, s.records, s.reads, s.writes))
        .collect();
    assert_eq!(
        per_device,
        [(0, 42_252, 10_887, 31_365), (1, 2_267, 2_153, 114)]
    );
    let per_devno: Vec<(u32, u64, u64)> = profile
        .srt_devices
        .iter()
        .map(|(&d, s)| (d, s.reads, s.writes))
        .collect();
    assert_eq!(
        per_devno,
        [
            (0x0700_0008, 1, 1),
            (0x0800_0008, 9_155, 31_138),
            (0x0800_000e, 942, 113),
            (0x0800_000f, 789, 113),
            (0x0800_0107, 2_153, 114),
        ]
    );
    // Sizes in 512-byte blocks: 1 KB to 256 KB, 8 KB (16 blocks) the mode.
    assert_eq!(profile.sizes.len(), 36);
    assert_eq!(profile.sizes[&2], 5_071);
    assert_eq!(profile.sizes[&4], 9_191);
    assert_eq!(profile.sizes[&16], 26_790);
    assert_eq!(profile.sizes[&512], 1);
    let quantiles: Vec<Option<u32>> = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0]
        .iter()
        .map(|&q| profile.size_quantile(q))
        .collect();
    assert_eq!(quantiles, [2, 2, 4, 16, 16, 16, 16, 512].map(Some).to_vec());
    let header = profile.srt_header.as_ref().unwrap();
    assert!(header.disks.iter().all(|d| d.sector_size == 256));

    let raw = raw_tally(&bundled_bytes());
    assert_eq!(raw.records, profile.summary.records);
    assert_eq!(raw.reads, profile.summary.reads);
    assert_eq!(Some(raw.last_time_ns), profile.summary.latest_arrival);
    for (disk, (reads, writes)) in &raw.per_disk {
        let s = &profile.devices[disk];
        assert_eq!((s.reads, s.writes), (*reads, *writes), "disk {disk}");
    }
    let devnos: Vec<(u32, u64)> = profile
        .srt_devices
        .iter()
        .map(|(&d, s)| (d, s.records))
        .collect();
    assert_eq!(devnos, raw.per_devno.into_iter().collect::<Vec<_>>());
    // 263,305,216 bytes, all whole 512-byte blocks.
    let blocks: u64 = profile.sizes.iter().map(|(&b, &n)| u64::from(b) * n).sum();
    assert_eq!(raw.total_bytes, 263_305_216);
    assert_eq!(blocks * 512, raw.total_bytes);
}

#[test]
fn bundled_header_is_typed() {
    let reader = open(bundled(), None, TraceOptions::default()).unwrap();
    let h = reader.srt_header().unwrap();
    assert_eq!(h.format_version, "1.3");
    assert_eq!(h.format_note, "(IOAdaptor Upgrade Version)");
    assert_eq!(h.trace_date.to_string(), "1992-05-30 00:03:06");
    assert_eq!(h.system.as_deref(), Some("hplajw.hpl.hp.com"));
    assert_eq!(h.machine_type.as_deref(), Some("9000/845"));
    assert_eq!(h.os_version.as_deref(), Some("HP-UX A.08.00 U"));
    assert_eq!(h.length, HEADER as u64);
    assert!(h.other.contains(&("version".into(), "1.3".into())));
    assert!(h.other.contains(&("physmem".into(), "33554432".into())));
    assert_eq!(h.disks.len(), 2);
    let d0 = &h.disks[0];
    assert_eq!(
        (d0.number, d0.disk_type.as_deref(), d0.sector_size),
        (0, Some("hp335h"), 256)
    );
    assert_eq!(
        (
            d0.sectors_per_track,
            d0.tracks_per_cylinder,
            d0.cylinders,
            d0.rpm
        ),
        (113, 8, 1449, Some(4002))
    );
    assert_eq!((d0.block_major, d0.character_major), (8, 7));
    assert_eq!(d0.sectors(), 1_309_896);
    assert!(d0.other.contains(&(
        "seekparms".into(),
        "{ 616, 3450, 597, 10840, 12, 2500 }".into()
    )));
    assert!(
        d0.other
            .contains(&("adaptor".into(), "1 -> { hp_ib, 1.2, 250 }".into()))
    );
    let sections: Vec<(u32, &str, u64, u64)> = d0
        .sections
        .iter()
        .map(|s| (s.number, s.name.as_str(), s.first_sector, s.sectors(256)))
        .collect();
    assert_eq!(
        sections,
        [
            (8, "/", 171_760, 1_138_136),
            (14, "<swap>", 74_128, 97_120),
            (15, "<swap2>", 8_136, 65_536),
        ]
    );
    assert_eq!(d0.sections[0].block_size, Some(8192));
    assert_eq!(d0.sections[0].fragment_size, Some(1024));
    assert_eq!(
        d0.sections[1].other,
        [("swap".to_string(), "(0 24862720)".to_string())]
    );
    let d1 = h.disk(1).unwrap();
    assert_eq!(d1.sections.len(), 1);
    assert_eq!(
        (
            d1.sections[0].number,
            d1.sections[0].first_sector,
            d1.sections[0].bytes
        ),
        (7, 0, 43_970_560)
    );
}

#[test]
fn bundled_first_and_last_records() {
    let all: Vec<TraceRecord> = open(bundled(), None, TraceOptions::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // 00000038 00040001 00000000 00000000 000000ae 00004ce7 00001000
    // 00000420 08000107 00000004 00000001 0000001b 00070000 00000001
    assert_eq!(
        all[0],
        TraceRecord {
            arrival: Some(0),
            device: 1,
            block: 528,
            blocks: 8,
            kind: Kind::Read,
            flags: 0x1b,
            measured: None,
            response: Some(19_687_000),
            line: 1,
            srt: Some(SrtDetail {
                offset: 2_204,
                devno: 0x0800_0107,
                raw: false,
                sector: 1_056,
                bytes: 4_096,
                cylinder: 1,
                queue_wait: 174_000,
                driver_type: 4,
                info: 0x0007_0000,
                queue_length: Some(1),
            }),
        }
    );
    assert_eq!(
        all[0].position(),
        Position::Record {
            number: 1,
            offset: 2_204
        }
    );
    // 00000038 00040001 000933b8 0008fc5c 00007d3c 0000f0af 00002000
    // 000a48f0 08000008 00000004 000002e9 0008810a 0022000f 00000002
    let last = all[44_518];
    assert_eq!(last.arrival, Some(603_064_588_892_000));
    assert_eq!((last.device, last.block, last.blocks), (0, 337_016, 16));
    assert_eq!(last.kind, Kind::Write);
    assert_eq!(last.flags, SRT_FSYSIO | 0x8000 | SRT_ASYNC | 0xa);
    assert_eq!(last.response, Some(61_615_000));
    let detail = last.srt.unwrap();
    assert_eq!(
        (detail.offset, detail.section(), detail.major()),
        (2_495_212, 8, 8)
    );
    assert_eq!(
        (detail.cylinder, detail.queue_wait, detail.queue_length),
        (745, 32_060_000, Some(2))
    );
    // The two records through the raw device (major 7): a read and a write
    // of the root file system's superblock, 8 KB at byte 8192 of section 8.
    let raw: Vec<&TraceRecord> = all.iter().filter(|r| r.srt.unwrap().raw).collect();
    assert_eq!(raw.len(), 2);
    assert!(raw.iter().all(|r| r.srt.unwrap().sector == 171_760 + 32));
}

#[test]
fn detection_by_magic_and_extension() {
    let magic = "$$TR_IOREC-1.3 (IOAdaptor Upgrade Version)\0";
    assert_eq!(
        TraceFormat::detect(Path::new("x.trace"), &[magic]),
        Some(TraceFormat::Srt)
    );
    assert_eq!(
        TraceFormat::detect(Path::new("x.SRT"), &["\u{fffd}"]),
        Some(TraceFormat::Srt)
    );
    assert_eq!("srt".parse::<TraceFormat>(), Ok(TraceFormat::Srt));
    assert_eq!("HPL".parse::<TraceFormat>(), Ok(TraceFormat::Srt));
    assert_eq!(TraceFormat::Srt.to_string(), "srt");
    // A copy of the bundled file under a name that says nothing is still SRT.
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("anonymous.dat");
    std::fs::write(&copy, &bundled_bytes()[..HEADER + 3 * RECORD]).unwrap();
    let reader = open(&copy, None, TraceOptions::default()).unwrap();
    assert_eq!(reader.format(), TraceFormat::Srt);
    assert_eq!(reader.count(), 3);
}

// ---------------------------------------------------------------- streaming

/// A `BufRead` over bytes that hands out at most `chunk` bytes at a time and
/// publishes how many bytes its user has consumed.
struct Metered {
    data: Vec<u8>,
    chunk: usize,
    consumed: Rc<Cell<usize>>,
}

impl Metered {
    fn available(&self) -> &[u8] {
        let pos = self.consumed.get();
        &self.data[pos..pos.saturating_add(self.chunk).min(self.data.len())]
    }
}

impl Read for Metered {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.available().len().min(buf.len());
        buf[..n].copy_from_slice(&self.available()[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Metered {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(self.available())
    }

    fn consume(&mut self, n: usize) {
        self.consumed.set(self.consumed.get() + n);
    }
}

/// The reader never reads ahead of the record it hands out, so it cannot be
/// holding the file: after the header it has consumed exactly the header, and
/// after each record exactly up to that record's end, whatever the size of
/// the pieces the input comes in.
#[test]
fn reads_nothing_beyond_the_record_it_hands_out() {
    let bytes = bundled_bytes();
    for chunk in [1, 7, 56, 4096, usize::MAX] {
        let consumed = Rc::new(Cell::new(0));
        let input = Metered {
            data: bytes.clone(),
            chunk,
            consumed: consumed.clone(),
        };
        let mut reader =
            TraceReader::new(input, "metered", TraceFormat::Srt, TraceOptions::default()).unwrap();
        assert_eq!(consumed.get(), HEADER, "chunk {chunk}");
        let mut records = 0;
        for record in reader.by_ref() {
            let offset = record.unwrap().srt.unwrap().offset as usize;
            assert_eq!(consumed.get(), offset + RECORD, "chunk {chunk}");
            records += 1;
        }
        assert_eq!(records, 44_519);
        assert_eq!(consumed.get(), bytes.len());
    }
}

// -------------------------------------------------------- synthetic files

/// A one-disk header in the bundled trace's units: two sections, 256-byte
/// sectors, 904 sectors per cylinder.
const SMALL_HEADER: &str = "$$TR_IOREC-1.3 (test)
tracedate = \"Sat May 30 00:03:06 1992\";
system = \"test\";
disks = {
    0 -> {
        disktype = hp335h,
        nspt = 113, ntpc = 8, ncyl = 1449,
        sectorsize = 256,
        blockmajor = 8, charactermajor = 7,
        sections = {
            8 -> { \"/\", size = (171760 291362816), blocksize = 8192 },
            14 -> { \"<swap>\", size = (74128 24862720) }
        }
    }
};
\x0c";

/// A version 4 SHORTIO record on disk 0: time `sec` s `usec` µs, `bytes` at
/// `sector` of section `section`, the cylinder from the geometry.
fn record(sec: u32, usec: u32, section: u32, sector: u32, bytes: u32, flags: u32) -> Vec<u32> {
    vec![
        56,
        0x0004_0001,
        sec,
        usec,
        100,
        20_000,
        bytes,
        sector,
        0x0800_0000 | section,
        4,
        sector / 904,
        flags,
        0,
        1,
    ]
}

fn small_file(records: &[Vec<u32>]) -> Vec<u8> {
    let mut bytes = SMALL_HEADER.as_bytes().to_vec();
    for r in records {
        bytes.extend(big_endian(r));
    }
    bytes
}

fn three_records() -> Vec<Vec<u32>> {
    vec![
        record(0, 5, 8, 171_792, 8192, 0x0008_000b),
        record(0, 5, 14, 74_204, 2048, 0x0020_001a),
        record(12, 999_999, 8, 1_000_000, 1024, SRT_SYNC | 0x0008_000a),
    ]
}

#[test]
fn synthetic_records_map_to_blocks_of_any_size() {
    let file = small_file(&three_records());
    let all: Vec<TraceRecord> = read_all(&file, TraceOptions::default())
        .unwrap()
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    let header_length = SMALL_HEADER.len() as u64;
    let summary: Vec<_> = all
        .iter()
        .map(|r| (r.arrival, r.block, r.blocks, r.kind, r.srt.unwrap().offset))
        .collect();
    assert_eq!(
        summary,
        [
            (Some(5_000), 85_896, 16, Kind::Read, header_length),
            (Some(5_000), 37_102, 4, Kind::Write, header_length + 56),
            (
                Some(12_999_999_000),
                500_000,
                2,
                Kind::Write,
                header_length + 112
            ),
        ]
    );
    // In 4096-byte blocks, rounded outward: sector 74,204 is byte
    // 18,996,224 = block 4637 + 3,072 bytes, so 2 KB spans blocks 4637–4638.
    let options = TraceOptions {
        block_size: 4096,
        ..TraceOptions::default()
    };
    let coarse: Vec<(u64, u32)> = read_all(&file, options)
        .unwrap()
        .into_iter()
        .map(|r| r.map(|r| (r.block, r.blocks)).unwrap())
        .collect();
    assert_eq!(coarse, [(10_737, 2), (4_637, 2), (62_500, 1)]);
}

#[test]
fn device_filter_and_summary_apply_to_srt() {
    let mut records = three_records();
    let mut other_disk = record(13, 0, 8, 171_760, 1024, 1);
    other_disk[8] = 0x0800_0108;
    records.push(other_disk);
    let header = SMALL_HEADER.replace(
        "\n};\n",
        "\n    , 1 -> { nspt = 113, ntpc = 8, ncyl = 1449, sectorsize = 256, blockmajor = 8, \
         charactermajor = 7, sections = { 8 -> { \"/\", size = (171760 1024) } } }\n};\n",
    );
    let mut file = header.into_bytes();
    for r in &records {
        file.extend(big_endian(r));
    }
    let options = TraceOptions {
        devices: Some(vec![1]),
        ..TraceOptions::default()
    };
    let mut reader = TraceReader::new(Cursor::new(&file), "f", TraceFormat::Srt, options).unwrap();
    let kept: Vec<TraceRecord> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].device, kept[0].kind), (1, Kind::Read));
    assert_eq!(reader.filtered(), 3);
    let summary = TraceReader::new(
        Cursor::new(&file),
        "f",
        TraceFormat::Srt,
        TraceOptions::default(),
    )
    .unwrap()
    .summarize()
    .unwrap();
    assert_eq!((summary.records, summary.reads, summary.writes), (4, 2, 2));
}

#[test]
fn suspect_records_are_checked_counted_and_set_aside() {
    let mut suspect = record(1, 0, 8, 171_760, 1024, 1);
    suspect[0] = 60;
    suspect[1] = 0x0004_0004;
    suspect.push(0x1);
    let mut version_one = record(2, 0, 8, 171_760, 1024, 1);
    version_one.truncate(13);
    version_one[0] = 52;
    version_one[1] = 0x0001_0001;
    let file = small_file(&[suspect.clone(), version_one]);
    let mut reader = TraceReader::new(
        Cursor::new(&file),
        "f",
        TraceFormat::Srt,
        TraceOptions::default(),
    )
    .unwrap();
    let all: Vec<TraceRecord> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(
        all[0].line, 2,
        "records are numbered in file order, suspect ones included"
    );
    assert_eq!(all[0].srt.unwrap().queue_length, None);
    assert_eq!(reader.suspect(), 1);
    // A suspect record with a bad field is still an error.
    suspect[10] = 7;
    let items = read_all(&small_file(&[suspect]), TraceOptions::default()).unwrap();
    assert!(matches!(
        &items[..],
        [Err(TraceError::BadSrtRecord {
            field: "cylno",
            record: 1,
            ..
        })]
    ));
}

/// Cutting a file anywhere gives a header error naming the last line when
/// the cut is in the header, and otherwise the whole records before the cut
/// and then, if the cut is inside a record, one `TruncatedSrtRecord` naming
/// that record's offset and how much of it is there.
fn assert_every_cut(file: &[u8], header: usize, cuts: std::ops::Range<usize>) {
    for cut in cuts {
        let bytes = &file[..cut];
        match read_all(bytes, TraceOptions::default()) {
            Err(TraceError::BadSrtHeader { line, field, .. }) => {
                assert!(cut < header, "cut {cut}");
                assert_eq!(field, "header", "cut {cut}");
                let lines = 1 + bytes.iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(line, lines, "cut {cut}");
            }
            Err(other) => panic!("cut {cut}: {other}"),
            Ok(items) => {
                assert!(cut >= header, "cut {cut}");
                let whole = (cut - header) / RECORD;
                let part = (cut - header) % RECORD;
                assert_eq!(items.len(), whole + usize::from(part > 0), "cut {cut}");
                assert!(items[..whole].iter().all(Result::is_ok), "cut {cut}");
                if part > 0 {
                    match &items[whole] {
                        Err(TraceError::TruncatedSrtRecord {
                            offset,
                            record,
                            found,
                            ..
                        }) => {
                            assert_eq!(*offset as usize, header + whole * RECORD, "cut {cut}");
                            assert_eq!(*record as usize, whole + 1, "cut {cut}");
                            assert_eq!(*found as usize, part, "cut {cut}");
                        }
                        other => panic!("cut {cut}: {other:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn every_cut_of_a_synthetic_file() {
    let file = small_file(&three_records());
    assert_every_cut(&file, SMALL_HEADER.len(), 0..file.len() + 1);
}

#[test]
fn every_cut_of_the_bundled_header_and_first_records() {
    let file = bundled_bytes();
    assert_every_cut(&file, HEADER, 0..HEADER + 30 * RECORD + 1);
}

// ------------------------------------------------------ corrupted records

/// The bundled file's header and first `n` records, with `edit` applied to
/// the words of record `k` (counting from 0).
fn edited(n: usize, k: usize, edit: impl FnOnce(&mut [u32])) -> Vec<u8> {
    let file = bundled_bytes();
    let start = HEADER + k * RECORD;
    let mut words: Vec<u32> = (0..14).map(|i| word_at(&file, start + 4 * i)).collect();
    edit(&mut words);
    let mut out = file[..HEADER + n * RECORD].to_vec();
    out[start..start + RECORD].copy_from_slice(&big_endian(&words));
    out
}

/// Asserts that record `k` of an edited file is the first error, a
/// `BadSrtRecord` on `field`, whose message holds `says`, and returns all
/// items.
fn assert_bad(
    file: &[u8],
    k: usize,
    field: &str,
    says: &str,
) -> Vec<Result<TraceRecord, TraceError>> {
    let items = read_all(file, TraceOptions::default()).unwrap();
    assert!(items[..k].iter().all(Result::is_ok));
    match &items[k] {
        Err(
            e @ TraceError::BadSrtRecord {
                offset,
                record,
                field: f,
                ..
            },
        ) => {
            assert_eq!(*offset as usize, HEADER + k * RECORD);
            assert_eq!(*record as usize, k + 1);
            assert_eq!(*f, field);
            let message = e.to_string();
            assert!(message.contains(says), "{message}");
            assert!(
                message.starts_with(&format!(
                    "fixture.srt: record {} at byte {}",
                    k + 1,
                    HEADER + k * RECORD
                )),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    items
}

#[test]
fn each_record_check_names_the_record_and_field() {
    // Framing errors end the reading.
    let items = assert_bad(&edited(8, 3, |w| w[0] = 60), 3, "length", "60 bytes");
    assert_eq!(items.len(), 4);
    let items = assert_bad(
        &edited(8, 3, |w| w[1] = 0x0004_0002),
        3,
        "id",
        "record type 2",
    );
    assert_eq!(items.len(), 4);
    assert_bad(
        &edited(8, 3, |w| w[1] = 0x0005_0001),
        3,
        "id",
        "record version 5",
    );
    // Value errors leave the framing intact: the next records still come.
    let check = |k, field, says, edit: fn(&mut [u32])| {
        let items = assert_bad(&edited(8, k, edit), k, field, says);
        assert_eq!(items.len(), 8);
        assert!(items[k + 1..].iter().all(Result::is_ok));
    };
    check(3, "usec", "1000000 µs", |w| w[3] = 1_000_000);
    check(3, "stop", "before it started", |w| w[4] = w[5] + 1);
    check(3, "devno", "names disk 2", |w| w[8] = 0x0800_0207);
    check(3, "devno", "major 9", |w| w[8] = 0x0900_0107);
    check(3, "devno", "no section 9 on disk 1", |w| w[8] = 0x0800_0109);
    check(3, "size", "1000 bytes", |w| w[6] = 1000);
    check(3, "size", "0 bytes", |w| w[6] = 0);
    check(3, "sectno", "not inside section 7", |w| {
        w[7] = 171_760;
        w[10] = 190;
    });
    check(3, "cylno", "cylinder 2, but sector", |w| w[10] = 2);
    // Section 14 of disk 0 lies in sectors 74,128..171,248: sector 9,000 is
    // in section 15, not 14.
    check(4, "sectno", "section 14", |w| {
        w[7] = 9_000;
        w[10] = 9;
    });
}

#[test]
fn a_record_earlier_than_the_one_before_names_both() {
    // Records 5 and 6 are at 30 s; move record 7 (1799 s) to 29 s.
    let file = edited(10, 7, |w| w[2] = 29);
    let items = read_all(&file, TraceOptions::default()).unwrap();
    match &items[7] {
        Err(
            e @ TraceError::SrtTimeBackwards {
                offset,
                record,
                time,
                previous_record,
                previous_offset,
                ..
            },
        ) => {
            assert_eq!((*offset as usize, *record), (HEADER + 7 * RECORD, 8));
            assert_eq!(*time, 29_000_000_000 + 0x0007_7bb0 * 1_000);
            assert_eq!(
                (*previous_record, *previous_offset as usize),
                (7, HEADER + 6 * RECORD)
            );
            assert!(e.to_string().contains("field \"sec\""), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // A bad record does not move the time order: record 9 is compared with
    // record 7, not with the rejected one.
    assert!(items[8..].iter().all(Result::is_ok));
    assert_eq!(items.len(), 10);
}

// -------------------------------------------------------- corrupted headers

/// The first error reading the bundled file with the first `from` of its
/// header replaced by `to`.
fn header_error(from: &str, to: &str) -> TraceError {
    let file = bundled_bytes();
    let header = String::from_utf8(file[..HEADER].to_vec()).unwrap();
    assert!(header.contains(from), "{from}");
    let mut bytes = header.replacen(from, to, 1).into_bytes();
    bytes.extend_from_slice(&file[HEADER..]);
    match read_all(&bytes, TraceOptions::default()) {
        Err(e) => e,
        Ok(items) => items.into_iter().find_map(Result::err).expect("an error"),
    }
}

fn assert_header(e: TraceError, want_line: u64, want_field: &str, says: &str) {
    match &e {
        TraceError::BadSrtHeader { line, field, .. } => {
            assert_eq!((*line, field.as_str()), (want_line, want_field), "{e}");
            let message = e.to_string();
            assert!(message.contains(says), "{message}");
            let place = format!("fixture.srt:{want_line}: SRT header, field \"{want_field}\"");
            assert!(message.starts_with(&place), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn header_errors_name_the_line_and_field() {
    use TraceError as E;
    let cases = [
        ("$$TR_IOREC-", "$$TR_IOREX-", 1, "magic", "starts with"),
        (
            "\"Sat May 30",
            "\"Sun May 30",
            3,
            "tracedate",
            "is a Sat, not a Sun",
        ),
        (
            "May 30 00:",
            "May 32 00:",
            3,
            "tracedate",
            "not a valid date",
        ),
        (
            "system       =",
            "tracedate    =",
            4,
            "tracedate",
            "given twice",
        ),
        ("= 113,", "= 11x3,", 14, "disks.0.nspt", "found 11x3"),
        (
            "nspt        =",
            "nspt",
            14,
            "disks.0",
            "expected ',' or '}', found \"113\"",
        ),
        (
            "sectorsize  = 256,",
            "",
            12,
            "disks.0.sectorsize",
            "missing",
        ),
        (
            "(171760 291362816)",
            "(171760 291362817)",
            38,
            "disks.0.sections.8.size",
            "256-byte",
        ),
        (
            "(171760 291362816)",
            "(171761 291362816)",
            12,
            "disks.0.sections.8.size",
            "past the disk",
        ),
        (
            "(171760 291362816)",
            "171760",
            38,
            "disks.0.sections.8.size",
            "expected (first-sector",
        ),
        (
            "\"<swap2>\"",
            "\"<swap2>",
            50,
            "disks.0.sections.15",
            "not closed",
        ),
        ("\"/\",", "", 36, "disks.0.sections.8", "has no name"),
        (
            "fragsize  = 1024\n",
            "fragsize  = 1024, fragsize = 2048\n",
            40,
            "disks.0.sections.8.fragsize",
            "given twice",
        ),
        ("\t\t  1 -> {", "\t\t  0 -> {", 58, "disks.0", "given twice"),
        (
            "\t\t  0 -> {",
            "\t\t  0 -> [",
            12,
            "disks.0",
            "unexpected character '['",
        ),
        (
            "blockmajor = 8",
            "blockmajor = 0",
            28,
            "disks.0.blockmajor",
            "found 0",
        ),
    ];
    for (from, to, line, field, says) in cases {
        assert_header(header_error(from, to), line, field, says);
    }
    // Without its form feed the header never ends.
    let file = bundled_bytes();
    match read_all(&file[..HEADER - 1], TraceOptions::default()) {
        Err(e @ E::BadSrtHeader { line: 92, .. }) => {
            assert!(e.to_string().contains("ends before the form feed"), "{e}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

/// The header tells the units, and the records confirm them: with 512-byte
/// sectors the records of "/" would leave it; with twice the sectors per
/// track (as 512-byte sectors would need) every cylinder number disagrees.
#[test]
fn records_refute_other_units() {
    match header_error("sectorsize  = 256", "sectorsize  = 512") {
        TraceError::BadSrtRecord {
            field: "sectno", ..
        } => {}
        other => panic!("{other:?}"),
    }
    // Disk 0's first record is the third of the file.
    match header_error("nspt        = 113", "nspt        = 226") {
        TraceError::BadSrtRecord {
            field: "cylno",
            record: 3,
            offset: 2_316,
            ..
        } => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_header_without_end_or_nesting_bound_is_refused() {
    let mut endless = SRT_MAGIC.as_bytes().to_vec();
    endless.resize(MAX_SRT_HEADER + 10, b' ');
    assert!(matches!(
        read_all(&endless, TraceOptions::default()),
        Err(TraceError::BadSrtHeader { ref problem, .. }) if problem.contains("within")
    ));
    let deep = format!("{SRT_MAGIC}1\nx = {}\n\x0c", "{".repeat(100_000));
    assert!(matches!(
        read_all(deep.as_bytes(), TraceOptions::default()),
        Err(TraceError::BadSrtHeader { line: 2, ref problem, .. }) if problem.contains("nest")
    ));
}

/// Numbers at the ends of their ranges give errors, not overflows.
#[test]
fn absurd_header_numbers_are_errors_not_panics() {
    let huge_geometry = SMALL_HEADER.replace(
        "nspt = 113, ntpc = 8, ncyl = 1449",
        "nspt = 4294967295, ntpc = 4294967295, ncyl = 4294967295",
    );
    let reader = TraceReader::new(
        Cursor::new(huge_geometry.as_bytes()),
        "f",
        TraceFormat::Srt,
        TraceOptions::default(),
    )
    .unwrap();
    assert_eq!(reader.srt_header().unwrap().disks[0].sectors(), u64::MAX);
    let cases = [
        (
            "(171760 291362816)",
            "(18446744073709551615 291362816)",
            "reach past",
        ),
        (
            "(171760 291362816)",
            "(18446744073709551616 291362816)",
            "too large",
        ),
        ("ncyl = 1449", "ncyl = 4294967296", "too large"),
        (
            "tracedate = \"Sat May 30 00:03:06 1992\"",
            "tracedate = \"Sat May 30 00:03:06 99999\"",
            "expected a date",
        ),
    ];
    for (from, to, says) in cases {
        let header = SMALL_HEADER.replace(from, to);
        match read_all(header.as_bytes(), TraceOptions::default()) {
            Err(e @ TraceError::BadSrtHeader { .. }) => {
                assert!(e.to_string().contains(says), "{e}")
            }
            other => panic!("{to}: {:?}", other.map(|_| ())),
        }
    }
}

// ------------------------------------------------------------------- fuzzing

/// Seeded fuzzing of headers: 1,500 copies of the bundled header with one to
/// three bytes replaced at random, each followed by 20 records. Every
/// outcome must be a typed result without a panic: either the header parses
/// (and then its length is where the first form feed now is) or a
/// `BadSrtHeader` names a line of the file; record errors name a record
/// boundary.
#[test]
fn fuzzed_headers_give_typed_errors() {
    let file = bundled_bytes();
    let mut stream = Stream::numbered(17);
    let (mut parsed, mut refused) = (0, 0);
    for case in 0..1_500 {
        let mut bytes = file[..HEADER + 20 * RECORD].to_vec();
        for _ in 0..=stream.below(3) {
            let at = stream.below(HEADER as u64) as usize;
            bytes[at] = stream.next_u64() as u8;
        }
        let lines = 1 + bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        let reader = TraceReader::new(
            Cursor::new(&bytes),
            "fuzz",
            TraceFormat::Srt,
            TraceOptions::default(),
        );
        match reader {
            Err(TraceError::BadSrtHeader { line, .. }) => {
                assert!((1..=lines).contains(&line), "case {case}: line {line}");
                refused += 1;
            }
            Err(other) => panic!("case {case}: {other:?}"),
            Ok(reader) => {
                let header_length = reader.srt_header().unwrap().length as usize;
                assert_eq!(
                    header_length,
                    bytes.iter().position(|&b| b == 0x0C).unwrap() + 1,
                    "case {case}"
                );
                for item in reader {
                    if let Err(e) = item {
                        let offset = match e {
                            TraceError::BadSrtRecord { offset, .. }
                            | TraceError::SrtTimeBackwards { offset, .. }
                            | TraceError::TruncatedSrtRecord { offset, .. } => offset as usize,
                            other => panic!("case {case}: {other:?}"),
                        };
                        assert!(
                            offset >= header_length && offset < bytes.len(),
                            "case {case}"
                        );
                    }
                }
                parsed += 1;
            }
        }
    }
    // Both outcomes are exercised: many bytes of the header are free text or
    // uninterpreted values.
    assert!(
        parsed > 50 && refused > 1_000,
        "{parsed} parsed, {refused} refused"
    );
}

/// Seeded fuzzing of records: 3,000 copies of the bundled file's first 40
/// records with one or two bytes of one record replaced at random. The
/// records before the damaged one are read as before; the first error, if
/// any, names the damaged record's offset, except that a damaged record
/// whose time moved later passes and the next record is then the earlier
/// one, naming the damaged record as the previous one; a framing error ends
/// the reading, any other leaves the other records readable.
#[test]
fn fuzzed_records_give_errors_at_the_damaged_record() {
    const N: usize = 40;
    let file = bundled_bytes();
    let clean = read_all(&file[..HEADER + N * RECORD], TraceOptions::default()).unwrap();
    let mut stream = Stream::numbered(18);
    let mut errors = 0;
    for case in 0..3_000 {
        let mut bytes = file[..HEADER + N * RECORD].to_vec();
        let k = stream.below(N as u64) as usize;
        let damaged = HEADER + k * RECORD;
        for _ in 0..=stream.below(2) {
            let at = damaged + stream.below(RECORD as u64) as usize;
            bytes[at] = stream.next_u64() as u8;
        }
        let items = read_all(&bytes, TraceOptions::default()).unwrap();
        for (i, item) in items[..k].iter().enumerate() {
            assert_eq!(
                item.as_ref().unwrap(),
                clean[i].as_ref().unwrap(),
                "case {case}"
            );
        }
        let Some(first) = items.iter().position(Result::is_err) else {
            assert_eq!(items.len(), N, "case {case}");
            continue;
        };
        errors += 1;
        match items[first].as_ref().unwrap_err() {
            TraceError::BadSrtRecord { offset, field, .. } => {
                assert_eq!((first, *offset as usize), (k, damaged), "case {case}");
                let framing = matches!(*field, "length" | "id");
                assert_eq!(
                    items.len(),
                    if framing { k + 1 } else { N },
                    "case {case}: {field}"
                );
            }
            TraceError::SrtTimeBackwards {
                offset,
                previous_offset,
                ..
            } if first == k + 1 => {
                assert_eq!(*previous_offset as usize, damaged, "case {case}");
                assert_eq!(*offset as usize, damaged + RECORD, "case {case}");
            }
            TraceError::SrtTimeBackwards { offset, .. } => {
                assert_eq!((first, *offset as usize), (k, damaged), "case {case}");
            }
            other => panic!("case {case}: {other:?}"),
        }
    }
    assert!(
        errors > 1_000,
        "{errors} of 3,000 damaged files were refused"
    );
}
