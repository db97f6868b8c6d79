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
//! | `Sparing scheme used`, zone `Number of spares`, `slips` | `geometry.zone_layout[i].unused` (slipped sectors or tracks) and `.blocks` (the zone's block count; the rest is spare), as DiskSim's `layout_g1` computes them |
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
//! | `Fast write level` 0, 1, 2 | `cache.write_back` = `off`, `appends`, `all` |
//! | `Buffer continuous read` 0 … 4 | `cache.read_ahead.scheme` = `none`, `track`, `cylinder`, `segment`, `next-track` |
//! | `Minimum read-ahead (blks)`, `Maximum read-ahead (blks)` | `cache.read_ahead.min_blocks`, `.max_blocks` (a maximum of 0, "no limit", becomes the segment size) |
//! | `Read-ahead over requested`, `Read-ahead on idle hit` | `cache.read_ahead.replace_requested`, `.on_hit` |
//! | `Read hit over. after read/write` + `Data preparation overhead` | `cache.overheads.read_hit` |
//! | `Read miss over. after read/write` | `cache.overheads.read_miss` |
//! | `Write hit over. after read/write` + `Data preparation overhead` | `cache.overheads.write_hit` |
//! | `Write miss over. after read/write` (with `Extra write disconnect`: `Extradisc command overhead` + `Extradisc seek delta`) | `cache.overheads.write_miss` |
//! | `Read completion overhead`, `Write completion overhead` | `cache.overheads.read_completion_ms`, `.write_completion_ms` |
//! | `First reselect overhead` + `Data preparation overhead` | `cache.overheads.reconnect_ms` |
//! | `First reselect overhead` (with `Extra write disconnect`: `Other reselect overhead`) | `cache.overheads.completion_reconnect_ms` |
//! | `Data preparation overhead` (with `Extra write disconnect`: `Extradisc disconnect overhead` + `Extradisc inter-disconnect delay` + `First reselect overhead` + `Data preparation overhead` − `Extradisc seek delta`) | `cache.overheads.write_data_delay_ms` |
//! | `Add. write settling delay` | `cache.overheads.write_settle_ms` |
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
//!   either), `Read any free blocks`, `Stop prefetch in sector` (read-ahead
//!   always stops at a block boundary), `Write hit stop prefetch` (any write
//!   stops it), `Hold bus entire read/write xfer`, `Immed transfer partial
//!   hit` (always), `Combine seq writes` (always) and `Maximum number of
//!   write segments` (one write-back at a time). The read-ahead of DiskSim's
//!   scheme 4 follows its own rule of thumb: one track further once the
//!   segment spans more than a track.
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
//! - **Slips and spares** are honoured exactly for the sparing schemes the
//!   bundled models use (1: spare tracks at the end of each zone, slips are
//!   tracks; 7: spare sectors at the end of the disk, slipped sectors
//!   shift every later block; 9 and 10: spare sectors at the end of each
//!   zone) and for 0 (no sparing). Per-cylinder, per-track and per-range
//!   sparing (2–6, 8) are refused. So the block-to-sector mapping is
//!   DiskSim's own for every block; what is approximate is timing around
//!   the holes: a geometric transfer that runs across a slipped sector in
//!   the middle of a track is timed as if the sector were not there (one
//!   sector time short), a track whose last slots are spare or unused is
//!   taken to end at its last slot when the wait for the next track is
//!   computed, and the mean random seek weighs the cylinders of such a zone
//!   as if its blocks were spread evenly over them.
//! - **Defects** (remapped sectors) are kept in their original place rather
//!   than at their spare; the bundled models have none.
//! - **Skews** are whole sectors, as DiskSim reads them (`Skew units =
//!   revolutions` is rounded to the nearest sector), reduced modulo the
//!   track. Only the conventional cylinder-major layout (`LBN-to-PBN mapping
//!   scheme = 0`) is read.
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

use std::path::{Path, PathBuf};

use super::{
    AfterPrevious, BusSpec, CacheOverheads, CacheSpec, DiskError, DiskSpec, GeometrySpec, LongSeek,
    ReadAheadScheme, ReadAheadSpec, RotationSpec, SeekSpec, TransferSpec, WriteBack, Zone,
    ZoneLayout,
};

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

/// Bytes in one DiskSim block.
const SECTOR_BYTES: u32 = 512;

/// The most cylinders the square-root part of an `hpl` seek curve may span
/// (it becomes a table with a point per cylinder).
const MAX_TABLE_POINTS: u32 = 1_000_000;

/// How deep `source` files may nest (DiskSim's own limit is 32 open files).
const MAX_SOURCE_DEPTH: usize = 32;

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
    let tree = Parser {
        tokens: &tokens,
        next: 0,
        files: &files,
        depth: 0,
    }
    .top()?;
    let loader = Loader {
        files: &files,
        tree: &tree,
    };
    let disk = loader.disk(options)?;
    super::DiskModel::from_spec(&disk.spec)?;
    Ok(disk)
}

// ---------------------------------------------------------------------------
// Text: files, tokens, syntax tree

/// A place in the file tree: the file (an index into [`Files::paths`]) and
/// the line, from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    file: usize,
    line: u32,
}

/// The files read so far.
#[derive(Debug, Default)]
struct Files {
    paths: Vec<PathBuf>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Open,
    Close,
    LBracket,
    RBracket,
    Comma,
    Equals,
    Text(String),
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Open => "`{`".into(),
            Tok::Close => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Equals => "`=`".into(),
            Tok::Text(t) => format!("`{t}`"),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    at: Pos,
}

impl Files {
    fn path(&self, at: Pos) -> &Path {
        &self.paths[at.file]
    }

    fn error(&self, at: Pos, parameter: Option<&str>, message: impl Into<String>) -> DiskError {
        DiskError::Disksim {
            path: self.path(at).to_path_buf(),
            line: at.line,
            parameter: parameter.map(str::to_string),
            message: message.into(),
        }
    }

    /// Resolves `name`, written in the file of `at`, as DiskSim does:
    /// absolute as it is, relative from the directory of that file.
    fn resolve(&self, at: Pos, name: &str) -> PathBuf {
        let name = Path::new(name);
        if name.is_absolute() {
            name.to_path_buf()
        } else {
            self.path(at).parent().unwrap_or(Path::new("")).join(name)
        }
    }

    /// Reads `path` (named by a `source` at `from`, if any) into tokens,
    /// splicing in the files it sources.
    fn lex(
        &mut self,
        path: &Path,
        from: Option<Pos>,
        depth: usize,
    ) -> Result<Vec<Token>, DiskError> {
        let text = std::fs::read_to_string(path).map_err(|source| match from {
            None => DiskError::Io {
                path: path.to_path_buf(),
                source,
            },
            Some(at) => self.error(
                at,
                None,
                format!(
                    "`source {}`: cannot read {}: {source}",
                    path.display(),
                    path.display()
                ),
            ),
        })?;
        let file = self.paths.len();
        self.paths.push(path.to_path_buf());
        let mut tokens = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let at = Pos {
                file,
                line: u32::try_from(i + 1).unwrap_or(u32::MAX),
            };
            let line = line.split('#').next().unwrap_or("");
            let mut word = String::new();
            for c in line.chars() {
                let tok = match c {
                    '{' => Tok::Open,
                    '}' => Tok::Close,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    ',' => Tok::Comma,
                    '=' => Tok::Equals,
                    c => {
                        word.push(c);
                        continue;
                    }
                };
                self.text(&mut word, at, depth, &mut tokens)?;
                tokens.push(Token { tok, at });
            }
            self.text(&mut word, at, depth, &mut tokens)?;
        }
        Ok(tokens)
    }

    /// Ends a run of text: a `source FILE` directive is replaced by the
    /// file's tokens, any other text becomes one token, its white space
    /// collapsed.
    fn text(
        &mut self,
        word: &mut String,
        at: Pos,
        depth: usize,
        tokens: &mut Vec<Token>,
    ) -> Result<(), DiskError> {
        let words: Vec<&str> = word.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["source", name] => {
                if depth + 1 >= MAX_SOURCE_DEPTH {
                    return Err(self.error(
                        at,
                        None,
                        format!("`source {name}`: files nest more than {MAX_SOURCE_DEPTH} deep (a file sources itself?)"),
                    ));
                }
                let path = self.resolve(at, name);
                tokens.extend(self.lex(&path, Some(at), depth + 1)?);
            }
            words => tokens.push(Token {
                tok: Tok::Text(words.join(" ")),
                at,
            }),
        }
        word.clear();
        Ok(())
    }
}

/// A value: a word or number, a list, a block, or a named list (`TYPE NAME
/// [ … ]`, a node of a topology).
#[derive(Clone, Debug)]
enum Value {
    Text(String),
    List(Vec<Node>),
    Block(Block),
    Named(String, Vec<Node>),
}

/// A value and where it starts.
#[derive(Clone, Debug)]
struct Node {
    value: Value,
    at: Pos,
}

/// `Name = value`.
#[derive(Clone, Debug)]
struct Param {
    name: String,
    value: Node,
    at: Pos,
}

/// What a file tree defines: its blocks, its instances (the names, or
/// ranges of names, each `instantiate` gives copies of a block) and its
/// topologies (`Named` values).
#[derive(Debug, Default)]
struct Tree {
    blocks: Vec<Block>,
    instances: Vec<(Vec<String>, String)>,
    topology: Vec<Value>,
}

/// `kind name { params }` (a top-level definition) or `kind { params }` (a
/// value).
#[derive(Clone, Debug)]
struct Block {
    kind: String,
    name: String,
    params: Vec<Param>,
    at: Pos,
}

struct Parser<'a> {
    tokens: &'a [Token],
    next: usize,
    files: &'a Files,
    /// Blocks and lists open around the current token.
    depth: usize,
}

