//! Building a server from its options: the device, the stores, the export.

use std::path::PathBuf;

use disk_emu::disk::{DiskModel, DiskSpec, GeometrySpec, RotationSpec, SeekSpec, TransferSpec};
use disk_emu::faults::{Fault, FaultInjector, Schedule};
use disk_emu::{ArrayDevice, ArrayOptions, DeviceError, DiskDevice, ResyncRate, Stream};
use sched_core::PolicySpec;
use sched_core::array::ArraySpec;

use crate::backing::Store;
use crate::nbd::proto::{
    FLAG_CAN_MULTI_CONN, FLAG_HAS_FLAGS, FLAG_ROTATIONAL, FLAG_SEND_FLUSH, FLAG_SEND_FUA,
    FLAG_SEND_TRIM, FLAG_SEND_WRITE_ZEROES,
};
use crate::nbd::{Export, Limits};
use crate::persist::StateFile;

use crate::clock::Clock;
use crate::crash_log::{CrashOptions, LogWriter};
use crate::engine::{Emulated, Engine, EngineError};
use crate::io_stats::Summary;
use crate::latent::LatentFile;
use crate::server::{Listen, Resources, Running, ServeError, ServerConfig};

/// The largest read or write payload: 32 MiB, what clients expect to be
/// able to send.
pub const MAX_PAYLOAD: u32 = 32 << 20;

/// A disk with no mechanics: no seek, rotation, transfer or overhead, so
/// every request completes when it is submitted. It measures the I/O path
/// itself. One track of 2³¹ blocks of 512 bytes (1 TiB).
pub fn zero_latency() -> DiskSpec {
    DiskSpec {
        name: "zero-latency".into(),
        geometry: GeometrySpec::uniform(1, 1, 1 << 31),
        rpm: None,
        seek: SeekSpec::None,
        rotation: RotationSpec::None,
        transfer: TransferSpec::Constant { ms: 0.0 },
        head_switch_ms: 0.0,
        controller_overhead_ms: 0.0,
        cache: None,
    }
}

/// One disk or a mirror.
#[derive(Clone, Debug, PartialEq)]
pub enum Layout {
    /// One disk under a single-disk policy.
    Single(PolicySpec),
    /// `disks` identical copies under an array policy.
    Mirror {
        /// The array policy.
        policy: ArraySpec,
        /// Copies (2 for a mirror).
        disks: usize,
    },
}

