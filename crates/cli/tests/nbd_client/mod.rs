//! What the tests of a `spindle serve` process share: the server started
//! as the binary (and stopped with a signal), a small blocking NBD client,
//! the control socket, the model's times the server reports, and the
//! resident memory of the server process.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use blockdev::nbd::proto::{
    CMD_DISC, CMD_READ, CMD_WRITE, IHAVEOPT, NBDMAGIC, OPT_GO, REP_ACK, RequestHeader,
    SIMPLE_REPLY_MAGIC,
};

/// A `spindle serve` process on a Unix socket, with a control socket, in a
/// temporary directory.
pub(crate) struct Serve {
    pub(crate) child: Child,
    pub(crate) dir: tempfile::TempDir,
    pub(crate) socket: PathBuf,
    pub(crate) control: PathBuf,
    pub(crate) stats: PathBuf,
}

impl Serve {
    /// Starts `spindle serve ARGS --socket … --control … --quiet
    /// --stats-out …` and waits (up to 20 s) for its control socket;
    /// `Err(stderr)` if it exits instead.
    pub(crate) fn start(args: &[&str]) -> Result<Serve, String> {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("nbd.sock");
        let control = dir.path().join("nbd.ctl");
        let stats = dir.path().join("stats.json");
        let log = dir.path().join("stderr.txt");
        let mut child = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .arg("serve")
            .args(args)
            .args(["--socket", socket.to_str().unwrap()])
            .args(["--control", control.to_str().unwrap()])
            .args(["--stats-out", stats.to_str().unwrap(), "--quiet"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(_status) = child.try_wait().unwrap() {
                return Err(std::fs::read_to_string(&log).unwrap());
            }
            if control.exists() && UnixStream::connect(&control).is_ok() {
                break;
            }
            assert!(Instant::now() < deadline, "no control socket after 20 s");
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(Serve {
            child,
            dir,
            socket,
            control,
            stats,
        })
    }

    /// One control command's reply.
    pub(crate) fn control(&self, line: &str) -> String {
        control(&self.control, line)
    }

    /// The model's times the server reports.
    pub(crate) fn model_times(&self) -> ModelTimes {
        let reply = self.control("stats");
        let json: serde_json::Value =
            serde_json::from_str(reply.strip_prefix("ok ").expect("ok")).unwrap();
        let modelled = json["modelled"].as_u64().unwrap();
        let mean = |field: &str| json[field].as_f64().unwrap_or(0.0);
        ModelTimes {
            modelled,
            response_ms: mean("mean_model_response_ms") * modelled as f64,
            held: json["held"].as_u64().unwrap(),
        }
    }

    /// Resident memory of the server process, bytes (Linux).
    pub(crate) fn resident(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb * 1024
    }

    /// Sends SIGTERM; the exit status and how long it took to come (`None`
    /// if the process was still running after `limit`, then killed).
    pub(crate) fn terminate(self, limit: Duration) -> (Option<ExitStatus>, Duration, Serve) {
        self.signal("-TERM", limit)
    }

    /// As [`Serve::terminate`], with `kill`'s `signal` (`-INT`, ...).
    pub(crate) fn signal(
        mut self,
        signal: &str,
        limit: Duration,
    ) -> (Option<ExitStatus>, Duration, Serve) {
        let t = Instant::now();
        let sent = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (Some(status), t.elapsed(), self);
            }
            if t.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return (None, t.elapsed(), self);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The model's times a server reports (`stats` on its control socket).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ModelTimes {
    /// Completions the device timed.
    pub(crate) modelled: u64,
    /// The sum of their response times in the model's time, ms.
    pub(crate) response_ms: f64,
    /// Requests the server holds.
    pub(crate) held: u64,
}

impl ModelTimes {
    /// The mean response time, ms, of the completions since `earlier`.
    pub(crate) fn mean_response_since(&self, earlier: &ModelTimes) -> f64 {
        (self.response_ms - earlier.response_ms) / (self.modelled - earlier.modelled) as f64
    }
}

/// Sends one control command; returns the reply line.
pub(crate) fn control(path: &Path, line: &str) -> String {
    let mut s = UnixStream::connect(path).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    writeln!(s, "{line}").unwrap();
    let mut reply = Vec::new();
    let mut byte = [0u8; 1];
    while s.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        reply.push(byte[0]);
    }
    String::from_utf8(reply).unwrap()
}

/// A client in the transmission phase.
pub(crate) struct Client {
    pub(crate) stream: UnixStream,
    next: u64,
}

impl Client {
    /// Connects and goes to transmission with `NBD_OPT_GO`.
    pub(crate) fn connect(socket: &Path) -> Client {
        let mut stream = UnixStream::connect(socket).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut greeting = [0u8; 18];
        stream.read_exact(&mut greeting).unwrap();
        assert_eq!(greeting[..8], NBDMAGIC.to_be_bytes());
        stream.write_all(&3u32.to_be_bytes()).unwrap();
        let mut go = Vec::new();
        go.extend_from_slice(&IHAVEOPT.to_be_bytes());
        go.extend_from_slice(&OPT_GO.to_be_bytes());
        go.extend_from_slice(&6u32.to_be_bytes());
        go.extend_from_slice(&[0; 6]);
        stream.write_all(&go).unwrap();
        loop {
            let mut h = [0u8; 20];
            stream.read_exact(&mut h).unwrap();
            let kind = u32::from_be_bytes(h[12..16].try_into().unwrap());
            let len = u32::from_be_bytes(h[16..20].try_into().unwrap()) as usize;
            let mut data = vec![0u8; len];
            stream.read_exact(&mut data).unwrap();
            if kind == REP_ACK {
                break;
            }
            assert!(kind < 1 << 31, "option error {kind:#x}");
        }
        Client { stream, next: 1 }
    }

