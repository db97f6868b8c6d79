//! WRR-SCAN's admission control: weights, the round length and the
//! schedulability test of Tsai, Chu & Huang, *WRR-SCAN: A Rate-Based Real-Time
//! Disk-Scheduling Algorithm* (EMSOFT '04), §3.
//!
//! Everything is integer nanoseconds and whole blocks (a block is the paper's
//! C bytes, `block_sectors` device sectors), so a decision never depends on
//! float rounding.
//!
//! - q_i, the rounds a job is served in: ⌊P_i/R⌋ − 1 (Eq. 2, versions R and
//!   C) or ⌊P_i/R⌋ (release-time alignment, version CA, §3.3).
//! - x_i = ⌈b_i/q_i⌉ blocks a round, W_i = x_i·C/V (Eqs. 3 and 9); the
//!   aperiodic server's x_a blocks, W_a = x_a·C/V (Eq. 4).
//! - The round must satisfy lower ≤ R ≤ upper with, for n tasks,
//!   - Eq. (7), version R: t_s + (t_r + C/V)·(Σ x_i + x_a) ≤ R ≤ min P_i / 2;
//!   - Eq. (8), version C: t_s + t_r·(n + x_a) + C/V·(Σ x_i + x_a) ≤ R ≤ min P_i / 2;
//!   - Eq. (10), version CA: as (8) with q_i + 1 rounds, and R ≤ min P_i.
//! - The paper chooses "the largest R allowed": the lower bound is a step
//!   function of R, non-decreasing (a longer round means fewer rounds per
//!   period, so more blocks per round), so the largest feasible R is the right
//!   end of one of its steps; [`largest_round`] walks those ends downward from
//!   the upper bound and stops at the first that passes, or as soon as no
//!   shorter round could (every task needs at least one block a round).
//!
//! The aperiodic reservation is either a fixed x_a ([`AperiodicReserve::Blocks`],
//! Eq. 4 as written) or a share of the disk's transmission bandwidth
//! ([`AperiodicReserve::Share`]: the smallest x_a with W_a ≥ share·R), the
//! paper's §4 "fixed percentage of disk bandwidth" that keeps the three
//! versions comparable. The share is not given in the paper; the `tsai04`
//! reproduction documents the value it uses.

use core::fmt;

use crate::error::SpecError;
use crate::policy_table::Separator;
use crate::request::Nanos;

/// The three versions of WRR-SCAN (§3.1–§3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WrrMode {
    /// WRR-SCAN-R: data blocks scattered at random; every block may cost a
    /// full rotation (Eq. 7).
    Random,
    /// WRR-SCAN-C: each task's data contiguous; one rotation per task a round (Eq. 8).
    Contiguous,
    /// WRR-SCAN-CA: contiguous data and jobs released at round boundaries
    /// (Eq. 10): one more round per period and rounds up to a whole period.
    Aligned,
}

impl WrrMode {
    /// All versions, in the paper's order.
    pub const ALL: [WrrMode; 3] = [WrrMode::Random, WrrMode::Contiguous, WrrMode::Aligned];

    /// The paper's suffix: `R`, `C` or `CA`.
    pub const fn suffix(self) -> &'static str {
        match self {
            WrrMode::Random => "R",
            WrrMode::Contiguous => "C",
            WrrMode::Aligned => "CA",
        }
    }

    /// The schedulability test this version admits by.
    pub const fn bound(self) -> Bound {
        match self {
            WrrMode::Random => Bound::Eq7,
            WrrMode::Contiguous => Bound::Eq8,
            WrrMode::Aligned => Bound::Eq10,
        }
    }

    /// q_i for a period and a round (0 when the task could never be served).
    pub const fn rounds_per_period(self, period: Nanos, round: Nanos) -> u64 {
        let whole = period / round;
        match self {
            WrrMode::Aligned => whole,
            WrrMode::Random | WrrMode::Contiguous => whole.saturating_sub(1),
        }
    }

    /// The longest round a task of this period allows: P/2 (Eq. 6) or P (CA).
    pub const fn round_cap(self, period: Nanos) -> Nanos {
        match self {
            WrrMode::Aligned => period,
            WrrMode::Random | WrrMode::Contiguous => period / 2,
        }
    }
}

