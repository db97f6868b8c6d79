//! Tests of the trace readers: the bundled DiskSim files end to end, inline
//! MSR and SPC fixtures, malformed input for every format, and round trips of
//! generated records through the text formats.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use sched_core::Kind;

use super::text::parse_decimal;
use super::*;

/// A file of DiskSim's validation suite, from the shared data directory.
fn data(name: &str) -> PathBuf {
    shared_data::disksim_file(name)
}

/// Every item a reader yields for `text`.
fn items(
    text: &str,
    format: TraceFormat,
    options: TraceOptions,
) -> Vec<Result<TraceRecord, TraceError>> {
    TraceReader::new(
        Cursor::new(text.as_bytes().to_vec()),
        "fixture",
        format,
        options,
    )
    .expect("valid options")
    .collect()
}

/// The records of `text`, which must all parse.
fn records(text: &str, format: TraceFormat, options: TraceOptions) -> Vec<TraceRecord> {
    items(text, format, options)
        .into_iter()
        .collect::<Result<_, _>>()
        .expect("fixture parses")
}

/// The first error a reader yields for `text` with default options.
fn first_error(text: &str, format: TraceFormat) -> TraceError {
    items(text, format, TraceOptions::default())
        .into_iter()
        .find_map(Result::err)
        .expect("an error")
}

/// Counts the non-blank lines of a file without the reader.
fn count_lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .expect("readable data file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

/// A record from a validation trace line's values.
fn validate_record(
    line: u64,
    kind: Kind,
    buffer: BufferOutcome,
    block: u64,
    blocks: u32,
    access: u64,
    idle: u64,
) -> TraceRecord {
    TraceRecord {
        arrival: None,
        device: 0,
        block,
        blocks,
        kind,
        flags: 0,
        measured: Some(Measured {
            access,
            idle_after: idle,
            buffer,
        }),
        response: None,
        line,
        srt: None,
    }
}

// ---------------------------------------------------------------- real files

#[test]
fn ascii_trace_yields_every_request() {
    let path = data("ascii.trace");
    let reader = open(&path, None, TraceOptions::default()).unwrap();
    assert_eq!(reader.format(), TraceFormat::DiskSimAscii);
    let all: Vec<TraceRecord> = reader.collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 100_000);
    assert_eq!(all.len(), count_lines(&path));
    // First line: "13.191135	30	0	5	1".
    assert_eq!(
        all[0],
        TraceRecord {
            arrival: Some(13_191_135),
            device: 30,
            block: 0,
            blocks: 5,
            kind: Kind::Read,
            flags: 1,
            measured: None,
            response: None,
            line: 1,
            srt: None,
        }
    );
    // Last line: "1532949.045363	11	323157	1	1".
    assert_eq!(
        all[99_999],
        TraceRecord {
            arrival: Some(1_532_949_045_363),
            device: 11,
            block: 323_157,
            blocks: 1,
            kind: Kind::Read,
            flags: 1,
            measured: None,
            response: None,
            line: 100_000,
            srt: None,
        }
    );
    // Line 4: "25.911729	18	28601	12	0", a write.
    assert_eq!(all[3].kind, Kind::Write);
    assert_eq!(all[3].arrival, Some(25_911_729));
}

#[test]
fn ascii_trace_summary_matches_the_file() {
    let summary = open(
        data("ascii.trace"),
        Some(TraceFormat::DiskSimAscii),
        TraceOptions::default(),
    )
    .unwrap()
    .summarize()
    .unwrap();
    // Counts from awk over the file: flags column 1 → 79,634, 0 → 20,366;
    // smallest block 0, largest block + size 2,376,020.
    assert_eq!(
        summary,
        TraceSummary {
            records: 100_000,
            reads: 79_634,
            writes: 20_366,
            filtered: 0,
            suspect: 0,
            lowest_block: Some(0),
            end_block: Some(2_376_020),
            earliest_arrival: Some(13_191_135),
            latest_arrival: Some(1_532_949_045_363),
            measured_time: 0,
        }
    );
    assert_eq!(summary.duration(), 1_532_949_045_363 - 13_191_135);
}

#[test]
fn device_filter_keeps_only_the_named_devices() {
    let options = TraceOptions {
        devices: Some(vec![14]),
        ..TraceOptions::default()
    };
    let mut reader = open(data("ascii.trace"), None, options).unwrap();
    let kept: Vec<TraceRecord> = reader.by_ref().collect::<Result<_, _>>().unwrap();
    // awk '$2 == 14' ascii.trace | wc -l → 19968.
    assert_eq!(kept.len(), 19_968);
    assert!(kept.iter().all(|r| r.device == 14));
    assert_eq!(reader.filtered(), 100_000 - 19_968);
}

