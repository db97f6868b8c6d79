//! What the policy table's rows become: the macro `policy_table!` sorts the
//! rows by kind (keeping their order) and writes, from each kind's rows, the
//! spec types with their parsing and canonical text, the run-time enums that
//! build and dispatch to the policies, and the registry. The rows themselves,
//! and the syntax of each kind, are in the parent module.

macro_rules! policy_table {
    // ---- sort the rows by kind, keeping their order ----
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [$($family:tt)*] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]
        $(#[$a:meta])* disk $V:ident $name:literal $(| $alias:literal)* { $($body:tt)* } $($rest:tt)*) => {
        policy_table!(@sort
            [$($disk)* { [$(#[$a])*] $V $name [$($alias)*] { $($body)* } }]
            [$($rate)*] [$($sq)*] [$($family)*] [$($dmq)*] [$($qs)*] [$($comp)*]
            [$($base)* (disk $name { $($body)* })]
            $($rest)*);
    };
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [$($family:tt)*] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]
        $(#[$a:meta])* rate_based $V:ident $name:literal { $($body:tt)* } $($rest:tt)*) => {
        policy_table!(@sort
            [$($disk)*] [$($rate)* { [$(#[$a])*] $V $name { $($body)* } }]
            [$($sq)*] [$($family)*] [$($dmq)*] [$($qs)*] [$($comp)*]
            [$($base)* (rate_based $name { $($body)* })]
            $($rest)*);
    };
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [$($family:tt)*] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]
        $(#[$a:meta])* single_queue $V:ident $name:literal { $($body:tt)* } $($rest:tt)*) => {
        policy_table!(@sort
            [$($disk)*] [$($rate)*] [$($sq)* { [$(#[$a])*] $V $name { $($body)* } }]
            [$($family)*] [$($dmq)*] [$($qs)*] [$($comp)*]
            [$($base)* (single_queue $name { $($body)* })]
            $($rest)*);
    };
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]
        dmq_family { $($body:tt)* } $($rest:tt)*) => {
        policy_table!(@sort
            [$($disk)*] [$($rate)*] [$($sq)*] [$($body)*] [$($dmq)*] [$($qs)*] [$($comp)*]
            [$($base)*]
            $($rest)*);
    };
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [$($family:tt)*] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]
        $(#[$a:meta])* dmq $V:ident $name:literal { $($body:tt)* } $($rest:tt)*) => {
        policy_table!(@sort
            [$($disk)*] [$($rate)*] [$($sq)*] [$($family)*]
            [$($dmq)* { [$(#[$a])*] $V $name { $($body)* } }] [$($qs)*] [$($comp)*]
            [$($base)* (dmq $name { $($body)* })]
            $($rest)*);
    };
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [$($family:tt)*] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]
        $(#[$a:meta])* queue_sets $V:ident $name:literal { $($body:tt)* } $($rest:tt)*) => {
        policy_table!(@sort
            [$($disk)*] [$($rate)*] [$($sq)*] [$($family)*] [$($dmq)*]
            [$($qs)* { [$(#[$a])*] $V $name { $($body)* } }] [$($comp)*]
            [$($base)* (queue_sets $name { $($body)* })]
            $($rest)*);
    };
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [$($family:tt)*] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]
        composition $name:literal = $definition:literal { $($body:tt)* } $($rest:tt)*) => {
        policy_table!(@sort
            [$($disk)*] [$($rate)*] [$($sq)*] [$($family)*] [$($dmq)*] [$($qs)*]
            [$($comp)* { $name $definition { $($body)* } }]
            [$($base)*]
            $($rest)*);
    };
    (@sort [$($disk:tt)*] [$($rate:tt)*] [$($sq:tt)*] [$($family:tt)*] [$($dmq:tt)*] [$($qs:tt)*]
        [$($comp:tt)*] [$($base:tt)*]) => {
        policy_table!(@disk $($disk)*);
        policy_table!(@rate $($rate)*);
        policy_table!(@array [$($family)*] [$($sq)*] [$($dmq)*] [$($qs)*] [$($comp)*]);
        policy_table!(@registry [$($family)*] [$($base)*] [$($comp)*]);
    };

    // ---- single-disk policies ----
    (@disk $({
        [$(#[$a:meta])*] $V:ident $name:literal [$($alias:literal)*]
        {
            summary: $summary:literal,
            paper: $paper:literal,
            $(uses: [$($uses:ident),* $(,)?],)?
            $(estimator: $estimator:literal,)?
            $(parameters: {
                $(
                    $(#[$pa:meta])*
                    $field:ident: $fty:ty as $codec:ty = $default:expr => $text:literal,
                    keys $key:literal $(| $kalias:literal)*,
                    expects $expected:literal,
                    means $meaning:literal;
                )*
            },)?
            build: |$storage:ident, $cylinders:ident| $build:expr $(,)?
        }
    })*) => {
        /// A single-disk policy and its parameters, as named on a command line.
        ///
        /// The text form is `name` or `name:key=value,key=value`, e.g. `sstf`,
        /// `ssedo:m=3,beta=2`, `ssedv:alpha=0.5,unit=1ms`, `fd-scan:expired=drop`,
        /// `scan-edf:granularity=10ms`, `sptf:window=32`, `aged-sptf:weight=0.01`,
        /// `vscan:r=0.2`. Names ignore case, `-` and `_`. Durations take a suffix
        /// `ns`, `us`, `ms` or `s` (plain numbers are nanoseconds). [`fmt::Display`]
        /// prints the canonical form with every parameter. Every variant is a row
        /// of the policy table, which [`registry`](crate::registry) lists.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum PolicySpec {
            $(
                $(#[$a])*
                $V $({ $( $(#[$pa])* $field: $fty ),* })?,
            )*
        }

        /// The number of single-disk policies.
        const DISK_POLICIES: usize = [$($name),*].len();

        /// Other names single-disk policies answer to, with their canonical name.
        const DISK_ALIASES: &[(&str, &str)] = &[$($(($alias, $name),)*)*];

        impl PolicySpec {
            /// The canonical names, in the order of the table in [`crate::policy`].
            pub const NAMES: [&'static str; DISK_POLICIES] = [$($name),*];

            /// Every policy with its default parameters.
            pub const DEFAULTS: [PolicySpec; DISK_POLICIES] = [
                $( PolicySpec::$V $({ $($field: $default),* })? ),*
            ];

            /// The canonical name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( PolicySpec::$V $({ $($field: _),* })? => $name, )*
                }
            }

            /// Whether the policy asks the [`ServiceEstimator`](crate::ServiceEstimator) for times.
            pub fn needs_estimator(&self) -> bool {
                match self {
                    $( PolicySpec::$V $({ $($field: _),* })? => policy_table!(@or $($estimator)? false), )*
                }
            }

            /// What the policy orders its queue by besides arrival (the
            /// row's `uses`; a policy asking the estimator uses positioning).
            pub const fn uses(&self) -> Uses {
                match self {
                    $( PolicySpec::$V $({ $($field: _),* })? => Uses {
                        deadlines: policy_table!(@uses_deadlines $($($uses)*)?),
                        cylinders: policy_table!(@uses_cylinders $($($uses)*)?),
                        positioning: policy_table!(@or $($estimator)? false),
                    }, )*
                }
            }

            /// Whether the policy sets expired requests aside for the driver
            /// to collect (which array policies never do).
            pub(crate) fn drops_expired(&self) -> bool {
                match self {
                    $( PolicySpec::$V $({ $($field),* })? => any(&[
                        $($( <$codec as Codec>::drops_expired($field) ),*)?
                    ]), )*
                }
            }

            /// Builds the policy for a disk of `cylinders` cylinders on `storage`.
            ///
            /// # Errors
            /// The policy constructor's [`BuildError`] for invalid parameters.
            pub fn build<S: Storage>(
                &self,
                storage: S,
                cylinders: u32,
            ) -> Result<AnyScheduler<S>, BuildError> {
                Ok(match *self {
                    $(
                        PolicySpec::$V $({ $($field),* })? => {
                            let $storage = storage;
                            let $cylinders = cylinders;
                            AnyScheduler::$V($build?)
                        }
                    )*
                })
            }

            /// Builds the policy for a disk of `cylinders` cylinders on
            /// `storage` as its own type, not as an [`AnyScheduler`], and hands
            /// it to `with`: a driver calling the queue for every request then
            /// runs code made for that policy, with no dispatch on which
            /// policy it is.
            ///
            /// # Errors
            /// The policy constructor's [`BuildError`] for invalid parameters.
            pub fn build_with<S: Storage, W: WithPolicy>(
                &self,
                storage: S,
                cylinders: u32,
                with: W,
            ) -> Result<W::Output, BuildError> {
                Ok(match *self {
                    $(
                        PolicySpec::$V $({ $($field),* })? => {
                            let $storage = storage;
                            let $cylinders = cylinders;
                            with.run($build?)
                        }
                    )*
                })
            }

            /// Checks the parameters without keeping a queue.
            ///
            /// # Errors
            /// The constructor's [`BuildError`], as [`PolicySpec::build`] would return it.
            pub fn validate(&self) -> Result<(), BuildError> {
                self.build(Inline::<1>::new(), 1).map(|_| ())
            }

            /// The policy named `name` with the parameters `params`, or `None`
            /// when no single-disk policy has that name.
            pub(crate) fn parse_named(
                name: &str,
                params: &str,
            ) -> Option<Result<PolicySpec, SpecError>> {
                let name = DISK_ALIASES
                    .iter()
                    .find(|(alias, _)| same_name(name, alias))
                    .map_or(name, |&(_, canonical)| canonical);
                let spec = PolicySpec::NAMES
                    .iter()
                    .zip(PolicySpec::DEFAULTS)
                    .find(|(n, _)| same_name(name, n))
                    .map(|(_, d)| d)?;
                Some(spec.with_parameters(params))
            }

            /// This policy with `params` applied and checked.
            fn with_parameters(mut self, params: &str) -> Result<PolicySpec, SpecError> {
                let policy = self.name();
                if repeated_key(params).is_some() {
                    return Err(SpecError::BadValue {
                        parameter: "parameters",
                        expected: "each parameter given once",
                    });
                }
                for pair in pairs(params) {
                    let (key, value) = key_value(pair).ok_or(SpecError::BadValue {
                        parameter: "parameters",
                        expected: PAIRS_EXPECTED,
                    })?;
                    match (&mut self, key) {
                        $($($(
                            (PolicySpec::$V { $field, .. }, $key $(| $kalias)*) => {
                                *$field = disk_value::<$codec>(value, $key, $expected)?
                            }
                        )*)?)*
                        _ => return Err(SpecError::UnknownParameter { policy }),
                    }
                }
                self.validate().map_err(SpecError::Invalid)?;
                Ok(self)
            }
        }

        impl fmt::Display for PolicySpec {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())?;
                let mut separator = Separator::new();
                match self {
                    $(
                        PolicySpec::$V $({ $($field),* })? => {
                            $($(
                                separator.key(f, $key)?;
                                <$codec as Codec>::write($field, f)?;
                            )*)?
                        }
                    )*
                }
                Ok(())
            }
        }

        impl FromStr for PolicySpec {
            type Err = SpecError;

            fn from_str(s: &str) -> Result<Self, SpecError> {
                let (name, params) = split_description(s);
                PolicySpec::parse_named(name, params).unwrap_or(Err(SpecError::UnknownPolicy))
            }
        }

        /// Any single-disk policy, chosen at run time. Dispatch is a `match`, not a
        /// virtual call, and nothing is boxed: array policies use it as the queue
        /// discipline of each disk.
        #[allow(clippy::large_enum_variant)] // every variant is a fixed-size queue; none is small
        #[derive(Clone)]
        pub enum AnyScheduler<S: Storage> {
            $(
                #[doc = concat!("[`", stringify!($V), "`](crate::policy::", stringify!($V), ").")]
                $V($V<S>),
            )*
        }

        /// The policy's own `Debug`: its name, what it holds and its capacity.
        impl<S: Storage> core::fmt::Debug for AnyScheduler<S> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match self { $( AnyScheduler::$V(q) => q.fmt(f), )* }
            }
        }

        // `Debug` for each policy: what its queue holds and its capacity,
        // not its slots (thousands of them, mostly empty, in an order only
        // the policy reads).
        $(
            impl<S: Storage> core::fmt::Debug for $V<S> {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.debug_struct(stringify!($V))
                        .field("queued", &Scheduler::len(self))
                        .field("capacity", &Scheduler::capacity(self))
                        .finish_non_exhaustive()
                }
            }
        )*

        impl<S: Storage> Scheduler for AnyScheduler<S> {
            #[inline]
            fn enqueue(&mut self, req: Request) -> Result<(), EnqueueError> {
                match self { $( AnyScheduler::$V(q) => q.enqueue(req), )* }
            }
            #[inline]
            fn next(&mut self, head: Head, now: Nanos, est: &dyn ServiceEstimator) -> Option<Dispatch> {
                match self { $( AnyScheduler::$V(q) => q.next(head, now, est), )* }
            }
            fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
                match self { $( AnyScheduler::$V(q) => q.cancel(id), )* }
            }
            #[inline]
            fn len(&self) -> usize {
                match self { $( AnyScheduler::$V(q) => q.len(), )* }
            }
            fn capacity(&self) -> usize {
                match self { $( AnyScheduler::$V(q) => q.capacity(), )* }
            }
            fn contains(&self, id: RequestId) -> bool {
                match self { $( AnyScheduler::$V(q) => q.contains(id), )* }
            }
            fn pop_any(&mut self) -> Option<Request> {
                match self { $( AnyScheduler::$V(q) => q.pop_any(), )* }
            }
            fn take_expired(&mut self, now: Nanos) -> Option<Request> {
                match self { $( AnyScheduler::$V(q) => q.take_expired(now), )* }
            }
            fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
                match self { $( AnyScheduler::$V(q) => q.next_eligible_at(now), )* }
            }
            fn work_ahead(&self, req: &Request, head: Head, est: &dyn ServiceEstimator) -> Option<Nanos> {
                match self { $( AnyScheduler::$V(q) => q.work_ahead(req, head, est), )* }
            }
        }
    };

    // ---- rate-based policies ----
    (@rate $({
        [$(#[$a:meta])*] $V:ident $name:literal
        {
            summary: $summary:literal,
            paper: $paper:literal,
            spec: $spec:ty = $default:expr,
            parameters: [ $( $pname:literal = $ptext:literal, means $pmeaning:literal; )* ] $(,)?
        }
    })*) => {
        $(
            #[doc = concat!(
                "The description of [`", stringify!($V), "`](crate::policy::", stringify!($V),
                "): `", $name, "[:key=value,...]`, its parameters those of the registry entry `",
                $name, "`."
            )]
            $(#[$a])*
            impl FromStr for $spec {
                type Err = SpecError;

                fn from_str(s: &str) -> Result<Self, SpecError> {
                    let (name, params) = split_description(s);
                    <$spec>::parse_named(name, params).unwrap_or(Err(SpecError::UnknownPolicy))
                }
            }

            impl $spec {
                /// The canonical name of the policy this describes.
                pub(crate) const NAME: &'static str = $name;

                /// The description named `name` with the parameters `params`,
                /// or `None` for another name.
                pub(crate) fn parse_named(
                    name: &str,
                    params: &str,
                ) -> Option<Result<$spec, SpecError>> {
                    if !same_name(name, $name) {
                        return None;
                    }
                    let parse = || {
                        let mut spec: $spec = $default;
                        for pair in pairs(params) {
                            let (key, value) = key_value(pair).ok_or(SpecError::BadValue {
                                parameter: "parameters",
                                expected: PAIRS_EXPECTED,
                            })?;
                            if !spec.set_parameter(key, value)? {
                                return Err(SpecError::UnknownParameter { policy: $name });
                            }
                        }
                        Ok(spec)
                    };
                    Some(parse())
                }
            }

            /// The canonical description, every parameter written out.
            impl fmt::Display for $spec {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str($name)?;
                    self.write_parameters(&mut Separator::new(), f)
                }
            }
        )*
    };

    // ---- array policies ----
    (@array
        [
            queue = $qtext:literal, expects $qexpected:literal, means $qmeaning:literal;
            modified = $mtext:literal, expects $mexpected:literal, means $mmeaning:literal;
        ]
        [$({
            [$(#[$sqa:meta])*] $SqV:ident $sqname:literal
            { summary: $sqsummary:literal, paper: $sqpaper:literal, rule: $rule:ident $(,)? }
        })*]
        [$({
            [$(#[$da:meta])*] $DV:ident $dname:literal
            {
                summary: $dsummary:literal,
                paper: $dpaper:literal,
                $(parameters: {
                    $(
                        $(#[$dpa:meta])*
                        $dfield:ident: $dfty:ty as $dcodec:ty = $dtext:literal,
                        keys $dkey:literal $(| $dkalias:literal)*,
                        expects $dexpected:literal,
                        means $dmeaning:literal;
                    )*
                },)?
                routing: |$disks:ident, $seed:ident| $routing:expr $(,)?
            }
        })*]
        [$({
            [$(#[$ca:meta])*] $CV:ident $cname:literal
            {
                summary: $csummary:literal,
                paper: $cpaper:literal,
                parameters: {
                    $(
                        $(#[$cpa:meta])*
                        $cfield:ident: $cfty:ty as $ccodec:ty = $ctext:literal,
                        keys $ckey:literal $(| $ckalias:literal)*,
                        expects $cexpected:literal,
                        means $cmeaning:literal;
                    )*
                },
                variant: $cvariant:ty,
                build: |$cstorage:ident, $cqueue:ident, $cqueues:ident| $cbuild:expr $(,)?
            }
        })*]
        [$({ $compname:literal $definition:literal { $($compbody:tt)* } })*]
    ) => {
        /// An array policy with its disciplines, as named on a command line.
        ///
        /// Text forms: the single-queue family (`s-pssq`, `c-pssq`, `cr-esq`,
        /// `cru-esq`, `mr-esq`); a DMQ read routing (`r-dmq[:alpha=0.5]`,
        /// `sq-dmq`, `mr-dmq`, `mr-dmqa[:abort=start|complete]`, `md-raid1`,
        /// `ivy-dmq`) with `queue=<policy>` (default `fcfs`) and
        /// `modified=true|false` (Chen & Towsley's idle-first routing, default
        /// false); `cmq[:common=<policy>,aux=<policy>]` (defaults `fcfs`);
        /// `ew-array[:queue=<policy>,delayed=<policy>,propagation=<class>]`
        /// (defaults `satf-ew`, `satf-ew`, 1). A nested policy with
        /// parameters is written with parentheses: `queue=ssedo(m=3,beta=2)`.
        /// Names ignore case.
        ///
        /// The compositions of Chen & Towsley (1991) have names of their own,
        /// each standing for a description (see [`ArraySpec::NAMED`]): `dmq-rd`,
        /// `dmq-sq`, `dmq-mr` (modified routing over SSTF; `dmq` is `dmq-sq`),
        /// `rt-dmq-rd`, `rt-dmq-sq`, `rt-dmq-mr` (the same over SSEDO; `rt-dmq`
        /// is `rt-dmq-sq`), `fd-dmq` (modified SQ routing over FD-SCAN),
        /// `cmq-sstf` (the modified CMQ) and `rt-cmq-f`, `rt-cmq-s`, `rt-cmq-w`
        /// (SSEDO common queue; FCFS, SSTF or SSEDO auxiliary queues; `rt-cmq`
        /// is `rt-cmq-s`). Parameters given after such a name change its own.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum ArraySpec {
            $( $(#[$sqa])* $SqV, )*
            /// [`Dmq`](crate::array::Dmq).
            Dmq {
                /// Read routing.
                routing: Routing,
                /// Per-disk queue discipline.
                queue: PolicySpec,
                /// Chen & Towsley's idle-first routing ([`Dmq::prefer_idle`](crate::array::Dmq::prefer_idle)).
                modified: bool,
            },
            $(
                $(#[$ca])*
                $CV { $( $(#[$cpa])* $cfield: $cfty ),* },
            )*
        }

        /// How a DMQ routes reads.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Routing {
            $( $(#[$da])* $DV $({ $( $(#[$dpa])* $dfield: $dfty ),* })?, )*
        }

        /// The number of named array policies.
        const ARRAY_POLICIES: usize = [$($sqname,)* $($dname,)* $($cname,)* $($compname),*].len();

        impl ArraySpec {
            /// Every named array policy with the description it stands for
            /// (a base policy stands for itself), base policies first, then
            /// the compositions.
            pub const NAMED: [(&'static str, &'static str); ARRAY_POLICIES] = [
                $(($sqname, $sqname),)*
                $(($dname, $dname),)*
                $(($cname, $cname),)*
                $(($compname, $definition),)*
            ];

            /// Every named array policy with its spec, in the order of [`ArraySpec::NAMED`].
            pub fn named() -> impl Iterator<Item = (&'static str, ArraySpec)> {
                ArraySpec::NAMED.into_iter().filter_map(|(name, definition)| {
                    // Every definition parses: a test checks them all.
                    definition.parse().ok().map(|spec| (name, spec))
                })
            }

            /// The base policy's name (without disciplines).
            pub fn base_name(&self) -> &'static str {
                match self {
                    $( ArraySpec::$SqV => $sqname, )*
                    ArraySpec::Dmq { routing, .. } => match routing {
                        $( Routing::$DV $({ $($dfield: _),* })? => $dname, )*
                    },
                    $( ArraySpec::$CV { .. } => $cname, )*
                }
            }

            /// What the policy orders its requests by besides arrival: what
            /// its queue disciplines use (the single-queue family serves in
            /// arrival order; a routing's choice of the nearest idle disk is
            /// a tie-break among idle disks, not an order of requests).
            pub fn uses(&self) -> Uses {
                match self {
                    $( ArraySpec::$SqV => Uses::ARRIVAL_ORDER, )*
                    ArraySpec::Dmq { queue, .. } => queue.uses(),
                    $(
                        ArraySpec::$CV { $($cfield),* } => Uses::ARRIVAL_ORDER
                            $( .or(<$ccodec as Codec>::uses($cfield)) )*,
                    )*
                }
            }

            /// Checks what parsing cannot: the routing's parameters, and that no
            /// queue discipline drops expired requests (array policies never collect them).
            ///
            /// # Errors
            /// [`BuildError::InvalidParameter`] naming the parameter.
            pub fn validate(&self) -> Result<(), BuildError> {
                match self {
                    $( ArraySpec::$SqV => Ok(()), )*
                    ArraySpec::Dmq { routing, queue, .. } => {
                        // Routings check their parameters when built; two
                        // disks stand for any array.
                        routing.build(2, 0)?;
                        Discipline::check_in_array(queue)
                    }
                    $(
                        ArraySpec::$CV { $($cfield),* } => {
                            $( <$ccodec as Codec>::check_in_array($cfield)?; )*
                            Ok(())
                        }
                    )*
                }
            }

            /// The array policy named `name` (ignoring case) with the
            /// parameters `params`, or `None` when no array policy has that name.
            pub(crate) fn parse_named(
                name: &str,
                params: &str,
            ) -> Option<Result<ArraySpec, ArraySpecError>> {
                let (_, definition) = ArraySpec::NAMED
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))?;
                let (base, defined) = definition.split_once(':').unwrap_or((definition, ""));
                Some(ArraySpec::parse_base(base, defined, params))
            }

            /// The base policy `base` (a canonical name) with the parameters
            /// its name defines and then the given ones.
            fn parse_base(
                base: &str,
                defined: &str,
                params: &str,
            ) -> Result<ArraySpec, ArraySpecError> {
                let mut pairs = top_level_pairs(defined).chain(top_level_pairs(params)).map(|pair| {
                    key_value(pair).ok_or(ArraySpecError::BadValue {
                        parameter: "parameters",
                        expected: PAIRS_EXPECTED,
                    })
                });
                let spec = match base {
                    $(
                        $sqname => match pairs.next() {
                            Some(pair) => {
                                pair?;
                                return Err(ArraySpecError::UnknownParameter);
                            }
                            None => ArraySpec::$SqV,
                        },
                    )*
                    $(
                        $dname => {
                            let mut queue = array_value::<Discipline>($qtext, "queue", $qexpected)?;
                            let mut modified = array_value::<Flag>($mtext, "modified", $mexpected)?;
                            $($(
                                let mut $dfield = array_value::<$dcodec>($dtext, $dkey, $dexpected)?;
                            )*)?
                            for pair in pairs {
                                let (key, value) = pair?;
                                match key {
                                    "queue" => queue = array_value::<Discipline>(value, "queue", $qexpected)?,
                                    "modified" => modified = array_value::<Flag>(value, "modified", $mexpected)?,
                                    $($(
                                        $dkey $(| $dkalias)* => {
                                            $dfield = array_value::<$dcodec>(value, $dkey, $dexpected)?
                                        }
                                    )*)?
                                    _ => return Err(ArraySpecError::UnknownParameter),
                                }
                            }
                            ArraySpec::Dmq {
                                routing: Routing::$DV $({ $($dfield),* })?,
                                queue,
                                modified,
                            }
                        }
                    )*
                    $(
                        $cname => {
                            $( let mut $cfield = array_value::<$ccodec>($ctext, $ckey, $cexpected)?; )*
                            for pair in pairs {
                                let (key, value) = pair?;
                                match key {
                                    $(
                                        $ckey $(| $ckalias)* => {
                                            $cfield = array_value::<$ccodec>(value, $ckey, $cexpected)?
                                        }
                                    )*
                                    _ => return Err(ArraySpecError::UnknownParameter),
                                }
                            }
                            ArraySpec::$CV { $($cfield),* }
                        }
                    )*
                    _ => return Err(ArraySpecError::UnknownPolicy),
                };
                spec.validate().map_err(ArraySpecError::Invalid)?;
                Ok(spec)
            }

            /// Builds the policy for `disks` disks of `cylinders` cylinders; the
            /// ledger and every queue get storage of `storage`'s capacity; `seed`
            /// drives random routing.
            ///
            /// # Errors
            /// A constructor's [`BuildError`].
            #[cfg(feature = "alloc")]
            pub fn build<S: Storage + Clone>(
                &self,
                storage: S,
                disks: usize,
                cylinders: u32,
                seed: u64,
            ) -> Result<AnyArray<S>, BuildError> {
                check_disks(disks)?;
                self.validate()?;
                let spare = storage.clone();
                let queue = move |spec: PolicySpec| spec.build(spare.clone(), cylinders);
                let spare = storage.clone();
                let queues = move |spec: PolicySpec| -> Result<Vec<AnyScheduler<S>>, BuildError> {
                    (0..disks).map(|_| spec.build(spare.clone(), cylinders)).collect()
                };
                Ok(match *self {
                    $(
                        ArraySpec::$SqV => AnyArray::SingleQueue(SingleQueue::with_rule(
                            storage,
                            disks,
                            AnyStartRule::$SqV($rule),
                        )?),
                    )*
                    ArraySpec::Dmq { routing, queue: discipline, modified } => {
                        let per_disk = queues(discipline)?;
                        let dmq = Dmq::new(storage, per_disk, routing.build(disks, seed)?)?;
                        AnyArray::Dmq(if modified { dmq.prefer_idle() } else { dmq })
                    }
                    $(
                        ArraySpec::$CV { $($cfield),* } => {
                            let $cstorage = storage;
                            let $cqueue = queue;
                            let $cqueues = queues;
                            AnyArray::$CV($cbuild?)
                        }
                    )*
                })
            }
        }

        impl Routing {
            /// The run-time routing for `disks` disks; `seed` drives random routing.
            fn build(&self, disks: usize, seed: u64) -> Result<AnyRouting, BuildError> {
                Ok(match *self {
                    $(
                        Routing::$DV $({ $($dfield),* })? => {
                            let $disks = disks;
                            let $seed = seed;
                            AnyRouting::$DV($routing?)
                        }
                    )*
                })
            }
        }

        impl fmt::Display for ArraySpec {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.base_name())?;
                let mut separator = Separator::new();
                match self {
                    $( ArraySpec::$SqV => {} )*
                    ArraySpec::Dmq { routing, queue, modified } => {
                        match routing {
                            $(
                                Routing::$DV $({ $($dfield),* })? => {
                                    $($(
                                        separator.key(f, $dkey)?;
                                        <$dcodec as Codec>::write($dfield, f)?;
                                    )*)?
                                }
                            )*
                        }
                        separator.key(f, "queue")?;
                        Discipline::write(queue, f)?;
                        separator.key(f, "modified")?;
                        Flag::write(modified, f)?;
                    }
                    $(
                        ArraySpec::$CV { $($cfield),* } => {
                            $(
                                separator.key(f, $ckey)?;
                                <$ccodec as Codec>::write($cfield, f)?;
                            )*
                        }
                    )*
                }
                Ok(())
            }
        }

        impl FromStr for ArraySpec {
            type Err = ArraySpecError;

            fn from_str(s: &str) -> Result<Self, ArraySpecError> {
                let (name, params) = s.split_once(':').unwrap_or((s, ""));
                ArraySpec::parse_named(name.trim(), params).unwrap_or(Err(ArraySpecError::UnknownPolicy))
            }
        }

        /// Any start rule of the single-queue family, chosen at run time.
        #[derive(Clone, Copy, Debug)]
        pub enum AnyStartRule {
            $(
                #[doc = concat!("[`", stringify!($rule), "`].")]
                $SqV($rule),
            )*
        }

        impl StartRule for AnyStartRule {
            fn read_disks(&self, view: &SqView<'_>) -> DiskSet {
                match self { $( AnyStartRule::$SqV(r) => r.read_disks(view), )* }
            }
            fn update_may_start(&self, view: &SqView<'_>) -> bool {
                match self { $( AnyStartRule::$SqV(r) => r.update_may_start(view), )* }
            }
        }

        /// Any DMQ read routing, chosen at run time.
        // R-DMQ's 64 thresholds make it the large variant; boxing them would
        // put an indirection on every routing decision.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        pub enum AnyRouting {
            $(
                #[doc = concat!("[`", stringify!($DV), "`].")]
                $DV($DV),
            )*
        }

        impl ReadRouting for AnyRouting {
            #[inline]
            fn route(&mut self, view: &RouteView<'_>) -> DiskSet {
                match self { $( AnyRouting::$DV(r) => r.route(view), )* }
            }
            #[inline]
            fn abort(&self) -> Abort {
                match self { $( AnyRouting::$DV(r) => r.abort(), )* }
            }
        }

        /// Any array policy, chosen at run time; its queues live in `Vec`s.
        // A DMQ carries per-disk queues and routing state the single-queue family
        // does not; boxing it would put an indirection on every decision.
        #[cfg(feature = "alloc")]
        #[allow(clippy::large_enum_variant)]
        pub enum AnyArray<S: Storage> {
            /// A policy of the single-queue family.
            SingleQueue(SingleQueue<AnyStartRule, S>),
            /// A DMQ policy.
            Dmq(Dmq<Vec<AnyScheduler<S>>, AnyRouting, S>),
            $(
                #[doc = concat!("[`", stringify!($CV), "`](crate::array::", stringify!($CV), ").")]
                $CV($cvariant),
            )*
        }

        /// The policy's variant, then what the array holds.
        #[cfg(feature = "alloc")]
        impl<S: Storage> core::fmt::Debug for AnyArray<S> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("AnyArray")
                    .field("disks", &ArrayPolicy::disks(self))
                    .field("in_system", &ArrayPolicy::in_system(self))
                    .finish_non_exhaustive()
            }
        }

        #[cfg(feature = "alloc")]
        impl<S: Storage> AnyArray<S> {
            /// When writes count as done (default [`Ack::All`]).
            ///
            /// # Errors
            /// [`BuildError::InvalidParameter`] for a quorum of 0.
            pub fn with_ack(self, ack: Ack) -> Result<Self, BuildError> {
                Ok(match self {
                    AnyArray::SingleQueue(p) => AnyArray::SingleQueue(p.with_ack(ack)?),
                    AnyArray::Dmq(p) => AnyArray::Dmq(p.with_ack(ack)?),
                    $( AnyArray::$CV(p) => AnyArray::$CV(p.with_ack(ack)?), )*
                })
            }
        }

        #[cfg(feature = "alloc")]
        impl<S: Storage> ArrayPolicy for AnyArray<S> {
            #[inline]
            fn submit(
                &mut self,
                req: Request,
                copies: &Copies,
                view: &ArrayView<'_>,
            ) -> Result<(), EnqueueError> {
                policy_table!(@each_array self, [$($CV)*], p => p.submit(req, copies, view))
            }
            #[inline]
            fn complete(&mut self, disk: usize, now: Nanos) -> Result<Completion, CompleteError> {
                policy_table!(@each_array self, [$($CV)*], p => p.complete(disk, now))
            }
            fn cancel(&mut self, id: RequestId) -> Result<Request, CancelError> {
                policy_table!(@each_array self, [$($CV)*], p => p.cancel(id))
            }
            fn fail_disk(
                &mut self,
                disk: usize,
                view: &ArrayView<'_>,
            ) -> Result<(), DiskStateError> {
                policy_table!(@each_array self, [$($CV)*], p => p.fail_disk(disk, view))
            }
            fn replace_disk(&mut self, disk: usize, rebuild: Rebuild) -> Result<(), DiskStateError> {
                policy_table!(@each_array self, [$($CV)*], p => p.replace_disk(disk, rebuild))
            }
            fn resync(&mut self, disk: usize, copy: Request) -> Result<(), DiskStateError> {
                policy_table!(@each_array self, [$($CV)*], p => p.resync(disk, copy))
            }
            fn contains(&self, id: RequestId) -> bool {
                policy_table!(@each_array self, [$($CV)*], p => p.contains(id))
            }
            #[inline]
            fn poll_start(&mut self, view: &ArrayView<'_>) -> Result<Option<Start>, PollError> {
                policy_table!(@each_array self, [$($CV)*], p => p.poll_start(view))
            }
            fn poll_event(&mut self) -> Option<Completion> {
                policy_table!(@each_array self, [$($CV)*], p => p.poll_event())
            }
            fn next_eligible_at(&self, now: Nanos) -> Option<Nanos> {
                policy_table!(@each_array self, [$($CV)*], p => p.next_eligible_at(now))
            }
            fn disks(&self) -> usize {
                policy_table!(@each_array self, [$($CV)*], p => p.disks())
            }
            fn disk_state(&self, disk: usize) -> DiskState {
                policy_table!(@each_array self, [$($CV)*], p => p.disk_state(disk))
            }
            fn in_system(&self) -> usize {
                policy_table!(@each_array self, [$($CV)*], p => p.in_system())
            }
            fn is_busy(&self, disk: usize) -> bool {
                policy_table!(@each_array self, [$($CV)*], p => p.is_busy(disk))
            }
            fn common_len(&self) -> usize {
                policy_table!(@each_array self, [$($CV)*], p => p.common_len())
            }
            fn disk_queue_len(&self, disk: usize) -> usize {
                policy_table!(@each_array self, [$($CV)*], p => p.disk_queue_len(disk))
            }
            fn aux_len(&self, disk: usize) -> usize {
                policy_table!(@each_array self, [$($CV)*], p => p.aux_len(disk))
            }
        }
    };
    (@each_array $self:ident, [$($CV:ident)*], $p:ident => $body:expr) => {
        match $self {
            AnyArray::SingleQueue($p) => $body,
            AnyArray::Dmq($p) => $body,
            $( AnyArray::$CV($p) => $body, )*
        }
    };

    // ---- the registry ----
    (@registry $family:tt [$($base:tt)*] [$({ $compname:literal $definition:literal {
        summary: $compsummary:literal,
        paper: $comppaper:literal $(,)?
    } })*]) => {
        /// Every policy but the compositions, in table order.
        const BASE_POLICIES: [PolicyInfo; [$(policy_table!(@one $base)),*].len()] = [
            $( policy_table!(@info info $family $base), )*
        ];

        /// Each composition's parameters: its base's, with its own defaults.
        static COMPOSED: [(&str, ComposedParameters); [$($compname),*].len()] = [
            $( ($compname, ComposedParameters::of(&BASE_POLICIES, $definition)), )*
        ];

        /// The registry as a Markdown table, for the documentation.
        macro_rules! registry_table {
            () => {
                concat!(
                    "| policy | kind | parameters (defaults) | what it does | paper |\n",
                    "|---|---|---|---|---|\n",
                    $( policy_table!(@info doc $family $base), )*
                    $(
                        "| `", $compname, "` | array | as `", $definition, "` | ",
                        $compsummary, " | ", $comppaper, " |\n",
                    )*
                )
            };
        }

        /// Every policy, in table order, the compositions last.
        pub(crate) const POLICIES: [PolicyInfo; BASE_POLICIES.len() + COMPOSED.len()] = [
            $( policy_table!(@info info $family $base), )*
            $(
                PolicyInfo {
                    name: $compname,
                    kind: PolicyKind::Array,
                    summary: $compsummary,
                    paper: $comppaper,
                    parameters: ComposedParameters::find(&COMPOSED, $compname),
                },
            )*
        ];
    };
    (@one $x:tt) => { () };
    (@info $mode:ident [$($family:tt)*] (disk $name:literal {
        summary: $summary:literal,
        paper: $paper:literal,
        $(uses: [$($uses:ident),* $(,)?],)?
        $(estimator: $estimator:literal,)?
        $(parameters: {
            $(
                $(#[$pa:meta])*
                $field:ident: $fty:ty as $codec:ty = $default:expr => $text:literal,
                keys $key:literal $(| $kalias:literal)*,
                expects $expected:literal,
                means $meaning:literal;
            )*
        },)?
        build: |$storage:ident, $cylinders:ident| $build:expr $(,)?
    })) => {
        policy_table!(@emit $mode $name, Disk, $summary, $paper,
            [$($(($key, $text, $meaning))*)?])
    };
    (@info $mode:ident [$($family:tt)*] (rate_based $name:literal {
        summary: $summary:literal,
        paper: $paper:literal,
        spec: $spec:ty = $default:expr,
        parameters: [ $( $pname:literal = $ptext:literal, means $pmeaning:literal; )* ] $(,)?
    })) => {
        policy_table!(@emit $mode $name, RateBased, $summary, $paper,
            [$(($pname, $ptext, $pmeaning))*])
    };
    (@info $mode:ident [$($family:tt)*] (single_queue $name:literal {
        summary: $summary:literal, paper: $paper:literal, rule: $rule:ident $(,)?
    })) => {
        policy_table!(@emit $mode $name, Array, $summary, $paper, [])
    };
    (@info $mode:ident [
        queue = $qtext:literal, expects $qexpected:literal, means $qmeaning:literal;
        modified = $mtext:literal, expects $mexpected:literal, means $mmeaning:literal;
    ] (dmq $name:literal {
        summary: $summary:literal,
        paper: $paper:literal,
        $(parameters: {
            $(
                $(#[$pa:meta])*
                $field:ident: $fty:ty as $codec:ty = $text:literal,
                keys $key:literal $(| $kalias:literal)*,
                expects $expected:literal,
                means $meaning:literal;
            )*
        },)?
        routing: |$disks:ident, $seed:ident| $routing:expr $(,)?
    })) => {
        policy_table!(@emit $mode $name, Array, $summary, $paper, [
            $($(($key, $text, $meaning))*)?
            ("queue", $qtext, $qmeaning)
            ("modified", $mtext, $mmeaning)
        ])
    };
    (@info $mode:ident [$($family:tt)*] (queue_sets $name:literal {
        summary: $summary:literal,
        paper: $paper:literal,
        parameters: {
            $(
                $(#[$pa:meta])*
                $field:ident: $fty:ty as $codec:ty = $text:literal,
                keys $key:literal $(| $kalias:literal)*,
                expects $expected:literal,
                means $meaning:literal;
            )*
        },
        variant: $variant:ty,
        build: |$storage:ident, $queue:ident, $queues:ident| $build:expr $(,)?
    })) => {
        policy_table!(@emit $mode $name, Array, $summary, $paper,
            [$(($key, $text, $meaning))*])
    };

    (@emit info $name:literal, $kind:ident, $summary:literal, $paper:literal,
        [$(($key:literal, $text:literal, $meaning:literal))*]) => {
        PolicyInfo {
            name: $name,
            kind: PolicyKind::$kind,
            summary: $summary,
            paper: $paper,
            parameters: &[$(Parameter { name: $key, default: $text, meaning: $meaning }),*],
        }
    };
    (@emit doc $name:literal, $kind:ident, $summary:literal, $paper:literal,
        [$(($key:literal, $text:literal, $meaning:literal))*]) => {
        concat!(
            "| `", $name, "` | ", policy_table!(@kind_word $kind), " | ",
            $("`", $key, "=", $text, "` ",)*
            "| ", $summary, " | ", $paper, " |\n"
        )
    };
    (@kind_word Disk) => { "disk" };
    (@kind_word RateBased) => { "rate-based" };
    (@kind_word Array) => { "array" };

    // ---- helpers ----
    (@or $x:literal $($rest:tt)*) => { $x };
    // Whether a row's `uses` list names `deadlines` / `cylinders` (any
    // other word stops the build: the struct has no such field).
    (@uses_deadlines) => { false };
    (@uses_deadlines deadlines $($rest:ident)*) => { true };
    (@uses_deadlines cylinders $($rest:ident)*) => { policy_table!(@uses_deadlines $($rest)*) };
    (@uses_cylinders) => { false };
    (@uses_cylinders cylinders $($rest:ident)*) => { true };
    (@uses_cylinders deadlines $($rest:ident)*) => { policy_table!(@uses_cylinders $($rest)*) };

    // ---- the table: its rows, sorted first (this arm comes last, so that
    // the `@` arms above are never taken for rows) ----
    ($($rows:tt)*) => {
        policy_table!(@sort [] [] [] [] [] [] [] [] $($rows)*);
    };
}
