//! What the integration tests share: a small blocking NBD client over a
//! Unix socket, servers started in-process, the control socket, and the
//! detection of real clients (qemu, libnbd, fio) that may be missing.

#![allow(dead_code, unreachable_pub)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use blockdev::nbd::proto::*;
use blockdev::{Layout, Listen, Options};
use disk_emu::ResyncRate;
use disk_emu::disk::DiskSpec;
use disk_emu::faults::Schedule;

/// Options for a test server on `socket` (RAM, single disk under FCFS).
pub fn options(disk: DiskSpec, size: u64, socket: &Path) -> Options {
    Options {
        disk,
        layout: Layout::Single("fcfs".parse().unwrap()),
        size,
        file: None,
        time_scale: 1.0,
        faults: Schedule::new(),
        resync: ResyncRate::default(),
        seed: 1,
        listen: Listen::Unix(socket.to_path_buf()),
        control: Some(socket.with_extension("ctl")),
        live: false,
        threads: 2,
        signals: false,
        resources: blockdev::Resources::default(),
        crash: blockdev::CrashOptions::default(),
    }
}

/// Sends one control command; returns the reply line.
pub fn control(socket: &Path, command: &str) -> String {
    let mut s = UnixStream::connect(socket.with_extension("ctl")).unwrap();
    writeln!(s, "{command}").unwrap();
    let mut reply = Vec::new();
    let mut byte = [0u8; 1];
    while s.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        reply.push(byte[0]);
    }
    String::from_utf8(reply).unwrap()
}

/// The model's times the server reports (`stats` on the control socket).
#[derive(Clone, Copy, Debug)]
pub struct ModelTimes {
    /// Completions the device timed.
    pub modelled: u64,
    /// The sum of their response times in the model's time, ms.
    pub response_ms: f64,
    /// The sum of their service times, ms.
    pub service_ms: f64,
    /// Requests the server holds now.
    pub held: u64,
}

impl ModelTimes {
    /// The mean response time, ms, of the completions between `earlier`
    /// and `self`.
    pub fn mean_response_since(&self, earlier: &ModelTimes) -> f64 {
        (self.response_ms - earlier.response_ms) / (self.modelled - earlier.modelled) as f64
    }
}

