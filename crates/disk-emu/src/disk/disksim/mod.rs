//! DiskSim disk descriptions ([`from_disksim`]): a `.parv` configuration, a
//! `.diskspecs` file or a `.model` file, read into a [`DiskSpec`].
//!
//! # What is read
//!
//! DiskSim's parameter files (the `libparam` syntax of DiskSim 3 and 4) are
//! blocks `type name { Parameter name = value, … }` whose values are numbers,
//! words, lists `[ v, v, … ]` and nested blocks `type { … }`; `source FILE`
//! splices in another file (found relative to the directory of the file that
//! names it) wherever it stands, and `#` starts a comment. The loader reads
//! the whole file tree, takes the first `disksim_disk` block (or the one
//! named in [`DisksimOptions::disk`]), follows its `Model` to the `dm_disk`
//! block, and reads the `dm_layout_g1` layout, the `dm_mech_g1` mechanics
//! and the seek curve file; the `disksim_disk` block's buffer and
//! controller parameters become the spec's `cache`, with the bus the
//! `topology` (and the `instantiate` lines naming its instances) hangs the
//! disk from. A `.model` file alone (a `dm_disk` block and no
//! `disksim_disk`) gives the mechanics without controller overheads.
//!
//! # How each DiskSim parameter maps (DiskSim 4.0 `diskmodel`, `disk.modspec`)
//!
//! | DiskSim | [`DiskSpec`] |
//! |---|---|
//! | `Number of cylinders`, `Number of data surfaces` | `geometry.cylinders`, `geometry.surfaces`; sectors of 512 bytes |
//! | zone `First/Last cylinder number`, `Blocks per track` | `geometry.zones` (cylinders no zone covers become zones without blocks, with the sectors per track of the zone before them) |
//! | zone `Skew for track switch`, `Skew for cylinder switch` | `geometry.zone_layout[i].track_skew`, `.cylinder_skew`, in whole sectors modulo the track |
//! | zone `Offset of first block` | `geometry.zone_layout[i].first_skew`: the slot of sector 0 of the zone's first track |
//! | zone `Empty space at zone front` | `geometry.zone_layout[i].unused`: the zone's first sector positions |
//! | `Sparing scheme used`, `Rangesize for sparing`, zone `Number of spares`, `slips`, `defects` | `geometry.zone_layout[i].unused` (slipped, spare and management positions), `.blocks`, `.skew_slips`, `.remapped`, as DiskSim's `layout_g1` places blocks (see the private `layout` module) |
//! | `LBN-to-PBN mapping scheme` 0, 1, 2 | `geometry.surface_order` = `ascending`, `serpentine-per-zone`, `serpentine` |
//! | `Block count` | the capacity: DiskSim's layout arithmetic may give more blocks than the drive has; the excess is cut from the end of the disk (see below) |
//! | `Seek type = extracted`, `Full seek curve` | `seek`: a `table` curve with the `.seek` file's points |
//! | `Seek type = hpl`, `HPL seek equation values` | `seek`: `sqrt-linear` (V2 + V3·√d below V1 cylinders, V4 + V5·d from V1 on), or a table when V6 sets the one-cylinder seek |
//! | `Seek type = hplplus10`, `First ten seek times` | `seek`: a `table` with one point per distance 1 … V1 (the ten times, then the square-root part) and the linear part's two ends |
//! | `Seek type = constant`, `Constant seek time` | `seek`: a one-point table (the same time for every distance) |
//! | `Rotation speed (in rpms)` | `rpm` |
//! | `Access time type = trackSwitchPlusRotation` | `rotation = tracked` (`averageRotation`: `random`, whose mean is the same half revolution) |
//! | `Head switch time` | `head_switch_ms` |
//! | (media transfer) | `transfer = geometry`: a revolution over the sectors of the track |
//! | `Per-request overhead time`, times `Time scale for overheads` (as are all overheads) | `controller_overhead_ms` |
//! | `Number of buffer segments`, `Segment size (in blks)` | `cache.segments`, `cache.segment_blocks` |
//! | `Use separate write segment` | `cache.write_segment` |
//! | `Allow read hits on write data` | `cache.read_hits_on_write_data` |
//! | `Read any free blocks` | `cache.read_free_blocks` |
//! | `Fast write level` 0, 1, 2 | `cache.write_back` = `off`, `appends`, `all` |
//! | `Buffer continuous read` 0 … 4 | `cache.read_ahead.scheme` = `none`, `track`, `cylinder`, `segment`, `next-track` |
//! | `Minimum read-ahead (blks)`, `Maximum read-ahead (blks)` | `cache.read_ahead.min_blocks`, `.max_blocks` (a maximum of 0, "no limit", becomes the segment size) |
//! | `Read-ahead over requested`, `Read-ahead on idle hit` | `cache.read_ahead.replace_requested`, `.on_hit` |
//! | `Read hit over. after read/write` + `Data preparation overhead` | `cache.overheads.read_hit` |
//! | `Read miss over. after read/write` | `cache.overheads.read_miss` |
//! | `Write hit over. after read/write` + `Data preparation overhead` | `cache.overheads.write_hit` |
//! | `Write miss over. after read/write` | `cache.overheads.write_miss` |
//! | `First reselect overhead` + `Data preparation overhead` | `cache.overheads.reconnect_ms` |
//! | `First reselect overhead` | `cache.overheads.completion_reconnect_ms` |
//! | `Data preparation overhead` | `cache.overheads.write_data_delay_ms` |
//! | `Extra write disconnect` = 1: `Extradisc command overhead` + `Extradisc seek delta`; `Extradisc disconnect overhead` + `Extradisc inter-disconnect delay` + `First reselect overhead` + `Data preparation overhead` − `Extradisc seek delta`; `Other reselect overhead` | `cache.overheads.extra_write_disconnect` (`command_ms`, `data_delay_ms`, `completion_reconnect_ms`): the path of a write after a write it does not continue, as DiskSim sets `EXTRA_WRITE_DISCONNECT` |
//! | `Extra write disconnect` = 1 | `cache.bus.write_start` = 10 blocks (15 from 45-block writes): DiskSim's `disk_buffer_block_available` lets such a drive write no block before that much of the request is buffered |
//! | `Add. write settling delay` (signed) | `cache.overheads.write_settle_ms`: added to every write's seek or head switch, also between tracks of one write |
//! | `Minimum seek delay` (a mechanical delay: not scaled) | `cache.overheads.write_min_positioning_ms` |
//! | the larger of `Bulk sector transfer time` and the `Read`/`Write block transfer time` of the `disksim_bus` the topology hangs the disk from | `cache.bus.read_block_ms`, `.write_block_ms` |
//! | `High (read) water mark` (with `Set watermark by reqsize`) | `cache.bus.read_watermark` |
//!
//! # Approximations
//!
//! - **The cache** is the model of [`crate::disk::cache`], whose own
//!   approximations apply. A drive whose buffer does not cache (`Enable
//!   caching in buffer` other than 1, or no segments), a drive with
//!   `averageRotation` (read-ahead is timed on the spinning media) and a
//!   `.model` file alone get no `cache` section; their overhead is then what
//!   a read that misses pays in a stream of reads: the per-request, read-miss
//!   command and read completion overheads ([`DisksimDisk::overheads`] keeps
//!   the figures), and writes settle like reads.
//! - **Overheads DiskSim runs in parallel** with media work (disconnect
//!   overheads, `Extradisc 2nd disconnect overhead`) are not charged; nor
//!   are `Minimum seek delay` (which DiskSim's mechanical model does not use
//!   either), `Stop prefetch in sector` (read-ahead
//!   always stops at a block boundary), `Write hit stop prefetch` (any write
//!   stops it), `Hold bus entire read/write xfer`, `Immed transfer partial
//!   hit` (always), `Combine seq writes` (always) and `Maximum number of
//!   write segments` (one write-back at a time). The read-ahead of DiskSim's
//!   scheme 4 follows its own rule of thumb: to the end of the track after
//!   the request, one track further once the segment spans more than a
//!   track, whatever `Maximum read-ahead` and the segment size say; a
//!   segment shorter than that wraps and keeps the blocks read last.
//! - **Read any free blocks**: DiskSim starts such a read with the first
//!   block of the track, in whatever order the blocks come under the heads;
//!   the model reads the request in order and keeps the blocks that passed
//!   before it (see [`crate::disk::cache`]), so a read that starts after its
//!   track's first block is no faster for it.
//! - **Head switches** on the arm's cylinder that start a media read take
//!   at least the one-cylinder seek time, where DiskSim takes `Head switch
//!   time` alone (see [`crate::disk::cache`]: the validation traces show the
//!   settling).
//! - **Watermarks** as a fraction of the segment (`Set watermark by reqsize
//!   = 0`) are taken as the whole request, which a segment's fraction
//!   usually exceeds; the low (write) water mark is not used: a media write
//!   starts as soon as it can without outrunning the bus.
//! - **The bus** is the disk's own: controllers and buses further up the
//!   topology add nothing. A `.diskspecs` file alone has no topology: only
//!   the disk's `Bulk sector transfer time` applies.
//! - **Capacity.** DiskSim sums its zones (cylinders × surfaces × blocks per
//!   track, less the management area and the spares the sparing scheme
//!   reserves) and uses that sum, whatever `Block count` says. For the HP
//!   drives the two agree; for the Cheetah 9LP and the IBM 18ES the zones
//!   hold 135 147 and 117 513 blocks more than `Block count` (the drives'
//!   real capacities). The loader keeps DiskSim's block-to-sector mapping
//!   exactly and drops the surplus blocks from the end of the disk, so the
//!   capacity is `Block count` and every block below it lies where DiskSim
//!   puts it; the innermost cylinders then hold no blocks (the Cheetah's
//!   last block is on cylinder 6894 of 0–6961, the IBM's on 11378 of
//!   0–11473, which agrees with their `.seek` files, measured up to 6894 and
//!   11377 cylinders). [`DisksimOptions::keep_layout_capacity`] keeps
//!   DiskSim's own total.
//! - **Slips, spares and defects** follow every sparing scheme of
//!   `layout_g1` (0–10) and every `LBN-to-PBN mapping scheme` (0, and 1 and
//!   2 whose odd cylinders take their surfaces in reverse order, so that a
//!   cylinder switch stays on its surface); the arithmetic, and where it
//!   departs from DiskSim's own to stay one to one, is in
//!   the `layout` module. Slips under per-track and per-cylinder
//!   sparing turn the skew of later tracks on, as in DiskSim; a remapped
//!   defect's block lies at its spare. A transfer passes over slipped and
//!   unused slots in the middle of a track in their time, and goes to a
//!   remapped block's spare and back. What is approximate is the mean
//!   random seek, which weighs the cylinders of a zone with spare or
//!   unused space as if its blocks were spread evenly over them.
//! - **Skews** are whole sectors, as DiskSim reads them (`Skew units =
//!   revolutions` is rounded to the nearest sector), reduced modulo the
//!   track.
//! - **Seeks**: a seek hides a head switch, as DiskSim's `hplplus10`
//!   curve takes the larger of the two. `Single cylinder seek time`,
//!   `Average seek time` and `Full strobe seek time` only matter to DiskSim's
//!   `linear` and `curve` seek types, which are refused. The square-root
//!   part of an `hpl` curve is kept to the nanosecond. `Percent error in
//!   rpms` is ignored (every bundled model has 0).
//!
//! # The validated drives
//!
//! DiskSim's validation suite is not part of this repository and the disk
//! presets ([`preset`](super::preset)) are built in, so the validated drives
//! are not presets. With the suite in `DIR` (in this workspace
//! `../shared/data/disksim-valid/` from the repository root), the drives of
//! [`DISKSIM_VALIDATED`] load as `from_disksim(DIR/FILE)`, and a spec file
//! can start from one and override its fields: `preset =
//! "disksim:DIR/FILE"` (see [`DiskSpec`]).

