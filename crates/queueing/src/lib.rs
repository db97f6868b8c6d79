//! Analytic queueing models of the mirrored-disk paper (Towsley, Chen & Yu,
//! *Performance Analysis of a Fault Tolerant Mirrored Disk System*, UMass TR
//! 91-14, §3): Poisson arrivals at rate λ, a fraction p_r of them reads,
//! exponential service with rate μ at each disk.
//!
//! This crate holds the closed forms: the stability limit (maximum
//! throughput) of every policy, and the M/G/1 response times of the two
//! serial policies, S-PSSQ and MR-ESQ, plus the M/M/1 read response of R-DMQ.
//! The simulations in `disk-emu` are checked against them.

pub mod mirror;