/// What the server reports of the model's times so far.
/// Polls the control socket until `state` answers `state` (a hang bound of
/// 30 s, not a speed).
pub fn wait_for(socket: &Path, state: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let now = control(socket, "state");
        if now == state {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still {now}, waiting for {state}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

pub fn model_times(socket: &Path) -> ModelTimes {
    let reply = control(socket, "stats");
    let json: serde_json::Value = serde_json::from_str(reply.strip_prefix("ok ").unwrap()).unwrap();
    let modelled = json["modelled"].as_u64().unwrap();
    let mean = |field: &str| json[field].as_f64().unwrap_or(0.0);
    ModelTimes {
        modelled,
        response_ms: mean("mean_model_response_ms") * modelled as f64,
        service_ms: mean("mean_model_service_ms") * modelled as f64,
        held: json["held"].as_u64().unwrap(),
    }
}

/// A socket of either kind.
pub trait Socket: Read + Write + Send {}
impl Socket for UnixStream {}
impl Socket for std::net::TcpStream {}

/// A client in the transmission phase.
pub struct Client {
    pub stream: Box<dyn Socket>,
    pub size: u64,
    pub flags: u16,
    next: u64,
}

/// The reply to one request.
#[derive(Debug, PartialEq, Eq)]
pub struct Answer {
    pub handle: u64,
    pub error: u32,
}

impl Client {
    /// Connects to a Unix socket and goes to transmission with `NBD_OPT_GO`.
    pub fn connect(socket: &Path) -> Client {
        let stream = UnixStream::connect(socket).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Client::go(Box::new(stream))
    }

    /// Connects over TCP and goes to transmission.
    pub fn connect_tcp(addr: std::net::SocketAddr) -> Client {
        let stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Client::go(Box::new(stream))
    }

    fn go(mut stream: Box<dyn Socket>) -> Client {
        let mut greeting = [0u8; 18];
        stream.read_exact(&mut greeting).unwrap();
        assert_eq!(greeting[..8], NBDMAGIC.to_be_bytes());
        stream.write_all(&3u32.to_be_bytes()).unwrap();
        let mut go = Vec::new();
        go.extend_from_slice(&IHAVEOPT.to_be_bytes());
        go.extend_from_slice(&OPT_GO.to_be_bytes());
        go.extend_from_slice(&6u32.to_be_bytes());
        go.extend_from_slice(&0u32.to_be_bytes());
        go.extend_from_slice(&0u16.to_be_bytes());
        stream.write_all(&go).unwrap();
        let (mut size, mut flags) = (0, 0);
        loop {
            let mut h = [0u8; 20];
            stream.read_exact(&mut h).unwrap();
            let kind = u32::from_be_bytes(h[12..16].try_into().unwrap());
            let len = u32::from_be_bytes(h[16..20].try_into().unwrap()) as usize;
            let mut data = vec![0u8; len];
            stream.read_exact(&mut data).unwrap();
            match kind {
                REP_ACK => break,
                REP_INFO if data[..2] == INFO_EXPORT.to_be_bytes() => {
                    size = u64::from_be_bytes(data[2..10].try_into().unwrap());
                    flags = u16::from_be_bytes(data[10..12].try_into().unwrap());
                }
                REP_INFO => {}
                other => panic!("option reply {other:#x}"),
            }
        }
        Client {
            stream,
            size,
            flags,
            next: 1,
        }
    }

    /// Sends a request (and its payload) without waiting; returns its handle.
    pub fn send(&mut self, kind: u16, flags: u16, offset: u64, length: u32, payload: &[u8]) -> u64 {
        let handle = self.next;
        self.next += 1;
        let h = RequestHeader {
            flags,
            kind,
            handle,
            offset,
            length,
        };
        let mut msg = h.encode().to_vec();
        msg.extend_from_slice(payload);
        self.stream.write_all(&msg).unwrap();
        handle
    }

    /// Reads one reply (and `data_len` bytes of data if it has no error).
    pub fn receive(&mut self, data: &mut [u8]) -> Answer {
        let mut r = [0u8; 16];
        self.stream.read_exact(&mut r).unwrap();
        assert_eq!(r[..4], SIMPLE_REPLY_MAGIC.to_be_bytes(), "reply magic");
        let error = u32::from_be_bytes(r[4..8].try_into().unwrap());
        if error == 0 {
            self.stream.read_exact(data).unwrap();
        }
        Answer {
            handle: u64::from_be_bytes(r[8..16].try_into().unwrap()),
            error,
        }
    }

    pub fn read(&mut self, offset: u64, buf: &mut [u8]) -> u32 {
        let h = self.send(CMD_READ, 0, offset, buf.len() as u32, &[]);
        let a = self.receive(buf);
        assert_eq!(a.handle, h);
        a.error
    }

    pub fn write(&mut self, offset: u64, data: &[u8], flags: u16) -> u32 {
        let h = self.send(CMD_WRITE, flags, offset, data.len() as u32, data);
        let a = self.receive(&mut []);
        assert_eq!(a.handle, h);
        a.error
    }

    pub fn flush(&mut self) -> u32 {
        let h = self.send(CMD_FLUSH, 0, 0, 0, &[]);
        let a = self.receive(&mut []);
        assert_eq!(a.handle, h);
        a.error
    }

    pub fn disconnect(mut self) {
        self.send(CMD_DISC, 0, 0, 0, &[]);
        let mut rest = Vec::new();
        // The server closes after the disconnect.
        let _ = self.stream.read_to_end(&mut rest);
        assert!(rest.is_empty());
    }
}

/// Bytes that tell offsets and passes apart.
pub fn pattern(offset: u64, len: usize, pass: u8) -> Vec<u8> {
    (0..len as u64)
        .map(|i| ((offset + i) as u8).wrapping_mul(31) ^ pass)
        .collect()
}

/// Whether `tool` runs here; prints why a test skips if not.
pub fn have(tool: &str, test: &str) -> bool {
    let found = std::process::Command::new(tool)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    if !found {
        println!(
            "{test}: skipped: `{tool}` is not installed (apt-get install qemu-utils libnbd-bin fio nbdkit)"
        );
    }
    found
}

/// A temporary directory and the socket path in it.
pub fn socket_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("nbd.sock");
    (dir, socket)
}
