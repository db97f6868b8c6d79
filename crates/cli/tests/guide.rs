//! The README's and the guide's commands, run as shown.
//!
//! Every fenced block tagged `console` in `README.md` and `docs/src/**/*.md`
//! is a [trycmd] case: each `$ spindle ...` line is run (from the repository
//! root, so `../shared/data/...` paths read as a reader types them) and its
//! standard output and error are compared with the lines below it, where
//! `...` on a line of its own stands for any lines and `[..]` for any text
//! within a line. A renamed flag, a changed table header or a removed
//! command fails here, not in a reader's terminal.
//!
//! Shell blocks of any other tag (`sh`) hold what the suite cannot run:
//! cargo itself, scripts that install packages or need root, servers that run
//! until stopped. A `spindle` command may not hide in one:
//! [`every_spindle_command_is_in_a_console_block`] fails if it does.

use std::path::{Path, PathBuf};

/// The repository root, where README.md and docs/ are.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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

#[test]
fn readme_and_guide_commands_run_as_shown() {
    std::env::set_current_dir(root()).expect("the repository root");
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("spindle", trycmd::schema::Bin::Path(env!("CARGO_BIN_EXE_spindle").into()))
        .env("NO_COLOR", "1");
    for document in documents() {
        cases.case(document);
    }
}

#[test]
fn every_spindle_command_is_in_a_console_block() {
    let mut hidden = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(root().join(&document)).expect("a readable document");
        let mut fence: Option<&str> = None;
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some(info) = trimmed.strip_prefix("```") {
                fence = match fence {
                    Some(_) => None,
                    None => Some(info.trim()),
                };
                continue;
            }
            if let Some(info) = fence
                && !info.starts_with("console")
                && !info.starts_with("toml")
                && !info.starts_with("json")
                && !info.starts_with("rust")
                && (trimmed.starts_with("spindle ") || trimmed == "spindle")
            {
                hidden.push(format!("{}:{}: {line}", document.display(), n + 1));
            }
        }
    }
    assert!(
        hidden.is_empty(),
        "spindle commands outside `console` blocks are never run by the tests; \
         move them into a console block (with `$ `) and show their output:\n{}",
        hidden.join("\n")
    );
}
