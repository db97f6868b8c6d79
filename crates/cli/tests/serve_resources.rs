//! `spindle serve` under clients that take more than it has: several
//! clients queue more reads and writes than the memory budget and vanish;
//! the server's resident memory stays under the budget + 64 MB, their
//! queued requests are cancelled, and the next client's reads take, in the
//! model's time the server reports, what they took on an idle server.
//! SIGTERM (and SIGINT) stops it in every state (within 10 s, a bound no loaded machine
//! should reach; it takes milliseconds) with its statistics written.

mod nbd_client;

use std::time::{Duration, Instant};

use nbd_client::{Client, Flood, Serve};

const MB: u64 = 1 << 20;
const BUDGET_MB: u64 = 64;
/// A bound on waits that should take milliseconds (a signal answered,
/// requests arriving): only a hang reaches it, on any machine's load.
const HANG: Duration = Duration::from_secs(60);

/// A Cheetah 9LP at a quarter of the model's speed, in a backing file (so
/// that the export's bytes are not the process's memory).
fn serve(extra: &[&str]) -> Serve {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("disk.img");
    let mut args = vec![
        "--disk",
        "cheetah9lp",
        "--size",
        "1G",
        "--time-scale",
        "0.25",
        "--request-memory",
        "64M",
        "--file",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let s = Serve::start(&args).unwrap();
    // The backing file's directory lives as long as the test.
    std::mem::forget(dir);
    s
}

/// The mean model response time of 20 reads of 4 KB at seeded addresses.
fn reads(s: &Serve) -> f64 {
    let mut c = Client::connect(&s.socket);
    let before = s.model_times();
    let mut buf = vec![0u8; 4096];
    let mut x = 12_345u64;
    for _ in 0..20 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        assert_eq!(c.read((x >> 33) % (1 << 18) * 4096, &mut buf), 0);
    }
    let after = s.model_times();
    c.disconnect();
    after.mean_response_since(&before)
}

fn stopped_with_statistics(s: Serve, state: &str) {
    stopped_by("-TERM", s, state);
}

fn stopped_by(signal: &str, s: Serve, state: &str) {
    let (status, took, s) = s.signal(signal, HANG);
    let status =
        status.unwrap_or_else(|| panic!("{state}: SIG{} ignored for {HANG:?}", &signal[1..]));
    println!("{state}: stopped {took:?} after SIG{}", &signal[1..]);
    assert!(status.success(), "{state}: {status:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&s.stats).unwrap()).unwrap();
    assert!(json["total"]["completions"].is_u64(), "{state}");
}

#[test]
fn clients_that_queue_past_the_budget_and_vanish_leave_nothing_behind() {
    let s = serve(&[]);
    let idle = reads(&s);
    let base = s.resident();
    // 4 clients × 120 requests of 1 MiB: 480 MiB against a 64 MiB budget.
    let flood = Flood::start(&s.socket, 4, 120, MB as u32);
    let mut peak = 0;
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        peak = peak.max(s.resident());
        std::thread::sleep(Duration::from_millis(20));
    }
    let held = s.model_times().held;
    println!(
        "resident {} MB before, {} MB at most under the flood; {held} requests held",
        base / MB,
        peak / MB
    );
    assert!(peak < (BUDGET_MB + 64) * MB, "resident {peak} bytes");
    // The budget holds 64 of them; what the server holds is at most that
    // (it took no more) and not nothing (the clients did queue).
    assert!((2..=64).contains(&held), "{held} requests held");
    let at_vanish = s.model_times();
    flood.vanish();
    // Cancelled: what was in service finishes and the rest is dropped, so
    // the disk serves only a few of the requests it held (counted in model
    // terms, whatever the machine's load); without cancellation it would
    // serve every one. HANG bounds a hang, not a speed.
    let deadline = Instant::now() + HANG;
    while s.model_times().held > 0 {
        assert!(
            Instant::now() < deadline,
            "the vanished clients' requests are still held"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let served_after = s.model_times().modelled - at_vanish.modelled;
    println!(
        "{} requests held when the clients vanished, {served_after} served after",
        at_vanish.held
    );
    assert!(
        served_after <= (at_vanish.held / 4).max(2),
        "{served_after} of {} held requests served after the clients vanished",
        at_vanish.held
    );
    let after = reads(&s);
    println!("4 KB reads: {idle:.2} ms idle, {after:.2} ms after the flood (model time)");
    assert!(after <= 2.0 * idle, "{after} ms against {idle} ms");
    stopped_with_statistics(s, "after the flood");
}

#[test]
fn sigterm_stops_the_server_in_every_state() {
    stopped_with_statistics(serve(&[]), "idle");
    stopped_by("-INT", serve(&[]), "idle");

    // A client greeted but silent, another half-way through a request, a
    // control client half-way through a line.
    let s = serve(&[]);
    let greeted = std::os::unix::net::UnixStream::connect(&s.socket).unwrap();
    let mut half = Client::connect(&s.socket);
    std::io::Write::write_all(&mut half.stream, &[0x25, 0x60, 0x95]).unwrap();
    let mut line = std::os::unix::net::UnixStream::connect(&s.control).unwrap();
    std::io::Write::write_all(&mut line, b"sta").unwrap();
    stopped_with_statistics(s, "mid-handshake, mid-request, mid-line");
    drop((greeted, half, line));

    // The slowest disk the control socket allows, with reads in service
    // and queued (one 4 KB read takes minutes of the model's time).
    let s = serve(&[]);
    assert_eq!(s.control("slow 0 10000 1000000"), "ok");
    assert!(s.control("slow 0 1e15 1").starts_with("error: FACTOR"));
    let mut c = Client::connect(&s.socket);
    for i in 0..8 {
        c.send(blockdev::nbd::proto::CMD_READ, i * 4096, 4096, &[])
            .unwrap();
    }
    let deadline = Instant::now() + HANG;
    while s.model_times().held < 8 {
        assert!(Instant::now() < deadline, "the reads never arrived");
        std::thread::sleep(Duration::from_millis(10));
    }
    stopped_with_statistics(s, "a slowed disk with reads held");
    drop(c);

    // The budget spent by clients that read no reply.
    let s = serve(&[]);
    let flood = Flood::start(&s.socket, 3, 100, MB as u32);
    let deadline = Instant::now() + HANG;
    while s.model_times().held < 2 {
        assert!(Instant::now() < deadline, "the flood never arrived");
        std::thread::sleep(Duration::from_millis(10));
    }
    stopped_with_statistics(s, "the budget spent");
    flood.vanish();
}
