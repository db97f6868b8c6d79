//! Silent faults through NBD: a misdirected write is answered as a success
//! and its data is not where it was sent; a corrupt read returns one bit
//! flipped with success; a corrupt stored block reads back one bit off
//! every time until rewritten; a flush fails with EIO. Drawn at random from
//! a seed, the same seed and the same client sequence give byte-identical
//! images and the same fault log; another seed, others.

mod common;

use blockdev::zero_latency;
use disk_emu::faults::SilentRates;

use common::{Client, control, options, pattern, socket_dir};

const KB4: usize = 4096;
const EIO: u32 = 5;

fn bits_differing(a: &[u8], b: &[u8]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

#[test]
fn each_silent_fault_does_what_it_says() {
    let (_dir, socket) = socket_dir();
    let server = blockdev::start(&options(zero_latency(), 16 << 20, &socket)).unwrap();
    let mut c = Client::connect(&socket);
    let mut back = vec![0u8; KB4];

    assert_eq!(control(&socket, "misdirect"), "ok");
    assert_eq!(
        c.write(0, &pattern(0, KB4, 1), 0),
        0,
        "answered as a success"
    );
    assert_eq!(c.read(0, &mut back), 0);
    assert!(back == vec![0u8; KB4], "the data went elsewhere");
    assert_eq!(c.write(0, &pattern(0, KB4, 1), 0), 0);
    assert_eq!(c.read(0, &mut back), 0);
    assert!(back == pattern(0, KB4, 1), "the next write lands");

    assert_eq!(control(&socket, "corrupt-reads 1"), "ok");
    assert_eq!(c.read(0, &mut back), 0);
    assert_eq!(bits_differing(&back, &pattern(0, KB4, 1)), 1);
    assert_eq!(c.read(0, &mut back), 0);
    assert!(back == pattern(0, KB4, 1), "only the next read");

    assert_eq!(control(&socket, "corrupt-stored 0 3"), "ok");
    for _ in 0..2 {
        assert_eq!(c.read(0, &mut back), 0);
        assert_eq!(
            bits_differing(&back, &pattern(0, KB4, 1)),
            1,
            "until rewritten"
        );
    }
    assert!(control(&socket, "corrupt-stored 0 99999999999").starts_with("error:"));

    assert_eq!(control(&socket, "flush-error 1"), "ok");
    assert_eq!(c.flush(), EIO);
    assert_eq!(c.flush(), 0);

    let log = control(&socket, "fault-log");
    for says in ["misdirected", "bit", "flush failed"] {
        assert!(log.contains(says), "{log}");
    }
    c.disconnect();
    server.stop().unwrap();
}

/// A run of writes, reads and flushes under random silent faults seeded
/// with `seed`; returns the image and the fault log.
fn seeded_run(seed: u64) -> (Vec<u8>, String) {
    let (dir, socket) = socket_dir();
    let file = dir.path().join("disk.img");
    let mut o = options(zero_latency(), 4 << 20, &socket);
    o.file = Some(file.clone());
    o.crash.silent = SilentRates {
        seed,
        misdirect: 0.1,
        corrupt_read: 0.1,
        flush_error: 0.1,
        latent: 0.05,
    };
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    let mut back = vec![0u8; KB4];
    for i in 0..200u64 {
        let at = (i * 7 % 1000) * KB4 as u64;
        c.write(at, &pattern(at, KB4, i as u8), 0);
        c.read(at, &mut back);
        if i % 10 == 0 {
            c.flush();
        }
    }
    let log = control(&socket, "fault-log");
    c.disconnect();
    server.stop().unwrap();
    (std::fs::read(&file).unwrap(), log)
}

#[test]
fn the_same_seed_and_requests_give_the_same_image_and_fault_log() {
    let (image, log) = seeded_run(9);
    assert!(log.matches("misdirected").count() >= 5, "{log}");
    assert!(log.matches("latent").count() >= 2, "{log}");
    let (again, log_again) = seeded_run(9);
    assert!(image == again, "byte-identical images");
    assert_eq!(log, log_again);
    let (other, other_log) = seeded_run(10);
    assert!(other != image);
    assert_ne!(other_log, log);
}

#[test]
fn latent_sector_errors_outlive_a_restart_until_rewritten() {
    let (dir, socket) = socket_dir();
    let mut o = options(zero_latency(), 4 << 20, &socket);
    o.file = Some(dir.path().join("disk.img"));
    let mut back = vec![0u8; KB4];
    let server = blockdev::start(&o).unwrap();
    assert_eq!(control(&socket, "media-error 0 16 4"), "ok");
    let mut c = Client::connect(&socket);
    assert_eq!(c.read(8192, &mut back), EIO);
    c.disconnect();
    server.stop().unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("disk.img.latent")).unwrap(),
        "0 16 20\n"
    );

    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    assert_eq!(c.read(8192, &mut back), EIO, "still bad after the restart");
    assert_eq!(c.write(8192, &pattern(8192, KB4, 3), 0), 0);
    assert_eq!(c.read(8192, &mut back), 0, "rewritten");
    c.disconnect();
    server.stop().unwrap();
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    assert_eq!(c.read(8192, &mut back), 0);
    assert!(back == pattern(8192, KB4, 3));
    c.disconnect();
    server.stop().unwrap();
}

/// A reproducible run on the Cheetah 9LP (write-back cache): writes,
/// reads, flushes and power cuts under seeded silent faults and a seeded
/// crash model; returns the image, the fault log, the cuts' replies and
/// the record.
fn reproducible_run(seed: u64) -> (Vec<u8>, String, Vec<String>, Vec<u8>) {
    let (dir, socket) = socket_dir();
    let file = dir.path().join("disk.img");
    let record = dir.path().join("run.log");
    let mut o = options(
        disk_emu::disk::preset("cheetah9lp").unwrap(),
        4 << 20,
        &socket,
    );
    o.file = Some(file.clone());
    o.crash.reproducible = true;
    o.crash.model = disk_emu::faults::CrashModel::Torn;
    o.crash.seed = seed;
    o.crash.record = Some(record.clone());
    o.crash.silent = SilentRates {
        seed,
        misdirect: 0.05,
        corrupt_read: 0.05,
        flush_error: 0.05,
        latent: 0.0,
    };
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    let mut back = vec![0u8; KB4];
    let mut cuts = Vec::new();
    for i in 0..120u64 {
        let at = (i * 13 % 900) * KB4 as u64;
        c.write(at, &pattern(at, KB4, i as u8), 0);
        if i % 15 == 14 {
            // Right after a write: the cache holds it.
            cuts.push(control(&socket, "power-cut"));
        }
        c.read(at, &mut back);
        if i % 10 == 0 {
            c.flush();
        }
    }
    let log = control(&socket, "fault-log");
    c.disconnect();
    server.stop().unwrap();
    (
        std::fs::read(&file).unwrap(),
        log,
        cuts,
        std::fs::read(&record).unwrap(),
    )
}

#[test]
fn a_reproducible_run_on_a_timed_disk_repeats_byte_for_byte() {
    let first = reproducible_run(21);
    assert!(
        first.2.iter().any(|c| c != "ok lost nothing"),
        "some cut took something: {:?}",
        first.2
    );
    let again = reproducible_run(21);
    assert!(first.0 == again.0, "byte-identical images");
    assert_eq!(first.1, again.1, "the same fault log");
    assert_eq!(first.2, again.2, "the same cuts");
    assert!(first.3 == again.3, "the same record");
    let other = reproducible_run(22);
    assert!(other.0 != first.0 && other.1 != first.1);
}