/// How deep blocks and lists may nest.
const MAX_NESTING: usize = 64;

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next)
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.next).cloned();
        self.next += 1;
        t
    }

    /// Where the text ends: the last token's place.
    fn end(&self) -> Pos {
        self.tokens
            .last()
            .map_or(Pos { file: 0, line: 0 }, |t| t.at)
    }

    fn unexpected(&self, t: &Token, wanted: &str) -> DiskError {
        let message = match t.tok {
            Tok::Close => format!("unbalanced braces: `}}` closes nothing (expected {wanted})"),
            Tok::RBracket => format!("unbalanced brackets: `]` closes nothing (expected {wanted})"),
            _ => format!("expected {wanted}, found {}", t.tok.describe()),
        };
        self.files.error(t.at, None, message)
    }

    /// The top level: block definitions, `instantiate [ … ] as NAME`,
    /// `topology TYPE NAME [ … ]`.
    fn top(&mut self) -> Result<Tree, DiskError> {
        let mut tree = Tree::default();
        while let Some(t) = self.bump() {
            let Tok::Text(head) = &t.tok else {
                return Err(self.unexpected(&t, "a block definition"));
            };
            match self.peek().map(|n| &n.tok) {
                Some(Tok::Open) => {
                    self.next += 1;
                    let (kind, name) = head.split_once(' ').unwrap_or((head, ""));
                    tree.blocks.push(self.block(kind, name, t.at)?);
                }
                Some(Tok::LBracket) => {
                    self.next += 1;
                    let items = self.list(t.at)?;
                    if let Some(root) = head.strip_prefix("topology ") {
                        tree.topology.push(Value::Named(root.to_string(), items));
                    } else if head == "instantiate" {
                        match self.bump() {
                            Some(Token {
                                tok: Tok::Text(text),
                                ..
                            }) if text.starts_with("as ") => {
                                let names = items.into_iter().filter_map(|n| match n.value {
                                    Value::Text(name) => Some(name),
                                    _ => None,
                                });
                                tree.instances
                                    .push((names.collect(), text[3..].to_string()));
                            }
                            Some(other) => return Err(self.unexpected(&other, "`as NAME`")),
                            None => {
                                return Err(self.files.error(
                                    self.end(),
                                    None,
                                    "the text ends inside an `instantiate` (expected `as NAME`)",
                                ));
                            }
                        }
                    }
                }
                _ => {
                    return Err(self.files.error(
                        t.at,
                        None,
                        format!("expected `{{` or `[` after `{head}`"),
                    ));
                }
            }
        }
        Ok(tree)
    }

    /// The parameters of a block whose `{` (at `at`) has been read, through
    /// its `}`.
    fn block(&mut self, kind: &str, name: &str, at: Pos) -> Result<Block, DiskError> {
        let unclosed = |files: &Files| {
            files.error(
                at,
                None,
                format!("unbalanced braces: the `{{` of `{kind} {name}` is never closed"),
            )
        };
        let mut params = Vec::new();
        loop {
            let Some(t) = self.bump() else {
                return Err(unclosed(self.files));
            };
            let names = match t.tok {
                Tok::Close => break,
                Tok::Text(name) => vec![name],
                // `[ a, b ] = value` gives several parameters one value.
                Tok::LBracket => {
                    let mut names = Vec::new();
                    for node in self.list(t.at)? {
                        match node.value {
                            Value::Text(name) => names.push(name),
                            _ => {
                                return Err(self.files.error(
                                    node.at,
                                    None,
                                    "expected a parameter name in the list",
                                ));
                            }
                        }
                    }
                    names
                }
                _ => return Err(self.unexpected(&t, "a parameter name or `}`")),
            };
            match self.bump() {
                Some(Token {
                    tok: Tok::Equals, ..
                }) => {}
                Some(other) => {
                    return Err(self.files.error(
                        other.at,
                        Some(&names.join(", ")),
                        format!("expected `=`, found {}", other.tok.describe()),
                    ));
                }
                None => return Err(unclosed(self.files)),
            }
            let value = match self.value()? {
                Some(value) => value,
                None => {
                    return Err(self.files.error(
                        t.at,
                        Some(&names.join(", ")),
                        "no value after `=`",
                    ));
                }
            };
            for name in names {
                params.push(Param {
                    name,
                    value: value.clone(),
                    at: t.at,
                });
            }
            match self.bump() {
                Some(Token {
                    tok: Tok::Comma, ..
                }) => {}
                Some(Token {
                    tok: Tok::Close, ..
                }) => break,
                Some(other) => {
                    return Err(self.unexpected(&other, "`,` or `}` after a parameter"));
                }
                None => return Err(unclosed(self.files)),
            }
        }
        Ok(Block {
            kind: kind.to_string(),
            name: name.to_string(),
            params,
            at,
        })
    }

    /// A value, or `None` where a value should start but none does.
    fn value(&mut self) -> Result<Option<Node>, DiskError> {
        if self.depth >= MAX_NESTING {
            let at = self.peek().map_or(self.end(), |t| t.at);
            return Err(self.files.error(
                at,
                None,
                format!("blocks and lists nest more than {MAX_NESTING} deep"),
            ));
        }
        self.depth += 1;
        let value = self.nested_value();
        self.depth -= 1;
        value
    }

    fn nested_value(&mut self) -> Result<Option<Node>, DiskError> {
        let Some(t) = self.peek().cloned() else {
            return Ok(None);
        };
        let value = match t.tok {
            Tok::LBracket => {
                self.next += 1;
                Value::List(self.list(t.at)?)
            }
            Tok::Text(text) => {
                self.next += 1;
                match self.peek().map(|n| &n.tok) {
                    Some(Tok::Open) => {
                        self.next += 1;
                        let (kind, name) = text.split_once(' ').unwrap_or((&text, ""));
                        Value::Block(self.block(kind, name, t.at)?)
                    }
                    // `disksim_bus bus0 [ … ]` in a topology.
                    Some(Tok::LBracket) => {
                        self.next += 1;
                        Value::Named(text, self.list(t.at)?)
                    }
                    _ => Value::Text(text),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(Node { value, at: t.at }))
    }

    /// The items of a list whose `[` (at `at`) has been read, through its
    /// `]`; commas between items are optional.
    fn list(&mut self, at: Pos) -> Result<Vec<Node>, DiskError> {
        let mut items = Vec::new();
        loop {
            match self.peek().map(|t| &t.tok) {
                None => {
                    return Err(self.files.error(
                        at,
                        None,
                        "unbalanced brackets: this `[` is never closed",
                    ));
                }
                Some(Tok::RBracket) => {
                    self.next += 1;
                    return Ok(items);
                }
                Some(Tok::Comma) => self.next += 1,
                Some(_) => match self.value()? {
                    Some(node) => items.push(node),
                    None => {
                        let t = self.bump().expect("peeked");
                        return Err(self.unexpected(&t, "a list item or `]`"));
                    }
                },
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Reading parameters

/// A block with the files, to read typed parameters from it.
#[derive(Clone, Copy)]
struct Reader<'a> {
    block: &'a Block,
    files: &'a Files,
}

impl<'a> Reader<'a> {
    fn param(&self, name: &str) -> Option<&'a Param> {
        self.block.params.iter().find(|p| p.name == name)
    }

    fn error(&self, at: Pos, name: &str, message: impl Into<String>) -> DiskError {
        self.files.error(at, Some(name), message)
    }

    fn required(&self, name: &str) -> Result<&'a Param, DiskError> {
        self.param(name).ok_or_else(|| {
            let what = match self.block.name.as_str() {
                "" => format!("`{}` block", self.block.kind),
                n => format!("`{} {n}` block", self.block.kind),
            };
            self.error(self.block.at, name, format!("missing from the {what}"))
        })
    }

    fn text_of(&self, p: &'a Param) -> Result<&'a str, DiskError> {
        match &p.value.value {
            Value::Text(t) => Ok(t),
            _ => Err(self.error(
                p.at,
                &p.name,
                "expected a number or a word, found a list or a block",
            )),
        }
    }

    fn word(&self, name: &str) -> Result<&'a str, DiskError> {
        self.text_of(self.required(name)?)
    }

    fn number_of(&self, p: &Param, text: &str, at: Pos) -> Result<f64, DiskError> {
        text.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| self.error(at, &p.name, format!("`{text}` is not a number")))
    }

    /// A non-negative number.
    fn number(&self, name: &str) -> Result<f64, DiskError> {
        let p = self.required(name)?;
        let x = self.number_of(p, self.text_of(p)?, p.at)?;
        if x < 0.0 {
            return Err(self.error(p.at, name, format!("{x} is negative")));
        }
        Ok(x)
    }

    /// A number of either sign.
    fn signed(&self, name: &str) -> Result<f64, DiskError> {
        let p = self.required(name)?;
        self.number_of(p, self.text_of(p)?, p.at)
    }

    /// A non-negative number, `default` when the parameter is absent.
    fn number_or(&self, name: &str, default: f64) -> Result<f64, DiskError> {
        match self.param(name) {
            Some(_) => self.number(name),
            None => Ok(default),
        }
    }

    fn integer_of(&self, p: &Param, text: &str, at: Pos) -> Result<u64, DiskError> {
        let x = self.number_of(p, text, at)?;
        if x < 0.0 || x.fract() != 0.0 || x > 2f64.powi(53) {
            return Err(self.error(
                at,
                &p.name,
                format!("`{text}` is not a whole number of at least 0"),
            ));
        }
        Ok(x as u64)
    }

    /// A whole number of at least 0 (written `12` or `12.000000`).
    fn integer(&self, name: &str) -> Result<u64, DiskError> {
        let p = self.required(name)?;
        self.integer_of(p, self.text_of(p)?, p.at)
    }

    /// A whole number that fits in a `u32`.
    fn count(&self, name: &str) -> Result<u32, DiskError> {
        let n = self.integer(name)?;
        u32::try_from(n).map_err(|_| {
            self.error(
                self.required(name).map_or(self.block.at, |p| p.at),
                name,
                format!("{n} is too large"),
            )
        })
    }

    /// A list of numbers.
    fn numbers(&self, name: &str) -> Result<Vec<(f64, Pos)>, DiskError> {
        let p = self.required(name)?;
        let Value::List(items) = &p.value.value else {
            return Err(self.error(p.at, name, "expected a list `[ … ]`"));
        };
        items
            .iter()
            .map(|item| match &item.value {
                Value::Text(t) => Ok((self.number_of(p, t, item.at)?, item.at)),
                _ => Err(self.error(item.at, name, "expected a number in the list")),
            })
            .collect()
    }

    /// A list of whole numbers.
    fn integers(&self, name: &str) -> Result<Vec<(u64, Pos)>, DiskError> {
        let p = self.required(name)?;
        self.numbers(name)?
            .into_iter()
            .map(|(x, at)| {
                if x < 0.0 || x.fract() != 0.0 || x > 2f64.powi(53) {
                    Err(self.error(
                        at,
                        &p.name,
                        format!("{x} is not a whole number of at least 0"),
                    ))
                } else {
                    Ok((x as u64, at))
                }
            })
            .collect()
    }

    /// A nested block value of kind `kind`.
    fn block(&self, name: &str, kinds: &[&str]) -> Result<Reader<'a>, DiskError> {
        let p = self.required(name)?;
        match &p.value.value {
            Value::Block(b) if kinds.contains(&b.kind.as_str()) => Ok(Reader {
                block: b,
                files: self.files,
            }),
            Value::Block(b) => Err(self.error(
                p.at,
                name,
                format!(
                    "a `{}` block is not supported (expected {})",
                    b.kind,
                    kinds.join(" or ")
                ),
            )),
            _ => Err(self.error(p.at, name, format!("expected a `{}` block", kinds[0]))),
        }
    }
}

// ---------------------------------------------------------------------------
// Building the spec

struct Loader<'a> {
    files: &'a Files,
    tree: &'a Tree,
}

