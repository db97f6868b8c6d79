//! Axes: their range, linear or logarithmic, and ticks whose labels carry
//! no needless decimals.

/// An axis: the values it spans and its ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The value at the axis's start (left or bottom).
    pub lo: f64,
    /// The value at its end.
    pub hi: f64,
    /// Logarithmic: equal ratios take equal lengths.
    pub log: bool,
    /// Every value the axis shows is a whole number, so are its ticks.
    pub integral: bool,
    /// Ticks in increasing order: labelled ones with a mark and a grid
    /// line, unlabelled ones (a log axis's 3, 4, 6…) with a light grid line.
    pub ticks: Vec<Tick>,
}

/// A tick of an [`Axis`].
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Where it is.
    pub value: f64,
    /// Its label; `None` for a minor tick.
    pub label: Option<String>,
}

impl Axis {
    /// Where `v` is along the axis, from 0 at `lo` to 1 at `hi`; a value a
    /// log axis cannot show (zero or below) is `None`.
    pub fn fraction(&self, v: f64) -> Option<f64> {
        if self.log {
            (v > 0.0).then(|| (v / self.lo).ln() / (self.hi / self.lo).ln())
        } else {
            Some((v - self.lo) / (self.hi - self.lo))
        }
    }

    /// The labelled ticks.
    pub fn labels(&self) -> impl Iterator<Item = (f64, &str)> {
        self.ticks
            .iter()
            .filter_map(|t| t.label.as_deref().map(|l| (t.value, l)))
    }

    /// A linear axis over `lo..hi` with ticks every 1, 2, 2.5 or 5 times a
    /// power of ten, at most `intervals` of them across the axis; whole
    /// steps (1, 2, 5, 10…) when the axis is `integral`.
    pub(crate) fn linear(lo: f64, hi: f64, integral: bool, intervals: usize) -> Axis {
        let (lo, hi) = widen(lo, hi, false);
        let raw = (hi - lo) / intervals.max(1) as f64;
        let decade = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * decade)
            .filter(|s| !integral || (*s >= 1.0 && s.fract() == 0.0))
            .find(|s| *s >= raw * (1.0 - 1e-9))
            .unwrap_or(10.0 * decade)
            .max(if integral { 1.0 } else { 0.0 });
        let first = (lo / step - 1e-9).ceil() as i64;
        let last = (hi / step + 1e-9).floor() as i64;
        let ticks = (first..=last)
            .map(|i| {
                let value = i as f64 * step;
                Tick {
                    value,
                    label: Some(linear_label(value, step)),
                }
            })
            .collect();
        Axis {
            lo,
            hi,
            log: false,
            integral,
            ticks,
        }
    }

    /// A logarithmic axis over `lo..hi` (both positive): decades labelled,
    /// and 2 and 5 times them where that leaves fewer than three labels,
    /// every step of a decade where that still does; the other steps are
    /// minor ticks.
    ///
    /// A range too narrow to hold two of those steps (21..26) is labelled
    /// as a linear axis would be (21, 22, … 26), at logarithmic places.
    pub(crate) fn logarithmic(lo: f64, hi: f64) -> Axis {
        let (lo, hi) = widen(lo, hi, true);
        let values: Vec<(u32, f64)> = ((lo.log10().floor() as i32)..=(hi.log10().ceil() as i32))
            .flat_map(|d| (1..=9).map(move |m| (m, f64::from(m) * 10f64.powi(d))))
            .filter(|&(_, v)| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9))
            .collect();
        if values.len() < 2 {
            return Axis {
                log: true,
                ..Axis::linear(lo, hi, false, 6)
            };
        }
        const EVERY_STEP: &[u32] = &[1, 2, 3, 4, 5, 6, 7, 8, 9];
        let labelled: &[u32] = [&[1][..], &[1, 2, 5]]
            .into_iter()
            .find(|steps| values.iter().filter(|(m, _)| steps.contains(m)).count() >= 3)
            .unwrap_or(EVERY_STEP);
        let ticks = values
            .into_iter()
            .map(|(m, value)| Tick {
                value,
                label: labelled.contains(&m).then(|| log_label(value)),
            })
            .collect();
        Axis {
            lo,
            hi,
            log: true,
            integral: false,
            ticks,
        }
    }
}