#[test]
fn validation_traces_yield_one_record_per_line() {
    use BufferOutcome::*;
    use Kind::*;
    // (file, first line, last line, reads, writes, lowest block, end block),
    // the lines as records written out by hand from `head -1` and `tail -1`.
    let cases = [
        (
            "hp_c2247a.trace",
            // R Miss  564347     2     14095.370     13876.270
            validate_record(1, Read, Miss, 564_347, 2, 14_095_370, 13_876_270),
            // W Doub 1569163     3     10671.040     19196.570
            validate_record(9_999, Write, Doub, 1_569_163, 3, 10_671_040, 19_196_570),
            5_115,
            4_884,
            16,
            2_049_837,
        ),
        (
            "hp_c3323a.trace",
            // R Hit 265552 2 14901.000000 4757.708232 (232 ps rounds down)
            validate_record(1, Read, Hit, 265_552, 2, 14_901_000, 4_757_708),
            // R Hit 1466605 1 704.000000 19914.709322
            validate_record(9_074, Read, Hit, 1_466_605, 1, 704_000, 19_914_709),
            6_113,
            2_961,
            252,
            2_049_218,
        ),
        (
            "cheetah9LP.trace",
            // R Hit    1975456   4  15362.00000  56074.00000
            validate_record(1, Read, Hit, 1_975_456, 4, 15_362_000, 56_074_000),
            // W Hit   12389752  12   1702.00000  30743.00000
            validate_record(10_000, Write, Hit, 12_389_752, 12, 1_702_000, 30_743_000),
            6_594,
            3_406,
            1_124,
            17_779_364,
        ),
        (
            "ibm18es.trace",
            // R Hit   17317516   4  13661.00000  26658.00000
            validate_record(1, Read, Hit, 17_317_516, 4, 13_661_000, 26_658_000),
            // W Hit   16960492  12   1317.00000  32746.00000
            validate_record(10_000, Write, Hit, 16_960_492, 12, 1_317_000, 32_746_000),
            6_582,
            3_418,
            1_216,
            17_905_512,
        ),
    ];
    for (name, first, last, reads, writes, lowest, end) in cases {
        let path = data(name);
        let reader = open(&path, None, TraceOptions::default()).unwrap();
        assert_eq!(reader.format(), TraceFormat::DiskSimValidate, "{name}");
        let all: Vec<TraceRecord> = reader.collect::<Result<_, _>>().unwrap();
        assert_eq!(all.len(), count_lines(&path), "{name}");
        assert_eq!(all[0], first, "{name}");
        assert_eq!(*all.last().unwrap(), last, "{name}");
        let summary = open(&path, None, TraceOptions::default())
            .unwrap()
            .summarize()
            .unwrap();
        assert_eq!(summary.records, all.len() as u64, "{name}");
        assert_eq!((summary.reads, summary.writes), (reads, writes), "{name}");
        assert_eq!(
            (summary.lowest_block, summary.end_block),
            (Some(lowest), Some(end)),
            "{name}"
        );
        assert_eq!(summary.earliest_arrival, None, "{name}");
    }
}

#[test]
fn validation_summary_adds_up_the_measured_run() {
    // The HP C2247A trace has three decimals in µs, so the total in ns is the
    // sum of columns 5 and 6 with the decimal point removed; computed here from
    // the text, independently of the reader.
    let path = data("hp_c2247a.trace");
    let expected: u64 = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .flat_map(|l| l.split_whitespace().skip(4))
        .map(|t| t.replace('.', "").parse::<u64>().unwrap())
        .sum();
    let summary = open(&path, None, TraceOptions::default())
        .unwrap()
        .summarize()
        .unwrap();
    assert_eq!(summary.measured_time, expected);
    assert_eq!(summary.duration(), expected);
}

// ------------------------------------------------------------------ fixtures

const MSR: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
128166372003061629,hm,1,Read,3154509824,32768,12021
128166372016382155,hm,1,Write,3154575360,4096,4000
128166372016382155,hm,0,Read,700,1000,1
";

