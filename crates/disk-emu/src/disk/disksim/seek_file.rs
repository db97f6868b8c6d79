//! DiskSim `.seek` files: measured seek times by distance.

use std::path::Path;

/// What can go wrong reading a `.seek` file.
pub(super) enum SeekFileError {
    Io(std::io::Error),
    Line(u32, String),
}

/// Reads a DiskSim seek curve file: an optional `Seek distances measured: N`
/// line, then `distance, ms[, stddev]` lines, distances strictly increasing.
pub(super) fn read_seek_curve(path: &Path) -> Result<Vec<(u32, f64)>, SeekFileError> {
    let text = crate::text_input::read_text(path).map_err(|e| {
        // Text that is not UTF-8 is the seek file's fault, at its own line.
        match crate::text_input::not_utf8(&e) {
            Some(bad) => {
                SeekFileError::Line(bad.line, format!("not UTF-8 text (byte {})", bad.byte))
            }
            None => SeekFileError::Io(e),
        }
    })?;
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
