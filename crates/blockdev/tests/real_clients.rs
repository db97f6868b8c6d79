//! Real clients against `spindle serve`'s server: qemu-img and qemu-io,
//! nbdinfo, nbdcopy (64 MB in and out, identical), fio's nbd engine with
//! crc32c verification, and fio verifying a mirror through a disk failure
//! in the middle of its run, the replacement's resync and a restart.
//!
//! Each test needs its tools (Debian: qemu-utils, libnbd-bin, fio); on a
//! machine without them it says so and passes.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use blockdev::Layout;
use disk_emu::ResyncRate;
use disk_emu::Stream;
use disk_emu::disk::presets;

use common::{control, have, options, socket_dir};

fn uri(socket: &Path) -> String {
    format!("nbd+unix:///?socket={}", socket.display())
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// An emulated HP 97560 running 200 times as fast as the model.
fn hp97560(size: u64, socket: &Path) -> blockdev::Server {
    let mut o = options(presets::hp97560(), size, socket);
    o.time_scale = 200.0;
    blockdev::start(&o).unwrap()
}

#[test]
fn qemu_img_qemu_io_and_nbdinfo_see_the_export() {
    if !(have("qemu-img", "qemu") && have("qemu-io", "qemu") && have("nbdinfo", "nbdinfo")) {
        return;
    }
    let (_dir, socket) = socket_dir();
    let server = hp97560(128 << 20, &socket);
    let info = text(&run(Command::new("qemu-img").args(["info", &uri(&socket)])));
    assert!(info.contains("virtual size: 128 MiB"), "{info}");
    let io = text(&run(Command::new("qemu-io").args([
        "-f",
        "raw",
        "-c",
        "write -P 0xcd 1M 64k",
        "-c",
        "read -P 0xcd 1M 64k",
        "-c",
        "read -P 0 2M 4k",
        &uri(&socket),
    ])));
    assert!(
        io.contains("wrote 65536/65536") && io.contains("read 65536/65536"),
        "{io}"
    );
    assert!(!io.contains("verification failed"), "{io}");
    let list = text(&run(Command::new("nbdinfo").args(["--list", &uri(&socket)])));
    assert!(list.contains("export=\"hp97560\""), "{list}");
    assert!(list.contains("export-size: 134217728"), "{list}");
    assert!(list.contains("single disk under fcfs"), "{list}");
    assert!(list.contains("is_rotational: true"), "{list}");
    server.stop().unwrap();
}

#[test]
fn nbdcopy_copies_64_mb_in_and_out_unchanged() {
    if !have("nbdcopy", "nbdcopy") {
        return;
    }
    let (dir, socket) = socket_dir();
    let size = 64u64 << 20;
    let server = hp97560(size, &socket);
    let mut rng = Stream::numbered(64);
    let data: Vec<u8> = (0..size / 8)
        .flat_map(|_| rng.next_u64().to_le_bytes())
        .collect();
    let input = dir.path().join("in.raw");
    let output = dir.path().join("out.raw");
    std::fs::write(&input, &data).unwrap();
    run(Command::new("nbdcopy").args([input.to_str().unwrap(), &uri(&socket)]));
    run(Command::new("nbdcopy").args([&uri(&socket), output.to_str().unwrap()]));
    let back = std::fs::read(&output).unwrap();
    assert!(back == data, "the copy out differs from the copy in");
    server.stop().unwrap();
}

fn fio(socket: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("fio");
    cmd.args([
        "--name=check",
        "--ioengine=nbd",
        &format!("--uri={}", uri(socket)),
        "--verify=crc32c",
        // No verify-state file left in the working directory.
        "--verify_state_save=0",
        "--output-format=terse",
    ])
    .args(args);
    cmd
}

fn has_fio_nbd() -> bool {
    have("fio", "fio")
        && Command::new("fio")
            .arg("--enghelp=nbd")
            .output()
            .is_ok_and(|o| o.status.success())
}

#[test]
fn fio_verifies_random_writes_with_crc32c() {
    if !has_fio_nbd() {
        return;
    }
    let (_dir, socket) = socket_dir();
    let server = hp97560(64 << 20, &socket);
    run(&mut fio(
        &socket,
        &[
            "--rw=randwrite",
            "--bs=4k",
            "--size=16M",
            "--iodepth=8",
            "--do_verify=1",
        ],
    ));
    let summary = server.stop().unwrap();
    assert_eq!(summary.total.errors, 0);
    assert!(summary.total.completions >= 2 * 4096);
}

#[test]
fn fio_verify_on_a_mirror_through_failure_resync_and_restart() {
    if !has_fio_nbd() {
        return;
    }
    let (dir, socket) = socket_dir();
    let file = dir.path().join("mirror.img");
    let size = 8u64 << 20;
    let start = || {
        let mut spec = presets::hp97560();
        spec.geometry.cylinders = 12;
        let mut o = options(spec, size, &socket);
        o.layout = Layout::Mirror {
            policy: "rt-dmq".parse().unwrap(),
            disks: 2,
        };
        o.file = Some(file.clone());
        o.time_scale = 5.0;
        o.resync = ResyncRate {
            blocks_per_s: 1e6,
            chunk_blocks: 128,
        };
        blockdev::start(&o).unwrap()
    };
    let job = [
        "--rw=randwrite",
        "--bs=16k",
        "--size=8M",
        "--iodepth=4",
        "--randseed=7",
    ];
    let verify = |what: &str| {
        let mut args = job.to_vec();
        args.push("--verify_only");
        let out = fio(&socket, &args).output().unwrap();
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };

    let server = start();
    let mut args = job.to_vec();
    args.push("--do_verify=0");
    let mut writer = fio(&socket, &args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        writer.try_wait().unwrap().is_none(),
        "fio ended before the failure: the disk must fail in the middle of its run"
    );
    assert_eq!(control(&socket, "fail 1"), "ok");
    assert!(writer.wait().unwrap().success());
    verify("degraded");
    assert_eq!(control(&socket, "replace 1"), "ok");
    let deadline = Instant::now() + Duration::from_secs(60);
    while control(&socket, "state") != "ok disk0=online disk1=online" {
        assert!(Instant::now() < deadline, "the resync never ended");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(control(&socket, "fail 0"), "ok");
    verify("from the rebuilt disk alone");
    server.stop().unwrap();

    let server = start();
    assert_eq!(control(&socket, "state"), "ok disk0=failed disk1=online");
    verify("after a restart");
    server.stop().unwrap();
}

/// fio's `randwrite` over a 1 MB region (each block overwritten four
/// times a run, up to 8 writes in flight) with `verify=crc32c` checking
/// every 32 writes as it goes (`verify_backlog`) and all at the end, while
/// one disk of the mirror fails, is replaced and rebuilt, then the other:
/// no verify error.
#[test]
fn fio_verifies_overlapping_writes_while_each_disk_is_rebuilt() {
    if !has_fio_nbd() {
        return;
    }
    let (_dir, socket) = socket_dir();
    let mut spec = presets::hp97560();
    spec.geometry.cylinders = 12;
    let mut o = options(spec, 8 << 20, &socket);
    o.layout = Layout::Mirror {
        policy: "dmq".parse().unwrap(),
        disks: 2,
    };
    o.time_scale = 20.0;
    o.resync = ResyncRate {
        blocks_per_s: 2e5,
        chunk_blocks: 128,
    };
    let server = blockdev::start(&o).unwrap();
    // fio runs again and again until both rebuilds are over, each run
    // writing and verifying on its own: however fast or slow the machine,
    // the failures and rebuilds fall under its writes.
    let rebuilt = Arc::new(AtomicBool::new(false));
    let writer = {
        let (socket, rebuilt) = (socket.clone(), Arc::clone(&rebuilt));
        std::thread::spawn(move || {
            let mut runs = 0;
            while runs < 2 || !rebuilt.load(Ordering::Acquire) {
                let out = fio(
                    &socket,
                    &[
                        "--rw=randwrite",
                        "--bs=4k",
                        "--size=1M",
                        "--io_size=4M",
                        "--iodepth=8",
                        "--verify_backlog=32",
                        "--do_verify=1",
                        &format!("--randseed={}", 11 + runs),
                    ],
                )
                .output()
                .unwrap();
                assert!(
                    out.status.success(),
                    "fio run {runs}: {}\n{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                runs += 1;
            }
            runs
        })
    };
    let online = "ok disk0=online disk1=online";
    for disk in [1, 0] {
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(control(&socket, &format!("fail {disk}")), "ok");
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(control(&socket, &format!("replace {disk}")), "ok");
        let deadline = Instant::now() + Duration::from_secs(60);
        while control(&socket, "state") != online {
            assert!(Instant::now() < deadline, "the resync never ended");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    rebuilt.store(true, Ordering::Release);
    let runs = writer.join().unwrap();
    println!("{runs} fio runs of 1024 overlapping 4 KB writes, verified");
    let summary = server.stop().unwrap();
    assert_eq!(summary.total.errors, 0);
}
