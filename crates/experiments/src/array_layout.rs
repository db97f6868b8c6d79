//! Disk-array organisations over D disks and where each logical block lives
//! in them: a D-way stripe, RAID-10 and the eager-writing EW-Array of Zhang,
//! Yu, Krishnamurthy & Wang (FAST 2002).
//!
//! Every organisation is cut into **stripe groups**: the disks that may
//! hold one block's copies (one disk for a stripe, a mirrored pair for
//! RAID-10, the D_m replica disks for an EW-Array). Logical blocks (4 KB
//! each by default) go round-robin over the groups, a stripe unit of one
//! block: block b lives in group `b mod G` at local index `b div G`. Each
//! disk uses only the first `region` blocks of its capacity (its outer
//! tracks), which is how the organisations trade capacity for shorter
//! seeks.
//!
//! **EW-Array D_m × D_s × D_d.** D_m replicas of every block, on D_m
//! different disks; each replica stripes the database over W = ⌊D / D_m⌋
//! disks, so block b's replicas are on disks g, g + W, …, g + (D_m − 1)·W of
//! group g = b mod W. Each disk uses a region of ⌈S / D_s⌉ blocks for a
//! database of S blocks — with a database the size of one disk, the
//! paper's "1/D_s of the tracks" — of which it holds ⌈S / W⌉, so the
//! utilisation of the region is 1/D_d with the **effective dilution**
//! D_d = W / D_s. Fractional factors are realised this way: the paper's
//! 1 × 22 × 1.6 on 36 disks is W = 36, a region of S/22 blocks per disk,
//! and D_d = 36/22 = 1.64 (its product, 35.2, is the paper's rounding of
//! 36); 2 × 9 × 2 is W = 18 and D_d = 18/9 = 2 exactly. Disks beyond D_m·W
//! (when D_m does not divide D) are left out.
//!
//! **Stripe** (D-way): one copy, W = D, region ⌈S/D⌉, updated in place.
//! **RAID-10**: two copies on a mirrored pair at the same block, W = D/2,
//! region ⌈S/W⌉, updated in place; a write goes to both copies. Both are
//! EW-Arrays without dilution (D_d = 1): D × 1 and 2 × D/2 × 1 in the
//! paper's terms.
//!
//! **SR-Array D_s × D_r** (Yu, Gum, Chen, Wang, Krishnamurthy & Anderson,
//! OSDI 2000): the database striped over W = D_s · D_r disks, one copy per
//! disk, each block kept D_r times on its track, the copies spaced evenly
//! around it (a *rotational replica* every 1/D_r of a revolution); each disk
//! then holds S/W blocks in about S/D_s slots — 1/D_s of the cylinders of a
//! database the size of one disk. The replicas' places are fixed (updated
//! in place); which one serves a request is decided at dispatch (the
//! nearest, see [`crate::free_map::GroupSpace`]). A 36 × 1 SR-Array is the
//! 36-way stripe.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// How the disks of an array are organised.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Organisation {
    /// One copy of every block, striped over every disk, updated in place.
    Stripe,
    /// Two copies on a mirrored pair, striped over the pairs, updated in place.
    Raid10 {
        /// Whether the second copy of a write is propagated through the
        /// delayed-write buffer in the background (the paper's Figure 11:
        /// "we perform replica propagation in the background") rather than
        /// written at once in the foreground.
        background: bool,
    },
    /// Striping with rotational replication: `striping` × `replicas`.
    SrArray {
        /// D_s: each disk uses 1/D_s of the database's size.
        striping: u32,
        /// D_r: copies of every block on its track.
        replicas: u32,
    },
    /// The eager-writing array: `mirrors` × `striping` × `dilution`.
    EwArray {
        /// D_m: copies of every block, on different disks.
        mirrors: u32,
        /// D_s: the database is spread so that each disk uses a region of
        /// 1/D_s of the database's size.
        striping: f64,
        /// D_d: the region's size over the data it holds (1/utilisation).
        dilution: f64,
    },
}

