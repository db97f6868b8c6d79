//! Policy descriptions: every name and spelling the grammar accepts, the
//! canonical text each prints (byte for byte what front ends write into
//! their outputs), typed errors, and the agreement of the registry with the
//! grammar: every listed default is the default, every description of any
//! kind parses and prints back to itself.

use sched_core::array::ArraySpec;
use sched_core::policy::{AperiodicReserve, WrrMode, WrrParams};
use sched_core::registry::{self, PolicyKind};
use sched_core::{AnySpec, AnySpecError, BuildError, ExpiredRule, PolicySpec, SpecError};

#[test]
fn parses_names_and_parameters() {
    assert_eq!("SSTF".parse::<PolicySpec>(), Ok(PolicySpec::Sstf));
    assert_eq!("c_look".parse::<PolicySpec>(), Ok(PolicySpec::CLook));
    assert_eq!(
        "ssedo:m=5,beta=1.5".parse::<PolicySpec>(),
        Ok(PolicySpec::Ssedo { m: 5, beta: 1.5 })
    );
    assert_eq!(
        "ssedv:alpha=0.25,unit=500us".parse::<PolicySpec>(),
        Ok(PolicySpec::Ssedv {
            alpha: 0.25,
            unit: 500_000
        })
    );
    assert_eq!(
        "fdscan:expired=drop".parse::<PolicySpec>(),
        Ok(PolicySpec::FdScan {
            expired: ExpiredRule::Drop
        })
    );
    assert_eq!(
        "satf".parse::<PolicySpec>(),
        Ok(PolicySpec::Sptf { window: None })
    );
}

#[test]
fn rejects_bad_descriptions_with_typed_errors() {
    assert_eq!(
        "elevator".parse::<PolicySpec>(),
        Err(SpecError::UnknownPolicy)
    );
    assert_eq!(
        "sstf:m=3".parse::<PolicySpec>(),
        Err(SpecError::UnknownParameter { policy: "sstf" })
    );
    assert!(matches!(
        "ssedo:m=0".parse::<PolicySpec>(),
        Err(SpecError::Invalid(BuildError::InvalidParameter {
            name: "m",
            ..
        }))
    ));
    assert!(matches!(
        "ssedo:beta=0.5".parse::<PolicySpec>(),
        Err(SpecError::Invalid(BuildError::InvalidParameter {
            name: "beta",
            ..
        }))
    ));
    assert!(matches!(
        "ssedv:alpha=1.5".parse::<PolicySpec>(),
        Err(SpecError::Invalid(BuildError::InvalidParameter {
            name: "alpha",
            ..
        }))
    ));
    assert!(matches!(
        "scan-edf:granularity=soon".parse::<PolicySpec>(),
        Err(SpecError::BadValue {
            parameter: "granularity",
            ..
        })
    ));
}

#[test]
fn display_round_trips() {
    for spec in PolicySpec::DEFAULTS {
        let text = spec.to_string();
        assert_eq!(text.parse::<PolicySpec>(), Ok(spec), "{text}");
    }
}

