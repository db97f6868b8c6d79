//! The disk emulator against the papers' formulas and queueing theory.
//!
//! Where several comparisons are made at once, each uses the Bonferroni share
//! of a 95 % level so that the whole set holds with at least 95 % confidence.

use disk_emu::disk::{DiskModel, presets};
use experiments::MetricTable;
use experiments::seeds::{Purpose, Unit};
use experiments::{Arrivals, DiskExperiment, Load, RequestMix, metric_table};
use sched_core::{Block, Blocks, Cyl, Head, Kind, PolicySpec, Request, RequestId, Travel};

/// Seek time the model charges for moving `distance` cylinders from cylinder 0.
fn seek_ms(model: &mut DiskModel, distance: u32) -> f64 {
    model.set_head(0);
    let sectors_per_cylinder = model.capacity_blocks() / u64::from(model.cylinders());
    let block = u64::from(distance) * sectors_per_cylinder;
    let cylinder = model.locate(block).unwrap();
    assert_eq!(cylinder, distance);
    let req = Request::new(
        RequestId(0),
        Kind::Read,
        Block(block),
        Blocks(1),
        Cyl(cylinder),
        0,
    );
    let mut rng = Unit::new(1, 0, 0).stream(Purpose::Service { disk: 0 });
    model.serve(&req, Travel::Direct, 0, &mut rng).seek as f64 / 1e6
}

#[test]
fn seek_curves_reproduce_the_papers_formulas() {
    // HP 97560 (Ruemmler & Wilkes; WRR-SCAN Table 2).
    let mut hp = DiskModel::from_spec(&presets::hp97560()).unwrap();
    for d in [1u32, 10, 100, 382] {
        let want = 3.24 + 0.400 * f64::from(d).sqrt();
        assert!(
            (seek_ms(&mut hp, d) - want).abs() < 1e-6,
            "HP 97560 d = {d}"
        );
    }
    for d in [383u32, 1000, 1961] {
        let want = 8.00 + 0.008 * f64::from(d);
        assert!(
            (seek_ms(&mut hp, d) - want).abs() < 1e-6,
            "HP 97560 d = {d}"
        );
    }
    assert_eq!(seek_ms(&mut hp, 0), 0.0);
    // HP 7935 and 7937 (Lo, Ivy §4.2), on both sides of each boundary: the
    // long-seek slopes read as 0.021 and 0.018, and as printed (0.21, 0.18).
    let mut h35 = DiskModel::from_spec(&presets::hp7935()).unwrap();
    for d in [1u32, 342] {
        let x = f64::from(d);
        assert!((seek_ms(&mut h35, d) - (3.993 + 1.676 * x.sqrt() - 0.025 * x)).abs() < 1e-6);
    }
    assert!((seek_ms(&mut h35, 343) - (19.502 + 0.021 * 343.0)).abs() < 1e-6);
    let mut printed = DiskModel::from_spec(&presets::hp7935_printed()).unwrap();
    assert!((seek_ms(&mut printed, 343) - (19.502 + 0.21 * 343.0)).abs() < 1e-6);
    let mut h37 = DiskModel::from_spec(&presets::hp7937()).unwrap();
    for d in [1u32, 384] {
        let x = f64::from(d);
        assert!((seek_ms(&mut h37, d) - (4.119 + 0.890 * x.sqrt() - 0.004 * x)).abs() < 1e-6);
    }
    assert!((seek_ms(&mut h37, 385) - (12.909 + 0.018 * 385.0)).abs() < 1e-6);
    let mut printed = DiskModel::from_spec(&presets::hp7937_printed()).unwrap();
    assert!((seek_ms(&mut printed, 385) - (12.909 + 0.18 * 385.0)).abs() < 1e-6);
    // Chen & Towsley (1991): a + b·√i with a = 8 ms, b = 0.5 ms.
    let mut ct = DiskModel::from_spec(&presets::chen_towsley_91()).unwrap();
    for d in [1u32, 100, 999] {
        assert!((seek_ms(&mut ct, d) - (8.0 + 0.5 * f64::from(d).sqrt())).abs() < 1e-6);
    }
}

#[test]
fn mean_rotational_latency_is_half_a_revolution() {
    let mut model = DiskModel::from_spec(&presets::hp97560()).unwrap();
    let revolution = model.revolution().unwrap() as f64;
    let mut rng = Unit::new(5, 0, 0).stream(Purpose::Addresses);
    let mut service = Unit::new(5, 0, 0).stream(Purpose::Service { disk: 0 });
    let n = 200_000;
    let mut total = 0.0;
    let mut counted = 0u32;
    let mut now = 0;
    for i in 0..n {
        let block = rng.below(model.capacity_blocks());
        let cylinder = model.locate(block).unwrap();
        let req = Request::new(
            RequestId(i),
            Kind::Read,
            Block(block),
            Blocks(1),
            Cyl(cylinder),
            now,
        );
        let b = model.serve(&req, Travel::Direct, now, &mut service);
        // Without a seek, rotation may include a head switch: count only
        // requests the arm moved for.
        if b.seek_distance > 0 {
            total += b.rotation as f64;
            counted += 1;
        }
        now += b.total() + rng.below(10_000_000);
    }
    let mean = total / f64::from(counted);
    assert!(
        (mean / (revolution / 2.0) - 1.0).abs() < 0.01,
        "mean latency {mean} ns, revolution {revolution} ns"
    );
}

