//! Seek models: how long the arm takes to cross a number of cylinders.
//!
//! Every distance-driven curve costs nothing for a distance of 0. Curves are
//! evaluated in `f64` with correctly rounded operations only (+, −, ×, √) and
//! rounded to whole nanoseconds, so they give the same bits everywhere.

use serde::{Deserialize, Serialize};

use super::DiskError;
use crate::random::Stream;
use sched_core::Nanos;

/// The linear part of a piecewise seek curve, used from `from` cylinders on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongSeek {
    /// The first distance (in cylinders) the linear part applies to.
    pub from: u32,
    /// Constant term, ms.
    pub a_ms: f64,
    /// Milliseconds per cylinder.
    pub b_ms: f64,
}

/// How the seek time depends on the distance, as a spec file writes it
/// (`[seek] curve = "sqrt-linear"` …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "curve", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SeekSpec {
    /// Seeks take no time (whole-service models).
    None,
    /// `a + b·√d + c·d` ms for `0 < d` (below `long.from` when there is a
    /// long part), and `long.a + long.b·d` ms from `long.from` on.
    ///
    /// This one shape covers the published curves: HP 97560 (Ruemmler &
    /// Wilkes: a = 3.24, b = 0.400, long from 383: 8.00 + 0.008·d), HP 7935 and
    /// HP 7937 (Lo, Ivy §4.2.1: c = −0.025 and −0.004), Chen & Towsley
    /// (a = 8, b = 0.5, no long part).
    SqrtLinear {
        /// Constant term, ms.
        a_ms: f64,
        /// Coefficient of √d, ms.
        b_ms: f64,
        /// Coefficient of d, ms (0 if omitted).
        #[serde(default)]
        c_ms: f64,
        /// The linear part for long seeks, if the curve has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        long: Option<LongSeek>,
    },
    /// Measured points `[distance, ms]` with strictly increasing distances,
    /// interpolated linearly (the shape of a DiskSim `.seek` file). Below the
    /// first point a non-zero seek costs the first point's time; past the last
    /// point the last segment's line is extended (never decreasing).
    Table {
        /// `[distance in cylinders, time in ms]` pairs.
        points: Vec<(u32, f64)>,
    },
    /// Towsley, Chen & Yu §4: with probability `sequential_probability` (p_s)
    /// the request is on the arm's cylinder and there is no seek; otherwise
    /// the seek time is uniform on [`min_ms`, `max_ms`]. Ignores distance.
    Random {
        /// Shortest seek, ms.
        min_ms: f64,
        /// Longest seek, ms.
        max_ms: f64,
        /// p_s, the probability of no seek at all (0 if omitted).
        #[serde(default)]
        sequential_probability: f64,
        /// The seek belongs to the request rather than to the disk: every
        /// disk serving the same request (both copies of a mirrored update
        /// or duplicated read) draws the same seek, from a stream keyed by
        /// the request's identity, arrival time and block. Otherwise (the
        /// default) each disk draws its own from its service stream. A
        /// reading of Towsley, Chen & Yu §4, whose text does not say; not
        /// with a cache, whose seeks are the drive's own.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        per_request: bool,
    },
}

/// A validated seek model.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Seek {
    None,
    SqrtLinear {
        a: f64,
        b: f64,
        c: f64,
        long: Option<LongSeek>,
    },
    Table(Vec<(u32, f64)>),
    Random {
        min: Nanos,
        max: Nanos,
        p_sequential: f64,
        per_request: bool,
    },
}

/// Milliseconds (a finite, non-negative value) to whole nanoseconds.
pub(crate) fn ms_to_ns(ms: f64) -> Nanos {
    (ms * 1e6).round() as Nanos
}

/// The longest any one mechanical or controller time may be, ms: an hour. A
/// larger value is a typo (or DiskSim's 1e308 for "never"), and would
/// overflow the clock.
pub(crate) const MAX_DURATION_MS: f64 = 3.6e6;

/// Checks that `ms` is a usable duration and converts it.
pub(crate) fn duration(field: &str, ms: f64) -> Result<Nanos, DiskError> {
    if (0.0..=MAX_DURATION_MS).contains(&ms) {
        Ok(ms_to_ns(ms))
    } else {
        Err(DiskError::invalid(
            field,
            ms,
            "a non-negative number of milliseconds, at most an hour (3.6e6)",
        ))
    }
}

fn finite(field: &str, x: f64) -> Result<f64, DiskError> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(DiskError::invalid(field, x, "a finite number"))
    }
}

