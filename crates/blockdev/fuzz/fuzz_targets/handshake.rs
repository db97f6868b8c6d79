//! The handshake: any bytes, fed in any split, give replies and an end
//! without a panic, never consuming more than was given.
#![no_main]

use blockdev::nbd::{Export, Handshake, Step};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let export = Export {
        name: "disk".into(),
        description: "fuzz".into(),
        size: 1 << 30,
        flags: 1,
        block_sizes: (1, 4096, 32 << 20),
    };
    // The first byte chooses how the rest arrives: in pieces of 1..=256 bytes.
    let Some((&split, input)) = data.split_first() else {
        return;
    };
    let piece = usize::from(split) + 1;
    let mut h = Handshake::new(&export);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for chunk in input.chunks(piece) {
        buf.extend_from_slice(chunk);
        loop {
            match h.step(&buf, &mut out) {
                Ok((0, Step::NeedMore)) => break,
                Ok((n, Step::NeedMore)) => {
                    assert!(n <= buf.len());
                    buf.drain(..n);
                }
                Ok((n, _)) => {
                    assert!(n <= buf.len());
                    return;
                }
                Err(_) => return,
            }
        }
    }
});
