//! Independent replications (the paper's method: 20 runs of 1050
//! transactions, the first 50 discarded), run on as many threads as asked
//! with results identical to a serial run: replication r always draws from
//! its own random streams, and results are kept in replication order.

use sched_core::AnySpec;

use crate::io::{mirror, single_disk};
use crate::params::{ParamError, TxnParams};
use crate::system::{RunReport, SimError, System};

/// Runs replication `replication` of `params`.
///
/// # Errors
/// Invalid parameters, a device failure, a broken invariant.
pub fn run(params: &TxnParams, replication: u64) -> Result<RunReport, SimError> {
    params.validate()?;
    // The spec as run: the SSEDO reading applied.
    match &params.io() {
        AnySpec::Disk(policy) => System::new(
            params,
            replication,
            single_disk(params, policy, replication)?,
        )?
        .run(),
        AnySpec::Array(policy) => {
            System::new(params, replication, mirror(params, policy, replication)?)?.run()
        }
        AnySpec::RateBased(_) => Err(ParamError::RateBasedIo(params.io.to_string()).into()),
    }
}

/// Runs replications `0..n` on `jobs` threads (this shard's share of them
/// in a sharded run: [`experiments::sharding`]); the reports come back in
/// replication order and do not depend on `jobs`.
///
/// # Errors
/// Invalid parameters (before anything runs), or the lowest-numbered
/// failing replication's error.
pub fn run_replications(
    params: &TxnParams,
    n: u64,
    jobs: usize,
) -> Result<Vec<RunReport>, SimError> {
    params.validate()?;
    experiments::replicate(params, n, jobs, |r| run(params, r))
}