impl Seek {
    /// Validates a spec.
    pub(crate) fn new(spec: &SeekSpec) -> Result<Self, DiskError> {
        Ok(match spec {
            SeekSpec::None => Seek::None,
            SeekSpec::SqrtLinear {
                a_ms,
                b_ms,
                c_ms,
                long,
            } => {
                if let Some(long) = long {
                    if long.from == 0 {
                        return Err(DiskError::Zero {
                            field: "seek.long.from",
                        });
                    }
                    finite("seek.long.a_ms", long.a_ms)?;
                    finite("seek.long.b_ms", long.b_ms)?;
                }
                Seek::SqrtLinear {
                    a: finite("seek.a_ms", *a_ms)?,
                    b: finite("seek.b_ms", *b_ms)?,
                    c: finite("seek.c_ms", *c_ms)?,
                    long: *long,
                }
            }
            SeekSpec::Table { points } => {
                if points.is_empty() {
                    return Err(DiskError::invalid(
                        "seek.points",
                        "[]",
                        "at least one [distance, ms] point",
                    ));
                }
                for (i, &(d, ms)) in points.iter().enumerate() {
                    duration(&format!("seek.points[{i}]"), ms)?;
                    if i > 0 && d <= points[i - 1].0 {
                        return Err(DiskError::invalid(
                            &format!("seek.points[{i}]"),
                            format!("[{d}, {ms}]"),
                            "distances strictly increasing",
                        ));
                    }
                }
                Seek::Table(points.clone())
            }
            SeekSpec::Random {
                min_ms,
                max_ms,
                sequential_probability: p,
                per_request,
            } => {
                let min = duration("seek.min_ms", *min_ms)?;
                let max = duration("seek.max_ms", *max_ms)?;
                if max < min {
                    return Err(DiskError::invalid(
                        "seek.max_ms",
                        max_ms,
                        "at least seek.min_ms",
                    ));
                }
                if !(0.0..=1.0).contains(p) {
                    return Err(DiskError::invalid(
                        "seek.sequential_probability",
                        p,
                        "a probability in [0, 1]",
                    ));
                }
                Seek::Random {
                    min,
                    max,
                    p_sequential: *p,
                    per_request: *per_request,
                }
            }
        })
    }

    /// True when the seek time is drawn at random rather than read off a curve.
    pub(crate) fn is_random(&self) -> bool {
        matches!(self, Seek::Random { .. })
    }

    /// True when every disk serving a request draws the same seek for it.
    pub(crate) fn is_per_request(&self) -> bool {
        matches!(
            self,
            Seek::Random {
                per_request: true,
                ..
            }
        )
    }

    /// The curve's time for a seek of `d` cylinders; for the random model,
    /// its mean.
    pub(crate) fn time(&self, d: u32) -> Nanos {
        if d == 0 && !self.is_random() {
            return 0;
        }
        match self {
            Seek::None => 0,
            Seek::SqrtLinear { a, b, c, long } => {
                let x = f64::from(d);
                let ms = match long {
                    Some(long) if d >= long.from => long.a_ms + long.b_ms * x,
                    _ => a + b * x.sqrt() + c * x,
                };
                ms_to_ns(ms.max(0.0))
            }
            Seek::Table(points) => ms_to_ns(interpolate(points, d)),
            Seek::Random {
                min,
                max,
                p_sequential,
                ..
            } => ((1.0 - p_sequential) * (*min as f64 + *max as f64) / 2.0).round() as Nanos,
        }
    }

    /// The time of an actual seek over `d` cylinders: the curve, or for the
    /// random model one draw (which ignores `d`).
    pub(crate) fn draw(&self, d: u32, rng: &mut Stream) -> Nanos {
        match self {
            Seek::Random {
                min,
                max,
                p_sequential,
                ..
            } => {
                if rng.chance(*p_sequential) {
                    0
                } else {
                    rng.uniform_between(*min, *max)
                }
            }
            _ => self.time(d),
        }
    }
}

