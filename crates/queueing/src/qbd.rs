//! Level-independent quasi-birth-death chains in continuous time, solved by
//! the matrix-geometric method (Neuts 1981; §3.2 of the paper).
//!
//! The generator is block-tridiagonal:
//!
//! ```text
//!     ⎡ B1 B0          ⎤   level 0 (m₀ phases)
//! Q = ⎢ B2 A1 A0       ⎥   level 1 (m phases)
//!     ⎢    A2 A1 A0    ⎥   level 2
//!     ⎣       ⋱  ⋱  ⋱  ⎦
//! ```
//!
//! so level 0 may differ in size and behaviour from the repeating levels
//! (as in the paper's C-PSSQ chain). The stationary vector is
//! `y(i) = y(1)·R^{i−1}` for i ≥ 1, where R is the minimal non-negative
//! solution of `A0 + R·A1 + R²·A2 = 0`, and `(y(0), y(1))` solve the
//! boundary equations (4) of the paper.

use nalgebra::{DMatrix, DVector};

use crate::error::AnalysisError;

/// How R is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RMethod {
    /// The paper's functional iteration R(n+1) = −(A0 + R(n)²·A2)·A1⁻¹ from
    /// R(0) = 0: linear convergence, slow near saturation.
    Iteration,
    /// Latouche and Ramaswami's logarithmic reduction for G, then
    /// R = A0·(−A1 − A0·G)⁻¹: quadratic convergence.
    LogarithmicReduction,
}

/// Stopping rule of the R computation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolveOptions {
    /// The method.
    pub method: RMethod,
    /// Stop when the largest change of an entry of R (iteration), or
    /// ‖e − G·e‖∞ (logarithmic reduction), falls below this.
    pub tolerance: f64,
    /// Give up after this many iterations.
    pub max_iterations: usize,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            method: RMethod::LogarithmicReduction,
            tolerance: 1e-12,
            max_iterations: 64,
        }
    }
}

impl SolveOptions {
    /// The paper's iteration with a tolerance of 1e-15 on the entries of R
    /// and a cap of a million iterations.
    pub fn iteration() -> SolveOptions {
        SolveOptions {
            method: RMethod::Iteration,
            tolerance: 1e-15,
            max_iterations: 1_000_000,
        }
    }
}

/// The drift of the level process: Neuts' condition for positive
/// recurrence is `down > up`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drift {
    /// π·A0·e: the rate of upward moves under the phase process' stationary π.
    pub up: f64,
    /// π·A2·e: the rate of downward moves.
    pub down: f64,
}

impl Drift {
    /// Neuts' condition π·A2·e > π·A0·e.
    pub fn is_stable(&self) -> bool {
        self.down > self.up
    }
}

/// A quasi-birth-death generator.
#[derive(Clone, Debug, PartialEq)]
pub struct Qbd {
    b1: DMatrix<f64>,
    b0: DMatrix<f64>,
    b2: DMatrix<f64>,
    a0: DMatrix<f64>,
    a1: DMatrix<f64>,
    a2: DMatrix<f64>,
}

/// The solved chain.
#[derive(Clone, Debug)]
pub struct QbdSolution {
    /// The rate matrix R.
    pub r: DMatrix<f64>,
    /// Stationary probabilities of level 0.
    pub y0: DVector<f64>,
    /// Stationary probabilities of level 1.
    pub y1: DVector<f64>,
    /// Iterations taken by the R computation.
    pub iterations: usize,
    /// ‖A0 + R·A1 + R²·A2‖∞.
    pub residual: f64,
    /// The level drift.
    pub drift: Drift,
    /// y(1)·(I − R)⁻¹ (the mass of each phase over levels ≥ 1).
    sum_once: DVector<f64>,
    /// y(1)·(I − R)⁻² (Σ_{i≥1} i·y(i)).
    sum_twice: DVector<f64>,
}

