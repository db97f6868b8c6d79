//! Names that say one thing: no two modules of the workspace share a name,
//! and no module is named like a crate of the workspace.
//!
//! Every `.rs` file and module directory under a crate's `src/` and
//! `examples/` counts, except the names Rust and convention give a fixed
//! job in every module: `lib`, `main`, `mod`, `error` (the errors of the
//! module it sits in) and `tests` (the unit tests of the module it sits
//! in). Integration tests (`tests/`) are named after what they test, so they
//! are not counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FIXED_JOBS: &[&str] = &["lib", "main", "mod", "error", "tests"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every module name under `dir`, with where it is. A module is a `.rs`
/// file, or a directory holding one; `x.rs` beside `x/` is one module (its
/// submodules live in the directory), and a directory of data (a drive's
/// presets) is none.
fn collect(dir: &Path, into: &mut BTreeMap<String, Vec<PathBuf>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let name = if path.is_dir() {
            collect(&path, into);
            let holds_code = std::fs::read_dir(&path)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "rs"));
            let file_beside = path.with_extension("rs").exists();
            (holds_code && !file_beside)
                .then(|| path.file_name().map(|n| n.to_string_lossy().into_owned()))
                .flatten()
        } else if path.extension().is_some_and(|e| e == "rs") {
            path.file_stem().map(|n| n.to_string_lossy().into_owned())
        } else {
            None
        };
        if let Some(name) = name.filter(|n| !FIXED_JOBS.contains(&n.as_str())) {
            into.entry(name).or_default().push(path);
        }
    }
}

fn crates() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .expect("the crates directory")
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn no_two_modules_share_a_name() {
    let mut modules = BTreeMap::new();
    for krate in crates().into_iter().chain([root().to_path_buf()]) {
        collect(&krate.join("src"), &mut modules);
        collect(&krate.join("examples"), &mut modules);
    }
    let shared: Vec<String> = modules
        .iter()
        .filter(|(_, paths)| paths.len() > 1)
        .map(|(name, paths)| format!("{name}: {paths:?}"))
        .collect();
    assert!(
        shared.is_empty(),
        "modules sharing a name:\n{}",
        shared.join("\n")
    );
    // The check sees what it must: the event loop's module, and a name taken
    // twice would be caught (`simulation` is one module, `src` many dirs).
    assert_eq!(modules.get("simulation").map(Vec::len), Some(1));
}

#[test]
fn no_module_is_named_like_a_crate() {
    let mut modules = BTreeMap::new();
    for krate in crates() {
        collect(&krate.join("src"), &mut modules);
    }
    for krate in crates() {
        let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).expect("a manifest");
        let name = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'))
            .expect("a package name")
            .replace('-', "_");
        assert!(
            !modules.contains_key(&name),
            "a module is named like the crate {name}: {:?}",
            modules[&name]
        );
    }
}