/// Linear interpolation in a table of (distance, ms) with increasing distances.
fn interpolate(points: &[(u32, f64)], d: u32) -> f64 {
    let i = points.partition_point(|&(x, _)| x < d);
    let line = |(x0, y0): (u32, f64), (x1, y1): (u32, f64)| {
        y0 + (y1 - y0) * (f64::from(d) - f64::from(x0)) / (f64::from(x1) - f64::from(x0))
    };
    if i == 0 {
        points[0].1
    } else if i < points.len() {
        line(points[i - 1], points[i])
    } else if points.len() >= 2 {
        let last = points[points.len() - 1];
        line(points[points.len() - 2], last).max(last.1)
    } else {
        points[0].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqrt_linear(a: f64, b: f64, c: f64, long: Option<(u32, f64, f64)>) -> Seek {
        Seek::new(&SeekSpec::SqrtLinear {
            a_ms: a,
            b_ms: b,
            c_ms: c,
            long: long.map(|(from, a_ms, b_ms)| LongSeek { from, a_ms, b_ms }),
        })
        .unwrap()
    }

    #[test]
    fn hp97560_two_piece_curve() {
        // Ruemmler & Wilkes 1994: 3.24 + 0.400·√d ms for d < 383, 8.00 + 0.008·d beyond.
        let s = sqrt_linear(3.24, 0.4, 0.0, Some((383, 8.0, 0.008)));
        assert_eq!(s.time(0), 0);
        assert_eq!(s.time(1), 3_640_000);
        assert_eq!(s.time(10), 4_504_911); // 3.24 + 0.4·3.1622777 = 4.5049111
        assert_eq!(s.time(382), 11_057_928); // 3.24 + 0.4·19.5448203 = 11.0579281
        assert_eq!(s.time(383), 11_064_000); // 8 + 3.064
        assert_eq!(s.time(1961), 23_688_000); // 8 + 15.688: the full stroke
    }

    #[test]
    fn hp7935_and_hp7937_curves_on_both_sides_of_the_boundary() {
        // Lo, Ivy §4.2.1, printed coefficients.
        let hp7935 = sqrt_linear(3.993, 1.676, -0.025, Some((343, 19.502, 0.21)));
        assert_eq!(hp7935.time(0), 0);
        assert_eq!(hp7935.time(1), 5_644_000); // 3.993 + 1.676 − 0.025
        assert_eq!(hp7935.time(342), 26_437_674); // 3.993 + 1.676·18.4932420 − 8.55
        assert_eq!(hp7935.time(343), 91_532_000); // 19.502 + 72.03
        assert_eq!(hp7935.time(1320), 296_702_000); // 19.502 + 277.2
        let hp7937 = sqrt_linear(4.119, 0.890, -0.004, Some((385, 12.909, 0.18)));
        assert_eq!(hp7937.time(1), 5_005_000); // 4.119 + 0.890 − 0.004
        assert_eq!(hp7937.time(384), 20_023_367); // 4.119 + 0.890·19.5959179 − 1.536
        assert_eq!(hp7937.time(385), 82_209_000); // 12.909 + 69.3
    }

    #[test]
    fn chen_towsley_curve() {
        // Chen & Towsley eq. (1): 8 + 0.5·√i ms for i > 0, 0 for i = 0.
        let s = sqrt_linear(8.0, 0.5, 0.0, None);
        assert_eq!(s.time(0), 0);
        assert_eq!(s.time(1), 8_500_000);
        assert_eq!(s.time(100), 13_000_000);
        assert_eq!(s.time(999), 23_803_481); // 8 + 0.5·31.6069613
    }

    #[test]
    fn table_interpolates_linearly_and_extends_its_ends() {
        let s = Seek::new(&SeekSpec::Table {
            points: vec![(1, 2.0), (11, 4.0), (111, 9.0)],
        })
        .unwrap();
        assert_eq!(s.time(0), 0);
        assert_eq!(s.time(1), 2_000_000);
        assert_eq!(s.time(6), 3_000_000);
        assert_eq!(s.time(11), 4_000_000);
        assert_eq!(s.time(31), 5_000_000);
        assert_eq!(s.time(211), 14_000_000); // the last segment's slope, 0.05 ms/cylinder
        let flat = Seek::new(&SeekSpec::Table {
            points: vec![(5, 3.0)],
        })
        .unwrap();
        assert_eq!(
            (flat.time(0), flat.time(1), flat.time(500)),
            (0, 3_000_000, 3_000_000)
        );
    }

    #[test]
    fn bad_tables_and_probabilities_are_refused() {
        let err = Seek::new(&SeekSpec::Table {
            points: vec![(1, 2.0), (1, 3.0)],
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`seek.points[1]` = [1, 3]: distances strictly increasing"
        );
        let err = Seek::new(&SeekSpec::Table {
            points: vec![(1, -2.0)],
        })
        .unwrap_err();
        assert!(
            err.to_string().starts_with("`seek.points[0]` = -2"),
            "{err}"
        );
        let err = Seek::new(&SeekSpec::Random {
            min_ms: 0.0,
            max_ms: 60.0,
            sequential_probability: 1.5,
            per_request: false,
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`seek.sequential_probability` = 1.5: a probability in [0, 1]"
        );
        let err = Seek::new(&SeekSpec::SqrtLinear {
            a_ms: f64::NAN,
            b_ms: 0.0,
            c_ms: 0.0,
            long: None,
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "`seek.a_ms` = NaN: a finite number");
    }

    #[test]
    fn random_seek_has_mass_p_s_at_zero_and_the_uniform_mean_otherwise() {
        // Towsley, Chen & Yu §4: seek uniform with mean 30 ms, U = 0 with p_s = 0.6.
        let s = Seek::new(&SeekSpec::Random {
            min_ms: 0.0,
            max_ms: 60.0,
            sequential_probability: 0.6,
            per_request: false,
        })
        .unwrap();
        assert_eq!(s.time(0), 12_000_000);
        assert_eq!(s.time(500), 12_000_000);
        let mut rng = Stream::numbered(703);
        let n = 100_000;
        let draws: Vec<Nanos> = (0..n).map(|i| s.draw(i % 800, &mut rng)).collect();
        let zeros = draws.iter().filter(|&&x| x == 0).count() as f64 / n as f64;
        assert!((zeros - 0.6).abs() < 0.01, "{zeros}");
        let seeks: Vec<f64> = draws
            .iter()
            .filter(|&&x| x > 0)
            .map(|&x| x as f64)
            .collect();
        let mean = seeks.iter().sum::<f64>() / seeks.len() as f64;
        assert!((mean / 30e6 - 1.0).abs() < 0.01, "{mean}");
        assert!(seeks.iter().all(|&x| x <= 60e6));
    }
}
