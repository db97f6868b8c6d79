//! DiskSim's `layout_g1` sparing arithmetic: which sector positions of a
//! zone hold blocks, which are spare, slipped or remapped, and how slips
//! turn the skew of later tracks.
//!
//! Positions are counted from 0 over the zone in block order (cylinder by
//! cylinder, track by track in the surface order, slot by slot from each
//! track's first), as [`ZoneLayout`](crate::disk::ZoneLayout) counts them.
//! DiskSim first skips the zone's `Empty space at zone front` in block
//! numbers (its `lbn += deadspace`), so the management area is the first
//! positions that would otherwise hold blocks; then each scheme places
//! blocks as follows (from DiskSim 4.0's `layout_g1.c`, `ltop` direction):
//!
//! | scheme | spare space | a slipped position |
//! |---|---|---|
//! | 0 none | none | ignored (DiskSim ignores slips and defects without sparing) |
//! | 1 tracks per zone | `spares` whole tracks at the zone's end | a whole track (slips count tracks); later tracks move on one |
//! | 2 sectors per cylinder | the last `spares` positions of each cylinder | the cylinder's later blocks move on one, into its spares |
//! | 3 sectors per track | the last `spares` positions of each track | the track's later blocks move on one, into its spares |
//! | 4 per cylinder, slip to end | as 2 | every later block of the zone moves on one (past the spare areas); the zone holds one block less |
//! | 5 per cylinder at front | the first `spares` positions of each cylinder | the cylinder's earlier blocks move back one, into its spares |
//! | 6 at front, slip to end | as 5 | as 4 |
//! | 7 at the end of the disk | none in the zone (but `spares` per cylinder as 2 when given) | as 4 |
//! | 8 sectors per range | the last `spares` positions of each full range of `Rangesize for sparing` cylinders | the range's later blocks move on one |
//! | 9 sectors per zone | the zone's last `spares` positions | the zone's later blocks move on one |
//! | 10 per zone, slip to end | as 9 | as 9; the zone holds one block less |
//!
//! Under schemes 2 to 6 every slip also turns the first slot of every track
//! of later cylinders (scheme 3: later tracks) one sector on, as DiskSim's
//! `g1_map_pbn_skew` does. A defect `[defect, spare]` moves the block whose
//! position is `defect` to `spare` (scheme 1: whole tracks; scheme 8: the
//! spare counted within the defect's range, as DiskSim reduces it).
//!
//! Where DiskSim's own arithmetic is inconsistent this follows its
//! documented intent: its `ltop` for schemes 5 and 6 ignores that the
//! spares are at the front (its `ptol` does not), and under schemes 2, 4
//! and 8 a block pushed past its cylinder's (range's) last slot lands on
//! the next one's first block; here it takes the first spare instead, so
//! that the map stays one to one. Without sparing DiskSim 4.0's `ltop`
//! does not set the track (a bug); here blocks fill the zone in order.

/// A `Sparing scheme used` (with its `Rangesize for sparing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sparing {
    /// 0.
    None,
    /// 1: spare tracks at the end of each zone; slips are tracks.
    Tracks,
    /// 2, 4, 5, 6: spare sectors at the end (or front) of each cylinder;
    /// slips shift the cylinder's blocks (or every later block).
    PerCylinder { front: bool, slip_to_end: bool },
    /// 3: spare sectors at the end of each track.
    PerTrack,
    /// 7: spares at the end of the disk; slips shift every later block.
    AtEnd,
    /// 8: spare sectors at the end of each range of `cylinders` cylinders.
    PerRange { cylinders: u32 },
    /// 9, 10: spare sectors at the end of each zone.
    PerZone { slip_to_end: bool },
}