impl fmt::Display for WrrMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WRR-SCAN-{}", self.suffix())
    }
}

/// The schedulability test that refused a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// Eq. (7), WRR-SCAN-R.
    Eq7,
    /// Eq. (8), WRR-SCAN-C.
    Eq8,
    /// Eq. (10), WRR-SCAN-CA.
    Eq10,
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Bound::Eq7 => "Eq. (7)",
            Bound::Eq8 => "Eq. (8)",
            Bound::Eq10 => "Eq. (10)",
        })
    }
}

/// What the aperiodic server reserves each round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AperiodicReserve {
    /// A fixed x_a blocks a round (0: no aperiodic server; aperiodic
    /// requests are then served only from reclaimed bandwidth).
    Blocks(u32),
    /// A share of the transmission bandwidth, in parts per million: the
    /// smallest x_a with x_a·C/V ≥ share·R.
    Share {
        /// Parts per million of the round (5000 = 0.5 %).
        ppm: u32,
    },
}

/// The disk and reservation constants admission works with (Table 1 and 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WrrParams {
    /// The version.
    pub mode: WrrMode,
    /// t_s: the longest one-trip seek, settling excluded.
    pub seek_sweep: Nanos,
    /// t_r: one revolution plus the settling time.
    pub rotation: Nanos,
    /// C/V: the transmission time of one block.
    pub block_time: Nanos,
    /// Device sectors (the unit of [`Request::blocks`](crate::Request)) per block of C bytes.
    pub block_sectors: u32,
    /// One revolution: no period may be shorter (a job must at least be
    /// readable in one turn of the disk).
    pub revolution: Nanos,
    /// The aperiodic server's reservation.
    pub aperiodic: AperiodicReserve,
}

impl WrrParams {
    /// The HP 97560 constants of the paper's Table 2: C = 4096 B (8 sectors of
    /// 512 B), t_r = 23 ms, t_s = 15.7 ms, V = 2.8 MB/s (10⁶ B/s, so C/V =
    /// 1.4629 ms), one revolution at 4002 rpm = 14.9925 ms; with the given
    /// aperiodic reservation.
    pub const fn tsai04(mode: WrrMode, aperiodic: AperiodicReserve) -> Self {
        WrrParams {
            mode,
            seek_sweep: 15_700_000,
            rotation: 23_000_000,
            // 4096 B / 2.8e6 B/s = 1.462857 ms.
            block_time: 1_462_857,
            block_sectors: 8,
            revolution: 14_992_504,
            aperiodic,
        }
    }

    /// The same constants for another version.
    pub const fn with_mode(mut self, mode: WrrMode) -> Self {
        self.mode = mode;
        self
    }

    /// x_a for a round of length `round`.
    pub fn aperiodic_blocks(&self, round: Nanos) -> u64 {
        match self.aperiodic {
            AperiodicReserve::Blocks(x) => u64::from(x),
            AperiodicReserve::Share { ppm } => {
                let need = u128::from(round) * u128::from(ppm);
                let per_block = u128::from(self.block_time.max(1)) * 1_000_000;
                need.div_ceil(per_block) as u64
            }
        }
    }

    /// The schedulability lower bound of the version (left side of Eq. 7, 8
    /// or 10) for `n` tasks transferring `blocks` blocks a round in total,
    /// with `x_a` aperiodic blocks.
    pub fn demand(&self, n: u64, blocks: u64, x_a: u64) -> Nanos {
        let rotations = match self.mode {
            WrrMode::Random => blocks.saturating_add(x_a),
            WrrMode::Contiguous | WrrMode::Aligned => n.saturating_add(x_a),
        };
        self.seek_sweep
            .saturating_add(self.rotation.saturating_mul(rotations))
            .saturating_add(self.block_time.saturating_mul(blocks.saturating_add(x_a)))
    }