fn experiment(policy: &str, disk: disk_emu::disk::DiskSpec, arrivals: Arrivals) -> DiskExperiment {
    DiskExperiment {
        disk,
        policy: policy.parse::<PolicySpec>().unwrap(),
        arrivals,
        mix: RequestMix::default(),
        requests: 20_000,
        warmup: 2_000,
        seed: 5,
        allow_overload: false,
    }
}

fn table(e: &DiskExperiment, replications: u64) -> MetricTable {
    metric_table(&e.run_replications(replications, 2).unwrap()).unwrap()
}

#[test]
fn fcfs_with_exponential_service_is_mm1() {
    let mu = 45.0;
    let level = 1.0 - 0.05 / 3.0;
    for rho in [0.3, 0.6, 0.85] {
        let lambda = rho * mu;
        let e = experiment(
            "fcfs",
            presets::exponential(mu),
            Arrivals::Poisson { rate: lambda },
        );
        let m = table(&e, 20);
        let want_ms = 1e3 / (mu - lambda);
        let i = m.interval("response_ms", level).unwrap();
        assert!(
            i.contains(want_ms),
            "ρ = {rho}: simulated {:.3} ± {:.3} ms, M/M/1 {want_ms:.3} ms",
            i.mean,
            i.half_width.unwrap()
        );
        let u = m.interval("utilisation", level).unwrap();
        assert!(
            (u.mean - rho).abs() < 0.01,
            "ρ = {rho}: utilisation {}",
            u.mean
        );
    }
}

#[test]
fn hp97560_depth_one_service_is_seek_plus_half_revolution_plus_transfer_plus_overhead() {
    let disk = presets::hp97560();
    let model = DiskModel::from_spec(&disk).unwrap();
    let expected = (model.mean_random_seek()
        + model.revolution().unwrap() / 2
        + model.transfer_time(0, 1)
        + model.overhead()) as f64
        / 1e6;
    // One client with think time: one request at a time, arriving at random angles.
    let e = experiment(
        "fcfs",
        disk,
        Arrivals::Closed {
            clients: 1,
            think_ms: 10.0,
        },
    );
    let m = table(&e, 5);
    let service = m.interval("service_ms", 0.95).unwrap().mean;
    assert!(
        (service / expected - 1.0).abs() < 0.02,
        "measured {service:.3} ms, model {expected:.3} ms"
    );
    assert!(m.interval("waiting_ms", 0.95).unwrap().mean == 0.0);
}

#[test]
fn sstf_and_look_beat_fcfs_at_high_load() {
    let disk = presets::hp97560();
    let rate =
        DiskExperiment::rate_for(&disk, &RequestMix::default(), Load::Utilisation(0.9)).unwrap();
    let response = |policy: &str| {
        let m = table(
            &experiment(policy, disk.clone(), Arrivals::Poisson { rate }),
            10,
        );
        m.interval("response_ms", 1.0 - 0.05 / 3.0).unwrap()
    };
    let fcfs = response("fcfs");
    for policy in ["sstf", "look"] {
        let r = response(policy);
        assert!(
            r.upper() < fcfs.lower(),
            "{policy} {:.2} ms vs FCFS {:.2} ms",
            r.mean,
            fcfs.mean
        );
        assert!(
            r.mean < 0.8 * fcfs.mean,
            "{policy} {:.2} ms vs FCFS {:.2} ms",
            r.mean,
            fcfs.mean
        );
    }
}

#[test]
fn estimator_and_service_agree_on_the_hp97560() {
    // What SPTF and FD-SCAN are told is what the disk then does.
    use sched_core::ServiceEstimator;
    let mut model = DiskModel::from_spec(&presets::hp97560()).unwrap();
    let mut rng = Unit::new(9, 0, 0).stream(Purpose::Addresses);
    let mut service = Unit::new(9, 0, 0).stream(Purpose::Service { disk: 0 });
    let mut now = 1_000;
    for i in 0..1_000 {
        let block = rng.below(model.capacity_blocks() - 16);
        let req = Request::new(
            RequestId(i),
            Kind::Read,
            Block(block),
            Blocks(16),
            Cyl(model.locate(block).unwrap()),
            now,
        );
        let head: Head = model.head();
        let estimate = model.service_time(head, &req, now);
        let actual = model.serve(&req, Travel::Direct, now, &mut service).total();
        assert_eq!(estimate, actual, "request {i}");
        now += actual + rng.below(3_000_000);
    }
}
