//! The README's and the guide's commands, run as shown.
//!
//! Every fenced block tagged `console` in `README.md` and `docs/src/**/*.md`
//! is a [trycmd] case: each `$ spindle ...` line is run and its standard
//! output and error are compared with the lines below it, where `...` on a
//! line of its own stands for any lines and `[..]` for any text within a
//! line (wall times, rates). A renamed flag, a changed table header or a
//! removed command fails here, not in a reader's terminal.
//!
//! The commands run where a reader runs them, in a checkout with
//! `../shared/data` beside it: a scratch copy of that layout (the
//! repository's `crates/` and `docs/` and the shared data, linked), so that
//! the files the examples write (`--plot arm.svg`) land in the scratch
//! directory, not in the repository.
//!
//! A command that runs until it is stopped (`spindle serve`), needs a
//! server (`spindle control`) or reads what one recorded (`spindle
//! crash-states`) is shown in an `sh` block instead; no other
//! `spindle` command may be ([`every_spindle_command_runs_in_a_console_block`]),
//! and those are parsed as written: `serve` and `crash-states` with every
//! option (`--help` appended: clap checks each option's name and value
//! before it prints the help), a `control` command by the server's own
//! parser.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root, where README.md and docs/ are.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// README.md and every Markdown file of the guide, relative to the root.
fn documents() -> Vec<PathBuf> {
    let mut found = vec![PathBuf::from("README.md")];
    let mut dirs = vec![PathBuf::from("docs/src")];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(root().join(&dir))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = dir.join(entry.expect("a directory entry").file_name());
            if root().join(&path).is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Commands a console block cannot hold: they run until stopped, talk to
/// a server that does, or read what one recorded.
const LONG_RUNNING: [&str; 3] = ["serve", "control", "crash-states"];

#[cfg(unix)]
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the reproductions take minutes unoptimised: cargo test --release -p spindle-cli --test guide"
)]
fn readme_and_guide_commands_run_as_shown() {
    let shared = root().join("../shared");
    assert!(
        shared.join("data/disksim-valid").is_dir(),
        "{} is missing: the guide's commands read DiskSim's validation data from \
         ../shared/data/disksim-valid beside the checkout (see docs/src/getting-started.md)",
        shared.join("data/disksim-valid").display()
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let checkout = scratch.path().join("spindle");
    std::fs::create_dir(&checkout).expect("the scratch checkout");
    for linked in ["crates", "docs"] {
        std::os::unix::fs::symlink(root().join(linked), checkout.join(linked))
            .expect("linking into the scratch checkout");
    }
    std::os::unix::fs::symlink(&shared, scratch.path().join("shared"))
        .expect("linking the shared data");
    std::env::set_current_dir(&checkout).expect("the scratch checkout");
    let cases = trycmd::TestCases::new();
    cases
        .register_bin(
            "spindle",
            trycmd::schema::Bin::Path(env!("CARGO_BIN_EXE_spindle").into()),
        )
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100");
    for document in documents() {
        cases.case(root().join(document));
    }
    cases.run();
}

#[test]
fn every_spindle_command_runs_in_a_console_block() {
    let mut hidden = Vec::new();
    let mut long_running = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(root().join(&document)).expect("a readable document");
        let mut fence: Option<String> = None;
        let mut pending = String::new();
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if let Some(info) = trimmed.strip_prefix("```") {
                fence = match fence {
                    Some(_) => None,
                    None => Some(info.trim().to_string()),
                };
                continue;
            }
            let Some(info) = &fence else { continue };
            if info.starts_with("console") || !["sh", "bash", "shell", ""].contains(&info.as_str())
            {
                continue;
            }
            // A command continued over several lines with `\`.
            let command = if pending.is_empty() {
                trimmed.to_string()
            } else {
                format!("{pending} {trimmed}")
            };
            if let Some(joined) = command.strip_suffix('\\') {
                pending = joined.trim_end().to_string();
                continue;
            }
            pending.clear();
            let without_comment = command.split(" #").next().unwrap_or_default().trim();
            let Some(args) = without_comment.strip_prefix("spindle ") else {
                continue;
            };
            let words: Vec<&str> = args.split_whitespace().collect();
            let place = format!("{}:{}", document.display(), n + 1);
            if words.first().is_some_and(|w| LONG_RUNNING.contains(w)) {
                long_running.push((
                    place,
                    words.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
                ));
            } else {
                hidden.push(format!("{place}: {line}"));
            }
        }
    }
    assert!(
        hidden.is_empty(),
        "spindle commands outside `console` blocks are never run by the tests; \
         move them into a console block (with `$ `) and show their output:\n{}",
        hidden.join("\n")
    );
    for (place, words) in long_running {
        if words[0] == "control" {
            // Its command goes, as written, to the server's own parser.
            let line = words[2..].join(" ");
            if let Err(e) = blockdev::control::parse(&line) {
                panic!("{place}: `{line}` is not a control command: {e}");
            }
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
            .args(&words)
            .arg("--help")
            .output()
            .expect("spindle runs");
        assert!(
            out.status.success(),
            "{place}: `spindle {}` does not parse: {}",
            words.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
