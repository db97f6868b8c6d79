//! Reading a whole text input (a drive model, a spec, a task set) with a
//! bound on its size, so that naming the wrong file (`/dev/zero`, a trace, a
//! disk image) is refused in a moment instead of read until memory runs out.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest text input read whole: 64 MiB (the largest DiskSim model
/// bundled is under 100 kB).
pub const MAX_TEXT_INPUT: u64 = 64 << 20;

/// Where a text input stops being UTF-8: the error inside the
/// [`io::ErrorKind::InvalidData`] error [`read_text`] returns, so that a
/// reader that names positions (a DiskSim file sourced by another) can blame
/// the file's own line ([`not_utf8`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotUtf8 {
    /// The line, from 1.
    pub line: u32,
    /// The byte offset in the file of the first byte that is not UTF-8.
    pub byte: usize,
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: not UTF-8 text (byte {})", self.line, self.byte)
    }
}

impl std::error::Error for NotUtf8 {}

/// The position of a [`read_text`] error that is text not being UTF-8.
pub fn not_utf8(e: &io::Error) -> Option<NotUtf8> {
    e.get_ref()?.downcast_ref::<NotUtf8>().copied()
}

/// The file at `path` as text, if it is at most [`MAX_TEXT_INPUT`] bytes.
///
/// # Errors
/// The file cannot be opened or read, is not UTF-8 (an
/// [`io::ErrorKind::InvalidData`] error holding a [`NotUtf8`]), or is larger
/// than the bound (an [`io::ErrorKind::InvalidData`] error saying so).
pub fn read_text(path: &Path) -> io::Result<String> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(MAX_TEXT_INPUT + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_TEXT_INPUT {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB: not a description this tool reads",
                MAX_TEXT_INPUT >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        io::Error::new(
            io::ErrorKind::InvalidData,
            NotUtf8 {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                byte: at,
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_utf8_is_refused_with_its_line() {
        let dir = std::env::temp_dir().join(format!("spindle-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bad.toml");
        std::fs::write(&file, b"rpm = 5400\nname = \"\xff\"\n").unwrap();
        let err = read_text(&file).unwrap_err();
        assert_eq!(err.to_string(), "line 2: not UTF-8 text (byte 19)");
        assert_eq!(not_utf8(&err), Some(NotUtf8 { line: 2, byte: 19 }));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_endless_file_is_refused_after_the_bound() {
        if Path::new("/dev/zero").exists() {
            let err = read_text(Path::new("/dev/zero")).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData);
            assert!(err.to_string().contains("larger than 64 MiB"));
        }
    }
}
