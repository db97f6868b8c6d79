//! The parameters of the transaction system (Chen & Towsley 1991, §4.1,
//! Tables I–II) and their validation: every bad value is a typed error
//! naming its field, returned before anything runs.

use disk_emu::disk::{DiskSpec, presets};
use sched_core::array::ArraySpec;
use sched_core::{AnySpec, Nanos, PolicySpec};

/// How transaction deadlines are set: `arrival + T_min · η`, η uniform on
/// [DL_LOW, DL_UP], DL_UP = α · DL_LOW.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Deadlines {
    /// No deadlines (the non-real-time setting of Figure 13): nothing is
    /// lost, the CPU and lock queues fall back to arrival order.
    None,
    /// DL_LOW = max(1, k · N_u) or, as printed, min(1, k · N_u)
    /// ([`DlLowRule`]; §4.1.3).
    Scaled {
        /// k (0.25).
        k: f64,
        /// α (3).
        alpha: f64,
    },
    /// DL_LOW given directly (Figures 10–11 vary it).
    Fixed {
        /// DL_LOW.
        low: f64,
        /// α.
        alpha: f64,
    },
}

impl Deadlines {
    /// The paper's default: k = 0.25, α = 3.
    pub const PAPER: Deadlines = Deadlines::Scaled {
        k: 0.25,
        alpha: 3.0,
    };

    /// [DL_LOW, DL_UP] for `users` users under `rule`, or `None` without
    /// deadlines.
    pub fn bounds(&self, users: u32, rule: DlLowRule) -> Option<(f64, f64)> {
        match *self {
            Deadlines::None => None,
            Deadlines::Scaled { k, alpha } => {
                let scaled = k * f64::from(users);
                let low = match rule {
                    DlLowRule::AtLeastOne => scaled.max(1.0),
                    DlLowRule::AtMostOne => scaled.min(1.0),
                };
                Some((low, alpha * low))
            }
            Deadlines::Fixed { low, alpha } => Some((low, alpha * low)),
        }
    }
}

/// How DL_LOW follows k · N_u (§4.1.3 prints DL_LOW = min{1, k · N_u};
/// its footnote 3 says the bound "may not be less than 1", and Table II
/// gives DL_LOW = 0.25 · N_u).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DlLowRule {
    /// max(1, k · N_u): Table II's 0.25 · N_u, floored at 1 as the footnote
    /// asks (the default: with "min" the bound would be 1 at every load the
    /// paper plots, and Table II and Figures 10–11 would not vary it).
    #[default]
    AtLeastOne,
    /// min(1, k · N_u) as printed: 1 for every N_u ≥ 4 at k = 0.25.
    AtMostOne,
}

/// What a transaction restarted after a deadlock keeps (§2: "restarted as
/// long as its deadline has not yet expired").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RestartDeadline {
    /// The deadline it arrived with (the default: the text judges the
    /// restart by "its deadline", the one already running).
    #[default]
    Keep,
    /// A fresh deadline drawn at the restart, T_min · η from then.
    Renew,
}

/// Which transactions count in the loss ratio.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LossRule {
    /// Lost before the write phase and missed during it (the default: §1
    /// calls a transaction that "cannot commit before its deadline" lost,
    /// and one missing during write-back is told it missed).
    #[default]
    LostOrMissed,
    /// Only those removed before their write phase (§2's first case); one
    /// missing during write-back counts as committed.
    LostOnly,
}

/// Whether a step whose page is already in the transaction's private
/// buffer reads it again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BufferRule {
    /// It does not (the default: §2 queues for I/O "if the page is not in
    /// memory").
    #[default]
    Cached,
    /// Every step reads its page from disk.
    Reread,
}

/// Where page p of P lives on a disk of C blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PageLayout {
    /// Block p: a database smaller than the disk sits on its first tracks
    /// (the default; the paper's 6000 pages fill the `chen-towsley-91` disk,
    /// where both layouts are the same).
    #[default]
    Packed,
    /// Block ⌊p · C / P⌋: the pages spread evenly over the whole disk
    /// ("uniformly distributed on the disk", §4.1.1, for any database size).
    Spread,
}

/// The order in which the waiters for a released lock are considered (§2:
/// "we select the one with earliest deadline to wakeup, and grant it the
/// associated lock"); each one compatible with the holders at that moment
/// is granted, so readers behind a granted reader share the lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LockWake {
    /// Earliest deadline first (the default, as the text says).
    #[default]
    EarliestDeadline,
    /// The order they began to wait (FIFO lock queues, the usual discipline
    /// of a database without deadlines).
    ArrivalOrder,
}

