//! Latent sector errors across restarts: the unreadable block ranges of
//! each disk (media errors, from the control socket, a fault file or
//! drawn at random) are kept in `FILE.latent` beside a file-backed export,
//! so that a restarted server still fails reads of them until they are
//! rewritten, as a drive's bad sectors stay bad when it is powered off.
//!
//! One line a range: `DISK FIRST END` (blocks `FIRST..END` of disk
//! `DISK`), written whole to a temporary file and renamed over the old one.

use std::ops::Range;
use std::path::{Path, PathBuf};

/// Why the file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LatentError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line that is not `DISK FIRST END`.
    #[error("{path}: line {line}: expected `DISK FIRST END` with FIRST < END, got `{text}`")]
    Line {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// Its text.
        text: String,
    },
}

/// The file of a disk set's latent errors, and what it holds.
#[derive(Debug)]
pub struct LatentFile {
    path: PathBuf,
    saved: Vec<Vec<Range<u64>>>,
}

impl LatentFile {
    /// The file at `path` (read by [`LatentFile::load`]).
    pub fn new(path: PathBuf) -> Self {
        LatentFile {
            path,
            saved: Vec::new(),
        }
    }

    /// The ranges the file holds, `(disk, blocks)`; none if it does not
    /// exist.
    ///
    /// # Errors
    /// [`LatentError`] naming the file and line.
    pub fn load(&mut self) -> Result<Vec<(usize, Range<u64>)>, LatentError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(LatentError::Io {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let mut ranges = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let bad = || LatentError::Line {
                path: self.path.clone(),
                line: i + 1,
                text: line.to_string(),
            };
            let words: Vec<u64> = line
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            match words[..] {
                [disk, first, end] if first < end => {
                    let disk = usize::try_from(disk).map_err(|_| bad())?;
                    ranges.push((disk, first..end));
                }
                _ => return Err(bad()),
            }
        }
        Ok(ranges)
    }

    /// Writes `current` (each disk's ranges) if it differs from what was
    /// last written.
    ///
    /// # Errors
    /// [`LatentError::Io`].
    pub fn save_if_changed<'a>(
        &mut self,
        current: impl ExactSizeIterator<Item = &'a [Range<u64>]> + Clone,
    ) -> Result<(), LatentError> {
        let same = current.len() == self.saved.len()
            && current
                .clone()
                .zip(&self.saved)
                .all(|(a, b)| a == b.as_slice());
        if same {
            return Ok(());
        }
        let saved: Vec<Vec<Range<u64>>> = current.map(<[_]>::to_vec).collect();
        let mut text = String::new();
        for (disk, ranges) in saved.iter().enumerate() {
            for r in ranges {
                text.push_str(&format!("{disk} {} {}\n", r.start, r.end));
            }
        }
        let io = |source| LatentError::Io {
            path: self.path.clone(),
            source,
        };
        let tmp = with_suffix(&self.path, ".tmp");
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, &self.path).map_err(io)?;
        self.saved = saved;
        Ok(())
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_round_trip_and_a_bad_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.latent");
        let mut f = LatentFile::new(path.clone());
        assert!(f.load().unwrap().is_empty());
        let disks = [vec![10..20, 30..31], vec![]];
        f.save_if_changed(disks.iter().map(Vec::as_slice)).unwrap();
        let mut g = LatentFile::new(path.clone());
        assert_eq!(g.load().unwrap(), [(0, 10..20), (0, 30..31)]);
        std::fs::write(&path, "0 10 20\n1 5 5\n").unwrap();
        let e = g.load().unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("`1 5 5`"), "{e}");
    }
}