    /// Sends a request and its payload without waiting for the reply.
    pub(crate) fn send(
        &mut self,
        kind: u16,
        offset: u64,
        length: u32,
        payload: &[u8],
    ) -> std::io::Result<()> {
        let h = RequestHeader {
            flags: 0,
            kind,
            handle: self.next,
            offset,
            length,
        };
        self.next += 1;
        self.stream.write_all(&h.encode())?;
        self.stream.write_all(payload)
    }

    /// Reads one reply; its error (0: fine), with `data` filled if fine.
    pub(crate) fn receive(&mut self, data: &mut [u8]) -> u32 {
        let mut r = [0u8; 16];
        self.stream.read_exact(&mut r).unwrap();
        assert_eq!(r[..4], SIMPLE_REPLY_MAGIC.to_be_bytes());
        let error = u32::from_be_bytes(r[4..8].try_into().unwrap());
        if error == 0 {
            self.stream.read_exact(data).unwrap();
        }
        error
    }

    pub(crate) fn read(&mut self, offset: u64, buf: &mut [u8]) -> u32 {
        self.send(CMD_READ, offset, buf.len() as u32, &[]).unwrap();
        self.receive(buf)
    }

    pub(crate) fn write(&mut self, offset: u64, data: &[u8]) -> u32 {
        self.send(CMD_WRITE, offset, data.len() as u32, data)
            .unwrap();
        self.receive(&mut [])
    }

    pub(crate) fn disconnect(mut self) {
        let _ = self.send(CMD_DISC, 0, 0, &[]);
    }
}

/// Clients that queue reads and writes of `bytes` each (`requests` per
/// client, never reading a reply) from threads; [`Flood::vanish`] closes
/// them all at once.
pub(crate) struct Flood {
    streams: Vec<UnixStream>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Flood {
    pub(crate) fn start(socket: &Path, clients: usize, requests: usize, bytes: u32) -> Flood {
        let mut streams = Vec::new();
        let mut threads = Vec::new();
        for c in 0..clients {
            let mut client = Client::connect(socket);
            streams.push(client.stream.try_clone().unwrap());
            threads.push(std::thread::spawn(move || {
                let payload = vec![c as u8; bytes as usize];
                for i in 0..requests {
                    let offset = (i as u64 % 64) * u64::from(bytes);
                    let sent = if i % 2 == 0 {
                        client.send(CMD_READ, offset, bytes, &[])
                    } else {
                        client.send(CMD_WRITE, offset, bytes, &payload)
                    };
                    // Blocked by the server's back-pressure until closed.
                    if sent.is_err() {
                        return;
                    }
                }
            }));
        }
        Flood { streams, threads }
    }

    /// Every client goes away without a word.
    pub(crate) fn vanish(self) {
        for s in &self.streams {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        for t in self.threads {
            t.join().unwrap();
        }
    }
}
