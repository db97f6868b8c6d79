//! Typed errors of the disk models: impossible geometry, bad parameters,
//! addresses past the end of the disk, unreadable or invalid spec files.

use std::path::PathBuf;

/// Everything that can go wrong describing, building or addressing a disk.
///
/// Fields are named as they are spelled in a [`DiskSpec`](super::DiskSpec)
/// file (`geometry.cylinders`, `seek.long.from`), so a message points at the
/// line to fix.
#[derive(Debug, thiserror::Error)]
pub enum DiskError {
    /// A count that must be positive is zero: a disk with no cylinders, no
    /// surfaces, no sectors per track or empty sectors.
    #[error("`{field}` is 0: a disk needs at least one")]
    Zero {
        /// The offending field.
        field: &'static str,
    },

    /// A parameter is out of its domain (a negative time, a probability above
    /// one, a spindle speed that is missing where it is needed).
    #[error("`{field}` = {value}: {expected}")]
    InvalidParameter {
        /// The offending field.
        field: String,
        /// The value given, as written.
        value: String,
        /// What the field must be.
        expected: &'static str,
    },

    /// The zone list does not describe a set of disjoint cylinder ranges
    /// inside the disk.
    #[error("`geometry.zones[{index}]`: {reason}")]
    InvalidZone {
        /// Position of the offending zone in the list.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },

    /// A block address at or past the end of the disk.
    #[error("block {block} is beyond the end of the disk ({capacity} blocks)")]
    BlockOutOfRange {
        /// The address asked for.
        block: u64,
        /// The disk's capacity in blocks.
        capacity: u64,
    },

    /// A request whose first block exists but whose last one does not.
    #[error("blocks {block}..{block}+{blocks} run past the end of the disk ({capacity} blocks)")]
    ExtentOutOfRange {
        /// First block of the request.
        block: u64,
        /// Length of the request in blocks.
        blocks: u32,
        /// The disk's capacity in blocks.
        capacity: u64,
    },

    /// A physical address (cylinder, surface, sector) outside the geometry.
    #[error("{field} {value} does not exist: the disk has {limit}")]
    AddressOutOfRange {
        /// `cylinder`, `surface` or `sector`.
        field: &'static str,
        /// The value asked for.
        value: u64,
        /// How many of them there are.
        limit: u64,
    },

    /// A physical place that holds no block: unused or spare space of a zone
    /// (see [`ZoneLayout`](super::ZoneLayout)).
    #[error(
        "cylinder {cylinder}, surface {surface}, sector {sector} holds no block (unused or spare space)"
    )]
    NoBlock {
        /// The cylinder asked for.
        cylinder: u32,
        /// The surface asked for.
        surface: u32,
        /// The sector of the track asked for.
        sector: u32,
    },

    /// A DiskSim model description that is malformed, lacks a parameter,
    /// has a value out of its domain or uses a feature the loader does not
    /// model ([`from_disksim`](super::from_disksim)).
    #[error("{}:{line}: {}", path.display(), disksim_message(parameter.as_deref(), message))]
    Disksim {
        /// The file holding the offending text.
        path: PathBuf,
        /// Its line, from 1 (0 when the whole file is at fault).
        line: u32,
        /// The DiskSim parameter concerned, as the file spells it.
        parameter: Option<String>,
        /// What is wrong.
        message: String,
    },

    /// No preset has this name.
    #[error("unknown disk preset `{name}` (known: {known})")]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The names that exist, comma-separated.
        known: String,
    },

    /// A spec file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },

    /// A spec file whose extension names no format we read.
    #[error("{}: unknown spec format (use a .toml or .json file)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },

    /// A spec text that is not well-formed TOML or JSON, or not a table.
    #[error("syntax: {message}")]
    Syntax {
        /// The parser's message.
        message: String,
    },

    /// A field of a spec with the wrong type, an unknown name or a missing value.
    #[error("field `{field}`: {message}")]
    Field {
        /// Path of the field (`seek.a_ms`); `.` for the top level.
        field: String,
        /// What is wrong with it.
        message: String,
    },

    /// An error found in a spec file, with the file named.
    #[error("{}: {source}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// The error inside it.
        source: Box<DiskError>,
    },
}

impl DiskError {
    /// An [`DiskError::InvalidParameter`] for a numeric field.
    pub(crate) fn invalid(field: &str, value: impl Shown, expected: &'static str) -> Self {
        DiskError::InvalidParameter {
            field: field.to_string(),
            value: value.shown(),
            expected,
        }
    }
}

/// A value as an error shows it: a real as written, with an exponent when
/// very large or small (`1e308`, not 309 digits).
pub(crate) trait Shown {
    /// The text.
    fn shown(&self) -> String;
}

impl Shown for f64 {
    fn shown(&self) -> String {
        let magnitude = self.abs();
        if magnitude.is_finite() && (magnitude >= 1e16 || (magnitude > 0.0 && magnitude < 1e-6)) {
            format!("{self:e}")
        } else {
            self.to_string()
        }
    }
}

impl Shown for str {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for String {
    fn shown(&self) -> String {
        self.clone()
    }
}

impl Shown for bool {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl<T: Shown + ?Sized> Shown for &T {
    fn shown(&self) -> String {
        (**self).shown()
    }
}

impl Shown for u32 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for u64 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for usize {
    fn shown(&self) -> String {
        self.to_string()
    }
}

/// The message of [`DiskError::Disksim`]: the parameter, quoted, then what is wrong.
fn disksim_message(parameter: Option<&str>, message: &str) -> String {
    match parameter {
        Some(parameter) => format!("`{parameter}`: {message}"),
        None => message.to_string(),
    }
}
