//! Crash testing with `spindle serve`: its crash-model and recording flags,
//! and `spindle crash-states`, which builds from a recorded log the disk
//! images a crash could have left (the CrashMonkey and ALICE method), so
//! that a storage engine's recovery can be run on each one.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use blockdev::CrashOptions;
use blockdev::crash_log::{Log, build_image, crash_states};
use disk_emu::faults::CrashModel;

/// The crash-testing flags of `spindle serve`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CrashArgs {
    /// What a power cut takes of the writes the drives' caches acknowledged
    /// and had not yet put on the media: all, subset (each with even
    /// chances), prefix (all but a random prefix of a legal reordering),
    /// torn (a subset, multi-sector writes torn at a sector boundary).
    #[cfg_attr(feature = "cli", arg(long, default_value = "all", value_parser = crash_model))]
    pub crash_model: CrashModel,
    /// Seed of the crash model's draws (the same seed and the same cuts
    /// lose the same writes).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub crash_seed: u64,
    /// Record every answered write (with its data), FUA and flush in LOG
    /// for `spindle crash-states` (at most the data plus 24 bytes a request).
    #[cfg_attr(feature = "cli", arg(long, value_name = "LOG"))]
    pub record: Option<PathBuf>,
    /// Reproducible run: virtual time moves on from event to event, not
    /// with the wall clock, so completions and every seeded fault follow
    /// the seeds and the request sequence (exactly so for a client that
    /// waits for each answer); --time-scale is ignored.
    #[cfg_attr(feature = "cli", arg(long))]
    pub reproducible: bool,
}

impl CrashArgs {
    /// The server's crash options.
    pub fn options(&self) -> CrashOptions {
        CrashOptions {
            model: self.crash_model,
            seed: self.crash_seed,
            record: self.record.clone(),
            silent: disk_emu::faults::SilentRates::default(),
            reproducible: self.reproducible,
        }
    }
}

/// A crash model's name.
pub fn crash_model(s: &str) -> Result<CrashModel, String> {
    s.parse().map_err(|e| format!("{e}"))
}

/// Options of `spindle crash-states`.
#[derive(Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CrashStatesArgs {
    /// The log `spindle serve --record LOG` wrote.
    pub log: PathBuf,
    /// Directory for the images (crash-NNNN.img) and crash-states.json.
    #[cfg_attr(feature = "cli", arg(long))]
    pub out: PathBuf,
    /// Images to write.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 10, value_parser = crate::bounds::Whole::<u32>::new("the number of images", 1, 100_000)))]
    pub count: u32,
    /// Seed: the same seed gives the same images.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1, value_parser = crate::bounds::seed()))]
    pub seed: u64,
    /// What each crash takes of the volatile writes (all, subset, prefix, torn).
    #[cfg_attr(feature = "cli", arg(long, default_value = "subset", value_parser = crash_model))]
    pub model: CrashModel,
    /// The export's bytes before the log's first write (the file the server
    /// was started on); zeroes without it.
    #[cfg_attr(feature = "cli", arg(long))]
    pub base: Option<PathBuf>,
}

/// The images a run may write at most, in bytes (so that a mistyped
/// count does not fill the disk).
const MAX_TOTAL_BYTES: u64 = 1 << 40;

/// `spindle crash-states`.
pub fn run(args: &CrashStatesArgs) -> Result<()> {
    let log = Log::read(&args.log)?;
    let total = log.size.saturating_mul(u64::from(args.count));
    if total > MAX_TOTAL_BYTES {
        bail!(
            "--count {}: {} images of {} bytes is more than 1 TiB",
            args.count,
            args.count,
            log.size
        );
    }
    let base = match &args.base {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("--base {}", path.display()))?;
            if bytes.len() as u64 != log.size {
                bail!(
                    "--base {}: {} bytes, but the log's export holds {}",
                    path.display(),
                    bytes.len(),
                    log.size
                );
            }
            bytes
        }
        None => vec![0; usize::try_from(log.size).context("export size")?],
    };
    std::fs::create_dir_all(&args.out).with_context(|| format!("--out {}", args.out.display()))?;
    let states = crash_states(&log, args.model, args.count as usize, args.seed);
    let mut manifest = Vec::with_capacity(states.len());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (i, state) in states.iter().enumerate() {
        let mut image = base.clone();
        build_image(&log, state, &mut image);
        let name = format!("crash-{i:04}.img");
        let path = args.out.join(&name);
        std::fs::write(&path, &image).with_context(|| format!("writing {}", path.display()))?;
        let torn: Vec<String> = state
            .torn
            .iter()
            .map(|(w, kept, of)| format!("{w} ({kept} of {of} sectors)"))
            .collect();
        writeln!(
            out,
            "{name}: cut after {} of {} records (log byte {}), {} writes, {} volatile; dropped [{}]; torn [{}]",
            state.cut_after,
            log.entries.len(),
            state.cut_at_byte,
            state.writes,
            state.volatile.len(),
            join(&state.lost),
            torn.join(", ")
        )?;
        manifest.push(serde_json::json!({
            "image": name,
            "model": args.model.name(),
            "seed": args.seed,
            "state": state,
        }));
    }
    let path = args.out.join("crash-states.json");
    std::fs::write(&path, serde_json::to_string_pretty(&manifest)?)
        .with_context(|| format!("writing {}", path.display()))?;
    crate::output::announce_written(&path);
    Ok(())
}

fn join(xs: &[u64]) -> String {
    xs.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}
