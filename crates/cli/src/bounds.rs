//! One checking layer for the options: every count, duration, fraction,
//! thread number and output file a command takes is parsed and checked
//! here, before any work starts. clap puts the flag's name in front of the message
//! ("invalid value '0' for '--jobs &lt;JOBS&gt;': …"); the message says what is
//! allowed and how to get further. Bounds on anything that allocates, spawns
//! or runs for long keep a typo from hanging the machine: a run larger than
//! a bound is a sweep, and `--shard` spreads it over machines.

use std::num::{IntErrorKind, ParseIntError};

/// Largest `--jobs`: four threads per core (more only queue behind each other).
pub fn max_jobs() -> usize {
    crate::run::default_jobs() * 4
}

fn integer(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .map_err(|e: ParseIntError| match e.kind() {
            IntErrorKind::PosOverflow => format!("`{}` is too large", shorten(s)),
            _ => format!("`{}` is not a whole number", shorten(s)),
        })
}

fn in_range(s: &str, min: u64, max: u64, what: &str, fix: &str) -> Result<u64, String> {
    let v = integer(s)?;
    if v < min || v > max {
        return Err(format!("{what} must be in {min}..={max}, got {v}{fix}"));
    }
    Ok(v)
}

/// A value echoed in a message: at most 40 characters of it.
fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!(
            "{}… ({} bytes)",
            s.chars().take(MAX).collect::<String>(),
            s.len()
        )
    }
}

/// `--jobs`: threads, 1 to four per core.
///
/// # Errors
/// Outside that range.
pub fn jobs(s: &str) -> Result<usize, String> {
    let max = max_jobs() as u64;
    in_range(
        s,
        1,
        max,
        "the number of threads",
        " (four per core at most)",
    )
    .map(|v| v as usize)
}

/// `--replications`: at least 2 (a confidence interval needs two), at most
/// 10,000 per command (more is a sweep: shard it).
///
/// # Errors
/// Outside that range.
pub fn replications(s: &str) -> Result<u64, String> {
    in_range(
        s,
        2,
        10_000,
        "replications",
        " (a 95 % interval needs two; for more than 10,000, run shards with --shard and merge them)",
    )
}

/// Replications of a point of a costly sweep (`array --replications`): 1
/// (figures without an interval) to 10,000.
///
/// # Errors
/// Outside that range.
pub fn runs_of_a_point(s: &str) -> Result<u64, String> {
    in_range(
        s,
        1,
        10_000,
        "replications",
        " (for more than 10,000, run shards with --shard and merge them)",
    )
}

/// `--requests` (completions measured per replication): 1 to 10⁹.
///
/// # Errors
/// Outside that range.
pub fn requests(s: &str) -> Result<u64, String> {
    in_range(s, 1, 1_000_000_000, "requests per replication", "")
}

/// `--warmup` (completions discarded first): 0 to 10⁹.
///
/// # Errors
/// Outside that range.
pub fn warmup(s: &str) -> Result<u64, String> {
    in_range(s, 0, 1_000_000_000, "the warm-up", "")
}

/// `--transactions` per replication: 1 to 10⁸.
///
/// # Errors
/// Outside that range.
pub fn transactions(s: &str) -> Result<u64, String> {
    in_range(s, 1, 100_000_000, "transactions per replication", "")
}

/// `--seconds` of a rate-based run: 1 to 3,600 (its memory grows with the
/// simulated time).
///
/// # Errors
/// Outside that range.
pub fn seconds(s: &str) -> Result<u64, String> {
    in_range(s, 1, 3_600, "the simulated seconds", "")
}

/// `--sets` (task sets, one replication each): 2 to 10,000.
///
/// # Errors
/// Outside that range.
pub fn sets(s: &str) -> Result<u64, String> {
    in_range(s, 2, 10_000, "task sets", " (a 95 % interval needs two)")
}

/// A step of a sweep's axis: 1 to 1,000.
///
/// # Errors
/// Outside that range.
pub fn step(s: &str) -> Result<usize, String> {
    in_range(s, 1, 1_000, "the step", "").map(|v| v as usize)
}

/// `--runs` of a benchmark: 1 to 1,000.
///
/// # Errors
/// Outside that range.
pub fn runs(s: &str) -> Result<usize, String> {
    in_range(s, 1, 1_000, "runs", "").map(|v| v as usize)
}