/// Everything a server is started with.
#[derive(Clone, Debug)]
pub struct Options {
    /// The disk model of every disk.
    pub disk: DiskSpec,
    /// One disk or a mirror, and the policy.
    pub layout: Layout,
    /// Bytes exported (at most a disk's capacity).
    pub size: u64,
    /// Backing file (a mirror's disks are `FILE.disk0`, `FILE.disk1`, ...;
    /// the device's state, failures and media errors, is kept in
    /// `FILE.state`); RAM without one.
    pub file: Option<PathBuf>,
    /// Virtual time runs this many times as fast as the wall clock.
    pub time_scale: f64,
    /// Faults to come, in the disks' time.
    pub faults: Schedule,
    /// Resync speed of replaced disks.
    pub resync: ResyncRate,
    /// Seed of the devices' random service components and policy choices.
    pub seed: u64,
    /// Where clients connect.
    pub listen: Listen,
    /// The control socket, if any.
    pub control: Option<PathBuf>,
    /// Print each second's statistics on stderr.
    pub live: bool,
    /// Worker threads of the runtime.
    pub threads: usize,
    /// Stop cleanly on SIGINT and SIGTERM.
    pub signals: bool,
    /// The clients' memory budget and timeouts.
    pub resources: Resources,
    /// What power cuts lose, and the `--record` log.
    pub crash: CrashOptions,
}

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The disk model is invalid.
    #[error("disk: {0}")]
    Disk(#[from] disk_emu::disk::DiskError),
    /// The device could not be built.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The engine could not start (size, stores, saved state).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The sockets could not be bound.
    #[error(transparent)]
    Serve(#[from] ServeError),
    /// A scheduled fault names a disk the server does not have.
    #[error(
        "fault {index} ({kind}): `disk`: {disk}, but the server has {disks} disk(s), numbered from 0"
    )]
    FaultDisk {
        /// The entry, counted from 0 (as in the schedule's file).
        index: usize,
        /// Its kind.
        kind: &'static str,
        /// The disk it names.
        disk: usize,
        /// Disks of the server.
        disks: usize,
    },
    /// A parameter outside its domain.
    #[error("{field}: expected {expected}")]
    Invalid {
        /// The parameter.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

/// A running server of either layout.
pub enum Server {
    /// One disk.
    Single(Running<DiskDevice>),
    /// A mirror.
    Mirror(Running<ArrayDevice>),
}

impl Server {
    /// Where it listens.
    pub fn listening(&self) -> &Listen {
        match self {
            Server::Single(r) => &r.listening,
            Server::Mirror(r) => &r.listening,
        }
    }

    /// A handle that stops it from elsewhere.
    pub fn stopper(&self) -> std::sync::Arc<tokio::sync::Notify> {
        match self {
            Server::Single(r) => r.stopper(),
            Server::Mirror(r) => r.stopper(),
        }
    }

    /// Waits until it stops.
    ///
    /// # Errors
    /// [`ServeError`].
    pub fn wait(self) -> Result<Summary, ServeError> {
        match self {
            Server::Single(r) => r.wait(),
            Server::Mirror(r) => r.wait(),
        }
    }

    /// Stops it cleanly.
    ///
    /// # Errors
    /// [`ServeError`].
    pub fn stop(self) -> Result<Summary, ServeError> {
        match self {
            Server::Single(r) => r.stop(),
            Server::Mirror(r) => r.stop(),
        }
    }
}

/// Starts a server as `options` say; returns once it listens.
///
/// # Errors
/// [`StartError`].
pub fn start(options: &Options) -> Result<Server, StartError> {
    if !(options.time_scale.is_finite() && options.time_scale > 0.0) {
        return Err(StartError::Invalid {
            field: "--time-scale",
            expected: "a positive, finite factor",
        });
    }
    if options.size == 0 {
        return Err(StartError::Invalid {
            field: "--size",
            expected: "at least one byte",
        });
    }
    let disks = match options.layout {
        Layout::Single(_) => 1,
        Layout::Mirror { disks, .. } => disks,
    };
    check_fault_disks(&options.faults, disks)?;
    if options.resources.request_memory < u64::from(MAX_PAYLOAD) {
        return Err(StartError::Invalid {
            field: "--request-memory",
            expected: "at least 32 MiB, the largest request",
        });
    }
    let model = DiskModel::from_spec(&options.disk)?;
    match &options.layout {
        Layout::Single(policy) => {
            let device = DiskDevice::new(model, policy, Stream::numbered(options.seed))?;
            Ok(Server::Single(start_with(device, options)?))
        }
        Layout::Mirror { policy, disks } => {
            if !(2..=sched_core::array::MAX_COPIES).contains(disks) {
                return Err(StartError::Invalid {
                    field: "--copies",
                    expected: "2 to 8 disks in a mirror",
                });
            }
            let streams = (0..*disks as u64)
                .map(|d| Stream::numbered(options.seed.wrapping_add(d)))
                .collect();
            // A replacement is rebuilt over the export, not the whole drive.
            let exported = options.size.div_ceil(u64::from(model.block_bytes()));
            let device = ArrayDevice::new(vec![model; *disks], policy, streams, options.seed)?
                .with_options(ArrayOptions {
                    resync: options.resync,
                    resync_blocks: Some(exported),
                });
            Ok(Server::Mirror(start_with(device, options)?))
        }
    }
}

/// Refuses a schedule whose faults name a disk beyond `disks`, before
/// anything starts (rather than when the fault comes due).
fn check_fault_disks(faults: &Schedule, disks: usize) -> Result<(), StartError> {
    for (index, (_, fault)) in faults.faults().iter().enumerate() {
        let (kind, disk) = match *fault {
            Fault::FailDisk { disk } => ("fail-disk", disk),
            Fault::ReplaceDisk { disk } => ("replace-disk", disk),
            Fault::MediaError { disk, .. } => ("media-error", disk),
            Fault::Slow { disk, .. } => ("slow", disk),
            Fault::CorruptStored { disk, .. } => ("corrupt-stored", disk),
            Fault::PowerCut
            | Fault::Crash(_)
            | Fault::MisdirectWrites { .. }
            | Fault::CorruptReads { .. }
            | Fault::FailFlushes { .. } => continue,
        };
        if disk >= disks {
            return Err(StartError::FaultDisk {
                index,
                kind,
                disk,
                disks,
            });
        }
    }
    Ok(())
}

/// The machine's memory in bytes (Linux: `MemTotal` of /proc/meminfo);
/// `None` where it cannot be read.
fn machine_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses stores in memory larger than the machine's memory (which would
/// abort the process when allocated, or swap it to a standstill).
fn check_memory(size: u64, copies: usize) -> Result<(), EngineError> {
    let bytes = u128::from(size) * copies as u128;
    match machine_memory() {
        Some(memory) if bytes > u128::from(memory) => Err(EngineError::TooBigForMemory {
            bytes,
            copies,
            memory,
        }),
        _ => Ok(()),
    }
}

/// Starts a server around `device` (its layout is the device's).
///
/// # Errors
/// [`StartError`].
pub fn start_with<D: Emulated>(device: D, options: &Options) -> Result<Running<D>, StartError> {
    let disks = device.disks();
    // Checked before the stores take their memory or files.
    crate::engine::check_size(&device, options.size)?;
    let (stores, state_file) = match &options.file {
        None => {
            check_memory(options.size, disks)?;
            ((0..disks).map(|_| Store::ram(options.size)).collect(), None)
        }
        Some(path) if disks == 1 => {
            let mut state = path.clone().into_os_string();
            state.push(".state");
            (
                vec![Store::file(path, options.size).map_err(EngineError::from)?],
                Some(StateFile::new(PathBuf::from(state))),
            )
        }
        Some(path) => {
            let with = |suffix: String| {
                let mut p = path.clone().into_os_string();
                p.push(suffix);
                PathBuf::from(p)
            };
            let stores = (0..disks)
                .map(|d| Store::file(&with(format!(".disk{d}")), options.size))
                .collect::<Result<Vec<_>, _>>()
                .map_err(EngineError::from)?;
            (stores, Some(StateFile::new(with(".state".into()))))
        }
    };
    let rotational = device.model(0).is_some_and(|m| m.revolution().is_some());
    let description = format!(
        "spindle: {} {}, time scale {}",
        options.disk.name,
        match &options.layout {
            Layout::Single(p) => format!("single disk under {p}"),
            Layout::Mirror { policy, disks } => format!("{disks}-way mirror under {policy}"),
        },
        options.time_scale
    );
    // Clients align their requests to the drive's sector.
    let sector = device.model(0).map_or(512, DiskModel::block_bytes);
    let injector = FaultInjector::new(device)
        .with_schedule(options.faults.clone())
        .with_crash_model(options.crash.model, options.crash.seed)
        .with_silent_rates(options.crash.silent);
    let mut engine = Engine::new(
        injector,
        stores,
        options.size,
        Clock::new(if options.crash.reproducible {
            crate::engine::LOGICAL_SCALE
        } else {
            options.time_scale
        }),
        state_file,
    )?;
    if options.crash.reproducible {
        engine.run_logically();
    }
    if let Some(path) = &options.file {
        let mut latent = path.clone().into_os_string();
        latent.push(".latent");
        engine.keep_latent_errors(LatentFile::new(PathBuf::from(latent)))?;
    }
    if let Some(path) = &options.crash.record {
        let log = LogWriter::create(path, options.size, sector).map_err(EngineError::from)?;
        engine.record_to(log);
    }
    let export = Export {
        name: options.disk.name.clone(),
        description,
        size: options.size,
        flags: FLAG_HAS_FLAGS
            | FLAG_SEND_FLUSH
            | FLAG_SEND_FUA
            | FLAG_SEND_TRIM
            | FLAG_SEND_WRITE_ZEROES
            | FLAG_CAN_MULTI_CONN
            | if rotational { FLAG_ROTATIONAL } else { 0 },
        block_sizes: (sector, 4096.max(sector), MAX_PAYLOAD),
    };
    let limits = Limits {
        size: options.size,
        max_payload: MAX_PAYLOAD,
    };
    Ok(Running::start(
        engine,
        ServerConfig {
            export,
            limits,
            listen: options.listen.clone(),
            control: options.control.clone(),
            live: options.live,
            threads: options.threads,
            signals: options.signals,
            resources: options.resources,
        },
    )?)
}
