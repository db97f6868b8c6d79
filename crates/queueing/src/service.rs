//! Disk service-time distributions and the moments of one service, of the
//! longer of two (an update on two disks) and of the shorter of two (an
//! MR-ESQ read), by numerical integration of the survival functions.

use serde::Serialize;

use crate::error::{AnalysisError, non_negative, positive, probability};
use crate::integrate::integrate;

/// Absolute tolerance, in units of the mean service time (raised to the
/// moment's power), of every integrated moment. Between breakpoints the
/// integrands of the piecewise-polynomial distributions are polynomials of
/// degree ≤ 5, which one Gauss–Kronrod panel integrates exactly, so the
/// real error is rounding; for the exponential the neglected tail is below
/// this too.
pub const MOMENT_TOLERANCE: f64 = 1e-12;

/// The time one disk takes to serve one request, in seconds; the two disks'
/// services are independent and identically distributed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ServiceTime {
    /// Exponential with rate `rate` per second (§3's assumption).
    Exponential {
        /// μ, per second.
        rate: f64,
    },
    /// §4's disk: `U·X_S + X_L + X_T` with `Pr(U = 0) = p_s`, the seek X_S
    /// uniform on [`seek_min`, `seek_max`], the latency X_L uniform on
    /// [0, `latency_max`] and a constant transfer X_T (all in seconds).
    SeekLatencyTransfer {
        /// p_s, the probability of no seek.
        sequential_probability: f64,
        /// Shortest seek, s.
        seek_min: f64,
        /// Longest seek, s.
        seek_max: f64,
        /// Longest rotational latency, s.
        latency_max: f64,
        /// Transfer time, s.
        transfer: f64,
    },
}

/// Mean and second moment of a service time, seconds and seconds².
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Moments {
    /// E(X), s.
    pub mean: f64,
    /// E(X²), s².
    pub second: f64,
}

/// Which service a request gets from the two disks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// One disk's service (a read on one disk).
    Single,
    /// The longer of two independent services (an update on both disks).
    Max,
    /// The shorter of two (a read on both disks, the slower one aborted).
    Min,
}