/// Why an organisation cannot be built on an array.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LayoutError {
    /// The array has no disk.
    #[error("disks: an array needs at least one disk")]
    NoDisks,
    /// The array has more disks than an array policy can schedule.
    #[error("disks: {0} disks, at most 64")]
    TooManyDisks(u32),
    /// A factor is outside its domain.
    #[error("{parameter}: expected {expected}, got {value}")]
    Factor {
        /// The factor.
        parameter: &'static str,
        /// What it must satisfy.
        expected: &'static str,
        /// The value given.
        value: f64,
    },
    /// The product of the factors needs more disks than the array has.
    #[error("disks: {layout} needs {needed:.2} disks, the array has {disks}")]
    TooFewDisks {
        /// The organisation.
        layout: String,
        /// The product of its factors.
        needed: f64,
        /// The disks of the array.
        disks: u32,
    },
    /// The database does not fit the space the organisation uses on a disk.
    #[error(
        "database: {blocks} blocks need a region of {region} blocks on each disk, which holds {capacity}"
    )]
    DatabaseTooLarge {
        /// The database, in array blocks.
        blocks: u64,
        /// The region each disk would need.
        region: u64,
        /// The blocks one disk holds.
        capacity: u64,
    },
    /// An empty database.
    #[error("database: expected at least one block")]
    EmptyDatabase,
    /// A layout description that does not parse.
    #[error(
        "layout: expected stripe, raid10, raid10:foreground, sr:DSxDR (e.g. sr:6x6) or ew:DMxDSxDD (e.g. ew:2x9x2, ew:1x22x1.6), got `{0}`"
    )]
    Syntax(String),
}

impl fmt::Display for Organisation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Organisation::Stripe => f.write_str("stripe"),
            Organisation::Raid10 { background: true } => f.write_str("raid10"),
            Organisation::Raid10 { background: false } => f.write_str("raid10:foreground"),
            Organisation::SrArray { striping, replicas } => write!(f, "sr:{striping}x{replicas}"),
            Organisation::EwArray {
                mirrors,
                striping,
                dilution,
            } => write!(f, "ew:{mirrors}x{striping}x{dilution}"),
        }
    }
}

impl FromStr for Organisation {
    type Err = LayoutError;

    /// `stripe`, `raid10` (or `raid-10`, `raid10:background`),
    /// `raid10:foreground`, `sr:DSxDR`, `ew:DMxDSxDD`.
    fn from_str(s: &str) -> Result<Self, LayoutError> {
        let bad = || LayoutError::Syntax(s.to_string());
        let lower = s.trim().to_ascii_lowercase();
        let factors = |text: &str| -> Vec<String> {
            text.split(['x', '×'])
                .map(|f| f.trim().to_string())
                .collect()
        };
        match lower.as_str() {
            "stripe" => Ok(Organisation::Stripe),
            "raid10" | "raid-10" | "raid10:background" | "raid10:bg" => {
                Ok(Organisation::Raid10 { background: true })
            }
            "raid10:foreground" | "raid10:fg" => Ok(Organisation::Raid10 { background: false }),
            other => {
                let organisation = if let Some(rest) = other.strip_prefix("sr:") {
                    let [st, r] = &factors(rest)[..] else {
                        return Err(bad());
                    };
                    Organisation::SrArray {
                        striping: st.parse().map_err(|_| bad())?,
                        replicas: r.parse().map_err(|_| bad())?,
                    }
                } else {
                    let rest = other.strip_prefix("ew:").ok_or_else(bad)?;
                    let [m, st, d] = &factors(rest)[..] else {
                        return Err(bad());
                    };
                    Organisation::EwArray {
                        mirrors: m.parse().map_err(|_| bad())?,
                        striping: st.parse().map_err(|_| bad())?,
                        dilution: d.parse().map_err(|_| bad())?,
                    }
                };
                organisation.check_factors()?;
                Ok(organisation)
            }
        }
    }
}

