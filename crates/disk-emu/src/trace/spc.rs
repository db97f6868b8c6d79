//! The Storage Performance Council trace format (SPC Trace File Format
//! Specification, revision 1.0.1, 2002), used by the UMass Trace Repository
//! for the Financial and WebSearch traces: one line per request,
//! `ASU,LBA,Size,Opcode,Timestamp[,optional fields]`.
//!
//! ASU is the zero-based application specific unit, LBA the block offset in
//! the ASU (512-byte blocks in the UMass traces), Size the transfer length in
//! bytes, Opcode `r`/`R` (read) or `w`/`W` (write), Timestamp the offset in
//! seconds from the start of the trace, which the specification requires to be
//! non-decreasing. Optional fields may follow, any number per line, and are
//! ignored. White space around a field is ignored (the specification allows it
//! after the comma only).

use sched_core::Kind;

use super::TraceRecord;
use super::text::{Fields, LineCtx};

/// Bytes in one LBA unit of the UMass SPC traces.
pub(super) const LBA_BYTES: u128 = 512;

/// Decimal places from seconds to nanoseconds.
const S: u32 = 9;

/// Parses one request line; the timestamp is kept as the trace gives it.
///
/// A size of zero is rejected although the specification allows it ("the
/// result of which is I/O subsystem dependent"): a request for no blocks has
/// no meaning to a disk model.
pub(super) fn parse(
    text: &str,
    ctx: &LineCtx<'_>,
    block_size: u32,
) -> Result<TraceRecord, super::TraceError> {
    let mut f = Fields::new(text.split(',').map(str::trim), ctx);
    let device = f.u32("asu")?;
    let (lba, lba_text) = f.u64("lba")?;
    let (size, size_text) = f.positive("size")?;
    let opcode = f.text("opcode")?;
    let kind = match opcode {
        "r" | "R" => Kind::Read,
        "w" | "W" => Kind::Write,
        other => return Err(ctx.invalid("opcode", "r, R, w or W", other)),
    };
    let arrival = f.decimal("timestamp", S, "a non-negative number of seconds")?;
    // Optional fields (6 through n) carry nothing the emulator uses.
    let (block, blocks) = ctx.extent(
        u128::from(lba) * LBA_BYTES,
        u128::from(size),
        block_size,
        ("lba", lba_text),
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
        response: None,
        line: ctx.line,
        srt: None,
    })
}
