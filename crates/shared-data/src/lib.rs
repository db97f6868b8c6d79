//! Where the workspace's tests find the real data they read: DiskSim's
//! validation suite (drive models and traces measured on real drives) and
//! a week of an HP-UX workstation's disk traffic, in
//! `shared/data/disksim-valid/` **beside** the checkout (`../shared/data`
//! from the repository root), never copied into the repository.
//!
//! A test that asks for a file that is not there stops with a message
//! naming the file and where it belongs, rather than an `unwrap` on a
//! missing path.

use std::path::PathBuf;

/// The directory of DiskSim's validation suite.
///
/// # Panics
/// When the directory is missing, with a message saying where it belongs.
pub fn disksim_valid() -> PathBuf {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/disksim-valid"
    ));
    assert!(
        dir.is_dir(),
        "{} is missing: the tests read DiskSim's validation suite (drive models, \
         measured traces, ajw.1week.srt) from shared/data/disksim-valid/ beside this \
         checkout, i.e. ../shared/data from the repository root; put the data there \
         (see the README, and docs/src/getting-started.md)",
        dir.display()
    );
    dir
}

/// One file of DiskSim's validation suite (`hp_c2247a.trace`,
/// `ajw.1week.srt`, ...).
///
/// # Panics
/// When the file is missing, with a message saying where it belongs.
pub fn disksim_file(name: &str) -> PathBuf {
    let path = disksim_valid().join(name);
    assert!(
        path.is_file(),
        "{} is missing from the shared data (../shared/data/disksim-valid beside \
         this checkout); see docs/src/getting-started.md",
        path.display()
    );
    path
}
