//! Reading a whole text input (a drive model, a spec, a task set) with a
//! bound on its size, so that naming the wrong file (`/dev/zero`, a trace, a
//! disk image) is refused in a moment instead of read until memory runs out.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest text input read whole: 64 MiB (the largest DiskSim model
/// bundled is under 100 kB).
pub const MAX_TEXT_INPUT: u64 = 64 << 20;

/// The file at `path` as text, if it is at most [`MAX_TEXT_INPUT`] bytes.
///
/// # Errors
/// The file cannot be opened or read, is not UTF-8, or is larger than the
/// bound (an [`io::ErrorKind::InvalidData`] error saying so).
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
            format!("line {line}: not UTF-8 text (byte {at})"),
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
