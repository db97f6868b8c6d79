//! Closed-form results for the seven mirrored-disk policies.

use serde::Serialize;

use crate::error::{AnalysisError, positive, probability};
use crate::service::{Order, ServiceTime};

/// The policies of Towsley, Chen & Yu (1991, Tables I–II) as the analysis sees
/// them (the DMQ read routings share one stability limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Policy {
    /// Serial primary/secondary single queue.
    SPssq,
    /// Concurrent primary/secondary single queue.
    CPssq,
    /// Concurrent-read equitable single queue.
    CrEsq,
    /// Concurrent read/update equitable single queue.
    CruEsq,
    /// Minimum-read equitable single queue.
    MrEsq,
    /// Distributed multiple queues (R-DMQ and its routings).
    Dmq,
    /// Common multiple queue.
    Cmq,
}

impl Policy {
    /// All seven, in the paper's order.
    pub const ALL: [Policy; 7] = [
        Policy::SPssq,
        Policy::CPssq,
        Policy::CrEsq,
        Policy::CruEsq,
        Policy::MrEsq,
        Policy::Dmq,
        Policy::Cmq,
    ];

    /// The paper's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::SPssq => "S-PSSQ",
            Policy::CPssq => "C-PSSQ",
            Policy::CrEsq => "CR-ESQ",
            Policy::CruEsq => "CRU-ESQ",
            Policy::MrEsq => "MR-ESQ",
            Policy::Dmq => "DMQ",
            Policy::Cmq => "CMQ",
        }
    }

    /// The largest arrival rate (requests/s) the policy can sustain, for read
    /// probability `p_r` and service rate `mu` per disk (SPEC §5; §3 of the
    /// paper). The DMQ and CMQ limit is the rate at which one disk saturates:
    /// each disk sees every update and half the reads, so λ(1 − p_r/2) < μ.
    pub fn max_throughput(self, p_r: f64, mu: f64) -> f64 {
        match self {
            Policy::SPssq => 2.0 * mu / (3.0 - p_r),
            Policy::CPssq => mu * (2.0 - p_r) / (3.0 - 3.0 * p_r + p_r * p_r),
            Policy::CrEsq => 2.0 * mu / (3.0 - p_r - p_r * p_r),
            Policy::CruEsq | Policy::MrEsq => 2.0 * mu / (3.0 - 2.0 * p_r),
            Policy::Dmq | Policy::Cmq => 2.0 * mu / (2.0 - p_r),
        }
    }
}

pub use crate::service::Moments;

/// Mean response times (seconds) of reads and updates, and overall.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Response {
    /// Mean read response time.
    pub read: f64,
    /// Mean update response time.
    pub update: f64,
    /// Mean over all requests: p_r·read + (1 − p_r)·update.
    pub overall: f64,
}

fn check_rates(lambda: f64, p_r: f64) -> Result<(), AnalysisError> {
    positive("arrival rate λ", lambda)?;
    probability("read probability p_r", p_r)?;
    Ok(())
}

/// `Ok` when `lambda` is below `policy`'s limit with exponential service,
/// else [`AnalysisError::Unstable`] stating the limit.
///
/// # Errors
/// As described, and [`AnalysisError::InvalidParameter`] for a bad λ, p_r or μ.
pub fn check_stable(policy: Policy, lambda: f64, p_r: f64, mu: f64) -> Result<(), AnalysisError> {
    check_rates(lambda, p_r)?;
    positive("service rate μ", mu)?;
    let limit = policy.max_throughput(p_r, mu);
    if lambda < limit {
        Ok(())
    } else {
        Err(AnalysisError::Unstable {
            policy: policy.name(),
            lambda,
            limit,
            p_r,
            service: format!("exponential service, μ = {mu}/s"),
        })
    }
}

/// The service of a serial policy's reads and updates, and of a request.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SerialService {
    /// A read: one disk (S-PSSQ) or the faster of two (MR-ESQ).
    pub read: Moments,
    /// An update: the slower of two disks.
    pub update: Moments,
    /// A request: p_r·read + (1 − p_r)·update, moment by moment.
    pub request: Moments,
}

/// Service moments of S-PSSQ or MR-ESQ with exponential service, in closed
/// form (§3.1).
///
/// # Errors
/// [`AnalysisError::NoModel`] for the other policies; invalid p_r or μ.
pub fn serial_moments(policy: Policy, p_r: f64, mu: f64) -> Result<Moments, AnalysisError> {
    probability("read probability p_r", p_r)?;
    positive("service rate μ", mu)?;
    match policy {
        Policy::SPssq => Ok(Moments {
            mean: (3.0 - p_r) / (2.0 * mu),
            second: (7.0 - 3.0 * p_r) / (2.0 * mu * mu),
        }),
        Policy::MrEsq => Ok(Moments {
            mean: (3.0 - 2.0 * p_r) / (2.0 * mu),
            second: (7.0 - 6.0 * p_r) / (2.0 * mu * mu),
        }),
        _ => Err(AnalysisError::NoModel {
            policy: policy.name(),
            model: "M/G/1",
        }),
    }
}