#[test]
fn msr_fixture_is_relative_to_the_first_request() {
    let all = records(MSR, TraceFormat::Msr, TraceOptions::default());
    assert_eq!(all.len(), 3);
    assert_eq!(
        all[0],
        TraceRecord {
            arrival: Some(0),
            device: 1,
            block: 3_154_509_824 / 512,
            blocks: 64,
            kind: Kind::Read,
            flags: 0,
            measured: None,
            response: Some(1_202_100),
            line: 2,
            srt: None,
        }
    );
    // 13,320,526 ticks of 100 ns after the first request.
    assert_eq!(all[1].arrival, Some(1_332_052_600));
    assert_eq!(
        (all[1].kind, all[1].block, all[1].blocks),
        (Kind::Write, 6_161_280, 8)
    );
    assert_eq!(all[1].response, Some(400_000));
    // Bytes 700..1700 lie in 512-byte blocks 1, 2 and 3.
    assert_eq!((all[2].device, all[2].block, all[2].blocks), (0, 1, 3));
    assert_eq!(all[2].arrival, all[1].arrival);
    assert_eq!(all[2].line, 4);
}

#[test]
fn msr_fixture_in_4k_blocks_rounds_outward() {
    let options = TraceOptions {
        block_size: 4096,
        ..TraceOptions::default()
    };
    let all = records(MSR, TraceFormat::Msr, options);
    assert_eq!((all[0].block, all[0].blocks), (770_144, 8));
    assert_eq!((all[1].block, all[1].blocks), (770_160, 1));
    // Bytes 700..1700 lie inside block 0.
    assert_eq!((all[2].block, all[2].blocks), (0, 1));
}

#[test]
fn msr_without_header_and_with_crlf() {
    let text = "128166372003061629,hm,1,read,512,512,10\r\n128166372003061630,hm,1,WRITE,513,1,10";
    let all = records(text, TraceFormat::Msr, TraceOptions::default());
    assert_eq!(all.len(), 2);
    assert_eq!(
        (all[0].line, all[0].arrival, all[0].kind),
        (1, Some(0), Kind::Read)
    );
    assert_eq!(
        (all[1].arrival, all[1].kind, all[1].block, all[1].blocks),
        (Some(100), Kind::Write, 1, 1)
    );
}

const SPC: &str = "0,20941264,8192,W,0.551706,Alpha/NT
0,20939840,8192,w,0.554041
1, 3436288, 15872, R, 1.250720,0x123,5.99,test
1,3435889,700,r,1.250720
";

#[test]
fn spc_fixture_keeps_trace_time_and_ignores_optional_fields() {
    let all = records(SPC, TraceFormat::Spc, TraceOptions::default());
    assert_eq!(all.len(), 4);
    assert_eq!(
        all[0],
        TraceRecord {
            arrival: Some(551_706_000),
            device: 0,
            block: 20_941_264,
            blocks: 16,
            kind: Kind::Write,
            flags: 0,
            measured: None,
            response: None,
            line: 1,
            srt: None,
        }
    );
    assert_eq!(
        (all[1].kind, all[1].arrival),
        (Kind::Write, Some(554_041_000))
    );
    assert_eq!(
        (all[2].device, all[2].block, all[2].blocks, all[2].kind),
        (1, 3_436_288, 31, Kind::Read)
    );
    assert_eq!(all[2].arrival, Some(1_250_720_000));
    // 700 bytes need two 512-byte blocks; an equal timestamp is allowed.
    assert_eq!(
        (all[3].block, all[3].blocks, all[3].kind),
        (3_435_889, 2, Kind::Read)
    );
    assert_eq!(all[3].arrival, all[2].arrival);
}

#[test]
fn spc_fixture_in_4k_blocks_rounds_outward() {
    let options = TraceOptions {
        block_size: 4096,
        ..TraceOptions::default()
    };
    let all = records(SPC, TraceFormat::Spc, options);
    assert_eq!((all[0].block, all[0].blocks), (2_617_658, 2));
    // Bytes 1,759,175,168..1,759,175,868 lie inside 4 KiB block 429,486.
    assert_eq!((all[3].block, all[3].blocks), (429_486, 1));
}

#[test]
fn ascii_block_size_converts_sectors() {
    let options = TraceOptions {
        block_size: 4096,
        ..TraceOptions::default()
    };
    // Sectors 7..12 are bytes 3584..6144: 4 KiB blocks 0 and 1.
    let all = records("0.5 1 7 5 0x81\n", TraceFormat::DiskSimAscii, options);
    assert_eq!(
        (all[0].block, all[0].blocks, all[0].kind),
        (0, 2, Kind::Read)
    );
    assert_eq!(all[0].flags, DISKSIM_READ | DISKSIM_SYNCHRONOUS);
    assert_eq!(all[0].arrival, Some(500_000));
}

// ------------------------------------------------------------- bad input

#[test]
fn error_names_file_line_and_field() {
    let mut text = String::new();
    for i in 0..16 {
        text.push_str(&format!("{i}.0 0 0 1 1\n"));
    }
    text.push_str("17.0 0 0 x12 1\n");
    let e = first_error(&text, TraceFormat::DiskSimAscii);
    assert!(
        matches!(&e, TraceError::InvalidField { file, line: 17, field: "size", expected: "a positive integer", found }
            if &**file == "fixture" && found == "x12"),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "fixture:17: field \"size\": expected a positive integer, found \"x12\""
    );
}

