//! The workspace facade: this package owns the cross-crate integration tests
//! (`tests/`) and the criterion benchmarks (`benches/`); the code lives in
//! `crates/`.
