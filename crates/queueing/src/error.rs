//! The one error type of the analytic models.

use thiserror::Error;

/// Why an analytic model gave no answer.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum AnalysisError {
    /// The arrival rate is at or beyond the policy's stability limit.
    #[error(
        "{policy} is unstable at λ = {lambda}/s: its stability limit is λ < {limit:.4}/s (p_r = {p_r}, {service})"
    )]
    Unstable {
        /// The paper's name of the policy.
        policy: &'static str,
        /// The offered arrival rate, per second.
        lambda: f64,
        /// The largest sustainable arrival rate, per second.
        limit: f64,
        /// Read probability.
        p_r: f64,
        /// The service model, e.g. `μ = 45/s`.
        service: String,
    },
    /// A generic quasi-birth-death chain whose level drifts upwards (or not
    /// downwards): Neuts' condition π·A2·e > π·A0·e fails.
    #[error(
        "the quasi-birth-death chain is not positive recurrent: π·A2·e = {down:.6} must exceed π·A0·e = {up:.6}"
    )]
    QbdUnstable {
        /// Mean rate of downward level moves, π·A2·e.
        down: f64,
        /// Mean rate of upward level moves, π·A0·e.
        up: f64,
    },
    /// A parameter outside its domain.
    #[error("invalid {name} = {value}: {expected}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// Blocks of a chain whose shapes or row sums do not make a generator.
    #[error("not a quasi-birth-death generator: {0}")]
    InvalidGenerator(String),
    /// An iteration hit its cap before meeting its tolerance.
    #[error(
        "{method} did not converge in {iterations} iterations (residual {residual:.3e}, tolerance {tolerance:.1e})"
    )]
    NotConverged {
        /// Which iteration.
        method: &'static str,
        /// The cap that was reached.
        iterations: usize,
        /// The last change or residual.
        residual: f64,
        /// The tolerance asked for.
        tolerance: f64,
    },
    /// A linear system without a unique solution.
    #[error("singular linear system while computing {0}")]
    Singular(&'static str),
    /// The policy has no model of the kind asked for.
    #[error("{policy} has no {model} model in the paper")]
    NoModel {
        /// The policy.
        policy: &'static str,
        /// The kind of model asked for.
        model: &'static str,
    },
    /// Fork-join bounds that stayed further apart than asked at the largest
    /// truncation tried.
    #[error(
        "{policy} update bounds at λ = {lambda}/s are still {gap_percent:.2} % apart at the largest truncation B = {truncation} (asked for {target_percent} %)"
    )]
    BoundsNotTight {
        /// The policy.
        policy: &'static str,
        /// Arrival rate, per second.
        lambda: f64,
        /// (upper − lower)/lower in percent.
        gap_percent: f64,
        /// The largest truncation level tried.
        truncation: usize,
        /// The target gap in percent.
        target_percent: f64,
    },
}

/// Checks that `value` is a probability.
pub(crate) fn probability(name: &'static str, value: f64) -> Result<f64, AnalysisError> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(AnalysisError::InvalidParameter {
            name,
            value,
            expected: "a probability in [0, 1]",
        })
    }
}

/// Checks that `value` is finite and positive.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64, AnalysisError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(AnalysisError::InvalidParameter {
            name,
            value,
            expected: "a finite positive number",
        })
    }
}

/// Checks that `value` is finite and not negative.
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<f64, AnalysisError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(AnalysisError::InvalidParameter {
            name,
            value,
            expected: "a finite number ≥ 0",
        })
    }
}
