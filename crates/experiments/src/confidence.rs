//! Confidence intervals over independent replications: Student-t and normal
//! quantiles, intervals, and a table of metrics per replication.

use core::f64::consts::PI;

use serde::Serialize;

use disk_emu::Moments;

/// What can go wrong when summarising replications.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A confidence level must lie strictly between 0 and 1 (0.95 for 95 %).
    #[error("confidence level {0} is not strictly between 0 and 1")]
    InvalidLevel(f64),
    /// An interval needs at least one value.
    #[error("no values to summarise")]
    Empty,
    /// A NaN or infinite value was offered (the `index`-th one).
    #[error("value {index} is not finite ({value})")]
    NonFinite {
        /// Position of the value in the slice.
        index: usize,
        /// The value.
        value: f64,
    },
    /// A metric was given a NaN or infinite value.
    #[error("metric `{metric}`, replication {replication}: value is not finite ({value})")]
    NonFiniteMetric {
        /// Name of the metric.
        metric: String,
        /// Replication number.
        replication: u64,
        /// The value.
        value: f64,
    },
    /// A metric was recorded twice for the same replication.
    #[error("metric `{metric}`, replication {replication}: recorded twice")]
    Duplicate {
        /// Name of the metric.
        metric: String,
        /// Replication number.
        replication: u64,
    },
    /// No metric of that name was recorded.
    #[error("no metric named `{0}`")]
    UnknownMetric(String),
}

/// Degrees of freedom up to which the t distribution is inverted through its
/// exact closed form (a sum of df/2 terms); above, the Cornish–Fisher
/// expansion is accurate to better than 10⁻¹².
const SERIES_MAX_DF: u64 = 1000;

/// P(Z > z) for a standard normal Z and z ≥ 0.
fn normal_upper_tail(z: f64) -> f64 {
    let density = (-0.5 * z * z).exp() / (2.0 * PI).sqrt();
    if z < 3.0 {
        // Φ(z) − ½ = φ(z) · Σₙ z²ⁿ⁺¹ / (1·3·5···(2n+1)). All terms are
        // positive, and below 3 the tail is above 10⁻³, so the final
        // subtraction loses at most three digits.
        let mut term = z;
        let mut sum = z;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= z * z / (2.0 * n + 1.0);
            sum += term;
        }
        0.5 - density * sum
    } else {
        // Laplace's continued fraction for Mills' ratio,
        // Q(z)/φ(z) = 1/(z + 1/(z + 2/(z + 3/(z + …)))), evaluated from a
        // fixed depth inwards; from z = 3 on, 200 levels reach full precision.
        let mut d = z;
        for k in (1..=200).rev() {
            d = z + k as f64 / d;
        }
        density / d
    }
}

/// P(T > t) for Student's t with `df` ≥ 1 degrees of freedom and t ≥ 0, from
/// the finite closed forms for integer df (Abramowitz & Stegun 26.7.3–4),
/// written with θ = atan(t/√df): sin θ = t/√(df + t²), cos² θ = df/(df + t²).
fn t_upper_tail(t: f64, df: u64) -> f64 {
    let nu = df as f64;
    let r = nu + t * t;
    let cos2 = nu / r;
    let sin = t / r.sqrt();
    // A = P(|T| ≤ t).
    let a = if df.is_multiple_of(2) {
        // A = sin θ · Σ_{k < df/2} cos²ᵏθ · (1·3···(2k−1)) / (2·4···2k).
        let (mut term, mut sum) = (1.0, 1.0);
        for k in 1..df / 2 {
            let k = k as f64;
            term *= cos2 * (2.0 * k - 1.0) / (2.0 * k);
            sum += term;
        }
        sin * sum
    } else {
        // A = (2/π)·(θ + sin θ cos θ · Σ_{k ≤ (df−3)/2} cos²ᵏθ · (2·4···2k) / (3·5···(2k+1))),
        // the sum being absent for df = 1 (the Cauchy distribution).
        let theta = (t / nu.sqrt()).atan();
        let inner = if df == 1 {
            0.0
        } else {
            let (mut term, mut sum) = (1.0, 1.0);
            for k in 1..(df - 1) / 2 {
                let k = k as f64;
                term *= cos2 * (2.0 * k) / (2.0 * k + 1.0);
                sum += term;
            }
            sin * cos2.sqrt() * sum
        };
        2.0 / PI * (theta + inner)
    };
    0.5 * (1.0 - a)
}