fn inf_norm(m: &DMatrix<f64>) -> f64 {
    m.row_iter()
        .map(|r| r.iter().map(|x| x.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// `rhs · m⁻¹` through an LU factorisation of mᵀ.
fn right_solve(
    m: &DMatrix<f64>,
    rhs: &DMatrix<f64>,
    what: &'static str,
) -> Result<DMatrix<f64>, AnalysisError> {
    let lu = m.transpose().lu();
    lu.solve(&rhs.transpose())
        .map(|x| x.transpose())
        .ok_or(AnalysisError::Singular(what))
}

/// The row vector x with x·M = 0 and x·n = 1 (`n` the normalisation weights).
fn stationary_row(
    m: &DMatrix<f64>,
    weights: &DVector<f64>,
    what: &'static str,
) -> Result<DVector<f64>, AnalysisError> {
    let size = m.nrows();
    // Mᵀ·xᵀ = 0 has rank size − 1: replace its last equation by n·x = 1.
    let mut system = m.transpose();
    system.row_mut(size - 1).copy_from(&weights.transpose());
    let mut rhs = DVector::zeros(size);
    rhs[size - 1] = 1.0;
    system.lu().solve(&rhs).ok_or(AnalysisError::Singular(what))
}

impl Qbd {
    /// Checks the blocks: B1 is m₀×m₀, B0 m₀×m, B2 m×m₀, A0, A1, A2 m×m;
    /// off-diagonal rates are non-negative; each row of every level of Q
    /// sums to zero (to a relative 1e-9).
    ///
    /// # Errors
    /// [`AnalysisError::InvalidGenerator`] saying which block or row is wrong.
    pub fn new(
        b1: DMatrix<f64>,
        b0: DMatrix<f64>,
        b2: DMatrix<f64>,
        a0: DMatrix<f64>,
        a1: DMatrix<f64>,
        a2: DMatrix<f64>,
    ) -> Result<Qbd, AnalysisError> {
        let (m0, m) = (b1.nrows(), a1.nrows());
        let bad = |s: String| Err(AnalysisError::InvalidGenerator(s));
        if m0 == 0 || m == 0 {
            return bad("empty blocks".into());
        }
        for (name, block, shape) in [
            ("B1", &b1, (m0, m0)),
            ("B0", &b0, (m0, m)),
            ("B2", &b2, (m, m0)),
            ("A0", &a0, (m, m)),
            ("A1", &a1, (m, m)),
            ("A2", &a2, (m, m)),
        ] {
            if block.shape() != shape {
                return bad(format!(
                    "{name} is {}×{}, expected {}×{}",
                    block.nrows(),
                    block.ncols(),
                    shape.0,
                    shape.1
                ));
            }
            if block.iter().any(|x| !x.is_finite()) {
                return bad(format!("{name} has a non-finite entry"));
            }
            let local = name == "B1" || name == "A1";
            for i in 0..block.nrows() {
                for j in 0..block.ncols() {
                    let x = block[(i, j)];
                    if x < 0.0 && !(local && i == j) {
                        return bad(format!("{name}[{i}][{j}] = {x} is a negative rate"));
                    }
                }
            }
        }
        let check_rows = |level: &str, blocks: &[&DMatrix<f64>]| -> Result<(), AnalysisError> {
            for row in 0..blocks[0].nrows() {
                let (sum, scale) = blocks.iter().fold((0.0, 0.0), |(s, a), b| {
                    let r = b.row(row);
                    (s + r.sum(), a + r.iter().map(|x| x.abs()).sum::<f64>())
                });
                if sum.abs() > 1e-9 * scale.max(1.0) {
                    return Err(AnalysisError::InvalidGenerator(format!(
                        "row {row} of {level} sums to {sum:e}, not 0"
                    )));
                }
            }
            Ok(())
        };
        check_rows("level 0 (B1 B0)", &[&b1, &b0])?;
        check_rows("level 1 (B2 A1 A0)", &[&b2, &a1, &a0])?;
        check_rows("levels ≥ 2 (A2 A1 A0)", &[&a2, &a1, &a0])?;
        Ok(Qbd {
            b1,
            b0,
            b2,
            a0,
            a1,
            a2,
        })
    }

    /// Number of phases of the repeating levels.
    pub fn phases(&self) -> usize {
        self.a1.nrows()
    }

    /// π·A0·e and π·A2·e for the stationary vector π of A = A0 + A1 + A2.
    ///
    /// # Errors
    /// [`AnalysisError::Singular`] when A has no unique stationary vector.
    pub fn drift(&self) -> Result<Drift, AnalysisError> {
        let a = &self.a0 + &self.a1 + &self.a2;
        let pi = stationary_row(
            &a,
            &DVector::from_element(self.phases(), 1.0),
            "the phase process' stationary vector",
        )?;
        let e = DVector::from_element(self.phases(), 1.0);
        Ok(Drift {
            up: pi.dot(&(&self.a0 * &e)),
            down: pi.dot(&(&self.a2 * &e)),
        })
    }

    /// R by the paper's iteration.
    fn r_by_iteration(&self, opts: &SolveOptions) -> Result<(DMatrix<f64>, usize), AnalysisError> {
        let m = self.phases();
        let a1_inv = self
            .a1
            .clone()
            .lu()
            .try_inverse()
            .ok_or(AnalysisError::Singular("A1⁻¹"))?;
        let constant = -(&self.a0 * &a1_inv);
        let step = -(&self.a2 * &a1_inv);
        let mut r = DMatrix::zeros(m, m);
        let mut change = f64::INFINITY;
        for n in 1..=opts.max_iterations {
            let next = &constant + &r * &r * &step;
            change = (&next - &r).amax();
            r = next;
            if change < opts.tolerance {
                return Ok((r, n));
            }
        }
        Err(AnalysisError::NotConverged {
            method: "the R iteration",
            iterations: opts.max_iterations,
            residual: change,
            tolerance: opts.tolerance,
        })
    }

    /// R by logarithmic reduction.
    fn r_by_logarithmic_reduction(
        &self,
        opts: &SolveOptions,
    ) -> Result<(DMatrix<f64>, usize), AnalysisError> {
        let m = self.phases();
        let identity = DMatrix::<f64>::identity(m, m);
        let e = DVector::from_element(m, 1.0);
        let minus_a1 = -&self.a1;
        let lu = minus_a1.clone().lu();
        let mut up = lu
            .solve(&self.a0)
            .ok_or(AnalysisError::Singular("A1⁻¹·A0"))?;
        let mut down = lu
            .solve(&self.a2)
            .ok_or(AnalysisError::Singular("A1⁻¹·A2"))?;
        let mut g = down.clone();
        let mut t = up.clone();
        let mut gap = f64::INFINITY;
        for n in 1..=opts.max_iterations {
            let u = &up * &down + &down * &up;
            let step = (&identity - u).lu();
            let up_next = step
                .solve(&(&up * &up))
                .ok_or(AnalysisError::Singular("logarithmic reduction"))?;
            let down_next = step
                .solve(&(&down * &down))
                .ok_or(AnalysisError::Singular("logarithmic reduction"))?;
            up = up_next;
            down = down_next;
            g += &t * &down;
            t = &t * &up;
            gap = (&e - &g * &e).amax();
            if !gap.is_finite() {
                return Err(AnalysisError::Singular("logarithmic reduction"));
            }
            if gap < opts.tolerance {
                let r = right_solve(
                    &(&minus_a1 - &self.a0 * &g),
                    &self.a0,
                    "R = A0·(−A1 − A0·G)⁻¹",
                )?;
                return Ok((r, n));
            }
        }
        Err(AnalysisError::NotConverged {
            method: "logarithmic reduction",
            iterations: opts.max_iterations,
            residual: gap,
            tolerance: opts.tolerance,
        })
    }

    /// Tests stability, computes R and solves the boundary equations.
    ///
    /// # Errors
    /// [`AnalysisError::QbdUnstable`] when π·A2·e ≤ π·A0·e;
    /// [`AnalysisError::NotConverged`] or [`AnalysisError::Singular`] from
    /// the numerics.
    pub fn solve(&self, opts: &SolveOptions) -> Result<QbdSolution, AnalysisError> {
        let drift = self.drift()?;
        if !drift.is_stable() {
            return Err(AnalysisError::QbdUnstable {
                down: drift.down,
                up: drift.up,
            });
        }
        let (r, iterations) = match opts.method {
            RMethod::Iteration => self.r_by_iteration(opts)?,
            RMethod::LogarithmicReduction => self.r_by_logarithmic_reduction(opts)?,
        };
        let residual = inf_norm(&(&self.a0 + &r * &self.a1 + &r * &r * &self.a2));
        let (m0, m) = (self.b1.nrows(), self.phases());
        let identity = DMatrix::<f64>::identity(m, m);
        let one_minus_r = (&identity - &r).lu();
        let e = DVector::from_element(m, 1.0);
        let to_level_one = one_minus_r
            .solve(&e)
            .ok_or(AnalysisError::Singular("(I − R)⁻¹·e"))?;
        // (y0, y1)·[[B1, B0], [B2, A1 + R·A2]] = 0, y0·e + y1·(I − R)⁻¹·e = 1.
        let mut boundary = DMatrix::zeros(m0 + m, m0 + m);
        boundary.view_mut((0, 0), (m0, m0)).copy_from(&self.b1);
        boundary.view_mut((0, m0), (m0, m)).copy_from(&self.b0);
        boundary.view_mut((m0, 0), (m, m0)).copy_from(&self.b2);
        boundary
            .view_mut((m0, m0), (m, m))
            .copy_from(&(&self.a1 + &r * &self.a2));
        let mut weights = DVector::from_element(m0 + m, 1.0);
        weights.rows_mut(m0, m).copy_from(&to_level_one);
        let y = stationary_row(&boundary, &weights, "the boundary equations (4)")?;
        let y0 = y.rows(0, m0).into_owned();
        let y1 = y.rows(m0, m).into_owned();
        let lu_t = (&identity - &r).transpose().lu();
        let sum_once = lu_t
            .solve(&y1)
            .ok_or(AnalysisError::Singular("y(1)·(I − R)⁻¹"))?;
        let sum_twice = lu_t
            .solve(&sum_once)
            .ok_or(AnalysisError::Singular("y(1)·(I − R)⁻²"))?;
        Ok(QbdSolution {
            r,
            y0,
            y1,
            iterations,
            residual,
            drift,
            sum_once,
            sum_twice,
        })
    }
}

impl QbdSolution {
    /// The stationary probabilities of level `i`.
    pub fn level(&self, i: usize) -> DVector<f64> {
        match i {
            0 => self.y0.clone(),
            _ => {
                let mut y = self.y1.transpose();
                for _ in 1..i {
                    y = &y * &self.r;
                }
                y.transpose()
            }
        }
    }

    /// Pr(level ≥ 1) split by phase: Σ_{i≥1} y(i) = y(1)·(I − R)⁻¹.
    pub fn upper_levels_by_phase(&self) -> &DVector<f64> {
        &self.sum_once
    }

    /// E(level).
    pub fn mean_level(&self) -> f64 {
        self.sum_twice.sum()
    }

    /// E(f) for a reward f that is `level0[j]` in phase j of level 0 and
    /// `slope[j]·i + intercept[j]` in phase j of level i ≥ 1:
    /// y0·f₀ + y(1)(I − R)⁻²·slope + y(1)(I − R)⁻¹·intercept.
    ///
    /// # Panics
    /// When the slices' lengths are not the level sizes (a programming error).
    pub fn expectation(&self, level0: &[f64], slope: &[f64], intercept: &[f64]) -> f64 {
        assert_eq!(level0.len(), self.y0.len(), "level-0 reward length");
        assert_eq!(slope.len(), self.y1.len(), "slope length");
        assert_eq!(intercept.len(), self.y1.len(), "intercept length");
        let dot = |y: &DVector<f64>, v: &[f64]| y.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
        dot(&self.y0, level0) + dot(&self.sum_twice, slope) + dot(&self.sum_once, intercept)
    }

    /// Total probability, y0·e + y(1)(I − R)⁻¹·e (1 up to rounding).
    pub fn total_probability(&self) -> f64 {
        self.y0.sum() + self.sum_once.sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(x: f64) -> DMatrix<f64> {
        DMatrix::from_element(1, 1, x)
    }

    fn mm1(lambda: f64, mu: f64) -> Qbd {
        Qbd::new(
            scalar(-lambda),
            scalar(lambda),
            scalar(mu),
            scalar(lambda),
            scalar(-(lambda + mu)),
            scalar(mu),
        )
        .unwrap()
    }

    #[test]
    fn mm1_by_both_methods() {
        let (lambda, mu) = (3.0, 4.0);
        let rho = lambda / mu;
        for opts in [SolveOptions::default(), SolveOptions::iteration()] {
            let s = mm1(lambda, mu).solve(&opts).unwrap();
            assert!((s.r[(0, 0)] - rho).abs() < 1e-12, "{opts:?}: R = {}", s.r);
            assert!((s.y0[0] - (1.0 - rho)).abs() < 1e-12);
            assert!((s.mean_level() - rho / (1.0 - rho)).abs() < 1e-10);
            assert!((s.level(3)[0] - (1.0 - rho) * rho.powi(3)).abs() < 1e-12);
            assert!((s.total_probability() - 1.0).abs() < 1e-12);
            assert!(s.residual < 1e-12);
        }
    }

    #[test]
    fn unstable_chain_is_an_error_with_its_drifts() {
        let e = mm1(5.0, 4.0).solve(&SolveOptions::default()).unwrap_err();
        assert_eq!(e, AnalysisError::QbdUnstable { down: 4.0, up: 5.0 });
    }

    #[test]
    fn malformed_blocks_are_rejected() {
        let e = Qbd::new(
            scalar(-1.0),
            scalar(1.0),
            scalar(2.0),
            scalar(1.0),
            scalar(-2.0),
            scalar(2.0),
        )
        .unwrap_err();
        assert!(e.to_string().contains("sums to"), "{e}");
        let e = Qbd::new(
            scalar(-1.0),
            DMatrix::from_element(1, 2, 0.5),
            scalar(2.0),
            scalar(1.0),
            scalar(-3.0),
            scalar(2.0),
        )
        .unwrap_err();
        assert!(e.to_string().contains("B0 is 1×2"), "{e}");
    }

    #[test]
    fn iteration_cap_is_an_error() {
        let opts = SolveOptions {
            max_iterations: 3,
            ..SolveOptions::iteration()
        };
        let e = mm1(3.9, 4.0).solve(&opts).unwrap_err();
        assert!(
            matches!(e, AnalysisError::NotConverged { iterations: 3, .. }),
            "{e}"
        );
    }
}
