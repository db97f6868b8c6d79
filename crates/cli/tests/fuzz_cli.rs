//! The command line under random input: 3,000 seeded cases, each a
//! subcommand with small base options (so accepted runs stay short) and one
//! to three options drawn from each option's domain and its edges (0, 1,
//! −1, the largest integers, NaN, ±∞, empty, a 10 kB token, garbage, a
//! missing or endless file, tampered part files and grids). Every case
//! must end within the time limit (a refused input never hangs), never
//! panic, and either succeed or exit non-zero with a message starting
//! `error:` (after any one-line `warning:`s) — never a crash. `serve` and
//! `control` cases are refusals only (no server ever starts; see SHAPES),
//! and so are `repro zhang02` cases (its shortest search takes seconds:
//! its options are checked, then `--shard` is refused).

mod support;
use support::data;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

const CASES: usize = 3_000;
const SEED: u64 = 2026;
/// A case still running after this long was accepted (a valid run whose
/// length the case chose); it is stopped and checked for a panic so far.
const LIMIT: Duration = Duration::from_secs(20);
/// A case that must be refused is refused before any work, in milliseconds;
/// still running after this long, it hangs (a bound a loaded machine never
/// comes near, unlike `LIMIT`, which is the length of an accepted run).
const HANG: Duration = Duration::from_secs(60);

