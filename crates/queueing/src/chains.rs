//! The quasi-birth-death chains of the single-queue policies (§3.2), and of
//! S-PSSQ and MR-ESQ with phase-type (exponential-stage) service as a check
//! on their M/G/1 analysis.
//!
//! Level i ≥ 1 holds the states with i requests waiting, except that the
//! states with both disks serving *reads* of the queue (C-PSSQ's WR, CR-ESQ's
//! 2R, CRU-ESQ's "2") sit one level up, as in the paper's state vectors
//! y(i): their queue length is level − 1 (`queue_offset` = 1).
//!
//! For C-PSSQ, CR-ESQ and CRU-ESQ the paper obtains W_q for all requests by
//! Little's law and adds each class's service time. That is exact for the
//! overall mean, approximate per class (SPEC §5): a read at the head of the
//! queue can start when an update could not. [`ChainAnalysis::response`]
//! is that split, whose `overall` is exact.

use nalgebra::DMatrix;
use serde::Serialize;

use crate::closed_form::{Policy, Response};
use crate::error::{AnalysisError, positive, probability};
use crate::qbd::{Drift, Qbd, SolveOptions};

/// A policy's chain and how to read its states.
#[derive(Clone, Debug)]
pub struct PolicyChain {
    /// Which policy.
    pub policy: Policy,
    /// The generator.
    pub qbd: Qbd,
    /// Phase names of level 0.
    pub level0_phases: Vec<&'static str>,
    /// Phase names of levels ≥ 1.
    pub phases: Vec<&'static str>,
    /// Waiting requests = level − offset, per phase of levels ≥ 1.
    queue_offset: Vec<f64>,
    /// Requests in service per phase of level 0 and of levels ≥ 1, where
    /// the phase determines it (not for CRU-ESQ, whose "2 busy disks" may be
    /// one update or two requests).
    serving: Option<(Vec<f64>, Vec<f64>)>,
}

/// A solved single-queue policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ChainAnalysis {
    /// Arrival rate, per second.
    pub lambda: f64,
    /// Mean number waiting, E(N).
    pub mean_queue: f64,
    /// W_q = E(N)/λ, seconds.
    pub wait: f64,
    /// The paper's per-class split W_q + service time (seconds), with the
    /// exact overall mean.
    pub response: Response,
    /// Overall mean response by Little's law on everything in the system,
    /// E(N + in service)/λ, seconds, where the phases tell the number in
    /// service: equal to `response.overall` when the chain is right.
    pub in_system_response: Option<f64>,
    /// The level drift (Neuts' stability test).
    #[serde(skip)]
    pub drift: Drift,
    /// Iterations of the R computation.
    pub iterations: usize,
}

fn matrix(rows: &[&[f64]]) -> DMatrix<f64> {
    let n = rows.len();
    let m = rows.first().map_or(0, |r| r.len());
    DMatrix::from_fn(n, m, |i, j| rows[i][j])
}

fn check(lambda: f64, p_r: f64, mu: f64) -> Result<(), AnalysisError> {
    positive("arrival rate λ", lambda)?;
    probability("read probability p_r", p_r)?;
    positive("service rate μ", mu)?;
    Ok(())
}

