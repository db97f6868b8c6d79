//! One property per policy that pins its definition, checked at every
//! dispatch of random scenarios against a brute-force computation over the
//! queued requests. Each property states the paper's rule in its simplest
//! form and then, where the parameters allow exact arithmetic, also demands
//! the exact request the definition (with the documented tie-breaks) serves.

mod common;

use common::{
    Model, Scenario, TestEstimator, View, distance, edf_key, elevator, fifo_key, k_nearest,
    nearest_down, nearest_up, run_any, run_concrete, scenario,
};
use proptest::prelude::*;
use sched_core::{
    Block, Blocks, Cyl, Direction, Dispatch, ExpiredRule, Nanos, PolicySpec, Request,
    ServiceEstimator, Travel,
};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

/// Runs `spec` on the scenario at three capacities (8 fills up often; 512
/// gives deep heaps and trees, and buckets of single cylinders on small
/// disks) and as its concrete type, calling `prop` at every dispatch with a
/// fresh exact model per run (12 is not a power of two, unlike the others).
fn each_dispatch(spec: PolicySpec, sc: &Scenario, prop: impl Fn(&View, &Dispatch, &mut Model)) {
    for run in [
        run_any::<8>,
        run_any::<64>,
        run_any::<512>,
        run_concrete::<12>,
    ] {
        let mut model = Model::new(spec);
        run(spec, sc, &mut |v, d| {
            // The property sees the direction the model had before the decision.
            let before = model;
            prop(v, d, &mut model.clone());
            model = before;
            model.check(v, d);
        });
    }
}

fn queued<'a>(v: &'a View) -> Vec<&'a Request> {
    v.live.values().collect()
}

