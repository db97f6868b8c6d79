//! The text form of a single-disk policy: `name[:key=value,...]`.

use core::fmt;
use core::str::FromStr;

use crate::error::BuildError;
use crate::policy::ExpiredRule;
use crate::request::Nanos;

/// A single-disk policy and its parameters, as named on a command line.
///
/// The text form is `name` or `name:key=value,key=value`, e.g. `sstf`,
/// `ssedo:m=3,beta=2`, `ssedv:alpha=0.5,unit=1ms`, `fd-scan:expired=drop`,
/// `scan-edf:granularity=10ms`, `sptf:window=32`, `aged-sptf:weight=0.01`,
/// `vscan:r=0.2`. Names ignore case, `-` and `_`. Durations take a suffix
/// `ns`, `us`, `ms` or `s` (plain numbers are nanoseconds). [`fmt::Display`]
/// prints the canonical form with every parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PolicySpec {
    /// [`Fcfs`](crate::policy::Fcfs).
    Fcfs,
    /// [`Sstf`](crate::policy::Sstf).
    Sstf,
    /// [`Scan`](crate::policy::Scan).
    Scan,
    /// [`Look`](crate::policy::Look).
    Look,
    /// [`CScan`](crate::policy::CScan).
    CScan,
    /// [`CLook`](crate::policy::CLook).
    CLook,
    /// [`VScan`](crate::policy::VScan) with bias `r` (default 0.2, Geist & Daniel's best).
    VScan {
        /// Reversal penalty as a fraction of the cylinder count.
        r: f64,
    },
    /// [`Edf`](crate::policy::Edf).
    Edf,
    /// [`Ssedo`](crate::policy::Ssedo) (defaults m = 3, β = 2, the paper's values).
    Ssedo {
        /// Window size.
        m: usize,
        /// Weight base.
        beta: f64,
    },
    /// [`Ssedv`](crate::policy::Ssedv) (defaults α = 0.5, unit 1 ms).
    Ssedv {
        /// Weight of the seek distance.
        alpha: f64,
        /// Nanoseconds of slack that count as one unit (1 ns ..= 2⁴⁸ ns).
        unit: Nanos,
    },
    /// [`FdScan`](crate::policy::FdScan) (default: keep expired requests).
    FdScan {
        /// What happens to expired requests.
        expired: ExpiredRule,
    },
    /// [`ScanEdf`](crate::policy::ScanEdf) (default granularity 1 ns: exact ties).
    ScanEdf {
        /// Deadlines within the same multiple of this many ns tie.
        granularity: Nanos,
    },
    /// [`Sptf`](crate::policy::Sptf) (default: every request is a candidate).
    Sptf {
        /// Candidates nearest the arm, `None` for all.
        window: Option<usize>,
    },
    /// [`AgedSptf`](crate::policy::AgedSptf) (default weight 0.01: 100 ms of waiting forgives 1 ms of positioning).
    AgedSptf {
        /// Positioning nanoseconds forgiven per nanosecond waited.
        weight: f64,
        /// Candidates nearest the arm, `None` for all.
        window: Option<usize>,
    },
}

/// Why a policy description did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecError {
    /// The name is not one of [`PolicySpec::NAMES`].
    UnknownPolicy,
    /// The policy takes no parameter of that name.
    UnknownParameter {
        /// The policy's canonical name.
        policy: &'static str,
    },
    /// A parameter is not `key=value` or its value does not parse.
    BadValue {
        /// The parameter.
        parameter: &'static str,
        /// What its value must look like.
        expected: &'static str,
    },
    /// The values parse but the policy rejects them.
    Invalid(BuildError),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownPolicy => {
                f.write_str("unknown policy (known: ")?;
                for (i, name) in PolicySpec::NAMES.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(name)?;
                }
                f.write_str(")")
            }
            SpecError::UnknownParameter { policy } => {
                write!(f, "{policy} takes no such parameter")
            }
            SpecError::BadValue {
                parameter,
                expected,
            } => write!(f, "parameter {parameter}: expected {expected}"),
            SpecError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for SpecError {}

impl PolicySpec {
    /// The canonical names, in the order of the table in [`crate::policy`].
    pub const NAMES: [&'static str; 14] = [
        "fcfs",
        "sstf",
        "scan",
        "look",
        "c-scan",
        "c-look",
        "vscan",
        "edf",
        "ssedo",
        "ssedv",
        "scan-edf",
        "fd-scan",
        "sptf",
        "aged-sptf",
    ];

    /// Every policy with its default parameters.
    pub const DEFAULTS: [PolicySpec; 14] = [
        PolicySpec::Fcfs,
        PolicySpec::Sstf,
        PolicySpec::Scan,
        PolicySpec::Look,
        PolicySpec::CScan,
        PolicySpec::CLook,
        PolicySpec::VScan { r: 0.2 },
        PolicySpec::Edf,
        PolicySpec::Ssedo { m: 3, beta: 2.0 },
        PolicySpec::Ssedv {
            alpha: 0.5,
            unit: 1_000_000,
        },
        PolicySpec::ScanEdf { granularity: 1 },
        PolicySpec::FdScan {
            expired: ExpiredRule::Keep,
        },
        PolicySpec::Sptf { window: None },
        PolicySpec::AgedSptf {
            weight: 0.01,
            window: None,
        },
    ];