    /// Checks a task against the disk: a period of at least one revolution,
    /// at least one block.
    ///
    /// # Errors
    /// [`TaskError`] naming the field.
    pub fn check_task(&self, task: &RateTask) -> Result<(), TaskError> {
        if task.class == 0 {
            return Err(TaskError::ReservedClass);
        }
        if task.blocks == 0 {
            return Err(TaskError::ZeroBuffer);
        }
        if task.period < self.revolution {
            return Err(TaskError::PeriodBelowRevolution {
                period: task.period,
                revolution: self.revolution,
            });
        }
        Ok(())
    }
}

/// A rate-based task converted into periodic jobs (§2): b_i blocks every P_i.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RateTask {
    /// The task's [`Request::class`](crate::Request); 0 is the aperiodic server's.
    pub class: u16,
    /// P_i = B_i / L_i: the period and relative deadline of each job.
    pub period: Nanos,
    /// b_i: blocks of C bytes read each period.
    pub blocks: u32,
}

impl RateTask {
    /// The task (S_i, L_i) with a buffer of B_i bytes: P_i = B_i / L_i,
    /// b_i = ⌈B_i / C⌉ (the paper assumes B_i a multiple of C; a partial
    /// block is read whole).
    ///
    /// # Errors
    /// [`TaskError::ZeroRate`], [`TaskError::ZeroBuffer`], or
    /// [`TaskError::ZeroBlockSize`]; [`TaskError::TooLarge`] for a buffer of
    /// more than 2³² blocks or a period beyond 2⁶⁴ ns.
    pub fn from_rate(
        class: u16,
        rate_bytes_per_s: u64,
        buffer_bytes: u64,
        block_bytes: u32,
    ) -> Result<Self, TaskError> {
        if rate_bytes_per_s == 0 {
            return Err(TaskError::ZeroRate);
        }
        if buffer_bytes == 0 {
            return Err(TaskError::ZeroBuffer);
        }
        if block_bytes == 0 {
            return Err(TaskError::ZeroBlockSize);
        }
        let period = u128::from(buffer_bytes) * 1_000_000_000 / u128::from(rate_bytes_per_s);
        let blocks = buffer_bytes.div_ceil(u64::from(block_bytes));
        Ok(RateTask {
            class,
            period: Nanos::try_from(period).map_err(|_| TaskError::TooLarge)?,
            blocks: u32::try_from(blocks).map_err(|_| TaskError::TooLarge)?,
        })
    }
}

/// What admission grants a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reservation {
    /// The task's class.
    pub class: u16,
    /// R: the round length now in force (it changes as tasks come and go).
    pub round: Nanos,
    /// q_i: rounds the task is guaranteed in each period.
    pub rounds_per_period: u32,
    /// x_i: blocks served per round.
    pub blocks_per_round: u32,
    /// W_i = x_i·C/V: transmission time reserved per round.
    pub weight: Nanos,
    /// Worst-case response of a job from its (unaligned) release: its
    /// ⌈b_i/x_i⌉ rounds after the first full round, (⌈b_i/x_i⌉ + 1)·R, or,
    /// released at a round boundary (CA), ⌈b_i/x_i⌉·R. Never above P_i.
    pub worst_case_response: Nanos,
}

/// A round length that passes the test, with the aperiodic reservation at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Round {
    /// R.
    pub length: Nanos,
    /// x_a at R.
    pub aperiodic_blocks: u64,
    /// The lower bound of the test at R (≤ R).
    pub demand: Nanos,
}

impl Round {
    /// The reservation of `task` under this round.
    pub fn reservation(&self, mode: WrrMode, params: &WrrParams, task: &RateTask) -> Reservation {
        let q = mode.rounds_per_period(task.period, self.length).max(1);
        let x = u64::from(task.blocks).div_ceil(q);
        let pieces = u64::from(task.blocks).div_ceil(x);
        let extra = match mode {
            WrrMode::Aligned => 0,
            WrrMode::Random | WrrMode::Contiguous => 1,
        };
        Reservation {
            class: task.class,
            round: self.length,
            rounds_per_period: u32::try_from(q).unwrap_or(u32::MAX),
            blocks_per_round: x as u32,
            weight: params.block_time.saturating_mul(x),
            worst_case_response: self.length.saturating_mul(pieces + extra),
        }
    }
}