/// SSEDO's window m and weight base β, applied to every SSEDO queue of the
/// I/O subsystem (§4.1.4: m = 3, β = 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsedoWindow {
    /// m ≥ 1.
    pub m: usize,
    /// β ≥ 1.
    pub beta: f64,
}

/// The readings of the paper's text that change results, each one where
/// the text allows more than one (the defaults are this project's best
/// reading; `spindle repro chen-towsley91 --sensitivity` measures each).
/// T_D, think time, database size and the disk's seek and latency are
/// fields of [`TxnParams`] itself.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Readings {
    /// DL_LOW's floor or cap at 1.
    pub dl_low: DlLowRule,
    /// The deadline of a restarted transaction.
    pub restart: RestartDeadline,
    /// What the loss ratio counts.
    pub loss: LossRule,
    /// Re-reads of buffered pages.
    pub buffer: BufferRule,
    /// Page-to-block mapping.
    pub layout: PageLayout,
    /// Lock grants on a release.
    pub lock_wake: LockWake,
    /// SSEDO's window and β in place of those of the I/O spec (`None`: the
    /// spec's own, m = 3 and β = 2 for `ssedo`, `rt-dmq`, `rt-cmq`).
    pub ssedo: Option<SsedoWindow>,
}

/// Everything one run of the transaction system needs.
#[derive(Clone, Debug, PartialEq)]
pub struct TxnParams {
    /// N_u: users in the closed system (4–20 in the paper).
    pub users: u32,
    /// Mean of the exponential think time, ms (1000).
    pub think_ms: f64,
    /// Fewest steps of a transaction (1).
    pub steps_min: u32,
    /// Most steps of a transaction (20); N_s is uniform on the range.
    pub steps_max: u32,
    /// T_C: CPU time of one step, ms (15), logging included.
    pub step_cpu_ms: f64,
    /// T_A: CPU time of an abort, ms (5).
    pub abort_cpu_ms: f64,
    /// p_r: probability a step reads (shared lock) rather than updates (0.6).
    pub read_probability: f64,
    /// T_D: the mean disk time per step in T_min = (T_C + T_D) · N_s, ms (25).
    pub disk_ms: f64,
    /// How deadlines are set.
    pub deadlines: Deadlines,
    /// Database pages, one per disk block from block 0 (6000).
    pub pages: u64,
    /// Every disk of the subsystem (the `chen-towsley-91` preset).
    pub disk: DiskSpec,
    /// The I/O subsystem and its policy.
    pub io: AnySpec,
    /// Transactions finished per replication, warm-up included (1050).
    pub transactions: u64,
    /// Transactions finished first and discarded (50).
    pub warmup: u64,
    /// Seed of the experiment; replication r draws from its own streams.
    pub seed: u64,
    /// The readings of the text where it is open.
    pub readings: Readings,
}

impl TxnParams {
    /// The paper's configuration (§4.1, Tables I–II) with `users` users and
    /// the I/O subsystem `io`.
    pub fn chen_towsley_91(users: u32, io: AnySpec) -> Self {
        TxnParams {
            users,
            think_ms: 1000.0,
            steps_min: 1,
            steps_max: 20,
            step_cpu_ms: 15.0,
            abort_cpu_ms: 5.0,
            read_probability: 0.6,
            disk_ms: 25.0,
            deadlines: Deadlines::PAPER,
            pages: 6000,
            disk: presets::chen_towsley_91(),
            io,
            transactions: 1050,
            warmup: 50,
            seed: 1,
            readings: Readings::default(),
        }
    }

