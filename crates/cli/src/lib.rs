//! The experiments behind the `spindle` command: synthetic workloads,
//! trace replay, benchmarks and the reproduction of the source papers'
//! results, each producing tables (text, CSV, JSON) and, where a paper has a
//! figure, an SVG plot. The binary is a thin command-line layer over this.

pub mod admit;
pub mod analyze;
pub mod bench;
pub mod bounds;
pub mod common;
pub mod crash_states;
pub mod decision_cost;
pub mod disk_array;
pub mod grid;
pub mod oltp_args;
pub mod output;
pub mod plot;
pub mod replay;
pub mod report;
pub mod repro;
pub mod run;
pub mod samples;
pub mod serve;
pub mod sheet;
pub mod trace_info;
pub mod txn;
pub mod validate;
