//! The quasi-birth-death solver against textbook results, and the policy
//! chains against the paper's closed forms.

use nalgebra::DMatrix;
use queueing::AnalysisError;
use queueing::chains::{self, analyse};
use queueing::closed_form::{Policy, serial_response};
use queueing::qbd::{Qbd, SolveOptions};

fn scalar(x: f64) -> DMatrix<f64> {
    DMatrix::from_element(1, 1, x)
}

fn both_methods() -> [SolveOptions; 2] {
    [SolveOptions::default(), SolveOptions::iteration()]
}

#[test]
fn mm1_to_1e9() {
    for (lambda, mu) in [(1.0, 10.0), (30.0, 45.0), (44.0, 45.0)] {
        let rho: f64 = lambda / mu;
        let q = Qbd::new(
            scalar(-lambda),
            scalar(lambda),
            scalar(mu),
            scalar(lambda),
            scalar(-(lambda + mu)),
            scalar(mu),
        )
        .unwrap();
        for opts in both_methods() {
            let s = q.solve(&opts).unwrap();
            let l = rho / (1.0 - rho);
            assert!(
                (s.mean_level() / l - 1.0).abs() < 1e-9,
                "ρ = {rho}: {}",
                s.mean_level()
            );
            // Little: W = L/λ = 1/(μ − λ).
            assert!((s.mean_level() / lambda * (mu - lambda) - 1.0).abs() < 1e-9);
            for i in 0..20 {
                let want = (1.0 - rho) * rho.powi(i);
                assert!((s.level(i as usize)[0] - want).abs() < 1e-9 * want.max(1e-300) + 1e-15);
            }
        }
    }
}

#[test]
fn mm2_to_1e9() {
    // Level 0 holds n = 0 and n = 1; level i ≥ 1 is n = i + 1.
    for (lambda, mu) in [(5.0, 4.0), (7.5, 4.0), (1.0, 4.0)] {
        let q = Qbd::new(
            DMatrix::from_row_slice(2, 2, &[-lambda, lambda, mu, -(lambda + mu)]),
            DMatrix::from_row_slice(2, 1, &[0.0, lambda]),
            DMatrix::from_row_slice(1, 2, &[0.0, 2.0 * mu]),
            scalar(lambda),
            scalar(-(lambda + 2.0 * mu)),
            scalar(2.0 * mu),
        )
        .unwrap();
        let rho: f64 = lambda / (2.0 * mu);
        // Textbook M/M/2: P0 = (1 − ρ)/(1 + ρ), L = 2ρ/(1 − ρ²).
        let p0 = (1.0 - rho) / (1.0 + rho);
        let l = 2.0 * rho / (1.0 - rho * rho);
        for opts in both_methods() {
            let s = q.solve(&opts).unwrap();
            assert!((s.y0[0] - p0).abs() < 1e-9);
            // n = level + 1 on levels ≥ 1.
            let mean_n = s.expectation(&[0.0, 1.0], &[1.0], &[1.0]);
            assert!((mean_n / l - 1.0).abs() < 1e-9, "{mean_n} vs {l}");
            let w = mean_n / lambda;
            assert!((w - 1.0 / (mu * (1.0 - rho * rho))).abs() < 1e-9);
        }
    }
}

#[test]
fn r_in_closed_form_for_an_m_m_1_in_a_random_environment() {
    // An M/M/1 queue whose two-state environment (switching at rate γ)
    // affects nothing: R = ρ·I + b·T with T the environment's generator and
    // 2γμ·b² + (2γ + μ − λ)·b − ρ = 0 (substitute R into A0 + R·A1 + R²·A2 = 0
    // and use T² = −2γ·T).
    let (lambda, mu, gamma): (f64, f64, f64) = (3.0, 5.0, 0.7);
    let rho = lambda / mu;
    let t = DMatrix::from_row_slice(2, 2, &[-gamma, gamma, gamma, -gamma]);
    let id = DMatrix::<f64>::identity(2, 2);
    let q = Qbd::new(
        &t - &id * lambda,
        &id * lambda,
        &id * mu,
        &id * lambda,
        &t - &id * (lambda + mu),
        &id * mu,
    )
    .unwrap();
    let (a, b_lin) = (2.0 * gamma * mu, 2.0 * gamma + mu - lambda);
    let b = (-b_lin + (b_lin * b_lin + 4.0 * a * rho).sqrt()) / (2.0 * a);
    let want = &id * rho + &t * b;
    for opts in both_methods() {
        let s = q.solve(&opts).unwrap();
        assert!((&s.r - &want).amax() < 1e-9, "R = {} want {}", s.r, want);
        assert!((s.mean_level() - rho / (1.0 - rho)).abs() < 1e-9);
    }
}

