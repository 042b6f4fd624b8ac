//! Leaf split and spine count: which downlink : uplink ratios a k-port leaf realises, which of
//! them an oversubscribed fabric builds, and how many spines the uplinks need (docs/sizing.md
//! "Oversubscription").

/// How a leaf's ports are split between nodes and spines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeafSplit {
    /// Node-facing ports d.
    pub downlinks: u64,
    /// Spine-facing ports u (d + u ≤ k; the rest stay unused).
    pub uplinks: u64,
    /// True when d : u equals the asked ratio exactly.
    pub exact: bool,
}

impl LeafSplit {
    /// The ratio the split realises, d / u (1 with no uplinks).
    pub fn realised(&self) -> f64 {
        if self.uplinks == 0 {
            1.0
        } else {
            self.downlinks as f64 / self.uplinks as f64
        }
    }
}

/// Tolerance for "o·u is a whole number" (requests carry at most a few decimals).
const EPS: f64 = 1e-6;

/// The leaf split for asked ratio `o` (≥ 1) on a `k`-port leaf:
/// 1. u = ⌈k/(1+o)⌉, d = k − u when d/u = o exactly (1:1 ⇒ k/2 : k/2; 3:1 on 64 ⇒ 48 : 16);
/// 2. else the largest u ≤ ⌊k/(1+o)⌋ with o·u whole and o·u ≥ ⌊k/2⌋: d = o·u, k − d − u
///    ports unused (2:1 on 128 ⇒ 84 : 42, two ports unused) — the ratio is met exactly. A split
///    with fewer downlinks than a non-blocking leaf is not used (6:5 on 64 would be 30 : 25:
///    fewer node ports than 32 : 32 and less uplink bandwidth, more leaves and switches than 1:1);
/// 3. else the nearest realisable ratio *below* the asked one, d = k − ⌈k/(1+o)⌉ ≥ ⌊k/2⌋ (never
///    more oversubscribed than asked; 6:5 on 64 ⇒ 34 : 30), with `exact = false` so the plan
///    warns naming both.
pub fn leaf_split(k: u64, o: f64) -> LeafSplit {
    let kf = k as f64;
    let u0 = ((kf / (1.0 + o)) - 1e-9).ceil().max(0.0) as u64;
    let u0 = u0.min(k);
    let d0 = k.saturating_sub(u0);
    if u0 > 0 && (d0 as f64 - o * u0 as f64).abs() < EPS {
        return LeafSplit {
            downlinks: d0,
            uplinks: u0,
            exact: true,
        };
    }
    let mut u = ((kf / (1.0 + o)) + 1e-9).floor().max(0.0) as u64;
    // d = o·u falls with u: stop below a non-blocking leaf's ⌊k/2⌋ downlinks.
    let least = (k / 2) as f64;
    while u > 0 && o * u as f64 + EPS >= least {
        let d = o * u as f64;
        if (d - d.round()).abs() < EPS {
            let d = d.round() as u64;
            if d.checked_add(u).is_some_and(|s| s <= k) && d > 0 {
                return LeafSplit {
                    downlinks: d,
                    uplinks: u,
                    exact: true,
                };
            }
        }
        u = u.saturating_sub(1);
    }
    LeafSplit {
        downlinks: d0,
        uplinks: u0,
        exact: false,
    }
}

/// The splits an oversubscribed fabric chooses among, fullest first: [`leaf_split`] (the most
/// downlinks, at least ⌊k/2⌋), then, when it is exact and d > u, every other exact split
/// d = o·u with fewer uplinks, down to u = 1 (2:1 on 64 ports: 42:21, 40:20, …, 2:1). d falls with u, so a design
/// whose leaf count grows as d falls can stop at the first split needing more leaves than
/// 1:1. An inexact ratio and 1:1 have one split (a non-blocking leaf stays k/2 : k/2, [RA]).
/// At most ⌊k/2⌋ splits.
pub fn exact_splits(k: u64, o: f64) -> impl Iterator<Item = LeafSplit> {
    let fullest = leaf_split(k, o);
    let below = if fullest.exact && fullest.downlinks > fullest.uplinks {
        fullest.uplinks
    } else {
        1
    };
    let rest = (1..below).rev().filter_map(move |u| {
        let d = o * u as f64;
        ((d - d.round()).abs() < EPS && d >= 1.0).then(|| LeafSplit {
            downlinks: d.round() as u64,
            uplinks: u,
            exact: true,
        })
    });
    std::iter::once(fullest).chain(rest)
}

/// What a sized candidate split costs, compared in this order: fewest switches (leaves +
/// spines + core), then fewest leaf–spine links (each one two optics and a fibre), then the
/// most downlinks per leaf (room to grow). Ordering by this key is the documented tie-break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SplitCost {
    pub switches: u64,
    pub leaf_spine_links: u64,
    pub fewer_downlinks: std::cmp::Reverse<u64>,
}

impl SplitCost {
    pub fn new(switches: u64, leaf_spine_links: u64, downlinks: u64) -> SplitCost {
        SplitCost {
            switches,
            leaf_spine_links,
            fewer_downlinks: std::cmp::Reverse(downlinks),
        }
    }
}

/// Smallest S ≥ `at_least` with S dividing `u` (each leaf then has u/S links to every spine).
/// Searches divisor pairs up to √u. `None` when `at_least` > u.
pub fn smallest_divisor_at_least(u: u64, at_least: u64) -> Option<u64> {
    let mut best: Option<u64> = None;
    let mut i: u64 = 1;
    while i.checked_mul(i).is_some_and(|sq| sq <= u) {
        if u.is_multiple_of(i) {
            for s in [Some(i), u.checked_div(i)].into_iter().flatten() {
                if s >= at_least && best.is_none_or(|b| s < b) {
                    best = Some(s);
                }
            }
        }
        i = i.checked_add(1)?;
    }
    best
}

/// Two-tier spines for `leaves` leaves of `u` uplinks on `k`-port spines:
/// the smallest S ≥ ⌈L·u/k⌉ dividing u (every leaf has u/S links to every spine; NVIDIA H100
/// SuperPOD 3 SU: 24 leaves → 16 spines), but never more than the same leaves would need at
/// 1:1 (the smallest divisor of ⌊k/2⌋ ≥ ⌈L·⌊k/2⌋/k⌉): when the divisor rule would exceed that
/// (u prime or awkward, e.g. u = 43), the 1:1 count is used and links spread as evenly as they
/// go (some leaf–spine pairs get one link more). So a cheaper ratio never adds spines.
pub fn two_tier_spines(leaves: u64, u: u64, k: u64) -> Option<u64> {
    let at_least = leaves.checked_mul(u)?.div_ceil(k.max(1));
    let by_divisor = smallest_divisor_at_least(u, at_least)?;
    let half = k / 2;
    if u >= half {
        return Some(by_divisor);
    }
    let cap_need = leaves.checked_mul(half)?.div_ceil(k.max(1));
    let cap = smallest_divisor_at_least(half, cap_need).unwrap_or(cap_need);
    Some(by_divisor.min(cap.max(at_least)))
}