/// `lo..hi` made a range an axis can span: a single value gets room on
/// both sides.
fn widen(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    if hi > lo {
        (lo, hi)
    } else if log {
        (lo / 2.0, lo * 2.0)
    } else if lo == 0.0 {
        (0.0, 1.0)
    } else {
        let room = lo.abs() * 0.1;
        (lo - room, lo + room)
    }
}

/// A linear tick's label: as many decimals as the step needs, none
/// needless ("1000000", "4", "0.25").
fn linear_label(value: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize + 1;
    trimmed(&format!("{value:.decimals$}"))
}

/// A log tick's label: "100", "0.05", "1e-6".
fn log_label(value: f64) -> String {
    if value >= 1e-4 {
        let decimals = (-value.log10().floor()).max(0.0) as usize;
        trimmed(&format!("{value:.decimals$}"))
    } else {
        let exponent = value.log10().floor() as i32;
        let lead = (value / 10f64.powi(exponent)).round();
        format!("{lead}e{exponent}")
    }
}

fn trimmed(text: &str) -> String {
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    };
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(a: &Axis) -> Vec<&str> {
        a.labels().map(|(_, l)| l).collect()
    }

    #[test]
    fn linear_ticks_carry_no_needless_decimals() {
        let a = Axis::linear(0.0, 1_000_000.0, false, 5);
        assert_eq!(
            labels(&a),
            ["0", "200000", "400000", "600000", "800000", "1000000"]
        );
        let a = Axis::linear(0.0, 1.0, false, 4);
        assert_eq!(labels(&a), ["0", "0.25", "0.5", "0.75", "1"]);
        let a = Axis::linear(0.0, 0.3, false, 6);
        assert_eq!(
            labels(&a),
            ["0", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3"]
        );
    }

    #[test]
    fn integral_axes_have_whole_ticks() {
        let a = Axis::linear(3.5, 20.5, true, 10);
        assert_eq!(
            labels(&a),
            ["4", "6", "8", "10", "12", "14", "16", "18", "20"]
        );
        // Two users apart at most, never 2.5 or 0.5.
        let a = Axis::linear(0.7, 3.3, true, 8);
        assert_eq!(labels(&a), ["1", "2", "3"]);
        let a = Axis::linear(-1.7, 93.7, true, 4);
        assert_eq!(labels(&a), ["0", "25", "50", "75"]);
    }

    #[test]
    fn log_axes_label_decades_and_fill_short_ranges() {
        let a = Axis::logarithmic(3.0, 4000.0);
        assert_eq!(labels(&a), ["10", "100", "1000"]);
        assert!(a.ticks.iter().any(|t| t.label.is_none() && t.value == 20.0));
        let a = Axis::logarithmic(0.9, 60.0);
        assert_eq!(labels(&a), ["1", "2", "5", "10", "20", "50"]);
        let a = Axis::logarithmic(30.0, 3500.0);
        assert_eq!(labels(&a), ["50", "100", "200", "500", "1000", "2000"]);
        let a = Axis::logarithmic(21.0, 26.5);
        assert_eq!(labels(&a), ["21", "22", "23", "24", "25", "26"]);
        assert!(a.log && (a.lo, a.hi) == (21.0, 26.5));
        let a = Axis::logarithmic(15.0, 60.0);
        assert_eq!(labels(&a), ["20", "30", "40", "50", "60"]);
        let a = Axis::logarithmic(2e-6, 0.02);
        assert_eq!(labels(&a), ["1e-5", "0.0001", "0.001", "0.01"]);
        assert_eq!(a.fraction(0.0), None);
        assert!((a.fraction(a.hi).unwrap() - 1.0).abs() < 1e-12);
    }
}