/// A DiskSim zone as read.
struct DsZone {
    first: u32,
    last: u32,
    spt: u32,
    /// Sector positions that are not unused.
    usable: u64,
    layout: ZoneLayout,
    blocks: u64,
}

impl Loader<'_> {
    fn top_block(&self, kind: &str, name: Option<&str>) -> Option<&Block> {
        self.tree
            .blocks
            .iter()
            .find(|b| b.kind == kind && name.is_none_or(|n| b.name == n))
    }

    fn disk(&self, options: &DisksimOptions) -> Result<DisksimDisk, DiskError> {
        let wanted = options.disk.as_deref();
        let (disk, model) = match self.top_block("disksim_disk", wanted) {
            Some(disk) => {
                let disk = Reader {
                    block: disk,
                    files: self.files,
                };
                let p = disk.required("Model")?;
                let model = match &p.value.value {
                    Value::Block(b) if b.kind == "dm_disk" => b,
                    Value::Text(name) => {
                        self.top_block("dm_disk", Some(name)).ok_or_else(|| {
                            disk.error(
                                p.at,
                                "Model",
                                format!("no `dm_disk {name}` block is defined"),
                            )
                        })?
                    }
                    _ => {
                        return Err(disk.error(
                            p.at,
                            "Model",
                            "expected a `dm_disk` block (`source FILE.model`)",
                        ));
                    }
                };
                (Some(disk), model)
            }
            None => match self.top_block("dm_disk", wanted) {
                Some(model) => (None, model),
                None => {
                    let at = Pos { file: 0, line: 0 };
                    return Err(self.files.error(
                        at,
                        None,
                        match wanted {
                            Some(n) => {
                                format!("no `disksim_disk {n}` or `dm_disk {n}` block is defined")
                            }
                            None => "no `disksim_disk` or `dm_disk` block is defined".into(),
                        },
                    ));
                }
            },
        };
        let model = Reader {
            block: model,
            files: self.files,
        };
        let name = disk.map_or(&model.block.name, |d| &d.block.name).clone();

        let cylinders = model.count("Number of cylinders")?;
        let surfaces = model.count("Number of data surfaces")?;
        let block_count = model.integer("Block count")?;
        for (value, field) in [
            (cylinders, "Number of cylinders"),
            (surfaces, "Number of data surfaces"),
        ] {
            if value == 0 {
                let at = model.required(field)?.at;
                return Err(model.error(at, field, "is 0: a disk needs at least one"));
            }
        }
        let layout = model.block("Layout Model", &["dm_layout_g1"])?;
        let mut zones = self.zones(layout, cylinders, surfaces)?;
        if block_count == 0 {
            let at = model.required("Block count")?.at;
            return Err(model.error(at, "Block count", "is 0: a disk needs at least one block"));
        }
        let layout_blocks = zones
            .iter()
            .fold(0u64, |sum, z| sum.saturating_add(z.blocks));
        if layout_blocks == 0 {
            let at = layout.required("Zones")?.at;
            return Err(layout.error(at, "Zones", "the zones hold no blocks"));
        }
        if !options.keep_layout_capacity && layout_blocks > block_count {
            // Cut the surplus from the end of the disk.
            let mut excess = layout_blocks - block_count;
            for zone in zones.iter_mut().rev() {
                let cut = excess.min(zone.blocks);
                zone.blocks -= cut;
                excess -= cut;
            }
        }

        let mech = model.block("Mechanical Model", &["dm_mech_g1"])?;
        let rpm = mech.count("Rotation speed (in rpms)")?;
        if rpm == 0 {
            let at = mech.required("Rotation speed (in rpms)")?.at;
            return Err(mech.error(at, "Rotation speed (in rpms)", "is 0"));
        }
        let rotation = match mech.word("Access time type")? {
            "trackSwitchPlusRotation" => RotationSpec::Tracked,
            "averageRotation" => RotationSpec::Random { max_ms: None },
            other => {
                let at = mech.required("Access time type")?.at;
                return Err(mech.error(
                    at,
                    "Access time type",
                    format!(
                        "`{other}` is not supported (trackSwitchPlusRotation or averageRotation)"
                    ),
                ));
            }
        };
        let seek = self.seek(mech, cylinders)?;
        let head_switch_ms = mech.number("Head switch time")?;
        let write_settle_ms = mech.number_or("Add. write settling delay", 0.0)?;

        let overheads = disk.map(|d| self.overheads(d)).transpose()?;
        // A cache is timed on the spinning media: not with averageRotation.
        let cache = match (disk, &overheads, &rotation) {
            (Some(d), Some(o), RotationSpec::Tracked) => self.cache(d, o, write_settle_ms)?,
            _ => None,
        };
        // With a cache its overheads replace the single read-miss figure;
        // only the per-request overhead applies to every request.
        let controller_overhead_ms = match (&overheads, &cache) {
            (Some(o), Some(_)) => o.per_request_ms,
            (Some(o), None) => o.read_miss_total_ms(),
            (None, _) => 0.0,
        };

        let geometry = geometry(cylinders, surfaces, &zones);
        let spec = DiskSpec {
            name,
            geometry,
            rpm: Some(f64::from(rpm)),
            seek,
            rotation,
            transfer: TransferSpec::Geometry,
            head_switch_ms,
            controller_overhead_ms,
            cache,
        };
        Ok(DisksimDisk {
            spec,
            block_count,
            layout_blocks,
            overheads,
            write_settle_ms,
            files: self.files.paths.clone(),
        })
    }

    /// The zones of a `dm_layout_g1` block, each with its layout and its
    /// block count as DiskSim's `layout_g1` computes them.
    fn zones(
        &self,
        layout: Reader<'_>,
        cylinders: u32,
        surfaces: u32,
    ) -> Result<Vec<DsZone>, DiskError> {
        let mapping = layout.integer("LBN-to-PBN mapping scheme")?;
        if mapping != 0 {
            let at = layout.required("LBN-to-PBN mapping scheme")?.at;
            return Err(layout.error(
                at,
                "LBN-to-PBN mapping scheme",
                format!("scheme {mapping} (serpentine cylinders) is not supported; only 0, the conventional cylinder-major mapping"),
            ));
        }
        let scheme_param = layout.required("Sparing scheme used")?;
        let scheme = layout.integer("Sparing scheme used")?;
        if !matches!(scheme, 0 | 1 | 7 | 9 | 10) {
            return Err(layout.error(
                scheme_param.at,
                "Sparing scheme used",
                format!(
                    "scheme {scheme} is not supported: only 0 (none), 1 (spare tracks per zone), 7 (spare sectors at the end of the disk), 9 and 10 (spare sectors per zone)"
                ),
            ));
        }
        let units = skew_units(layout, None)?;
        let zones_param = layout.required("Zones")?;
        let Value::List(items) = &zones_param.value.value else {
            return Err(layout.error(
                zones_param.at,
                "Zones",
                "expected a list of `dm_layout_g1_zone` blocks",
            ));
        };
        if items.is_empty() {
            return Err(layout.error(zones_param.at, "Zones", "the list is empty"));
        }
        let mut zones: Vec<DsZone> = Vec::with_capacity(items.len());
        for item in items {
            let Value::Block(b) = &item.value else {
                return Err(layout.error(item.at, "Zones", "expected a `dm_layout_g1_zone` block"));
            };
            if b.kind != "dm_layout_g1_zone" {
                return Err(layout.error(
                    item.at,
                    "Zones",
                    format!("a `{}` block is not a `dm_layout_g1_zone`", b.kind),
                ));
            }
            let z = Reader {
                block: b,
                files: self.files,
            };
            let first = z.count("First cylinder number")?;
            let last = z.count("Last cylinder number")?;
            let spt = z.count("Blocks per track")?;
            let bad = |name: &str, message: String| {
                z.error(z.param(name).map_or(b.at, |p| p.at), name, message)
            };
            if spt == 0 {
                return Err(bad("Blocks per track", "is 0".into()));
            }
            if last < first {
                return Err(bad(
                    "Last cylinder number",
                    format!("{last} is before the first cylinder {first}"),
                ));
            }
            if last >= cylinders {
                return Err(bad(
                    "Last cylinder number",
                    format!(
                        "{last} is past the disk's last cylinder ({})",
                        cylinders - 1
                    ),
                ));
            }
            if let Some(prev) = zones.last()
                && first <= prev.last
            {
                return Err(bad(
                    "First cylinder number",
                    format!(
                        "{first} is not after the previous zone's last cylinder {}: zones must be listed in cylinder order without overlap",
                        prev.last
                    ),
                ));
            }
            let units = skew_units(z, Some(units))?;
            let skew = |name: &str| -> Result<u32, DiskError> {
                let x = z.number_or(name, 0.0)?;
                let sectors = match units {
                    Units::Sectors => x.trunc(),
                    Units::Revolutions => (x * f64::from(spt)).round(),
                };
                Ok((sectors % f64::from(spt)) as u32)
            };
            let track_skew = skew("Skew for track switch")?;
            let cylinder_skew = skew("Skew for cylinder switch")?;
            let first_skew = skew("Offset of first block")?;
            let dead = z.integer("Empty space at zone front")?;
            let spares = z.integer("Number of spares")?;
            let slips = z.integers("slips")?;
            let defects = z.integers("defects")?;
            if defects.len() % 2 != 0 {
                return Err(bad(
                    "defects",
                    "expected (defective, replacement) pairs: the list has an odd length".into(),
                ));
            }
            let positions = u64::from(last - first + 1)
                .checked_mul(u64::from(surfaces) * u64::from(spt))
                .filter(|&p| p < 1 << 53)
                .ok_or_else(|| bad("Blocks per track", "the zone has too many sectors".into()))?;
            let tracks = positions / u64::from(spt);
            if dead > positions {
                return Err(bad(
                    "Empty space at zone front",
                    format!("{dead} is more than the zone's {positions} sectors"),
                ));
            }
            // Slipped positions: tracks under scheme 1, sectors otherwise.
            let (unit, limit) = if scheme == 1 {
                (u64::from(spt), tracks)
            } else {
                (1, positions)
            };
            let mut slipped: Vec<(u64, u64)> = Vec::with_capacity(slips.len());
            if scheme != 0 {
                for &(slip, at) in &slips {
                    if slip >= limit {
                        return Err(z.error(
                            at,
                            "slips",
                            format!(
                                "{slip} is past the zone's last {} ({})",
                                if scheme == 1 { "track" } else { "sector" },
                                limit - 1
                            ),
                        ));
                    }
                    slipped.push((slip * unit, unit));
                }
            }
            slipped.sort_unstable();
            // DiskSim numbers blocks P − (empty space) − (slips before P): the
            // management area is the first `dead` positions that are not
            // slipped.
            let mut front = dead;
            for &(start, len) in &slipped {
                if start < front {
                    front = front.saturating_add(len);
                }
            }
            let front = front.min(positions);
            let mut unused = slipped.clone();
            if front > 0 {
                unused.insert(0, (0, front));
            }
            let spare_sectors = match scheme {
                0 | 7 => 0,
                1 => spares.saturating_mul(u64::from(spt)),
                _ => spares,
            };
            let slip_sectors = if matches!(scheme, 7 | 10) {
                slips.len() as u64
            } else {
                0
            };
            let counted = positions
                .saturating_sub(dead)
                .saturating_sub(spare_sectors)
                .saturating_sub(slip_sectors);
            let usable = positions - merged_len(&unused);
            let blocks = counted.min(usable);
            zones.push(DsZone {
                first,
                last,
                spt,
                usable,
                layout: ZoneLayout {
                    track_skew: Some(track_skew),
                    cylinder_skew: Some(cylinder_skew),
                    first_skew: Some(first_skew),
                    unused: merge(unused),
                    blocks: None,
                },
                blocks,
            });
        }
        Ok(zones)
    }

    /// The seek curve of a `dm_mech_g1` block, for a disk of `cylinders`.
    fn seek(&self, mech: Reader<'_>, cylinders: u32) -> Result<SeekSpec, DiskError> {
        let max_distance = cylinders - 1;
        let kind_param = mech.required("Seek type")?;
        let kind = mech.word("Seek type")?;
        match kind {
            "extracted" => {
                let p = mech.required("Full seek curve")?;
                let name = mech.text_of(p)?;
                let path = self.files.resolve(p.value.at, name);
                let points = read_seek_curve(&path).map_err(|e| match e {
                    SeekFileError::Io(source) => mech.error(
                        p.at,
                        "Full seek curve",
                        format!("cannot read {}: {source}", path.display()),
                    ),
                    SeekFileError::Line(line, message) => DiskError::Disksim {
                        path: path.clone(),
                        line,
                        parameter: None,
                        message,
                    },
                })?;
                Ok(SeekSpec::Table { points })
            }
            "hpl" | "hplplus10" => {
                let values = mech.numbers("HPL seek equation values")?;
                let p = mech.required("HPL seek equation values")?;
                if values.len() != 6 {
                    return Err(mech.error(
                        p.at,
                        "HPL seek equation values",
                        format!("expected 6 values (V1 … V6), found {}", values.len()),
                    ));
                }
                let v: Vec<f64> = values.iter().map(|&(x, _)| x).collect();
                if v[0] < 0.0 || v[0].fract() != 0.0 || v[0] > f64::from(u32::MAX) {
                    return Err(mech.error(
                        values[0].1,
                        "HPL seek equation values",
                        format!("V1 = {} is not a whole number of cylinders", v[0]),
                    ));
                }
                for (i, &(x, at)) in values.iter().enumerate().skip(1) {
                    if x < 0.0 && !(i == 5 && x == -1.0) {
                        return Err(mech.error(
                            at,
                            "HPL seek equation values",
                            format!("V{} = {x} is negative", i + 1),
                        ));
                    }
                }
                let hpl = Hpl {
                    boundary: v[0] as u32,
                    a: v[1],
                    b: v[2],
                    long_a: v[3],
                    long_b: v[4],
                    single: (v[5] != -1.0).then_some(v[5]),
                };
                // The table holds a point per cylinder of the square-root part.
                if hpl.boundary.min(max_distance) > MAX_TABLE_POINTS {
                    return Err(mech.error(
                        values[0].1,
                        "HPL seek equation values",
                        format!(
                            "V1 = {}: a square-root part over more than {MAX_TABLE_POINTS} cylinders is not supported",
                            hpl.boundary
                        ),
                    ));
                }
                if kind == "hpl" {
                    if hpl.single.is_none() {
                        return Ok(SeekSpec::SqrtLinear {
                            a_ms: hpl.a,
                            b_ms: hpl.b,
                            c_ms: 0.0,
                            long: Some(LongSeek {
                                from: hpl.boundary.max(1),
                                a_ms: hpl.long_a,
                                b_ms: hpl.long_b,
                            }),
                        });
                    }
                    return Ok(SeekSpec::Table {
                        points: hpl.table(&[], max_distance),
                    });
                }
                let first = mech.numbers("First ten seek times")?;
                if first.len() != 10 {
                    let at = mech.required("First ten seek times")?.at;
                    return Err(mech.error(
                        at,
                        "First ten seek times",
                        format!("expected 10 times, found {}", first.len()),
                    ));
                }
                if let Some(&(x, at)) = first.iter().find(|(x, _)| *x < 0.0) {
                    return Err(mech.error(at, "First ten seek times", format!("{x} is negative")));
                }
                let first: Vec<f64> = first.iter().map(|&(x, _)| x).collect();
                Ok(SeekSpec::Table {
                    points: hpl.table(&first, max_distance),
                })
            }
            "constant" => Ok(SeekSpec::Table {
                points: vec![(1, mech.number("Constant seek time")?)],
            }),
            other => Err(mech.error(
                kind_param.at,
                "Seek type",
                format!("`{other}` is not supported (extracted, hpl, hplplus10 or constant)"),
            )),
        }
    }

    /// The buffer of a `disksim_disk` block as a [`CacheSpec`], given its
    /// overheads `o` (already scaled) and the mechanics' write settling
    /// time; `None` when the buffer does not cache (`Enable caching in
    /// buffer` other than 1, or no segments).
    fn cache(
        &self,
        disk: Reader<'_>,
        o: &DisksimOverheads,
        write_settle_ms: f64,
    ) -> Result<Option<CacheSpec>, DiskError> {
        let segments = disk.count("Number of buffer segments")?;
        if segments == 0 || disk.integer("Enable caching in buffer")? != 1 {
            return Ok(None);
        }
        let segment_blocks = disk.count("Segment size (in blks)")?;
        if segment_blocks == 0 {
            let at = disk.required("Segment size (in blks)")?.at;
            return Err(disk.error(at, "Segment size (in blks)", "is 0"));
        }
        let choice = |name: &str, options: &[&str]| -> Result<usize, DiskError> {
            let value = disk.integer(name)?;
            usize::try_from(value)
                .ok()
                .filter(|&i| i < options.len())
                .ok_or_else(|| {
                    let at = disk.param(name).map_or(disk.block.at, |p| p.at);
                    disk.error(
                        at,
                        name,
                        format!(
                            "{value} is not one of 0 … {} ({})",
                            options.len() - 1,
                            options.join(", ")
                        ),
                    )
                })
        };
        let scheme = [
            ReadAheadScheme::None,
            ReadAheadScheme::Track,
            ReadAheadScheme::Cylinder,
            ReadAheadScheme::Segment,
            ReadAheadScheme::NextTrack,
        ][choice(
            "Buffer continuous read",
            &["none", "track", "cylinder", "segment", "next track"],
        )?];
        let write_back = [WriteBack::Off, WriteBack::Appends, WriteBack::All]
            [choice("Fast write level", &["off", "appends", "all"])?];
        let flag = |name: &str| -> Result<bool, DiskError> { Ok(disk.signed(name)? > 0.0) };
        // DiskSim takes a maximum read-ahead of 0 as "as far as the segment
        // goes".
        let max_blocks = match disk.count("Maximum read-ahead (blks)")? {
            0 => segment_blocks,
            n => n,
        };
        let scale = disk.number_or("Time scale for overheads", 1.0)?;
        let ms = |name: &str| -> Result<f64, DiskError> { Ok(disk.number(name)? * scale) };
        // Sums are kept to the nanosecond the model counts in, so that they
        // survive a trip through a text spec file.
        let ns = |ms: f64| (ms * 1e6).round() / 1e6;
        let both = |ms: f64| AfterPrevious {
            after_read_ms: ns(ms),
            after_write_ms: ns(ms),
        };
        let plus = |[after_read_ms, after_write_ms]: [f64; 2], extra: f64| AfterPrevious {
            after_read_ms: ns(after_read_ms + extra),
            after_write_ms: ns(after_write_ms + extra),
        };
        let prep = ms("Data preparation overhead")?;
        let first_reselect = ms("First reselect overhead")?;
        // A drive that disconnects after a write command and before taking
        // its data: its command overhead and seek delay come before the
        // mechanics; the disconnection, the wait before reconnecting and the
        // reselection before the data.
        let (write_miss, write_data_delay_ms, completion_reconnect_ms) =
            if flag("Extra write disconnect")? {
                let seek_delta = ms("Extradisc seek delta")?;
                let command = ms("Extradisc command overhead")?;
                let to_data = command
                    + ms("Extradisc disconnect overhead")?
                    + ms("Extradisc inter-disconnect delay")?
                    + first_reselect
                    + prep;
                (
                    both(command + seek_delta),
                    ns((to_data - command - seek_delta).max(0.0)),
                    ms("Other reselect overhead")?,
                )
            } else {
                (plus(o.write_miss_ms, 0.0), prep, first_reselect)
            };
        let (read_block_ms, write_block_ms) = match self.disk_bus(&disk.block.name) {
            Some(bus) => {
                let bus = Reader {
                    block: bus,
                    files: self.files,
                };
                (
                    bus.number_or("Read block transfer time", 0.0)?,
                    bus.number_or("Write block transfer time", 0.0)?,
                )
            }
            None => (0.0, 0.0),
        };
        let watermark = disk.number("High (read) water mark")?;
        Ok(Some(CacheSpec {
            segments,
            segment_blocks,
            write_segment: flag("Use separate write segment")? && segments > 1,
            read_hits_on_write_data: flag("Allow read hits on write data")?,
            write_back,
            read_ahead: ReadAheadSpec {
                scheme,
                min_blocks: disk.count("Minimum read-ahead (blks)")?.min(max_blocks),
                max_blocks,
                replace_requested: flag("Read-ahead over requested")?,
                on_hit: flag("Read-ahead on idle hit")?,
            },
            overheads: CacheOverheads {
                read_hit: plus(o.read_hit_ms, prep),
                read_miss: plus(o.read_miss_ms, 0.0),
                write_hit: plus(o.write_hit_ms, prep),
                write_miss,
                read_completion_ms: o.read_completion_ms,
                write_completion_ms: o.write_completion_ms,
                reconnect_ms: ns(first_reselect + prep),
                completion_reconnect_ms,
                write_data_delay_ms,
                write_settle_ms,
                // A delay of the mechanics, not an overhead: not scaled.
                write_min_positioning_ms: disk.number("Minimum seek delay")?,
            },
            bus: BusSpec {
                read_block_ms: read_block_ms.max(o.bulk_sector_transfer_ms),
                write_block_ms: write_block_ms.max(o.bulk_sector_transfer_ms),
                // Watermarks as a fraction of the segment mostly cover the
                // whole request: taken as the whole request.
                read_watermark: if flag("Set watermark by reqsize")? || watermark == 0.0 {
                    watermark.min(1.0)
                } else {
                    1.0
                },
            },
        }))
    }

    /// The `disksim_bus` block of the bus that the topology hangs an
    /// instance of disk `name` from, if the file tree has one.
    fn disk_bus(&self, name: &str) -> Option<&Block> {
        let instances = &self.tree.instances;
        let is_disk = |instance: &str| {
            instances
                .iter()
                .any(|(items, of)| of == name && items.iter().any(|i| names(i, instance)))
        };
        let bus = self
            .tree
            .topology
            .iter()
            .find_map(|root| bus_above(root, &is_disk, None))?;
        let (_, of) = instances
            .iter()
            .find(|(items, _)| items.iter().any(|i| names(i, bus)))?;
        self.top_block("disksim_bus", Some(of))
    }

    /// The overheads of a `disksim_disk` block.
    fn overheads(&self, disk: Reader<'_>) -> Result<DisksimOverheads, DiskError> {
        let scale = disk.number_or("Time scale for overheads", 1.0)?;
        let ms = |name: &str| -> Result<f64, DiskError> { Ok(disk.number(name)? * scale) };
        let pair = |name: &str| -> Result<[f64; 2], DiskError> {
            Ok([
                ms(&format!("{name} after read"))?,
                ms(&format!("{name} after write"))?,
            ])
        };
        Ok(DisksimOverheads {
            per_request_ms: disk.number_or("Per-request overhead time", 0.0)? * scale,
            read_hit_ms: pair("Read hit over.")?,
            read_miss_ms: pair("Read miss over.")?,
            write_hit_ms: pair("Write hit over.")?,
            write_miss_ms: pair("Write miss over.")?,
            read_completion_ms: ms("Read completion overhead")?,
            write_completion_ms: ms("Write completion overhead")?,
            bulk_sector_transfer_ms: disk.number_or("Bulk sector transfer time", 0.0)?,
        })
    }
}

