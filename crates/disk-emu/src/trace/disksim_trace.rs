//! DiskSim's two text trace formats: the default ASCII input trace and the
//! disk validation trace.
//!
//! Both layouts follow DiskSim's own readers (`iotrace_ascii_get_ioreq_event`
//! and `iotrace_validate_get_ioreq_event` in `disksim_iotrace.c`), which read
//! one line at a time with `sscanf` conversions `"%lf %d %d %d %x"` and
//! `"%c %s %d %d %lf %lf"`; the meaning of the fields is from the DiskSim
//! reference manual (CMU-PDL-08-101, "Input workloads: traces") and
//! `shared/data/README.md`.

use sched_core::Kind;

use super::text::{Fields, LineCtx};
use super::{BufferOutcome, Measured, TraceRecord};

/// DiskSim flag bit: set for a read, clear for a write.
pub const DISKSIM_READ: u32 = 0x1;
/// DiskSim flag bit: the request is time-critical (a process waits for it).
pub const DISKSIM_TIME_CRITICAL: u32 = 0x2;
/// DiskSim flag bit: the request is time-limited (needed within some time).
pub const DISKSIM_TIME_LIMITED: u32 = 0x4;
/// DiskSim flag bit: the request was issued synchronously.
pub const DISKSIM_SYNCHRONOUS: u32 = 0x80;
/// DiskSim flag bit: the request was issued asynchronously.
pub const DISKSIM_ASYNCHRONOUS: u32 = 0x100;

/// Bytes in one DiskSim block: DiskSim addresses disks in 512-byte sectors,
/// and the bundled `ascii.parv` maps every trace device with `locScale = 512`.
pub(super) const SECTOR: u128 = 512;

/// Decimal places from milliseconds to nanoseconds.
const MS: u32 = 6;
/// Decimal places from microseconds to nanoseconds.
const US: u32 = 3;

/// Parses one ASCII trace line: `time device block size flags`, white-space
/// separated, time in ms, block and size in 512-byte sectors, flags in hex.
pub(super) fn parse_ascii(
    text: &str,
    ctx: &LineCtx<'_>,
    block_size: u32,
) -> Result<TraceRecord, super::TraceError> {
    let mut f = Fields::new(text.split_ascii_whitespace(), ctx);
    let arrival = f.decimal("time", MS, "a non-negative number of milliseconds")?;
    let device = f.u32("device")?;
    let (block, block_text) = f.u64("block")?;
    let (size, size_text) = f.positive("size")?;
    let flags = f.hex_u32("flags")?;
    f.finish(5)?;
    let (block, blocks) = ctx.extent(
        u128::from(block) * SECTOR,
        u128::from(size) * SECTOR,
        block_size,
        ("block", block_text),
        ("size", size_text),
    )?;
    Ok(TraceRecord {
        arrival: Some(arrival),
        device,
        block,
        blocks,
        kind: if flags & DISKSIM_READ != 0 {
            Kind::Read
        } else {
            Kind::Write
        },
        flags,
        measured: None,
        response: None,
        line: ctx.line,
        srt: None,
    })
}

/// Parses one validation trace line: `kind buffer block size access idle`,
/// white-space separated, block and size in 512-byte sectors, times in µs.
/// The device is always 0: a validation trace describes one drive.
pub(super) fn parse_validate(
    text: &str,
    ctx: &LineCtx<'_>,
    block_size: u32,
) -> Result<TraceRecord, super::TraceError> {
    let mut f = Fields::new(text.split_ascii_whitespace(), ctx);
    let kind_text = f.text("kind")?;
    let kind = match kind_text {
        "R" => Kind::Read,
        "W" => Kind::Write,
        other => return Err(ctx.invalid("kind", "R or W", other)),
    };
    let buffer_text = f.text("buffer")?;
    let buffer = match buffer_text {
        "Miss" => BufferOutcome::Miss,
        "Hit" => BufferOutcome::Hit,
        "Doub" => BufferOutcome::Doub,
        "Trip" => BufferOutcome::Trip,
        other => return Err(ctx.invalid("buffer", "Miss, Hit, Doub or Trip", other)),
    };
    let (block, block_text) = f.u64("block")?;
    let (size, size_text) = f.positive("size")?;
    let access = f.decimal("access", US, "a non-negative number of microseconds")?;
    let idle_after = f.decimal("idle", US, "a non-negative number of microseconds")?;
    f.finish(6)?;
    let (block, blocks) = ctx.extent(
        u128::from(block) * SECTOR,
        u128::from(size) * SECTOR,
        block_size,
        ("block", block_text),
        ("size", size_text),
    )?;
    Ok(TraceRecord {
        arrival: None,
        device: 0,
        block,
        blocks,
        kind,
        flags: 0,
        measured: Some(Measured {
            access,
            idle_after,
            buffer,
        }),
        response: None,
        line: ctx.line,
        srt: None,
    })
}