proptest! {
    #![proptest_config(config())]

    /// FCFS serves the earliest arrival (then the lower id).
    #[test]
    fn fcfs_serves_the_earliest_arrival(sc in scenario(200)) {
        each_dispatch(PolicySpec::Fcfs, &sc, |v, d, _| {
            let first = queued(v).into_iter().min_by_key(|r| fifo_key(r)).unwrap();
            assert_eq!(&d.request, first);
        });
    }

    /// SSTF serves a request at the minimum cylinder distance.
    #[test]
    fn sstf_serves_a_nearest_request(sc in scenario(200)) {
        each_dispatch(PolicySpec::Sstf, &sc, |v, d, _| {
            let min = queued(v).iter().map(|r| distance(v.head, r)).min().unwrap();
            assert_eq!(distance(v.head, &d.request), min);
        });
    }

    /// SSEDO with β = 1 is SSTF inside the window of the m earliest deadlines.
    #[test]
    fn ssedo_beta_one_is_sstf_in_the_window(sc in scenario(200)) {
        for m in [1, 3, 5, 64] {
            each_dispatch(PolicySpec::Ssedo { m, beta: 1.0 }, &sc, |v, d, _| {
                let mut window = queued(v);
                window.sort_by_key(|r| edf_key(r));
                window.truncate(m);
                assert!(window.contains(&&d.request), "served outside the window");
                let min = window.iter().map(|r| distance(v.head, r)).min().unwrap();
                assert_eq!(distance(v.head, &d.request), min);
            });
        }
    }

    /// SSEDO with a very large β is EDF — except that a request at distance 0
    /// has priority value 0 whatever its weight, so the earliest-deadline
    /// request on the arm's cylinder within the window wins if there is one.
    #[test]
    fn ssedo_huge_beta_is_edf(sc in scenario(200)) {
        for beta in [1e12, f64::INFINITY] {
            each_dispatch(PolicySpec::Ssedo { m: 4, beta }, &sc, |v, d, _| {
                let mut window = queued(v);
                window.sort_by_key(|r| edf_key(r));
                window.truncate(4);
                let expected = window
                    .iter()
                    .find(|r| distance(v.head, r) == 0)
                    .unwrap_or(&window[0]);
                assert_eq!(&d.request, *expected);
            });
        }
    }

    /// SSEDO serves the least w_i·d_i with w_i = β^(i−1) (exact for β = 2, 1.5).
    #[test]
    fn ssedo_serves_the_least_weighted_distance(sc in scenario(200)) {
        for (m, beta) in [(3, 2.0), (6, 1.5), (1, 2.0)] {
            each_dispatch(PolicySpec::Ssedo { m, beta }, &sc, |v, d, model| {
                assert_eq!(model.expect(v).map(|e| e.0), Some(d.request));
            });
        }
    }

    /// LOOK never reverses while a request lies ahead in its direction.
    #[test]
    fn look_never_reverses_with_work_ahead(sc in scenario(200)) {
        each_dispatch(PolicySpec::Look, &sc, |v, d, model| {
            let h = v.head.cylinder;
            let ahead = |r: &Request| match model.direction {
                Direction::Up => r.cylinder >= h,
                Direction::Down => r.cylinder <= h,
            };
            if queued(v).iter().any(|r| ahead(r)) {
                assert!(ahead(&d.request), "reversed with a request ahead");
            }
        });
    }

    /// C-LOOK only serves upward, except for the wrap to the lowest request.
    #[test]
    fn clook_serves_upward_except_the_wrap(sc in scenario(200)) {
        each_dispatch(PolicySpec::CLook, &sc, |v, d, _| {
            let h = v.head.cylinder;
            if d.request.cylinder < h {
                assert!(queued(v).iter().all(|r| r.cylinder < h), "wrapped with work above");
                let lowest = queued(v).iter().map(|r| r.cylinder).min().unwrap();
                assert_eq!(d.request.cylinder, lowest, "wrapped past the lowest request");
            }
        });
    }

    /// EDF serves an earliest deadline (no deadline sorts last).
    #[test]
    fn edf_serves_an_earliest_deadline(sc in scenario(200)) {
        each_dispatch(PolicySpec::Edf, &sc, |v, d, _| {
            let min = queued(v).iter().map(|r| r.deadline_key()).min().unwrap();
            assert_eq!(d.request.deadline_key(), min);
        });
    }

    /// FD-SCAN never passes over a request on its way to its target: the
    /// served request lies between the arm and the earliest-feasible-deadline
    /// request (inclusive), and nothing the policy may serve lies strictly
    /// between the arm and it.
    #[test]
    fn fd_scan_never_passes_over_a_request(sc in scenario(200)) {
        for expired in [ExpiredRule::Keep, ExpiredRule::Drop] {
            each_dispatch(PolicySpec::FdScan { expired }, &sc, |v, d, _| {
                let est = TestEstimator;
                let (h, now) = (v.head, v.now);
                let servable: Vec<&Request> = queued(v)
                    .into_iter()
                    .filter(|r| expired == ExpiredRule::Keep || r.deadline_key() >= now)
                    .collect();
                let target = servable
                    .iter()
                    .filter(|r| match r.deadline {
                        Some(dl) => dl != Nanos::MAX && dl >= now + est.service_time(h, r, now),
                        None => false,
                    })
                    .min_by_key(|r| edf_key(r));
                let c = d.request.cylinder;
                if let Some(t) = target {
                    let (lo, hi) = (h.cylinder.min(t.cylinder), h.cylinder.max(t.cylinder));
                    assert!((lo..=hi).contains(&c), "served {c} outside [{lo}, {hi}]");
                }
                let (lo, hi) = (h.cylinder.min(c), h.cylinder.max(c));
                assert!(
                    !servable.iter().any(|r| lo < r.cylinder && r.cylinder < hi
                        || (r.cylinder == h.cylinder && c != h.cylinder)),
                    "passed over a request between {} and {c}", h.cylinder
                );
            });
        }
    }

    /// FD-SCAN in drop mode never dispatches an expired request.
    #[test]
    fn fd_scan_drop_never_dispatches_expired(sc in scenario(200)) {
        each_dispatch(PolicySpec::FdScan { expired: ExpiredRule::Drop }, &sc, |v, d, _| {
            assert!(d.request.deadline_key() >= v.now, "dispatched an expired request");
        });
    }

    /// SSEDV serves the brute-force minimum of α·d + (1 − α)·l (d in
    /// cylinders, l in `unit` ns; no deadline counts as due at `Nanos::MAX`;
    /// ties by earlier deadline, arrival, id). Exact for α a multiple of 2⁻¹⁶;
    /// for α = 0.3 within the documented rounding of α.
    #[test]
    fn ssedv_serves_the_least_priority_value(sc in scenario(200)) {
        for (alpha, unit) in [(0.5, 1_000_000), (0.0, 1_000_000), (1.0, 1_000_000), (0.25, 1_000), (0.3, 1_000_000)] {
            each_dispatch(PolicySpec::Ssedv { alpha, unit }, &sc, |v, d, model| {
                let value = |r: &Request, a: f64| {
                    a * f64::from(distance(v.head, r))
                        + (1.0 - a) * (r.deadline_key() as f64 - v.now as f64) / unit as f64
                };
                let min = queued(v).iter().map(|r| value(r, alpha)).fold(f64::INFINITY, f64::min);
                let got = value(&d.request, alpha);
                // α is rounded to 2⁻¹⁶: allow that much of either term, plus float rounding.
                let slack = |r: &Request| {
                    2f64.powi(-17) * (f64::from(distance(v.head, r))
                        + ((r.deadline_key() as f64 - v.now as f64) / unit as f64).abs())
                };
                let tolerance = slack(&d.request) + queued(v).iter().map(|r| slack(r)).fold(0.0, f64::max);
                assert!(got <= min + tolerance + 1e-9 * min.abs(), "value {got} above the minimum {min}");
                if alpha != 0.3 {
                    assert_eq!(model.expect(v).map(|e| e.0), Some(d.request));
                }
            });
        }
    }

    /// SCAN-EDF serves the earliest deadline group, in elevator order within it.
    #[test]
    fn scan_edf_serves_the_earliest_group_in_elevator_order(sc in scenario(200)) {
        for granularity in [1, 10_000_000, 1_000_000_000] {
            each_dispatch(PolicySpec::ScanEdf { granularity }, &sc, |v, d, model| {
                let group = |r: &Request| r.deadline_key() / granularity;
                let g = queued(v).iter().map(|r| group(r)).min().unwrap();
                assert_eq!(group(&d.request), g, "served outside the earliest group");
                let members: Vec<&Request> = queued(v).into_iter().filter(|r| group(r) == g).collect();
                let (r, _) = elevator(&members, v.head.cylinder, model.direction).unwrap();
                assert_eq!(&d.request, r);
            });
        }
    }

    /// SCAN reports the trip to the edge when it reverses; C-SCAN reports the
    /// wrap when it returns to the lowest request; neither otherwise.
    #[test]
    fn scan_and_cscan_report_their_travel(sc in scenario(200)) {
        each_dispatch(PolicySpec::Scan, &sc, |v, d, model| {
            let h = v.head.cylinder;
            let (_, dir) = elevator(&queued(v), h, model.direction).unwrap();
            let edge = match model.direction { Direction::Up => v.cylinders - 1, Direction::Down => 0 };
            let expected = if dir != model.direction && h != edge {
                Travel::ViaEdge { edge }
            } else {
                Travel::Direct
            };
            assert_eq!(d.travel, expected);
        });
        each_dispatch(PolicySpec::CScan, &sc, |v, d, _| {
            let wrapped = nearest_up(&queued(v), v.head.cylinder).is_none();
            let expected = if wrapped {
                Travel::Wrap { edge: v.cylinders - 1, restart: 0 }
            } else {
                Travel::Direct
            };
            assert_eq!(d.travel, expected);
        });
    }

    /// VSCAN(0) serves a nearest request; any VSCAN(R) serves the nearest
    /// request ahead or the nearest behind.
    #[test]
    fn vscan_zero_serves_a_nearest_request(sc in scenario(200)) {
        each_dispatch(PolicySpec::VScan { r: 0.0 }, &sc, |v, d, _| {
            let min = queued(v).iter().map(|r| distance(v.head, r)).min().unwrap();
            assert_eq!(distance(v.head, &d.request), min);
        });
        for r in [0.2, 0.5] {
            each_dispatch(PolicySpec::VScan { r }, &sc, |v, d, _| {
                let h = v.head.cylinder;
                let up = nearest_up(&queued(v), h).copied();
                let down = nearest_down(&queued(v), h).copied();
                assert!(Some(d.request) == up || Some(d.request) == down);
            });
        }
    }

    /// VSCAN(1) behaves exactly as LOOK.
    #[test]
    fn vscan_one_is_look(sc in scenario(200)) {
        let look = run_any::<8>(PolicySpec::Look, &sc, &mut |_, _| {});
        let vscan = run_any::<8>(PolicySpec::VScan { r: 1.0 }, &sc, &mut |_, _| {});
        prop_assert_eq!(look, vscan);
    }

    /// SPTF serves the least positioning time; with a window of k, the least
    /// among the k requests nearest the arm (distance, arrival, id).
    #[test]
    fn sptf_serves_the_least_positioning_time(sc in scenario(200)) {
        for window in [None, Some(1), Some(3)] {
            each_dispatch(PolicySpec::Sptf { window }, &sc, |v, d, _| {
                let est = TestEstimator;
                let cands = k_nearest(&queued(v), v.head, window.unwrap_or(usize::MAX));
                assert!(cands.contains(&&d.request), "served outside the window");
                let min = cands.iter().map(|r| est.positioning_time(v.head, r, v.now)).min().unwrap();
                assert_eq!(est.positioning_time(v.head, &d.request, v.now), min);
            });
        }
    }

    /// Aged SPTF with weight 0 is SPTF; with a weight it serves the least
    /// positioning time minus weight × waiting time (exact for 1/64).
    #[test]
    fn aged_sptf_zero_weight_is_sptf(sc in scenario(200)) {
        for window in [None, Some(2)] {
            let sptf = run_any::<8>(PolicySpec::Sptf { window }, &sc, &mut |_, _| {});
            let aged = run_any::<8>(PolicySpec::AgedSptf { weight: 0.0, window }, &sc, &mut |_, _| {});
            prop_assert_eq!(sptf, aged);
        }
        each_dispatch(PolicySpec::AgedSptf { weight: 1.0 / 64.0, window: Some(4) }, &sc, |v, d, model| {
            assert_eq!(model.expect(v).map(|e| e.0), Some(d.request));
        });
    }

    /// mq-deadline serves what its documentation says, at the kernel's
    /// tunables and at short ones that expire requests, end batches and
    /// starve writes within a scenario: the brute-force model recomputes
    /// every decision from the batch, the FIFOs and the per-direction
    /// positions (`each_dispatch` checks the model).
    #[test]
    fn mq_deadline_follows_its_documentation(sc in scenario(200)) {
        for (read_expire, write_expire, fifo_batch, writes_starved) in
            [(500_000_000, 5_000_000_000, 16, 2), (1_000_000, 5_000_000, 3, 1), (0, 0, 1, 0)]
        {
            let spec = PolicySpec::MqDeadline { read_expire, write_expire, fifo_batch, writes_starved };
            each_dispatch(spec, &sc, |_, _, _| {});
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// FD-SCAN in drop mode hands over, through `take_expired`, exactly the
    /// requests whose deadline has passed, and keeps the others.
    #[test]
    fn fd_scan_drop_hands_expired_requests_over(
        reqs in prop::collection::vec((0u32..100, prop::option::of(0u64..1_000)), 1..40),
        now in 0u64..1_200,
    ) {
        use sched_core::{Kind, RequestId, Scheduler, policy::FdScan};
        let mut q = FdScan::new(sched_core::Inline::<64>::new(), 100, ExpiredRule::Drop).unwrap();
        for (i, (cyl, deadline)) in reqs.iter().enumerate() {
            let mut r = Request::new(RequestId(i as u64), Kind::Read, Block(0), Blocks(1), Cyl(*cyl), 0);
            r.deadline = *deadline;
            q.enqueue(r).unwrap();
        }
        let mut expired: Vec<u64> = std::iter::from_fn(|| q.take_expired(now)).map(|r| r.id.0).collect();
        expired.sort();
        let expected: Vec<u64> = reqs
            .iter()
            .enumerate()
            .filter(|(_, (_, d))| d.is_some_and(|d| d < now))
            .map(|(i, _)| i as u64)
            .collect();
        prop_assert_eq!(&expired, &expected);
        prop_assert_eq!(q.len(), reqs.len() - expected.len());
        // Keep mode sets nothing aside.
        let mut keep = FdScan::new(sched_core::Inline::<64>::new(), 100, ExpiredRule::Keep).unwrap();
        for (i, (cyl, deadline)) in reqs.iter().enumerate() {
            let mut r = Request::new(RequestId(i as u64), Kind::Read, Block(0), Blocks(1), Cyl(*cyl), 0);
            r.deadline = *deadline;
            keep.enqueue(r).unwrap();
        }
        prop_assert!(keep.take_expired(now).is_none());
    }
}

proptest! {
    #![proptest_config(config())]

    /// C-LOOK's `work_ahead` is exactly the expected work of the requests it
    /// then serves before the new one, when nothing else arrives; FCFS
    /// leaves the answer to the caller (everything queued comes first).
    #[test]
    fn work_ahead_is_the_work_served_first(
        queued in prop::collection::vec((0u32..100, 1u32..64), 0..40),
        arm in 0u32..100,
        new in (0u32..100, 1u32..64),
    ) {
        use sched_core::policy::{CLook, Fcfs};
        use sched_core::{Head, Inline, Kind, RequestId, Scheduler};
        let est = TestEstimator;
        let mut clook = CLook::new(Inline::<64>::new(), 100).unwrap();
        let mut fcfs = Fcfs::new(Inline::<64>::new());
        for (i, &(cyl, blocks)) in queued.iter().enumerate() {
            let r = Request::new(RequestId(i as u64), Kind::Read, Block(0), Blocks(blocks), Cyl(cyl), 0);
            clook.enqueue(r).unwrap();
            fcfs.enqueue(r).unwrap();
        }
        let r = Request::new(RequestId(99), Kind::Read, Block(0), Blocks(new.1), Cyl(new.0), 1);
        prop_assert_eq!(fcfs.work_ahead(&r, Head::at(arm), &est), None);
        let predicted = clook.work_ahead(&r, Head::at(arm), &est);
        clook.enqueue(r).unwrap();
        let (mut head, mut served) = (Head::at(arm), 0);
        loop {
            let d = clook.next(head, 1, &est).unwrap();
            if d.request.id == r.id {
                break;
            }
            served += est.expected_service_time(&d.request);
            head = Head::at(d.request.cylinder);
        }
        prop_assert_eq!(predicted, Some(served));
    }
}
