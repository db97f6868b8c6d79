//! The control socket of `spindle serve`: one command a line, one reply a
//! line, on a Unix socket (`socat - UNIX-CONNECT:PATH`, `nc -U PATH`).
//!
//! | command | what it does |
//! |---|---|
//! | `fail DISK` | disk `DISK` (from 0) fails: reads go to the other copies |
//! | `replace DISK` | a blank disk replaces failed `DISK` and is resynchronised in the background |
//! | `resync-rate MB_PER_S [CHUNK_KB]` | the resync speed of later replacements (default 10 MB/s in 64 KB chunks) |
//! | `media-error DISK FIRST_BLOCK BLOCKS` | those blocks of that disk fail reads until rewritten |
//! | `slow DISK FACTOR SECONDS` | the disk's services take FACTOR times as long for SECONDS of the disk's time |
//! | `power-cut [MODEL]` | every drive loses writes its write-back cache held unflushed: all (the default, or the `--crash-model` of `spindle serve`), or as MODEL says: `all`, `subset`, `prefix`, `torn` |
//! | `misdirect [N]` | silently, the next N (1) writes land at another block |
//! | `corrupt-reads [N]` | silently, the next N (1) reads return a flipped bit |
//! | `corrupt-stored DISK BLOCK` | silently, a bit of that stored block flips |
//! | `flush-error [N]` | the next N (1) flushes fail with `EIO` |
//! | `state` | each disk's state, and a rebuild's progress |
//! | `fault-log` | the silent faults decided so far, as a JSON array of lines |
//! | `stats` | the statistics of the whole run so far, as JSON |
//! | `shutdown` | stop cleanly (sync, save the mirror's state) |
//! | `help` | the commands |
//!
//! Replies start with `ok` or `error:`. `power-cut` answers `ok lost
//! DISK:FIRST+BLOCKS ...` (each write a cache lost, by its blocks on that
//! disk; `DISK:FIRST+BLOCKS/KEPT` for a write torn after its first KEPT
//! blocks) or `ok lost nothing`; `state` answers `ok disk0=online disk1=rebuilding:BLOCK/END`,
//! END the block where the resync ends (the export's size in blocks),
//! followed by `lost=DISK:FIRST+BLOCKS,...` if a rebuild found blocks no
//! other copy could read (they fail reads on the rebuilt disk until
//! rewritten). Lines are at most 4096 bytes.

use std::sync::Arc;

use disk_emu::ResyncRate;
use disk_emu::faults::{Fate, Fault};
use sched_core::array::DiskState;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixListener;

use crate::engine::Emulated;
use crate::server::Shared;

/// A parsed command.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// A fault to inject now.
    Fault(Fault),
    /// A resync rate for later replacements.
    ResyncRate(ResyncRate),
    /// Each disk's state.
    State,
    /// The statistics.
    Stats,
    /// The silent faults decided so far.
    FaultLog,
    /// Stop the server.
    Shutdown,
    /// The commands.
    Help,
}

/// A line that is not a command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} (try `help`)")]
pub struct ControlError(String);

/// Resync speeds, MB/s (`resync-rate`, `serve --resync-mb-s`): from 10 kB/s
/// (a 1 GB export in a day) to 100 GB/s.
pub const RESYNC_MB_S: std::ops::RangeInclusive<f64> = 0.01..=100_000.0;
/// Resync chunks, KB: one block to the largest request.
pub const RESYNC_CHUNK_KB: std::ops::RangeInclusive<f64> = 0.5..=32_768.0;
/// How long a `slow` lasts, seconds of the disk's time: up to 10⁹ s (31
/// years), inside the virtual clock's range.
pub const SLOW_SECONDS: std::ops::RangeInclusive<f64> = 1e-9..=1e9;
/// The longest command line: longer ones are refused unread, and the
/// connection closed.
pub const MAX_LINE: usize = 4096;

/// A word echoed in a reply: at most 40 characters of it.
fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!(
            "{}… ({} bytes)",
            s.chars().take(MAX).collect::<String>(),
            s.len()
        )
    }
}