/// The instance name of the nearest `disksim_bus` above a `disksim_disk`
/// node whose instance `is_disk` in the topology `node`, `bus` being the one
/// above `node`.
fn bus_above<'a>(
    node: &'a Value,
    is_disk: &dyn Fn(&str) -> bool,
    bus: Option<&'a str>,
) -> Option<&'a str> {
    let Value::Named(head, items) = node else {
        return None;
    };
    let (kind, instance) = head.split_once(' ')?;
    match kind {
        "disksim_disk" if is_disk(instance) => bus,
        _ => {
            let bus = if kind == "disksim_bus" {
                Some(instance)
            } else {
                bus
            };
            items.iter().find_map(|n| bus_above(&n.value, is_disk, bus))
        }
    }
}

/// Whether an item of an `instantiate` list, one name or a range `disk0 ..
/// disk7`, names `instance`.
fn names(item: &str, instance: &str) -> bool {
    let Some((first, last)) = item.split_once("..") else {
        return item == instance;
    };
    // A name's stem and its number: `disk7` is (`disk`, 7).
    let split = |name: &str| {
        let name = name.trim();
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        (stem.to_string(), name[stem.len()..].parse::<u64>().ok())
    };
    match (split(first), split(last), split(instance)) {
        ((a, Some(from)), (b, Some(to)), (c, Some(k))) => {
            a == b && b == c && (from..=to).contains(&k)
        }
        _ => false,
    }
}