    /// Checks every parameter.
    ///
    /// # Errors
    /// The first invalid field, as a [`ParamError`].
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.users == 0 {
            return Err(ParamError::NoUsers);
        }
        if self.users > u32::from(u16::MAX) {
            return Err(ParamError::TooManyUsers(self.users));
        }
        if self.steps_min == 0 || self.steps_min > self.steps_max {
            return Err(ParamError::EmptySteps {
                min: self.steps_min,
                max: self.steps_max,
            });
        }
        for (field, value) in [
            ("think_ms", self.think_ms),
            ("step_cpu_ms", self.step_cpu_ms),
            ("abort_cpu_ms", self.abort_cpu_ms),
            ("disk_ms", self.disk_ms),
        ] {
            check_duration(field, value)?;
        }
        if !(0.0..=1.0).contains(&self.read_probability) {
            return Err(ParamError::Probability {
                field: "read_probability",
                value: self.read_probability,
            });
        }
        match self.deadlines {
            Deadlines::None => {}
            Deadlines::Scaled { k, alpha } => {
                if !(k.is_finite() && k > 0.0) {
                    return Err(ParamError::DeadlineFactor(k));
                }
                check_alpha(alpha)?;
            }
            Deadlines::Fixed { low, alpha } => {
                if !(low.is_finite() && low > 0.0) {
                    return Err(ParamError::DeadlineLow(low));
                }
                check_alpha(alpha)?;
            }
        }
        if let Some(longest) = self.longest_relative_deadline_ms()
            && longest >= LATEST_DEADLINE_MS
        {
            return Err(ParamError::DeadlineBeyondTime {
                longest_ms: longest,
                limit_ms: LATEST_DEADLINE_MS,
            });
        }
        if let Some(w) = self.readings.ssedo {
            if w.m == 0 {
                return Err(ParamError::SsedoWindow(w.m));
            }
            if !(w.beta.is_finite() && w.beta >= 1.0) {
                return Err(ParamError::SsedoBeta(w.beta));
            }
        }
        let capacity = self.capacity()?;
        if self.pages == 0 || self.pages > capacity {
            return Err(ParamError::Pages {
                pages: self.pages,
                capacity,
            });
        }
        match self.io() {
            AnySpec::Disk(p) => p.validate(),
            AnySpec::Array(a) => a.validate(),
            AnySpec::RateBased(_) => return Err(ParamError::RateBasedIo(self.io.to_string())),
        }
        .map_err(|e| ParamError::Policy(e.to_string()))?;
        if self.transactions == 0 || self.warmup >= self.transactions {
            return Err(ParamError::Transactions {
                transactions: self.transactions,
                warmup: self.warmup,
            });
        }
        Ok(())
    }

    /// [DL_LOW, DL_UP] at this many users under the DL_LOW reading.
    pub fn deadline_bounds(&self) -> Option<(f64, f64)> {
        self.deadlines.bounds(self.users, self.readings.dl_low)
    }

    /// Blocks of the disk.
    ///
    /// # Errors
    /// [`ParamError::Disk`] for a disk the emulator cannot build.
    pub fn capacity(&self) -> Result<u64, ParamError> {
        Ok(disk_emu::disk::DiskModel::from_spec(&self.disk)
            .map_err(|e| ParamError::Disk(e.to_string()))?
            .capacity_blocks())
    }

    /// The I/O subsystem as run: [`io`](Self::io) with the SSEDO reading
    /// applied to every SSEDO queue in it.
    pub fn io(&self) -> AnySpec {
        let Some(w) = self.readings.ssedo else {
            return self.io;
        };
        let window = |p: PolicySpec| match p {
            PolicySpec::Ssedo { .. } => PolicySpec::Ssedo {
                m: w.m,
                beta: w.beta,
            },
            other => other,
        };
        match self.io {
            AnySpec::Disk(p) => AnySpec::Disk(window(p)),
            AnySpec::Array(ArraySpec::Dmq {
                routing,
                queue,
                modified,
            }) => AnySpec::Array(ArraySpec::Dmq {
                routing,
                queue: window(queue),
                modified,
            }),
            AnySpec::Array(ArraySpec::Cmq { common, aux }) => AnySpec::Array(ArraySpec::Cmq {
                common: window(common),
                aux: window(aux),
            }),
            other => other,
        }
    }

    /// The longest relative deadline a transaction can draw, ms:
    /// (T_C + T_D) · N_s,max · DL_UP (`None` without deadlines).
    pub fn longest_relative_deadline_ms(&self) -> Option<f64> {
        let (_, up) = self.deadline_bounds()?;
        Some((self.step_cpu_ms + self.disk_ms) * f64::from(self.steps_max) * up)
    }

    /// `ms` as whole nanoseconds (the value has been validated).
    pub(crate) fn nanos(ms: f64) -> Nanos {
        (ms * 1e6).round() as Nanos
    }
}

/// The longest relative deadline the virtual clock can hold with room to
/// spare, ms: half of `u64` nanoseconds (about 292 years), so that arrival
/// plus deadline never overflows in a run of any representable length.
pub const LATEST_DEADLINE_MS: f64 = (Nanos::MAX / 2) as f64 / 1e6;

fn check_duration(field: &'static str, value: f64) -> Result<(), ParamError> {
    if (0.0..1e12).contains(&value) {
        Ok(())
    } else {
        Err(ParamError::Duration { field, value })
    }
}

fn check_alpha(alpha: f64) -> Result<(), ParamError> {
    if alpha.is_finite() && alpha >= 1.0 {
        Ok(())
    } else {
        Err(ParamError::DeadlineSpread(alpha))
    }
}

