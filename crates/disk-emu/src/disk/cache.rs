//! A drive's on-board cache and the controller around it ([`CacheSpec`]):
//! buffer segments, read-ahead, write-back, command overheads that depend
//! on the kind of request and on the one before it, and the host bus.
//!
//! # The model
//!
//! The buffer holds [`CacheSpec::segments`] segments, each a run of
//! consecutive blocks. A request goes through it as follows (times are
//! integer nanoseconds, mechanics as in [`DiskModel`](super::DiskModel)):
//!
//! - **Read hit**: every block is in a segment (counting what read-ahead has
//!   read by the request's arrival). The drive pays the read-hit command
//!   overhead and sends the blocks over the bus; the media is not touched.
//! - **Read joining the read-ahead**: the request starts inside the segment
//!   the drive is reading ahead into (or ahead of it, within its reach). The
//!   read-ahead goes on and the request waits only for the blocks it has not
//!   read yet; the read-hit overhead if some of its blocks are already there,
//!   the read-miss one if none are.
//! - **Read partly in a read segment** whose read-ahead has stopped:
//!   read-hit overhead; the cached part goes over the bus at once, the rest
//!   is read from the media from where the segment ends. (Blocks that writes
//!   left serve whole reads only.)
//! - **Read miss**: the least recently used read segment is emptied for it;
//!   the drive pays the read-miss overhead, then seeks, waits for the
//!   rotation and reads. It disconnects from the bus and reconnects once a
//!   watermark of the request is in the buffer; the bus transfer overlaps the
//!   media transfer, block by block. A drive that reads any free blocks
//!   ([`CacheSpec::read_free_blocks`]) also keeps the blocks of the track
//!   that pass under the heads before the request's first one (the oldest
//!   blocks of the segment, the first to go as read-ahead fills it).
//! - **Settling**: a media read that starts on the arm's own cylinder but on
//!   another surface takes at least as long as a one-cylinder seek to
//!   position, however short the drive's head switch time: the new head
//!   settles on its track as after a seek. Extracted head switch times can
//!   be far below that (DiskSim's IBM 18ES: 0.062 ms against a 1.062 ms
//!   one-cylinder seek; Cheetah 9LP 0.03 against 0.831), and the drives'
//!   validation traces show the settling: the IBM 18ES's reads on the arm's
//!   cylinder wait 0.8 ms more than such a head switch on average, and
//!   hardly ever less than 1 ms. Sequential transfers across tracks keep
//!   the head switch time (the layout's skews hide it).
//! - **Read-ahead**: after a read from the media the drive reads on into the
//!   segment until its limit ([`ReadAheadSpec`]) or until the next request
//!   needs the arm, whichever comes first. Nothing is simulated in between:
//!   when the next request arrives, how far the read-ahead got is worked out
//!   from the time that has passed, exactly as the media transfer of those
//!   blocks would be timed. Where it stopped is where the arm is.
//! - **Write-through**: the write-miss overhead (or, on a drive with extra
//!   write disconnects, for a write after a write it does not continue,
//!   the command overhead, a disconnection and a reselection before the
//!   data), the data over the bus into the buffer while the arm seeks and
//!   settles (taking at least the minimum positioning time), the media
//!   write sector by sector as DiskSim's controller does it: each block is
//!   written at the first pass of its slot once its data (and the drive's
//!   minimum start amount, [`WriteStart`]) is in the buffer, so a write
//!   that outruns the bus loses a revolution; then reconnection and
//!   completion.
//! - **Write-back**: the write-hit overhead and the bus transfer, then the
//!   drive reports completion; the media write goes on in the background,
//!   timed then and there (it starts after the command overhead, as a
//!   write-through one would). A write that continues the data being written
//!   back joins it if its data arrives in time; any other request waits for
//!   the media write to end before its own media access or bus transfer (the
//!   drive writes dirty data back before serving anything else).
//!
//! Segments are replaced least recently used first. A write empties the
//! other segments holding any of its blocks; its own segment keeps its data
//! for later reads if [`CacheSpec::read_hits_on_write_data`].
//!
//! # Approximations
//!
//! - One request at a time, the next one's arrival bounding the background
//!   work before it: the drive has no queue of its own (DiskSim's validation
//!   traces, and every emulated unit, issue one request at a time to it).
//!   Sneaky and intermediate hits, write prebuffering and preseeking, which
//!   only matter with a queue in the drive, are not modelled.
//! - Hits are decided on what the buffer holds when the request arrives;
//!   read-ahead goes on through the command overhead, until the request's
//!   media access starts, and is stopped at a block boundary.
//! - A read that starts ahead of the read-ahead, within its reach, waits for
//!   it rather than seeking.
//! - The bus moves whole blocks at one rate each way; a transfer that
//!   overlaps the media one ends one block after the media's last block at
//!   the earliest, and one bus time per block after its first available
//!   block or its start at the earliest (exact when blocks become available
//!   at a steady rate).
//! - At most one write-back is outstanding in the timing: anything else
//!   waits for it, so a drive with several write segments is treated as one
//!   with a single one. The data is tracked write by write all the same
//!   (below): a write joining a write-back, or served while an earlier
//!   one's media write goes on, never takes that one's place.
//! - Sequential writes always combine into one segment; a read that hits
//!   dirty data waits for the write-back like any other request.
//!
//! # What a power cut loses
//!
//! The cache remembers every write it has written back ([`Unflushed`]), by
//! request: its blocks, when the drive reported it complete
//! (`acknowledged`) and when the media write of its last block ends
//! (`durable_at`); however many there are. A power cut at `t` loses exactly
//! the writes with `acknowledged <= t < durable_at`; a write still in
//! service at `t` is not acknowledged, so not lost (its service goes on),
//! and a write whose media write has ended is on the media. In NBD's terms
//! (the protocol's `NBD_CMD_FLUSH` and `NBD_CMD_FLAG_FUA`): a write the
//! client saw completed is volatile until a `FLUSH` sent after it
//! completes, or until its own `FUA` completes; the real-time device
//! answers a `FLUSH` once every write held here is past `durable_at`, and a
//! `FUA` write once its own entry is. Which of the volatile writes a cut
//! takes (all, some, part of one) is the fault injector's crash model
//! ([`crate::faults::CrashModel`]).
//!
//! The breakdown of a service: `seek`, `rotation` and `transfer` are this
//! request's own media work that the host waited for (none for a hit or a
//! write-back); `overhead` is the rest: command and completion overheads,
//! the bus transfer beyond the media transfer, reconnections, and any wait
//! for a write-back. `seek_distance` counts the arm's travel for the
//! request, in the background too.

use std::cell::Cell;

use sched_core::{Kind, Nanos, Request, RequestId, Travel};
use serde::{Deserialize, Serialize};

use super::geometry::Location;
use super::mechanics::{Arm, Mechanics, MediaStart, WriteData, latency_to, start_angle};
use super::seek::duration;
use super::{DiskError, ServiceBreakdown};
use crate::random::Stream;

/// A drive's on-board cache and controller: the `cache` section of a
/// [`DiskSpec`](super::DiskSpec).
///
/// ```toml
/// [cache]
/// segments = 2
/// segment_blocks = 256
/// write_segment = true
/// read_hits_on_write_data = true
/// write_back = "off"
///
/// [cache.read_ahead]
/// scheme = "segment"
/// max_blocks = 128
/// replace_requested = true
/// on_hit = true
///
/// [cache.overheads]
/// read_hit = { after_read_ms = 0.98, after_write_ms = 0.98 }
/// read_miss = { after_read_ms = 0.56, after_write_ms = 0.56 }
/// write_hit = { after_read_ms = 0.85, after_write_ms = 0.85 }
/// write_miss = { after_read_ms = 0.89, after_write_ms = 0.89 }
/// read_completion_ms = 0.057
///
/// [cache.bus]
/// read_block_ms = 0.1701
/// write_block_ms = 0.18686
/// read_watermark = 0.75
/// ```
///
/// A cache needs tracked rotation and geometric transfer: read-ahead and
/// write-back are timed on the spinning media.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSpec {
    /// Buffer segments; each holds one run of consecutive blocks (DiskSim:
    /// `Number of buffer segments`).
    pub segments: u32,
    /// Blocks a segment holds (`Segment size (in blks)`).
    pub segment_blocks: u32,
    /// One segment is kept for writes; reads use the others (`Use separate
    /// write segment`).
    #[serde(default)]
    pub write_segment: bool,
    /// Reads may be served from blocks that writes left in the buffer
    /// (`Allow read hits on write data`).
    #[serde(default)]
    pub read_hits_on_write_data: bool,
    /// A read that misses reads into its segment the blocks of its track
    /// that pass under the heads while they wait for its first block
    /// (`Read any free blocks`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_free_blocks: bool,
    /// When a write is reported complete (`Fast write level`).
    #[serde(default)]
    pub write_back: WriteBack,
    /// Reading on after a read.
    pub read_ahead: ReadAheadSpec,
    /// Command, completion and reconnection overheads.
    pub overheads: CacheOverheads,
    /// The host bus; without it transfers to and from the host take no time.
    #[serde(default)]
    pub bus: BusSpec,
}

/// When a write is reported complete.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteBack {
    /// After its data is on the media (DiskSim fast write level 0).
    #[default]
    Off,
    /// Once its data is in the buffer, if it continues the data of the last
    /// write; otherwise after the media write (level 1).
    Appends,
    /// Once its data is in the buffer (level 2).
    All,
}