/// Why a task specification is malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskError {
    /// L_i = 0: the period would be infinite.
    ZeroRate,
    /// B_i = 0 (or b_i = 0): nothing to read.
    ZeroBuffer,
    /// C = 0.
    ZeroBlockSize,
    /// The period or the block count does not fit the integer types.
    TooLarge,
    /// P_i is shorter than one revolution of the disk.
    PeriodBelowRevolution {
        /// The task's period.
        period: Nanos,
        /// One revolution.
        revolution: Nanos,
    },
    /// Class 0 is the aperiodic server's.
    ReservedClass,
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::ZeroRate => f.write_str("rate: must be positive"),
            TaskError::ZeroBuffer => f.write_str("buffer: must hold at least one block"),
            TaskError::ZeroBlockSize => f.write_str("block size: must be positive"),
            TaskError::TooLarge => f.write_str("period or buffer too large"),
            TaskError::PeriodBelowRevolution { period, revolution } => write!(
                f,
                "period (buffer / rate) {period} ns is shorter than one disk revolution ({revolution} ns)"
            ),
            TaskError::ReservedClass => f.write_str("class: 0 is the aperiodic server's"),
        }
    }
}

impl core::error::Error for TaskError {}

/// Why a task was not admitted. Nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AdmitError {
    /// The task itself is malformed.
    Invalid(TaskError),
    /// A task of this class is already admitted.
    DuplicateClass(u16),
    /// The task table is full.
    TableFull {
        /// Its capacity.
        capacity: usize,
    },
    /// No round length passes the version's test with this task added.
    Unschedulable {
        /// The test that failed.
        bound: Bound,
        /// Its left side (t_s + rotation + Σ W_i + W_a) at the longest round allowed.
        demand: Nanos,
        /// The longest round allowed (min P_i / 2, or min P_i for CA).
        upper: Nanos,
    },
}

impl From<TaskError> for AdmitError {
    fn from(e: TaskError) -> Self {
        AdmitError::Invalid(e)
    }
}

impl fmt::Display for AdmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdmitError::Invalid(e) => write!(f, "invalid task: {e}"),
            AdmitError::DuplicateClass(c) => write!(f, "class {c} is already admitted"),
            AdmitError::TableFull { capacity } => {
                write!(f, "task table full: {capacity} tasks")
            }
            AdmitError::Unschedulable {
                bound,
                demand,
                upper,
            } => write!(
                f,
                "{bound} fails: no round length fits; at the longest allowed, R = {upper} ns, the round needs {demand} ns"
            ),
        }
    }
}

impl core::error::Error for AdmitError {}