/// A queue depth (`bench sched --depth`): 3 (an array's two operations in
/// service and one waiting) to 65,535, the most a sched-core queue holds.
///
/// # Errors
/// Outside that range.
pub fn depth(s: &str) -> Result<usize, String> {
    in_range(s, 3, sched_core::MAX_CAPACITY as u64, "the queue depth", "").map(|v| v as usize)
}

/// Requests a benchmark round times (`bench sched --requests`): 1 to 10⁸.
///
/// # Errors
/// Outside that range.
pub fn decisions(s: &str) -> Result<u64, String> {
    in_range(s, 1, 100_000_000, "requests per round", "")
}

/// Disks of a mirror (`serve --copies`): 2 to the most copies an array
/// policy tracks.
///
/// # Errors
/// Outside that range.
pub fn copies(s: &str) -> Result<usize, String> {
    in_range(
        s,
        2,
        sched_core::array::MAX_COPIES as u64,
        "the disks of a mirror",
        "",
    )
    .map(|v| v as usize)
}

/// A population (clients, users): 1 to 65,535.
///
/// # Errors
/// Outside that range.
pub fn population(s: &str) -> Result<u32, String> {
    in_range(s, 1, 65_535, "the population", "").map(|v| v as u32)
}

fn finite(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a number", shorten(s)))?;
    if !v.is_finite() {
        return Err(format!("`{}` is not a finite number", shorten(s)));
    }
    Ok(v)
}

/// A positive finite number (a rate, a load, a time scale).
///
/// # Errors
/// Zero, negative, NaN or infinite.
pub fn positive(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if v <= 0.0 {
        return Err(format!("must be above 0, got {v}"));
    }
    Ok(v)
}

/// A finite number at or above zero (a mean think time, a delay).
///
/// # Errors
/// Negative, NaN or infinite.
pub fn non_negative(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if v < 0.0 {
        return Err(format!("must be 0 or more, got {v}"));
    }
    Ok(v)
}

/// A replay's speed-up factor: 10⁻³ to 10⁶ (beyond, a week's trace would
/// outlast the clock, or collapse into one instant).
///
/// # Errors
/// Outside that range, NaN or infinite.
pub fn speed(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if !(1e-3..=1e6).contains(&v) {
        return Err(format!("must be in 0.001 ..= 1000000, got {v}"));
    }
    Ok(v)
}

/// How a mirrored pair's second disk lays out its copies (`--placement`
/// of `run` and `replay`): identical, reversed, or shifted:F with F in
/// [0, 1) of the capacity.
///
/// # Errors
/// Another word, or a shift outside [0, 1).
pub fn placement(s: &str) -> Result<experiments::Placement, String> {
    use experiments::Placement;
    let placement = match s {
        "identical" => Placement::MIRROR,
        "reversed" => Placement::Reversed,
        _ => match s.strip_prefix("shifted:").map(str::parse::<f64>) {
            Some(Ok(fraction)) => Placement::Shifted { fraction },
            _ => return Err("expected identical, reversed or shifted:F".to_string()),
        },
    };
    match placement.invalid() {
        Some(expected) => Err(format!("expected {expected}")),
        None => Ok(placement),
    }
}

/// A fraction in [0, 1] (a probability).
///
/// # Errors
/// Outside [0, 1], NaN or infinite.
pub fn fraction(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if !(0.0..=1.0).contains(&v) {
        return Err(format!("must be a fraction in [0, 1], got {v}"));
    }
    Ok(v)
}

/// A plot's file (`--plot`): an `.svg`, a `.png` or an `.html` (a page of
/// the picture alone) whose directory exists, checked before the run
/// rather than after it.
///
/// # Errors
/// Another extension, or a directory that does not exist.
pub fn svg_path(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    match path.extension().and_then(|e| e.to_str()) {
        Some(e)
            if ["svg", "png", "html"]
                .iter()
                .any(|x| e.eq_ignore_ascii_case(x)) => {}
        Some(e) => {
            return Err(format!(
                "plots are written as SVG, PNG or HTML; name the file FILE.svg, FILE.png or FILE.html (`.{e}` is not drawn)"
            ));
        }
        None => return Err("name the file FILE.svg, FILE.png or FILE.html".to_string()),
    }
    existing_directory(path)
}

/// The report's file (`--html`): an `.html` whose directory exists.
///
/// # Errors
/// Another extension, or a directory that does not exist.
pub fn html_path(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    if !path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html"))
    {
        return Err("the report is a web page: name the file FILE.html".to_string());
    }
    existing_directory(path)
}

fn existing_directory(path: std::path::PathBuf) -> Result<std::path::PathBuf, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(format!("the directory {} does not exist", dir.display()));
    }
    Ok(path)
}