/// How far the drive reads on after the last block a read asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadAheadScheme {
    /// Not at all (DiskSim `Buffer continuous read` 0).
    None,
    /// To the end of the track of the request's last block (1).
    Track,
    /// To the end of its cylinder (2).
    Cylinder,
    /// Until the segment is full (3).
    Segment,
    /// To the end of the track after the request; to the end of the track
    /// after that when the segment already spans an earlier track, i.e. the
    /// reads are sequential (4). As in DiskSim, a `max_blocks` equal to (or
    /// above) the segment size does not bound it, nor does the segment: a
    /// shorter segment wraps, keeping the blocks read last. A `max_blocks`
    /// below the segment size is a limit measured on the drive and bounds
    /// it like the other schemes (DiskSim ignores it; the Quantum Atlas
    /// 10K's trace follows it).
    NextTrack,
}

/// Read-ahead after a read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadAheadSpec {
    /// How far.
    pub scheme: ReadAheadScheme,
    /// Blocks past the request the drive reads before it serves anything
    /// else (`Minimum read-ahead (blks)`).
    #[serde(default)]
    pub min_blocks: u32,
    /// At most this many blocks past the request, whatever the scheme
    /// (`Maximum read-ahead (blks)`).
    pub max_blocks: u32,
    /// Read-ahead may overwrite the blocks the host just read, the segment
    /// keeping its last `segment_blocks`; otherwise it stops when the
    /// segment is full (`Read-ahead over requested`).
    #[serde(default)]
    pub replace_requested: bool,
    /// A read served wholly from a segment whose read-ahead has stopped
    /// starts it again, if the arm is free (`Read-ahead on idle hit`).
    #[serde(default)]
    pub on_hit: bool,
}

/// An overhead that depends on whether the previous request was a read or
/// a write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AfterPrevious {
    /// After a read, ms.
    pub after_read_ms: f64,
    /// After a write, ms.
    pub after_write_ms: f64,
}

/// The controller's overheads, ms. The command overheads come before any
/// media access or bus transfer of the request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheOverheads {
    /// A read served from the buffer, wholly or in part.
    pub read_hit: AfterPrevious,
    /// A read none of whose blocks is in the buffer.
    pub read_miss: AfterPrevious,
    /// A write reported complete once in the buffer (write-back).
    pub write_hit: AfterPrevious,
    /// A write reported complete once on the media (write-through).
    pub write_miss: AfterPrevious,
    /// Before a read's completion is reported.
    #[serde(default)]
    pub read_completion_ms: f64,
    /// Before a write's completion is reported.
    #[serde(default)]
    pub write_completion_ms: f64,
    /// Reconnecting to the host before sending data, after the drive has
    /// disconnected: a read from the media, or any request that waited for
    /// a write-back.
    #[serde(default)]
    pub reconnect_ms: f64,
    /// Reconnecting to report a write-through write complete after its
    /// media write.
    #[serde(default)]
    pub completion_reconnect_ms: f64,
    /// From the end of a write's command overhead to the start of its data
    /// transfer (a drive that disconnects before taking the data).
    #[serde(default)]
    pub write_data_delay_ms: f64,
    /// Extra settling before a media write when the heads have moved (seek
    /// or head switch), also in the middle of a write that crosses tracks
    /// (DiskSim: `Add. write settling delay`, which may be negative: a
    /// write then positions faster than a read).
    #[serde(default)]
    pub write_settle_ms: f64,
    /// A media write that does not go straight on from the one before takes
    /// at least this long to position, settling included (`Minimum seek
    /// delay`).
    #[serde(default)]
    pub write_min_positioning_ms: f64,
    /// A drive that disconnects after the command of a write that does not
    /// continue the previous write, before taking its data (DiskSim's
    /// `Extra write disconnect`); other writes take the path above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_write_disconnect: Option<ExtraWriteDisconnect>,
}

/// The path of a write through a drive with extra write disconnects, ms:
/// it replaces the write-miss command overhead, the data delay and the
/// completion reconnection of [`CacheOverheads`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraWriteDisconnect {
    /// From the command to the start of the mechanics (DiskSim:
    /// `Extradisc command overhead` + `Extradisc seek delta`).
    pub command_ms: f64,
    /// From then to the start of the data transfer (disconnecting, waiting,
    /// reselecting, preparing the data).
    pub data_delay_ms: f64,
    /// Reconnecting to report completion after the media write (`Other
    /// reselect overhead`).
    pub completion_reconnect_ms: f64,
}

/// How much of a write's data must be in the buffer before the media write
/// may start, besides each block's own data (DiskSim has drives with `Extra
/// write disconnect` wait for 10 blocks, or 15 for a write of 45 or more,
/// all of them for smaller writes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteStart {
    /// Blocks needed (capped at the write's length); 0 for none.
    pub blocks: u32,
    /// Writes of at least this many blocks need `large_blocks` instead
    /// (0: no such writes).
    #[serde(default)]
    pub large_from: u32,
    /// Blocks needed by a large write.
    #[serde(default)]
    pub large_blocks: u32,
}

impl WriteStart {
    fn is_none(&self) -> bool {
        *self == WriteStart::default()
    }

    /// Blocks in the buffer before a write of `n` blocks starts on the media.
    fn blocks_before(&self, n: u64) -> u64 {
        let need = if self.large_from > 0 && n >= u64::from(self.large_from) {
            self.large_blocks
        } else {
            self.blocks
        };
        u64::from(need).min(n)
    }
}

/// The host bus.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusSpec {
    /// Time to send one block to the host, ms.
    #[serde(default)]
    pub read_block_ms: f64,
    /// Time to take one block from the host, ms.
    #[serde(default)]
    pub write_block_ms: f64,
    /// A read from the media reconnects to the bus once this fraction of it
    /// (at least one block) is in the buffer (DiskSim's `High (read) water
    /// mark` with `Set watermark by reqsize`).
    #[serde(default)]
    pub read_watermark: f64,
    /// Data a media write waits for.
    #[serde(default, skip_serializing_if = "WriteStart::is_none")]
    pub write_start: WriteStart,
}

/// A signed duration in ms, checked and converted to ns.
fn signed_ns(field: &str, ms: f64) -> Result<i64, DiskError> {
    if ms.is_finite() && ms.abs() < 1e9 {
        Ok((ms * 1e6).round() as i64)
    } else {
        Err(DiskError::invalid(
            field,
            ms,
            "a finite number of milliseconds (it may be negative)",
        ))
    }
}

/// The most segments a cache may have (drives have a few dozen at most).
const MAX_SEGMENTS: u32 = 1024;

/// A checked [`CacheSpec`] in the model's units.
#[derive(Clone, Debug, PartialEq)]
struct Config {
    segments: usize,
    segment_blocks: u64,
    write_segment: bool,
    read_hits_on_write_data: bool,
    read_free_blocks: bool,
    write_back: WriteBack,
    read_ahead: ReadAheadScheme,
    min_ahead: u64,
    max_ahead: u64,
    replace_requested: bool,
    ahead_on_hit: bool,
    /// Command overheads, indexed by the previous request: 0 after a read,
    /// 1 after a write; each with the per-request overhead added.
    read_hit: [Nanos; 2],
    read_miss: [Nanos; 2],
    write_hit: [Nanos; 2],
    write_miss: [Nanos; 2],
    read_completion: Nanos,
    write_completion: Nanos,
    reconnect: Nanos,
    completion_reconnect: Nanos,
    write_data_delay: Nanos,
    /// Signed: DiskSim allows a negative settling delay.
    write_settle: i64,
    /// (command, data delay, completion reconnection) of a write after an
    /// extra disconnect.
    extra_write: Option<(Nanos, Nanos, Nanos)>,
    write_min_positioning: Nanos,
    bus_read: Nanos,
    bus_write: Nanos,
    write_start: WriteStart,
    watermark: f64,
    /// One revolution of the spindle, ps.
    period_ps: u64,
}

/// One write a drive holds in its buffer and has not yet put on the media
/// (the drive reports it complete at `acknowledged`, before `durable_at`
/// with a write-back cache): what a power cut between the two may lose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unflushed {
    /// The write.
    pub id: RequestId,
    /// Its blocks (clamped to the disk, as it was served).
    pub blocks: std::ops::Range<u64>,
    /// When the drive reported it complete.
    pub acknowledged: Nanos,
    /// When the media write of its last block ends.
    pub durable_at: Nanos,
}

/// A buffer segment: blocks `start..end` (none when equal), the request
/// that last used it (for LRU), and whether a write put them there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Segment {
    start: u64,
    end: u64,
    used: u64,
    written: bool,
}

/// A sequential media read under way: block `origin.block` (its first)
/// started under the heads at `start`, and the drive reads on, block after
/// block, up to `limit` (the request's blocks, then read-ahead), unless a
/// request stops it; it may not be stopped before it has read up to `hold`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Prefetch {
    segment: usize,
    /// Its first block, located.
    origin: MediaStart,
    start: Nanos,
    limit: u64,
    hold: u64,
    /// When every block before `hold` is read, if known: the request that
    /// started the read-ahead waited for its blocks, and without a minimum
    /// read-ahead it holds the arm until then.
    hold_read: Option<(u64, Nanos)>,
}

impl Prefetch {
    /// The first block read.
    fn first(&self) -> u64 {
        self.origin.block
    }
}

/// How far a read-ahead had read at a time, worked out: the first block
/// not read by `at` of the read-ahead from `first` that started at `start`
/// and reads up to `limit` (what its progress depends on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Progress {
    first: u64,
    start: Nanos,
    limit: u64,
    at: Nanos,
    frontier: u64,
}

/// A write-back under way: `blocks` blocks from `first`, written from `start`
/// until `done`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Flush {
    first: u64,
    start: Nanos,
    blocks: u64,
    done: Nanos,
}

/// What the buffer holds and what the drive is doing in the background.
#[derive(Clone, Debug, PartialEq)]
struct State {
    segments: Vec<Segment>,
    prefetch: Option<Prefetch>,
    flush: Option<Flush>,
    /// Requests served so far: the LRU clock.
    clock: u64,
    /// Whether the last request was a write.
    after_write: bool,
    /// The block after the last write's, if there was one (what a write
    /// must start at to continue it).
    last_write_end: Option<u64>,
}