mod layout;
mod lex;
mod load;
mod parse;
mod read;
mod seek_file;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use super::{DiskError, DiskSpec};
use lex::Files;
use load::Loader;
use parse::Parser;

/// DiskSim's validated drive models, as (short name, file in DiskSim's
/// `valid/` directory, drive): each file loads with [`from_disksim`].
pub const DISKSIM_VALIDATED: [(&str, &str, &str); 5] = [
    ("hp_c2247a", "hp_c2247a.parv", "HP C2247A, 1 GB, 5400 RPM"),
    ("hp_c3323a", "hp_c3323a.parv", "HP C3323A, 1 GB, 5400 RPM"),
    (
        "cheetah9lp",
        "cheetah9LP.parv",
        "Seagate Cheetah 9LP (ST39102LW), 9 GB, 10 000 RPM",
    ),
    (
        "ibm18es",
        "ibm18es.parv",
        "IBM Ultrastar 18ES (DNES-309170W), 9 GB, 7200 RPM",
    ),
    (
        "hp_c2249a",
        "hp_c2249a.diskspecs",
        "HP C2249A, 1.3 GB, 5400 RPM (no trace)",
    ),
];

/// Choices for [`load_disksim`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DisksimOptions {
    /// The `disksim_disk` (or `dm_disk`) block to read; the first one of the
    /// file tree if `None`.
    pub disk: Option<String>,
    /// Keep every block DiskSim's layout arithmetic gives, even past the
    /// model's `Block count` (by default the capacity is cut to it).
    pub keep_layout_capacity: bool,
}