/// Asserts that `text` in `format` fails first with an `InvalidField` on
/// `line` and `field`, quoting `found`.
fn assert_invalid(format: TraceFormat, text: &str, line: u64, field: &str, found: &str) {
    match first_error(text, format) {
        TraceError::InvalidField {
            line: l,
            field: f,
            found: fo,
            ..
        } => assert_eq!((l, f, fo.as_str()), (line, field, found), "{text:?}"),
        other => panic!("{text:?}: expected InvalidField, got {other:?}"),
    }
}

/// Asserts that `text` fails first with a `MissingField` on `line` and `field`.
fn assert_missing(format: TraceFormat, text: &str, line: u64, field: &str) {
    match first_error(text, format) {
        TraceError::MissingField {
            line: l, field: f, ..
        } => assert_eq!((l, f), (line, field), "{text:?}"),
        other => panic!("{text:?}: expected MissingField, got {other:?}"),
    }
}

/// Asserts that `text` fails first with an `Overflow` on `line` and `field`.
fn assert_overflow(format: TraceFormat, text: &str, options: TraceOptions, line: u64, field: &str) {
    match items(text, format, options)
        .into_iter()
        .find_map(Result::err)
    {
        Some(TraceError::Overflow {
            line: l, field: f, ..
        }) => assert_eq!((l, f), (line, field), "{text:?}"),
        other => panic!("{text:?}: expected Overflow, got {other:?}"),
    }
}

/// Asserts that `text` fails first with an `ExtraField` on `line`.
fn assert_extra(format: TraceFormat, text: &str, line: u64, fields: usize, found: &str) {
    match first_error(text, format) {
        TraceError::ExtraField {
            line: l,
            fields: n,
            found: fo,
            format: fmt,
            ..
        } => assert_eq!(
            (l, n, fo.as_str(), fmt),
            (line, fields, found, format),
            "{text:?}"
        ),
        other => panic!("{text:?}: expected ExtraField, got {other:?}"),
    }
}

/// Asserts that `text` fails first with `TimeBackwards` on `line`, naming
/// `previous_line` and the two times.
fn assert_backwards(
    format: TraceFormat,
    text: &str,
    line: u64,
    field: &str,
    previous_line: u64,
    time: u64,
    previous: u64,
) {
    match first_error(text, format) {
        TraceError::TimeBackwards {
            line: l,
            field: f,
            previous_line: pl,
            time: t,
            previous: p,
            ..
        } => assert_eq!(
            (l, f, pl, t, p),
            (line, field, previous_line, time, previous),
            "{text:?}"
        ),
        other => panic!("{text:?}: expected TimeBackwards, got {other:?}"),
    }
}

#[test]
fn malformed_disksim_ascii() {
    use TraceFormat::DiskSimAscii as F;
    let ok = "1.0 0 0 1 1\n";
    assert_missing(F, "1.0 0 0 5\n", 1, "flags");
    assert_missing(F, &format!("{ok}1.5\n"), 2, "device");
    assert_invalid(F, "1.0 0 0 0 1\n", 1, "size", "0");
    assert_invalid(F, "1.0 0 -5 1 1\n", 1, "block", "-5");
    assert_invalid(F, "1.0 -1 0 1 1\n", 1, "device", "-1");
    assert_invalid(F, "1.0 0 0 1 zz\n", 1, "flags", "zz");
    assert_invalid(F, "1e3 0 0 1 1\n", 1, "time", "1e3");
    assert_invalid(F, "-1.0 0 0 1 1\n", 1, "time", "-1.0");
    assert_invalid(F, "1.0.0 0 0 1 1\n", 1, "time", "1.0.0");
    assert_invalid(F, "+1.0 0 0 1 1\n", 1, "time", "+1.0");
    assert_extra(F, "1.0 0 0 1 1 7\n", 1, 5, "7");
    let default = TraceOptions::default;
    assert_overflow(F, "1.0 0 0 1 100000000\n", default(), 1, "flags");
    assert_overflow(F, "1.0 4294967296 0 1 1\n", default(), 1, "device");
    assert_overflow(F, "1.0 0 18446744073709551616 1 1\n", default(), 1, "block");
    assert_overflow(F, "1.0 0 0 4294967296 1\n", default(), 1, "size");
    assert_overflow(F, "18446744073709.551616 0 0 1 1\n", default(), 1, "time");
    // The block number fits the file's 512-byte sectors but not 1-byte blocks.
    let bytes = TraceOptions {
        block_size: 1,
        ..default()
    };
    assert_overflow(F, "1.0 0 36028797018963968 1 1\n", bytes, 1, "block");
    // A request that runs past block 2^64 - 1.
    assert_overflow(F, "1.0 0 18446744073709551615 2 1\n", default(), 1, "size");
    assert_backwards(
        F,
        "2.0 0 0 1 1\n1.999999 0 0 1 1\n",
        2,
        "time",
        1,
        1_999_999,
        2_000_000,
    );
}

