//! A scripted bad-input suite over raw sockets: malformed handshakes,
//! out-of-range, oversize and zero-length requests, unknown commands and
//! flags, a broken request header, abrupt disconnects in the middle of a
//! request. Each gets the reply the protocol specifies or a clean close,
//! while a second client goes on writing and reading back correctly.

mod common;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use blockdev::nbd::proto::*;
use common::{Client, options, pattern, socket_dir};

const SIZE: u64 = 16 << 20;

/// A connection that reads the greeting and sends client flags.
fn raw(socket: &std::path::Path, flags: u32) -> UnixStream {
    let mut s = UnixStream::connect(socket).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut greeting = [0u8; 18];
    s.read_exact(&mut greeting).unwrap();
    s.write_all(&flags.to_be_bytes()).unwrap();
    s
}

/// Whether the server closed `s` (reads end) after sending nothing more.
fn closed(s: &mut impl Read) -> bool {
    let mut rest = Vec::new();
    match s.read_to_end(&mut rest) {
        Ok(_) => rest.is_empty(),
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

fn option_reply(s: &mut UnixStream) -> u32 {
    let mut h = [0u8; 20];
    s.read_exact(&mut h).unwrap();
    let len = u32::from_be_bytes(h[16..20].try_into().unwrap()) as usize;
    let mut data = vec![0u8; len];
    s.read_exact(&mut data).unwrap();
    u32::from_be_bytes(h[12..16].try_into().unwrap())
}

#[test]
fn bad_input_gets_the_specified_replies_while_another_client_works() {
    let (_dir, socket) = socket_dir();
    let server = blockdev::start(&options(blockdev::zero_latency(), SIZE, &socket)).unwrap();

    // The well-behaved client: writes and reads back, all along.
    let stop = Arc::new(AtomicBool::new(false));
    let good = {
        let (socket, stop) = (socket.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut c = Client::connect(&socket);
            let mut rounds = 0u64;
            while !stop.load(Ordering::Relaxed) || rounds < 50 {
                let offset = (rounds * 8192) % (SIZE - 8192);
                let data = pattern(offset, 8192, rounds as u8);
                assert_eq!(c.write(offset, &data, 0), 0);
                let mut back = vec![0u8; 8192];
                assert_eq!(c.read(offset, &mut back), 0);
                assert_eq!(back, data, "round {rounds}");
                rounds += 1;
            }
            c.disconnect();
            rounds
        })
    };

    // Handshake: unknown client flags, a bad option magic, an option too long.
    let mut s = raw(&socket, 1 << 7);
    assert!(closed(&mut s), "unknown client flags close the connection");
    let mut s = raw(&socket, 1);
    s.write_all(&[0u8; 16]).unwrap();
    assert!(closed(&mut s), "an option without IHAVEOPT closes");
    let mut s = raw(&socket, 1);
    let mut long = IHAVEOPT.to_be_bytes().to_vec();
    long.extend_from_slice(&OPT_GO.to_be_bytes());
    long.extend_from_slice(&u32::MAX.to_be_bytes());
    s.write_all(&long).unwrap();
    assert!(closed(&mut s), "4 GB of option data closes");
    // Unknown options are refused and negotiation goes on; abort is acknowledged.
    let mut s = raw(&socket, 3);
    for (option, data, expected) in [
        (42u32, &b"junk"[..], REP_ERR_UNSUP),
        (8, &[][..], REP_ERR_UNSUP),
        (OPT_LIST, &b"x"[..], REP_ERR_INVALID),
        (OPT_INFO, &[0, 0, 0, 200][..], REP_ERR_INVALID),
        (OPT_ABORT, &[][..], REP_ACK),
    ] {
        let mut o = IHAVEOPT.to_be_bytes().to_vec();
        o.extend_from_slice(&option.to_be_bytes());
        o.extend_from_slice(&(data.len() as u32).to_be_bytes());
        o.extend_from_slice(data);
        s.write_all(&o).unwrap();
        assert_eq!(option_reply(&mut s), expected, "option {option}");
    }
    assert!(closed(&mut s), "the server closes after an abort");
    // A client that vanishes in the middle of the handshake.
    let mut s = raw(&socket, 1);
    s.write_all(&IHAVEOPT.to_be_bytes()[..5]).unwrap();
    drop(s);

    // Transmission: each bad request gets its error, and the stream goes on.
    let mut c = Client::connect(&socket);
    let cases: [(u16, u16, u64, u32, Vec<u8>, u32); 10] = [
        (CMD_READ, 0, SIZE - 512, 1024, vec![], Errno::Inval as u32),
        (CMD_WRITE, 0, SIZE, 512, vec![7; 512], Errno::NoSpc as u32),
        (CMD_READ, 0, u64::MAX - 10, 512, vec![], Errno::Inval as u32),
        (CMD_READ, 0, 0, 0, vec![], Errno::Inval as u32),
        (CMD_WRITE, 0, 0, 0, vec![], Errno::Inval as u32),
        (
            CMD_READ,
            0,
            0,
            (32 << 20) + 1,
            vec![],
            Errno::Overflow as u32,
        ),
        // An oversize write's payload is read and dropped.
        (
            CMD_WRITE,
            0,
            0,
            (32 << 20) + 512,
            vec![1; (32 << 20) + 512],
            Errno::Overflow as u32,
        ),
        (77, 0, 0, 512, vec![], Errno::Inval as u32),
        (CMD_READ, 1 << 9, 0, 512, vec![], Errno::Inval as u32),
        (CMD_FLUSH, 0, 4096, 0, vec![], Errno::Inval as u32),
    ];
    for (kind, flags, offset, len, payload, errno) in cases {
        let h = c.send(kind, flags, offset, len, &payload);
        let a = c.receive(&mut []);
        assert_eq!(
            (a.handle, a.error),
            (h, errno),
            "kind {kind} flags {flags} at {offset}+{len}"
        );
    }
    // Still in step: a good request after the bad ones.
    let mut buf = vec![0u8; 4096];
    assert_eq!(c.read(0, &mut buf), 0);
    // A header without the magic closes this connection, and only it.
    c.stream.write_all(&[0xde; 28]).unwrap();
    assert!(closed(&mut c.stream));

    // Abrupt disconnects: after a header whose payload never comes, and
    // with requests in flight.
    let mut c = Client::connect(&socket);
    let header = RequestHeader {
        flags: 0,
        kind: CMD_WRITE,
        handle: 9,
        offset: 0,
        length: 1 << 20,
    };
    c.stream.write_all(&header.encode()).unwrap();
    c.stream.write_all(&[5u8; 1000]).unwrap();
    drop(c);
    let mut c = Client::connect(&socket);
    for i in 0..64 {
        c.send(CMD_READ, 0, i * 4096, 4096, &[]);
    }
    drop(c);

    stop.store(true, Ordering::Relaxed);
    let rounds = good.join().unwrap();
    assert!(rounds >= 50);
    // The half-written request changed nothing.
    let mut c = Client::connect(&socket);
    let mut first = vec![0u8; 1000];
    assert_eq!(c.read(0, &mut first), 0);
    assert_ne!(first, vec![5u8; 1000]);
    c.disconnect();
    server.stop().unwrap();
}