/// Descriptions and the canonical text they print, as the grammar printed
/// them before it was generated from the policy table.
const CANONICAL: &[(&str, &str)] = &[
    ("fcfs", "fcfs"),
    ("sstf", "sstf"),
    ("scan", "scan"),
    ("look", "look"),
    ("c-scan", "c-scan"),
    ("c-look", "c-look"),
    ("vscan", "vscan:r=0.2"),
    ("edf", "edf"),
    ("ssedo", "ssedo:m=3,beta=2"),
    ("ssedv", "ssedv:alpha=0.5,unit=1000000ns"),
    ("scan-edf", "scan-edf:granularity=1ns"),
    ("fd-scan", "fd-scan:expired=keep"),
    ("sptf", "sptf:window=all"),
    ("aged-sptf", "aged-sptf:weight=0.01,window=all"),
    ("ssedo:window=5,beta=1.5", "ssedo:m=5,beta=1.5"),
    ("vscan:R=0.3", "vscan:r=0.3"),
    ("scan-edf:g=10ms", "scan-edf:granularity=10000000ns"),
    ("sptf:window=32", "sptf:window=32"),
    ("aged-sptf:window=4,weight=0", "aged-sptf:weight=0,window=4"),
    ("fd-scan:expired=drop", "fd-scan:expired=drop"),
    ("ssedv:unit=2.5us", "ssedv:alpha=0.5,unit=2500ns"),
    ("satf:window=all", "sptf:window=all"),
    ("c_look", "c-look"),
    ("SSEDV:alpha=1", "ssedv:alpha=1,unit=1000000ns"),
    ("s-pssq", "s-pssq"),
    ("c-pssq", "c-pssq"),
    ("cr-esq", "cr-esq"),
    ("cru-esq", "cru-esq"),
    ("mr-esq", "mr-esq"),
    ("r-dmq", "r-dmq:alpha=0.5,queue=fcfs,modified=false"),
    ("sq-dmq", "sq-dmq:queue=fcfs,modified=false"),
    ("mr-dmq", "mr-dmq:queue=fcfs,modified=false"),
    (
        "mr-dmqa",
        "mr-dmqa:abort=complete,queue=fcfs,modified=false",
    ),
    (
        "md-raid1",
        "md-raid1:rotational=true,queue=fcfs,modified=false",
    ),
    ("ivy-dmq", "ivy-dmq:reorder=true,queue=fcfs,modified=false"),
    (
        "ivy-dmq:queue=c-look,reorder=false",
        "ivy-dmq:reorder=false,queue=c-look,modified=false",
    ),
    (
        "md-raid1:rotational=no",
        "md-raid1:rotational=false,queue=fcfs,modified=false",
    ),
    ("cmq", "cmq:common=fcfs,aux=fcfs"),
    ("dmq", "sq-dmq:queue=sstf,modified=true"),
    ("dmq-rd", "r-dmq:alpha=0.5,queue=sstf,modified=true"),
    ("dmq-sq", "sq-dmq:queue=sstf,modified=true"),
    ("dmq-mr", "mr-dmqa:abort=start,queue=sstf,modified=true"),
    ("rt-dmq", "sq-dmq:queue=ssedo(m=3,beta=2),modified=true"),
    (
        "rt-dmq-rd",
        "r-dmq:alpha=0.5,queue=ssedo(m=3,beta=2),modified=true",
    ),
    ("rt-dmq-sq", "sq-dmq:queue=ssedo(m=3,beta=2),modified=true"),
    (
        "rt-dmq-mr",
        "mr-dmqa:abort=start,queue=ssedo(m=3,beta=2),modified=true",
    ),
    ("fd-dmq", "sq-dmq:queue=fd-scan(expired=keep),modified=true"),
    ("cmq-sstf", "cmq:common=sstf,aux=sstf"),
    ("rt-cmq", "cmq:common=ssedo(m=3,beta=2),aux=sstf"),
    ("rt-cmq-f", "cmq:common=ssedo(m=3,beta=2),aux=fcfs"),
    ("rt-cmq-s", "cmq:common=ssedo(m=3,beta=2),aux=sstf"),
    (
        "rt-cmq-w",
        "cmq:common=ssedo(m=3,beta=2),aux=ssedo(m=3,beta=2)",
    ),
    (
        "r-dmq:alpha=0.25,queue=look",
        "r-dmq:alpha=0.25,queue=look,modified=false",
    ),
    ("rt-dmq:queue=sstf", "sq-dmq:queue=sstf,modified=true"),
    (
        "cmq:common=ssedo(m=4,beta=3),aux=sstf",
        "cmq:common=ssedo(m=4,beta=3),aux=sstf",
    ),
    (
        "mr-dmqa:abort=completion",
        "mr-dmqa:abort=complete,queue=fcfs,modified=false",
    ),
    (
        "dmq-mr:abort=complete",
        "mr-dmqa:abort=complete,queue=sstf,modified=true",
    ),
    ("RT-CMQ:aux=edf", "cmq:common=ssedo(m=3,beta=2),aux=edf"),
    (
        "sq-dmq:queue=ssedo:m=4",
        "sq-dmq:queue=ssedo(m=4,beta=2),modified=false",
    ),
];