/// The largest round length that passes `params.mode`'s test for the tasks
/// given as (period, blocks) pairs by `tasks` (called afresh for each pass),
/// or the refusal naming the failed bound.
///
/// `None` when there are no tasks: without periods there is no round.
///
/// # Errors
/// [`AdmitError::Unschedulable`].
pub fn largest_round<I>(
    params: &WrrParams,
    tasks: impl Fn() -> I,
) -> Result<Option<Round>, AdmitError>
where
    I: Iterator<Item = (Nanos, u32)>,
{
    let mode = params.mode;
    let (mut n, mut upper) = (0u64, Nanos::MAX);
    for (period, _) in tasks() {
        n += 1;
        upper = upper.min(mode.round_cap(period));
    }
    if n == 0 {
        return Ok(None);
    }
    let demand_at = |round: Nanos, x_a: u64| -> Nanos {
        let mut blocks = 0u64;
        for (period, b) in tasks() {
            let q = mode.rounds_per_period(period, round);
            if q == 0 {
                return Nanos::MAX;
            }
            blocks += u64::from(b).div_ceil(q);
        }
        params.demand(n, blocks, x_a)
    };
    let refusal = |demand| AdmitError::Unschedulable {
        bound: mode.bound(),
        demand,
        upper,
    };
    if upper == 0 {
        return Err(refusal(Nanos::MAX));
    }
    // Below this even one block per task a round does not fit.
    let floor = params.demand(n, n, params.aperiodic_blocks(0));
    let first_demand = demand_at(upper, params.aperiodic_blocks(upper));
    let mut round = upper;
    while round >= floor && round > 0 {
        // The next step end below `round`: the largest ⌊P_i/m⌋ < round.
        let mut next = 0;
        for (period, _) in tasks() {
            next = next.max(period / (period / round + 1));
        }
        let x_a = params.aperiodic_blocks(round);
        let demand = demand_at(round, x_a);
        if demand <= round {
            return Ok(Some(Round {
                length: round,
                aperiodic_blocks: x_a,
                demand,
            }));
        }
        // A share-based x_a also steps with R: the longest round of this
        // step with one aperiodic block fewer may still pass.
        if let AperiodicReserve::Share { ppm } = params.aperiodic
            && ppm > 0
            && x_a > 0
        {
            let shorter = (u128::from(x_a - 1) * u128::from(params.block_time) * 1_000_000
                / u128::from(ppm)) as Nanos;
            if shorter > next && shorter < round {
                let demand = demand_at(shorter, x_a - 1);
                if demand <= shorter {
                    return Ok(Some(Round {
                        length: shorter,
                        aperiodic_blocks: x_a - 1,
                        demand,
                    }));
                }
            }
        }
        round = next;
    }
    Err(refusal(first_demand))
}

