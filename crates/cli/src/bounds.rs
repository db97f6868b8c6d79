//! One checking layer for the options: every count, duration, fraction,
//! thread number and output file a command takes is parsed and checked
//! here, before any work starts. clap puts the flag's name in front of the message
//! ("invalid value '0' for '--jobs &lt;JOBS&gt;': …"); the message says what is
//! allowed and how to get further. Bounds on anything that allocates, spawns
//! or runs for long keep a typo from hanging the machine: a run larger than
//! a bound is a sweep, and `--shard` spreads it over machines.

use std::marker::PhantomData;

/// The nanoseconds the clock counts to ([`sched_core::Nanos`]):
/// a time option converted to nanoseconds must stay below it.
pub const CLOCK_MAX_NS: f64 = u64::MAX as f64;

/// Largest `--jobs`: four threads per core (more only queue behind each other).
pub fn max_jobs() -> usize {
    default_jobs() * 4
}

/// A value echoed in a message: at most 40 characters of it.
fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!(
            "{}… ({} bytes)",
            s.chars().take(MAX).collect::<String>(),
            s.len()
        )
    }
}

/// `what` as the subject of a message ("replications "), or nothing.
fn subject(what: &str) -> String {
    if what.is_empty() {
        String::new()
    } else {
        format!("{what} ")
    }
}

