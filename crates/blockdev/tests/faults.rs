//! Faults through the control socket while serving: media errors fail
//! reads with EIO until rewritten (a mirror reads the other copy instead),
//! a slowed disk serves about k times as slowly (in the model's time the
//! server reports), and a failed single disk answers EIO until replaced.
//! Also: the server over TCP.

mod common;

use blockdev::{Layout, Listen};
use disk_emu::disk::presets;

use common::{Client, control, model_times, options, pattern, socket_dir};

const SIZE: u64 = 64 << 20;
const READS: u64 = 100;

#[test]
fn media_errors_fail_reads_until_rewritten_and_a_mirror_reads_the_other_copy() {
    let (_dir, socket) = socket_dir();
    let mut o = options(presets::hp97560(), SIZE, &socket);
    o.time_scale = 50.0;
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    let data = pattern(4096, 4096, 1);
    assert_eq!(c.write(4096, &data, 0), 0);
    assert_eq!(control(&socket, "media-error 0 10 2"), "ok");
    let mut back = vec![0u8; 4096];
    assert_eq!(c.read(4096, &mut back), 5, "EIO");
    assert_eq!(c.read(8192, &mut back), 0, "the blocks beside are fine");
    assert_eq!(c.write(4096, &data, 0), 0);
    assert_eq!(c.read(4096, &mut back), 0, "rewritten");
    assert!(back == data);
    assert!(control(&socket, "media-error 3 0 1").starts_with("error: disk 3 is not in"));
    // A failed single disk answers EIO until replaced.
    assert_eq!(control(&socket, "fail 0"), "ok");
    assert_eq!(c.read(4096, &mut back), 5);
    assert_eq!(control(&socket, "replace 0"), "ok");
    assert_eq!(c.read(4096, &mut back), 0);
    c.disconnect();
    server.stop().unwrap();

    let mut o = options(presets::hp97560(), SIZE, &socket);
    o.time_scale = 50.0;
    o.layout = Layout::Mirror {
        policy: "dmq".parse().unwrap(),
        disks: 2,
    };
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    assert_eq!(c.write(4096, &data, 0), 0);
    assert_eq!(control(&socket, "media-error 0 0 100"), "ok");
    assert_eq!(control(&socket, "media-error 1 0 100"), "ok");
    assert_eq!(c.read(4096, &mut back), 5, "no readable copy: EIO");
    assert_eq!(c.write(0, &pattern(0, 8192, 2), 0), 0);
    assert_eq!(control(&socket, "media-error 1 0 100"), "ok");
    // Disk 1 cannot read it, disk 0 was rewritten: every read succeeds.
    for _ in 0..20 {
        assert_eq!(c.read(4096, &mut back), 0);
        assert!(back == pattern(0, 8192, 2)[4096..]);
    }
    c.disconnect();
    server.stop().unwrap();
}

#[test]
fn a_slowed_disk_serves_about_k_times_as_slowly_over_tcp() {
    let (_dir, socket) = socket_dir();
    let mut o = options(presets::hp97560(), SIZE, &socket);
    o.time_scale = 10.0;
    o.listen = Listen::Tcp("127.0.0.1:0".parse().unwrap());
    let server = blockdev::start(&o).unwrap();
    let Listen::Tcp(addr) = server.listening().clone() else {
        panic!("listening on TCP");
    };
    let mut c = Client::connect_tcp(addr);
    let mut back = vec![0u8; 4096];
    // The same random addresses both times; the times are the model's, as
    // the server reports them, whatever the machine's load.
    let mut mean = |c: &mut Client| {
        let mut rng = disk_emu::Stream::numbered(5);
        let before = model_times(&socket);
        for _ in 0..READS {
            let block = rng.below(SIZE / 4096);
            assert_eq!(c.read(block * 4096, &mut back), 0);
        }
        let after = model_times(&socket);
        assert_eq!(after.modelled - before.modelled, READS);
        after.mean_response_since(&before)
    };
    let normal = mean(&mut c);
    assert_eq!(control(&socket, "slow 0 4 1000"), "ok");
    let slow = mean(&mut c);
    let ratio = slow / normal;
    println!("slowed by 4: mean read {slow:.3} ms against {normal:.3} ms (ratio {ratio:.2})");
    // Measured: 3.93 and 4.12 (the same seeks, rotations drawn afresh).
    assert!((3.4..=4.6).contains(&ratio), "ratio {ratio}");
    // A factor that would take the model's clock past its range is refused.
    assert!(control(&socket, "slow 0 1e15 1").starts_with("error: FACTOR"));
    c.disconnect();
    server.stop().unwrap();
}