    /// The canonical name.
    pub fn name(&self) -> &'static str {
        match self {
            PolicySpec::Fcfs => "fcfs",
            PolicySpec::Sstf => "sstf",
            PolicySpec::Scan => "scan",
            PolicySpec::Look => "look",
            PolicySpec::CScan => "c-scan",
            PolicySpec::CLook => "c-look",
            PolicySpec::VScan { .. } => "vscan",
            PolicySpec::Edf => "edf",
            PolicySpec::Ssedo { .. } => "ssedo",
            PolicySpec::Ssedv { .. } => "ssedv",
            PolicySpec::ScanEdf { .. } => "scan-edf",
            PolicySpec::FdScan { .. } => "fd-scan",
            PolicySpec::Sptf { .. } => "sptf",
            PolicySpec::AgedSptf { .. } => "aged-sptf",
        }
    }

    /// Whether the policy asks the [`ServiceEstimator`](crate::ServiceEstimator) for times.
    pub fn needs_estimator(&self) -> bool {
        matches!(
            self,
            PolicySpec::FdScan { .. } | PolicySpec::Sptf { .. } | PolicySpec::AgedSptf { .. }
        )
    }
}

impl fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let window = |f: &mut fmt::Formatter<'_>, w: Option<usize>| match w {
            Some(k) => write!(f, "window={k}"),
            None => f.write_str("window=all"),
        };
        match *self {
            PolicySpec::VScan { r } => write!(f, ":r={r}"),
            PolicySpec::Ssedo { m, beta } => write!(f, ":m={m},beta={beta}"),
            PolicySpec::Ssedv { alpha, unit } => write!(f, ":alpha={alpha},unit={unit}ns"),
            PolicySpec::ScanEdf { granularity } => write!(f, ":granularity={granularity}ns"),
            PolicySpec::FdScan { expired } => match expired {
                ExpiredRule::Keep => f.write_str(":expired=keep"),
                ExpiredRule::Drop => f.write_str(":expired=drop"),
            },
            PolicySpec::Sptf { window: w } => {
                f.write_str(":")?;
                window(f, w)
            }
            PolicySpec::AgedSptf { weight, window: w } => {
                write!(f, ":weight={weight},")?;
                window(f, w)
            }
            _ => Ok(()),
        }
    }
}

/// Policy names compare ignoring case, `-` and `_`.
pub(crate) fn same_name(given: &str, canonical: &str) -> bool {
    let mut a = given
        .bytes()
        .filter(|b| *b != b'-' && *b != b'_')
        .map(|b| b.to_ascii_lowercase());
    let mut b = canonical.bytes().filter(|b| *b != b'-');
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (x, y) if x == y => {}
            _ => return false,
        }
    }
}

fn parse_f64(v: &str, parameter: &'static str, expected: &'static str) -> Result<f64, SpecError> {
    f64::from_str(v).map_err(|_| SpecError::BadValue {
        parameter,
        expected,
    })
}

fn parse_window(v: &str) -> Result<Option<usize>, SpecError> {
    if v.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    usize::from_str(v)
        .map(Some)
        .map_err(|_| SpecError::BadValue {
            parameter: "window",
            expected: "a number of candidates or `all`",
        })
}

/// Parses `10ms`, `500us`, `2s`, `1000ns` or a plain number of nanoseconds.
fn parse_duration(v: &str, parameter: &'static str) -> Result<Nanos, SpecError> {
    let bad = SpecError::BadValue {
        parameter,
        expected: "a duration such as 10ms, 500us, 2s or 1000ns",
    };
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (number, unit) = v.split_at(split);
    let scale = match unit {
        "" | "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return Err(bad),
    };
    let x = f64::from_str(number).map_err(|_| bad)?;
    let ns = x * scale;
    if !(0.0..1.8e19).contains(&ns) {
        return Err(bad);
    }
    Ok((ns + 0.5) as Nanos)
}

