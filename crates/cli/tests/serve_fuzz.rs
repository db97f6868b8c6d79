//! `spindle serve` and `spindle control` under random options: seeded
//! cases, each a serve command line with one to three numeric options set
//! to a negative, zero, tiny, huge, NaN, infinite, overflowing or
//! malformed value (or a sound one). Each either is refused, naming an
//! option it was given, with exit 1 or 2 and never a panic; or serves:
//! then a real client writes and reads back 4 KB, a random control command
//! (its numbers drawn the same way) gets an `ok` or `error:` reply, the
//! client is still answered, and SIGTERM stops the server within 10 s,
//! cleanly. 300 cases by default (about 8 s), `SPINDLE_SERVE_FUZZ_CASES` for more.

mod nbd_client;

use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

use nbd_client::{Client, Serve};

const SEED: u64 = 31;
const CASES: usize = 300;

/// Values every numeric option is tried with.
const WILD: &[&str] = &[
    "-1",
    "-0.5",
    "0",
    "1e-300",
    "0.000001",
    "1e308",
    "-1e308",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551616",
    "4294967296",
    "99999999999999999999999999999999999999999999999999",
    "",
    "1.5",
    "x",
];

/// Each numeric option of serve and a sound value of it.
const OPTIONS: &[(&str, &str)] = &[
    ("--size", "1M"),
    ("--copies", "2"),
    ("--time-scale", "10"),
    ("--resync-mb-s", "50"),
    ("--seed", "7"),
    ("--threads", "2"),
    ("--request-memory", "64M"),
    ("--handshake-timeout-s", "5"),
    ("--idle-timeout-s", "60"),
];

/// Control commands and how many numbers each takes.
const COMMANDS: &[(&str, usize)] = &[
    ("fail", 1),
    ("replace", 1),
    ("resync-rate", 2),
    ("media-error", 3),
    ("slow", 3),
    ("power-cut", 0),
    ("state", 0),
    ("stats", 0),
    ("help", 0),
    ("melt", 2),
];

fn value(rng: &mut Pcg64, sound: &str) -> String {
    if rng.random_bool(0.4) {
        sound.to_string()
    } else {
        WILD[rng.random_range(0..WILD.len())].to_string()
    }
}

fn control_line(rng: &mut Pcg64) -> String {
    let (command, numbers) = COMMANDS[rng.random_range(0..COMMANDS.len())];
    let mut words = vec![command.to_string()];
    for _ in 0..numbers {
        let sound = ["0", "1", "2", "100"][rng.random_range(0..4)];
        words.push(value(rng, sound));
    }
    words.join(" ")
}

#[test]
fn random_server_options_are_refused_by_name_or_served_and_stopped() {
    let cases = std::env::var("SPINDLE_SERVE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    let mut rng = Pcg64::seed_from_u64(SEED);
    let (mut refused, mut served) = (0, 0);
    let mut failures = Vec::new();
    for case in 0..cases {
        let mut args: Vec<String> = ["--disk", "zero-latency", "--size", "1M"]
            .map(String::from)
            .to_vec();
        let mut named = Vec::new();
        for _ in 0..rng.random_range(1..=3) {
            let (flag, sound) = OPTIONS[rng.random_range(0..OPTIONS.len())];
            if flag == "--copies" && !args.iter().any(|a| a == "--mirror") {
                args.extend(["--mirror".to_string(), "dmq".to_string()]);
            }
            args.push(flag.to_string());
            args.push(value(&mut rng, sound));
            named.push(flag);
        }
        let line = control_line(&mut rng);
        let shown = format!("case {case}: serve {} / control {line}", args.join(" "));
        let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
        match Serve::start(&arg_refs) {
            Err(e) => {
                refused += 1;
                let names_one = named.iter().any(|f| e.contains(f));
                if e.contains("panicked") || !e.starts_with("error: ") || !names_one {
                    failures.push(format!("{shown}: refused as {e:?}"));
                }
            }
            Ok(s) => {
                served += 1;
                if let Err(why) = exercise(&s, &line) {
                    failures.push(format!("{shown}: {why}"));
                }
                let (status, took, _s) = s.terminate(Duration::from_secs(10));
                match status {
                    Some(st) if st.success() => {}
                    other => failures.push(format!("{shown}: stopped {other:?} after {took:?}")),
                }
            }
        }
    }
    println!("{cases} cases: {refused} refused, {served} served");
    assert!(
        refused > cases / 4 && served > cases / 10,
        "{refused} refused, {served} served"
    );
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A write and a read back, a control command, and a read that is still
/// answered.
fn exercise(s: &Serve, line: &str) -> Result<(), String> {
    let mut c = Client::connect(&s.socket);
    let data: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
    if c.write(4096, &data) != 0 {
        return Err("the write failed".into());
    }
    let mut back = vec![0u8; 4096];
    if c.read(4096, &mut back) != 0 || back != data {
        return Err("the read back differs".into());
    }
    let reply = s.control(line);
    if !(reply.starts_with("ok") || reply.starts_with("error: ")) {
        return Err(format!("control replied {reply:?}"));
    }
    // Answered: with the data, or EIO if the command failed the disk.
    let error = c.read(4096, &mut back);
    if !(error == 0 && back == data || error == 5) {
        return Err(format!(
            "after `{line}` ({reply}) the read got error {error}"
        ));
    }
    c.disconnect();
    Ok(())
}
