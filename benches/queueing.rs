//! Cost of the analytic models of Towsley, Chen & Yu (1991, §3): one QBD
//! solve per single-queue chain at the paper's sizes (5, 4 and 2 phases) at
//! 90 % of the stability limit, by logarithmic reduction and by the paper's
//! iteration (the reference in the same run); the fork-join bounds of R-DMQ
//! and CMQ at 90 % of their limit; and every analytic figure of
//! `spindle analyze towsley91`. Targets: a QBD solve under 10 ms, all
//! figures under 2 s.
//!
//! Run with `cargo bench --bench queueing`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use queueing::chains;
use queueing::closed_form::Policy;
use queueing::forkjoin;
use queueing::qbd::SolveOptions;
use spindle::repro::towsley91_analysis;

const MU: f64 = 45.0;
const P_R: f64 = 0.75;

fn qbd(c: &mut Criterion) {
    let mut group = c.benchmark_group("qbd");
    for policy in [Policy::CPssq, Policy::CrEsq, Policy::CruEsq] {
        let lambda = 0.9 * policy.max_throughput(P_R, MU);
        let chain = chains::chain(policy, lambda, P_R, MU).unwrap();
        for (method, opts) in [
            ("logarithmic-reduction", SolveOptions::default()),
            ("iteration", SolveOptions::iteration()),
        ] {
            group.bench_function(BenchmarkId::new(policy.name(), method), |b| {
                b.iter(|| black_box(chain.solve(lambda, P_R, MU, &opts).unwrap()))
            });
        }
    }
    group.finish();
}

fn fork_join(c: &mut Criterion) {
    let mut group = c.benchmark_group("fork-join");
    group.sample_size(20);
    for policy in [Policy::Dmq, Policy::Cmq] {
        let lambda = 0.9 * policy.max_throughput(P_R, MU);
        group.bench_function(policy.name(), |b| {
            b.iter(|| black_box(forkjoin::analyse(policy, lambda, P_R, MU).unwrap()))
        });
    }
    group.finish();
}

fn figures(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyze");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("towsley91-all-figures", |b| {
        b.iter(|| black_box(towsley91_analysis::all().unwrap()))
    });
    group.finish();
}

criterion_group!(benches, qbd, fork_join, figures);
criterion_main!(benches);