/// A real number as a message shows it: short (`1e-300`, not three
/// hundred digits).
pub fn show(v: f64) -> String {
    if v == 0.0 || (1e-4..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A whole number option, from `min` to `max` inclusive, parsed into `T`:
/// every whole-number flag's value parser
/// (`value_parser = bounds::Whole::<u64>::new("the seed", 0, u64::MAX)`).
/// A negative number, a fraction or a number too large for any type is
/// refused by the same message, naming the range.
#[derive(Debug)]
pub struct Whole<T> {
    what: &'static str,
    min: u64,
    max: u64,
    fix: &'static str,
    value: PhantomData<fn() -> T>,
}

impl<T> Clone for Whole<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Whole<T> {}

impl<T> Whole<T> {
    /// `what` (as a message says it, "the number of threads") from `min`
    /// to `max`.
    pub const fn new(what: &'static str, min: u64, max: u64) -> Self {
        Whole {
            what,
            min,
            max,
            fix: "",
            value: PhantomData,
        }
    }

    /// How to get further when the value is out of range, appended to the
    /// message (" (four per core at most)").
    pub const fn fix(mut self, fix: &'static str) -> Self {
        self.fix = fix;
        self
    }

    /// The range, as `--help` shows it.
    pub fn describe(&self) -> String {
        format!("{}..={}", self.min, self.max)
    }
}

impl<T: TryFrom<u64>> Whole<T> {
    /// Parses and checks `s`.
    ///
    /// # Errors
    /// Not a whole number, or outside the range.
    pub fn check(&self, s: &str) -> Result<T, String> {
        let t = s.trim();
        let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
        let out = || {
            format!(
                "{} must be in {}..={}, got {}{}",
                self.what,
                self.min,
                self.max,
                shorten(t),
                self.fix
            )
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!(
                "`{}` is not a whole number ({} must be in {}..={})",
                shorten(s),
                self.what,
                self.min,
                self.max
            ));
        }
        if t.starts_with('-') && digits.bytes().any(|b| b != b'0') {
            return Err(out());
        }
        let v = match digits.parse::<u64>() {
            Ok(v) => v,
            Err(_) => {
                return Err(format!(
                    "`{}` is too large: {} must be in {}..={}{}",
                    shorten(t),
                    self.what,
                    self.min,
                    self.max,
                    self.fix
                ));
            }
        };
        if v < self.min || v > self.max {
            return Err(out());
        }
        T::try_from(v).map_err(|_| out())
    }
}

/// A real number option: finite, from `min` (inclusive, or exclusive for
/// [`Real::above`]) to `max`; a time converted to nanoseconds
/// ([`Real::unit_ns`]) stays within the clock's range.
#[derive(Clone, Copy, Debug)]
pub struct Real {
    what: &'static str,
    min: f64,
    min_open: bool,
    max: f64,
    fix: &'static str,
}

impl Real {
    /// `what` from `min` to `max`, both inclusive.
    pub const fn new(what: &'static str, min: f64, max: f64) -> Self {
        Real {
            what,
            min,
            min_open: false,
            max,
            fix: "",
        }
    }

    /// `what` above `min` (exclusive) and at most `max`.
    pub const fn above(what: &'static str, min: f64, max: f64) -> Self {
        Real {
            what,
            min,
            min_open: true,
            max,
            fix: "",
        }
    }

    /// A time in units of `ns` nanoseconds (1e6 for milliseconds): the
    /// largest value is lowered to what the clock counts, if above it.
    pub const fn unit_ns(mut self, ns: f64) -> Self {
        if self.max * ns > CLOCK_MAX_NS {
            self.max = CLOCK_MAX_NS / ns;
        }
        self
    }

    /// How to get further, appended to an out-of-range message.
    pub const fn fix(mut self, fix: &'static str) -> Self {
        self.fix = fix;
        self
    }

    /// The range, as `--help` shows it.
    pub fn describe(&self) -> String {
        if self.min_open {
            format!("above {}, at most {}", show(self.min), show(self.max))
        } else {
            format!("{}..={}", show(self.min), show(self.max))
        }
    }

    /// Parses and checks `s`.
    ///
    /// # Errors
    /// Not a number, NaN, infinite, or outside the range.
    pub fn check(&self, s: &str) -> Result<f64, String> {
        let v: f64 = s
            .trim()
            .parse()
            .map_err(|_| format!("`{}` is not a number", shorten(s)))?;
        if !v.is_finite() {
            return Err(format!(
                "`{}` is not a finite number ({}must be {})",
                shorten(s),
                subject(self.what),
                self.said()
            ));
        }
        let low = if self.min_open {
            v <= self.min
        } else {
            v < self.min
        };
        if low || v > self.max {
            return Err(format!(
                "{}must be {}, got {}{}",
                subject(self.what),
                self.said(),
                show(v),
                self.fix
            ));
        }
        Ok(v)
    }

    /// The range in a message.
    fn said(&self) -> String {
        match (self.min_open, self.min, self.max) {
            (false, 0.0, 1.0) => "a fraction in [0, 1]".to_string(),
            (true, _, _) => format!("above {} and at most {}", show(self.min), show(self.max)),
            (false, _, _) => format!("in {}..={}", show(self.min), show(self.max)),
        }
    }
}

/// A range `A..B` of reals (`--deadline-ms 20..40`), each end checked as
/// `end` says and the first at most the second.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    end: Real,
}

impl Span {
    /// Both ends checked by `end`.
    pub const fn new(end: Real) -> Self {
        Span { end }
    }

    /// The range of each end, as `--help` shows it.
    pub fn describe(&self) -> String {
        format!("MIN..MAX, each {}", self.end.describe())
    }

    /// Parses and checks `s`.
    ///
    /// # Errors
    /// No `..`, an end that does not check, or a minimum above the maximum.
    pub fn check(&self, s: &str) -> Result<(f64, f64), String> {
        let (a, b) = s
            .split_once("..")
            .ok_or_else(|| format!("expected MIN..MAX, got `{}`", shorten(s)))?;
        let a = self.end.check(a).map_err(|e| format!("the minimum: {e}"))?;
        let b = self.end.check(b).map_err(|e| format!("the maximum: {e}"))?;
        if a > b {
            return Err(format!(
                "the minimum {} is above the maximum {}",
                show(a),
                show(b)
            ));
        }
        Ok((a, b))
    }
}