impl ServiceTime {
    /// The paper's IBM 3330-11 (§4): seek uniform on [0, 60] ms (mean 30 ms),
    /// latency uniform on [0, 16] ms (mean 8 ms), transfer 2 ms — the
    /// `ibm3330` disk preset of the emulator.
    pub fn ibm3330(sequential_probability: f64) -> ServiceTime {
        ServiceTime::SeekLatencyTransfer {
            sequential_probability,
            seek_min: 0.0,
            seek_max: 0.060,
            latency_max: 0.016,
            transfer: 0.002,
        }
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// [`AnalysisError::InvalidParameter`] naming the bad field.
    pub fn validate(&self) -> Result<(), AnalysisError> {
        match *self {
            ServiceTime::Exponential { rate } => {
                positive("service rate μ", rate)?;
            }
            ServiceTime::SeekLatencyTransfer {
                sequential_probability,
                seek_min,
                seek_max,
                latency_max,
                transfer,
            } => {
                probability("sequential probability p_s", sequential_probability)?;
                non_negative("seek_min", seek_min)?;
                non_negative("seek_max", seek_max)?;
                non_negative("latency_max", latency_max)?;
                non_negative("transfer", transfer)?;
                if seek_max < seek_min {
                    return Err(AnalysisError::InvalidParameter {
                        name: "seek_max",
                        value: seek_max,
                        expected: "at least seek_min",
                    });
                }
                if self.mean() <= 0.0 {
                    return Err(AnalysisError::InvalidParameter {
                        name: "mean service time",
                        value: 0.0,
                        expected: "positive (some seek, latency or transfer)",
                    });
                }
            }
        }
        Ok(())
    }

    /// E(X) of one service, in closed form.
    pub fn mean(&self) -> f64 {
        match *self {
            ServiceTime::Exponential { rate } => 1.0 / rate,
            ServiceTime::SeekLatencyTransfer {
                sequential_probability,
                seek_min,
                seek_max,
                latency_max,
                transfer,
            } => {
                (1.0 - sequential_probability) * 0.5 * (seek_min + seek_max)
                    + 0.5 * latency_max
                    + transfer
            }
        }
    }

    /// Pr(X ≤ x).
    pub fn cdf(&self, x: f64) -> f64 {
        match *self {
            ServiceTime::Exponential { rate } => {
                if x <= 0.0 {
                    0.0
                } else {
                    -(-rate * x).exp_m1()
                }
            }
            ServiceTime::SeekLatencyTransfer {
                sequential_probability,
                seek_min,
                seek_max,
                latency_max,
                transfer,
            } => {
                let y = x - transfer;
                let no_seek = uniform_sum_cdf(y, latency_max, 0.0);
                let seek = uniform_sum_cdf(y - seek_min, seek_max - seek_min, latency_max);
                sequential_probability * no_seek + (1.0 - sequential_probability) * seek
            }
        }
    }

    /// The points where the density has kinks, and the end of the
    /// integration range (the support's end, or for the exponential where the
    /// neglected tail of E(max²) falls below [`MOMENT_TOLERANCE`]·E(X)²).
    fn integration_points(&self) -> Vec<f64> {
        match *self {
            ServiceTime::Exponential { rate } => {
                // ∫_T^∞ 2x·(1 − F(x)²) dx ≤ 4(T/μ + 1/μ²)e^{−μT}; solve for a
                // tail below the tolerance by stepping T in units of 1/μ.
                let mut t: f64 = 1.0;
                while 4.0 * (t + 1.0) * (-t).exp() > MOMENT_TOLERANCE * 1e-3 {
                    t += 1.0;
                }
                let mut points: Vec<f64> = (0..=t as u32).map(|k| f64::from(k) / rate).collect();
                points.dedup();
                points
            }
            ServiceTime::SeekLatencyTransfer {
                seek_min,
                seek_max,
                latency_max,
                transfer,
                ..
            } => {
                let mut points = vec![
                    0.0,
                    transfer,
                    transfer + latency_max,
                    transfer + seek_min,
                    transfer + seek_min + latency_max,
                    transfer + seek_max,
                    transfer + seek_max + latency_max,
                ];
                points.sort_by(f64::total_cmp);
                points.dedup();
                points
            }
        }
    }

    /// E(X) and E(X²) of one service, of the longer or of the shorter of two
    /// independent services, to an absolute error below
    /// [`MOMENT_TOLERANCE`] times E(X) (E(X)² for the second moment).
    pub fn moments(&self, order: Order) -> Moments {
        let survival = |x: f64| {
            let f = self.cdf(x);
            match order {
                Order::Single => 1.0 - f,
                Order::Max => 1.0 - f * f,
                Order::Min => (1.0 - f) * (1.0 - f),
            }
        };
        let points = self.integration_points();
        let scale = self.mean();
        let mean = integrate(survival, &points, MOMENT_TOLERANCE * scale);
        let second = integrate(
            |x| 2.0 * x * survival(x),
            &points,
            MOMENT_TOLERANCE * scale * scale,
        );
        Moments {
            mean: mean.value,
            second: second.value,
        }
    }

    /// A short description, e.g. `μ = 45/s`.
    pub fn describe(&self) -> String {
        match *self {
            ServiceTime::Exponential { rate } => format!("exponential service, μ = {rate}/s"),
            ServiceTime::SeekLatencyTransfer {
                sequential_probability,
                seek_min,
                seek_max,
                latency_max,
                transfer,
            } => format!(
                "seek U[{}, {}] ms with p_s = {sequential_probability}, latency U[0, {}] ms, transfer {} ms",
                seek_min * 1e3,
                seek_max * 1e3,
                latency_max * 1e3,
                transfer * 1e3
            ),
        }
    }
}

/// Pr(A + B ≤ y) for independent A uniform on [0, `a`] and B uniform on
/// [0, `b`] (a width of 0 is a point mass at 0): the area of the part of the
/// rectangle under the line u + v = y, by inclusion–exclusion of its corners.
fn uniform_sum_cdf(y: f64, a: f64, b: f64) -> f64 {
    let (a, b) = if a < b { (b, a) } else { (a, b) };
    if y < 0.0 {
        return 0.0;
    }
    if a == 0.0 {
        return 1.0;
    }
    if b == 0.0 {
        return (y / a).min(1.0);
    }
    let q = |t: f64| if t > 0.0 { 0.5 * t * t } else { 0.0 };
    ((q(y) - q(y - a) - q(y - b) + q(y - a - b)) / (a * b)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_order_statistics_match_their_closed_forms() {
        let mu = 45.0;
        let s = ServiceTime::Exponential { rate: mu };
        let close = |got: f64, want: f64| (got / want - 1.0).abs() < 1e-9;
        let one = s.moments(Order::Single);
        assert!(close(one.mean, 1.0 / mu) && close(one.second, 2.0 / (mu * mu)));
        let max = s.moments(Order::Max);
        assert!(close(max.mean, 1.5 / mu) && close(max.second, 3.5 / (mu * mu)));
        let min = s.moments(Order::Min);
        assert!(close(min.mean, 0.5 / mu) && close(min.second, 0.5 / (mu * mu)));
    }

    #[test]
    fn seek_latency_transfer_moments_match_hand_integration() {
        // No seek: X = L + T with L uniform on [0, c]: E[X] = c/2 + T,
        // E[X²] = c²/3 + cT + T²; max of two: E[max L] = 2c/3, E[max L²] = c²/2.
        let (c, t) = (0.016, 0.002);
        let s = ServiceTime::SeekLatencyTransfer {
            sequential_probability: 1.0,
            seek_min: 0.0,
            seek_max: 0.06,
            latency_max: c,
            transfer: t,
        };
        let one = s.moments(Order::Single);
        assert!((one.mean - (c / 2.0 + t)).abs() < 1e-15);
        assert!((one.second - (c * c / 3.0 + c * t + t * t)).abs() < 1e-15);
        let max = s.moments(Order::Max);
        assert!((max.mean - (2.0 * c / 3.0 + t)).abs() < 1e-15);
        assert!((max.second - (c * c / 2.0 + 2.0 * t * 2.0 * c / 3.0 + t * t)).abs() < 1e-15);
        let min = s.moments(Order::Min);
        assert!((min.mean - (c / 3.0 + t)).abs() < 1e-15);
        // The IBM 3330 mean: (1 − p_s)·30 + 8 + 2 ms, integrated and closed form.
        let ibm = ServiceTime::ibm3330(0.6);
        assert!((ibm.moments(Order::Single).mean - ibm.mean()).abs() < 1e-15);
        assert!((ibm.mean() - 0.022).abs() < 1e-15);
        // Max exceeds the mean, min falls below it.
        assert!(ibm.moments(Order::Max).mean > 0.022 && ibm.moments(Order::Min).mean < 0.022);
    }

    #[test]
    fn seek_latency_transfer_second_moment_matches_independent_sum() {
        // E[X²] of U·S + L + T from independence: Var adds.
        let p_s = 0.3;
        let s = ServiceTime::ibm3330(p_s);
        let (es, es2) = (0.03, 0.06f64.powi(2) / 3.0);
        let (el, el2) = (0.008, 0.016f64.powi(2) / 3.0);
        let t = 0.002;
        let eu = 1.0 - p_s;
        let want = eu * es2 + el2 + t * t + 2.0 * (eu * es * el + eu * es * t + el * t);
        assert!((s.moments(Order::Single).second - want).abs() < 1e-15);
    }

    #[test]
    fn cdf_is_a_distribution() {
        let s = ServiceTime::ibm3330(0.6);
        assert_eq!(s.cdf(0.0), 0.0);
        assert_eq!(s.cdf(0.078), 1.0);
        let mut last = 0.0;
        for i in 0..=800 {
            let f = s.cdf(f64::from(i) * 1e-4);
            assert!(f >= last - 1e-15);
            last = f;
        }
        // Half the no-seek mass (0.6) lies below 2 + 8 ms.
        assert!(s.cdf(0.010) > 0.3);
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = ServiceTime::ibm3330(1.5).validate().unwrap_err();
        assert!(e.to_string().contains("p_s"), "{e}");
        let e = ServiceTime::Exponential { rate: 0.0 }
            .validate()
            .unwrap_err();
        assert!(e.to_string().contains("μ"), "{e}");
    }
}
