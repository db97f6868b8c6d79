//! Sweep grids: any text is parsed as a grid without a panic; a grid that
//! parses has at most `MAX_POINTS` points, enumerated on demand, none past
//! its length, every one the base command plus one value of each axis, and
//! no two with one file name.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use spindle::grid::{Grid, MAX_POINTS};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(grid) = Grid::parse(text, "fuzz.toml") else {
        return;
    };
    let n = grid.len();
    assert!((1..=MAX_POINTS).contains(&n));
    assert!(grid.point(n).is_none());
    let last = grid.point(n - 1).expect("the last point");
    assert!(!last.name.is_empty() && !last.args.is_empty());
    // Every name distinct (checked over the first 10,000 points).
    let mut names = HashSet::new();
    for p in grid.points().take(10_000) {
        assert!(names.insert(p.name.clone()), "two points named {}", p.name);
    }
});
