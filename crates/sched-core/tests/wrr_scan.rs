//! WRR-SCAN as a state machine: over random task sets and arrival streams,
//! every accepted request comes back exactly once, no task is served more
//! than its weight in a round (one request a round in versions C and CA),
//! the aperiodic server gets min(waiting, x_a) reads in every round that
//! opens with reads waiting, and a policy holding work always names when it
//! will release it.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use sched_core::policy::{AperiodicReserve, RateTask, WrrMode, WrrParams, WrrScan};
use sched_core::{
    Block, Blocks, Cyl, Head, Inline, Kind, Nanos, Request, RequestId, Scheduler, ServiceEstimator,
};

const MS: Nanos = 1_000_000;
/// Every request takes this long: short enough that a round's reserved
/// sweep always ends within the round.
const SERVICE: Nanos = 1_000;

/// Estimates every service as `SERVICE` (reclaimed time serves all), or as
/// longer than any round (nothing is reclaimed: only the reserved sweeps serve).
struct Fixed {
    reclaim: bool,
}

impl ServiceEstimator for Fixed {
    fn positioning_time(&self, _: Head, _: &Request, _: Nanos) -> Nanos {
        0
    }
    fn service_time(&self, _: Head, _: &Request, _: Nanos) -> Nanos {
        if self.reclaim {
            SERVICE
        } else {
            Nanos::MAX / 4
        }
    }
    fn expected_service_time(&self, _: &Request) -> Nanos {
        SERVICE
    }
}

#[derive(Clone, Debug)]
struct Arrival {
    gap: Nanos,
    /// Index into the admitted classes plus 0 (aperiodic).
    class: usize,
    cylinder: u32,
    /// Fraction of the task's per-round budget, in sixteenths (≥ 1 sector).
    size: u32,
}

fn arrivals() -> impl Strategy<Value = Vec<Arrival>> {
    prop::collection::vec(
        (0u64..40 * MS, 0usize..8, 0u32..1962, 1u32..=16).prop_map(
            |(gap, class, cylinder, size)| Arrival {
                gap,
                class,
                cylinder,
                size,
            },
        ),
        1..300,
    )
}

fn tasks() -> impl Strategy<Value = Vec<(u64, u32)>> {
    prop::collection::vec((200u64..3_000, 1u32..20), 1..7)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn rounds_respect_every_reservation(
        tasks in tasks(),
        arrivals in arrivals(),
        mode in prop_oneof![Just(WrrMode::Random), Just(WrrMode::Contiguous), Just(WrrMode::Aligned)],
        x_a in 0u32..4,
        reclaim in any::<bool>(),
    ) {
        // Without reclaimed time the aperiodic server is all aperiodic work gets.
        let x_a = if reclaim { x_a } else { x_a.max(1) };
        let est = Fixed { reclaim };
        let params = WrrParams::tsai04(mode, AperiodicReserve::Blocks(x_a));
        let mut q: WrrScan<Inline<512>, Inline<8>> =
            WrrScan::new(Inline::new(), Inline::new(), 1962, params).unwrap();
        let mut classes = vec![0u16];
        for (i, &(period_ms, blocks)) in tasks.iter().enumerate() {
            let class = (i + 1) as u16;
            if q.admit(RateTask { class, period: period_ms * MS, blocks }).is_ok() {
                classes.push(class);
            }
        }
        let Some(round) = q.round() else { return Ok(()) };
        let spb = params.block_sectors;
        let budget: BTreeMap<u16, u32> = classes[1..]
            .iter()
            .map(|&c| (c, q.reservation(c).unwrap().blocks_per_round * spb))
            .collect();
        // Arrival times.
        let mut t = 0;
        let stream: Vec<(Nanos, Request)> = arrivals
            .iter()
            .enumerate()
            .map(|(i, a)| {
                t += a.gap;
                let class = classes[a.class % classes.len()];
                let sectors = match budget.get(&class) {
                    Some(&b) => (b * a.size / 16).max(1),
                    None => spb,
                };
                let r = Request::new(RequestId(i as u64), Kind::Read, Block(0), Blocks(sectors), Cyl(a.cylinder), t)
                    .with_class(class);
                (t, r)
            })
            .collect();
        let mut pending: BTreeSet<u64> = BTreeSet::new();
        // (round, class) → (sectors, requests) served.
        let mut served: BTreeMap<(u64, u16), (u32, u32)> = BTreeMap::new();
        let mut aperiodic_waiting: Vec<Nanos> = Vec::new(); // arrival times not yet served
        let mut aperiodic_served: BTreeMap<u64, u64> = BTreeMap::new();
        let mut aperiodic_at_open: BTreeMap<u64, u64> = BTreeMap::new();
        let (mut now, mut next_arrival, mut busy_until) = (0, 0, 0);
        let mut head = Head::at(0);
        loop {
            // Arrivals up to now.
            while next_arrival < stream.len() && stream[next_arrival].0 <= now {
                let r = stream[next_arrival].1;
                q.enqueue(r).unwrap();
                pending.insert(r.id.0);
                if r.class == 0 {
                    aperiodic_waiting.push(r.arrival);
                }
                next_arrival += 1;
            }
            let mut wake = None;
            if busy_until <= now && !q.is_empty() {
                let k = now / round.length;
                aperiodic_at_open
                    .entry(k)
                    .or_insert_with(|| aperiodic_waiting.iter().filter(|&&a| a <= k * round.length).count() as u64);
                match q.next(head, now, &est) {
                    Some(d) => {
                        let r = d.request;
                        prop_assert!(pending.remove(&r.id.0), "request {} returned twice", r.id.0);
                        let e = served.entry((k, r.class)).or_default();
                        e.0 += r.blocks;
                        e.1 += 1;
                        if r.class == 0 {
                            let at = aperiodic_waiting.iter().position(|&a| a == r.arrival).unwrap();
                            aperiodic_waiting.swap_remove(at);
                            *aperiodic_served.entry(k).or_default() += 1;
                        }
                        head = Head::at(r.cylinder);
                        busy_until = now + SERVICE;
                    }
                    None => {
                        let w = q.next_eligible_at(now);
                        prop_assert!(w.is_some_and(|w| w > now), "held work without a wake-up time");
                        wake = w;
                    }
                }
            }
            let mut next = [
                stream.get(next_arrival).map(|a| a.0),
                (busy_until > now).then_some(busy_until),
                wake,
            ]
            .into_iter()
            .flatten()
            .min();
            if next.is_none() && busy_until <= now && !q.is_empty() {
                next = Some(now + 1);
            }
            match next {
                Some(t) => now = t,
                None => break,
            }
            // Every request is served within a round or two once its
            // task's earlier requests are: a generous bound on the run.
            if now > t + (stream.len() as u64 + 2) * 2 * round.length {
                break;
            }
        }
        prop_assert!(pending.is_empty(), "{} requests never served", pending.len());
        let one_piece = mode != WrrMode::Random;
        for (&(k, class), &(sectors, requests)) in &served {
            if class == 0 {
                continue;
            }
            let b = budget[&class];
            prop_assert!(sectors <= b, "round {k}: class {class} got {sectors} of {b} sectors");
            if one_piece {
                prop_assert!(requests <= 1, "round {k}: class {class} served {requests} times");
            }
        }
        for (&k, &waiting) in &aperiodic_at_open {
            let got = aperiodic_served.get(&k).copied().unwrap_or(0);
            prop_assert!(
                got >= waiting.min(u64::from(x_a)),
                "round {k}: {waiting} aperiodic waiting, x_a = {x_a}, served {got}"
            );
        }
    }
}
