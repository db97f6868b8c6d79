//! Closed-form results for the seven mirrored-disk policies.

use serde::Serialize;

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

/// First two moments of the service time of a serial policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Moments {
    /// E(X) in seconds.
    pub mean: f64,
    /// E(X²) in seconds².
    pub second: f64,
}

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

/// Service moments of S-PSSQ (reads: one exponential; updates: the maximum
/// of two) or MR-ESQ (reads: the minimum of two), §3.1.
pub fn serial_moments(policy: Policy, p_r: f64, mu: f64) -> Option<Moments> {
    match policy {
        Policy::SPssq => Some(Moments {
            mean: (3.0 - p_r) / (2.0 * mu),
            second: (7.0 - 3.0 * p_r) / (2.0 * mu * mu),
        }),
        Policy::MrEsq => Some(Moments {
            mean: (3.0 - 2.0 * p_r) / (2.0 * mu),
            second: (7.0 - 6.0 * p_r) / (2.0 * mu * mu),
        }),
        _ => None,
    }
}

/// Pollaczek–Khinchine mean waiting time λ·E(X²) / (2(1 − ρ)), ρ = λ·E(X).
/// (The paper prints the denominator as 2(1 − p_r), a transcription error.)
/// `None` when the queue is unstable.
pub fn pollaczek_khinchine(lambda: f64, m: Moments) -> Option<f64> {
    let rho = lambda * m.mean;
    (rho < 1.0).then(|| lambda * m.second / (2.0 * (1.0 - rho)))
}

/// Mean read and update response times of S-PSSQ or MR-ESQ at arrival rate
/// `lambda` (§3.1, equations (1)–(3)); `None` for other policies or beyond
/// the stability limit.
pub fn serial_response(policy: Policy, lambda: f64, p_r: f64, mu: f64) -> Option<Response> {
    let m = serial_moments(policy, p_r, mu)?;
    let wq = pollaczek_khinchine(lambda, m)?;
    let read_service = if policy == Policy::MrEsq {
        1.0 / (2.0 * mu)
    } else {
        1.0 / mu
    };
    let read = wq + read_service;
    let update = wq + 3.0 / (2.0 * mu);
    Some(Response {
        read,
        update,
        overall: p_r * read + (1.0 - p_r) * update,
    })
}

/// R-DMQ reads: each disk is an M/M/1 queue with arrival rate
/// (α·p_r + 1 − p_r)·λ, so a read routed to disk 1 with probability `alpha`
/// waits 1/(μ − λ₁) there (§3.3). Returns the mean over both disks.
pub fn r_dmq_read_response(lambda: f64, p_r: f64, mu: f64, alpha: f64) -> Option<f64> {
    let rate = |a: f64| (a * p_r + 1.0 - p_r) * lambda;
    let (l1, l2) = (rate(alpha), rate(1.0 - alpha));
    (l1 < mu && l2 < mu).then(|| alpha / (mu - l1) + (1.0 - alpha) / (mu - l2))
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
        let (ex, ex2) = (2.25 / 90.0, 4.75 / 4050.0);
        let wq = 20.0 * ex2 / (2.0 * (1.0 - 20.0 * ex));
        assert!((r.read - (wq + 1.0 / 45.0)).abs() < 1e-12);
        assert!((r.update - (wq + 1.5 / 45.0)).abs() < 1e-12);
        assert!(serial_response(Policy::SPssq, 40.0, 0.75, 45.0).is_none());
        assert!(serial_response(Policy::Cmq, 10.0, 0.75, 45.0).is_none());
        // MR-ESQ reads are served by the faster of two disks.
        let m = serial_response(Policy::MrEsq, 1e-9, 0.75, 45.0).unwrap();
        assert!((m.read - 1.0 / 90.0).abs() < 1e-9);
    }

    #[test]
    fn r_dmq_reads_are_mm1() {
        let w = r_dmq_read_response(30.0, 0.75, 45.0, 0.5).unwrap();
        let l = (0.375 + 0.25) * 30.0;
        assert!((w - 1.0 / (45.0 - l)).abs() < 1e-12);
    }
}