const HELP: &str = "commands: fail DISK | replace DISK | resync-rate MB_PER_S [CHUNK_KB] | media-error DISK FIRST_BLOCK BLOCKS | slow DISK FACTOR SECONDS | power-cut [all|subset|prefix|torn] | misdirect [N] | corrupt-reads [N] | corrupt-stored DISK BLOCK | flush-error [N] | state | stats | fault-log | shutdown | help";

/// Parses one line.
///
/// # Errors
/// [`ControlError`] naming what is wrong.
pub fn parse(line: &str) -> Result<Request, ControlError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&command, args)) = words.split_first() else {
        return Err(ControlError("empty line".into()));
    };
    let arity = |n: std::ops::RangeInclusive<usize>| {
        if n.contains(&args.len()) {
            Ok(())
        } else {
            Err(ControlError(format!(
                "`{command}` takes {} arguments, got {}",
                if n.start() == n.end() {
                    n.start().to_string()
                } else {
                    format!("{} to {}", n.start(), n.end())
                },
                args.len()
            )))
        }
    };
    fn number<T: std::str::FromStr>(what: &str, s: &str) -> Result<T, ControlError> {
        s.parse()
            .map_err(|_| ControlError(format!("{what}: `{}` is not a number", shorten(s))))
    }
    let within = |what: &str, s: &str, range: std::ops::RangeInclusive<f64>| {
        let x: f64 = number(what, s)?;
        if range.contains(&x) {
            Ok(x)
        } else {
            Err(ControlError(format!(
                "{what}: expected a number from {} to {}, got {}",
                range.start(),
                range.end(),
                shorten(s)
            )))
        }
    };
    Ok(match command {
        "fail" => {
            arity(1..=1)?;
            Request::Fault(Fault::FailDisk {
                disk: number("DISK", args[0])?,
            })
        }
        "replace" => {
            arity(1..=1)?;
            Request::Fault(Fault::ReplaceDisk {
                disk: number("DISK", args[0])?,
            })
        }
        "resync-rate" => {
            arity(1..=2)?;
            let mb = within("MB_PER_S", args[0], RESYNC_MB_S)?;
            let chunk_kb = match args.get(1) {
                Some(s) => within("CHUNK_KB", s, RESYNC_CHUNK_KB)?,
                None => 64.0,
            };
            Request::ResyncRate(ResyncRate {
                blocks_per_s: mb * 1e6 / 512.0,
                chunk_blocks: ((chunk_kb * 1024.0 / 512.0) as u32).max(1),
            })
        }
        "media-error" => {
            arity(3..=3)?;
            let first: u64 = number("FIRST_BLOCK", args[1])?;
            let blocks: u64 = number("BLOCKS", args[2])?;
            Request::Fault(Fault::MediaError {
                disk: number("DISK", args[0])?,
                blocks: first..first.saturating_add(blocks),
            })
        }
        "slow" => {
            arity(3..=3)?;
            let factor = within("FACTOR", args[1], 1.0..=disk_emu::disk::MAX_SLOWDOWN)?;
            let seconds = within("SECONDS", args[2], SLOW_SECONDS)?;
            Request::Fault(Fault::Slow {
                disk: number("DISK", args[0])?,
                factor,
                duration: (seconds * 1e9) as u64,
            })
        }
        "power-cut" => {
            arity(0..=1)?;
            match args.first() {
                None => Request::Fault(Fault::PowerCut),
                Some(model) => Request::Fault(Fault::Crash(
                    model.parse().map_err(|e| ControlError(format!("{e}")))?,
                )),
            }
        }
        "misdirect" | "corrupt-reads" | "flush-error" => {
            arity(0..=1)?;
            let count = match args.first() {
                Some(n) => number("N", n)?,
                None => 1,
            };
            Request::Fault(match command {
                "misdirect" => Fault::MisdirectWrites { count },
                "corrupt-reads" => Fault::CorruptReads { count },
                _ => Fault::FailFlushes { count },
            })
        }
        "corrupt-stored" => {
            arity(2..=2)?;
            Request::Fault(Fault::CorruptStored {
                disk: number("DISK", args[0])?,
                block: number("BLOCK", args[1])?,
            })
        }
        "state" => Request::State,
        "stats" => Request::Stats,
        "fault-log" => Request::FaultLog,
        "shutdown" => Request::Shutdown,
        "help" => Request::Help,
        other => {
            return Err(ControlError(format!(
                "unknown command `{}`",
                shorten(other)
            )));
        }
    })
}