impl Organisation {
    /// Checks the factors on their own (whatever the array): an SR-Array's
    /// D_s of at least 1 and D_r of 1 to [`MAX_ROTATIONAL`]; an EW-Array's
    /// D_m of 1 to [`MAX_ROTATIONAL`] (copies of a block are a mask of 8
    /// bits) and D_s, D_d finite and at least 1.
    ///
    /// # Errors
    /// [`LayoutError::Factor`] naming the factor.
    pub fn check_factors(&self) -> Result<(), LayoutError> {
        let whole = |parameter, value: u32, max: u32| {
            if (1..=max).contains(&value) {
                Ok(())
            } else {
                Err(LayoutError::Factor {
                    parameter,
                    expected: if max == MAX_ROTATIONAL {
                        "a whole number from 1 to 8 (copies of a block are a mask of 8 bits)"
                    } else {
                        "a whole number of at least 1"
                    },
                    value: f64::from(value),
                })
            }
        };
        match *self {
            Organisation::Stripe | Organisation::Raid10 { .. } => Ok(()),
            Organisation::SrArray { striping, replicas } => {
                whole("striping", striping, u32::MAX)?;
                whole("replicas", replicas, MAX_ROTATIONAL)
            }
            Organisation::EwArray {
                mirrors,
                striping,
                dilution,
            } => {
                whole("mirrors", mirrors, MAX_ROTATIONAL)?;
                at_least_one("striping", striping)?;
                at_least_one("dilution", dilution).map(|_| ())
            }
        }
    }
}

/// An organisation laid out on an array of disks for a database: how many
/// groups, which disks each holds, how much of each disk is used, and where
/// every block starts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Layout {
    /// The organisation.
    pub organisation: Organisation,
    /// Disks of the array.
    pub disks: u32,
    /// Database size, in array blocks.
    pub database: u64,
    /// Copies of every block on different disks (D_m; 2 for RAID-10).
    pub mirrors: u32,
    /// Copies of every block on its track (D_r of an SR-Array, else 1).
    pub rotational: u32,
    /// Stripe groups (W): disks each copy is striped over.
    pub groups: u32,
    /// Array blocks each disk uses, from its first block.
    pub region: u64,
    /// Blocks of data each disk holds (at most).
    pub per_disk: u64,
    /// Whether writes are placed eagerly (the region has free blocks).
    pub eager: bool,
    /// Whether copies beyond the first are propagated through the
    /// delayed-write buffer in the background (EW- and SR-Arrays, RAID-10
    /// as the paper ran it), or written at once in the foreground
    /// (`raid10:foreground`).
    pub background: bool,
    /// Whether the degree of replication is lowered under sustained
    /// overload (EW- and SR-Arrays, the two the paper names for it). A
    /// RAID-10 keeps both copies: a mirror that dropped one would no longer
    /// be one; when its buffer is full, its propagations go to the
    /// foreground instead.
    pub lowers_degree: bool,
}

/// Most rotational replicas of a block: copies of one block are a mask of
/// 8 bits ([`crate::replica_map::ReplicaSet`]).
pub const MAX_ROTATIONAL: u32 = 8;

/// A factor in `[1, ∞)`, finite.
fn at_least_one(parameter: &'static str, value: f64) -> Result<f64, LayoutError> {
    if value.is_finite() && value >= 1.0 {
        Ok(value)
    } else {
        Err(LayoutError::Factor {
            parameter,
            expected: "a finite factor of at least 1",
            value,
        })
    }
}

