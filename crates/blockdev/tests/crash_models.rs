//! Each crash model through NBD: on an emulated Seagate Cheetah 9LP
//! (writes acknowledged once in its buffer), write a durable base, then
//! sequential writes that the cache holds together, cut the power under
//! a model through the control socket, and read back: every write the
//! reply does not name is there whole, a lost one left the durable base,
//! a torn one its first sectors and the base after them, at a sector
//! boundary. Flushed data is always there.
//!
//! The wall clock runs at a time scale of 0.05 so that the cache holds
//! the writes long enough (in wall time) for the cut to find them; what
//! is checked does not depend on when the cut falls, only on its reply.

mod common;

use disk_emu::disk::preset;

use common::{Client, control, options, pattern, socket_dir};

const SECTOR: usize = 512;
const WRITE: usize = 16 * SECTOR;
const WRITES: usize = 6;

/// (first block, blocks, kept blocks if torn) of each write the reply
/// names.
fn parse_lost(reply: &str) -> Vec<(u64, u64, Option<u64>)> {
    let rest = reply.strip_prefix("ok lost ").expect(reply);
    if rest == "nothing" {
        return Vec::new();
    }
    rest.split(' ')
        .map(|w| {
            let (disk, span) = w.split_once(':').unwrap();
            assert_eq!(disk, "0");
            let (span, torn) = match span.split_once('/') {
                Some((s, k)) => (s, Some(k.parse().unwrap())),
                None => (span, None),
            };
            let (first, blocks) = span.split_once('+').unwrap();
            (first.parse().unwrap(), blocks.parse().unwrap(), torn)
        })
        .collect()
}

/// Trials of `model` until `enough` of (lost, torn, kept) (at most 16:
/// each cut finds one or two writes held, the rest on the media already);
/// returns the counts.
fn check_model(model: &str, enough: impl Fn(usize, usize, usize) -> bool) -> (usize, usize, usize) {
    let (_dir, socket) = socket_dir();
    let mut o = options(preset("cheetah9lp").unwrap(), 64 << 20, &socket);
    o.time_scale = 0.05;
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    let (mut lost, mut torn, mut kept) = (0, 0, 0);
    for trial in 0..16u8 {
        if enough(lost, torn, kept) {
            break;
        }
        let base = u64::from(trial) * (1 << 20);
        let span = WRITES * WRITE;
        // The durable base, and a flushed write elsewhere.
        let old = pattern(base, span, 100 + trial);
        assert_eq!(c.write(base, &old, 0), 0);
        let elsewhere = base + (512 << 10);
        assert_eq!(c.write(elsewhere, &pattern(elsewhere, WRITE, 7), 0), 0);
        assert_eq!(c.flush(), 0);
        // Sequential writes over it, answered one by one.
        let new = pattern(base, span, trial);
        for w in 0..WRITES {
            let at = w * WRITE;
            assert_eq!(c.write(base + at as u64, &new[at..at + WRITE], 0), 0);
        }
        let reply = control(&socket, &format!("power-cut {model}"));
        let named = parse_lost(&reply);
        let mut back = vec![0u8; span];
        assert_eq!(c.read(base, &mut back), 0);
        for w in 0..WRITES {
            let first = (base as usize + w * WRITE) / SECTOR;
            let fate = named.iter().find(|n| n.0 == first as u64);
            let kept_sectors = match fate {
                None => {
                    kept += 1;
                    WRITE / SECTOR
                }
                Some(&(_, blocks, None)) => {
                    assert_eq!(blocks as usize, WRITE / SECTOR, "{reply}");
                    lost += 1;
                    0
                }
                Some(&(_, blocks, Some(k))) => {
                    assert_eq!(model, "torn", "{reply}");
                    assert!(k >= 1 && k < blocks, "{reply}");
                    torn += 1;
                    k as usize
                }
            };
            let at = w * WRITE;
            let cut = at + kept_sectors * SECTOR;
            assert!(
                back[at..cut] == new[at..cut],
                "{model}: write {w} keeps its first {kept_sectors} sectors ({reply})"
            );
            assert!(
                back[cut..at + WRITE] == old[cut..at + WRITE],
                "{model}: write {w} leaves the base after its first {kept_sectors} sectors ({reply})"
            );
        }
        // Nothing named is outside these writes.
        for n in &named {
            let first = n.0 as usize * SECTOR;
            assert!(
                (base as usize..base as usize + span).contains(&first),
                "{reply}"
            );
        }
        let mut flushed = vec![0u8; WRITE];
        assert_eq!(c.read(elsewhere, &mut flushed), 0);
        assert!(
            flushed == pattern(elsewhere, WRITE, 7),
            "a flushed write survives"
        );
    }
    c.disconnect();
    server.stop().unwrap();
    eprintln!("{model}: lost {lost}, torn {torn}, kept {kept}");
    (lost, torn, kept)
}

#[test]
fn subset_loses_some_of_the_held_writes_and_keeps_the_rest_whole() {
    let (lost, torn, kept) = check_model("subset", |lost, _, kept| lost >= 2 && kept >= 2);
    assert_eq!(torn, 0);
    assert!(lost >= 2 && kept >= 2, "lost {lost}, kept {kept}");
}

#[test]
fn prefix_keeps_writes_whole_or_loses_them() {
    let (lost, torn, kept) = check_model("prefix", |lost, _, _| lost >= 2);
    assert_eq!(torn, 0);
    assert!(lost >= 2 && kept >= 1, "lost {lost}, kept {kept}");
}

#[test]
fn torn_tears_writes_at_a_sector_boundary() {
    let (_, torn, _) = check_model("torn", |_, torn, _| torn >= 2);
    assert!(torn >= 2, "torn {torn}");
}

#[test]
fn a_fua_write_with_another_queued_behind_it_is_on_the_media_when_answered() {
    // Two writes in flight: a FUA write and one behind it. Once the FUA
    // write is answered a cut never takes it, whatever it takes of the
    // other.
    let (_dir, socket) = socket_dir();
    let mut o = options(preset("cheetah9lp").unwrap(), 64 << 20, &socket);
    o.time_scale = 0.05;
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    for trial in 0..4u64 {
        let (a, b) = (trial << 20, (trial << 20) + (32 << 20));
        let fua = c.send(
            blockdev::nbd::proto::CMD_WRITE,
            blockdev::nbd::proto::CMD_FLAG_FUA,
            a,
            WRITE as u32,
            &pattern(a, WRITE, 1),
        );
        let other = c.send(
            blockdev::nbd::proto::CMD_WRITE,
            0,
            b,
            WRITE as u32,
            &pattern(b, WRITE, 2),
        );
        let first = c.receive(&mut []);
        assert_eq!(first.error, 0);
        let reply = if first.handle == fua {
            let reply = control(&socket, "power-cut");
            assert_eq!(c.receive(&mut []).handle, other);
            reply
        } else {
            assert_eq!(first.handle, other);
            assert_eq!(c.receive(&mut []).handle, fua);
            control(&socket, "power-cut")
        };
        let named = parse_lost(&reply);
        assert!(
            named.iter().all(|n| n.0 != a / SECTOR as u64),
            "an answered FUA write lost: {reply}"
        );
        let mut back = vec![0u8; WRITE];
        assert_eq!(c.read(a, &mut back), 0);
        assert!(back == pattern(a, WRITE, 1));
    }
    c.disconnect();
    server.stop().unwrap();
}