/// A number written in a form of its own (a size with a suffix, `64M`),
/// checked by `check` and described in `--help` by `describe`
/// (`"512..=1T bytes"`): how an option whose number is not a plain
/// [`Whole`] or [`Real`] joins the layer.
#[derive(Debug)]
pub struct Checked<T> {
    describe: &'static str,
    checker: fn(&str) -> Result<T, String>,
}

impl<T> Clone for Checked<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Checked<T> {}

impl<T> Checked<T> {
    /// `check` (its error names what is wrong and what is allowed), shown
    /// in `--help` as `describe`.
    pub const fn new(describe: &'static str, check: fn(&str) -> Result<T, String>) -> Self {
        Checked {
            describe,
            checker: check,
        }
    }

    /// The range, as `--help` shows it.
    pub fn describe(&self) -> String {
        self.describe.to_string()
    }

    /// Parses and checks `s`.
    ///
    /// # Errors
    /// What the check refuses.
    pub fn check(&self, s: &str) -> Result<T, String> {
        (self.checker)(s)
    }
}

#[cfg(feature = "cli")]
thread_local! {
    /// Set while [`bound_of`] asks a parser for its bound.
    static PROBING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The bound the parser asked gave.
    static PROBED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// A bounded parser's answer to [`bound_of`]: clap's `ValueParser` lets
/// nothing outside clap call a parser but `possible_values`, so that is
/// where the bound is handed over, while [`bound_of`] asks. A bound is not
/// a list of values: the answer is always `None`, as for any parser
/// without one.
#[cfg(feature = "cli")]
fn answer_probe(
    describe: impl FnOnce() -> String,
) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue>>> {
    if PROBING.get() {
        PROBED.with(|p| *p.borrow_mut() = Some(describe()));
    }
    None
}

/// The check behind every bounded value parser: `check` run through clap's
/// own function parser (so that clap names the flag in front of the
/// message).
#[cfg(feature = "cli")]
fn parse_checked<T, F>(
    check: F,
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    value: &std::ffi::OsStr,
) -> Result<T, clap::Error>
where
    T: Clone + Send + Sync + 'static,
    F: Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static,
{
    clap::builder::TypedValueParser::parse_ref(&check, cmd, arg, value)
}

#[cfg(feature = "cli")]
impl<T> clap::builder::TypedValueParser for Whole<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let me = *self;
        parse_checked(move |s| me.check(s), cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        answer_probe(|| self.describe())
    }
}

#[cfg(feature = "cli")]
impl clap::builder::TypedValueParser for Real {
    type Value = f64;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<f64, clap::Error> {
        let me = *self;
        parse_checked(move |s| me.check(s), cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        answer_probe(|| self.describe())
    }
}

#[cfg(feature = "cli")]
impl clap::builder::TypedValueParser for Span {
    type Value = (f64, f64);

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<(f64, f64), clap::Error> {
        let me = *self;
        parse_checked(move |s| me.check(s), cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        answer_probe(|| self.describe())
    }
}

#[cfg(feature = "cli")]
impl<T> clap::builder::TypedValueParser for Checked<T>
where
    T: Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        parse_checked(self.checker, cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        answer_probe(|| self.describe())
    }
}

/// The bound of `arg` when its value parser is one of this layer's
/// ([`Whole`], [`Real`], [`Span`], [`Checked`]), as `--help` shows it;
/// `None` for any other parser.
#[cfg(feature = "cli")]
pub fn bound_of(arg: &clap::Arg) -> Option<String> {
    // Asked directly, not by parsing a value with a command built around
    // the parser: every run of the program probes every option, and that
    // way cost 2.9 M instructions.
    PROBED.with(|p| p.borrow_mut().take());
    PROBING.set(true);
    let _ = arg.get_value_parser().possible_values();
    PROBING.set(false);
    PROBED.with(|p| p.borrow_mut().take())
}

/// The command line `cmd` with this layer's finishing touches on every
/// bounded option of every subcommand: its range appended to its help
/// (`[range: 1..=10000]`), and any value after it, `-1` included, handed
/// to the check (which names the flag) rather than read as another flag.
/// Every program's `Command` goes through it before it parses.
#[cfg(feature = "cli")]
pub fn checked(mut cmd: clap::Command) -> clap::Command {
    let bounded: Vec<(clap::Id, String)> = cmd
        .get_arguments()
        .filter_map(|a| bound_of(a).map(|b| (a.get_id().clone(), b)))
        .collect();
    for (id, bound) in bounded {
        cmd = cmd.mut_arg(id, |a| {
            let with = |help: Option<&clap::builder::StyledStr>| {
                let help = help.map(ToString::to_string).unwrap_or_default();
                format!("{} [range: {bound}]", help.trim_end())
            };
            let help = with(a.get_help());
            let long = a.get_long_help().map(|h| with(Some(h)));
            let a = a.help(help).allow_hyphen_values(true);
            match long {
                Some(long) => a.long_help(long),
                None => a,
            }
        });
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, checked);
    }
    cmd
}