/// Carries out `request`; returns the reply line.
pub fn execute<D: Emulated>(shared: &Shared<D>, request: &Request) -> String {
    match request {
        Request::Fault(fault) => match shared.with_engine(|e| e.inject(fault)) {
            Ok(lost) if matches!(fault, Fault::PowerCut | Fault::Crash(_)) => {
                if lost.is_empty() {
                    "ok lost nothing".into()
                } else {
                    let parts: Vec<String> = lost
                        .iter()
                        .map(|l| {
                            let b = &l.unflushed.blocks;
                            let torn = match l.fate {
                                Fate::Torn { kept_blocks } => format!("/{kept_blocks}"),
                                _ => String::new(),
                            };
                            format!("{}:{}+{}{torn}", l.disk, b.start, b.end - b.start)
                        })
                        .collect();
                    format!("ok lost {}", parts.join(" "))
                }
            }
            Ok(_) => "ok".into(),
            Err(e) => format!("error: {e}"),
        },
        Request::ResyncRate(rate) => match shared.with_engine(|e| e.set_resync_rate(*rate)) {
            Ok(()) => "ok".into(),
            Err(e) => format!("error: {e}"),
        },
        Request::State => shared.with_engine(|e| {
            let states = e.disk_states();
            let parts: Vec<String> = states
                .iter()
                .enumerate()
                .map(|(d, s)| match s {
                    DiskState::Online => format!("disk{d}=online"),
                    DiskState::Failed => format!("disk{d}=failed"),
                    DiskState::Rebuilding { rebuilt_to } => {
                        let end = e.device().inner().resync_end(d);
                        format!("disk{d}=rebuilding:{rebuilt_to}/{end}")
                    }
                })
                .collect();
            // What rebuilds could read from no copy.
            let lost: Vec<String> = (0..states.len())
                .flat_map(|d| {
                    e.lost(d)
                        .iter()
                        .map(move |b| format!("{d}:{}+{}", b.start, b.end - b.start))
                })
                .collect();
            if lost.is_empty() {
                format!("ok {}", parts.join(" "))
            } else {
                format!("ok {} lost={}", parts.join(" "), lost.join(","))
            }
        }),
        Request::FaultLog => {
            let log = shared.with_engine(|e| e.silent_log());
            match serde_json::to_string(&log) {
                Ok(json) => format!("ok {json}"),
                Err(e) => format!("error: {e}"),
            }
        }
        Request::Stats => {
            let total = shared.with_engine(|e| e.stats_mut().total());
            match serde_json::to_string(&total) {
                Ok(json) => format!("ok {json}"),
                Err(e) => format!("error: {e}"),
            }
        }
        Request::Shutdown => {
            shared.shutdown.notify_one();
            "ok stopping".into()
        }
        Request::Help => format!("ok {HELP}"),
    }
}

/// Serves control clients until the server stops.
pub async fn listen<D: Emulated>(listener: UnixListener, shared: Arc<Shared<D>>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors, most likely: let some close.
                say!("spindle serve: control socket: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        tokio::spawn(serve_client(stream, Arc::clone(&shared)));
    }
}