/// Service moments of S-PSSQ or MR-ESQ for any disk service distribution,
/// integrated numerically ([`ServiceTime::moments`]).
///
/// # Errors
/// As [`serial_moments`], and a bad distribution.
pub fn serial_service(
    policy: Policy,
    p_r: f64,
    service: &ServiceTime,
) -> Result<SerialService, AnalysisError> {
    probability("read probability p_r", p_r)?;
    service.validate()?;
    let read = match policy {
        Policy::SPssq => service.moments(Order::Single),
        Policy::MrEsq => service.moments(Order::Min),
        _ => {
            return Err(AnalysisError::NoModel {
                policy: policy.name(),
                model: "M/G/1",
            });
        }
    };
    let update = service.moments(Order::Max);
    let mix = |a: f64, b: f64| p_r * a + (1.0 - p_r) * b;
    Ok(SerialService {
        read,
        update,
        request: Moments {
            mean: mix(read.mean, update.mean),
            second: mix(read.second, update.second),
        },
    })
}

/// Pollaczek–Khinchine mean waiting time λ·E(X²) / (2(1 − ρ)), ρ = λ·E(X).
/// (The paper prints the denominator as 2(1 − p_r), a transcription error.)
/// `None` when ρ ≥ 1.
pub fn pollaczek_khinchine(lambda: f64, m: Moments) -> Option<f64> {
    let rho = lambda * m.mean;
    (rho < 1.0).then(|| lambda * m.second / (2.0 * (1.0 - rho)))
}

fn serial_from(
    policy: Policy,
    lambda: f64,
    p_r: f64,
    s: &SerialService,
    describe: impl FnOnce() -> String,
) -> Result<Response, AnalysisError> {
    let wq = pollaczek_khinchine(lambda, s.request).ok_or_else(|| AnalysisError::Unstable {
        policy: policy.name(),
        lambda,
        limit: 1.0 / s.request.mean,
        p_r,
        service: describe(),
    })?;
    let read = wq + s.read.mean;
    let update = wq + s.update.mean;
    Ok(Response {
        read,
        update,
        overall: p_r * read + (1.0 - p_r) * update,
    })
}

/// Mean read and update response times of S-PSSQ or MR-ESQ at arrival rate
/// `lambda` with exponential service (§3.1, equations (1)–(3)).
///
/// # Errors
/// [`AnalysisError::Unstable`] beyond the stability limit,
/// [`AnalysisError::NoModel`] for other policies, or a bad parameter.
pub fn serial_response(
    policy: Policy,
    lambda: f64,
    p_r: f64,
    mu: f64,
) -> Result<Response, AnalysisError> {
    check_rates(lambda, p_r)?;
    let request = serial_moments(policy, p_r, mu)?;
    let read_mean = if policy == Policy::MrEsq {
        0.5 / mu
    } else {
        1.0 / mu
    };
    let s = SerialService {
        read: Moments {
            mean: read_mean,
            second: 2.0 * read_mean * read_mean,
        },
        update: Moments {
            mean: 1.5 / mu,
            second: 3.5 / (mu * mu),
        },
        request,
    };
    serial_from(policy, lambda, p_r, &s, || {
        format!("exponential service, μ = {mu}/s")
    })
}

/// M/G/1 response times of S-PSSQ or MR-ESQ for a general disk service
/// distribution: an update costs E(max) of two services, an MR-ESQ read
/// E(min), which the moments of one service do not determine (the remark at
/// the end of §3.1).
///
/// # Errors
/// As [`serial_response`]; the stability limit is 1/E(X).
pub fn serial_response_with(
    policy: Policy,
    lambda: f64,
    p_r: f64,
    service: &ServiceTime,
) -> Result<Response, AnalysisError> {
    check_rates(lambda, p_r)?;
    let s = serial_service(policy, p_r, service)?;
    serial_from(policy, lambda, p_r, &s, || service.describe())
}