/// Units of skews and first-block offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Units {
    Sectors,
    Revolutions,
}

/// The `Skew units` of a block, `inherited` (or sectors) if it has none.
fn skew_units(block: Reader<'_>, inherited: Option<Units>) -> Result<Units, DiskError> {
    match block.param("Skew units") {
        None => Ok(inherited.unwrap_or(Units::Sectors)),
        Some(p) => match block.text_of(p)? {
            "sectors" => Ok(Units::Sectors),
            "revolutions" => Ok(Units::Revolutions),
            other => Err(block.error(
                p.at,
                "Skew units",
                format!("`{other}` is neither `sectors` nor `revolutions`"),
            )),
        },
    }
}

/// Sorts runs `[first, count]` and merges those that overlap or touch.
fn merge(mut runs: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    runs.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
    for (start, len) in runs {
        match merged.last_mut() {
            Some((s, l)) if start <= *s + *l => *l = (*l).max(start + len - *s),
            _ => merged.push((start, len)),
        }
    }
    merged
}

/// Positions the runs cover.
fn merged_len(runs: &[(u64, u64)]) -> u64 {
    merge(runs.to_vec()).iter().map(|r| r.1).sum()
}

/// The geometry of a disk with DiskSim's `zones`; cylinders no zone covers
/// become zones without blocks.
fn geometry(cylinders: u32, surfaces: u32, zones: &[DsZone]) -> GeometrySpec {
    let mut spec_zones = Vec::with_capacity(zones.len());
    let mut layouts = Vec::with_capacity(zones.len());
    let empty =
        |first: u32, last: u32, spt: u32, zones: &mut Vec<Zone>, layouts: &mut Vec<ZoneLayout>| {
            zones.push(Zone {
                first_cylinder: first,
                last_cylinder: last,
                sectors_per_track: spt,
            });
            layouts.push(ZoneLayout {
                blocks: Some(0),
                ..ZoneLayout::default()
            });
        };
    let mut next = 0;
    for zone in zones {
        if zone.first > next {
            // DiskSim gives a cylinder outside every zone the sectors per
            // track of the zone before it.
            let spt = spec_zones
                .last()
                .map_or(zone.spt, |z: &Zone| z.sectors_per_track);
            empty(next, zone.first - 1, spt, &mut spec_zones, &mut layouts);
        }
        spec_zones.push(Zone {
            first_cylinder: zone.first,
            last_cylinder: zone.last,
            sectors_per_track: zone.spt,
        });
        layouts.push(ZoneLayout {
            blocks: (zone.blocks != zone.usable).then_some(zone.blocks),
            ..zone.layout.clone()
        });
        next = zone.last + 1;
    }
    if next < cylinders {
        let spt = zones.last().map_or(1, |z| z.spt);
        empty(next, cylinders - 1, spt, &mut spec_zones, &mut layouts);
    }
    GeometrySpec {
        cylinders,
        surfaces,
        sectors_per_track: zones.first().map_or(1, |z| z.spt),
        zones: spec_zones,
        sector_bytes: SECTOR_BYTES,
        track_skew: 0,
        cylinder_skew: 0,
        zone_layout: layouts,
    }
}

/// The six values of DiskSim's `hpl` seek equation (Ruemmler & Wilkes
/// 1994): `a + b·√d` ms below `boundary` cylinders, `long_a + long_b·d` from
/// there on, and the one-cylinder seek if V6 gives one.
struct Hpl {
    boundary: u32,
    a: f64,
    b: f64,
    long_a: f64,
    long_b: f64,
    single: Option<f64>,
}

impl Hpl {
    /// The time of a seek over `d` > 0 cylinders, the `first` times standing
    /// for distances 1, 2, ….
    fn time(&self, first: &[f64], d: u32) -> f64 {
        let x = f64::from(d);
        match (d as usize).checked_sub(1).and_then(|i| first.get(i)) {
            Some(&t) => t,
            None if d == 1 && self.single.is_some() => self.single.unwrap_or_default(),
            // Kept to the nanosecond the model counts in, so that the
            // table survives a trip through a text spec file.
            None if d < self.boundary => ((self.a + self.b * x.sqrt()) * 1e6).round() / 1e6,
            None => self.long_a + self.long_b * x,
        }
    }

    /// A table giving the curve's time at every distance 1 … `max_distance`
    /// under linear interpolation: one point per distance up to the linear
    /// part, then its two ends.
    fn table(&self, first: &[f64], max_distance: u32) -> Vec<(u32, f64)> {
        let max_distance = max_distance.max(1);
        let pointwise = (self.boundary.saturating_sub(1))
            .max(first.len() as u32)
            .max(u32::from(self.single.is_some()))
            .min(max_distance);
        let mut points: Vec<(u32, f64)> =
            (1..=pointwise).map(|d| (d, self.time(first, d))).collect();
        if pointwise < max_distance {
            let start = pointwise + 1;
            points.push((start, self.time(first, start)));
            if max_distance > start {
                points.push((max_distance, self.time(first, max_distance)));
            }
        }
        points
    }
}

/// What can go wrong reading a `.seek` file.
enum SeekFileError {
    Io(std::io::Error),
    Line(u32, String),
}