#[test]
fn malformed_disksim_validate() {
    use TraceFormat::DiskSimValidate as F;
    assert_invalid(F, "X Miss 1 2 3.0 4.0\n", 1, "kind", "X");
    assert_invalid(F, "r Miss 1 2 3.0 4.0\n", 1, "kind", "r");
    assert_invalid(F, "R Maybe 1 2 3.0 4.0\n", 1, "buffer", "Maybe");
    assert_invalid(F, "R Hit 1 0 3.0 4.0\n", 1, "size", "0");
    assert_invalid(F, "R Hit 1 2 3.x 4.0\n", 1, "access", "3.x");
    assert_invalid(F, "R Hit 1 2 3.0 -4.0\n", 1, "idle", "-4.0");
    assert_missing(F, "R Hit 1 2 3.0\n", 1, "idle");
    assert_missing(F, "R Hit 1 2 3 4\nW\n", 2, "buffer");
    assert_extra(F, "R Hit 1 2 3.0 4.0 5\n", 1, 6, "5");
}

#[test]
fn malformed_msr() {
    use TraceFormat::Msr as F;
    let ok = "128166372003061629,hm,1,Read,512,512,10\n";
    assert_missing(
        F,
        "128166372003061629,hm,1,Read,3154509824,32768\n",
        1,
        "response",
    );
    assert_invalid(
        F,
        "128166372003061629,hm,1,Trim,0,512,10\n",
        1,
        "type",
        "Trim",
    );
    assert_invalid(F, ",hm,1,Read,0,512,10\n", 1, "timestamp", "");
    assert_invalid(
        F,
        "128166372003061629,,1,Read,0,512,10\n",
        1,
        "hostname",
        "",
    );
    assert_invalid(F, "128166372003061629,hm,x,Read,0,512,10\n", 1, "disk", "x");
    assert_invalid(F, "128166372003061629,hm,1,Read,0,0,10\n", 1, "size", "0");
    assert_invalid(
        F,
        "128166372003061629,hm,1,Read,-512,512,10\n",
        1,
        "offset",
        "-512",
    );
    assert_invalid(
        F,
        "128166372003061629,hm,1,Read,0,512,1.5\n",
        1,
        "response",
        "1.5",
    );
    assert_extra(
        F,
        "128166372003061629,hm,1,Read,0,512,10,extra\n",
        1,
        7,
        "extra",
    );
    // The header is allowed on line 1 only.
    assert_invalid(
        F,
        &format!("{ok}{}\n", msr::HEADER),
        2,
        "timestamp",
        "Timestamp",
    );
    assert_overflow(
        F,
        "184467440737095517,hm,1,Read,0,512,10\n",
        TraceOptions::default(),
        1,
        "timestamp",
    );
    // 3 ticks (300 ns) earlier than line 1.
    assert_backwards(
        F,
        &format!("{ok}128166372003061626,hm,1,Read,512,512,10\n"),
        2,
        "timestamp",
        1,
        12_816_637_200_306_162_600,
        12_816_637_200_306_162_900,
    );
}

#[test]
fn malformed_spc() {
    use TraceFormat::Spc as F;
    assert_invalid(F, "0,100,512,X,1.0\n", 1, "opcode", "X");
    assert_invalid(F, "0,100,512,RW,1.0\n", 1, "opcode", "RW");
    assert_invalid(F, "0,100,0,R,1.0\n", 1, "size", "0");
    assert_invalid(F, "0,-1,512,R,1.0\n", 1, "lba", "-1");
    assert_invalid(F, "a,1,512,R,1.0\n", 1, "asu", "a");
    assert_invalid(F, "0,1,512,R,2 448003\n", 1, "timestamp", "2 448003");
    assert_missing(F, "0,100,512,R\n", 1, "timestamp");
    assert_missing(F, "0,1,512,R,1.0\n0\n", 2, "lba");
    assert_overflow(
        F,
        "0,1,2199023255552,R,1.0\n",
        TraceOptions::default(),
        1,
        "size",
    );
    assert_backwards(
        F,
        "0,1,512,R,2.0\n0,1,512,R,1.999999999\n",
        2,
        "timestamp",
        1,
        1_999_999_999,
        2_000_000_000,
    );
    // Optional fields may hold anything, including nothing.
    assert_eq!(
        records(
            "0,1,512,R,1.0,,any thing, at all\n",
            F,
            TraceOptions::default()
        )
        .len(),
        1
    );
}

