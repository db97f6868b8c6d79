//! Independent replications, run in parallel with results identical to a
//! serial run.

use std::sync::OnceLock;

/// The process's one pool of worker threads, sized on first use.
static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();

/// Runs `f(0..n)` on the process's shared thread pool, at most `jobs`
/// replications at a time, results in replication order.
///
/// The pool is built once per process, on the first call, with one thread
/// per available core (or `jobs`, if larger); later calls reuse it and keep
/// to `jobs` by splitting the replications into `jobs` interleaved lanes.
///
/// # Errors
/// The first (lowest-numbered) failing replication's error.
pub fn parallel<T: Send, E: Send>(
    n: u64,
    jobs: usize,
    f: impl Fn(u64) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    use rayon::prelude::*;
    let jobs = jobs.max(1);
    if jobs == 1 || n <= 1 {
        return (0..n).map(&f).collect();
    }
    let pool = POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.max(jobs))
            .build()
            .expect("a thread pool")
    });
    let lanes = jobs.min(n as usize) as u64;
    let mut results: Vec<(u64, Result<T, E>)> = pool.install(|| {
        (0..lanes)
            .into_par_iter()
            .flat_map_iter(|lane| {
                (lane..n)
                    .step_by(lanes as usize)
                    .map(|r| (r, f(r)))
                    .collect::<Vec<_>>()
            })
            .collect()
    });
    results.sort_by_key(|(r, _)| *r);
    results.into_iter().map(|(_, x)| x).collect()
}
