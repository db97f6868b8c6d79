//! What the server says when data is gone: a FLUSH or TRIM with no copy
//! left answers EIO; a rebuild that cannot read its source reports the
//! range lost and the rebuilt disk refuses to read it (never stale or
//! invented data); media errors outlive a restart on the same files.

mod common;

use std::path::Path;

use blockdev::Layout;
use blockdev::nbd::proto::{CMD_TRIM, FLAG_SEND_TRIM};
use disk_emu::ResyncRate;
use disk_emu::disk::{DiskSpec, presets};

use common::{Client, control, options, pattern, socket_dir, wait_for};

const SIZE: u64 = 8 << 20;
const EIO: u32 = 5;

fn small_disk() -> DiskSpec {
    let mut spec = presets::hp97560();
    spec.geometry.cylinders = 12;
    spec
}

fn start(socket: &Path, file: Option<&Path>, disks: usize) -> blockdev::Server {
    let mut o = options(small_disk(), SIZE, socket);
    if disks > 1 {
        o.layout = Layout::Mirror {
            policy: "dmq".parse().unwrap(),
            disks,
        };
    }
    o.file = file.map(Path::to_path_buf);
    o.time_scale = 50.0;
    o.resync = ResyncRate {
        blocks_per_s: 1e6,
        chunk_blocks: 128,
    };
    blockdev::start(&o).unwrap()
}

fn trim(c: &mut Client, offset: u64, len: u32) -> u32 {
    let h = c.send(CMD_TRIM, 0, offset, len, &[]);
    let a = c.receive(&mut []);
    assert_eq!(a.handle, h);
    a.error
}

#[test]
fn flush_and_trim_with_no_copy_left_answer_eio() {
    let (_dir, socket) = socket_dir();
    let server = start(&socket, None, 1);
    let mut c = Client::connect(&socket);
    assert_ne!(c.flags & FLAG_SEND_TRIM, 0);
    assert_eq!(c.write(0, &pattern(0, 4096, 1), 0), 0);
    assert_eq!(c.flush(), 0);
    assert_eq!(trim(&mut c, 0, 4096), 0);
    assert_eq!(control(&socket, "fail 0"), "ok");
    assert_eq!(c.flush(), EIO, "a flush of a failed disk");
    assert_eq!(trim(&mut c, 0, 4096), EIO, "a trim of a failed disk");
    assert_eq!(control(&socket, "replace 0"), "ok");
    assert_eq!(c.flush(), 0);
    c.disconnect();
    server.stop().unwrap();

    let server = start(&socket, None, 2);
    let mut c = Client::connect(&socket);
    assert_eq!(c.write(0, &pattern(0, 4096, 1), 0), 0);
    assert_eq!(control(&socket, "fail 0"), "ok");
    assert_eq!(c.flush(), 0, "one copy is left");
    assert_eq!(trim(&mut c, 0, 4096), 0);
    assert_eq!(control(&socket, "fail 1"), "ok");
    assert_eq!(c.flush(), EIO, "no copy is left");
    assert_eq!(trim(&mut c, 0, 4096), EIO);
    c.disconnect();
    server.stop().unwrap();
}

#[test]
fn a_rebuild_reports_what_its_source_cannot_read_as_lost() {
    let (_dir, socket) = socket_dir();
    let server = start(&socket, None, 2);
    let mut c = Client::connect(&socket);
    let data = pattern(0, 128 << 10, 1);
    assert_eq!(c.write(0, &data, 0), 0);
    assert_eq!(control(&socket, "fail 1"), "ok");
    // A latent error on the only source: blocks 100..108.
    assert_eq!(control(&socket, "media-error 0 100 8"), "ok");
    assert_eq!(control(&socket, "replace 1"), "ok");
    wait_for(&socket, "ok disk0=online disk1=online lost=1:100+8");
    let mut back = vec![0u8; 4096];
    // Blocks 100..108 (bytes 51200..55296) are unreadable on both disks.
    assert_eq!(
        c.read(51_200, &mut back),
        EIO,
        "a lost range is never served"
    );
    assert_eq!(c.read(102 * 512, &mut back[..512]), EIO);
    // The blocks around it were copied.
    assert_eq!(c.read(40_960, &mut back), 0);
    assert!(back == data[40_960..45_056]);
    assert_eq!(c.read(55_296, &mut back), 0);
    assert!(back == data[55_296..59_392]);
    // Rewriting the range makes it whole on both disks again.
    let fresh = pattern(51_200, 4096, 2);
    assert_eq!(c.write(51_200, &fresh, 0), 0);
    for _ in 0..10 {
        assert_eq!(c.read(51_200, &mut back), 0);
        assert!(back == fresh);
    }
    c.disconnect();
    server.stop().unwrap();
}

#[test]
fn media_errors_survive_a_restart_on_the_same_files() {
    let (dir, socket) = socket_dir();
    for disks in [1, 2] {
        let file = dir.path().join(format!("disk{disks}.img"));
        let server = start(&socket, Some(&file), disks);
        let mut c = Client::connect(&socket);
        assert_eq!(c.write(0, &pattern(0, 65_536, 1), 0), 0);
        // Synced by the sync thread, off the engine's lock.
        assert_eq!(c.flush(), 0);
        for d in 0..disks {
            assert_eq!(control(&socket, &format!("media-error {d} 16 4")), "ok");
        }
        let mut back = vec![0u8; 4096];
        assert_eq!(c.read(8192, &mut back), EIO);
        c.disconnect();
        server.stop().unwrap();

        let server = start(&socket, Some(&file), disks);
        let mut c = Client::connect(&socket);
        assert_eq!(c.read(8192, &mut back), EIO, "{disks} disk(s): still bad");
        assert_eq!(c.read(0, &mut back), 0);
        assert!(back == pattern(0, 4096, 1));
        // Rewritten, then restarted: good again.
        assert_eq!(c.write(8192, &pattern(8192, 4096, 3), 0), 0);
        c.disconnect();
        server.stop().unwrap();
        let server = start(&socket, Some(&file), disks);
        let mut c = Client::connect(&socket);
        assert_eq!(c.read(8192, &mut back), 0, "{disks} disk(s): rewritten");
        assert!(back == pattern(8192, 4096, 3));
        c.disconnect();
        server.stop().unwrap();
    }
}