/// The x ≥ 0 at which a decreasing upper-tail function equals `target`
/// (0 < target < ½), by bracketing and bisection to the last bit: slow by
/// numerical standards (a few hundred evaluations) but exact and simple, and
/// it runs once per table row.
fn invert_upper_tail(tail: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while tail(hi) > target {
        lo = hi;
        hi *= 2.0;
        if hi.is_infinite() {
            return hi;
        }
    }
    loop {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            return hi;
        }
        if tail(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
}

/// The `p`-quantile of the standard normal distribution (the t distribution
/// with infinitely many degrees of freedom), or `None` unless 0 < p < 1.
pub fn normal_quantile(p: f64) -> Option<f64> {
    symmetric_quantile(p, |tail| invert_upper_tail(normal_upper_tail, tail))
}

/// The `p`-quantile of Student's t distribution with `df` degrees of freedom,
/// or `None` unless 0 < p < 1 and df ≥ 1. `student_t_quantile(0.975, n − 1)`
/// is the factor of a two-sided 95 % interval from n replications.
///
/// Exact closed forms for df = 1 and 2; for df ≤ 1000, inversion of the exact
/// distribution function to full double precision; above, the Cornish–Fisher
/// expansion in 1/df (Abramowitz & Stegun 26.7.5).
pub fn student_t_quantile(p: f64, df: u64) -> Option<f64> {
    if df == 0 {
        return None;
    }
    symmetric_quantile(p, |tail| match df {
        1 => 1.0 / (PI * tail).tan(),
        2 => (1.0 - 2.0 * tail) / (2.0 * tail * (1.0 - tail)).sqrt(),
        3..=SERIES_MAX_DF => invert_upper_tail(|t| t_upper_tail(t, df), tail),
        _ => cornish_fisher(invert_upper_tail(normal_upper_tail, tail), df as f64),
    })
}

/// The t quantile whose normal quantile is `z`, to fourth order in 1/ν.
fn cornish_fisher(z: f64, nu: f64) -> f64 {
    let z2 = z * z;
    let g1 = z * (z2 + 1.0) / 4.0;
    let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    z + (g1 + (g2 + (g3 + g4 / nu) / nu) / nu) / nu
}

/// Solves for the upper quantile of a symmetric distribution: `upper(tail)`
/// gives the x > 0 with P(X > x) = tail < ½; the lower half follows by
/// symmetry, which keeps full relative precision in both tails.
fn symmetric_quantile(p: f64, upper: impl Fn(f64) -> f64) -> Option<f64> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    Some(match p {
        0.5 => 0.0,
        // 1 − p is exact for p ≥ ½ (Sterbenz), so nothing is lost here.
        _ if p > 0.5 => upper(1.0 - p),
        _ => -upper(p),
    })
}

/// A two-sided Student-t confidence interval for a mean: the true mean lies
/// in `mean ± half_width` with probability `level`, if the values are
/// independent and roughly normal (means of long replications are).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// Sample mean.
    pub mean: f64,
    /// Half-width; `None` from a single value, which says nothing about spread.
    pub half_width: Option<f64>,
    /// Number of values.
    pub n: u64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
}

impl Interval {
    /// The interval from independent values (one per replication).
    pub fn from_values(values: &[f64], level: f64) -> Result<Interval, StatsError> {
        let mut m = Moments::new();
        for (index, &value) in values.iter().enumerate() {
            if !value.is_finite() {
                return Err(StatsError::NonFinite { index, value });
            }
            m.add(value);
        }
        Interval::from_moments(&m, level)
    }

    /// The interval from the moments of independent values.
    pub fn from_moments(m: &Moments, level: f64) -> Result<Interval, StatsError> {
        if !(level > 0.0 && level < 1.0) {
            return Err(StatsError::InvalidLevel(level));
        }
        let mean = m.mean().ok_or(StatsError::Empty)?;
        let n = m.count();
        let half_width = m.std_dev().and_then(|s| {
            let t = student_t_quantile(0.5 + level / 2.0, n - 1)?;
            Some(t * s / (n as f64).sqrt())
        });
        Ok(Interval {
            mean,
            half_width,
            n,
            level,
        })
    }