/// C-PSSQ with the blocks printed in §3.2. Level 0: [0, R, W_p, W_s, 2W];
/// level i: [R(i), WR(i−1), W_p(i), W_s(i), 2W(i)].
///
/// # Errors
/// [`AnalysisError::InvalidParameter`] for λ ≤ 0, μ ≤ 0 or p_r ∉ [0, 1].
pub fn c_pssq(lambda: f64, p_r: f64, mu: f64) -> Result<PolicyChain, AnalysisError> {
    check(lambda, p_r, mu)?;
    let (l, p_w) = (lambda, 1.0 - p_r);
    let b0 = matrix(&[
        &[0.0, 0.0, 0.0, 0.0, 0.0],
        &[l, 0.0, 0.0, 0.0, 0.0],
        &[0.0, 0.0, l, 0.0, 0.0],
        &[0.0, p_r * l, 0.0, p_w * l, 0.0],
        &[0.0, 0.0, 0.0, 0.0, l],
    ]);
    let b1 = matrix(&[
        &[-l, p_r * l, 0.0, 0.0, p_w * l],
        &[mu, -(l + mu), 0.0, 0.0, 0.0],
        &[mu, 0.0, -(l + mu), 0.0, 0.0],
        &[mu, 0.0, 0.0, -(l + mu), 0.0],
        &[0.0, 0.0, mu, mu, -(2.0 * mu + l)],
    ]);
    let b2 = matrix(&[
        &[0.0, p_r * mu, 0.0, 0.0, p_w * mu],
        &[0.0, mu, 0.0, mu, 0.0],
        &[0.0, p_r * mu, 0.0, 0.0, p_w * mu],
        &[0.0, 0.0, 0.0, 0.0, mu],
        &[0.0, 0.0, 0.0, 0.0, 0.0],
    ]);
    let a0 = DMatrix::identity(5, 5) * l;
    let a1 = matrix(&[
        &[-(mu + l), 0.0, 0.0, 0.0, 0.0],
        &[0.0, -(2.0 * mu + l), 0.0, 0.0, 0.0],
        &[0.0, 0.0, -(mu + l), 0.0, 0.0],
        &[0.0, 0.0, 0.0, -(mu + l), 0.0],
        &[0.0, p_r * mu, mu, p_w * mu, -(2.0 * mu + l)],
    ]);
    let a2 = matrix(&[
        &[p_r * mu, 0.0, 0.0, 0.0, p_w * mu],
        &[mu, p_r * mu, 0.0, p_w * mu, 0.0],
        &[p_r * mu, 0.0, 0.0, 0.0, p_w * mu],
        &[0.0, 0.0, 0.0, 0.0, mu],
        &[0.0, 0.0, 0.0, 0.0, 0.0],
    ]);
    Ok(PolicyChain {
        policy: Policy::CPssq,
        qbd: Qbd::new(b1, b0, b2, a0, a1, a2)?,
        level0_phases: vec!["0", "R", "Wp", "Ws", "2W"],
        phases: vec!["R", "WR", "Wp", "Ws", "2W"],
        queue_offset: vec![0.0, 1.0, 0.0, 0.0, 0.0],
        serving: Some((vec![0.0, 1.0, 1.0, 1.0, 1.0], vec![1.0, 2.0, 1.0, 1.0, 1.0])),
    })
}

/// CR-ESQ from the state definition of §3.2. Level 0: [0, R, W, 2W];
/// level i: [2R(i−1), R(i), W(i), 2W(i)]. R (one disk reading, the other
/// idle) with a queue means the head is an update waiting for both disks;
/// W is an update with one of its writes done.
///
/// # Errors
/// As [`c_pssq`].
pub fn cr_esq(lambda: f64, p_r: f64, mu: f64) -> Result<PolicyChain, AnalysisError> {
    check(lambda, p_r, mu)?;
    let (l, p_w) = (lambda, 1.0 - p_r);
    let b1 = matrix(&[
        &[-l, p_r * l, 0.0, p_w * l],
        &[mu, -(l + mu), 0.0, 0.0],
        &[mu, 0.0, -(l + mu), 0.0],
        &[0.0, 0.0, 2.0 * mu, -(l + 2.0 * mu)],
    ]);
    let b0 = matrix(&[
        &[0.0, 0.0, 0.0, 0.0],
        &[p_r * l, p_w * l, 0.0, 0.0],
        &[0.0, 0.0, l, 0.0],
        &[0.0, 0.0, 0.0, l],
    ]);
    // Level 1 → 0: 2R(0) loses a read; the blocked update of R(1) starts;
    // the last write of W(1) finishes and the head starts alone.
    let b2 = matrix(&[
        &[0.0, 2.0 * mu, 0.0, 0.0],
        &[0.0, 0.0, 0.0, mu],
        &[0.0, p_r * mu, 0.0, p_w * mu],
        &[0.0, 0.0, 0.0, 0.0],
    ]);
    let a0 = DMatrix::identity(4, 4) * l;
    let a1 = matrix(&[
        &[-(l + 2.0 * mu), 0.0, 0.0, 0.0],
        &[0.0, -(l + mu), 0.0, 0.0],
        &[0.0, 0.0, -(l + mu), 0.0],
        &[0.0, 0.0, 2.0 * mu, -(l + 2.0 * mu)],
    ]);
    // Levels i ≥ 2: a read of 2R finishes and the head read takes the free
    // disk (or the head update blocks); the last write of W finishes and the
    // head starts: an update on both disks, or a read followed by a second
    // read (2R) or by a blocked update (R).
    let a2 = matrix(&[
        &[2.0 * p_r * mu, 2.0 * p_w * mu, 0.0, 0.0],
        &[0.0, 0.0, 0.0, mu],
        &[p_r * p_r * mu, p_r * p_w * mu, 0.0, p_w * mu],
        &[0.0, 0.0, 0.0, 0.0],
    ]);
    Ok(PolicyChain {
        policy: Policy::CrEsq,
        qbd: Qbd::new(b1, b0, b2, a0, a1, a2)?,
        level0_phases: vec!["0", "R", "W", "2W"],
        phases: vec!["2R", "R", "W", "2W"],
        queue_offset: vec![1.0, 0.0, 0.0, 0.0],
        serving: Some((vec![0.0, 1.0, 1.0, 1.0], vec![2.0, 1.0, 1.0, 1.0])),
    })
}