impl Layout {
    /// Lays `organisation` out on `disks` disks of `capacity` array blocks
    /// each, for a database of `database` blocks.
    ///
    /// # Errors
    /// [`LayoutError`] naming the parameter: no disk or more than 64, a
    /// factor below 1 (dilution < 1 among them), fewer disks than the
    /// product of the factors, an empty database, or one larger than the
    /// space the organisation uses on each disk.
    pub fn new(
        organisation: Organisation,
        disks: u32,
        capacity: u64,
        database: u64,
    ) -> Result<Self, LayoutError> {
        if disks == 0 {
            return Err(LayoutError::NoDisks);
        }
        if disks > 64 {
            return Err(LayoutError::TooManyDisks(disks));
        }
        if database == 0 {
            return Err(LayoutError::EmptyDatabase);
        }
        let too_few = |needed: f64| LayoutError::TooFewDisks {
            layout: organisation.to_string(),
            needed,
            disks,
        };
        let mut rotational = 1;
        let (mirrors, groups, region) = match organisation {
            Organisation::Stripe => (1, disks, database.div_ceil(u64::from(disks))),
            Organisation::Raid10 { .. } => {
                if disks < 2 {
                    return Err(too_few(2.0));
                }
                let groups = disks / 2;
                (2, groups, database.div_ceil(u64::from(groups)))
            }
            Organisation::SrArray { striping, replicas } => {
                organisation.check_factors()?;
                // The product in u64: two u32 factors cannot wrap it.
                let needed = u64::from(striping) * u64::from(replicas);
                if needed > u64::from(disks) {
                    return Err(too_few(needed as f64));
                }
                let groups = needed as u32;
                rotational = replicas;
                let per_disk = database.div_ceil(u64::from(groups));
                (1, groups, per_disk * u64::from(replicas))
            }
            Organisation::EwArray {
                mirrors,
                striping,
                dilution,
            } => {
                organisation.check_factors()?;
                let needed = f64::from(mirrors) * striping * dilution;
                // The paper rounds its factors (1 × 22 × 1.6 = 35.2 stands
                // for 36 disks): a product within 2 % of the disks fits.
                if needed > f64::from(disks) * 1.02 {
                    return Err(too_few(needed));
                }
                let groups = disks / mirrors;
                if f64::from(groups) < striping {
                    return Err(too_few(needed));
                }
                let region = (database as f64 / striping).ceil() as u64;
                (
                    mirrors,
                    groups,
                    region.max(database.div_ceil(u64::from(groups))),
                )
            }
        };
        if region > capacity {
            return Err(LayoutError::DatabaseTooLarge {
                blocks: database,
                region,
                capacity,
            });
        }
        let per_disk = database.div_ceil(u64::from(groups));
        Ok(Layout {
            organisation,
            disks,
            database,
            mirrors,
            rotational,
            groups,
            region,
            per_disk,
            eager: rotational == 1 && region > per_disk,
            background: organisation != Organisation::Raid10 { background: false },
            lowers_degree: matches!(
                organisation,
                Organisation::EwArray { .. } | Organisation::SrArray { .. }
            ),
        })
    }

    /// Copies of every block: on different disks and on one track.
    pub fn copies(&self) -> u32 {
        self.mirrors * self.rotational
    }

    /// The member disk of its group (0 to `mirrors` − 1) that holds copy
    /// `replica` of a block.
    #[inline]
    pub fn member(&self, replica: u32) -> u32 {
        replica / self.rotational
    }

    /// The effective dilution: region over data per disk.
    pub fn dilution(&self) -> f64 {
        self.region as f64 / self.per_disk as f64
    }

    /// The group of logical block `block`, and its index within the group.
    #[inline]
    pub fn locate(&self, block: u64) -> (u32, u64) {
        let g = u64::from(self.groups);
        ((block % g) as u32, block / g)
    }

    /// The disk holding copy `replica` of group `group`'s blocks.
    #[inline]
    pub fn disk(&self, group: u32, replica: u32) -> u32 {
        group + self.member(replica) * self.groups
    }

    /// Where the block at local index `local` starts before any write
    /// moves it (the first of its rotational replicas on an SR-Array, whose
    /// places come from [`crate::free_map::RotationalCopies`]): spread evenly
    /// over the region, so that an EW-Array's free blocks are spread evenly
    /// too (every other block at dilution 2).
    #[inline]
    pub fn initial_slot(&self, local: u64) -> u64 {
        ((u128::from(local) * u128::from(self.region)) / u128::from(self.per_disk)) as u64
    }