/// R-DMQ reads: each disk is an M/M/1 queue with arrival rate
/// (α·p_r + 1 − p_r)·λ, so a read routed to disk 1 with probability `alpha`
/// waits 1/(μ − λ₁) there (§3.3). Returns the mean over both disks.
///
/// # Errors
/// [`AnalysisError::Unstable`] when either disk saturates (the limit stated
/// is the λ at which the busier one does), or a bad parameter.
pub fn r_dmq_read_response(
    lambda: f64,
    p_r: f64,
    mu: f64,
    alpha: f64,
) -> Result<f64, AnalysisError> {
    check_rates(lambda, p_r)?;
    positive("service rate μ", mu)?;
    probability("routing probability α", alpha)?;
    let share = |a: f64| a * p_r + 1.0 - p_r;
    let (l1, l2) = (share(alpha) * lambda, share(1.0 - alpha) * lambda);
    if l1 < mu && l2 < mu {
        Ok(alpha / (mu - l1) + (1.0 - alpha) / (mu - l2))
    } else {
        Err(AnalysisError::Unstable {
            policy: "R-DMQ",
            lambda,
            limit: mu / share(alpha).max(share(1.0 - alpha)),
            p_r,
            service: format!("exponential service, μ = {mu}/s"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stability_limits_at_the_papers_operating_point() {
        // μ = 45/s, p_r = 0.75 (Figs. 2–3).
        let at = |p: Policy| p.max_throughput(0.75, 45.0);
        assert!((at(Policy::SPssq) - 40.0).abs() < 1e-9);
        assert!((at(Policy::MrEsq) - 60.0).abs() < 1e-9);
        assert!((at(Policy::CruEsq) - 60.0).abs() < 1e-9);
        assert!((at(Policy::Dmq) - 72.0).abs() < 1e-9);
        assert!((at(Policy::CPssq) - 45.0 * 1.25 / (3.0 - 2.25 + 0.5625)).abs() < 1e-9);
        // All reads: the ESQ and MQ policies use both disks, PSSQ one.
        assert!((Policy::SPssq.max_throughput(1.0, 45.0) - 45.0).abs() < 1e-9);
        assert!((Policy::CrEsq.max_throughput(1.0, 45.0) - 90.0).abs() < 1e-9);
        assert!((Policy::Cmq.max_throughput(1.0, 45.0) - 90.0).abs() < 1e-9);
        // All updates: every policy writes both disks, one update at a time
        // for the SQ policies (E[max] = 1.5/μ) and pipelined for MQ.
        assert!((Policy::CPssq.max_throughput(0.0, 45.0) - 30.0).abs() < 1e-9);
        assert!((Policy::Dmq.max_throughput(0.0, 45.0) - 45.0).abs() < 1e-9);
    }

    #[test]
    fn limits_order_as_in_figure_1() {
        for i in 0..=20 {
            let p = i as f64 / 20.0;
            let t = |x: Policy| x.max_throughput(p, 45.0);
            assert!(t(Policy::SPssq) <= t(Policy::CPssq) + 1e-9);
            assert!(t(Policy::CrEsq) <= t(Policy::CruEsq) + 1e-9);
            assert!(t(Policy::CruEsq) <= t(Policy::Dmq) + 1e-9);
            assert_eq!(t(Policy::Dmq), t(Policy::Cmq));
        }
    }

    #[test]
    fn serial_response_matches_hand_computation() {
        // S-PSSQ at λ = 20, p_r = 0.75, μ = 45: E[X] = 2.25/90, E[X²] = 4.75/4050.
        let r = serial_response(Policy::SPssq, 20.0, 0.75, 45.0).unwrap();
        assert_eq!(
            serial_moments(Policy::SPssq, 0.75, 45.0).unwrap(),
            Moments {
                mean: 2.25 / 90.0,
                second: 4.75 / 4050.0
            }
        );
        let (ex, ex2) = (2.25 / 90.0, 4.75 / 4050.0);
        let wq = 20.0 * ex2 / (2.0 * (1.0 - 20.0 * ex));
        assert!((r.read - (wq + 1.0 / 45.0)).abs() < 1e-12);
        assert!((r.update - (wq + 1.5 / 45.0)).abs() < 1e-12);
        let e = serial_response(Policy::SPssq, 40.0, 0.75, 45.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "S-PSSQ is unstable at λ = 40/s: its stability limit is λ < 40.0000/s (p_r = 0.75, exponential service, μ = 45/s)"
        );
        assert!(matches!(
            serial_response(Policy::Cmq, 10.0, 0.75, 45.0),
            Err(AnalysisError::NoModel { .. })
        ));
        // MR-ESQ reads are served by the faster of two disks.
        let m = serial_response(Policy::MrEsq, 1e-9, 0.75, 45.0).unwrap();
        assert!((m.read - 1.0 / 90.0).abs() < 1e-9);
    }

    #[test]
    fn r_dmq_reads_are_mm1() {
        let w = r_dmq_read_response(30.0, 0.75, 45.0, 0.5).unwrap();
        let l = (0.375 + 0.25) * 30.0;
        assert!((w - 1.0 / (45.0 - l)).abs() < 1e-12);
        let e = r_dmq_read_response(72.0, 0.75, 45.0, 0.5).unwrap_err();
        assert!(e.to_string().contains("limit is λ < 72.0000/s"), "{e}");
    }

    #[test]
    fn general_service_reduces_to_the_closed_form_for_exponential() {
        let exp = ServiceTime::Exponential { rate: 45.0 };
        for policy in [Policy::SPssq, Policy::MrEsq] {
            for lambda in [5.0, 20.0, 35.0] {
                let a = serial_response(policy, lambda, 0.75, 45.0).unwrap();
                let b = serial_response_with(policy, lambda, 0.75, &exp).unwrap();
                for (x, y) in [
                    (a.read, b.read),
                    (a.update, b.update),
                    (a.overall, b.overall),
                ] {
                    assert!(
                        (x / y - 1.0).abs() < 1e-9,
                        "{policy:?} λ = {lambda}: {x} vs {y}"
                    );
                }
            }
        }
        let e = serial_response_with(Policy::SPssq, 40.0, 0.75, &exp).unwrap_err();
        assert!(matches!(e, AnalysisError::Unstable { limit, .. } if (limit - 40.0).abs() < 1e-9));
    }
}