/// DiskSim's controller overheads of a `disksim_disk` block, in ms, already
/// multiplied by its `Time scale for overheads` (what a drive without a
/// `cache` section is charged, and what its `cache.overheads` come from).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DisksimOverheads {
    /// `Per-request overhead time`.
    pub per_request_ms: f64,
    /// `Read hit over. after read`, `… after write`.
    pub read_hit_ms: [f64; 2],
    /// `Read miss over. after read`, `… after write`.
    pub read_miss_ms: [f64; 2],
    /// `Write hit over. after read`, `… after write`.
    pub write_hit_ms: [f64; 2],
    /// `Write miss over. after read`, `… after write`.
    pub write_miss_ms: [f64; 2],
    /// `Read completion overhead`.
    pub read_completion_ms: f64,
    /// `Write completion overhead`.
    pub write_completion_ms: f64,
    /// `Bulk sector transfer time`: the disk's bus time per 512-byte block
    /// (DiskSim takes the largest of this, the bus's and the controller's).
    pub bulk_sector_transfer_ms: f64,
}

impl DisksimOverheads {
    /// The overhead the loader charges every request of a drive without a
    /// cache: per-request, read miss after a read, read completion.
    pub fn read_miss_total_ms(&self) -> f64 {
        self.per_request_ms + self.read_miss_ms[0] + self.read_completion_ms
    }

