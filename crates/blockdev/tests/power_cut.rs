//! A power cut loses exactly the unflushed writes the model says its
//! write-back cache held, and no flushed one: on an emulated Seagate Cheetah
//! 9LP (writes acknowledged once in its buffer), write, flush, write more,
//! cut the power through the control socket, and read back.
//!
//! The wall clock runs at a time scale of 0.05 (the disk 20 times slower
//! than the model), so that the cache holds a write for a good 100 ms of
//! wall time: long enough to cut the power under it.

mod common;

use disk_emu::disk::preset;

use common::{Client, control, options, pattern, socket_dir};

const KB64: usize = 64 * 1024;

#[test]
fn a_power_cut_loses_exactly_what_the_cache_held() {
    let (_dir, socket) = socket_dir();
    let mut o = options(preset("cheetah9lp").unwrap(), 512 << 20, &socket);
    o.time_scale = 0.05;
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    let (a, b, d) = (0u64, 100 << 20, 200 << 20);

    // A, flushed: durable.
    assert_eq!(c.write(a, &pattern(a, KB64, 1), 0), 0);
    assert_eq!(c.flush(), 0);
    // B, then D elsewhere: D waits for B's write-back, so when D is
    // acknowledged B is on the media and D in the cache.
    assert_eq!(c.write(b, &pattern(b, KB64, 2), 0), 0);
    assert_eq!(c.write(d, &pattern(d, KB64, 3), 0), 0);
    let reply = control(&socket, "power-cut");
    assert_eq!(reply, format!("ok lost 0:{}+{}", d / 512, KB64 / 512));

    let mut back = vec![0u8; KB64];
    assert_eq!(c.read(a, &mut back), 0);
    assert!(back == pattern(a, KB64, 1), "a flushed write survives");
    assert_eq!(c.read(b, &mut back), 0);
    assert!(back == pattern(b, KB64, 2), "a written-back write survives");
    assert_eq!(c.read(d, &mut back), 0);
    assert!(back == vec![0u8; KB64], "the write the cache held is lost");

    // Written twice: the second write waits for the first one's write-back,
    // so the cut takes the second and the first comes back.
    assert_eq!(c.write(a, &pattern(a, KB64, 4), 0), 0);
    assert_eq!(c.write(a, &pattern(a, KB64, 5), 0), 0);
    assert_eq!(
        control(&socket, "power-cut"),
        format!("ok lost 0:0+{}", KB64 / 512)
    );
    assert_eq!(c.read(a, &mut back), 0);
    assert!(back == pattern(a, KB64, 4));

    // A write with FUA, and one followed by a flush, lose nothing.
    assert_eq!(c.write(d, &pattern(d, KB64, 6), 1), 0);
    assert_eq!(control(&socket, "power-cut"), "ok lost nothing");
    assert_eq!(c.write(b, &pattern(b, KB64, 7), 0), 0);
    assert_eq!(c.flush(), 0);
    assert_eq!(control(&socket, "power-cut"), "ok lost nothing");
    assert_eq!(c.read(d, &mut back), 0);
    assert!(back == pattern(d, KB64, 6));
    assert_eq!(c.read(b, &mut back), 0);
    assert!(back == pattern(b, KB64, 7));
    c.disconnect();
    server.stop().unwrap();
}