/// Threads a command uses unless told otherwise: all cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `--jobs`: threads, 1 to four per core.
pub fn jobs() -> Whole<usize> {
    Whole::new("the number of threads", 1, max_jobs() as u64).fix(" (four per core at most)")
}

/// `--replications`: at least 2 (a confidence interval needs two), at most
/// 10,000 per command (more is a sweep: shard it).
pub fn replications() -> Whole<u64> {
    Whole::new("replications", 2, 10_000).fix(
        " (a 95 % interval needs two; for more than 10,000, run shards with --shard and merge them)",
    )
}

/// Replications of a point of a costly sweep (`array --replications`): 1
/// (figures without an interval) to 10,000.
pub fn runs_of_a_point() -> Whole<u64> {
    Whole::new("replications", 1, 10_000)
        .fix(" (for more than 10,000, run shards with --shard and merge them)")
}

/// `--requests` (completions measured per replication): 1 to 10⁹.
pub fn requests() -> Whole<u64> {
    Whole::new("requests per replication", 1, 1_000_000_000)
}

/// `--warmup` (completions discarded first): 0 to 10⁹.
pub fn warmup() -> Whole<u64> {
    Whole::new("the warm-up", 0, 1_000_000_000)
}

/// `--transactions` per replication: 1 to 10⁸.
pub fn transactions() -> Whole<u64> {
    Whole::new("transactions per replication", 1, 100_000_000)
}

/// `--seconds` of a rate-based run: 1 to 3,600 (its memory grows with the
/// simulated time).
pub fn seconds() -> Whole<u64> {
    Whole::new("the simulated seconds", 1, 3_600)
}

/// `--sets` (task sets, one replication each): 2 to 10,000.
pub fn sets() -> Whole<u64> {
    Whole::new("task sets", 2, 10_000).fix(" (a 95 % interval needs two)")
}

/// A step of a sweep's axis: 1 to 1,000.
pub fn step() -> Whole<usize> {
    Whole::new("the step", 1, 1_000)
}

/// `--runs` of a benchmark: 1 to 1,000.
pub fn runs() -> Whole<usize> {
    Whole::new("runs", 1, 1_000)
}

/// A queue depth (`bench sched --depth`): 3 (an array's two operations in
/// service and one waiting) to 65,535, the most a sched-core queue holds.
pub fn depth() -> Whole<usize> {
    Whole::new("the queue depth", 3, sched_core::MAX_CAPACITY as u64)
}

/// Requests a benchmark round times (`bench sched --requests`): 1 to 10⁸.
pub fn decisions() -> Whole<u64> {
    Whole::new("requests per round", 1, 100_000_000)
}

/// Disks of a mirror (`serve --copies`): 2 to the most copies an array
/// policy tracks.
pub fn copies() -> Whole<usize> {
    Whole::new(
        "the disks of a mirror",
        2,
        sched_core::array::MAX_COPIES as u64,
    )
}