/// An invalid parameter, found before anything runs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// `users` is 0.
    #[error("users: expected at least 1 user, got 0")]
    NoUsers,
    /// `users` beyond what request classes can label.
    #[error("users: expected at most 65535, got {0}")]
    TooManyUsers(u32),
    /// The step range is empty or starts at 0.
    #[error("steps: expected 1 <= min <= max, got min = {min}, max = {max}")]
    EmptySteps {
        /// `steps_min`.
        min: u32,
        /// `steps_max`.
        max: u32,
    },
    /// A time is negative, not finite or absurdly large.
    #[error("{field}: expected a finite time >= 0 ms, got {value}")]
    Duration {
        /// The field.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A probability outside [0, 1].
    #[error("{field}: expected a probability in [0, 1], got {value}")]
    Probability {
        /// The field.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// k ≤ 0.
    #[error("deadline k: expected k > 0, got {0}")]
    DeadlineFactor(f64),
    /// DL_LOW ≤ 0.
    #[error("deadline lower bound: expected DL_LOW > 0, got {0}")]
    DeadlineLow(f64),
    /// α < 1.
    #[error("deadline alpha: expected alpha >= 1 (DL_UP = alpha * DL_LOW), got {0}")]
    DeadlineSpread(f64),
    /// Deadlines so loose that arrival + deadline would not fit the clock.
    #[error(
        "deadlines: the longest relative deadline, (T_C + T_D) * steps_max * DL_UP = {longest_ms:e} ms, is beyond representable time ({limit_ms:e} ms); lower k, DL_LOW or alpha"
    )]
    DeadlineBeyondTime {
        /// The longest relative deadline the parameters allow, ms.
        longest_ms: f64,
        /// [`LATEST_DEADLINE_MS`].
        limit_ms: f64,
    },
    /// An SSEDO window of 0.
    #[error("ssedo window m: expected m >= 1, got {0}")]
    SsedoWindow(usize),
    /// An SSEDO β below 1 or not finite.
    #[error("ssedo beta: expected beta >= 1, got {0}")]
    SsedoBeta(f64),
    /// No pages, or more than the disk holds.
    #[error("pages: expected 1 ..= {capacity} (the disk's blocks), got {pages}")]
    Pages {
        /// `pages`.
        pages: u64,
        /// Blocks on the disk.
        capacity: u64,
    },
    /// The disk specification is invalid.
    #[error("disk: {0}")]
    Disk(String),
    /// The array policy's parameters are invalid.
    #[error("policy: {0}")]
    Policy(String),
    /// A rate-based policy, which admits periodic tasks rather than serving
    /// the transactions' page I/O.
    #[error(
        "io: {0} is rate-based (it admits periodic tasks); the transactions' I/O needs a single-disk or an array policy"
    )]
    RateBasedIo(String),
    /// No transactions, or a warm-up that discards them all.
    #[error(
        "transactions: expected transactions > warmup, got transactions = {transactions}, warmup = {warmup}"
    )]
    Transactions {
        /// `transactions`.
        transactions: u64,
        /// `warmup`.
        warmup: u64,
    },
}

#[cfg(test)]
mod tests {
    use sched_core::PolicySpec;

    use super::*;

    fn base() -> TxnParams {
        TxnParams::chen_towsley_91(8, "rt-dmq".parse().unwrap())
    }

    #[test]
    fn the_paper_configuration_is_valid_and_parses_both_kinds() {
        base().validate().unwrap();
        assert!(matches!("ssedo".parse::<AnySpec>(), Ok(AnySpec::Disk(_))));
        assert!(matches!(
            "rt-cmq-w".parse::<AnySpec>(),
            Ok(AnySpec::Array(_))
        ));
        assert!(matches!(
            "dmq-sq:queue=fd-scan(expired=keep)".parse::<AnySpec>(),
            Ok(AnySpec::Array(_))
        ));
        assert!("no-such-policy".parse::<AnySpec>().is_err());
    }

