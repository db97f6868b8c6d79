//! Analytic queueing models of the mirrored-disk paper (Towsley, Chen & Yu,
//! *Performance Analysis of a Fault Tolerant Mirrored Disk System*, UMass TR
//! 91-14, §3): Poisson arrivals at rate λ, a fraction p_r of them reads,
//! service at each disk exponential with rate μ unless said otherwise.
//!
//! - [`closed_form`]: the stability limit (maximum throughput) of every policy;
//!   the M/G/1 (Pollaczek–Khinchine) response times of the serial policies
//!   S-PSSQ and MR-ESQ, in closed form for exponential service and for any
//!   [`service::ServiceTime`] by numerical integration; M/M/1 R-DMQ reads.
//! - [`qbd`]: a general quasi-birth-death solver (matrix-geometric: R by the
//!   paper's iteration or by logarithmic reduction, boundary equations,
//!   stationary distribution, Neuts' stability test).
//! - [`chains`]: the chains of C-PSSQ, CR-ESQ and CRU-ESQ (and the serial
//!   policies as phase-type chains), solved for mean queue and response.
//! - [`forkjoin`]: bounds on the R-DMQ and CMQ update (and CMQ read)
//!   response times by truncating one queue at B.
//!
//! Every model returns [`AnalysisError::Unstable`], stating the limit, for
//! an arrival rate at or beyond the policy's stability limit.

pub mod chains;
pub mod closed_form;
pub mod error;
pub mod forkjoin;
pub mod integrate;
pub mod qbd;
pub mod service;

pub use error::AnalysisError;
