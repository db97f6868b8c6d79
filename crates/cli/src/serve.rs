//! `spindle serve`: an emulated disk or mirror served over NBD, timed by
//! the emulator's models, with faults on a schedule or a control socket.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use blockdev::{Layout, Listen, Options, Report, zero_latency};
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
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 2, requires = "mirror", value_parser = crate::bounds::copies()))]
    pub copies: usize,
    /// Bytes exported: a number with an optional K, M, G or T suffix (powers of 1024).
    #[cfg_attr(feature = "cli", arg(long, default_value = "1G", value_parser = parse_size))]
    pub size: u64,
    /// Backing file (a mirror: FILE.disk0, FILE.disk1, ... and its state in FILE.state);
    /// without one the data lives in RAM.
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
    /// The emulated disks run this many times as fast as the wall clock.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1.0, value_parser = crate::bounds::speed()))]
    pub time_scale: f64,
    /// Fault schedule (TOML or JSON: `[[fault]]` at_ms, kind, disk, ...), in the disks' time.
    #[cfg_attr(feature = "cli", arg(long))]
    pub faults: Option<PathBuf>,
    /// Resync speed of a replaced disk, MB/s.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10.0, value_parser = crate::bounds::positive()))]
    pub resync_mb_s: f64,
    /// Seed of the models' random parts and the policies' random choices.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Worker threads; with 1 (the fastest: the engine is one lock anyway)
    /// the thread that waits on the sockets serves the connections itself.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::jobs()))]
    pub threads: usize,
    /// No per-second statistics on stderr.
    #[cfg_attr(feature = "cli", arg(long))]
    pub quiet: bool,
    /// Write every second's statistics and the totals here (JSON) on exit.
    #[cfg_attr(feature = "cli", arg(long))]
    pub stats_out: Option<PathBuf>,
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
    let faults = match &args.faults {
        Some(path) => Schedule::from_file(path)?,
        None => Schedule::new(),
    };
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
    };
    let server = blockdev::start(&options).context("spindle serve")?;
    eprintln!(
        "spindle serve: {} bytes on {:?}{}",
        options.size,
        server.listening(),
        args.control
            .as_ref()
            .map(|c| format!(", control on {}", c.display()))
            .unwrap_or_default()
    );
    let summary = server.wait()?;
    if let Some(path) = &args.stats_out {
        let json = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))?;
    }
    print!("{}", totals(&summary.total).render(format));
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
    ]);
    t
}

#[cfg(test)]
mod tests {
    use super::parse_size;

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