/// One control client, a line at a time, each read with a cap of
/// [`MAX_LINE`] bytes: a longer line is answered with an error and the
/// connection closed, so nothing a client sends is held whole.
async fn serve_client<D: Emulated>(stream: tokio::net::UnixStream, shared: Arc<Shared<D>>) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = (MAX_LINE + 1) as u64;
        // A control client silent for the idle timeout is let go, as an
        // NBD client is.
        let idle = shared.resources.idle_timeout;
        let mut bounded = (&mut read).take(limit);
        let next = bounded.read_until(b'\n', &mut line);
        match tokio::time::timeout(idle, next).await {
            Ok(Ok(0) | Err(_)) | Err(_) => return,
            Ok(Ok(_)) => {}
        }
        let complete = line.last() == Some(&b'\n');
        if !complete && line.len() > MAX_LINE {
            let reply = format!("error: a line longer than {MAX_LINE} bytes (try `help`)\n");
            let _ = write.write_all(reply.as_bytes()).await;
            return;
        }
        let reply = match std::str::from_utf8(&line) {
            Ok(text) => match parse(text) {
                Ok(request) => execute(&shared, &request),
                Err(e) => format!("error: {e}"),
            },
            Err(_) => "error: a line that is not UTF-8 (try `help`)".to_string(),
        };
        if write
            .write_all(format!("{reply}\n").as_bytes())
            .await
            .is_err()
            || !complete
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_and_bad_ones_are_named() {
        assert_eq!(
            parse("fail 1"),
            Ok(Request::Fault(Fault::FailDisk { disk: 1 }))
        );
        assert_eq!(
            parse("  media-error 0 100 8 "),
            Ok(Request::Fault(Fault::MediaError {
                disk: 0,
                blocks: 100..108
            }))
        );
        assert_eq!(
            parse("slow 1 4 0.5"),
            Ok(Request::Fault(Fault::Slow {
                disk: 1,
                factor: 4.0,
                duration: 500_000_000
            }))
        );
        assert_eq!(
            parse("resync-rate 20"),
            Ok(Request::ResyncRate(ResyncRate {
                blocks_per_s: 39_062.5,
                chunk_blocks: 128
            }))
        );
        assert_eq!(parse("power-cut"), Ok(Request::Fault(Fault::PowerCut)));
        assert_eq!(
            parse("power-cut torn"),
            Ok(Request::Fault(Fault::Crash(
                disk_emu::faults::CrashModel::Torn
            )))
        );
        assert_eq!(
            parse("misdirect"),
            Ok(Request::Fault(Fault::MisdirectWrites { count: 1 }))
        );
        assert_eq!(
            parse("flush-error 3"),
            Ok(Request::Fault(Fault::FailFlushes { count: 3 }))
        );
        assert_eq!(
            parse("corrupt-stored 1 77"),
            Ok(Request::Fault(Fault::CorruptStored { disk: 1, block: 77 }))
        );
        assert_eq!(parse("fault-log"), Ok(Request::FaultLog));
        for (line, says) in [
            ("", "empty line"),
            ("fail", "takes 1 arguments, got 0"),
            ("fail x", "DISK: `x` is not a number"),
            ("slow 0 -2 1", "FACTOR: expected a number from 1 to 10000"),
            ("slow 0 1e15 1", "FACTOR: expected a number from 1 to 10000"),
            ("slow 0 NaN 1", "FACTOR: expected a number from 1 to 10000"),
            ("slow 0 2 inf", "SECONDS: expected a number from"),
            ("slow 0 2 0", "SECONDS: expected a number from"),
            (
                "resync-rate 1e-300",
                "MB_PER_S: expected a number from 0.01",
            ),
            ("resync-rate 10 1e9", "CHUNK_KB: expected a number from 0.5"),
            ("melt 0", "unknown command `melt`"),
            ("power-cut now", "crash model `now`: expected all, subset"),
            ("power-cut all now", "takes 0 to 1 arguments"),
            ("corrupt-reads -1", "N: `-1` is not a number"),
            ("corrupt-stored 0", "takes 2 arguments, got 1"),
        ] {
            let err = parse(line).unwrap_err().to_string();
            assert!(err.contains(says), "{line:?}: {err}");
        }
    }
}
