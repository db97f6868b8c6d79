//! Emulator throughput: simulated requests per second of wall time on one
//! thread, for a single HP 97560 under an open Poisson workload at 80 % of its
//! capacity for random one-block reads (the `spindle bench emu` experiment).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use disk_emu::disk::presets;
use experiments::{Arrivals, DiskExperiment, Load, RequestMix};

const REQUESTS: u64 = 200_000;

fn emulator(c: &mut Criterion) {
    let disk = presets::hp97560();
    let mix = RequestMix::default();
    let rate = DiskExperiment::rate_for(&disk, &mix, Load::Utilisation(0.8)).expect("a valid load");
    let mut group = c.benchmark_group("emulator/hp97560/load0.8");
    group.throughput(Throughput::Elements(REQUESTS));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    for policy in ["fcfs", "sstf", "look"] {
        let experiment = DiskExperiment {
            disk: disk.clone(),
            policy: policy.parse().expect("a built-in policy"),
            arrivals: Arrivals::Poisson { rate },
            mix,
            requests: REQUESTS,
            warmup: 0,
            seed: 1,
            allow_overload: false,
        };
        group.bench_function(policy, |b| {
            b.iter(|| black_box(experiment.run(0).expect("a stable run")))
        });
    }
    group.finish();
}

criterion_group!(benches, emulator);
criterion_main!(benches);