impl FromStr for PolicySpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        let (name, params) = match s.split_once(':') {
            Some((n, p)) => (n.trim(), p),
            None => (s.trim(), ""),
        };
        let name = if same_name(name, "satf") {
            "sptf"
        } else {
            name
        };
        let mut spec = PolicySpec::NAMES
            .iter()
            .zip(PolicySpec::DEFAULTS)
            .find(|(n, _)| same_name(name, n))
            .map(|(_, d)| d)
            .ok_or(SpecError::UnknownPolicy)?;
        let policy = spec.name();
        for pair in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').ok_or(SpecError::BadValue {
                parameter: "parameters",
                expected: "key=value pairs separated by commas",
            })?;
            let (key, value) = (key.trim(), value.trim());
            let unknown = SpecError::UnknownParameter { policy };
            match (&mut spec, key) {
                (PolicySpec::VScan { r }, "r" | "R") => {
                    *r = parse_f64(value, "r", "a number in [0, 1]")?
                }
                (PolicySpec::Ssedo { m, .. }, "m" | "window") => {
                    *m = usize::from_str(value).map_err(|_| SpecError::BadValue {
                        parameter: "m",
                        expected: "a window of 1 ..= 64 requests",
                    })?
                }
                (PolicySpec::Ssedo { beta, .. }, "beta") => {
                    *beta = parse_f64(value, "beta", "a number of at least 1")?
                }
                (PolicySpec::Ssedv { alpha, .. }, "alpha") => {
                    *alpha = parse_f64(value, "alpha", "a number in [0, 1]")?
                }
                (PolicySpec::Ssedv { unit, .. }, "unit") => *unit = parse_duration(value, "unit")?,
                (PolicySpec::ScanEdf { granularity }, "granularity" | "g") => {
                    *granularity = parse_duration(value, "granularity")?
                }
                (PolicySpec::FdScan { expired }, "expired") => {
                    *expired = match value {
                        "keep" => ExpiredRule::Keep,
                        "drop" => ExpiredRule::Drop,
                        _ => {
                            return Err(SpecError::BadValue {
                                parameter: "expired",
                                expected: "keep or drop",
                            });
                        }
                    }
                }
                (PolicySpec::Sptf { window } | PolicySpec::AgedSptf { window, .. }, "window") => {
                    *window = parse_window(value)?
                }
                (PolicySpec::AgedSptf { weight, .. }, "weight") => {
                    *weight = parse_f64(value, "weight", "a number of at least 0")?
                }
                _ => return Err(unknown),
            }
        }
        spec.validate().map_err(SpecError::Invalid)?;
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::BuildError;

    #[test]
    fn parses_names_and_parameters() {
        assert_eq!("SSTF".parse::<PolicySpec>(), Ok(PolicySpec::Sstf));
        assert_eq!("c_look".parse::<PolicySpec>(), Ok(PolicySpec::CLook));
        assert_eq!(
            "ssedo:m=5,beta=1.5".parse::<PolicySpec>(),
            Ok(PolicySpec::Ssedo { m: 5, beta: 1.5 })
        );
        assert_eq!(
            "ssedv:alpha=0.25,unit=500us".parse::<PolicySpec>(),
            Ok(PolicySpec::Ssedv {
                alpha: 0.25,
                unit: 500_000
            })
        );
        assert_eq!(
            "fdscan:expired=drop".parse::<PolicySpec>(),
            Ok(PolicySpec::FdScan {
                expired: ExpiredRule::Drop
            })
        );
        assert_eq!(
            "satf".parse::<PolicySpec>(),
            Ok(PolicySpec::Sptf { window: None })
        );
    }

    #[test]
    fn rejects_bad_descriptions_with_typed_errors() {
        assert_eq!(
            "elevator".parse::<PolicySpec>(),
            Err(SpecError::UnknownPolicy)
        );
        assert_eq!(
            "sstf:m=3".parse::<PolicySpec>(),
            Err(SpecError::UnknownParameter { policy: "sstf" })
        );
        assert!(matches!(
            "ssedo:m=0".parse::<PolicySpec>(),
            Err(SpecError::Invalid(BuildError::InvalidParameter {
                name: "m",
                ..
            }))
        ));
        assert!(matches!(
            "ssedo:beta=0.5".parse::<PolicySpec>(),
            Err(SpecError::Invalid(BuildError::InvalidParameter {
                name: "beta",
                ..
            }))
        ));
        assert!(matches!(
            "ssedv:alpha=1.5".parse::<PolicySpec>(),
            Err(SpecError::Invalid(BuildError::InvalidParameter {
                name: "alpha",
                ..
            }))
        ));
        assert!(matches!(
            "scan-edf:granularity=soon".parse::<PolicySpec>(),
            Err(SpecError::BadValue {
                parameter: "granularity",
                ..
            })
        ));
    }

    #[test]
    fn display_round_trips() {
        for spec in PolicySpec::DEFAULTS {
            let mut buf = [0u8; 96];
            let text = format_into(&mut buf, &spec);
            assert_eq!(text.parse::<PolicySpec>(), Ok(spec), "{text}");
        }
    }

    fn format_into<'a>(buf: &'a mut [u8], spec: &PolicySpec) -> &'a str {
        struct W<'b>(&'b mut [u8], usize);
        impl fmt::Write for W<'_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.0[self.1..self.1 + s.len()].copy_from_slice(s.as_bytes());
                self.1 += s.len();
                Ok(())
            }
        }
        let mut w = W(buf, 0);
        fmt::write(&mut w, format_args!("{spec}")).unwrap();
        let n = w.1;
        core::str::from_utf8(&buf[..n]).unwrap()
    }
}
