//! `spindle serve`: an emulated disk or mirror served over NBD, timed by
//! the emulator's models, with faults on a schedule or a control socket.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use blockdev::{Layout, Listen, Options, Report, Resources, StartError, zero_latency};
use disk_emu::ResyncRate;
use disk_emu::faults::Schedule;
use sched_core::PolicySpec;
use sched_core::array::ArraySpec;

use crate::common::resolve_disk;
use crate::output::{Cell, Format, Table};

/// Options of `spindle serve`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ServeArgs {
    /// Disk model of every disk: a preset, a TOML/JSON spec file, disksim:FILE,
    /// or zero-latency (no mechanics: measures the I/O path itself).
    #[cfg_attr(feature = "cli", arg(long, default_value = "hp97560"))]
    pub disk: String,
    /// Single-disk policy (see `spindle policies`).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value = "fcfs", conflicts_with = "mirror")
    )]
    pub policy: PolicySpec,
    /// Serve a mirror under this array policy (dmq, rt-cmq, md-raid1, ...).
    #[cfg_attr(feature = "cli", arg(long))]
    pub mirror: Option<ArraySpec>,
    /// Disks of the mirror.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 2, requires = "mirror", value_parser = crate::bounds::copies(), allow_hyphen_values = true))]
    pub copies: usize,
    /// Bytes exported: a number with an optional K, M, G or T suffix (powers of 1024).
    #[cfg_attr(feature = "cli", arg(long, default_value = "1G", value_parser = parse_size, allow_hyphen_values = true))]
    pub size: u64,
    /// Backing file (a mirror: FILE.disk0, FILE.disk1, ...), with the disks' state
    /// (failures, a resync's progress, media errors) in FILE.state; without one the
    /// data lives in RAM.
    #[cfg_attr(feature = "cli", arg(long))]
    pub file: Option<PathBuf>,
    /// TCP address to listen on.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value = "127.0.0.1:10809", conflicts_with = "socket")
    )]
    pub listen: std::net::SocketAddr,
    /// Unix socket to listen on instead of TCP.
    #[cfg_attr(feature = "cli", arg(long))]
    pub socket: Option<PathBuf>,
    /// Control socket (see the README: fail, replace, media-error, slow, power-cut, ...).
    #[cfg_attr(feature = "cli", arg(long))]
    pub control: Option<PathBuf>,
    /// The emulated disks run this many times as fast as the wall clock: 0.001 to 1000000.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0, value_parser = crate::bounds::speed(), allow_hyphen_values = true))]
    pub time_scale: f64,
    /// Fault schedule (TOML or JSON: `[[fault]]` at_ms, kind, disk, ...), in the disks' time;
    /// or `random:seed=S,misdirect=R,corrupt-read=R,flush-error=R,latent=R`: silent faults drawn per
    /// request at those rates.
    #[cfg_attr(feature = "cli", arg(long))]
    pub faults: Option<PathBuf>,
    /// Resync speed of a replaced disk, MB/s: 0.01 to 100000.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10.0, value_parser = resync_mb_s, allow_hyphen_values = true))]
    pub resync_mb_s: f64,
    /// Seed of the models' random parts and the policies' random choices.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = 1, allow_hyphen_values = true)
    )]
    pub seed: u64,
    /// Worker threads; with 1 (the fastest: the engine is one lock anyway)
    /// the thread that waits on the sockets serves the connections itself.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::jobs(), allow_hyphen_values = true))]
    pub threads: usize,
    /// Memory for request data (write payloads read, read replies not yet
    /// sent) of all clients together, with a K, M, G or T suffix: 32M to 1T.
    /// Past it clients wait; the server does not grow.
    #[cfg_attr(feature = "cli", arg(long, default_value = "256M", value_parser = request_memory, allow_hyphen_values = true))]
    pub request_memory: u64,
    /// Seconds a client has to finish its handshake: 0.1 to 3600.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10.0, value_parser = handshake_timeout_s, allow_hyphen_values = true))]
    pub handshake_timeout_s: f64,
    /// Seconds a client with nothing in flight may stay silent (or leave its
    /// replies unread) before it is disconnected: 1 to 604800 (a week).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 600.0, value_parser = idle_timeout_s, allow_hyphen_values = true))]
    pub idle_timeout_s: f64,
    /// No per-second statistics on stderr.
    #[cfg_attr(feature = "cli", arg(long))]
    pub quiet: bool,
    /// Write every second's statistics and the totals here (JSON) on exit.
    #[cfg_attr(feature = "cli", arg(long))]
    pub stats_out: Option<PathBuf>,
    /// Crash testing: the crash model and seed of power cuts, --record.
    #[cfg_attr(feature = "cli", command(flatten))]
    pub crash: crate::crash_states::CrashArgs,
}

