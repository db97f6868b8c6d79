//! What the disk-emu tests share: one request submitted at the device's
//! clock, and the device run to its next outcome in virtual time.

use disk_emu::{Device, Outcome};
use sched_core::array::{Copies, Location};
use sched_core::{Block, Blocks, Cyl, Kind, Request, RequestId};

/// Submits request `id` of `blocks` blocks from `block`, with a copy at that
/// block on every disk, arriving at the device's clock.
pub(crate) fn submit_now<D: Device>(dev: &mut D, id: u64, kind: Kind, block: u64, blocks: u32) {
    let now = dev.now();
    let copies = Copies::everywhere(dev.disks(), Location { block, cylinder: 0 });
    let req = Request::new(
        RequestId(id),
        kind,
        Block(block),
        Blocks(blocks),
        Cyl(0),
        now,
    );
    dev.submit(req, &copies, now).unwrap();
}

/// Advances the device event by event until it has an outcome.
pub(crate) fn next_outcome<D: Device>(dev: &mut D) -> Outcome {
    loop {
        if let Some(o) = dev.poll() {
            return o;
        }
        let t = dev.next_event_time().expect("a request is in the device");
        dev.advance(t).unwrap();
    }
}