/// CRU-ESQ from the state definition of §3.2: S = number of busy disks.
/// Level 0: [0, 1]; level i: [2(i−1), 1(i)]. One busy disk with a queue
/// means the head is an update waiting for the other.
///
/// # Errors
/// As [`c_pssq`].
pub fn cru_esq(lambda: f64, p_r: f64, mu: f64) -> Result<PolicyChain, AnalysisError> {
    check(lambda, p_r, mu)?;
    let (l, p_w) = (lambda, 1.0 - p_r);
    let b1 = matrix(&[&[-l, p_r * l], &[mu, -(l + mu)]]);
    let b0 = matrix(&[&[p_w * l, 0.0], &[p_r * l, p_w * l]]);
    let b2 = matrix(&[&[0.0, 2.0 * mu], &[0.0, 0.0]]);
    let a0 = DMatrix::identity(2, 2) * l;
    let a1 = matrix(&[&[-(l + 2.0 * mu), 0.0], &[mu, -(l + mu)]]);
    let a2 = matrix(&[&[2.0 * p_r * mu, 2.0 * p_w * mu], &[0.0, 0.0]]);
    Ok(PolicyChain {
        policy: Policy::CruEsq,
        qbd: Qbd::new(b1, b0, b2, a0, a1, a2)?,
        level0_phases: vec!["0", "1"],
        phases: vec!["2", "1"],
        queue_offset: vec![1.0, 0.0],
        serving: None,
    })
}

/// S-PSSQ or MR-ESQ as an M/PH/1 chain: level = requests waiting; phases
/// [R, 2W, W] (a read; an update with both writes running; with one), and
/// an idle phase at level 0. An MR-ESQ read ends at rate 2μ.
///
/// # Errors
/// As [`c_pssq`], and [`AnalysisError::NoModel`] for other policies.
pub fn serial(
    policy: Policy,
    lambda: f64,
    p_r: f64,
    mu: f64,
) -> Result<PolicyChain, AnalysisError> {
    check(lambda, p_r, mu)?;
    let read_rate = match policy {
        Policy::SPssq => mu,
        Policy::MrEsq => 2.0 * mu,
        _ => {
            return Err(AnalysisError::NoModel {
                policy: policy.name(),
                model: "M/G/1",
            });
        }
    };
    let (l, p_w, r) = (lambda, 1.0 - p_r, read_rate);
    let b1 = matrix(&[
        &[-l, p_r * l, p_w * l, 0.0],
        &[r, -(l + r), 0.0, 0.0],
        &[0.0, 0.0, -(l + 2.0 * mu), 2.0 * mu],
        &[mu, 0.0, 0.0, -(l + mu)],
    ]);
    let b0 = matrix(&[
        &[0.0, 0.0, 0.0],
        &[l, 0.0, 0.0],
        &[0.0, l, 0.0],
        &[0.0, 0.0, l],
    ]);
    let b2 = matrix(&[
        &[0.0, p_r * r, p_w * r, 0.0],
        &[0.0, 0.0, 0.0, 0.0],
        &[0.0, p_r * mu, p_w * mu, 0.0],
    ]);
    let a0 = DMatrix::identity(3, 3) * l;
    let a1 = matrix(&[
        &[-(l + r), 0.0, 0.0],
        &[0.0, -(l + 2.0 * mu), 2.0 * mu],
        &[0.0, 0.0, -(l + mu)],
    ]);
    let a2 = matrix(&[
        &[p_r * r, p_w * r, 0.0],
        &[0.0, 0.0, 0.0],
        &[p_r * mu, p_w * mu, 0.0],
    ]);
    Ok(PolicyChain {
        policy,
        qbd: Qbd::new(b1, b0, b2, a0, a1, a2)?,
        level0_phases: vec!["0", "R", "2W", "W"],
        phases: vec!["R", "2W", "W"],
        queue_offset: vec![0.0; 3],
        serving: Some((vec![0.0, 1.0, 1.0, 1.0], vec![1.0; 3])),
    })
}