impl Sparing {
    /// The scheme DiskSim numbers `scheme`, its ranges `range` cylinders
    /// long; `None` for a number DiskSim does not define.
    pub(crate) fn from_disksim(scheme: u64, range: u32) -> Option<Sparing> {
        Some(match scheme {
            0 => Sparing::None,
            1 => Sparing::Tracks,
            2 => Sparing::PerCylinder {
                front: false,
                slip_to_end: false,
            },
            3 => Sparing::PerTrack,
            4 => Sparing::PerCylinder {
                front: false,
                slip_to_end: true,
            },
            5 => Sparing::PerCylinder {
                front: true,
                slip_to_end: false,
            },
            6 => Sparing::PerCylinder {
                front: true,
                slip_to_end: true,
            },
            7 => Sparing::AtEnd,
            8 => Sparing::PerRange {
                cylinders: range.max(1),
            },
            9 => Sparing::PerZone { slip_to_end: false },
            10 => Sparing::PerZone { slip_to_end: true },
            _ => return None,
        })
    }

    /// Whether slips count whole tracks.
    pub(crate) fn slips_tracks(self) -> bool {
        self == Sparing::Tracks
    }
}

/// The size of a zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) cylinders: u32,
    pub(crate) surfaces: u32,
    pub(crate) sectors_per_track: u32,
}

impl Shape {
    fn track(&self) -> u64 {
        u64::from(self.sectors_per_track)
    }

    fn cylinder(&self) -> u64 {
        self.track() * u64::from(self.surfaces)
    }

    /// Sector positions in the zone.
    pub(crate) fn positions(&self) -> u64 {
        self.cylinder() * u64::from(self.cylinders)
    }
}

/// A zone's sparing parameters as DiskSim reads them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ZoneSpares {
    /// `Empty space at zone front`, in blocks.
    pub(crate) dead: u64,
    /// `Number of spares` (tracks for scheme 1, sectors otherwise).
    pub(crate) spares: u64,
    /// `slips`: positions (tracks for scheme 1), each below the zone's.
    pub(crate) slips: Vec<u64>,
    /// `defects`: (defect, spare) pairs (tracks for scheme 1).
    pub(crate) defects: Vec<(u64, u64)>,
}

/// Where a zone's blocks lie.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ZoneMap {
    /// Merged runs `(first, count)` of positions that hold no block before
    /// the last block.
    pub(crate) unused: Vec<(u64, u64)>,
    /// Blocks in the zone.
    pub(crate) blocks: u64,
    /// Positions that are neither unused nor past the last block (what the
    /// zone could hold).
    pub(crate) usable: u64,
    /// Tracks from which each slip turns the skew one sector on.
    pub(crate) skew_slips: Vec<u64>,
    /// Remapped defects, (defect position, spare position).
    pub(crate) remapped: Vec<(u64, u64)>,
}

/// Sorts runs `(first, count)` and merges those that overlap or touch.
pub(crate) fn merge(mut runs: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    runs.retain(|r| r.1 > 0);
    runs.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
    for (start, len) in runs {
        match merged.last_mut() {
            Some((s, l)) if start <= *s + *l => *l = (*l).max(start + len - *s),
            _ => merged.push((start, len)),
        }
    }
    merged
}

/// Slipped positions in `[from, to)` of the sorted `slips`.
fn slips_in(slips: &[u64], from: u64, to: u64) -> usize {
    slips.partition_point(|&s| s < to) - slips.partition_point(|&s| s < from)
}

/// The end of the first `n` positions of `[from, to)` that are not slipped,
/// at most `to`.
fn after_unslipped(slips: &[u64], from: u64, to: u64, n: u64) -> u64 {
    let mut end = from + n;
    loop {
        let e = (from + n + slips_in(slips, from, end.min(to)) as u64).min(to);
        if e == end.min(to) {
            return e;
        }
        end = e;
    }
}

/// The start of the last `n` positions of `[from, to)` that are not
/// slipped, at least `from`.
fn before_unslipped(slips: &[u64], from: u64, to: u64, n: u64) -> u64 {
    let mut start = to.saturating_sub(n).max(from);
    loop {
        let s = to
            .saturating_sub(n + slips_in(slips, start, to) as u64)
            .max(from);
        if s == start {
            return s;
        }
        start = s;
    }
}

