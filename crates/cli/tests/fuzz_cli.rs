//! The command line under random input: 2,000 seeded cases, each a
//! subcommand with small base options (so accepted runs stay short) and one
//! to three options drawn from each option's domain and its edges (0, 1,
//! −1, the largest integers, NaN, ±∞, empty, a 10 kB token, garbage, a
//! missing or endless file). Every case must end within the time limit
//! (a refused input never hangs), never panic, and either succeed or exit
//! non-zero with a message starting `error:` (after any one-line
//! `warning:`s) — never a crash. `serve` and
//! `control` cases are refusals only (no server ever starts; see SHAPES).

mod support;
use support::data;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

const CASES: usize = 2_000;
const SEED: u64 = 2026;
/// A case still running after this long was accepted (a valid run whose
/// length the case chose); it is stopped and checked for a panic so far.
const LIMIT: Duration = Duration::from_secs(20);

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
            "0", "0.5", "0.9", "1", "1.5", "-0.5", "NaN", "inf", "-inf", "1e308", "1e-300", "", "x",
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
            "20..40", "50..150", "40..20", "-1..5", "NaN..1", "1", "x..y", "",
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
    (&["trace-info"], &[], &[("--format", "format")]),
    (&["merge"], &[], &[("--format", "format")]),
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

/// A socket no server can bind: its directory does not exist.
const SOCKET: &str = "/nonexistent-spindle-fuzz/serve.sock";

struct Case {
    args: Vec<String>,
}

fn case(rng: &mut Pcg64) -> Case {
    let (words, base, options) = SHAPES[rng.random_range(0..SHAPES.len())];
    let mut args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    // Positional file of the commands that take one.
    if matches!(
        words[0],
        "replay" | "admit" | "trace-info" | "merge" | "control"
    ) {
        args.push(values(rng, "file"));
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
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if started.elapsed() > LIMIT {
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
    let must_refuse = matches!(case.args[0].as_str(), "serve" | "control");
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
fn two_thousand_random_command_lines_end_cleanly() {
    let mut rng = Pcg64::seed_from_u64(SEED);
    let cases: Vec<Case> = (0..CASES).map(|_| case(&mut rng)).collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(TASKS),
        "[[task]]\nrate_kb_s = 80\nbuffer_kb = 160\nrelease_ms = 10\n\
         [[task]]\nrate_kb_s = 11.2\nbuffer_kb = 56\n",
    )
    .unwrap();
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
