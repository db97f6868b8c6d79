//! The MSR Cambridge block traces (Narayanan, Donnelly and Rowstron, "Write
//! off-loading", FAST 2008), as distributed by SNIA IOTTA: one CSV line per
//! request, `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//!
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601-01-01 UTC), Type is
//! `Read` or `Write`, Offset and Size are in bytes, ResponseTime is in 100 ns
//! ticks. The files never quote a field, so lines are split on every comma.

use sched_core::Kind;

use super::TraceRecord;
use super::text::{Fields, LineCtx};

/// The column names, which the SNIA files do not carry but some copies add as
/// a first line.
pub(super) const HEADER: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

/// Nanoseconds in one FILETIME tick.
const TICK: u64 = 100;

/// Whether line 1 is the optional column-name header (any letter case).
pub(super) fn is_header(text: &str) -> bool {
    text.trim().eq_ignore_ascii_case(HEADER)
}

/// Parses one request line. The arrival is absolute, in nanoseconds since
/// 1601-01-01; the reader makes it relative to the file's first request.
pub(super) fn parse(
    text: &str,
    ctx: &LineCtx<'_>,
    block_size: u32,
) -> Result<TraceRecord, super::TraceError> {
    let mut f = Fields::new(text.split(',').map(str::trim), ctx);
    let (ticks, ticks_text) = f.u64("timestamp")?;
    let arrival = ticks
        .checked_mul(TICK)
        .ok_or_else(|| ctx.overflow("timestamp", ticks_text))?;
    let host = f.text("hostname")?;
    if host.is_empty() {
        return Err(ctx.invalid("hostname", "a host name", host));
    }
    let device = f.u32("disk")?;
    let kind_text = f.text("type")?;
    let kind = if kind_text.eq_ignore_ascii_case("read") {
        Kind::Read
    } else if kind_text.eq_ignore_ascii_case("write") {
        Kind::Write
    } else {
        return Err(ctx.invalid("type", "Read or Write", kind_text));
    };
    let (offset, offset_text) = f.u64("offset")?;
    let (size, size_text) = f.positive("size")?;
    let (response, response_text) = f.u64("response")?;
    let response = response
        .checked_mul(TICK)
        .ok_or_else(|| ctx.overflow("response", response_text))?;
    f.finish(7)?;
    let (block, blocks) = ctx.extent(
        u128::from(offset),
        u128::from(size),
        block_size,
        ("offset", offset_text),
        ("size", size_text),
    )?;
    Ok(TraceRecord {
        arrival: Some(arrival),
        device,
        block,
        blocks,
        kind,
        flags: 0,
        measured: None,
        response: Some(response),
        line: ctx.line,
        srt: None,
    })
}