    /// Disks the organisation uses (`mirrors × groups`).
    #[inline]
    pub fn disks_used(&self) -> u32 {
        self.mirrors * self.groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ew(m: u32, s: f64, d: f64) -> Organisation {
        Organisation::EwArray {
            mirrors: m,
            striping: s,
            dilution: d,
        }
    }

    #[test]
    fn the_papers_configurations_on_36_disks() {
        let s = 36 * 22 * 9 * 100;
        let l = Layout::new(ew(2, 9.0, 2.0), 36, 1 << 30, s).unwrap();
        assert_eq!((l.groups, l.region, l.per_disk), (18, s / 9, s / 18));
        assert_eq!(l.dilution(), 2.0);
        assert_eq!((l.disk(3, 0), l.disk(3, 1)), (3, 21));
        let l = Layout::new(ew(1, 22.0, 1.6), 36, 1 << 30, s).unwrap();
        assert_eq!((l.groups, l.region), (36, s / 22));
        assert!((l.dilution() - 36.0 / 22.0).abs() < 1e-9);
        let l = Layout::new(Organisation::Raid10 { background: true }, 36, 1 << 30, s).unwrap();
        assert_eq!((l.groups, l.mirrors, l.eager), (18, 2, false));
        assert!(l.background && !l.lowers_degree);
        let l = Layout::new(Organisation::Raid10 { background: false }, 36, 1 << 30, s).unwrap();
        assert!(!l.background && !l.lowers_degree);
        let l = Layout::new(Organisation::Stripe, 36, 1 << 30, s).unwrap();
        assert_eq!((l.groups, l.region, l.eager), (36, s / 36, false));
        // Initial places are distinct and inside the region.
        let l = Layout::new(ew(2, 9.0, 2.0), 36, 1 << 30, 1000).unwrap();
        let slots: Vec<u64> = (0..l.per_disk).map(|i| l.initial_slot(i)).collect();
        assert!(slots.windows(2).all(|w| w[0] < w[1]));
        assert!(*slots.last().unwrap() < l.region);
    }

    fn sr(striping: u32, replicas: u32) -> Organisation {
        Organisation::SrArray { striping, replicas }
    }

    #[test]
    fn an_sr_array_stripes_over_every_disk_and_keeps_replicas_on_one() {
        let s = 36 * 6 * 100;
        let l = Layout::new(sr(6, 6), 36, 1 << 30, s).unwrap();
        assert_eq!(
            (l.groups, l.mirrors, l.rotational, l.copies()),
            (36, 1, 6, 6)
        );
        // 1/D_s of the database's size on each disk.
        assert_eq!(l.region, s / 6);
        assert!(!l.eager && l.background);
        assert_eq!((l.disk(5, 0), l.disk(5, 5)), (5, 5));
        let stripe = Layout::new(sr(36, 1), 36, 1 << 30, s).unwrap();
        let plain = Layout::new(Organisation::Stripe, 36, 1 << 30, s).unwrap();
        assert_eq!((stripe.groups, stripe.region), (plain.groups, plain.region));
    }

    #[test]
    fn configuration_errors_name_the_parameter() {
        let err = |o, disks, db| Layout::new(o, disks, 1000, db).unwrap_err().to_string();
        assert!(err(ew(2, 9.0, 2.0), 30, 100).starts_with("disks:"));
        assert!(err(ew(2, 9.0, 0.5), 36, 100).starts_with("dilution:"));
        assert!(err(ew(0, 9.0, 2.0), 36, 100).starts_with("mirrors:"));
        assert!(err(ew(1, 0.5, 2.0), 36, 100).starts_with("striping:"));
        assert!(err(Organisation::Stripe, 0, 100).starts_with("disks:"));
        assert!(err(Organisation::Stripe, 36, 0).starts_with("database:"));
        assert!(err(ew(2, 9.0, 2.0), 36, 9001).starts_with("database:"));
        assert!(err(Organisation::Raid10 { background: true }, 1, 10).starts_with("disks:"));
        assert!("ew:2x9".parse::<Organisation>().is_err());
        assert!(err(sr(7, 6), 36, 100).starts_with("disks:"));
        assert!(err(sr(6, 0), 36, 100).starts_with("replicas:"));
        assert!(err(sr(0, 6), 36, 100).starts_with("striping:"));
        // A product that wraps u32 (2³¹ × 2 = 2³²) is too many disks, not 0.
        assert!(err(sr(1 << 31, 2), 36, 100).starts_with("disks:"));
        assert!(err(ew(36, 1.0, 1.0), 36, 100).starts_with("mirrors:"));
        // The factors are checked as the layout is read, whatever the array.
        let syntax = |t: &str| t.parse::<Organisation>().unwrap_err().to_string();
        assert!(syntax("ew:36x1x1").starts_with("mirrors:"));
        assert!(syntax("ew:2xNaNx2").starts_with("striping:"));
        assert!(syntax("ew:2x9xinf").starts_with("dilution:"));
        assert!(syntax("sr:6x9").starts_with("replicas:"));
        assert_eq!("SR:6x6".parse::<Organisation>().unwrap(), sr(6, 6));
        assert!("sr:6".parse::<Organisation>().is_err());
        assert_eq!("EW:2x9x2".parse::<Organisation>().unwrap(), ew(2, 9.0, 2.0));
        for (text, background) in [("raid10", true), ("raid10:foreground", false)] {
            let o = text.parse::<Organisation>().unwrap();
            assert_eq!(o, Organisation::Raid10 { background });
            assert_eq!(o.to_string(), text);
        }
    }
}
