//! The fuzz targets' checks as property tests that `cargo test` runs: the
//! handshake and the request parser take mutated messages (bytes flipped,
//! cut, inserted, sizes changed) without a panic; and a live server fed
//! mutated transmissions stays up for the next client. The real fuzzer
//! lives in `fuzz/` (see its Cargo.toml for how to run it longer).

mod common;

use blockdev::nbd::proto::*;
use blockdev::nbd::{Export, Handshake, Step};
use proptest::prelude::*;

use common::{Client, options, socket_dir};

fn export() -> Export {
    Export {
        name: "disk".into(),
        description: "fuzz".into(),
        size: 1 << 30,
        flags: FLAG_HAS_FLAGS,
        block_sizes: (1, 4096, 32 << 20),
    }
}

fn option(code: u32, data: &[u8]) -> Vec<u8> {
    let mut o = IHAVEOPT.to_be_bytes().to_vec();
    o.extend_from_slice(&code.to_be_bytes());
    o.extend_from_slice(&(data.len() as u32).to_be_bytes());
    o.extend_from_slice(data);
    o
}

/// A valid handshake: flags, LIST, INFO, GO.
fn valid_handshake() -> Vec<u8> {
    let mut v = 3u32.to_be_bytes().to_vec();
    v.extend(option(OPT_LIST, &[]));
    let go = [0, 0, 0, 4, b'd', b'i', b's', b'k', 0, 1, 0, 3];
    v.extend(option(OPT_INFO, &go));
    v.extend(option(OPT_GO, &go));
    v
}

/// Valid requests of every kind.
fn valid_requests() -> Vec<u8> {
    let mut v = Vec::new();
    for (kind, flags, len) in [
        (CMD_WRITE, CMD_FLAG_FUA, 512u32),
        (CMD_READ, 0, 4096),
        (CMD_WRITE_ZEROES, CMD_FLAG_NO_HOLE, 8192),
        (CMD_TRIM, 0, 4096),
        (CMD_FLUSH, 0, 0),
    ] {
        let h = RequestHeader {
            flags,
            kind,
            handle: 1,
            offset: 4096,
            length: len,
        };
        v.extend_from_slice(&h.encode());
        if kind == CMD_WRITE {
            v.extend(std::iter::repeat_n(0xa5, len as usize));
        }
    }
    v
}

/// One change to a message.
#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Cut(usize),
    Insert(usize, Vec<u8>),
    Word(usize, u32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Cut),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..64))
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        (
            any::<usize>(),
            prop_oneof![Just(0u32), Just(u32::MAX), Just(1 << 25), any::<u32>()]
        )
            .prop_map(|(i, w)| Mutation::Word(i, w)),
    ]
}

fn mutate(mut v: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        if v.is_empty() {
            break;
        }
        match m {
            Mutation::Flip(i, b) => {
                let i = i % v.len();
                v[i] ^= b;
            }
            Mutation::Cut(i) => v.truncate(i % v.len()),
            Mutation::Insert(i, bytes) => {
                let i = i % v.len();
                v.splice(i..i, bytes.iter().copied());
            }
            Mutation::Word(i, w) => {
                let i = i % v.len();
                for (k, b) in w.to_be_bytes().into_iter().enumerate() {
                    if let Some(x) = v.get_mut(i + k) {
                        *x = b;
                    }
                }
            }
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn mutated_handshakes_never_panic(
        mutations in prop::collection::vec(mutation(), 1..6),
        piece in 1usize..64,
    ) {
        let input = mutate(valid_handshake(), &mutations);
        let e = export();
        let mut h = Handshake::new(&e);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        'feed: for chunk in input.chunks(piece) {
            buf.extend_from_slice(chunk);
            loop {
                match h.step(&buf, &mut out) {
                    Ok((0, Step::NeedMore)) => break,
                    Ok((n, Step::NeedMore)) => {
                        prop_assert!(n <= buf.len());
                        buf.drain(..n);
                    }
                    Ok((n, _)) => {
                        prop_assert!(n <= buf.len());
                        break 'feed;
                    }
                    Err(_) => break 'feed,
                }
            }
        }
    }

    #[test]
    fn mutated_requests_frame_and_check_without_panic(
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let input = mutate(valid_requests(), &mutations);
        let limits = Limits { size: 1 << 30, max_payload: 32 << 20 };
        let mut at = 0;
        while at < input.len() {
            match decode_request(&input[at..]) {
                Ok(Some(h)) => {
                    prop_assert_eq!(&h.encode()[..], &input[at..at + REQUEST_LEN]);
                    if let Ok(Command::Read { offset, len } | Command::Write { offset, len, .. }) =
                        check(&h, &limits)
                    {
                        prop_assert!(len > 0 && len <= limits.max_payload);
                        prop_assert!(offset + u64::from(len) <= limits.size);
                    }
                    at += REQUEST_LEN + h.payload() as usize;
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A live server takes mutated transmissions on one connection and
    /// still serves a fresh client correctly.
    #[test]
    fn a_live_server_survives_mutated_transmissions(
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        use std::io::Write;
        let (_dir, socket) = socket_dir();
        let server = blockdev::start(&options(blockdev::zero_latency(), 1 << 20, &socket)).unwrap();
        let mut bad = Client::connect(&socket);
        let _ = bad.stream.write_all(&mutate(valid_requests(), &mutations));
        drop(bad);
        let mut good = Client::connect(&socket);
        prop_assert_eq!(good.write(0, &[7u8; 512], 0), 0);
        let mut back = [0u8; 512];
        prop_assert_eq!(good.read(0, &mut back), 0);
        prop_assert!(back == [7u8; 512]);
        good.disconnect();
        server.stop().unwrap();
    }
}