/// A disk's cache: its configuration and its state.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Cache {
    config: Config,
    state: State,
    /// Every written-back write whose media write may not have ended, in
    /// the order they were served: one entry a write, however many there
    /// are, so that a write joining a write-back under way, or one served
    /// while an earlier one is still in the buffer, never takes an earlier
    /// one's place. Entries go once their media write has ended (pruned as
    /// requests arrive; readers filter by time).
    dirty: Vec<Unflushed>,
}

impl Cache {
    /// Checks `spec` and builds an empty cache for a disk whose controller
    /// overhead (added to every command overhead) is `per_request` and whose
    /// spindle turns once every `period_ps`.
    ///
    /// # Errors
    /// [`DiskError::Zero`] for no segments or empty ones;
    /// [`DiskError::InvalidParameter`] naming the field for a negative or
    /// non-finite time, a watermark outside [0, 1], more than 1024
    /// segments, or a write segment that would leave reads none.
    pub(super) fn new(
        spec: &CacheSpec,
        per_request: Nanos,
        period_ps: u64,
    ) -> Result<Cache, DiskError> {
        if spec.segments == 0 {
            return Err(DiskError::Zero {
                field: "cache.segments",
            });
        }
        if spec.segments > MAX_SEGMENTS {
            return Err(DiskError::invalid(
                "cache.segments",
                spec.segments,
                "at most 1024: every request looks through them all",
            ));
        }
        if spec.segment_blocks == 0 {
            return Err(DiskError::Zero {
                field: "cache.segment_blocks",
            });
        }
        if spec.write_segment && spec.segments < 2 {
            return Err(DiskError::invalid(
                "cache.segments",
                spec.segments,
                "at least 2 with a write segment, which leaves the others to reads",
            ));
        }
        let w = spec.bus.read_watermark;
        if !(0.0..=1.0).contains(&w) {
            return Err(DiskError::invalid(
                "cache.bus.read_watermark",
                w,
                "a fraction of the request in [0, 1]",
            ));
        }
        let o = &spec.overheads;
        let ms = |field: &str, ms: f64| duration(&format!("cache.{field}"), ms);
        let pair = |field: &str, x: &AfterPrevious| -> Result<[Nanos; 2], DiskError> {
            Ok([
                per_request + ms(&format!("overheads.{field}.after_read_ms"), x.after_read_ms)?,
                per_request
                    + ms(
                        &format!("overheads.{field}.after_write_ms"),
                        x.after_write_ms,
                    )?,
            ])
        };
        let config = Config {
            segments: spec.segments as usize,
            segment_blocks: u64::from(spec.segment_blocks),
            write_segment: spec.write_segment,
            read_hits_on_write_data: spec.read_hits_on_write_data,
            read_free_blocks: spec.read_free_blocks,
            write_back: spec.write_back,
            read_ahead: spec.read_ahead.scheme,
            min_ahead: u64::from(spec.read_ahead.min_blocks),
            max_ahead: u64::from(spec.read_ahead.max_blocks),
            replace_requested: spec.read_ahead.replace_requested,
            ahead_on_hit: spec.read_ahead.on_hit,
            read_hit: pair("read_hit", &o.read_hit)?,
            read_miss: pair("read_miss", &o.read_miss)?,
            write_hit: pair("write_hit", &o.write_hit)?,
            write_miss: pair("write_miss", &o.write_miss)?,
            read_completion: ms("overheads.read_completion_ms", o.read_completion_ms)?,
            write_completion: ms("overheads.write_completion_ms", o.write_completion_ms)?,
            reconnect: ms("overheads.reconnect_ms", o.reconnect_ms)?,
            completion_reconnect: ms(
                "overheads.completion_reconnect_ms",
                o.completion_reconnect_ms,
            )?,
            write_data_delay: ms("overheads.write_data_delay_ms", o.write_data_delay_ms)?,
            write_settle: signed_ns("cache.overheads.write_settle_ms", o.write_settle_ms)?,
            extra_write: match &o.extra_write_disconnect {
                None => None,
                Some(x) => Some((
                    per_request + ms("overheads.extra_write_disconnect.command_ms", x.command_ms)?,
                    ms(
                        "overheads.extra_write_disconnect.data_delay_ms",
                        x.data_delay_ms,
                    )?,
                    ms(
                        "overheads.extra_write_disconnect.completion_reconnect_ms",
                        x.completion_reconnect_ms,
                    )?,
                )),
            },
            write_min_positioning: ms(
                "overheads.write_min_positioning_ms",
                o.write_min_positioning_ms,
            )?,
            bus_read: ms("bus.read_block_ms", spec.bus.read_block_ms)?,
            bus_write: ms("bus.write_block_ms", spec.bus.write_block_ms)?,
            write_start: spec.bus.write_start,
            watermark: w,
            period_ps,
        };
        let state = State {
            segments: vec![Segment::default(); config.segments],
            prefetch: None,
            flush: None,
            clock: 0,
            after_write: false,
            last_write_end: None,
        };
        Ok(Cache {
            config,
            state,
            dirty: Vec::new(),
        })
    }

    /// The written-back writes whose media write has not ended by `at`, in
    /// the order they were served. One may be acknowledged after `at` (the
    /// write in service).
    pub(super) fn unflushed(&self, at: Nanos) -> Vec<Unflushed> {
        self.dirty
            .iter()
            .filter(|d| d.durable_at > at)
            .cloned()
            .collect()
    }

    /// The drive reported write `id` complete at `at` (later than the
    /// cache's own timing on a slowed disk).
    pub(super) fn acknowledged(&mut self, id: RequestId, at: Nanos) {
        if let Some(d) = self.dirty.iter_mut().rev().find(|d| d.id == id) {
            d.acknowledged = at;
        }
    }

    /// Power lost at `at`: the buffer empties and the drive forgets its
    /// background work; returns the writes it had acknowledged by `at` and
    /// not yet put on the media, in the order they were served. A write
    /// still in service (acknowledged after `at`) is not lost: the model
    /// does not time a drive's restart, so its service goes on.
    pub(super) fn cut_power(&mut self, at: Nanos) -> Vec<Unflushed> {
        let (lost, kept): (Vec<Unflushed>, Vec<Unflushed>) = std::mem::take(&mut self.dirty)
            .into_iter()
            .filter(|d| d.durable_at > at)
            .partition(|d| d.acknowledged <= at);
        self.dirty = kept;
        self.state = State {
            segments: vec![Segment::default(); self.config.segments],
            prefetch: None,
            flush: None,
            clock: self.state.clock,
            after_write: false,
            last_write_end: None,
        };
        lost
    }

    /// What a read that misses pays after a read, besides the media and
    /// the bus: command and completion overheads.
    pub(super) fn read_miss_overhead(&self) -> Nanos {
        self.config.read_miss[0] + self.config.read_completion
    }

    /// Serves `req`, arriving at `start`, on `disk` with the heads at `arm`
    /// (moved to where the media work leaves them), drawing random seeks
    /// from `rng`; `first` is its first block located, if the caller has it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn serve(
        &mut self,
        disk: &Mechanics,
        arm: &mut Arm,
        req: &Request,
        first: Option<MediaStart>,
        travel: Travel,
        start: Nanos,
        rng: &mut Stream,
    ) -> ServiceBreakdown {
        self.dirty.retain(|d| d.durable_at > start);
        let breakdown = Pass {
            cfg: &self.config,
            st: &mut self.state,
            disk,
            arm,
            rng: Some(rng),
            first,
            frontier: Cell::new(None),
        }
        .serve(req, travel, start);
        // A written-back write leaves its write-back under way (a
        // write-through one none), ending when its own last block is on the
        // media, whether it began one or joined one.
        if req.kind == Kind::Write
            && let Some(f) = self.state.flush
        {
            let (block, end) = clamped(req, disk.capacity_blocks());
            self.dirty.push(Unflushed {
                id: req.id,
                blocks: block..end,
                acknowledged: start + breakdown.total(),
                durable_at: f.done,
            });
        }
        breakdown
    }

    /// What [`Cache::serve`] would give at `now` with the heads at `arm`,
    /// expected seek times for a random seek model; nothing changes.
    pub(super) fn estimate(
        &self,
        disk: &Mechanics,
        mut arm: Arm,
        req: &Request,
        now: Nanos,
    ) -> ServiceBreakdown {
        let mut state = self.state.clone();
        Pass {
            cfg: &self.config,
            st: &mut state,
            disk,
            arm: &mut arm,
            rng: None,
            first: None,
            frontier: Cell::new(None),
        }
        .serve(req, Travel::Direct, now)
    }
}

/// The blocks `req` is served at: past the end of the disk, as its last
/// block (as the cache-free model does).
fn clamped(req: &Request, capacity: u64) -> (u64, u64) {
    let block = req.block.min(capacity - 1);
    let end = req
        .block
        .saturating_add(u64::from(req.blocks.max(1)))
        .clamp(block + 1, capacity);
    (block, end)
}

/// A breakdown whose overhead is what the media parts leave of `total`.
fn parts(
    total: Nanos,
    seek: Nanos,
    rotation: Nanos,
    transfer: Nanos,
    seek_distance: u32,
) -> ServiceBreakdown {
    ServiceBreakdown {
        seek,
        rotation,
        transfer,
        overhead: total - seek - rotation - transfer,
        seek_distance,
    }
}

/// One request going through the cache.
struct Pass<'a> {
    cfg: &'a Config,
    st: &'a mut State,
    disk: &'a Mechanics,
    arm: &'a mut Arm,
    /// Where random seek times come from; `None`: their means.
    rng: Option<&'a mut Stream>,
    /// The request's first block located, if the caller had it: a read
    /// that misses starts its media read there.
    first: Option<MediaStart>,
    /// The last read-ahead progress worked out: a request asks for it
    /// several times at the same time.
    frontier: Cell<Option<Progress>>,
}