    #[test]
    fn each_invalid_parameter_is_its_own_typed_error() {
        type Change = Box<dyn Fn(&mut TxnParams)>;
        let cases: Vec<(Change, ParamError)> = vec![
            (Box::new(|p| p.users = 0), ParamError::NoUsers),
            (
                Box::new(|p| p.steps_min = 5),
                ParamError::EmptySteps { min: 5, max: 4 },
            ),
            (
                Box::new(|p| p.think_ms = -1.0),
                ParamError::Duration {
                    field: "think_ms",
                    value: -1.0,
                },
            ),
            (
                Box::new(|p| p.step_cpu_ms = f64::NAN),
                ParamError::Duration {
                    field: "step_cpu_ms",
                    value: f64::NAN,
                },
            ),
            (
                Box::new(|p| p.deadlines = Deadlines::Scaled { k: 0.0, alpha: 3.0 }),
                ParamError::DeadlineFactor(0.0),
            ),
            (
                Box::new(|p| {
                    p.deadlines = Deadlines::Scaled {
                        k: -0.5,
                        alpha: 3.0,
                    }
                }),
                ParamError::DeadlineFactor(-0.5),
            ),
            (
                Box::new(|p| {
                    p.deadlines = Deadlines::Scaled {
                        k: 0.25,
                        alpha: 0.5,
                    }
                }),
                ParamError::DeadlineSpread(0.5),
            ),
            (
                Box::new(|p| p.read_probability = 1.5),
                ParamError::Probability {
                    field: "read_probability",
                    value: 1.5,
                },
            ),
            (
                Box::new(|p| p.pages = 6001),
                ParamError::Pages {
                    pages: 6001,
                    capacity: 6000,
                },
            ),
            (
                Box::new(|p| {
                    p.io = AnySpec::Disk(PolicySpec::Ssedo { m: 3, beta: 0.5 });
                }),
                ParamError::Policy(
                    PolicySpec::Ssedo { m: 3, beta: 0.5 }
                        .validate()
                        .unwrap_err()
                        .to_string(),
                ),
            ),
            (
                Box::new(|p| p.warmup = 1050),
                ParamError::Transactions {
                    transactions: 1050,
                    warmup: 1050,
                },
            ),
        ];
        for (change, want) in cases {
            let mut p = base();
            p.steps_max = 4;
            change(&mut p);
            let got = p.validate().unwrap_err();
            // NaN never equals itself: compare the messages.
            assert_eq!(got.to_string(), want.to_string());
        }
    }

    #[test]
    fn deadlines_beyond_the_clock_are_refused_before_running() {
        // 20 users, k = 1e9: DL_UP = 6e10, and 800 ms · 6e10 is past
        // half of u64 nanoseconds.
        let mut p = TxnParams::chen_towsley_91(20, "rt-dmq".parse().unwrap());
        p.deadlines = Deadlines::Scaled { k: 1e9, alpha: 3.0 };
        let got = p.validate();
        assert!(
            matches!(got, Err(ParamError::DeadlineBeyondTime { longest_ms, .. }) if (longest_ms / 4.8e13 - 1.0).abs() < 1e-9),
            "{got:?}"
        );
        p.deadlines = Deadlines::Scaled { k: 1e8, alpha: 3.0 };
        p.validate().unwrap();
    }

    #[test]
    fn deadline_bounds_follow_the_paper() {
        let max = DlLowRule::AtLeastOne;
        assert_eq!(Deadlines::PAPER.bounds(4, max), Some((1.0, 3.0)));
        assert_eq!(Deadlines::PAPER.bounds(2, max), Some((1.0, 3.0)));
        assert_eq!(Deadlines::PAPER.bounds(20, max), Some((5.0, 15.0)));
        assert_eq!(Deadlines::None.bounds(20, max), None);
        // As printed ("min"): 1 at every load of the figures, below 1 under 4 users.
        let min = DlLowRule::AtMostOne;
        assert_eq!(Deadlines::PAPER.bounds(20, min), Some((1.0, 3.0)));
        assert_eq!(Deadlines::PAPER.bounds(2, min), Some((0.5, 1.5)));
    }

    #[test]
    fn the_ssedo_reading_reaches_every_ssedo_queue_and_is_validated() {
        let mut p = base();
        p.readings.ssedo = Some(SsedoWindow { m: 5, beta: 1.5 });
        let five = PolicySpec::Ssedo { m: 5, beta: 1.5 };
        assert!(matches!(p.io(), AnySpec::Array(ArraySpec::Dmq { queue, .. }) if queue == five));
        p.io = "rt-cmq".parse().unwrap();
        assert!(
            matches!(p.io(), AnySpec::Array(ArraySpec::Cmq { common, aux }) if common == five && aux == PolicySpec::Sstf)
        );
        p.io = "fcfs".parse().unwrap();
        assert_eq!(p.io(), AnySpec::Disk(PolicySpec::Fcfs));
        p.readings.ssedo = Some(SsedoWindow { m: 0, beta: 2.0 });
        assert_eq!(p.validate(), Err(ParamError::SsedoWindow(0)));
        p.readings.ssedo = Some(SsedoWindow { m: 3, beta: 0.9 });
        assert_eq!(p.validate(), Err(ParamError::SsedoBeta(0.9)));
    }
}