/// Values from an option's domain and its edges.
fn values(rng: &mut Pcg64, kind: &str) -> String {
    let long = "7".repeat(10_000);
    let edges: Vec<String> = match kind {
        "count" => vec![
            "0",
            "1",
            "2",
            "3",
            "-1",
            "-0",
            "-99999999999999999999",
            "1e3",
            "4294967296",
            "18446744073709551615",
            "99999999999999999999",
            "1.5",
            "",
            "x",
            &long,
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "real" => vec![
            "0", "0.5", "0.9", "1", "1.5", "8", "-0.5", "-1e308", "NaN", "-nan", "inf", "-inf",
            "+inf", "1e308", "1e400", "1e-300", "5e-324", "", "x",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "policy" => vec![
            "fcfs",
            "sstf",
            "ssedo:m=3,beta=2",
            "ssedo:beta=inf",
            "ssedo:m=3,m=4",
            "rt-dmq",
            "cmq",
            "wrr-scan",
            "nonsense",
            "",
            "fd-scan:expired=drop",
            "edf",
            &long,
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "disk" => vec![
            "hp97560".to_string(),
            "zero-latency".to_string(),
            "hp7937".to_string(),
            "nope".to_string(),
            "/dev/zero".to_string(),
            "disksim:/dev/zero".to_string(),
            format!("disksim:{}", data("hp_c2247a.parv")),
            "missing.toml".to_string(),
        ],
        "file" => vec![
            data("ascii.trace"),
            data("hp_c2247a.trace"),
            "/dev/null".to_string(),
            "/dev/zero".to_string(),
            "/nonexistent".to_string(),
            String::new(),
        ],
        "range" => vec![
            "20..40",
            "50..150",
            "40..20",
            "-1..5",
            "NaN..1",
            "2e13..2e13",
            "0..inf",
            "1",
            "x..y",
            "",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "plot" => vec![
            "out.svg",
            "out.png",
            "out.gif",
            "/nonexistent/out.svg",
            "out",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "placement" => vec![
            "identical",
            "reversed",
            "shifted:0.5",
            "shifted:1",
            "shifted:-0.5",
            "shifted:NaN",
            "shifted:",
            "",
            "x",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "format" => vec!["table", "csv", "json", "xml", ""]
            .into_iter()
            .map(String::from)
            .collect(),
        "size" => vec![
            "0", "1", "512", "1K", "64M", "1G", "2G", "1T", "16E", "1Q", "-1", "", "x",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "address" => vec!["127.0.0.1:0", "[::1]:10809", "localhost", "", "x"]
            .into_iter()
            .map(String::from)
            .collect(),
        // Files serve creates (in the scratch directory the cases run in).
        "store" => vec!["export.img", "state/none", "/nonexistent/export.img", ""]
            .into_iter()
            .map(String::from)
            .collect(),
        "words" => vec![
            "state",
            "fail 1",
            "replace 0",
            "help",
            "power-cut",
            "",
            "nonsense",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "constants" => vec!["paper", "drive", "table2", ""]
            .into_iter()
            .map(String::from)
            .collect(),
        "layout" => vec![
            "stripe",
            "raid10",
            "sr:1x2",
            "ew:2x1x1",
            "ew:1x2x1",
            "ew:36x1x1",
            "sr:2147483648x2",
            "sr:0x2",
            "ew:1xNaNx1",
            "ew:1x1xinf",
            "nonsense",
            "",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        "list" => vec!["1", "1,2", "2,3", "0", "9", "-1", "1,,2", "4294967296", ""]
            .into_iter()
            .map(String::from)
            .collect(),
        // Written into the directory the cases run in (see GRIDS, PARTS).
        "grid" => GRIDS.iter().map(|(name, _)| name.to_string()).collect(),
        "part" => PARTS.iter().map(|p| p.to_string()).collect(),
        "print" => vec!["shards", "merges", "both", ""]
            .into_iter()
            .map(String::from)
            .collect(),
        other => panic!("no domain {other}"),
    };
    edges[rng.random_range(0..edges.len())].clone()
}

/// A subcommand: its words, base options keeping accepted runs short, and
/// the options to draw from (flag, domain).
type Shape = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

const SHAPES: &[Shape] = &[
    (
        &["run"],
        &["--requests", "200", "--replications", "2"],
        &[
            ("--policy", "policy"),
            ("--load", "real"),
            ("--rate", "real"),
            ("--clients", "count"),
            ("--read-fraction", "real"),
            ("--sequential", "real"),
            ("--deadline-ms", "range"),
            ("--requests", "count"),
            ("--warmup", "count"),
            ("--replications", "count"),
            ("--jobs", "count"),
            ("--disk", "disk"),
            ("--disks", "count"),
            ("--blocks", "count"),
            ("--seed", "count"),
            ("--clients", "count"),
            ("--think-ms", "real"),
            ("--format", "format"),
        ],
    ),
    (
        // TASKS is written into the directory the cases run in.
        &["run", "--tasks", TASKS],
        &["--seconds", "2", "--replications", "2"],
        &[
            ("--policy", "policy"),
            ("--seconds", "count"),
            ("--replications", "count"),
            ("--seed", "count"),
            ("--jobs", "count"),
            ("--disk", "disk"),
            ("--load", "real"),
            ("--wrr-constants", "constants"),
            ("--format", "format"),
        ],
    ),
    (
        &["repro", "tsai04", "--figure", "5"],
        &["--sets", "2", "--seconds", "1", "--step", "45"],
        &[
            ("--sets", "count"),
            ("--seconds", "count"),
            ("--step", "count"),
            ("--jobs", "count"),
            ("--plot", "plot"),
        ],
    ),
    (
        &["repro", "towsley91", "--figure", "2"],
        &["--replications", "2", "--requests", "200", "--warmup", "10"],
        &[
            ("--replications", "count"),
            ("--requests", "count"),
            ("--jobs", "count"),
            ("--plot", "plot"),
            ("--format", "format"),
        ],
    ),
    (
        &["txn"],
        &[
            "--replications",
            "2",
            "--transactions",
            "60",
            "--warmup",
            "5",
        ],
        &[
            ("--users", "count"),
            ("--replications", "count"),
            ("--transactions", "count"),
            ("--io", "policy"),
            ("--jobs", "count"),
            ("--steps-min", "count"),
            ("--steps-max", "count"),
            ("--step-cpu-ms", "real"),
            ("--abort-cpu-ms", "real"),
            ("--read-probability", "real"),
            ("--k", "real"),
            ("--alpha", "real"),
            ("--dl-low", "real"),
            ("--seed", "count"),
        ],
    ),
    (
        &["bench", "emu"],
        &["--requests", "2000", "--runs", "1"],
        &[
            ("--load", "real"),
            ("--runs", "count"),
            ("--requests", "count"),
            ("--policy", "policy"),
        ],
    ),
    (
        &["replay"],
        &[],
        &[
            ("--policy", "policy"),
            ("--disk", "disk"),
            ("--disks", "count"),
            ("--placement", "placement"),
        ],
    ),
    (
        &["validate"],
        &[],
        &[("--trace", "file"), ("--disk", "disk"), ("--plot", "plot")],
    ),
    (
        &["admit"],
        &[],
        &[
            ("--format", "format"),
            ("--disk", "disk"),
            ("--wrr-constants", "constants"),
        ],
    ),
    (
        &["analyze", "towsley91", "--lambda", "20"],
        &[],
        &[
            ("--lambda", "real"),
            ("--p-read", "real"),
            ("--mu", "real"),
            ("--model", "policy"),
        ],
    ),
    (
        &["array"],
        &[
            "--layout",
            "stripe",
            "--disks",
            "2",
            "--requests",
            "1000",
            "--warmup",
            "0",
        ],
        &[
            ("--layout", "layout"),
            ("--disks", "count"),
            ("--speedup", "real"),
            ("--rate", "real"),
            ("--read-fraction", "real"),
            ("--database", "count"),
            ("--buffer", "count"),
            ("--requests", "count"),
            ("--warmup", "count"),
            ("--replications", "count"),
            ("--seed", "count"),
            ("--jobs", "count"),
            ("--trace", "file"),
        ],
    ),
    (
        // A trace of 200 requests (IVY_TRACE) on the paper's drive.
        &["repro", "ivy", "--trace", IVY_TRACE, "--disk", "hp7937"],
        &[
            "--copies",
            "1",
            "--replications",
            "1",
            "--compare-discipline",
            "none",
        ],
        &[
            ("--copies", "list"),
            ("--extent", "list"),
            ("--delay-s", "real"),
            ("--replications", "count"),
            ("--seed", "count"),
            ("--jobs", "count"),
            ("--format", "format"),
        ],
    ),
    (
        // Refused once its options are checked (see the module's note).
        &["repro", "zhang02", "--shard", "0/2"],
        &[],
        &[
            ("--replications", "count"),
            ("--requests", "count"),
            ("--warmup", "count"),
            ("--seed", "count"),
            ("--jobs", "count"),
            ("--plot", "plot"),
        ],
    ),
    (
        &["analyze", "towsley91"],
        &[],
        &[("--figure", "count"), ("--format", "format")],
    ),
    (
        &["sweep"],
        &["--out-dir", "sweep-out"],
        &[
            ("--shards", "count"),
            ("--print", "print"),
            ("--jobs", "count"),
            ("--format", "format"),
        ],
    ),
    (&["trace-info"], &[], &[("--format", "format")]),
    (
        &["merge"],
        &[],
        &[("--format", "format"), ("--html", "plot")],
    ),
    // serve listens on a socket whose directory does not exist, so every
    // case ends refused (by an option, or at the latest by the bind) and
    // none serves: what is checked is that each refusal is clean and that
    // none takes the machine down first (a store larger than memory, a
    // mirror of 2^32 disks, 2^32 threads).
    (
        &["serve"],
        &["--socket", SOCKET, "--quiet"],
        &[
            ("--disk", "disk"),
            ("--policy", "policy"),
            ("--mirror", "policy"),
            ("--copies", "count"),
            ("--size", "size"),
            ("--file", "store"),
            ("--listen", "address"),
            ("--control", "store"),
            ("--time-scale", "real"),
            ("--resync-mb-s", "real"),
            ("--faults", "file"),
            ("--threads", "count"),
            ("--seed", "count"),
        ],
    ),
    // control with no server to talk to: always refused.
    (&["control"], &[], &[("--format", "format")]),
];

/// The task file `run --tasks` cases read (two streams, one with a fixed
/// release).
const TASKS: &str = "tasks.toml";

/// The first 200 requests of the bundled DiskSim ASCII trace, for
/// `repro ivy` cases.
const IVY_TRACE: &str = "ivy.trace";

/// Sweep grids `sweep` cases read: a short one, and refusals (30 axes of
/// 10 values, an axis naming an option the sweep sets, two values with one
/// file name, not TOML).
const GRIDS: [(&str, &str); 6] = [
    (
        "grid.toml",
        "command = [\"run\", \"--requests\", \"200\", \"--replications\", \"2\"]\n\
         [[axis]]\noption = \"--load\"\nvalues = [0.5, 0.8]\n",
    ),
    ("huge.toml", ""),
    (
        "shard-axis.toml",
        "command = [\"run\"]\n[[axis]]\noption = \"--shard\"\nvalues = [\"0/2\", \"1/2\"]\n",
    ),
    (
        "same-name.toml",
        "command = [\"run\"]\n[[axis]]\noption = \"--policy\"\nvalues = [\"a b\", \"a_b\"]\n",
    ),
    ("garbage.toml", "command = [\"run\"\n[[axis"),
    ("/dev/zero", ""),
];

/// Part files `merge` cases read: a real part (PARTS[0]), the same part
/// with its header tampered, and files that are not parts.
const PARTS: [&str; 7] = [
    "good.part",
    "zero-shards.part",
    "five-of-two.part",
    "stopped.part",
    "huge-count.part",
    "/dev/zero",
    "/nonexistent.part",
];

/// Writes the files the cases read into `dir`.
fn scratch_files(dir: &std::path::Path) {
    std::fs::write(
        dir.join(TASKS),
        "[[task]]\nrate_kb_s = 80\nbuffer_kb = 160\nrelease_ms = 10\n\
         [[task]]\nrate_kb_s = 11.2\nbuffer_kb = 56\n",
    )
    .unwrap();
    let trace = std::fs::read_to_string(data("ascii.trace")).unwrap();
    let head: Vec<&str> = trace.lines().take(200).collect();
    std::fs::write(dir.join(IVY_TRACE), head.join("\n") + "\n").unwrap();
    for (name, text) in GRIDS.iter().filter(|(n, _)| !n.starts_with('/')) {
        let text = if *name == "huge.toml" {
            let mut t = String::from("command = [\"run\"]\n");
            for k in 0..30 {
                t.push_str(&format!(
                    "[[axis]]\noption = \"--o{k}\"\nvalues = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"
                ));
            }
            t
        } else {
            text.to_string()
        };
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(dir)
        .args([
            "--shard",
            "0/1",
            "--part",
            PARTS[0],
            "run",
            "--requests",
            "200",
        ])
        .args(["--replications", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(dir.join(PARTS[0])).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header: serde_json::Value = serde_json::from_slice(&bytes[..end]).unwrap();
    let edits: [(&str, &str, serde_json::Value); 4] = [
        (
            PARTS[1],
            "shard",
            serde_json::json!({"index": 0, "count": 0}),
        ),
        (
            PARTS[2],
            "shard",
            serde_json::json!({"index": 5, "count": 2}),
        ),
        (PARTS[3], "stopped", serde_json::json!("boom")),
        (
            PARTS[4],
            "shard",
            serde_json::json!({"index": 0, "count": u32::MAX}),
        ),
    ];
    for (name, field, value) in edits {
        let mut h = header.clone();
        h[field] = value;
        let mut tampered = serde_json::to_vec(&h).unwrap();
        tampered.extend_from_slice(&bytes[end..]);
        std::fs::write(dir.join(name), tampered).unwrap();
    }
}

/// A socket no server can bind: its directory does not exist.
const SOCKET: &str = "/nonexistent-spindle-fuzz/serve.sock";

struct Case {
    args: Vec<String>,
}

fn case(rng: &mut Pcg64) -> Case {
    let (words, base, options) = SHAPES[rng.random_range(0..SHAPES.len())];
    let mut args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    // Positional file of the commands that take one.
    match words[0] {
        "replay" | "admit" | "trace-info" | "control" => args.push(values(rng, "file")),
        "merge" => {
            for _ in 0..rng.random_range(1..=2) {
                args.push(values(rng, "part"));
            }
        }
        "sweep" => args.push(values(rng, "grid")),
        _ => {}
    }
    if words[0] == "control" {
        args.extend(values(rng, "words").split(' ').map(String::from));
    }
    args.extend(base.iter().map(|w| w.to_string()));
    for _ in 0..rng.random_range(1..=3) {
        let (flag, kind) = options[rng.random_range(0..options.len())];
        args.push(flag.to_string());
        args.push(values(rng, kind));
    }
    Case { args }
}

/// Runs one case in `dir`; returns what went wrong, if anything.
fn check(dir: &std::path::Path, case: &Case) -> Option<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(dir)
        .args(&case.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spindle starts");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let must_refuse = matches!(case.args[0].as_str(), "serve" | "control")
        || case.args.get(1).is_some_and(|a| a == "zhang02");
    let limit = if must_refuse { HANG } else { LIMIT };
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let text = String::from_utf8_lossy(&reader.join().expect("reader")).into_owned();
    if text.contains("panicked") {
        return Some(format!("panicked: {}", text.lines().next().unwrap_or("")));
    }
    if must_refuse && status.is_none_or(|s| s.success()) {
        return Some("was not refused (serve must never start in this test)".to_string());
    }
    match status {
        None => None,
        Some(s) if s.success() => None,
        Some(s) => match s.code() {
            None => Some("killed by a signal".to_string()),
            // Warnings (one line each) may come first; then the refusal.
            Some(_)
                if !text
                    .lines()
                    .find(|l| !l.starts_with("warning: "))
                    .is_some_and(|l| l.starts_with("error:")) =>
            {
                Some(format!(
                    "refused without `error:`: {}",
                    text.chars().take(200).collect::<String>()
                ))
            }
            Some(_) if text.len() > 20_000 => Some(format!("{} bytes of stderr", text.len())),
            Some(_) => None,
        },
    }
}

#[test]
fn three_thousand_random_command_lines_end_cleanly() {
    let mut rng = Pcg64::seed_from_u64(SEED);
    let cases: Vec<Case> = (0..CASES).map(|_| case(&mut rng)).collect();
    let dir = tempfile::tempdir().unwrap();
    scratch_files(dir.path());
    let failures = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let k = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(case) = cases.get(k) else { break };
                    if let Some(what) = check(dir.path(), case) {
                        let shown: Vec<String> = case
                            .args
                            .iter()
                            .map(|a| a.chars().take(60).collect())
                            .collect();
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("spindle {}: {what}", shown.join(" ")));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {CASES} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