/// A population (clients, users): 1 to 65,535.
pub fn population() -> Whole<u32> {
    Whole::new("the population", 1, 65_535)
}

/// A seed: any 64-bit number.
pub fn seed() -> Whole<u64> {
    Whole::new("the seed", 0, u64::MAX)
}

/// A positive finite number (a rate, a load, a time scale) up to 10¹².
pub fn positive() -> Real {
    Real::above("", 0.0, 1e12)
}

/// A finite number at or above zero (a mean think time, a delay), up to
/// 10¹².
pub fn non_negative() -> Real {
    Real::new("", 0.0, 1e12)
}

/// A replay's speed-up factor: 10⁻³ to 10⁶ (beyond, a week's trace would
/// outlast the clock, or collapse into one instant).
pub fn speed() -> Real {
    Real::new("the speed-up", 1e-3, 1e6)
}

/// A fraction in [0, 1] (a probability).
pub fn fraction() -> Real {
    Real::new("", 0.0, 1.0)
}

/// An array's speed-up (`array --speedup`): 0.01 to 1,000 (beyond, the
/// OLTP rate's arrivals outlast the clock or collapse into one instant).
pub fn array_speedup() -> Real {
    Real::new("the speed-up", 0.01, 1_000.0)
}

/// Requests measured per run of an array (`array`, `repro zhang02`):
/// 1,000 (the sustained test compares the run's two halves) to 10⁷.
pub fn array_requests() -> Whole<u64> {
    Whole::new("requests per run", 1_000, 10_000_000)
        .fix(" (the sustained test compares the run's halves: it needs 1,000 at least)")
}

/// Requests discarded at the start of an array's run: 0 to 10⁷.
pub fn array_warmup() -> Whole<u64> {
    Whole::new("the warm-up", 0, 10_000_000)
}

/// Bytes per trace block (`--block-size`): 512 (a sector) to 1 MiB.
pub fn block_size() -> Whole<u32> {
    Whole::new("bytes per trace block", 512, 1 << 20)
        .fix(" (a trace block is one or more 512-byte sectors)")
}

/// A time in milliseconds from `min` (inclusive) up to `max` and to what
/// the clock counts in nanoseconds.
pub fn millis(what: &'static str, min: f64, max: f64) -> Real {
    Real::new(what, min, max).unit_ns(1e6)
}

/// How a mirrored pair's second disk lays out its copies (`--placement`
/// of `run` and `replay`): identical, reversed, or shifted:F with F in
/// [0, 1) of the capacity.
///
/// # Errors
/// Another word, or a shift outside [0, 1).
pub fn placement(s: &str) -> Result<experiments::Placement, String> {
    use experiments::Placement;
    let placement = match s {
        "identical" => Placement::MIRROR,
        "reversed" => Placement::Reversed,
        _ => match s.strip_prefix("shifted:").map(str::parse::<f64>) {
            Some(Ok(fraction)) => Placement::Shifted { fraction },
            _ => return Err("expected identical, reversed or shifted:F".to_string()),
        },
    };
    match placement.invalid() {
        Some(expected) => Err(format!("expected {expected}")),
        None => Ok(placement),
    }
}

/// A plot's file (`--plot`): an `.svg`, a `.png` or an `.html` (a page of
/// the picture alone) whose directory exists, checked before the run
/// rather than after it.
///
/// # Errors
/// Another extension, or a directory that does not exist.
pub fn svg_path(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    match path.extension().and_then(|e| e.to_str()) {
        Some(e)
            if ["svg", "png", "html"]
                .iter()
                .any(|x| e.eq_ignore_ascii_case(x)) => {}
        Some(e) => {
            return Err(format!(
                "plots are written as SVG, PNG or HTML; name the file FILE.svg, FILE.png or FILE.html (`.{e}` is not drawn)"
            ));
        }
        None => return Err("name the file FILE.svg, FILE.png or FILE.html".to_string()),
    }
    existing_directory(path)
}

