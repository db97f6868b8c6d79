//! A device's state on disk, next to its backing files: which disk has
//! failed, which is being rebuilt and up to where, which blocks are
//! unreadable, and whether the server stopped cleanly. Written atomically (a new file, synced, renamed over the
//! old one, the directory synced), so a crash leaves the old state or the
//! new one, never half of either.
//!
//! Which writes each disk missed follows from its state: a failed disk has
//! missed every write since it failed (it is never read again; a
//! replacement is rebuilt whole), a disk being rebuilt holds current data
//! below its mark and receives every write, and after an unclean stop the
//! writes in flight may have reached one disk and not the other, so the
//! restarted server resynchronises all disks but one.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One disk's saved state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SavedDisk {
    /// In service.
    Online,
    /// Failed: its file is stale.
    Failed,
    /// Being rebuilt: blocks below `rebuilt_to` are current.
    Rebuilding {
        /// The first block not yet copied.
        rebuilt_to: u64,
    },
}

/// A mirror's saved state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorState {
    /// Each disk.
    pub disks: Vec<SavedDisk>,
    /// Bytes of the export.
    pub size: u64,
    /// The server stopped cleanly: every write reached every disk it was
    /// meant for.
    pub clean: bool,
    /// Each disk's unreadable blocks (media errors not yet rewritten): a
    /// bad sector stays bad across a restart.
    #[serde(default)]
    pub media_errors: Vec<Vec<std::ops::Range<u64>>>,
}

/// Why the state file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Reading, writing or renaming failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a state file.
    #[error("{path}: line {line}, column {column}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Where.
        line: usize,
        /// Where.
        column: usize,
        /// What.
        message: String,
    },
    /// A value that does not fit the device.
    #[error("{path}: {message}: start with other backing files or remove the state file")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A state saved for another device.
    #[error(
        "{path}: saved for {saved}, but the server now has {now}: start with other backing files or remove the state file"
    )]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What it was saved for.
        saved: String,
        /// What the server has now.
        now: String,
    },
}

/// The state file of a mirror.
#[derive(Clone, Debug)]
pub struct StateFile {
    path: PathBuf,
}

impl StateFile {
    /// The state file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        StateFile { path: path.into() }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, source: std::io::Error) -> StateError {
        StateError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// The saved state, if there is one, checked against a mirror of
    /// `disks` disks exporting `size` bytes.
    ///
    /// # Errors
    /// [`StateError`]: unreadable, malformed, or saved for another device.
    pub fn load(&self, disks: usize, size: u64) -> Result<Option<MirrorState>, StateError> {
        let text = match fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.io(e)),
        };
        let state: MirrorState = serde_json::from_str(&text).map_err(|e| StateError::Syntax {
            path: self.path.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if state.disks.len() != disks || state.size != size {
            return Err(StateError::Mismatch {
                path: self.path.clone(),
                saved: format!("{} disks of {} bytes", state.disks.len(), state.size),
                now: format!("{disks} disks of {size} bytes"),
            });
        }
        Ok(Some(state))
    }

    /// Replaces the saved state with `state`, atomically.
    ///
    /// # Errors
    /// [`StateError::Io`].
    pub fn save(&self, state: &MirrorState) -> Result<(), StateError> {
        let mut temp = self.path.clone().into_os_string();
        temp.push(".new");
        let temp = PathBuf::from(temp);
        let text = serde_json::to_string_pretty(state).map_err(|e| self.io(e.into()))?;
        let mut f = File::create(&temp).map_err(|e| self.io(e))?;
        f.write_all(text.as_bytes()).map_err(|e| self.io(e))?;
        f.sync_all().map_err(|e| self.io(e))?;
        fs::rename(&temp, &self.path).map_err(|e| self.io(e))?;
        let dir = self.path.parent().filter(|p| !p.as_os_str().is_empty());
        File::open(dir.unwrap_or(Path::new(".")))
            .and_then(|d| d.sync_all())
            .map_err(|e| self.io(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_round_trips_and_refuses_another_device() {
        let dir = tempfile::tempdir().unwrap();
        let file = StateFile::new(dir.path().join("mirror.state"));
        assert_eq!(file.load(2, 1 << 20).unwrap(), None);
        let state = MirrorState {
            disks: vec![SavedDisk::Online, SavedDisk::Rebuilding { rebuilt_to: 77 }],
            size: 1 << 20,
            clean: true,
            media_errors: vec![vec![3..9], Vec::new()],
        };
        file.save(&state).unwrap();
        assert_eq!(file.load(2, 1 << 20).unwrap(), Some(state));
        assert!(matches!(
            file.load(3, 1 << 20),
            Err(StateError::Mismatch { .. })
        ));
        fs::write(file.path(), "{\"disks\": [}").unwrap();
        let err = file.load(2, 1 << 20).unwrap_err().to_string();
        assert!(err.contains("line 1, column"), "{err}");
    }
}
