//! Faults lose nothing on a mirror: every acknowledged write reads back
//! correctly with a disk failed, after the replacement's resync (read from
//! the rebuilt disk alone), and after restarting the server on the same
//! backing files, including a restart in the middle of a resync.
//!
//! The disks are HP 97560s cut down to 12 cylinders (8 MB), so that a
//! resync is short; the wall clock runs 50 times as fast as the model.

mod common;

use std::path::Path;
use std::time::Duration;

use blockdev::Layout;
use disk_emu::ResyncRate;
use disk_emu::disk::{DiskSpec, presets};

use common::{Client, control, options, pattern, socket_dir, wait_for};

const SIZE: u64 = 8 << 20;
const CHUNK: usize = 64 * 1024;

fn small_disk() -> DiskSpec {
    let mut spec = presets::hp97560();
    spec.geometry.cylinders = 12;
    spec
}

fn start(socket: &Path, file: &Path, blocks_per_s: f64) -> blockdev::Server {
    let mut o = options(small_disk(), SIZE, socket);
    o.layout = Layout::Mirror {
        policy: "dmq".parse().unwrap(),
        disks: 2,
    };
    o.file = Some(file.to_path_buf());
    o.time_scale = 50.0;
    o.resync = ResyncRate {
        blocks_per_s,
        chunk_blocks: 128,
    };
    blockdev::start(&o).unwrap()
}

/// The data every chunk should hold: pass 2 in the first half, 1 after.
fn expected(offset: u64) -> Vec<u8> {
    let pass = if offset < SIZE / 2 { 2 } else { 1 };
    pattern(offset, CHUNK, pass)
}

fn verify(c: &mut Client, what: &str) {
    let mut back = vec![0u8; CHUNK];
    for offset in (0..SIZE).step_by(CHUNK) {
        assert_eq!(c.read(offset, &mut back), 0, "{what}: read at {offset}");
        assert!(back == expected(offset), "{what}: wrong data at {offset}");
    }
}

#[test]
fn a_mirror_loses_no_acknowledged_write_through_failure_resync_and_restart() {
    let (dir, socket) = socket_dir();
    let file = dir.path().join("mirror.img");
    let server = start(&socket, &file, 1e6);
    let mut c = Client::connect(&socket);
    for offset in (0..SIZE).step_by(CHUNK) {
        assert_eq!(c.write(offset, &pattern(offset, CHUNK, 1), 0), 0);
    }
    assert_eq!(control(&socket, "fail 1"), "ok");
    // Degraded: these writes reach disk 0 alone.
    for offset in (0..SIZE / 2).step_by(CHUNK) {
        assert_eq!(c.write(offset, &pattern(offset, CHUNK, 2), 0), 0);
    }
    verify(&mut c, "degraded");
    assert_eq!(control(&socket, "replace 1"), "ok");
    wait_for(&socket, "ok disk0=online disk1=online");
    // Only the rebuilt disk is left to read from.
    assert_eq!(control(&socket, "fail 0"), "ok");
    verify(&mut c, "from the rebuilt disk");
    c.disconnect();
    server.stop().unwrap();

    // A restart on the same files remembers that disk 0 has failed.
    let server = start(&socket, &file, 1e6);
    assert_eq!(control(&socket, "state"), "ok disk0=failed disk1=online");
    let mut c = Client::connect(&socket);
    verify(&mut c, "after a restart");
    // A resync stopped halfway goes on from where it was after a restart.
    assert_eq!(control(&socket, "resync-rate 0.05"), "ok");
    assert_eq!(control(&socket, "replace 0"), "ok");
    std::thread::sleep(Duration::from_millis(1500));
    c.disconnect();
    server.stop().unwrap();
    let saved = std::fs::read_to_string(dir.path().join("mirror.img.state")).unwrap();
    assert!(
        saved.contains("rebuilding") && saved.contains("\"clean\": true"),
        "{saved}"
    );

    let server = start(&socket, &file, 1e6);
    assert!(control(&socket, "state").starts_with("ok disk0=rebuilding:"));
    wait_for(&socket, "ok disk0=online disk1=online");
    assert_eq!(control(&socket, "fail 1"), "ok");
    let mut c = Client::connect(&socket);
    verify(&mut c, "from disk 0, rebuilt across a restart");
    c.disconnect();
    server.stop().unwrap();
}

#[test]
fn after_an_unclean_stop_the_second_disk_is_resynchronised() {
    let (dir, socket) = socket_dir();
    let file = dir.path().join("mirror.img");
    let server = start(&socket, &file, 1e6);
    let mut c = Client::connect(&socket);
    for offset in (0..SIZE).step_by(CHUNK) {
        let pass = if offset < SIZE / 2 { 2 } else { 1 };
        assert_eq!(c.write(offset, &pattern(offset, CHUNK, pass), 0), 0);
    }
    c.disconnect();
    server.stop().unwrap();
    // As if the server had been killed: the state says it is still running.
    let state = dir.path().join("mirror.img.state");
    let saved = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, saved.replace("\"clean\": true", "\"clean\": false")).unwrap();
    // And disk 1 missed the last write in flight.
    let disk1 = dir.path().join("mirror.img.disk1");
    let mut bytes = std::fs::read(&disk1).unwrap();
    bytes[..CHUNK].fill(0xee);
    std::fs::write(&disk1, bytes).unwrap();

    let server = start(&socket, &file, 1e6);
    assert!(control(&socket, "state").starts_with("ok disk0=online disk1=rebuilding:"));
    wait_for(&socket, "ok disk0=online disk1=online");
    assert_eq!(control(&socket, "fail 0"), "ok");
    let mut c = Client::connect(&socket);
    verify(&mut c, "disk 1 after an unclean stop");
    c.disconnect();
    server.stop().unwrap();
}