/// The report's file (`--html`): an `.html` whose directory exists.
///
/// # Errors
/// Another extension, or a directory that does not exist.
pub fn html_path(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    if !path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html"))
    {
        return Err("the report is a web page: name the file FILE.html".to_string());
    }
    existing_directory(path)
}

fn existing_directory(path: std::path::PathBuf) -> Result<std::path::PathBuf, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(format!("the directory {} does not exist", dir.display()));
    }
    Ok(path)
}

/// A file a command writes (`--samples`): one whose directory exists and
/// that is not a directory, checked before the run rather than after it.
///
/// # Errors
/// A directory that does not exist, or a path that is a directory.
pub fn output_file(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    if s.is_empty() || path.is_dir() {
        return Err(format!("`{}` is a directory; name a file", shorten(s)));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(format!("the directory {} does not exist", dir.display()));
    }
    Ok(path)
}

/// `--read-skew`/`--write-skew`: which blocks a kind of request goes to
/// (uniform, zipf:ALPHA, hot:FRACTION:SHARE).
///
/// # Errors
/// Another form, or a parameter outside its domain.
pub fn popularity(s: &str) -> Result<experiments::oltp::Popularity, String> {
    s.parse()
        .map_err(|e: experiments::oltp::PopularityError| e.to_string())
}

fn whole_blocks_of_4kb(s: &str) -> Result<u32, String> {
    let kb: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a whole number of KB", shorten(s)))?;
    if !(4..=1024).contains(&kb) || !kb.is_multiple_of(4) {
        return Err(format!(
            "a request's size must be whole 4 KB blocks from 4 to 1024 KB, got {kb}"
        ));
    }
    Ok((kb / 4) as u32)
}

/// `--request-kb`: a request's size, whole 4 KB blocks from 4 to 1024 KB,
/// as a number of blocks.
pub fn request_kb() -> Checked<u32> {
    Checked::new("4..=1024 KB, a multiple of 4", whole_blocks_of_4kb)
}

