//! The metrics of a replication as named values, and their confidence
//! intervals across replications (the experiments crate's [`MetricTable`]).

use experiments::{MetricTable, StatsError};

use crate::system::RunReport;

/// Every metric recorded per replication: name and meaning. Times in ms.
pub const METRICS: &[(&str, &str)] = &[
    (
        "loss_ratio",
        "fraction of transactions lost or missing their deadline",
    ),
    (
        "response_ms",
        "mean response time of transactions committed in time",
    ),
    (
        "committed_size",
        "mean steps of transactions committed in time",
    ),
    ("queue", "mean I/O requests waiting, all queues together"),
    ("queue_common", "mean length of the common queue (CMQ)"),
    (
        "queue_disk",
        "mean length of one disk's own queue (averaged over the disks)",
    ),
    (
        "queue_aux",
        "mean length of the lagging disk's auxiliary queue (CMQ; only the disk behind holds writes in its own)",
    ),
    (
        "aux_over_one",
        "fraction of time the lagging disk's auxiliary queue held more than one write",
    ),
    ("service_ms", "mean disk service time of an operation"),
    ("utilisation", "mean busy fraction of the disks"),
    ("cpu_utilisation", "CPU busy fraction"),
    ("deadlocks", "deadlocks per measured transaction"),
    ("restarts", "restarts per measured transaction"),
    ("throughput_per_s", "transactions finished per second"),
];

/// The (name, value) pairs of one replication, in [`METRICS`] order;
/// undefined values (no commits) are left out.
pub fn metrics(r: &RunReport) -> Vec<(&'static str, f64)> {
    let per_txn = |n: u64| n as f64 / r.measured.max(1) as f64;
    let disks = r.io.utilisation.len().max(1) as f64;
    let values = [
        r.loss_ratio,
        r.response_ms,
        r.committed_size,
        r.io.queue,
        r.io.common,
        r.io.disk.iter().sum::<f64>() / disks,
        // At any moment only the disk behind has writes in its auxiliary
        // queue (the paper's "auxiliary queue ... at the disk that lags
        // behind"), so the disks' queues added up are the lagging disk's own.
        r.io.aux.iter().sum(),
        r.io.aux_over_one,
        r.io.service_ms,
        r.io.utilisation.iter().sum::<f64>() / disks,
        r.cpu_utilisation,
        per_txn(r.deadlocks),
        per_txn(r.restarts),
        if r.window_ms > 0.0 {
            r.measured as f64 * 1e3 / r.window_ms
        } else {
            f64::NAN
        },
    ];
    METRICS
        .iter()
        .zip(values)
        .filter(|(_, v)| v.is_finite())
        .map(|(&(name, _), v)| (name, v))
        .collect()
}

/// The replications' metrics in one table, for 95 % intervals: `reports`
/// in replication order, as [`run_replications`](crate::run_replications)
/// returns them (by position, so the stand-ins of a shard's run, copies of
/// one report, also fill a table: [`experiments::sharding`]).
///
/// # Errors
/// A metric that is not finite.
pub fn metric_table(reports: &[RunReport]) -> Result<MetricTable, StatsError> {
    let mut t = MetricTable::new();
    for (replication, r) in (0..).zip(reports) {
        for (name, value) in metrics(r) {
            t.record(replication, name, value)?;
        }
    }
    Ok(t)
}