/// Where the blocks of a zone of `shape` lie under `sparing`.
///
/// # Errors
/// A message naming the parameter at fault (`slips`, `defects`) for a slip
/// outside the zone or a defect that cannot be remapped.
pub(crate) fn lay_out(
    sparing: Sparing,
    shape: Shape,
    zone: &ZoneSpares,
) -> Result<ZoneMap, (&'static str, String)> {
    let positions = shape.positions();
    let (track, cylinder) = (shape.track(), shape.cylinder());
    let unit = if sparing.slips_tracks() { track } else { 1 };
    let limit = positions / unit;
    for &slip in &zone.slips {
        if slip >= limit {
            let what = if unit == 1 { "sector" } else { "track" };
            return Err((
                "slips",
                format!("{slip} is past the zone's last {what} ({})", limit - 1),
            ));
        }
    }
    // Slipped positions, sorted; DiskSim ignores slips without sparing.
    let mut slips: Vec<u64> = match sparing {
        Sparing::None => Vec::new(),
        _ => zone
            .slips
            .iter()
            .flat_map(|&s| s * unit..(s + 1) * unit)
            .collect(),
    };
    slips.sort_unstable();
    slips.dedup();
    let cylinders = u64::from(shape.cylinders);
    let tracks = cylinders * u64::from(shape.surfaces);
    let nslips = zone.slips.len() as u64;

    // Regions [from, to) with the blocks each holds; `within` when slips
    // stay inside their region (they use its spares), otherwise every later
    // block of the zone moves on.
    let regions = |size: u64, spare: u64| -> Vec<(u64, u64, u64)> {
        (0..positions.div_ceil(size))
            .map(|i| {
                let to = ((i + 1) * size).min(positions);
                let from = i * size;
                // A partial last region has no spares.
                let held = if to - from == size {
                    size.saturating_sub(spare)
                } else {
                    to - from
                };
                (from, to, held)
            })
            .collect()
    };
    let (holes, capacity): (Vec<(u64, u64)>, u64) = match sparing {
        Sparing::None => (Vec::new(), positions),
        Sparing::Tracks => (
            slips.iter().map(|&s| (s, 1)).collect(),
            positions.saturating_sub(zone.spares.saturating_mul(track)),
        ),
        Sparing::PerZone { slip_to_end } => (
            slips.iter().map(|&s| (s, 1)).collect(),
            positions
                .saturating_sub(zone.spares)
                .saturating_sub(if slip_to_end { nslips } else { 0 }),
        ),
        Sparing::AtEnd | Sparing::PerCylinder { .. } => {
            let (front, slip_to_end) = match sparing {
                Sparing::PerCylinder { front, slip_to_end } => (front, slip_to_end),
                _ => (false, true),
            };
            let spare = zone.spares.min(cylinder);
            let mut holes: Vec<(u64, u64)> = slips.iter().map(|&s| (s, 1)).collect();
            for c in 0..cylinders {
                let (from, to) = (c * cylinder, (c + 1) * cylinder);
                let held = cylinder - spare;
                match (front, slip_to_end) {
                    (false, true) => holes.push((to - spare, spare)),
                    (true, true) => holes.push((from, spare)),
                    (false, false) => {
                        let end = after_unslipped(&slips, from, to, held);
                        holes.push((end, to - end));
                    }
                    (true, false) => {
                        let start = before_unslipped(&slips, from, to, held);
                        holes.push((from, start - from));
                    }
                }
            }
            let lost = if slip_to_end { nslips } else { 0 };
            let capacity = match sparing {
                // DiskSim's block count for scheme 7 ignores per-cylinder
                // spares; the spares it maps around still hold no block.
                Sparing::AtEnd => positions.saturating_sub(nslips),
                _ => (positions - spare * cylinders).saturating_sub(lost),
            };
            (holes, capacity)
        }
        Sparing::PerTrack | Sparing::PerRange { .. } => {
            let (size, spare) = match sparing {
                Sparing::PerRange { cylinders } => (cylinder * u64::from(cylinders), zone.spares),
                _ => (track, zone.spares.min(track)),
            };
            let mut holes: Vec<(u64, u64)> = slips.iter().map(|&s| (s, 1)).collect();
            let mut capacity = 0;
            for (from, to, held) in regions(size, spare) {
                let end = after_unslipped(&slips, from, to, held);
                holes.push((end, to - end));
                capacity += held;
            }
            (holes, capacity)
        }
    };
    let mut unused = merge(holes);
    // The management area: the first `dead` positions that would hold
    // blocks.
    let front = nth_usable(&unused, zone.dead.min(positions), positions);
    unused.push((0, front));
    let unused = merge(unused);
    let covered: u64 = unused.iter().map(|r| r.1).sum();
    let usable = positions - covered;
    let blocks = capacity.saturating_sub(zone.dead).min(usable);

    let skew_slips = match sparing {
        Sparing::PerCylinder { .. } => zone
            .slips
            .iter()
            .map(|&s| (s / cylinder + 1) * u64::from(shape.surfaces))
            .collect(),
        Sparing::PerTrack => zone.slips.iter().map(|&s| s / track + 1).collect(),
        _ => Vec::new(),
    };
    let skew_slips: Vec<u64> = skew_slips.into_iter().filter(|&t| t < tracks).collect();

    let holds_block = |p: u64| -> bool {
        let i = unused.partition_point(|r| r.0 <= p);
        let in_hole = i > 0 && p < unused[i - 1].0 + unused[i - 1].1;
        !in_hole && p - covered_before(&unused, p) < blocks
    };
    let mut remapped = Vec::new();
    if sparing != Sparing::None {
        for &(defect, spare) in &zone.defects {
            let pairs: Vec<(u64, u64)> = match sparing {
                Sparing::Tracks => {
                    if defect >= tracks || spare >= tracks {
                        return Err((
                            "defects",
                            format!(
                                "[{defect}, {spare}] names a track past the zone's last ({})",
                                tracks - 1
                            ),
                        ));
                    }
                    (0..track)
                        .map(|s| (defect * track + s, spare * track + s))
                        .collect()
                }
                Sparing::PerRange { cylinders } => {
                    let size = cylinder * u64::from(cylinders);
                    vec![(defect, defect / size * size + spare % size)]
                }
                _ => vec![(defect, spare)],
            };
            for (d, s) in pairs {
                if d == s {
                    continue;
                }
                if d >= positions || s >= positions {
                    return Err((
                        "defects",
                        format!("[{defect}, {spare}] lies past the zone's {positions} positions"),
                    ));
                }
                // DiskSim remaps a defect only where a block would lie.
                if !holds_block(d) {
                    continue;
                }
                if slips.binary_search(&s).is_ok() {
                    return Err((
                        "defects",
                        format!("[{defect}, {spare}]: the spare is a slipped (defective) sector"),
                    ));
                }
                if holds_block(s) {
                    return Err((
                        "defects",
                        format!(
                            "[{defect}, {spare}]: the spare already holds a block, so two blocks would share it"
                        ),
                    ));
                }
                remapped.push((d, s));
            }
        }
        remapped.sort_unstable();
        if remapped.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(("defects", "a defect is listed twice".into()));
        }
        let mut spares: Vec<u64> = remapped.iter().map(|r| r.1).collect();
        spares.sort_unstable();
        if spares.windows(2).any(|w| w[0] == w[1]) {
            return Err((
                "defects",
                "two defects are remapped to the same spare".into(),
            ));
        }
    }
    Ok(ZoneMap {
        unused,
        blocks,
        usable,
        skew_slips,
        remapped,
    })
}

/// Positions the sorted, merged runs cover before position `p`.
fn covered_before(runs: &[(u64, u64)], p: u64) -> u64 {
    runs.iter()
        .take_while(|r| r.0 < p)
        .map(|r| r.1.min(p - r.0))
        .sum()
}

/// The position before which `n` positions are not covered by the sorted,
/// merged runs (at most `positions`).
fn nth_usable(runs: &[(u64, u64)], n: u64, positions: u64) -> u64 {
    let mut at = 0;
    let mut left = n;
    for &(start, len) in runs {
        if start >= at + left {
            break;
        }
        left -= start.saturating_sub(at);
        at = at.max(start + len);
    }
    (at + left).min(positions)
}

#[cfg(test)]
mod tests;