#[test]
fn blank_line_is_an_error_and_reading_goes_on() {
    let got = items(
        "1.0 0 0 1 1\n\n   \n2.0 0 0 1 1\n",
        TraceFormat::DiskSimAscii,
        TraceOptions::default(),
    );
    assert_eq!(got.len(), 4);
    assert!(matches!(
        got[1],
        Err(TraceError::BlankLine {
            line: 2,
            format: TraceFormat::DiskSimAscii,
            ..
        })
    ));
    assert!(matches!(got[2], Err(TraceError::BlankLine { line: 3, .. })));
    assert_eq!(got[3].as_ref().unwrap().line, 4);
}

#[test]
fn a_bad_line_does_not_move_the_time_order() {
    // Line 2 fails, so line 3 is compared with line 1 and is in order.
    let got = items(
        "1.0 0 0 1 1\n9.0 0 0 0 1\n2.0 0 0 1 1\n",
        TraceFormat::DiskSimAscii,
        TraceOptions::default(),
    );
    assert!(got[1].is_err());
    assert_eq!(got[2].as_ref().unwrap().arrival, Some(2_000_000));
}

#[test]
fn non_utf8_line_is_an_error_and_reading_goes_on() {
    let bytes = b"1.0 0 0 1 1\n1.5 \xff 0 1 1\n2.0 0 0 1 1\n".to_vec();
    let got: Vec<_> = TraceReader::new(
        Cursor::new(bytes),
        "bin",
        TraceFormat::DiskSimAscii,
        TraceOptions::default(),
    )
    .unwrap()
    .collect();
    assert_eq!(got.len(), 3);
    assert!(matches!(&got[1], Err(TraceError::NotText { file, line: 2 }) if &**file == "bin"));
    assert!(got[2].is_ok());
}

#[test]
fn overlong_line_ends_the_reading() {
    let mut text = String::from("1.0 0 0 1 1\n");
    text.push_str(&"9".repeat(MAX_LINE + 10));
    text.push_str("\n2.0 0 0 1 1\n");
    let got = items(&text, TraceFormat::DiskSimAscii, TraceOptions::default());
    assert_eq!(got.len(), 2);
    assert!(matches!(
        got[1],
        Err(TraceError::LineTooLong {
            line: 2,
            limit: MAX_LINE,
            ..
        })
    ));
}

#[test]
fn a_line_of_exactly_the_limit_is_read() {
    // Pad the last field with leading zeros up to MAX_LINE bytes.
    let head = "1.0 0 0 1 ";
    let text = format!("{head}{:0>width$}\n", 1, width = MAX_LINE - head.len());
    assert_eq!(text.len(), MAX_LINE + 1);
    let all = records(&text, TraceFormat::DiskSimAscii, TraceOptions::default());
    assert_eq!(all[0].flags, 1);
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let path = shared_data::disksim_valid().join("no-such.trace");
    let e = open(&path, None, TraceOptions::default()).unwrap_err();
    assert!(
        matches!(&e, TraceError::Io { file, .. } if **file == *path.display().to_string()),
        "{e:?}"
    );
    assert!(e.to_string().starts_with(&path.display().to_string()));
}

#[test]
fn zero_block_size_is_refused() {
    let options = TraceOptions {
        block_size: 0,
        ..TraceOptions::default()
    };
    let e = TraceReader::new(Cursor::new(Vec::new()), "x", TraceFormat::Spc, options).unwrap_err();
    assert!(matches!(
        e,
        TraceError::BadOption {
            option: "block_size",
            ..
        }
    ));
}

// ---------------------------------------------------------------- detection