    /// The same for a write that misses the cache after a write.
    pub fn write_miss_total_ms(&self) -> f64 {
        self.per_request_ms + self.write_miss_ms[1] + self.write_completion_ms
    }
}

/// A DiskSim disk as loaded: the spec, and what of the description the spec
/// cannot hold.
#[derive(Clone, Debug, PartialEq)]
pub struct DisksimDisk {
    /// The disk.
    pub spec: DiskSpec,
    /// The model's `Block count`.
    pub block_count: u64,
    /// The blocks DiskSim's own layout arithmetic gives (what DiskSim
    /// simulates, whatever `Block count` says).
    pub layout_blocks: u64,
    /// The controller overheads, when the description has a `disksim_disk`
    /// block.
    pub overheads: Option<DisksimOverheads>,
    /// `Add. write settling delay`, ms: extra settling before a write,
    /// which the spec charges only with a cache.
    pub write_settle_ms: f64,
    /// Files read, the named one first.
    pub files: Vec<PathBuf>,
}

/// Reads a DiskSim disk description (`.parv`, `.diskspecs` or `.model`)
/// into a [`DiskSpec`]: the first disk of the file tree, its capacity cut to
/// the model's `Block count` (see the [module documentation](crate::disk::disksim) for what
/// maps to what, and every approximation).
///
/// # Errors
/// [`DiskError::Io`] when the file cannot be read; [`DiskError::Disksim`]
/// naming the file, the line and the parameter for malformed text, a missing
/// parameter, a bad value, an unreadable `source` or seek file, or a feature
/// the loader does not model; the errors of
/// [`DiskModel::from_spec`](super::DiskModel::from_spec) should the result
/// be inconsistent.
pub fn from_disksim(path: impl AsRef<Path>) -> Result<DiskSpec, DiskError> {
    Ok(load_disksim(path, &DisksimOptions::default())?.spec)
}

/// [`from_disksim`] with choices, returning what the spec cannot hold as
/// well.
///
/// # Errors
/// As [`from_disksim`]; [`DiskError::Disksim`] when the disk named in
/// `options` is not defined.
pub fn load_disksim(
    path: impl AsRef<Path>,
    options: &DisksimOptions,
) -> Result<DisksimDisk, DiskError> {
    let path = path.as_ref();
    let mut files = Files::default();
    let tokens = files.lex(path, None, 0)?;
    let tree = Parser::new(&tokens, &files).top()?;
    let disk = Loader::new(&files, &tree).disk(options)?;
    super::DiskModel::from_spec(&disk.spec)?;
    Ok(disk)
}