/// Options of `spindle control`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ControlArgs {
    /// The control socket of a `spindle serve`.
    pub socket: PathBuf,
    /// The command and its arguments (`fail 1`, `replace 1`, `power-cut`, `state`, `help`, ...).
    #[cfg_attr(feature = "cli", arg(required = true, trailing_var_arg = true))]
    pub command: Vec<String>,
}

/// `spindle control`: sends one command to a server's control socket and
/// prints the reply.
pub fn control(args: &ControlArgs) -> Result<()> {
    use std::io::{BufRead, BufReader, Write};
    let mut stream = std::os::unix::net::UnixStream::connect(&args.socket)
        .with_context(|| format!("connecting to {}", args.socket.display()))?;
    writeln!(stream, "{}", args.command.join(" "))?;
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply)?;
    let reply = reply.trim_end();
    match reply.strip_prefix("error: ") {
        Some(e) => bail!("{e}"),
        None => {
            println!("{reply}");
            Ok(())
        }
    }
}

/// A real `s` within `range`, or a message saying what is allowed.
fn real_in(s: &str, range: std::ops::RangeInclusive<f64>) -> Result<f64, String> {
    let shown: String = s.chars().take(40).collect();
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{shown}` is not a number"))?;
    if range.contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "must be in {} ..= {}, got {shown}",
            range.start(),
            range.end()
        ))
    }
}

/// `--resync-mb-s`: as the control socket's `resync-rate`.
fn resync_mb_s(s: &str) -> Result<f64, String> {
    real_in(s, blockdev::control::RESYNC_MB_S)
}

/// `--handshake-timeout-s`.
fn handshake_timeout_s(s: &str) -> Result<f64, String> {
    real_in(s, 0.1..=3600.0)
}

/// `--idle-timeout-s`.
fn idle_timeout_s(s: &str) -> Result<f64, String> {
    real_in(s, 1.0..=604_800.0)
}

/// `--request-memory`: a size from 32 MiB (the largest request) to 1 TiB.
fn request_memory(s: &str) -> Result<u64, String> {
    let v = parse_size(s)?;
    if (u64::from(blockdev::MAX_PAYLOAD)..=1 << 40).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "must be in 32M ..= 1T (at least the largest request), got {v} bytes"
        ))
    }
}

/// The line (from 1) of `key` in the `[[fault]]` table number `index` (from
/// 0) of a TOML schedule; `None` if the text is laid out otherwise (JSON,
/// inline tables).
fn toml_line(text: &str, index: usize, key: &str) -> Option<usize> {
    let mut table = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("[[fault]]") {
            table = Some(table.map_or(0, |t| t + 1));
        } else if table == Some(index)
            && line
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return Some(n + 1);
        }
    }
    None
}

/// A size like `1G`, `512M`, `4096`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, shift) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("{s}: the suffix must be K, M, G or T")),
            };
            (&s[..i], shift)
        }
        _ => (s, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s}: expected a number of bytes, optionally with K, M, G or T"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s}: too large"))
}

/// `spindle serve`.
pub fn run(args: &ServeArgs, format: Format) -> Result<()> {
    let disk = if args.disk == "zero-latency" {
        zero_latency()
    } else {
        resolve_disk(&args.disk)?
    };
    let random = args
        .faults
        .as_ref()
        .and_then(|p| p.to_str())
        .and_then(|p| p.strip_prefix("random:"));
    let faults = match (&args.faults, random) {
        (Some(_), Some(_)) | (None, _) => Schedule::new(),
        (Some(path), None) => Schedule::from_file(path)?,
    };
    if let Some(path) = &args.socket
        && let Some(control) = &args.control
        && path == control
    {
        bail!(
            "--control {}: the same path as --socket: give the control socket a path of its own",
            control.display()
        );
    }
    let mut crash = args.crash.options();
    if let Some(spec) = random {
        crash.silent = disk_emu::faults::SilentRates::parse(spec)?;
    }
    let options = Options {
        disk,
        layout: match &args.mirror {
            Some(policy) => Layout::Mirror {
                policy: *policy,
                disks: args.copies,
            },
            None => Layout::Single(args.policy),
        },
        size: args.size,
        file: args.file.clone(),
        time_scale: args.time_scale,
        faults,
        resync: ResyncRate {
            blocks_per_s: args.resync_mb_s * 1e6 / 512.0,
            ..ResyncRate::default()
        },
        seed: args.seed,
        listen: match &args.socket {
            Some(path) => Listen::Unix(path.clone()),
            None => Listen::Tcp(args.listen),
        },
        control: args.control.clone(),
        live: !args.quiet,
        threads: args.threads,
        signals: true,
        resources: Resources {
            request_memory: args.request_memory,
            handshake_timeout: Duration::from_secs_f64(args.handshake_timeout_s),
            idle_timeout: Duration::from_secs_f64(args.idle_timeout_s),
        },
        crash,
    };
    let server = match blockdev::start(&options) {
        Ok(server) => server,
        // The schedule's entry, named with its file.
        Err(e @ StartError::FaultDisk { index, .. }) => {
            let file = args
                .faults
                .as_deref()
                .unwrap_or(Path::new("the fault schedule"));
            let line = std::fs::read_to_string(file)
                .ok()
                .and_then(|text| toml_line(&text, index, "disk"))
                .map(|l| format!(":{l}"))
                .unwrap_or_default();
            bail!("spindle serve: {}{line}: {e}", file.display())
        }
        Err(e) => return Err(e).context("spindle serve"),
    };
    // A server outlives its terminal: a closed standard error or output
    // must not stop it (`eprintln!` and `print!` would panic).
    let _ = writeln!(
        std::io::stderr(),
        "spindle serve: {} bytes on {}{}",
        options.size,
        server.listening(),
        args.control
            .as_ref()
            .map(|c| format!(", control on {}", c.display()))
            .unwrap_or_default()
    );
    let summary = server.wait()?;
    eprintln!(
        "spindle serve: seed {}, crash model {} seed {}{}",
        options.seed,
        options.crash.model,
        options.crash.seed,
        random
            .map(|r| format!(", faults random:{r}"))
            .unwrap_or_default()
    );
    if let Some(path) = &args.stats_out {
        let json = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))?;
        crate::output::announce_written(path);
    }
    let _ = write!(
        std::io::stdout(),
        "{}",
        totals(&summary.total).render(format)
    );
    Ok(())
}

fn totals(r: &Report) -> Table {
    let mut t = Table::new(
        "spindle serve — the whole run",
        &[
            "seconds",
            "completions",
            "errors",
            "IOPS",
            "mean latency, ms",
            "p99 latency, ms",
            "mean queue depth",
            "p99 lateness, ms",
            "mean model response, ms",
        ],
    );
    let opt = |x: Option<f64>| x.map_or(Cell::Missing, |v| Cell::num(v, 3));
    t.row(vec![
        Cell::num(r.seconds, 1),
        Cell::Int(r.completions),
        Cell::Int(r.errors),
        Cell::num(r.iops, 0),
        opt(r.mean_latency_ms),
        opt(r.p99_latency_ms),
        opt(r.mean_queue_depth),
        opt(r.p99_lateness_ms),
        opt(r.mean_model_response_ms),
    ]);
    t
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn a_fault_entry_is_found_by_its_line() {
        let text = "# faults\n[[fault]]\nat_ms = 1\nkind = \"power-cut\"\n\n[[fault]]\nat_ms = 2\ndisks = 3\ndisk  = 99\n";
        assert_eq!(super::toml_line(text, 1, "disk"), Some(9));
        assert_eq!(super::toml_line(text, 0, "disk"), None);
        assert_eq!(super::toml_line("{\"fault\": []}", 0, "disk"), None);
    }

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("1X").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