impl Pass<'_> {
    fn serve(&mut self, req: &Request, travel: Travel, start: Nanos) -> ServiceBreakdown {
        let (block, end) = clamped(req, self.disk.capacity_blocks());
        self.st.clock += 1;
        if self.st.flush.is_some_and(|f| f.done <= start) {
            self.st.flush = None;
        }
        let breakdown = match req.kind {
            Kind::Read => self.read(block, end, travel, start),
            Kind::Write => self.write(block, end, travel, start),
        };
        self.st.after_write = req.kind == Kind::Write;
        breakdown
    }

    /// Index of the previous request's kind into the overhead pairs.
    fn prev(&self) -> usize {
        usize::from(self.st.after_write)
    }

    /// Media time of `blocks` blocks from `block`.
    fn media(&self, block: u64, blocks: u64) -> Nanos {
        self.disk.media_time(block, blocks, self.cfg.period_ps)
    }

    /// When `p` has read every block before `upto`.
    fn read_by(&self, p: &Prefetch, upto: u64) -> Nanos {
        p.start
            + self
                .disk
                .media_time_from(&p.origin, upto - p.first(), self.cfg.period_ps)
    }

    /// For a read of `block..end` that `p` reads from the media, done by
    /// `last_in`: when its first block is in the buffer, and when enough of
    /// it is for the drive to reconnect (the watermark). A one-block read,
    /// the usual case, needs no further walk.
    #[inline]
    fn first_and_mark(&self, p: &Prefetch, block: u64, end: u64, last_in: Nanos) -> (Nanos, Nanos) {
        if end - block == 1 {
            // Its one block is its first and its watermark.
            return (last_in, last_in);
        }
        let by = |upto: u64| {
            if upto == end {
                last_in
            } else {
                self.read_by(p, upto)
            }
        };
        (by(block + 1), by(block + self.watermark(end - block)))
    }

    /// The first block `p` has not read by `t`.
    fn frontier(&self, p: &Prefetch, t: Nanos) -> u64 {
        if let Some(known) = self.frontier.get()
            && (known.first, known.start, known.limit, known.at) == (p.first(), p.start, p.limit, t)
        {
            return known.frontier;
        }
        let frontier = self.progress(p, t);
        self.frontier.set(Some(Progress {
            first: p.first(),
            start: p.start,
            limit: p.limit,
            at: t,
            frontier,
        }));
        frontier
    }

    /// [`Pass::frontier`], worked out.
    fn progress(&self, p: &Prefetch, t: Nanos) -> u64 {
        match t.checked_sub(p.start) {
            Some(elapsed) => {
                p.first()
                    + self.disk.media_read_within(
                        &p.origin,
                        p.limit - p.first(),
                        self.cfg.period_ps,
                        elapsed,
                    )
            }
            None => p.first(),
        }
    }

    /// The read-ahead, if it is still reading at `t`.
    fn running(&self, t: Nanos) -> Option<Prefetch> {
        self.st.prefetch.filter(|p| self.frontier(p, t) < p.limit)
    }

    /// The blocks `lo..hi` segment `i` holds for reads at `t`, counting the
    /// read-ahead's progress; `None` if none may be read.
    fn readable(&self, i: usize, t: Nanos) -> Option<(u64, u64)> {
        let s = self.st.segments[i];
        if s.written && !self.cfg.read_hits_on_write_data {
            return None;
        }
        let hi = match &self.st.prefetch {
            Some(p) if p.segment == i => self.frontier(p, t).max(s.end),
            _ => s.end,
        };
        let lo = s.start.max(hi.saturating_sub(self.cfg.segment_blocks));
        (lo < hi).then_some((lo, hi))
    }

    /// Whether segment `i` may hold `block` at some time: it starts at or
    /// before it, and it ends, or its read-ahead stops, after it. A segment
    /// that may not is never [`Pass::readable`] at `block`.
    fn may_hold(&self, i: usize, block: u64) -> bool {
        let s = self.st.segments[i];
        let reach = match &self.st.prefetch {
            Some(p) if p.segment == i => s.end.max(p.limit),
            _ => s.end,
        };
        s.start <= block && block < reach
    }

    /// Stops the read-ahead at `t`: its segment keeps what it read (its last
    /// `segment_blocks`), and the heads stay on the track of the last block
    /// read.
    #[inline]
    fn stop_prefetch(&mut self, t: Nanos) {
        let Some(p) = &self.st.prefetch else {
            return;
        };
        // Worked out afresh, not through the memo: a read-ahead is stopped
        // once, mostly at a time no one asked about before.
        let end = self.progress(p, t);
        let last = end.saturating_sub(1).max(p.first());
        // Mostly the read-ahead has not left its first track.
        *self.arm = if last - p.first() < u64::from(p.origin.at.left_on_track()) {
            Arm::on(&p.origin.at)
        } else {
            Arm::on(&self.disk.place(last))
        };
        let seg = &mut self.st.segments[p.segment];
        seg.end = seg.end.max(end);
        seg.start = seg
            .start
            .max(seg.end.saturating_sub(self.cfg.segment_blocks));
        self.st.prefetch = None;
    }

    /// When the running read-ahead, if any, lets the arm go.
    #[inline]
    fn held_until(&self) -> Nanos {
        self.st.prefetch.as_ref().map_or(0, |p| match p.hold_read {
            Some((hold, at)) if hold == p.hold => at,
            _ => self.read_by(p, p.hold),
        })
    }

    /// Marks segment `i` used by this request.
    fn touch(&mut self, i: usize) {
        self.st.segments[i].used = self.st.clock;
    }

    /// The least recently used segment of those from `first` on (empty ones
    /// count as never used), the lowest index on a tie.
    fn lru(&self, first: usize) -> usize {
        (first..self.cfg.segments)
            .min_by_key(|&i| (self.st.segments[i].used, i))
            .unwrap_or(first)
    }

    /// The end of the track holding `block` (the capacity past the end).
    fn track_end(&self, block: u64) -> u64 {
        let capacity = self.disk.capacity_blocks();
        if block >= capacity {
            capacity
        } else {
            block + u64::from(self.disk.place(block).left_on_track())
        }
    }

    /// How far a read of blocks up to `end` reads ahead into a segment
    /// starting at `seg_start`: the block it stops before.
    #[inline]
    fn ahead_limit(&self, end: u64, seg_start: u64) -> u64 {
        let capacity = self.disk.capacity_blocks();
        let most = end.saturating_add(self.cfg.max_ahead);
        let reach = match self.cfg.read_ahead {
            ReadAheadScheme::None => end,
            ReadAheadScheme::Segment => most,
            _ => match self.track_reach(end, seg_start, most) {
                Ok(reach) => reach,
                Err(limit) => return limit,
            },
        };
        let mut limit = reach.min(most);
        if !self.cfg.replace_requested {
            limit = limit.min(seg_start.saturating_add(self.cfg.segment_blocks));
        }
        limit.max(end).min(capacity)
    }

    /// The reach of the read-ahead scheme for [`Pass::ahead_limit`], `most`
    /// past a read ending at `end`: `Ok` to be bounded as any reach is,
    /// `Err` for the limit itself when the scheme sets its own. Kept apart
    /// for the schemes bounded by tracks, so that the common schemes' limit
    /// is a few instructions inline.
    #[inline(never)]
    fn track_reach(&self, end: u64, seg_start: u64, most: u64) -> Result<u64, u64> {
        let capacity = self.disk.capacity_blocks();
        Ok(match self.cfg.read_ahead {
            ReadAheadScheme::None => end,
            ReadAheadScheme::Segment => most,
            ReadAheadScheme::Track => self.track_end(end - 1),
            ReadAheadScheme::Cylinder => {
                let cylinder = self.disk.place(end - 1).cylinder;
                let mut e = self.track_end(end - 1);
                while e < capacity && self.disk.place(e).cylinder == cylinder {
                    e = self.track_end(e);
                }
                e
            }
            ReadAheadScheme::NextTrack => {
                let e = self.track_end(end);
                let (here, from) = (self.disk.place(end), self.disk.place(seg_start));
                let reach = if (here.cylinder, here.surface) != (from.cylinder, from.surface) {
                    self.track_end(e)
                } else {
                    e
                };
                if self.cfg.max_ahead >= self.cfg.segment_blocks {
                    // DiskSim's DEC rule sets its own reach: neither
                    // `Maximum read-ahead` nor the segment's size bounds
                    // it. The segment wraps as the heads read on and keeps
                    // the last `segment_blocks`, so with a segment shorter
                    // than the track the blocks just past the request are
                    // overwritten before the next request comes (the
                    // Quantum Atlas III: 64-block segments; its sequential
                    // re-reads go to the media).
                    return Err(reach.max(end).min(capacity));
                }
                // A maximum below the segment size is a limit measured on
                // the drive (the extraction gives the segment size where
                // the drive reads until its segment is full), so it bounds
                // the track rule, unlike in DiskSim: the Quantum Atlas 10K
                // (354 of 374 blocks) keeps the blocks after a request, as
                // its trace shows.
                reach
            }
        })
    }

    /// Blocks of an `n`-block read that must be in the buffer before the
    /// drive reconnects to send them.
    fn watermark(&self, n: u64) -> u64 {
        let base = n.min(self.cfg.segment_blocks) as f64;
        ((base * self.cfg.watermark) as u64).clamp(1, n)
    }

    /// When the bus has sent `n` blocks, starting at `bus_start`, the first
    /// in the buffer at `first_in` and the last at `last_in`.
    fn sent(&self, bus_start: Nanos, first_in: Nanos, last_in: Nanos, n: u64) -> Nanos {
        let per_block = self.cfg.bus_read;
        (bus_start.max(first_in) + n * per_block).max(last_in + per_block)
    }

    /// The earliest media write of `n` blocks from `block` that finds each
    /// block in the buffer, the bus bringing them from `from` on.
    fn data_ready(&self, from: Nanos, block: u64, n: u64) -> Nanos {
        let per_block = self.cfg.bus_write;
        let lead = self.media(block, n - 1);
        (from + per_block).max((from + n * per_block).saturating_sub(lead))
    }

    /// Starts reading from block `first` into segment `segment` once the
    /// arm is free at `from`, up to `limit`, not to be stopped before
    /// `hold`. Returns the prefetch, for the caller to keep as the one under
    /// way, the cylinders crossed, the seek time, the rotation (head
    /// switch and latency) and the first block's angle, for its media time.
    #[inline(always)]
    fn start_prefetch(
        &mut self,
        segment: usize,
        first: u64,
        limit: u64,
        hold: u64,
        from: Nanos,
        travel: Travel,
    ) -> (Prefetch, u32, Nanos, Nanos, u64) {
        let origin = match self.first {
            Some(located) if located.block == first => located,
            _ => self.disk.media_start(first),
        };
        let target = origin.at;
        let (distance, seek, switch) =
            self.disk
                .reach(*self.arm, travel, &target, self.rng.as_deref_mut());
        let switch = self.settled(switch);
        let ready = from + seek + switch;
        let angle = start_angle(&target, self.cfg.period_ps);
        let latency = latency_to(ready, angle, self.cfg.period_ps);
        // A read that missed (its segment emptied for it) takes the blocks
        // that pass before its first; they leave the segment first as the
        // read-ahead fills it.
        let seg = self.st.segments[segment];
        if self.cfg.read_free_blocks && (seg.start, seg.end) == (first, first) {
            self.st.segments[segment].start = first - self.free_blocks(first, &target, latency);
        }
        let p = Prefetch {
            segment,
            origin,
            start: ready + latency,
            limit,
            hold,
            hold_read: None,
        };
        *self.arm = Arm::on(&target);
        (p, distance, seek, switch + latency, angle)
    }

    /// The head switch `switch` of a media read that starts on the arm's
    /// cylinder: the new head settles on its track, which takes at least as
    /// long as the settling of a one-cylinder seek (see the module's
    /// documentation).
    fn settled(&self, switch: Nanos) -> Nanos {
        if switch == 0 {
            0
        } else {
            switch.max(self.disk.seek_time(1))
        }
    }

    /// The blocks before `first` on its track (at `target`) that pass under
    /// the heads in the `latency` they wait for it: a drive that reads any
    /// free blocks has them in the buffer once it reads `first`.
    fn free_blocks(&self, first: u64, target: &Location, latency: Nanos) -> u64 {
        let slots = u128::from(latency) * 1000 * u128::from(target.sectors_per_track)
            / u128::from(self.cfg.period_ps);
        let mut free = u64::try_from(slots)
            .unwrap_or(u64::MAX)
            .min(u64::from(target.sector))
            .min(first);
        // Unused slots before `first` count as positions, not blocks: the
        // free blocks stay on its track.
        while free > 0 {
            let at = self.disk.place(first - free);
            if (at.cylinder, at.surface) == (target.cylinder, target.surface) {
                break;
            }
            free -= 1;
        }
        free
    }

    fn read(&mut self, block: u64, end: u64, travel: Travel, start: Nanos) -> ServiceBreakdown {
        // The segments that may serve the read, with what they hold now:
        // only those whose blocks could reach `block` are worked out (the
        // read-ahead's progress is a walk over the media). The first that
        // holds the whole read serves it; failing that, the first read
        // segment holding its first block, unless the read-ahead is still
        // bringing it (blocks that writes left may serve whole reads only:
        // a read that goes on past them is read into a read segment).
        let mut partial = None;
        for i in 0..self.cfg.segments {
            if !self.may_hold(i, block) {
                continue;
            }
            let Some((lo, hi)) = self.readable(i, start) else {
                continue;
            };
            if lo <= block && end <= hi {
                return self.read_hit(i, block, end, hi, start);
            }
            if partial.is_none() && !self.st.segments[i].written && lo <= block && block < hi {
                partial = Some((i, hi));
            }
        }
        if let Some(p) = &self.st.prefetch
            && self.may_hold(p.segment, block)
            && block < p.limit
            && let Some(p) = self.running(start)
        {
            let s = self.st.segments[p.segment];
            let front = self.frontier(&p, start);
            let lo = s.start.max(front.saturating_sub(self.cfg.segment_blocks));
            if lo <= block && block < p.limit {
                return self.join(p, front, block, end, start);
            }
        }
        match partial {
            Some((i, hi)) => self.read_media(i, hi, block, end, travel, start),
            None => {
                let victim = self.lru(usize::from(self.cfg.write_segment));
                self.read_media(victim, block, block, end, travel, start)
            }
        }
    }

    /// Every block of the read is in segment `i`, which holds blocks up to
    /// `hi`.
    fn read_hit(
        &mut self,
        i: usize,
        block: u64,
        end: u64,
        hi: u64,
        start: Nanos,
    ) -> ServiceBreakdown {
        let cfg = self.cfg;
        let ready = start + cfg.read_hit[self.prev()];
        let flush = self.st.flush.map(|f| f.done);
        let bus_start = match flush {
            Some(done) if done > ready => done + cfg.reconnect,
            _ => ready,
        };
        let done = bus_start + (end - block) * cfg.bus_read + cfg.read_completion;
        self.touch(i);
        let limit = self.ahead_limit(end, self.st.segments[i].start);
        match self.running(start) {
            Some(mut p) if p.segment == i => {
                p.limit = p.limit.max(limit);
                p.hold = p.hold.max(limit.min(end + cfg.min_ahead));
                self.st.prefetch = Some(p);
            }
            // The arm is free: read on from where the segment ends, into
            // read segments only.
            None if cfg.ahead_on_hit
                && flush.is_none()
                && !self.st.segments[i].written
                && limit > hi =>
            {
                self.stop_prefetch(ready);
                let hold = limit.min(end + cfg.min_ahead).max(hi);
                let (p, ..) = self.start_prefetch(i, hi, limit, hold, ready, Travel::Direct);
                self.st.prefetch = Some(p);
            }
            _ => {}
        }
        parts(done - start, 0, 0, 0, 0)
    }

    /// The read starts inside (or ahead of) the segment `p` is reading
    /// ahead into, within its reach: it waits for the blocks not read yet.
    fn join(
        &mut self,
        mut p: Prefetch,
        front: u64,
        block: u64,
        end: u64,
        start: Nanos,
    ) -> ServiceBreakdown {
        let cfg = self.cfg;
        let n = end - block;
        let cached = block < front;
        let overhead = if cached { cfg.read_hit } else { cfg.read_miss };
        let ready = start + overhead[self.prev()];
        let limit = self.ahead_limit(end, self.st.segments[p.segment].start);
        p.limit = p.limit.max(limit);
        p.hold = p.hold.max(p.limit.min(end + cfg.min_ahead));
        self.st.prefetch = Some(p);
        self.touch(p.segment);
        let last_in = self.read_by(&p, end);
        let (first_in, bus_start) = if cached {
            (start, ready)
        } else {
            let (first_in, mark) = self.first_and_mark(&p, block, end, last_in);
            (first_in, ready.max(mark) + cfg.reconnect)
        };
        let done = self.sent(bus_start, first_in, last_in, n) + cfg.read_completion;
        parts(done - start, 0, 0, last_in.saturating_sub(ready), 0)
    }

    /// Reads blocks `first..end` from the media into segment `i` (emptied
    /// first for a miss, `first == block`; continued for a partial hit,
    /// whose blocks before `first` are in the buffer).
    fn read_media(
        &mut self,
        i: usize,
        first: u64,
        block: u64,
        end: u64,
        travel: Travel,
        start: Nanos,
    ) -> ServiceBreakdown {
        let cfg = self.cfg;
        let n = end - block;
        let cached = first > block;
        let overhead = if cached { cfg.read_hit } else { cfg.read_miss };
        let ready = start + overhead[self.prev()];
        let flush = self.st.flush.map(|f| f.done);
        let free = ready.max(flush.unwrap_or(0)).max(self.held_until());
        self.stop_prefetch(free);
        if !cached {
            self.st.segments[i] = Segment {
                start: block,
                end: block,
                ..Segment::default()
            };
        }
        self.touch(i);
        let limit = self.ahead_limit(end, self.st.segments[i].start);
        let hold = limit.min(end + cfg.min_ahead);
        let (mut p, distance, seek, rotation, angle) =
            self.start_prefetch(i, first, limit, hold, free, travel);
        // What `read_by` gives, worked out here and the read-ahead kept
        // before anything reads it, so that it is built where it is kept
        // rather than built, read and copied; from the first block's angle
        // the rotational wait worked out.
        let media = self
            .disk
            .media_time_at(&p.origin, angle, end - first, cfg.period_ps);
        let last_in = p.start + media;
        if p.hold == end {
            p.hold_read = Some((end, last_in));
        }
        let p = self.st.prefetch.insert(p);
        let (first_in, bus_start) = if cached {
            let bus_start = match flush {
                Some(done) if done > ready => done + cfg.reconnect,
                _ => ready,
            };
            (start, bus_start)
        } else {
            let p = *p;
            let (first_in, mark) = self.first_and_mark(&p, block, end, last_in);
            (first_in, ready.max(mark) + cfg.reconnect)
        };
        let done = self.sent(bus_start, first_in, last_in, n) + cfg.read_completion;
        parts(done - start, seek, rotation, media, distance)
    }

    fn write(&mut self, block: u64, end: u64, travel: Travel, start: Nanos) -> ServiceBreakdown {
        let cfg = self.cfg;
        let n = end - block;
        let flush = self.st.flush;
        let appending = flush.filter(|f| f.first + f.blocks == block);
        let back = match cfg.write_back {
            WriteBack::Off => false,
            WriteBack::All => true,
            WriteBack::Appends => self
                .st
                .segments
                .iter()
                .any(|s| s.written && s.start < s.end && s.end == block),
        };
        // A drive with extra write disconnects takes them on a write-through
        // write that does not continue the previous write.
        let extra = cfg
            .extra_write
            .filter(|_| !back && self.st.last_write_end.is_some_and(|e| e != block));
        self.st.last_write_end = Some(end);
        let (command, data_delay, completion_reconnect) = match extra {
            Some(path) => path,
            None if back => (
                cfg.write_hit[self.prev()],
                cfg.write_data_delay,
                cfg.completion_reconnect,
            ),
            None => (
                cfg.write_miss[self.prev()],
                cfg.write_data_delay,
                cfg.completion_reconnect,
            ),
        };
        let ready = start + command;
        let mut data_from = ready + data_delay;
        if back && let Some(f) = appending {
            // The media write goes straight on into this write's blocks if
            // they reach the buffer in time.
            if self.data_ready(data_from, block, n) <= f.done {
                // The data joins the written data it continues.
                self.write_segment(block, end);
                let blocks = f.blocks + n;
                self.st.flush = Some(Flush {
                    blocks,
                    done: f.start + self.media(f.first, blocks),
                    ..f
                });
                *self.arm = Arm::on(&self.disk.place(end - 1));
                let done = data_from + n * cfg.bus_write + cfg.write_completion;
                return parts(done - start, 0, 0, 0, 0);
            }
        }
        // Anything but an append waits for the write-back to end before it
        // takes the data; the media write waits for it in any case.
        if let Some(f) = flush
            && appending.is_none()
            && f.done > ready
        {
            data_from = data_from.max(f.done + cfg.reconnect);
        }
        let free = ready
            .max(flush.map_or(0, |f| f.done))
            .max(self.held_until());
        self.stop_prefetch(free);
        self.write_segment(block, end);
        let target = self.disk.place(block);
        let (distance, seek, switch) =
            self.disk
                .reach(*self.arm, travel, &target, self.rng.as_deref_mut());
        // DiskSim adds the (signed) settling delay to any movement.
        let moved = seek + switch;
        let settle = if moved > 0 { cfg.write_settle } else { 0 };
        let positioning = (moved.saturating_add_signed(settle)).max(cfg.write_min_positioning);
        let positioned = free + positioning;
        let (first, written) = self.disk.write_sectors(
            block,
            n,
            positioned,
            WriteData {
                from: data_from,
                per_block: cfg.bus_write,
                start_blocks: cfg.write_start.blocks_before(n),
            },
            cfg.write_settle,
            cfg.period_ps,
        );
        *self.arm = Arm::on(&self.disk.place(end - 1));
        let sent = data_from + n * cfg.bus_write;
        if back {
            self.st.flush = Some(Flush {
                first: block,
                start: first,
                blocks: n,
                done: written,
            });
            let done = sent + cfg.write_completion;
            parts(done - start, 0, 0, 0, distance)
        } else {
            self.st.flush = None;
            let done = (written + completion_reconnect).max(sent) + cfg.write_completion;
            let seek_part = positioning.saturating_sub(switch);
            parts(
                done - start,
                seek_part,
                positioning - seek_part + (first - positioned),
                written - first,
                distance,
            )
        }
    }

    /// Puts a write of `block..end` in a segment: the write segment, or the
    /// one whose written data it continues, or the least recently used;
    /// empties every other segment holding any of its blocks.
    fn write_segment(&mut self, block: u64, end: u64) {
        let continues = |s: &Segment| s.written && s.start < s.end && s.end == block;
        let chosen = if self.cfg.write_segment {
            0
        } else {
            (0..self.cfg.segments)
                .find(|&i| continues(&self.st.segments[i]))
                .unwrap_or_else(|| self.lru(0))
        };
        let seg = &mut self.st.segments[chosen];
        if continues(seg) {
            seg.end = end;
            seg.start = seg.start.max(end.saturating_sub(self.cfg.segment_blocks));
        } else {
            *seg = Segment {
                start: block,
                end,
                used: 0,
                written: true,
            };
        }
        self.touch(chosen);
        for (i, s) in self.st.segments.iter_mut().enumerate() {
            if i != chosen && s.start < end && block < s.end {
                *s = Segment::default();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::seek::ms_to_ns;
    use crate::disk::{
        DiskModel, DiskSpec, GeometrySpec, RotationSpec, SeekSpec, SpecFormat, TransferSpec,
        presets,
    };
    use sched_core::{Block, Blocks, Cyl};
    use sched_core::{Head, RequestId, ServiceEstimator};

    /// 1000 cylinders of 4 tracks of 100 blocks at 6000 RPM: a block every
    /// 100 µs, a revolution every 10 ms; skews that cover the switches.
    fn spec(cache: CacheSpec) -> DiskSpec {
        DiskSpec {
            name: "cached".into(),
            geometry: GeometrySpec {
                track_skew: 10,
                cylinder_skew: 20,
                ..GeometrySpec::uniform(1000, 4, 100)
            },
            rpm: Some(6000.0),
            seek: SeekSpec::Table {
                points: vec![(1, 1.0), (999, 10.0)],
            },
            rotation: RotationSpec::Tracked,
            transfer: TransferSpec::Geometry,
            head_switch_ms: 0.5,
            controller_overhead_ms: 0.0,
            cache: Some(cache),
        }
    }

    fn pair(after_read_ms: f64, after_write_ms: f64) -> AfterPrevious {
        AfterPrevious {
            after_read_ms,
            after_write_ms,
        }
    }

    /// Two segments shared by reads and writes, read-ahead of up to 100
    /// blocks that stops when the segment is full, write-through, and no
    /// bus or completion times, so that the sums below are short.
    fn cache() -> CacheSpec {
        CacheSpec {
            segments: 2,
            segment_blocks: 200,
            write_segment: false,
            read_hits_on_write_data: true,
            read_free_blocks: false,
            write_back: WriteBack::Off,
            read_ahead: ReadAheadSpec {
                scheme: ReadAheadScheme::Segment,
                min_blocks: 0,
                max_blocks: 100,
                replace_requested: false,
                on_hit: false,
            },
            overheads: CacheOverheads {
                read_hit: pair(0.1, 0.15),
                read_miss: pair(0.5, 0.55),
                write_hit: pair(0.2, 0.25),
                write_miss: pair(0.6, 0.65),
                read_completion_ms: 0.0,
                write_completion_ms: 0.0,
                reconnect_ms: 0.0,
                completion_reconnect_ms: 0.0,
                write_data_delay_ms: 0.0,
                write_settle_ms: 0.0,
                write_min_positioning_ms: 0.0,
                extra_write_disconnect: None,
            },
            bus: BusSpec::default(),
        }
    }

    fn model(cache: CacheSpec) -> DiskModel {
        DiskModel::from_spec(&spec(cache)).unwrap()
    }

    fn request(disk: &DiskModel, kind: Kind, block: u64, blocks: u32, at: Nanos) -> Request {
        Request::new(
            RequestId(at),
            kind,
            Block(block),
            Blocks(blocks),
            Cyl(disk.locate(block).unwrap()),
            at,
        )
    }

    /// Serves a request arriving at `at`.
    fn serve(
        disk: &mut DiskModel,
        kind: Kind,
        block: u64,
        blocks: u32,
        at: Nanos,
    ) -> ServiceBreakdown {
        let req = request(disk, kind, block, blocks, at);
        disk.serve(&req, Travel::Direct, at, &mut Stream::numbered(103))
    }

    /// Served from the buffer alone.
    fn hit(b: &ServiceBreakdown) -> bool {
        (b.seek, b.rotation, b.transfer, b.seek_distance) == (0, 0, 0, 0)
    }

    const SECOND: Nanos = 1_000_000_000;

    #[test]
    fn a_read_the_buffer_holds_pays_its_overheads_and_the_bus_only() {
        let mut c = cache();
        c.bus.read_block_ms = 0.05;
        c.overheads.read_completion_ms = 0.02;
        let mut disk = model(c);
        let miss = serve(&mut disk, Kind::Read, 1000, 10, 0);
        assert!(miss.seek > 0 && miss.transfer > 0, "{miss:?}");
        let again = serve(&mut disk, Kind::Read, 1002, 5, SECOND);
        assert!(hit(&again), "{again:?}");
        // Read-hit overhead after a read, five blocks over the bus, completion.
        assert_eq!(again.total(), ms_to_ns(0.1) + 5 * 50_000 + 20_000);
        // After a write (elsewhere) the read-hit overhead is the other one.
        serve(&mut disk, Kind::Write, 200_000, 1, 2 * SECOND);
        let after_write = serve(&mut disk, Kind::Read, 1002, 5, 3 * SECOND);
        assert_eq!(after_write.total(), ms_to_ns(0.15) + 5 * 50_000 + 20_000);
        // The arm stayed where the write left it.
        assert_eq!(disk.head(), Head::at(500));
    }

    #[test]
    fn read_ahead_goes_on_until_the_next_request_and_a_read_waits_only_for_its_blocks() {
        let mut disk = model(cache());
        let first = serve(&mut disk, Kind::Read, 1000, 4, 0);
        // Block 1000 came under the heads after the read-miss overhead and
        // the positioning; the media then reads on block after block.
        let t0 = ms_to_ns(0.5) + first.seek + first.rotation;
        let media = disk.clone();
        let read_by = |k: u32| t0 + media.transfer_time(1000, k);
        assert_eq!(first.total(), read_by(4));
        assert_eq!(first.overhead, ms_to_ns(0.5));
        // Arriving as the first completes, a read 16 blocks on finds none of
        // its blocks yet: the read-miss overhead, no seek, no rotation, and
        // it is done when the read-ahead has read its last block.
        let s = first.total();
        let ahead = serve(&mut disk, Kind::Read, 1020, 4, s);
        assert_eq!((ahead.seek, ahead.rotation, ahead.seek_distance), (0, 0, 0));
        assert_eq!(ahead.total(), read_by(24) - s);
        assert_eq!(ahead.transfer, read_by(24) - s - ms_to_ns(0.5));
        // What the read-ahead has read by a given time is in the buffer: at
        // the moment block 1059 is read, 1050..1060 is a hit.
        let mid = serve(&mut disk, Kind::Read, 1050, 10, read_by(60));
        assert!(hit(&mid), "{mid:?}");
        assert_eq!(mid.total(), ms_to_ns(0.1));
        // Left alone, it reads 100 blocks past the last request (1060), then
        // stops: the segment ends at 1160.
        let last = serve(&mut disk, Kind::Read, 1150, 10, SECOND);
        assert!(hit(&last), "{last:?}");
        let beyond = serve(&mut disk, Kind::Read, 1160, 1, 2 * SECOND);
        assert!(beyond.transfer > 0, "{beyond:?}");
        // The heads are where the read-ahead stopped, on the track of block
        // 1159 (cylinder 2, surface 3): reading 1160 on cylinder 2, surface
        // 3 moves no arm.
        assert_eq!(beyond.seek_distance, 0);
    }

    #[test]
    fn scheme_4_reads_to_the_track_end_and_a_short_segment_keeps_only_its_last_blocks() {
        // DiskSim's DEC rule (the Quantum Atlas III: 64-block segments,
        // `Maximum read-ahead` 64): the read-ahead runs to the end of the
        // track whatever the segment size and the maximum say, and the
        // segment wraps, keeping the blocks read last.
        let mut c = cache();
        c.segment_blocks = 16;
        c.read_ahead.scheme = ReadAheadScheme::NextTrack;
        c.read_ahead.max_blocks = 16;
        let mut disk = model(c);
        // Block 1000 starts cylinder 2, surface 2: its track ends at 1100.
        serve(&mut disk, Kind::Read, 1000, 4, 0);
        let tail = serve(&mut disk, Kind::Read, 1090, 4, SECOND);
        assert!(hit(&tail), "the track's last 16 blocks are held: {tail:?}");
        let next = serve(&mut disk, Kind::Read, 1004, 4, 2 * SECOND);
        assert!(
            next.transfer > 0,
            "the blocks just past the request were overwritten: {next:?}"
        );
    }

    #[test]
    fn scheme_4_stops_at_a_maximum_below_the_segment_size_and_keeps_the_blocks_after_the_request() {
        // The Quantum Atlas 10K: `Maximum read-ahead` 354 of a 374-block
        // segment, a limit measured on the drive, which keeps the blocks
        // after a request; DiskSim's DEC rule ignores it, spindle does not.
        let mut c = cache();
        c.segment_blocks = 16;
        c.read_ahead.scheme = ReadAheadScheme::NextTrack;
        c.read_ahead.max_blocks = 12;
        let mut disk = model(c);
        serve(&mut disk, Kind::Read, 1000, 4, 0);
        let next = serve(&mut disk, Kind::Read, 1004, 12, SECOND);
        assert!(
            hit(&next),
            "the 12 blocks after the request are held: {next:?}"
        );
        let tail = serve(&mut disk, Kind::Read, 1090, 4, 2 * SECOND);
        assert!(
            tail.transfer > 0,
            "the read-ahead stopped 12 blocks past the request: {tail:?}"
        );
    }

    #[test]
    fn the_segment_used_least_recently_is_replaced() {
        let mut c = cache();
        c.read_ahead.scheme = ReadAheadScheme::None;
        let mut disk = model(c);
        let (a, b, c) = (0, 40_000, 80_000);
        let expected = [
            (a, false),
            (b, false),
            (a, true),
            (c, false), // replaces b
            (a, true),
            (b, false), // replaces c
            (c, false), // replaces a
            (b, true),
            (a, false),
        ];
        for (i, (block, is_hit)) in expected.into_iter().enumerate() {
            let served = serve(&mut disk, Kind::Read, block, 8, i as Nanos * SECOND);
            assert_eq!(
                hit(&served),
                is_hit,
                "request {i} at block {block}: {served:?}"
            );
        }
    }

    #[test]
    fn a_write_takes_its_blocks_from_every_other_segment() {
        let mut disk = model(cache());
        serve(&mut disk, Kind::Read, 0, 8, 0);
        assert!(hit(&serve(&mut disk, Kind::Read, 0, 8, SECOND)));
        serve(&mut disk, Kind::Write, 4, 8, 2 * SECOND);
        // The read segment lost blocks 4..8; the written ones may be read.
        assert!(!hit(&serve(&mut disk, Kind::Read, 0, 8, 3 * SECOND)));
        assert!(hit(&serve(&mut disk, Kind::Read, 4, 8, 4 * SECOND)));
    }

    /// A write-back cache and its write-through twin, whose writes pay the
    /// same overhead, so that the twin's completion is the media write the
    /// other does in the background.
    fn write_back_and_through() -> (DiskModel, DiskModel) {
        let mut back = cache();
        back.write_back = WriteBack::All;
        back.overheads.write_miss = back.overheads.write_hit.clone();
        back.bus.write_block_ms = 0.05;
        let mut through = back.clone();
        through.write_back = WriteBack::Off;
        (model(back), model(through))
    }

    #[test]
    fn a_written_back_write_completes_first_and_the_next_request_waits_for_its_media_write() {
        let (mut back, mut through) = write_back_and_through();
        // Cylinder 200: the arm moves there in the background.
        let w = back_write(&mut back, 80_000, 16, 0);
        assert_eq!(w.total(), ms_to_ns(0.2) + 16 * 50_000);
        assert_eq!(w.seek_distance, 200);
        let t = serve(&mut through, Kind::Write, 80_000, 16, 0);
        assert!(
            t.seek > 0 && t.transfer > 0 && t.overhead == ms_to_ns(0.2),
            "{t:?}"
        );
        let flushed = t.total();
        assert!(flushed > w.total() + ms_to_ns(0.55));
        // A read arriving as the write completes waits for the media write
        // (counted as overhead), then seeks back from cylinder 200.
        let r = serve(&mut back, Kind::Read, 0, 1, w.total());
        assert_eq!(r.overhead, flushed - w.total());
        assert_eq!(r.seek_distance, 200);
        // Once it is done nothing waits: the read-miss overhead after a read.
        let later = serve(&mut back, Kind::Read, 40_000, 1, SECOND);
        assert_eq!(later.overhead, ms_to_ns(0.5));
    }

    fn back_write(disk: &mut DiskModel, block: u64, blocks: u32, at: Nanos) -> ServiceBreakdown {
        let b = serve(disk, Kind::Write, block, blocks, at);
        assert_eq!((b.seek, b.rotation, b.transfer), (0, 0, 0), "{b:?}");
        b
    }

    #[test]
    fn a_write_that_continues_the_write_back_in_time_joins_it() {
        let (mut back, mut through) = write_back_and_through();
        let first = back_write(&mut back, 80_000, 8, 0);
        let s = first.total();
        // Its data reaches the buffer before the media has written the first
        // eight blocks: the write-hit overhead after a write and the bus.
        let second = back_write(&mut back, 80_008, 8, s);
        assert_eq!(second.total(), ms_to_ns(0.25) + 8 * 50_000);
        assert_eq!(second.seek_distance, 0);
        // The media wrote all sixteen blocks in one go, as a 16-block write
        // would have.
        let flushed = serve(&mut through, Kind::Write, 80_000, 16, 0).total();
        let r = serve(&mut back, Kind::Read, 0, 1, s + second.total());
        assert_eq!(r.overhead, flushed - s - second.total());
    }

    #[test]
    fn a_write_through_write_settles_and_takes_the_minimum_positioning_time() {
        let mut c = cache();
        c.overheads.write_settle_ms = 0.5;
        c.overheads.write_min_positioning_ms = 1.2;
        let mut disk = model(c.clone());
        let mut twin = model(c);
        // 200 cylinders: a 2.8 ms seek, more than the minimum.
        let write = serve(&mut disk, Kind::Write, 80_000, 4, 0);
        let read = serve(&mut twin, Kind::Read, 80_000, 4, 0);
        assert!(read.seek > ms_to_ns(1.2));
        assert_eq!(write.seek, read.seek + ms_to_ns(0.5));
        assert_eq!(write.seek_distance, 200);
        // The heads are on the track already: no settling, but the minimum.
        let again = serve(&mut disk, Kind::Write, 80_004, 4, SECOND);
        assert_eq!((again.seek, again.seek_distance), (ms_to_ns(1.2), 0));
        assert_eq!(
            again.total(),
            ms_to_ns(0.65 + 1.2) + again.rotation + disk.transfer_time(80_004, 4)
        );
    }

    #[test]
    fn the_estimator_agrees_with_serve_through_a_cache() {
        let mut c = cache();
        c.segments = 3;
        c.write_segment = true;
        c.write_back = WriteBack::All;
        c.read_ahead.on_hit = true;
        c.read_ahead.replace_requested = true;
        c.bus = BusSpec {
            read_block_ms: 0.04,
            write_block_ms: 0.06,
            read_watermark: 0.5,
            write_start: WriteStart::default(),
        };
        c.overheads.reconnect_ms = 0.1;
        c.overheads.read_completion_ms = 0.03;
        c.overheads.write_completion_ms = 0.02;
        c.overheads.write_settle_ms = 0.3;
        let mut disk = model(c);
        let mut rng = Stream::numbered(602);
        let mut unused = Stream::numbered(603);
        let (mut now, mut next) = (0, 0);
        // Reads served from the buffer, waiting for read-ahead, from the
        // media, and waiting for a write-back (more than 2 ms of overhead).
        let mut paths = [0u32; 4];
        for i in 0..5_000 {
            let kind = if rng.chance(0.4) {
                Kind::Write
            } else {
                Kind::Read
            };
            let blocks = 1 + rng.below(16) as u32;
            // Half the requests continue the previous one.
            let block = if rng.chance(0.5) {
                next
            } else {
                rng.below(disk.capacity_blocks() - 16)
            };
            next = block + u64::from(blocks);
            let req = Request::new(
                RequestId(i),
                kind,
                Block(block),
                Blocks(blocks),
                Cyl(disk.locate(block).unwrap()),
                now,
            );
            let estimate = disk.service_time(disk.head(), &req, now);
            let positioning = disk.positioning_time(disk.head(), &req, now);
            let served = disk.serve(&req, Travel::Direct, now, &mut unused);
            assert_eq!(estimate, served.total(), "request {i}");
            assert_eq!(positioning, served.seek + served.rotation, "request {i}");
            if kind == Kind::Read {
                if hit(&served) {
                    paths[0] += 1;
                } else if served.seek + served.rotation == 0 {
                    paths[1] += 1;
                } else {
                    paths[2] += 1;
                }
                if served.overhead > 2_000_000 {
                    paths[3] += 1;
                }
            }
            now += served.total() + rng.below(20_000_000);
        }
        assert!(paths.iter().all(|&n| n > 100), "{paths:?}");
    }

    #[test]
    fn bad_cache_sections_are_refused_naming_the_field() {
        let refused = |c: CacheSpec| DiskModel::from_spec(&spec(c)).unwrap_err();
        let mut c = cache();
        c.segments = 0;
        assert!(matches!(
            refused(c),
            DiskError::Zero {
                field: "cache.segments"
            }
        ));
        let mut c = cache();
        c.segments = 4_000_000_000;
        assert!(refused(c).to_string().contains("at most 1024"));
        let mut c = cache();
        c.segments = 1;
        c.write_segment = true;
        assert!(
            refused(c)
                .to_string()
                .starts_with("`cache.segments` = 1: at least 2")
        );
        let mut c = cache();
        c.bus.read_watermark = 1.5;
        assert!(
            refused(c)
                .to_string()
                .starts_with("`cache.bus.read_watermark` = 1.5")
        );
        let mut c = cache();
        c.overheads.read_hit.after_write_ms = -0.1;
        assert!(
            refused(c)
                .to_string()
                .starts_with("`cache.overheads.read_hit.after_write_ms` = -0.1")
        );
        let mut random = spec(cache());
        random.rotation = RotationSpec::Random { max_ms: None };
        let err = DiskModel::from_spec(&random).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("`cache` = a cache section: a disk with tracked rotation"),
            "{err}"
        );
    }

    #[test]
    fn a_cache_section_round_trips_and_specs_without_one_are_unchanged() {
        let s = spec(cache());
        let toml = toml::to_string(&s).unwrap();
        assert!(toml.contains("[cache.read_ahead]"), "{toml}");
        assert_eq!(DiskSpec::parse(&toml, SpecFormat::Toml).unwrap(), s);
        // A preset names no cache, in either format.
        let hp = presets::hp97560();
        assert!(!toml::to_string(&hp).unwrap().contains("cache"));
        assert!(!serde_json::to_string(&hp).unwrap().contains("cache"));
        // An override may add one.
        let text = format!(
            "preset = \"hp97560\"\n{}",
            &toml[toml.find("[cache]").unwrap()..]
        );
        let with = DiskSpec::parse(&text, SpecFormat::Toml).unwrap();
        assert_eq!(with.cache, s.cache);
        // Field by field, like any other section.
        let track = with
            .with_overrides(
                &serde_json::json!({ "cache": { "read_ahead": { "scheme": "track" } } }),
            )
            .unwrap();
        let ahead = &track.cache.as_ref().unwrap().read_ahead;
        assert_eq!(
            (ahead.scheme, ahead.max_blocks),
            (ReadAheadScheme::Track, 100)
        );
        assert_eq!(
            DiskSpec {
                cache: None,
                ..with
            },
            hp
        );
    }

    /// A cache without read-ahead: the arm stays on the track of the last
    /// block a read asked for.
    fn no_read_ahead() -> CacheSpec {
        let mut c = cache();
        c.read_ahead.scheme = ReadAheadScheme::None;
        c.read_ahead.max_blocks = 0;
        c
    }

    #[test]
    fn a_read_on_another_surface_of_the_arms_cylinder_settles_like_a_one_cylinder_seek() {
        // Block 1000 is on cylinder 2, surface 2; blocks 1100..1200 on
        // surface 3, 1000..1100 on surface 2.
        let reads = |switch_ms: f64, blocks: std::ops::Range<u64>| -> Vec<ServiceBreakdown> {
            let mut s = spec(no_read_ahead());
            s.head_switch_ms = switch_ms;
            let first = DiskModel::from_spec(&s).unwrap();
            blocks
                .map(|block| {
                    let mut disk = first.clone();
                    serve(&mut disk, Kind::Read, 1000, 1, 0);
                    serve(&mut disk, Kind::Read, block, 1, SECOND)
                })
                .collect()
        };
        let least = |b: &[ServiceBreakdown]| b.iter().map(|b| b.rotation).min().unwrap();
        let other = reads(0.5, 1100..1200);
        assert!(other.iter().all(|b| (b.seek, b.seek_distance) == (0, 0)));
        // A 0.5 ms head switch takes the 1 ms of a one-cylinder seek: the
        // blocks that come under the heads 0.5 to 1 ms after the command
        // are missed, as with a 1 ms head switch.
        assert_eq!(other, reads(1.0, 1100..1200));
        assert!((ms_to_ns(1.0)..ms_to_ns(1.2)).contains(&least(&other)));
        // A longer head switch keeps its own time.
        assert!((ms_to_ns(1.5)..ms_to_ns(1.7)).contains(&least(&reads(1.5, 1100..1200))));
        // A read on the track the heads are on switches nothing.
        assert!(least(&reads(0.5, 1001..1100)) < ms_to_ns(0.2));
    }

    #[test]
    fn a_drive_that_reads_free_blocks_keeps_those_passing_before_a_miss() {
        let run = |free: bool| {
            let mut c = no_read_ahead();
            c.read_free_blocks = free;
            let mut disk = model(c);
            let miss = serve(&mut disk, Kind::Read, 1060, 4, 0);
            (disk, miss)
        };
        // Blocks of 100 µs: the heads wait `rotation` for block 1060 (no
        // head switch from surface 0 to 2 on a seek) and pass that many
        // whole blocks of its track before it, down to the track's first
        // (1000).
        let (_, miss) = run(true);
        let passed = (miss.rotation / 100_000).min(60);
        assert!(passed >= 2, "{miss:?}");
        let behind = |free: bool, block: u64| {
            let (mut disk, _) = run(free);
            serve(&mut disk, Kind::Read, block, 1, SECOND)
        };
        assert!(hit(&behind(true, 1060 - passed)));
        assert!(hit(&behind(true, 1059)));
        assert!(!hit(&behind(true, 1060 - passed - 1)));
        assert!(!hit(&behind(false, 1059)));
        // The miss itself takes as long either way.
        assert_eq!(run(false).1, miss);
    }

    #[test]
    fn the_progress_kept_for_a_pass_is_the_progress_worked_out_afresh() {
        // A pass keeps the last read-ahead progress it worked out; asked
        // again with the read-ahead's first block, start, limit or the time
        // changed (each alone), it must work it out again, not return the
        // kept one. Read-aheads near track ends (100 blocks a track) cross
        // tracks, so the progress depends on every part of the key.
        let s = spec(cache());
        let mech = Mechanics::from_spec(&s).unwrap();
        let period_ps = mech.period_ps.unwrap();
        let mut cache = Cache::new(s.cache.as_ref().unwrap(), 0, period_ps).unwrap();
        let mut arm = Arm {
            cylinder: 0,
            surface: 0,
        };
        let pass = Pass {
            cfg: &cache.config,
            st: &mut cache.state,
            disk: &mech,
            arm: &mut arm,
            rng: None,
            first: None,
            frontier: Cell::new(None),
        };
        let mut rng = Stream::numbered(34);
        let read_ahead = |first: u64, start: Nanos, blocks: u64| Prefetch {
            segment: 1,
            origin: mech.media_start(first),
            start,
            limit: first + blocks,
            hold: first + 1,
            hold_read: None,
        };
        let mut differed = [0u32; 4];
        for _ in 0..2_000 {
            let first = 1_000 + rng.below(500);
            let start = rng.below(SECOND);
            let blocks = 1 + rng.below(300);
            let t = start + rng.below(ms_to_ns(40.0));
            let p = read_ahead(first, start, blocks);
            let base = pass.frontier(&p, t);
            assert_eq!(base, pass.progress(&p, t));
            let changed = [
                (read_ahead(first + 1, start, blocks - 1), t),
                (read_ahead(first, start + 1_000_000, blocks), t),
                (read_ahead(first, start, blocks + 50), t),
                (p, t + 1_000_000),
            ];
            for (i, (q, at)) in changed.into_iter().enumerate() {
                pass.frontier(&p, t);
                let kept = pass.frontier(&q, at);
                assert_eq!(kept, pass.progress(&q, at), "change {i}");
                differed[i] += u32::from(kept != base);
            }
        }
        // Every change alters the progress often enough for a key missing
        // it to return a stale one.
        assert!(differed.iter().all(|&n| n > 200), "{differed:?}");
    }
}