#[test]
fn detect_by_content_then_extension() {
    let trace = Path::new("x.trace");
    let detect = TraceFormat::detect;
    assert_eq!(
        detect(trace, &["13.191135\t30\t0\t5\t1"]),
        Some(TraceFormat::DiskSimAscii)
    );
    assert_eq!(
        detect(
            trace,
            &["", "  ", "R Miss  564347  2  14095.370  13876.270"]
        ),
        Some(TraceFormat::DiskSimValidate)
    );
    assert_eq!(
        detect(
            trace,
            &["128166372003061629,hm,1,Read,3154509824,32768,12021"]
        ),
        Some(TraceFormat::Msr)
    );
    assert_eq!(detect(trace, &[msr::HEADER]), Some(TraceFormat::Msr));
    assert_eq!(
        detect(trace, &["0,20941264,8192,W,0.551706,Alpha/NT"]),
        Some(TraceFormat::Spc)
    );
    // Content wins over the extension.
    assert_eq!(
        detect(Path::new("x.csv"), &["0,1,512,r,0.5"]),
        Some(TraceFormat::Spc)
    );
    // Unrecognised content falls back to the extension.
    assert_eq!(
        detect(Path::new("x.CSV"), &["garbage"]),
        Some(TraceFormat::Msr)
    );
    assert_eq!(detect(Path::new("x.spc"), &[]), Some(TraceFormat::Spc));
    assert_eq!(detect(trace, &["garbage"]), None);
    assert_eq!(detect(Path::new("x"), &[]), None);
}

#[test]
fn open_detects_or_refuses() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let spc = dir.join("fin.spc");
    std::fs::write(&spc, SPC).unwrap();
    let reader = open(&spc, None, TraceOptions::default()).unwrap();
    assert_eq!(reader.format(), TraceFormat::Spc);
    // Detection read the first lines; the reader still starts at line 1.
    assert_eq!(reader.summarize().unwrap().records, 4);
    let odd = dir.join("odd.trace");
    std::fs::write(&odd, "what is this\n").unwrap();
    let e = open(&odd, None, TraceOptions::default()).unwrap_err();
    assert!(
        matches!(&e, TraceError::UnknownFormat { file } if **file == *odd.display().to_string())
    );
    // An explicit format skips detection; the reader then names the bad field.
    let e = open(
        &odd,
        Some(TraceFormat::DiskSimAscii),
        TraceOptions::default(),
    )
    .unwrap()
    .next()
    .unwrap()
    .unwrap_err();
    assert!(matches!(
        e,
        TraceError::InvalidField {
            line: 1,
            field: "time",
            ..
        }
    ));
}

#[test]
fn format_names_round_trip() {
    for format in TraceFormat::ALL {
        assert_eq!(format.name().parse::<TraceFormat>(), Ok(format));
        assert_eq!(format.to_string(), format.name());
    }
    assert_eq!("UMass".parse::<TraceFormat>(), Ok(TraceFormat::Spc));
    assert_eq!(
        "blk".parse::<TraceFormat>(),
        Err(UnknownFormatName("blk".into()))
    );
}

// ------------------------------------------------------------------ numbers

#[test]
fn decimals_convert_exactly() {
    assert_eq!(parse_decimal("0.001", 6), Ok(1_000));
    assert_eq!(parse_decimal("14095.370", 3), Ok(14_095_370));
    assert_eq!(parse_decimal("13.191135", 6), Ok(13_191_135));
    assert_eq!(parse_decimal("1.", 6), Ok(1_000_000));
    assert_eq!(parse_decimal(".5", 9), Ok(500_000_000));
    assert_eq!(parse_decimal("007", 0), Ok(7));
    // Sub-nanosecond digits round to nearest, halves up.
    assert_eq!(parse_decimal("4757.708232", 3), Ok(4_757_708));
    assert_eq!(parse_decimal("0.0000005", 6), Ok(1));
    assert_eq!(parse_decimal("0.0000004999", 6), Ok(0));
    assert_eq!(parse_decimal("18446744073709.551615", 6), Ok(u64::MAX));
    for bad in [
        "", ".", "1.2.3", "+1", "-1", "1e3", " 1", "1_0", "inf", "0x10",
    ] {
        assert_eq!(
            parse_decimal(bad, 6),
            Err(text::NumError::Invalid),
            "{bad:?}"
        );
    }
    assert_eq!(
        parse_decimal("18446744073709551616", 0),
        Err(text::NumError::Overflow)
    );
    assert_eq!(
        parse_decimal("18446744073709.5516155", 6),
        Err(text::NumError::Overflow)
    );
}

// ------------------------------------------------------------- round trips

/// Formats nanoseconds as a decimal with `places` fraction digits, exactly.
fn decimal(ns: u64, places: u32) -> String {
    let unit = 10u64.pow(places);
    format!(
        "{}.{:0width$}",
        ns / unit,
        ns % unit,
        width = places as usize
    )
}

/// Field separators DiskSim's `sscanf` accepts.
fn blank() -> impl Strategy<Value = String> {
    prop::sample::select(vec![" ", "\t", "  ", " \t "]).prop_map(str::to_owned)
}