/// `--burstiness`: the squared coefficient of variation of the gaps
/// between requests, 1 (Poisson) to 100.
pub fn burstiness() -> Real {
    Real::new("the burstiness", 1.0, experiments::oltp::MAX_BURSTINESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_bounded_on_both_sides() {
        assert_eq!(jobs().check("1"), Ok(1));
        assert!(jobs().check("0").unwrap_err().contains("must be in 1..="));
        assert!(
            jobs()
                .check("4294967296")
                .unwrap_err()
                .contains("four per core")
        );
        assert!(
            jobs()
                .check("99999999999999999999999")
                .unwrap_err()
                .contains("too large")
        );
        assert!(replications().check("1").unwrap_err().contains("needs two"));
        assert!(
            replications()
                .check("4294967296")
                .unwrap_err()
                .contains("--shard")
        );
        assert_eq!(warmup().check("0"), Ok(0));
        assert!(seconds().check("0").is_err() && seconds().check("100000").is_err());
        assert!(sets().check("4294967296").is_err());
        assert!(step().check("0").is_err());
        assert_eq!(seed().check("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(seed().check("-0"), Ok(0));
    }

    #[test]
    fn negative_numbers_and_fractions_are_refused_with_the_range() {
        let e = replications().check("-1").unwrap_err();
        assert!(e.contains("must be in 2..=10000, got -1"), "{e}");
        let e = population().check("1.5").unwrap_err();
        assert!(
            e.contains("not a whole number") && e.contains("1..=65535"),
            "{e}"
        );
        let e = seed().check("-99999999999999999999999").unwrap_err();
        assert!(e.contains("0..="), "{e}");
    }

    #[test]
    fn reals_are_finite_and_in_their_domain() {
        assert_eq!(positive().check("0.5"), Ok(0.5));
        for bad in ["0", "-0.5", "NaN", "inf", "1e309", "1e300", "x"] {
            assert!(positive().check(bad).is_err(), "{bad}");
        }
        assert_eq!(fraction().check("1"), Ok(1.0));
        assert!(
            fraction()
                .check("1.5")
                .unwrap_err()
                .contains("fraction in [0, 1]")
        );
        assert_eq!(non_negative().check("0"), Ok(0.0));
        assert!(non_negative().check("-1").is_err());
    }

    #[test]
    fn times_stay_within_the_clock() {
        let ms = millis("the deadline", 0.0, 1e300);
        assert!(ms.check("1.8e13").is_ok());
        let e = ms.check("2e13").unwrap_err();
        assert!(e.contains("at most") || e.contains("..="), "{e}");
        let span = Span::new(ms);
        assert_eq!(span.check("20..40"), Ok((20.0, 40.0)));
        assert!(
            span.check("2e13..2e13")
                .unwrap_err()
                .contains("the minimum")
        );
        assert!(
            span.check("40..20")
                .unwrap_err()
                .contains("above the maximum")
        );
    }

    #[cfg(feature = "cli")]
    #[test]
    fn the_layers_parsers_answer_the_probe_and_no_other_does() {
        let bound = |a: clap::Arg| bound_of(&a);
        assert_eq!(
            bound(clap::Arg::new("r").value_parser(replications())),
            Some("2..=10000".to_string())
        );
        assert_eq!(
            bound(clap::Arg::new("p").value_parser(positive())),
            Some("above 0, at most 1000000000000".to_string())
        );
        let size = Checked::new("1..=1T bytes", |s| {
            s.parse::<u64>().map_err(|e| e.to_string())
        });
        assert_eq!(
            bound(clap::Arg::new("s").value_parser(size)),
            Some("1..=1T bytes".to_string())
        );
        assert_eq!(
            bound(clap::Arg::new("u").value_parser(clap::value_parser!(u64))),
            None
        );
        assert_eq!(
            bound(clap::Arg::new("f").value_parser(|s: &str| s.parse::<f64>())),
            None
        );
    }

    #[test]
    fn long_decimals_are_shown_short() {
        assert_eq!(show(1e-300), "1e-300");
        assert_eq!(show(2.5), "2.5");
        let e = speed().check("1e-300").unwrap_err();
        assert!(e.len() < 120, "{e}");
    }

    #[test]
    fn plot_files_are_svgs_in_existing_directories() {
        assert!(svg_path("fig.svg").is_ok());
        assert!(svg_path("fig.html").is_ok() && svg_path("FIG.PNG").is_ok());
        assert!(html_path("report.html").is_ok());
        assert!(html_path("report.svg").unwrap_err().contains("FILE.html"));
        assert!(
            html_path("/nonexistent-dir/r.html")
                .unwrap_err()
                .contains("does not exist")
        );
        assert!(
            svg_path("fig.gif")
                .unwrap_err()
                .contains("`.gif` is not drawn")
        );
        assert!(svg_path("fig").is_err());
        assert!(
            svg_path("/nonexistent-dir/fig.svg")
                .unwrap_err()
                .contains("does not exist")
        );
    }

    #[test]
    fn output_files_are_files_in_existing_directories() {
        assert!(output_file("samples.csv").is_ok());
        assert!(output_file("/").unwrap_err().contains("is a directory"));
        assert!(output_file("").is_err());
        assert!(
            output_file("/nonexistent-dir/s.csv")
                .unwrap_err()
                .contains("does not exist")
        );
    }

    #[test]
    fn a_huge_token_is_not_echoed_whole() {
        let token = "9".repeat(1_000_000);
        let message = replications().check(&token).unwrap_err();
        assert!(message.len() < 200, "{} bytes", message.len());
        let message = positive().check(&"x".repeat(1_000_000)).unwrap_err();
        assert!(message.len() < 200);
    }
}