    /// Lower end.
    pub fn lower(&self) -> Option<f64> {
        self.half_width.map(|h| self.mean - h)
    }

    /// Upper end.
    pub fn upper(&self) -> Option<f64> {
        self.half_width.map(|h| self.mean + h)
    }

    /// Whether `x` lies in the closed interval; false when there is no
    /// half-width to judge by.
    pub fn contains(&self, x: f64) -> bool {
        self.half_width.is_some_and(|h| (x - self.mean).abs() <= h)
    }

    /// Half-width over |mean|: the usual stopping rule for replications
    /// ("until the 95 % interval is within 5 % of the mean"). `None` without a
    /// half-width or for a zero mean.
    pub fn relative_half_width(&self) -> Option<f64> {
        self.half_width
            .filter(|_| self.mean != 0.0)
            .map(|h| h / self.mean.abs())
    }
}

/// One metric summarised over replications: a row of a results table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricRow {
    /// Metric name, as recorded.
    pub name: String,
    /// Mean over replications.
    pub mean: f64,
    /// Half-width of the confidence interval (`None` from one replication).
    pub half_width: Option<f64>,
    /// Number of replications that reported the metric.
    pub n: u64,
    /// Half-width over |mean|.
    pub relative_half_width: Option<f64>,
    /// Confidence level.
    pub level: f64,
}

impl MetricRow {
    /// Whether `x` lies in the interval `mean ± half_width`.
    pub fn contains(&self, x: f64) -> bool {
        self.half_width.is_some_and(|h| (x - self.mean).abs() <= h)
    }
}

/// Named metrics per replication, summarised into confidence intervals.
///
/// Values are kept per replication number and always aggregated in
/// replication order, so the table gives the same bits however many threads
/// ran the replications and in whatever order they finished. Rows come out
/// in the order metrics were first recorded. Memory grows with replications ×
/// metrics (tens × tens), never with requests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricTable {
    /// (name, (replication, value) sorted by replication).
    metrics: Vec<(String, Vec<(u64, f64)>)>,
}

impl MetricTable {
    /// An empty table.
    pub fn new() -> Self {
        MetricTable::default()
    }

    /// Records `value` of metric `name` in replication `replication`.
    pub fn record(&mut self, replication: u64, name: &str, value: f64) -> Result<(), StatsError> {
        if !value.is_finite() {
            return Err(StatsError::NonFiniteMetric {
                metric: name.to_string(),
                replication,
                value,
            });
        }
        let values = match self.metrics.iter().position(|(n, _)| n == name) {
            Some(i) => &mut self.metrics[i].1,
            None => {
                self.metrics.push((name.to_string(), Vec::new()));
                &mut self.metrics.last_mut().expect("just pushed").1
            }
        };
        match values.binary_search_by_key(&replication, |&(r, _)| r) {
            Ok(_) => Err(StatsError::Duplicate {
                metric: name.to_string(),
                replication,
            }),
            Err(at) => {
                values.insert(at, (replication, value));
                Ok(())
            }
        }
    }

    /// Records every value of `other` (the table of another worker thread).
    pub fn merge(&mut self, other: &MetricTable) -> Result<(), StatsError> {
        for (name, values) in &other.metrics {
            for &(replication, value) in values {
                self.record(replication, name, value)?;
            }
        }
        Ok(())
    }