#[test]
fn canonical_texts_are_unchanged() {
    for &(given, canonical) in CANONICAL {
        let text = match given.parse::<PolicySpec>() {
            Ok(spec) => spec.to_string(),
            Err(_) => given.parse::<ArraySpec>().unwrap().to_string(),
        };
        assert_eq!(text, canonical, "{given}");
        assert_eq!(
            given.parse::<AnySpec>().unwrap().to_string(),
            canonical,
            "{given}"
        );
    }
}

#[test]
fn any_description_parses_with_one_look_up_and_prints_back() {
    for info in registry::POLICIES {
        let spec: AnySpec = info.name.parse().unwrap();
        assert_eq!(spec.kind(), info.kind, "{}", info.name);
        let text = spec.to_string();
        assert_eq!(
            text.parse::<AnySpec>(),
            Ok(spec),
            "{} printed as {text}",
            info.name
        );
        // A composition's entry is its base policy's.
        assert_eq!(
            spec.info().map(|i| i.kind),
            Some(info.kind),
            "{}",
            info.name
        );
    }
    let wrr: AnySpec = "WRR_scan:mode=c,blocks=3".parse().unwrap();
    assert_eq!(wrr.kind(), PolicyKind::RateBased);
    assert_eq!(wrr.to_string(), "wrr-scan:mode=c,blocks=3");
    assert_eq!(
        wrr,
        AnySpec::RateBased("wrr-scan:mode=c,blocks=3".parse::<WrrParams>().unwrap())
    );
    assert_eq!(
        "wrr-scan".parse::<AnySpec>().unwrap().to_string(),
        "wrr-scan:mode=ca,share=0.005"
    );
    assert_eq!("raid5".parse::<AnySpec>(), Err(AnySpecError::UnknownPolicy));
    assert_eq!(
        "sstf:m=3".parse::<AnySpec>(),
        Err(AnySpecError::Disk(SpecError::UnknownParameter {
            policy: "sstf"
        }))
    );
    assert!(matches!(
        "wrr-scan:share=2".parse::<AnySpec>(),
        Err(AnySpecError::RateBased(SpecError::BadValue {
            parameter: "share",
            ..
        }))
    ));
    assert!(matches!(
        "dmq:modified=maybe".parse::<AnySpec>(),
        Err(AnySpecError::Array(_))
    ));
    // The two name sets are disjoint, so either grammar alone agrees.
    assert_eq!(
        "rt-dmq".parse::<AnySpec>(),
        Ok(AnySpec::Array("rt-dmq".parse().unwrap()))
    );
    assert_eq!(
        "ssedo".parse::<AnySpec>(),
        Ok(AnySpec::Disk("ssedo".parse().unwrap()))
    );
}

/// Every default the registry lists is the one a description gets when it
/// leaves the parameter out, for every policy and every named composition.
#[test]
fn every_listed_default_is_the_default() {
    for info in registry::POLICIES {
        let bare: AnySpec = info.name.parse().unwrap();
        for p in info.parameters {
            let text = format!("{}:{}={}", info.name, p.name, p.default);
            assert_eq!(text.parse::<AnySpec>(), Ok(bare), "{text}");
        }
    }
    for (i, spec) in PolicySpec::DEFAULTS.iter().enumerate() {
        assert_eq!(PolicySpec::NAMES[i].parse::<PolicySpec>(), Ok(*spec));
    }
}

/// Each name of Chen & Towsley (and Linux's mirror) stands for its description, and lists its
/// base policy's parameters with the defaults the description sets.
#[test]
fn compositions_are_their_descriptions() {
    let compositions: Vec<_> = ArraySpec::NAMED
        .iter()
        .filter(|(name, definition)| name != definition)
        .collect();
    assert_eq!(compositions.len(), 15);
    for &&(name, definition) in &compositions {
        let spec: ArraySpec = definition.parse().unwrap();
        assert_eq!(name.parse::<ArraySpec>(), Ok(spec), "{name}");
        let listed: Vec<_> = registry::find(name)
            .unwrap()
            .parameters
            .iter()
            .map(|p| (p.name, p.default))
            .collect();
        let base: Vec<_> = registry::find(spec.base_name())
            .unwrap()
            .parameters
            .iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(
            listed.iter().map(|p| p.0).collect::<Vec<_>>(),
            base,
            "{name}"
        );
    }
    let dmq: Vec<_> = registry::find("rt-dmq-mr")
        .unwrap()
        .parameters
        .iter()
        .map(|p| (p.name, p.default))
        .collect();
    assert_eq!(
        dmq,
        [
            ("abort", "start"),
            ("queue", "ssedo(m=3,beta=2)"),
            ("modified", "true")
        ]
    );
    assert_eq!(ArraySpec::named().count(), ArraySpec::NAMED.len());
}

