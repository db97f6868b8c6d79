//! `spindle serve` and `spindle control` as a user meets them: the export
//! checked against the disk, a bad fault schedule named by file and field,
//! a server stopped from its control socket writing its statistics.

mod support;
use support::{spindle, stderr};

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn an_export_larger_than_the_disk_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let o = spindle(&[
        "serve",
        "--disk",
        "hp97560",
        "--size",
        "2G",
        "--socket",
        socket.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("--size: 2147483648 bytes, but the disk hp97560 holds 1374216192 bytes"),
        "{e}"
    );
    let o = spindle(&["serve", "--size", "1Q"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("the suffix must be K, M, G or T"));
}

#[test]
fn a_bad_fault_schedule_names_its_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let faults = dir.path().join("faults.toml");
    std::fs::write(
        &faults,
        "[[fault]]\nat_ms = 5\nkind = \"slow\"\ndisk = 0\nfactor = 3\n",
    )
    .unwrap();
    let o = spindle(&[
        "serve",
        "--faults",
        faults.to_str().unwrap(),
        "--socket",
        dir.path().join("s.sock").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("faults.toml: fault 0 (slow): `for_ms`: expected a duration"),
        "{e}"
    );
}

#[test]
fn a_server_stopped_from_its_control_socket_writes_its_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let control = dir.path().join("s.ctl");
    let stats = dir.path().join("stats.json");
    let server = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args([
            "serve",
            "--disk",
            "zero-latency",
            "--size",
            "1M",
            "--socket",
            socket.to_str().unwrap(),
            "--control",
            control.to_str().unwrap(),
            "--quiet",
            "--stats-out",
            stats.to_str().unwrap(),
            "--format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // A hang bound: the socket appears in milliseconds.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !control.exists() {
        assert!(Instant::now() < deadline, "no control socket");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ctl = |args: &[&str]| {
        let mut all = vec!["control", control.to_str().unwrap()];
        all.extend_from_slice(args);
        spindle(&all)
    };
    let o = ctl(&["state"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "ok disk0=online");
    // A factor that would overflow the model's clock, a negative one.
    for factor in ["1e15", "-5", "NaN"] {
        let o = ctl(&["slow", "0", factor, "1"]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("FACTOR: expected a number from 1 to 10000"),
            "{factor}: {}",
            stderr(&o)
        );
    }
    let o = ctl(&["fail", "7"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("disk 7 is not in the device of 1 disks"),
        "{}",
        stderr(&o)
    );
    assert!(ctl(&["shutdown"]).status.success());
    let out = server.wait_with_output().unwrap();
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("completions"), "{table}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(json["total"]["completions"].is_u64());
}

#[test]
fn server_options_out_of_their_range_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let socket = socket.to_str().unwrap();
    for (flag, value, says) in [
        ("--resync-mb-s", "1e-300", "must be in 0.01 ..= 100000"),
        ("--resync-mb-s", "-1", "must be in 0.01 ..= 100000"),
        ("--time-scale", "-1", "must be in 0.001..=1000000"),
        ("--request-memory", "1K", "must be in 32M ..= 1T"),
        ("--request-memory", "2T", "must be in 32M ..= 1T"),
        ("--handshake-timeout-s", "0", "must be in 0.1 ..= 3600"),
        ("--idle-timeout-s", "NaN", "must be in 1 ..= 604800"),
        ("--idle-timeout-s", "inf", "must be in 1 ..= 604800"),
    ] {
        let o = spindle(&["serve", "--socket", socket, flag, value]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        let e = stderr(&o);
        assert!(e.contains(flag) && e.contains(says), "{flag} {value}: {e}");
    }
}

#[test]
fn the_socket_paths_replace_nothing_and_differ() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let s = socket.to_str().unwrap();
    let o = spindle(&["serve", "--socket", s, "--control", s]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("the same path as --socket"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&socket, "precious").unwrap();
    let o = spindle(&["serve", "--socket", s]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("--socket") && e.contains("refusing to replace it"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&socket).unwrap(), "precious");
}

#[test]
fn a_fault_schedule_is_checked_against_the_server_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    for (entry, says) in [
        (
            "kind = \"fail-disk\"\ndisk = 99\n",
            "faults.toml:4: fault 0 (fail-disk): `disk`: 99, but the server has 1 disk(s), numbered from 0",
        ),
        (
            "kind = \"slow\"\ndisk = 0\nfactor = 1e15\nfor_ms = 1\n",
            "faults.toml: fault 0 (slow): `factor`: expected a factor from 1 to 10000",
        ),
        (
            "kind = \"slow\"\ndisk = 0\nfactor = 2\nfor_ms = 1e300\n",
            "faults.toml: fault 0 (slow): `for_ms`: expected a duration, ms, from 0 to 1e12",
        ),
    ] {
        let faults = dir.path().join("faults.toml");
        std::fs::write(&faults, format!("[[fault]]\nat_ms = 5\n{entry}")).unwrap();
        let o = spindle(&[
            "serve",
            "--faults",
            faults.to_str().unwrap(),
            "--socket",
            socket.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        assert!(e.contains(says), "{e}");
        assert!(!e.contains("FailDisk"), "no Rust Debug text: {e}");
        assert!(!socket.exists());
    }
}
