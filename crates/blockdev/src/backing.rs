//! Where a disk's bytes live: RAM, or a backing file.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a store failed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct StoreError {
    /// The backing file (`RAM` for memory).
    pub path: String,
    /// Why.
    pub source: std::io::Error,
}

/// One disk's bytes.
#[derive(Debug)]
pub enum Store {
    /// In memory: zero pages until written (the allocation is lazy).
    Ram(Vec<u8>),
    /// In a file of the export's size, written in place.
    File {
        /// The file (shared with syncs made off the engine's lock).
        file: Arc<File>,
        /// Its path, for messages.
        path: PathBuf,
    },
}

impl Store {
    /// `size` bytes of zeroes in memory.
    pub fn ram(size: u64) -> Store {
        Store::Ram(vec![0; size as usize])
    }

    /// The file at `path`, created (sparse, zero) or extended to `size`
    /// bytes if shorter; an existing file keeps its data.
    ///
    /// # Errors
    /// [`StoreError`] naming the file.
    pub fn file(path: &Path, size: u64) -> Result<Store, StoreError> {
        let err = |source| StoreError {
            path: path.display().to_string(),
            source,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(err)?;
        if file.metadata().map_err(err)?.len() < size {
            file.set_len(size).map_err(err)?;
        }
        Ok(Store::File {
            file: Arc::new(file),
            path: path.to_path_buf(),
        })
    }

    fn err(&self, source: std::io::Error) -> StoreError {
        StoreError {
            path: match self {
                Store::Ram(_) => "RAM".into(),
                Store::File { path, .. } => path.display().to_string(),
            },
            source,
        }
    }

    /// Fills `buf` from `offset` (the caller keeps it within the export).
    ///
    /// # Errors
    /// [`StoreError`] for a failed file read.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), StoreError> {
        match self {
            Store::Ram(bytes) => {
                let at = offset as usize;
                buf.copy_from_slice(&bytes[at..at + buf.len()]);
                Ok(())
            }
            Store::File { file, .. } => file.read_exact_at(buf, offset).map_err(|e| self.err(e)),
        }
    }

    /// Writes `data` at `offset`.
    ///
    /// # Errors
    /// [`StoreError`] for a failed file write.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<(), StoreError> {
        match self {
            Store::Ram(bytes) => {
                let at = offset as usize;
                bytes[at..at + data.len()].copy_from_slice(data);
                Ok(())
            }
            Store::File { file, .. } => file.write_all_at(data, offset).map_err(|e| self.err(e)),
        }
    }

    /// Writes `len` zero bytes at `offset`.
    ///
    /// # Errors
    /// [`StoreError`] for a failed file write.
    pub fn zero(&mut self, offset: u64, len: u64) -> Result<(), StoreError> {
        match self {
            Store::Ram(bytes) => {
                bytes[offset as usize..(offset + len) as usize].fill(0);
                Ok(())
            }
            Store::File { .. } => {
                const CHUNK: u64 = 1 << 20;
                let zeroes = vec![0u8; CHUNK.min(len) as usize];
                let mut at = offset;
                while at < offset + len {
                    let n = CHUNK.min(offset + len - at);
                    self.write(at, &zeroes[..n as usize])?;
                    at += n;
                }
                Ok(())
            }
        }
    }

    /// Makes every write so far durable (fsync of a file; nothing in RAM).
    ///
    /// # Errors
    /// [`StoreError`] for a failed fsync.
    pub fn sync(&self) -> Result<(), StoreError> {
        match self {
            Store::Ram(_) => Ok(()),
            Store::File { file, .. } => file.sync_data().map_err(|e| self.err(e)),
        }
    }

    /// The backing file and its path, for a sync made elsewhere; `None` in
    /// RAM.
    pub fn sync_handle(&self) -> Option<(Arc<File>, PathBuf)> {
        match self {
            Store::Ram(_) => None,
            Store::File { file, path } => Some((Arc::clone(file), path.clone())),
        }
    }

    /// Copies `len` bytes at `offset` from `from` (a resync).
    ///
    /// # Errors
    /// [`StoreError`] for a failed file read or write.
    pub fn copy_from(&mut self, from: &Store, offset: u64, len: u64) -> Result<(), StoreError> {
        const CHUNK: u64 = 1 << 20;
        let mut buf = vec![0u8; CHUNK.min(len) as usize];
        let mut at = offset;
        while at < offset + len {
            let n = CHUNK.min(offset + len - at) as usize;
            from.read(at, &mut buf[..n])?;
            self.write(at, &buf[..n])?;
            at += n as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ram_and_file_stores_read_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("disk");
        let mut stores = [Store::ram(1 << 16), Store::file(&path, 1 << 16).unwrap()];
        for s in &mut stores {
            s.write(100, b"spindle").unwrap();
            s.zero(101, 2).unwrap();
            let mut buf = [9u8; 9];
            s.read(99, &mut buf).unwrap();
            assert_eq!(&buf, b"\0s\0\0ndle\0");
            s.sync().unwrap();
        }
        let mut copy = Store::ram(1 << 16);
        copy.copy_from(&stores[1], 0, 1 << 16).unwrap();
        let mut buf = [0u8; 7];
        copy.read(100, &mut buf).unwrap();
        assert_eq!(&buf, b"s\0\0ndle");
        drop(stores);
        // A file keeps its data when opened again.
        let again = Store::file(&path, 1 << 16).unwrap();
        again.read(100, &mut buf).unwrap();
        assert_eq!(&buf, b"s\0\0ndle");
    }
}