proptest! {
    #[test]
    fn disksim_ascii_round_trips(
        lines in prop::collection::vec(
            (0u64..1_000_000_000_000, any::<u32>(), 0u64..u64::MAX / 1024, 1u32..=u32::MAX, any::<u32>(),
             blank(), any::<bool>()),
            1..20,
        )
    ) {
        let mut text = String::new();
        let mut expected = Vec::new();
        let mut time = 0u64;
        for (i, (gap, device, block, size, flags, sep, prefix)) in lines.into_iter().enumerate() {
            time += gap;
            let hex = if prefix { format!("0x{flags:X}") } else { format!("{flags:x}") };
            text.push_str(&format!("{}{sep}{device}{sep}{block}{sep}{size}{sep}{hex}\n", decimal(time, 6)));
            expected.push(TraceRecord {
                arrival: Some(time),
                device,
                block,
                blocks: size,
                kind: if flags & 1 == 1 { Kind::Read } else { Kind::Write },
                flags,
                measured: None,
                response: None,
                line: i as u64 + 1,
                srt: None,
            });
        }
        prop_assert_eq!(records(&text, TraceFormat::DiskSimAscii, TraceOptions::default()), expected);
    }

    #[test]
    fn disksim_validate_round_trips(
        lines in prop::collection::vec(
            (any::<bool>(), 0usize..4, 0u64..u64::MAX / 1024, 1u32..=u32::MAX, 0u64..1_000_000_000_000,
             0u64..1_000_000_000_000, blank()),
            1..20,
        )
    ) {
        let buffers = [BufferOutcome::Miss, BufferOutcome::Hit, BufferOutcome::Doub, BufferOutcome::Trip];
        let names = ["Miss", "Hit", "Doub", "Trip"];
        let mut text = String::new();
        let mut expected = Vec::new();
        for (i, (read, b, block, size, access, idle, sep)) in lines.into_iter().enumerate() {
            let kind = if read { "R" } else { "W" };
            text.push_str(&format!(
                "{kind}{sep}{}{sep}{block}{sep}{size}{sep}{}{sep}{}\n",
                names[b], decimal(access, 3), decimal(idle, 3)
            ));
            let kind = if read { Kind::Read } else { Kind::Write };
            expected.push(validate_record(i as u64 + 1, kind, buffers[b], block, size, access, idle));
        }
        prop_assert_eq!(records(&text, TraceFormat::DiskSimValidate, TraceOptions::default()), expected);
    }

    #[test]
    fn spc_round_trips(
        lines in prop::collection::vec(
            (0u64..10_000_000_000, any::<u32>(), 0u64..u64::MAX / 1024, 1u64..1 << 40, 0usize..4,
             prop::collection::vec("[a-zA-Z0-9 ./]{0,8}", 0..3), any::<bool>()),
            1..20,
        )
    ) {
        let mut text = String::new();
        let mut expected = Vec::new();
        let mut time = 0u64;
        for (i, (gap, asu, lba, bytes, op, optional, spaced)) in lines.into_iter().enumerate() {
            time += gap;
            let opcode = ["r", "R", "w", "W"][op];
            let sep = if spaced { ", " } else { "," };
            let mut line = format!("{asu}{sep}{lba}{sep}{bytes}{sep}{opcode}{sep}{}", decimal(time, 9));
            for field in &optional {
                line.push(',');
                line.push_str(field);
            }
            text.push_str(&line);
            text.push('\n');
            expected.push(TraceRecord {
                arrival: Some(time),
                device: asu,
                block: lba,
                blocks: bytes.div_ceil(512) as u32,
                kind: if op < 2 { Kind::Read } else { Kind::Write },
                flags: 0,
                measured: None,
                response: None,
                line: i as u64 + 1,
                srt: None,
            });
        }
        prop_assert_eq!(records(&text, TraceFormat::Spc, TraceOptions::default()), expected);
    }

    #[test]
    fn msr_blocks_are_the_least_cover_of_the_bytes(
        offset in 0u64..1 << 50,
        size in 1u64..1 << 30,
        block_size in prop::sample::select(vec![1u32, 512, 520, 4096, 65_536, 1 << 20]),
    ) {
        let text = format!("128166372003061629,hm,0,Write,{offset},{size},0\n");
        let options = TraceOptions { block_size, ..TraceOptions::default() };
        let r = records(&text, TraceFormat::Msr, options)[0];
        let (bs, first, end) = (u128::from(block_size), u128::from(r.block), u128::from(r.block) + u128::from(r.blocks));
        let (lo, hi) = (u128::from(offset), u128::from(offset) + u128::from(size));
        // The blocks cover every byte ...
        prop_assert!(first * bs <= lo && end * bs >= hi);
        // ... and no block is spare at either end.
        prop_assert!((first + 1) * bs > lo && (end - 1) * bs < hi);
    }
}