#[test]
fn the_registry_grammar_parses() {
    let p: WrrParams = "wrr-scan:mode=c,share=0.01".parse().unwrap();
    assert_eq!(p.mode, WrrMode::Contiguous);
    assert_eq!(p.aperiodic, AperiodicReserve::Share { ppm: 10_000 });
    let p: WrrParams = "WRR_SCAN:blocks=3".parse().unwrap();
    assert_eq!(
        (p.mode, p.aperiodic),
        (WrrMode::Aligned, AperiodicReserve::Blocks(3))
    );
    assert!("wrr-scan:mode=x".parse::<WrrParams>().is_err());
    assert!("wrr-scan:share=2".parse::<WrrParams>().is_err());
    assert!("wrr-scan:speed=1".parse::<WrrParams>().is_err());
    assert!("look".parse::<WrrParams>().is_err());
}

/// Descriptions that parse as numbers but mean nothing, or mean something
/// the writer probably did not, are refused.
#[test]
fn nonsense_parameters_are_refused() {
    for bad in [
        "ssedo:beta=inf",
        "ssedo:beta=NaN",
        "vscan:r=-inf",
        "ssedo:m=3,m=4",
        "ssedo:M=3,m=4",
        "ssedv:unit=1",
        "scan-edf:granularity=5",
    ] {
        assert!(bad.parse::<PolicySpec>().is_err(), "{bad} was accepted");
    }
    assert!("ssedv:unit=1ns".parse::<PolicySpec>().is_ok());
    let e = "ssedo:m=3,m=4"
        .parse::<PolicySpec>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("each parameter given once"), "{e}");
}

/// What each policy orders by besides arrival comes from its row of the
/// policy table; an array policy uses what its disciplines use.
#[test]
fn policies_say_what_they_order_by() {
    use sched_core::registry::Uses;
    let disk = |s: &str| s.parse::<PolicySpec>().unwrap().uses();
    let array = |s: &str| s.parse::<ArraySpec>().unwrap().uses();
    let deadlines_and_cylinders = Uses {
        deadlines: true,
        cylinders: true,
        positioning: false,
    };
    assert_eq!(disk("fcfs"), Uses::ARRIVAL_ORDER);
    assert_eq!(
        disk("sstf"),
        Uses {
            cylinders: true,
            ..Uses::ARRIVAL_ORDER
        }
    );
    assert_eq!(
        disk("edf"),
        Uses {
            deadlines: true,
            ..Uses::ARRIVAL_ORDER
        }
    );
    assert_eq!(disk("ssedo:m=4"), deadlines_and_cylinders);
    assert_eq!(disk("scan-edf"), deadlines_and_cylinders);
    assert!(disk("fd-scan").deadlines && disk("fd-scan").positioning);
    assert_eq!(
        disk("sptf"),
        Uses {
            positioning: true,
            ..Uses::ARRIVAL_ORDER
        }
    );
    for policy in PolicySpec::DEFAULTS {
        assert_eq!(policy.uses().positioning, policy.needs_estimator());
    }
    assert_eq!(array("rt-dmq"), deadlines_and_cylinders);
    assert_eq!(array("rt-cmq-f"), deadlines_and_cylinders);
    assert_eq!(array("dmq"), disk("sstf"));
    assert_eq!(array("s-pssq"), Uses::ARRIVAL_ORDER);
    assert_eq!(array("sq-dmq"), Uses::ARRIVAL_ORDER);
}
