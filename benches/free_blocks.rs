//! The eager-writing search: the free block a Cheetah 9LP's heads reach
//! soonest, from a random arm at a random moment, on a region of a ninth of
//! the disk (the 2×9×2 EW-Array with a database of one disk) at dilution
//! 2 (every other block free) and at dilution 1.1 (one block in eleven),
//! against the same answer found by a linear scan of the region's blocks
//! with the model's own estimate.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use disk_emu::Stream;
use disk_emu::disk::{DiskModel, presets};
use experiments::free_map::{FreeMap, TrackTable};
use sched_core::{Block, Blocks, Cyl, Direction, Head, Kind, Request, RequestId, ServiceEstimator};

fn free_blocks(c: &mut Criterion) {
    let model = DiskModel::from_spec(&presets::cheetah9lp_sync()).expect("a preset");
    let region = model.capacity_blocks() / 8 / 9;
    let table = TrackTable::new(&model, region, 8).expect("a tracked disk");
    let mut group = c.benchmark_group("free_blocks/cheetah9lp");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for (name, every) in [("dilution2", 2), ("dilution1.1", 11)] {
        let mut map = FreeMap::new(&table);
        for slot in (0..table.slots()).step_by(every) {
            map.release(&table, slot);
        }
        let mut rng = Stream::numbered(7);
        let probes: Vec<(Head, u64)> = (0..1024)
            .map(|_| {
                (
                    Head::at(rng.below(u64::from(table.cylinders())) as u32),
                    rng.below(1_000_000_000_000),
                )
            })
            .collect();
        group.bench_function(format!("{name}/search"), |b| {
            let mut i = 0;
            b.iter(|| {
                let (head, now) = probes[i % probes.len()];
                i += 1;
                black_box(map.nearest_free(&table, &model, head, now, Direction::Up))
            })
        });
        group.bench_function(format!("{name}/linear-scan"), |b| {
            let mut i = 0;
            b.iter(|| {
                let (head, now) = probes[i % probes.len()];
                i += 1;
                let best = (0..table.slots())
                    .filter(|&s| map.is_free(s))
                    .filter(|&s| table.location(s).cylinder >= head.cylinder)
                    .map(|s| {
                        let at = table.location(s);
                        let req = Request::new(
                            RequestId(0),
                            Kind::Write,
                            Block(at.block),
                            Blocks(8),
                            Cyl(at.cylinder),
                            0,
                        );
                        (model.positioning_time(head, &req, now), s)
                    })
                    .min();
                black_box(best)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, free_blocks);
criterion_main!(benches);
