//! The server's sockets and what it lets a client hold: it replaces
//! nothing at its socket paths but a stale socket, refuses one path for
//! both sockets, caps the control socket's lines, closes a client that
//! never finishes its handshake or stays idle, and removes its sockets when
//! it stops.

mod common;

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::Duration;

use blockdev::{Resources, StartError};

use common::{Client, control, options, pattern, socket_dir};

const SIZE: u64 = 1 << 20;

fn refusal(o: &blockdev::Options) -> String {
    match blockdev::start(o) {
        Ok(server) => {
            server.stop().unwrap();
            panic!("started")
        }
        Err(e) => e.to_string(),
    }
}

#[test]
fn only_a_stale_socket_is_replaced_and_one_path_serves_one_socket() {
    let (dir, socket) = socket_dir();
    let o = options(blockdev::zero_latency(), SIZE, &socket);
    let ctl = socket.with_extension("ctl");

    // A regular file at either path is left alone.
    for path in [&socket, &ctl] {
        std::fs::write(path, "precious").unwrap();
        let e = refusal(&o);
        assert!(
            e.contains("something other than a socket is there; refusing to replace it"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(path).unwrap(), "precious");
        std::fs::remove_file(path).unwrap();
    }
    // So is a directory.
    std::fs::create_dir(&socket).unwrap();
    assert!(refusal(&o).contains("--socket"));
    std::fs::remove_dir(&socket).unwrap();

    // One path for both sockets.
    let mut same = o.clone();
    same.control = Some(dir.path().join(".").join("nbd.sock"));
    let e = refusal(&same);
    assert!(e.contains("the same path as --socket"), "{e}");
    assert!(!socket.exists());

    // A socket left by a server that was killed is replaced.
    drop(UnixListener::bind(&socket).unwrap());
    drop(UnixListener::bind(&ctl).unwrap());
    let server = blockdev::start(&o).unwrap();
    // A live server's sockets are not.
    let e = refusal(&o);
    assert!(e.contains("a server is listening there already"), "{e}");
    let mut c = Client::connect(&socket);
    assert_eq!(c.write(0, &pattern(0, 4096, 1), 0), 0);
    c.disconnect();
    server.stop().unwrap();
    // Removed on a clean stop.
    assert!(!socket.exists() && !ctl.exists());

    // A schedule naming a disk the server lacks is refused before it starts.
    let mut bad = o.clone();
    bad.faults =
        disk_emu::faults::Schedule::new().at(0, disk_emu::faults::Fault::FailDisk { disk: 99 });
    let Err(e @ StartError::FaultDisk { .. }) = blockdev::start(&bad) else {
        panic!("a fault on disk 99 accepted");
    };
    assert_eq!(
        e.to_string(),
        "fault 0 (fail-disk): `disk`: 99, but the server has 1 disk(s), numbered from 0"
    );
}

#[test]
fn a_long_control_line_is_refused_unread_and_the_server_goes_on() {
    let (_dir, socket) = socket_dir();
    let server = blockdev::start(&options(blockdev::zero_latency(), SIZE, &socket)).unwrap();
    let mut s = UnixStream::connect(socket.with_extension("ctl")).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    // 8 MiB with no newline, written by a thread (the server stops reading).
    let writer = {
        let mut s = s.try_clone().unwrap();
        std::thread::spawn(move || {
            let chunk = vec![b'x'; 1 << 16];
            for _ in 0..128 {
                if s.write_all(&chunk).is_err() {
                    break;
                }
            }
        })
    };
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert_eq!(
        reply, "error: a line longer than 4096 bytes (try `help`)\n",
        "then closed"
    );
    drop(s);
    writer.join().unwrap();
    assert_eq!(control(&socket, "state"), "ok disk0=online");
    let mut c = Client::connect(&socket);
    let mut back = vec![0u8; 512];
    assert_eq!(c.read(0, &mut back), 0);
    c.disconnect();
    server.stop().unwrap();
}

#[test]
fn a_silent_client_is_closed_after_its_timeout() {
    let (_dir, socket) = socket_dir();
    let mut o = options(blockdev::zero_latency(), SIZE, &socket);
    o.resources = Resources {
        handshake_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_secs(1),
        ..Resources::default()
    };
    let server = blockdev::start(&o).unwrap();
    // Greeted, then silent: closed after the handshake timeout.
    let mut s = UnixStream::connect(&socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    assert_eq!(all.len(), 18, "the greeting, then the close");
    // Through the handshake, then idle: closed after the idle timeout.
    let mut c = Client::connect(&socket);
    let mut back = vec![0u8; 512];
    assert_eq!(c.read(0, &mut back), 0);
    let mut rest = Vec::new();
    c.stream.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    // So is a silent control client.
    let mut ctl = UnixStream::connect(socket.with_extension("ctl")).unwrap();
    ctl.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut rest = Vec::new();
    ctl.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    // Others are served all along.
    let mut c = Client::connect(&socket);
    assert_eq!(c.read(0, &mut back), 0);
    c.disconnect();
    server.stop().unwrap();
}

#[test]
fn the_minimum_block_size_advertised_is_the_drives_sector() {
    use blockdev::nbd::proto::{IHAVEOPT, INFO_BLOCK_SIZE, OPT_GO, REP_ACK, REP_INFO};
    let (_dir, socket) = socket_dir();
    let server =
        blockdev::start(&options(disk_emu::disk::presets::hp97560(), SIZE, &socket)).unwrap();
    let mut s = UnixStream::connect(&socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut greeting = [0u8; 18];
    s.read_exact(&mut greeting).unwrap();
    s.write_all(&3u32.to_be_bytes()).unwrap();
    let mut go = Vec::new();
    go.extend_from_slice(&IHAVEOPT.to_be_bytes());
    go.extend_from_slice(&OPT_GO.to_be_bytes());
    go.extend_from_slice(&8u32.to_be_bytes());
    go.extend_from_slice(&0u32.to_be_bytes());
    go.extend_from_slice(&1u16.to_be_bytes());
    go.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
    s.write_all(&go).unwrap();
    let mut sizes = None;
    loop {
        let mut h = [0u8; 20];
        s.read_exact(&mut h).unwrap();
        let kind = u32::from_be_bytes(h[12..16].try_into().unwrap());
        let mut data = vec![0u8; u32::from_be_bytes(h[16..20].try_into().unwrap()) as usize];
        s.read_exact(&mut data).unwrap();
        if kind == REP_ACK {
            break;
        }
        if kind == REP_INFO && data[..2] == INFO_BLOCK_SIZE.to_be_bytes() {
            let word =
                |i: usize| u32::from_be_bytes(data[2 + 4 * i..6 + 4 * i].try_into().unwrap());
            sizes = Some((word(0), word(1), word(2)));
        }
    }
    assert_eq!(sizes, Some((512, 4096, blockdev::MAX_PAYLOAD)));
    drop(s);
    server.stop().unwrap();
}
