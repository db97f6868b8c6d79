//! `--record`: every answered write (with its data), FUA write and flush is
//! logged, within the data plus 24 bytes a request; crash states built from
//! the log keep every flushed and FUA write, and the same seed builds the
//! same images while another seed builds others.

mod common;

use blockdev::crash_log::{Entry, Log, build_image, crash_states};
use blockdev::zero_latency;
use disk_emu::faults::CrashModel;

use common::{Client, options, pattern, socket_dir};

const KB4: usize = 4096;

#[test]
fn a_recorded_run_gives_crash_states_that_keep_what_was_flushed() {
    let (dir, socket) = socket_dir();
    let log_path = dir.path().join("run.log");
    let mut o = options(zero_latency(), 1 << 20, &socket);
    o.crash.record = Some(log_path.clone());
    let server = blockdev::start(&o).unwrap();
    let mut c = Client::connect(&socket);
    // 8 writes, a flush, 8 more with a FUA write among them, a read (not
    // logged).
    let mut data = 0;
    for i in 0..16u64 {
        let at = i * KB4 as u64;
        let flags = if i == 12 { 1 } else { 0 };
        assert_eq!(c.write(at, &pattern(at, KB4, i as u8), flags), 0);
        data += KB4;
        if i == 7 {
            assert_eq!(c.flush(), 0);
        }
    }
    let mut back = vec![0u8; KB4];
    assert_eq!(c.read(0, &mut back), 0);
    c.disconnect();
    server.stop().unwrap();

    let log = Log::read(&log_path).unwrap();
    assert_eq!(log.entries.len(), 17);
    assert_eq!(log.entries[8], Entry::Flush { covers: 8 });
    assert!(matches!(
        log.entries[13],
        Entry::Write {
            seq: 12,
            fua: true,
            ..
        }
    ));
    let bytes = std::fs::metadata(&log_path).unwrap().len();
    assert_eq!(bytes, (32 + 17 * 24 + data) as u64);

    let images = |seed| -> Vec<Vec<u8>> {
        crash_states(&log, CrashModel::Subset, 12, seed)
            .iter()
            .map(|s| {
                let mut image = vec![0u8; 1 << 20];
                build_image(&log, s, &mut image);
                // Cut after the flush: the first 8 writes are there; the
                // FUA write too once it is before the cut.
                let at = |i: usize| &image[i * KB4..(i + 1) * KB4];
                if s.cut_after > 8 {
                    for i in 0..8 {
                        assert!(at(i) == pattern((i * KB4) as u64, KB4, i as u8));
                    }
                }
                if s.cut_after > 13 {
                    assert!(at(12) == pattern((12 * KB4) as u64, KB4, 12));
                }
                assert!(
                    s.volatile
                        .iter()
                        .all(|&w| w != 12 && (s.cut_after <= 8 || w >= 8)),
                    "{s:?}"
                );
                assert!(s.lost.iter().all(|w| s.volatile.contains(w)), "{s:?}");
                image
            })
            .collect()
    };
    let (one, again, other) = (images(1), images(1), images(2));
    assert!(one == again, "the same seed, the same images");
    assert!(one != other, "another seed, other images");
}