/// The parameters of WRR-SCAN's description (`wrr-scan[:key=value,...]`,
/// see [`crate::AnySpec`]): `mode=r|c|ca` (default `ca`) and the aperiodic
/// reservation as `share=F` (a fraction of each round, default 0.005) or
/// `blocks=N` (x_a), on the paper's HP 97560 constants
/// ([`WrrParams::tsai04`]). Tasks are admitted through
/// [`WrrScan::admit`](super::WrrScan::admit), so they are not part of the
/// description.
impl WrrParams {
    /// Sets parameter `key` to `value`; `Ok(false)` for a key WRR-SCAN does not take.
    pub(crate) fn set_parameter(&mut self, key: &str, value: &str) -> Result<bool, SpecError> {
        match key {
            "mode" => {
                self.mode = match value {
                    "r" | "R" => WrrMode::Random,
                    "c" | "C" => WrrMode::Contiguous,
                    "ca" | "CA" => WrrMode::Aligned,
                    _ => {
                        return Err(SpecError::BadValue {
                            parameter: "mode",
                            expected: "r, c or ca",
                        });
                    }
                }
            }
            "share" => {
                let bad = SpecError::BadValue {
                    parameter: "share",
                    expected: "a fraction in [0, 1)",
                };
                let f: f64 = value.parse().map_err(|_| bad)?;
                if !(f.is_finite() && (0.0..1.0).contains(&f)) {
                    return Err(bad);
                }
                self.aperiodic = AperiodicReserve::Share {
                    ppm: (f * 1e6 + 0.5) as u32,
                };
            }
            "blocks" => {
                self.aperiodic =
                    AperiodicReserve::Blocks(value.parse().map_err(|_| SpecError::BadValue {
                        parameter: "blocks",
                        expected: "a whole number of blocks",
                    })?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Writes the mode and the aperiodic reservation as [`WrrParams::set_parameter`] reads them.
    pub(crate) fn write_parameters(
        &self,
        separator: &mut Separator,
        f: &mut fmt::Formatter<'_>,
    ) -> fmt::Result {
        separator.key(f, "mode")?;
        f.write_str(match self.mode {
            WrrMode::Random => "r",
            WrrMode::Contiguous => "c",
            WrrMode::Aligned => "ca",
        })?;
        match self.aperiodic {
            AperiodicReserve::Share { ppm } => {
                separator.key(f, "share")?;
                write!(f, "{}", f64::from(ppm) / 1e6)
            }
            AperiodicReserve::Blocks(x) => {
                separator.key(f, "blocks")?;
                write!(f, "{x}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    fn paper(mode: WrrMode) -> WrrParams {
        WrrParams::tsai04(mode, AperiodicReserve::Blocks(0))
    }

    #[test]
    fn weights_follow_eqs_2_3_and_9() {
        let task = RateTask {
            class: 1,
            period: 5000 * MS,
            blocks: 14,
        };
        let round = Round {
            length: 1000 * MS,
            aperiodic_blocks: 0,
            demand: 0,
        };
        // q = 5 − 1 = 4, x = ⌈14/4⌉ = 4 (Eqs. 2, 3).
        let r = round.reservation(WrrMode::Contiguous, &paper(WrrMode::Contiguous), &task);
        assert_eq!((r.rounds_per_period, r.blocks_per_round), (4, 4));
        assert_eq!(r.weight, 4 * 1_462_857);
        assert_eq!(r.worst_case_response, 5 * 1000 * MS);
        // CA: q' = 5, x = ⌈14/5⌉ = 3 (Eq. 9).
        let r = round.reservation(WrrMode::Aligned, &paper(WrrMode::Aligned), &task);
        assert_eq!((r.rounds_per_period, r.blocks_per_round), (5, 3));
        assert_eq!(r.worst_case_response, 5 * 1000 * MS);
    }

    #[test]
    fn the_largest_round_passing_eq_8_is_chosen() {
        let params = paper(WrrMode::Contiguous);
        let tasks = [(5000 * MS, 14u32), (6000 * MS, 14)];
        let round = largest_round(&params, || tasks.iter().copied())
            .unwrap()
            .unwrap();
        // The cap is min P/2 = 2500 ms and it passes: 15.7 + 2·23 + 28·1.46 ms.
        assert_eq!(round.length, 2500 * MS);
        assert_eq!(round.demand, params.demand(2, 28, 0));
    }

    #[test]
    fn a_step_below_the_cap_is_found_when_the_cap_fails() {
        // Version R: at R = P/2 each task needs all 14 blocks in one round
        // (14 · 24.46 ms each); far shorter rounds spread them out.
        let params = paper(WrrMode::Random);
        let tasks = [(5000 * MS, 14u32); 9];
        let round = largest_round(&params, || tasks.iter().copied())
            .unwrap()
            .unwrap();
        assert!(round.length < 2500 * MS);
        assert!(round.demand <= round.length);
        // Nothing longer passes: brute force over every millisecond.
        for r in (round.length / MS + 1)..=2500 {
            let r = r * MS;
            let q = WrrMode::Random.rounds_per_period(5000 * MS, r);
            let need = params.demand(9, 9 * 14u64.div_ceil(q), 0);
            assert!(need > r, "R = {r} passes but was not chosen");
        }
    }

    #[test]
    fn a_share_reserves_the_fewest_blocks_covering_it() {
        let p = WrrParams::tsai04(WrrMode::Aligned, AperiodicReserve::Share { ppm: 10_000 });
        // 1 % of 1000 ms = 10 ms = 6.84 blocks of 1.46 ms: 7 blocks.
        assert_eq!(p.aperiodic_blocks(1000 * MS), 7);
    }

    #[test]
    fn an_infeasible_set_names_its_bound() {
        let params = paper(WrrMode::Aligned);
        let tasks = [(100 * MS, 500u32)];
        let err = largest_round(&params, || tasks.iter().copied()).unwrap_err();
        assert!(matches!(
            err,
            AdmitError::Unschedulable {
                bound: Bound::Eq10,
                upper,
                ..
            } if upper == 100 * MS
        ));
    }

    #[test]
    fn malformed_tasks_are_typed_errors() {
        assert_eq!(
            RateTask::from_rate(1, 0, 4096, 4096),
            Err(TaskError::ZeroRate)
        );
        assert_eq!(
            RateTask::from_rate(1, 10, 0, 4096),
            Err(TaskError::ZeroBuffer)
        );
        let fast = RateTask::from_rate(1, 4096 * 1000, 4096, 4096).unwrap();
        assert_eq!(fast.period, MS);
        assert!(matches!(
            paper(WrrMode::Random).check_task(&fast),
            Err(TaskError::PeriodBelowRevolution { .. })
        ));
    }
}