#[test]
fn both_r_methods_agree_on_the_paper_chains() {
    for policy in [Policy::CPssq, Policy::CrEsq, Policy::CruEsq] {
        let limit = policy.max_throughput(0.75, 45.0);
        let lambda = 0.9 * limit;
        let c = chains::chain(policy, lambda, 0.75, 45.0).unwrap();
        let a = c
            .solve(lambda, 0.75, 45.0, &SolveOptions::default())
            .unwrap();
        let b = c
            .solve(lambda, 0.75, 45.0, &SolveOptions::iteration())
            .unwrap();
        assert!(
            (a.mean_queue / b.mean_queue - 1.0).abs() < 1e-9,
            "{policy:?}"
        );
        assert!(
            a.iterations < 20 && b.iterations > a.iterations,
            "{} vs {}",
            a.iterations,
            b.iterations
        );
    }
}

#[test]
fn stability_test_agrees_with_the_closed_form_limits_on_a_grid_of_p_r() {
    let mu = 45.0;
    for policy in [
        Policy::SPssq,
        Policy::CPssq,
        Policy::CrEsq,
        Policy::CruEsq,
        Policy::MrEsq,
    ] {
        for i in 0..=20 {
            let p_r = f64::from(i) / 20.0;
            let limit = policy.max_throughput(p_r, mu);
            let by_drift = chains::max_throughput(policy, p_r, mu).unwrap();
            assert!(
                (by_drift / limit - 1.0).abs() < 1e-9,
                "{policy:?} p_r = {p_r}: drift gives {by_drift}, closed form {limit}"
            );
            for (factor, stable) in [(0.999, true), (1.001, false)] {
                let lambda = factor * limit;
                let drift = chains::chain(policy, lambda, p_r, mu)
                    .unwrap()
                    .qbd
                    .drift()
                    .unwrap();
                assert_eq!(
                    drift.is_stable(),
                    stable,
                    "{policy:?} p_r = {p_r} λ = {lambda}"
                );
            }
        }
    }
}

#[test]
fn unstable_rates_are_errors_stating_the_limit() {
    let e = analyse(Policy::CPssq, 46.0, 0.75, 45.0).unwrap_err();
    let limit = Policy::CPssq.max_throughput(0.75, 45.0);
    assert_eq!(
        e,
        AnalysisError::Unstable {
            policy: "C-PSSQ",
            lambda: 46.0,
            limit,
            p_r: 0.75,
            service: "exponential service, μ = 45/s".into()
        }
    );
    assert!(e.to_string().contains(&format!("{limit:.4}")), "{e}");
    let e = analyse(Policy::CrEsq, 10.0, 1.5, 45.0).unwrap_err();
    assert!(e.to_string().contains("p_r"), "{e}");
}

#[test]
fn phase_type_chains_of_the_serial_policies_match_pollaczek_khinchine() {
    for policy in [Policy::SPssq, Policy::MrEsq] {
        for lambda in [5.0, 20.0, 35.0] {
            let chain = analyse(policy, lambda, 0.75, 45.0).unwrap();
            let pk = serial_response(policy, lambda, 0.75, 45.0).unwrap();
            for (a, b) in [
                (chain.response.read, pk.read),
                (chain.response.update, pk.update),
                (chain.in_system_response.unwrap(), pk.overall),
            ] {
                assert!(
                    (a / b - 1.0).abs() < 1e-9,
                    "{policy:?} λ = {lambda}: {a} vs {b}"
                );
            }
        }
    }
}

#[test]
fn littles_law_on_the_whole_system_matches_queue_plus_service() {
    // E[N + in service]/λ must equal W_q + mean service: checks every rate
    // of the generators against the service times they imply.
    for policy in [Policy::SPssq, Policy::CPssq, Policy::CrEsq, Policy::MrEsq] {
        for frac in [0.2, 0.5, 0.8, 0.95] {
            let lambda = frac * policy.max_throughput(0.75, 45.0);
            let a = analyse(policy, lambda, 0.75, 45.0).unwrap();
            let little = a
                .in_system_response
                .expect("phases tell the requests in service");
            assert!(
                (little / a.response.overall - 1.0).abs() < 1e-9,
                "{policy:?} λ = {lambda}: {little} vs {}",
                a.response.overall
            );
        }
    }
}

#[test]
fn policies_order_as_in_figure_2() {
    // Under load the PSSQ policies are worst; MR-ESQ beats them.
    let overall = |p: Policy| analyse(p, 35.0, 0.75, 45.0).unwrap().response.overall;
    assert!(overall(Policy::CPssq) < overall(Policy::SPssq));
    assert!(overall(Policy::CruEsq) < overall(Policy::CrEsq));
    assert!(overall(Policy::CrEsq) < overall(Policy::CPssq));
}