/// The chain of a policy that has one: the three concurrent SQ policies and
/// the two serial ones.
///
/// # Errors
/// As [`c_pssq`]; [`AnalysisError::NoModel`] for DMQ and CMQ (see
/// [`crate::forkjoin`]).
pub fn chain(policy: Policy, lambda: f64, p_r: f64, mu: f64) -> Result<PolicyChain, AnalysisError> {
    match policy {
        Policy::CPssq => c_pssq(lambda, p_r, mu),
        Policy::CrEsq => cr_esq(lambda, p_r, mu),
        Policy::CruEsq => cru_esq(lambda, p_r, mu),
        Policy::SPssq | Policy::MrEsq => serial(policy, lambda, p_r, mu),
        Policy::Dmq | Policy::Cmq => Err(AnalysisError::NoModel {
            policy: policy.name(),
            model: "single quasi-birth-death",
        }),
    }
}

/// The maximum throughput by Neuts' condition: every chain here has
/// A0 = λ·I and λ on A1's diagonal, so A = A0 + A1 + A2 and hence π·A2·e do
/// not depend on λ, and the chain is stable exactly for λ < π·A2·e.
///
/// # Errors
/// As [`chain`].
pub fn max_throughput(policy: Policy, p_r: f64, mu: f64) -> Result<f64, AnalysisError> {
    let drift = chain(policy, 1.0, p_r, mu)?.qbd.drift()?;
    Ok(drift.down / drift.up)
}

impl PolicyChain {
    /// Solves the chain at its arrival rate `lambda` (the one it was built
    /// with) for read probability `p_r` and service rate `mu`.
    ///
    /// # Errors
    /// [`AnalysisError::Unstable`] with the closed-form limit when Neuts'
    /// test fails; numerical errors from [`Qbd::solve`].
    pub fn solve(
        &self,
        lambda: f64,
        p_r: f64,
        mu: f64,
        opts: &SolveOptions,
    ) -> Result<ChainAnalysis, AnalysisError> {
        let s = self.qbd.solve(opts).map_err(|e| match e {
            AnalysisError::QbdUnstable { .. } => AnalysisError::Unstable {
                policy: self.policy.name(),
                lambda,
                limit: self.policy.max_throughput(p_r, mu),
                p_r,
                service: format!("exponential service, μ = {mu}/s"),
            },
            other => other,
        })?;
        let m0 = self.level0_phases.len();
        let ones = vec![1.0; self.phases.len()];
        let minus_offset: Vec<f64> = self.queue_offset.iter().map(|o| -o).collect();
        let mean_queue = s.expectation(&vec![0.0; m0], &ones, &minus_offset);
        let in_system_response = self.serving.as_ref().map(|(level0, upper)| {
            let intercept: Vec<f64> = upper
                .iter()
                .zip(&minus_offset)
                .map(|(a, b)| a + b)
                .collect();
            s.expectation(level0, &ones, &intercept) / lambda
        });
        let wait = mean_queue / lambda;
        let read_service = match self.policy {
            Policy::MrEsq => 0.5 / mu,
            _ => 1.0 / mu,
        };
        let read = wait + read_service;
        let update = wait + 1.5 / mu;
        Ok(ChainAnalysis {
            lambda,
            mean_queue,
            wait,
            response: Response {
                read,
                update,
                overall: p_r * read + (1.0 - p_r) * update,
            },
            in_system_response,
            drift: s.drift,
            iterations: s.iterations,
        })
    }
}

/// Builds and solves `policy`'s chain with logarithmic reduction.
///
/// # Errors
/// As [`chain`] and [`PolicyChain::solve`].
pub fn analyse(
    policy: Policy,
    lambda: f64,
    p_r: f64,
    mu: f64,
) -> Result<ChainAnalysis, AnalysisError> {
    chain(policy, lambda, p_r, mu)?.solve(lambda, p_r, mu, &SolveOptions::default())
}