/// Reads a DiskSim seek curve file: an optional `Seek distances measured: N`
/// line, then `distance, ms[, stddev]` lines, distances strictly increasing.
fn read_seek_curve(path: &Path) -> Result<Vec<(u32, f64)>, SeekFileError> {
    let text = std::fs::read_to_string(path).map_err(SeekFileError::Io)?;
    let mut declared: Option<(usize, u32)> = None;
    let mut points: Vec<(u32, f64)> = Vec::new();
    let mut last_line = 0;
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        last_line = n;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(count) = line.strip_prefix("Seek distances measured:") {
            if i != 0 {
                return Err(SeekFileError::Line(
                    n,
                    "`Seek distances measured` must be the first line".into(),
                ));
            }
            let count = count.trim().parse::<usize>().map_err(|_| {
                SeekFileError::Line(n, format!("`{}` is not a count of distances", count.trim()))
            })?;
            declared = Some((count, n));
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if !(2..=3).contains(&fields.len()) {
            return Err(SeekFileError::Line(
                n,
                format!("expected `distance, ms`, found `{line}`"),
            ));
        }
        let distance = fields[0]
            .parse::<u32>()
            .ok()
            .filter(|&d| d > 0)
            .ok_or_else(|| {
                SeekFileError::Line(
                    n,
                    format!(
                        "`{}` is not a seek distance (a whole number of cylinders from 1)",
                        fields[0]
                    ),
                )
            })?;
        let ms = fields[1]
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                SeekFileError::Line(n, format!("`{}` is not a seek time in ms", fields[1]))
            })?;
        if let Some(&(prev, _)) = points.last()
            && distance <= prev
        {
            return Err(SeekFileError::Line(
                n,
                format!("distance {distance} does not increase on {prev}"),
            ));
        }
        points.push((distance, ms));
    }
    if points.is_empty() {
        return Err(SeekFileError::Line(
            last_line,
            "the seek curve has no points".into(),
        ));
    }
    if let Some((count, line)) = declared
        && count != points.len()
    {
        return Err(SeekFileError::Line(
            line,
            format!(
                "declares {count} distances but the file has {}",
                points.len()
            ),
        ));
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::{DiskModel, SpecFormat};
    use crate::random::{Purpose, Stream};
    use sched_core::{Kind, Request, RequestId, Travel};

    /// A file of DiskSim's validation suite, outside the repository.
    fn data(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/disksim-valid")
            .join(file)
    }

    fn load(file: &str) -> DisksimDisk {
        load_disksim(data(file), &DisksimOptions::default()).unwrap()
    }

    /// A scratch directory for hand-made descriptions.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("disk-emu-disksim-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The DiskSim zones of a loaded spec: the zones that may hold blocks.
    fn disksim_zones(spec: &DiskSpec) -> Vec<(&Zone, &ZoneLayout)> {
        let g = &spec.geometry;
        g.zones
            .iter()
            .zip(&g.zone_layout)
            .filter(|(_, l)| l.blocks != Some(0) || l.first_skew.is_some())
            .collect()
    }

    #[test]
    fn every_bundled_model_loads_with_the_files_figures() {
        // (file, cylinders, surfaces, DiskSim zones, rpm, Block count, head switch ms)
        let expected = [
            ("hp_c2247a.parv", 2051, 13, 8, 5400.0, 2_054_864, 0.89),
            ("hp_c3323a.parv", 2982, 7, 8, 5396.0, 2_056_008, 0.65),
            ("cheetah9LP.parv", 6962, 12, 11, 10045.0, 17_783_240, 0.03),
            ("ibm18es.parv", 11474, 5, 55, 7200.0, 17_916_240, 0.062),
            ("hp_c2249a.diskspecs", 2051, 17, 8, 5400.0, 2_687_632, 0.89),
            // The other entry points: a .diskspecs and a .model alone.
            ("hp_c3323a.diskspecs", 2982, 7, 8, 5400.0, 2_056_008, 0.65),
            (
                "hp_c2247a_validate.model",
                2051,
                13,
                8,
                5400.0,
                2_054_864,
                0.89,
            ),
        ];
        for (file, cylinders, surfaces, zones, rpm, blocks, switch) in expected {
            let disk = load(file);
            let model = DiskModel::from_spec(&disk.spec).unwrap();
            assert_eq!(disk.block_count, blocks, "{file}");
            assert_eq!(model.capacity_blocks(), blocks, "{file}");
            assert_eq!(model.cylinders(), cylinders, "{file}");
            assert_eq!(disk.spec.geometry.surfaces, surfaces, "{file}");
            assert_eq!(disksim_zones(&disk.spec).len(), zones, "{file}");
            assert_eq!(disk.spec.rpm, Some(rpm), "{file}");
            assert_eq!(disk.spec.head_switch_ms, switch, "{file}");
            assert_eq!(disk.spec.rotation, RotationSpec::Tracked, "{file}");
            assert_eq!(disk.spec.transfer, TransferSpec::Geometry, "{file}");
            assert_eq!(model.block_bytes(), 512);
        }
    }

    #[test]
    fn capacity_is_the_block_count_and_the_layout_surplus_is_cut_from_the_end() {
        // The HP drives' zones add up to their Block count exactly.
        for file in ["hp_c2247a.parv", "hp_c3323a.parv", "hp_c2249a.diskspecs"] {
            let disk = load(file);
            assert_eq!(disk.layout_blocks, disk.block_count, "{file}");
        }
        // DiskSim's zone arithmetic gives the Cheetah 9LP and the IBM 18ES
        // more blocks than the drives have.
        let cheetah = load("cheetah9LP.parv");
        assert_eq!(cheetah.layout_blocks, 17_918_387);
        assert_eq!(cheetah.layout_blocks - cheetah.block_count, 135_147);
        let ibm = load("ibm18es.parv");
        assert_eq!(ibm.layout_blocks, 18_033_753);
        assert_eq!(ibm.layout_blocks - ibm.block_count, 117_513);
        // Cut from the innermost zone: 889 776 sectors less 218 spares hold
        // 889 558 blocks in DiskSim, 754 411 here.
        let last = cheetah.spec.geometry.zone_layout.last().unwrap();
        assert_eq!(last.blocks, Some(889_558 - 135_147));
        for disk in [&cheetah, &ibm] {
            let model = DiskModel::from_spec(&disk.spec).unwrap();
            let end = model.geometry().locate(disk.block_count - 1).unwrap();
            println!(
                "{}: last block on cylinder {} of {}",
                disk.spec.name,
                end.cylinder,
                model.cylinders()
            );
        }
        let model = DiskModel::from_spec(&cheetah.spec).unwrap();
        let end = model.geometry().locate(17_783_239).unwrap();
        assert!((6890..6900).contains(&end.cylinder), "{end:?}");
        assert!(matches!(
            model.geometry().block(6961, 0, 0),
            Err(DiskError::NoBlock { cylinder: 6961, .. })
        ));
        // Kept whole on request.
        let whole = load_disksim(
            data("cheetah9LP.parv"),
            &DisksimOptions {
                keep_layout_capacity: true,
                ..DisksimOptions::default()
            },
        )
        .unwrap();
        assert_eq!(
            DiskModel::from_spec(&whole.spec).unwrap().capacity_blocks(),
            17_918_387
        );
    }

    #[test]
    fn blocks_lie_where_disksim_puts_them() {
        // HP C2247A, zone 0: 96 sectors per track, 13 surfaces, the first
        // 1632 sectors (17 tracks) a management area, track 468 slipped.
        let disk = load("hp_c2247a.parv");
        let g = DiskModel::from_spec(&disk.spec).unwrap().geometry().clone();
        let at = |b| {
            let l = g.locate(b).unwrap();
            (l.cylinder, l.surface, l.sector, l.skew)
        };
        // Block 0 is on track 17 = cylinder 1, surface 4; skew 1·(12·14 + 32)
        // + 4·14 = 256 ≡ 64 (mod 96).
        assert_eq!(at(0), (1, 4, 0, 64));
        // The last block before the slipped track 468 ends track 467, the
        // next one starts track 469: (469 − 17 − 1) · 96 = 43 296.
        let (c, s, sector, _) = at(43_295);
        assert_eq!((c, s, sector), (35, 12, 95));
        let (c, s, sector, _) = at(43_296);
        assert_eq!((c, s, sector), (36, 1, 0));
        assert!(matches!(g.block(36, 0, 5), Err(DiskError::NoBlock { .. })));
        assert_eq!(g.block(36, 1, 0).unwrap(), 43_296);
        // Zone 1 starts at cylinder 559 with its own first-block offset 14.
        let zone1 = disk.spec.geometry.zone_layout[1].clone();
        assert_eq!(
            (zone1.first_skew, zone1.track_skew, zone1.cylinder_skew),
            (Some(14), Some(13), Some(30))
        );
        let first = g.block(559, 0, 0).unwrap();
        assert_eq!(g.locate(first).unwrap().skew, 14);

        // Cheetah 9LP, zone 0: sector 168 317 (track 662, slot 169) slipped.
        let cheetah = load("cheetah9LP.parv");
        let g = DiskModel::from_spec(&cheetah.spec)
            .unwrap()
            .geometry()
            .clone();
        let a = g.locate(168_316).unwrap();
        let b = g.locate(168_317).unwrap();
        assert_eq!((a.cylinder, a.surface, a.sector), (55, 2, 168));
        assert_eq!((b.cylinder, b.surface, b.sector), (55, 2, 170));
        assert_eq!(a.left_on_track(), 254 - 168 - 1);
        // Cylinder 847 lies between zones 0 and 1 and holds no block.
        assert!(g.block(847, 0, 0).is_err());
        // Zone 0's last block is on cylinder 846, before its 1270 spare
        // sectors; zone 1's first block starts cylinder 848.
        let next = g.block(848, 0, 0).unwrap();
        assert_eq!(g.locate(next - 1).unwrap().cylinder, 846);
        assert!(g.block(846, 11, 253).is_err());

        // IBM 18ES: its 1950-sector management area is cylinder 0.
        let ibm = load("ibm18es.parv");
        let g = DiskModel::from_spec(&ibm.spec).unwrap().geometry().clone();
        let l = g.locate(0).unwrap();
        assert_eq!((l.cylinder, l.surface, l.sector), (1, 0, 0));
    }

    #[test]
    fn seek_curves_come_from_the_seek_files_and_the_hpl_equation() {
        // (file, points, first, last) of the .seek files.
        let tables = [
            ("hp_c3323a.parv", 67, (1, 1.178043), (2976, 18.1161353)),
            ("cheetah9LP.parv", 106, (1, 0.831), (6894, 10.627)),
            ("ibm18es.parv", 151, (1, 1.062), (11377, 12.853)),
        ];
        for (file, n, first, last) in tables {
            let SeekSpec::Table { points } = load(file).spec.seek else {
                panic!("{file}")
            };
            assert_eq!(points.len(), n, "{file}");
            assert_eq!(points[0], first, "{file}");
            assert_eq!(*points.last().unwrap(), last, "{file}");
        }
        // HP C2247A and C2249A: hplplus10 with V = [300, 3.81, 0.33, 7.75,
        // 0.0059, −1] and the ten times 2.89 … 4.99.
        for file in ["hp_c2247a.parv", "hp_c2249a.diskspecs"] {
            let spec = load(file).spec;
            let SeekSpec::Table { points } = &spec.seek else {
                panic!("{file}")
            };
            assert_eq!(points[0], (1, 2.89));
            assert_eq!(points[9], (10, 4.99));
            // The square-root part to the nanosecond.
            let ns = |ms: f64| (ms * 1e6).round() / 1e6;
            assert_eq!(points[10], (11, ns(3.81 + 0.33 * 11f64.sqrt())));
            assert_eq!(points[298], (299, ns(3.81 + 0.33 * 299f64.sqrt())));
            assert_eq!(points[299], (300, 7.75 + 0.0059 * 300.0));
            assert_eq!(*points.last().unwrap(), (2050, 7.75 + 0.0059 * 2050.0));
            assert_eq!(points.len(), 301);
            // Between the linear part's ends the table is the line itself.
            let line = |d: f64| ((7.75 + 0.0059 * d) * 1e6).round() as u64;
            for d in [300u32, 1000, 2050] {
                let seek = crate::disk::seek::Seek::new(&spec.seek).unwrap().time(d);
                assert!(seek.abs_diff(line(f64::from(d))) <= 1, "{d}: {seek}");
            }
        }
    }

    #[test]
    fn the_buffer_and_controller_become_the_cache() {
        // HP C2247A: two segments of 256 blocks, one kept for writes,
        // read-ahead of up to 128 blocks, write-through.
        let disk = load("hp_c2247a.parv");
        let c = disk.spec.cache.clone().unwrap();
        assert_eq!(
            (c.segments, c.segment_blocks, c.write_segment),
            (2, 256, true)
        );
        assert_eq!(
            (c.read_hits_on_write_data, c.write_back),
            (true, WriteBack::Off)
        );
        assert_eq!(
            c.read_ahead,
            ReadAheadSpec {
                scheme: ReadAheadScheme::Segment,
                min_blocks: 0,
                max_blocks: 128,
                replace_requested: true,
                on_hit: true,
            }
        );
        let o = &c.overheads;
        // Read hit 0.95343 + data preparation 0.02519.
        assert_eq!(o.read_hit.after_read_ms, 0.97862);
        assert_eq!(o.read_miss.after_write_ms, 0.55821);
        // It disconnects after a write command: the command overhead and the
        // seek delay (0.64244 + 0.25) come before the mechanics, then the
        // disconnection, the wait and the reselection (0.04551 + 0.42885 +
        // 0.16249 + 0.02519) before the data.
        assert_eq!(o.write_miss.after_read_ms, 0.89244);
        assert_eq!(o.write_data_delay_ms, 0.41204);
        assert_eq!(
            (o.reconnect_ms, o.completion_reconnect_ms),
            (0.18768, 0.12883)
        );
        assert_eq!(
            (o.read_completion_ms, o.write_completion_ms),
            (0.05665, 0.05045)
        );
        assert_eq!((o.write_settle_ms, o.write_min_positioning_ms), (0.65, 0.6));
        // The disk hangs from BUS1 (its own bulk time is 0).
        assert_eq!(
            c.bus,
            BusSpec {
                read_block_ms: 0.1701,
                write_block_ms: 0.18686,
                read_watermark: 0.75,
            }
        );
        // Only the per-request overhead applies to every request; the
        // figures a cache-free spec would charge are kept.
        assert_eq!(disk.spec.controller_overhead_ms, 0.0);
        let figures = disk.overheads.unwrap();
        assert!((figures.read_miss_total_ms() - 0.61486).abs() < 1e-12);
        assert!((figures.write_miss_total_ms() - (0.82391 + 0.05045)).abs() < 1e-12);

        // HP C3323A: read-ahead stops when the segment is full; the
        // read-hit overhead is four times larger after a write.
        let c = load("hp_c3323a.parv").spec.cache.unwrap();
        assert_eq!((c.segment_blocks, c.read_ahead.max_blocks), (512, 256));
        assert!(!c.read_ahead.replace_requested && c.read_ahead.on_hit);
        assert_eq!(
            (
                c.overheads.read_hit.after_read_ms,
                c.overheads.read_hit.after_write_ms
            ),
            (0.348, 1.387)
        );
        assert_eq!((c.bus.read_block_ms, c.bus.read_watermark), (0.1455, 1.0));

        // Cheetah 9LP: three segments for reads and writes alike, write-back,
        // the next-track read-ahead scheme, the disk's own 0.105 ms a block
        // on buses of 0.
        let c = load("cheetah9LP.parv").spec.cache.unwrap();
        assert_eq!(
            (c.segments, c.segment_blocks, c.write_segment),
            (3, 561, false)
        );
        assert_eq!(c.write_back, WriteBack::All);
        assert_eq!(c.read_ahead.scheme, ReadAheadScheme::NextTrack);
        assert_eq!((c.bus.read_block_ms, c.bus.write_block_ms), (0.105, 0.105));
        assert_eq!(c.overheads.write_hit.after_write_ms, 0.5);

        // IBM 18ES: seven segments, one for writes, whose data reads may not
        // use.
        let c = load("ibm18es.parv").spec.cache.unwrap();
        assert_eq!(
            (c.segments, c.write_segment, c.read_hits_on_write_data),
            (7, true, false)
        );
        assert_eq!(
            (c.bus.read_block_ms, c.overheads.write_settle_ms),
            (0.101, 0.126)
        );

        // HP C2249A's .diskspecs alone has no topology: no bus but its own.
        let c = load("hp_c2249a.diskspecs").spec.cache.unwrap();
        assert_eq!(c.bus.read_block_ms, 0.0);
        // In ascii.parv eighteen of them, `disk0 .. disk17`, hang from buses
        // `bus3 .. bus20`, instances of BUS1 (0.05 ms a block).
        let c = load("ascii.parv").spec.cache.unwrap();
        assert_eq!((c.bus.read_block_ms, c.bus.write_block_ms), (0.05, 0.05));
        assert!(names("disk0 .. disk17", "disk9") && !names("disk0 .. disk17", "disk18"));
        assert!(names("bus1", "bus1") && !names("bus3 .. bus20", "disk5"));
        // A .model alone has no controller.
        let model = load("hp_c2247a_validate.model");
        assert_eq!(
            (
                model.spec.controller_overhead_ms,
                model.overheads,
                model.spec.cache
            ),
            (0.0, None, None)
        );
    }

    #[test]
    fn a_drive_whose_buffer_does_not_cache_keeps_the_read_miss_overhead() {
        let dir = scratch("nocache");
        let specs = std::fs::read_to_string(data("hp_c3323a_validate.diskspecs"))
            .unwrap()
            .replace(
                "Enable caching in buffer = 1",
                "Enable caching in buffer = 0",
            );
        std::fs::write(dir.join("x.diskspecs"), specs).unwrap();
        for file in ["hp_c3323a_validate.model", "hp_c3323a_validate.seek"] {
            std::fs::write(dir.join(file), std::fs::read_to_string(data(file)).unwrap()).unwrap();
        }
        let spec = from_disksim(dir.join("x.diskspecs")).unwrap();
        assert_eq!(spec.cache, None);
        assert!((spec.controller_overhead_ms - (2.502 + 0.241)).abs() < 1e-12);
        // A read-ahead scheme DiskSim does not have is an error naming it.
        let specs = std::fs::read_to_string(data("hp_c3323a_validate.diskspecs"))
            .unwrap()
            .replace("Buffer continuous read = 3", "Buffer continuous read = 7");
        let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
        let (err, _) = broken(
            "scheme",
            &[
                ("x.diskspecs", &specs),
                ("hp_c3323a_validate.model", &model_text()),
                ("hp_c3323a_validate.seek", &seek),
            ],
        );
        let (_, _, parameter, message) = place(&err);
        assert_eq!(parameter.as_deref(), Some("Buffer continuous read"));
        assert!(message.starts_with("7 is not one of 0 … 4"), "{message}");
    }

    #[test]
    fn the_validation_traces_replay_close_to_the_real_drives() {
        use crate::replay::{ReplayOptions, replay};
        use crate::trace::TraceOptions;
        // (model, trace, DiskSim 2.01's demerit on this machine, the
        // demerit of the model without a cache, ms)
        let drives = [
            ("hp_c2247a.parv", "hp_c2247a.trace", 0.089, 1.711),
            ("hp_c3323a.parv", "hp_c3323a.trace", 0.305, 2.493),
            ("cheetah9LP.parv", "cheetah9LP.trace", 0.107, 2.292),
            ("ibm18es.parv", "ibm18es.trace", 0.136, 3.578),
        ];
        for (parv, trace, disksim, bare) in drives {
            let loaded = load(parv);
            let options = ReplayOptions {
                disk: loaded.spec.clone(),
                policy: sched_core::PolicySpec::Fcfs,
                format: None,
                trace: TraceOptions::default(),
                speed: 1.0,
                seed: 1,
            };
            let v = replay(data(trace), &options).unwrap().validation.unwrap();
            // The same drive as before it had a cache: one read-miss
            // overhead for every request.
            let mut without = options.clone();
            without.disk.cache = None;
            without.disk.controller_overhead_ms = loaded.overheads.unwrap().read_miss_total_ms();
            let w = replay(data(trace), &without).unwrap().validation.unwrap();
            println!(
                "{parv}: measured {:.3} ms; with the cache {:.3} ms, demerit {:.3}; without {:.3} ms, demerit {:.3}; DiskSim {disksim}",
                v.measured_mean_ms,
                v.simulated_mean_ms,
                v.demerit_ms,
                w.simulated_mean_ms,
                w.demerit_ms
            );
            assert!((w.demerit_ms - bare).abs() < 5e-4, "{parv}: {w:?}");
            // Within twice DiskSim's own figure (it models more of the
            // controller), under 15 % of the cache-free model's, and the
            // mean within 2 % of the real drive's.
            assert!(v.demerit_ms < 2.0 * disksim, "{parv}: {v:?}");
            assert!(v.demerit_ms < 0.15 * w.demerit_ms, "{parv}: {v:?}");
            assert!(
                (v.simulated_mean_ms / v.measured_mean_ms - 1.0).abs() < 0.02,
                "{parv}: {v:?}"
            );
        }
    }

    #[test]
    fn a_disk_can_be_chosen_by_name() {
        let named = load_disksim(
            data("hp_c2247a.parv"),
            &DisksimOptions {
                disk: Some("HP_C2247A_validate".into()),
                ..DisksimOptions::default()
            },
        )
        .unwrap();
        assert_eq!(named.spec.name, "HP_C2247A_validate");
        let err = load_disksim(
            data("hp_c2247a.parv"),
            &DisksimOptions {
                disk: Some("HP_C9999".into()),
                ..DisksimOptions::default()
            },
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("no `disksim_disk HP_C9999`"),
            "{err}"
        );
    }

    #[test]
    fn a_loaded_spec_round_trips_through_toml_and_json() {
        for file in ["hp_c2247a.parv", "cheetah9LP.parv"] {
            let spec = from_disksim(data(file)).unwrap();
            let toml = toml::to_string(&spec).unwrap();
            assert_eq!(
                DiskSpec::parse(&toml, SpecFormat::Toml).unwrap(),
                spec,
                "{file}"
            );
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(
                DiskSpec::parse(&json, SpecFormat::Json).unwrap(),
                spec,
                "{file}"
            );
        }
    }

    #[test]
    fn a_spec_file_may_override_a_disksim_disk() {
        let dir = scratch("spec");
        for file in ["hp_c3323a_validate.model", "hp_c3323a_validate.seek"] {
            std::fs::write(dir.join(file), std::fs::read_to_string(data(file)).unwrap()).unwrap();
        }
        let path = dir.join("faster.toml");
        std::fs::write(
            &path,
            "preset = \"disksim:hp_c3323a_validate.model\"\nrpm = 7200\ncontroller_overhead_ms = 0.5\n",
        )
        .unwrap();
        let spec = DiskSpec::from_file(&path).unwrap();
        let mut expected = from_disksim(dir.join("hp_c3323a_validate.model")).unwrap();
        (expected.rpm, expected.controller_overhead_ms) = (Some(7200.0), 0.5);
        assert_eq!(spec, expected);
        let missing = dir.join("missing.toml");
        std::fs::write(&missing, "preset = \"disksim:nosuch.parv\"\n").unwrap();
        let err = DiskSpec::from_file(&missing).unwrap_err();
        assert!(err.to_string().contains("nosuch.parv"), "{err}");
    }

    /// Writes `files` (name, text) into a scratch directory and loads the
    /// first, returning the error and the directory.
    fn broken(case: &str, files: &[(&str, &str)]) -> (DiskError, PathBuf) {
        let dir = scratch(case);
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let err = from_disksim(dir.join(files[0].0)).unwrap_err();
        (err, dir)
    }

    /// The file, line and parameter of a [`DiskError::Disksim`].
    fn place(err: &DiskError) -> (PathBuf, u32, Option<String>, String) {
        match err {
            DiskError::Disksim {
                path,
                line,
                parameter,
                message,
            } => (path.clone(), *line, parameter.clone(), message.clone()),
            other => panic!("{other:?}"),
        }
    }

    fn model_text() -> String {
        std::fs::read_to_string(data("hp_c3323a_validate.model")).unwrap()
    }

    #[test]
    fn a_missing_parameter_names_the_file_the_block_and_the_parameter() {
        let text = model_text().replace("   Block count = 2056008,\n", "");
        let (err, dir) = broken("missing", &[("x.model", &text)]);
        let (path, line, parameter, message) = place(&err);
        assert_eq!(path, dir.join("x.model"));
        assert_eq!(line, 1);
        assert_eq!(parameter.as_deref(), Some("Block count"));
        assert!(
            message.contains("missing from the `dm_disk HP_C3323A_validate_model` block"),
            "{message}"
        );
        assert!(
            err.to_string()
                .starts_with(&format!("{}:1: `Block count`: missing", path.display())),
            "{err}"
        );
    }

    #[test]
    fn a_bad_number_names_its_line_and_parameter() {
        let text =
            model_text().replace("Number of cylinders = 2982", "Number of cylinders = 29x82");
        let (err, _) = broken("number", &[("x.model", &text)]);
        let (_, line, parameter, message) = place(&err);
        assert_eq!(
            (line, parameter.as_deref()),
            (3, Some("Number of cylinders"))
        );
        assert_eq!(message, "`29x82` is not a number");

        let text = model_text().replace("Blocks per track = 116,", "Blocks per track = 116.5,");
        let (err, _) = broken("fraction", &[("x.model", &text)]);
        let (_, line, parameter, _) = place(&err);
        assert_eq!((line, parameter.as_deref()), (25, Some("Blocks per track")));

        let text = model_text().replace("Head switch time = 0.650000", "Head switch time = -0.65");
        let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
        let (err, _) = broken(
            "negative",
            &[("x.model", &text), ("hp_c3323a_validate.seek", &seek)],
        );
        assert_eq!(place(&err).2.as_deref(), Some("Head switch time"));
    }

    #[test]
    fn an_unknown_source_file_names_the_file_and_line_that_source_it() {
        let specs = std::fs::read_to_string(data("hp_c3323a_validate.diskspecs"))
            .unwrap()
            .replace("source hp_c3323a_validate.model", "source nosuch.model");
        let (err, dir) = broken("source", &[("x.diskspecs", &specs)]);
        let (path, line, _, message) = place(&err);
        assert_eq!((path, line), (dir.join("x.diskspecs"), 5));
        assert!(
            message.contains("`source ") && message.contains("nosuch.model"),
            "{message}"
        );
        // A seek curve that is not there.
        let text = model_text().replace("hp_c3323a_validate.seek", "nosuch.seek");
        let (err, dir) = broken("seekfile", &[("x.model", &text)]);
        let (path, line, parameter, _) = place(&err);
        assert_eq!(
            (path, line, parameter.as_deref()),
            (dir.join("x.model"), 112, Some("Full seek curve"))
        );
    }

    #[test]
    fn unbalanced_braces_and_brackets_are_refused() {
        let text = model_text();
        let open = text
            .trim_end()
            .strip_suffix("} # end of HP_C3323A_validate_model spec")
            .unwrap()
            .to_string();
        let (err, _) = broken("open", &[("x.model", &open)]);
        let (_, line, _, message) = place(&err);
        assert_eq!(line, 1);
        assert!(message.starts_with("unbalanced braces"), "{message}");

        let extra = format!("{text}\n}}\n");
        let (err, _) = broken("extra", &[("x.model", &extra)]);
        let (_, line, _, message) = place(&err);
        assert_eq!(line, 142);
        assert!(message.contains("`}` closes nothing"), "{message}");

        let list = text.replace("slips = [],\n            defects = []\n         },\n         dm_layout_g1_zone {\n            First cylinder number = 994", "slips = [,\n            defects = []\n         },\n         dm_layout_g1_zone {\n            First cylinder number = 994");
        assert_ne!(list, text);
        let (err, _) = broken("bracket", &[("x.model", &list)]);
        assert!(place(&err).3.contains("expected"), "{err}");
    }

    #[test]
    fn bad_seek_files_and_unsupported_features_are_typed_errors() {
        let model = model_text();
        let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
        let bad = seek.replace("100,    4.392624200", "100,    four");
        let (err, dir) = broken(
            "seekline",
            &[("x.model", &model), ("hp_c3323a_validate.seek", &bad)],
        );
        let (path, line, _, message) = place(&err);
        assert_eq!((path, line), (dir.join("hp_c3323a_validate.seek"), 27));
        assert!(message.contains("`four` is not a seek time"), "{message}");
        let short = seek.replace("2976,   18.116135300\n", "");
        let (err, _) = broken(
            "seekcount",
            &[("x.model", &model), ("hp_c3323a_validate.seek", &short)],
        );
        assert!(
            place(&err)
                .3
                .contains("declares 67 distances but the file has 66"),
            "{err}"
        );

        let scheme = model.replace("Sparing scheme used = 1", "Sparing scheme used = 3");
        let (err, _) = broken("scheme", &[("x.model", &scheme)]);
        let (_, line, parameter, message) = place(&err);
        assert_eq!(
            (line, parameter.as_deref()),
            (7, Some("Sparing scheme used"))
        );
        assert!(message.contains("scheme 3 is not supported"), "{message}");

        let slip = model.replacen("slips = []", "slips = [ 6958 ]", 1);
        let (err, _) = broken("slip", &[("x.model", &slip)]);
        let (_, line, parameter, message) = place(&err);
        assert_eq!((line, parameter.as_deref()), (19, Some("slips")));
        assert!(
            message.contains("past the zone's last track (6957)"),
            "{message}"
        );

        let order = model.replace("First cylinder number = 994", "First cylinder number = 990");
        let (err, _) = broken("order", &[("x.model", &order)]);
        assert_eq!(place(&err).2.as_deref(), Some("First cylinder number"));
    }

    #[test]
    fn truncated_or_garbled_descriptions_never_panic() {
        let dir = scratch("garbled");
        let seek = std::fs::read_to_string(data("hp_c3323a_validate.seek")).unwrap();
        std::fs::write(dir.join("hp_c3323a_validate.seek"), &seek).unwrap();
        let model =
            std::fs::read_to_string(data("hp_c2247a_validate.model")).unwrap() + &model_text();
        let path = dir.join("x.model");
        let mut loaded = 0;
        for cut in (0..model.len()).step_by(23) {
            let Some(text) = model.get(..cut) else {
                continue;
            };
            std::fs::write(&path, text).unwrap();
            loaded += usize::from(from_disksim(&path).is_ok());
            // The same text with one character replaced by a brace, a digit,
            // a comma or a bracket.
            let c = ["}", "9", ",", "[", "=", "-"][cut % 6];
            let garbled = format!("{}{c}{}", &model[..cut], model.get(cut + 1..).unwrap_or(""));
            std::fs::write(&path, garbled).unwrap();
            let _ = from_disksim(&path);
        }
        // Cut after the first model, the text is that whole model.
        assert!(loaded >= 1, "{loaded}");
        // Nesting beyond reason is an error, not a stack overflow.
        std::fs::write(
            &path,
            format!("dm_disk x {{ a = {} }}", "[".repeat(100_000)),
        )
        .unwrap();
        assert!(
            from_disksim(&path)
                .unwrap_err()
                .to_string()
                .contains("nest more than")
        );
    }

    /// A validation trace: (read?, block, blocks, access µs, idle µs) per line.
    fn trace(file: &str) -> Vec<(bool, u64, u32, f64, f64)> {
        std::fs::read_to_string(data(file))
            .unwrap()
            .lines()
            .map(|line| {
                let f: Vec<&str> = line.split_whitespace().collect();
                (
                    f[0] == "R",
                    f[2].parse().unwrap(),
                    f[3].parse().unwrap(),
                    f[4].parse().unwrap(),
                    f[5].parse().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn mean_random_reads_are_near_the_measured_access_times() {
        // Model: mean random seek + half a revolution + one block + overhead.
        // Measured (column 5): every request, every read, and the reads that
        // do not continue the previous request (the others mostly hit the
        // drive's read-ahead). Also a closed-loop replay of the trace through
        // the model, for the same reads.
        for (parv, trace_file) in [
            ("hp_c2247a.parv", "hp_c2247a.trace"),
            ("hp_c3323a.parv", "hp_c3323a.trace"),
            ("cheetah9LP.parv", "cheetah9LP.trace"),
            ("ibm18es.parv", "ibm18es.trace"),
        ] {
            let spec = from_disksim(data(parv)).unwrap();
            let mut disk = DiskModel::from_spec(&spec).unwrap();
            let model_ms = (disk.mean_random_seek()
                + disk.mean_rotational_latency()
                + disk.transfer_time(0, 1)
                + disk.overhead()) as f64
                / 1e6;
            let lines = trace(trace_file);
            let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64 / 1e3;
            let all: Vec<f64> = lines.iter().map(|l| l.3).collect();
            let reads: Vec<f64> = lines.iter().filter(|l| l.0).map(|l| l.3).collect();
            let mut fresh = Vec::new();
            let mut replayed = Vec::new();
            let mut rng = Stream::new(1, 0, Purpose::Service);
            let mut now = 0u64;
            let mut prev_end = None;
            for (i, &(read, block, blocks, access, idle)) in lines.iter().enumerate() {
                let kind = if read { Kind::Read } else { Kind::Write };
                let cylinder = disk.locate(block).unwrap();
                let req = Request::new(RequestId(i as u64), kind, block, blocks, cylinder, now);
                let served = disk.serve(&req, Travel::Direct, now, &mut rng).total();
                if read && prev_end != Some(block) {
                    fresh.push(access);
                    replayed.push(served as f64 / 1e3);
                }
                prev_end = Some(block + u64::from(blocks));
                now += served + (idle * 1e3) as u64;
            }
            let (fresh_ms, replay_ms) = (mean(&fresh), mean(&replayed));
            println!(
                "{parv}: model {model_ms:.2} ms; measured: all {:.2}, reads {:.2}, fresh reads {fresh_ms:.2} ({} of {}); replayed fresh reads {replay_ms:.2}",
                mean(&all),
                mean(&reads),
                fresh.len(),
                reads.len(),
            );
            assert!(
                (model_ms / fresh_ms - 1.0).abs() < 0.3,
                "{parv}: {model_ms} vs {fresh_ms}"
            );
            assert!(
                (replay_ms / fresh_ms - 1.0).abs() < 0.3,
                "{parv}: {replay_ms} vs {fresh_ms}"
            );
        }
    }
}