    /// Metric names in first-recorded order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.metrics.iter().map(|(n, _)| n.as_str())
    }

    /// (replication, value) pairs of a metric, in replication order.
    pub fn values(&self, name: &str) -> Option<&[(u64, f64)]> {
        self.metrics
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// The confidence interval of one metric.
    pub fn interval(&self, name: &str, level: f64) -> Result<Interval, StatsError> {
        let values = self
            .values(name)
            .ok_or_else(|| StatsError::UnknownMetric(name.to_string()))?;
        let mut m = Moments::new();
        values.iter().for_each(|&(_, v)| m.add(v));
        Interval::from_moments(&m, level)
    }

    /// One row per metric, at confidence `level`.
    pub fn rows(&self, level: f64) -> Result<Vec<MetricRow>, StatsError> {
        self.names()
            .map(|name| {
                let i = self.interval(name, level)?;
                Ok(MetricRow {
                    name: name.to_string(),
                    mean: i.mean,
                    half_width: i.half_width,
                    n: i.n,
                    relative_half_width: i.relative_half_width(),
                    level,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round3(x: f64) -> f64 {
        (x * 1000.0).round() / 1000.0
    }

    #[test]
    fn t_quantiles_match_the_tables_to_three_decimals() {
        for (df, want) in [
            (1, 12.706),
            (2, 4.303),
            (3, 3.182),
            (4, 2.776),
            (5, 2.571),
            (9, 2.262),
            (10, 2.228),
            (19, 2.093),
            (20, 2.086),
            (29, 2.045),
            (30, 2.042),
            (60, 2.000),
            (120, 1.980),
        ] {
            assert_eq!(
                round3(student_t_quantile(0.975, df).unwrap()),
                want,
                "df {df}"
            );
        }
        assert_eq!(round3(normal_quantile(0.975).unwrap()), 1.960);
        assert_eq!(
            round3(student_t_quantile(0.975, 1_000_000_000).unwrap()),
            1.960
        );
        // Other levels and the lower half.
        assert_eq!(round3(student_t_quantile(0.95, 10).unwrap()), 1.812);
        assert_eq!(round3(student_t_quantile(0.995, 5).unwrap()), 4.032);
        assert_eq!(round3(student_t_quantile(0.9995, 3).unwrap()), 12.924);
        assert_eq!(round3(student_t_quantile(0.025, 9).unwrap()), -2.262);
        assert_eq!(student_t_quantile(0.5, 7), Some(0.0));
    }

    #[test]
    fn quantiles_are_accurate_beyond_three_decimals() {
        // Reference values to 10⁻⁹ (from the regularised incomplete beta function, evaluated with mpmath at 30 digits).
        let cases = [
            (student_t_quantile(0.975, 1).unwrap(), 12.706_204_736),
            (student_t_quantile(0.975, 2).unwrap(), 4.302_652_730),
            (student_t_quantile(0.975, 5).unwrap(), 2.570_581_836),
            (student_t_quantile(0.975, 9).unwrap(), 2.262_157_163),
            (student_t_quantile(0.975, 29).unwrap(), 2.045_229_642),
            (student_t_quantile(0.975, 1000).unwrap(), 1.962_339_081),
            (normal_quantile(0.975).unwrap(), 1.959_963_985),
            (normal_quantile(0.999_999).unwrap(), 4.753_424_309),
            (normal_quantile(0.9).unwrap(), 1.281_551_566),
        ];
        for (got, want) in cases {
            assert!((got - want).abs() < 2e-9, "{got} vs {want}");
        }
        // The two methods agree where they meet.
        let series = invert_upper_tail(|t| t_upper_tail(t, 1000), 0.025);
        let expansion = cornish_fisher(normal_quantile(0.975).unwrap(), 1000.0);
        assert!((series - expansion).abs() < 1e-12, "{series} {expansion}");
        // And the closed forms agree with the series.
        for df in [1, 2] {
            let series = invert_upper_tail(|t| t_upper_tail(t, df), 0.025);
            assert!((series - student_t_quantile(0.975, df).unwrap()).abs() < 1e-12);
        }
    }

    #[test]
    fn invalid_quantile_requests() {
        assert_eq!(student_t_quantile(0.975, 0), None);
        assert_eq!(student_t_quantile(0.0, 5), None);
        assert_eq!(student_t_quantile(1.0, 5), None);
        assert_eq!(normal_quantile(f64::NAN), None);
    }

    #[test]
    fn interval_of_a_known_sample() {
        // 1..5: mean 3, s = √2.5, t(0.975, 4) = 2.776445105,
        // half-width = 2.776445105 · 1.581138830 / √5 = 1.963243161.
        let i = Interval::from_values(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95).unwrap();
        assert_eq!(i.mean, 3.0);
        assert_eq!(i.n, 5);
        let h = i.half_width.unwrap();
        assert!((h - 1.963_243_161).abs() < 1e-8, "{h}");
        assert!(i.contains(4.9) && i.contains(1.1) && !i.contains(5.0));
        assert!((i.relative_half_width().unwrap() - h / 3.0).abs() < 1e-15);
        assert_eq!(i.lower(), Some(3.0 - h));
        // 90 %: t(0.95, 4) = 2.131846786.
        let i = Interval::from_values(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.90).unwrap();
        assert!((i.half_width.unwrap() - 2.131_846_786 * 2.5f64.sqrt() / 5f64.sqrt()).abs() < 1e-8);
    }

    #[test]
    fn interval_edge_cases() {
        let one = Interval::from_values(&[7.0], 0.95).unwrap();
        assert_eq!((one.mean, one.half_width, one.n), (7.0, None, 1));
        assert!(!one.contains(7.0));
        assert_eq!(Interval::from_values(&[], 0.95), Err(StatsError::Empty));
        assert_eq!(
            Interval::from_values(&[1.0, 2.0], 1.0),
            Err(StatsError::InvalidLevel(1.0))
        );
        assert!(matches!(
            Interval::from_values(&[1.0, f64::NAN], 0.95),
            Err(StatsError::NonFinite { index: 1, .. })
        ));
        let flat = Interval::from_values(&[0.0, 0.0, 0.0], 0.95).unwrap();
        assert_eq!(flat.half_width, Some(0.0));
        assert_eq!(flat.relative_half_width(), None);
    }

    #[test]
    fn metric_table_aggregates_in_replication_order() {
        // Replications arrive out of order, as from parallel workers.
        let mut a = MetricTable::new();
        let mut b = MetricTable::new();
        for (rep, resp, util) in [(2, 12.0, 0.5), (0, 10.0, 0.4), (3, 13.0, 0.55)] {
            a.record(rep, "response_ms", resp).unwrap();
            a.record(rep, "utilisation", util).unwrap();
        }
        b.record(1, "response_ms", 11.0).unwrap();
        b.record(1, "utilisation", 0.45).unwrap();
        a.merge(&b).unwrap();
        let rows = a.rows(0.95).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].name, "response_ms");
        assert_eq!(rows[0].mean, 11.5);
        assert_eq!(rows[0].n, 4);
        // s = √(5/3), t(0.975, 3) = 3.182446305: h = 3.182446305 · 1.290994449 / 2.
        let h = rows[0].half_width.unwrap();
        assert!((h - 2.054_260_257).abs() < 1e-8, "{h}");
        assert!((rows[0].relative_half_width.unwrap() - h / 11.5).abs() < 1e-15);
        assert!(rows[0].contains(10.0) && !rows[0].contains(14.0));
        assert_eq!(rows[1].name, "utilisation");
        assert_eq!(
            a.values("response_ms").unwrap(),
            &[(0, 10.0), (1, 11.0), (2, 12.0), (3, 13.0)]
        );
        // Same rows, same bits, whatever order the values came in.
        let mut c = MetricTable::new();
        for rep in 0..4 {
            c.record(rep, "response_ms", 10.0 + rep as f64).unwrap();
        }
        assert_eq!(
            c.interval("response_ms", 0.95)
                .unwrap()
                .half_width
                .unwrap()
                .to_bits(),
            h.to_bits()
        );
        let json = serde_json::to_string(&rows[0]).unwrap();
        assert!(
            json.starts_with(r#"{"name":"response_ms","mean":11.5,"half_width":2.05426"#),
            "{json}"
        );
    }

    #[test]
    fn metric_table_rejects_bad_input() {
        let mut t = MetricTable::new();
        t.record(0, "x", 1.0).unwrap();
        assert_eq!(
            t.record(0, "x", 2.0),
            Err(StatsError::Duplicate {
                metric: "x".into(),
                replication: 0
            })
        );
        assert!(matches!(
            t.record(1, "x", f64::INFINITY),
            Err(StatsError::NonFiniteMetric { replication: 1, .. })
        ));
        assert_eq!(
            t.interval("y", 0.95),
            Err(StatsError::UnknownMetric("y".into()))
        );
        assert_eq!(t.rows(0.95).unwrap()[0].half_width, None);
        assert_eq!(
            StatsError::Duplicate {
                metric: "x".into(),
                replication: 0
            }
            .to_string(),
            "metric `x`, replication 0: recorded twice"
        );
    }
}