/// A file a command writes (`--samples`): one whose directory exists and
/// that is not a directory, checked before the run rather than after it.
///
/// # Errors
/// A directory that does not exist, or a path that is a directory.
pub fn output_file(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    if s.is_empty() || path.is_dir() {
        return Err(format!("`{}` is a directory; name a file", shorten(s)));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(format!("the directory {} does not exist", dir.display()));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bounded_on_both_sides() {
        assert_eq!(jobs("1"), Ok(1));
        assert!(jobs("0").unwrap_err().contains("must be in 1..="));
        assert!(jobs("4294967296").unwrap_err().contains("four per core"));
        assert!(
            jobs("99999999999999999999999")
                .unwrap_err()
                .contains("too large")
        );
        assert!(replications("1").unwrap_err().contains("needs two"));
        assert!(replications("4294967296").unwrap_err().contains("--shard"));
        assert_eq!(warmup("0"), Ok(0));
        assert!(seconds("0").is_err() && seconds("100000").is_err());
        assert!(sets("4294967296").is_err());
        assert!(step("0").is_err());
    }

    #[test]
    fn reals_are_finite_and_in_their_domain() {
        assert_eq!(positive("0.5"), Ok(0.5));
        for bad in ["0", "-0.5", "NaN", "inf", "1e309", "x"] {
            assert!(positive(bad).is_err(), "{bad}");
        }
        assert_eq!(fraction("1"), Ok(1.0));
        assert!(fraction("1.5").is_err());
        assert_eq!(non_negative("0"), Ok(0.0));
        assert!(non_negative("-1").is_err());
    }

    #[test]
    fn plot_files_are_svgs_in_existing_directories() {
        assert!(svg_path("fig.svg").is_ok());
        assert!(svg_path("fig.html").is_ok() && svg_path("FIG.PNG").is_ok());
        assert!(html_path("report.html").is_ok());
        assert!(html_path("report.svg").unwrap_err().contains("FILE.html"));
        assert!(
            html_path("/nonexistent-dir/r.html")
                .unwrap_err()
                .contains("does not exist")
        );
        assert!(
            svg_path("fig.gif")
                .unwrap_err()
                .contains("`.gif` is not drawn")
        );
        assert!(svg_path("fig").is_err());
        assert!(
            svg_path("/nonexistent-dir/fig.svg")
                .unwrap_err()
                .contains("does not exist")
        );
    }

    #[test]
    fn output_files_are_files_in_existing_directories() {
        assert!(output_file("samples.csv").is_ok());
        assert!(output_file("/").unwrap_err().contains("is a directory"));
        assert!(output_file("").is_err());
        assert!(
            output_file("/nonexistent-dir/s.csv")
                .unwrap_err()
                .contains("does not exist")
        );
    }

    #[test]
    fn a_huge_token_is_not_echoed_whole() {
        let token = "9".repeat(1_000_000);
        let message = replications(&token).unwrap_err();
        assert!(message.len() < 200, "{} bytes", message.len());
        let message = positive(&"x".repeat(1_000_000)).unwrap_err();
        assert!(message.len() < 200);
    }
}

/// `--read-skew`/`--write-skew`: which blocks a kind of request goes to
/// (uniform, zipf:ALPHA, hot:FRACTION:SHARE).
///
/// # Errors
/// Another form, or a parameter outside its domain.
pub fn popularity(s: &str) -> Result<experiments::oltp::Popularity, String> {
    s.parse()
        .map_err(|e: experiments::oltp::PopularityError| e.to_string())
}

/// `--request-kb`: a request's size, a whole number of 4 KB blocks from 4
/// to 1024 KB.
///
/// # Errors
/// Not a multiple of 4, or outside that range.
pub fn request_kb(s: &str) -> Result<u32, String> {
    let kb = in_range(s, 4, 1024, "a request's size in KB", " (whole 4 KB blocks)")?;
    if kb % 4 != 0 {
        return Err(format!(
            "a request's size must be whole 4 KB blocks, got {kb} KB"
        ));
    }
    Ok((kb / 4) as u32)
}

/// `--burstiness`: the squared coefficient of variation of the gaps
/// between requests, 1 (Poisson) to 100.
///
/// # Errors
/// Outside that range, NaN or infinite.
pub fn burstiness(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if !(1.0..=experiments::oltp::MAX_BURSTINESS).contains(&v) {
        return Err(format!(
            "must be in 1 ..= 100 (1: Poisson arrivals), got {v}"
        ));
    }
    Ok(v)
}
